// Modular multiplication and exponentiation on batches of n signed integers in word-major layout
// (as kernels/zvec.cu: limb j of element i at x[j n + i], sign byte s[i]) for one odd modulus m > 1
// shared by the batch, one thread per element, in Montgomery arithmetic with R = 2^(64 L): m is
// padded with zero limbs to the L limbs of the specialisation (R > m and gcd(R, m) = 1 is all REDC
// needs), M' = −m^(−1) mod 2^64.
//
// mont(a, b) = a·b·R^(−1) mod m by CIOS (Koç, Acar, Kaliski 1996, coarsely integrated operand
// scanning): for each limb a_i, t ← (t + a_i·b + q·m)/2^64 with q = (t_0 + a_i b_0)·M' mod 2^64.
// With a < R and b < m, t < 2m after every row, so one conditional subtraction makes the result
// canonical. Rows are a loop (one limb of a read per row, from any memory); b, t and m are indexed
// by unrolled constants, so b and t stay in registers and m (a kernel parameter) in the constant bank.
//
// Reduction of an input x of any size and sign: with chunks x_k of L limbs (x = Σ x_k R^k) and the
// host's table pw[k] = R^(k+1) mod m, Σ_k mont(x_k, pw[k + f]) = x·R^f mod m (f = 0: plain value,
// f = 1: Montgomery form), then m − v for a negative x with v ≠ 0.
//
// Carries: the 64×64 multiply-add (hi:lo) = x·y + t + c (never above 2^128 − 1) is one
// self-contained inline-asm statement on 32-bit halves (no carry flag crosses statements); the rest
// is plain 64-bit C (a sum carries iff it is below an addend).
//
// Defines: L (limbs of the padded modulus), NT (threads per block), ZM_W (powm's window bits, 1..6),
// ZM_MUL2 (1: mulmod of operands of at most L limbs by two Montgomery products instead of three),
// ZM_SQR (1: powm squares by mont_sqr, 1.5L² + L/2 multiply-adds; 0: by mont, 2L² + L).
#ifndef L
#define L 4
#endif
#ifndef NT
#define NT 128
#endif
#ifndef ZM_W
#define ZM_W 4
#endif
#ifndef ZM_SQR
#define ZM_SQR 0
#endif
#ifndef ZM_MUL2
#define ZM_MUL2 0
#endif

// The modulus as a kernel parameter (constant bank): M' and the L limbs of m.
struct Mod {
    u64 minv;
    u64 m[L];
};

// Returns the low word of x·y + t + c and sets c to the high word.
__device__ __forceinline__ u64 madd(u64 x, u64 y, u64 t, u64& c) {
#if defined(__CUDA_ARCH__) && !defined(ZMOD_PORTABLE)
    u64 lo, hi;
    // d = t; d += x0·y0 + x1·y1·2^64 (one chain), x0·y1·2^32, x1·y0·2^32, then c. Every partial
    // sum is at most the final one (≤ 2^128 − 1), so no carry leaves d3.
    asm volatile(
        "{\n\t.reg .u32 x0, x1, y0, y1, c0, c1, d0, d1, d2, d3;\n\t"
        "mov.b64 {x0, x1}, %2;\n\t"
        "mov.b64 {y0, y1}, %3;\n\t"
        "mov.b64 {d0, d1}, %4;\n\t"
        "mov.b64 {c0, c1}, %5;\n\t"
        "mov.u32 d2, 0;\n\t"
        "mov.u32 d3, 0;\n\t"
        "mad.lo.cc.u32 d0, x0, y0, d0;\n\t"
        "madc.hi.cc.u32 d1, x0, y0, d1;\n\t"
        "madc.lo.cc.u32 d2, x1, y1, d2;\n\t"
        "madc.hi.u32 d3, x1, y1, d3;\n\t"
        "mad.lo.cc.u32 d1, x0, y1, d1;\n\t"
        "madc.hi.cc.u32 d2, x0, y1, d2;\n\t"
        "addc.u32 d3, d3, 0;\n\t"
        "mad.lo.cc.u32 d1, x1, y0, d1;\n\t"
        "madc.hi.cc.u32 d2, x1, y0, d2;\n\t"
        "addc.u32 d3, d3, 0;\n\t"
        "add.cc.u32 d0, d0, c0;\n\t"
        "addc.cc.u32 d1, d1, c1;\n\t"
        "addc.cc.u32 d2, d2, 0;\n\t"
        "addc.u32 d3, d3, 0;\n\t"
        "mov.b64 %0, {d0, d1};\n\t"
        "mov.b64 %1, {d2, d3};\n\t"
        "}"
        : "=l"(lo), "=l"(hi)
        : "l"(x), "l"(y), "l"(t), "l"(c));
    c = hi;
    return lo;
#else
    u64 lo = x * y, hi = __umul64hi(x, y);
    lo += t;
    hi += lo < t;
    lo += c;
    hi += lo < c;
    c = hi;
    return lo;
#endif
}

// t ← t − m when top ≠ 0 or t ≥ m (t + top·R < 2m), so that t ∈ [0, m).
__device__ __forceinline__ void sub_if_ge(u64 (&t)[L], u64 top, const Mod& P) {
    u64 s[L], br = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) {
        u64 d = t[j] - P.m[j], b1 = t[j] < P.m[j];
        s[j] = d - br;
        br = b1 | (d < br);
    }
    const bool ge = top != 0 || br == 0;
#pragma unroll
    for (int j = 0; j < L; ++j) t[j] = ge ? s[j] : t[j];
}

// r = a·b·R^(−1) mod m ∈ [0, m), for a < R (limbs a[i·stride], i < la, zero above) and b < m;
// r may be b. For b < R only, every row keeps t < R + m and the result is ≡ a·b·R^(−1) and < R.
__device__ __forceinline__ void mont(u64 (&r)[L], const u64* a, u64 stride, unsigned la, const u64 (&b)[L], const Mod& P) {
    u64 t[L], top = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) t[j] = 0;
#pragma unroll 1
    for (unsigned i = 0; i < L; ++i) {
        const u64 ai = i < la ? a[i * stride] : 0;
        u64 c = 0;
#pragma unroll
        for (int j = 0; j < L; ++j) t[j] = madd(ai, b[j], t[j], c);
        u64 hi = top + c, t2 = hi < c;
        const u64 q = t[0] * P.minv;
        c = 0;
        (void)madd(q, P.m[0], t[0], c);  // the low word becomes 0
#pragma unroll
        for (int j = 1; j < L; ++j) t[j - 1] = madd(q, P.m[j], t[j], c);
        t[L - 1] = hi + c;
        top = t2 + (t[L - 1] < c);
    }
    sub_if_ge(t, top, P);
#pragma unroll
    for (int j = 0; j < L; ++j) r[j] = t[j];
}

// r = a²·R^(−1) mod m ∈ [0, m) for a < m (r may be a), by separated operand scanning (SOS, Koç,
// Acar, Kaliski 1996, with the squaring's symmetric products formed once): the square
// t = a² as twice the off-diagonal products Σ_(i<j) a_i a_j 2^(64(i+j)) (L(L−1)/2 multiply-adds,
// unrolled) plus the diagonal (L), then REDC of its low half u = (t_low + Q m)/R ≤ m (L rows of
// L multiply-adds, a loop as in mont) and r = u + t_high < 2m (t_high ≤ a²/R < m), one conditional
// subtraction. 1.5L² + L/2 multiply-adds against mont's 2L² + L.
__device__ __forceinline__ void mont_sqr(u64 (&r)[L], const u64 (&a)[L], const Mod& P) {
    u64 t[2 * L];
#pragma unroll
    for (int k = 0; k < 2 * L; ++k) t[k] = 0;
#pragma unroll
    for (int i = 0; i + 1 < L; ++i) {
        u64 c = 0;
#pragma unroll
        for (int j = i + 1; j < L; ++j) t[i + j] = madd(a[i], a[j], t[i + j], c);
        t[i + L] = c;  // row i − 1 wrote up to t[i + L − 1]
    }
    // 2·(off-diagonal sum) < a² < 2^(128 L): the shift loses no bit.
#pragma unroll
    for (int k = 2 * L - 1; k > 0; --k) t[k] = t[k] << 1 | t[k - 1] >> 63;
    t[0] <<= 1;
    u64 cy = 0;
#pragma unroll
    for (int i = 0; i < L; ++i) {
        u64 c = cy;
        t[2 * i] = madd(a[i], a[i], t[2 * i], c);
        const u64 s = t[2 * i + 1] + c;
        cy = s < c;
        t[2 * i + 1] = s;
    }
    // REDC of the low half: w ← (w + ex·R + q m)/2^64 (w < 2R throughout: ex is its top bit).
    u64 w[L], ex = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) w[j] = t[j];
#pragma unroll 1
    for (int i = 0; i < L; ++i) {
        const u64 q = w[0] * P.minv;
        u64 c = 0;
        (void)madd(q, P.m[0], w[0], c);  // the low word becomes 0
#pragma unroll
        for (int j = 1; j < L; ++j) w[j - 1] = madd(q, P.m[j], w[j], c);
        w[L - 1] = c + ex;
        ex = w[L - 1] < c;
    }
    // r = u + t_high (< 2m), then one subtraction.
    u64 c = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) {
        const u64 s = w[j] + t[L + j], c1 = s < w[j];
        w[j] = s + c;
        c = c1 | (w[j] < c);
    }
    sub_if_ge(w, c | ex, P);
#pragma unroll
    for (int j = 0; j < L; ++j) r[j] = w[j];
}

// v = (x + y) mod m for x, y < m (into x).
__device__ __forceinline__ void addmod(u64 (&x)[L], const u64 (&y)[L], const Mod& P) {
    u64 c = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) {
        u64 s = x[j] + y[j], c1 = s < x[j];
        x[j] = s + c;
        c = c1 | (x[j] < c);
    }
    sub_if_ge(x, c, P);
}

// v ← (m − v) mod m for v < m.
__device__ __forceinline__ void negmod(u64 (&v)[L], const Mod& P) {
    u64 nz = 0, br = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) nz |= v[j];
#pragma unroll
    for (int j = 0; j < L; ++j) {
        u64 d = P.m[j] - v[j], b1 = P.m[j] < v[j];
        u64 s = d - br;
        br = b1 | (d < br);
        v[j] = nz ? s : 0;
    }
}

// v = x·R^f mod m for the element at x (lx limbs, stride n) with sign neg (see the top).
__device__ __forceinline__ void reduce(u64 (&v)[L], const u64* x, u64 n, unsigned lx, bool neg, unsigned f,
                                       const u64* __restrict__ pw, const Mod& P) {
#pragma unroll
    for (int j = 0; j < L; ++j) v[j] = 0;
    const unsigned nk = (lx + L - 1) / L;
#pragma unroll 1
    for (unsigned k = 0; k < nk; ++k) {
        u64 w[L];
#pragma unroll
        for (int j = 0; j < L; ++j) w[j] = pw[(u64)(k + f) * L + j];
        const unsigned lk = lx - k * L < L ? lx - k * L : L;
        mont(w, x + (u64)k * L * n, n, lk, w, P);
        addmod(v, w, P);
    }
    if (neg) negmod(v, P);
}

// Writes v (< m) as element i of r (lr limbs, the top one holding rtop bits, 0: all 64), sign 0;
// sets *flag bit 1 when it does not fit.
__device__ __forceinline__ void store(u64* __restrict__ r, u8* __restrict__ rs, u64 n, u64 i, unsigned lr, unsigned rtop,
                                      const u64 (&v)[L], unsigned* __restrict__ flag) {
    u64 over = 0;
#pragma unroll
    for (int j = 0; j < L; ++j) {
        if ((unsigned)j < lr) r[(u64)j * n + i] = v[j];
        else over |= v[j];
        if ((unsigned)j + 1 == lr && rtop != 0) over |= v[j] >> rtop;
    }
    for (unsigned j = L; j < lr; ++j) r[(u64)j * n + i] = 0;
    rs[i] = 0;
    if (over) atomicOr(flag, 1u);
}

// r = a·b mod m: mont(a·R mod m, b mod m), three Montgomery products (6L² + 3L multiply-adds); with
// ZM_MUL2 and operands of at most L limbs two (4L² + 2L).
extern "C" __global__ void __launch_bounds__(NT) zm_mulmod(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ a, const u8* __restrict__ as,
    const u64* __restrict__ b, const u8* __restrict__ bs, u64 n, unsigned la, unsigned lb, unsigned lr,
    unsigned rtop, const u64* __restrict__ pw, const Mod P, unsigned* __restrict__ flag)
{
    const u64 i = (u64)blockIdx.x * NT + threadIdx.x;
    if (i >= n) return;
    u64 x[L], y[L];
#if ZM_MUL2
    if (la <= L && lb <= L) {
        // |a|·|b| = mont(mont(|a|, |b|), R² mod m): the inner product of operands below R is below R
        // (t < R + m in every row, one subtraction), enough for the outer one, whose b = R² mod m < m
        // makes it canonical; then the sign.
#pragma unroll
        for (int j = 0; j < L; ++j) y[j] = (unsigned)j < lb ? b[(u64)j * n + i] : 0;
        mont(x, a + i, n, la, y, P);
#pragma unroll
        for (int j = 0; j < L; ++j) y[j] = pw[L + j];
        mont(y, x, 1, L, y, P);
        if ((as[i] != 0) != (bs[i] != 0)) negmod(y, P);
        store(r, rs, n, i, lr, rtop, y, flag);
        return;
    }
#endif
    reduce(x, a + i, n, la, as[i] != 0, 1, pw, P);
    reduce(y, b + i, n, lb, bs[i] != 0, 0, pw, P);
    mont(y, x, 1, L, y, P);
    store(r, rs, n, i, lr, rtop, y, flag);
}

// Bits p .. p + k − 1 (k ≤ ZM_W) of element i's exponent (limbs 0 .. top, word-major, stride n).
__device__ __forceinline__ unsigned ebits(const u64* __restrict__ e, u64 n, u64 i, int top, int p, int k) {
    const int q = p / 64, o = p % 64;
    u64 v = e[(u64)q * n + i] >> o;
    if (o + k > 64 && q < top) v |= e[(u64)(q + 1) * n + i] << (64 - o);
    return (unsigned)(v & ((1u << k) - 1));
}

// r = base^e mod m (e ≥ 0; a negative e sets *flag bit 2): left-to-right fixed windows of ZM_W bits
// aligned at the exponent's bottom bit (the first, from its top set bit, holds the remaining 1 ..
// ZM_W bits and loads T[w]), with the table T[w] = base^w·R mod m (w < 2^ZM_W) in local memory.
// Montgomery products for a b-bit exponent: b − 1 squarings (mont_sqr with ZM_SQR), at most
// ⌈b/ZM_W⌉ − 1 window products, 2^ZM_W − 2 table products, the entry of the base (⌈lb/L⌉) and the
// exit; so with ZM_SQR, b = 64L and ZM_W = w, about 64L(1.5L² + L/2) + (64L/w + 2^w)(2L² + L)
// 64×64 multiply-adds: 1024 bits, w = 5: 4.01e5 + 1.25e5 = 5.27e5, against 6.84e5 for CIOS squares
// with w = 4 (0.77×); 2048 bits: 3.18e6 + 0.92e6 = 4.10e6 against 5.36e6 (0.77×). At the H100's
// 1.79e12 64×64 multiply-adds/s that bounds the rate by 3.40e6 powm/s at 1024 bits, 4.37e5 at 2048.
extern "C" __global__ void __launch_bounds__(NT) zm_powm(
    u64* __restrict__ r, u8* __restrict__ rs, const u64* __restrict__ base, const u8* __restrict__ bsg,
    const u64* __restrict__ e, const u8* __restrict__ es, u64 n, unsigned lb, unsigned le, unsigned lr,
    unsigned rtop, const u64* __restrict__ pw, const Mod P, unsigned* __restrict__ flag)
{
    const u64 i = (u64)blockIdx.x * NT + threadIdx.x;
    if (i >= n) return;
    if (es[i]) atomicOr(flag, 2u);
    constexpr int TW = 1 << ZM_W;
    u64 tab[TW][L], acc[L];
#pragma unroll
    for (int j = 0; j < L; ++j) tab[0][j] = pw[j];  // R mod m: 1 in Montgomery form
    reduce(acc, base + i, n, lb, bsg[i] != 0, 1, pw, P);
#pragma unroll
    for (int j = 0; j < L; ++j) tab[1][j] = acc[j];
#pragma unroll 1
    for (int w = 2; w < TW; ++w) {
        mont(acc, tab[1], 1, L, acc, P);
#pragma unroll
        for (int j = 0; j < L; ++j) tab[w][j] = acc[j];
    }
    int top = (int)le - 1;
    while (top >= 0 && e[(u64)top * n + i] == 0) --top;
#pragma unroll
    for (int j = 0; j < L; ++j) acc[j] = tab[0][j];
    if (top >= 0) {
        const int nbits = 64 * top + 64 - __clzll(e[(u64)top * n + i]);
        int p = nbits - ((nbits - 1) % ZM_W + 1);
        const unsigned w0 = ebits(e, n, i, top, p, nbits - p);
#pragma unroll
        for (int j = 0; j < L; ++j) acc[j] = tab[w0][j];
#pragma unroll 1
        while (p > 0) {
            p -= ZM_W;
            const unsigned w = ebits(e, n, i, top, p, ZM_W);
#pragma unroll 1
            for (int q = 0; q < ZM_W; ++q) {
#if ZM_SQR
                mont_sqr(acc, acc, P);
#else
                u64 sq[L];
#pragma unroll
                for (int j = 0; j < L; ++j) sq[j] = acc[j];
                mont(acc, sq, 1, L, acc, P);
#endif
            }
            if (w) mont(acc, tab[w], 1, L, acc, P);
        }
    }
    u64 one[L];
#pragma unroll
    for (int j = 0; j < L; ++j) one[j] = j == 0;
    mont(acc, one, 1, L, acc, P);
    store(r, rs, n, i, lr, rtop, acc, flag);
}
