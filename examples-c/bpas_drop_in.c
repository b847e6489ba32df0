/* bpas_drop_in: BPAS C code switched to gpmp by replacing
 *     #include "IntegerPolynomial/DUZP_Support.h"
 * with the two lines below; the calls keep their BPAS names. */
#define GPMP_BPAS_NAMES
#include <gpmp_bpas.h>
#include <stdio.h>

static void print(const char *name, const DUZP_t *p) {
  printf("%s =", name);
  for (long i = 0; p != NULL && i <= p->lt; i++) gmp_printf(" %+Zd*x^%ld", p->coefs[i], i);
  printf("\n");
}

/* p(x) = Σ c[i] x^i, made the BPAS way: makePolynomial_DUZP initialises coefs[0] only. */
static DUZP_t *poly(const long *c, long n) {
  DUZP_t *p = makePolynomial_DUZP(n);
  mpz_set_si(p->coefs[0], c[0]);
  for (long i = 1; i < n; i++) mpz_init_set_si(p->coefs[i], c[i]);
  p->lt = n - 1;
  return p;
}

int main(void) {
  const long ac[] = {1, 2, 3}, bc[] = {-1, 1}, want[] = {-1, -1, -1, 3};
  DUZP_t *a = poly(ac, 3), *b = poly(bc, 2); /* a = 1 + 2x + 3x^2, b = x − 1 */

  DUZP_t *c = multiplyPolynomials_DUZP(a, b); /* new polynomial */
  print("a*b", c);
  int ok = c != NULL && c->lt == 3;
  for (long i = 0; ok && i <= 3; i++) ok = mpz_cmp_si(c->coefs[i], want[i]) == 0;

  DUZP_t *d = NULL;
  multiplyPolynomialsPreAlloc_DUZP(c, c, &d); /* d created: (a*b)^2 */
  print("(a*b)^2", d);
  multiplyPolynomials_DUZP_inp(a, &b); /* b = a*b in place, grown with realloc */
  print("b <- a*b", b);
  ok = ok && d != NULL && d->lt == 6 && b->lt == 3 && mpz_cmp(b->coefs[3], c->coefs[3]) == 0;

  freePolynomial_DUZP(a);
  freePolynomial_DUZP(b);
  freePolynomial_DUZP(c);
  freePolynomial_DUZP(d);
  printf("bpas_drop_in: %s\n", ok ? "ok" : "WRONG RESULT");
  return !ok;
}
