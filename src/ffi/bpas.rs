//! The BPAS drop-in layer (`include/gpmp_bpas.h`): BPAS's dense Z\[x\] struct `DUZP_t` with its
//! ownership rules, and its multiplication entry points computed by [`zpoly::mul`].
//!
//! `DUZP_t` = { coefs, alloc, lt } (BPAS `IntegerPolynomial/DUZP_Support.h`): `coefs` holds `alloc`
//! `mpz_t` slots from plain `malloc`, of which exactly coefs\[0..=lt\] are initialised; coefs\[i\] is the
//! coefficient of x^i and lt the degree; the zero polynomial is lt = 0, coefs\[0\] = 0. As in BPAS's
//! `isZero_DUZP`, NULL and alloc = 0 also mean zero (and lt < 0, BPAS's `allocPolynomial_DUZP`, means
//! no coefficient). Results are normalised: lt is the true degree. Failures (bad struct, out of
//! memory) leave the outputs unchanged and set `gpmp_last_error`; the pointer-returning calls return
//! NULL then.
use super::mpz::{mpz_t, views_of_array, write_slab, SendPtr};
use super::status::{guard, guard_value};
use crate::int::{IntRef, ZSlab};
use crate::zpoly::{self, Alg};
use crate::{invalid, runtime, Error, Result};
use gmp_mpfr_sys::gmp;
use std::ffi::c_long;
use std::ptr::null_mut;

/// BPAS's dense univariate integer polynomial (`typedef struct duzp {...} DUZP_t`).
#[repr(C)]
pub struct duzp {
    /// `alloc` slots; coefs\[0..=lt\] are initialised `mpz_t`, coefs\[i\] is the coefficient of x^i.
    pub coefs: *mut mpz_t,
    /// Number of `mpz_t` slots allocated.
    pub alloc: c_long,
    /// Degree (index of the leading term); the zero polynomial has lt = 0 and coefs\[0\] = 0.
    pub lt: c_long,
}

/// BPAS's name for `struct duzp`.
pub type DUZP_t = duzp;

/// The number of initialised slots of `p` (0 for NULL, alloc = 0 or lt < 0).
unsafe fn initialised(p: *const DUZP_t) -> usize {
    if p.is_null() || (*p).alloc == 0 || (*p).lt < 0 {
        0
    } else {
        (*p).lt as usize + 1
    }
}

/// [`initialised`], checked against alloc.
unsafe fn checked_initialised(p: *const DUZP_t, what: &str) -> Result<usize> {
    let n = initialised(p);
    if n > 0 && (*p).lt >= (*p).alloc {
        return invalid!("{what}: lt = {} is not below alloc = {}", (*p).lt, (*p).alloc);
    }
    Ok(n)
}

/// The coefficients of `p` without its leading zeros (empty = the zero polynomial).
unsafe fn coefs_of<'a>(p: *const DUZP_t, what: &str) -> Result<Vec<IntRef<'a>>> {
    let n = checked_initialised(p, what)?;
    let mut v = views_of_array(if n > 0 { (*p).coefs } else { null_mut() }, n, what)?;
    while v.last().is_some_and(IntRef::is_zero) {
        v.pop();
    }
    Ok(v)
}

/// a·b for normalised a, b; `None` is the zero polynomial. Over Z the leading coefficient of a
/// product of non-zero polynomials is non-zero, so the result is normalised too.
fn product(a: &[IntRef], b: &[IntRef]) -> Result<Option<ZSlab>> {
    if a.is_empty() || b.is_empty() {
        return Ok(None);
    }
    runtime::install(|| zpoly::mul(a, b, Alg::Auto)).map(Some)
}

fn bytes_for(n: usize) -> Result<usize> {
    n.checked_mul(std::mem::size_of::<mpz_t>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Error::SizeTooLarge(format!("{n} coefficients")))
}

/// BPAS's `makePolynomial_DUZP`: `alloc` (at least 1) malloc'ed slots, coefs\[0\] = 0, lt = 0.
unsafe fn make(alloc: usize) -> Result<*mut DUZP_t> {
    let alloc = alloc.max(1);
    let bytes = bytes_for(alloc)?;
    let p = libc::malloc(std::mem::size_of::<DUZP_t>()).cast::<DUZP_t>();
    let c = libc::malloc(bytes).cast::<mpz_t>();
    if p.is_null() || c.is_null() {
        libc::free(p.cast());
        libc::free(c.cast());
        return Err(Error::OutOfMemory(format!("cannot allocate {bytes} bytes")));
    }
    gmp::mpz_init(c);
    p.write(DUZP_t { coefs: c, alloc: alloc as c_long, lt: 0 });
    Ok(p)
}

/// Sets `*p` to `h` (`None` = 0) as BPAS does: `realloc` when alloc is too small, `mpz_init` the
/// slots above the old lt, write, `mpz_clear` the slots above the new lt. On error the value of `*p`
/// is unchanged (its alloc may have grown).
unsafe fn assign(p: *mut DUZP_t, h: Option<&ZSlab>, what: &str) -> Result<()> {
    let old = checked_initialised(p, what)?;
    let p = &mut *p;
    let n = h.map_or(1, ZSlab::len);
    if (p.alloc.max(0) as usize) < n {
        let bytes = bytes_for(n)?;
        let c = libc::realloc(p.coefs.cast(), bytes).cast::<mpz_t>();
        if c.is_null() {
            return Err(Error::OutOfMemory(format!("cannot allocate {bytes} bytes")));
        }
        p.coefs = c;
        p.alloc = n as c_long;
    }
    for i in old..n {
        gmp::mpz_init(p.coefs.add(i));
    }
    let c = SendPtr(p.coefs);
    let written = match h {
        Some(h) => write_slab(h, move |i| c.get().add(i)),
        None => {
            gmp::mpz_set_ui(p.coefs, 0);
            Ok(())
        }
    };
    if let Err(e) = written {
        for i in old..n {
            gmp::mpz_clear(p.coefs.add(i));
        }
        return Err(e);
    }
    for i in n..old {
        gmp::mpz_clear(p.coefs.add(i));
    }
    p.lt = n as c_long - 1;
    Ok(())
}

/// A new zero polynomial with room for `alloc` coefficients (at least 1): coefs\[0\] = 0, lt = 0.
/// Free it with `gpmp_freePolynomial_DUZP`. NULL if out of memory.
#[no_mangle]
pub extern "C" fn gpmp_makePolynomial_DUZP(alloc: c_long) -> *mut DUZP_t {
    guard_value("gpmp_makePolynomial_DUZP", null_mut(), || unsafe { make(alloc.max(1) as usize) })
}

/// Clears coefs\[0..=lt\], frees coefs and the struct (`free`). NULL is allowed.
///
/// # Safety
/// `p` is NULL or a polynomial made by malloc as described (by gpmp or by BPAS).
#[no_mangle]
pub unsafe extern "C" fn gpmp_freePolynomial_DUZP(p: *mut DUZP_t) {
    if p.is_null() {
        return;
    }
    for i in 0..initialised(p) {
        gmp::mpz_clear((*p).coefs.add(i));
    }
    libc::free((*p).coefs.cast());
    libc::free(p.cast());
}

/// A new polynomial a·b; NULL if a or b is NULL (BPAS: "poly * 0 = 0") or on failure.
///
/// # Safety
/// `a`, `b` are NULL or valid polynomials.
#[no_mangle]
pub unsafe extern "C" fn gpmp_multiplyPolynomials_DUZP(a: *const DUZP_t, b: *const DUZP_t) -> *mut DUZP_t {
    guard_value("gpmp_multiplyPolynomials_DUZP", null_mut(), || {
        if a.is_null() || b.is_null() {
            return Ok(null_mut());
        }
        let h = product(&coefs_of(a, "a")?, &coefs_of(b, "b")?)?;
        let c = make(h.as_ref().map_or(1, ZSlab::len))?;
        if let Err(e) = assign(c, h.as_ref(), "c") {
            gpmp_freePolynomial_DUZP(c);
            return Err(e);
        }
        Ok(c)
    })
}

/// *b = a·(*b), reusing the allocation of *b (grown with `realloc`). As in BPAS, when a or *b is
/// zero, *b is freed and set to NULL. `a` may be *b (in-place square).
///
/// # Safety
/// `a` is NULL or a valid polynomial; `b` is NULL or points to NULL or a valid polynomial.
#[no_mangle]
pub unsafe extern "C" fn gpmp_multiplyPolynomials_DUZP_inp(a: *const DUZP_t, b: *mut *mut DUZP_t) {
    guard("gpmp_multiplyPolynomials_DUZP_inp", || {
        if b.is_null() {
            return Ok(());
        }
        match product(&coefs_of(a, "a")?, &coefs_of(*b, "*b")?)? {
            None => {
                gpmp_freePolynomial_DUZP(*b);
                *b = null_mut();
                Ok(())
            }
            Some(h) => assign(*b, Some(&h), "*b"),
        }
    });
}

/// *c = a·b in the (possibly) preallocated *c, created when *c is NULL and grown with `realloc` as
/// BPAS does; slots above the new degree are cleared. As in BPAS, a NULL a or b sets a non-NULL *c to
/// zero and leaves a NULL *c NULL. *c may be a or b.
///
/// # Safety
/// `a`, `b` are NULL or valid polynomials; `c` is NULL or points to NULL or a valid polynomial.
#[no_mangle]
pub unsafe extern "C" fn gpmp_multiplyPolynomialsPreAlloc_DUZP(a: *const DUZP_t, b: *const DUZP_t, c: *mut *mut DUZP_t) {
    guard("gpmp_multiplyPolynomialsPreAlloc_DUZP", || {
        if c.is_null() || ((a.is_null() || b.is_null()) && (*c).is_null()) {
            return Ok(());
        }
        let h = product(&coefs_of(a, "a")?, &coefs_of(b, "b")?)?;
        if !(*c).is_null() {
            return assign(*c, h.as_ref(), "*c");
        }
        let p = make(h.as_ref().map_or(1, ZSlab::len))?;
        if let Err(e) = assign(p, h.as_ref(), "*c") {
            gpmp_freePolynomial_DUZP(p);
            return Err(e);
        }
        *c = p;
        Ok(())
    });
}
