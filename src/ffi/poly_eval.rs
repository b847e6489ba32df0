//! `gpmp_poly_evaluate*`, `gpmp_poly_interpolate*`, `gpmp_poly_divrem*` and
//! `gpmp_poly_pseudo_divrem*`: multipoint evaluation, interpolation and division for dense Z\[x\]
//! over `mpz_t` arrays and arrays of pointers (the `_ptr` forms, through the same code). Outputs are
//! caller-initialised `mpz_t`, written only on success, and may alias the inputs.
use super::gpmp_status;
use super::mpz::{array_slots, check_slots, mpz_ptr, mpz_srcptr, mpz_t, views_of_array, write_ints, MpzIn, MpzOut, SendPtr};
use super::status::guard;
use crate::int::{Int, IntRef};
use crate::zpoly::{divrem, evaluate, interpolate};
use crate::{invalid, runtime, Result};
use std::ffi::c_ulong;

/// Whether an output array was given (its slots are then checked).
fn wanted(slot: &impl Fn(usize) -> *mut mpz_t, len: usize) -> bool {
    len == 0 || !slot(0).is_null()
}

/// Writes owned integers into the slots.
unsafe fn write_mpz(v: &[Int], slot: impl Fn(usize) -> *mut mpz_t + Sync) -> Result<()> {
    write_ints(v.len(), |i| v[i].view(), slot)
}

fn evaluate_into(out: impl Fn(usize) -> *mut mpz_t + Sync, f: Result<Vec<IntRef>>, points: Result<Vec<IntRef>>) -> Result<()> {
    let (f, u) = (f?, points?);
    check_slots(u.len(), "values", &out)?;
    let vals = runtime::install(|| evaluate::evaluate(&f, &u))?;
    drop((f, u)); // the outputs may alias the inputs
    unsafe { write_ints(vals.len(), |i| vals.get(i), out) }
}

/// values\[i\] = f(points\[i\]) exactly, i < n (points may repeat; all 0 when flen = 0). Values of
/// at most 2^14 bits (bound: bits(max|f_j|) + bits(max|u|)·(flen − 1) + ⌈log2 flen⌉) by subproduct
/// trees modulo 50-bit primes and CRT, larger ones one point at a time by halving f.
///
/// # Safety
/// f holds flen, points and values hold n initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_evaluate(
    values: *mut mpz_t,
    f: *const mpz_t,
    flen: usize,
    points: *const mpz_t,
    n: usize,
) -> gpmp_status {
    guard("gpmp_poly_evaluate", || evaluate_into(array_slots(values), views_of_array(f, flen, "f"), views_of_array(points, n, "points")))
}

/// `gpmp_poly_evaluate` over arrays of pointers (the values\[i\] distinct; they may point to inputs).
///
/// # Safety
/// Arrays of valid pointers to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_evaluate_ptr(
    values: *mut mpz_ptr,
    f: *const mpz_srcptr,
    flen: usize,
    points: *const mpz_srcptr,
    n: usize,
) -> gpmp_status {
    guard("gpmp_poly_evaluate_ptr", || {
        evaluate_into(MpzOut::Ptrs(values).slots(), MpzIn::Ptrs(f).views(flen, "f"), MpzIn::Ptrs(points).views(n, "points"))
    })
}

fn interpolate_into(
    num: impl Fn(usize) -> *mut mpz_t + Sync,
    den: *mut mpz_t,
    points: Result<Vec<IntRef>>,
    values: Result<Vec<IntRef>>,
) -> Result<()> {
    let (u, v) = (points?, values?);
    if den.is_null() {
        return invalid!("den is NULL");
    }
    check_slots(u.len(), "num", &num)?;
    let (nz, dz) = interpolate::interpolate(&u, &v)?;
    drop((u, v));
    unsafe {
        write_mpz(&nz, num)?;
        let den = SendPtr(den);
        write_mpz(std::slice::from_ref(&dz), move |_| den.get())?;
    }
    Ok(())
}

/// The unique f ∈ Q\[x\] of degree < n with f(points\[i\]) = values\[i\] (n ≥ 1 distinct points), as
/// num/den: writes the n coefficients of num ∈ Z\[x\] and den > 0, with gcd(den, content(num)) = 1.
/// Modular interpolation with rational reconstruction, checked exactly; `GPMP_SIZE_TOO_LARGE` when
/// num and den together need more than about 10^5 bits.
///
/// # Safety
/// points, values and num hold n initialised `mpz_t`; den is an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_interpolate(
    num: *mut mpz_t,
    den: *mut mpz_t,
    points: *const mpz_t,
    values: *const mpz_t,
    n: usize,
) -> gpmp_status {
    guard("gpmp_poly_interpolate", || {
        interpolate_into(array_slots(num), den, views_of_array(points, n, "points"), views_of_array(values, n, "values"))
    })
}

/// `gpmp_poly_interpolate` over arrays of pointers.
///
/// # Safety
/// Arrays of valid pointers to initialised `mpz_t`; den an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_interpolate_ptr(
    num: *mut mpz_ptr,
    den: mpz_ptr,
    points: *const mpz_srcptr,
    values: *const mpz_srcptr,
    n: usize,
) -> gpmp_status {
    guard("gpmp_poly_interpolate_ptr", || {
        interpolate_into(MpzOut::Ptrs(num).slots(), den, MpzIn::Ptrs(points).views(n, "points"), MpzIn::Ptrs(values).views(n, "values"))
    })
}

/// The shapes of a division's outputs: (q length, r length); `InvalidArgument` for blen = 0.
fn shapes(alen: usize, blen: usize) -> Result<(usize, usize)> {
    if blen == 0 {
        return invalid!("division by the zero polynomial (blen = 0)");
    }
    Ok(((alen + 1).saturating_sub(blen), blen - 1))
}

/// Checks the wanted outputs q, r (NULL slots: not wanted), runs `divide` (q, r and an extra value),
/// then writes q and r; nothing is written unless every step succeeded.
fn divide_into<T>(
    q: impl Fn(usize) -> *mut mpz_t + Sync,
    r: impl Fn(usize) -> *mut mpz_t + Sync,
    a: Result<Vec<IntRef>>,
    b: Result<Vec<IntRef>>,
    divide: impl FnOnce(&[IntRef], &[IntRef]) -> Result<(Vec<Int>, Vec<Int>, T)>,
) -> Result<T> {
    let (a, b) = (a?, b?);
    let (ql, rl) = shapes(a.len(), b.len())?;
    let (wq, wr) = (wanted(&q, ql), wanted(&r, rl));
    if wq {
        check_slots(ql, "q", &q)?;
    }
    if wr {
        check_slots(rl, "r", &r)?;
    }
    let (qz, rz, extra) = divide(&a, &b)?;
    drop((a, b));
    unsafe {
        if wq {
            write_mpz(&qz, q)?;
        }
        if wr {
            write_mpz(&rz, r)?;
        }
    }
    Ok(extra)
}

fn divrem_into(
    q: impl Fn(usize) -> *mut mpz_t + Sync,
    r: impl Fn(usize) -> *mut mpz_t + Sync,
    a: Result<Vec<IntRef>>,
    b: Result<Vec<IntRef>>,
) -> Result<()> {
    divide_into(q, r, a, b, |a, b| divrem::divrem(a, b).map(|(q, r)| (q, r, ())))
}

/// a = q·b + r with deg r < deg b over Z: q gets alen − blen + 1 coefficients (none when
/// alen < blen), r gets blen − 1. Needs lc(b) = ±1, unless b divides a exactly (then r = 0);
/// otherwise `GPMP_INVALID_ARGUMENT`, as for blen = 0 or a zero leading coefficient. q or r may be
/// NULL when not wanted. Classical division (gpmp's own integers).
///
/// # Safety
/// a, b hold alen, blen initialised `mpz_t`; q, r (when not NULL) the lengths above.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_divrem(
    q: *mut mpz_t,
    r: *mut mpz_t,
    a: *const mpz_t,
    alen: usize,
    b: *const mpz_t,
    blen: usize,
) -> gpmp_status {
    guard("gpmp_poly_divrem", || divrem_into(array_slots(q), array_slots(r), views_of_array(a, alen, "a"), views_of_array(b, blen, "b")))
}

/// `gpmp_poly_divrem` over arrays of pointers.
///
/// # Safety
/// Arrays of valid pointers to initialised `mpz_t` (q, r may be NULL).
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_divrem_ptr(
    q: *mut mpz_ptr,
    r: *mut mpz_ptr,
    a: *const mpz_srcptr,
    alen: usize,
    b: *const mpz_srcptr,
    blen: usize,
) -> gpmp_status {
    guard("gpmp_poly_divrem_ptr", || {
        divrem_into(MpzOut::Ptrs(q).slots(), MpzOut::Ptrs(r).slots(), MpzIn::Ptrs(a).views(alen, "a"), MpzIn::Ptrs(b).views(blen, "b"))
    })
}

fn pseudo_into(
    q: impl Fn(usize) -> *mut mpz_t + Sync,
    r: impl Fn(usize) -> *mut mpz_t + Sync,
    d: *mut c_ulong,
    a: Result<Vec<IntRef>>,
    b: Result<Vec<IntRef>>,
) -> Result<()> {
    let dd = divide_into(q, r, a, b, divrem::pseudo_divrem)?;
    if !d.is_null() {
        // SAFETY: d points to an `unsigned long` (the export's contract).
        unsafe { *d = dd as c_ulong };
    }
    Ok(())
}

/// lc(b)^d·a = q·b + r with d = alen − blen + 1 (FLINT's `fmpz_poly_pseudo_divrem`): q gets d
/// coefficients, r gets blen − 1; when alen < blen, d = 0, r = a. q, r or d may be NULL when not
/// wanted. Classical pseudo-division (gpmp's own integers).
///
/// # Safety
/// As `gpmp_poly_divrem`; d (when not NULL) points to an `unsigned long`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_pseudo_divrem(
    q: *mut mpz_t,
    r: *mut mpz_t,
    d: *mut c_ulong,
    a: *const mpz_t,
    alen: usize,
    b: *const mpz_t,
    blen: usize,
) -> gpmp_status {
    guard("gpmp_poly_pseudo_divrem", || {
        pseudo_into(array_slots(q), array_slots(r), d, views_of_array(a, alen, "a"), views_of_array(b, blen, "b"))
    })
}

/// `gpmp_poly_pseudo_divrem` over arrays of pointers.
///
/// # Safety
/// As `gpmp_poly_divrem_ptr`; d as in `gpmp_poly_pseudo_divrem`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_pseudo_divrem_ptr(
    q: *mut mpz_ptr,
    r: *mut mpz_ptr,
    d: *mut c_ulong,
    a: *const mpz_srcptr,
    alen: usize,
    b: *const mpz_srcptr,
    blen: usize,
) -> gpmp_status {
    guard("gpmp_poly_pseudo_divrem_ptr", || {
        pseudo_into(MpzOut::Ptrs(q).slots(), MpzOut::Ptrs(r).slots(), d, MpzIn::Ptrs(a).views(alen, "a"), MpzIn::Ptrs(b).views(blen, "b"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gmp_mpfr_sys::gmp;
    use gpmp_status::*;

    unsafe fn mpzs(c: &[i64]) -> Vec<mpz_t> {
        c.iter()
            .map(|&v| {
                let mut z = std::mem::MaybeUninit::uninit();
                gmp::mpz_init_set_si(z.as_mut_ptr(), v);
                z.assume_init()
            })
            .collect()
    }

    unsafe fn read(z: &[mpz_t]) -> Vec<i64> {
        z.iter().map(|x| gmp::mpz_get_si(x)).collect()
    }

    unsafe fn clear(z: &mut [mpz_t]) {
        for x in z {
            gmp::mpz_clear(x);
        }
    }

    /// The four calls and their `_ptr` twins on small cases, outputs aliasing inputs, bad input
    /// leaving outputs untouched.
    #[test]
    fn z_calls_and_ptr_twins() {
        unsafe {
            // f = 3x^2 − 5 at 0, 1, −2, 4.
            let f = mpzs(&[-5, 0, 3]);
            let mut u = mpzs(&[0, 1, -2, 4]);
            let up = u.as_mut_ptr();
            assert_eq!(gpmp_poly_evaluate(up, f.as_ptr(), 3, up, 4), GPMP_SUCCESS, "values aliasing points");
            assert_eq!(read(&u), [-5, -2, 7, 43]);
            let pts = mpzs(&[0, 1, -2, 4]);
            let mut vals = mpzs(&[0; 4]);
            let pp: Vec<mpz_srcptr> = pts.iter().map(|x| x as *const mpz_t).collect();
            let fp: Vec<mpz_srcptr> = f.iter().map(|x| x as *const mpz_t).collect();
            let vp: Vec<mpz_ptr> = vals.iter_mut().map(|x| x as *mut mpz_t).collect();
            assert_eq!(gpmp_poly_evaluate_ptr(vp.as_ptr() as *mut mpz_ptr, fp.as_ptr(), 3, pp.as_ptr(), 4), GPMP_SUCCESS);
            assert_eq!(read(&vals), [-5, -2, 7, 43]);
            // Back: num = 3x^2 − 5 (+ 0·x^3), den = 1; num aliasing values.
            let mut den = mpzs(&[7]);
            assert_eq!(gpmp_poly_interpolate(vals.as_mut_ptr(), den.as_mut_ptr(), pts.as_ptr(), vals.as_ptr(), 4), GPMP_SUCCESS);
            assert_eq!((read(&vals), read(&den)), (vec![-5, 0, 3, 0], vec![1]));
            // f = x/2 through (0, 0), (2, 1) by the ptr form.
            let (p2, v2) = (mpzs(&[0, 2]), mpzs(&[0, 1]));
            let mut num = mpzs(&[9, 9]);
            let pp2: Vec<mpz_srcptr> = p2.iter().map(|x| x as *const mpz_t).collect();
            let vp2: Vec<mpz_srcptr> = v2.iter().map(|x| x as *const mpz_t).collect();
            let np: Vec<mpz_ptr> = num.iter_mut().map(|x| x as *mut mpz_t).collect();
            assert_eq!(
                gpmp_poly_interpolate_ptr(np.as_ptr() as *mut mpz_ptr, den.as_mut_ptr(), pp2.as_ptr(), vp2.as_ptr(), 2),
                GPMP_SUCCESS
            );
            assert_eq!((read(&num), read(&den)), (vec![0, 1], vec![2]));
            // Repeated points: untouched outputs.
            let rep = mpzs(&[3, 3]);
            assert_eq!(gpmp_poly_interpolate(num.as_mut_ptr(), den.as_mut_ptr(), rep.as_ptr(), v2.as_ptr(), 2), GPMP_INVALID_ARGUMENT);
            assert_eq!((read(&num), read(&den)), (vec![0, 1], vec![2]));
            // Division: (x^3 + 2x + 5) / (−x + 3): q aliasing a.
            let mut a = mpzs(&[5, 2, 0, 1]);
            let b = mpzs(&[3, -1]);
            let mut r = mpzs(&[0]);
            let ap = a.as_mut_ptr();
            assert_eq!(gpmp_poly_divrem(ap, r.as_mut_ptr(), ap, 4, b.as_ptr(), 2), GPMP_SUCCESS);
            // x^3 + 2x + 5 = (−x^2 − 3x − 11)(−x + 3) + 38
            assert_eq!((read(&a[..3]), read(&r)), (vec![-11, -3, -1], vec![38]));
            // lc 2, inexact: refused, outputs untouched.
            let a2 = mpzs(&[1, 0, 1]);
            let b2 = mpzs(&[1, 2]);
            let mut q2 = mpzs(&[4, 4]);
            assert_eq!(gpmp_poly_divrem(q2.as_mut_ptr(), r.as_mut_ptr(), a2.as_ptr(), 3, b2.as_ptr(), 2), GPMP_INVALID_ARGUMENT);
            assert_eq!(read(&q2), [4, 4]);
            assert_eq!(gpmp_poly_divrem(q2.as_mut_ptr(), r.as_mut_ptr(), a2.as_ptr(), 3, b2.as_ptr(), 0), GPMP_INVALID_ARGUMENT, "b = 0");
            // Pseudo-division: 2^2·(x^2 + 1) = (2x − 1)(2x + 1) + 5.
            let mut d: c_ulong = 0;
            assert_eq!(gpmp_poly_pseudo_divrem(q2.as_mut_ptr(), r.as_mut_ptr(), &mut d, a2.as_ptr(), 3, b2.as_ptr(), 2), GPMP_SUCCESS);
            assert_eq!((read(&q2), read(&r), d), (vec![-1, 2], vec![5], 2));
            let ap2: Vec<mpz_srcptr> = a2.iter().map(|x| x as *const mpz_t).collect();
            let bp2: Vec<mpz_srcptr> = b2.iter().map(|x| x as *const mpz_t).collect();
            let mut q3 = mpzs(&[0, 0]);
            let qp: Vec<mpz_ptr> = q3.iter_mut().map(|x| x as *mut mpz_t).collect();
            assert_eq!(
                gpmp_poly_pseudo_divrem_ptr(
                    qp.as_ptr() as *mut mpz_ptr,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    ap2.as_ptr(),
                    3,
                    bp2.as_ptr(),
                    2
                ),
                GPMP_SUCCESS
            );
            assert_eq!(read(&q3), [-1, 2]);
            let mut q4 = mpzs(&[0, 0]);
            let qp4: Vec<mpz_ptr> = q4.iter_mut().map(|x| x as *mut mpz_t).collect();
            let bp: Vec<mpz_srcptr> = b.iter().map(|x| x as *const mpz_t).collect();
            let a3 = mpzs(&[5, 2, 1]);
            let ap3: Vec<mpz_srcptr> = a3.iter().map(|x| x as *const mpz_t).collect();
            assert_eq!(
                gpmp_poly_divrem_ptr(qp4.as_ptr() as *mut mpz_ptr, std::ptr::null_mut(), ap3.as_ptr(), 3, bp.as_ptr(), 2),
                GPMP_SUCCESS
            );
            // x^2 + 2x + 5 = (−x − 5)(−x + 3) + 20
            assert_eq!(read(&q4), [-5, -1]);
            for z in [&mut u, &mut vals, &mut den, &mut num, &mut a, &mut r, &mut q2, &mut q3, &mut q4] {
                clear(z);
            }
            for mut z in [f, pts, p2, v2, rep, a2, b2, b, a3] {
                clear(&mut z);
            }
        }
    }
}
