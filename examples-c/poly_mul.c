/* poly_mul: multiplies two random polynomials of length N (argv[1], default 10^5) with B-bit signed
 * coefficients (argv[2], default 1000) with gpmp_poly_mul, prints the time, the algorithm and the
 * backend, and checks the product against a Kronecker substitution done with GMP alone:
 * F = f(2^b), G = g(2^b), H = F·G, and h_i are the balanced base-2^b digits of H, where
 * b ≥ 2B + ⌈log2 N⌉ + 2 (a multiple of 64) so that |h_i| < 2^(b−1). */
#define _POSIX_C_SOURCE 200809L
#include <gpmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* F = Σ f_i 2^(64·L·i) for signed f_i with |f_i| < 2^(64·L): the positive and the negative
 * coefficients are laid out limb by limb in two integers, F = P − N. */
static void pack(mpz_t F, mpz_t *f, size_t n, size_t L) {
  mpz_t P, N;
  mpz_init(P);
  mpz_init(N);
  mp_limb_t *p = mpz_limbs_write(P, (mp_size_t)(n * L)), *q = mpz_limbs_write(N, (mp_size_t)(n * L));
  for (size_t i = 0; i < n * L; i++) p[i] = q[i] = 0;
  for (size_t i = 0; i < n; i++) {
    mp_limb_t *dst = mpz_sgn(f[i]) < 0 ? q : p;
    size_t sz = mpz_size(f[i]);
    for (size_t j = 0; j < sz; j++) dst[i * L + j] = mpz_getlimbn(f[i], (mp_size_t)j);
  }
  mpz_limbs_finish(P, (mp_size_t)(n * L));
  mpz_limbs_finish(N, (mp_size_t)(n * L));
  mpz_sub(F, P, N);
  mpz_clear(P);
  mpz_clear(N);
}

/* Checks h[0..m) against the balanced base-2^(64·L) digits of H; returns the number of mismatches. */
static size_t check_unpack(mpz_t H, mpz_t *h, size_t m, size_t L) {
  const mp_limb_t *d = mpz_limbs_read(H);
  size_t size = mpz_size(H), bad = 0;
  int sign = mpz_sgn(H);
  mpz_t v, digit, half, base;
  mpz_inits(v, half, base, NULL);
  mpz_setbit(half, 64 * L - 1);
  mpz_setbit(base, 64 * L);
  int carry = 0;
  for (size_t i = 0; i < m; i++) {
    size_t lo = i * L, len = lo >= size ? 0 : (size - lo < L ? size - lo : L);
    mpz_roinit_n(digit, d + lo, (mp_size_t)len); /* read-only view of the digit's limbs */
    mpz_add_ui(v, digit, (unsigned long)carry);
    carry = mpz_cmp(v, half) >= 0;
    if (carry) mpz_sub(v, v, base);
    if (sign < 0) mpz_neg(v, v);
    if (mpz_cmp(v, h[i]) != 0) bad++;
  }
  if (carry || size > m * L) bad++; /* H has more digits than the product */
  mpz_clears(v, half, base, NULL);
  return bad;
}

static const char *backend_name(gpmp_backend b) {
  return b == GPMP_BACKEND_CPU ? "cpu" : b == GPMP_BACKEND_GPU ? "gpu" : "auto";
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
  unsigned long bits = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
  if (n == 0) {
    fprintf(stderr, "usage: %s [length >= 1] [bits]\n", argv[0]);
    return 2;
  }
  size_t m = 2 * n - 1;
  mpz_t *f = malloc(n * sizeof(mpz_t)), *g = malloc(n * sizeof(mpz_t)), *h = malloc(m * sizeof(mpz_t));
  gmp_randstate_t r;
  gmp_randinit_default(r);
  gmp_randseed_ui(r, 1);
  for (size_t i = 0; i < n; i++) {
    mpz_init(f[i]);
    mpz_init(g[i]);
    mpz_urandomb(f[i], r, bits);
    mpz_urandomb(g[i], r, bits);
    if (gmp_urandomb_ui(r, 1)) mpz_neg(f[i], f[i]);
    if (gmp_urandomb_ui(r, 1)) mpz_neg(g[i], g[i]);
  }
  for (size_t i = 0; i < m; i++) mpz_init(h[i]);

  double t0 = now();
  gpmp_status s = gpmp_poly_mul(h, f, n, g, n);
  double t1 = now();
  if (s != GPMP_SUCCESS) {
    fprintf(stderr, "gpmp_poly_mul: %s: %s\n", gpmp_strerror(s), gpmp_last_error());
    return 1;
  }
  printf("gpmp %s: poly_mul %zu x %zu, %lu-bit coefficients: %.3f s (algorithm GPMP_MUL_AUTO, backend %s, %d threads)\n",
         gpmp_version(), n, n, bits, t1 - t0, backend_name(gpmp_get_backend()), gpmp_get_num_threads());

  size_t logn = 0;
  while (((size_t)1 << logn) < n) logn++;
  size_t L = (2 * bits + logn + 2 + 63) / 64; /* limbs per Kronecker digit */
  mpz_t F, G;
  mpz_init(F);
  mpz_init(G);
  pack(F, f, n, L);
  pack(G, g, n, L);
  mpz_mul(F, F, G);
  size_t bad = check_unpack(F, h, m, L);
  printf("Kronecker check with GMP (2^%zu): %s (%.3f s)\n", 64 * L, bad ? "MISMATCH" : "ok", now() - t1);

  mpz_clear(F);
  mpz_clear(G);
  for (size_t i = 0; i < n; i++) {
    mpz_clear(f[i]);
    mpz_clear(g[i]);
  }
  for (size_t i = 0; i < m; i++) mpz_clear(h[i]);
  free(f);
  free(g);
  free(h);
  gmp_randclear(r);
  return bad != 0;
}
