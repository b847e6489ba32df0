// Shared by every kernel file of kernels/: src/gpu/compile.rs prepends it to each source before
// NVRTC compiles it (it is part of every kernel's cache key), and the host emulations in tests/
// include it before the kernel file. It holds the word types and the arithmetic modulo a
// one-word prime that several kernels use, each defined once.
//
// Shoup's product (Shoup, NTL; Harvey, "Faster arithmetic for number-theoretic transforms", 2014,
// §2): for a B-bit word type, p < 2^(B-1) and a constant w < p with companion wq = floor(w 2^B / p),
//   x w mod p = x w - floor(x wq / 2^B) p - {0 or p}       for every word x,
// the value before the last correction lying in [0, 2p) (all arithmetic mod 2^B).
// Montgomery's product (Montgomery 1985): for odd p < 2^63 and pinv = -p^(-1) mod 2^64,
//   a b 2^(-64) mod p = (a b + m p) / 2^64 - {0 or p},  m = (a b mod 2^64) pinv mod 2^64,
// valid for a b < p 2^64.
#ifdef GPMP_FORCE_ERROR
#error GPMP_FORCE_ERROR: this specialisation exists only to test error reporting
#endif

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;

// The high word of a b.
__device__ __forceinline__ u32 mul_hi(u32 a, u32 b) { return __umulhi(a, b); }
__device__ __forceinline__ u64 mul_hi(u64 a, u64 b) { return __umul64hi(a, b); }

// r mod m for r < 2m, as min(r, r - m): r - m wraps above r when r < m (one unsigned minimum).
template <class T>
__device__ __forceinline__ T csub(T r, T m) {
    T t = r - m;
    return t < r ? t : r;
}

// A constant w < p and its Shoup companion floor(w 2^B / p), read by one vector load.
template <class T>
struct alignas(2 * sizeof(T)) Shoup {
    T v, q;
};

// x w mod p up to one p: x w - floor(x wq / 2^B) p, in [0, 2p) for any word x (p < 2^(B-1)).
template <class T>
__device__ __forceinline__ T mul_shoup_lazy(T x, T w, T wq, T p) {
    return x * w - mul_hi(x, wq) * p;
}
template <class T>
__device__ __forceinline__ T mul_shoup_lazy(T x, Shoup<T> t, T p) {
    return mul_shoup_lazy(x, t.v, t.q, p);
}
// x w mod p in [0, p) for any word x (p < 2^(B-1)).
template <class T>
__device__ __forceinline__ T mul_shoup(T x, T w, T wq, T p) {
    const T q = mul_hi(x, wq);
    return csub(x * w - q * p, p);
}
template <class T>
__device__ __forceinline__ T mul_shoup(T x, Shoup<T> t, T p) {
    return mul_shoup(x, t.v, t.q, p);
}

// (a + b) mod p and (a - b) mod p for a, b < p < 2^63.
__device__ __forceinline__ u64 add_mod(u64 a, u64 b, u64 p) { return csub(a + b, p); }
__device__ __forceinline__ u64 sub_mod(u64 a, u64 b, u64 p) { return a >= b ? a - b : a + (p - b); }

// a b 2^(-64) mod p in [0, p) for a b < p 2^64, odd p < 2^63, pinv = -p^(-1) mod 2^64: the low
// words of a b and m p (m = lo pinv) sum to 0 or 2^64, so (a b + m p) / 2^64 = hi + hi(m p) +
// [lo != 0] < 2p.
__device__ __forceinline__ u64 mont_mul(u64 a, u64 b, u64 p, u64 pinv) {
    const u64 lo = a * b, hi = __umul64hi(a, b);
    return csub(hi + __umul64hi(lo * pinv, p) + (lo != 0), p);
}
