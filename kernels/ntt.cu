// Batched word-size NTT, X_k = sum_j x_j w^(jk) mod p (p odd, p < 2^63, w of order n = 2^logn),
// natural order in and out, as radix-R Stockham passes (Govindaraju et al., SC'08, "High
// performance discrete Fourier transforms on graphics processors", radix-R Stockham formulation):
//
//   pass with stride Ns (Ns = 1, R_1, R_1 R_2, ...), for each group j < n/R:
//     v_r = in[j + r n/R] * W_(Ns R)^((j mod Ns) r)          (r < R; W_M = w^(n/M))
//     V   = DFT_R(v)                                          (root W_R)
//     out[(j div Ns) Ns R + (j mod Ns) + k Ns] = V_k          (k < R)
//
// One block does T = E/R groups; DFT_R is radix-2 decimation in frequency in place, four stages
// at a time in registers (bit-reversed result, read back reversed), the radix a compile-time
// constant (one instantiation per log2 R, picked by a switch). The first chunk of stages is fused
// with the global load (and the pass twiddle) when the block's T groups are consecutive columns
// of one transform (n/R >= T), and the last chunk with the global store when the output stride
// Ns >= T: each thread then reads (writes) 2^C words of T consecutive columns straight into (out
// of) registers, lanes running over the columns, so the accesses coalesce; otherwise the words go
// through shared memory. Products are Shoup's (common.cuh), any word times a tabled constant.
//
// Two kernels, same arguments and result:
//   ntt_pass       for n <= 2^32: exponents and word offsets in 32 bits, the DFT roots at a
//                  compile-time stride (`roots` is the compact table of radix R itself, logr0 =
//                  logr), the pass twiddle w^e = tlo[e mod L] thi[e div L] as two products always;
//   ntt_pass_long  for any n: 64-bit exponents and offsets, roots at stride R0/R, factors 1 skipped.
//
// Defines: WORD (64, or 32 for p < 2^31: words, tables and products in 32 bits), LOGE (log2 of
// the words a block holds), NT (threads per block), MINB (blocks per SM the register allocation
// must allow), LAZY (1 when p < 2^(WORD-2): Harvey's lazy reduction, values kept in [0, 2p)
// between stages, differences formed as x - y + 2p < 4p, products left in [0, 2p), one final
// correction at the store; Harvey, "Faster arithmetic for number-theoretic transforms", 2014).
// Shared memory is dynamic, E + T words (E = 2^LOGE, T = E/R groups, one pad word per group when
// T > 1).
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

#define E (1u << LOGE)

#if WORD == 32
typedef u32 word;
#elif WORD == 64
typedef u64 word;
#else
#error WORD must be 32 or 64
#endif
// The block's dynamic shared memory (the host emulation, tests/ntt_kernels, supplies its own).
#ifdef GPMP_EMULATE
#define SHARED_WORDS(s) word* s = emu_shared<word>()
#else
#define SHARED_WORDS(s) extern __shared__ word s[]
#endif
// A table entry (t, floor(t 2^WORD / p)).
typedef Shoup<word> pair;

// x w mod p, or with LAZY a representative in [0, 2p).
__device__ __forceinline__ word mul_lazy(word x, pair t, word p) {
#if LAZY
    return mul_shoup_lazy(x, t, p);
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
    return LAZY ? csub(x, p) : x;
}

// Shared-memory word of element i of the group starting at `base`: within each run of 32 words
// the low five bits are XORed with the run index, so that strided and bit-reversed accesses of a
// warp spread over the banks.
__device__ __forceinline__ unsigned sw(unsigned base, unsigned i) {
    return base + (i ^ ((i >> 5) & 31));
}

// The arguments of a pass: R = 2^logr (logr <= LOGE) at stride Ns = 2^logns over `groups` =
// count n/R groups. roots[k] = (w0^k, companion) for k < R0/2, w0 of order R0 = 2^logr0 >= R. The
// pass twiddle w^e (e < n) is tlo[e mod L] thi[e div L], L = 2^logl. When `scale` != 1 every
// output is multiplied by it (companion scaleq).
#define NTT_PASS_ARGS                                                                              \
    const word* __restrict__ in, word* __restrict__ out, u64 p64, unsigned logn, unsigned logr,    \
    unsigned logns, u64 groups, const pair* __restrict__ roots, unsigned logr0,                    \
    const pair* __restrict__ tlo, const pair* __restrict__ thi, unsigned logl, u64 scale64,        \
    u64 scaleq64

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

// x w^e with w^e = tlo[e mod L] thi[e div L]. Short transforms (e < 2^32): both products always
// (tlo[0] = thi[0] = 1), the first without its correction; long ones skip the factors that are 1.
template <bool LONG>
__device__ __forceinline__ word twiddle(word x, u64 e, const Ctx& c) {
    if constexpr (!LONG) {
        const unsigned e32 = (unsigned)e;
        x = mul_shoup_lazy(x, c.tlo[e32 & ((1u << c.logl) - 1)], c.p);
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
// with w_2h = w0^(R0/2h), i.e. roots index o 2^(shift0 + st). Short transforms multiply by
// w^0 = 1 (exact) wherever the index is not a compile-time zero, rather than testing it.
template <bool LONG, int C, int LOGQ>
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
            if constexpr (!LONG)
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
template <bool LONG, int LOGR, int C, int LOGQ>
__device__ __forceinline__ void dif_chunk(word* s, bool gin, bool gout, const Ctx& c) {
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
            if constexpr (!LONG) {  // word offsets t stride < n <= 2^32
                const unsigned stride32 = 1u << (LOGQ + c.logm);
#pragma unroll
                for (unsigned t = 0; t < P; ++t) v[t] = src[t * stride32];
            } else {
#pragma unroll
                for (unsigned t = 0; t < P; ++t) v[t] = src[t * stride];
            }
            if (cexp) {
                if constexpr (!LONG) {  // exponents below n <= 2^32
                    const unsigned e0 = (unsigned)cexp * k, es = (unsigned)cexp << LOGQ;
#pragma unroll
                    for (unsigned t = 0; t < P; ++t) v[t] = twiddle<LONG>(v[t], e0 + t * es, c);
                } else {
                    const u64 e0 = cexp * k, es = cexp << LOGQ;
#pragma unroll
                    for (unsigned t = 0; t < P; ++t) v[t] = twiddle<LONG>(v[t], e0 + t * es, c);
                }
            }
        } else {
#pragma unroll
            for (unsigned t = 0; t < P; ++t) v[t] = s[sw(base, first + (t << LOGQ))];
        }
        dif_regs<LONG, C, LOGQ>(v, m, (LONG ? c.rs : 0) + LOGR - LOGQ - C, c.roots, c.p);
        if (gout) {  // last chunk: LOGQ = 0, first = k 2^C, position first + t holds X_brev(first + t)
            const unsigned kb = LOGR > C ? __brev(k) >> (32 - (LOGR - C)) : 0;
            word* dst = c.out + (b << c.logn) + ((j >> c.logns) << (c.logns + LOGR)) + (j & (ns - 1)) + ((u64)kb << c.logns);
            const u64 stride = (u64)1 << (LOGR - C + c.logns);
            if constexpr (!LONG) {  // word offsets below R Ns <= n <= 2^32
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
template <bool LONG, int LOGR, int I>
__device__ __forceinline__ void dif_chunks(word* s, bool gin, bool gout, const Ctx& c) {
    constexpr int DONE = 4 * I, LEFT = LOGR - DONE;
    if constexpr (LEFT > 0) {
        constexpr int C = LEFT < 4 ? LEFT : 4;
        constexpr bool LAST = LEFT == C;
        dif_chunk<LONG, LOGR, C, LEFT - C>(s, I == 0 && gin, LAST && gout, c);
        if constexpr (!LAST) {
            __syncthreads();
            dif_chunks<LONG, LOGR, I + 1>(s, gin, gout, c);
        }
    }
}

// The pass at radix 2^LOGR: load (unless fused into the first chunk), the DFT_R of every group,
// store (unless fused into the last chunk).
template <bool LONG, int LOGR>
__device__ __forceinline__ void pass_radix(word* s, const Ctx& c) {
    constexpr unsigned R = 1u << LOGR, LOGT = LOGE - LOGR, T = 1u << LOGT, ROW = R + (T > 1);
    const u64 mg = 1ull << c.logm, ns = 1ull << c.logns;
    const bool gin = mg >= T, gout = ns >= T;
    if (!gin) {  // elements of a group consecutive (n/R < T)
        for (unsigned i = threadIdx.x; i < E; i += NT) {
            unsigned tl = i >> LOGR, r = i & (R - 1);
            u64 g = c.g0 + tl;
            if (g < c.groups) {
                u64 b = g >> c.logm, j = g & (mg - 1);
                word x = c.in[(b << c.logn) + j + ((u64)r << c.logm)];
                x = twiddle<LONG>(x, ((j & (ns - 1)) * r) << (c.logm - c.logns), c);
                s[sw(tl * ROW, r)] = x;
            }
        }
        __syncthreads();
    }
    dif_chunks<LONG, LOGR, 0>(s, gin, gout, c);
    if (!gout) {
        __syncthreads();
        if constexpr (!LONG) {
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

template <bool LONG>
__device__ __forceinline__ void pass(NTT_PASS_ARGS) {
    SHARED_WORDS(s);
    Ctx c;
    c.in = in; c.out = out; c.p = (word)p64; c.scale = (word)scale64; c.scaleq = (word)scaleq64;
    c.logn = logn; c.logm = logn - logr; c.logns = logns; c.logl = logl; c.rs = logr0 - logr;
    c.g0 = (u64)blockIdx.x << (LOGE - logr); c.groups = groups;
    c.roots = roots; c.tlo = tlo; c.thi = thi;
    switch (logr) {
#define NTT_RADIX(L) case L: pass_radix<LONG, L>(s, c); break;
        NTT_RADIX(1) NTT_RADIX(2) NTT_RADIX(3) NTT_RADIX(4) NTT_RADIX(5) NTT_RADIX(6)
        NTT_RADIX(7) NTT_RADIX(8) NTT_RADIX(9) NTT_RADIX(10) NTT_RADIX(11) NTT_RADIX(12)
#if LOGE >= 13
        NTT_RADIX(13)
#endif
#undef NTT_RADIX
        default: break;
    }
}

extern "C" __global__ void __launch_bounds__(NT, MINB) ntt_pass(NTT_PASS_ARGS) {
    pass<false>(in, out, p64, logn, logr, logns, groups, roots, logr0, tlo, thi, logl, scale64, scaleq64);
}
extern "C" __global__ void __launch_bounds__(NT, MINB) ntt_pass_long(NTT_PASS_ARGS) {
    pass<true>(in, out, p64, logn, logr, logns, groups, roots, logr0, tlo, thi, logl, scale64, scaleq64);
}
#undef NTT_PASS_ARGS
