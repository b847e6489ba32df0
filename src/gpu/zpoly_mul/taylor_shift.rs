//! The Taylor shift g(x) = f(x + c) on the GPU, bit for bit the result of
//! [`crate::zpoly::taylor_shift`]: modulo the product's 62-bit primes (every p > 2^61 > len, so every
//! j! with j < len is invertible) by the convolution form ([vzGG97]; [`crate::nmod::taylor_shift`] on
//! the CPU, d = len − 1),
//!
//! g_k·k! = Σ_(j≥k) (f_j·j!)·c^(j−k)/(j−k)! = h_(d−k),  h = a·b,  a_m = f_(d−m)·(d−m)!,  b_j = c^j/j!,
//!
//! one linear convolution of length len per prime, then Garner's CRT with the symmetric lift over
//! primes with M > 2^(b+1), b the caller's bound (every |g_k| < 2^b): |g_k| < M/2 is its symmetric
//! residue. The prime count is rounded up (`primes_rounded`) so that shifts of nearby sizes share
//! their device constants. The steps, in the product's pipeline (`pipeline.rs`, `kernels/zpoly_mul.cu`):
//! residues of f reversed; `shift_scale` (per prime, one block: the factorials by a block scan,
//! a_m, b_j and the table of 1/j!); forward transforms of 2^⌈log2(2·len − 1)⌉ points, pointwise
//! products, inverse transforms; `shift_unscale` (g_k = h_(d−k)/k!); `garner`. c, of any size, is
//! reduced modulo each prime on the host. Device memory and its parts as for the product, plus len
//! words a prime for the table; `GPMP_LOG=debug` logs the setup and the stage times.
use super::pipeline::Job;
use super::primes::{primes_rounded, supports};
use super::{device, max_limbs_of, shield, HostProduct};
use crate::int::{limbs_for_bits, IntRef, ZSlab};
use crate::nmod::reduce::Modulus;
use crate::Result;
use std::time::Instant;

/// Shifts sent to the device (tests read it to see that a route reached the GPU shift).
#[cfg(test)]
pub(crate) static DEVICE_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether the GPU shift serves `len` coefficients whose shifts have at most `bits` bits: primes
/// for 2^(bits+1) within [`super::MAX_PRIMES`] ([`supports`]) and transforms of 2·len − 1 ≤ 2^32
/// positions.
pub fn shift_supports(len: usize, bits: u64) -> bool {
    supports(bits) && len <= 1 << 31
}

/// f(x + c) on the current device, `f.len()` coefficients of `limbs_for_bits(bits)` limbs, where
/// every coefficient of f(x + c) has at most `bits` bits (e.g. [`crate::zpoly::taylor_shift::shift_bits`]).
/// Beyond [`shift_supports`]: `SizeTooLarge`.
pub fn taylor_shift(f: &[IntRef], c: IntRef, bits: u64) -> Result<ZSlab> {
    taylor_shift_host(f, c, bits)?.to_slab()
}

/// [`taylor_shift`] left in host memory (see [`HostProduct`]).
pub fn taylor_shift_host(f: &[IntRef], c: IntRef, bits: u64) -> Result<HostProduct> {
    let len = f.len();
    if len == 0 || bits == 0 {
        return HostProduct::new(None, len, limbs_for_bits(bits).max(1), 0);
    }
    if !shift_supports(len, bits) {
        return Err(crate::Error::SizeTooLarge(format!("the GPU Taylor shift of {len} coefficients of {bits} bits")));
    }
    #[cfg(test)]
    DEVICE_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t0 = Instant::now();
    let primes = primes_rounded(bits + 1)?;
    let cres: Vec<u64> = primes
        .iter()
        .map(|&p| {
            let m = Modulus::new(p);
            m.reduce_signed(c, &m.limb_weights(c.mag.len()))
        })
        .collect();
    let rev: Vec<IntRef> = f.iter().rev().copied().collect();
    let limbs = max_limbs_of(f);
    let dev = device::current()?;
    shield("GPU taylor_shift", || {
        let job = Job::shift(&dev, len, bits, limbs, &primes, &cres)?;
        crate::log::log(crate::log::Level::Debug, "gpu taylor_shift", || {
            let ms = (Instant::now() - t0).as_secs_f64() * 1e3;
            format!("{len} coefficients, {bits} bits: {} primes, n = {}, {:?}, setup {ms:.3} ms", primes.len(), job.n, job.cut)
        });
        job.run(&[&rev], len, limbs_for_bits(bits))
    })
}
