/* gpmp_zvec from C11: lifecycle (new, set, get, free, free(NULL)), add/sub/mul/mulmod/powm against GMP
 * with aliasing (r == a, r == a == b), and the fit rules: an element or result wider than the
 * destination gives GPMP_SIZE_TOO_LARGE and changes nothing; wrong lengths, NULL and m <= 1 give
 * GPMP_INVALID_ARGUMENT. Run under valgrind by tests/ffi.rs. */
#include "common.h"

/* v holds want[0..n). */
static int zvec_is(const gpmp_zvec *v, mpz_t *want, size_t n) {
  mpz_t *got = vec_new(n);
  vec_poison(got, n);
  int ok = gpmp_zvec_get_mpz(got, v, n) == GPMP_SUCCESS && vec_equal(got, want, n);
  vec_free(got, n);
  return ok;
}

int main(void) {
  gmp_randstate_t rs;
  gmp_randinit_default(rs);
  gmp_randseed_ui(rs, 7);
  const size_t n = 67, bits = 300;
  mpz_t *a = vec_new(n), *b = vec_new(n), *want = vec_new(n), *t = vec_new(n);
  mpz_t m;
  mpz_init(m);
  vec_random(a, n, rs, bits - 1);
  vec_random(b, n, rs, bits - 1);
  mpz_set_ui(a[0], 0), mpz_setbit(a[0], bits - 1), mpz_sub_ui(a[0], a[0], 1); /* bits − 1 bits: 4·a[0] needs bits + 1 */
  gpmp_zvec_free(NULL);

  gpmp_zvec *va = gpmp_zvec_new(n, bits), *vb = gpmp_zvec_new(n, bits), *vr = gpmp_zvec_new(n, 2 * bits);
  CHECK(va && vb && vr);
  vec_poison(want, n);
  for (size_t i = 0; i < n; i++) mpz_set_ui(want[i], 0);
  CHECK(zvec_is(va, want, n)); /* zeros */
  CHECK(gpmp_zvec_set_mpz(va, a, n) == GPMP_SUCCESS && zvec_is(va, a, n));
  CHECK(gpmp_zvec_set_mpz(vb, b, n) == GPMP_SUCCESS && zvec_is(vb, b, n));

  /* an element too wide: SIZE_TOO_LARGE, va unchanged */
  vec_copy(t, a, n);
  mpz_set_ui(t[n / 2], 1), mpz_mul_2exp(t[n / 2], t[n / 2], bits);
  CHECK(gpmp_zvec_set_mpz(va, t, n) == GPMP_SIZE_TOO_LARGE && zvec_is(va, a, n));
  CHECK(gpmp_zvec_set_mpz(va, a, n - 1) == GPMP_INVALID_ARGUMENT && zvec_is(va, a, n));
  CHECK(gpmp_zvec_set_mpz(NULL, a, n) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_zvec_get_mpz(t, va, n + 1) == GPMP_INVALID_ARGUMENT);

  for (size_t i = 0; i < n; i++) mpz_add(want[i], a[i], b[i]);
  CHECK(gpmp_zvec_add(vr, va, vb) == GPMP_SUCCESS && zvec_is(vr, want, n));
  for (size_t i = 0; i < n; i++) mpz_sub(want[i], a[i], b[i]);
  CHECK(gpmp_zvec_sub(vr, va, vb) == GPMP_SUCCESS && zvec_is(vr, want, n));
  for (size_t i = 0; i < n; i++) mpz_mul(want[i], a[i], b[i]);
  CHECK(gpmp_zvec_mul(vr, va, vb) == GPMP_SUCCESS && zvec_is(vr, want, n));
  /* r needs bits >= a.bits + b.bits */
  CHECK(gpmp_zvec_mul(va, va, vb) == GPMP_SIZE_TOO_LARGE && zvec_is(va, a, n));

  /* aliasing: va = va + va, then back with va = va - vb ... */
  gpmp_zvec *vs = gpmp_zvec_new(n, bits);
  CHECK(gpmp_zvec_set_mpz(vs, a, n) == GPMP_SUCCESS);
  for (size_t i = 0; i < n; i++) mpz_mul_2exp(want[i], a[i], 1);
  CHECK(gpmp_zvec_add(vs, vs, vs) == GPMP_SUCCESS && zvec_is(vs, want, n));
  /* a sum that does not fit: unchanged */
  CHECK(gpmp_zvec_add(vs, vs, vs) == GPMP_SIZE_TOO_LARGE && zvec_is(vs, want, n));
  for (size_t i = 0; i < n; i++) mpz_sub(want[i], want[i], want[i]);
  CHECK(gpmp_zvec_sub(vs, vs, vs) == GPMP_SUCCESS && zvec_is(vs, want, n));

  /* mulmod and powm with odd and even moduli; r == a */
  for (int k = 0; k < 2; k++) {
    mpz_urandomb(m, rs, bits);
    mpz_setbit(m, bits - 1);
    if (k) mpz_clrbit(m, 0); else mpz_setbit(m, 0);
    for (size_t i = 0; i < n; i++) mpz_mul(want[i], a[i], b[i]), mpz_mod(want[i], want[i], m);
    CHECK(gpmp_zvec_mulmod(vr, va, vb, m) == GPMP_SUCCESS && zvec_is(vr, want, n));
    gpmp_zvec *ve = gpmp_zvec_new(n, 64), *vx = gpmp_zvec_new(n, bits);
    for (size_t i = 0; i < n; i++) mpz_set_ui(t[i], gmp_urandomm_ui(rs, 1000) * (i % 5 != 0));
    CHECK(gpmp_zvec_set_mpz(ve, t, n) == GPMP_SUCCESS && gpmp_zvec_set_mpz(vx, a, n) == GPMP_SUCCESS);
    for (size_t i = 0; i < n; i++) mpz_powm(want[i], a[i], t[i], m);
    CHECK(gpmp_zvec_powm(vx, vx, ve, m) == GPMP_SUCCESS && zvec_is(vx, want, n));
    /* negative exponent, m <= 1, NULL m: unchanged */
    mpz_set_si(t[3], -2);
    CHECK(gpmp_zvec_set_mpz(ve, t, n) == GPMP_SUCCESS);
    CHECK(gpmp_zvec_powm(vx, va, ve, m) == GPMP_INVALID_ARGUMENT && zvec_is(vx, want, n));
    mpz_set_ui(m, 1);
    CHECK(gpmp_zvec_mulmod(vx, va, vb, m) == GPMP_INVALID_ARGUMENT && zvec_is(vx, want, n));
    CHECK(gpmp_zvec_mulmod(vx, va, vb, NULL) == GPMP_INVALID_ARGUMENT && zvec_is(vx, want, n));
    gpmp_zvec_free(ve);
    gpmp_zvec_free(vx);
  }
  /* results of mulmod too wide for a small destination */
  gpmp_zvec *small = gpmp_zvec_new(n, 8);
  mpz_set_ui(m, 0), mpz_setbit(m, 200), mpz_add_ui(m, m, 1);
  for (size_t i = 0; i < n; i++) mpz_set_ui(want[i], 0);
  CHECK(gpmp_zvec_mulmod(small, va, vb, m) == GPMP_SIZE_TOO_LARGE && zvec_is(small, want, n));
  /* length mismatch */
  gpmp_zvec *other = gpmp_zvec_new(n + 1, bits);
  CHECK(gpmp_zvec_add(vr, va, other) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_zvec_add(other, va, vb) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_zvec_add(NULL, va, vb) == GPMP_INVALID_ARGUMENT);
  /* empty vectors */
  gpmp_zvec *e0 = gpmp_zvec_new(0, 64);
  CHECK(e0 != NULL && gpmp_zvec_add(e0, e0, e0) == GPMP_SUCCESS && gpmp_zvec_set_mpz(e0, NULL, 0) == GPMP_SUCCESS);
  CHECK(gpmp_zvec_get_mpz(NULL, e0, 0) == GPMP_SUCCESS);
  /* impossible sizes: NULL */
  CHECK(gpmp_zvec_new((size_t)1 << 62, 1 << 20) == NULL);

  gpmp_zvec_free(e0), gpmp_zvec_free(other), gpmp_zvec_free(small), gpmp_zvec_free(vs);
  gpmp_zvec_free(va), gpmp_zvec_free(vb), gpmp_zvec_free(vr);
  vec_free(a, n), vec_free(b, n), vec_free(want, n), vec_free(t, n);
  mpz_clear(m);
  gmp_randclear(rs);
  if (failures) {
    fprintf(stderr, "zvec: %d failures\n", failures);
    return 1;
  }
  printf("zvec: all checks passed\n");
  return 0;
}
