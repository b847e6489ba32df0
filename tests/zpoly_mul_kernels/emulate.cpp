// Runs the Taylor shift's path through kernels/zpoly_mul.cu on the host: `residues` of f reversed,
// `shift_scale` (one block per prime, its threads switching at every barrier), the linear
// convolution of its two operands modulo p (here by schoolbook, standing in for the transforms and
// `pointwise`), `shift_unscale`, `garner` (in launches of 97 coefficients), and compares f(x + c) with the tableau computed by GMP,
// and the table left by `shift_scale` with R / j! mod p. Lengths 1, 2, 3, 17, 200, 1000 (chunks of
// zero, one and several indices a thread), coefficients of 1 to 1000 bits with signs, all-ones limbs,
// the zero polynomial, c = 0, +-1, 3, 2^64 - 1, a 200-bit c and c = p_0 (c = 0 modulo one prime).
// Primes: the fewest consecutive primes from 2^61 up whose product exceeds 2^(b+1), b the shift's bound.
// Built by tests/kernel_emulation.rs with the library's NT and with NT = 32.
#include "../emulate_cuda.h"
#include "zpoly_mul.cu"
#include <algorithm>
typedef unsigned __int128 u128;

static u64 mulm(u64 a, u64 b, u64 p) { return (u64)((u128)a * b % p); }
static u64 powm(u64 a, u64 e, u64 p) {
  u64 r = 1 % p;
  for (; e; e >>= 1, a = mulm(a, a, p))
    if (e & 1) r = mulm(r, a, p);
  return r;
}
static pair shoup_pair(u64 w, u64 p) { return pair{w, (u64)(((u128)w << 64) / p)}; }
static u64 mod_z(const mpz_t z, u64 p) {
  mpz_t t;
  mpz_init(t);
  mpz_set_ui(t, 0);
  mpz_fdiv_r_ui(t, z, p);  // non-negative
  u64 r = mpz_get_ui(t);
  mpz_clear(t);
  return r;
}

// f(x + c) by the tableau a_j += c a_(j+1) (i = n-2 .. 0, j = i .. n-2).
static void tableau(std::vector<mpz_t>& a, const mpz_t c) {
  size_t n = a.size();
  for (size_t i = n - 1; i-- > 0;)
    for (size_t j = i; j + 1 < n; j++) mpz_addmul(a[j], c, a[j + 1]);
}

static int check(unsigned len, unsigned bits, int style, const mpz_t c) {
  std::vector<mpz_t> f(len), want(len);
  for (unsigned i = 0; i < len; i++) {
    mpz_init(f[i]);
    if (style == 0) gen(f[i], bits, true);
    else if (style == 1) { mpz_set_ui(f[i], 0); mpz_setbit(f[i], 64 * ((bits + 63) / 64)); mpz_sub_ui(f[i], f[i], 1); if (i % 3 == 1) mpz_neg(f[i], f[i]); }
    else mpz_set_ui(f[i], 0);
    mpz_init_set(want[i], f[i]);
  }
  tableau(want, c);
  // The bound: bits + ceil(log2 len) + (len - 1) bits(c), as zpoly::taylor_shift::shift_bits.
  unsigned fb = 0;
  for (auto& z : f) fb = std::max(fb, mpz_sgn(z) ? (unsigned)mpz_sizeinbase(z, 2) : 0u);
  unsigned lg = 0;
  while ((1u << lg) < len) lg++;
  const unsigned cb = mpz_sgn(c) ? (unsigned)mpz_sizeinbase(c, 2) : 0;
  const unsigned b = fb + lg + (len - 1) * cb + 1;
  // Primes above 2^61 with product M > 2^(b+1).
  std::vector<u64> primes;
  mpz_t M, q;
  mpz_inits(M, q, NULL);
  mpz_set_ui(M, 1);
  mpz_set_ui(q, 1);
  mpz_mul_2exp(q, q, 61);
  while (mpz_sizeinbase(M, 2) <= b + 2) {
    mpz_nextprime(q, q);
    primes.push_back(mpz_get_ui(q));
    mpz_mul_ui(M, M, mpz_get_ui(q));
  }
  const unsigned k = primes.size();
  const unsigned W = mpz_size(M), S = (b + 63) / 64;
  unsigned n = 2;
  while (n < 2 * len - 1) n *= 2;
  // Inputs: f reversed, L limbs each, and the constants.
  unsigned L = 1;
  for (auto& z : f) L = std::max(L, (unsigned)mpz_size(z));
  std::vector<u64> limbs((size_t)len * L, 0);
  std::vector<unsigned char> neg(len);
  for (unsigned m = 0; m < len; m++) {
    const mpz_t& z = f[len - 1 - m];
    for (unsigned t = 0; t < mpz_size(z); t++) limbs[(size_t)m * L + t] = mpz_getlimbn(z, t);
    neg[m] = mpz_sgn(z) < 0;
  }
  std::vector<pair> w;
  std::vector<u64> mont, cres;
  for (u64 p : primes) {
    u64 x = 1, r = (u64)(((u128)1 << 64) % p);
    for (unsigned t = 0; t < L; t++, x = mulm(x, r, p)) w.push_back(shoup_pair(x, p));
    u64 inv = p;
    for (int s = 0; s < 6; s++) inv *= 2 - p * inv;
    pair rp = shoup_pair(r, p);
    mont.insert(mont.end(), {p, (u64)0 - inv, rp.v, rp.q});
    cres.push_back(mod_z(c, p));
  }
  std::vector<std::vector<u64>> row(k, std::vector<u64>(2 * n, 0x5555));
  std::vector<u64*> rows(k);
  for (unsigned i = 0; i < k; i++) rows[i] = row[i].data();
  // residues
  for (unsigned i = 0; i < k; i++)
    for (u64 m = 0; m < n; m++) {
      blockIdx.x = m / NT, threadIdx.x = m % NT, blockIdx.y = i;
      residues(limbs.data(), neg.data(), len, L, n, primes.data(), w.data(), rows.data(), 0);
    }
  blockIdx.y = 0;
  std::vector<u64> inv((size_t)k * len, 0x7777);
  emulate_blocks(k, NT, 0, [&] { shift_scale(rows.data(), len, n, mont.data(), cres.data(), inv.data()); });
  int bad = 0;
  for (unsigned i = 0; i < k; i++) {
    const u64 p = primes[i], r = mont[4 * i + 2];
    u64 fact = 1;
    for (unsigned j = 0; j < len; j++) {
      if (j) fact = mulm(fact, j, p);
      if (inv[(size_t)i * len + j] != mulm(r, powm(fact, p - 2, p), p)) bad++;
    }
    for (unsigned m = len; m < n; m++) bad += row[i][m] != 0 || row[i][n + m] != 0;
    // the linear convolution of a and b (len each; no wrap in n >= 2 len - 1 positions)
    std::vector<u64> h(n, 0);
    for (unsigned x = 0; x < len; x++)
      for (unsigned y = 0; y < len; y++) h[x + y] = (h[x + y] + mulm(row[i][x], row[i][n + y], p)) % p;
    std::copy(h.begin(), h.end(), row[i].begin());
  }
  if (bad) printf("len %u: %d wrong table or padding words\n", len, bad);
  for (unsigned i = 0; i < k; i++)
    for (u64 m = 0; m < (len + 1) / 2; m++) {
      blockIdx.x = m / NT, threadIdx.x = m % NT, blockIdx.y = i;
      shift_unscale(rows.data(), len, mont.data(), inv.data());
    }
  blockIdx.y = 0;
  // garner's constants: g_ij = P_j / P_i, g_ii = 1 / P_i mod p_i; M and floor(M / 2).
  std::vector<pair> g;
  for (unsigned i = 0; i < k; i++) {
    const u64 p = primes[i];
    std::vector<u64> pj;
    u64 x = 1;
    for (unsigned j = 0; j < i; j++) pj.push_back(x), x = mulm(x, primes[j] % p, p);
    const u64 ix = powm(x, p - 2, p);
    for (u64 v : pj) g.push_back(shoup_pair(mulm(v, ix, p), p));
    g.push_back(shoup_pair(ix, p));
  }
  std::vector<u64> mod(W), half(W), xs((size_t)W * len), out((size_t)len * S);
  std::vector<unsigned char> oneg(len);
  mpz_fdiv_q_2exp(q, M, 1);
  for (unsigned t = 0; t < W; t++) mod[t] = mpz_getlimbn(M, t), half[t] = mpz_getlimbn(q, t);
  // In launches of 97 coefficients (the last one shorter), as the pipeline's blocks; each launch's
  // grid covers its range rounded up to whole blocks.
  for (u64 m0 = 0; m0 < len; m0 += 97) {
    const u64 m1 = std::min<u64>(m0 + 97, len);
    for (u64 r = 0; r < (m1 - m0 + NT - 1) / NT * NT; r++) {
      blockIdx.x = r / NT, threadIdx.x = r % NT;
      garner(rows.data(), len, m0, m1, k, primes.data(), g.data(), mod.data(), half.data(), W, xs.data(), out.data(), S, oneg.data());
    }
  }
  mpz_t got;
  mpz_init(got);
  int wrong = 0;
  for (unsigned m = 0; m < len; m++) {
    mpz_set_ui(got, 0);
    for (unsigned t = S; t-- > 0;) mpz_mul_2exp(got, got, 64), mpz_add_ui(got, got, out[(size_t)m * S + t]);
    if (oneg[m]) mpz_neg(got, got);
    if (mpz_cmp(got, want[m]) != 0 || (oneg[m] && !mpz_sgn(got))) wrong++;
  }
  if (wrong) gmp_printf("len %u, %u bits, style %d, c = %Zd: %d wrong coefficients of %u (k = %u)\n", len, bits, style, c, wrong, len, k);
  for (unsigned i = 0; i < len; i++) mpz_clears(f[i], want[i], NULL);
  mpz_clears(M, q, got, NULL);
  return bad + wrong;
}

int main() {
  int fails = 0, cases = 0;
  mpz_t c;
  mpz_init(c);
  const unsigned lens[] = {1, 2, 3, 17, 200, 1000};
  const unsigned bitss[] = {1, 64, 1000};
  for (unsigned len : lens)
    for (int ci = 0; ci < 7; ci++) {
      if (ci == 0) mpz_set_ui(c, 0);
      else if (ci == 1) mpz_set_ui(c, 1);
      else if (ci == 2) mpz_set_si(c, -1);
      else if (ci == 3) mpz_set_ui(c, 3);
      else if (ci == 4) mpz_set_ui(c, ~0ull);
      else if (ci == 5) { gen(c, 200, true); mpz_setbit(c, 199); }
      else { mpz_set_ui(c, 1); mpz_mul_2exp(c, c, 61); mpz_nextprime(c, c); mpz_neg(c, c); }
      for (unsigned bits : bitss)
        for (int style = 0; style < 3; style++) {
          // keep the schoolbook convolution and GMP's tableau small
          if (len >= 1000 && (ci >= 3 || bits > 64 || style)) continue;
          if (len >= 200 && (style == 2 || (ci >= 3 && bits > 64))) continue;
          fails += check(len, bits, style, c);
          cases++;
        }
    }
  mpz_clear(c);
  printf("zpoly_mul shift kernels (NT = %d): %d cases, %d failures\n", NT, cases, fails);
  return fails ? 1 : 0;
}
