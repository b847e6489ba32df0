//! Cyclic NTT over Z/pZ with a caller-given root: x_i ← Σ_j x_j·w^(ij), natural order in and out.
//!
//! Contract: n is a power of two, p an odd prime < 2^63, w an element of exact multiplicative
//! order n, every x_j < p; otherwise `InvalidArgument` and x is left untouched. The inverse is the
//! same transform at w^(−1) times n^(−1).
//!
//! - [`plan_cache`]: the validated, cached transform [`Ntt`] for (n, w, p) and its dispatch;
//! - [`direct`]: the O(n²) sum for the smallest sizes;
//! - [`four_step`]: the four-step split n = n1·n2 with two column passes (the transform from
//!   there on), and [`twiddles`], its tables;
//! - [`line_dft`]: the radix-2 DFT of a run of 8-word lines that both passes use;
//! - [`lanes`]: eight-lane modular arithmetic (AVX-512 IFMA, AVX-512F/DQ, portable).
//!
//! Work: under n/2·log2 n butterfly products plus at most 2n twiddle products, and two passes over
//! memory.
mod direct;
mod four_step;
mod lanes;
mod line_dft;
mod plan_cache;
#[cfg(test)]
mod tests;
mod twiddles;

pub use plan_cache::{check_root, ntt_plan, Ntt};

use super::prime::check_reduced;
use super::scratch::{give, take};
use crate::int::try_zeroed;
use crate::runtime;
use crate::{invalid, Result};
use rayon::prelude::*;

/// Where host-resident transforms run: always on the GPU with `Backend::Gpu` (`NoCudaDevice` when
/// none is usable), never with `Backend::Auto`. Measured end to end on an H100 host (16 cores,
/// bench/results/gpu-h100.md, kernel v6 section): the CPU wins at every size from 2^10 × 4 to
/// 2^24 × 1 (CPU/GPU 0.1–0.8): the kernels take 0.3–0.6 ms of the GPU's 100–190 ms at 2^24, the
/// rest is pageable transfers (16 bytes a point). AUTO sends these calls to the GPU only once the
/// copies are pinned and overlapped.
pub(crate) fn on_gpu() -> Result<bool> {
    runtime::on_gpu(false)
}

/// Forward or inverse transform of every row of length n of x, rows in parallel, on the backend's
/// device (the GPU transform computes the same residues: both are exact).
fn rows(x: &mut [u64], n: usize, w: u64, p: u64, inverse: bool) -> Result<()> {
    let t = ntt_plan(n, w, p)?;
    if x.len() % n != 0 {
        return invalid!("{} entries are not a whole number of rows of length {n}", x.len());
    }
    let gpu = on_gpu();
    // A single row on the CPU is checked by the transform as it reads x (`Ntt::forward`). Else a
    // vectorised maximum first (so that no row fails after others were transformed, and before
    // the GPU's copies); the scan that names the offending entry only when it fails.
    if (x.len() != n || !matches!(gpu, Ok(false))) && lanes::any_at_least(x, p) {
        check_reduced(x, p, "x")?;
    }
    if gpu? {
        return crate::gpu::ntt::ntt_many(x, x.len() / n, n, w, p, inverse);
    }
    // Tables first, so that no row fails after others were transformed.
    t.prepare(inverse)?;
    let run = |row: &mut [u64], tmp: &mut [u64]| {
        if inverse {
            t.inverse(row, tmp)
        } else {
            t.forward(row, tmp)
        }
    };
    if x.len() == n {
        // Pooled scratch: a fresh n-word buffer costs page faults and zeroing on every call.
        let mut tmp = take(n)?;
        let r = run(x, &mut tmp);
        give(tmp);
        return r;
    }
    x.par_chunks_mut(n).try_for_each_init(
        || try_zeroed::<u64>(n),
        |tmp, row| {
            let tmp = tmp.as_mut().map_err(|e| e.clone())?;
            run(row, tmp)
        },
    )
}

/// x ← (Σ_j x_j·w^(ij))_i in place, n = x.len() a power of two, w of exact order n mod p, every
/// x_j < p (else `InvalidArgument`, x untouched).
pub fn ntt(x: &mut [u64], w: u64, p: u64) -> Result<()> {
    rows(x, x.len(), w, p, false)
}

/// The inverse of [`ntt`] with the same w: x ← (n^(−1)·Σ_j x_j·w^(−ij))_i.
pub fn intt(x: &mut [u64], w: u64, p: u64) -> Result<()> {
    rows(x, x.len(), w, p, true)
}

/// [`ntt`] of each of the x.len()/n rows of x (row-major), rows in parallel.
pub fn ntt_many(x: &mut [u64], n: usize, w: u64, p: u64) -> Result<()> {
    rows(x, n, w, p, false)
}
