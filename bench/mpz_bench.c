/* Batched integer arithmetic (CPU path) against a plain GMP loop: gpmp_mpz_mul_n,
 * gpmp_mpz_mulmod_n and gpmp_mpz_powm_n on n integers of b bits (odd b-bit modulus, b-bit exponents),
 * and gpmp_mpz_mul vs mpz_mul on one big product, at each thread count. Prints a markdown table of
 * throughput (elements/s, wall clock, best of 3; for big products ms) and the ratio of CPU times (all
 * threads). Every gpmp result is checked against GMP.
 *   make -C bench mpz-bench ARGS="1 2"   (= bench/build/mpz-bench [threads...], default 1 2) */
#define _POSIX_C_SOURCE 199309L
#include "gpmp.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of the process (all threads): on a shared machine it shows the work done, whatever the load. */
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }
static double last_cpu; /* CPU seconds of the best run of the last call of run() */

static mpz_t *vec(size_t n, gmp_randstate_t rs, unsigned long bits) {
  mpz_t *v = malloc(n * sizeof(mpz_t));
  for (size_t i = 0; i < n; i++) {
    mpz_init(v[i]);
    mpz_urandomb(v[i], rs, bits);
    mpz_setbit(v[i], bits - 1);
  }
  return v;
}

static void vec_free(mpz_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) mpz_clear(v[i]);
  free(v);
}

enum { MUL, MULMOD, POWM };
static const char *names[] = {"mul_n", "mulmod_n", "powm_n"};

/* Best of `reps` runs (seconds) of the GMP loop (gmp = 1) or the gpmp call. */
static double run(int op, int gmp, mpz_t *r, mpz_t *a, mpz_t *b, mpz_t m, size_t n, int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; k++) {
    double t0 = now(), c0 = cpu();
    if (gmp) {
      for (size_t i = 0; i < n; i++) {
        if (op == MUL) mpz_mul(r[i], a[i], b[i]);
        else if (op == MULMOD) mpz_mul(r[i], a[i], b[i]), mpz_mod(r[i], r[i], m);
        else mpz_powm(r[i], a[i], b[i], m);
      }
    } else {
      gpmp_status s = op == MUL ? gpmp_mpz_mul_n(r, a, b, n)
                      : op == MULMOD ? gpmp_mpz_mulmod_n(r, a, b, m, n) : gpmp_mpz_powm_n(r, a, b, m, n);
      if (s != GPMP_SUCCESS) fprintf(stderr, "%s failed: %s\n", names[op], gpmp_last_error()), exit(1);
    }
    double t = now() - t0;
    if (t < best) best = t, last_cpu = cpu() - c0;
  }
  return best;
}

int main(int argc, char **argv) {
  int threads[8] = {1, 2}, nt = 2;
  if (argc > 1) {
    nt = 0;
    for (int i = 1; i < argc && nt < 8; i++) threads[nt++] = atoi(argv[i]);
  }
  gmp_randstate_t rs;
  gmp_randinit_default(rs);
  gmp_randseed_ui(rs, 42);
  printf("| op | bits | n | threads | GMP loop (elem/s) | gpmp (elem/s) | gpmp/GMP wall | GMP/gpmp CPU time |\n"
         "|---|---|---|---|---|---|---|---|\n");
  unsigned long bitss[] = {256, 1024, 4096};
  for (int op = MUL; op <= POWM; op++) {
    for (int k = 0; k < 3; k++) {
      unsigned long bits = bitss[k];
      /* powm costs ~bits^3: fewer elements so that a run stays around a second */
      size_t n = op == POWM ? (bits == 256 ? 1 << 13 : bits == 1024 ? 1 << 9 : 1 << 4) : 1 << 16;
      int reps = op == POWM ? 1 : 3;
      mpz_t *a = vec(n, rs, bits), *b = vec(n, rs, bits), *r = vec(n, rs, 1), *w = vec(n, rs, 1);
      mpz_t m;
      mpz_init(m);
      mpz_urandomb(m, rs, bits), mpz_setbit(m, bits - 1), mpz_setbit(m, 0);
      double tg = run(op, 1, w, a, b, m, n, reps), cg = last_cpu;
      for (int t = 0; t < nt; t++) {
        gpmp_set_num_threads(threads[t]);
        double tp = run(op, 0, r, a, b, m, n, reps);
        for (size_t i = 0; i < n; i++)
          if (mpz_cmp(r[i], w[i]) != 0) fprintf(stderr, "%s: element %zu differs\n", names[op], i), exit(1);
        printf("| %s | %lu | %zu | %d | %.3g | %.3g | %.2f | %.2f |\n", names[op], bits, n, threads[t], n / tg, n / tp,
               tg / tp, cg / last_cpu);
        fflush(stdout);
      }
      vec_free(a, n), vec_free(b, n), vec_free(r, n), vec_free(w, n);
      mpz_clear(m);
    }
  }
  printf("\n| gpmp_mpz_mul bits | threads | mpz_mul ms | gpmp_mpz_mul ms | gpmp/GMP |\n|---|---|---|---|---|\n");
  for (int e = 20; e <= 24; e += 4) {
    mpz_t a, b, r, w;
    mpz_inits(a, b, r, w, NULL);
    mpz_urandomb(a, rs, 1ul << e), mpz_urandomb(b, rs, 1ul << e);
    double tg = 1e30, tp;
    for (int k = 0; k < 3; k++) {
      double t0 = now();
      mpz_mul(w, a, b);
      if (now() - t0 < tg) tg = now() - t0;
    }
    for (int t = 0; t < nt; t++) {
      gpmp_set_num_threads(threads[t]);
      tp = 1e30;
      for (int k = 0; k < 3; k++) {
        double t0 = now();
        if (gpmp_mpz_mul(r, a, b) != GPMP_SUCCESS) fprintf(stderr, "gpmp_mpz_mul failed\n"), exit(1);
        if (now() - t0 < tp) tp = now() - t0;
      }
      if (mpz_cmp(r, w) != 0) fprintf(stderr, "gpmp_mpz_mul 2^%d differs\n", e), exit(1);
      printf("| 2^%d | %d | %.1f | %.1f | %.2f |\n", e, threads[t], 1e3 * tg, 1e3 * tp, tg / tp);
      fflush(stdout);
    }
    mpz_clears(a, b, r, w, NULL);
  }
  gmp_randclear(rs);
  return 0;
}
