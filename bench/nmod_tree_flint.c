/* Multipoint evaluation, interpolation and division mod p: gpmp against FLINT 3 (native build) on the
 * same inputs, in one process, 1 thread by default.
 *
 *   nmod-tree [THREADS [MAXLOG [DIVMAXLOG]]]      (defaults 1, 16, 18)
 *
 * Primes: the same prime for both libraries, p62 = gpmp_nmod_fourier_prime(62, 0) (2^57 | p − 1) and
 * the non-Fourier 2^63 − 25 (gpmp's products then run modulo three 50-bit primes); FLINT also at
 * 2^64 − 59, which gpmp does not take (p < 2^63). For n = 2^12, 2^14, … 2^MAXLOG random f of n
 * coefficients and n random distinct points:
 *   gpmp: gpmp_nmod_tree_new; gpmp_nmod_poly_evaluate on the tree; gpmp_nmod_poly_interpolate on the
 *         tree (the first call on a tree also computes the weights: timed apart as "interp first");
 *         the one-shot gpmp_nmod_poly_evaluate_vec and _interpolate_vec;
 *   FLINT: nmod_poly_evaluate_nmod_vec_fast and nmod_poly_interpolate_nmod_vec_fast (one-shot: they
 *         build the tree), and the precomputed forms (_nmod_poly_tree_build, then
 *         _nmod_poly_evaluate_nmod_vec_fast_precomp, _nmod_poly_interpolate_nmod_vec_fast_precomp
 *         with _nmod_poly_interpolation_weights counted in the tree).
 * Division: a of 2n coefficients by b of n, n = 2^14 .. 2^DIVMAXLOG, gpmp_nmod_poly_divrem against
 * nmod_poly_divrem; power series inverse 1/f mod x^n of f of n coefficients, same n,
 * gpmp_nmod_poly_inv_series against nmod_poly_inv_series.
 * Every gpmp result is compared with FLINT's. Timing: process CPU time (BENCH_CLOCK=wall for wall
 * time), best of at least 3 runs and 0.3 s, the two libraries alternating run by run.
 * Build: make -C bench nmod-tree (see bench/Makefile). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gmp.h>
#include <flint/flint.h>
#include <flint/nmod_poly.h>
#include <flint/nmod_vec.h>
#include "gpmp.h"

static double now(void) {
    struct timespec t;
    static int wall = -1;
    if (wall < 0) wall = getenv("BENCH_CLOCK") && !strcmp(getenv("BENCH_CLOCK"), "wall");
    clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng_state = 42;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void die(const char *what) {
    printf("FAILED: %s: %s\n", what, gpmp_last_error());
    exit(2);
}

/* Distinct random points mod p (sorted copy checked; redrawn on a collision). */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static void distinct_points(uint64_t *u, size_t n, uint64_t p) {
    uint64_t *s = malloc(n * 8);
    for (;;) {
        for (size_t i = 0; i < n; i++) u[i] = rnd() % p;
        memcpy(s, u, n * 8);
        qsort(s, n, 8, cmp_u64);
        size_t i = 1;
        while (i < n && s[i] != s[i - 1]) i++;
        if (i >= n) break;
    }
    free(s);
}

/* Best time of `body` over at least 3 runs and 0.3 s (at most 50 runs). */
#define BEST(var, body)                                                                   \
    do {                                                                                  \
        double tot_ = 0;                                                                  \
        var = 1e30;                                                                       \
        for (int r_ = 0; r_ < 50 && (r_ < 3 || tot_ < 0.3); r_++) {                       \
            double t0_ = now();                                                           \
            body;                                                                         \
            double d_ = now() - t0_;                                                      \
            tot_ += d_;                                                                   \
            if (d_ < var) var = d_;                                                       \
        }                                                                                 \
    } while (0)

static void tree_case(uint64_t p, int lg, int gpmp_too) {
    size_t n = (size_t)1 << lg;
    nmod_t mod;
    nmod_init(&mod, p);
    uint64_t *f = malloc(n * 8), *u = malloc(n * 8), *v = malloc(n * 8), *fv = malloc(n * 8), *g = malloc(n * 8), *fi = malloc(n * 8);
    for (size_t i = 0; i < n; i++) f[i] = rnd() % p;
    distinct_points(u, n, p);
    nmod_poly_t F, G;
    nmod_poly_init(F, p), nmod_poly_init(G, p);
    for (size_t i = 0; i < n; i++) nmod_poly_set_coeff_ui(F, (slong)i, f[i]);

    /* FLINT one-shot and precomputed. */
    double fe, fi1, ftree, fep, fip;
    BEST(fe, nmod_poly_evaluate_nmod_vec_fast(fv, F, u, (slong)n));
    BEST(fi1, nmod_poly_interpolate_nmod_vec_fast(G, u, fv, (slong)n));
    nn_ptr *tree = _nmod_poly_tree_alloc((slong)n);
    uint64_t *w = malloc(n * 8);
    BEST(ftree, _nmod_poly_tree_build(tree, u, (slong)n, mod); _nmod_poly_interpolation_weights(w, tree, (slong)n, mod));
    BEST(fep, _nmod_poly_evaluate_nmod_vec_fast_precomp(fv, f, (slong)n, tree, (slong)n, mod));
    BEST(fip, _nmod_poly_interpolate_nmod_vec_fast_precomp(fi, fv, tree, w, (slong)n, mod));
    for (size_t i = 0; i < n; i++)
        if (fi[i] != f[i]) { printf("FLINT interpolation did not invert evaluation at %zu\n", i); exit(2); }

    if (!gpmp_too) {
        printf("| 2^%d | %llu | – | – | – | – | – | %.2f / %.2f | %.2f | – | %.2f / %.2f | – |\n", lg, (unsigned long long)p, ftree * 1e3, fep * 1e3,
               fe * 1e3, fip * 1e3, fi1 * 1e3);
    } else {
        double gtree, ge, gi_first = 0, gi, gev, giv;
        gpmp_nmod_tree *T = NULL;
        BEST(gtree, if (T) gpmp_nmod_tree_free(T); T = gpmp_nmod_tree_new(u, n, p); if (!T) die("tree"));
        BEST(ge, if (gpmp_nmod_poly_evaluate(v, f, n, T)) die("evaluate"));
        for (size_t i = 0; i < n; i++)
            if (v[i] != fv[i]) { printf("WRONG VALUE at %zu\n", i); exit(2); }
        { double t0 = now(); if (gpmp_nmod_poly_interpolate(g, v, T)) die("interpolate"); gi_first = now() - t0; }
        BEST(gi, if (gpmp_nmod_poly_interpolate(g, v, T)) die("interpolate"));
        for (size_t i = 0; i < n; i++)
            if (g[i] != f[i]) { printf("WRONG COEFFICIENT at %zu\n", i); exit(2); }
        BEST(gev, if (gpmp_nmod_poly_evaluate_vec(v, f, n, u, n, p)) die("evaluate_vec"));
        BEST(giv, if (gpmp_nmod_poly_interpolate_vec(g, u, fv, n, p)) die("interpolate_vec"));
        for (size_t i = 0; i < n; i++)
            if (g[i] != f[i] || v[i] != fv[i]) { printf("WRONG one-shot result at %zu\n", i); exit(2); }
        gpmp_nmod_tree_free(T);
        printf("| 2^%d | %llu | %.2f | %.2f | %.2f / %.2f | %.2f | %.2f | %.2f / %.2f | %.2f | %.2f | %.2f / %.2f | %.2f |\n", lg,
               (unsigned long long)p, gtree * 1e3, ge * 1e3, gi_first * 1e3, gi * 1e3, gev * 1e3, giv * 1e3, ftree * 1e3, fep * 1e3, fe * 1e3,
               gev / fe, fip * 1e3, fi1 * 1e3, giv / fi1);
    }
    fflush(stdout);
    _nmod_poly_tree_free(tree, (slong)n);
    nmod_poly_clear(F), nmod_poly_clear(G);
    free(f), free(u), free(v), free(fv), free(g), free(fi), free(w);
}

static void divrem_case(uint64_t p, int lg) {
    size_t n = (size_t)1 << lg, alen = 2 * n, blen = n;
    uint64_t *a = malloc(alen * 8), *b = malloc(blen * 8), *q = malloc((alen - blen + 1) * 8), *r = malloc(blen * 8);
    for (size_t i = 0; i < alen; i++) a[i] = rnd() % p;
    for (size_t i = 0; i < blen; i++) b[i] = rnd() % p;
    if (b[blen - 1] == 0) b[blen - 1] = 1;
    nmod_poly_t A, B, Q, R;
    nmod_poly_init(A, p), nmod_poly_init(B, p), nmod_poly_init(Q, p), nmod_poly_init(R, p);
    for (size_t i = 0; i < alen; i++) nmod_poly_set_coeff_ui(A, (slong)i, a[i]);
    for (size_t i = 0; i < blen; i++) nmod_poly_set_coeff_ui(B, (slong)i, b[i]);
    double tg = 1e30, tf = 1e30, tot = 0;
    for (int k = 0; k < 50 && (k < 3 || tot < 0.6); k++) {
        double t0 = now();
        if (gpmp_nmod_poly_divrem(q, r, a, alen, b, blen, p)) die("divrem");
        double t1 = now();
        nmod_poly_divrem(Q, R, A, B);
        double t2 = now();
        tot += t2 - t0;
        if (t1 - t0 < tg) tg = t1 - t0;
        if (t2 - t1 < tf) tf = t2 - t1;
    }
    for (size_t i = 0; i < alen - blen + 1; i++)
        if (q[i] != nmod_poly_get_coeff_ui(Q, (slong)i)) { printf("WRONG QUOTIENT at %zu\n", i); exit(2); }
    for (size_t i = 0; i + 1 < blen; i++)
        if (r[i] != nmod_poly_get_coeff_ui(R, (slong)i)) { printf("WRONG REMAINDER at %zu\n", i); exit(2); }
    printf("| 2^%d | %llu | %.2f | %.2f | %.2f |\n", lg, (unsigned long long)p, tg * 1e3, tf * 1e3, tg / tf);
    fflush(stdout);
    nmod_poly_clear(A), nmod_poly_clear(B), nmod_poly_clear(Q), nmod_poly_clear(R);
    free(a), free(b), free(q), free(r);
}

static void inv_series_case(uint64_t p, int lg) {
    size_t n = (size_t)1 << lg;
    uint64_t *f = malloc(n * 8), *g = malloc(n * 8);
    for (size_t i = 0; i < n; i++) f[i] = rnd() % p;
    if (f[0] == 0) f[0] = 1;
    nmod_poly_t F, G;
    nmod_poly_init(F, p), nmod_poly_init(G, p);
    for (size_t i = 0; i < n; i++) nmod_poly_set_coeff_ui(F, (slong)i, f[i]);
    double tg = 1e30, tf = 1e30, tot = 0;
    for (int k = 0; k < 50 && (k < 3 || tot < 0.6); k++) {
        double t0 = now();
        if (gpmp_nmod_poly_inv_series(g, f, n, n, p)) die("inv_series");
        double t1 = now();
        nmod_poly_inv_series(G, F, (slong)n);
        double t2 = now();
        tot += t2 - t0;
        if (t1 - t0 < tg) tg = t1 - t0;
        if (t2 - t1 < tf) tf = t2 - t1;
    }
    for (size_t i = 0; i < n; i++)
        if (g[i] != nmod_poly_get_coeff_ui(G, (slong)i)) { printf("WRONG SERIES COEFFICIENT at %zu\n", i); exit(2); }
    printf("| 2^%d | %llu | %.2f | %.2f | %.2f |\n", lg, (unsigned long long)p, tg * 1e3, tf * 1e3, tg / tf);
    fflush(stdout);
    nmod_poly_clear(F), nmod_poly_clear(G);
    free(f), free(g);
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    int maxlog = argc > 2 ? atoi(argv[2]) : 16;
    int divmax = argc > 3 ? atoi(argv[3]) : 18;
    gpmp_set_num_threads(threads);
    flint_set_num_threads(threads);
    uint64_t p62;
    if (gpmp_nmod_fourier_prime(62, 0, &p62)) die("fourier_prime");
    uint64_t primes[3] = {p62, (1ULL << 63) - 25, 18446744073709551557ULL};
    printf("FLINT %s, gpmp %s, %d thread(s)\n\n", FLINT_VERSION, gpmp_version(), threads);
    printf("| n | p | gpmp tree | gpmp eval | gpmp interp first / next | gpmp eval_vec | gpmp interp_vec | FLINT tree+weights / eval precomp | FLINT eval_fast | eval_vec/FLINT | FLINT interp precomp / interp_fast | interp_vec/FLINT |\n");
    printf("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int t = 0; t < 3; t++)
        for (int lg = 12; lg <= maxlog; lg += 2) tree_case(primes[t], lg, t < 2);
    printf("\n| n (2n / n) | p | gpmp divrem ms | FLINT nmod_poly_divrem ms | gpmp/FLINT |\n|---|---|--:|--:|--:|\n");
    for (int t = 0; t < 2; t++)
        for (int lg = 14; lg <= divmax; lg += 2) divrem_case(primes[t], lg);
    printf("\n| n | p | gpmp inv_series ms | FLINT nmod_poly_inv_series ms | gpmp/FLINT |\n|---|---|--:|--:|--:|\n");
    for (int t = 0; t < 2; t++)
        for (int lg = 14; lg <= divmax; lg += 2) inv_series_case(primes[t], lg);
    return 0;
}
