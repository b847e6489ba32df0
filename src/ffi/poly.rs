//! `gpmp_poly_mul*`: dense Z\[x\] multiplication over `mpz_t` arrays and arrays of pointers.
use super::gpmp_status;
use super::mpz::{check_slots, mpz_ptr, mpz_srcptr, mpz_t, recycle_views, views_and_bits, write_product, write_slab, MpzIn, MpzOut};
use super::status::guard;
use crate::int::IntRef;
use crate::zpoly::{self, Alg};
use crate::{invalid, runtime, Result};
use std::ffi::c_int;

/// Multiplication algorithms for `gpmp_poly_mul_alg`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum gpmp_mul_alg {
    GPMP_MUL_AUTO = 0,
    GPMP_MUL_SCHOOLBOOK = 1,
    GPMP_MUL_KRONECKER = 2,
    GPMP_MUL_DIVIDE_CONQUER = 3,
    GPMP_MUL_TOOM4 = 4,
    GPMP_MUL_TOOM8 = 5,
    GPMP_MUL_TWO_CONVOLUTION = 6,
    GPMP_MUL_SMALL_PRIME_NTT = 7,
    GPMP_MUL_BIG_PRIME_FFT = 8,
}

/// The C enum `gpmp_mul_alg` as it arrives from C: any int, validated before use.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct RawMulAlg(pub c_int);

/// Product of two views (`bits`: their `max_bits` when known) into the output slots; nothing is
/// written unless everything succeeded.
fn mul_into(
    name: &str,
    out: &(impl Fn(usize) -> *mut mpz_t + Sync),
    f: Result<Vec<IntRef>>,
    g: Result<Vec<IntRef>>,
    bits: Option<(u64, u64)>,
    alg: Alg,
) -> Result<()> {
    let (f, g) = (f?, g?);
    if f.is_empty() || g.is_empty() {
        return Ok(());
    }
    let hlen = f.len() + g.len() - 1;
    check_slots(hlen, &format!("{name}: h"), out)?;
    if alg == Alg::Auto && zpoly::runs_inline(&f, &g) {
        let h = zpoly::mul(&f, &g, alg)?;
        drop((f, g)); // the views may alias h
        return unsafe { write_slab(&h, out) };
    }
    let h = runtime::install(|| product(&f, &g, bits, alg))?;
    recycle_views(f);
    recycle_views(g); // the views may alias h
    unsafe { h.write(out) }
}

/// A product in host memory: a slab, or the GPU's result as it came from the device.
pub(super) enum Product {
    Slab(crate::int::ZSlab),
    Gpu(crate::zpoly::HostProduct),
}

impl Product {
    /// # Safety
    /// As `write_slab`.
    pub(super) unsafe fn write(mut self, out: impl Fn(usize) -> *mut mpz_t + Sync) -> Result<()> {
        // A call stopped after its last checkpoint returns without writing.
        crate::interrupt::checkpoint()?;
        match &mut self {
            Product::Slab(h) => write_slab(h, out),
            Product::Gpu(h) => write_product(h, out),
        }
    }
}

/// f·g by `alg` (inside gpmp's pool; `bits`: the operands' `max_bits` when known); AUTO's GPU
/// products stay in host memory.
fn product(f: &[IntRef], g: &[IntRef], bits: Option<(u64, u64)>, alg: Alg) -> Result<Product> {
    if alg == Alg::Auto {
        if let Some(h) = zpoly::mul_on_gpu(f, g, bits)? {
            return Ok(Product::Gpu(h));
        }
    }
    zpoly::mul(f, g, alg).map(Product::Slab)
}

/// The body of `gpmp_poly_mul_alg` and its `_ptr` twin.
unsafe fn poly_mul(name: &str, h: MpzOut, f: MpzIn, flen: usize, g: MpzIn, glen: usize, alg: RawMulAlg) -> gpmp_status {
    guard(name, || {
        let Some(alg) = Alg::from_raw(alg.0 as i64) else {
            return invalid!("unknown multiplication algorithm {}", alg.0);
        };
        let (f, g) = (views_and_bits(f, flen, "f"), views_and_bits(g, glen, "g"));
        let bits = match (&f, &g) {
            (Ok((_, a)), Ok((_, b))) => Some((*a, *b)),
            _ => None,
        };
        mul_into(name, &h.slots(), f.map(|x| x.0), g.map(|x| x.0), bits, alg)
    })
}

/// The body of `gpmp_poly_sqr` and its `_ptr` twin.
unsafe fn poly_sqr(name: &str, h: MpzOut, f: MpzIn, flen: usize) -> gpmp_status {
    guard(name, || {
        let (fv, bits) = views_and_bits(f, flen, "f")?;
        if fv.is_empty() {
            return Ok(());
        }
        let out = h.slots();
        check_slots(2 * flen - 1, &format!("{name}: h"), &out)?;
        let r = runtime::install(|| product(&fv, &fv, Some((bits, bits)), Alg::Auto))?;
        recycle_views(fv);
        r.write(out)
    })
}

/// h\[0 .. flen+glen−2\] = f·g (coefficients low to high). h holds flen+glen−1 initialised `mpz_t`;
/// nothing is written when flen or glen is 0. h may be the same array as f or g.
/// Backend: the GPU (multi-modular NTT) under `GPMP_BACKEND_GPU` (`GPMP_NO_CUDA_DEVICE` without a
/// usable one) and under `GPMP_BACKEND_AUTO` from 2^16 output limbs when a GPU is usable; the same
/// result either way. `gpmp_poly_mul_alg` with an explicit algorithm always runs on the CPU.
///
/// # Safety
/// Arrays as described, initialised by the caller.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_mul(h: *mut mpz_t, f: *const mpz_t, flen: usize, g: *const mpz_t, glen: usize) -> gpmp_status {
    gpmp_poly_mul_alg(h, f, flen, g, glen, RawMulAlg(gpmp_mul_alg::GPMP_MUL_AUTO as c_int))
}

/// As `gpmp_poly_mul` with a chosen algorithm.
///
/// # Safety
/// As `gpmp_poly_mul`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_mul_alg(
    h: *mut mpz_t,
    f: *const mpz_t,
    flen: usize,
    g: *const mpz_t,
    glen: usize,
    alg: RawMulAlg,
) -> gpmp_status {
    poly_mul("gpmp_poly_mul", MpzOut::Array(h), MpzIn::Array(f), flen, MpzIn::Array(g), glen, alg)
}

/// h\[0 .. 2·flen−2\] = f². h may be the same array as f.
///
/// # Safety
/// As `gpmp_poly_mul`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_sqr(h: *mut mpz_t, f: *const mpz_t, flen: usize) -> gpmp_status {
    poly_sqr("gpmp_poly_sqr", MpzOut::Array(h), MpzIn::Array(f), flen)
}

/// `gpmp_poly_mul` over arrays of pointers (Julia `Vector{BigInt}`, gmpy2 objects, Maple's
/// read-only integers). The h\[i\] must be distinct; they may point to the inputs.
///
/// # Safety
/// Arrays of valid pointers to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_mul_ptr(
    h: *mut mpz_ptr,
    f: *const mpz_srcptr,
    flen: usize,
    g: *const mpz_srcptr,
    glen: usize,
) -> gpmp_status {
    gpmp_poly_mul_alg_ptr(h, f, flen, g, glen, RawMulAlg(gpmp_mul_alg::GPMP_MUL_AUTO as c_int))
}

/// `gpmp_poly_mul_alg` over arrays of pointers (as `gpmp_poly_mul_ptr`).
///
/// # Safety
/// As `gpmp_poly_mul_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_mul_alg_ptr(
    h: *mut mpz_ptr,
    f: *const mpz_srcptr,
    flen: usize,
    g: *const mpz_srcptr,
    glen: usize,
    alg: RawMulAlg,
) -> gpmp_status {
    poly_mul("gpmp_poly_mul_ptr", MpzOut::Ptrs(h), MpzIn::Ptrs(f), flen, MpzIn::Ptrs(g), glen, alg)
}

/// `gpmp_poly_sqr` over arrays of pointers (as `gpmp_poly_mul_ptr`).
///
/// # Safety
/// As `gpmp_poly_mul_ptr`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_sqr_ptr(h: *mut mpz_ptr, f: *const mpz_srcptr, flen: usize) -> gpmp_status {
    poly_sqr("gpmp_poly_sqr_ptr", MpzOut::Ptrs(h), MpzIn::Ptrs(f), flen)
}
