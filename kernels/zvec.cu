// Element-wise arithmetic on batches of n signed integers in word-major layout (gpmp_zvec on the
// device): limb j (64 bits, least significant first) of element i at x[j n + i], so that the
// threads of a warp, one element each, read and write consecutive words; sign (0 or 1) at s[i].
// Zero always has sign 0. Outputs are fresh buffers, never an input (the host swaps them in).
//
// Carries are plain 64-bit C (no inline-asm carry chains across statements, whose flag dependency
// the compiler cannot see): a sum s = u + v carries iff s < u; with a carry-in c ∈ {0, 1}, cout =
// (u + v < u) | (u + v + c < c). A product's high word is at most 2^64 − 2, so it absorbs one
// carry. The product's multiply-accumulate is one self-contained asm statement (see mac).
//
// Defines: C (limbs of the register product: operands of at most C limbs each are multiplied
// with both in registers and every loop unrolled; larger ones in chunks of C limbs of a against a
// sliding window of C limbs of b), NT (threads per block).
#ifndef C
#define C 4
#endif
#ifndef NT
#define NT 128
#endif

typedef unsigned long long u64;
typedef unsigned char u8;

// (c2:c1:c0) += x·y, c2 < 2^32. On the device as one inline-asm statement on 32-bit halves
// (x = x1·2^32 + x0, y likewise; the 160-bit accumulator as digits d0..d4): the carry flag lives
// only inside the statement, so no compiler reordering can separate a carry from its use. It adds
// x0·y0 + x1·y1·2^64 in one chain, then x0·y1·2^32 and x1·y0·2^32 (13 instructions, against
// about 18 for the portable form below, which a host compiler, as in tests/zvec_kernels, or the
// define ZVEC_PORTABLE selects).
__device__ __forceinline__ void mac(u64 x, u64 y, u64& c0, u64& c1, u64& c2) {
#if defined(__CUDA_ARCH__) && !defined(ZVEC_PORTABLE)
    asm volatile(
        "{\n\t.reg .u32 x0, x1, y0, y1, d0, d1, d2, d3, d4;\n\t"
        "mov.b64 {x0, x1}, %3;\n\t"
        "mov.b64 {y0, y1}, %4;\n\t"
        "mov.b64 {d0, d1}, %0;\n\t"
        "mov.b64 {d2, d3}, %1;\n\t"
        "cvt.u32.u64 d4, %2;\n\t"
        "mad.lo.cc.u32 d0, x0, y0, d0;\n\t"
        "madc.hi.cc.u32 d1, x0, y0, d1;\n\t"
        "madc.lo.cc.u32 d2, x1, y1, d2;\n\t"
        "madc.hi.cc.u32 d3, x1, y1, d3;\n\t"
        "addc.u32 d4, d4, 0;\n\t"
        "mad.lo.cc.u32 d1, x0, y1, d1;\n\t"
        "madc.hi.cc.u32 d2, x0, y1, d2;\n\t"
        "addc.cc.u32 d3, d3, 0;\n\t"
        "addc.u32 d4, d4, 0;\n\t"
        "mad.lo.cc.u32 d1, x1, y0, d1;\n\t"
        "madc.hi.cc.u32 d2, x1, y0, d2;\n\t"
        "addc.cc.u32 d3, d3, 0;\n\t"
        "addc.u32 d4, d4, 0;\n\t"
        "mov.b64 %0, {d0, d1};\n\t"
        "mov.b64 %1, {d2, d3};\n\t"
        "cvt.u64.u32 %2, d4;\n\t"
        "}"
        : "+l"(c0), "+l"(c1), "+l"(c2)
        : "l"(x), "l"(y));
#else
    u64 lo = x * y, hi = __umul64hi(x, y);
    c0 += lo;
    hi += c0 < lo;
    c1 += hi;
    c2 += c1 < hi;
#endif
}

// (c2:c1:c0) += (e2:e1:e0), when the sum fits (columns are split over two accumulators so that
// consecutive multiply-accumulates do not wait on each other's carries).
__device__ __forceinline__ void merge(u64& c0, u64& c1, u64& c2, u64 e0, u64 e1, u64 e2) {
    c0 += e0;
    u64 t = c0 < e0;
    c1 += t;
    c2 += c1 < t;
    c1 += e1;
    c2 += (c1 < e1) + e2;
}

// r = a ± b (sub = 0 or 1) for r of lr limbs whose top limb holds rtop bits (0: all 64). An
// element whose result does not fit sets *flag (and leaves its slot partly written). With signs
// (−1)^sa |a| and (−1)^sb |b| (sb flipped for a difference): equal signs add magnitudes; otherwise
// the smaller magnitude (compared from the top limb) is subtracted from the larger, whose sign
// the result takes.
extern "C" __global__ void __launch_bounds__(NT) zv_addsub(
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

// r = a·b for r of lr limbs, where the product is known to fit (the host checks capacities):
// product scanning, column k = Σ a_j b_(k−j) in a three-word accumulator.
extern "C" __global__ void __launch_bounds__(NT) zv_mul(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ a, const u8* __restrict__ as,
    const u64* __restrict__ b, const u8* __restrict__ bs, u64 n, unsigned la, unsigned lb,
    unsigned lr)
{
    const u64 i = (u64)blockIdx.x * NT + threadIdx.x;
    if (i >= n) return;
    u64 nza = 0, nzb = 0;
    if (la <= C && lb <= C) {
        // Both operands in registers, C×C products unrolled.
        u64 x[C], y[C];
#pragma unroll
        for (unsigned j = 0; j < C; ++j) {
            x[j] = j < la ? a[j * n + i] : 0;
            y[j] = j < lb ? b[j * n + i] : 0;
            nza |= x[j];
            nzb |= y[j];
        }
        u64 c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
        for (int k = 0; k < 2 * C; ++k) {
            u64 e0 = 0, e1 = 0, e2 = 0;
#pragma unroll
            for (int j = 0; j < C; ++j) {
                if (k - j < 0 || k - j >= C) continue;
                if (j & 1) mac(x[j], y[k - j], e0, e1, e2);
                else mac(x[j], y[k - j], c0, c1, c2);
            }
            merge(c0, c1, c2, e0, e1, e2);
            if ((unsigned)k < lr) r[(u64)k * n + i] = c0;
            c0 = c1; c1 = c2; c2 = 0;
        }
        for (unsigned k = 2 * C; k < lr; ++k) r[k * n + i] = 0;
    } else {
        // Chunk c of a (limbs cC .. cC + C − 1, in registers) times b: columns o = cC + k, with
        // w[j] = b_(k−j) sliding in one limb of b per column, added to what the earlier chunks left
        // in r (limbs below cC + lb). The running sum a_low·b ≤ a·b fits in lr limbs, so columns
        // from lr on are zero and skipped.
        const unsigned nch = (la + C - 1) / C;
        for (unsigned c = 0; c < nch; ++c) {
            u64 x[C], w[C];
#pragma unroll
            for (unsigned j = 0; j < C; ++j) {
                unsigned aj = c * C + j;
                x[j] = aj < la ? a[(u64)aj * n + i] : 0;
                nza |= x[j];
                w[j] = 0;
            }
            const unsigned o0 = c * C;
            const unsigned end = o0 + C + lb < lr ? o0 + C + lb : lr;
            u64 c0 = 0, c1 = 0, c2 = 0;
            for (unsigned o = o0; o < end; ++o) {
                const unsigned k = o - o0;
#pragma unroll
                for (int j = C - 1; j > 0; --j) w[j] = w[j - 1];
                w[0] = k < lb ? b[(u64)k * n + i] : 0;
                nzb |= w[0];
                if (c > 0 && k < lb) {
                    u64 t = r[(u64)o * n + i];
                    c0 += t;
                    u64 cc = c0 < t;
                    c1 += cc;
                    c2 += c1 < cc;
                }
                u64 e0 = 0, e1 = 0, e2 = 0;
#pragma unroll
                for (int j = 0; j < C; ++j) {
                    if (j & 1) mac(x[j], w[j], e0, e1, e2);
                    else mac(x[j], w[j], c0, c1, c2);
                }
                merge(c0, c1, c2, e0, e1, e2);
                r[(u64)o * n + i] = c0;
                c0 = c1; c1 = c2; c2 = 0;
            }
        }
        const unsigned hi = nch == 0 ? 0 : nch * C + lb < lr ? nch * C + lb : lr;
        for (unsigned k = hi; k < lr; ++k) r[(u64)k * n + i] = 0;
    }
    rs[i] = ((as[i] != 0) ^ (bs[i] != 0)) & (nza != 0) & (nzb != 0);
}
