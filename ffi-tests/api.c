/* Every export of gpmp.h from C11: version, status strings, last error, threads, backends, and the
 * Z[x] products (array and pointer forms, every algorithm, aliasing, bad input) against a GMP
 * schoolbook. Built and run by tests/ffi.rs (`cargo test`). */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>

/* ---- Algorithms that are not implemented yet: they must return GPMP_INVALID_ARGUMENT with a message
 * and write nothing. THE LEAD SHRINKS THIS LIST as the algorithms land (GPMP_MUL_BIG_PRIME_FFT stays
 * until the generalized Fermat prime fields, issue 3). Every other algorithm must give the right
 * product; a listed one may already do so. ---- */
static const int NOT_IMPLEMENTED[] = {
    GPMP_MUL_BIG_PRIME_FFT,
};

static int not_implemented(int alg) {
  for (size_t i = 0; i < sizeof NOT_IMPLEMENTED / sizeof NOT_IMPLEMENTED[0]; i++)
    if (NOT_IMPLEMENTED[i] == alg) return 1;
  return 0;
}

#define N_ALGS 9 /* GPMP_MUL_AUTO .. GPMP_MUL_BIG_PRIME_FFT */

static void test_version_and_strings(void) {
  const char *v = gpmp_version();
  CHECK(v != NULL && strcmp(v, GPMP_EXPECTED_VERSION) == 0);

  const gpmp_status all[] = {GPMP_SUCCESS,        GPMP_FAILURE,         GPMP_INVALID_ARGUMENT,
                             GPMP_NO_CUDA_DEVICE, GPMP_CUDA_ERROR,      GPMP_SIZE_TOO_LARGE,
                             GPMP_OUT_OF_MEMORY,  GPMP_INTERNAL_ERROR};
  const size_t n = sizeof all / sizeof all[0];
  for (size_t i = 0; i < n; i++) {
    const char *s = gpmp_strerror(all[i]);
    CHECK(s != NULL && s[0] != '\0');
    for (size_t j = 0; j < i; j++) CHECK(strcmp(s, gpmp_strerror(all[j])) != 0);
  }
  CHECK(strcmp(gpmp_strerror(GPMP_SUCCESS), "success") == 0);
}

/* The defaults come from GPMP_NUM_THREADS and GPMP_BACKEND (tests/ffi.rs runs this program with
 * and without them). */
static gpmp_backend default_backend(void) {
  const char *b = getenv("GPMP_BACKEND");
  return b && strcmp(b, "cpu") == 0 ? GPMP_BACKEND_CPU : GPMP_BACKEND_AUTO;
}

static void test_threads(void) {
  int t0 = gpmp_get_num_threads();
  CHECK(t0 >= 1);
  if (getenv("GPMP_NUM_THREADS")) CHECK(t0 == atoi(getenv("GPMP_NUM_THREADS")));
  CHECK(gpmp_set_num_threads(1) == GPMP_SUCCESS);
  CHECK(gpmp_get_num_threads() == 1);
  CHECK(gpmp_set_num_threads(3) == GPMP_SUCCESS);
  CHECK(gpmp_get_num_threads() == 3);
  CHECK(gpmp_set_num_threads(-1) == GPMP_INVALID_ARGUMENT);
  CHECK_LAST_ERROR("gpmp_set_num_threads");
  CHECK(gpmp_get_num_threads() == 3);
  CHECK(gpmp_set_num_threads(0) == GPMP_SUCCESS); /* all cores */
  CHECK(gpmp_get_num_threads() >= 1);
}

static void test_backend(void) {
  CHECK(gpmp_get_backend() == default_backend());
  CHECK(gpmp_set_backend(GPMP_BACKEND_CPU) == GPMP_SUCCESS);
  CHECK(gpmp_get_backend() == GPMP_BACKEND_CPU);
  reset_last_error();
  gpmp_status s = gpmp_set_backend(GPMP_BACKEND_GPU);
  if (s == GPMP_SUCCESS) { /* a machine with a usable CUDA device */
    CHECK(gpmp_get_backend() == GPMP_BACKEND_GPU);
  } else {
    CHECK(s == GPMP_NO_CUDA_DEVICE);
    CHECK_LAST_ERROR("gpmp_set_backend");
    CHECK(gpmp_get_backend() == GPMP_BACKEND_CPU);
  }
  printf("gpmp_set_backend(GPMP_BACKEND_GPU): %s\n", gpmp_strerror(s));
  CHECK(gpmp_set_backend((gpmp_backend)99) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_set_backend((gpmp_backend)-1) == GPMP_INVALID_ARGUMENT);
  CHECK(gpmp_set_backend(GPMP_BACKEND_AUTO) == GPMP_SUCCESS);
  CHECK(gpmp_get_backend() == GPMP_BACKEND_AUTO);
}

/* f·g with algorithm `alg` (alg < 0: gpmp_poly_mul) into a poisoned h, checked against `want`. */
static void check_mul(int alg, mpz_t *f, size_t flen, mpz_t *g, size_t glen, mpz_t *want) {
  size_t hlen = flen + glen - 1;
  mpz_t *h = vec_new(hlen), *before = vec_new(hlen);
  vec_poison(h, hlen);
  vec_copy(before, h, hlen);
  gpmp_status s = alg < 0 ? gpmp_poly_mul(h, f, flen, g, glen)
                          : gpmp_poly_mul_alg(h, f, flen, g, glen, (gpmp_mul_alg)alg);
  if (s == GPMP_SUCCESS) {
    CHECK(vec_equal(h, want, hlen));
  } else {
    CHECK(s == GPMP_INVALID_ARGUMENT && not_implemented(alg));
    CHECK_LAST_ERROR("gpmp_poly_mul");
    CHECK(vec_equal(h, before, hlen));
  }
  if (s != GPMP_SUCCESS && !not_implemented(alg))
    fprintf(stderr, "  alg %d, %zu x %zu: %s\n", alg, flen, glen, gpmp_strerror(s));
  vec_free(h, hlen);
  vec_free(before, hlen);
}

/* Every algorithm, the default entry point, squaring and the pointer form on one pair of operands. */
static void check_all_forms(mpz_t *f, size_t flen, mpz_t *g, size_t glen) {
  size_t hlen = flen + glen - 1;
  mpz_t *want = vec_new(hlen);
  schoolbook(want, f, flen, g, glen);
  check_mul(-1, f, flen, g, glen, want);
  for (int alg = 0; alg < N_ALGS; alg++) check_mul(alg, f, flen, g, glen, want);

  /* pointer form, h[i] distinct fresh mpz_t */
  mpz_t *h = vec_new(hlen);
  mpz_ptr *hp = (mpz_ptr *)malloc(hlen * sizeof(mpz_ptr));
  mpz_srcptr *fp = (mpz_srcptr *)malloc(flen * sizeof(mpz_srcptr));
  mpz_srcptr *gp = (mpz_srcptr *)malloc(glen * sizeof(mpz_srcptr));
  for (size_t i = 0; i < hlen; i++) hp[i] = h[hlen - 1 - i]; /* scattered: reversed storage */
  for (size_t i = 0; i < flen; i++) fp[i] = f[i];
  for (size_t i = 0; i < glen; i++) gp[i] = g[i];
  vec_poison(h, hlen);
  CHECK(gpmp_poly_mul_ptr(hp, fp, flen, gp, glen) == GPMP_SUCCESS);
  for (size_t i = 0; i < hlen; i++) CHECK(mpz_cmp(hp[i], want[i]) == 0);
  free(hp);
  free(fp);
  free(gp);
  vec_free(h, hlen);

  /* squaring */
  size_t slen = 2 * flen - 1;
  mpz_t *sq = vec_new(slen), *sqwant = vec_new(slen);
  schoolbook(sqwant, f, flen, f, flen);
  vec_poison(sq, slen);
  CHECK(gpmp_poly_sqr(sq, f, flen) == GPMP_SUCCESS);
  CHECK(vec_equal(sq, sqwant, slen));
  vec_poison(sq, slen);
  CHECK(gpmp_poly_mul(sq, f, flen, f, flen) == GPMP_SUCCESS); /* f == g */
  CHECK(vec_equal(sq, sqwant, slen));
  vec_free(sq, slen);
  vec_free(sqwant, slen);
  vec_free(want, hlen);
}

static void test_products(gmp_randstate_t r) {
  static const size_t lens[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2},   {3, 5},
                                   {16, 16}, {33, 17}, {5, 64}, {100, 99}};
  static const unsigned long bits[] = {0, 1, 2, 63, 64, 65, 128, 300, 1000};
  for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
      size_t flen = lens[l][0], glen = lens[l][1];
      mpz_t *f = vec_new(flen), *g = vec_new(glen);
      vec_random(f, flen, r, bits[b]);
      vec_random(g, glen, r, bits[(b + l) % (sizeof bits / sizeof bits[0])]);
      check_all_forms(f, flen, g, glen);
      vec_free(f, flen);
      vec_free(g, glen);
    }

  /* one huge coefficient among small ones; zero polynomials; leading zeros */
  {
    size_t flen = 20, glen = 9;
    mpz_t *f = vec_new(flen), *g = vec_new(glen);
    vec_random(f, flen, r, 10);
    vec_random(g, glen, r, 10);
    mpz_urandomb(f[7], r, 5000);
    mpz_neg(f[7], f[7]);
    check_all_forms(f, flen, g, glen);
    for (size_t i = 0; i < flen; i++) mpz_set_ui(f[i], 0);
    check_all_forms(f, flen, g, glen); /* f = 0 */
    mpz_set_si(f[0], -3);
    check_all_forms(f, flen, g, glen); /* constant with 19 leading zeros */
    vec_free(f, flen);
    vec_free(g, glen);
  }

  /* large enough for the parallel paths, at 1 and at 2 threads */
  for (int t = 1; t <= 2; t++) {
    CHECK(gpmp_set_num_threads(t) == GPMP_SUCCESS);
    size_t flen = 1500, glen = 700;
    mpz_t *f = vec_new(flen), *g = vec_new(glen);
    vec_random(f, flen, r, 64);
    vec_random(g, glen, r, 130);
    size_t hlen = flen + glen - 1;
    mpz_t *want = vec_new(hlen);
    schoolbook(want, f, flen, g, glen);
    check_mul(-1, f, flen, g, glen, want);
    vec_free(want, hlen);
    vec_free(f, flen);
    vec_free(g, glen);
  }
  CHECK(gpmp_set_num_threads(0) == GPMP_SUCCESS);
}

/* h may be f or g (arrays) and the h[i] may point at the inputs (pointer form). */
static void test_aliasing(gmp_randstate_t r) {
  const size_t flen = 9, glen = 6, hlen = flen + glen - 1;
  mpz_t *f = vec_new(flen), *g = vec_new(glen), *want = vec_new(hlen), *sqwant = vec_new(2 * flen - 1);
  vec_random(f, flen, r, 200);
  vec_random(g, glen, r, 90);
  schoolbook(want, f, flen, g, glen);
  schoolbook(sqwant, f, flen, f, flen);

  for (int alg = -1; alg < N_ALGS; alg++) {
    if (alg >= 0 && not_implemented(alg)) continue;
    /* h == f */
    mpz_t *buf = vec_new(hlen);
    vec_copy(buf, f, flen);
    gpmp_status s = alg < 0 ? gpmp_poly_mul(buf, buf, flen, g, glen)
                            : gpmp_poly_mul_alg(buf, buf, flen, g, glen, (gpmp_mul_alg)alg);
    CHECK(s == GPMP_SUCCESS && vec_equal(buf, want, hlen));
    /* h == g */
    vec_poison(buf, hlen);
    vec_copy(buf, g, glen);
    s = alg < 0 ? gpmp_poly_mul(buf, f, flen, buf, glen)
                : gpmp_poly_mul_alg(buf, f, flen, buf, glen, (gpmp_mul_alg)alg);
    CHECK(s == GPMP_SUCCESS && vec_equal(buf, want, hlen));
    vec_free(buf, hlen);
    /* h == f == g */
    mpz_t *sq = vec_new(2 * flen - 1);
    vec_copy(sq, f, flen);
    s = alg < 0 ? gpmp_poly_mul(sq, sq, flen, sq, flen)
                : gpmp_poly_mul_alg(sq, sq, flen, sq, flen, (gpmp_mul_alg)alg);
    CHECK(s == GPMP_SUCCESS && vec_equal(sq, sqwant, 2 * flen - 1));
    vec_free(sq, 2 * flen - 1);
  }

  /* gpmp_poly_sqr with h == f */
  mpz_t *sq = vec_new(2 * flen - 1);
  vec_copy(sq, f, flen);
  CHECK(gpmp_poly_sqr(sq, sq, flen) == GPMP_SUCCESS);
  CHECK(vec_equal(sq, sqwant, 2 * flen - 1));
  vec_free(sq, 2 * flen - 1);

  /* pointer form: h[0..flen) point at f, h[flen..hlen) at g[0..glen−1) */
  mpz_t *fc = vec_new(flen), *gc = vec_new(glen);
  vec_copy(fc, f, flen);
  vec_copy(gc, g, glen);
  mpz_ptr hp[15];
  mpz_srcptr fp[9], gp[6];
  for (size_t i = 0; i < flen; i++) fp[i] = hp[i] = fc[i];
  for (size_t i = 0; i < glen; i++) gp[i] = gc[i];
  for (size_t i = flen; i < hlen; i++) hp[i] = gc[i - flen];
  CHECK(gpmp_poly_mul_ptr(hp, fp, flen, gp, glen) == GPMP_SUCCESS);
  for (size_t i = 0; i < hlen; i++) CHECK(mpz_cmp(hp[i], want[i]) == 0);
  vec_free(fc, flen);
  vec_free(gc, glen);

  vec_free(f, flen);
  vec_free(g, glen);
  vec_free(want, hlen);
  vec_free(sqwant, 2 * flen - 1);
}

/* Each bad call returns a status, sets gpmp_last_error and writes nothing. */
static void test_bad_input(void) {
  const size_t flen = 3, glen = 2, hlen = 4;
  mpz_t *f = vec_new(flen), *g = vec_new(glen), *h = vec_new(hlen), *before = vec_new(hlen);
  for (size_t i = 0; i < flen; i++) mpz_set_si(f[i], (long)i + 1);
  for (size_t i = 0; i < glen; i++) mpz_set_si(g[i], -(long)i - 5);
  vec_poison(h, hlen);
  vec_copy(before, h, hlen);

#define BAD(call, fn)                               \
  do {                                              \
    reset_last_error();                             \
    CHECK((call) == GPMP_INVALID_ARGUMENT);         \
    CHECK_LAST_ERROR(fn);                           \
    CHECK(vec_equal(h, before, hlen));              \
  } while (0)

  BAD(gpmp_poly_mul(h, NULL, flen, g, glen), "gpmp_poly_mul");
  BAD(gpmp_poly_mul(h, f, flen, NULL, glen), "gpmp_poly_mul");
  BAD(gpmp_poly_mul(NULL, f, flen, g, glen), "gpmp_poly_mul");
  BAD(gpmp_poly_mul_alg(h, f, flen, g, glen, (gpmp_mul_alg)99), "gpmp_poly_mul");
  BAD(gpmp_poly_mul_alg(h, f, flen, g, glen, (gpmp_mul_alg)-1), "gpmp_poly_mul");
  BAD(gpmp_poly_mul_alg(h, f, flen, g, glen, GPMP_MUL_BIG_PRIME_FFT), "gpmp_poly_mul");
  BAD(gpmp_poly_sqr(h, NULL, flen), "gpmp_poly_sqr");
  BAD(gpmp_poly_sqr(NULL, f, flen), "gpmp_poly_sqr");

  mpz_ptr hp[4] = {h[0], h[1], h[2], h[3]};
  mpz_srcptr fp[3] = {f[0], f[1], f[2]}, gp[2] = {g[0], g[1]};
  BAD(gpmp_poly_mul_ptr(NULL, fp, flen, gp, glen), "gpmp_poly_mul_ptr");
  BAD(gpmp_poly_mul_ptr(hp, NULL, flen, gp, glen), "gpmp_poly_mul_ptr");
  BAD(gpmp_poly_mul_ptr(hp, fp, flen, NULL, glen), "gpmp_poly_mul_ptr");
  hp[2] = NULL;
  BAD(gpmp_poly_mul_ptr(hp, fp, flen, gp, glen), "gpmp_poly_mul_ptr");
  hp[2] = h[2];
  fp[1] = NULL;
  BAD(gpmp_poly_mul_ptr(hp, fp, flen, gp, glen), "gpmp_poly_mul_ptr");
  fp[1] = f[1];

  /* NULL with length 0: success, nothing written */
  CHECK(gpmp_poly_mul(h, NULL, 0, g, glen) == GPMP_SUCCESS);
  CHECK(gpmp_poly_mul(h, f, flen, NULL, 0) == GPMP_SUCCESS);
  CHECK(gpmp_poly_mul(NULL, NULL, 0, NULL, 0) == GPMP_SUCCESS);
  CHECK(gpmp_poly_mul(NULL, f, flen, NULL, 0) == GPMP_SUCCESS);
  CHECK(gpmp_poly_mul_alg(h, NULL, 0, g, glen, GPMP_MUL_SCHOOLBOOK) == GPMP_SUCCESS);
  CHECK(gpmp_poly_sqr(NULL, NULL, 0) == GPMP_SUCCESS);
  CHECK(gpmp_poly_mul_ptr(NULL, NULL, 0, gp, glen) == GPMP_SUCCESS);
  CHECK(gpmp_poly_mul_ptr(hp, fp, flen, NULL, 0) == GPMP_SUCCESS);
  CHECK(vec_equal(h, before, hlen));
#undef BAD

  vec_free(f, flen);
  vec_free(g, glen);
  vec_free(h, hlen);
  vec_free(before, hlen);
}

/* The host's GMP allocator (Julia's, Maple's) is called only on the calling thread: outputs are grown
 * there before the parallel copy. Checked with counting allocation functions. */
static pthread_t main_thread;
static atomic_int allocs_here, allocs_elsewhere;
static void *(*sys_alloc)(size_t);
static void *(*sys_realloc)(void *, size_t, size_t);
static void (*sys_free)(void *, size_t);

static void count(void) {
  if (pthread_equal(pthread_self(), main_thread))
    atomic_fetch_add(&allocs_here, 1);
  else
    atomic_fetch_add(&allocs_elsewhere, 1);
}
static void *counting_alloc(size_t n) { count(); return sys_alloc(n); }
static void *counting_realloc(void *p, size_t old, size_t n) { count(); return sys_realloc(p, old, n); }
static void counting_free(void *p, size_t n) { count(); sys_free(p, n); }

static void test_allocator_thread(gmp_randstate_t r) {
  const size_t flen = 1500, glen = 700, hlen = flen + glen - 1; /* > 1024 outputs: parallel copy */
  mpz_t *f = vec_new(flen), *g = vec_new(glen), *h = vec_new(hlen), *want = vec_new(hlen);
  vec_random(f, flen, r, 300);
  vec_random(g, glen, r, 200);
  schoolbook(want, f, flen, g, glen);
  CHECK(gpmp_set_num_threads(2) == GPMP_SUCCESS);
  main_thread = pthread_self();
  mp_get_memory_functions(&sys_alloc, &sys_realloc, &sys_free);
  mp_set_memory_functions(counting_alloc, counting_realloc, counting_free);
  CHECK(gpmp_poly_mul(h, f, flen, g, glen) == GPMP_SUCCESS); /* h were mpz_init'ed: all must grow */
  mp_set_memory_functions(sys_alloc, sys_realloc, sys_free);
  CHECK(vec_equal(h, want, hlen));
  CHECK(atomic_load(&allocs_here) > 0);
  CHECK(atomic_load(&allocs_elsewhere) == 0);
  CHECK(gpmp_set_num_threads(0) == GPMP_SUCCESS);
  vec_free(f, flen);
  vec_free(g, glen);
  vec_free(h, hlen);
  vec_free(want, hlen);
}

/* Concurrent callers: products from several threads at once, and a thread-local gpmp_last_error. */
struct caller {
  int id, bad; /* in: which function fails on this thread; out: failed checks */
};

static void *caller_thread(void *arg) {
  struct caller *c = (struct caller *)arg;
  gmp_randstate_t r;
  gmp_randinit_default(r);
  gmp_randseed_ui(r, (unsigned long)c->id);
  const size_t flen = 40 + (size_t)c->id, glen = 30, hlen = flen + glen - 1;
  mpz_t *f = vec_new(flen), *g = vec_new(glen), *h = vec_new(hlen), *want = vec_new(hlen);
  c->bad += strcmp(gpmp_last_error(), "") != 0; /* a new thread starts without an error */
  for (int round = 0; round < 20; round++) {
    vec_random(f, flen, r, 100 + 10 * (unsigned long)c->id);
    vec_random(g, glen, r, 70);
    schoolbook(want, f, flen, g, glen);
    c->bad += gpmp_poly_mul(h, f, flen, g, glen) != GPMP_SUCCESS || !vec_equal(h, want, hlen);
  }
  const char *fn = c->id % 2 ? "gpmp_poly_sqr" : "gpmp_poly_mul_ptr";
  gpmp_status s = c->id % 2 ? gpmp_poly_sqr(h, NULL, 2) : gpmp_poly_mul_ptr(NULL, NULL, 0, NULL, 1);
  c->bad += s != GPMP_INVALID_ARGUMENT;
  for (int round = 0; round < 5; round++) { /* other threads fail meanwhile: ours stays */
    c->bad += strstr(gpmp_last_error(), fn) == NULL;
    c->bad += gpmp_poly_mul(h, f, flen, g, glen) != GPMP_SUCCESS;
  }
  vec_free(f, flen);
  vec_free(g, glen);
  vec_free(h, hlen);
  vec_free(want, hlen);
  gmp_randclear(r);
  return NULL;
}

static void test_concurrent_callers(void) {
  enum { N = 6 };
  pthread_t t[N];
  struct caller c[N];
  for (int i = 0; i < N; i++) {
    c[i].id = i;
    c[i].bad = 0;
    CHECK(pthread_create(&t[i], NULL, caller_thread, &c[i]) == 0);
  }
  for (int i = 0; i < N; i++) {
    CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(c[i].bad == 0);
  }
}

int main(void) {
  CHECK(strcmp(gpmp_last_error(), "") == 0); /* nothing failed yet on this thread */
  gmp_randstate_t r;
  gmp_randinit_default(r);
  gmp_randseed_ui(r, 20240611);
  test_version_and_strings();
  test_threads();
  test_backend();
  test_products(r);
  test_aliasing(r);
  test_bad_input();
  test_allocator_thread(r);
  test_concurrent_callers();
  gmp_randclear(r);
  printf("api: %s (%d failed checks)\n", failures ? "FAILED" : "ok", failures);
  return failures != 0;
}
