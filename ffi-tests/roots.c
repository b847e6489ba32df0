/* Self-checking C test of gpmp_poly_taylor_shift*, gpmp_poly_scale_shift*, gpmp_nmod_poly_taylor_shift
 * and gpmp_poly_real_roots* / gpmp_poly_count_real_roots* against GMP oracles (the binomial formula,
 * signs of the square-free part at interval ends). Exit 0 on success. */
#include "common.h"
#include <stdint.h>

typedef unsigned __int128 u128;

/* g_k = sum_{i>=k} f_i C(i,k) c^(i-k) 2^(k2 (d-i)): the scale-shift (k2 = 0: the Taylor shift). */
static void oracle_shift(mpz_t *g, mpz_t *f, size_t n, unsigned long k2, const mpz_t c) {
  mpz_t t, pw;
  mpz_init(t);
  mpz_init(pw);
  for (size_t k = 0; k < n; k++) {
    mpz_set_ui(g[k], 0);
    for (size_t i = k; i < n; i++) {
      mpz_bin_uiui(t, i, k);
      mpz_pow_ui(pw, c, i - k);
      mpz_mul(t, t, pw);
      mpz_mul(t, t, f[i]);
      mpz_mul_2exp(t, t, k2 * (n - 1 - i));
      mpz_add(g[k], g[k], t);
    }
  }
  mpz_clear(t);
  mpz_clear(pw);
}

static void test_shifts(void) {
  gmp_randstate_t r;
  gmp_randinit_default(r);
  gmp_randseed_ui(r, 24);
  size_t lens[] = {1, 2, 5, 30, 150};
  long cs[] = {0, 1, -1, 7, -1000000007L};
  for (size_t li = 0; li < 5; li++) {
    size_t n = lens[li];
    for (size_t ci = 0; ci < 5; ci++) {
      mpz_t c;
      mpz_init_set_si(c, cs[ci]);
      if (ci == 4) mpz_mul_2exp(c, c, 70); /* a multi-limb c */
      mpz_t *f = vec_new(n), *g = vec_new(n), *w = vec_new(n), *h = vec_new(n);
      for (size_t i = 0; i < n; i++) coef_random(f[i], r, 1 + (i * 37) % 200);
      oracle_shift(w, f, n, 0, c);
      vec_poison(g, n);
      CHECK(gpmp_poly_taylor_shift(g, (const mpz_t *)f, n, c) == GPMP_SUCCESS);
      CHECK(vec_equal(g, w, n));
      /* in place */
      vec_copy(h, f, n);
      CHECK(gpmp_poly_taylor_shift(h, (const mpz_t *)h, n, c) == GPMP_SUCCESS);
      CHECK(vec_equal(h, w, n));
      /* pointer arrays, in place */
      mpz_ptr *hp = malloc(n * sizeof(mpz_ptr));
      vec_copy(h, f, n);
      for (size_t i = 0; i < n; i++) hp[i] = h[i];
      CHECK(gpmp_poly_taylor_shift_ptr(hp, (const mpz_srcptr *)hp, n, c) == GPMP_SUCCESS);
      CHECK(vec_equal(h, w, n));
      /* the scale-shift, k = 3, array and pointers */
      oracle_shift(w, f, n, 3, c);
      CHECK(gpmp_poly_scale_shift(g, (const mpz_t *)f, n, 3, c) == GPMP_SUCCESS);
      CHECK(vec_equal(g, w, n));
      vec_copy(h, f, n);
      CHECK(gpmp_poly_scale_shift_ptr(hp, (const mpz_srcptr *)hp, n, 3, c) == GPMP_SUCCESS);
      CHECK(vec_equal(h, w, n));
      free(hp);
      vec_free(f, n);
      vec_free(g, n);
      vec_free(w, n);
      vec_free(h, n);
      mpz_clear(c);
    }
  }
  /* Bad input: NULL f with a length, NULL c; outputs untouched. */
  mpz_t *g = vec_new(3), *keep = vec_new(3);
  mpz_t one;
  mpz_init_set_ui(one, 1);
  vec_poison(g, 3);
  vec_copy(keep, g, 3);
  CHECK(gpmp_poly_taylor_shift(g, NULL, 3, one) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_poly_taylor_shift(g, (const mpz_t *)keep, 3, NULL) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_poly_scale_shift(NULL, (const mpz_t *)keep, 3, 1, one) == GPMP_INVALID_ARGUMENT);
  CHECK(vec_equal(g, keep, 3));
  CHECK(gpmp_poly_taylor_shift(NULL, NULL, 0, one) == GPMP_SUCCESS);
  mpz_clear(one);
  vec_free(g, 3);
  vec_free(keep, 3);
  gmp_randclear(r);
}

static void test_nmod_shift(void) {
  uint64_t p = 998244353, f[300], g[300], w[300];
  for (size_t n = 0; n <= 300; n += 60) {
    for (size_t i = 0; i < n; i++) f[i] = (i * 7919 + 13) % p;
    uint64_t c = 123456789;
    /* naive: Horner tableau in 128-bit arithmetic */
    for (size_t i = 0; i < n; i++) w[i] = f[i];
    for (size_t i = n; i-- > 1;)
      for (size_t j = i - 1; j + 1 < n; j++) w[j] = (uint64_t)(((u128)w[j] + (u128)c * w[j + 1]) % p);
    CHECK(gpmp_nmod_poly_taylor_shift(g, f, n, c, p) == GPMP_SUCCESS);
    CHECK(memcmp(g, w, n * sizeof(uint64_t)) == 0);
    CHECK(gpmp_nmod_poly_taylor_shift(f, f, n, c, p) == GPMP_SUCCESS);
    CHECK(memcmp(f, w, n * sizeof(uint64_t)) == 0);
  }
  g[0] = 5;
  f[0] = 1;
  f[1] = 2;
  CHECK(gpmp_nmod_poly_taylor_shift(g, f, 2, p, p) == GPMP_INVALID_ARGUMENT && g[0] == 5);
  CHECK(gpmp_nmod_poly_taylor_shift(g, f, 2, 1, 15) == GPMP_INVALID_ARGUMENT && g[0] == 5);
}

/* sign of f at the rational q */
static int sign_at(mpz_t *f, size_t n, const mpq_t q) {
  mpq_t acc, t;
  mpq_init(acc);
  mpq_init(t);
  for (size_t i = n; i-- > 0;) {
    mpq_mul(acc, acc, q);
    mpq_set_z(t, f[i]);
    mpq_add(acc, acc, t);
  }
  int s = mpq_sgn(acc);
  mpq_clear(acc);
  mpq_clear(t);
  return s;
}

/* a (degree *deg) <- a * (c0 + c1 x + c2 x^2) */
static void mul_factor(mpz_t *a, size_t *deg, long c0, long c1, long c2) {
  size_t fd = c2 ? 2 : 1, d = *deg;
  mpz_t *b = vec_new(d + fd + 1);
  long c[3] = {c0, c1, c2};
  for (size_t i = 0; i <= d; i++)
    for (size_t j = 0; j <= fd; j++) {
      if (c[j] >= 0) mpz_addmul_ui(b[i + j], a[i], (unsigned long)c[j]);
      else mpz_submul_ui(b[i + j], a[i], (unsigned long)-c[j]);
    }
  for (size_t i = 0; i <= d + fd; i++) mpz_set(a[i], b[i]);
  vec_free(b, d + fd + 1);
  *deg = d + fd;
}

static mpq_t *qvec_new(size_t n) {
  mpq_t *v = malloc((n ? n : 1) * sizeof(mpq_t));
  for (size_t i = 0; i < n; i++) {
    mpq_init(v[i]);
    mpq_set_si(v[i], 777, 3); /* poison */
  }
  return v;
}

static void qvec_free(mpq_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) mpq_clear(v[i]);
  free(v);
}

/* Checks the answer: sorted, disjoint closed intervals, points are roots of s, sign change of s
 * across each open interval, width <= 2^-prec. */
static void check_roots(mpq_t *lo, mpq_t *hi, size_t n, mpz_t *s, size_t slen, long prec) {
  mpq_t w, lim;
  mpq_init(w);
  mpq_init(lim);
  mpq_set_ui(lim, 1, 1);
  if (prec >= 0) mpq_div_2exp(lim, lim, (unsigned long)prec);
  for (size_t i = 0; i < n; i++) {
    int c = mpq_cmp(lo[i], hi[i]);
    CHECK(c <= 0);
    if (c == 0) {
      CHECK(sign_at(s, slen, lo[i]) == 0);
    } else {
      int a = sign_at(s, slen, lo[i]), b = sign_at(s, slen, hi[i]);
      CHECK(a != 0 && b != 0 && a != b);
      mpq_sub(w, hi[i], lo[i]);
      if (prec >= 0) CHECK(mpq_cmp(w, lim) <= 0);
    }
    if (i > 0) CHECK(mpq_cmp(hi[i - 1], lo[i]) < 0);
  }
  mpq_clear(w);
  mpq_clear(lim);
}

static void test_roots(void) {
  /* f = (x^2 - 2)^3 (3x - 1)^2 (2x + 1) x^2 (degree 13), square-free part s = (x^2 - 2)(3x - 1)(2x + 1)x */
  mpz_t *f = vec_new(14), *s = vec_new(6);
  size_t df = 0, ds = 0;
  mpz_set_ui(f[0], 1);
  mpz_set_ui(s[0], 1);
  for (int k = 0; k < 3; k++) mul_factor(f, &df, -2, 0, 1);
  for (int k = 0; k < 2; k++) mul_factor(f, &df, -1, 3, 0);
  mul_factor(f, &df, 1, 2, 0);
  mul_factor(f, &df, 0, 1, 0);
  mul_factor(f, &df, 0, 1, 0);
  mul_factor(s, &ds, -2, 0, 1);
  mul_factor(s, &ds, -1, 3, 0);
  mul_factor(s, &ds, 1, 2, 0);
  mul_factor(s, &ds, 0, 1, 0);
  size_t flen = df + 1, slen = ds + 1;
  size_t want_mult[5] = {3, 1, 2, 2, 3};
  long precs[3] = {-1, 0, 64};
  for (int t = 0; t < 3; t++) {
    mpq_t *lo = qvec_new(flen - 1), *hi = qvec_new(flen - 1);
    size_t mult[13], n = 99;
    CHECK(gpmp_poly_real_roots(lo, hi, mult, &n, (const mpz_t *)f, flen, precs[t]) == GPMP_SUCCESS);
    CHECK(n == 5);
    if (n == 5) {
      check_roots(lo, hi, n, s, slen, precs[t]);
      for (size_t i = 0; i < 5; i++) CHECK(mult[i] == want_mult[i]);
      CHECK(mpq_cmp_si(lo[1], -1, 2) == 0 && mpq_cmp_si(hi[1], -1, 2) == 0); /* -1/2 exactly */
      CHECK(mpq_sgn(lo[2]) == 0 && mpq_sgn(hi[2]) == 0);                     /* 0 exactly */
    }
    /* the pointer variant gives the same answer, without mult */
    mpq_t *lo2 = qvec_new(flen - 1), *hi2 = qvec_new(flen - 1);
    mpq_ptr *lp = malloc((flen - 1) * sizeof(mpq_ptr)), *hp = malloc((flen - 1) * sizeof(mpq_ptr));
    mpz_srcptr *fp = malloc(flen * sizeof(mpz_srcptr));
    for (size_t i = 0; i + 1 < flen; i++) lp[i] = lo2[i], hp[i] = hi2[i];
    for (size_t i = 0; i < flen; i++) fp[i] = f[i];
    size_t n2 = 0;
    CHECK(gpmp_poly_real_roots_ptr(lp, hp, NULL, &n2, fp, flen, precs[t]) == GPMP_SUCCESS && n2 == n);
    for (size_t i = 0; i < n2 && i < n; i++) CHECK(mpq_equal(lo[i], lo2[i]) && mpq_equal(hi[i], hi2[i]));
    size_t cnt = 0;
    CHECK(gpmp_poly_count_real_roots(&cnt, (const mpz_t *)f, flen) == GPMP_SUCCESS && cnt == 5);
    cnt = 0;
    CHECK(gpmp_poly_count_real_roots_ptr(&cnt, fp, flen) == GPMP_SUCCESS && cnt == 5);
    free(lp);
    free(hp);
    free(fp);
    qvec_free(lo, flen - 1);
    qvec_free(hi, flen - 1);
    qvec_free(lo2, flen - 1);
    qvec_free(hi2, flen - 1);
  }
  /* Bad input: the zero polynomial, NULL f, NULL nroots, NULL lo with roots; outputs untouched. */
  mpq_t *lo = qvec_new(2), *hi = qvec_new(2);
  mpz_t *z = vec_new(3);
  size_t n = 42, mult[2] = {7, 7};
  CHECK(gpmp_poly_real_roots(lo, hi, mult, &n, (const mpz_t *)z, 3, 10) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_poly_real_roots(lo, hi, mult, &n, NULL, 0, 10) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_poly_real_roots(lo, hi, mult, &n, NULL, 3, 10) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_poly_count_real_roots(&n, (const mpz_t *)z, 3) == GPMP_INVALID_ARGUMENT);
  mpz_set_si(z[0], -4);
  mpz_set_si(z[2], 1); /* x^2 - 4 */
  CHECK(gpmp_poly_real_roots(lo, hi, mult, NULL, (const mpz_t *)z, 3, 10) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_poly_real_roots(NULL, hi, mult, &n, (const mpz_t *)z, 3, 10) == GPMP_INVALID_ARGUMENT);
  CHECK(n == 42 && mult[0] == 7 && mpq_cmp_si(lo[0], 777, 3) == 0 && mpq_cmp_si(hi[1], 777, 3) == 0);
  CHECK(gpmp_poly_real_roots(lo, hi, mult, &n, (const mpz_t *)z, 3, 10) == GPMP_SUCCESS && n == 2);
  CHECK(mpq_cmp_si(lo[0], -2, 1) == 0 && mpq_cmp_si(hi[1], 2, 1) == 0 && mult[1] == 1);
  /* a nonzero constant: no roots, NULL outputs allowed */
  CHECK(gpmp_poly_real_roots(NULL, NULL, NULL, &n, (const mpz_t *)z, 1, 10) == GPMP_SUCCESS && n == 0);
  vec_free(z, 3);
  qvec_free(lo, 2);
  qvec_free(hi, 2);

  /* Chebyshev T_40: 40 roots in (-1, 1) */
  mpz_t *a = vec_new(41), *b = vec_new(41), *c = vec_new(41);
  mpz_set_ui(a[0], 1);
  mpz_set_ui(b[1], 1);
  for (int k = 1; k < 40; k++) {
    for (int i = 0; i <= 40; i++) mpz_set_ui(c[i], 0);
    for (int i = 0; i < 40; i++) mpz_mul_2exp(c[i + 1], b[i], 1);
    for (int i = 0; i <= 40; i++) mpz_sub(c[i], c[i], a[i]);
    vec_copy(a, b, 41);
    vec_copy(b, c, 41);
  }
  mpq_t *tl = qvec_new(40), *th = qvec_new(40);
  size_t tn = 0;
  CHECK(gpmp_poly_real_roots(tl, th, NULL, &tn, (const mpz_t *)b, 41, 53) == GPMP_SUCCESS && tn == 40);
  check_roots(tl, th, tn, b, 41, 53);
  qvec_free(tl, 40);
  qvec_free(th, 40);
  vec_free(a, 41);
  vec_free(b, 41);
  vec_free(c, 41);
  vec_free(f, 14);
  vec_free(s, 6);
}

int main(void) {
  test_shifts();
  test_nmod_shift();
  test_roots();
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("roots: all checks passed\n");
  return 0;
}
