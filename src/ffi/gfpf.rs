//! `gpmp_gfpf_*`: generalized Fermat prime fields p = r^k + 1 (see `crate::gfpf`). Elements are
//! k radix-r digits (uint64_t, least significant first); vectors of n elements are stored either
//! element-major (`GPMP_LAYOUT_ROWS`, n × k) or digit-major (`GPMP_LAYOUT_DIGITS`, k × n). Inputs
//! are copied before any output is written, so outputs may alias inputs.
#![allow(non_snake_case)] // the parameter names of the C API (F, N)
use super::gpmp_status;
use super::mpz::{check_slots, mpz_ptr, mpz_srcptr, mpz_t, write_slab, MpzIn, MpzOut};
use super::status::{guard, guard_value};
use crate::gfpf::Gfpf;
use crate::int::{try_zeroed, ZSlab};
use crate::ops::{self, gfpf::BinaryOp};
use crate::{invalid, runtime, Error, Result};
use gmp_mpfr_sys::gmp;
use rayon::prelude::*;
use std::ffi::{c_int, c_uint};

/// A generalized Fermat prime field (opaque, immutable, shareable across threads).
pub struct gpmp_gfpf(Gfpf);

/// Storage order of a vector of n field elements of k digits.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum gpmp_layout {
    /// n × k digits, element-major: digit j of element i at x\[i·k + j\].
    GPMP_LAYOUT_ROWS = 0,
    /// k × n digits, digit-major: digit j of element i at x\[j·n + i\].
    GPMP_LAYOUT_DIGITS = 1,
}

/// The C enum `gpmp_layout` as it arrives from C: any int, validated before use.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct RawLayout(pub c_int);

fn parse_layout(l: RawLayout) -> Result<gpmp_layout> {
    match l.0 {
        0 => Ok(gpmp_layout::GPMP_LAYOUT_ROWS),
        1 => Ok(gpmp_layout::GPMP_LAYOUT_DIGITS),
        v => invalid!("unknown layout {v}"),
    }
}

fn field<'a>(f: *const gpmp_gfpf) -> Result<&'a Gfpf> {
    if f.is_null() {
        return invalid!("the field is NULL");
    }
    // SAFETY: a non-NULL field comes from gpmp_gfpf_new/builtin and is immutable.
    Ok(unsafe { &(*f).0 })
}

/// n·k words, or SizeTooLarge.
fn words(n: usize, k: usize) -> Result<usize> {
    n.checked_mul(k).filter(|&w| w <= isize::MAX as usize / 8).ok_or_else(|| Error::SizeTooLarge(format!("{n} elements of {k} digits")))
}

/// Copies the n elements at x (in `lay`) into an element-major vector, checking that they are canonical.
///
/// # Safety
/// x points to n·k readable words (or is NULL, an error when n > 0).
unsafe fn read(f: &Gfpf, x: *const u64, n: usize, lay: gpmp_layout, what: &str) -> Result<Vec<u64>> {
    let k = f.k();
    let w = words(n, k)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    if x.is_null() {
        return invalid!("{what} is NULL");
    }
    let src = std::slice::from_raw_parts(x, w);
    let mut v = try_zeroed(w)?;
    match lay {
        gpmp_layout::GPMP_LAYOUT_ROWS => v.copy_from_slice(src),
        gpmp_layout::GPMP_LAYOUT_DIGITS => v.par_chunks_mut(k).with_min_len(1024).enumerate().for_each(|(i, e)| {
            for (j, d) in e.iter_mut().enumerate() {
                *d = src[j * n + i];
            }
        }),
    }
    f.check_vec(&v, what)?;
    Ok(v)
}

/// Checks that the output z is usable for n elements.
fn check_out(z: *mut u64, n: usize, k: usize, what: &str) -> Result<()> {
    words(n, k)?;
    if n > 0 && z.is_null() {
        return invalid!("{what} is NULL");
    }
    Ok(())
}

/// Writes the element-major v (n elements) to z in `lay`.
///
/// # Safety
/// z points to n·k writable words, not borrowed elsewhere.
unsafe fn write(z: *mut u64, v: &[u64], n: usize, k: usize, lay: gpmp_layout) {
    if n == 0 {
        return;
    }
    let dst = std::slice::from_raw_parts_mut(z, n * k);
    runtime::install(|| write_slice(dst, v, n, k, lay));
}

fn write_slice(dst: &mut [u64], v: &[u64], n: usize, k: usize, lay: gpmp_layout) {
    match lay {
        gpmp_layout::GPMP_LAYOUT_ROWS => dst.copy_from_slice(v),
        gpmp_layout::GPMP_LAYOUT_DIGITS => dst.par_chunks_mut(n).enumerate().for_each(|(j, row)| {
            for (i, d) in row.iter_mut().enumerate() {
                *d = v[i * k + j];
            }
        }),
    }
}

/// The field r^k + 1 after checking that k is a power of 2 in [2, 256] and r^k + 1 is prime
/// (r even, r ≥ 2); NULL with `gpmp_last_error` set otherwise. Free with `gpmp_gfpf_free`.
#[no_mangle]
pub extern "C" fn gpmp_gfpf_new(r: u64, k: c_uint) -> *mut gpmp_gfpf {
    guard_value("gpmp_gfpf_new", std::ptr::null_mut(), || Ok(Box::into_raw(Box::new(gpmp_gfpf(Gfpf::new(r, k as usize)?)))))
}

/// The Table 2.1 prime with k digits: k = 8 → P3 = (2^63 + 2^34)^8 + 1, k = 16 →
/// P4 = (2^62 + 2^36)^16 + 1; also k = 2, 4, 32, 64, 128. NULL with `gpmp_last_error` otherwise.
#[no_mangle]
pub extern "C" fn gpmp_gfpf_builtin(k: c_uint) -> *mut gpmp_gfpf {
    guard_value("gpmp_gfpf_builtin", std::ptr::null_mut(), || Ok(Box::into_raw(Box::new(gpmp_gfpf(Gfpf::builtin(k as usize)?)))))
}

/// Frees a field (NULL is ignored).
///
/// # Safety
/// F comes from `gpmp_gfpf_new`/`gpmp_gfpf_builtin` and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_free(F: *mut gpmp_gfpf) {
    if !F.is_null() {
        drop(Box::from_raw(F));
    }
}

/// k, the number of digits per element (0 for NULL).
///
/// # Safety
/// F is NULL or a live field.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_k(F: *const gpmp_gfpf) -> c_uint {
    field(F).map_or(0, |f| f.k() as c_uint)
}

/// The radix r (0 for NULL).
///
/// # Safety
/// F is NULL or a live field.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_radix(F: *const gpmp_gfpf) -> u64 {
    field(F).map_or(0, |f| f.radix())
}

/// p = r^k + 1 into the initialised mpz_t p (nothing happens when F or p is NULL).
///
/// # Safety
/// F is NULL or a live field; p is NULL or an initialised mpz_t.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_prime(F: *const gpmp_gfpf, p: mpz_ptr) {
    if let (Ok(f), false) = (field(F), p.is_null()) {
        let l = f.prime();
        gmp::mpz_import(p, l.len(), -1, 8, 0, 0, l.as_ptr().cast());
    }
}

/// The body of `gpmp_gfpf_from_mpz` and its `_ptr` twin.
unsafe fn from_mpz(name: &str, F: *const gpmp_gfpf, x: *mut u64, a: MpzIn, n: usize, layout: RawLayout) -> gpmp_status {
    guard(name, || {
        let (f, lay) = (field(F)?, parse_layout(layout)?);
        let k = f.k();
        check_out(x, n, k, "x")?;
        let a = a.views(n, "a")?;
        let mut v = try_zeroed(words(n, k)?)?;
        runtime::install(|| {
            v.par_chunks_mut(k).zip(a.par_iter()).with_min_len(64).for_each(|(e, z)| f.from_limbs(e, z.neg, z.mag));
        });
        write(x, &v, n, k, lay);
        Ok(())
    })
}

/// The body of `gpmp_gfpf_to_mpz` and its `_ptr` twin.
unsafe fn to_mpz(name: &str, F: *const gpmp_gfpf, a: MpzOut, x: *const u64, n: usize, layout: RawLayout) -> gpmp_status {
    guard(name, || {
        let (f, lay) = (field(F)?, parse_layout(layout)?);
        let v = read(f, x, n, lay, "x")?;
        let slots = a.slots();
        check_slots(n, "a", &slots)?;
        let (k, pl) = (f.k(), f.prime().len());
        let mut h = ZSlab::zeros(n, pl)?;
        for i in 0..n {
            let (row, _) = h.row_mut(i);
            f.to_limbs(row, &v[i * k..][..k]);
        }
        // On this thread: the writer grows the mpz_t that are too small here (the host's GMP memory
        // functions) and copies in gpmp's pool.
        write_slab(&h, slots)
    })
}

/// x ← the n integers a\[i\] reduced mod p (any sign), as canonical digit vectors.
///
/// # Safety
/// x holds n·k words; a holds n initialised mpz_t.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_from_mpz(F: *const gpmp_gfpf, x: *mut u64, a: *const mpz_t, n: usize, layout: RawLayout) -> gpmp_status {
    from_mpz("gpmp_gfpf_from_mpz", F, x, MpzIn::Array(a), n, layout)
}

/// `gpmp_gfpf_from_mpz` from an array of pointers.
///
/// # Safety
/// x holds n·k words; a holds n pointers to initialised mpz_t.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_from_mpz_ptr(
    F: *const gpmp_gfpf,
    x: *mut u64,
    a: *const mpz_srcptr,
    n: usize,
    layout: RawLayout,
) -> gpmp_status {
    from_mpz("gpmp_gfpf_from_mpz_ptr", F, x, MpzIn::Ptrs(a), n, layout)
}

/// a\[i\] ← the value in [0, p) of element i of x (canonical digit vectors, else
/// `GPMP_INVALID_ARGUMENT` and a untouched).
///
/// # Safety
/// a holds n initialised mpz_t; x holds n·k words.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_to_mpz(F: *const gpmp_gfpf, a: *mut mpz_t, x: *const u64, n: usize, layout: RawLayout) -> gpmp_status {
    to_mpz("gpmp_gfpf_to_mpz", F, MpzOut::Array(a), x, n, layout)
}

/// `gpmp_gfpf_to_mpz` into an array of pointers (the a\[i\] distinct).
///
/// # Safety
/// a holds n pointers to initialised mpz_t; x holds n·k words.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_to_mpz_ptr(
    F: *const gpmp_gfpf,
    a: *mut mpz_ptr,
    x: *const u64,
    n: usize,
    layout: RawLayout,
) -> gpmp_status {
    to_mpz("gpmp_gfpf_to_mpz_ptr", F, MpzOut::Ptrs(a), x, n, layout)
}

/// z ← op(x, y) elementwise for n elements.
#[allow(clippy::too_many_arguments)]
unsafe fn binary(
    name: &str,
    F: *const gpmp_gfpf,
    z: *mut u64,
    x: *const u64,
    y: *const u64,
    n: usize,
    layout: RawLayout,
    op: BinaryOp,
) -> gpmp_status {
    guard(name, || {
        let (f, lay) = (field(F)?, parse_layout(layout)?);
        let k = f.k();
        check_out(z, n, k, "z")?;
        let xv = read(f, x, n, lay, "x")?;
        let yv = read(f, y, n, lay, "y")?;
        let mut out = try_zeroed(xv.len())?;
        runtime::install(|| ops::gfpf::binary_n(f, op, &mut out, &xv, &yv))?;
        write(z, &out, n, k, lay);
        Ok(())
    })
}

/// z = x + y elementwise (n elements; z may alias x or y).
///
/// # Safety
/// z, x, y hold n·k words each.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_add_n(
    F: *const gpmp_gfpf,
    z: *mut u64,
    x: *const u64,
    y: *const u64,
    n: usize,
    layout: RawLayout,
) -> gpmp_status {
    binary("gpmp_gfpf_add_n", F, z, x, y, n, layout, BinaryOp::Add)
}

/// z = x − y elementwise.
///
/// # Safety
/// As `gpmp_gfpf_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_sub_n(
    F: *const gpmp_gfpf,
    z: *mut u64,
    x: *const u64,
    y: *const u64,
    n: usize,
    layout: RawLayout,
) -> gpmp_status {
    binary("gpmp_gfpf_sub_n", F, z, x, y, n, layout, BinaryOp::Sub)
}

/// z = x·y elementwise.
///
/// # Safety
/// As `gpmp_gfpf_add_n`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_mul_n(
    F: *const gpmp_gfpf,
    z: *mut u64,
    x: *const u64,
    y: *const u64,
    n: usize,
    layout: RawLayout,
) -> gpmp_status {
    binary("gpmp_gfpf_mul_n", F, z, x, y, n, layout, BinaryOp::Mul)
}

/// z = x·r^s elementwise, 0 ≤ s < 2k (shifts only).
///
/// # Safety
/// z, x hold n·k words each.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_mul_pow_r_n(
    F: *const gpmp_gfpf,
    z: *mut u64,
    x: *const u64,
    s: c_uint,
    n: usize,
    layout: RawLayout,
) -> gpmp_status {
    guard("gpmp_gfpf_mul_pow_r_n", || {
        let (f, lay) = (field(F)?, parse_layout(layout)?);
        let k = f.k();
        if s as usize >= 2 * k {
            return invalid!("s = {s} is not below 2k = {}", 2 * k);
        }
        check_out(z, n, k, "z")?;
        let xv = read(f, x, n, lay, "x")?;
        let mut out = try_zeroed(xv.len())?;
        runtime::install(|| {
            out.par_chunks_mut(k).zip(xv.par_chunks(k)).with_min_len(256).for_each(|(o, a)| f.mul_pow_r(o, a, s as usize));
        });
        write(z, &out, n, k, lay);
        Ok(())
    })
}

/// omega (k words) ← a primitive N-th root of unity with omega^(N/2k) = r; N a power of 2 with
/// 2k ≤ N and N | p − 1.
///
/// # Safety
/// omega holds k words.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_root_of_unity(F: *const gpmp_gfpf, N: usize, omega: *mut u64) -> gpmp_status {
    let n = N;
    guard("gpmp_gfpf_root_of_unity", || {
        let f = field(F)?;
        if n < 2 * f.k() {
            return invalid!("N = {n} is below 2k = {}", 2 * f.k());
        }
        if omega.is_null() {
            return invalid!("omega is NULL");
        }
        let w = f.root_of_unity(n)?;
        std::slice::from_raw_parts_mut(omega, w.len()).copy_from_slice(&w);
        Ok(())
    })
}

unsafe fn transform(
    name: &str,
    F: *const gpmp_gfpf,
    x: *mut u64,
    n: usize,
    omega: *const u64,
    layout: RawLayout,
    inverse: bool,
) -> gpmp_status {
    guard(name, || {
        let (f, lay) = (field(F)?, parse_layout(layout)?);
        let k = f.k();
        if omega.is_null() {
            return invalid!("omega is NULL");
        }
        if !n.is_power_of_two() {
            return invalid!("N = {n} is not a power of 2");
        }
        check_out(x, n, k, "x")?;
        let w = std::slice::from_raw_parts(omega, k).to_vec();
        let mut v = read(f, x, n, lay, "x")?;
        runtime::install(|| if inverse { f.idft(&mut v, n, &w) } else { f.dft(&mut v, n, &w) })?;
        write(x, &v, n, k, lay);
        Ok(())
    })
}

/// In place, x ← (Σ_j x_j omega^(ij))_i for N elements, natural order in and out; omega a primitive
/// N-th root of unity (checked), N a power of 2 dividing p − 1.
/// Backend: the GPU under `GPMP_BACKEND_GPU` (`GPMP_NO_CUDA_DEVICE` without a usable one) and under
/// `GPMP_BACKEND_AUTO` from N = 2^10 when a GPU is usable; the same words on either (`_idft`
/// likewise; `_add_n`/`_sub_n`/`_mul_n` use the GPU only under `GPMP_BACKEND_GPU`).
///
/// # Safety
/// x holds N·k words; omega holds k words.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_dft(F: *const gpmp_gfpf, x: *mut u64, N: usize, omega: *const u64, layout: RawLayout) -> gpmp_status {
    transform("gpmp_gfpf_dft", F, x, N, omega, layout, false)
}

/// The inverse of `gpmp_gfpf_dft` with the same omega, including the factor 1/N.
///
/// # Safety
/// As `gpmp_gfpf_dft`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_idft(F: *const gpmp_gfpf, x: *mut u64, N: usize, omega: *const u64, layout: RawLayout) -> gpmp_status {
    transform("gpmp_gfpf_idft", F, x, N, omega, layout, true)
}

/// h ← f·g over Z/pZ (rows layout; h holds flen + glen − 1 elements, nothing is written when flen
/// or glen is 0; h may alias f or g).
///
/// # Safety
/// h, f, g hold the stated numbers of elements of k words.
#[no_mangle]
pub unsafe extern "C" fn gpmp_gfpf_poly_mul(
    F: *const gpmp_gfpf,
    h: *mut u64,
    f: *const u64,
    flen: usize,
    g: *const u64,
    glen: usize,
) -> gpmp_status {
    guard("gpmp_gfpf_poly_mul", || {
        let field = field(F)?;
        let av = read(field, f, flen, gpmp_layout::GPMP_LAYOUT_ROWS, "f")?;
        let bv = read(field, g, glen, gpmp_layout::GPMP_LAYOUT_ROWS, "g")?;
        let (f, k) = (field, field.k());
        if flen == 0 || glen == 0 {
            return Ok(());
        }
        check_out(h, flen + glen - 1, k, "h")?;
        let hv = runtime::install(|| f.poly_mul(&av, &bv))?;
        write(h, &hv, flen + glen - 1, k, gpmp_layout::GPMP_LAYOUT_ROWS);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::runtime::gpmp_last_error;
    use crate::testing::Rng;
    use gpmp_status::{GPMP_INVALID_ARGUMENT as INVALID, GPMP_SUCCESS as OK};
    use std::mem::MaybeUninit;

    const ROWS: RawLayout = RawLayout(0);
    const DIGITS: RawLayout = RawLayout(1);

    /// n initialised mpz_t, cleared on drop.
    struct Mpzs(Vec<mpz_t>);
    impl Mpzs {
        fn new(n: usize) -> Self {
            Mpzs(
                (0..n)
                    .map(|_| unsafe {
                        let mut z = MaybeUninit::uninit();
                        gmp::mpz_init(z.as_mut_ptr());
                        z.assume_init()
                    })
                    .collect(),
            )
        }
    }
    impl Drop for Mpzs {
        fn drop(&mut self) {
            for z in &mut self.0 {
                unsafe { gmp::mpz_clear(z) };
            }
        }
    }

    fn transpose(v: &[u64], n: usize, k: usize) -> Vec<u64> {
        (0..k).flat_map(|j| (0..n).map(move |i| v[i * k + j])).collect()
    }

    #[test]
    fn exports_agree_with_the_core_in_both_layouts() {
        unsafe {
            let mut rng = Rng(0xFF1);
            for kk in [8u32, 16] {
                let fp = gpmp_gfpf_builtin(kk);
                assert!(!fp.is_null());
                let f = &(*fp).0;
                let k = kk as usize;
                assert_eq!(gpmp_gfpf_k(fp), kk);
                assert_eq!(gpmp_gfpf_radix(fp), f.radix());
                let n = 64;
                // Inputs: random signed integers of up to 2·bits(p), plus p − 1, −1, 0, p.
                let mut a = Mpzs::new(n);
                let mut p = Mpzs::new(1);
                gpmp_gfpf_prime(fp, &mut p.0[0]);
                for (i, z) in a.0.iter_mut().enumerate() {
                    let l: Vec<u64> = (0..2 * f.prime().len()).map(|_| rng.next() >> (rng.next() % 64)).collect();
                    gmp::mpz_import(z, l.len(), -1, 8, 0, 0, l.as_ptr().cast());
                    match i {
                        0 => gmp::mpz_sub_ui(z, &p.0[0], 1),
                        1 => gmp::mpz_set_si(z, -1),
                        2 => gmp::mpz_set_ui(z, 0),
                        3 => gmp::mpz_set(z, &p.0[0]),
                        _ if i % 3 == 0 => gmp::mpz_neg(z, z),
                        _ => {}
                    }
                }
                let mut xr = vec![0u64; n * k];
                let mut xd = vec![0u64; n * k];
                assert_eq!(gpmp_gfpf_from_mpz(fp, xr.as_mut_ptr(), a.0.as_ptr(), n, ROWS), OK);
                assert_eq!(gpmp_gfpf_from_mpz(fp, xd.as_mut_ptr(), a.0.as_ptr(), n, DIGITS), OK);
                assert_eq!(xd, transpose(&xr, n, k));
                assert!(f.is_minus_one(&xr[..k]) && f.is_minus_one(&xr[k..2 * k]) && xr[2 * k..4 * k].iter().all(|&d| d == 0));
                // to_mpz gives a mod p in both layouts.
                for (lay, x) in [(ROWS, &xr), (DIGITS, &xd)] {
                    let mut b = Mpzs::new(n);
                    assert_eq!(gpmp_gfpf_to_mpz(fp, b.0.as_mut_ptr(), x.as_ptr(), n, lay), OK);
                    for i in 0..n {
                        let mut want = Mpzs::new(1);
                        gmp::mpz_mod(&mut want.0[0], &a.0[i], &p.0[0]);
                        assert_eq!(gmp::mpz_cmp(&b.0[i], &want.0[0]), 0, "to_mpz {i}");
                    }
                }
                // add/sub/mul in both layouts against the core, with z aliasing x.
                let y: Vec<u64> = xr.chunks(k).rev().flatten().copied().collect();
                type Exp = unsafe extern "C" fn(*const gpmp_gfpf, *mut u64, *const u64, *const u64, usize, RawLayout) -> gpmp_status;
                type Core = fn(&Gfpf, &mut [u64], &[u64], &[u64]);
                let ops: [(Exp, Core); 3] = [(gpmp_gfpf_add_n, Gfpf::add), (gpmp_gfpf_sub_n, Gfpf::sub), (gpmp_gfpf_mul_n, Gfpf::mul)];
                for (exp, core) in ops {
                    let mut want = vec![0u64; n * k];
                    for i in 0..n {
                        core(f, &mut want[i * k..][..k], &xr[i * k..][..k], &y[i * k..][..k]);
                    }
                    let mut zr = xr.clone();
                    assert_eq!(exp(fp, zr.as_mut_ptr(), zr.as_ptr(), y.as_ptr(), n, ROWS), OK);
                    assert_eq!(zr, want);
                    let (mut zd, yd) = (xd.clone(), transpose(&y, n, k));
                    assert_eq!(exp(fp, zd.as_mut_ptr(), zd.as_ptr(), yd.as_ptr(), n, DIGITS), OK);
                    assert_eq!(zd, transpose(&want, n, k));
                }
                let mut zr = vec![0u64; n * k];
                assert_eq!(gpmp_gfpf_mul_pow_r_n(fp, zr.as_mut_ptr(), xr.as_ptr(), 2 * kk - 1, n, ROWS), OK);
                let mut want = vec![0u64; k];
                f.mul_pow_r(&mut want, &xr[5 * k..][..k], 2 * k - 1);
                assert_eq!(&zr[5 * k..][..k], &want[..]);
                // DFT/IDFT in both layouts.
                let mut w = vec![0u64; k];
                assert_eq!(gpmp_gfpf_root_of_unity(fp, n, w.as_mut_ptr()), OK);
                let (mut dr, mut dd) = (xr.clone(), xd.clone());
                assert_eq!(gpmp_gfpf_dft(fp, dr.as_mut_ptr(), n, w.as_ptr(), ROWS), OK);
                assert_eq!(gpmp_gfpf_dft(fp, dd.as_mut_ptr(), n, w.as_ptr(), DIGITS), OK);
                let mut core = xr.clone();
                f.dft_cpu(&mut core, n, &w).unwrap();
                assert_eq!(dr, core);
                assert_eq!(dd, transpose(&core, n, k));
                assert_eq!(gpmp_gfpf_idft(fp, dd.as_mut_ptr(), n, w.as_ptr(), DIGITS), OK);
                assert_eq!(dd, xd);
                // poly_mul, h aliasing f.
                let mut h = vec![0u64; (2 * n - 1) * k];
                h[..n * k].copy_from_slice(&xr);
                assert_eq!(gpmp_gfpf_poly_mul(fp, h.as_mut_ptr(), h.as_ptr(), n, y.as_ptr(), n), OK);
                assert_eq!(h, f.poly_mul(&xr, &y).unwrap());
                gpmp_gfpf_free(fp);
            }
        }
    }

    #[test]
    fn bad_inputs_give_statuses() {
        unsafe {
            assert!(gpmp_gfpf_new(8, 2).is_null()); // 65
            assert!(!std::ffi::CStr::from_ptr(gpmp_last_error()).to_bytes().is_empty());
            assert!(gpmp_gfpf_new(6, 3).is_null() && gpmp_gfpf_new(6, 512).is_null() && gpmp_gfpf_builtin(256).is_null());
            let fp = gpmp_gfpf_new(6, 2); // 37
            assert!(!fp.is_null());
            gpmp_gfpf_free(fp);
            let fp = gpmp_gfpf_builtin(8);
            let k = 8;
            let r = gpmp_gfpf_radix(fp);
            let x = vec![0u64; 4 * k];
            let mut bad = x.clone();
            bad[k] = r; // digit = r outside the special form
            let mut z = vec![7u64; 4 * k];
            assert_eq!(gpmp_gfpf_add_n(fp, z.as_mut_ptr(), bad.as_ptr(), x.as_ptr(), 4, ROWS), INVALID);
            assert_eq!(gpmp_gfpf_mul_n(fp, z.as_mut_ptr(), x.as_ptr(), x.as_ptr(), 4, RawLayout(2)), INVALID);
            assert_eq!(gpmp_gfpf_mul_n(std::ptr::null(), z.as_mut_ptr(), x.as_ptr(), x.as_ptr(), 4, ROWS), INVALID);
            assert_eq!(gpmp_gfpf_sub_n(fp, z.as_mut_ptr(), std::ptr::null(), x.as_ptr(), 4, ROWS), INVALID);
            assert_eq!(gpmp_gfpf_sub_n(fp, std::ptr::null_mut(), x.as_ptr(), x.as_ptr(), 4, ROWS), INVALID);
            assert_eq!(gpmp_gfpf_mul_pow_r_n(fp, z.as_mut_ptr(), x.as_ptr(), 16, 4, ROWS), INVALID);
            assert_eq!(z, vec![7u64; 4 * k], "outputs untouched on error");
            let mut w = vec![0u64; k];
            assert_eq!(gpmp_gfpf_root_of_unity(fp, 8, w.as_mut_ptr()), INVALID); // N < 2k
            assert_eq!(gpmp_gfpf_root_of_unity(fp, 48, w.as_mut_ptr()), INVALID);
            assert_eq!(gpmp_gfpf_root_of_unity(fp, 16, std::ptr::null_mut()), INVALID);
            assert_eq!(gpmp_gfpf_root_of_unity(fp, 16, w.as_mut_ptr()), OK);
            let mut y = vec![0u64; 16 * k];
            assert_eq!(gpmp_gfpf_dft(fp, y.as_mut_ptr(), 12, w.as_ptr(), ROWS), INVALID);
            assert_eq!(gpmp_gfpf_dft(fp, y.as_mut_ptr(), 16, std::ptr::null(), ROWS), INVALID);
            let w2 = (*fp).0.pow_u64(&w, 2);
            assert_eq!(gpmp_gfpf_dft(fp, y.as_mut_ptr(), 16, w2.as_ptr(), ROWS), INVALID); // not primitive
            assert_eq!(gpmp_gfpf_idft(fp, y.as_mut_ptr(), 16, w.as_ptr(), RawLayout(-1)), INVALID);
            let mut a = Mpzs::new(4);
            assert_eq!(gpmp_gfpf_to_mpz(fp, a.0.as_mut_ptr(), bad.as_ptr(), 4, ROWS), INVALID);
            assert_eq!(gpmp_gfpf_from_mpz(fp, std::ptr::null_mut(), a.0.as_ptr(), 4, ROWS), INVALID);
            assert_eq!(gpmp_gfpf_poly_mul(fp, z.as_mut_ptr(), bad.as_ptr(), 4, x.as_ptr(), 1), INVALID);
            assert_eq!(gpmp_gfpf_k(std::ptr::null()), 0);
            gpmp_gfpf_free(fp);
            gpmp_gfpf_free(std::ptr::null_mut());
        }
    }
}

#[cfg(all(test, feature = "gpu-tests"))]
mod gpu_tests {
    use super::*;
    use crate::ffi::runtime::{gpmp_set_backend, RawBackend};
    use crate::testing::Rng;

    /// gpmp_gfpf_dft/_idft/_mul_n/_add_n/_sub_n give the same words on the CPU, GPU and AUTO
    /// backends (P3 and P4, both layouts, N across AUTO's thresholds, p − 1 and r − 1 digits).
    #[test]
    fn c_api_agrees_on_all_backends() {
        let _lock = crate::testing::backend_lock();
        let mut rng = Rng(0xFF2);
        for kk in [8u32, 16] {
            let fp = gpmp_gfpf_builtin(kk);
            // SAFETY: a live field.
            let f = unsafe { &(*fp).0 };
            let k = kk as usize;
            for n in [64usize, 1 << 14, 1 << 16] {
                let mut x: Vec<u64> = (0..n).flat_map(|_| crate::testing::gfpf::random(f, &mut rng)).collect();
                f.set_minus_one(&mut x[..k]);
                x[k..2 * k].fill(f.radix() - 1);
                let y: Vec<u64> = x.chunks(k).rev().flatten().copied().collect();
                let w = f.root_of_unity(n).unwrap();
                for lay in [RawLayout(0), RawLayout(1)] {
                    let tr = |v: &[u64]| -> Vec<u64> { (0..k).flat_map(|j| (0..n).map(move |i| v[i * k + j])).collect() };
                    let (x, y) = if lay.0 == 1 { (tr(&x), tr(&y)) } else { (x.clone(), y.clone()) };
                    let run = |b: i32| -> Vec<Vec<u64>> {
                        assert_eq!(gpmp_set_backend(RawBackend(b)), gpmp_status::GPMP_SUCCESS);
                        let mut outs = Vec::new();
                        // SAFETY: buffers of n·k words, omega of k.
                        unsafe {
                            let mut d = x.clone();
                            assert_eq!(gpmp_gfpf_dft(fp, d.as_mut_ptr(), n, w.as_ptr(), lay), gpmp_status::GPMP_SUCCESS);
                            outs.push(d.clone());
                            assert_eq!(gpmp_gfpf_idft(fp, d.as_mut_ptr(), n, w.as_ptr(), lay), gpmp_status::GPMP_SUCCESS);
                            assert!(d == x, "round trip backend {b}");
                            type Exp =
                                unsafe extern "C" fn(*const gpmp_gfpf, *mut u64, *const u64, *const u64, usize, RawLayout) -> gpmp_status;
                            for e in [gpmp_gfpf_add_n as Exp, gpmp_gfpf_sub_n, gpmp_gfpf_mul_n] {
                                let mut z = x.clone();
                                assert_eq!(e(fp, z.as_mut_ptr(), z.as_ptr(), y.as_ptr(), n, lay), gpmp_status::GPMP_SUCCESS);
                                outs.push(z);
                            }
                        }
                        outs
                    };
                    let cpu = run(1);
                    assert!(run(2) == cpu, "GPU k = {k} n = {n}");
                    assert!(run(0) == cpu, "AUTO k = {k} n = {n}");
                }
            }
            // SAFETY: from gpmp_gfpf_builtin.
            unsafe { gpmp_gfpf_free(fp) };
        }
        assert_eq!(gpmp_set_backend(RawBackend(0)), gpmp_status::GPMP_SUCCESS);
    }
}
