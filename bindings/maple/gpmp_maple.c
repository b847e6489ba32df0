/* gpmp for Maple: custom wrappers (define_external(..., MAPLE, THREAD_SAFE)) over libgpmp.
 *
 *   gpmp_maple_polmul(f, g)    f·g for lists of integer coefficients (low degree first)
 *   gpmp_maple_mul(a, b)       a·b for integers
 *   gpmp_maple_powm(v, e, m)   [v[i]^e[i] mod m] for a list v, e an integer or a list, m > 1
 *
 * Inputs are read as Maple's GMP integers (MapleToGMPInteger, read only: never written or freed);
 * results are mpz_t that gpmp grows through Maple's GMP allocator on the calling thread (Maple's
 * memory functions are per thread: gpmp never calls them from its own threads) and become Maple
 * integers by GMPIntegerToMaple. While a call runs, gpmp polls MapleGetInterruptValue on the calling
 * thread, so the user's interrupt stops it (GPMP_INTERRUPTED, nothing written). See gpmp.mpl. */
#include <gmp.h>
#include <gpmp.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef GPMP_MAPLE_STUB
#include "maplec_stub.h"
#else
#include <maplec.h>
#endif

static int maple_interrupted(void *kv) { return MapleGetInterruptValue((MKernelVector)kv) != 0; }

/* The n integers of a Maple list (read-only mpz_t), or NULL after raising an error. */
static mpz_t *ints_of_list(MKernelVector kv, ALGEB list, M_INT *n, const char *what)
{
  M_INT i;
  mpz_t *v;
  if (!IsMapleList(kv, list)) { MapleRaiseError(kv, what); return NULL; }
  *n = MapleNumArgs(kv, list);
  v = (mpz_t *)malloc((size_t)(*n ? *n : 1) * sizeof(mpz_t));
  if (!v) { MapleRaiseError(kv, "gpmp: out of memory"); return NULL; }
  for (i = 0; i < *n; i++) {
    ALGEB x = MapleListSelect(kv, list, i + 1);
    if (!IsMapleInteger(kv, x)) { free(v); MapleRaiseError(kv, what); return NULL; }
    MapleToGMPInteger(kv, x, v[i]);
  }
  return v;
}

static mpz_t *outputs(M_INT n)
{
  M_INT i;
  mpz_t *h = (mpz_t *)malloc((size_t)(n ? n : 1) * sizeof(mpz_t));
  if (h)
    for (i = 0; i < n; i++) mpz_init(h[i]);
  return h;
}

/* The Maple list of the n results (cleared and freed here), or an error with gpmp's detail. */
static ALGEB finish(MKernelVector kv, gpmp_status s, mpz_t *h, M_INT n, const char *name)
{
  char msg[600];
  M_INT i;
  ALGEB list = NULL;
  if (s == GPMP_SUCCESS) {
    list = MapleListAlloc(kv, n);
    for (i = 0; i < n; i++) MapleListAssign(kv, list, i + 1, GMPIntegerToMaple(kv, h[i]));
  } else {
    snprintf(msg, sizeof msg, "%s: %s", name, s == GPMP_INTERRUPTED ? "interrupted" : gpmp_last_error());
  }
  for (i = 0; i < n; i++) mpz_clear(h[i]);
  free(h);
  if (s != GPMP_SUCCESS) MapleRaiseError(kv, msg);
  return list;
}

ALGEB M_DECL gpmp_maple_polmul(MKernelVector kv, ALGEB *args)
{
  M_INT fl, gl, hl;
  mpz_t *f, *g, *h;
  gpmp_status s;
  if (MapleNumArgs(kv, (ALGEB)args) != 2) MapleRaiseError(kv, "gpmp_polmul: two lists of integers expected");
  f = ints_of_list(kv, args[1], &fl, "gpmp_polmul: f must be a list of integers");
  g = ints_of_list(kv, args[2], &gl, "gpmp_polmul: g must be a list of integers");
  hl = (fl == 0 || gl == 0) ? 0 : fl + gl - 1;
  h = outputs(hl);
  if (!h) MapleRaiseError(kv, "gpmp_polmul: out of memory");
  gpmp_set_interrupt_handler(maple_interrupted, kv);
  s = hl ? gpmp_poly_mul(h, (const mpz_t *)f, (size_t)fl, (const mpz_t *)g, (size_t)gl) : GPMP_SUCCESS;
  gpmp_set_interrupt_handler(NULL, NULL);
  free(f);
  free(g);
  return finish(kv, s, h, hl, "gpmp_polmul");
}

ALGEB M_DECL gpmp_maple_mul(MKernelVector kv, ALGEB *args)
{
  mpz_t a, b, *r;
  gpmp_status s;
  if (MapleNumArgs(kv, (ALGEB)args) != 2 || !IsMapleInteger(kv, args[1]) || !IsMapleInteger(kv, args[2]))
    MapleRaiseError(kv, "gpmp_mul: two integers expected");
  MapleToGMPInteger(kv, args[1], a);
  MapleToGMPInteger(kv, args[2], b);
  r = outputs(1);
  if (!r) MapleRaiseError(kv, "gpmp_mul: out of memory");
  gpmp_set_interrupt_handler(maple_interrupted, kv);
  s = gpmp_mpz_mul(r[0], a, b);
  gpmp_set_interrupt_handler(NULL, NULL);
  if (s != GPMP_SUCCESS) return finish(kv, s, r, 1, "gpmp_mul");
  {
    ALGEB z = GMPIntegerToMaple(kv, r[0]);
    mpz_clear(r[0]);
    free(r);
    return z;
  }
}

ALGEB M_DECL gpmp_maple_powm(MKernelVector kv, ALGEB *args)
{
  M_INT n, ne = 0, i;
  mpz_t *v, *e, m, *r;
  gpmp_status s;
  if (MapleNumArgs(kv, (ALGEB)args) != 3 || !IsMapleInteger(kv, args[3]))
    MapleRaiseError(kv, "gpmp_powm: (list of integers, integer or list of integers, integer) expected");
  v = ints_of_list(kv, args[1], &n, "gpmp_powm: v must be a list of integers");
  if (IsMapleInteger(kv, args[2])) {
    e = (mpz_t *)malloc((size_t)(n ? n : 1) * sizeof(mpz_t));
    if (!e) MapleRaiseError(kv, "gpmp_powm: out of memory");
    for (i = 0; i < n; i++) MapleToGMPInteger(kv, args[2], e[i]);
  } else {
    e = ints_of_list(kv, args[2], &ne, "gpmp_powm: e must be an integer or a list of integers");
    if (ne != n) { free(v); free(e); MapleRaiseError(kv, "gpmp_powm: v and e have different lengths"); }
  }
  MapleToGMPInteger(kv, args[3], m);
  r = outputs(n);
  if (!r) MapleRaiseError(kv, "gpmp_powm: out of memory");
  gpmp_set_interrupt_handler(maple_interrupted, kv);
  s = gpmp_mpz_powm_n(r, (const mpz_t *)v, (const mpz_t *)e, m, (size_t)n);
  gpmp_set_interrupt_handler(NULL, NULL);
  free(v);
  free(e);
  return finish(kv, s, r, n, "gpmp_powm");
}
