// CPU emulation of kernels/ntt.cu (ntt_pass7 = v7, ntt_pass6 = v6, ntt_pass = v5): every block runs as NT host threads
// with a std::barrier for __syncthreads, over the same pass structure and tables as src/gpu/ntt.rs,
// and the result is compared with a recursive radix-2 NTT. Checks a kernel change without a GPU.
//   build (one kernel specialisation per binary, defines as in src/gpu/ntt.rs::spec):
//     g++ -O2 -std=c++20 -pthread -DWORD=64 -DLOGE=12 -DNT=256 -DLAZY=1 -DMINB=4 \
//         bench/gpu/emulate_ntt.cpp -o /tmp/emu64
//   run: /tmp/emu64 p log2n count inverse [kernel 7|6|5] [max log2 radix of a pass, default 10]
//   (v7 gets each pass's compact root table with logr0 = logr, as src/gpu/ntt.rs passes it)
//     e.g. /tmp/emu64 4611685944339202049 21 1 0   (three passes; prints ok/FAIL and exits 1 on FAIL)
//   p must be prime with 2^log2n | p - 1; LAZY=1 needs p < 2^(WORD-2).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <barrier>
#include <vector>
#include <functional>
#define GPMP_EMULATE
#define __global__
#define __device__
#define __host__
#define __shared__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(a, b)
#define __align__(n) alignas(n)
struct Dim { unsigned x; };
thread_local Dim threadIdx, blockIdx;
static std::barrier<>* g_bar;
inline void __syncthreads() { g_bar->arrive_and_wait(); }
static void* g_shared;
template <class T> T* emu_shared() { return (T*)g_shared; }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
inline unsigned __brev(unsigned x) { unsigned r = 0; for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i); return r; }
#include "../../kernels/ntt.cu"
typedef unsigned __int128 u128;
static u64 mulm(u64 a, u64 b, u64 p) { return (u64)((u128)a * b % p); }
static u64 powm(u64 a, u64 e, u64 p) { u64 r = 1 % p; while (e) { if (e & 1) r = mulm(r, a, p); a = mulm(a, a, p); e >>= 1; } return r; }
static u64 comp(u64 t, u64 p) { return (u64)(((u128)t << WORD) / p); }
static std::vector<pair> table(u64 w, size_t len, u64 p) { std::vector<pair> t(len); u64 x = 1; for (size_t i = 0; i < len; i++) { t[i].v = (word)x; t[i].q = (word)comp(x, p); x = mulm(x, w, p); } return t; }
static u64 rootof(u64 n, u64 p) { for (u64 g = 2;; g++) { u64 w = powm(g, (p - 1) / n, p); if (n == 1 || powm(w, n / 2, p) == p - 1) return w; } }
static void ref_ntt(std::vector<u64>& a, u64 w, u64 p) {  // naive-free O(n log n): recursive
    size_t n = a.size(); if (n == 1) return;
    std::vector<u64> e(n / 2), o(n / 2);
    for (size_t i = 0; i < n / 2; i++) { e[i] = a[2 * i]; o[i] = a[2 * i + 1]; }
    u64 w2 = mulm(w, w, p); ref_ntt(e, w2, p); ref_ntt(o, w2, p);
    u64 t = 1; for (size_t k = 0; k < n / 2; k++) { u64 x = mulm(o[k], t, p); a[k] = (e[k] + x) % p; a[k + n / 2] = (e[k] + p - x) % p; t = mulm(t, w, p); }
}
int main(int argc, char** argv) {
    u64 p = strtoull(argv[1], 0, 10); unsigned logn = atoi(argv[2]); size_t count = atoi(argv[3]); int inverse = atoi(argv[4]);
    int kern = argc > 5 ? atoi(argv[5]) : 6; unsigned maxlogr = argc > 6 ? atoi(argv[6]) : 10;
    size_t n = 1ull << logn;
    std::vector<unsigned> rad;
    if (logn <= LOGE) rad.push_back(logn); else { unsigned k = (logn + maxlogr - 1) / maxlogr; for (unsigned i = 0; i < k; i++) rad.push_back(logn / k + (i < logn % k)); }
    unsigned logr0 = 0; for (auto r : rad) logr0 = r > logr0 ? r : logr0;
    u64 w = rootof(n, p); u64 wi = inverse ? powm(w, p - 2, p) : w;
    unsigned logl = (logn + 1) / 2;
    auto roots = table(powm(wi, n >> logr0, p), 1ull << (logr0 - 1), p);
    auto tlo = table(wi, 1ull << logl, p), thi = table(powm(wi, 1ull << logl, p), 1ull << (logn - logl), p);
    u64 sc = inverse ? powm(n % p, p - 2, p) : 1;
    std::vector<u64> x(n * count); srand(logn * 7 + count);
    for (auto& v : x) v = (((u64)rand() << 32) ^ (u64)rand() ^ ((u64)rand() << 16)) % p;
    std::vector<word> a(x.begin(), x.end()), b(n * count, (word)0x5555);
    std::vector<unsigned char> sh(2 * E * sizeof(word));
    g_shared = sh.data();
    std::barrier<> bar(NT); g_bar = &bar;
    unsigned logns = 0; bool iny = false;
    for (size_t i = 0; i < rad.size(); i++) {
        unsigned logr = rad[i]; u64 groups = (n * count) >> logr; u64 blocks = (groups + (1ull << (LOGE - logr)) - 1) >> (LOGE - logr);
        bool last = i + 1 == rad.size(); u64 s1 = last ? sc : 1, s2 = last ? comp(sc, p) : 0;
        word* src = iny ? b.data() : a.data(); word* dst = iny ? a.data() : b.data();
        auto own = table(powm(wi, n >> logr, p), 1ull << (logr - 1), p);
        std::vector<std::thread> th;
        for (unsigned t = 0; t < NT; t++) th.emplace_back([&, t] {
            threadIdx.x = t;
            for (u64 blk = 0; blk < blocks; blk++) {
                blockIdx.x = blk;
                if (kern == 7) ntt_pass7(src, dst, p, logn, logr, logns, groups, own.data(), logr, tlo.data(), thi.data(), logl, s1, s2);
                else if (kern == 6) ntt_pass6(src, dst, p, logn, logr, logns, groups, roots.data(), logr0, tlo.data(), thi.data(), logl, s1, s2);
                else ntt_pass(src, dst, p, logn, logr, logns, groups, roots.data(), logr0, tlo.data(), thi.data(), logl, s1, s2);
                __syncthreads();
            }
        });
        for (auto& t : th) t.join();
        iny = !iny; logns += logr;
    }
    std::vector<word>& out = iny ? b : a;
    size_t bad = 0;
    for (size_t c = 0; c < count; c++) {
        std::vector<u64> r(x.begin() + c * n, x.begin() + (c + 1) * n);
        ref_ntt(r, wi, p);
        for (size_t i = 0; i < n; i++) { u64 want = mulm(r[i], sc, p); if ((u64)out[c * n + i] != want) { if (bad < 3) printf("  bad c=%zu i=%zu got %llu want %llu\n", c, i, (unsigned long long)out[c * n + i], (unsigned long long)want); bad++; } }
    }
    printf("%s p=%llu logn=%u count=%zu inv=%d kern=%d passes=%zu bad=%zu\n", bad ? "FAIL" : "ok", (unsigned long long)p, logn, count, inverse, kern, rad.size(), bad);
    return bad != 0;
}
