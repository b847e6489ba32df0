//! `gpmp_poly_taylor_shift*`, `gpmp_poly_scale_shift*`, `gpmp_nmod_poly_taylor_shift` and the real
//! roots of integer polynomials (`gpmp_poly_real_roots*`, `gpmp_poly_count_real_roots*`).
use super::gpmp_status;
use super::mpz::{array_slots, check_slots, mpz_ptr, mpz_srcptr, mpz_t, recycle_views, view, views_and_bits, MpzIn, MpzOut, SendPtr};
use super::nmod::{slice_in, slice_out};
use super::poly::Product;
use super::status::guard;
use crate::int::IntRef;
use crate::zpoly::real_roots::{self, refine::Dyadic};
use crate::zpoly::scale_shift::scale_shift;
use crate::zpoly::taylor_shift::{shift_on_gpu, taylor_shift};
use crate::{invalid, runtime, Result};
use gmp_mpfr_sys::gmp;
use std::ffi::{c_long, c_ulong};

pub use gmp::mpq_t;
/// GMP's `mpq_ptr` (pointer to one `__mpq_struct`), as in `<gmp.h>`.
pub type mpq_ptr = *mut mpq_t;

/// The shift (k = None) or scale-shift of f into the output slots, written only on success (a GPU
/// shift straight from host memory, without a slab in between).
fn shift_into(
    name: &str,
    out: &(impl Fn(usize) -> *mut mpz_t + Sync),
    f: Result<Vec<IntRef>>,
    c: Result<IntRef>,
    k: Option<u64>,
) -> Result<()> {
    let (f, c) = (f?, c?);
    if f.is_empty() {
        return Ok(());
    }
    check_slots(f.len(), &format!("{name}: g"), out)?;
    let g = runtime::install(|| match k {
        None => match shift_on_gpu(&f, c)? {
            Some(h) => Ok(Product::Gpu(h)),
            None => taylor_shift(&f, c).map(Product::Slab),
        },
        Some(k) => scale_shift(&f, k, c).map(Product::Slab),
    })?;
    recycle_views(f); // the views (and c's) may alias g
                      // SAFETY: distinct initialised output slots (the caller's contract), no live view.
    unsafe { g.write(out) }
}

/// The view of a single `mpz_t` argument (NULL rejected).
///
/// # Safety
/// `c` is NULL or points to an initialised `mpz_t` not written during the call.
unsafe fn scalar<'a>(c: mpz_srcptr, what: &str) -> Result<IntRef<'a>> {
    if c.is_null() {
        return invalid!("{what} is NULL");
    }
    Ok(view(c))
}

/// g\[0 .. flen−1\] = the coefficients of f(x + c) (low to high): g_k = Σ_(i≥k) f_i·C(i, k)·c^(i−k).
/// Any c and any coefficient sizes. g holds flen initialised `mpz_t` and may be the same array as f
/// (in place); nothing is written when flen is 0. The tableau (Horner's scheme on the limbs) for
/// short polynomials, residues modulo primes and divide and conquer over the fast product for long
/// ones; large shifts run modulo primes on the GPU under AUTO (bit for bit the same result).
///
/// # Safety
/// Arrays of initialised `mpz_t` as described; c points to an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_taylor_shift(g: *mut mpz_t, f: *const mpz_t, flen: usize, c: mpz_srcptr) -> gpmp_status {
    guard("gpmp_poly_taylor_shift", || {
        shift_into("gpmp_poly_taylor_shift", &array_slots(g), views_and_bits(MpzIn::Array(f), flen, "f").map(|x| x.0), scalar(c, "c"), None)
    })
}

/// `gpmp_poly_taylor_shift` over arrays of pointers; the g\[i\] must be distinct and may point to
/// the inputs.
///
/// # Safety
/// Arrays of valid pointers to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_taylor_shift_ptr(g: *mut mpz_ptr, f: *const mpz_srcptr, flen: usize, c: mpz_srcptr) -> gpmp_status {
    guard("gpmp_poly_taylor_shift_ptr", || {
        shift_into("gpmp_poly_taylor_shift_ptr", &MpzOut::Ptrs(g).slots(), MpzIn::Ptrs(f).views(flen, "f"), scalar(c, "c"), None)
    })
}

/// g = 2^(k·d)·f((x + c)/2^k), d = flen − 1 (CUMODP's P_(k,c): the polynomial whose roots in (0, 1)
/// are 2^k·r − c for the roots r of f in (c/2^k, (c + 1)/2^k)). g holds flen initialised `mpz_t`
/// and may be f.
///
/// # Safety
/// As `gpmp_poly_taylor_shift`.
#[no_mangle]
#[allow(clippy::unnecessary_cast, reason = "c_ulong is 32 bits on some targets")]
pub unsafe extern "C" fn gpmp_poly_scale_shift(g: *mut mpz_t, f: *const mpz_t, flen: usize, k: c_ulong, c: mpz_srcptr) -> gpmp_status {
    guard("gpmp_poly_scale_shift", || {
        shift_into(
            "gpmp_poly_scale_shift",
            &array_slots(g),
            views_and_bits(MpzIn::Array(f), flen, "f").map(|x| x.0),
            scalar(c, "c"),
            Some(k as u64),
        )
    })
}

/// `gpmp_poly_scale_shift` over arrays of pointers (as `gpmp_poly_taylor_shift_ptr`).
///
/// # Safety
/// As `gpmp_poly_taylor_shift_ptr`.
#[no_mangle]
#[allow(clippy::unnecessary_cast, reason = "c_ulong is 32 bits on some targets")]
pub unsafe extern "C" fn gpmp_poly_scale_shift_ptr(
    g: *mut mpz_ptr,
    f: *const mpz_srcptr,
    flen: usize,
    k: c_ulong,
    c: mpz_srcptr,
) -> gpmp_status {
    guard("gpmp_poly_scale_shift_ptr", || {
        shift_into("gpmp_poly_scale_shift_ptr", &MpzOut::Ptrs(g).slots(), MpzIn::Ptrs(f).views(flen, "f"), scalar(c, "c"), Some(k as u64))
    })
}

/// g\[0 .. flen−1\] = f(x + c) mod p, p an odd prime < 2^63, every f\[i\] and c < p
/// (`GPMP_INVALID_ARGUMENT` otherwise, g untouched). g may be f.
///
/// # Safety
/// f and g hold flen `uint64_t` (NULL allowed when flen = 0).
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_taylor_shift(g: *mut u64, f: *const u64, flen: usize, c: u64, p: u64) -> gpmp_status {
    guard("gpmp_nmod_poly_taylor_shift", || {
        let r = {
            let fs = slice_in(f, flen, "f")?;
            runtime::install(|| crate::nmod::taylor_shift::taylor_shift(fs, c, p))?
        };
        // f's slice ends above: g may be f.
        slice_out(g, flen, "g")?.copy_from_slice(&r);
        Ok(())
    })
}

/// The roots into the output slots (see `gpmp_poly_real_roots`).
///
/// # Safety
/// As `gpmp_poly_real_roots`.
unsafe fn roots_into(
    lo: impl Fn(usize) -> *mut mpq_t,
    hi: impl Fn(usize) -> *mut mpq_t,
    mult: *mut usize,
    nroots: *mut usize,
    f: Result<Vec<IntRef>>,
    prec: c_long,
) -> Result<()> {
    let f = f?;
    if nroots.is_null() {
        return invalid!("nroots is NULL");
    }
    #[allow(clippy::unnecessary_cast, reason = "c_long is 32 bits on some targets")]
    let roots = runtime::install(|| real_roots::real_roots(&f, prec as i64))?;
    recycle_views(f);
    for i in 0..roots.len() {
        if lo(i).is_null() || hi(i).is_null() {
            return invalid!("lo or hi is NULL (or holds a NULL pointer at {i}) for {} roots", roots.len());
        }
    }
    for (i, r) in roots.iter().enumerate() {
        set_dyadic(lo(i), &r.lo);
        set_dyadic(hi(i), &r.hi);
        if !mult.is_null() {
            *mult.add(i) = r.mult;
        }
    }
    *nroots = roots.len();
    Ok(())
}

/// q ← x (canonical: x's magnitude is odd unless its exponent is 0).
///
/// # Safety
/// q points to an initialised `mpq_t`.
unsafe fn set_dyadic(q: *mut mpq_t, x: &Dyadic) {
    let num = gmp::mpq_numref(q);
    let den = gmp::mpq_denref(q);
    gmp::mpz_import(num, x.mag.len(), -1, 8, 0, 0, x.mag.as_ptr().cast());
    if x.neg {
        gmp::mpz_neg(num, num);
    }
    gmp::mpz_set_ui(den, 1);
    if x.exp >= 0 {
        gmp::mpz_mul_2exp(num, num, x.exp as u64);
    } else {
        gmp::mpz_mul_2exp(den, den, (-x.exp) as u64);
    }
}

/// The distinct real roots of f (any nonzero f, not necessarily square-free), ascending. lo, hi
/// (and mult, if not NULL) have room for flen − 1 entries; *nroots receives their number. Root i
/// lies in \[lo\[i\], hi\[i\]\]: lo\[i\] == hi\[i\] exactly when the root is that rational number, otherwise
/// lo\[i\] < root < hi\[i\], the open interval holds no other root, no endpoint is a root, and the
/// closed intervals are pairwise disjoint. prec ≥ 0: every interval has width ≤ 2^−prec; prec < 0:
/// isolation only. Endpoints are dyadic (a/2^e). mult\[i\] = the multiplicity of root i in f.
/// The zero polynomial (flen = 0 or all coefficients 0) is `GPMP_INVALID_ARGUMENT`; a nonzero
/// constant has no roots. Outputs are written only on success.
///
/// Method: the square-free part (a multi-modular GCD), x ↦ x² deflation of even polynomials,
/// Descartes' rule of signs on a bisection tree whose nodes are Taylor shifts (subtrees in
/// parallel), bisection with filtered exact signs for the final intervals.
///
/// # Safety
/// f holds flen initialised `mpz_t`; lo and hi hold initialised `mpq_t` (one per root); mult, when
/// not NULL, and nroots are writable.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_real_roots(
    lo: *mut mpq_t,
    hi: *mut mpq_t,
    mult: *mut usize,
    nroots: *mut usize,
    f: *const mpz_t,
    flen: usize,
    prec: c_long,
) -> gpmp_status {
    guard("gpmp_poly_real_roots", || {
        let (lp, hp) = (SendPtr(lo), SendPtr(hi));
        let lo = move |i: usize| if lp.get().is_null() { std::ptr::null_mut() } else { lp.get().add(i) };
        let hi = move |i: usize| if hp.get().is_null() { std::ptr::null_mut() } else { hp.get().add(i) };
        roots_into(lo, hi, mult, nroots, views_and_bits(MpzIn::Array(f), flen, "f").map(|x| x.0), prec)
    })
}

/// `gpmp_poly_real_roots` over arrays of pointers (the lo\[i\], hi\[i\] distinct `mpq_t`).
///
/// # Safety
/// As `gpmp_poly_real_roots`, with arrays of valid pointers.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_real_roots_ptr(
    lo: *mut mpq_ptr,
    hi: *mut mpq_ptr,
    mult: *mut usize,
    nroots: *mut usize,
    f: *const mpz_srcptr,
    flen: usize,
    prec: c_long,
) -> gpmp_status {
    guard("gpmp_poly_real_roots_ptr", || {
        let (lp, hp) = (SendPtr(lo), SendPtr(hi));
        let lo = move |i: usize| if lp.get().is_null() { std::ptr::null_mut() } else { *lp.get().add(i) };
        let hi = move |i: usize| if hp.get().is_null() { std::ptr::null_mut() } else { *hp.get().add(i) };
        roots_into(lo, hi, mult, nroots, MpzIn::Ptrs(f).views(flen, "f"), prec)
    })
}

/// *nroots = the number of distinct real roots of f (any nonzero f; the zero polynomial is
/// `GPMP_INVALID_ARGUMENT`).
///
/// # Safety
/// f holds flen initialised `mpz_t`; nroots is writable.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_count_real_roots(nroots: *mut usize, f: *const mpz_t, flen: usize) -> gpmp_status {
    guard("gpmp_poly_count_real_roots", || count_into(nroots, views_and_bits(MpzIn::Array(f), flen, "f").map(|x| x.0)))
}

/// `gpmp_poly_count_real_roots` over an array of pointers.
///
/// # Safety
/// f holds flen valid pointers to initialised `mpz_t`; nroots is writable.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_count_real_roots_ptr(nroots: *mut usize, f: *const mpz_srcptr, flen: usize) -> gpmp_status {
    guard("gpmp_poly_count_real_roots_ptr", || count_into(nroots, MpzIn::Ptrs(f).views(flen, "f")))
}

/// # Safety
/// nroots is NULL or writable.
unsafe fn count_into(nroots: *mut usize, f: Result<Vec<IntRef>>) -> Result<()> {
    let f = f?;
    if nroots.is_null() {
        return invalid!("nroots is NULL");
    }
    let n = runtime::install(|| real_roots::count_real_roots(&f))?;
    recycle_views(f);
    *nroots = n;
    Ok(())
}
