/* Every gpmp_gfpf_* export from C11 against GMP arithmetic mod p: the built-in primes P3 and P4, new
 * with bad r/k, mpz conversions (negative, >= p), add/sub/mul/mul_pow_r, roots of unity, DFT against
 * the naive sum and the inverse, polynomial products against a schoolbook mod p, in both layouts,
 * and bad input (NULL, malformed digits, unknown layout) leaving outputs untouched.
 * Built and run by tests/ffi.rs (`cargo test`). */
#include "common.h"
#include <stdint.h>

#define NLAYOUTS 2
static const gpmp_layout LAYOUTS[NLAYOUTS] = {GPMP_LAYOUT_ROWS, GPMP_LAYOUT_DIGITS};

/* Word index of digit j of element i among n elements of k digits. */
static size_t at(gpmp_layout lay, size_t n, size_t k, size_t i, size_t j) {
  return lay == GPMP_LAYOUT_ROWS ? i * k + j : j * n + i;
}

typedef struct {
  struct gpmp_gfpf *F;
  uint64_t r;
  size_t k;
  mpz_t p;
} field;

static void field_init(field *f, struct gpmp_gfpf *F) {
  f->F = F;
  f->r = gpmp_gfpf_radix(F);
  f->k = gpmp_gfpf_k(F);
  mpz_init(f->p);
  gpmp_gfpf_prime(F, f->p);
}

static void field_clear(field *f) {
  mpz_clear(f->p);
  gpmp_gfpf_free(f->F);
}

/* v = Σ_j x_j r^j (Horner; the special form x_{k−1} = r of −1 gives r^k = p − 1 as well). */
static void value(const field *f, mpz_t v, const uint64_t *x, size_t n, size_t i, gpmp_layout lay) {
  mpz_set_ui(v, 0);
  for (size_t j = f->k; j-- > 0;) {
    mpz_mul_ui(v, v, f->r);
    mpz_add_ui(v, v, x[at(lay, n, f->k, i, j)]);
  }
}

/* The canonical digits of a mod p into element i. */
static void digits(const field *f, uint64_t *x, size_t n, size_t i, gpmp_layout lay, const mpz_t a) {
  mpz_t t;
  mpz_init(t);
  mpz_mod(t, a, f->p);
  mpz_add_ui(t, t, 1);
  int minus_one = mpz_cmp(t, f->p) == 0;
  mpz_sub_ui(t, t, 1);
  for (size_t j = 0; j < f->k; j++)
    x[at(lay, n, f->k, i, j)] = minus_one ? (j + 1 == f->k ? f->r : 0) : mpz_fdiv_q_ui(t, t, f->r);
  mpz_clear(t);
}

/* An element for test i: 0, 1, p − 1 (special form), r, 2, else random mod p. */
static void element(const field *f, mpz_t a, size_t i, gmp_randstate_t rs) {
  switch (i % 9) {
    case 0: mpz_set_ui(a, 0); break;
    case 1: mpz_set_ui(a, 1); break;
    case 2: mpz_sub_ui(a, f->p, 1); break;
    case 3: mpz_set_ui(a, f->r); break;
    case 4: mpz_set_ui(a, 2); break;
    default: mpz_urandomm(a, rs, f->p); break;
  }
}

/* Is element i of x equal to a mod p (and canonical)? */
static int elem_is(const field *f, const uint64_t *x, size_t n, size_t i, gpmp_layout lay, const mpz_t a) {
  mpz_t v, w;
  mpz_inits(v, w, NULL);
  value(f, v, x, n, i, lay);
  mpz_mod(w, a, f->p);
  int ok = mpz_cmp(v, w) == 0;
  for (size_t j = 0; j < f->k; j++) {
    uint64_t d = x[at(lay, n, f->k, i, j)];
    if (d > f->r || (d == f->r && (j + 1 != f->k || mpz_cmp_ui(w, 0) == 0))) ok = 0;
  }
  mpz_clears(v, w, NULL);
  return ok;
}

static uint64_t *words(size_t n, size_t k) { return (uint64_t *)calloc(n * k + 1, 8); }

static void test_builtin_and_new(void) {
  struct gpmp_gfpf *F = gpmp_gfpf_builtin(8);
  CHECK(F != NULL && gpmp_gfpf_k(F) == 8 && gpmp_gfpf_radix(F) == (1ull << 63) + (1ull << 34));
  field f;
  field_init(&f, F);
  mpz_t q;
  mpz_init(q);
  mpz_ui_pow_ui(q, f.r, 8);
  mpz_add_ui(q, q, 1);
  CHECK(mpz_cmp(q, f.p) == 0 && mpz_sizeinbase(q, 2) == 505);
  field_clear(&f);

  F = gpmp_gfpf_builtin(16);
  CHECK(F != NULL && gpmp_gfpf_k(F) == 16 && gpmp_gfpf_radix(F) == (1ull << 62) + (1ull << 36));
  field_init(&f, F);
  mpz_ui_pow_ui(q, f.r, 16);
  mpz_add_ui(q, q, 1);
  CHECK(mpz_cmp(q, f.p) == 0);
  field_clear(&f);

  for (unsigned k = 2; k <= 128; k *= 2) {
    F = gpmp_gfpf_builtin(k);
    CHECK(F != NULL && gpmp_gfpf_k(F) == k);
    gpmp_gfpf_free(F);
  }

  /* The checked constructor: P3 by value, 6^2 + 1 = 37; bad k, odd r, composite r^k + 1. */
  F = gpmp_gfpf_new((1ull << 63) + (1ull << 34), 8);
  CHECK(F != NULL && gpmp_gfpf_k(F) == 8);
  gpmp_gfpf_free(F);
  F = gpmp_gfpf_new(6, 2);
  CHECK(F != NULL && gpmp_gfpf_radix(F) == 6);
  gpmp_gfpf_free(F);
  const struct { uint64_t r; unsigned k; } bad[] = {{6, 3}, {6, 0}, {6, 512}, {7, 2}, {8, 2}, {0, 2}, {2, 1}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    reset_last_error();
    CHECK(gpmp_gfpf_new(bad[i].r, bad[i].k) == NULL);
    CHECK_LAST_ERROR("gpmp_gfpf_new");
  }
  const unsigned badk[] = {0, 1, 3, 256, 1024};
  for (size_t i = 0; i < sizeof badk / sizeof badk[0]; i++) {
    reset_last_error();
    CHECK(gpmp_gfpf_builtin(badk[i]) == NULL);
    CHECK_LAST_ERROR("gpmp_gfpf_builtin");
  }
  /* NULL field: zeros, nothing written, free ignores it. */
  CHECK(gpmp_gfpf_k(NULL) == 0 && gpmp_gfpf_radix(NULL) == 0);
  mpz_set_si(q, -77);
  gpmp_gfpf_prime(NULL, q);
  CHECK(mpz_cmp_si(q, -77) == 0);
  gpmp_gfpf_free(NULL);
  mpz_clear(q);
}

static void test_conversions(field *f, gmp_randstate_t rs) {
  const size_t n = 16, k = f->k;
  mpz_t *a = vec_new(n), *b = vec_new(n);
  mpz_set_ui(a[0], 0);
  mpz_set_si(a[1], -1);
  mpz_sub_ui(a[2], f->p, 1);
  mpz_set(a[3], f->p);
  mpz_add_ui(a[4], f->p, 1);
  mpz_neg(a[5], f->p);
  mpz_mul_ui(a[6], f->p, 2);
  mpz_add_ui(a[6], a[6], 5);
  mpz_ui_pow_ui(a[7], f->r, k); /* p − 1 */
  mpz_set_ui(a[8], f->r);
  mpz_neg(a[9], a[8]);
  mpz_urandomb(a[10], rs, 3 * mpz_sizeinbase(f->p, 2));
  mpz_neg(a[11], a[10]);
  mpz_urandomm(a[12], rs, f->p);
  mpz_neg(a[13], a[12]);
  mpz_set_si(a[14], 1);
  mpz_urandomb(a[15], rs, 64);
  for (int l = 0; l < NLAYOUTS; l++) {
    uint64_t *x = words(n, k);
    CHECK(gpmp_gfpf_from_mpz(f->F, x, (const mpz_t *)a, n, LAYOUTS[l]) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) CHECK(elem_is(f, x, n, i, LAYOUTS[l], a[i]));
    vec_poison(b, n);
    CHECK(gpmp_gfpf_to_mpz(f->F, b, x, n, LAYOUTS[l]) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) {
      mpz_t w;
      mpz_init(w);
      mpz_mod(w, a[i], f->p);
      CHECK(mpz_cmp(w, b[i]) == 0);
      mpz_clear(w);
    }
    free(x);
  }
  vec_free(a, n);
  vec_free(b, n);
}

static void test_ops(field *f, gmp_randstate_t rs) {
  const size_t n = 40, k = f->k;
  mpz_t *a = vec_new(n), *b = vec_new(n), w;
  mpz_init(w);
  for (size_t i = 0; i < n; i++) {
    element(f, a[i], i, rs);
    element(f, b[i], i / 9 + 7 * i, rs);
  }
  for (int l = 0; l < NLAYOUTS; l++) {
    gpmp_layout lay = LAYOUTS[l];
    uint64_t *x = words(n, k), *y = words(n, k), *z = words(n, k);
    for (size_t i = 0; i < n; i++) {
      digits(f, x, n, i, lay, a[i]);
      digits(f, y, n, i, lay, b[i]);
    }
    CHECK(gpmp_gfpf_add_n(f->F, z, x, y, n, lay) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) {
      mpz_add(w, a[i], b[i]);
      CHECK(elem_is(f, z, n, i, lay, w));
    }
    CHECK(gpmp_gfpf_sub_n(f->F, z, x, y, n, lay) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) {
      mpz_sub(w, a[i], b[i]);
      CHECK(elem_is(f, z, n, i, lay, w));
    }
    CHECK(gpmp_gfpf_mul_n(f->F, z, x, y, n, lay) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) {
      mpz_mul(w, a[i], b[i]);
      CHECK(elem_is(f, z, n, i, lay, w));
    }
    for (unsigned s = 0; s < 2 * k; s++) {
      CHECK(gpmp_gfpf_mul_pow_r_n(f->F, z, x, s, n, lay) == GPMP_SUCCESS);
      for (size_t i = 0; i < n; i++) {
        mpz_ui_pow_ui(w, f->r, s);
        mpz_mul(w, w, a[i]);
        CHECK(elem_is(f, z, n, i, lay, w));
      }
    }
    /* Aliasing: z = x. */
    memcpy(z, x, n * k * 8);
    CHECK(gpmp_gfpf_mul_n(f->F, z, z, y, n, lay) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) {
      mpz_mul(w, a[i], b[i]);
      CHECK(elem_is(f, z, n, i, lay, w));
    }
    memcpy(z, x, n * k * 8);
    CHECK(gpmp_gfpf_add_n(f->F, z, z, z, n, lay) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) {
      mpz_mul_2exp(w, a[i], 1);
      CHECK(elem_is(f, z, n, i, lay, w));
    }
    /* n = 0 writes nothing and accepts NULL vectors. */
    CHECK(gpmp_gfpf_add_n(f->F, NULL, NULL, NULL, 0, lay) == GPMP_SUCCESS);
    free(x);
    free(y);
    free(z);
  }
  mpz_clear(w);
  vec_free(a, n);
  vec_free(b, n);
}

static void test_roots_and_dft(field *f, gmp_randstate_t rs) {
  const size_t k = f->k;
  mpz_t w, t, e;
  mpz_inits(w, t, e, NULL);
  uint64_t *om = words(1, k);
  for (size_t N = 2 * k; N <= 4096; N *= 2) {
    CHECK(gpmp_gfpf_root_of_unity(f->F, N, om) == GPMP_SUCCESS);
    value(f, w, om, 1, 0, GPMP_LAYOUT_ROWS);
    mpz_powm_ui(t, w, N, f->p);
    CHECK(mpz_cmp_ui(t, 1) == 0);
    mpz_powm_ui(t, w, N / 2, f->p); /* primitive: ω^(N/2) = −1 */
    mpz_add_ui(t, t, 1);
    CHECK(mpz_cmp(t, f->p) == 0);
    mpz_powm_ui(t, w, N / (2 * k), f->p); /* ω^(N/2k) = r */
    CHECK(mpz_cmp_ui(t, f->r) == 0);
  }

  for (size_t N = 2 * k; N <= 1024; N *= 4) {
    CHECK(gpmp_gfpf_root_of_unity(f->F, N, om) == GPMP_SUCCESS);
    value(f, w, om, 1, 0, GPMP_LAYOUT_ROWS);
    mpz_t *a = vec_new(N);
    for (size_t i = 0; i < N; i++) element(f, a[i], i, rs);
    for (int l = 0; l < NLAYOUTS; l++) {
      gpmp_layout lay = LAYOUTS[l];
      uint64_t *x = words(N, k), *x0 = words(N, k);
      for (size_t i = 0; i < N; i++) digits(f, x, N, i, lay, a[i]);
      memcpy(x0, x, N * k * 8);
      CHECK(gpmp_gfpf_dft(f->F, x, N, om, lay) == GPMP_SUCCESS);
      if (N <= 64) {
        for (size_t i = 0; i < N; i++) { /* naive Σ_j a_j ω^(ij) */
          mpz_set_ui(t, 0);
          for (size_t j = 0; j < N; j++) {
            mpz_powm_ui(e, w, (unsigned long)((i * j) % N), f->p);
            mpz_addmul(t, e, a[j]);
          }
          CHECK(elem_is(f, x, N, i, lay, t));
        }
      }
      CHECK(gpmp_gfpf_idft(f->F, x, N, om, lay) == GPMP_SUCCESS);
      CHECK(memcmp(x, x0, N * k * 8) == 0);
      /* ω = 1 is not primitive: error, x untouched. */
      uint64_t *one = words(1, k);
      one[0] = 1;
      reset_last_error();
      CHECK(gpmp_gfpf_dft(f->F, x, N, one, lay) == GPMP_INVALID_ARGUMENT);
      CHECK_LAST_ERROR("gpmp_gfpf_dft");
      CHECK(memcmp(x, x0, N * k * 8) == 0);
      reset_last_error();
      CHECK(gpmp_gfpf_idft(f->F, x, N + 1, om, lay) == GPMP_INVALID_ARGUMENT);
      CHECK_LAST_ERROR("gpmp_gfpf_idft");
      CHECK(memcmp(x, x0, N * k * 8) == 0);
      free(one);
      free(x);
      free(x0);
    }
    vec_free(a, N);
  }
  /* Bad N for the root: below 2k, not a power of 2. */
  uint64_t before = om[0] = 12345;
  reset_last_error();
  CHECK(gpmp_gfpf_root_of_unity(f->F, k, om) == GPMP_INVALID_ARGUMENT);
  CHECK_LAST_ERROR("gpmp_gfpf_root_of_unity");
  CHECK(gpmp_gfpf_root_of_unity(f->F, 3 * k, om) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_gfpf_root_of_unity(f->F, 2 * k, NULL) == GPMP_INVALID_ARGUMENT);
  CHECK(om[0] == before);
  free(om);
  mpz_clears(w, t, e, NULL);
}

static void test_poly_mul(field *f, gmp_randstate_t rs) {
  const size_t k = f->k;
  const size_t lens[][2] = {{1, 1}, {3, 5}, {1, 40}, {17, 17}, {40, 33}, {100, 70}};
  for (size_t c = 0; c < sizeof lens / sizeof lens[0]; c++) {
    size_t fl = lens[c][0], gl = lens[c][1], hl = fl + gl - 1;
    mpz_t *a = vec_new(fl), *b = vec_new(gl), *want = vec_new(hl);
    for (size_t i = 0; i < fl; i++) element(f, a[i], i + c, rs);
    for (size_t i = 0; i < gl; i++) element(f, b[i], 3 * i + c, rs);
    schoolbook(want, a, fl, b, gl);
    uint64_t *x = words(hl, k), *y = words(gl, k), *h = words(hl, k);
    for (size_t i = 0; i < fl; i++) digits(f, x, fl, i, GPMP_LAYOUT_ROWS, a[i]);
    for (size_t i = 0; i < gl; i++) digits(f, y, gl, i, GPMP_LAYOUT_ROWS, b[i]);
    CHECK(gpmp_gfpf_poly_mul(f->F, h, x, fl, y, gl) == GPMP_SUCCESS);
    for (size_t i = 0; i < hl; i++) CHECK(elem_is(f, h, hl, i, GPMP_LAYOUT_ROWS, want[i]));
    /* h aliases f (x has room for hl elements). */
    CHECK(gpmp_gfpf_poly_mul(f->F, x, x, fl, y, gl) == GPMP_SUCCESS);
    CHECK(memcmp(x, h, hl * k * 8) == 0);
    /* An empty factor writes nothing. */
    CHECK(gpmp_gfpf_poly_mul(f->F, h, x, 0, y, gl) == GPMP_SUCCESS);
    CHECK(gpmp_gfpf_poly_mul(f->F, h, x, fl, y, 0) == GPMP_SUCCESS);
    for (size_t i = 0; i < hl; i++) CHECK(elem_is(f, h, hl, i, GPMP_LAYOUT_ROWS, want[i]));
    free(x);
    free(y);
    free(h);
    vec_free(a, fl);
    vec_free(b, gl);
    vec_free(want, hl);
  }
}

/* NULL field or vectors, malformed digits, layout 7: GPMP_INVALID_ARGUMENT, the function named in the
 * last error, outputs untouched. */
static void test_bad_input(field *f) {
  const size_t k = f->k, n = 2 * k; /* room for a transform of size 2k */
  uint64_t *x = words(n, k), *y = words(n, k), *z = words(n, k), *z0 = words(n, k), *om = words(1, k);
  for (size_t i = 0; i < n * k; i++) {
    x[i] = i % 3;
    z[i] = z0[i] = 1000 + i;
  }
  CHECK(gpmp_gfpf_root_of_unity(f->F, 2 * k, om) == GPMP_SUCCESS);
  uint64_t *bad = words(n, k); /* a digit ≥ r, and a malformed −1 (x_{k−1} = r with a nonzero digit) */
  bad[k] = f->r; /* digit 0 = r */
  bad[2 * k] = UINT64_MAX;
  bad[3 * k] = 1;
  bad[4 * k - 1] = f->r;
  mpz_t *a = vec_new(n), *a0 = vec_new(n);
  vec_poison(a, n);
  vec_poison(a0, n);
  const gpmp_layout L7 = (gpmp_layout)7;

#define BAD(call, fn)                               \
  do {                                              \
    reset_last_error();                             \
    CHECK((call) == GPMP_INVALID_ARGUMENT);         \
    CHECK_LAST_ERROR(fn);                           \
    CHECK(memcmp(z, z0, n * k * 8) == 0);           \
    CHECK(vec_equal(a, a0, n));                     \
  } while (0)

  for (int l = 0; l < NLAYOUTS + 1; l++) {
    gpmp_layout lay = l < NLAYOUTS ? LAYOUTS[l] : L7;
    int badlay = l == NLAYOUTS;
    if (badlay) {
      BAD(gpmp_gfpf_from_mpz(f->F, z, (const mpz_t *)a, n, lay), "gpmp_gfpf_from_mpz");
      BAD(gpmp_gfpf_to_mpz(f->F, a, x, n, lay), "gpmp_gfpf_to_mpz");
      BAD(gpmp_gfpf_add_n(f->F, z, x, y, n, lay), "gpmp_gfpf_add_n");
      BAD(gpmp_gfpf_sub_n(f->F, z, x, y, n, lay), "gpmp_gfpf_sub_n");
      BAD(gpmp_gfpf_mul_n(f->F, z, x, y, n, lay), "gpmp_gfpf_mul_n");
      BAD(gpmp_gfpf_mul_pow_r_n(f->F, z, x, 1, n, lay), "gpmp_gfpf_mul_pow_r_n");
      BAD(gpmp_gfpf_dft(f->F, z, 2 * k, om, lay), "gpmp_gfpf_dft");
      BAD(gpmp_gfpf_idft(f->F, z, 2 * k, om, lay), "gpmp_gfpf_idft");
      continue;
    }
    /* NULL field. */
    BAD(gpmp_gfpf_from_mpz(NULL, z, (const mpz_t *)a, n, lay), "gpmp_gfpf_from_mpz");
    BAD(gpmp_gfpf_to_mpz(NULL, a, x, n, lay), "gpmp_gfpf_to_mpz");
    BAD(gpmp_gfpf_add_n(NULL, z, x, y, n, lay), "gpmp_gfpf_add_n");
    BAD(gpmp_gfpf_sub_n(NULL, z, x, y, n, lay), "gpmp_gfpf_sub_n");
    BAD(gpmp_gfpf_mul_n(NULL, z, x, y, n, lay), "gpmp_gfpf_mul_n");
    BAD(gpmp_gfpf_mul_pow_r_n(NULL, z, x, 1, n, lay), "gpmp_gfpf_mul_pow_r_n");
    BAD(gpmp_gfpf_root_of_unity(NULL, 2 * k, z), "gpmp_gfpf_root_of_unity");
    BAD(gpmp_gfpf_dft(NULL, z, 2 * k, om, lay), "gpmp_gfpf_dft");
    BAD(gpmp_gfpf_idft(NULL, z, 2 * k, om, lay), "gpmp_gfpf_idft");
    BAD(gpmp_gfpf_poly_mul(NULL, z, x, 2, y, 2), "gpmp_gfpf_poly_mul");
    /* NULL vectors. */
    BAD(gpmp_gfpf_from_mpz(f->F, NULL, (const mpz_t *)a, n, lay), "gpmp_gfpf_from_mpz");
    BAD(gpmp_gfpf_from_mpz(f->F, z, NULL, n, lay), "gpmp_gfpf_from_mpz");
    BAD(gpmp_gfpf_to_mpz(f->F, NULL, x, n, lay), "gpmp_gfpf_to_mpz");
    BAD(gpmp_gfpf_to_mpz(f->F, a, NULL, n, lay), "gpmp_gfpf_to_mpz");
    BAD(gpmp_gfpf_add_n(f->F, NULL, x, y, n, lay), "gpmp_gfpf_add_n");
    BAD(gpmp_gfpf_add_n(f->F, z, NULL, y, n, lay), "gpmp_gfpf_add_n");
    BAD(gpmp_gfpf_sub_n(f->F, z, x, NULL, n, lay), "gpmp_gfpf_sub_n");
    BAD(gpmp_gfpf_mul_n(f->F, z, x, NULL, n, lay), "gpmp_gfpf_mul_n");
    BAD(gpmp_gfpf_mul_pow_r_n(f->F, z, NULL, 1, n, lay), "gpmp_gfpf_mul_pow_r_n");
    BAD(gpmp_gfpf_dft(f->F, NULL, 2 * k, om, lay), "gpmp_gfpf_dft");
    BAD(gpmp_gfpf_dft(f->F, z, 2 * k, NULL, lay), "gpmp_gfpf_dft");
    BAD(gpmp_gfpf_idft(f->F, NULL, 2 * k, om, lay), "gpmp_gfpf_idft");
    BAD(gpmp_gfpf_poly_mul(f->F, NULL, x, 2, y, 2), "gpmp_gfpf_poly_mul");
    BAD(gpmp_gfpf_poly_mul(f->F, z, NULL, 2, y, 2), "gpmp_gfpf_poly_mul");
    BAD(gpmp_gfpf_poly_mul(f->F, z, x, 2, NULL, 2), "gpmp_gfpf_poly_mul");
    /* Malformed digits (either operand), s ≥ 2k. */
    BAD(gpmp_gfpf_to_mpz(f->F, a, bad, n, lay), "gpmp_gfpf_to_mpz");
    BAD(gpmp_gfpf_add_n(f->F, z, bad, y, n, lay), "gpmp_gfpf_add_n");
    BAD(gpmp_gfpf_sub_n(f->F, z, x, bad, n, lay), "gpmp_gfpf_sub_n");
    BAD(gpmp_gfpf_mul_n(f->F, z, x, bad, n, lay), "gpmp_gfpf_mul_n");
    BAD(gpmp_gfpf_mul_pow_r_n(f->F, z, bad, 1, n, lay), "gpmp_gfpf_mul_pow_r_n");
    BAD(gpmp_gfpf_mul_pow_r_n(f->F, z, x, (unsigned)(2 * k), n, lay), "gpmp_gfpf_mul_pow_r_n");
    BAD(gpmp_gfpf_poly_mul(f->F, z, bad, 2, y, 2), "gpmp_gfpf_poly_mul");
    BAD(gpmp_gfpf_poly_mul(f->F, z, x, 2, bad + k, 1), "gpmp_gfpf_poly_mul");
    BAD(gpmp_gfpf_dft(f->F, z, 2 * k, bad + k, lay), "gpmp_gfpf_dft"); /* malformed ω */
    BAD(gpmp_gfpf_dft(f->F, z, 2 * k, bad, lay), "gpmp_gfpf_dft");     /* ω = 0 */
  }
  /* A malformed element in a transform's input. */
  uint64_t *big = words(2 * k, k);
  for (size_t i = 0; i < 2 * k * k; i++) big[i] = 0;
  big[k] = f->r; /* element 1, digit 0 */
  uint64_t *big0 = words(2 * k, k);
  memcpy(big0, big, 2 * k * k * 8);
  reset_last_error();
  CHECK(gpmp_gfpf_dft(f->F, big, 2 * k, om, GPMP_LAYOUT_ROWS) == GPMP_INVALID_ARGUMENT);
  CHECK_LAST_ERROR("gpmp_gfpf_dft");
  CHECK(memcmp(big, big0, 2 * k * k * 8) == 0);
#undef BAD
  free(big);
  free(big0);
  free(bad);
  free(x);
  free(y);
  free(z);
  free(z0);
  free(om);
  vec_free(a, n);
  vec_free(a0, n);
}

int main(void) {
  gmp_randstate_t rs;
  gmp_randinit_default(rs);
  gmp_randseed_ui(rs, 0x6f9f);
  test_builtin_and_new();
  const unsigned ks[] = {8, 16, 2, 64};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
    field f;
    field_init(&f, gpmp_gfpf_builtin(ks[i]));
    test_conversions(&f, rs);
    test_ops(&f, rs);
    test_roots_and_dft(&f, rs);
    test_poly_mul(&f, rs);
    test_bad_input(&f);
    field_clear(&f);
  }
  gmp_randclear(rs);
  if (failures) {
    fprintf(stderr, "gfpf.c: %d checks failed\n", failures);
    return 1;
  }
  printf("gfpf.c: all checks passed\n");
  return 0;
}
