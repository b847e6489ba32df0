// Runs kernels/ntt.cu on the host (tests/emulate_cuda.h: each block as NT host threads with a
// barrier for __syncthreads) over the pass structures and tables that src/gpu/ntt.rs uses, and
// compares every output with a recursive radix-2 NTT computed here, forward and inverse (with
// n^(-1)), for both kernels (ntt_pass and ntt_pass_long), in one, two and three passes (each pass
// structure the autotuner may pick: fused and unfused first and last register chunks), counts of
// 1 and 3 transforms (partial blocks). Sizes stay small: every block runs as NT host threads. Built by tests/kernel_emulation.rs once per specialisation of src/gpu/ntt.rs
// (WORD, LOGE, NT, MINB, LAZY); the primes fit the specialisation (p < 2^(WORD-2) with LAZY).
#include "../emulate_cuda.h"
#include "ntt.cu"
typedef unsigned __int128 u128;

static u64 mulm(u64 a, u64 b, u64 p) { return (u64)((u128)a * b % p); }
static u64 powm(u64 a, u64 e, u64 p) {
  u64 r = 1 % p;
  for (; e; e >>= 1, a = mulm(a, a, p))
    if (e & 1) r = mulm(r, a, p);
  return r;
}
static u64 companion(u64 t, u64 p) { return (u64)(((u128)t << WORD) / p); }
// (w^i, companion) for i < len.
static std::vector<pair> table(u64 w, size_t len, u64 p) {
  std::vector<pair> t(len);
  u64 x = 1;
  for (size_t i = 0; i < len; i++, x = mulm(x, w, p)) {
    t[i].v = (word)x;
    t[i].q = (word)companion(x, p);
  }
  return t;
}
// A primitive n-th root of unity mod p (2^k = n divides p - 1).
static u64 root_of_unity(u64 n, u64 p) {
  for (u64 g = 2;; g++) {
    u64 w = powm(g, (p - 1) / n, p);
    if (n == 1 || powm(w, n / 2, p) == p - 1) return w;
  }
}
// The reference: a = DFT(a) at root w, recursive radix 2, natural order.
static void ref_ntt(std::vector<u64>& a, u64 w, u64 p) {
  size_t n = a.size();
  if (n == 1) return;
  std::vector<u64> e(n / 2), o(n / 2);
  for (size_t i = 0; i < n / 2; i++) e[i] = a[2 * i], o[i] = a[2 * i + 1];
  u64 w2 = mulm(w, w, p);
  ref_ntt(e, w2, p);
  ref_ntt(o, w2, p);
  u64 t = 1;
  for (size_t k = 0; k < n / 2; k++, t = mulm(t, w, p)) {
    u64 x = mulm(o[k], t, p);
    a[k] = (e[k] + x) % p;
    a[k + n / 2] = (e[k] + p - x) % p;
  }
}

// `count` transforms run as src/gpu/ntt.rs does: `passes` passes of radices (log2) as equal as
// possible, larger first, each given the compact root table of its own radix (logr0 = logr), the
// last one scaling by n^(-1) for the inverse. Returns the number of wrong words.
static size_t check(u64 p, unsigned logn, size_t count, bool inverse, bool long_kernel, unsigned passes) {
  const size_t n = 1ull << logn;
  std::vector<unsigned> rad;
  for (unsigned i = 0; i < passes; i++) rad.push_back(logn / passes + (i < logn % passes));
  const u64 w = root_of_unity(n, p), wi = inverse ? powm(w, p - 2, p) : w;
  const unsigned logl = (logn + 1) / 2;
  auto tlo = table(wi, 1ull << logl, p), thi = table(powm(wi, 1ull << logl, p), 1ull << (logn - logl), p);
  const u64 scale = inverse ? powm(n % p, p - 2, p) : 1;
  std::vector<u64> x(n * count);
  for (auto& v : x) v = rnd() % p;
  if (count > 1) {  // edge rows: all p - 1, all 0
    for (size_t i = 0; i < n; i++) x[i] = p - 1, x[n + i] = 0;
  }
  std::vector<word> a(x.begin(), x.end()), b(n * count, (word)0x5555);
  unsigned logns = 0;
  bool in_b = false;
  for (size_t i = 0; i < rad.size(); i++) {
    const unsigned logr = rad[i];
    const u64 groups = (n * count) >> logr, blocks = (groups + (1ull << (LOGE - logr)) - 1) >> (LOGE - logr);
    const bool last = i + 1 == rad.size();
    const u64 s1 = last ? scale : 1, s2 = last ? companion(scale, p) : 0;
    const word* src = in_b ? b.data() : a.data();
    word* dst = in_b ? a.data() : b.data();
    auto roots = table(powm(wi, n >> logr, p), 1ull << (logr - 1), p);
    const unsigned T = 1u << (LOGE - logr);
    const size_t shared = (E + (T > 1 ? T : 0)) * sizeof(word);
    emulate_blocks(blocks, NT, shared, [&] {
      if (long_kernel) ntt_pass_long(src, dst, p, logn, logr, logns, groups, roots.data(), logr, tlo.data(), thi.data(), logl, s1, s2);
      else ntt_pass(src, dst, p, logn, logr, logns, groups, roots.data(), logr, tlo.data(), thi.data(), logl, s1, s2);
    });
    in_b = !in_b;
    logns += logr;
  }
  const std::vector<word>& out = in_b ? b : a;
  size_t bad = 0;
  for (size_t c = 0; c < count; c++) {
    std::vector<u64> r(x.begin() + c * n, x.begin() + (c + 1) * n);
    ref_ntt(r, wi, p);
    for (size_t i = 0; i < n; i++) {
      const u64 want = mulm(r[i], scale, p);
      if ((u64)out[c * n + i] != want && bad++ < 3)
        printf("  c=%zu i=%zu: got %llu, want %llu\n", c, i, (unsigned long long)out[c * n + i], (unsigned long long)want);
    }
  }
  printf("%s p=%llu n=2^%u count=%zu %s %s passes=%zu\n", bad ? "FAIL" : "ok", (unsigned long long)p, logn, count,
         inverse ? "inverse" : "forward", long_kernel ? "ntt_pass_long" : "ntt_pass", rad.size());
  return bad;
}

int main() {
#if WORD == 32
  const u64 primes[] = {2130706433ull, 998244353ull};  // 31 and 30 bits
#elif LAZY
  const u64 primes[] = {4611685944339202049ull, 4293918721ull};  // 62 and 32 bits
#else
  const u64 primes[] = {9223372006790004737ull};  // 63 bits
#endif
  // (log2 n, count, passes)
  const unsigned cases[][3] = {{1, 3, 1}, {5, 3, 1}, {9, 1, 1}, {LOGE, 1, 1}, {10, 3, 2}, {12, 1, 2}, {13, 1, 3}, {14, 1, 2}};
  size_t bad = 0, runs = 0;
  for (u64 p : primes)
    for (auto& c : cases)
      for (int inverse = 0; inverse < 2; inverse++)
        for (int long_kernel = 0; long_kernel < 2; long_kernel++) {
          if ((p - 1) % (1ull << c[0]) != 0) continue;
          bad += check(p, c[0], c[1], inverse, long_kernel, c[2]);
          runs++;
        }
  printf("WORD=%d LOGE=%d LAZY=%d: %zu transforms, %zu wrong words\n", WORD, LOGE, LAZY, runs, bad);
  return bad != 0;
}
