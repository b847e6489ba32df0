// Multi-modular convolution in Z[x] on the GPU (src/gpu/zpoly_mul/), for k primes 2^61 < p_i < 2^62
// with 2^32 | p_i - 1. Residues of prime i live in their own device row (an array of row pointers
// is passed); the transforms themselves are kernels/ntt.cu's.
//
//   residues: c mod p_i = (-1)^s sum_t c_t (2^(64t) mod p_i), c_t the 64-bit limbs (Shoup products);
//   pointwise: a b mod p by Montgomery's product a b 2^(-64), then one Shoup product by 2^64 mod p
//              (both in common.cuh);
//   garner:   Garner's mixed radix ([MCA] §5.6): x = sum_i v_i P_i, P_i = p_0 ... p_(i-1),
//             v_i = r_i g_ii - sum_(j<i) v_j g_ij mod p_i, g_ij = P_j P_i^(-1), g_ii = P_i^(-1) mod p_i;
//             the limbs by Horner, x = (...(v_(k-1) p_(k-2) + v_(k-2)) p_(k-3) + ...) p_0 + v_0;
//             the symmetric residue: x - M when x > floor(M/2) (M odd), as sign and magnitude.
#ifndef NT
#define NT 256
#endif

// A constant and its Shoup companion floor(v 2^64 / p).
typedef Shoup<u64> pair;

// rows[i][off + m] = c_m mod p_i for m < len and 0 for len <= m < n, where c_m has the L limbs
// limbs[m L ..] and the sign neg[m]; w[i L + t] = 2^(64t) mod p_i. Grid: x over m, y over i.
extern "C" __global__ void __launch_bounds__(NT) residues(
    const u64* __restrict__ limbs, const unsigned char* __restrict__ neg, u64 len, unsigned L, u64 n,
    const u64* __restrict__ primes, const pair* __restrict__ w, u64* const* __restrict__ rows, u64 off)
{
    const u64 m = (u64)blockIdx.x * NT + threadIdx.x;
    if (m >= n) return;
    const unsigned i = blockIdx.y;
    const u64 p = primes[i];
    u64 r = 0;
    if (m < len) {
        const u64* c = limbs + m * L;
        const pair* wi = w + (u64)i * L;
        for (unsigned t = 0; t < L; ++t) r = add_mod(r, mul_shoup(c[t], wi[t], p), p);
        if (neg[m] && r) r = p - r;
    }
    rows[i][off + m] = r;
}

// rows[i][m] = rows[i][m] rows[i][n + m] mod p_i (or its square when `square`), m < n.
// c[4 i ..] = (p_i, -p_i^(-1) mod 2^64, 2^64 mod p_i, its companion). Grid: x over m, y over i.
extern "C" __global__ void __launch_bounds__(NT) pointwise(
    u64* const* __restrict__ rows, u64 n, const u64* __restrict__ c, int square)
{
    const u64 m = (u64)blockIdx.x * NT + threadIdx.x;
    if (m >= n) return;
    const unsigned i = blockIdx.y;
    const u64 p = c[4 * i], pinv = c[4 * i + 1];
    const pair r = {c[4 * i + 2], c[4 * i + 3]};
    u64* row = rows[i];
    const u64 a = row[m], b = square ? a : row[n + m];
    row[m] = mul_shoup(mont_mul(a, b, p, pinv), r, p);
}

// For every m0 <= m < m1 (m1 <= len): the symmetric residue x_m of (rows[i][m])_i, |x_m| into
// out[m S .. m S + S) and its sign into neg[m]. g: the triangle g_ij (j <= i) row after row; modulus,
// half: the W limbs of M and floor(M/2); x: scratch of W len words (limb t of coefficient m at
// t len + m). The digits v_i replace the residues in rows[i][m]. Grid: x over m - m0.
extern "C" __global__ void __launch_bounds__(NT) garner(
    u64* const* __restrict__ rows, u64 len, u64 m0, u64 m1, unsigned k, const u64* __restrict__ primes,
    const pair* __restrict__ g, const u64* __restrict__ modulus, const u64* __restrict__ half,
    unsigned W, u64* __restrict__ x, u64* __restrict__ out, unsigned S, unsigned char* __restrict__ neg)
{
    const u64 m = m0 + (u64)blockIdx.x * NT + threadIdx.x;
    if (m >= m1) return;
    const pair* gi = g;
    for (unsigned i = 0; i < k; ++i) {
        const u64 p = primes[i];
        u64 v = mul_shoup(rows[i][m], gi[i], p);
        for (unsigned j = 0; j < i; ++j) v = sub_mod(v, mul_shoup(rows[j][m], gi[j], p), p);
        rows[i][m] = v;
        gi += i + 1;
    }
    // Horner: x = x p_i + v_i from the top digit down, on `used` limbs.
    x[m] = rows[k - 1][m];
    for (unsigned t = 1; t < W; ++t) x[t * len + m] = 0;
    unsigned used = 1;
    for (int i = (int)k - 2; i >= 0; --i) {
        const u64 p = primes[i];
        u64 carry = rows[i][m];
        for (unsigned t = 0; t < used; ++t) {
            const u64 a = x[t * len + m];
            const u64 lo = a * p, hi = __umul64hi(a, p);
            const u64 s = lo + carry;
            carry = hi + (s < lo);
            x[t * len + m] = s;
        }
        if (carry && used < W) x[(u64)(used++) * len + m] = carry;
    }
    // x > floor(M/2)?
    int t = (int)W - 1;
    while (t >= 0 && x[(u64)t * len + m] == half[t]) --t;
    const bool negative = t >= 0 && x[(u64)t * len + m] > half[t];
    u64 borrow = 0, any = 0;
    for (unsigned s = 0; s < W; ++s) {
        u64 a = x[(u64)s * len + m];
        if (negative) {
            const u64 d = modulus[s] - a;
            const u64 b2 = d < borrow;
            const u64 b1 = modulus[s] < a;
            a = d - borrow;
            borrow = b1 | b2;
        }
        any |= a;
        if (s < S) out[m * S + s] = a;
    }
    for (unsigned s = W; s < S; ++s) out[m * S + s] = 0;
    neg[m] = negative && any;
}

// Split mode (coefficients cut into their K limbs, ms. Kronecker's y = x^T, T = 2K - 1): position
// m = c T + j holds limb j of coefficient c with c's sign for j < K, else 0 (and 0 past len T).
// w[i L] = (1, companion) reduces a limb mod p_i. Grid: x over m < n, y over i.
extern "C" __global__ void __launch_bounds__(NT) residues_split(
    const u64* __restrict__ limbs, const unsigned char* __restrict__ neg, u64 len, unsigned K, unsigned T,
    u64 n, const u64* __restrict__ primes, const pair* __restrict__ w, u64* const* __restrict__ rows, u64 off)
{
    const u64 m = (u64)blockIdx.x * NT + threadIdx.x;
    if (m >= n) return;
    const unsigned i = blockIdx.y;
    const u64 p = primes[i];
    const u64 c = m / T;
    const unsigned j = (unsigned)(m - c * T);
    u64 r = 0;
    if (c < len && j < K) {
        r = mul_shoup(limbs[c * K + j], w[(u64)i * K], p);
        if (neg[c] && r) r = p - r;
    }
    rows[i][off + m] = r;
}

// h_c = sum_(j < T) d_(c T + j) 2^(64 j) for c0 <= c < c1 (c1 <= len), where d_q is the signed value
// with magnitude d[q D .. q D + D) and sign dneg[q]: accumulated in two's complement on S + 1 limbs
// (acc: scratch of (S + 1) len words, limb t of c at t len + c), written as |h_c| (S limbs) and its
// sign. Grid: x over c - c0.
extern "C" __global__ void __launch_bounds__(NT) recombine(
    const u64* __restrict__ d, const unsigned char* __restrict__ dneg, unsigned D, unsigned T, u64 len,
    u64 c0, u64 c1, u64* __restrict__ acc, u64* __restrict__ out, unsigned S, unsigned char* __restrict__ neg)
{
    const u64 c = c0 + (u64)blockIdx.x * NT + threadIdx.x;
    if (c >= c1) return;
    const unsigned A = S + 1;
    for (unsigned t = 0; t < A; ++t) acc[(u64)t * len + c] = 0;
    for (unsigned j = 0; j < T; ++j) {
        const u64 q = c * T + j;
        const bool sub = dneg[q];
        u64 carry = 0;  // carry (add) or borrow (sub)
        unsigned t = j;
        for (unsigned s = 0; t < A && (s < D || carry); ++s, ++t) {
            const u64 v = s < D ? d[q * D + s] : 0;
            const u64 a = acc[(u64)t * len + c];
            u64 r;
            if (!sub) {
                r = a + v;
                const u64 c1 = r < a;
                r += carry;
                carry = c1 | (r < carry);
            } else {
                r = a - v;
                const u64 b1 = a < v;
                const u64 b2 = r < carry;
                r -= carry;
                carry = b1 | b2;
            }
            acc[(u64)t * len + c] = r;
        }
    }
    const bool negative = acc[(u64)S * len + c] >> 63;
    u64 cy = 1, any = 0;
    for (unsigned t = 0; t < S; ++t) {
        u64 a = acc[(u64)t * len + c];
        if (negative) {
            a = ~a + cy;
            cy = cy && a == 0;
        }
        any |= a;
        out[c * S + t] = a;
    }
    neg[c] = negative && any;
}

// The Taylor shift g(x) = f(x + c) modulo p_i (src/gpu/zpoly_mul/taylor_shift.rs), by the convolution
// form of src/nmod/taylor_shift.rs ([vzGG97]): with d = len - 1,
//   g_k k! = sum_(j>=k) (f_j j!) c^(j-k) / (j-k)! = h_(d-k),  h = a b,  a_m = f_(d-m) (d-m)!,  b_j = c^j / j!,
// exact for p > d (every j! is invertible). Products in Montgomery form xR mod p (R = 2^64):
// mont_mul(xR, yR) = xyR and mont_mul(x, yR) = xy; xR = mul_shoup(x, R mod p) for any word x.
// c[4 i ..] as for `pointwise`: (p_i, -p_i^(-1) mod 2^64, R mod p_i, its companion).

// x^e R mod p from xR (Montgomery form), by squaring and multiplying.
__device__ __forceinline__ u64 mont_pow(u64 xr, u64 e, u64 one, u64 p, u64 pinv) {
    u64 y = one;
    for (; e; e >>= 1) {
        if (e & 1) y = mont_mul(y, xr, p, pinv);
        xr = mont_mul(xr, xr, p, pinv);
    }
    return y;
}

// The scale steps before the transforms, one block per prime (blockIdx.x = i): rows[i][m] holds
// f_(d-m) mod p_i for m < len (the residues of f reversed); afterwards rows[i][m] = a_m (m < len),
// rows[i][n + j] = b_j (j < len) and 0 for len <= j < n, and inv[i len + j] = R / j! mod p_i.
// cres[i] = c mod p_i. Thread t walks the chunk [t C, t C + C) of indices j (C = ceil(len / NT)): the
// chunk products P_t = prod j (j >= 1), their prefix and suffix products across the block
// (Hillis-Steele scans in shared memory), then upwards j! = (prefix) prod j' (a_(d-j) *= j!, the
// powers c^j), then downwards 1/j! = (1/d!) (suffix) prod j' with 1/d! = (d!)^(p-2) (Fermat).
extern "C" __global__ void __launch_bounds__(NT) shift_scale(
    u64* const* __restrict__ rows, u64 len, u64 n, const u64* __restrict__ c, const u64* __restrict__ cres,
    u64* __restrict__ inv)
{
    __shared__ u64 pre[NT], suf[NT];
    const unsigned i = blockIdx.x, t = threadIdx.x;
    const u64 p = c[4 * i], pinv = c[4 * i + 1];
    const pair r = {c[4 * i + 2], c[4 * i + 3]};
    const u64 one = r.v, d = len - 1;
    u64* a = rows[i];
    u64* b = a + n;
    u64* w = inv + (u64)i * len;
    const u64 chunk = (len + NT - 1) / NT;
    const u64 lo = (u64)t * chunk < len ? (u64)t * chunk : len;
    const u64 hi = lo + chunk < len ? lo + chunk : len;
    u64 prod = one;
    for (u64 j = lo; j < hi; ++j)
        if (j) prod = mont_mul(prod, mul_shoup(j, r, p), p, pinv);
    pre[t] = prod;
    suf[t] = prod;
    __syncthreads();
    // Inclusive scans: pre[t] = P_0 ... P_t, suf[t] = P_t ... P_(NT-1).
    for (unsigned s = 1; s < NT; s <<= 1) {
        const u64 x = t >= s ? pre[t - s] : one;
        const u64 y = t + s < NT ? suf[t + s] : one;
        __syncthreads();
        pre[t] = mont_mul(pre[t], x, p, pinv);
        suf[t] = mont_mul(suf[t], y, p, pinv);
        __syncthreads();
    }
    const u64 before = t ? pre[t - 1] : one;      // (lo - 1)! R, or R
    const u64 after = t + 1 < NT ? suf[t + 1] : one;  // prod_(hi <= j <= d) j R
    const u64 inv_total = mont_pow(pre[NT - 1], p - 2, one, p, pinv);  // R / d!
    const u64 cr = mul_shoup(cres[i], r, p);
    u64 f = before;
    u64 cj = mont_mul(mont_pow(cr, lo, one, p, pinv), 1, p, pinv);  // c^lo
    for (u64 j = lo; j < hi; ++j) {
        if (j) f = mont_mul(f, mul_shoup(j, r, p), p, pinv);  // j! R
        a[d - j] = mont_mul(a[d - j], f, p, pinv);
        b[j] = cj;
        cj = mont_mul(cj, cr, p, pinv);
    }
    u64 g = mont_mul(inv_total, after, p, pinv);  // R / (hi - 1)!
    for (u64 j = hi; j-- > lo;) {
        w[j] = g;
        b[j] = mont_mul(b[j], g, p, pinv);
        if (j) g = mont_mul(g, mul_shoup(j, r, p), p, pinv);  // R / (j - 1)!
    }
    for (u64 j = len + t; j < n; j += NT) b[j] = 0;
}

// The scale step after the inverse transforms: rows[i][m] = h_m; afterwards rows[i][k] = g_k =
// h_(d-k) / k! mod p_i for k < len, inv as `shift_scale` left it. One thread per pair (k, d - k).
// Grid: x over k < ceil(len / 2), y over i.
extern "C" __global__ void __launch_bounds__(NT) shift_unscale(
    u64* const* __restrict__ rows, u64 len, const u64* __restrict__ c, const u64* __restrict__ inv)
{
    const u64 k = (u64)blockIdx.x * NT + threadIdx.x;
    if (2 * k >= len) return;
    const unsigned i = blockIdx.y;
    const u64 p = c[4 * i], pinv = c[4 * i + 1];
    const u64 q = len - 1 - k;
    u64* row = rows[i];
    const u64* w = inv + (u64)i * len;
    const u64 x = row[k], y = row[q];
    row[k] = mont_mul(y, w[k], p, pinv);
    row[q] = mont_mul(x, w[q], p, pinv);
}
