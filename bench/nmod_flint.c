/* gpmp_nmod_poly_mul vs FLINT 3 nmod_poly_mul (native build) on the same random inputs, 1 thread by
 * default (argv[1] = threads for both). Balanced lengths 2^16, 2^20, 2^22; p = 2^63 - 25 and the
 * largest 50-bit Fourier prime (gpmp_nmod_fourier_prime(50, 0)). Every gpmp product is compared with
 * FLINT's. Build (see bench/Makefile for the paths):
 *   cc -O2 -std=c11 -Iinclude -I$FLINT/include bench/nmod_flint.c -L$LIB -lgpmp \
 *      -L$FLINT/lib -Wl,-rpath,$FLINT/lib -lflint -lmpfr -lgmp -o nmod-flint */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gmp.h>
#include <flint/flint.h>
#include <flint/nmod_poly.h>
#include "gpmp.h"

static double now(void) {
    struct timespec t;
    /* process CPU time (fair at 1 thread on a loaded box), or wall clock with BENCH_CLOCK=wall (several
       threads, the GPU backend) */
    static int wall = -1;
    if (wall < 0) wall = getenv("BENCH_CLOCK") && !strcmp(getenv("BENCH_CLOCK"), "wall");
    clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    gpmp_set_num_threads(threads);
    flint_set_num_threads(threads);
    uint64_t primes[2] = {(1ULL << 63) - 25, 0};
    gpmp_nmod_fourier_prime(50, 0, &primes[1]);
    printf("| len | p | gpmp ms | FLINT nmod_poly_mul ms | gpmp/FLINT |\n|---|---|---|---|---|\n");
    for (int t = 0; t < 2; t++) {
        uint64_t p = primes[t], s = 42;
        for (int lg = 16; lg <= 22; lg += (lg == 16 ? 4 : 2)) {
            size_t n = (size_t)1 << lg;
            uint64_t *f = malloc(n * 8), *g = malloc(n * 8), *h = malloc(2 * n * 8);
            nmod_poly_t a, b, c;
            nmod_poly_init(a, p), nmod_poly_init(b, p), nmod_poly_init(c, p);
            for (size_t i = 0; i < n; i++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                f[i] = s % p;
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                g[i] = s % p;
                nmod_poly_set_coeff_ui(a, i, f[i]);
                nmod_poly_set_coeff_ui(b, i, g[i]);
            }
            double tg = 1e9, tf = 1e9;
            for (int r = 0; r < 3; r++) {
                double t0 = now();
                if (gpmp_nmod_poly_mul(h, f, n, g, n, p) != GPMP_SUCCESS) { printf("gpmp failed: %s\n", gpmp_last_error()); return 2; }
                double t1 = now();
                nmod_poly_mul(c, a, b);
                double t2 = now();
                if (t1 - t0 < tg) tg = t1 - t0;
                if (t2 - t1 < tf) tf = t2 - t1;
            }
            for (size_t i = 0; i < 2 * n - 1; i++)
                if (h[i] != nmod_poly_get_coeff_ui(c, (slong)i)) { printf("WRONG PRODUCT at %zu\n", i); return 2; }
            printf("| 2^%d | %llu | %.1f | %.1f | %.2f |\n", lg, (unsigned long long)p, tg * 1e3, tf * 1e3, tg / tf);
            fflush(stdout);
            nmod_poly_clear(a), nmod_poly_clear(b), nmod_poly_clear(c);
            free(f), free(g), free(h);
        }
    }
    return 0;
}
