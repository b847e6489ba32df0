/* gpmp_mpz_mul against GMP mpz_mul and FLINT 3 fmpz_mul (native build, fft_small) on the same random
 * operands (CPU): sizes 2^20, 2^24, 2^26 bits (or the exponents given after the threads),
 * both operands of exactly that many bits. Every gpmp product is compared with GMP's and FLINT's.
 * 1-thread rows are timed in process CPU time (fair on a loaded machine: every side runs one busy
 * thread), rows with more threads in wall-clock time (CPU time would add the threads up); FLINT and
 * GMP are always at 1 thread. Best of `reps` runs (argv[2], default 5).
 *   make -C bench mpz-flint        (builds bench/build/mpz-flint and runs it: ARGS="THREADS REPS E...")
 *   bench/build/mpz-flint [max_threads [reps [e...]]]       default: 2 5 20 24 26
 *   (BENCH_THREADS=N: the row for N threads only; BENCH_SKIP_GMP=1: no GMP product, the check is
 *   gpmp against FLINT: at 2^30 bits GMP's mpz_mul alone takes tens of seconds; BENCH_WARMUP=1: one
 *   untimed gpmp call before timing, e.g. for the GPU's first-use setup) */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <gmp.h>
#include <flint/flint.h>
#include <flint/fmpz.h>
#include "gpmp.h"

static double clock_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Best of reps, in CPU time (cpu = 1) or wall time. which: 0 GMP, 1 FLINT, 2 gpmp. */
static double best(int which, int cpu, int reps, mpz_t r, const mpz_t a, const mpz_t b, fmpz_t fr, const fmpz_t fa,
                   const fmpz_t fb) {
  clockid_t c = cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
  double t = 1e30;
  for (int k = 0; k < reps; k++) {
    double t0 = clock_s(c);
    if (which == 0) mpz_mul(r, a, b);
    else if (which == 1) fmpz_mul(fr, fa, fb);
    else if (gpmp_mpz_mul(r, a, b) != GPMP_SUCCESS) fprintf(stderr, "gpmp_mpz_mul: %s\n", gpmp_last_error()), exit(1);
    double dt = clock_s(c) - t0;
    if (dt < t) t = dt;
  }
  return t;
}

int main(int argc, char **argv) {
  int maxt = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 5;
  int es[16] = {20, 24, 26}, ne = 3;
  if (argc > 3) {
    ne = 0;
    for (int i = 3; i < argc && ne < 16; i++) es[ne++] = atoi(argv[i]);
  }
  flint_set_num_threads(1);
  gmp_randstate_t rs;
  gmp_randinit_default(rs);
  gmp_randseed_ui(rs, 42);
  printf("| bits | gpmp threads | clock | GMP mpz_mul ms | FLINT fmpz_mul ms | gpmp_mpz_mul ms | gpmp/FLINT | gpmp/GMP |\n"
         "|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < ne; i++) {
    unsigned long bits = 1ul << es[i];
    mpz_t a, b, w, r;
    fmpz_t fa, fb, fr;
    mpz_inits(a, b, w, r, NULL);
    fmpz_init(fa), fmpz_init(fb), fmpz_init(fr);
    mpz_urandomb(a, rs, bits), mpz_setbit(a, bits - 1);
    mpz_urandomb(b, rs, bits), mpz_setbit(b, bits - 1);
    fmpz_set_mpz(fa, a), fmpz_set_mpz(fb, b);
    const char *only = getenv("BENCH_THREADS"); /* one thread count only, e.g. all cores with the GPU backend */
    for (int t = only ? atoi(only) : 1; t <= (only ? atoi(only) : maxt); t++) {
      int cpu = t == 1;
      gpmp_set_num_threads(t);
      int skip_gmp = getenv("BENCH_SKIP_GMP") != NULL;
      double tg = skip_gmp ? 0 : best(0, cpu, reps, w, a, b, fr, fa, fb);
      double tf = best(1, cpu, reps, w, a, b, fr, fa, fb);
      if (getenv("BENCH_WARMUP")) best(2, cpu, 1, r, a, b, fr, fa, fb);
      double tp = best(2, cpu, reps, r, a, b, fr, fa, fb);
      mpz_t f;
      mpz_init(f);
      fmpz_get_mpz(f, fr);
      if (skip_gmp) mpz_set(w, f);
      if (mpz_cmp(r, w) != 0 || mpz_cmp(f, w) != 0) fprintf(stderr, "2^%d bits: products differ\n", es[i]), exit(2);
      mpz_clear(f);
      if (skip_gmp)
        printf("| 2^%d | %d | %s | – | %.2f | %.2f | %.3f | – |\n", es[i], t, cpu ? "CPU" : "wall", 1e3 * tf, 1e3 * tp,
               tp / tf);
      else
        printf("| 2^%d | %d | %s | %.2f | %.2f | %.2f | %.3f | %.3f |\n", es[i], t, cpu ? "CPU" : "wall", 1e3 * tg,
               1e3 * tf, 1e3 * tp, tp / tf, tp / tg);
      fflush(stdout);
    }
    mpz_clears(a, b, w, r, NULL);
    fmpz_clear(fa), fmpz_clear(fb), fmpz_clear(fr);
  }
  gmp_randclear(rs);
  flint_cleanup_master();
  return 0;
}
