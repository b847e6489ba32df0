// Generalized Fermat prime field Z/pZ, p = r^k + 1, on the GPU (Mohajerani 2021 Ch. 2; Chen,
// Covanov, Mohajerani, Moreno Maza, ISSAC 2017). One thread owns
// one element: its k radix-r digits in registers (least significant first). Canonical digit
// vectors only: every digit < r, or the special form x_{k-1} = r, others 0, for r^k = -1 = p - 1.
// Since canonical vectors are unique, any correct computation gives the CPU's words bit for bit.
//
// - add/sub: Algorithm 2 with u64 carry-out (r may exceed 2^63) and the z_k = 2 erratum handled
//   by the special-form cases; a carry (borrow) out of the top digit is worth r^k = -1.
// - mul: the negacyclic product u_j = sum_{i<=j} x_i y_{j-i} - sum_{i>j} x_i y_{k+j-i} in 192-bit
//   accumulators (|u_j| < k r^2, signed: erratum to Alg. 3), then a signed carry propagation in
//   radix r by floor division (Moller-Granlund reciprocal of the normalized r); the final carry c
//   is worth -c.
// - shift_add: a +- b r^s (0 <= s < 2k) in one pass: b r^s is b rotated by s mod k with the
//   wrapped digits negated (all negated again when s >= k), added as signed digits with carries
//   in {-1, 0, 1} (the fused shift-only butterfly of DFT_K).
// - gfpf_stage: one radix-M Stockham stage of the FFT over N elements (M = 2^logm <= min(2k, 32)):
//     v_t = in[j + t N/M] * T[(j mod Ns) M + t]        (t < M; T the stage's twiddle table)
//     V   = DFT_M(v) at root r^ts                       (shift-only, radix-2 DIT across M lanes)
//     out[(j div Ns) Ns M + (j mod Ns) + q Ns] = V_q    (q < M)
//   Data are digit-major between stages (digit d of element i at d N + i, coalesced); the first
//   stage reads and the last writes with the caller's strides. A block of G groups stages its
//   k x (G M) tile through shared memory so that global loads and stores are coalesced; the DFT_M
//   butterflies exchange partners by warp shuffles.
// - gfpf_binary: z = x op y elementwise (add, sub, mul), any strides.
//
// Defines: KD (k), LOGK (log2 k), R_HI/R_LO (r), V_HI/V_LO (v = floor((2^128-1)/d) - 2^64 for the
// normalized d = r 2^SH), SH (leading zeros of r).
#ifndef KD
#define KD 8
#define LOGK 3
#define R_HI 2147483652u
#define R_LO 0u
#define V_HI 4294967280u
#define V_LO 127u
#define SH 0
#endif

typedef unsigned __int128 u128;
typedef __int128 i128;

#define R ((((u64)(R_HI)) << 32) | (u64)(R_LO))
#define RV ((((u64)(V_HI)) << 32) | (u64)(V_LO))
#define RD (R << SH)
#define K2 (2 * KD)
#if KD <= 32
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("unroll 1")
#endif

__device__ __forceinline__ bool is_m1(const u64* x) {
    bool m = x[KD - 1] == R;
    UNROLL for (int j = 0; j < KD - 1; ++j) m &= x[j] == 0;
    return m;
}

__device__ __forceinline__ bool is_zero(const u64* x) {
    bool z = true;
    UNROLL for (int j = 0; j < KD; ++j) z &= x[j] == 0;
    return z;
}

__device__ __forceinline__ void set_m1(u64* z) {
    UNROLL for (int j = 0; j < KD; ++j) z[j] = 0;
    z[KD - 1] = R;
}

// z += 1 for z canonical, not -1 (a carry out of r^k - 1 gives -1).
__device__ __forceinline__ void inc_plain(u64* z) {
    bool c = true;
    UNROLL for (int j = 0; j < KD; ++j) {
        u64 s = z[j] + (u64)c;  // <= r
        c = s == R;
        z[j] = c ? 0 : s;
    }
    if (c) set_m1(z);
}

// z -= 1 for z canonical, not -1 (0 - 1 = -1).
__device__ __forceinline__ void dec_plain(u64* z) {
    if (is_zero(z)) { set_m1(z); return; }
    bool b = true;
    UNROLL for (int j = 0; j < KD; ++j) {
        bool nb = z[j] < (u64)b;
        z[j] = nb ? R - 1 : z[j] - (u64)b;
        b = nb;
    }
}

// z += w for z not -1 and w with digits < r.
__device__ __forceinline__ void add_plain(u64* z, const u64* w) {
    bool c = false;
    UNROLL for (int j = 0; j < KD; ++j) {
        u64 s = z[j] + w[j];
        bool o = s < w[j];
        u64 s2 = s + (u64)c;
        o |= s2 < s;
        c = o || s2 >= R;  // the true sum is < 2r: one subtraction of r (wrapping past 2^64)
        z[j] = c ? s2 - R : s2;
    }
    if (c) dec_plain(z);  // z + r^k = z - 1
}

// z -= w for z not -1 and w with digits < r.
__device__ __forceinline__ void sub_plain(u64* z, const u64* w) {
    bool b = false;
    UNROLL for (int j = 0; j < KD; ++j) {
        u64 s = z[j] - w[j];
        bool o = z[j] < w[j];
        u64 s2 = s - (u64)b;
        o |= s < (u64)b;
        b = o;
        z[j] = b ? s2 + R : s2;
    }
    if (b) inc_plain(z);  // z - w + r^k held; z - w + p wanted
}

// z <- -z.
__device__ __forceinline__ void neg_assign(u64* z) {
    if (is_m1(z)) {
        UNROLL for (int j = 0; j < KD; ++j) z[j] = 0;
        z[0] = 1;
    } else if (!is_zero(z)) {
        // p - z = (r^k - 1 - z) + 2
        UNROLL for (int j = 0; j < KD; ++j) z[j] = R - 1 - z[j];
        inc_plain(z);
        inc_plain(z);
    }
}

// z <- z + y (both canonical).
__device__ __forceinline__ void add_assign(u64* z, const u64* y) {
    bool mz = is_m1(z), my = is_m1(y);
    if (!mz && !my) {
        add_plain(z, y);
    } else if (mz && my) {
        UNROLL for (int j = 0; j < KD; ++j) z[j] = R - 1;  // -2 = r^k - 1
    } else if (my) {
        dec_plain(z);
    } else {
        UNROLL for (int j = 0; j < KD; ++j) z[j] = y[j];
        dec_plain(z);
    }
}

// z <- z - y (both canonical).
__device__ __forceinline__ void sub_assign(u64* z, const u64* y) {
    bool mz = is_m1(z), my = is_m1(y);
    if (!mz && !my) {
        sub_plain(z, y);
    } else if (mz && my) {
        UNROLL for (int j = 0; j < KD; ++j) z[j] = 0;
    } else if (my) {
        inc_plain(z);
    } else if (!is_zero(y)) {
        // -1 - y = (r^k - 1 - y) + 1, no carry out since y != 0
        UNROLL for (int j = 0; j < KD; ++j) z[j] = R - 1 - y[j];
        inc_plain(z);
    }
}

// (floor((u1 2^64 + u0) / d), remainder) for u1 < d, d = r 2^SH normalized.
__device__ __forceinline__ u64 div_2by1(u64 u1, u64 u0, u64* rem) {
    u128 q = (u128)RV * u1 + ((((u128)u1) << 64) | u0);
    u64 q1 = (u64)(q >> 64) + 1;
    u64 r = u0 - q1 * RD;
    u64 mask = r > (u64)q ? ~0ull : 0ull;
    q1 += mask;
    r += mask & RD;
    if (r >= RD) { q1 += 1; r -= RD; }
    *rem = r;
    return q1;
}

// (floor(t / r), t mod r) for t = (t2, t1, t0) < 2^192 with a quotient below 2^128.
__device__ __forceinline__ u128 divmod3(u64 t0, u64 t1, u64 t2, u64* s) {
#if SH == 0
    u64 n3 = 0, n2 = t2, n1 = t1, n0 = t0;
#else
    u64 n3 = t2 >> (64 - SH), n2 = (t2 << SH) | (t1 >> (64 - SH));
    u64 n1 = (t1 << SH) | (t0 >> (64 - SH)), n0 = t0 << SH;
#endif
    u64 rem;
    if (n3 == 0 && n2 < RD) rem = n2;
    else div_2by1(n3, n2, &rem);
    u64 q1 = div_2by1(rem, n1, &rem);
    u64 q0 = div_2by1(rem, n0, &rem);
    *s = rem >> SH;
    return (((u128)q1) << 64) | q0;
}

// z <- z + c r^k = z - c for z with digits < r and a signed carry c.
__device__ void sub_carry(u64* z, i128 c) {
    if (c == 0) return;
    bool sub = c > 0;
    u128 m = sub ? (u128)c : (u128)(-c);
    u64 w[KD];
    if (m < (u128)R * R) {
        u64 s;
        u128 q = divmod3((u64)m, (u64)(m >> 64), 0, &s);
        UNROLL for (int j = 0; j < KD; ++j) w[j] = 0;
        w[0] = s;
        w[1] = (u64)q;
        if (sub) sub_plain(z, w); else add_plain(z, w);
        return;
    }
    // Tiny r: m = w + m' r^k with w < r^k, and m' r^k = -m' flips the operation.
    while (m != 0) {
        for (int j = 0; j < KD; ++j) {
            u64 s;
            m = divmod3((u64)m, (u64)(m >> 64), 0, &s);
            w[j] = s;
        }
        if (sub) sub_assign(z, w); else add_assign(z, w);
        sub = !sub;
    }
}

// Multiply-accumulate a b into the 192-bit (hi, mid, lo).
__device__ __forceinline__ void mac(u64& lo, u64& mid, u64& hi, u64 a, u64 b) {
#ifdef GPMP_EMULATE
    u128 p = (u128)a * b, s = (((u128)mid) << 64 | lo) + p;
    hi += s < p;
    lo = (u64)s;
    mid = (u64)(s >> 64);
#else
    asm("{\n\t.reg .u64 pl, ph;\n\t"
        "mul.lo.u64 pl, %3, %4;\n\t"
        "mul.hi.u64 ph, %3, %4;\n\t"
        "add.cc.u64 %0, %0, pl;\n\t"
        "addc.cc.u64 %1, %1, ph;\n\t"
        "addc.u64 %2, %2, 0;\n\t}"
        : "+l"(lo), "+l"(mid), "+l"(hi)
        : "l"(a), "l"(b));
#endif
}

// (t2, t1, t0) += (c2, c1, c0) mod 2^192.
__device__ __forceinline__ void add3(u64& t0, u64& t1, u64& t2, u64 c0, u64 c1, u64 c2) {
#ifdef GPMP_EMULATE
    u128 lo = (((u128)t1) << 64 | t0) + (((u128)c1) << 64 | c0);
    t2 += c2 + (lo < (((u128)c1) << 64 | c0));
    t0 = (u64)lo;
    t1 = (u64)(lo >> 64);
#else
    asm("add.cc.u64 %0, %0, %3;\n\t"
        "addc.cc.u64 %1, %1, %4;\n\t"
        "addc.u64 %2, %2, %5;"
        : "+l"(t0), "+l"(t1), "+l"(t2)
        : "l"(c0), "l"(c1), "l"(c2));
#endif
}

// z = x y (z distinct from x and y).
__device__ __forceinline__ void gmul(u64* z, const u64* x, const u64* y) {
    if (is_m1(x)) {
        UNROLL for (int j = 0; j < KD; ++j) z[j] = y[j];
        neg_assign(z);
        return;
    }
    if (is_m1(y)) {
        UNROLL for (int j = 0; j < KD; ++j) z[j] = x[j];
        neg_assign(z);
        return;
    }
    i128 carry = 0;
    UNROLL for (int j = 0; j < KD; ++j) {
        u64 p0 = 0, p1 = 0, p2 = 0, n0 = 0, n1 = 0, n2 = 0;
        UNROLL for (int i = 0; i <= j; ++i) mac(p0, p1, p2, x[i], y[j - i]);
        UNROLL for (int i = j + 1; i < KD; ++i) mac(n0, n1, n2, x[i], y[KD + j - i]);
        // t = pos - neg + carry + r 2^74 (in [0, r 2^75): floor division of the shifted value)
        u128 c = (u128)carry;
        u64 c2 = carry < 0 ? ~0ull : 0ull;
        u64 t0 = p0, t1 = p1, t2 = p2;
        add3(t0, t1, t2, ~n0, ~n1, ~n2);  // - neg = ~neg + 1
        add3(t0, t1, t2, 1, 0, 0);
        add3(t0, t1, t2, (u64)c, (u64)(c >> 64), c2);
        add3(t0, t1, t2, 0, R << 10, R >> 54);
        u64 s;
        u128 q = divmod3(t0, t1, t2, &s);
        z[j] = s;
        carry = (i128)q - (((i128)1) << 74);
    }
    sub_carry(z, carry);
}

// z = a + (-1)^minus b r^s for canonical a, b, not -1, and 0 <= s < 2k, in one pass of signed
// digits: T_j = b_{(j - s) mod k}, negated for j < s mod k, all negated when s >= k.
__device__ __forceinline__ void shift_add(u64* z, const u64* a, const u64* b, unsigned s, bool minus) {
    u64 v[KD];
    UNROLL for (int j = 0; j < KD; ++j) v[j] = b[j];
    const unsigned sl = s & (KD - 1);
    UNROLL for (int i = 0; i < LOGK; ++i) {  // barrel rotation by sl (no dynamic register index)
        const int d = 1 << i;
        const bool on = (sl >> i) & 1;
        u64 t[KD];
        UNROLL for (int j = 0; j < KD; ++j) t[j] = v[(j - d) & (KD - 1)];
        UNROLL for (int j = 0; j < KD; ++j) v[j] = on ? t[j] : v[j];
    }
    const bool neg = (s >= KD) != minus;
    // Digit j alone: a_j +- v_j in (-r, 2r) = d_j + c_j r with d_j < r, c_j in {-1, 0, 1}
    // (independent across digits); then the incoming carries ripple (d_j + c in [-1, r]).
    u64 d[KD];
    int cj[KD];
    UNROLL for (int j = 0; j < KD; ++j) {
        const bool sg = ((unsigned)j < sl) != neg;
        if (sg) {
            const bool b = a[j] < v[j];
            d[j] = a[j] - v[j] + (b ? R : 0);
            cj[j] = -(int)b;
        } else {
            const u64 t = a[j] + v[j];
            const bool o = t < a[j] || t >= R;  // the true sum is < 2r
            d[j] = t - (o ? R : 0);
            cj[j] = (int)o;
        }
    }
    int c = 0;
    UNROLL for (int j = 0; j < KD; ++j) {
        const bool up = c == 1 && d[j] == R - 1, dn = c == -1 && d[j] == 0;
        z[j] = up ? 0 : dn ? R - 1 : d[j] + (u64)(long long)c;
        c = cj[j] + (int)up - (int)dn;
    }
    if (c == 1) dec_plain(z);
    else if (c == -1) inc_plain(z);
}

// z = x r^s, 0 <= s < 2k.
__device__ __forceinline__ void mul_pow_r(u64* z, const u64* x, unsigned s) {
    if (is_m1(x)) {  // -r^s
        const unsigned sl = s & (KD - 1);
        UNROLL for (int j = 0; j < KD; ++j) z[j] = (unsigned)j == sl;
        if (s < KD) neg_assign(z);
        return;
    }
    u64 zero[KD];
    UNROLL for (int j = 0; j < KD; ++j) zero[j] = 0;
    shift_add(z, zero, x, s, false);
}

// One side of a butterfly: x <- a + b r^s (lower) or a - b r^s (upper), where the thread's own
// element x is b on the upper side and a on the lower, and p is the partner's.
__device__ __forceinline__ void half_butterfly(u64* x, const u64* p, bool upper, unsigned s) {
    u64 a[KD], b[KD];
    UNROLL for (int j = 0; j < KD; ++j) {
        a[j] = upper ? p[j] : x[j];
        b[j] = upper ? x[j] : p[j];
    }
    if (is_m1(a) || is_m1(b)) {
        u64 t[KD];
        mul_pow_r(t, b, s);
        UNROLL for (int j = 0; j < KD; ++j) x[j] = a[j];
        if (upper) sub_assign(x, t); else add_assign(x, t);
    } else {
        shift_add(x, a, b, s, upper);
    }
}

#ifndef GPMP_EMULATE  // (the host emulation, tests/gfpf_kernels, checks the arithmetic above)
// log2 of the power of two n.
__device__ __forceinline__ unsigned logn_of(u64 n) { return 63 - __clzll(n); }

// One radix-M Stockham stage (see the header). Block: G = 2^logg groups of M threads;
// dynamic shared memory KD G (M + 1) words. in/out: element i, digit d at i se + d sd. tw: the
// stage's table, digit-major with length twlen (0 when every factor is 1); `scaled`: the table
// holds no 1s to skip (the inverse's last stage carries 1/N). ts: DFT_M at root r^ts.
extern "C" __global__ void __launch_bounds__(256) gfpf_stage(
    const u64* __restrict__ in, u64* __restrict__ out, u64 n, unsigned logm, unsigned logns,
    unsigned logg, u64 in_se, u64 in_sd, u64 out_se, u64 out_sd, const u64* __restrict__ tw,
    u64 twlen, int scaled, unsigned ts)
{
    extern __shared__ u64 sh[];
    const unsigned M = 1u << logm, G = 1u << logg, W = M + 1, P = G * W;
    const u64 ns = 1ull << logns;
    const u64 j0 = (u64)blockIdx.x << logg;
    const unsigned e = threadIdx.x;  // every index below is a shift or mask (powers of two)

    // Load the tile: consecutive threads take consecutive groups j (consecutive addresses).
    {
        const unsigned g = e & (G - 1), t = e >> logg;
        const u64 idx = j0 + g + ((u64)t << (logn_of(n) - logm));
        const u64* src = in + idx * in_se;
        UNROLL for (int d = 0; d < KD; ++d) sh[d * P + g * W + t] = src[d * in_sd];
    }
    __syncthreads();

    const unsigned g = threadIdx.x >> logm, t = threadIdx.x & (M - 1);
    const unsigned tt = __brev(t) >> (32 - logm);  // DIT input in bit-reversed order
    u64 x[KD];
    UNROLL for (int d = 0; d < KD; ++d) x[d] = sh[d * P + g * W + tt];
    const u64 jp = (j0 + g) & (ns - 1);
    if (twlen != 0 && (scaled || (jp != 0 && tt != 0))) {
        u64 w[KD], z[KD];
        UNROLL for (int d = 0; d < KD; ++d) w[d] = tw[d * twlen + jp * M + tt];
        gmul(z, x, w);
        UNROLL for (int d = 0; d < KD; ++d) x[d] = z[d];
    }

    // DFT_M at root r^ts: radix-2 DIT, partners at lane distance h within the group.
    const unsigned B = G << logm, mask = B >= 32 ? 0xffffffffu : ((1u << B) - 1);
    for (unsigned lv = 0; lv < logm; ++lv) {
        const unsigned h = 1u << lv;
        u64 p[KD];
        UNROLL for (int d = 0; d < KD; ++d) p[d] = __shfl_xor_sync(mask, x[d], h);
        const unsigned s = (ts * (M >> (lv + 1)) * (t & (h - 1))) & (K2 - 1);
        half_butterfly(x, p, (t & h) != 0, s);
    }
    __syncthreads();
    UNROLL for (int d = 0; d < KD; ++d) sh[d * P + g * W + t] = x[d];
    __syncthreads();

    // Store: consecutive threads write consecutive addresses (runs of min(Ns, G) groups).
    {
        const unsigned loga = logns < logg ? logns : logg;
        const unsigned gg = ((e >> (loga + logm)) << loga) | (e & ((1u << loga) - 1));
        const unsigned q = (e >> loga) & (M - 1);
        const u64 j = j0 + gg;
        const u64 o = ((j >> logns) << (logns + logm)) + (j & (ns - 1)) + ((u64)q << logns);
        u64* dst = out + o * out_se;
        UNROLL for (int d = 0; d < KD; ++d) dst[d * out_sd] = sh[d * P + gg * W + q];
    }
}

// z = x op y for n elements (op 0: add, 1: sub, 2: mul); element i, digit d at i se + d sd.
extern "C" __global__ void __launch_bounds__(256) gfpf_binary(
    u64* z, const u64* x, const u64* y, u64 n, u64 se, u64 sd, int op)
{
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u64 a[KD], b[KD];
        UNROLL for (int d = 0; d < KD; ++d) {
            a[d] = x[i * se + d * sd];
            b[d] = y[i * se + d * sd];
        }
        if (op == 2) {
            u64 c[KD];
            gmul(c, a, b);
            UNROLL for (int d = 0; d < KD; ++d) a[d] = c[d];
        } else if (op == 1) {
            sub_assign(a, b);
        } else {
            add_assign(a, b);
        }
        UNROLL for (int d = 0; d < KD; ++d) z[i * se + d * sd] = a[d];
    }
}
#endif  // GPMP_EMULATE
