/* Batched integer arithmetic (CPU path) against a plain GMP loop: gpmp_mpz_mul_n,
 * gpmp_mpz_mulmod_n and gpmp_mpz_powm_n on n integers of b bits (odd b-bit modulus, b-bit exponents),
 * and gpmp_mpz_mul vs mpz_mul on one big product, at each thread count. Prints a markdown table of
 * throughput (elements/s, wall clock, best of 3; for big products ms) and the ratio of CPU times (all
 * threads). Every gpmp result is checked against GMP.
 *   make -C bench mpz-bench ARGS="1 2"   (= bench/build/mpz-bench [threads...], default 1 2)
 * With "large" first, the large operands instead (the sizes where GMP's temporary space leaves the
 * stack, so that gpmp's worker threads use its own products and reductions there): mul_n of 64
 * 10^6-bit integers, mulmod_n and powm_n (64-bit exponents) modulo a 200,000-bit m, powm_n of 2^14
 * 1024-bit integers, gpmp_poly_mul_alg(SCHOOLBOOK) of length 64 with 200,000-bit coefficients
 * (against a loop of mpz_addmul), and gpmp_mpz_mul around GMP's stack bound of 1000 limbs; wall and
 * process CPU ms of the best run (of 3; 1 for the powers and the polynomial, 200 or 5 for mpz_mul) and
 * the ratios to GMP.
 *   make -C bench mpz-bench ARGS="large 1 2"  (GPMP_BACKEND=cpu on a machine with a GPU)
 * With "sweep" first: mul_n, mulmod_n and powm_n at 1024, 4096, 16384, 65536, 200,000 and 10^6 bits
 * (powm_n with exponents of at most 1024 bits, 64 from 65536 bits on; fewer elements as they grow),
 * powm_n with exponents as long as the modulus or longer (2048..16384 bits), then gpmp_poly_mul_alg at SCHOOLBOOK, TOOM4 and TOOM8: wall and process CPU ms of the best of 3 runs
 * (1 for fewer than 64 elements). The program links libgpmp.so.0 dynamically, so one binary compares
 * two builds of the library (LD_LIBRARY_PATH).
 *   make -C bench mpz-bench ARGS="sweep 1 2" */
#define _POSIX_C_SOURCE 199309L
#include "gpmp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Wall seconds of the best of reps runs of gpmp_poly_mul_alg(SCHOOLBOOK) (gmp = 0) or of a loop of
 * mpz_addmul (gmp = 1) on f·g, lengths len. */
static double poly_run(int gmp, mpz_t *h, mpz_t *f, mpz_t *g, size_t len, int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; k++) {
    double t0 = now(), c0 = cpu();
    if (gmp) {
      for (size_t i = 0; i < 2 * len - 1; i++) mpz_set_ui(h[i], 0);
      for (size_t i = 0; i < len; i++)
        for (size_t j = 0; j < len; j++) mpz_addmul(h[i + j], f[i], g[j]);
    } else if (gpmp_poly_mul_alg(h, f, len, g, len, GPMP_MUL_SCHOOLBOOK) != GPMP_SUCCESS) {
      fprintf(stderr, "gpmp_poly_mul_alg failed: %s\n", gpmp_last_error());
      exit(1);
    }
    double t = now() - t0;
    if (t < best) best = t, last_cpu = cpu() - c0;
  }
  return best;
}

/* Wall seconds of the best of reps products r = a*b by gpmp_mpz_mul (gmp = 0) or mpz_mul (gmp = 1). */
static double mul_run(int gmp, mpz_t r, mpz_t a, mpz_t b, int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; k++) {
    double t0 = now(), c0 = cpu();
    if (gmp) mpz_mul(r, a, b);
    else if (gpmp_mpz_mul(r, a, b) != GPMP_SUCCESS) fprintf(stderr, "gpmp_mpz_mul failed\n"), exit(1);
    double t = now() - t0;
    if (t < best) best = t, last_cpu = cpu() - c0;
  }
  return best;
}

static void row(const char *name, int threads, double tg, double cg, double tp, double cp) {
  printf("| %s | %d | %.3g | %.3g | %.2f | %.3g | %.3g | %.2f |\n", name, threads, 1e3 * tg, 1e3 * tp, tp / tg, 1e3 * cg, 1e3 * cp,
         cp / cg);
  fflush(stdout);
}

static void check(mpz_t *r, mpz_t *w, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (mpz_cmp(r[i], w[i]) != 0) fprintf(stderr, "%s: element %zu differs\n", what, i), exit(1);
}

/* The large operands (see the top comment). */
static void large(int *threads, int nt, gmp_randstate_t rs) {
  printf("| case | threads | GMP ms | gpmp ms | gpmp/GMP | GMP CPU ms | gpmp CPU ms | gpmp/GMP CPU |\n"
         "|---|---|--:|--:|--:|--:|--:|--:|\n");
  struct { int op; unsigned long bits, ebits; size_t n; const char *name; } cases[] = {
      {MUL, 1000000, 0, 64, "mul_n 64 x 10^6 bits"},
      {MULMOD, 200000, 0, 64, "mulmod_n 64 x 200,000 bits"},
      {POWM, 200000, 64, 64, "powm_n 64, 200,000-bit m, 64-bit e"},
      {POWM, 1024, 1024, 1 << 14, "powm_n 2^14 x 1024 bits"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t n = cases[c].n;
    unsigned long bits = cases[c].bits;
    int reps = cases[c].op == POWM ? 1 : 3;
    mpz_t *a = vec(n, rs, bits), *b = vec(n, rs, cases[c].ebits ? cases[c].ebits : bits), *r = vec(n, rs, 1), *w = vec(n, rs, 1);
    mpz_t m;
    mpz_init(m);
    mpz_urandomb(m, rs, bits), mpz_setbit(m, bits - 1), mpz_setbit(m, 0);
    double tg = run(cases[c].op, 1, w, a, b, m, n, reps), cg = last_cpu;
    for (int t = 0; t < nt; t++) {
      gpmp_set_num_threads(threads[t]);
      double tp = run(cases[c].op, 0, r, a, b, m, n, reps);
      check(r, w, n, cases[c].name);
      row(cases[c].name, threads[t], tg, cg, tp, last_cpu);
    }
    vec_free(a, n), vec_free(b, n), vec_free(r, n), vec_free(w, n);
    mpz_clear(m);
  }
  {
    size_t len = 64;
    mpz_t *f = vec(len, rs, 200000), *g = vec(len, rs, 200000), *h = vec(2 * len - 1, rs, 1), *w = vec(2 * len - 1, rs, 1);
    double tg = poly_run(1, w, f, g, len, 1), cg = last_cpu;
    for (int t = 0; t < nt; t++) {
      gpmp_set_num_threads(threads[t]);
      double tp = poly_run(0, h, f, g, len, 1);
      check(h, w, 2 * len - 1, "schoolbook");
      row("poly_mul_alg(SCHOOLBOOK) 64 x 64, 200,000 bits", threads[t], tg, cg, tp, last_cpu);
    }
    vec_free(f, len), vec_free(g, len), vec_free(h, 2 * len - 1), vec_free(w, 2 * len - 1);
  }
  /* gpmp_mpz_mul around GMP's stack bound (1000 limbs = 64,000 bits) and long against short. */
  unsigned long sizes[][2] = {{63000, 63000}, {64064, 44800}, {200000, 40000}, {1000000, 20000}, {4000000, 3000}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    mpz_t *a = vec(1, rs, sizes[s][0]), *b = vec(1, rs, sizes[s][1]), *r = vec(1, rs, 1), *w = vec(1, rs, 1);
    int reps = sizes[s][0] >= 1000000 ? 5 : 200;
    double tg = mul_run(1, w[0], a[0], b[0], reps), cg = last_cpu;
    char name[64];
    snprintf(name, sizeof name, "gpmp_mpz_mul %lu x %lu bits", sizes[s][0], sizes[s][1]);
    for (int t = 0; t < nt; t++) {
      gpmp_set_num_threads(threads[t]);
      double tp = mul_run(0, r[0], a[0], b[0], reps);
      check(r, w, 1, "gpmp_mpz_mul");
      row(name, threads[t], tg, cg, tp, last_cpu);
    }
    vec_free(a, 1), vec_free(b, 1), vec_free(r, 1), vec_free(w, 1);
  }
}

/* Wall seconds of the best of reps runs of gpmp_poly_mul_alg(alg) on f·g, lengths len. */
static double alg_run(int alg, mpz_t *h, mpz_t *f, mpz_t *g, size_t len, int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; k++) {
    double t0 = now(), c0 = cpu();
    if (gpmp_poly_mul_alg(h, f, len, g, len, (gpmp_mul_alg)alg) != GPMP_SUCCESS) {
      fprintf(stderr, "gpmp_poly_mul_alg(%d) failed: %s\n", alg, gpmp_last_error());
      exit(1);
    }
    double t = now() - t0;
    if (t < best) best = t, last_cpu = cpu() - c0;
  }
  return best;
}

/* The sweep (see the top comment): mul_n, mulmod_n and powm_n from 1024 to 10^6 bits and the
 * polynomial products whose evaluation and interpolation run on worker threads. */
static void sweep(int *threads, int nt, gmp_randstate_t rs) {
  printf("| case | n | threads | GMP ms | gpmp ms | gpmp/GMP | GMP CPU ms | gpmp CPU ms |\n"
         "|---|--:|--:|--:|--:|--:|--:|--:|\n");
  unsigned long bitss[] = {1024, 4096, 16384, 65536, 200000, 1000000};
  size_t mul_n[] = {1 << 15, 1 << 13, 1 << 11, 256, 64, 16};
  size_t powm_n[] = {512, 64, 16, 8, 4, 2};
  unsigned long powm_e[] = {1024, 1024, 256, 64, 64, 64};
  for (int op = MUL; op <= POWM; op++) {
    for (int k = 0; k < 6; k++) {
      unsigned long bits = bitss[k];
      size_t n = op == POWM ? powm_n[k] : mul_n[k];
      int reps = n >= 64 ? 3 : 1;
      mpz_t *a = vec(n, rs, bits), *b = vec(n, rs, op == POWM ? powm_e[k] : bits), *r = vec(n, rs, 1), *w = vec(n, rs, 1);
      mpz_t m;
      mpz_init(m);
      mpz_urandomb(m, rs, bits), mpz_setbit(m, bits - 1), mpz_setbit(m, 0);
      double tg = run(op, 1, w, a, b, m, n, reps), cg = last_cpu;
      char name[64];
      if (op == POWM) snprintf(name, sizeof name, "powm_n %lu bits, %lu-bit e", bits, powm_e[k]);
      else snprintf(name, sizeof name, "%s %lu bits", names[op], bits);
      for (int t = 0; t < nt; t++) {
        gpmp_set_num_threads(threads[t]);
        double tp = run(op, 0, r, a, b, m, n, reps);
        check(r, w, n, name);
        printf("| %s | %zu | %d | %.3g | %.3g | %.2f | %.3g | %.3g |\n", name, n, threads[t], 1e3 * tg, 1e3 * tp, tp / tg, 1e3 * cg,
               1e3 * last_cpu);
        fflush(stdout);
      }
      vec_free(a, n), vec_free(b, n), vec_free(r, n), vec_free(w, n);
      mpz_clear(m);
    }
  }
  /* Powers whose window table would take GMP past its stack bound (k·2^(w−1) > 4064 limbs), where
   * gpmp's worker threads use its own exponentiation: exponents as long as the modulus, and longer. */
  struct { unsigned long bits, ebits; size_t n; } pows[] = {{2048, 8192, 16}, {4096, 4096, 8}, {8192, 8192, 2}, {16384, 2048, 2}};
  for (size_t c = 0; c < sizeof pows / sizeof pows[0]; c++) {
    size_t n = pows[c].n;
    mpz_t *a = vec(n, rs, pows[c].bits), *b = vec(n, rs, pows[c].ebits), *r = vec(n, rs, 1), *w = vec(n, rs, 1);
    mpz_t m;
    mpz_init(m);
    mpz_urandomb(m, rs, pows[c].bits), mpz_setbit(m, pows[c].bits - 1), mpz_setbit(m, 0);
    double tg = run(POWM, 1, w, a, b, m, n, 1), cg = last_cpu;
    char name[64];
    snprintf(name, sizeof name, "powm_n %lu bits, %lu-bit e", pows[c].bits, pows[c].ebits);
    for (int t = 0; t < nt; t++) {
      gpmp_set_num_threads(threads[t]);
      double tp = run(POWM, 0, r, a, b, m, n, 1);
      check(r, w, n, name);
      printf("| %s | %zu | %d | %.3g | %.3g | %.2f | %.3g | %.3g |\n", name, n, threads[t], 1e3 * tg, 1e3 * tp, tp / tg, 1e3 * cg, 1e3 * last_cpu);
      fflush(stdout);
    }
    vec_free(a, n), vec_free(b, n), vec_free(r, n), vec_free(w, n);
    mpz_clear(m);
  }
  /* Polynomials (no GMP column: gpmp against itself across builds). */
  struct { int alg; size_t len; unsigned long bits; const char *name; } polys[] = {
      {GPMP_MUL_SCHOOLBOOK, 64, 200000, "SCHOOLBOOK 64, 200,000 bits"},
      {GPMP_MUL_TOOM4, 256, 20000, "TOOM4 256, 20,000 bits"},
      {GPMP_MUL_TOOM8, 256, 20000, "TOOM8 256, 20,000 bits"},
      {GPMP_MUL_TOOM4, 4096, 1000, "TOOM4 4096, 1000 bits"},
      {GPMP_MUL_TOOM8, 4096, 1000, "TOOM8 4096, 1000 bits"},
  };
  for (size_t c = 0; c < sizeof polys / sizeof polys[0]; c++) {
    size_t len = polys[c].len;
    mpz_t *f = vec(len, rs, polys[c].bits), *g = vec(len, rs, polys[c].bits), *h = vec(2 * len - 1, rs, 1);
    for (int t = 0; t < nt; t++) {
      gpmp_set_num_threads(threads[t]);
      double tp = alg_run(polys[c].alg, h, f, g, len, 3);
      printf("| poly_mul_alg %s | 1 | %d | | %.3g | | | %.3g |\n", polys[c].name, threads[t], 1e3 * tp, 1e3 * last_cpu);
      fflush(stdout);
    }
    vec_free(f, len), vec_free(g, len), vec_free(h, 2 * len - 1);
  }
}

int main(int argc, char **argv) {
  int threads[8] = {1, 2}, nt = 2;
  int big = argc > 1 && strcmp(argv[1], "large") == 0, sw = argc > 1 && strcmp(argv[1], "sweep") == 0;
  if (argc > 1 + big + sw) {
    nt = 0;
    for (int i = 1 + big + sw; i < argc && nt < 8; i++) threads[nt++] = atoi(argv[i]);
  }
  gmp_randstate_t rs;
  gmp_randinit_default(rs);
  gmp_randseed_ui(rs, 42);
  if (big || sw) {
    if (big) large(threads, nt, rs);
    else sweep(threads, nt, rs);
    gmp_randclear(rs);
    return 0;
  }
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
