/* Multipoint evaluation over Z: gpmp_poly_evaluate against FLINT 3's fmpz_poly_evaluate_fmpz (Horner
 * or divide-and-conquer by length) in a loop over the points, same inputs, one process.
 *
 *   zpoly-eval [THREADS [K]]        (defaults 1, 64)
 *
 * Cases (flen, coefficient bits, n, point bits): the 2^14 coefficients of 256 bits at 2^14
 * points of 64 bits, whose values have about 2^20 bits each (2 GiB of output): both libraries
 * evaluate only the first K points (every point costs the same: gpmp runs this size one point at a
 * time, FLINT always does), and the totals are extrapolated ×(n/K); then smaller cases evaluated at
 * all points, where gpmp uses subproduct trees modulo primes and CRT (values ≤ 2^14 bits).
 * Signed random coefficients and points (splitmix64). Every gpmp value is compared with FLINT's.
 * Timing: process CPU time at 1 thread (BENCH_CLOCK=wall for wall time), best of 3 (1 run when a run
 * takes more than 10 s). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gmp.h>
#include <flint/flint.h>
#include <flint/fmpz.h>
#include <flint/fmpz_poly.h>
#include <flint/fmpz_vec.h>
#include "gpmp.h"

static double now(void) {
    struct timespec t;
    static int wall = -1;
    if (wall < 0) wall = getenv("BENCH_CLOCK") && !strcmp(getenv("BENCH_CLOCK"), "wall");
    clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng_state = 7;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A signed random integer of at most `bits` bits. */
static void random_mpz(mpz_t z, int bits) {
    mpz_set_ui(z, 0);
    for (int b = 0; b < bits; b += 64) {
        int w = bits - b < 64 ? bits - b : 64;
        uint64_t v = rnd();
        if (w < 64) v &= (1ULL << w) - 1;
        mpz_mul_2exp(z, z, (unsigned long)w);
        mpz_add_ui(z, z, v);
    }
    if (rnd() & 1) mpz_neg(z, z);
}

static void run_case(size_t flen, int fbits, size_t n, int ubits, size_t k) {
    mpz_t *f = malloc(flen * sizeof(mpz_t)), *u = malloc(n * sizeof(mpz_t)), *v = malloc(k * sizeof(mpz_t));
    for (size_t i = 0; i < flen; i++) mpz_init(f[i]), random_mpz(f[i], fbits);
    for (size_t i = 0; i < n; i++) mpz_init(u[i]), random_mpz(u[i], ubits);
    for (size_t i = 0; i < k; i++) mpz_init(v[i]);
    fmpz_poly_t F;
    fmpz_poly_init(F);
    for (size_t i = 0; i < flen; i++) {
        fmpz_t c;
        fmpz_init(c);
        fmpz_set_mpz(c, f[i]);
        fmpz_poly_set_coeff_fmpz(F, (slong)i, c);
        fmpz_clear(c);
    }
    fmpz *uf = _fmpz_vec_init((slong)k), *vf = _fmpz_vec_init((slong)k);
    for (size_t i = 0; i < k; i++) fmpz_set_mpz(uf + i, u[i]);
    double tg = 1e30, tf = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        if (gpmp_poly_evaluate(v, f, flen, u, k) != GPMP_SUCCESS) { printf("gpmp failed: %s\n", gpmp_last_error()); exit(2); }
        double t1 = now();
        for (size_t i = 0; i < k; i++) fmpz_poly_evaluate_fmpz(vf + i, F, uf + i);
        double t2 = now();
        if (t1 - t0 < tg) tg = t1 - t0;
        if (t2 - t1 < tf) tf = t2 - t1;
        if (t2 - t0 > 10) break;
    }
    mpz_t w;
    mpz_init(w);
    for (size_t i = 0; i < k; i++) {
        fmpz_get_mpz(w, vf + i);
        if (mpz_cmp(w, v[i])) { printf("WRONG VALUE at %zu\n", i); exit(2); }
    }
    double scale = (double)n / (double)k;
    printf("| %zu | %d | %zu | %d | %zu | %zu | %.3f | %.3f | %.2f |\n", flen, fbits, n, ubits, k, mpz_sizeinbase(v[0], 2), tg * scale, tf * scale,
           tg / tf);
    fflush(stdout);
    mpz_clear(w);
    fmpz_poly_clear(F);
    _fmpz_vec_clear(uf, (slong)k), _fmpz_vec_clear(vf, (slong)k);
    for (size_t i = 0; i < flen; i++) mpz_clear(f[i]);
    for (size_t i = 0; i < n; i++) mpz_clear(u[i]);
    for (size_t i = 0; i < k; i++) mpz_clear(v[i]);
    free(f), free(u), free(v);
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    size_t k = argc > 2 ? (size_t)atoll(argv[2]) : 64;
    gpmp_set_num_threads(threads);
    flint_set_num_threads(threads);
    printf("FLINT %s, gpmp %s, %d thread(s)\n\n", FLINT_VERSION, gpmp_version(), threads);
    printf("| flen | coefficient bits | n | point bits | points timed | bits of value 0 | gpmp s (×n/timed) | FLINT s (×n/timed) | gpmp/FLINT |\n");
    printf("|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    run_case((size_t)1 << 14, 256, (size_t)1 << 14, 64, k);
    run_case((size_t)1 << 10, 64, (size_t)1 << 10, 8, (size_t)1 << 10);
    run_case((size_t)1 << 12, 64, (size_t)1 << 12, 2, (size_t)1 << 12);
    run_case((size_t)1 << 12, 256, (size_t)1 << 12, 1, (size_t)1 << 12);
    return 0;
}
