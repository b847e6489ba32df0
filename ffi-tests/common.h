/* Code shared by the ffi-tests programs: a CHECK macro that counts failures, mpz_t vectors, random
 * and adversarial coefficients, and the GMP schoolbook product every result is compared with. */
#ifndef GPMP_FFI_TESTS_COMMON_H
#define GPMP_FFI_TESTS_COMMON_H

#include "gpmp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s (gpmp_last_error: \"%s\")\n", __FILE__, __LINE__, \
              #cond, gpmp_last_error());                                                         \
      failures++;                                                                                \
    }                                                                                            \
  } while (0)

static inline mpz_t *vec_new(size_t n) {
  mpz_t *v = (mpz_t *)malloc((n ? n : 1) * sizeof(mpz_t));
  for (size_t i = 0; i < n; i++) mpz_init(v[i]);
  return v;
}

static inline void vec_free(mpz_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) mpz_clear(v[i]);
  free(v);
}

static inline void vec_copy(mpz_t *dst, mpz_t *src, size_t n) {
  for (size_t i = 0; i < n; i++) mpz_set(dst[i], src[i]);
}

static inline int vec_equal(mpz_t *a, mpz_t *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (mpz_cmp(a[i], b[i]) != 0) return 0;
  return 1;
}

/* Values that stand out if a call writes where it should not. */
static inline void vec_poison(mpz_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    mpz_set_si(v[i], -12345 - (long)i);
    if (i % 3 == 0) mpz_mul_2exp(v[i], v[i], 300);
  }
}

/* A coefficient of at most `bits` bits, mixing random values with the adversarial ones
 * 0, ±1, ±2^k, ±(2^k − 1) (all-ones limbs). */
static inline void coef_random(mpz_t z, gmp_randstate_t r, unsigned long bits) {
  unsigned long kind = gmp_urandomm_ui(r, 8);
  unsigned long k = bits ? 1 + gmp_urandomm_ui(r, bits) : 0;
  switch (kind) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, bits ? 1 : 0); break;
    case 2: mpz_set_ui(z, 0); if (bits) mpz_setbit(z, k - 1); break;
    case 3: mpz_set_ui(z, 0); if (bits) { mpz_setbit(z, k); mpz_sub_ui(z, z, 1); } break;
    case 4: mpz_set_ui(z, 0); if (bits) { mpz_setbit(z, bits); mpz_sub_ui(z, z, 1); } break;
    default: mpz_urandomb(z, r, bits); break;
  }
  if (gmp_urandomm_ui(r, 2)) mpz_neg(z, z);
}

static inline void vec_random(mpz_t *v, size_t n, gmp_randstate_t r, unsigned long bits) {
  for (size_t i = 0; i < n; i++) coef_random(v[i], r, bits);
}

/* h[0 .. flen+glen−2] = f·g by the schoolbook formula h_k = Σ f_i g_{k−i} (h distinct from f, g). */
static inline void schoolbook(mpz_t *h, mpz_t *f, size_t flen, mpz_t *g, size_t glen) {
  for (size_t k = 0; k + 1 < flen + glen; k++) mpz_set_ui(h[k], 0);
  for (size_t i = 0; i < flen; i++)
    for (size_t j = 0; j < glen; j++) mpz_addmul(h[i + j], f[i], g[j]);
}

/* Makes this thread's last error a known message, so that a later check can tell it was replaced. */
static inline void reset_last_error(void) {
  CHECK(gpmp_set_num_threads(-1) == GPMP_INVALID_ARGUMENT);
  CHECK(strstr(gpmp_last_error(), "gpmp_set_num_threads") != NULL);
}

/* The last error names the function `fn` (the failing call set it). */
#define CHECK_LAST_ERROR(fn) CHECK(strstr(gpmp_last_error(), fn) != NULL)

#endif
