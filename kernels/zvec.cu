// Element-wise arithmetic on batches of n signed integers in word-major layout (gpmp_zvec on the
// device): limb j (64 bits, least significant first) of element i at x[j n + i], so that the
// threads of a warp, one element each, read and write consecutive words; sign (0 or 1) at s[i].
// Zero always has sign 0. Outputs are fresh buffers, never an input (the host swaps them in).
//
// Carries are plain 64-bit C (no inline-asm carry chains across statements, whose flag dependency
// the compiler cannot see): a sum s = u + v carries iff s < u; with a carry-in c ∈ {0, 1}, cout =
// (u + v < u) | (u + v + c < c). Products work on 32-bit digits (the 64-bit limbs split in
// registers), whose multiply-accumulate is one self-contained asm statement (see mac32).
//
// Defines: C (limbs of the register product: operands of at most C limbs each are multiplied
// with both in registers and every loop unrolled; larger ones in chunks of C limbs of the shorter
// operand against a window of the longer), NT (threads per block), MINB (minimum resident blocks
// per SM asked of the compiler, which caps registers at 65536 / (MINB·NT)), ZV_ACC (independent
// accumulators of a product column, for instruction-level parallelism), PF (the chunked product's
// prefetch distance: limb columns of b and of the partial result loaded ahead of their use), CW
// (when defined, only the wide chunked product zv_mulw is compiled, in chunks of CW limbs, CW even;
// its PF counts groups of ZW_E / 2 limb columns).
#ifndef C
#define C 4
#endif
#ifndef NT
#define NT 128
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef ZV_ACC
#define ZV_ACC 2
#endif
#ifndef PF
#define PF 2
#endif

// (h:m:l) += x·y on 32-bit words (h never overflows: a column sums at most 2^32 products). One
// self-contained asm statement, so the carry flag never crosses statements; ptxas fuses the first
// two instructions into one IMAD.WIDE.U32 with carry-out, so that a 32×32-bit partial product costs
// about two instructions (against about four for the 64-bit form a 64×64 product needs). The
// portable form is the reference (host emulation, tests/zvec_kernels; define ZVEC_PORTABLE).
__device__ __forceinline__ void mac32(u32 x, u32 y, u32& l, u32& m, u32& h) {
#if defined(__CUDA_ARCH__) && !defined(ZVEC_PORTABLE)
    asm volatile(
        "mad.lo.cc.u32 %0, %3, %4, %0;\n\t"
        "madc.hi.cc.u32 %1, %3, %4, %1;\n\t"
        "addc.u32 %2, %2, 0;"
        : "+r"(l), "+r"(m), "+r"(h)
        : "r"(x), "r"(y));
#else
    u64 t = (u64)x * y + l, s = (t >> 32) + m;
    l = (u32)t;
    m = (u32)s;
    h += (u32)(s >> 32);
#endif
}

#ifndef CW
// Accumulators 1 .. ZV_ACC − 1 added into accumulator 0 (and cleared): the sum of the column's
// partial products, (h:m:l) < 2^96.
__device__ __forceinline__ void fold(u32 (&l)[ZV_ACC], u32 (&m)[ZV_ACC], u32 (&h)[ZV_ACC]) {
#pragma unroll
    for (int t = 1; t < ZV_ACC; ++t) {
        u64 s = (u64)l[0] + l[t];
        l[0] = (u32)s;
        s = (s >> 32) + m[0] + m[t];
        m[0] = (u32)s;
        h[0] += h[t] + (u32)(s >> 32);
        l[t] = m[t] = h[t] = 0;
    }
}

// r = a ± b (sub = 0 or 1) for r of lr limbs whose top limb holds rtop bits (0: all 64). An
// element whose result does not fit sets *flag (and leaves its slot partly written). With signs
// (−1)^sa |a| and (−1)^sb |b| (sb flipped for a difference): equal signs add magnitudes; otherwise
// the smaller magnitude (compared from the top limb) is subtracted from the larger, whose sign
// the result takes.
extern "C" __global__ void __launch_bounds__(NT, MINB) zv_addsub(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ a, const u8* __restrict__ as,
    const u64* __restrict__ b, const u8* __restrict__ bs, u64 n, unsigned la, unsigned lb,
    unsigned lr, unsigned rtop, unsigned sub, unsigned* __restrict__ flag)
{
    const u64 i = (u64)blockIdx.x * NT + threadIdx.x;
    if (i >= n) return;
    const unsigned sa = as[i] != 0, sb = (bs[i] != 0) ^ sub;
    const unsigned lm = la > lb ? la : lb;
    const bool diff = sa != sb;
    const u64 *x = a, *y = b;
    unsigned lx = la, ly = lb, neg = sa;
    if (diff) {
        for (unsigned j = lm; j-- > 0;) {
            u64 u = j < la ? a[j * n + i] : 0, v = j < lb ? b[j * n + i] : 0;
            if (u != v) {
                if (u < v) { x = b; y = a; lx = lb; ly = la; neg = sb; }
                break;
            }
        }
    }
    u64 carry = 0, nz = 0, over = 0, top = 0;
    const unsigned len = lm + !diff;  // a sum of magnitudes may need one limb more
    for (unsigned j = 0; j < len; ++j) {
        u64 u = j < lx ? x[j * n + i] : 0, v = j < ly ? y[j * n + i] : 0, s;
        if (diff) {
            s = u - v;
            u64 b1 = u < v, t = s - carry;
            carry = b1 | (s < carry);
            s = t;
        } else {
            s = u + v;
            u64 c1 = s < u;
            s += carry;
            carry = c1 | (s < carry);
        }
        nz |= s;
        if (j < lr) r[j * n + i] = s;
        else over |= s;
        if (j + 1 == lr) top = s;
    }
    for (unsigned j = len; j < lr; ++j) r[j * n + i] = 0;
    if (rtop != 0 && (top >> rtop) != 0) over = 1;
    rs[i] = neg & (nz != 0);
    if (over) *flag = 1;
}

// zv_addsubv: the same contract as zv_addsub (same arguments; n a multiple of ZA_V), laid out for
// bandwidth: ZA_V consecutive elements a thread (ZA_V = 2: one 16-byte load or store per limb row
// for both, a warp moving 512 contiguous bytes), limbs in register blocks of ZA_K whose 2·ZA_K
// loads are all issued before any arithmetic (bytes in flight per thread: 16·ZA_K·ZA_V), carries
// chained per element in registers (no cross-thread dependence: each limb row is already coalesced
// across the warp's elements). Bytes moved per element: 8(la + lb + lr) + 3, the lower bound.
// Magnitudes of opposite signs: up to ZA_K limbs, |x| − |y| is formed at once and negated in
// registers when it borrows (no comparison pass); above, the magnitudes are compared from the top
// limb down first and the smaller subtracted from the larger.
#ifndef ZA_K
#define ZA_K 8
#endif
#ifndef ZA_V
#define ZA_V 1
#endif
// ZA_V limbs (or sign bytes) of consecutive elements: one vector access.
struct alignas(8 * ZA_V) Lanes {
    u64 w[ZA_V];
};
struct alignas(ZA_V) SignLanes {
    u8 s[ZA_V];
};

// Block kb (limbs kb .. kb + ZA_K − 1) of the elements i0 .. i0 + ZA_V − 1 of x (l limbs, zero above).
__device__ __forceinline__ void load_block(Lanes (&v)[ZA_K], const u64* __restrict__ x, u64 n, u64 i0, unsigned kb, unsigned l) {
#pragma unroll
    for (int j = 0; j < ZA_K; ++j) {
        if (kb + j < l) {
            v[j] = *(const Lanes*)(x + (u64)(kb + j) * n + i0);
        } else {
#pragma unroll
            for (int e = 0; e < ZA_V; ++e) v[j].w[e] = 0;
        }
    }
}

extern "C" __global__ void __launch_bounds__(NT, MINB) zv_addsubv(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ a, const u8* __restrict__ as,
    const u64* __restrict__ b, const u8* __restrict__ bs, u64 n, unsigned la, unsigned lb,
    unsigned lr, unsigned rtop, unsigned sub, unsigned* __restrict__ flag)
{
    const u64 i0 = ((u64)blockIdx.x * NT + threadIdx.x) * ZA_V;
    if (i0 >= n) return;
    const SignLanes sga = *(const SignLanes*)(as + i0), sgb = *(const SignLanes*)(bs + i0);
    const unsigned lm = la > lb ? la : lb, nb = (lm + ZA_K - 1) / ZA_K;
    // Per element: diff (opposite signs: magnitudes subtracted), swap (|b| > |a|: b − a), neg.
    bool diff[ZA_V], swap[ZA_V];
    unsigned neg[ZA_V];
    u64 carry[ZA_V], nz[ZA_V], over[ZA_V], top[ZA_V];
#pragma unroll
    for (int e = 0; e < ZA_V; ++e) {
        const unsigned sa = sga.s[e] != 0, sb = (sgb.s[e] != 0) ^ sub;
        diff[e] = sa != sb;
        swap[e] = false;
        neg[e] = sa;
        carry[e] = nz[e] = over[e] = top[e] = 0;
    }
    Lanes x[ZA_K], y[ZA_K];
    if (nb > 1) {
        // The larger magnitude, from the top limb down (random operands: decided at the top limb,
        // which the main pass reads again, from cache or, evicted, 2 limbs of 2lm again).
        bool open[ZA_V], any = false;
#pragma unroll
        for (int e = 0; e < ZA_V; ++e) any |= open[e] = diff[e];
        for (unsigned j = lm; any && j-- > 0;) {
            Lanes u, v;
#pragma unroll
            for (int e = 0; e < ZA_V; ++e) u.w[e] = v.w[e] = 0;
            if (j < la) u = *(const Lanes*)(a + (u64)j * n + i0);
            if (j < lb) v = *(const Lanes*)(b + (u64)j * n + i0);
            any = false;
#pragma unroll
            for (int e = 0; e < ZA_V; ++e) {
                if (open[e] && u.w[e] != v.w[e]) {
                    swap[e] = u.w[e] < v.w[e];
                    open[e] = false;
                }
                any |= open[e];
            }
        }
#pragma unroll
        for (int e = 0; e < ZA_V; ++e)
            if (swap[e]) neg[e] ^= 1;
    }
    for (unsigned c = 0; c < nb; ++c) {
        const unsigned kb = c * ZA_K;
        load_block(x, a, n, i0, kb, la);
        load_block(y, b, n, i0, kb, lb);
        Lanes s[ZA_K];
#pragma unroll
        for (int e = 0; e < ZA_V; ++e) {
            u64 cy = carry[e];
#pragma unroll
            for (int j = 0; j < ZA_K; ++j) {
                const u64 u = swap[e] ? y[j].w[e] : x[j].w[e], v = swap[e] ? x[j].w[e] : y[j].w[e];
                u64 t;
                if (diff[e]) {
                    const u64 d = u - v, b1 = u < v;
                    t = d - cy;
                    cy = b1 | (d < cy);
                } else {
                    const u64 d = u + v, c1 = d < u;
                    t = d + cy;
                    cy = c1 | (t < cy);
                }
                s[j].w[e] = t;
            }
            // One block, no comparison: a borrow out means |b| > |a|, and −(|a| − |b|) mod
            // 2^(64 ZA_K) is |b| − |a| (zeros above lm stay zero).
            if (nb == 1 && diff[e] && cy) {
                u64 c1 = 1;
#pragma unroll
                for (int j = 0; j < ZA_K; ++j) {
                    const u64 t = ~s[j].w[e] + c1;
                    c1 = t < c1;
                    s[j].w[e] = t;
                }
                neg[e] ^= 1;
                cy = 0;
            }
            carry[e] = cy;  // a difference's last borrow is 0 (the larger magnitude first)
        }
#pragma unroll
        for (int j = 0; j < ZA_K; ++j) {
            const unsigned k = kb + j;
#pragma unroll
            for (int e = 0; e < ZA_V; ++e) {
                nz[e] |= s[j].w[e];
                if (k >= lr) over[e] |= s[j].w[e];
                if (k + 1 == lr) top[e] = s[j].w[e];
            }
            if (k < lr) *(Lanes*)(r + (u64)k * n + i0) = s[j];
        }
    }
    // Limb nb·ZA_K: a sum's carry (0 for a difference); then zeros.
    const unsigned k = nb * ZA_K;
    Lanes s;
#pragma unroll
    for (int e = 0; e < ZA_V; ++e) {
        s.w[e] = carry[e];
        nz[e] |= carry[e];
        if (k >= lr) over[e] |= carry[e];
        if (k + 1 == lr) top[e] = carry[e];
    }
    if (k < lr) *(Lanes*)(r + (u64)k * n + i0) = s;
#pragma unroll
    for (int e = 0; e < ZA_V; ++e) s.w[e] = 0;
    for (unsigned j = k + 1; j < lr; ++j) *(Lanes*)(r + (u64)j * n + i0) = s;
    SignLanes so;
    bool bad = false;
#pragma unroll
    for (int e = 0; e < ZA_V; ++e) {
        so.s[e] = neg[e] & (nz[e] != 0);
        bad |= over[e] != 0 || (rtop != 0 && (top[e] >> rtop) != 0);
    }
    *(SignLanes*)(rs + i0) = so;
    if (bad) *flag = 1;
}

// r = a·b for r of lr limbs, where the product is known to fit (the host checks capacities):
// 32-bit product scanning, digit column d = Σ x_p y_(d−p) in 96-bit accumulators. zv_mul:
// operands of at most C limbs, both in registers; zv_mulc: larger ones, in chunks (two kernels,
// so that each gets the registers it needs).
extern "C" __global__ void __launch_bounds__(NT, MINB) zv_mul(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ a, const u8* __restrict__ as,
    const u64* __restrict__ b, const u8* __restrict__ bs, u64 n, unsigned la, unsigned lb,
    unsigned lr)
{
    const u64 i = (u64)blockIdx.x * NT + threadIdx.x;
    if (i >= n) return;
    // Both operands in registers as 2C digits of 32 bits, 32-bit product scanning: digit column d
    // = Σ x_p y_(d−p) in a 96-bit accumulator, ZV_ACC independent ones (p mod ZV_ACC) for ILP.
    u32 x[2 * C], y[2 * C];
    u64 nza = 0, nzb = 0;
#pragma unroll
    for (unsigned j = 0; j < C; ++j) {
        u64 u = j < la ? a[j * n + i] : 0, v = j < lb ? b[j * n + i] : 0;
        nza |= u;
        nzb |= v;
        x[2 * j] = (u32)u;
        x[2 * j + 1] = (u32)(u >> 32);
        y[2 * j] = (u32)v;
        y[2 * j + 1] = (u32)(v >> 32);
    }
    u32 l[ZV_ACC], m[ZV_ACC], h[ZV_ACC];
#pragma unroll
    for (int t = 0; t < ZV_ACC; ++t) l[t] = m[t] = h[t] = 0;
    u32 lo = 0;
#pragma unroll
    for (int d = 0; d < 4 * C; ++d) {
#pragma unroll
        for (int p = 0; p < 2 * C; ++p) {
            if (d - p < 0 || d - p >= 2 * C) continue;
            mac32(x[p], y[d - p], l[p % ZV_ACC], m[p % ZV_ACC], h[p % ZV_ACC]);
        }
        // Digit d of the product: the sum of the accumulators' low words; their carry and the
        // middle and high words move on to column d + 1 (in accumulator 0).
        fold(l, m, h);
        if (d & 1) {
            if ((unsigned)(d / 2) < lr) r[(u64)(d / 2) * n + i] = (u64)lo | (u64)l[0] << 32;
        } else {
            lo = l[0];
        }
        l[0] = m[0];
        m[0] = h[0];
        h[0] = 0;
    }
    for (unsigned k = 2 * C; k < lr; ++k) r[k * n + i] = 0;
    rs[i] = ((as[i] != 0) ^ (bs[i] != 0)) & (nza != 0) & (nzb != 0);
}

// Digit column of a chunk product: Σ x_p·y_p over p = plo..phi (compile-time bounds once
// unrolled), y_p the digit of b paired with x_p; then the accumulators folded into the first. The
// terms go from p = phi down, so that y_0, the digit of b loaded last, is needed last.
__device__ __forceinline__ void dcol(const u32 (&x)[2 * C], const u32 (&y)[2 * C], int plo, int phi, u32 (&l)[ZV_ACC],
                                     u32 (&m)[ZV_ACC], u32 (&h)[ZV_ACC]) {
#pragma unroll
    for (int p = 2 * C - 1; p >= 0; --p) {
        if (p < plo || p > phi) continue;
        mac32(x[p], y[p], l[p % ZV_ACC], m[p % ZV_ACC], h[p % ZV_ACC]);
    }
    fold(l, m, h);
}

// (h:m:l) += v.
__device__ __forceinline__ void add32(u32 v, u32& l, u32& m, u32& h) {
    u64 s = (u64)l + v;
    l = (u32)s;
    s = (s >> 32) + m;
    m = (u32)s;
    h += (u32)(s >> 32);
}

// The chunked product's next limb column k (< lb): b's limb k and r's limb o0 + k (when `withr`)
// into bl, rl from the prefetch rings pb, pr (oldest first), and the loads of column k + PF
// issued into their newest entries (zero past b's end), PF columns before their use.
__device__ __forceinline__ void advance(u64 (&pb)[PF], u64 (&pr)[PF], u64& bl, u64& rl, const u64* __restrict__ b,
                                        const u64* r, u64 n, u64 i, unsigned k, unsigned o0, unsigned lb, bool withr) {
    bl = pb[0];
    rl = pr[0];
#pragma unroll
    for (int j = 0; j + 1 < PF; ++j) {
        pb[j] = pb[j + 1];
        pr[j] = pr[j + 1];
    }
    const unsigned kf = k + PF;
    pb[PF - 1] = kf < lb ? b[(u64)kf * n + i] : 0;
    pr[PF - 1] = withr && kf < lb ? r[(u64)(o0 + kf) * n + i] : 0;
}

extern "C" __global__ void __launch_bounds__(NT, MINB) zv_mulc(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ a, const u8* __restrict__ as,
    const u64* __restrict__ b, const u8* __restrict__ bs, u64 n, unsigned la, unsigned lb,
    unsigned lr)
{
    const u64 i = (u64)blockIdx.x * NT + threadIdx.x;
    if (i >= n) return;
    // b is the longer operand (swapped if not), and lb > C. Chunk c of a (limbs cC .. cC + C − 1,
    // as 2C digits of 32 bits in registers) times b, by 32-bit product scanning: digit columns
    // d = 0 .. 2(lb + C) − 1 of limb columns o = cC + ⌊d/2⌋, each Σ x_p b_(d−p) over the p with
    // 0 ≤ d − p < 2lb only (no product of a padding zero of the window), plus what the earlier
    // chunks left in r (limbs below cC + lb). The running sum a_low·b ≤ a·b fits in lr limbs, so
    // limbs from lr on are zero and not stored.
    //  - limbs 0 .. C − 1 and the blocks of C limbs after them: digit q of b in wb[q mod 2C], so
    //    that in a block unrolled 2C times every index is a constant (no window shifts);
    //  - the last lb mod C limbs below lb: the window w[p] = b_(d−p), shifted per digit;
    //  - limbs lb .. lb + C − 1: the window runs out of b (unrolled: the shifts are renamings).
    if (la > lb) {
        const u64* t = a; a = b; b = t;
        const u8* ts = as; as = bs; bs = ts;
        const unsigned tl = la; la = lb; lb = tl;
    }
    u64 nza = 0, nzb = 0;
    const unsigned nch = (la + C - 1) / C;
    for (unsigned c = 0; c < nch; ++c) {
        u32 x[2 * C], wb[2 * C];
#pragma unroll
        for (unsigned j = 0; j < C; ++j) {
            unsigned aj = c * C + j;
            u64 u = aj < la ? a[(u64)aj * n + i] : 0;
            nza |= u;
            x[2 * j] = (u32)u;
            x[2 * j + 1] = (u32)(u >> 32);
        }
        const unsigned o0 = c * C;
        u32 l[ZV_ACC], m[ZV_ACC], h[ZV_ACC];
#pragma unroll
        for (int t = 0; t < ZV_ACC; ++t) l[t] = m[t] = h[t] = 0;
        u32 lo = 0;
        u64 bl = 0, rl = 0, pb[PF], pr[PF];
#pragma unroll
        for (unsigned j = 0; j < PF; ++j) {
            pb[j] = j < lb ? b[(u64)j * n + i] : 0;
            pr[j] = c > 0 && j < lb ? r[(u64)(o0 + j) * n + i] : 0;
        }
        // Digit s of limb column k: take b's limb k (and r's, left by earlier chunks) at s = 0;
        // digit s of b enters the window (ZV_IN), the products, then digit s of r, and digit s of
        // the result (ZV_OUT), stored at s = 1.
#define ZV_IN(k, s)                                                     \
        if ((s) == 0) {                                                 \
            advance(pb, pr, bl, rl, b, r, n, i, (k), o0, lb, c > 0);    \
            nzb |= bl;                                                  \
        }
#define ZV_OUT(k, s, withr)                                             \
        if (withr) add32((u32)(rl >> (32 * (s))), l[0], m[0], h[0]);    \
        if ((s) == 0) lo = l[0];                                        \
        else if (o0 + (k) < lr) r[(u64)(o0 + (k)) * n + i] = (u64)lo | (u64)l[0] << 32; \
        l[0] = m[0];                                                    \
        m[0] = h[0];                                                    \
        h[0] = 0;
#pragma unroll
        for (int d = 0; d < 2 * C; ++d) {
            ZV_IN(d / 2, d % 2)
            wb[d] = (u32)(bl >> (32 * (d % 2)));
            u32 y[2 * C];
#pragma unroll
            for (int p = 0; p < 2 * C; ++p) y[p] = p <= d ? wb[d - p] : 0;
            dcol(x, y, 0, d, l, m, h);
            ZV_OUT(d / 2, d % 2, c > 0)
        }
        unsigned k0 = C;
        for (; k0 + C <= lb; k0 += C) {
#pragma unroll
            for (int d = 0; d < 2 * C; ++d) {
                ZV_IN(k0 + d / 2, d % 2)
                wb[d] = (u32)(bl >> (32 * (d % 2)));
                u32 y[2 * C];
#pragma unroll
                for (int p = 0; p < 2 * C; ++p) y[p] = wb[(d - p + 2 * C) % (2 * C)];
                dcol(x, y, 0, 2 * C - 1, l, m, h);
                ZV_OUT(k0 + d / 2, d % 2, c > 0)
            }
        }
        // The last digit loaded, 2k0 − 1, is ≡ 2C − 1 (mod 2C): w[p] = b_(2k0−1−p) = wb[2C − 1 − p].
        u32 w[2 * C];
#pragma unroll
        for (int p = 0; p < 2 * C; ++p) w[p] = wb[2 * C - 1 - p];
        for (unsigned k = k0; k < lb; ++k) {
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                ZV_IN(k, s)
#pragma unroll
                for (int p = 2 * C - 1; p > 0; --p) w[p] = w[p - 1];
                w[0] = (u32)(bl >> (32 * s));
                dcol(x, w, 0, 2 * C - 1, l, m, h);
                ZV_OUT(k, s, c > 0)
            }
        }
#pragma unroll
        for (int e = 0; e < 2 * C; ++e) {
#pragma unroll
            for (int p = 2 * C - 1; p > 0; --p) w[p] = w[p - 1];
            w[0] = 0;
            dcol(x, w, e + 1, 2 * C - 1, l, m, h);
            ZV_OUT(lb + e / 2, e % 2, false)
        }
#undef ZV_IN
#undef ZV_OUT
    }
    const unsigned hi = nch == 0 ? 0 : nch * C + lb < lr ? nch * C + lb : lr;
    for (unsigned k = hi; k < lr; ++k) r[(u64)k * n + i] = 0;
    rs[i] = ((as[i] != 0) ^ (bs[i] != 0)) & (nza != 0) & (nzb != 0);
}
#endif  // CW

#ifdef CW
// Wide chunked product (defined CW: only this kernel is compiled). Chunks of CW limbs of the
// shorter operand a (2·CW digits of 32 bits in registers) times the longer b by 32-bit product
// scanning, E = ZW_E digit columns at a time (8; 4 also works): group g computes columns
// d = Eg .. Eg + E − 1 (limb columns o0 + Eg/2 .. o0 + Eg/2 + E/2 − 1), column d + e =
// Σ x_p·y_(d+e−p), one 96-bit accumulator per column (E independent carry chains). b's digits come
// from a per-thread ring in shared memory that holds the window y_(d−2CW+1) .. y_(d+E−1) (zeros
// outside b), so that with CW = 32 a 64-limb product
// takes 2 chunks instead of 4: per product a once, b twice and the partial result written
// 2 × 96 limbs and read 64 (3.5 KB at 4096 bits, against 6.6 KB for zv_mulc's 16-limb chunks).
// Ring: digit q at positions q mod M and q mod M + M (M = 2CW + E), so that the window is
// contiguous (from position s, 0 ≤ s < M) and every read is a constant offset from s. Each
// thread reads only its own ring column: no barriers. The products run in blocks of 4 digits of
// x (p = 4j .. 4j + 3) × E columns; blocks whose digits of x or b are all outside the operands
// (a chunk's ragged start and end, a short last chunk) are skipped by warp-uniform branches.
#ifndef ZW_E
#define ZW_E 8
#endif
#define ZW_M (2 * CW + ZW_E)
#ifndef ZW_U
#define ZW_U 2
#endif
static_assert(CW % 2 == 0 && ZW_E % 4 == 0 && 2 * CW % ZW_E == 0,
              "CW even, E a multiple of 4 dividing 2CW: blocks of 4 digits of x, groups of E digits, M a multiple of E");

// (h:m:l) += v (64 bits).
__device__ __forceinline__ void add64(u64 v, u32& l, u32& m, u32& h) {
    u64 s = (u64)l + (u32)v;
    l = (u32)s;
    s = (s >> 32) + m + (v >> 32);
    m = (u32)s;
    h += (u32)(s >> 32);
}

extern "C" __global__ void __launch_bounds__(NT, MINB) zv_mulw(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ a, const u8* __restrict__ as,
    const u64* __restrict__ b, const u8* __restrict__ bs, u64 n, unsigned la, unsigned lb,
    unsigned lr)
{
    __shared__ u32 ring[2 * ZW_M * NT];
    const u64 i = (u64)blockIdx.x * NT + threadIdx.x;
    if (i >= n) return;
    u32* const yr = ring + threadIdx.x;
    if (la > lb) {
        const u64* t = a; a = b; b = t;
        const u8* ts = as; as = bs; bs = ts;
        const unsigned tl = la; la = lb; lb = tl;
    }
    u64 nza = 0, nzb = 0;
    unsigned top = 0;  // limbs of r written by the last chunk
    const unsigned nch = (la + CW - 1) / CW;
    for (unsigned c = 0; c < nch; ++c) {
        // The chunk: limbs o0 .. o0 + xl − 1 of a, 2xl digits (zeros above). Its product with b
        // plus the partial result (limbs o0 .. o0 + lb − 1, left by the earlier chunks: a_low·b
        // < 2^(64(o0 + lb))) has columns d < 2lb + 2xl − 1, i.e. ng groups.
        constexpr unsigned E = ZW_E, H = E / 2;  // columns and limbs per group
        const unsigned o0 = c * CW, xl = la - o0 < CW ? la - o0 : CW;
        const unsigned ng = (2 * lb + 2 * xl + E - 2) / E, jx = (2 * xl + 3) / 4;
        u32 x[2 * CW];
#pragma unroll
        for (unsigned j = 0; j < CW; ++j) {
            u64 u = j < xl ? a[(u64)(o0 + j) * n + i] : 0;
            nza |= u;
            x[2 * j] = (u32)u;
            x[2 * j + 1] = (u32)(u >> 32);
        }
        for (unsigned q = 0; q < 2 * ZW_M; ++q) yr[q * NT] = 0;
        // Prefetch rings of b's and r's limbs: group g takes limbs Hg .. Hg + H − 1 (zero from lb
        // on), loaded PF groups ahead.
        u64 pb[H * PF], pr[H * PF];
        const u64* const rp = r + (u64)o0 * n;
#pragma unroll
        for (unsigned t = 0; t < H * PF; ++t) {
            pb[t] = t < lb ? b[(u64)t * n + i] : 0;
            pr[t] = c > 0 && t < lb ? rp[(u64)t * n + i] : 0;
        }
        u64 carry = 0;
        unsigned w = 0;  // ring position of digit 4g
        for (unsigned g = 0; g < ng; ++g) {
            u64 bl[H], rl[H];
#pragma unroll
            for (unsigned t = 0; t < H; ++t) {
                bl[t] = pb[t];
                rl[t] = pr[t];
            }
#pragma unroll
            for (int t = 0; t + H < H * PF; ++t) {
                pb[t] = pb[t + H];
                pr[t] = pr[t + H];
            }
            const unsigned kf = H * (g + PF);
#pragma unroll
            for (unsigned t = 0; t < H; ++t) {
                pb[H * PF - H + t] = kf + t < lb ? b[(u64)(kf + t) * n + i] : 0;
                pr[H * PF - H + t] = c > 0 && kf + t < lb ? r[(u64)(o0 + kf + t) * n + i] : 0;
            }
            // The group's digits go to positions w .. w + E − 1 (w + E ≤ M: no wrap) and their
            // mirrors: constant offsets from one address (indexing yr by the unsigned w + k made
            // ptxas form each of the 2E addresses apart, ≈ 30 instructions a group).
            u32* const st = yr + w * NT;
#pragma unroll
            for (unsigned t = 0; t < H; ++t) {
                nzb |= bl[t];
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const u32 v = (u32)(bl[t] >> (32 * e));
                    st[(2 * t + e) * NT] = v;
                    st[(2 * t + e + ZW_M) * NT] = v;
                }
            }
            // Window: position s + k holds digit d − 2CW + 1 + k, k = 0 .. 2CW + E − 2.
            const unsigned s = w + E + 1 < ZW_M ? w + E + 1 : w + E + 1 - ZW_M;
            const u32* const win = yr + s * NT;
            w = w + E < ZW_M ? w + E : 0;
            const unsigned d = E * g;
            // Blocks j with a digit of x (j < jx), some y index ≥ 0 (4j ≤ d + E − 1) and some < 2lb
            // (d − 4j − 3 < 2lb).
            const unsigned jlo = d + 1 > 2 * lb ? (d + 1 - 2 * lb) / 4 : 0;
            const unsigned jhi = (d + E - 1) / 4 < jx - 1 ? (d + E - 1) / 4 : jx - 1;
            u32 l[E], m[E], h[E];
#pragma unroll
            for (unsigned e = 0; e < E; ++e) l[e] = m[e] = h[e] = 0;
            l[0] = (u32)carry;
            m[0] = (u32)(carry >> 32);
            // Block j, digit p = 4j + f, column d + e: y_(d+e−p) = win[2CW − 1 + e − 4j − f]
            // = yw[e − f + 3] with yw[k] = win[2CW − 4 − 4j + k]; consecutive blocks share E − 1 of
            // these (block j + 1's yw[4..E+2] are block j's yw[0..E−2]). Groups that need every block
            // run them unconditionally; the ragged ones run the units of ZW_U blocks that meet
            // [jlo, jhi] (a unit's extra blocks multiply zeros: digits of x above the chunk, ring
            // entries outside b): a test per block makes ptxas copy the accumulators at every
            // join, ≈ 12 moves per 16 products.
            u32 yw[E + 3];
#define ZW_LOAD(j, k) yw[k] = win[(2 * CW - 4 - 4 * (j) + (k)) * NT]
#define ZW_BLOCK(j, first)                                                          \
            _Pragma("unroll") for (int k = E + 2; k >= 4; --k) {                    \
                if (first) ZW_LOAD(j, k);                                           \
                else yw[k] = yw[k - 4];                                             \
            }                                                                       \
            _Pragma("unroll") for (int k = 0; k < 4; ++k) ZW_LOAD(j, k);            \
            _Pragma("unroll") for (int f = 3; f >= 0; --f)                          \
                _Pragma("unroll") for (int e = 0; e < (int)E; ++e) mac32(x[4 * (j) + f], yw[e - f + 3], l[e], m[e], h[e]);
            constexpr int JB = 2 * CW / 4;
            if (jlo == 0 && jhi == JB - 1) {
#pragma unroll
                for (int j = 0; j < JB; ++j) {
                    ZW_BLOCK(j, j == 0)
                }
            } else {
                const unsigned ulo = jlo / ZW_U, uhi = jhi / ZW_U;
#pragma unroll
                for (int u = 0; u * ZW_U < JB; ++u) {
                    if ((unsigned)u < ulo || (unsigned)u > uhi) continue;
#pragma unroll
                    for (int j = u * ZW_U; j < (u + 1) * ZW_U && j < JB; ++j) {
                        ZW_BLOCK(j, j > u * ZW_U ? false : (unsigned)u == ulo)
                    }
                }
            }
#undef ZW_LOAD
#undef ZW_BLOCK
            // The partial result's digits, then the columns' carries in order: digit d + e is
            // final once column d + e − 1's carry is in.
#pragma unroll
            for (unsigned e = 0; e < E; ++e) add64((u32)(rl[e / 2] >> (32 * (e % 2))), l[e], m[e], h[e]);
#pragma unroll
            for (unsigned e = 1; e < E; ++e) add64((u64)m[e - 1] | (u64)h[e - 1] << 32, l[e], m[e], h[e]);
            carry = (u64)m[E - 1] | (u64)h[E - 1] << 32;
            const unsigned k = o0 + H * g;
#pragma unroll
            for (unsigned t = 0; t < H; ++t)
                if (k + t < lr) r[(u64)(k + t) * n + i] = (u64)l[2 * t] | (u64)l[2 * t + 1] << 32;
        }
        top = o0 + H * ng;
    }
    for (unsigned k = top; k < lr; ++k) r[(u64)k * n + i] = 0;
    rs[i] = ((as[i] != 0) ^ (bs[i] != 0)) & (nza != 0) & (nzb != 0);
}
#endif  // CW
