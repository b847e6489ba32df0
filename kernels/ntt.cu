// Batched word-size NTT, X_k = sum_j x_j w^(jk) mod p (p odd, p < 2^63, w of order n = 2^logn),
// natural order in and out, as radix-R Stockham passes (Govindaraju et al., SC'08, "High
// performance discrete Fourier transforms on graphics processors", radix-R Stockham formulation):
//
//   pass with stride Ns (Ns = 1, R_1, R_1 R_2, ...), for each group j < n/R:
//     v_r = in[j + r n/R] * W_(Ns R)^((j mod Ns) r)          (r < R; W_M = w^(n/M))
//     V   = DFT_R(v)                                          (root W_R)
//     out[(j div Ns) Ns R + (j mod Ns) + k Ns] = V_k          (k < R)
//
// One block does T = E/R groups in shared memory; DFT_R is radix-2 decimation in frequency in
// place (bit-reversed result, read back reversed). Products are Shoup's: with w' = floor(w 2^64/p),
// x w mod p = x w - floor(x w' / 2^64) p - {0 or p}, valid for any x < 2^64 since p < 2^63.
//
// Defines: LOGE (log2 of the elements a block holds), NT (threads per block).
#ifdef GPMP_FORCE_ERROR
#error GPMP_FORCE_ERROR: this specialisation exists only to test error reporting
#endif
#ifndef LOGE
#define LOGE 12
#endif
#ifndef NT
#define NT 256
#endif

typedef unsigned long long u64;
#define E (1u << LOGE)

__device__ __forceinline__ u64 mul_shoup(u64 x, u64 w, u64 wq, u64 p) {
    u64 q = __umul64hi(x, wq);
    u64 r = x * w - q * p;
    return r >= p ? r - p : r;
}
__device__ __forceinline__ u64 add_mod(u64 a, u64 b, u64 p) {
    u64 s = a + b;
    return s >= p ? s - p : s;
}
__device__ __forceinline__ u64 sub_mod(u64 a, u64 b, u64 p) {
    return a >= b ? a - b : a + (p - b);
}

// One Stockham pass of radix R = 2^logr (logr <= LOGE) at stride Ns = 2^logns over `groups` =
// count n/R groups. roots[2k], roots[2k+1] = (w0^k, companion) for k < R0/2, w0 of order
// R0 = 2^logr0 >= R. The pass twiddle w^e (e < n) is tlo[e mod L] thi[e div L], L = 2^logl, both
// tables as (value, companion) pairs. When `scale` != 1 every output is multiplied by it.
extern "C" __global__ void __launch_bounds__(NT) ntt_pass(
    const u64* __restrict__ in, u64* __restrict__ out, u64 p, unsigned logn, unsigned logr,
    unsigned logns, u64 groups, const u64* __restrict__ roots, unsigned logr0,
    const u64* __restrict__ tlo, const u64* __restrict__ thi, unsigned logl, u64 scale, u64 scaleq)
{
    __shared__ u64 s[E + E / 2];
    const unsigned R = 1u << logr, logt = LOGE - logr, T = 1u << logt;
    const unsigned row = R + (T > 1);  // one word of padding between groups against bank conflicts
    const unsigned logm = logn - logr; // n/R groups per transform
    const u64 m = 1ull << logm, ns = 1ull << logns;
    const u64 g0 = (u64)blockIdx.x << logt;

    // Load: consecutive threads take consecutive groups (coalesced) when a transform has enough.
    for (unsigned i = threadIdx.x; i < E; i += NT) {
        unsigned tl, r;
        if (m >= T) { r = i >> logt; tl = i & (T - 1); }
        else        { tl = i >> logr; r = i & (R - 1); }
        u64 g = g0 + tl;
        if (g < groups) {
            u64 b = g >> logm, j = g & (m - 1);
            u64 x = in[(b << logn) + j + ((u64)r << logm)];
            u64 e = ((j & (ns - 1)) * r) << (logm - logns);
            if (e) {
                u64 lo = e & ((1ull << logl) - 1), hi = e >> logl;
                x = mul_shoup(x, tlo[2 * lo], tlo[2 * lo + 1], p);
                if (hi) x = mul_shoup(x, thi[2 * hi], thi[2 * hi + 1], p);
            }
            s[tl * row + r] = x;
        }
    }
    __syncthreads();

    // DFT_R of every group: radix-2 DIF, span `len` halves each stage.
    for (unsigned loglen = logr; loglen-- > 0;) {
        const unsigned len = 1u << loglen, shift = logr0 - loglen - 1;
        for (unsigned i = threadIdx.x; i < E / 2; i += NT) {
            unsigned tl = i >> (logr - 1), k = i & (R / 2 - 1);
            unsigned mm = k & (len - 1);
            unsigned a = tl * row + ((k >> loglen) << (loglen + 1)) + mm, c = a + len;
            u64 x = s[a], y = s[c];
            s[a] = add_mod(x, y, p);
            u64 d = sub_mod(x, y, p);
            if (mm) d = mul_shoup(d, roots[2 * (mm << shift)], roots[2 * (mm << shift) + 1], p);
            s[c] = d;
        }
        __syncthreads();
    }

    // Store: X_k sits at bit-reverse(k); coalesced over groups once the stride is large enough.
    for (unsigned i = threadIdx.x; i < E; i += NT) {
        unsigned tl, k;
        if (ns >= T) { k = i >> logt; tl = i & (T - 1); }
        else         { tl = i >> logr; k = i & (R - 1); }
        u64 g = g0 + tl;
        if (g < groups) {
            u64 b = g >> logm, j = g & (m - 1);
            u64 x = s[tl * row + (__brev(k) >> (32 - logr))];
            if (scale != 1) x = mul_shoup(x, scale, scaleq, p);
            out[(b << logn) + ((j >> logns) << (logns + logr)) + (j & (ns - 1)) + ((u64)k << logns)] = x;
        }
    }
}
