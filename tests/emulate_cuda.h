// What the host emulations of the CUDA kernel files share (tests/*_kernels/emulate.cpp, built by
// tests/kernel_emulation.rs): the CUDA built-ins they use, shimmed for one "thread" at a time, and
// the random test values. Include it before the kernel file.
#include <gmp.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
// One "thread" at a time: a kernel's shared array, one per process, each thread using its own part.
#define __shared__ static
struct Dim { unsigned x; };
static Dim threadIdx, blockIdx;
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline unsigned atomicOr(unsigned* p, unsigned v) { unsigned o = *p; *p |= v; return o; }

static unsigned long long state = 88172645463325252ull;
static unsigned long long rnd() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }

// A random value of at most `bits` bits: 0, 1, 2^b − 1 or random b bits, random sign (if `sign`).
static void gen(mpz_t z, unsigned bits, bool sign) {
  unsigned k = rnd() % 6, b = bits ? rnd() % (bits + 1) : 0;
  mpz_set_ui(z, 0);
  if (k == 1) mpz_set_ui(z, bits ? 1 : 0);
  else if (k == 2) { mpz_setbit(z, b); mpz_sub_ui(z, z, 1); }
  else if (k > 2) {
    for (unsigned j = 0; j < b; j += 64) { mpz_mul_2exp(z, z, 64); mpz_add_ui(z, z, rnd()); }
    mpz_fdiv_r_2exp(z, z, b);
  }
  if (sign && (rnd() & 1)) mpz_neg(z, z);
}
