//! `gpmp_cumodp_*` (header `gpmp_cumodp.h`): CUMODP 2.0's exported univariate FFT entry points with
//! their meaning, on the CPU. `sfixn` is `int32_t`; residues lie in [0, p) with p an odd prime
//! < 2^31; sizes are passed as n = 2^k (both given, as in CUMODP) and polynomials as
//! (degree, pointer) pairs. As in CUMODP the forward transform is unscaled and the inverse, given
//! the same w, uses w^(−1) and multiplies by n^(−1). Every function returns a `gpmp_status`;
//! bad input (negative sizes, n ≠ 2^k, entries outside [0, p), w not of order n, NULL) gives
//! `GPMP_INVALID_ARGUMENT` with the arrays untouched. Defining `GPMP_CUMODP_NAMES` before including
//! the header maps `cumodp_fft_uni` etc. onto these names.
#![allow(non_snake_case)]
use super::gpmp_status;
use super::nmod::{slice_in, slice_out};
use super::status::guard;
use crate::nmod::{ntt, poly_mul};
use crate::{invalid, runtime, Result};

/// CUMODP's 32-bit signed machine integer.
pub type sfixn = i32;

/// p as a u64 after checking it is positive (primality is checked by the core).
fn modulus(p: sfixn) -> Result<u64> {
    if p < 3 {
        return invalid!("modulus {p} is not an odd prime");
    }
    Ok(p as u64)
}

/// The entries as residues mod p, rejecting any outside [0, p).
fn residues(x: &[sfixn], p: u64, what: &str) -> Result<Vec<u64>> {
    match x.iter().position(|&v| v < 0 || v as u64 >= p) {
        Some(i) => invalid!("{what}[{i}] = {} is not in [0, {p})", x[i]),
        None => Ok(x.iter().map(|&v| v as u64).collect()),
    }
}

/// n = 2^k with 0 ≤ k ≤ 30, checked against the given n.
fn size(n: sfixn, k: sfixn) -> Result<usize> {
    if !(0..=30).contains(&k) || n != 1 << k {
        return invalid!("n = {n} is not 2^k for k = {k} in [0, 30]");
    }
    Ok(n as usize)
}

/// Transforms the `rows` rows of length 2^k in X (forward; inverse only with rows = 1), writing back
/// only after success.
unsafe fn transform(x: *mut sfixn, rows: sfixn, n: sfixn, k: sfixn, w: sfixn, p: sfixn, inverse: bool) -> Result<()> {
    let n = size(n, k)?;
    let p = modulus(p)?;
    if rows < 0 {
        return invalid!("negative row count {rows}");
    }
    let w = if w < 0 { return invalid!("root {w} is negative") } else { w as u64 };
    let xs = slice_out(x, rows as usize * n, "X")?;
    let mut v = residues(xs, p, "X")?;
    runtime::install(|| if inverse { ntt::intt(&mut v, w, p) } else { ntt::ntt_many(&mut v, n, w, p) })?;
    xs.iter_mut().zip(&v).for_each(|(d, &s)| *d = s as sfixn);
    Ok(())
}

/// In place, X ← DFT_n(X) at w: X\[i\] = Σ_j X\[j\]·w^(ij) mod p, n = 2^k, natural order, unscaled
/// (CUMODP's `cumodp_fft_uni`, a Stockham FFT there). w has exact order n.
///
/// # Safety
/// `X` holds n `sfixn`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_cumodp_fft_uni(X: *mut sfixn, n: sfixn, k: sfixn, w: sfixn, p: sfixn) -> gpmp_status {
    guard("gpmp_cumodp_fft_uni", || transform(X, 1, n, k, w, p, false))
}

/// In place, the inverse of `gpmp_cumodp_fft_uni` given the same w: X\[i\] = n^(−1)·Σ_j X\[j\]·w^(−ij)
/// mod p (CUMODP's `cumodp_invfft_uni`: DFT at w^(−1), then scaling by n^(−1)).
///
/// # Safety
/// `X` holds n `sfixn`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_cumodp_invfft_uni(X: *mut sfixn, n: sfixn, k: sfixn, w: sfixn, p: sfixn) -> gpmp_status {
    guard("gpmp_cumodp_invfft_uni", || transform(X, 1, n, k, w, p, true))
}

/// In place, X ← (I_m ⊗ DFT_(2^k)) X: the m consecutive rows of length 2^k of X each transformed as
/// by `gpmp_cumodp_fft_uni` at w (CUMODP's `list_stockham_host`; m need not be a power of 2).
///
/// # Safety
/// `X` holds m·2^k `sfixn`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_cumodp_list_fft_uni(X: *mut sfixn, m: sfixn, k: sfixn, w: sfixn, p: sfixn) -> gpmp_status {
    guard("gpmp_cumodp_list_fft_uni", || {
        if !(0..=30).contains(&k) {
            return invalid!("k = {k} is not in [0, 30]");
        }
        transform(X, m, 1 << k, k, w, p, false)
    })
}

/// H = F·G mod p with polynomials given by degree: F has df+1 coefficients, G has dg+1, H has room
/// for dh+1. As in CUMODP's `cumodp_fftmul_uni`: if dh ≥ df+dg only the df+dg+1 coefficients of the
/// product are written (the rest of H is untouched), otherwise its first dh+1. Any odd prime
/// p < 2^31 is accepted (CUMODP needs a Fourier prime with 2^⌈log2(df+dg+1)⌉ | p − 1). H may alias
/// F or G.
///
/// # Safety
/// Arrays as described.
#[no_mangle]
pub unsafe extern "C" fn gpmp_cumodp_fftmul_uni(
    dh: sfixn,
    H: *mut sfixn,
    df: sfixn,
    F: *const sfixn,
    dg: sfixn,
    G: *const sfixn,
    p: sfixn,
) -> gpmp_status {
    guard("gpmp_cumodp_fftmul_uni", || {
        if dh < 0 || df < 0 || dg < 0 {
            return invalid!("negative degree (dh = {dh}, df = {df}, dg = {dg})");
        }
        let p = modulus(p)?;
        let f = residues(slice_in(F, df as usize + 1, "F")?, p, "F")?;
        let g = residues(slice_in(G, dg as usize + 1, "G")?, p, "G")?;
        let keep = (dh as usize).min(df as usize + dg as usize) + 1;
        slice_in(H as *const sfixn, keep, "H")?;
        let h = runtime::install(|| poly_mul::poly_mul(&f, &g, p))?;
        slice_out(H, keep, "H")?.iter_mut().zip(&h).for_each(|(d, &s)| *d = s as sfixn);
        Ok(())
    })
}
