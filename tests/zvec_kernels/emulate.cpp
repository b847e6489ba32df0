// Runs kernels/zvec.cu on the host, one "thread" at a time (CUDA built-ins shimmed; the product's
// multiply-accumulate in its portable form, the reference of the device's PTX form), on random and
// adversarial batches (0, ±1, 2^b − 1, random sizes 0..4096 bits, b = ±a, mixed operand sizes,
// destinations too small), against GMP. Built by tests/kernel_emulation.rs with -DC=<limbs> (add/sub,
// zv_mul and zv_mulc) or -DCW=<limbs> (the wide chunked product zv_mulw alone, also on operands of
// 4096 bits and just below, including maximal ones: all-ones limbs).
// zv_addsubv (-DZA_K, -DZA_V) is checked with zv_addsub on every batch whose n is a multiple of ZA_V.
#include "../emulate_cuda.h"
#include "zvec.cu"
#ifdef CW
#define CHUNK CW
#define CHUNK_NAME "CW"
#else
#define CHUNK C
#define CHUNK_NAME "C"
#endif

// A word-major batch with poisoned padding.
struct Vec { unsigned n, l; std::vector<u64> d; std::vector<u8> s; };
static Vec make(unsigned n, unsigned bits) {
  Vec v{n, (bits + 63) / 64, {}, {}};
  v.d.assign((size_t)v.l * n + 1, 0xdeadull);
  v.s.assign(n + 1, 7);
  return v;
}
static Vec pack(const std::vector<mpz_t>& x, unsigned bits) {
  unsigned n = x.size();
  Vec v = make(n, bits);
  for (unsigned i = 0; i < n; i++) {
    size_t sz = mpz_size(x[i]);
    for (unsigned j = 0; j < v.l; j++) v.d[(size_t)j * n + i] = j < sz ? mpz_getlimbn(x[i], j) : 0;
    v.s[i] = mpz_sgn(x[i]) < 0;
  }
  return v;
}
// Element i of v; -1 when it is a negative zero.
static int unpack(mpz_t z, const Vec& v, unsigned i) {
  mpz_set_ui(z, 0);
  for (int j = v.l - 1; j >= 0; j--) { mpz_mul_2exp(z, z, 64); mpz_add_ui(z, z, v.d[(size_t)j * v.n + i]); }
  if (v.s[i] > 1 || (v.s[i] && !mpz_sgn(z))) return -1;
  if (v.s[i]) mpz_neg(z, z);
  return 0;
}
template <class F> static void launch(unsigned n, F f) {
  for (unsigned b = 0; b * NT < n; b++)
    for (unsigned t = 0; t < NT; t++) { blockIdx.x = b; threadIdx.x = t; f(); }
}

int main() {
  int fails = 0;
  long checks = 0;
#ifdef CW
  const unsigned sizes[] = {0, 1, 64, 65, 200, 1024, 1100, 2048, 2049, 3000, 3968, 4032, 4095, 4096, 4096, 4096};
  const int iters = 200;
#else
  const unsigned sizes[] = {0, 1, 63, 64, 65, 127, 128, 200, 256, 300, 512, 640, 1024, 1100, 2048, 3000, 4096};
  const int iters = 300;
#endif
  const unsigned ns = sizeof sizes / sizeof sizes[0];
  mpz_t want, got;
  mpz_init(want), mpz_init(got);
  for (int it = 0; it < iters; it++) {
    unsigned n = 1 + rnd() % 200, ba = sizes[rnd() % ns], bb = sizes[rnd() % ns];
    std::vector<mpz_t> A(n), B(n);
    int copy = rnd() % 6;
    if (copy < 2) bb = ba;
    for (unsigned i = 0; i < n; i++) {
      mpz_init(A[i]), mpz_init(B[i]);
      gen(A[i], ba, true);
      if (rnd() % 8 == 0) {  // maximal: 2^ba − 1, all-ones limbs
        mpz_set_ui(A[i], 0), mpz_setbit(A[i], ba), mpz_sub_ui(A[i], A[i], 1);
        if (rnd() & 1) mpz_neg(A[i], A[i]);
      }
      if (copy == 0) mpz_neg(B[i], A[i]);
      else if (copy == 1) mpz_set(B[i], A[i]);
      else gen(B[i], bb, true);
      if (copy > 1 && rnd() % 8 == 0) mpz_set_ui(B[i], 0), mpz_setbit(B[i], bb), mpz_sub_ui(B[i], B[i], 1);
    }
    Vec a = pack(A, ba), b = pack(B, bb);
#ifndef CW
    unsigned mb = ba > bb ? ba : bb;
    for (unsigned sub = 0; sub < 2; sub++) {
      unsigned rb = mb + 1 - (rnd() % 3 == 0 ? 1 + rnd() % 2 : 0);
      if (rb > mb + 1) rb = 0;  // wrapped below zero
      // zv_addsub, then zv_addsubv (ZA_V elements a thread: when n is a multiple of ZA_V)
      for (int kind = 0; kind < (n % ZA_V == 0 ? 2 : 1); kind++) {
        Vec r = make(n, rb);
        unsigned flag = 0;
        if (kind == 0)
          launch(n, [&] { zv_addsub(r.d.data(), r.s.data(), a.d.data(), a.s.data(), b.d.data(), b.s.data(), n, a.l, b.l, r.l, rb % 64, sub, &flag); });
        else
          launch(n / ZA_V, [&] { zv_addsubv(r.d.data(), r.s.data(), a.d.data(), a.s.data(), b.d.data(), b.s.data(), n, a.l, b.l, r.l, rb % 64, sub, &flag); });
        bool over = false;
        for (unsigned i = 0; i < n; i++) {
          if (sub) mpz_sub(want, A[i], B[i]); else mpz_add(want, A[i], B[i]);
          if (mpz_sgn(want) && mpz_sizeinbase(want, 2) > rb) { over = true; continue; }
          checks++;
          if (unpack(got, r, i) || mpz_cmp(got, want)) {
            if (fails++ < 5) gmp_printf("C=%d ZA_K=%d ZA_V=%d kernel %d sub=%u %u±%u bits into %u, element %u: %Zd, want %Zd\n", C, ZA_K, ZA_V, kind, sub, ba, bb, rb, i, got, want);
          }
        }
        if (over != (flag != 0)) { fails++; printf("C=%d kernel %d sub=%u: flag %u, overflow %d\n", C, kind, sub, flag, over); }
      }
    }
#endif
    unsigned rb = ba + bb + (rnd() % 3 == 0 ? rnd() % 200 : 0);
    Vec r = make(n, rb);
#ifdef CW
    auto mul = zv_mulw;
#else
    auto mul = a.l <= C && b.l <= C ? zv_mul : zv_mulc;
#endif
    launch(n, [&] { mul(r.d.data(), r.s.data(), a.d.data(), a.s.data(), b.d.data(), b.s.data(), n, a.l, b.l, r.l); });
    for (unsigned i = 0; i < n; i++) {
      mpz_mul(want, A[i], B[i]);
      checks++;
      if (unpack(got, r, i) || mpz_cmp(got, want)) {
        if (fails++ < 5) gmp_printf("%d mul %u·%u bits into %u, element %u: %Zd, want %Zd\n", CHUNK, ba, bb, rb, i, got, want);
      }
    }
    for (unsigned i = 0; i < n; i++) mpz_clear(A[i]), mpz_clear(B[i]);
  }
  mpz_clear(want), mpz_clear(got);
  printf("%s=%d: %ld checks, %d failures\n", CHUNK_NAME, CHUNK, checks, fails);
  return fails != 0;
}
