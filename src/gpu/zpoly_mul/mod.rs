//! Dense Z\[x\] multiplication on the GPU by the multi-modular NTT (\[EM\] §5.1, the CRT by mixed
//! radix as in \[EM\] §5.5): h = f·g modulo k primes 2^61 < p_i < 2^62 with 2^32 | p_i − 1, then
//! Garner's CRT (\[Garner\]) with the symmetric lift, all on the device (`kernels/zpoly_mul.cu`). The
//! GPU twin of [`crate::zpoly`]'s multiplication.
//!
//! Every |h_m| < 2^B, B = `product_bits`, so M = Π p_i > 2^(B+1) > 2·|h_m| fixes h_m as the residue in
//! (−M/2, M/2): k is the fewest primes with Σ log2 p_i > B + 1 (`primes.rs`). 62-bit primes (64-bit
//! words) need half as many primes as 31-bit ones, hence half the launches and a quarter of the
//! quadratic CRT work.
//!
//! Pipeline, one stream per call (`pipeline.rs`):
//! 1. host: coefficients → fixed-stride limbs and sign bytes (parallel), into a pinned staging buffer
//!    (`staging.rs`), uploaded in chunks as they are filled;
//! 2. `residues`: c mod p_i for every coefficient and prime (zero padding up to n), each prime's f and g
//!    rows side by side in its own device buffer of 2n words;
//! 3. forward cyclic NTTs of length n = 2^⌈log2(flen+glen−1)⌉ with [`crate::gpu::ntt::Plan`] (both rows
//!    of a prime in one call); `pointwise`; inverse NTT (scaled by n^(−1)): the linear convolution mod p_i;
//! 4. `garner`: mixed-radix digits, limbs by Horner, symmetric lift → stride-S magnitudes and signs
//!    (launches over blocks of coefficients, `GPU_ZPOLY_CRT_BLOCK_UNITS`, a stop checked between them);
//! 5. download (in pieces of `GPU_ZPOLY_DOWNLOAD_WORDS`) into the same pinned buffer ([`HostProduct`]), which the C layer writes into the
//!    `mpz_t` directly ([`mul_bits`] copies it into a [`ZSlab`]).
//!
//! The Taylor shift f(x + c) runs through the same pipeline (`taylor_shift.rs`): one operand, f
//! reversed, scaled by factorials before the transforms and by inverse factorials after them.
//!
//! Multi-limb coefficients may instead be split into their limbs (`plan_shape`): 3 primes on a
//! sequence 2L − 1 times longer, then `recombine` on the device. `GPMP_LOG=debug` logs the stage
//! times of every call.
//!
//! A product of at least [`ZPOLY_MUL_GPU_SPLIT_MIN_WORDS`] output words runs on every device of the
//! device set (`multi.rs`): the primes shared for the transforms, the coefficients for the CRT.
//!
//! Device memory (`memory.rs`): (k + 1)·2n words for the rows, plus inputs, the CRT scratch (W·len
//! words, W = limbs of M) and the output. A product that does not fit the free device memory is
//! computed in parts (`Cut`): the transforms for a group of primes at a time, their rows parked in
//! host memory, then the CRT block by block; one whose inputs and two rows, or whose parked rows (in
//! half the host memory), do not fit fails with `OutOfMemory` before any large allocation.
mod memory;
mod multi;
mod pipeline;
mod primes;
mod staging;
mod taylor_shift;
#[cfg(test)]
mod tests;

pub use pipeline::time_device;
pub use primes::{primes_for, supports, MAX_PRIMES, PRIME_BITS};
pub use staging::HostProduct;
#[cfg(all(test, feature = "gpu-tests"))]
pub(crate) use taylor_shift::DEVICE_CALLS as SHIFT_DEVICE_CALLS;
pub use taylor_shift::{shift_supports, taylor_shift, taylor_shift_host};

use super::device;
use super::kernels::{Kernel, Spec};
use super::{driver_err, shield};
use crate::int::{limbs_for_bits, product_bits, IntRef, ZSlab};
use crate::tuning::ZPOLY_MUL_GPU_SPLIT_MIN_WORDS;
use crate::{Error, Result};
use pipeline::Job;
use rayon::prelude::*;
use std::time::Instant;

/// Threads per block of the kernels of `kernels/zpoly_mul.cu` (`NT` in the kernel).
const NT: u32 = 256;

/// `kernels/zpoly_mul.cu`: residues, pointwise products and Garner's CRT of the Z\[x\] product.
pub static KERNEL: Kernel = Kernel { file: "zpoly_mul.cu", source: include_str!("../../../kernels/zpoly_mul.cu"), int128: false, specs };

/// The specialisations of `kernels/zpoly_mul.cu`.
pub fn specs() -> Vec<Spec> {
    vec![spec()]
}

fn spec() -> Spec {
    Spec { source: "zpoly_mul.cu", defines: vec![("NT", NT as i64)] }
}

/// [`crate::int::max_bits`] in parallel (inputs of millions of coefficients).
pub fn max_bits_par(c: &[IntRef]) -> u64 {
    c.par_iter().with_min_len(1 << 14).map(IntRef::bits).max().unwrap_or(0)
}

/// f·g on the current device (f, g non-empty; f and g the same slice = a square): the
/// [`crate::zpoly`] contract. Coefficients beyond [`supports`] fail with `SizeTooLarge`.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    mul_bits(f, g, product_bits(max_bits_par(f), max_bits_par(g), f.len(), g.len()))
}

/// [`mul`] given `bits` = `product_bits` of f and g (the dispatcher has it already).
pub fn mul_bits(f: &[IntRef], g: &[IntRef], bits: u64) -> Result<ZSlab> {
    mul_host(f, g, bits)?.to_slab()
}

/// [`mul_bits`] left in host memory (see [`HostProduct`]), stride `limbs_for_bits(bits)`.
pub fn mul_host(f: &[IntRef], g: &[IntRef], bits: u64) -> Result<HostProduct> {
    mul_host_limbs(f, g, bits, max_limbs(f, g))
}

/// The most limbs of a coefficient of f or g.
fn max_limbs(f: &[IntRef], g: &[IntRef]) -> usize {
    max_limbs_of(f).max(max_limbs_of(g))
}

/// The most limbs of a coefficient of f (in parallel).
fn max_limbs_of(f: &[IntRef]) -> usize {
    f.par_iter().with_min_len(1 << 14).map(|c| c.mag.len()).max().unwrap_or(0)
}

/// [`mul_host`] given the most limbs of an input coefficient (`limbs_for_bits` of the larger
/// `max_bits`: the views are normalized).
pub fn mul_host_limbs(f: &[IntRef], g: &[IntRef], bits: u64, limbs: usize) -> Result<HostProduct> {
    let hlen = f.len() + g.len() - 1;
    if bits == 0 {
        return HostProduct::new(None, hlen, 1, 0);
    }
    let devs = device::devices();
    if devs.len() > 1
        && (hlen as u64).saturating_mul(limbs_for_bits(bits) as u64) >= ZPOLY_MUL_GPU_SPLIT_MIN_WORDS
        && f.len().min(g.len()) > 1
    {
        if let Some(p) = multi::mul(&devs, f, g, bits, limbs)? {
            return Ok(p);
        }
    }
    let dev = device::current()?;
    shield("GPU poly_mul", || {
        let t0 = Instant::now();
        let job = Job::new(&dev, f, g, bits, limbs)?;
        crate::log::log(crate::log::Level::Debug, "gpu poly_mul", || {
            let ms = (Instant::now() - t0).as_secs_f64() * 1e3;
            format!("{} primes, n = {}, {:?}, setup {ms:.3} ms", job.s.primes.len(), job.n, job.cut)
        });
        let ops: &[&[IntRef]] = if std::ptr::eq(f, g) { &[f] } else { &[f, g] };
        job.run(ops, hlen, limbs_for_bits(bits))
    })
}

fn launch_err(what: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |e| driver_err(what, e)
}
