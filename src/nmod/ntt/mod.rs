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
use std::sync::Arc;

use super::prime::check_reduced;
use super::scratch::{give, take};
use crate::int::try_zeroed;
use crate::{invalid, Result};
use rayon::prelude::*;

/// The plan of a transform of rows of length n at w mod p (`InvalidArgument` for a bad n, w or p),
/// after checking that x is a whole number of rows.
pub fn check_rows(x: &[u64], n: usize, w: u64, p: u64) -> Result<Arc<Ntt>> {
    let t = ntt_plan(n, w, p)?;
    if !x.len().is_multiple_of(n) {
        return invalid!("{} entries are not a whole number of rows of length {n}", x.len());
    }
    Ok(t)
}

/// `InvalidArgument` naming the first entry of x that is ≥ p: a vectorised maximum first, the scan
/// that names the entry only when it fails.
pub fn check_entries(x: &[u64], p: u64) -> Result<()> {
    if lanes::any_at_least(x, p) {
        check_reduced(x, p, "x")?;
    }
    Ok(())
}

/// Forward or inverse transform of every row of length n of x, rows in parallel, on the CPU.
pub fn rows(x: &mut [u64], n: usize, w: u64, p: u64, inverse: bool) -> Result<()> {
    let t = check_rows(x, n, w, p)?;
    // A single row is checked by the transform as it reads x (`Ntt::forward`); several rows are
    // checked first, so that no row fails after others were transformed.
    if x.len() != n {
        check_entries(x, p)?;
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
