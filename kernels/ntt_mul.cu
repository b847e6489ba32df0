// One big-integer product r = a b on the device (src/gpu/ntt_mul.rs). The limbs are the coefficients
// of a(x), b(x) at x = 2^64; c = a(x) b(x) has coefficients c_m < min(la, lb) 2^128, recovered from
// three primes 2^61 < p_i < 2^62 (M = p_0 p_1 p_2 > 2^183), then r = sum_m c_m 2^(64 m).
//   residues:  x mod p_i for the three primes at once (zero padding up to n), one operand a launch;
//   pointwise: f g 2^(-64) mod p (Montgomery; the factor 2^64 is put back by the CRT constants);
//   crt_carry: per thread E consecutive limb positions j; c_m by Garner from 2^64 r_i (r_i the
//              residues), s_j = c_j[0] + c_(j-1)[1] + c_(j-2)[2] = lo_j + 2^64 h_j (h_j <= 2),
//              w_j = lo_j + h_(j-1) + carry rippled through the thread's E limbs with carry-in 0;
//              the thread's (G, P) = (carry out, all w = 2^64 - 1), scanned over the block with
//              (G2, P2) o (G1, P1) = (G2 | P2 G1, P2 P1): per thread its exclusive prefix, per block
//              its aggregate;
//   carry_scan: one block turns the block aggregates into each block's carry-in;
//   carry_apply: a thread whose carry-in G_pre | P_pre c_block is 1 adds 1 to its limbs (rippling
//              at most through its E limbs: a carry out of them is already in the next thread's G_pre).
#ifndef NT
#define NT 256
#endif
#ifndef E
#define E 8
#endif
#define SCAN_NT 1024

// x mod p for any x < 2^64 and 2^61 < p < 2^62 (x < 8p).
__device__ __forceinline__ u64 reduce8(u64 x, u64 p) {
    if (x >= 4 * p) x -= 4 * p;
    if (x >= 2 * p) x -= 2 * p;
    return x >= p ? x - p : x;
}

// dst_i[off + m] = x[m] mod p_i for m < len, 0 for len <= m < n.
extern "C" __global__ void __launch_bounds__(NT) residues(
    const u64* __restrict__ x, u64 len, u64 n, u64* __restrict__ d0, u64* __restrict__ d1,
    u64* __restrict__ d2, u64 off, u64 p0, u64 p1, u64 p2)
{
    const u64 m = (u64)blockIdx.x * NT + threadIdx.x;
    if (m >= n) return;
    const u64 v = m < len ? x[m] : 0;
    d0[off + m] = reduce8(v, p0);
    d1[off + m] = reduce8(v, p1);
    d2[off + m] = reduce8(v, p2);
}

// a_y[m] = a_y[m] b_y[m] 2^(-64) mod p_y (a_y[m]^2 2^(-64) when square; then b_y = a_y), y = blockIdx.y;
// c = (p_y, -p_y^(-1) mod 2^64) for y = 0, 1, 2. Inputs below 2p (a b < p 2^64).
extern "C" __global__ void __launch_bounds__(NT) pointwise(
    u64* a0, u64* a1, u64* a2, const u64* b0, const u64* b1, const u64* b2, u64 n, const u64* __restrict__ c, int square)
{
    const u64 m = (u64)blockIdx.x * NT + threadIdx.x;
    if (m >= n) return;
    const unsigned y = blockIdx.y;
    u64* row = y == 0 ? a0 : y == 1 ? a1 : a2;
    const u64* other = y == 0 ? b0 : y == 1 ? b1 : b2;
    const u64 p = c[2 * y], pinv = c[2 * y + 1];
    const u64 a = row[m], b = square ? a : other[m];
    row[m] = mont_mul(a, b, p, pinv);
}

// Exclusive scan of 2-bit (G | P << 1) values over the block's T threads, combining earlier o later
// as (G2 | P2 G1, P2 P1); the identity is (0, 1). Returns the exclusive prefix; *total = all of them.
template <int T>
__device__ __forceinline__ unsigned gp_scan(unsigned v, unsigned* total) {
    __shared__ unsigned warp_tot[T / 32];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned inc = v;
    for (unsigned d = 1; d < 32; d <<= 1) {
        const unsigned o = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc = ((inc & 1) | ((inc >> 1) & o & 1)) | (inc & o & 2);
    }
    unsigned exc = __shfl_up_sync(0xffffffffu, inc, 1);
    if (lane == 0) exc = 2;
    if (lane == 31) warp_tot[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        unsigned w = lane < T / 32 ? warp_tot[lane] : 2;
        for (unsigned d = 1; d < 32; d <<= 1) {
            const unsigned o = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w = ((w & 1) | ((w >> 1) & o & 1)) | (w & o & 2);
        }
        unsigned we = __shfl_up_sync(0xffffffffu, w, 1);
        if (lane == 0) we = 2;
        if (lane < T / 32) warp_tot[lane] = we;
    }
    __syncthreads();
    // warp_tot[warp] is now the exclusive prefix of the warps before this one.
    const unsigned pre = warp_tot[warp];
    const unsigned r = ((exc & 1) | ((exc >> 1) & pre & 1)) | (exc & pre & 2);
    if (total) {
        // the block total: the last thread's inclusive value composed with its warp prefix
        *total = ((inc & 1) | ((inc >> 1) & pre & 1)) | (inc & pre & 2);
    }
    return r;
}

// Garner: c = v0 + p0 (v1 + p1 v2) from the residues r_i of c 2^(-64); k holds (value, companion)
// pairs: [0] 2^64 mod p0, [1] 2^64 p0^(-1) mod p1, [2] p0^(-1) mod p1, [3] 2^64 (p0 p1)^(-1) mod p2,
// [4] (p0 p1)^(-1) mod p2, [5] p1^(-1) mod p2; then p0, p1, p2 at k[12..15).
__device__ __forceinline__ void garner(u64 r0, u64 r1, u64 r2, const u64* __restrict__ k, u64* x) {
    const u64 p0 = k[12], p1 = k[13], p2 = k[14];
    const u64 v0 = mul_shoup(r0, k[0], k[1], p0);
    const u64 v1 = sub_mod(mul_shoup(r1, k[2], k[3], p1), mul_shoup(v0, k[4], k[5], p1), p1);
    const u64 v2 = sub_mod(sub_mod(mul_shoup(r2, k[6], k[7], p2), mul_shoup(v0, k[8], k[9], p2), p2),
                           mul_shoup(v1, k[10], k[11], p2), p2);
    // y = v1 + p1 v2 < 2^125
    u64 ylo = p1 * v2, yhi = __umul64hi(p1, v2);
    ylo += v1;
    yhi += ylo < v1;
    // x = v0 + p0 y < 2^187
    const u64 a0 = p0 * ylo, a1 = __umul64hi(p0, ylo), b0 = p0 * yhi, b1 = __umul64hi(p0, yhi);
    const u64 x0 = a0 + v0;
    const u64 c0 = x0 < a0;
    const u64 s = a1 + b0;
    u64 c1 = s < a1;
    const u64 x1 = s + c0;
    c1 += x1 < s;
    x[0] = x0;
    x[1] = x1;
    x[2] = b1 + c1;
}

// Positions j < total (= la + lb) of r from the clen = la + lb - 1 coefficients; out gets w_j (the
// limbs with every thread's carry-in taken as 0), flags[t] the thread's exclusive (G, P) prefix in
// its block, agg[block] the block's (G, P).
extern "C" __global__ void __launch_bounds__(NT) crt_carry(
    const u64* __restrict__ r0, const u64* __restrict__ r1, const u64* __restrict__ r2, u64 clen, u64 total,
    const u64* __restrict__ k, u64* __restrict__ out, unsigned char* __restrict__ flags, unsigned char* __restrict__ agg)
{
    const u64 t = (u64)blockIdx.x * NT + threadIdx.x;
    const long long j0 = (long long)(t * E);
    // rolling: limbs 1, 2 of c_(j-1), limb 2 of c_(j-2), the high part of s_(j-1)
    u64 p1_1 = 0, p1_2 = 0, p2_2 = 0, h = 0, carry = 0;
    bool allmax = true;
    for (long long j = j0 - 3; j < j0 + E; ++j) {
        u64 c[3] = {0, 0, 0};
        if (j >= 0 && (u64)j < clen) garner(r0[j], r1[j], r2[j], k, c);
        const u64 lo1 = c[0] + p1_1;
        u64 hj = lo1 < c[0];
        const u64 lo = lo1 + p2_2;
        hj += lo < lo1;
        if (j >= j0) {
            const u64 w = lo + (h + carry);  // h + carry <= 3
            carry = w < lo;
            allmax &= w == ~0ull;
            if ((u64)j < total) out[j] = w;
        }
        h = hj;
        p2_2 = p1_2;
        p1_1 = c[1];
        p1_2 = c[2];
    }
    unsigned tot;
    const unsigned pre = gp_scan<NT>((unsigned)carry | ((unsigned)allmax << 1), &tot);
    flags[t] = (unsigned char)pre;
    if (threadIdx.x == NT - 1) agg[blockIdx.x] = (unsigned char)tot;
}

// agg[b] (G, P) of block b for b < nb  ->  agg[b] = carry into block b (the carry into block 0 is 0).
// One block of SCAN_NT threads, each over a run of consecutive blocks.
extern "C" __global__ void __launch_bounds__(SCAN_NT) carry_scan(unsigned char* __restrict__ agg, u64 nb)
{
    const u64 per = (nb + SCAN_NT - 1) / SCAN_NT;
    const u64 lo = threadIdx.x * per, hi = lo + per < nb ? lo + per : nb;
    unsigned v = 2;
    for (u64 b = lo; b < hi; ++b) {
        const unsigned o = agg[b];
        v = ((o & 1) | ((o >> 1) & v & 1)) | (o & v & 2);
    }
    const unsigned pre = gp_scan<SCAN_NT>(v, nullptr);
    unsigned c = pre & 1;
    for (u64 b = lo; b < hi; ++b) {
        const unsigned o = agg[b];
        agg[b] = (unsigned char)c;
        c = (o & 1) | ((o >> 1) & c);
    }
}

// Adds each thread's carry-in G_pre | P_pre c_block to its E limbs.
extern "C" __global__ void __launch_bounds__(NT) carry_apply(
    u64* __restrict__ out, u64 total, const unsigned char* __restrict__ flags, const unsigned char* __restrict__ cin)
{
    const u64 t = (u64)blockIdx.x * NT + threadIdx.x;
    const unsigned f = flags[t];
    if (!((f & 1) | ((f >> 1) & cin[blockIdx.x]))) return;
    for (u64 j = t * E; j < t * E + E && j < total; ++j) {
        if (++out[j] != 0) break;
    }
}
