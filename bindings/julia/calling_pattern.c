/* The calls of Gpmp.jl as Julia makes them, in C (Julia is not installed where gpmp is tested):
 * - every integer is its own heap object (Julia's BigInt: an __mpz_struct allocated on its own),
 *   passed as arrays of pointers (pointer_from_objref);
 * - results are fresh integers (BigInt(): mpz_init, no limbs) that gpmp grows;
 * - GMP's memory functions are replaced by counting ones that record the thread that calls them
 *   (Julia's are counted by its GC and must run on the calling thread): a call that allocates
 *   from another thread fails.
 * Every export Gpmp.jl calls is exercised (gpmp_poly_mul_ptr, _mul_alg_ptr, _sqr_ptr and
 * gpmp_mpz_{add,sub,mul,addmul,addmod,submod,mulmod,powm}_n_ptr); each result is compared with
 * GMP's own arithmetic. Prints "julia pattern: N passed, M failed"
 * and exits nonzero on a failure. */
#include <gmp.h>
#include <gpmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_t main_thread;
static unsigned long allocs, off_thread;
static int passed, failed;

static void note(void)
{
  __atomic_add_fetch(&allocs, 1, __ATOMIC_RELAXED);
  if (!pthread_equal(pthread_self(), main_thread)) __atomic_add_fetch(&off_thread, 1, __ATOMIC_RELAXED);
}
static void *counted_alloc(size_t n) { note(); return malloc(n); }
static void *counted_realloc(void *p, size_t old, size_t n) { (void)old; note(); return realloc(p, n); }
static void counted_free(void *p, size_t n) { (void)n; note(); free(p); }

static void expect(int ok, const char *what)
{
  if (ok) passed++;
  else { failed++; fprintf(stderr, "FAIL %s (%s)\n", what, gpmp_last_error()); }
}

/* A gpmp call's status, and that it made no GMP allocation off the calling thread. */
static void expect_call(gpmp_status s, const char *what)
{
  static unsigned long seen;
  unsigned long off = __atomic_load_n(&off_thread, __ATOMIC_RELAXED), n = off - seen;
  seen = off;
  expect(s == GPMP_SUCCESS, what);
  if (n) {
    failed++;
    fprintf(stderr, "FAIL %s: %lu GMP allocations off the calling thread\n", what, n);
  }
}

/* BigInt[]: n separately allocated integers, and the array of their pointers. */
typedef struct { size_t n; mpz_ptr *p; } bigvec;

static bigvec bigvec_new(size_t n)
{
  bigvec v = { n, malloc((n ? n : 1) * sizeof(mpz_ptr)) };
  for (size_t i = 0; i < n; i++) { v.p[i] = malloc(sizeof(__mpz_struct)); mpz_init(v.p[i]); }
  return v;
}
static void bigvec_free(bigvec v)
{
  for (size_t i = 0; i < v.n; i++) { mpz_clear(v.p[i]); free(v.p[i]); }
  free(v.p);
}

static uint64_t rng_state = 42;
static uint64_t rnd(void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Random values of up to `bits` bits, random signs, with zeros, ±1 and all-ones limbs mixed in. */
static bigvec random_vec(size_t n, unsigned bits)
{
  bigvec v = bigvec_new(n);
  for (size_t i = 0; i < n; i++) {
    unsigned kind = (unsigned)(rnd() % 8);
    if (kind == 0) mpz_set_ui(v.p[i], 0);
    else if (kind == 1) mpz_set_si(v.p[i], (rnd() & 1) ? 1 : -1);
    else if (kind == 2) { mpz_set_ui(v.p[i], 1); mpz_mul_2exp(v.p[i], v.p[i], bits); mpz_sub_ui(v.p[i], v.p[i], 1); }
    else {
      size_t limbs = (bits + 63) / 64;
      mp_limb_t *d = mpz_limbs_write(v.p[i], (mp_size_t)limbs);
      for (size_t j = 0; j < limbs; j++) d[j] = rnd();
      if (bits % 64) d[limbs - 1] &= (((mp_limb_t)1) << (bits % 64)) - 1;
      mpz_limbs_finish(v.p[i], (mp_size_t)limbs);
    }
    if (rnd() & 1) mpz_neg(v.p[i], v.p[i]);
  }
  return v;
}

static void poly_products(size_t fl, size_t gl, unsigned bits)
{
  char what[96];
  bigvec f = random_vec(fl, bits), g = random_vec(gl, bits), h = bigvec_new(fl + gl - 1);
  mpz_t t, want;
  mpz_init(t);
  mpz_init(want);
  snprintf(what, sizeof what, "gpmp_poly_mul_ptr %zu x %zu, %u bits", fl, gl, bits);
  expect_call(gpmp_poly_mul_ptr(h.p, (const mpz_srcptr *)f.p, fl, (const mpz_srcptr *)g.p, gl), what);
  int ok = 1;
  for (size_t k = 0; k < fl + gl - 1 && ok; k++) {
    mpz_set_ui(want, 0);
    for (size_t i = (k >= gl ? k - gl + 1 : 0); i <= k && i < fl; i++) mpz_addmul(want, f.p[i], g.p[k - i]);
    ok = mpz_cmp(want, h.p[k]) == 0;
  }
  expect(ok, what);
  /* Results written over the inputs: h[i] points at f[i] for i < fl (distinct outputs). */
  {
    bigvec fc = bigvec_new(fl);
    mpz_ptr *hp = malloc((fl + gl - 1) * sizeof(mpz_ptr));
    for (size_t i = 0; i < fl; i++) mpz_set(fc.p[i], f.p[i]);
    bigvec extra = bigvec_new(gl - 1);
    for (size_t i = 0; i < fl; i++) hp[i] = fc.p[i];
    for (size_t i = 0; i + 1 < gl; i++) hp[fl + i] = extra.p[i];
    snprintf(what, sizeof what, "gpmp_poly_mul_ptr onto its input, %zu x %zu", fl, gl);
    expect_call(gpmp_poly_mul_ptr(hp, (const mpz_srcptr *)fc.p, fl, (const mpz_srcptr *)g.p, gl), what);
    ok = 1;
    for (size_t k = 0; k < fl + gl - 1 && ok; k++) ok = mpz_cmp(hp[k], h.p[k]) == 0;
    expect(ok, what);
    free(hp);
    bigvec_free(fc);
    bigvec_free(extra);
  }
  mpz_clear(t);
  mpz_clear(want);
  bigvec_free(f);
  bigvec_free(g);
  bigvec_free(h);
}

/* polysqr and polymul(; alg) of Gpmp.jl: gpmp_poly_sqr_ptr, gpmp_poly_mul_alg_ptr against
 * gpmp_poly_mul_ptr (checked above against GMP). */
static void poly_variants(size_t n, unsigned bits)
{
  char what[96];
  bigvec f = random_vec(n, bits), g = random_vec(n / 2 + 1, bits);
  bigvec want = bigvec_new(2 * n - 1), got = bigvec_new(2 * n - 1);
  expect_call(gpmp_poly_mul_ptr(want.p, (const mpz_srcptr *)f.p, n, (const mpz_srcptr *)f.p, n), "square by mul");
  snprintf(what, sizeof what, "gpmp_poly_sqr_ptr %zu, %u bits", n, bits);
  expect_call(gpmp_poly_sqr_ptr(got.p, (const mpz_srcptr *)f.p, n), what);
  int ok = 1;
  for (size_t k = 0; k < 2 * n - 1; k++) ok &= mpz_cmp(got.p[k], want.p[k]) == 0;
  expect(ok, what);
  size_t hl = n + g.n - 1;
  expect_call(gpmp_poly_mul_ptr(want.p, (const mpz_srcptr *)f.p, n, (const mpz_srcptr *)g.p, g.n), "mul");
  for (int alg = GPMP_MUL_SCHOOLBOOK; alg <= GPMP_MUL_BIG_PRIME_FFT; alg++) {
    snprintf(what, sizeof what, "gpmp_poly_mul_alg_ptr alg %d, %zu, %u bits", alg, n, bits);
    expect_call(gpmp_poly_mul_alg_ptr(got.p, (const mpz_srcptr *)f.p, n, (const mpz_srcptr *)g.p, g.n, (gpmp_mul_alg)alg), what);
    ok = 1;
    for (size_t k = 0; k < hl; k++) ok &= mpz_cmp(got.p[k], want.p[k]) == 0;
    expect(ok, what);
  }
  bigvec_free(f);
  bigvec_free(g);
  bigvec_free(want);
  bigvec_free(got);
}

/* add, sub, mul, addmul!, addmod, submod, mulmod, powm of Gpmp.jl against GMP, element by element. */
static void elementwise(size_t n, unsigned bits)
{
  char what[96];
  bigvec a = random_vec(n, bits), b = random_vec(n, bits / 2 + 1), r = bigvec_new(n);
  mpz_t m, want;
  mpz_init(want);
  mpz_init_set_ui(m, 1);
  mpz_mul_2exp(m, m, bits);
  mpz_sub_ui(m, m, 159); /* odd */
  const mpz_srcptr *ap = (const mpz_srcptr *)a.p, *bp = (const mpz_srcptr *)b.p;
  for (int op = 0; op < 8; op++) {
    static const char *names[] = {"add", "sub", "mul", "addmul", "addmod", "submod", "mulmod", "powm"};
    gpmp_status s;
    if (op == 3)
      for (size_t i = 0; i < n; i++) mpz_set(r.p[i], a.p[n - 1 - i]); /* addmul: r is read too */
    if (op == 7)
      for (size_t i = 0; i < n; i++) mpz_abs(b.p[i], b.p[i]); /* powm: exponents >= 0 */
    switch (op) {
    case 0: s = gpmp_mpz_add_n_ptr(r.p, ap, bp, n); break;
    case 1: s = gpmp_mpz_sub_n_ptr(r.p, ap, bp, n); break;
    case 2: s = gpmp_mpz_mul_n_ptr(r.p, ap, bp, n); break;
    case 3: s = gpmp_mpz_addmul_n_ptr(r.p, ap, bp, n); break;
    case 4: s = gpmp_mpz_addmod_n_ptr(r.p, ap, bp, m, n); break;
    case 5: s = gpmp_mpz_submod_n_ptr(r.p, ap, bp, m, n); break;
    case 6: s = gpmp_mpz_mulmod_n_ptr(r.p, ap, bp, m, n); break;
    default: s = gpmp_mpz_powm_n_ptr(r.p, ap, bp, m, n); break;
    }
    snprintf(what, sizeof what, "gpmp_mpz_%s_n_ptr, %zu x %u bits", names[op], n, bits);
    expect_call(s, what);
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
      switch (op) {
      case 0: mpz_add(want, a.p[i], b.p[i]); break;
      case 1: mpz_sub(want, a.p[i], b.p[i]); break;
      case 2: mpz_mul(want, a.p[i], b.p[i]); break;
      case 3: mpz_set(want, a.p[n - 1 - i]); mpz_addmul(want, a.p[i], b.p[i]); break;
      case 4: mpz_add(want, a.p[i], b.p[i]); mpz_mod(want, want, m); break;
      case 5: mpz_sub(want, a.p[i], b.p[i]); mpz_mod(want, want, m); break;
      case 6: mpz_mul(want, a.p[i], b.p[i]); mpz_mod(want, want, m); break;
      default: mpz_powm(want, a.p[i], b.p[i], m); break;
      }
      ok = mpz_cmp(want, r.p[i]) == 0;
    }
    expect(ok, what);
  }
  mpz_clear(m);
  mpz_clear(want);
  bigvec_free(a);
  bigvec_free(b);
  bigvec_free(r);
}

int main(void)
{
  main_thread = pthread_self();
  mp_set_memory_functions(counted_alloc, counted_realloc, counted_free);
  /* Julia's default: all cores (gpmp's default too); then one thread. */
  for (int threads = 0; threads <= 1; threads++) {
    expect_call(gpmp_set_num_threads(threads), "gpmp_set_num_threads");
    poly_products(1, 1, 64);
    poly_products(3, 7, 200);
    poly_products(64, 64, 300);
    poly_products(5000, 4000, 300);
    poly_products(300, 200, 3000);
    poly_variants(40, 200);
    poly_variants(3000, 100);
    elementwise(1, 64);
    elementwise(500, 300);
    elementwise(2000, 600);
  }
  printf("allocator calls: %lu, off the calling thread: %lu\n", allocs, off_thread);
  expect(allocs > 0, "the counting allocator was used");
  expect(off_thread == 0, "no GMP allocation off the calling thread");
  printf("julia pattern: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
