// Runs kernels/batch.cu on the host, one "thread" at a time (CUDA built-ins shimmed; the 64×64
// multiply-add in its portable form, the reference of the device's PTX form), against GMP
// (mpz_mul + mpz_mod, mpz_powm): moduli of 1..L limbs padded to L (3, 2^64k − 1, top bit set,
// random odd), inputs 0, ±1, m − 1, ±m, 2^b − 1, random of 0..3L+1 limbs with random signs,
// exponents 0, 1, 2^k − 1 and random of mixed sizes, destinations too small (overflow flag),
// negative exponents (flag). Built by tests/kernel_emulation.rs with -DL=<limbs>, -DZM_W=<window bits>
// -DZM_SQR=<0 or 1> (squares by mont or by mont_sqr) and -DZM_MUL2=<0 or 1> (mulmod's two-product
// path for operands of at most L limbs).
#include "../emulate_cuda.h"
#include "batch.cu"

static void set_limbs(mpz_t z, const u64* w, unsigned k) {
  mpz_set_ui(z, 0);
  for (int j = k - 1; j >= 0; j--) { mpz_mul_2exp(z, z, 64); mpz_add_ui(z, z, w[j]); }
}

struct Vec { unsigned n, l; std::vector<u64> d; std::vector<u8> s; };
static Vec pack(const std::vector<mpz_t>& x, unsigned bits) {
  unsigned n = x.size();
  Vec v{n, (bits + 63) / 64, {}, {}};
  v.d.assign((size_t)v.l * n + 1, 0xdeadull);
  v.s.assign(n + 1, 7);
  for (unsigned i = 0; i < n; i++) {
    size_t sz = mpz_size(x[i]);
    for (unsigned j = 0; j < v.l; j++) v.d[(size_t)j * n + i] = j < sz ? mpz_getlimbn(x[i], j) : 0;
    v.s[i] = mpz_sgn(x[i]) < 0;
  }
  return v;
}
static unsigned bits_of(const std::vector<mpz_t>& x) {
  size_t b = 0;
  for (auto& z : x) if (mpz_sgn(z) && mpz_sizeinbase(z, 2) > b) b = mpz_sizeinbase(z, 2);
  return b;
}

int main() {
  int fails = 0;
  long checks = 0;
  mpz_t m, R, t, want, got;
  mpz_inits(m, R, t, want, got, NULL);
  for (int it = 0; it < 120; it++) {
    // the modulus: lm ≤ L limbs, odd, > 1
    unsigned lm = 1 + rnd() % L, kind = rnd() % 4;
    if (kind == 0) mpz_set_ui(m, 3), lm = 1;
    else if (kind == 1) { mpz_set_ui(m, 0); mpz_setbit(m, 64 * lm); mpz_sub_ui(m, m, 1); }
    else {
      gen(m, 64 * lm, false);
      mpz_setbit(m, kind == 2 ? 64 * lm - 1 : 64 * lm - 1 - rnd() % 64);
      mpz_setbit(m, 0);
      if (mpz_cmp_ui(m, 1) <= 0) mpz_set_ui(m, 3);
    }
    lm = mpz_size(m);
    Mod P;
    for (int j = 0; j < L; j++) P.m[j] = (unsigned)j < lm ? mpz_getlimbn(m, j) : 0;
    u64 inv = P.m[0];
    for (int k = 0; k < 5; k++) inv *= 2 - P.m[0] * inv;
    P.minv = -inv;
    // inputs of at most L limbs in a third of the batches (mulmod's two-product path with ZM_MUL2)
    unsigned n = 1 + rnd() % 150, maxl = rnd() % 3 == 0 ? L : 3 * L + 1;
    unsigned lr = (unsigned)lm + (rnd() % 4 == 0 ? -(int)(rnd() % 2) : rnd() % 3);
    unsigned rtop = lr > 0 && rnd() % 3 == 0 ? 1 + rnd() % 63 : 0;
    // rows R^(k+1) mod m for k ≤ ⌈maxl/L⌉
    std::vector<u64> pw;
    mpz_set_ui(R, 0), mpz_setbit(R, 64 * L);
    mpz_mod(t, R, m);
    for (unsigned k = 0; k <= (maxl + L - 1) / L + 1; k++) {
      for (int j = 0; j < L; j++) pw.push_back((size_t)j < mpz_size(t) ? mpz_getlimbn(t, j) : 0);
      mpz_mul(t, t, R), mpz_mod(t, t, m);
    }
    std::vector<mpz_t> A(n), B(n), E(n);
    bool negexp = rnd() % 8 == 0;
    for (unsigned i = 0; i < n; i++) {
      mpz_inits(A[i], B[i], E[i], NULL);
      unsigned ka = rnd() % 8;
      if (ka == 0) mpz_sub_ui(A[i], m, 1);
      else if (ka == 1) mpz_set(A[i], m);
      else if (ka == 2) mpz_neg(A[i], m);
      else gen(A[i], 64 * (rnd() % (maxl + 1)), true);
      if (rnd() % 5 == 0) mpz_set(B[i], A[i]);
      else gen(B[i], 64 * (rnd() % (maxl + 1)), true);
      unsigned ke = rnd() % 6;
      if (ke == 0) mpz_set_ui(E[i], rnd() % 3);
      else if (ke == 1) { mpz_set_ui(E[i], 0); mpz_setbit(E[i], rnd() % 300); mpz_sub_ui(E[i], E[i], 1); }
      else gen(E[i], rnd() % 2 ? 64 * L : rnd() % 400, false);
    }
    if (negexp) mpz_set_si(E[rnd() % n], -5);
    Vec a = pack(A, bits_of(A)), b = pack(B, bits_of(B)), e = pack(E, bits_of(E));
    Vec r{n, lr, std::vector<u64>((size_t)lr * n + 1, 0xbeef), std::vector<u8>(n + 1, 9)};
    for (int op = 0; op < 2; op++) {
      unsigned flag = 0;
      for (unsigned bl = 0; bl * NT < n; bl++)
        for (unsigned th = 0; th < NT; th++) {
          blockIdx.x = bl, threadIdx.x = th;
          if (op == 0) zm_mulmod(r.d.data(), r.s.data(), a.d.data(), a.s.data(), b.d.data(), b.s.data(), n, a.l, b.l, lr, rtop, pw.data(), P, &flag);
          else zm_powm(r.d.data(), r.s.data(), a.d.data(), a.s.data(), e.d.data(), e.s.data(), n, a.l, e.l, lr, rtop, pw.data(), P, &flag);
        }
      unsigned cap = 64 * lr - (rtop ? 64 - rtop : 0);
      bool over = false;
      for (unsigned i = 0; i < n; i++) {
        if (op == 0) { mpz_mul(want, A[i], B[i]); mpz_mod(want, want, m); }
        else {
          if (mpz_sgn(E[i]) < 0) continue;
          mpz_powm(want, A[i], E[i], m);
        }
        if (mpz_sgn(want) && mpz_sizeinbase(want, 2) > cap) { over = true; continue; }
        checks++;
        std::vector<u64> w(r.l);
        for (unsigned j = 0; j < r.l; j++) w[j] = r.d[(size_t)j * n + i];
        set_limbs(got, w.data(), r.l);
        if (r.s[i] != 0 || mpz_cmp(got, want)) {
          if (fails++ < 5) gmp_printf("L=%d op %d m=%Zx element %u (a=%Zx b=%Zx e=%Zx): %Zx, want %Zx\n", L, op, m, i, A[i], B[i], E[i], got, want);
        }
      }
      unsigned want_flag = (over ? 1u : 0u) | (op == 1 && negexp ? 2u : 0u);
      if ((flag & 2) != (want_flag & 2) || (!(op == 1 && negexp) && ((flag & 1) != 0) != over)) {
        fails++;
        printf("L=%d op %d: flag %u, want %u\n", L, op, flag, want_flag);
      }
    }
    for (unsigned i = 0; i < n; i++) mpz_clears(A[i], B[i], E[i], NULL);
  }
  mpz_clears(m, R, t, want, got, NULL);
  printf("L=%d: %ld checks, %d failures\n", L, checks, fails);
  return fails != 0;
}
