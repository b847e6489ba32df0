//! `gpmp_zvec`: a batch of n signed integers of at most `bits` bits kept inside gpmp, for chains of
//! element-wise operations without conversions (word-major layout, see `int::ZVec`: device memory
//! with the GPU backend, or with AUTO for large vectors when a GPU is usable; host memory
//! otherwise). Every operation that would not fit its destination
//! returns `GPMP_SIZE_TOO_LARGE` and changes nothing; r may be a or b.
use super::mpz::{array_slots, check_slots, mpz_srcptr, mpz_t, views_of_array, write_list};
use super::mpz_n::view_arg;
use super::gpmp_status;
use super::status::{guard, guard_value};
use crate::int::ZVec;
use crate::{invalid, runtime, Result};

/// Opaque batch of integers (`typedef struct gpmp_zvec gpmp_zvec;`).
pub struct gpmp_zvec(ZVec);

/// A zvec of n zeros of up to `bits` bits each, or NULL (out of memory, too large; see
/// `gpmp_last_error`). Free it with `gpmp_zvec_free`.
#[no_mangle]
pub extern "C" fn gpmp_zvec_new(n: usize, bits: usize) -> *mut gpmp_zvec {
    guard_value("gpmp_zvec_new", std::ptr::null_mut(), || {
        let v = runtime::install(|| ZVec::zeros(n, bits as u64))?;
        Ok(Box::into_raw(Box::new(gpmp_zvec(v))))
    })
}

/// Frees a zvec (NULL is allowed).
///
/// # Safety
/// v is NULL or from `gpmp_zvec_new`, not freed before.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_free(v: *mut gpmp_zvec) {
    if !v.is_null() {
        drop(Box::from_raw(v));
    }
}

/// The zvec behind a pointer.
unsafe fn zvec<'a>(v: *const gpmp_zvec, what: &str) -> Result<&'a ZVec> {
    if v.is_null() {
        return invalid!("{what} is NULL");
    }
    Ok(&(*v).0)
}

/// v\[i\] = a\[i\] for i < n; n must be v's length; `GPMP_SIZE_TOO_LARGE` (v unchanged) when an
/// element exceeds v's bits.
///
/// # Safety
/// v from `gpmp_zvec_new`; a points to n initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_set_mpz(v: *mut gpmp_zvec, a: *const mpz_t, n: usize) -> gpmp_status {
    guard("gpmp_zvec_set_mpz", || {
        zvec(v, "v")?;
        let a = views_of_array(a, n, "a")?;
        let v = &mut (*v).0;
        runtime::install(|| v.set(&a))
    })
}

/// a\[i\] = v\[i\] for i < n; n must be v's length.
///
/// # Safety
/// v from `gpmp_zvec_new`; a points to n initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_get_mpz(a: *mut mpz_t, v: *const gpmp_zvec, n: usize) -> gpmp_status {
    guard("gpmp_zvec_get_mpz", || {
        let v = zvec(v, "v")?;
        if n != v.len() {
            return invalid!("n = {n} but the zvec has {} integers", v.len());
        }
        let out = array_slots(a);
        check_slots(n, "a", &out)?;
        let l = runtime::install(|| v.to_list())?;
        write_list(&l, out)
    })
}

/// r = op(r, a, b): the new contents of r, computed from shared borrows of r, a and b (which may
/// be the same), then installed in r.
unsafe fn binary(
    name: &str,
    r: *mut gpmp_zvec,
    a: *const gpmp_zvec,
    b: *const gpmp_zvec,
    op: impl FnOnce(&ZVec, &ZVec, &ZVec) -> Result<ZVec> + Send,
) -> gpmp_status {
    guard(name, || {
        let res = {
            let (rv, av, bv) = (zvec(r, "r")?, zvec(a, "a")?, zvec(b, "b")?);
            runtime::install(|| op(rv, av, bv))?
        };
        (*r).0 = res;
        Ok(())
    })
}

/// r = a + b element-wise.
///
/// # Safety
/// r, a, b from `gpmp_zvec_new` (possibly the same).
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_add(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec) -> gpmp_status {
    binary("gpmp_zvec_add", r, a, b, ZVec::add)
}

/// r = a − b element-wise.
///
/// # Safety
/// As `gpmp_zvec_add`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_sub(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec) -> gpmp_status {
    binary("gpmp_zvec_sub", r, a, b, ZVec::sub)
}

/// r = a·b element-wise; r needs bits ≥ a.bits + b.bits (else `GPMP_SIZE_TOO_LARGE`).
///
/// # Safety
/// As `gpmp_zvec_add`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_mul(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec) -> gpmp_status {
    binary("gpmp_zvec_mul", r, a, b, ZVec::mul)
}

/// r = a·b mod m element-wise, m > 1.
///
/// # Safety
/// As `gpmp_zvec_add`; m points to an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_mulmod(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec, m: mpz_srcptr) -> gpmp_status {
    let mv = view_arg(m, "m");
    binary("gpmp_zvec_mulmod", r, a, b, |r, a, b| ZVec::mulmod(r, a, b, mv?))
}

/// r = base^exp mod m element-wise, m > 1, exp ≥ 0.
///
/// # Safety
/// As `gpmp_zvec_mulmod`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_powm(r: *mut gpmp_zvec, base: *const gpmp_zvec, exp: *const gpmp_zvec, m: mpz_srcptr) -> gpmp_status {
    let mv = view_arg(m, "m");
    binary("gpmp_zvec_powm", r, base, exp, |r, a, b| ZVec::powm(r, a, b, mv?))
}
