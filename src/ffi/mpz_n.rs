//! `gpmp_mpz_*_n` (element-wise over `mpz_t` arrays, plain and modulo one shared m > 1) and
//! `gpmp_mpz_mul` / `gpmp_mpz_sqr` (one big product by `ops::int::mul_mag_start`).
use super::gpmp_status;
use super::mpz::{array_slots, check_slots, mpz_ptr, mpz_srcptr, mpz_t, view, write_ints, write_list, MpzIn, MpzOut};
use super::status::guard;
use crate::int::{batch, IntRef, ZList};
use crate::ops::int::{addmul_n as addmul_products, mul_mag_start, mul_n, mulmod_n, powm_n, DeviceProducts, MagProduct, Products};
use crate::{invalid, runtime, Error, Result};
use gmp_mpfr_sys::gmp;
use rayon::prelude::*;

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
/// The inputs are arrays of n elements (r may be one of them, or point to their elements).
unsafe fn elementwise(
    name: &str,
    r: MpzOut,
    inputs: &[(MpzIn, &str)],
    n: usize,
    op: impl FnOnce(&[Vec<IntRef>]) -> Result<ZList> + Send,
) -> gpmp_status {
    computed_then_written(name, r, inputs, n, op, |h, out| write_list(&h, out))
}

/// The body of every `gpmp_mpz_<op>_n`: views of the inputs, `op` on them in gpmp's pool, then
/// `write(result, slots)` on this thread once the views are gone (they may alias r).
unsafe fn computed_then_written<T: Send>(
    name: &str,
    r: MpzOut,
    inputs: &[(MpzIn, &str)],
    n: usize,
    op: impl FnOnce(&[Vec<IntRef>]) -> Result<T> + Send,
    write: impl FnOnce(T, &(dyn Fn(usize) -> *mut mpz_t + Sync)) -> Result<()>,
) -> gpmp_status {
    guard(name, || {
        let views = inputs.iter().map(|&(p, what)| p.views(n, what)).collect::<Result<Vec<_>>>()?;
        if crate::memory::host_limit() != 0 {
            // The results and the scratch: about twice the operands' limbs, plus a word an element.
            let limbs: u128 = views.iter().flatten().map(|v| v.mag.len() as u128 + 1).sum();
            crate::memory::check_host(8 * 3 * limbs, name)?;
        }
        let out = r.slots();
        check_slots(n, "r", &out)?;
        let h = runtime::install(|| op(&views))?;
        drop(views); // they may alias r
        write(h, &out)
    })
}

/// r\[i\] = the batched products (`gpmp_mpz_mul_n`, `_addmul_n`): on the CPU route as
/// [`elementwise`]; on the GPU route ([`DeviceProducts`]) the outputs too small for their bound are
/// grown on this thread (value kept) while the device computes, then each chunk of results is
/// written as it comes down, in parallel, straight into the `mpz_t`. A device failure is seen
/// before the first result is written (outputs unchanged), except a failed download of a later
/// chunk.
unsafe fn products_n(
    name: &str,
    r: MpzOut,
    inputs: &[(MpzIn, &str)],
    n: usize,
    op: impl FnOnce(&[Vec<IntRef>]) -> Result<Products> + Send,
) -> gpmp_status {
    computed_then_written(name, r, inputs, n, op, |p, out| match p {
        Products::Host(h) => write_list(&h, out),
        Products::Device(job) => write_device_products(job, out),
    })
}

/// See [`products_n`]. The operands were read when `job` was made and are not read again.
unsafe fn write_device_products(mut job: DeviceProducts, slot: &(dyn Fn(usize) -> *mut mpz_t + Sync)) -> Result<()> {
    job.prefetch()?;
    let need = job.take_need();
    let small = |i: usize| (*slot(i)).alloc < need[i] as i32;
    let todo: Vec<usize> = if need.len() < PARALLEL_LEN {
        (0..need.len()).filter(|&i| small(i)).collect()
    } else {
        runtime::install(|| (0..need.len()).into_par_iter().with_min_len(1 << 12).filter(|&i| small(i)).collect())
    };
    for i in todo {
        // Keeps the value (it fits: the mpz_t grows), so that a later failure leaves r unchanged.
        gmp::mpz_realloc2(slot(i), 64 * need[i] as gmp::bitcnt_t);
    }
    job.mark("grow outputs");
    for k in 0..job.chunks() {
        let ch = job.chunk(k)?;
        runtime::install(|| {
            ch.range().into_par_iter().with_min_len(256).for_each(|i| {
                let z = slot(i);
                // SAFETY: distinct initialised mpz_t with room for need[i] limbs (grown above), not
                // borrowed by any view; the result fits in need[i] limbs.
                unsafe {
                    let (neg, len) =
                        if need[i] == 0 { (false, 0) } else { ch.get(i, std::slice::from_raw_parts_mut((*z).d.as_ptr(), need[i])) };
                    (*z).size = if neg { -(len as i32) } else { len as i32 };
                }
            })
        });
        job.mark("write outputs");
    }
    Ok(())
}

/// Arrays from this many elements are scanned for outputs to grow in gpmp's pool.
const PARALLEL_LEN: usize = 1 << 15;

// `gpmp_mpz_<op>_n` works on `mpz_t` arrays; its twin `gpmp_mpz_<op>_n_ptr` on arrays of pointers
// (Julia's `Vector{BigInt}`, gmpy2 objects, PARI's and Maple's integers) with the same semantics:
// the r[i] must be distinct and may point to the inputs. Both go through `elementwise`.

/// r\[i\] = a\[i\] + b\[i\] for i < n (arrays of initialised `mpz_t`; r may be a or b).
///
/// # Safety
/// r, a, b point to n initialised `mpz_t` each (may be NULL when n = 0).
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_add_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_add_n", MpzOut::Array(r), &[(MpzIn::Array(a), "a"), (MpzIn::Array(b), "b")], n, |v| batch::add(&v[0], &v[1]))
}

/// `gpmp_mpz_add_n` over arrays of pointers.
///
/// # Safety
/// r, a, b point to n pointers each, to initialised `mpz_t` (the r\[i\] distinct).
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_add_n_ptr(r: *mut mpz_ptr, a: *const mpz_srcptr, b: *const mpz_srcptr, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_add_n_ptr", MpzOut::Ptrs(r), &[(MpzIn::Ptrs(a), "a"), (MpzIn::Ptrs(b), "b")], n, |v| batch::add(&v[0], &v[1]))
}

/// r\[i\] = a\[i\] − b\[i\].
///
/// # Safety
/// As `gpmp_mpz_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_sub_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_sub_n", MpzOut::Array(r), &[(MpzIn::Array(a), "a"), (MpzIn::Array(b), "b")], n, |v| batch::sub(&v[0], &v[1]))
}

/// `gpmp_mpz_sub_n` over arrays of pointers.
///
/// # Safety
/// As `gpmp_mpz_add_n_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_sub_n_ptr(r: *mut mpz_ptr, a: *const mpz_srcptr, b: *const mpz_srcptr, n: usize) -> gpmp_status {
    elementwise("gpmp_mpz_sub_n_ptr", MpzOut::Ptrs(r), &[(MpzIn::Ptrs(a), "a"), (MpzIn::Ptrs(b), "b")], n, |v| batch::sub(&v[0], &v[1]))
}

/// r\[i\] = a\[i\]·b\[i\].
///
/// # Safety
/// As `gpmp_mpz_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mul_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    products_n("gpmp_mpz_mul_n", MpzOut::Array(r), &[(MpzIn::Array(a), "a"), (MpzIn::Array(b), "b")], n, |v| mul_n(&v[0], &v[1]))
}

/// `gpmp_mpz_mul_n` over arrays of pointers.
///
/// # Safety
/// As `gpmp_mpz_add_n_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mul_n_ptr(r: *mut mpz_ptr, a: *const mpz_srcptr, b: *const mpz_srcptr, n: usize) -> gpmp_status {
    products_n("gpmp_mpz_mul_n_ptr", MpzOut::Ptrs(r), &[(MpzIn::Ptrs(a), "a"), (MpzIn::Ptrs(b), "b")], n, |v| mul_n(&v[0], &v[1]))
}

/// The body of `gpmp_mpz_addmul_n` and its twin (r is read too).
unsafe fn addmul_n(name: &str, r: MpzOut, a: MpzIn, b: MpzIn, n: usize) -> gpmp_status {
    products_n(name, r, &[(r.as_input(), "r"), (a, "a"), (b, "b")], n, |v| addmul_products(&v[0], &v[1], &v[2]))
}

/// r\[i\] += a\[i\]·b\[i\].
///
/// # Safety
/// As `gpmp_mpz_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_addmul_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, n: usize) -> gpmp_status {
    addmul_n("gpmp_mpz_addmul_n", MpzOut::Array(r), MpzIn::Array(a), MpzIn::Array(b), n)
}

/// `gpmp_mpz_addmul_n` over arrays of pointers.
///
/// # Safety
/// As `gpmp_mpz_add_n_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_addmul_n_ptr(r: *mut mpz_ptr, a: *const mpz_srcptr, b: *const mpz_srcptr, n: usize) -> gpmp_status {
    addmul_n("gpmp_mpz_addmul_n_ptr", MpzOut::Ptrs(r), MpzIn::Ptrs(a), MpzIn::Ptrs(b), n)
}

/// r\[i\] = (a\[i\] + b\[i\]) mod m ∈ \[0, m), m > 1 (else `GPMP_INVALID_ARGUMENT`).
///
/// # Safety
/// As `gpmp_mpz_add_n`; m points to an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_addmod_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_addmod_n", MpzOut::Array(r), &[(MpzIn::Array(a), "a"), (MpzIn::Array(b), "b")], n, |v| {
        batch::addmod(&v[0], &v[1], m?)
    })
}

/// `gpmp_mpz_addmod_n` over arrays of pointers.
///
/// # Safety
/// As `gpmp_mpz_add_n_ptr`; m points to an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_addmod_n_ptr(
    r: *mut mpz_ptr,
    a: *const mpz_srcptr,
    b: *const mpz_srcptr,
    m: mpz_srcptr,
    n: usize,
) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_addmod_n_ptr", MpzOut::Ptrs(r), &[(MpzIn::Ptrs(a), "a"), (MpzIn::Ptrs(b), "b")], n, |v| {
        batch::addmod(&v[0], &v[1], m?)
    })
}

/// r\[i\] = (a\[i\] − b\[i\]) mod m ∈ \[0, m).
///
/// # Safety
/// As `gpmp_mpz_addmod_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_submod_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_submod_n", MpzOut::Array(r), &[(MpzIn::Array(a), "a"), (MpzIn::Array(b), "b")], n, |v| {
        batch::submod(&v[0], &v[1], m?)
    })
}

/// `gpmp_mpz_submod_n` over arrays of pointers.
///
/// # Safety
/// As `gpmp_mpz_addmod_n_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_submod_n_ptr(
    r: *mut mpz_ptr,
    a: *const mpz_srcptr,
    b: *const mpz_srcptr,
    m: mpz_srcptr,
    n: usize,
) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_submod_n_ptr", MpzOut::Ptrs(r), &[(MpzIn::Ptrs(a), "a"), (MpzIn::Ptrs(b), "b")], n, |v| {
        batch::submod(&v[0], &v[1], m?)
    })
}

/// r\[i\] = a\[i\]·b\[i\] mod m ∈ \[0, m).
///
/// # Safety
/// As `gpmp_mpz_addmod_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mulmod_n(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_mulmod_n", MpzOut::Array(r), &[(MpzIn::Array(a), "a"), (MpzIn::Array(b), "b")], n, |v| mulmod_n(&v[0], &v[1], m?))
}

/// `gpmp_mpz_mulmod_n` over arrays of pointers.
///
/// # Safety
/// As `gpmp_mpz_addmod_n_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mulmod_n_ptr(
    r: *mut mpz_ptr,
    a: *const mpz_srcptr,
    b: *const mpz_srcptr,
    m: mpz_srcptr,
    n: usize,
) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_mulmod_n_ptr", MpzOut::Ptrs(r), &[(MpzIn::Ptrs(a), "a"), (MpzIn::Ptrs(b), "b")], n, |v| {
        mulmod_n(&v[0], &v[1], m?)
    })
}

/// r\[i\] = base\[i\]^exp\[i\] mod m ∈ \[0, m); every exp\[i\] ≥ 0 (else `GPMP_INVALID_ARGUMENT`).
///
/// # Safety
/// As `gpmp_mpz_addmod_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_powm_n(r: *mut mpz_t, base: *const mpz_t, exp: *const mpz_t, m: mpz_srcptr, n: usize) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_powm_n", MpzOut::Array(r), &[(MpzIn::Array(base), "base"), (MpzIn::Array(exp), "exp")], n, |v| {
        powm_n(&v[0], &v[1], m?)
    })
}

/// `gpmp_mpz_powm_n` over arrays of pointers.
///
/// # Safety
/// As `gpmp_mpz_addmod_n_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_powm_n_ptr(
    r: *mut mpz_ptr,
    base: *const mpz_srcptr,
    exp: *const mpz_srcptr,
    m: mpz_srcptr,
    n: usize,
) -> gpmp_status {
    let m = view_arg(m, "m");
    elementwise("gpmp_mpz_powm_n_ptr", MpzOut::Ptrs(r), &[(MpzIn::Ptrs(base), "base"), (MpzIn::Ptrs(exp), "exp")], n, |v| {
        powm_n(&v[0], &v[1], m?)
    })
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
