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
// place, four stages at a time in registers (bit-reversed result, read back reversed). Products are Shoup's: with w' = floor(w 2^64/p),
// x w mod p = x w - floor(x w' / 2^64) p - {0 or p}, valid for any x < 2^64 since p < 2^63.
//
// Defines: WORD (64, or 32 for p < 2^31: words, tables and products in 32 bits), LOGE (log2 of
// the words a block holds), NT (threads per block), MINB (blocks per SM the register allocation
// must allow), LAZY (1 when p < 2^(WORD-2): Harvey's lazy reduction, values kept in [0, 2p)
// between stages, differences formed as x - y + 2p < 4p, products left in [0, 2p), one final
// correction at the store; Harvey, "Faster arithmetic for number-theoretic transforms", 2014). Shared memory is dynamic, E + T words (E = 2^LOGE, T = E/R groups, one pad word
// per group when T > 1).
#ifdef GPMP_FORCE_ERROR
#error GPMP_FORCE_ERROR: this specialisation exists only to test error reporting
#endif
#ifndef LOGE
#define LOGE 12
#endif
#ifndef NT
#define NT 256
#endif
#ifndef WORD
#define WORD 64
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef LAZY
#define LAZY 0
#endif

typedef unsigned long long u64;
#define E (1u << LOGE)

#if WORD == 32
typedef unsigned word;
__device__ __forceinline__ word mul_hi(word a, word b) { return __umulhi(a, b); }
#elif WORD == 64
typedef u64 word;
__device__ __forceinline__ word mul_hi(word a, word b) { return __umul64hi(a, b); }
#else
#error WORD must be 32 or 64
#endif
// The block's dynamic shared memory (bench/gpu/emulate_ntt.cpp, the CPU emulation, supplies its own).
#ifdef GPMP_EMULATE
#define SHARED_WORDS(s) word* s = emu_shared<word>()
#else
#define SHARED_WORDS(s) extern __shared__ word s[]
#endif
// A table entry (t, floor(t 2^WORD / p)), read by one vector load.
struct __align__(2 * sizeof(word)) pair { word v, q; };

// r mod m for r < 2m, as min(r, r - m): r - m wraps above r when r < m (one unsigned minimum).
__device__ __forceinline__ word csub(word r, word m) {
    word t = r - m;
    return t < r ? t : r;
}
// x w mod p for any word x, with wq = floor(w 2^WORD / p) and p < 2^(WORD-1).
__device__ __forceinline__ word mul_shoup(word x, word w, word wq, word p) {
    word q = mul_hi(x, wq);
    word r = x * w - q * p;
    return csub(r, p);
}
__device__ __forceinline__ word mul_shoup(word x, pair t, word p) { return mul_shoup(x, t.v, t.q, p); }
// x w mod p, or with LAZY a representative in [0, 2p) (x w - q p before the last correction).
__device__ __forceinline__ word mul_lazy(word x, pair t, word p) {
#if LAZY
    return x * t.v - mul_hi(x, t.q) * p;
#else
    return mul_shoup(x, t, p);
#endif
}
// The butterfly's sum a + b, in [0, 2p) with LAZY (inputs in [0, 2p)), else reduced.
__device__ __forceinline__ word add_lazy(word a, word b, word p) {
    const word m = LAZY ? 2 * p : p;
    return csub(a + b, m);
}
// The butterfly's difference a - b before its product: a - b + 2p in (0, 4p) with LAZY, else
// a - b + p in (0, 2p) (Shoup's product takes any word; 2p < 2^WORD).
__device__ __forceinline__ word sub_lazy(word a, word b, word p) {
    return a + (LAZY ? 2 * p : p) - b;
}
// A difference that gets no product: back into [0, 2p) with LAZY, else into [0, p).
__device__ __forceinline__ word sub_fix(word d, word p) {
    return csub(d, LAZY ? 2 * p : p);
}
// A stage value as a residue in [0, p).
__device__ __forceinline__ word reduce_out(word x, word p) {
#if LAZY
    return csub(x, p);
#else
    return x;
#endif
}

// Shared-memory word of element i of the group starting at `base`: within each run of 32 words
// the low five bits are XORed with the run index, so that strided and bit-reversed accesses of a
// warp spread over the banks.
__device__ __forceinline__ unsigned sw(unsigned base, unsigned i) {
    return base + (i ^ ((i >> 5) & 31));
}

// C consecutive radix-2 DIF stages (half-spans h0 = 2^logh0, h0/2, ..., h0/2^(C-1)) on every
// group, each thread holding 2^C words in registers: the words m + t q (t < 2^C, q = h0/2^(C-1))
// of one 2 h0 block. Stage h maps (a, b) at offset o < h of a 2h block to (a + b, (a - b) w_2h^o).
template <int C>
__device__ __forceinline__ void dif_chunk(word* s, unsigned row, unsigned logr, unsigned logh0,
                                          const pair* __restrict__ roots, unsigned logr0, word p) {
    const unsigned P = 1u << C, logq = logh0 + 1 - C;
    const unsigned units_per_group = 1u << (logr - C);
    for (unsigned u = threadIdx.x; u < (E >> C); u += NT) {
        unsigned tl = u >> (logr - C), k = u & (units_per_group - 1);
        unsigned m = k & ((1u << logq) - 1);
        unsigned first = ((k >> logq) << (logh0 + 1)) + m, base = tl * row;
        word v[P];
#pragma unroll
        for (unsigned t = 0; t < P; ++t) v[t] = s[sw(base, first + (t << logq))];
#pragma unroll
        for (int st = 0; st < C; ++st) {
            const unsigned ht = 1u << (C - 1 - st);
            const unsigned shift = logr0 - (logq + C - st);  // w_2h = w0^(R0/2h), 2h = 2^(C-st) q
#pragma unroll
            for (unsigned t = 0; t < P; ++t) {
                if (t & ht) continue;
                word x = v[t], y = v[t + ht];
                v[t] = add_lazy(x, y, p);
                word d = sub_lazy(x, y, p);
                unsigned idx = (m + ((t & (ht - 1)) << logq)) << shift;
                d = idx ? mul_lazy(d, roots[idx], p) : sub_fix(d, p);
                v[t + ht] = d;
            }
        }
#pragma unroll
        for (unsigned t = 0; t < P; ++t) s[sw(base, first + (t << logq))] = v[t];
    }
}

// One Stockham pass of radix R = 2^logr (logr <= LOGE) at stride Ns = 2^logns over `groups` =
// count n/R groups. roots[2k], roots[2k+1] = (w0^k, companion) for k < R0/2, w0 of order
// R0 = 2^logr0 >= R. The pass twiddle w^e (e < n) is tlo[e mod L] thi[e div L], L = 2^logl, both
// tables of (value, companion) pairs. When `scale` != 1 every output is multiplied by it.
extern "C" __global__ void __launch_bounds__(NT, MINB) ntt_pass(
    const word* __restrict__ in, word* __restrict__ out, u64 p64, unsigned logn, unsigned logr,
    unsigned logns, u64 groups, const pair* __restrict__ roots, unsigned logr0,
    const pair* __restrict__ tlo, const pair* __restrict__ thi, unsigned logl, u64 scale64,
    u64 scaleq64)
{
    SHARED_WORDS(s);
    const word p = (word)p64, scale = (word)scale64, scaleq = (word)scaleq64;
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
            word x = in[(b << logn) + j + ((u64)r << logm)];
            u64 e = ((j & (ns - 1)) * r) << (logm - logns);
            if (e) {
                u64 lo = e & ((1ull << logl) - 1), hi = e >> logl;
                x = mul_lazy(x, tlo[lo], p);
                if (hi) x = mul_lazy(x, thi[hi], p);
            }
            s[sw(tl * row, r)] = x;
        }
    }
    __syncthreads();

    // DFT_R of every group: radix-2 DIF, four stages at a time in registers.
    unsigned loglen = logr;  // log2 of the span of the next chunk of stages
    while (loglen >= 4) { dif_chunk<4>(s, row, logr, loglen - 1, roots, logr0, p); loglen -= 4; __syncthreads(); }
    if (loglen == 3) { dif_chunk<3>(s, row, logr, 2, roots, logr0, p); __syncthreads(); }
    if (loglen == 2) { dif_chunk<2>(s, row, logr, 1, roots, logr0, p); __syncthreads(); }
    if (loglen == 1) { dif_chunk<1>(s, row, logr, 0, roots, logr0, p); __syncthreads(); }

    // Store: X_k sits at bit-reverse(k); coalesced over groups once the stride is large enough.
    for (unsigned i = threadIdx.x; i < E; i += NT) {
        unsigned tl, k;
        if (ns >= T) { k = i >> logt; tl = i & (T - 1); }
        else         { tl = i >> logr; k = i & (R - 1); }
        u64 g = g0 + tl;
        if (g < groups) {
            u64 b = g >> logm, j = g & (m - 1);
            word x = s[sw(tl * row, __brev(k) >> (32 - logr))];
            x = scale != 1 ? mul_shoup(x, scale, scaleq, p) : reduce_out(x, p);
            out[(b << logn) + ((j >> logns) << (logns + logr)) + (j & (ns - 1)) + ((u64)k << logns)] = x;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Kernel v6, `ntt_pass6`: the same Stockham pass (same arguments, same tables, same result) with
// (1) the radix a compile-time constant (one instantiation per log2 R, picked by a switch), so
// that the shared-memory index arithmetic of the register chunks folds into constants;
// (2) the first chunk of four DIF stages fused with the global load (and the inter-pass
// twiddle) when the block's T groups are consecutive columns of one transform (n/R >= T), and
// the last chunk fused with the global store when the output stride Ns >= T: each thread then
// reads (writes) 2^C words of T consecutive columns straight into (out of) registers, lanes
// running over the columns, so the accesses coalesce and the shared-memory round trips drop
// from 3 to 1 for a radix-2^8 pass.
//
// Kernel v7, `ntt_pass7` (same arguments and result; needs n <= 2^32 and `roots` the compact table
// of radix R itself, i.e. logr0 = logr): v6 with (4) the DFT roots at a compile-time stride, so the
// root addresses of a register chunk fold into constants, and (5) the inter-pass twiddle w^e with
// a 32-bit exponent and no branch: x tlo[e mod L] thi[e div L] always (tlo[0] = thi[0] = 1), the
// first product without its final correction (Shoup's x w - q p lies in [0, 2p) for any word x).

struct Ctx {
    const word* __restrict__ in;
    word* __restrict__ out;
    word p, scale, scaleq;
    unsigned logn, logm, logns, logl, rs;  // rs = log2(R0 / R): roots stride for W_R
    u64 g0, groups;
    const pair* __restrict__ roots;
    const pair* __restrict__ tlo;
    const pair* __restrict__ thi;
};

__host__ __device__ constexpr unsigned brev_c(unsigned t, int c) {
    return c == 0 ? 0 : ((t & 1) << (c - 1)) | brev_c(t >> 1, c - 1);
}

// x w mod p up to one p: x w - floor(x w' / 2^WORD) p in [0, 2p) for any word x (Harvey 2014).
__device__ __forceinline__ word mul_raw(word x, pair t, word p) { return x * t.v - mul_hi(x, t.q) * p; }

// x w^e with w^e = tlo[e mod L] thi[e div L]; v7: e < 2^32, both products always.
template <int V>
__device__ __forceinline__ word twiddle(word x, u64 e, const Ctx& c) {
    if constexpr (V == 7) {
        const unsigned e32 = (unsigned)e;
        x = mul_raw(x, c.tlo[e32 & ((1u << c.logl) - 1)], c.p);
        return mul_lazy(x, c.thi[e32 >> c.logl], c.p);
    } else if (e) {
        u64 lo = e & ((1ull << c.logl) - 1), hi = e >> c.logl;
        x = mul_lazy(x, c.tlo[lo], c.p);
        if (hi) x = mul_lazy(x, c.thi[hi], c.p);
    }
    return x;
}

__device__ __forceinline__ word finish(word x, const Ctx& c) {
    return c.scale != 1 ? mul_shoup(x, c.scale, c.scaleq, c.p) : reduce_out(x, c.p);
}

// C radix-2 DIF stages on v[t] = element first + t q of a group (q = 2^LOGQ, m = first mod q):
// stage st has half-span h = 2^(C-1-st) q and maps (a, b) at offset o < h to (a + b, (a - b) w_2h^o)
// with w_2h = w0^(R0/2h), i.e. roots index o 2^(shift0 + st). v7 multiplies by w^0 = 1 (exact)
// wherever the index is not a compile-time zero, rather than testing it.
template <int V, int C, int LOGQ>
__device__ __forceinline__ void dif_regs(word* v, unsigned m, unsigned shift0, const pair* __restrict__ roots, word p) {
#pragma unroll
    for (int st = 0; st < C; ++st) {
        const unsigned ht = 1u << (C - 1 - st);
#pragma unroll
        for (unsigned t = 0; t < (1u << C); ++t) {
            if (t & ht) continue;
            word x = v[t], y = v[t + ht];
            v[t] = add_lazy(x, y, p);
            word d = sub_lazy(x, y, p);
            unsigned idx = (m + ((t & (ht - 1)) << LOGQ)) << (shift0 + st);
            if constexpr (V == 7)
                d = LOGQ == 0 && (t & (ht - 1)) == 0 ? sub_fix(d, p) : mul_lazy(d, roots[idx], p);
            else
                d = idx ? mul_lazy(d, roots[idx], p) : sub_fix(d, p);
            v[t + ht] = d;
        }
    }
}

// Chunk of C stages (half-spans 2^(LOGQ+C-1), ..., 2^LOGQ) of the DFT_R of every group of the
// block. Each unit is 2^C words of one group; units go to threads as (group, unit) with groups
// fastest when the chunk touches global memory (gin: first chunk, reads the pass input and
// applies the inter-pass twiddle; gout: last chunk, writes the pass output in natural order),
// else with units fastest. Otherwise the words come from / go to shared memory.
template <int V, int LOGR, int C, int LOGQ>
__device__ __forceinline__ void chunk6(word* s, bool gin, bool gout, const Ctx& c) {
    constexpr unsigned LOGT = LOGE - LOGR, T = 1u << LOGT, ROW = (1u << LOGR) + (T > 1);
    constexpr unsigned P = 1u << C, U = 1u << (LOGR - C), NUNITS = E >> C;
    static_assert(NUNITS % NT == 0, "every thread takes the same number of units");
    const u64 mg = 1ull << c.logm, ns = 1ull << c.logns;
#pragma unroll
    for (unsigned it = 0; it < NUNITS / NT; ++it) {
        const unsigned u = threadIdx.x + it * NT;
        unsigned tl, k;
        if (gin || gout) { tl = u & (T - 1); k = u >> LOGT; }
        else             { tl = u >> (LOGR - C); k = u & (U - 1); }
        const unsigned m = k & ((1u << LOGQ) - 1);
        const unsigned first = ((k >> LOGQ) << (LOGQ + C)) + m;
        const unsigned base = tl * ROW;
        const u64 g = c.g0 + tl, b = g >> c.logm, j = g & (mg - 1);
        word v[P];
        if (gin) {  // first chunk: LOGQ = LOGR - C, first = k
            const word* src = c.in + (b << c.logn) + j + ((u64)k << c.logm);
            const u64 stride = (u64)1 << (LOGQ + c.logm);
            const u64 cexp = (j & (ns - 1)) << (c.logm - c.logns);
            if constexpr (V == 7) {  // word offsets t stride < n <= 2^32
                const unsigned stride32 = 1u << (LOGQ + c.logm);
#pragma unroll
                for (unsigned t = 0; t < P; ++t) v[t] = src[t * stride32];
            } else {
#pragma unroll
                for (unsigned t = 0; t < P; ++t) v[t] = src[t * stride];
            }
            if (cexp) {
                if constexpr (V == 7) {  // exponents below n <= 2^32
                    const unsigned e0 = (unsigned)cexp * k, es = (unsigned)cexp << LOGQ;
#pragma unroll
                    for (unsigned t = 0; t < P; ++t) v[t] = twiddle<V>(v[t], e0 + t * es, c);
                } else {
                    const u64 e0 = cexp * k, es = cexp << LOGQ;
#pragma unroll
                    for (unsigned t = 0; t < P; ++t) v[t] = twiddle<V>(v[t], e0 + t * es, c);
                }
            }
        } else {
#pragma unroll
            for (unsigned t = 0; t < P; ++t) v[t] = s[sw(base, first + (t << LOGQ))];
        }
        dif_regs<V, C, LOGQ>(v, m, (V == 7 ? 0 : c.rs) + LOGR - LOGQ - C, c.roots, c.p);
        if (gout) {  // last chunk: LOGQ = 0, first = k 2^C, position first + t holds X_brev(first + t)
            const unsigned kb = LOGR > C ? __brev(k) >> (32 - (LOGR - C)) : 0;
            word* dst = c.out + (b << c.logn) + ((j >> c.logns) << (c.logns + LOGR)) + (j & (ns - 1)) + ((u64)kb << c.logns);
            const u64 stride = (u64)1 << (LOGR - C + c.logns);
            if constexpr (V == 7) {  // word offsets below R Ns <= n <= 2^32
                const unsigned stride32 = 1u << (LOGR - C + c.logns);
#pragma unroll
                for (unsigned t = 0; t < P; ++t) dst[brev_c(t, C) * stride32] = finish(v[t], c);
            } else {
#pragma unroll
                for (unsigned t = 0; t < P; ++t) dst[brev_c(t, C) * stride] = finish(v[t], c);
            }
        } else {
#pragma unroll
            for (unsigned t = 0; t < P; ++t) s[sw(base, first + (t << LOGQ))] = v[t];
        }
    }
}

// Chunks I, I+1, ... of the DFT_R (four stages each, the last one LOGR mod 4 when nonzero).
template <int V, int LOGR, int I>
__device__ __forceinline__ void chunks6(word* s, bool gin, bool gout, const Ctx& c) {
    constexpr int DONE = 4 * I, LEFT = LOGR - DONE;
    if constexpr (LEFT > 0) {
        constexpr int C = LEFT < 4 ? LEFT : 4;
        constexpr bool LAST = LEFT == C;
        chunk6<V, LOGR, C, LEFT - C>(s, I == 0 && gin, LAST && gout, c);
        if constexpr (!LAST) {
            __syncthreads();
            chunks6<V, LOGR, I + 1>(s, gin, gout, c);
        }
    }
}

template <int V, int LOGR>
__device__ __forceinline__ void pass6(word* s, const Ctx& c) {
    constexpr unsigned R = 1u << LOGR, LOGT = LOGE - LOGR, T = 1u << LOGT, ROW = R + (T > 1);
    const u64 mg = 1ull << c.logm, ns = 1ull << c.logns;
    const bool gin = mg >= T, gout = ns >= T;
    if (!gin) {  // load loop as in ntt_pass (elements of a group consecutive when n/R < T)
        for (unsigned i = threadIdx.x; i < E; i += NT) {
            unsigned tl = i >> LOGR, r = i & (R - 1);
            u64 g = c.g0 + tl;
            if (g < c.groups) {
                u64 b = g >> c.logm, j = g & (mg - 1);
                word x = c.in[(b << c.logn) + j + ((u64)r << c.logm)];
                x = twiddle<V>(x, ((j & (ns - 1)) * r) << (c.logm - c.logns), c);
                s[sw(tl * ROW, r)] = x;
            }
        }
        __syncthreads();
    }
    chunks6<V, LOGR, 0>(s, gin, gout, c);
    if (!gout) {
        __syncthreads();
        if constexpr (V == 7) {
            if (gin) {  // the block's groups are the columns j0 .. j0 + T - 1 of transform b0 (T | n/R)
                const unsigned j0 = (unsigned)(c.g0 & (mg - 1)), nsm = (1u << c.logns) - 1;
                word* dst = c.out + ((c.g0 >> c.logm) << c.logn);
#pragma unroll 4
                for (unsigned i = threadIdx.x; i < E; i += NT) {  // word offsets below n <= 2^32
                    const unsigned tl = i >> LOGR, k = i & (R - 1), j = j0 + tl;
                    const word x = s[sw(tl * ROW, __brev(k) >> (32 - LOGR))];
                    dst[((j & ~nsm) << LOGR) + (j & nsm) + (k << c.logns)] = finish(x, c);
                }
                return;
            }
        }
        for (unsigned i = threadIdx.x; i < E; i += NT) {
            unsigned tl, k;
            if (ns >= T) { k = i >> LOGT; tl = i & (T - 1); }  // (not reached: then gout)
            else         { tl = i >> LOGR; k = i & (R - 1); }
            u64 g = c.g0 + tl;
            if (g < c.groups) {
                u64 b = g >> c.logm, j = g & (mg - 1);
                word x = s[sw(tl * ROW, __brev(k) >> (32 - LOGR))];
                c.out[(b << c.logn) + ((j >> c.logns) << (c.logns + LOGR)) + (j & (ns - 1)) + ((u64)k << c.logns)] = finish(x, c);
            }
        }
    }
}

template <int V>
__device__ __forceinline__ void pass67(
    const word* __restrict__ in, word* __restrict__ out, u64 p64, unsigned logn, unsigned logr,
    unsigned logns, u64 groups, const pair* __restrict__ roots, unsigned logr0,
    const pair* __restrict__ tlo, const pair* __restrict__ thi, unsigned logl, u64 scale64,
    u64 scaleq64)
{
    SHARED_WORDS(s);
    Ctx c;
    c.in = in; c.out = out; c.p = (word)p64; c.scale = (word)scale64; c.scaleq = (word)scaleq64;
    c.logn = logn; c.logm = logn - logr; c.logns = logns; c.logl = logl; c.rs = logr0 - logr;
    c.g0 = (u64)blockIdx.x << (LOGE - logr); c.groups = groups;
    c.roots = roots; c.tlo = tlo; c.thi = thi;
    switch (logr) {
#define GPMP_PASS6(L) case L: pass6<V, L>(s, c); break;
        GPMP_PASS6(1) GPMP_PASS6(2) GPMP_PASS6(3) GPMP_PASS6(4) GPMP_PASS6(5) GPMP_PASS6(6)
        GPMP_PASS6(7) GPMP_PASS6(8) GPMP_PASS6(9) GPMP_PASS6(10) GPMP_PASS6(11) GPMP_PASS6(12)
#if LOGE >= 13
        GPMP_PASS6(13)
#endif
#undef GPMP_PASS6
        default: break;
    }
}

#define GPMP_PASS_ARGS                                                                             \
    const word* __restrict__ in, word* __restrict__ out, u64 p64, unsigned logn, unsigned logr,    \
    unsigned logns, u64 groups, const pair* __restrict__ roots, unsigned logr0,                    \
    const pair* __restrict__ tlo, const pair* __restrict__ thi, unsigned logl, u64 scale64,        \
    u64 scaleq64
extern "C" __global__ void __launch_bounds__(NT, MINB) ntt_pass6(GPMP_PASS_ARGS) {
    pass67<6>(in, out, p64, logn, logr, logns, groups, roots, logr0, tlo, thi, logl, scale64, scaleq64);
}
extern "C" __global__ void __launch_bounds__(NT, MINB) ntt_pass7(GPMP_PASS_ARGS) {
    pass67<7>(in, out, p64, logn, logr, logns, groups, roots, logr0, tlo, thi, logl, scale64, scaleq64);
}
#undef GPMP_PASS_ARGS
