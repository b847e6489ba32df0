/* gpmp's Taylor shift and real roots against FLINT 3 (native build) on the same inputs.
 *
 *   roots-flint shift THREADS [LG:BITS ...]   gpmp_poly_taylor_shift vs fmpz_poly_taylor_shift (c = 1),
 *                                             default cases 2^10, 2^12, 2^14 at 64 and 1000 bits
 *   roots-flint roots THREADS [CASE ...]      gpmp_poly_real_roots (prec 53) vs arb_fmpz_poly_real_roots
 *                                             (53 bits) and fmpz_poly_isolate_real_roots (isolation);
 *                                             CASE = cheb:N, mig:N:A (x^N - 2(A x - 1)^2), wilk:N,
 *                                             rand:N:BITS (splitmix64, seed 42, signed BITS-bit coefficients)
 *   roots-flint dump CASE FILE                writes the case as a PARI/GP polynomial (bench/roots_pari.gp)
 *
 * Every gpmp shift is compared with FLINT's coefficient by coefficient, every root count with FLINT's.
 * Times: shifts after one untimed call each (first-use tables), best of R runs (R = 3, or 1 when
 * one run takes more than 4 s); real roots one run each; process CPU time at 1 thread,
 * wall time at more (BENCH_CLOCK=wall forces wall time). Build: make -C bench roots-flint. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gmp.h>
#include <flint/flint.h>
#include <flint/fmpz.h>
#include <flint/fmpz_vec.h>
#include <flint/fmpq.h>
#include <flint/fmpq_vec.h>
#include <flint/fmpz_poly.h>
#include <flint/arb.h>
#include <flint/arb_fmpz_poly.h>
#include "gpmp.h"

static int wall_clock;

static double now(void) {
    struct timespec t;
    clock_gettime(wall_clock ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng_state = 42;
static uint64_t splitmix(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* a signed coefficient of exactly `bits` bits */
static void random_coef(mpz_t z, unsigned bits) {
    mpz_set_ui(z, 0);
    for (unsigned b = 0; b < bits; b += 64) {
        mpz_mul_2exp(z, z, 64);
        mpz_add_ui(z, z, splitmix());
    }
    mpz_fdiv_r_2exp(z, z, bits);
    mpz_setbit(z, bits - 1);
    if (splitmix() & 1) mpz_neg(z, z);
}

/* builds the case into f (FLINT) */
static int build(fmpz_poly_t f, const char *spec) {
    long n = 0, a = 0;
    fmpz_poly_zero(f);
    if (sscanf(spec, "cheb:%ld", &n) == 1) {
        fmpz_poly_chebyshev_t(f, (ulong)n);
    } else if (sscanf(spec, "mig:%ld:%ld", &n, &a) == 2) {
        fmpz_poly_t g;
        fmpz_poly_init(g);
        fmpz_poly_set_coeff_si(g, 1, a);
        fmpz_poly_set_coeff_si(g, 0, -1);
        fmpz_poly_mul(g, g, g);
        fmpz_poly_scalar_mul_si(g, g, -2);
        fmpz_poly_set_coeff_si(f, n, 1);
        fmpz_poly_add(f, f, g);
        fmpz_poly_clear(g);
    } else if (sscanf(spec, "wilk:%ld", &n) == 1) {
        fmpz_poly_t g;
        fmpz_poly_init(g);
        fmpz_poly_set_ui(f, 1);
        for (long i = 1; i <= n; i++) {
            fmpz_poly_zero(g);
            fmpz_poly_set_coeff_si(g, 1, 1);
            fmpz_poly_set_coeff_si(g, 0, -i);
            fmpz_poly_mul(f, f, g);
        }
        fmpz_poly_clear(g);
    } else if (sscanf(spec, "rand:%ld:%ld", &n, &a) == 2) {
        mpz_t z;
        mpz_init(z);
        rng_state = 42;
        for (long i = 0; i <= n; i++) {
            random_coef(z, (unsigned)a);
            fmpz_t c;
            fmpz_init(c);
            fmpz_set_mpz(c, z);
            fmpz_poly_set_coeff_fmpz(f, i, c);
            fmpz_clear(c);
        }
        mpz_clear(z);
    } else {
        return 0;
    }
    return 1;
}

static mpz_t *to_mpz(const fmpz_poly_t f) {
    slong n = fmpz_poly_length(f);
    mpz_t *v = malloc((size_t)(n ? n : 1) * sizeof(mpz_t));
    for (slong i = 0; i < n; i++) {
        mpz_init(v[i]);
        fmpz_get_mpz(v[i], f->coeffs + i);
    }
    return v;
}

static void free_mpz(mpz_t *v, slong n) {
    for (slong i = 0; i < n; i++) mpz_clear(v[i]);
    free(v);
}

static void set_threads(int t) {
    gpmp_set_num_threads(t);
    flint_set_num_threads(t);
    wall_clock = t > 1 || (getenv("BENCH_CLOCK") && !strcmp(getenv("BENCH_CLOCK"), "wall"));
}

static int bench_shift(int threads, int argc, char **argv) {
    const char *defaults[] = {"10:64", "12:64", "14:64", "10:1000", "12:1000", "14:1000"};
    int ncases = argc > 0 ? argc : 6;
    set_threads(threads);
    printf("| length | bits | threads | gpmp ms | FLINT ms | gpmp/FLINT |\n|---|---|---|--:|--:|--:|\n");
    for (int k = 0; k < ncases; k++) {
        int lg = 0, bits = 0;
        if (sscanf(argc > 0 ? argv[k] : defaults[k], "%d:%d", &lg, &bits) != 2) return 1;
        slong n = (slong)1 << lg;
        fmpz_poly_t f, g;
        fmpz_poly_init(f);
        fmpz_poly_init(g);
        mpz_t z, one;
        mpz_init(z);
        mpz_init_set_ui(one, 1);
        rng_state = 42;
        for (slong i = 0; i < n; i++) {
            random_coef(z, (unsigned)bits);
            fmpz_t c;
            fmpz_init(c);
            fmpz_set_mpz(c, z);
            fmpz_poly_set_coeff_fmpz(f, i, c);
            fmpz_clear(c);
        }
        mpz_t *fv = to_mpz(f), *gv = to_mpz(f);
        fmpz_t c1;
        fmpz_init_set_ui(c1, 1);
        double tg = 1e30, tf = 1e30;
        /* one untimed call each: first-use tables (NTT plans, FLINT's FFT tables) */
        gpmp_poly_taylor_shift(gv, (const mpz_t *)fv, (size_t)n, one);
        fmpz_poly_taylor_shift(g, f, c1);
        for (int r = 0; r < 3; r++) {
            double t0 = now();
            if (gpmp_poly_taylor_shift(gv, (const mpz_t *)fv, (size_t)n, one) != GPMP_SUCCESS) {
                printf("gpmp failed: %s\n", gpmp_last_error());
                return 2;
            }
            double t1 = now();
            fmpz_poly_taylor_shift(g, f, c1);
            double t2 = now();
            if (t1 - t0 < tg) tg = t1 - t0;
            if (t2 - t1 < tf) tf = t2 - t1;
            if (t2 - t0 > 4) break;
        }
        for (slong i = 0; i < n; i++) {
            fmpz_get_mpz(z, g->coeffs + i);
            if (mpz_cmp(z, gv[i]) != 0) {
                printf("WRONG SHIFT at %ld\n", (long)i);
                return 2;
            }
        }
        printf("| 2^%d | %d | %d | %.2f | %.2f | %.3f |\n", lg, bits, threads, tg * 1e3, tf * 1e3, tg / tf);
        fflush(stdout);
        free_mpz(fv, n);
        free_mpz(gv, n);
        fmpz_clear(c1);
        mpz_clear(z);
        mpz_clear(one);
        fmpz_poly_clear(f);
        fmpz_poly_clear(g);
    }
    return 0;
}

static int bench_roots(int threads, int argc, char **argv) {
    set_threads(threads);
    printf("| case | degree | roots | threads | gpmp prec 53 s | gpmp isolation s | FLINT arb 53 bits s | FLINT isolation s | gpmp/best FLINT |\n");
    printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int k = 0; k < argc; k++) {
        fmpz_poly_t f;
        fmpz_poly_init(f);
        if (!build(f, argv[k])) {
            printf("unknown case %s\n", argv[k]);
            return 1;
        }
        slong len = fmpz_poly_length(f), d = len - 1;
        mpz_t *fv = to_mpz(f);
        mpq_t *lo = malloc((size_t)d * sizeof(mpq_t)), *hi = malloc((size_t)d * sizeof(mpq_t));
        for (slong i = 0; i < d; i++) mpq_init(lo[i]), mpq_init(hi[i]);
        size_t ng = 0, ni = 0;
        double t0 = now();
        if (gpmp_poly_real_roots(lo, hi, NULL, &ng, (const mpz_t *)fv, (size_t)len, 53) != GPMP_SUCCESS) {
            printf("gpmp failed: %s\n", gpmp_last_error());
            return 2;
        }
        double tg = now() - t0;
        t0 = now();
        gpmp_poly_real_roots(lo, hi, NULL, &ni, (const mpz_t *)fv, (size_t)len, -1);
        double tgi = now() - t0;
        double ta = -1, tiso = -1;
        slong na = -1, niso = -1;
        if (!getenv("SKIP_FLINT")) {
            arb_ptr r = _arb_vec_init(d);
            t0 = now();
            na = arb_fmpz_poly_real_roots(r, f, 0, 53);
            ta = now() - t0;
            _arb_vec_clear(r, d);
            if (!getenv("SKIP_FLINT_ISOLATE")) {
                fmpq *ex = _fmpq_vec_init(d);
                fmpz *c = _fmpz_vec_init(d);
                slong *kk = flint_malloc((size_t)d * sizeof(slong)), ne = 0, nint = 0;
                t0 = now();
                /* FLINT's isolation wants a square-free polynomial: every case here is one */
                fmpz_poly_isolate_real_roots(ex, &ne, c, kk, &nint, f);
                tiso = now() - t0;
                niso = ne + nint;
                _fmpq_vec_clear(ex, d);
                _fmpz_vec_clear(c, d);
                flint_free(kk);
            }
        }
        if ((na >= 0 && (slong)ng != na) || (niso >= 0 && (slong)ng != niso) || ng != ni) {
            printf("ROOT COUNTS DIFFER on %s: gpmp %zu / %zu, FLINT %ld / %ld\n", argv[k], ng, ni, (long)na, (long)niso);
            return 2;
        }
        double best = ta;
        if (tiso >= 0 && (best < 0 || tiso < best)) best = tiso;
        printf("| %s | %ld | %zu | %d | %.3f | %.3f | %s%.3f | %s%.3f | %.3f |\n", argv[k], (long)d, ng, threads, tg, tgi,
               ta < 0 ? "(skipped) " : "", ta, tiso < 0 ? "(skipped) " : "", tiso, best > 0 ? tg / best : 0.0);
        fflush(stdout);
        for (slong i = 0; i < d; i++) mpq_clear(lo[i]), mpq_clear(hi[i]);
        free(lo);
        free(hi);
        free_mpz(fv, len);
        fmpz_poly_clear(f);
    }
    return 0;
}

static int dump(const char *spec, const char *file) {
    fmpz_poly_t f;
    fmpz_poly_init(f);
    if (!build(f, spec)) return 1;
    FILE *out = fopen(file, "w");
    if (!out) return 1;
    fprintf(out, "Pol([");
    for (slong i = fmpz_poly_length(f) - 1; i >= 0; i--) {
        fmpz_fprint(out, f->coeffs + i);
        fprintf(out, i ? "," : "");
    }
    fprintf(out, "])\n");
    fclose(out);
    fmpz_poly_clear(f);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "shift")) return bench_shift(atoi(argv[2]), argc - 3, argv + 3);
    if (argc >= 3 && !strcmp(argv[1], "roots")) return bench_roots(atoi(argv[2]), argc - 3, argv + 3);
    if (argc == 4 && !strcmp(argv[1], "dump")) return dump(argv[2], argv[3]);
    fprintf(stderr, "usage: %s shift THREADS [LG:BITS...] | roots THREADS CASE... | dump CASE FILE\n", argv[0]);
    return 1;
}
