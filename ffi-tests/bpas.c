/* The BPAS layer (gpmp_bpas.h) from C11: DUZP_t layout and ownership (only coefs[0..lt] initialised,
 * malloc/realloc/free), products against a GMP schoolbook, normalisation, the zero polynomial, _inp
 * and PreAlloc reuse and growth, aliasing, and bad structs. Run under valgrind by tests/ffi.rs, so
 * every slot that is initialised, cleared or freed in the wrong place shows up as an error or leak. */
#define GPMP_BPAS_NAMES
#include "gpmp_bpas.h"
#include "common.h"

/* A polynomial built the way BPAS code does it: makePolynomial_DUZP, then mpz_init each new slot. */
static DUZP_t *poly_from(mpz_t *v, size_t n) {
  DUZP_t *p = makePolynomial_DUZP((long)n);
  mpz_set(p->coefs[0], v[0]);
  for (size_t i = 1; i < n; i++) mpz_init_set(p->coefs[i], v[i]);
  p->lt = (long)n - 1;
  return p;
}

/* p holds exactly the normalised polynomial want[0..n) (n = 0: zero), with lt = degree. */
static int poly_is(const DUZP_t *p, mpz_t *want, size_t n) {
  while (n > 0 && mpz_sgn(want[n - 1]) == 0) n--;
  if (p == NULL || p->alloc < p->lt + 1) return 0;
  if (n == 0) return p->lt == 0 && mpz_sgn(p->coefs[0]) == 0;
  if (p->lt != (long)n - 1) return 0;
  for (size_t i = 0; i < n; i++)
    if (mpz_cmp(p->coefs[i], want[i]) != 0) return 0;
  return 1;
}

static void test_make_free(void) {
  DUZP_t *p = gpmp_makePolynomial_DUZP(10);
  CHECK(p != NULL && p->alloc == 10 && p->lt == 0 && mpz_sgn(p->coefs[0]) == 0);
  gpmp_freePolynomial_DUZP(p);
  p = makePolynomial_DUZP(0);
  CHECK(p != NULL && p->alloc == 1 && p->lt == 0 && mpz_sgn(p->coefs[0]) == 0);
  freePolynomial_DUZP(p);
  p = makePolynomial_DUZP(-5);
  CHECK(p != NULL && p->alloc == 1 && p->lt == 0);
  freePolynomial_DUZP(p);
  freePolynomial_DUZP(NULL);

  /* a polynomial made by hand with malloc (BPAS's allocPolynomial_DUZP: lt = -1, nothing initialised) */
  p = (DUZP_t *)malloc(sizeof(DUZP_t));
  p->coefs = (mpz_t *)malloc(4 * sizeof(mpz_t));
  p->alloc = 4;
  p->lt = -1;
  freePolynomial_DUZP(p);
  /* and one of ours freed by hand, as BPAS's freePolynomial_DUZP does */
  p = makePolynomial_DUZP(3);
  mpz_init_set_ui(p->coefs[1], 7);
  p->lt = 1;
  mpz_clear(p->coefs[0]);
  mpz_clear(p->coefs[1]);
  free(p->coefs);
  free(p);
}

static void test_multiply(gmp_randstate_t r) {
  static const size_t lens[][2] = {{1, 1}, {1, 6}, {6, 1}, {2, 3}, {17, 40}, {64, 65}};
  for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
    size_t na = lens[l][0], nb = lens[l][1], nc = na + nb - 1;
    mpz_t *av = vec_new(na), *bv = vec_new(nb), *want = vec_new(nc);
    vec_random(av, na, r, 150);
    vec_random(bv, nb, r, 70);
    mpz_set_si(av[na - 1], -1 - (long)l); /* normalised inputs */
    mpz_set_si(bv[nb - 1], 3);
    schoolbook(want, av, na, bv, nb);
    DUZP_t *a = poly_from(av, na), *b = poly_from(bv, nb);

    DUZP_t *c = multiplyPolynomials_DUZP(a, b);
    CHECK(poly_is(c, want, nc));
    freePolynomial_DUZP(c);

    /* PreAlloc into NULL (created), into a too small one (realloc), into a larger one (slots cleared) */
    DUZP_t *d = NULL;
    multiplyPolynomialsPreAlloc_DUZP(a, b, &d);
    CHECK(poly_is(d, want, nc));
    freePolynomial_DUZP(d);
    d = makePolynomial_DUZP(1);
    multiplyPolynomialsPreAlloc_DUZP(a, b, &d);
    CHECK(poly_is(d, want, nc) && d->alloc >= (long)nc);
    multiplyPolynomialsPreAlloc_DUZP(a, b, &d); /* again, same size */
    CHECK(poly_is(d, want, nc));
    DUZP_t *big = poly_from(want, nc);
    multiplyPolynomials_DUZP_inp(big, &d); /* d = want², degree 2(nc−1) */
    multiplyPolynomialsPreAlloc_DUZP(a, b, &d); /* shrinks back: slots above nc−1 must be cleared */
    CHECK(poly_is(d, want, nc));
    freePolynomial_DUZP(big);
    freePolynomial_DUZP(d);

    /* _inp: b = a·b, growing b */
    DUZP_t *b2 = poly_from(bv, nb);
    multiplyPolynomials_DUZP_inp(a, &b2);
    CHECK(poly_is(b2, want, nc));
    freePolynomial_DUZP(b2);

    freePolynomial_DUZP(a);
    freePolynomial_DUZP(b);
    vec_free(av, na);
    vec_free(bv, nb);
    vec_free(want, nc);
  }
}

static void test_aliasing(gmp_randstate_t r) {
  const size_t n = 12;
  mpz_t *v = vec_new(n), *sq = vec_new(2 * n - 1), *v2 = vec_new(5), *prod = vec_new(n + 4);
  vec_random(v, n, r, 100);
  mpz_set_ui(v[n - 1], 5);
  vec_random(v2, 5, r, 100);
  mpz_set_si(v2[4], -9);
  schoolbook(sq, v, n, v, n);
  schoolbook(prod, v, n, v2, 5);

  DUZP_t *a = poly_from(v, n);
  multiplyPolynomials_DUZP_inp(a, &a); /* a = a² in place */
  CHECK(poly_is(a, sq, 2 * n - 1));
  freePolynomial_DUZP(a);

  a = poly_from(v, n);
  DUZP_t *b = poly_from(v2, 5);
  multiplyPolynomialsPreAlloc_DUZP(a, b, &a); /* *c == a */
  CHECK(poly_is(a, prod, n + 4));
  freePolynomial_DUZP(a);
  a = poly_from(v, n);
  multiplyPolynomialsPreAlloc_DUZP(a, b, &b); /* *c == b */
  CHECK(poly_is(b, prod, n + 4));
  multiplyPolynomialsPreAlloc_DUZP(a, a, &a); /* *c == a == b */
  CHECK(poly_is(a, sq, 2 * n - 1));
  freePolynomial_DUZP(a);
  freePolynomial_DUZP(b);

  vec_free(v, n);
  vec_free(sq, 2 * n - 1);
  vec_free(v2, 5);
  vec_free(prod, n + 4);
}

/* The zero polynomial (lt = 0, coefs[0] = 0), NULL operands, and inputs with leading zeros. */
static void test_zero_and_normalisation(void) {
  mpz_t *v = vec_new(4), *want = vec_new(4);
  mpz_set_si(v[0], 2);
  mpz_set_si(v[1], -3);
  mpz_set_si(v[2], 0);
  mpz_set_si(v[3], 0);
  DUZP_t *a = poly_from(v, 4); /* 2 − 3x with lt = 3 (leading zeros) */
  DUZP_t *zero = makePolynomial_DUZP(5);
  mpz_t *none = vec_new(1);

  DUZP_t *c = multiplyPolynomials_DUZP(a, zero);
  CHECK(poly_is(c, none, 0));
  freePolynomial_DUZP(c);
  CHECK(multiplyPolynomials_DUZP(a, NULL) == NULL);
  CHECK(multiplyPolynomials_DUZP(NULL, a) == NULL);

  c = multiplyPolynomials_DUZP(a, a); /* (2 − 3x)² = 4 − 12x + 9x², lt = 2 */
  mpz_set_si(want[0], 4);
  mpz_set_si(want[1], -12);
  mpz_set_si(want[2], 9);
  CHECK(poly_is(c, want, 3));

  /* PreAlloc: zero product into a non-zero c gives lt = 0, coefs[0] = 0, higher slots cleared */
  multiplyPolynomialsPreAlloc_DUZP(zero, a, &c);
  CHECK(poly_is(c, none, 0));
  multiplyPolynomialsPreAlloc_DUZP(a, a, &c);
  CHECK(poly_is(c, want, 3));
  multiplyPolynomialsPreAlloc_DUZP(NULL, a, &c); /* BPAS: NULL operand sets *c to zero */
  CHECK(poly_is(c, none, 0));
  DUZP_t *d = NULL;
  multiplyPolynomialsPreAlloc_DUZP(NULL, a, &d); /* ... and leaves a NULL *c NULL */
  CHECK(d == NULL);
  multiplyPolynomialsPreAlloc_DUZP(zero, a, &d); /* a zero product is created */
  CHECK(poly_is(d, none, 0));
  freePolynomial_DUZP(d);
  multiplyPolynomialsPreAlloc_DUZP(a, a, NULL); /* nothing to do */

  /* _inp: a zero operand frees *b and sets it to NULL (BPAS) */
  multiplyPolynomialsPreAlloc_DUZP(a, a, &c);
  CHECK(poly_is(c, want, 3));
  multiplyPolynomials_DUZP_inp(zero, &c);
  CHECK(c == NULL);
  multiplyPolynomials_DUZP_inp(a, &c); /* *b NULL is zero: stays NULL */
  CHECK(c == NULL);
  c = poly_from(v, 4);
  multiplyPolynomials_DUZP_inp(NULL, &c);
  CHECK(c == NULL);
  multiplyPolynomials_DUZP_inp(a, NULL);

  freePolynomial_DUZP(a);
  freePolynomial_DUZP(zero);
  vec_free(v, 4);
  vec_free(want, 4);
  vec_free(none, 1);
}

/* A struct with lt >= alloc is rejected: NULL / nothing written, gpmp_last_error set. */
static void test_bad_struct(void) {
  mpz_t *v = vec_new(3);
  mpz_set_si(v[0], 1);
  mpz_set_si(v[1], 1);
  mpz_set_si(v[2], 1);
  DUZP_t *a = poly_from(v, 3), *b = poly_from(v, 3);
  long alloc = a->alloc;
  a->alloc = 2; /* lt = 2 is not below alloc */

  reset_last_error();
  CHECK(gpmp_multiplyPolynomials_DUZP(a, b) == NULL);
  CHECK_LAST_ERROR("gpmp_multiplyPolynomials_DUZP");

  DUZP_t *b0 = b;
  mpz_ptr coefs0 = b->coefs[0];
  reset_last_error();
  gpmp_multiplyPolynomials_DUZP_inp(a, &b);
  CHECK_LAST_ERROR("gpmp_multiplyPolynomials_DUZP_inp");
  CHECK(b == b0 && b->coefs[0] == coefs0 && poly_is(b, v, 3));

  DUZP_t *c = NULL;
  reset_last_error();
  gpmp_multiplyPolynomialsPreAlloc_DUZP(b, a, &c);
  CHECK_LAST_ERROR("gpmp_multiplyPolynomialsPreAlloc_DUZP");
  CHECK(c == NULL);
  c = poly_from(v, 3);
  reset_last_error();
  gpmp_multiplyPolynomialsPreAlloc_DUZP(b, a, &c);
  CHECK_LAST_ERROR("gpmp_multiplyPolynomialsPreAlloc_DUZP");
  CHECK(poly_is(c, v, 3));

  /* a bad destination too, before anything is written to it */
  DUZP_t *bad = poly_from(v, 3);
  bad->alloc = 1;
  reset_last_error();
  gpmp_multiplyPolynomialsPreAlloc_DUZP(b, b, &bad);
  CHECK_LAST_ERROR("gpmp_multiplyPolynomialsPreAlloc_DUZP");
  CHECK(bad->lt == 2 && bad->alloc == 1);
  bad->alloc = 3;
  CHECK(poly_is(bad, v, 3));
  freePolynomial_DUZP(bad);

  a->alloc = alloc;
  freePolynomial_DUZP(a);
  freePolynomial_DUZP(b);
  freePolynomial_DUZP(c);
  vec_free(v, 3);
}

int main(void) {
  gmp_randstate_t r;
  gmp_randinit_default(r);
  gmp_randseed_ui(r, 7);
  test_make_free();
  test_multiply(r);
  test_aliasing(r);
  test_zero_and_normalisation();
  test_bad_struct();
  gmp_randclear(r);
  printf("bpas: %s (%d failed checks)\n", failures ? "FAILED" : "ok", failures);
  return failures != 0;
}
