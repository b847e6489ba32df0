// What the host emulations of the CUDA kernel files share (tests/*_kernels/emulate.cpp, built by
// tests/kernel_emulation.rs): the CUDA built-ins they use, shimmed for the host, the random test
// values, then kernels/common.cuh, as NVRTC sees it before every kernel file. Include it before
// the kernel file; GPMP_EMULATE tells a kernel file that it is built for the host.
//
// Threads run one at a time: a kernel without barriers is called once per (blockIdx, threadIdx);
// one with __syncthreads runs under emulate_blocks, its threads switching at every barrier.
#include <gmp.h>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ucontext.h>
#include <vector>
#define GPMP_EMULATE
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __align__(n) alignas(n)
// A kernel's static shared array: one per process (each thread of a kernel without barriers uses
// its own part; under emulate_blocks the block's threads share it).
#define __shared__ static
struct Dim { unsigned x, y; };
inline Dim threadIdx, blockIdx;
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __clzll(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned atomicOr(unsigned* p, unsigned v) { unsigned o = *p; *p |= v; return o; }

// Cooperative threads for emulate_blocks: one user-space context each, switched round-robin at
// every __syncthreads, which is a barrier because every thread of a block passes the same number
// of them (a CUDA requirement): when thread t runs again, all the others have reached the barrier.
struct EmuThreads {
  std::vector<ucontext_t> ctx;
  std::vector<std::vector<char>> stacks;
  ucontext_t main;
  const std::function<void()>* body = nullptr;
  unsigned long long blocks = 0;
};
inline EmuThreads* emu_threads = nullptr;
inline void emu_switch(unsigned from, unsigned to) {
  threadIdx.x = to;
  swapcontext(&emu_threads->ctx[from], &emu_threads->ctx[to]);
}
inline void __syncthreads() {
  if (!emu_threads) return;
  const unsigned t = threadIdx.x, n = emu_threads->ctx.size();
  emu_switch(t, (t + 1) % n);
  threadIdx.x = t;
}
// The block's dynamic shared memory (extern __shared__ in the kernel file) under emulate_blocks.
inline std::vector<unsigned char> emu_shared_mem;
template <class T> T* emu_shared() { return (T*)emu_shared_mem.data(); }
inline void emu_thread_main() {
  for (unsigned long long b = 0; b < emu_threads->blocks; b++) {
    blockIdx.x = (unsigned)b;
    (*emu_threads->body)();
    __syncthreads();  // the next block finds the shared memory free
  }
  const unsigned t = threadIdx.x, n = emu_threads->ctx.size();
  if (t + 1 < n) emu_switch(t, t + 1);  // thread t + 1 returns from its last barrier
  else swapcontext(&emu_threads->ctx[t], &emu_threads->main);
}

// Runs `kernel` on `blocks` blocks of `nt` threads with `shared` bytes of dynamic shared memory,
// blocks one after another, the threads of a block as cooperative contexts.
inline void emulate_blocks(unsigned long long blocks, unsigned nt, size_t shared, const std::function<void()>& kernel) {
  emu_shared_mem.assign(shared, 0);
  EmuThreads th;
  th.ctx.resize(nt);
  th.stacks.resize(nt);
  th.body = &kernel;
  th.blocks = blocks;
  for (unsigned t = 0; t < nt; t++) {
    th.stacks[t].resize(1 << 16);
    getcontext(&th.ctx[t]);
    th.ctx[t].uc_stack.ss_sp = th.stacks[t].data();
    th.ctx[t].uc_stack.ss_size = th.stacks[t].size();
    th.ctx[t].uc_link = &th.main;
    makecontext(&th.ctx[t], emu_thread_main, 0);
  }
  emu_threads = &th;
  threadIdx.x = 0;
  swapcontext(&th.main, &th.ctx[0]);
  emu_threads = nullptr;
}

inline unsigned long long state = 88172645463325252ull;
inline unsigned long long rnd() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }

// A random value of at most `bits` bits: 0, 1, 2^b − 1 or random b bits, random sign (if `sign`).
inline void gen(mpz_t z, unsigned bits, bool sign) {
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

#include "common.cuh"
