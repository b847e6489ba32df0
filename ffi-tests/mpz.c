/* gpmp_mpz_*_n, gpmp_mpz_mul and gpmp_mpz_sqr from C11, element by element against GMP: mixed sizes
 * 1..8192 bits in one batch, edge values (0, ±1, ±(2^64k − 1), m − 1, −m), moduli 2, 3, 2^64, 2^100,
 * 2^128 − 1, even and odd random ones; aliasing r == a, r == b, r == a == b; n = 0 and 1; bad inputs
 * (NULL with n > 0, m <= 1, negative exponents) give the status and leave r untouched. */
#include "common.h"

typedef gpmp_status (*op_n)(mpz_t *, const mpz_t *, const mpz_t *, size_t);
typedef gpmp_status (*modop_n)(mpz_t *, const mpz_t *, const mpz_t *, mpz_srcptr, size_t);
typedef void (*gmp_op)(mpz_ptr, mpz_srcptr, mpz_srcptr);

/* A batch of n values of random sizes 1..max_bits with the adversarial kinds of coef_random. */
static void vec_mixed(mpz_t *v, size_t n, gmp_randstate_t r, unsigned long max_bits) {
  for (size_t i = 0; i < n; i++) {
    unsigned long bits = 1 + gmp_urandomm_ui(r, max_bits);
    if (gmp_urandomm_ui(r, 6) == 0) bits = 64 * (1 + gmp_urandomm_ui(r, max_bits / 64)); /* 2^64k − 1 */
    coef_random(v[i], r, bits);
  }
}

/* want[i] = a[i] op b[i] (plus want[i] when addmul), reduced mod m when m != NULL. */
static void oracle(mpz_t *want, mpz_t *a, mpz_t *b, size_t n, gmp_op op, int addmul, mpz_srcptr m) {
  mpz_t t;
  mpz_init(t);
  for (size_t i = 0; i < n; i++) {
    op(t, a[i], b[i]);
    if (addmul) mpz_add(want[i], want[i], t); else mpz_set(want[i], t);
    if (m) mpz_mod(want[i], want[i], m);
  }
  mpz_clear(t);
}

/* r = a op b with r distinct, r == a, r == b, and (with b = a) r == a == b. */
static void check_aliasing(const char *name, op_n f, modop_n fm, mpz_srcptr m, gmp_op op, int addmul, size_t n,
                           gmp_randstate_t rs, mpz_t *extra, size_t nextra) {
  mpz_t *a = vec_new(n), *b = vec_new(n), *r = vec_new(n), *want = vec_new(n), *r0 = vec_new(n);
  vec_mixed(a, n, rs, 8192);
  vec_mixed(b, n, rs, 8192);
  vec_mixed(r0, n, rs, 8192);
  for (size_t i = 0; i < nextra && i < n; i++) mpz_set(a[i], extra[i]), mpz_set(b[n - 1 - i], extra[i]);
#define CALL(R, A, B) (f ? f(R, (const mpz_t *)(A), (const mpz_t *)(B), n) : fm(R, (const mpz_t *)(A), (const mpz_t *)(B), m, n))
  /* distinct */
  vec_copy(r, r0, n);
  vec_copy(want, r0, n);
  oracle(want, a, b, n, op, addmul, m);
  CHECK(CALL(r, a, b) == GPMP_SUCCESS);
  if (!vec_equal(r, want, n)) fprintf(stderr, "%s: distinct\n", name), failures++;
  /* r == a */
  mpz_t *a2 = vec_new(n);
  vec_copy(a2, a, n);
  vec_copy(want, a, n);
  oracle(want, a, b, n, op, addmul, m);
  CHECK(CALL(a2, a2, b) == GPMP_SUCCESS);
  if (!vec_equal(a2, want, n)) fprintf(stderr, "%s: r == a\n", name), failures++;
  /* r == b */
  vec_copy(a2, b, n);
  vec_copy(want, b, n);
  oracle(want, a, b, n, op, addmul, m);
  CHECK(CALL(a2, a, a2) == GPMP_SUCCESS);
  if (!vec_equal(a2, want, n)) fprintf(stderr, "%s: r == b\n", name), failures++;
  /* r == a == b */
  vec_copy(a2, a, n);
  vec_copy(want, a, n);
  oracle(want, a, a, n, op, addmul, m);
  CHECK(CALL(a2, a2, a2) == GPMP_SUCCESS);
  if (!vec_equal(a2, want, n)) fprintf(stderr, "%s: r == a == b\n", name), failures++;
#undef CALL
  vec_free(a, n), vec_free(b, n), vec_free(r, n), vec_free(want, n), vec_free(r0, n), vec_free(a2, n);
}

static void mul_wrap(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_mul(r, a, b); }
static void add_wrap(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_add(r, a, b); }
static void sub_wrap(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_sub(r, a, b); }

static void test_plain(gmp_randstate_t rs) {
  size_t sizes[] = {0, 1, 2, 517};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    size_t n = sizes[k];
    check_aliasing("add_n", gpmp_mpz_add_n, NULL, NULL, add_wrap, 0, n, rs, NULL, 0);
    check_aliasing("sub_n", gpmp_mpz_sub_n, NULL, NULL, sub_wrap, 0, n, rs, NULL, 0);
    check_aliasing("mul_n", gpmp_mpz_mul_n, NULL, NULL, mul_wrap, 0, n, rs, NULL, 0);
    check_aliasing("addmul_n", gpmp_mpz_addmul_n, NULL, NULL, mul_wrap, 1, n, rs, NULL, 0);
  }
}

static void test_modular(gmp_randstate_t rs) {
  mpz_t m, t, extra[4];
  mpz_inits(m, t, extra[0], extra[1], extra[2], extra[3], NULL);
  for (int k = 0; k < 10; k++) {
    switch (k) {
      case 0: mpz_set_ui(m, 2); break;
      case 1: mpz_set_ui(m, 3); break;
      case 2: mpz_set_ui(m, 0); mpz_setbit(m, 64); break;
      case 3: mpz_set_ui(m, 0); mpz_setbit(m, 100); break;
      case 4: mpz_set_ui(m, 0); mpz_setbit(m, 128); mpz_sub_ui(m, m, 1); break;
      case 5: mpz_set_ui(m, 1000); break;
      case 6: mpz_urandomb(m, rs, 1000); mpz_setbit(m, 999); mpz_setbit(m, 0); break;
      case 7: mpz_urandomb(m, rs, 4096); mpz_setbit(m, 4095); mpz_clrbit(m, 0); break;
      case 8: mpz_urandomb(m, rs, 64); mpz_setbit(m, 63); mpz_setbit(m, 0); break;
      default: mpz_urandomb(m, rs, 8192); mpz_setbit(m, 8191); mpz_setbit(m, 0); break;
    }
    mpz_sub_ui(extra[0], m, 1);
    mpz_neg(extra[1], extra[0]);
    mpz_set(extra[2], m);
    mpz_neg(extra[3], m);
    size_t n = k % 3 == 0 ? 1 : 150;
    check_aliasing("addmod_n", NULL, gpmp_mpz_addmod_n, m, add_wrap, 0, n, rs, extra, 4);
    check_aliasing("submod_n", NULL, gpmp_mpz_submod_n, m, sub_wrap, 0, n, rs, extra, 4);
    check_aliasing("mulmod_n", NULL, gpmp_mpz_mulmod_n, m, mul_wrap, 0, n, rs, extra, 4);
    /* powm: exponents 0, 1, m − 1 and random up to 1000 bits; base any sign/size; aliasing r == base */
    n = 40;
    mpz_t *b = vec_new(n), *e = vec_new(n), *r = vec_new(n), *want = vec_new(n);
    vec_mixed(b, n, rs, 8192);
    for (size_t i = 0; i < n; i++) {
      mpz_urandomb(e[i], rs, 1 + gmp_urandomm_ui(rs, 1000));
      mpz_powm(want[i], b[i], e[i], m);
    }
    mpz_set_ui(e[0], 0), mpz_powm(want[0], b[0], e[0], m);
    mpz_set_ui(e[1], 1), mpz_powm(want[1], b[1], e[1], m);
    mpz_set(e[2], extra[0]), mpz_powm(want[2], b[2], e[2], m);
    mpz_set(b[3], extra[1]), mpz_powm(want[3], b[3], e[3], m);
    CHECK(gpmp_mpz_powm_n(r, (const mpz_t *)b, (const mpz_t *)e, m, n) == GPMP_SUCCESS);
    CHECK(vec_equal(r, want, n));
    CHECK(gpmp_mpz_powm_n(b, (const mpz_t *)b, (const mpz_t *)e, m, n) == GPMP_SUCCESS);
    CHECK(vec_equal(b, want, n));
    vec_free(b, n), vec_free(e, n), vec_free(r, n), vec_free(want, n);
  }
  mpz_clears(m, t, extra[0], extra[1], extra[2], extra[3], NULL);
}

static void test_bad_inputs(gmp_randstate_t rs) {
  size_t n = 5;
  mpz_t *a = vec_new(n), *r = vec_new(n), *r0 = vec_new(n);
  mpz_t m;
  mpz_init(m);
  vec_mixed(a, n, rs, 500);
  vec_poison(r, n);
  vec_copy(r0, r, n);
  op_n ops[] = {gpmp_mpz_add_n, gpmp_mpz_sub_n, gpmp_mpz_mul_n, gpmp_mpz_addmul_n};
  for (int k = 0; k < 4; k++) {
    reset_last_error();
    CHECK(ops[k](r, NULL, (const mpz_t *)a, n) == GPMP_INVALID_ARGUMENT);
    CHECK_LAST_ERROR("gpmp_mpz_");
    CHECK(ops[k](r, (const mpz_t *)a, NULL, n) == GPMP_INVALID_ARGUMENT);
    CHECK(ops[k](NULL, (const mpz_t *)a, (const mpz_t *)a, n) == GPMP_INVALID_ARGUMENT);
    CHECK(ops[k](NULL, NULL, NULL, 0) == GPMP_SUCCESS);
  }
  modop_n mops[] = {gpmp_mpz_addmod_n, gpmp_mpz_submod_n, gpmp_mpz_mulmod_n, gpmp_mpz_powm_n};
  long bad[] = {1, 0, -1, -7};
  for (int k = 0; k < 4; k++) {
    for (int j = 0; j < 4; j++) {
      mpz_set_si(m, bad[j]);
      reset_last_error();
      CHECK(mops[k](r, (const mpz_t *)a, (const mpz_t *)r0, m, n) == GPMP_INVALID_ARGUMENT);
      CHECK_LAST_ERROR("modulus");
      CHECK(mops[k](NULL, NULL, NULL, m, 0) == GPMP_INVALID_ARGUMENT);
    }
    mpz_set_ui(m, 101);
    CHECK(mops[k](r, (const mpz_t *)a, (const mpz_t *)a, NULL, n) == GPMP_INVALID_ARGUMENT);
    CHECK(mops[k](r, NULL, (const mpz_t *)a, m, n) == GPMP_INVALID_ARGUMENT);
    CHECK(mops[k](NULL, NULL, NULL, m, 0) == GPMP_SUCCESS);
  }
  /* a negative exponent anywhere: nothing written */
  mpz_t *e = vec_new(n);
  for (size_t i = 0; i < n; i++) mpz_set_ui(e[i], 3 + i);
  mpz_set_si(e[n - 1], -1);
  CHECK(gpmp_mpz_powm_n(r, (const mpz_t *)a, (const mpz_t *)e, m, n) == GPMP_INVALID_ARGUMENT);
  CHECK_LAST_ERROR("negative");
  CHECK(vec_equal(r, r0, n));
  CHECK(gpmp_mpz_mul(NULL, a[0], a[1]) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_mpz_mul(r[0], NULL, a[1]) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_mpz_sqr(r[0], NULL) == GPMP_INVALID_ARGUMENT);
  CHECK(vec_equal(r, r0, n));
  vec_free(a, n), vec_free(r, n), vec_free(r0, n), vec_free(e, n);
  mpz_clear(m);
}

/* gpmp_mpz_mul / gpmp_mpz_sqr at sizes from one limb to 2^22 bits (unbalanced too; around int::mul_mag's
 * GMP/NTT crossover of 768 limbs = 49152 bits), all signs,
 * aliasing r == a, r == b, r == a == b. */
static void test_big_product(gmp_randstate_t rs) {
  unsigned long sizes[][2] = {{0, 5},           {1, 1},         {64, 64},           {1000, 3},
                              {49088, 49088},   {49152, 49152}, {49216, 60000},     {65536, 65536},
                              {1 << 18, (1 << 18) + 77}, {1 << 21, 1 << 21}, {(1 << 22) + 5, 1 << 20},
                              {1 << 22, 1 << 22}, {1 << 22, 64}};
  mpz_t a, b, r, want;
  mpz_inits(a, b, r, want, NULL);
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    mpz_urandomb(a, rs, sizes[k][0]);
    mpz_urandomb(b, rs, sizes[k][1]);
    if (k % 2) mpz_neg(a, a);
    if (k % 3 == 1) mpz_neg(b, b);
    if (k == 7) mpz_set_ui(a, 0), mpz_setbit(a, 65536), mpz_sub_ui(a, a, 1), mpz_set(b, a); /* all ones */
    mpz_mul(want, a, b);
    CHECK(gpmp_mpz_mul(r, a, b) == GPMP_SUCCESS);
    CHECK(mpz_cmp(r, want) == 0);
    mpz_set(r, a);
    CHECK(gpmp_mpz_mul(r, r, b) == GPMP_SUCCESS);
    CHECK(mpz_cmp(r, want) == 0);
    mpz_set(r, b);
    CHECK(gpmp_mpz_mul(r, a, r) == GPMP_SUCCESS);
    CHECK(mpz_cmp(r, want) == 0);
    mpz_mul(want, a, a);
    CHECK(gpmp_mpz_sqr(r, a) == GPMP_SUCCESS);
    CHECK(mpz_cmp(r, want) == 0);
    mpz_set(r, a);
    CHECK(gpmp_mpz_mul(r, r, r) == GPMP_SUCCESS);
    CHECK(mpz_cmp(r, want) == 0);
    mpz_set(r, a);
    CHECK(gpmp_mpz_sqr(r, r) == GPMP_SUCCESS);
    CHECK(mpz_cmp(r, want) == 0);
  }
  mpz_clears(a, b, r, want, NULL);
}

int main(void) {
  gmp_randstate_t rs;
  gmp_randinit_default(rs);
  gmp_randseed_ui(rs, 2024);
  test_plain(rs);
  test_modular(rs);
  test_bad_inputs(rs);
  test_big_product(rs);
  gmp_randclear(rs);
  if (failures) {
    fprintf(stderr, "mpz: %d failures\n", failures);
    return 1;
  }
  printf("mpz: all checks passed\n");
  return 0;
}
