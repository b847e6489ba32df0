/* Self-checking C test of the multi-modular phases: f·g through gpmp_poly_mul_primes,
 * gpmp_mpz_mod_primes, gpmp_nmod_poly_mul per prime and a signed gpmp_crt equals GMP's schoolbook
 * product (array and pointer forms); bad primes and unreduced residues are GPMP_INVALID_ARGUMENT
 * with nothing written. Exit 0 on success. */
#include "common.h"

static void product_through_primes(size_t fl, size_t gl, unsigned long bits, gmp_randstate_t r) {
  mpz_t *f = vec_new(fl), *g = vec_new(gl), *h = vec_new(fl + gl - 1), *want = vec_new(fl + gl - 1);
  vec_random(f, fl, r, bits);
  vec_random(g, gl, r, bits);
  schoolbook(want, f, fl, g, gl);
  size_t k = 0, hl = fl + gl - 1;
  CHECK(gpmp_poly_mul_primes(NULL, &k, 0, fl, bits, gl, bits) == GPMP_SUCCESS && k > 0);
  uint64_t *primes = malloc(k * sizeof *primes);
  uint64_t *rf = malloc(k * fl * 8), *rg = malloc(k * gl * 8), *rh = malloc(k * hl * 8);
  CHECK(gpmp_poly_mul_primes(primes, &k, k, fl, bits, gl, bits) == GPMP_SUCCESS);
  CHECK(gpmp_mpz_mod_primes(rf, (const mpz_t *)f, fl, primes, k) == GPMP_SUCCESS);
  mpz_srcptr *gp = malloc(gl * sizeof *gp);
  for (size_t i = 0; i < gl; i++) gp[i] = g[i];
  CHECK(gpmp_mpz_mod_primes_ptr(rg, gp, gl, primes, k) == GPMP_SUCCESS);
  for (size_t j = 0; j < k; j++)
    CHECK(gpmp_nmod_poly_mul(rh + j * hl, rf + j * fl, fl, rg + j * gl, gl, primes[j]) == GPMP_SUCCESS);
  CHECK(gpmp_crt(h, rh, hl, primes, k, 1) == GPMP_SUCCESS);
  CHECK(vec_equal(h, want, hl));
  mpz_t *h2 = vec_new(hl);
  mpz_ptr *hp = malloc(hl * sizeof *hp);
  for (size_t i = 0; i < hl; i++) hp[i] = h2[hl - 1 - i];
  CHECK(gpmp_crt_ptr(hp, rh, hl, primes, k, 1) == GPMP_SUCCESS);
  for (size_t i = 0; i < hl; i++) CHECK(mpz_cmp(h2[hl - 1 - i], want[i]) == 0);
  free(primes); free(rf); free(rg); free(rh); free(gp); free(hp);
  vec_free(f, fl); vec_free(g, gl); vec_free(h, hl); vec_free(want, hl); vec_free(h2, hl);
}

static void bad_input(void) {
  mpz_t a[1], r[1];
  mpz_init_set_si(a[0], -7);
  mpz_init_set_ui(r[0], 5);
  uint64_t res[2] = {99, 99};
  const uint64_t dup[2] = {7681, 7681}, composite[2] = {3, 15}, two[1] = {2}, ok[2] = {3, 5};
  const uint64_t unreduced[2] = {1, 5};
  CHECK(gpmp_mpz_mod_primes(res, (const mpz_t *)a, 1, dup, 2) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_mpz_mod_primes(res, (const mpz_t *)a, 1, composite, 2) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_mpz_mod_primes(res, (const mpz_t *)a, 1, two, 1) == GPMP_INVALID_ARGUMENT);
  CHECK(res[0] == 99 && res[1] == 99);
  CHECK(gpmp_crt(r, unreduced, 1, ok, 2, 1) == GPMP_INVALID_ARGUMENT);
  CHECK(mpz_cmp_ui(r[0], 5) == 0);
  CHECK(gpmp_mpz_mod_primes(res, (const mpz_t *)a, 1, ok, 2) == GPMP_SUCCESS);
  CHECK(res[0] == 2 && res[1] == 3); /* -7 mod 3, -7 mod 5 */
  CHECK(gpmp_crt(r, res, 1, ok, 2, 1) == GPMP_SUCCESS && mpz_cmp_si(r[0], -7) == 0);
  CHECK(gpmp_crt(r, res, 1, ok, 2, 0) == GPMP_SUCCESS && mpz_cmp_ui(r[0], 8) == 0);
  mpz_clear(a[0]);
  mpz_clear(r[0]);
}

int main(void) {
  gmp_randstate_t r;
  gmp_randinit_default(r);
  gmp_randseed_ui(r, 25);
  product_through_primes(1, 1, 64, r);
  product_through_primes(37, 20, 1024, r);
  product_through_primes(300, 3, 100, r);
  bad_input();
  gmp_randclear(r);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  return failures != 0;
}
