/* Self-checking C test of the gpmp_nmod_* and gpmp_cumodp_* exports against naive oracles
 * (O(n^2) DFT, schoolbook product, both in 128-bit arithmetic). Exit 0 on success; otherwise prints
 * every failed check and exits 1. */
#define GPMP_CUMODP_NAMES
#include "gpmp.h"
#include "gpmp_cumodp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;
static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t p) { return (uint64_t)((u128)a * b % p); }
static uint64_t powmod(uint64_t a, uint64_t e, uint64_t p) {
    uint64_t r = 1 % p;
    for (; e; e >>= 1, a = mulmod(a, a, p)) if (e & 1) r = mulmod(r, a, p);
    return r;
}
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static void fill(uint64_t *x, size_t n, uint64_t p) {
    for (size_t i = 0; i < n; i++) x[i] = (i % 7 == 0) ? p - 1 : next() % p;
}
static void naive_dft(uint64_t *y, const uint64_t *x, size_t n, uint64_t w, uint64_t p) {
    for (size_t i = 0; i < n; i++) {
        u128 acc = 0;
        for (size_t j = 0; j < n; j++) acc = (acc + mulmod(x[j], powmod(w, (uint64_t)(i * j % n), p), p)) % p;
        y[i] = (uint64_t)acc;
    }
}
static void schoolbook(uint64_t *h, const uint64_t *f, size_t fl, const uint64_t *g, size_t gl, uint64_t p) {
    for (size_t k = 0; k + 1 < fl + gl; k++) h[k] = 0;
    for (size_t i = 0; i < fl; i++)
        for (size_t j = 0; j < gl; j++) h[i + j] = (uint64_t)(((u128)h[i + j] + mulmod(f[i], g[j], p)) % p);
}

static void test_primes(void) {
    uint64_t p = 0;
    CHECK(gpmp_nmod_fourier_prime(63, 0, &p) == GPMP_SUCCESS && p == 29ull * (1ull << 57) + 1, "fourier_prime(63,0) = %llu", (unsigned long long)p);
    CHECK(gpmp_nmod_fourier_prime(20, 0, &p) == GPMP_SUCCESS && p == 786433, "fourier_prime(20,0)");
    CHECK(gpmp_nmod_fourier_prime(20, 1, &p) == GPMP_SUCCESS && p == 65537, "fourier_prime(20,1)");
    uint64_t q = 0;
    CHECK(gpmp_nmod_fourier_prime(50, 1, &q) == GPMP_SUCCESS && gpmp_nmod_fourier_prime(50, 0, &p) == GPMP_SUCCESS && p != q && p < (1ull << 50) && q < (1ull << 50), "fourier_prime(50, 0/1)");
    p = 7;
    CHECK(gpmp_nmod_fourier_prime(19, 0, &p) == GPMP_INVALID_ARGUMENT && p == 7, "bits 19");
    CHECK(gpmp_nmod_fourier_prime(64, 0, &p) == GPMP_INVALID_ARGUMENT, "bits 64");
    CHECK(gpmp_nmod_fourier_prime(30, 0, NULL) == GPMP_INVALID_ARGUMENT, "NULL p");

    uint64_t w = 0, P = 998244353; /* 119*2^23 + 1 */
    CHECK(gpmp_nmod_primitive_root(1u << 23, P, &w) == GPMP_SUCCESS && powmod(w, 1u << 23, P) == 1 && powmod(w, 1u << 22, P) == P - 1, "root of order 2^23");
    CHECK(gpmp_nmod_primitive_root(1, P, &w) == GPMP_SUCCESS && w == 1, "root of order 1");
    w = 5;
    CHECK(gpmp_nmod_primitive_root(1u << 24, P, &w) == GPMP_INVALID_ARGUMENT && w == 5, "2^24 does not divide p-1");
    CHECK(gpmp_nmod_primitive_root(6, P, &w) == GPMP_INVALID_ARGUMENT, "n = 6");
    CHECK(gpmp_nmod_primitive_root(2, 15, &w) == GPMP_INVALID_ARGUMENT, "p = 15");
    CHECK(gpmp_nmod_primitive_root(2, (1ull << 63) + 29, &w) == GPMP_INVALID_ARGUMENT, "p >= 2^63");
    CHECK(gpmp_nmod_primitive_root(2, P, NULL) == GPMP_INVALID_ARGUMENT, "NULL w");
}

static void test_ntt(void) {
    uint64_t primes[5] = {257, 7681, 998244353, 0, 0};
    gpmp_nmod_fourier_prime(63, 0, &primes[3]);
    gpmp_nmod_fourier_prime(50, 0, &primes[4]);
    uint64_t x[256], y[256], z[256], r[4 * 64];
    for (int t = 0; t < 5; t++) {
        uint64_t p = primes[t];
        for (size_t n = 1; n <= 256 && (p - 1) % n == 0; n *= 2) {
            uint64_t w;
            CHECK(gpmp_nmod_primitive_root(n, p, &w) == GPMP_SUCCESS, "root n=%zu", n);
            w = powmod(w, 3, p); /* another root of the same order */
            fill(x, n, p);
            memcpy(y, x, n * sizeof *x);
            CHECK(gpmp_nmod_ntt(y, n, w, p) == GPMP_SUCCESS, "ntt n=%zu p=%llu", n, (unsigned long long)p);
            naive_dft(z, x, n, w, p);
            CHECK(memcmp(y, z, n * sizeof *y) == 0, "ntt vs naive n=%zu p=%llu", n, (unsigned long long)p);
            CHECK(gpmp_nmod_intt(y, n, w, p) == GPMP_SUCCESS && memcmp(y, x, n * sizeof *y) == 0, "round trip n=%zu p=%llu", n, (unsigned long long)p);
        }
        /* ntt_many vs row by row */
        size_t n = (p - 1) % 64 == 0 ? 64 : 16;
        uint64_t w;
        gpmp_nmod_primitive_root(n, p, &w);
        fill(r, 4 * n, p);
        memcpy(x, r, n * sizeof *x); /* row 0 */
        CHECK(gpmp_nmod_ntt_many(r, 4, n, w, p) == GPMP_SUCCESS, "ntt_many");
        CHECK(gpmp_nmod_ntt(x, n, w, p) == GPMP_SUCCESS && memcmp(x, r, n * sizeof *x) == 0, "ntt_many row 0");
    }
    uint64_t p = 7681, w;
    gpmp_nmod_primitive_root(8, p, &w);
    fill(x, 8, p);
    memcpy(y, x, sizeof x);
    y[5] = p;
    CHECK(gpmp_nmod_ntt(y, 8, w, p) == GPMP_INVALID_ARGUMENT && y[5] == p && y[0] == x[0], "unreduced input untouched");
    CHECK(gpmp_nmod_ntt(x, 8, mulmod(w, w, p), p) == GPMP_INVALID_ARGUMENT, "root of order 4");
    CHECK(gpmp_nmod_ntt(x, 6, w, p) == GPMP_INVALID_ARGUMENT, "n = 6");
    CHECK(gpmp_nmod_ntt(NULL, 8, w, p) == GPMP_INVALID_ARGUMENT, "NULL x");
    CHECK(gpmp_nmod_intt(x, 8, w, 7683) == GPMP_INVALID_ARGUMENT, "composite p");
    CHECK(gpmp_nmod_ntt_many(NULL, 0, 8, w, p) == GPMP_SUCCESS, "count 0");
    CHECK(gpmp_nmod_ntt_many(x, SIZE_MAX, 8, w, p) == GPMP_SIZE_TOO_LARGE, "count*n overflow");
    CHECK(gpmp_last_error() != NULL && strlen(gpmp_last_error()) > 0, "last error set");
}

static void test_poly_mul(void) {
    uint64_t primes[4] = {(1ull << 63) - 25, 0, 7681, (1ull << 61) - 1};
    gpmp_nmod_fourier_prime(63, 0, &primes[1]);
    size_t lens[][2] = {{1, 1}, {1, 2}, {2, 2}, {3, 1}, {30, 30}, {100, 7}, {200, 300}, {513, 600}};
    static uint64_t f[1200], g[600], h[1200], e[1200];
    for (int t = 0; t < 4; t++) {
        uint64_t p = primes[t];
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            size_t fl = lens[l][0], gl = lens[l][1];
            fill(f, fl, p);
            fill(g, gl, p);
            schoolbook(e, f, fl, g, gl, p);
            CHECK(gpmp_nmod_poly_mul(h, f, fl, g, gl, p) == GPMP_SUCCESS && memcmp(h, e, (fl + gl - 1) * sizeof *h) == 0, "poly_mul p=%llu (%zu,%zu)", (unsigned long long)p, fl, gl);
            /* all p-1 */
            for (size_t i = 0; i < fl; i++) f[i] = p - 1;
            for (size_t i = 0; i < gl; i++) g[i] = p - 1;
            schoolbook(e, f, fl, g, gl, p);
            CHECK(gpmp_nmod_poly_mul(h, f, fl, g, gl, p) == GPMP_SUCCESS && memcmp(h, e, (fl + gl - 1) * sizeof *h) == 0, "poly_mul p-1 p=%llu (%zu,%zu)", (unsigned long long)p, fl, gl);
            /* h aliases f (f has room for fl+gl-1) */
            fill(f, fl, p);
            schoolbook(e, f, fl, g, gl, p);
            CHECK(gpmp_nmod_poly_mul(f, f, fl, g, gl, p) == GPMP_SUCCESS && memcmp(f, e, (fl + gl - 1) * sizeof *f) == 0, "poly_mul aliased p=%llu (%zu,%zu)", (unsigned long long)p, fl, gl);
        }
    }
    h[0] = 42;
    g[0] = 1, g[1] = 2, g[2] = 3;
    CHECK(gpmp_nmod_poly_mul(h, f, 0, g, 3, 7681) == GPMP_SUCCESS && h[0] == 42, "flen 0 writes nothing");
    CHECK(gpmp_nmod_poly_mul(NULL, NULL, 0, NULL, 0, 7681) == GPMP_SUCCESS, "empty");
    f[0] = 7681;
    CHECK(gpmp_nmod_poly_mul(h, f, 1, g, 1, 7681) == GPMP_INVALID_ARGUMENT && h[0] == 42, "unreduced");
    CHECK(gpmp_nmod_poly_mul(h, f, 1, g, 1, 15) == GPMP_INVALID_ARGUMENT, "p = 15");
    CHECK(gpmp_nmod_poly_mul(NULL, f, 1, g, 1, 7681) == GPMP_INVALID_ARGUMENT, "NULL h");
}

static void test_cumodp(void) {
    sfixn p = 998244353, X[64], Y[64], L[3 * 16];
    uint64_t w64, x[64], z[64];
    gpmp_nmod_primitive_root(64, (uint64_t)p, &w64);
    sfixn w = (sfixn)w64;
    for (int i = 0; i < 64; i++) X[i] = (sfixn)(next() % (uint64_t)p), x[i] = (uint64_t)X[i];
    memcpy(Y, X, sizeof X);
    CHECK(cumodp_fft_uni(Y, 64, 6, w, p) == GPMP_SUCCESS, "fft_uni");
    naive_dft(z, x, 64, w64, (uint64_t)p);
    int ok = 1;
    for (int i = 0; i < 64; i++) ok &= (uint64_t)Y[i] == z[i];
    CHECK(ok, "fft_uni vs naive (unscaled, natural order)");
    /* invfft with the same w scales by 1/n */
    CHECK(cumodp_invfft_uni(Y, 64, 6, w, p) == GPMP_SUCCESS && memcmp(X, Y, sizeof X) == 0, "invfft_uni round trip");
    /* list fft: 3 rows of 16 */
    uint64_t w16 = powmod(w64, 4, (uint64_t)p);
    memcpy(L, X, sizeof L);
    CHECK(cumodp_list_fft_uni(L, 3, 4, (sfixn)w16, p) == GPMP_SUCCESS, "list_fft_uni");
    ok = 1;
    for (int r = 0; r < 3; r++) {
        naive_dft(z, x + 16 * r, 16, w16, (uint64_t)p);
        for (int i = 0; i < 16; i++) ok &= (uint64_t)L[16 * r + i] == z[i];
    }
    CHECK(ok, "list_fft_uni vs naive");
    /* fftmul: full product with a spare slot left untouched, then a truncated one */
    sfixn F[5] = {1, 2, 3, 4, p - 1}, G[3] = {p - 1, 5, 6}, H[10];
    uint64_t f[5], g[3], e[7];
    for (int i = 0; i < 5; i++) f[i] = (uint64_t)F[i];
    for (int i = 0; i < 3; i++) g[i] = (uint64_t)G[i];
    schoolbook(e, f, 5, g, 3, (uint64_t)p);
    for (int i = 0; i < 10; i++) H[i] = -7;
    CHECK(cumodp_fftmul_uni(9, H, 4, F, 2, G, p) == GPMP_SUCCESS, "fftmul_uni");
    ok = 1;
    for (int i = 0; i < 7; i++) ok &= (uint64_t)H[i] == e[i];
    CHECK(ok && H[7] == -7 && H[9] == -7, "fftmul_uni dh > df+dg: df+dg+1 slots");
    for (int i = 0; i < 10; i++) H[i] = -7;
    CHECK(cumodp_fftmul_uni(3, H, 4, F, 2, G, p) == GPMP_SUCCESS, "fftmul_uni truncated");
    ok = 1;
    for (int i = 0; i < 4; i++) ok &= (uint64_t)H[i] == e[i];
    CHECK(ok && H[4] == -7, "fftmul_uni dh < df+dg: first dh+1");
    /* a prime that is not a Fourier prime is accepted */
    CHECK(cumodp_fftmul_uni(6, H, 4, F, 2, G, 2147483647) == GPMP_SUCCESS, "fftmul_uni p = 2^31-1");
    /* bad input */
    memcpy(Y, X, sizeof X);
    Y[3] = -1;
    CHECK(cumodp_fft_uni(Y, 64, 6, w, p) == GPMP_INVALID_ARGUMENT && Y[3] == -1 && Y[0] == X[0], "negative entry");
    CHECK(cumodp_fft_uni(X, 64, 5, w, p) == GPMP_INVALID_ARGUMENT, "n != 2^k");
    CHECK(cumodp_fft_uni(X, 64, 6, w, 15) == GPMP_INVALID_ARGUMENT, "p = 15");
    CHECK(cumodp_fft_uni(X, 64, 6, (sfixn)powmod(w64, 2, (uint64_t)p), p) == GPMP_INVALID_ARGUMENT, "w of order 32");
    CHECK(cumodp_list_fft_uni(L, -1, 4, (sfixn)w16, p) == GPMP_INVALID_ARGUMENT, "m < 0");
    CHECK(cumodp_fftmul_uni(3, H, -1, F, 2, G, p) == GPMP_INVALID_ARGUMENT, "negative degree");
    CHECK(cumodp_fftmul_uni(3, H, 4, NULL, 2, G, p) == GPMP_INVALID_ARGUMENT, "NULL F");
}

int main(void) {
    test_primes();
    test_ntt();
    test_poly_mul();
    test_cumodp();
    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ffi-tests/nmod.c: all checks passed\n");
    return 0;
}
