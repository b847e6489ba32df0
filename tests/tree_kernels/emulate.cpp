// Host emulation of kernels/tree.cu (built by tests/kernel_emulation.rs): multipoint evaluation and
// interpolation through the kernels, in the order src/gpu/tree.rs launches them, with a naive
// cyclic DFT standing in for the device NTT, against Horner's rule and interpolate(evaluate(f)) = f,
// for a 30-bit and a 62-bit Fourier prime, n = 1 ... 300 (not only powers of two), points 0 and
// p - 1 included, plain levels up to H = 0, 1, 2, 6; the tree's levels as the kernels build them
// against naive products.
#include "../emulate_cuda.h"
#include "tree.cu"
#include <algorithm>

typedef std::vector<u64> V;
static u64 P;
static u64 mulm(u64 a, u64 b) { return (u64)((unsigned __int128)a * b % P); }
static u64 powm(u64 a, u64 e) { u64 r = 1; for (; e; e >>= 1, a = mulm(a, a)) if (e & 1) r = mulm(r, a); return r; }
static u64 invm(u64 a) { return powm(a, P - 2); }
static u64 neg_inv(u64 p) { u64 x = 1; for (int i = 0; i < 7; i++) x *= 2 - p * x; return -x; }

// Calls a barrier-free kernel once per thread of ceil(total / NT) blocks.
template <class F> static void run(u64 total, F f) {
  const u64 blocks = total ? (total + NT - 1) / NT : 1;
  for (u64 b = 0; b < blocks; b++)
    for (unsigned t = 0; t < NT; t++) { blockIdx.x = (unsigned)b; threadIdx.x = t; f(); }
}

// count cyclic DFTs of size 2^logn in place (the inverse scaled by 2^(-logn)).
static void dft(V& x, u64 count, unsigned logn, bool inverse) {
  const u64 n = 1ull << logn;
  u64 w = 0;
  for (u64 g = 2;; g++) {
    w = powm(g, (P - 1) >> logn);
    if (n == 1 || powm(w, n / 2) != 1) break;
  }
  if (inverse) w = invm(w);
  const u64 s = inverse ? invm(n % P) : 1;
  for (u64 c = 0; c < count; c++) {
    V y(n);
    for (u64 i = 0; i < n; i++) {
      u64 acc = 0, wi = powm(w, i), t = 1;
      for (u64 j = 0; j < n; j++) { acc = (acc + mulm(x[c * n + j], t)) % P; t = mulm(t, wi); }
      y[i] = mulm(acc, s);
    }
    std::copy(y.begin(), y.end(), x.begin() + c * n);
  }
}

struct Dev {
  u64 n, l, h, pinv, r2;
  std::vector<V> levels, spectra;
  V root;
};

static V spread(const V& src, u64 n, u64 seg, u64 logrow, u64 total, int rev) {
  V dst(std::max<u64>(total, 1));
  run(total, [&] { tr_spread(src.data(), n, seg, logrow, dst.data(), total, rev); });
  return dst;
}

static V spectrum(const Dev& d, const V& src, u64 seg, u64 logrow, u64 rows) {
  const u64 total = rows << logrow;
  V x = spread(src, d.n, seg, logrow, total, 0);
  dft(x, rows, (unsigned)logrow, false);
  run(total, [&] { tr_mont(x.data(), total, P, d.pinv, d.r2); });
  return x;
}

static V evaluate(const Dev& d, const V& r) {
  const u64 n = d.n, l = d.l, big = 2ull << l;
  V x = spread(r, n, n, l + 1, big, 1);
  dft(x, 1, (unsigned)(l + 1), false);
  run(big, [&] { tr_mul(x.data(), d.root.data(), big, P, d.pinv); });
  dft(x, 1, (unsigned)(l + 1), true);
  V g = spread(x, n, n, l, 1ull << l, 1), g2(g.size());
  for (u64 i = l; i > d.h; i--) {
    const u64 w = 1ull << i, c = (n + w - 1) / w, nspec = (n + w / 2 - 1) / (w / 2);
    V s = spread(g, n, w, i, c * w, 0);
    dft(s, c, (unsigned)i, false);
    V z(2 * c * w);
    run(2 * c * w, [&] { tr_eval_mul(s.data(), d.spectra[i - 1 - d.h].data(), nspec, i, z.data(), 2 * c * w, P, d.pinv); });
    dft(z, 2 * c, (unsigned)i, true);
    run(n, [&] { tr_eval_add(g.data(), z.data(), n, i, g2.data(), P); });
    std::swap(g, g2);
  }
  for (u64 i = d.h; i >= 1; i--) {
    run(n, [&] { tr_eval_plain(g.data(), d.levels[i - 1].data(), n, i, g2.data(), P, d.pinv, d.r2); });
    std::swap(g, g2);
  }
  g.resize(n);
  return g;
}

static V combine(const Dev& d, const V& c0) {
  const u64 n = d.n, l = d.l;
  V g(1ull << l), g2(1ull << l);
  std::copy(c0.begin(), c0.end(), g.begin());
  for (u64 i = 1; i <= d.h; i++) {
    run(n, [&] { tr_interp_plain(g.data(), d.levels[i - 1].data(), n, i, g2.data(), P, d.pinv, d.r2); });
    std::swap(g, g2);
  }
  for (u64 i = d.h + 1; i <= l; i++) {
    const u64 w = 1ull << i, c = (n + w - 1) / w, rows = (n + w / 2 - 1) / (w / 2);
    V f = spread(g, n, w / 2, i, rows * w, 0);
    dft(f, rows, (unsigned)i, false);
    V z(c * w);
    run(c * w, [&] { tr_interp_mul(f.data(), d.spectra[i - 1 - d.h].data(), rows, i, z.data(), c * w, P, d.pinv); });
    dft(z, c, (unsigned)i, true);
    run(n, [&] { tr_interp_add(g.data(), z.data(), n, i, g2.data(), P); });
    std::swap(g, g2);
  }
  g.resize(n);
  return g;
}

static u64 horner(const V& f, u64 x) { u64 a = 0; for (size_t k = f.size(); k-- > 0;) a = (mulm(a, x) + f[k]) % P; return a; }

int main() {
  int bad = 0, cases = 0;
  for (u64 p : {1073479681ull /* 2^30 - 2^18 + 1 */, 4611685944339202049ull}) {
    P = p;
    for (u64 n : {1ull, 2ull, 3ull, 8ull, 33ull, 64ull, 100ull, 257ull, 300ull}) {
      for (u64 hmax : {0ull, 1ull, 2ull, 6ull}) {
        V u;
        if (n >= 2) { u.push_back(0); u.push_back(P - 1); }
        while (u.size() < n) { u64 x = rnd() % P; if (std::find(u.begin(), u.end(), x) == u.end()) u.push_back(x); }
        u64 l = 0;
        while ((1ull << l) < n) l++;
        Dev d;
        d.n = n; d.l = l; d.h = std::min(hmax, l); d.pinv = neg_inv(P);
        const u64 r = (u64)(((unsigned __int128)1 << 64) % P);
        d.r2 = mulm(r, r);
        // Levels by naive products (monic, leading 1 dropped).
        std::vector<V> lev(l + 1, V(n));
        for (u64 i = 0; i <= l; i++)
          for (u64 j = 0; j * (1ull << i) < n; j++) {
            V m{1};
            for (u64 t = j << i; t < std::min(n, (j + 1) << i); t++) {
              V q(m.size() + 1, 0);
              for (size_t k = 0; k < m.size(); k++) { q[k + 1] = (q[k + 1] + m[k]) % P; q[k] = (q[k] + mulm(m[k], P - u[t])) % P; }
              m = q;
            }
            for (size_t k = 0; k + 1 < m.size(); k++) lev[i][(j << i) + k] = m[k];
          }
        // 1/rev_n(m) mod x^n.
        V rv(n + 1);
        rv[0] = 1;
        for (u64 k = 0; k < n; k++) rv[k + 1] = lev[l][n - 1 - k];
        V inv(n, 0);
        inv[0] = 1;
        for (u64 k = 1; k < n; k++) { u64 a = 0; for (u64 j = 1; j <= k; j++) a = (a + mulm(rv[j], inv[k - j])) % P; inv[k] = (P - a) % P; }
        // The levels as the device builds them (src/gpu/tree.rs: DeviceTree::build), checked
        // against the naive products.
        V cur = lev[0];
        for (u64 i = 1; i <= l; i++) {
          const u64 w = 1ull << i, c = (n + w - 1) / w, nspec = (n + w / 2 - 1) / (w / 2);
          if (i - 1 < d.h) d.levels.push_back(cur);
          V next(n);
          if (i <= d.h) {
            run(n, [&] { tr_tree_plain(cur.data(), n, i, next.data(), P, d.pinv, d.r2); });
          } else {
            d.spectra.push_back(spectrum(d, cur, w / 2, i, nspec));
            V z(c * w);
            run(c * w, [&] { tr_tree_mul(d.spectra.back().data(), nspec, i, z.data(), c * w, P, d.pinv); });
            dft(z, c, (unsigned)i, true);
            run(n, [&] { tr_tree_add(cur.data(), z.data(), n, i, next.data(), P, d.pinv); });
          }
          if (next != lev[i] && bad++ < 10) printf("tree p=%llu n=%llu H=%llu: level %llu\n", p, n, d.h, i);
          cur = next;
        }
        d.root = spectrum(d, inv, n, l + 1, 1);
        V f(n);
        for (auto& c : f) c = rnd() % 3 == 0 ? P - 1 : rnd() % P;
        V v = evaluate(d, f);
        for (u64 i = 0; i < n; i++)
          if (v[i] != horner(f, u[i])) { if (bad++ < 10) printf("evaluate p=%llu n=%llu H=%llu: value %llu\n", p, n, d.h, i); break; }
        // Weights 1/m'(u_i) naively; interpolation must give f back.
        V c(n);
        for (u64 i = 0; i < n; i++) {
          u64 m = 1;
          for (u64 j = 0; j < n; j++) if (j != i) m = mulm(m, (u[i] + P - u[j]) % P);
          c[i] = mulm(v[i], invm(m));
        }
        if (combine(d, c) != f) { if (bad++ < 10) printf("interpolate p=%llu n=%llu H=%llu\n", p, n, d.h); }
        cases++;
      }
    }
  }
  printf("tree kernels: %d cases, %d failures\n", cases, bad);
  return bad != 0;
}
