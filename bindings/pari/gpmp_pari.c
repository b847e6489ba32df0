/* gpmp for PARI/GP: functions that GP loads with install() (see gpmp.gp).
 *
 *   gpmp_polmul(f, g)      f*g for t_POL (or t_INT constants) with t_INT coefficients (a t_INT
 *                          when both are constants, as PARI's *)
 *   gpmp_polsqr(f)         f^2
 *   gpmp_mul(a, b)         a*b for t_INT
 *   gpmp_powm(v, e, m)     [Mod(v[i], m)^e[i] lifted to [0, m)] for t_VEC/t_COL v of t_INT; e a t_INT
 *                          (the same exponent for all) or a vector of t_INT >= 0; m > 1
 *
 * PARI's GMP kernel stores a t_INT as GMP limbs, least significant first, from int_LSW(x): inputs
 * are read in place as read-only mpz_t (mpz_roinit_n), never copied. Results come back in mpz_t
 * allocated through GMP's memory functions (PARI's, on this thread: gpmp never calls the host's GMP
 * allocator from another thread) and are copied onto the PARI stack.
 *
 * Ctrl-C: the gpmp call runs inside BLOCK_SIGINT_START/END, so PARI's SIGINT handler only records
 * the signal (PARI_SIGINT_pending) instead of jumping out of gpmp; gpmp's interrupt handler sees it
 * and stops the call (GPMP_INTERRUPTED, nothing written), and BLOCK_SIGINT_END then delivers the
 * interrupt to GP as usual (the results, if any, are copied and gpmp's outputs freed first, so an
 * interrupt leaks nothing). Errors of gpmp become PARI errors (e_MISC, gpmp_last_error()). */
#include <pari/pari.h>
#include <gmp.h>
#include <gpmp.h>

#ifndef PARI_KERNEL_GMP
#error "gpmp_pari needs PARI built with the GMP kernel (its t_INT are read as GMP limbs)"
#endif

/* The read-only mpz_t view of the t_INT x. */
static void view(mpz_t z, GEN x)
{
  long n = signe(x) ? lgefint(x) - 2 : 0;
  mpz_roinit_n(z, (const mp_limb_t *)int_LSW(x), signe(x) < 0 ? -n : n);
}

/* A t_INT on the PARI stack of value z. */
static GEN int_of_mpz(mpz_srcptr z)
{
  long n = (long)mpz_size(z);
  GEN x;
  if (n == 0) return gen_0;
  x = cgeti(n + 2);
  x[1] = evalsigne(mpz_sgn(z)) | evallgefint(n + 2);
  memcpy(int_LSW(x), mpz_limbs_read(z), n * sizeof(mp_limb_t));
  return x;
}

static int pari_interrupted(void *data)
{
  (void)data;
  return PARI_SIGINT_pending != 0;
}

/* n initialised mpz_t outside the PARI stack (gpmp may grow them). */
static mpz_t *outputs(long n)
{
  long i;
  mpz_t *h = (mpz_t *)pari_malloc((n ? n : 1) * sizeof(mpz_t));
  for (i = 0; i < n; i++) mpz_init(h[i]);
  return h;
}

/* After a call that wrote the n outputs h (status s): on success a t_VEC of their values on the
 * PARI stack at av, on failure NULL with gpmp's detail in msg; h is freed either way. Called
 * before BLOCK_SIGINT_END, so that a pending interrupt leaks nothing. */
static GEN collect(gpmp_status s, mpz_t *h, long n, pari_sp av, char *msg, size_t len)
{
  long i;
  GEN z = NULL;
  if (s == GPMP_SUCCESS) {
    set_avma(av);
    z = cgetg(n + 1, t_VEC);
    for (i = 0; i < n; i++) gel(z, i + 1) = int_of_mpz(h[i]);
  } else {
    snprintf(msg, len, "%s (%s)", gpmp_last_error(), gpmp_strerror(s));
  }
  for (i = 0; i < n; i++) mpz_clear(h[i]);
  pari_free(h);
  return z;
}

/* The integer coefficients of f (t_POL or t_INT) as views on the stack; *len their number. */
static mpz_t *coeffs(GEN f, long *len, const char *name)
{
  long i, n;
  mpz_t *v;
  if (typ(f) == t_INT) {
    if (!signe(f)) { *len = 0; return NULL; }
    v = (mpz_t *)stack_malloc(sizeof(mpz_t));
    view(v[0], f);
    *len = 1;
    return v;
  }
  if (typ(f) != t_POL) pari_err_TYPE(name, f);
  n = lg(f) - 2;
  v = (mpz_t *)stack_malloc((n ? n : 1) * sizeof(mpz_t));
  for (i = 0; i < n; i++) {
    GEN c = gel(f, i + 2);
    if (typ(c) != t_INT) pari_err_TYPE(name, c);
    view(v[i], c);
  }
  *len = n;
  return v;
}

static GEN product(GEN f, GEN g, int square)
{
  pari_sp av = avma;
  const char *name = square ? "gpmp_polsqr" : "gpmp_polmul";
  long fl, gl, hl, i;
  long v = typ(f) == t_POL ? varn(f) : (typ(g) == t_POL ? varn(g) : 0);
  mpz_t *fv, *gv, *h;
  gpmp_status s;
  char msg[512];
  GEN z, r;
  if (typ(f) == t_POL && typ(g) == t_POL && varn(f) != varn(g)) pari_err_VAR(name, f, g);
  fv = coeffs(f, &fl, name);
  gv = square ? fv : coeffs(g, &gl, name);
  if (square) gl = fl;
  if (fl == 0 || gl == 0) { set_avma(av); return typ(f) == t_POL || typ(g) == t_POL ? pol_0(v) : gen_0; }
  hl = fl + gl - 1;
  h = outputs(hl);
  BLOCK_SIGINT_START
  gpmp_set_interrupt_handler(pari_interrupted, NULL);
  s = square ? gpmp_poly_sqr(h, (const mpz_t *)fv, fl) : gpmp_poly_mul(h, (const mpz_t *)fv, fl, (const mpz_t *)gv, gl);
  gpmp_set_interrupt_handler(NULL, NULL);
  z = collect(s, h, hl, av, msg, sizeof msg);
  BLOCK_SIGINT_END
  if (!z) pari_err(e_MISC, "%s: %s", name, msg);
  if (typ(f) != t_POL && typ(g) != t_POL) return gerepileuptoint(av, gel(z, 1)); /* as PARI's *: a constant */
  r = cgetg(hl + 2, t_POL);
  r[1] = evalsigne(1) | evalvarn(v);
  for (i = 0; i < hl; i++) gel(r, i + 2) = gel(z, i + 1);
  return gerepilecopy(av, normalizepol(r));
}

GEN gpmp_pari_polmul(GEN f, GEN g) { return product(f, g, 0); }

GEN gpmp_pari_polsqr(GEN f) { return product(f, f, 1); }

GEN gpmp_pari_mul(GEN a, GEN b)
{
  pari_sp av = avma;
  mpz_t x, y, *r;
  gpmp_status s;
  char msg[512];
  GEN z;
  if (typ(a) != t_INT) pari_err_TYPE("gpmp_mul", a);
  if (typ(b) != t_INT) pari_err_TYPE("gpmp_mul", b);
  view(x, a);
  view(y, b);
  r = outputs(1);
  BLOCK_SIGINT_START
  gpmp_set_interrupt_handler(pari_interrupted, NULL);
  s = gpmp_mpz_mul(r[0], x, y);
  gpmp_set_interrupt_handler(NULL, NULL);
  z = collect(s, r, 1, av, msg, sizeof msg);
  BLOCK_SIGINT_END
  if (!z) pari_err(e_MISC, "gpmp_mul: %s", msg);
  return gerepileuptoint(av, gel(z, 1));
}

GEN gpmp_pari_powm(GEN v, GEN e, GEN m)
{
  pari_sp av = avma;
  long n, i;
  mpz_t *bv, *ev, mv, *r;
  gpmp_status s;
  char msg[512];
  GEN z;
  if (!is_vec_t(typ(v))) pari_err_TYPE("gpmp_powm", v);
  if (typ(m) != t_INT) pari_err_TYPE("gpmp_powm", m);
  n = lg(v) - 1;
  if (typ(e) != t_INT && !(is_vec_t(typ(e)) && lg(e) - 1 == n)) pari_err_TYPE("gpmp_powm", e);
  bv = (mpz_t *)stack_malloc((n ? n : 1) * sizeof(mpz_t));
  ev = (mpz_t *)stack_malloc((n ? n : 1) * sizeof(mpz_t));
  for (i = 0; i < n; i++) {
    GEN b = gel(v, i + 1), x = typ(e) == t_INT ? e : gel(e, i + 1);
    if (typ(b) != t_INT) pari_err_TYPE("gpmp_powm", b);
    if (typ(x) != t_INT) pari_err_TYPE("gpmp_powm", x);
    view(bv[i], b);
    view(ev[i], x);
  }
  view(mv, m);
  r = outputs(n);
  BLOCK_SIGINT_START
  gpmp_set_interrupt_handler(pari_interrupted, NULL);
  s = gpmp_mpz_powm_n(r, (const mpz_t *)bv, (const mpz_t *)ev, mv, (size_t)n);
  gpmp_set_interrupt_handler(NULL, NULL);
  z = collect(s, r, n, av, msg, sizeof msg);
  BLOCK_SIGINT_END
  if (!z) pari_err(e_MISC, "gpmp_powm: %s", msg);
  settyp(z, typ(v));
  return z;
}
