/* gpmp-bench: times gpmp against FLINT 3 (native build, fft_small) on the same inputs.
 *
 *   gpmp-bench poly-mul   [--quick] [--cases LIST] [--alg LIST] [--threads LIST] [options]
 *   gpmp-bench thresholds [--lens LIST] [--bits LIST] [--alg LIST] [--threads LIST] [options]
 *
 * poly-mul:   gpmp_poly_mul (or gpmp_poly_mul_alg) vs fmpz_poly_mul, per case and thread count.
 * thresholds: every gpmp algorithm on a (length, bits) grid; prints the fastest per cell.
 * See bench/README.md. Tables go to stdout (markdown), progress to stderr.
 *
 * Inputs: splitmix64, each coefficient a random signed integer of exactly b bits (top bit set,
 * random sign). FLINT gets the same values (converted outside the timed region). Every timed
 * gpmp result is compared coefficient by coefficient with FLINT's product; a mismatch aborts. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gmp.h>
#include <flint/flint.h>
#include <flint/fmpz.h>
#include <flint/fmpz_poly.h>

#include "gpmp.h"

#if GMP_NUMB_BITS != 64
#error "gpmp-bench assumes 64-bit GMP limbs"
#endif

#define MAXN 16   /* list lengths (threads, algorithms, ...) */
#define MAXCASES 64

/* ---------------------------------------------------------------- utilities */

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("gpmp-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void progress(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

/* Wall clock, or with BENCH_CLOCK=cpu the process CPU time (all threads): on a machine loaded by
   other jobs a 1-thread comparison is then still fair; meaningless above 1 thread. */
static double now(void) {
    static int clock_id = -1;
    if (clock_id < 0) {
        const char *c = getenv("BENCH_CLOCK");
        clock_id = c && !strcmp(c, "cpu") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
    }
    struct timespec t;
    clock_gettime((clockid_t)clock_id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) die("out of memory (%zu x %zu bytes)", n, size);
    return p;
}

/* z = a random signed integer of exactly `bits` bits. */
static void random_coeff(mpz_t z, unsigned bits, uint64_t *s) {
    size_t n = (bits + 63) / 64;
    mp_limb_t *p = mpz_limbs_write(z, (mp_size_t)n);
    for (size_t i = 0; i < n; i++) p[i] = splitmix64(s);
    unsigned top = bits - 64 * (unsigned)(n - 1); /* 1..64 bits in the top limb */
    if (top < 64) p[n - 1] &= ((mp_limb_t)1 << top) - 1;
    p[n - 1] |= (mp_limb_t)1 << (top - 1);
    mpz_limbs_finish(z, (mp_size_t)n);
    if (splitmix64(s) & 1) mpz_neg(z, z);
}

static long nproc(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* "12" -> 12, "2^12" -> 4096. */
static size_t parse_size(const char *s, const char *what) {
    char *end;
    errno = 0;
    if (s[0] == '2' && s[1] == '^') {
        unsigned long k = strtoul(s + 2, &end, 10);
        if (errno || end == s + 2 || *end || k > 40) die("bad %s '%s'", what, s);
        return (size_t)1 << k;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0) die("bad %s '%s'", what, s);
    return (size_t)v;
}

/* Splits a comma list into at most `max` tokens (modifies s). */
static int split_list(char *s, char **tok, int max, const char *what) {
    int n = 0;
    for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
        if (n == max) die("too many entries in %s (at most %d)", what, max);
        tok[n++] = t;
    }
    if (n == 0) die("empty %s", what);
    return n;
}

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static double geomean(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += log(x[i]);
    return n ? exp(s / n) : NAN;
}

/* ---------------------------------------------------------------- algorithms */

static const struct { const char *name; gpmp_mul_alg alg; } ALGS[] = {
    {"auto", GPMP_MUL_AUTO},          {"schoolbook", GPMP_MUL_SCHOOLBOOK},
    {"kronecker", GPMP_MUL_KRONECKER}, {"dc", GPMP_MUL_DIVIDE_CONQUER},
    {"toom4", GPMP_MUL_TOOM4},        {"toom8", GPMP_MUL_TOOM8},
    {"twoconv", GPMP_MUL_TWO_CONVOLUTION}, {"ntt", GPMP_MUL_SMALL_PRIME_NTT},
    {"bigfft", GPMP_MUL_BIG_PRIME_FFT},
};
#define NALGS ((int)(sizeof ALGS / sizeof ALGS[0]))

static int parse_alg(const char *name) {
    for (int i = 0; i < NALGS; i++)
        if (!strcmp(ALGS[i].name, name)) return i;
    die("unknown algorithm '%s' (auto schoolbook kronecker dc toom4 toom8 twoconv ntt bigfft)", name);
    return -1;
}

/* ---------------------------------------------------------------- operands */

typedef struct {
    size_t flen, glen, hlen;
    unsigned bits;
    mpz_t *f, *g, *h, *ref; /* inputs, gpmp output, FLINT's product as mpz */
    fmpz_poly_t F, G, H;
} operands;

static void mpz_array_to_fmpz_poly(fmpz_poly_t P, mpz_t *a, size_t n) {
    fmpz_poly_fit_length(P, (slong)n);
    for (size_t i = 0; i < n; i++) fmpz_set_mpz(P->coeffs + i, a[i]);
    _fmpz_poly_set_length(P, (slong)n);
    _fmpz_poly_normalise(P);
}

static mpz_t *mpz_array(size_t n) {
    mpz_t *a = xcalloc(n, sizeof(mpz_t));
    for (size_t i = 0; i < n; i++) mpz_init(a[i]);
    return a;
}

static void mpz_array_free(mpz_t *a, size_t n) {
    for (size_t i = 0; i < n; i++) mpz_clear(a[i]);
    free(a);
}

/* Deterministic inputs: the stream depends only on (seed, flen, glen, bits). FLINT's product is
 * computed once here (1 thread, untimed) as the reference for every gpmp result. */
static void operands_init(operands *op, size_t flen, size_t glen, unsigned bits, uint64_t seed) {
    uint64_t s = seed ^ (flen * 0x100000001B3ULL) ^ (glen * 0x9E3779B97F4A7C15ULL) ^ bits;
    op->flen = flen, op->glen = glen, op->hlen = flen + glen - 1, op->bits = bits;
    op->f = mpz_array(flen), op->g = mpz_array(glen);
    op->h = mpz_array(op->hlen), op->ref = mpz_array(op->hlen);
    for (size_t i = 0; i < flen; i++) random_coeff(op->f[i], bits, &s);
    for (size_t i = 0; i < glen; i++) random_coeff(op->g[i], bits, &s);
    fmpz_poly_init(op->F), fmpz_poly_init(op->G), fmpz_poly_init(op->H);
    mpz_array_to_fmpz_poly(op->F, op->f, flen);
    mpz_array_to_fmpz_poly(op->G, op->g, glen);
    flint_set_num_threads(1);
    fmpz_poly_mul(op->H, op->F, op->G);
    for (size_t i = 0; i < op->hlen; i++) {
        if ((slong)i < fmpz_poly_length(op->H)) fmpz_get_mpz(op->ref[i], op->H->coeffs + i);
        else mpz_set_ui(op->ref[i], 0);
    }
}

static void operands_clear(operands *op) {
    mpz_array_free(op->f, op->flen), mpz_array_free(op->g, op->glen);
    mpz_array_free(op->h, op->hlen), mpz_array_free(op->ref, op->hlen);
    fmpz_poly_clear(op->F), fmpz_poly_clear(op->G), fmpz_poly_clear(op->H);
}

/* ---------------------------------------------------------------- timing */

typedef struct {
    double min_time; /* repeat until the runs add up to this many seconds ... */
    int max_runs;    /* ... or this many runs */
    double budget;   /* skip a gpmp measurement whose single run is predicted above this (s) */
    uint64_t seed;
} options;

static gpmp_status gpmp_run(operands *op, int alg, size_t flen, size_t glen, double *t) {
    double t0 = now();
    gpmp_status st = ALGS[alg].alg == GPMP_MUL_AUTO
                         ? gpmp_poly_mul(op->h, (const mpz_t *)op->f, flen, (const mpz_t *)op->g, glen)
                         : gpmp_poly_mul_alg(op->h, (const mpz_t *)op->f, flen, (const mpz_t *)op->g, glen,
                                             ALGS[alg].alg);
    *t = now() - t0;
    if (st != GPMP_SUCCESS && st != GPMP_INVALID_ARGUMENT)
        die("gpmp_poly_mul (%s, %zu x %zu, %u bits, %d threads) failed: %s: %s", ALGS[alg].name, flen, glen,
            op->bits, gpmp_get_num_threads(), gpmp_strerror(st), gpmp_last_error());
    return st;
}

static void verify(const operands *op, int alg) {
    for (size_t i = 0; i < op->hlen; i++)
        if (mpz_cmp(op->h[i], op->ref[i]) != 0)
            die("WRONG PRODUCT: gpmp %s, %zu x %zu, %u bits, %d threads: coefficient %zu differs from FLINT's",
                ALGS[alg].name, op->flen, op->glen, op->bits, gpmp_get_num_threads(), i);
}

/* Predicted seconds of one full gpmp run, from single runs on prefixes with the longer length
 * divided by 256, 64 and 16 (best of up to 3 runs each; lengths below 16 are not probed). Cost ~ L^e with e measured from the
 * last two probes, clamped to [1, 2] (2 when only one probe is usable). Returns 0 when nothing
 * could be probed; stops early once the prediction exceeds `budget` (with a measured exponent, or
 * even at e = 1). *st gets the status. */
static double predict(operands *op, int alg, double budget, gpmp_status *st) {
    size_t L = op->flen > op->glen ? op->flen : op->glen;
    double prev = 0, pred = 0;
    *st = GPMP_SUCCESS;
    for (size_t s = 256; s >= 16; s /= 4) {
        size_t l = L / s;
        if (l < 16) continue;
        size_t fl = op->flen < l ? op->flen : l, gl = op->glen < l ? op->glen : l;
        double t = INFINITY, t1, total = 0;
        const char *w = getenv("BENCH_WARMUP");
        if (w && !strcmp(w, "1") && (*st = gpmp_run(op, alg, fl, gl, &t1)) != GPMP_SUCCESS) return 0;
        for (int r = 0; r < 3 && total < budget / 64; r++) { /* best of up to 3: the box is shared */
            if ((*st = gpmp_run(op, alg, fl, gl, &t1)) != GPMP_SUCCESS) return 0;
            t = fmin(t, t1), total += t1;
        }
        int measured = prev > 20e-6;
        double e = measured ? fmin(2, fmax(1, log(t / prev) / log(4))) : 2;
        pred = t * pow((double)s, e);
        if (getenv("BENCH_DEBUG"))
            progress("    probe %s %zu x %zu: %.3g ms, e %.2f, predicted %.3g s\n", ALGS[alg].name, fl, gl, 1e3 * t, e, pred);
        prev = t;
        if (pred > budget && (measured || t * (double)s > budget)) break;
    }
    return pred;
}

/* Whether to run again after `runs` runs taking `total` seconds: until min_time in total, and at
 * least 3 runs while that stays under 5 min_time (one descheduled run must not be the result). */
static int more_runs(const options *o, int runs, double total) {
    return runs < o->max_runs && (total < o->min_time || (runs < 3 && total < 5 * o->min_time));
}

/* Best of R gpmp runs (the first one verified), R adaptive; returns the status of the first run.
 * With BENCH_WARMUP=1 one untimed run comes first (GPU backend: kernels compiled, plans built;
 * predict's probes get one too). */
static gpmp_status time_gpmp(operands *op, int alg, const options *o, double *best) {
    double t, total;
    const char *w = getenv("BENCH_WARMUP");
    if (w && !strcmp(w, "1")) gpmp_run(op, alg, op->flen, op->glen, &t);
    gpmp_status st = gpmp_run(op, alg, op->flen, op->glen, &t);
    if (st != GPMP_SUCCESS) return st;
    verify(op, alg);
    *best = total = t;
    for (int r = 1; more_runs(o, r, total); r++) {
        gpmp_run(op, alg, op->flen, op->glen, &t);
        total += t;
        *best = fmin(*best, t);
    }
    return st;
}

static double time_flint(operands *op, const options *o) {
    double best = INFINITY, total = 0;
    for (int r = 0; r == 0 || more_runs(o, r, total); r++) {
        double t0 = now();
        fmpz_poly_mul(op->H, op->F, op->G);
        double t = now() - t0;
        total += t;
        best = fmin(best, t);
    }
    return best;
}

/* Sets gpmp's and FLINT's thread counts, and wakes gpmp's new pool with a tiny product so that
 * thread start-up is not timed. */
static void set_threads(int n) {
    gpmp_status st = gpmp_set_num_threads(n);
    if (st != GPMP_SUCCESS) die("gpmp_set_num_threads(%d): %s: %s", n, gpmp_strerror(st), gpmp_last_error());
    flint_set_num_threads(n);
    mpz_t x[3];
    for (int i = 0; i < 3; i++) mpz_init_set_ui(x[i], 3);
    for (int r = 0; r < 4; r++) gpmp_poly_mul(x + 1, (const mpz_t *)x, 1, (const mpz_t *)x, 1);
    for (int i = 0; i < 3; i++) mpz_clear(x[i]);
}

static void print_versions(int nthreads, const int *threads) {
    printf("gpmp %s, FLINT %s (fft_small %s), GMP %s; threads:", gpmp_version(), FLINT_VERSION,
           FLINT_HAVE_FFT_SMALL ? "on" : "OFF", gmp_version);
    for (int i = 0; i < nthreads; i++) printf(" %d", threads[i]);
    printf(" (of %ld cores).\n\n", nproc());
}

/* ---------------------------------------------------------------- poly-mul */

enum { ST_OK, ST_SKIPPED, ST_NA };

typedef struct {
    size_t flen, glen;
    unsigned bits;
    char label[64];
} pm_case;

typedef struct {
    double flint1;                   /* FLINT at 1 thread, ms */
    double flint[MAXN];              /* FLINT per thread count, ms */
    double gpmp[MAXN][MAXN];         /* [threads][alg], ms (or the estimate when skipped) */
    int state[MAXN][MAXN];
} pm_result;

static const char *GRID[] = {"2^10:64", "2^14:64", "2^17:64", "2^20:64", "2^12:1024",
                             "2^16:256", "2^10:16384", "2^20x2^4:64"};
static const char *QUICK[] = {"2^10:64", "2^14:64", "2^12:1024", "2^14x2^4:64"};

/* "FLEN[xGLEN]:BITS", lengths as N or 2^k. */
static pm_case parse_case(const char *spec) {
    pm_case c;
    char buf[64], *colon, *x;
    if (strlen(spec) >= sizeof buf) die("bad case '%s'", spec);
    strcpy(buf, spec);
    if (!(colon = strchr(buf, ':'))) die("bad case '%s' (want FLEN[xGLEN]:BITS, e.g. 2^14:64)", spec);
    *colon = 0;
    unsigned long b = strtoul(colon + 1, &x, 10);
    if (*x || b == 0 || b > (1UL << 24)) die("bad bit size in case '%s'", spec);
    c.bits = (unsigned)b;
    if ((x = strchr(buf, 'x'))) {
        *x = 0;
        c.flen = parse_size(buf, "length"), c.glen = parse_size(x + 1, "length");
        snprintf(c.label, sizeof c.label, "%s x %s, %u-bit", buf, x + 1, c.bits);
    } else {
        c.flen = c.glen = parse_size(buf, "length");
        snprintf(c.label, sizeof c.label, "%s, %u-bit", buf, c.bits);
    }
    return c;
}

static void fmt_ms(char *out, size_t n, int state, double ms) {
    if (state == ST_NA) snprintf(out, n, "n/a");
    else if (state == ST_SKIPPED) snprintf(out, n, "skipped (est. %.3g s)", ms / 1e3);
    else snprintf(out, n, "%.4g", ms);
}

static void fmt_ratio(char *out, size_t n, int state, double r) {
    if (state != ST_OK) snprintf(out, n, "-");
    else snprintf(out, n, "%.3f", r);
}

static int poly_mul(int ncases, pm_case *cases, int nalgs, int *algs, int nthreads, int *threads,
                    const options *o) {
    pm_result *res = xcalloc((size_t)ncases, sizeof *res);
    for (int c = 0; c < ncases; c++) {
        operands op;
        progress("%s: inputs ...", cases[c].label);
        operands_init(&op, cases[c].flen, cases[c].glen, cases[c].bits, o->seed);
        set_threads(1);
        res[c].flint1 = 1e3 * time_flint(&op, o);
        progress(" FLINT@1 %.4g ms\n", res[c].flint1);
        for (int ti = 0; ti < nthreads; ti++) {
            set_threads(threads[ti]);
            res[c].flint[ti] = threads[ti] == 1 ? res[c].flint1 : 1e3 * time_flint(&op, o);
            for (int ai = 0; ai < nalgs; ai++) {
                gpmp_status st;
                double t, est = predict(&op, algs[ai], o->budget, &st);
                int *state = &res[c].state[ti][ai];
                if (st == GPMP_INVALID_ARGUMENT) *state = ST_NA;
                else if (est > o->budget) *state = ST_SKIPPED, res[c].gpmp[ti][ai] = 1e3 * est;
                else if (time_gpmp(&op, algs[ai], o, &t) == GPMP_INVALID_ARGUMENT) *state = ST_NA;
                else *state = ST_OK, res[c].gpmp[ti][ai] = 1e3 * t;
                char ms[64];
                fmt_ms(ms, sizeof ms, *state, res[c].gpmp[ti][ai]);
                progress("  %d thread(s): gpmp %s %s%s, FLINT %.4g ms%s%s\n", threads[ti], ALGS[algs[ai]].name, ms,
                         *state == ST_OK ? " ms" : "", res[c].flint[ti], *state == ST_NA ? ": " : "",
                         *state == ST_NA ? gpmp_last_error() : "");
            }
        }
        operands_clear(&op);
    }

    printf("## poly-mul: gpmp_poly_mul vs FLINT %s fmpz_poly_mul\n\n", FLINT_VERSION);
    print_versions(nthreads, threads);
    printf("Times in ms, best of R runs (R: until %.2g s in total and 3 runs within %.2g s, at most %d). ratio = gpmp/FLINT "
           "(< 1: gpmp faster). \"skipped\": one gpmp run was predicted above %.3g s.\n",
           o->min_time, 5 * o->min_time, o->max_runs, o->budget);
    char a[64], b[64];
    for (int ti = 0; ti < nthreads; ti++) {
        printf("\n### %d thread%s (gpmp and FLINT)\n\n", threads[ti], threads[ti] == 1 ? "" : "s");
        printf("| case | gpmp alg | gpmp ms | FLINT ms | gpmp/FLINT |\n|---|---|--:|--:|--:|\n");
        for (int c = 0; c < ncases; c++)
            for (int ai = 0; ai < nalgs; ai++) {
                int s = res[c].state[ti][ai];
                fmt_ms(a, sizeof a, s, res[c].gpmp[ti][ai]);
                fmt_ratio(b, sizeof b, s, res[c].gpmp[ti][ai] / res[c].flint[ti]);
                printf("| %s | %s | %s | %.4g | %s |\n", cases[c].label, ALGS[algs[ai]].name, a, res[c].flint[ti], b);
            }
        printf("\n");
        for (int ai = 0; ai < nalgs; ai++) {
            double r[MAXCASES];
            int n = 0, worst = -1;
            for (int c = 0; c < ncases; c++)
                if (res[c].state[ti][ai] == ST_OK) {
                    r[n++] = res[c].gpmp[ti][ai] / res[c].flint[ti];
                    if (worst < 0 || r[n - 1] > res[worst].gpmp[ti][ai] / res[worst].flint[ti]) worst = c;
                }
            if (n == 0) printf("- %s: no case timed\n", ALGS[algs[ai]].name);
            else
                printf("- %s: geometric mean of gpmp/FLINT at %d thread%s over %d/%d cases: **%.3f**; worst %.3f (%s)\n",
                       ALGS[algs[ai]].name, threads[ti], threads[ti] == 1 ? "" : "s", n, ncases, geomean(r, n),
                       res[worst].gpmp[ti][ai] / res[worst].flint[ti], cases[worst].label);
        }
    }

    int multi = 0;
    for (int ti = 0; ti < nthreads; ti++) multi |= threads[ti] > 1;
    if (multi) {
        printf("\n### gpmp at N threads vs FLINT at 1 thread\n\n| case | gpmp alg | FLINT@1 ms |");
        for (int ti = 0; ti < nthreads; ti++)
            if (threads[ti] > 1) printf(" gpmp@%d ms | gpmp@%d / FLINT@1 |", threads[ti], threads[ti]);
        printf("\n|---|---|--:|");
        for (int ti = 0; ti < nthreads; ti++)
            if (threads[ti] > 1) printf("--:|--:|");
        printf("\n");
        for (int c = 0; c < ncases; c++)
            for (int ai = 0; ai < nalgs; ai++) {
                printf("| %s | %s | %.4g |", cases[c].label, ALGS[algs[ai]].name, res[c].flint1);
                for (int ti = 0; ti < nthreads; ti++) {
                    if (threads[ti] == 1) continue;
                    int s = res[c].state[ti][ai];
                    fmt_ms(a, sizeof a, s, res[c].gpmp[ti][ai]);
                    fmt_ratio(b, sizeof b, s, res[c].gpmp[ti][ai] / res[c].flint1);
                    printf(" %s | %s |", a, b);
                }
                printf("\n");
            }
    }

    /* The targets (1 thread: geometric mean <= 1.5, worst <= 3; 2 threads: faster than FLINT at 1
       thread from length 2^14), for each algorithm, over the cases given. */
    int t1 = -1, t2 = -1;
    for (int ti = 0; ti < nthreads; ti++) {
        if (threads[ti] == 1) t1 = ti;
        if (threads[ti] == 2) t2 = ti;
    }
    printf("\n### Targets (over the cases above)\n\n");
    for (int ai = 0; ai < nalgs; ai++) {
        const char *name = ALGS[algs[ai]].name;
        if (t1 >= 0) {
            double r[MAXCASES], worst = 0;
            int n = 0;
            for (int c = 0; c < ncases; c++)
                if (res[c].state[t1][ai] == ST_OK) {
                    r[n] = res[c].gpmp[t1][ai] / res[c].flint[t1];
                    worst = fmax(worst, r[n++]);
                }
            const char *incomplete = n < ncases ? " (INCOMPLETE: not every case timed)" : "";
            printf("- %s, 1 thread: geometric mean %.3f (target <= 1.5: %s), worst %.3f (target <= 3: %s)%s\n", name,
                   n ? geomean(r, n) : NAN, n && geomean(r, n) <= 1.5 ? "met" : "NOT met", worst,
                   n && worst <= 3 ? "met" : "NOT met", incomplete);
        }
        if (t2 >= 0) {
            int big = 0, beat = 0, timed = 0;
            for (int c = 0; c < ncases; c++) {
                if ((cases[c].flen > cases[c].glen ? cases[c].flen : cases[c].glen) < ((size_t)1 << 14)) continue;
                big++;
                if (res[c].state[t2][ai] != ST_OK) continue;
                timed++;
                beat += res[c].gpmp[t2][ai] < res[c].flint1;
            }
            if (big == 0) printf("- %s, 2 threads: no case of length >= 2^14\n", name);
            else
                printf("- %s, 2 threads: faster than FLINT@1 on %d of %d cases of length >= 2^14 (%d timed): %s\n",
                       name, beat, big, timed, beat == big ? "met" : "NOT met");
        }
    }
    free(res);
    return 0;
}

/* ---------------------------------------------------------------- thresholds */

/* Fastest gpmp algorithm per (length, bits) cell at each thread count, balanced operands. Lengths
 * run in ascending order (outer loop, so that the time limit cuts the largest); an algorithm whose
 * next single run is predicted above the budget (from its last two lengths at these bits and threads,
 * cost ~ L^e with e in [1, 2]) is not run there or beyond. */
static int thresholds(int nlens, size_t *lens, int nbits, unsigned *bits, int nalgs, int *algs, int nthreads,
                      int *threads, const options *o, double time_limit) {
    double t_start = now();
    /* Drop the algorithms that are not available at all. */
    int avail[MAXN], navail = 0;
    {
        operands op;
        operands_init(&op, 2, 2, 64, o->seed);
        for (int ai = 0; ai < nalgs; ai++) {
            double t;
            if (gpmp_run(&op, algs[ai], 2, 2, &t) == GPMP_INVALID_ARGUMENT)
                progress("%s: not available (%s), left out\n", ALGS[algs[ai]].name, gpmp_last_error());
            else avail[navail++] = algs[ai];
        }
        operands_clear(&op);
    }
    size_t ncell = (size_t)nlens * (size_t)nbits * (size_t)nthreads;
    double *ms = xcalloc(ncell * (size_t)MAXN, sizeof(double)); /* [len][bits][threads][alg] */
    double *flint = xcalloc((size_t)nlens * (size_t)nbits, sizeof(double));
    char *note = xcalloc(ncell * (size_t)MAXN, 1); /* 's' slow (predicted above cap), 'n' n/a, 't' time limit */
#define AT(li, bi, ti, ai) ((((size_t)(li) * (size_t)nbits + (size_t)(bi)) * (size_t)nthreads + (size_t)(ti)) * MAXN + (size_t)(ai))
    /* Per (bits, threads, algorithm): the last two (length, seconds) measured; slow once pruned. */
    typedef struct { double l0, t0, l1, t1; int slow; } history;
    history *hist = xcalloc((size_t)nbits * (size_t)nthreads * MAXN, sizeof *hist);
    for (int li = 0; li < nlens; li++)
        for (int bi = 0; bi < nbits; bi++) {
            if (now() - t_start > time_limit) {
                for (int ti = 0; ti < nthreads; ti++)
                    for (int ai = 0; ai < navail; ai++) note[AT(li, bi, ti, ai)] = 't';
                flint[(size_t)li * (size_t)nbits + (size_t)bi] = -1;
                continue;
            }
            operands op;
            operands_init(&op, lens[li], lens[li], bits[bi], o->seed);
            set_threads(1);
            flint[(size_t)li * (size_t)nbits + (size_t)bi] = 1e3 * time_flint(&op, o);
            for (int ti = 0; ti < nthreads; ti++) {
                set_threads(threads[ti]);
                for (int ai = 0; ai < navail; ai++) {
                    size_t k = AT(li, bi, ti, ai);
                    history *h = &hist[((size_t)bi * (size_t)nthreads + (size_t)ti) * MAXN + (size_t)ai];
                    double L = (double)lens[li], pred = 0, t;
                    if (h->l1 > 0) { /* cost ~ L^e, e from the last two lengths, in [1, 2] */
                        double e = 2;
                        if (h->l0 > 0 && h->t0 > 20e-6 && h->t1 > h->t0)
                            e = fmin(2, fmax(1, log(h->t1 / h->t0) / log(h->l1 / h->l0)));
                        pred = h->t1 * pow(L / h->l1, e);
                    }
                    if (h->slow || pred > o->budget) { note[k] = 's', h->slow = 1; continue; }
                    if (time_gpmp(&op, avail[ai], o, &t) == GPMP_INVALID_ARGUMENT) { note[k] = 'n'; continue; }
                    ms[k] = 1e3 * t;
                    h->l0 = h->l1, h->t0 = h->t1, h->l1 = L, h->t1 = t;
                }
            }
            progress("len %zu, %u bits done (%.0f s)\n", lens[li], bits[bi], now() - t_start);
            operands_clear(&op);
        }
    free(hist);

    printf("## thresholds: fastest gpmp algorithm per (length, bits), balanced operands\n\n");
    print_versions(nthreads, threads);
    printf("Algorithms: ");
    for (int ai = 0; ai < navail; ai++) printf("%s%s", ALGS[avail[ai]].name, ai + 1 < navail ? ", " : ".");
    printf(" Times in ms, best of R (until %.2g s and 3 runs within %.2g s, at most %d); an algorithm is not run (\"slow\") where one run "
           "is predicted above %.3g s. Total %.0f s.\n",
           o->min_time, 5 * o->min_time, o->max_runs, o->budget, now() - t_start);
    for (int ti = 0; ti < nthreads; ti++) {
        printf("\n### %d thread%s: fastest (ms; in brackets the runner-up, times slower)\n\n| len |", threads[ti], threads[ti] == 1 ? "" : "s");
        for (int bi = 0; bi < nbits; bi++) printf(" %u bits |", bits[bi]);
        printf("\n|--:|");
        for (int bi = 0; bi < nbits; bi++) printf("---|");
        printf("\n");
        for (int li = 0; li < nlens; li++) {
            printf("| %zu |", lens[li]);
            for (int bi = 0; bi < nbits; bi++) {
                int best = -1, next = -1;
                for (int ai = 0; ai < navail; ai++) {
                    size_t k = AT(li, bi, ti, ai);
                    if (note[k]) continue;
                    if (best < 0 || ms[k] < ms[AT(li, bi, ti, best)]) next = best, best = ai;
                    else if (next < 0 || ms[k] < ms[AT(li, bi, ti, next)]) next = ai;
                }
                if (best < 0) printf(" - |");
                else if (next < 0) printf(" %s %.3g |", ALGS[avail[best]].name, ms[AT(li, bi, ti, best)]);
                else
                    printf(" %s %.3g (%s x%.2f) |", ALGS[avail[best]].name, ms[AT(li, bi, ti, best)],
                           ALGS[avail[next]].name, ms[AT(li, bi, ti, next)] / ms[AT(li, bi, ti, best)]);
            }
            printf("\n");
        }
    }
    printf("\n### All times (ms; slow = predicted above the cap, n/a = GPMP_INVALID_ARGUMENT, - = time limit)\n\n");
    printf("| len | bits | threads | FLINT@1 |");
    for (int ai = 0; ai < navail; ai++) printf(" %s |", ALGS[avail[ai]].name);
    printf("\n|--:|--:|--:|--:|");
    for (int ai = 0; ai < navail; ai++) printf("--:|");
    printf("\n");
    for (int bi = 0; bi < nbits; bi++)
        for (int li = 0; li < nlens; li++)
            for (int ti = 0; ti < nthreads; ti++) {
                double fl = flint[(size_t)li * (size_t)nbits + (size_t)bi];
                printf("| %zu | %u | %d | ", lens[li], bits[bi], threads[ti]);
                if (fl < 0) printf("- |");
                else printf("%.4g |", fl);
                for (int ai = 0; ai < navail; ai++) {
                    size_t k = AT(li, bi, ti, ai);
                    if (note[k] == 's') printf(" slow |");
                    else if (note[k] == 'n') printf(" n/a |");
                    else if (note[k] == 't') printf(" - |");
                    else printf(" %.4g |", ms[k]);
                }
                printf("\n");
            }
#undef AT
    free(ms), free(flint), free(note);
    return 0;
}

/* ---------------------------------------------------------------- main */

static void usage(void) {
    fprintf(stderr,
            "usage: gpmp-bench poly-mul   [--quick] [--cases LIST] [--alg LIST] [--threads LIST] [options]\n"
            "       gpmp-bench thresholds [--lens LIST] [--bits LIST] [--alg LIST] [--threads LIST] [options]\n"
            "  --cases LIST    comma list of FLEN[xGLEN]:BITS, lengths as N or 2^k (default: the Z[x] grid)\n"
            "  --quick         poly-mul on a reduced grid (%s ...)\n"
            "  --alg LIST      gpmp algorithms: auto schoolbook kronecker dc toom4 toom8 twoconv ntt bigfft, or all\n"
            "                  (poly-mul default: auto; thresholds default: all but auto)\n"
            "  --threads LIST  thread counts for gpmp and FLINT (default: 1,2,nproc; thresholds: 1,2)\n"
            "  --lens LIST     thresholds lengths (default 2^4,2^6,...,2^16)\n"
            "  --bits LIST     thresholds bit sizes (default 64,256,1024,4096)\n"
            "  --min-time S    repeat a measurement until S s in total, and 3 runs within 5 S (default 0.3; thresholds 0.05)\n"
            "  --max-runs R    at most R runs (default 1000)\n"
            "  --budget S      skip a gpmp run predicted above S seconds (default 20; thresholds 1)\n"
            "  --time-limit S  thresholds: stop starting new cells after S seconds (default 170)\n"
            "  --seed N        input seed (default 42)\n",
            QUICK[0]);
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    const char *mode = argv[1];
    int thr = !strcmp(mode, "thresholds");
    if (!thr && strcmp(mode, "poly-mul")) usage();

    options o = {thr ? 0.05 : 0.3, 1000, thr ? 1.0 : 20.0, 42};
    double time_limit = 170;
    char *cases_arg = NULL, *alg_arg = NULL, *threads_arg = NULL, *lens_arg = NULL, *bits_arg = NULL;
    int quick = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) { quick = 1; continue; }
        if (!v) usage();
        i++;
        if (!strcmp(a, "--cases")) cases_arg = v;
        else if (!strcmp(a, "--alg")) alg_arg = v;
        else if (!strcmp(a, "--threads")) threads_arg = v;
        else if (!strcmp(a, "--lens")) lens_arg = v;
        else if (!strcmp(a, "--bits")) bits_arg = v;
        else if (!strcmp(a, "--min-time")) o.min_time = atof(v);
        else if (!strcmp(a, "--max-runs")) o.max_runs = atoi(v) > 0 ? atoi(v) : 1;
        else if (!strcmp(a, "--budget")) o.budget = atof(v);
        else if (!strcmp(a, "--time-limit")) time_limit = atof(v);
        else if (!strcmp(a, "--seed")) o.seed = strtoull(v, NULL, 0);
        else usage();
    }

    char *tok[MAXCASES];
    int threads[MAXN], nthreads = 0;
    if (threads_arg) {
        int n = split_list(threads_arg, tok, MAXN, "--threads");
        for (int i = 0; i < n; i++) {
            long t = (long)parse_size(tok[i], "thread count");
            if (t > 4096) die("thread count %ld too large", t);
            threads[nthreads++] = (int)t;
        }
    } else {
        long n = nproc(); /* 1, 2 (the 2-thread target) and all cores; thresholds: 1, 2 */
        threads[nthreads++] = 1;
        if (n > 1) threads[nthreads++] = 2;
        if (n > 2 && !thr) threads[nthreads++] = n > 4096 ? 4096 : (int)n;
    }

    int algs[MAXN], nalgs = 0;
    if (alg_arg && strcmp(alg_arg, "all")) {
        int n = split_list(alg_arg, tok, MAXN, "--alg");
        for (int i = 0; i < n; i++) algs[nalgs++] = parse_alg(tok[i]);
    } else if (alg_arg || thr) {
        for (int i = 0; i < NALGS; i++)
            if (ALGS[i].alg != GPMP_MUL_AUTO || !thr) algs[nalgs++] = i;
    } else algs[nalgs++] = parse_alg("auto");

    fprintf(stderr, "gpmp %s, FLINT %s, GMP %s; threads:", gpmp_version(), FLINT_VERSION, gmp_version);
    for (int i = 0; i < nthreads; i++) fprintf(stderr, " %d", threads[i]);
    fprintf(stderr, "\n");

    if (!thr) {
        pm_case cases[MAXCASES];
        int ncases = 0;
        if (cases_arg) {
            int n = split_list(cases_arg, tok, MAXCASES, "--cases");
            for (int i = 0; i < n; i++) cases[ncases++] = parse_case(tok[i]);
        } else if (quick) {
            for (size_t i = 0; i < sizeof QUICK / sizeof *QUICK; i++) cases[ncases++] = parse_case(QUICK[i]);
        } else {
            for (size_t i = 0; i < sizeof GRID / sizeof *GRID; i++) cases[ncases++] = parse_case(GRID[i]);
        }
        int rc = poly_mul(ncases, cases, nalgs, algs, nthreads, threads, &o);
        flint_cleanup_master();
        return rc;
    }

    size_t lens[MAXCASES];
    unsigned bits[MAXCASES];
    int nlens = 0, nbits = 0;
    if (lens_arg) {
        int n = split_list(lens_arg, tok, MAXCASES, "--lens");
        for (int i = 0; i < n; i++) lens[nlens++] = parse_size(tok[i], "length");
    } else
        for (int k = 4; k <= 16; k += 2) lens[nlens++] = (size_t)1 << k;
    qsort(lens, (size_t)nlens, sizeof *lens, cmp_size);
    if (bits_arg) {
        int n = split_list(bits_arg, tok, MAXCASES, "--bits");
        for (int i = 0; i < n; i++) bits[nbits++] = (unsigned)parse_size(tok[i], "bit size");
    } else
        for (unsigned b = 64; b <= 4096; b *= 4) bits[nbits++] = b;
    int rc = thresholds(nlens, lens, nbits, bits, nalgs, algs, nthreads, threads, &o, time_limit);
    flint_cleanup_master();
    return rc;
}
