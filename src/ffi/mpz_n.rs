//! `gpmp_mpz_*_n` (element-wise over `mpz_t` arrays, plain and modulo one shared m > 1) and
//! `gpmp_mpz_mul` / `gpmp_mpz_sqr` (one big product by `ops::int::mul_mag_start`).
use super::gpmp_status;
use super::mpz::{array_slots, check_slots, mpz_ptr, mpz_srcptr, mpz_t, view, views_of_array, write_ints, write_list};
use super::status::guard;
use crate::int::{batch, IntRef, ZList};
use crate::ops::int::{mul_mag_start, mulmod_n, powm_n, MagProduct};
use crate::{invalid, runtime, Error, Result};
use gmp_mpfr_sys::gmp;

/// The view of a single `mpz_t` argument.
///
/// # Safety
/// `z` is NULL or points to an initialised `mpz_t`.
pub(crate) unsafe fn view_arg<'a>(z: *const mpz_t, what: &str) -> Result<IntRef<'a>> {
    if z.is_null() {
        return invalid!("{what} is NULL");
    }
    Ok(view(z))
}

/// r\[i\] = op(inputs)\[i\] for the `n` slots of r; nothing is written unless everything succeeded.
/// The inputs are `mpz_t *` arrays of n elements (r may be one of them).
unsafe fn elementwise(
    name: &str,
    r: *mut mpz_t,
    inputs: &[(*const mpz_t, &str)],
    n: usize,
    op: impl FnOnce(&[Vec<IntRef>]) -> Result<ZList> + Send,
) -> gpmp_status {
    guard(name, || {
        let views = inputs.iter().map(|&(p, what)| views_of_array(p, n, what)).collect::<Result<Vec<_>>>()?;
        let out = array_slots(r);
        check_slots(n, "r", &out)?;
        let h = runtime::install(|| op(&views))?;
        drop(views); // they may alias r
        write_list(&h, out)
    })
}

/// r\[i\] = a\[i\] + b\[i\] for i < n (arrays of initialised `mpz_t`; r may be a or b).
///
/// # Safety
/// r, a, b point to n initialised `mpz_t` each (may be NULL when n = 0).
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_add_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_add_n", r, &[(a, "a"), (b, "b")], n, |v| batch::add(&v[0], &v[1]))
}

/// r\[i\] = a\[i\] − b\[i\].
///
/// # Safety
/// As `gpmp_mpz_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_sub_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_sub_n", r, &[(a, "a"), (b, "b")], n, |v| batch::sub(&v[0], &v[1]))
}

/// r\[i\] = a\[i\]·b\[i\].
///
/// # Safety
/// As `gpmp_mpz_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mul_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_mul_n", r, &[(a, "a"), (b, "b")], n, |v| batch::mul(&v[0], &v[1]))
}

/// r\[i\] += a\[i\]·b\[i\].
///
/// # Safety
/// As `gpmp_mpz_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_addmul_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_addmul_n", r, &[(r, "r"), (a, "a"), (b, "b")], n, |v| batch::addmul(&v[0], &v[1], &v[2]))
}

/// r\[i\] = (a\[i\] + b\[i\]) mod m ∈ \[0, m), m > 1 (else `GPMP_INVALID_ARGUMENT`).
///
/// # Safety
/// As `gpmp_mpz_add_n`; m points to an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_addmod_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let mv = view_arg(m, "m");
    elementwise("gpmp_mpz_addmod_n", r, &[(a, "a"), (b, "b")], n, |v| batch::addmod(&v[0], &v[1], mv?))
}

/// r\[i\] = (a\[i\] − b\[i\]) mod m ∈ \[0, m).
///
/// # Safety
/// As `gpmp_mpz_addmod_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_submod_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let mv = view_arg(m, "m");
    elementwise("gpmp_mpz_submod_n", r, &[(a, "a"), (b, "b")], n, |v| batch::submod(&v[0], &v[1], mv?))
}

/// r\[i\] = a\[i\]·b\[i\] mod m ∈ \[0, m).
///
/// # Safety
/// As `gpmp_mpz_addmod_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mulmod_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let mv = view_arg(m, "m");
    elementwise("gpmp_mpz_mulmod_n", r, &[(a, "a"), (b, "b")], n, |v| mulmod_n(&v[0], &v[1], mv?))
}

/// r\[i\] = base\[i\]^exp\[i\] mod m ∈ \[0, m); every exp\[i\] ≥ 0 (else `GPMP_INVALID_ARGUMENT`).
///
/// # Safety
/// As `gpmp_mpz_addmod_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_powm_n(r: *mut mpz_t, base: *const mpz_t, exp: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let mv = view_arg(m, "m");
    elementwise("gpmp_mpz_powm_n", r, &[(base, "base"), (exp, "exp")], n, |v| powm_n(&v[0], &v[1], mv?))
}

/// r = a·b (GMP below its crossover, a multi-threaded NTT product above, or the GPU product where
/// `ops::route` sends it: `ops::int::mul_mag_start`).
/// r may be a or b.
///
/// # Safety
/// r, a, b point to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mul(r: mpz_ptr, a: mpz_srcptr, b: mpz_srcptr) -> gpmp_status {
    guard("gpmp_mpz_mul", || product(r, view_arg(a, "a")?, view_arg(b, "b")?))
}

/// r = a².
///
/// # Safety
/// r, a point to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_sqr(r: mpz_ptr, a: mpz_srcptr) -> gpmp_status {
    guard("gpmp_mpz_sqr", || {
        let a = view_arg(a, "a")?;
        product(r, a, a)
    })
}

/// r = a·b (a and b the same view: a square). On the GPU route the operands are uploaded first
/// (r may alias them), then r is grown on this thread (value kept) and, once the device work has
/// succeeded, the product's limbs are downloaded straight into it.
unsafe fn product(r: mpz_ptr, a: IntRef, b: IntRef) -> Result<()> {
    if r.is_null() {
        return invalid!("r is NULL");
    }
    let (la, lb) = (a.mag.len(), b.mag.len());
    let p = match runtime::install(|| mul_mag_start(a.mag, b.mag))? {
        MagProduct::Host(p) => p,
        MagProduct::Device(job) => {
            let n = la + lb;
            if n > i32::MAX as usize {
                return Err(Error::SizeTooLarge(format!("a product of {n} limbs exceeds GMP's limit")));
            }
            // a and b are no longer read: growing r (which may be a or b) is safe.
            let d = gmp::mpz_limbs_modify(r, n as _);
            let out = std::slice::from_raw_parts_mut(d, n);
            runtime::install(|| job.finish(out))?;
            let size = if a.neg != b.neg { -(n as i64) } else { n as i64 };
            gmp::mpz_limbs_finish(r, size as _);
            return Ok(());
        }
    };
    let neg = a.neg != b.neg;
    write_ints(1, |_| IntRef::new(neg, &p), array_slots(r))
}
