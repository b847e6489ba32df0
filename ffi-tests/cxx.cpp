// Both headers from C++17 (-Wall -Wextra -Werror) with a caller that owns mpz_t * arrays, plus the
// BPAS names: one product through each header, checked against GMP.
#define GPMP_BPAS_NAMES
#include "gpmp_bpas.h"
#include "gpmp.h"

#include <cstdio>
#include <vector>

static int failures = 0;
#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s (%s)\n", __FILE__, __LINE__, #cond,    \
                   gpmp_last_error());                                                     \
      failures++;                                                                          \
    }                                                                                      \
  } while (0)

int main() {
  const size_t n = 5;
  mpz_t *f = new mpz_t[n], *g = new mpz_t[n], *h = new mpz_t[2 * n - 1], *want = new mpz_t[2 * n - 1];
  for (size_t i = 0; i < n; i++) {
    mpz_init_set_si(f[i], (long)(i * i) - 7);
    mpz_init_set_si(g[i], 3 - (long)i);
    mpz_mul_2exp(g[i], g[i], 70 * i);
  }
  for (size_t k = 0; k < 2 * n - 1; k++) {
    mpz_init(h[k]);
    mpz_init(want[k]);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) mpz_addmul(want[i + j], f[i], g[j]);

  CHECK(gpmp_poly_mul(h, f, n, g, n) == GPMP_SUCCESS);
  for (size_t k = 0; k < 2 * n - 1; k++) CHECK(mpz_cmp(h[k], want[k]) == 0);
  CHECK(gpmp_poly_mul_alg(h, f, n, g, n, GPMP_MUL_SCHOOLBOOK) == GPMP_SUCCESS);
  for (size_t k = 0; k < 2 * n - 1; k++) CHECK(mpz_cmp(h[k], want[k]) == 0);
  std::vector<mpz_ptr> hp(2 * n - 1);
  std::vector<mpz_srcptr> fp(f, f + n), gp(g, g + n);
  for (size_t k = 0; k < 2 * n - 1; k++) hp[k] = h[k];
  CHECK(gpmp_poly_mul_ptr(hp.data(), fp.data(), n, gp.data(), n) == GPMP_SUCCESS);
  for (size_t k = 0; k < 2 * n - 1; k++) CHECK(mpz_cmp(h[k], want[k]) == 0);

  DUZP_t *a = makePolynomial_DUZP((long)n), *b = makePolynomial_DUZP((long)n);
  mpz_set(a->coefs[0], f[0]);
  mpz_set(b->coefs[0], g[0]);
  for (size_t i = 1; i < n; i++) {
    mpz_init_set(a->coefs[i], f[i]);
    mpz_init_set(b->coefs[i], g[i]);
  }
  a->lt = b->lt = (long)n - 1;
  DUZP_t *c = multiplyPolynomials_DUZP(a, b);
  CHECK(c != nullptr && c->lt == (long)(2 * n - 2));
  for (long k = 0; c != nullptr && k <= c->lt; k++) CHECK(mpz_cmp(c->coefs[k], want[k]) == 0);
  DUZP_t *d = nullptr;
  multiplyPolynomialsPreAlloc_DUZP(a, b, &d);
  multiplyPolynomials_DUZP_inp(a, &b);
  for (long k = 0; k <= b->lt; k++) CHECK(mpz_cmp(b->coefs[k], d->coefs[k]) == 0);
  freePolynomial_DUZP(a);
  freePolynomial_DUZP(b);
  freePolynomial_DUZP(c);
  gpmp_freePolynomial_DUZP(d);

  for (size_t i = 0; i < n; i++) {
    mpz_clear(f[i]);
    mpz_clear(g[i]);
  }
  for (size_t k = 0; k < 2 * n - 1; k++) {
    mpz_clear(h[k]);
    mpz_clear(want[k]);
  }
  delete[] f;
  delete[] g;
  delete[] h;
  delete[] want;
  std::printf("cxx: %s (%d failed checks)\n", failures ? "FAILED" : "ok", failures);
  return failures != 0;
}
