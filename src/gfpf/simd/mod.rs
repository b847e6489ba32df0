//! AVX-512 batches for the GFPF DFT ([`super::fft`]) and element products, eight rows (elements)
//! at once, one per lane, digit-major (vector d holds digit d of one element of each row):
//!
//! - [`digits`]: the lazy digit pairs (H, L), loading and transposing, and the normalisation
//!   back to canonical elements;
//! - [`base_dft`]: the base DFTs of size m ≤ 2k (shift-only) and m = 4k (products by ω_4k on a
//!   quarter of the elements), with the six-step twiddles fused into them;
//! - [`element_mul`]: the IFMA element product (schoolbook or one Karatsuba level) and
//!   [`Gfpf::mul_n`]'s batches;
//! - [`stream`]: the non-temporal stores of the DFT's large passes.
//!
//! Everything here requires AVX-512F/DQ/IFMA, k ∈ {8, 16, 32} and r ≥ 2^40 ([`available`]); the
//! element products also r ≥ 2^60 ([`mul_available`]). Results equal the scalar code's.
mod base_dft;
mod digits;
mod element_mul;
mod stream;
#[cfg(test)]
mod tests;

pub(super) use base_dft::{base8, dft8, Lanes, Twiddles};
pub(super) use element_mul::mul8;
pub(super) use stream::stream_out;

use super::Gfpf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Whether the AVX-512 paths may run (on by default; the benchmark turns them off to time the
/// scalar fallback in the same process).
static ENABLED: AtomicBool = AtomicBool::new(true);

/// Turns the AVX-512 paths of the GFPF DFT and `mul_n` on or off for the whole process (for
/// benchmarks).
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// A cap on the base size of the DFT plans (0: none; for benchmarks).
static BASE_CAP: AtomicUsize = AtomicUsize::new(0);

/// Caps the base size of the GFPF DFT plans at `m` elements for the whole process (0: no cap;
/// for benchmarks that compare plans, e.g. 2k-point against 4k-point bases).
pub fn set_base_cap(m: usize) {
    BASE_CAP.store(m, Ordering::Relaxed);
}

/// Whether [`element_mul::lazy_mul`] may take its Karatsuba level (on by default; for benchmarks).
static KARATSUBA: AtomicBool = AtomicBool::new(true);

/// Turns the Karatsuba level of the IFMA element product on or off for the whole process (for
/// benchmarks that compare it with the schoolbook product; the results are the same).
pub fn set_karatsuba(on: bool) {
    KARATSUBA.store(on, Ordering::Relaxed);
}

/// Whether the AVX-512 base DFTs run for this field on this CPU: enabled, k ∈ {8, 16, 32},
/// r ≥ 2^40 (the quotient estimate), AVX-512F, DQ and IFMA.
pub(in crate::gfpf) fn available(f: &Gfpf) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        ENABLED.load(Ordering::Relaxed)
            && matches!(f.k, 8 | 16 | 32)
            && f.r >= 1 << 40
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = f;
        false
    }
}

/// The largest base size of [`dft8`] for this field: 4k where [`mul_available`]`(f)` and
/// k ≤ 16 (the 4k-point bases), else 2k.
pub(in crate::gfpf) fn max_base(f: &Gfpf) -> usize {
    let m = if f.k <= 16 && mul_available(f) { 4 * f.k } else { 2 * f.k };
    match BASE_CAP.load(Ordering::Relaxed) {
        0 => m,
        cap => m.min(cap.max(2 * f.k)),
    }
}

/// Whether the AVX-512 IFMA element products run for this field on this CPU: [`available`] and
/// r ≥ 2^60 (the bounds of [`element_mul::lazy_mul`]).
pub(in crate::gfpf) fn mul_available(f: &Gfpf) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        available(f) && f.r >= 1 << 60
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = f;
        false
    }
}
