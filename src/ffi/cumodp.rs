//! `gpmp_cumodp_*` (header `gpmp_cumodp.h`): CUMODP 2.0's exported univariate FFT entry points with
//! their meaning. The transforms go through `nmod::ntt`, so they run on the GPU under
//! `GPMP_BACKEND_GPU` (as `gpmp_nmod_ntt*`; AUTO keeps them on the CPU, which wins end to end), on the CPU otherwise;
//! `gpmp_cumodp_fftmul_uni` is then two forward NTTs, a pointwise product and an inverse NTT when p
//! has a root of unity of the product's power-of-two length, else the CPU multi-modular product.
//! Both backends give the same words (every route is exact). `sfixn` is `int32_t`; residues lie in [0, p) with p an odd prime
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
use crate::ops;
use crate::ops::nmod as ntt;
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
        let h = runtime::install(|| ops::nmod::poly_mul_cumodp(&f, &g, p))?;
        slice_out(H, keep, "H")?.iter_mut().zip(&h).for_each(|(d, &s)| *d = s as sfixn);
        Ok(())
    })
}

#[cfg(all(test, feature = "gpu-tests"))]
mod gpu_tests {
    use super::super::runtime::{gpmp_set_backend, RawBackend};
    use super::*;
    use crate::nmod::prime::fourier_primes;
    use crate::nmod::prime::{mulmod, primitive_root_of_unity};

    /// A C call on an array.
    type Call<'a> = &'a dyn Fn(&mut [sfixn]) -> gpmp_status;

    /// `call` on a copy of x under backend b (0 auto, 1 CPU, 2 GPU): its status and result.
    fn on(b: i32, x: &[sfixn], call: Call) -> (gpmp_status, Vec<sfixn>) {
        assert_eq!(gpmp_set_backend(RawBackend(b)), gpmp_status::GPMP_SUCCESS);
        let mut y = x.to_vec();
        let s = call(&mut y);
        (s, y)
    }

    /// fft_uni, invfft_uni, list_fft_uni and fftmul_uni give the same words on the CPU, the GPU
    /// and AUTO, at sizes across the GPU's pass boundaries and AUTO's threshold (2^20), for a
    /// 31-bit and a 30-bit (lazy) Fourier prime, random and edge (all p − 1) inputs; fftmul_uni
    /// also with a prime whose 2-adic order is too small for the NTT route.
    #[test]
    fn cumodp_agrees_on_both_backends() {
        let _g = crate::testing::backend_lock();
        let mut r = crate::testing::Rng(17);
        for p in [fourier_primes(31, 24, 1)[0], fourier_primes(30, 22, 1)[0]] {
            let ps = p as sfixn;
            for (k, m) in [(1i32, 3i32), (5, 2), (12, 3), (13, 1), (14, 2), (20, 1)] {
                let n = 1i32 << k;
                let w = primitive_root_of_unity(n as u64, p).unwrap() as sfixn;
                for kind in 0..2 {
                    let x: Vec<sfixn> = (0..m * n).map(|_| if kind == 0 { (r.next() % p) as sfixn } else { ps - 1 }).collect();
                    let calls: [Call; 3] = [
                        &|y| unsafe { gpmp_cumodp_fft_uni(y.as_mut_ptr(), n, k, w, ps) },
                        &|y| unsafe { gpmp_cumodp_invfft_uni(y.as_mut_ptr(), n, k, w, ps) },
                        &|y| unsafe { gpmp_cumodp_list_fft_uni(y.as_mut_ptr(), m, k, w, ps) },
                    ];
                    for (c, call) in calls.iter().enumerate() {
                        let x = if c < 2 { &x[..n as usize] } else { &x[..] };
                        let cpu = on(1, x, *call);
                        assert_eq!(cpu.0, gpmp_status::GPMP_SUCCESS);
                        assert!(on(2, x, *call) == cpu, "GPU p={p} k={k} m={m} kind={kind} call={c}");
                        assert!(on(0, x, *call) == cpu, "AUTO p={p} k={k} m={m} kind={kind} call={c}");
                    }
                }
            }
            for (df, dg) in [(0i32, 0i32), (1, 0), (100, 37), (4095, 4096), ((1 << 19) + 5, (1 << 19) - 3)] {
                let f: Vec<sfixn> = (0..=df).map(|_| (r.next() % p) as sfixn).collect();
                let g: Vec<sfixn> = (0..=dg).map(|_| (r.next() % p) as sfixn).collect();
                let dh = df + dg;
                let call = |h: &mut [sfixn]| unsafe { gpmp_cumodp_fftmul_uni(dh, h.as_mut_ptr(), df, f.as_ptr(), dg, g.as_ptr(), ps) };
                let h0 = vec![-1; dh as usize + 1];
                let cpu = on(1, &h0, &call);
                assert_eq!(cpu.0, gpmp_status::GPMP_SUCCESS);
                // the CPU route is independent of the NTT one: check a few coefficients naively
                for i in [0usize, dh as usize / 2, dh as usize] {
                    let want = (0..=i)
                        .filter(|&j| j <= df as usize && i - j <= dg as usize)
                        .fold(0u64, |acc, j| (acc + mulmod(f[j] as u64, g[i - j] as u64, p)) % p);
                    assert_eq!(cpu.1[i] as u64, want, "p={p} df={df} dg={dg} i={i}");
                }
                assert!(on(2, &h0, &call) == cpu, "GPU fftmul p={p} df={df} dg={dg}");
                assert!(on(0, &h0, &call) == cpu, "AUTO fftmul p={p} df={df} dg={dg}");
            }
        }
        // 2^11 does not divide p − 1 (2-adic order 9): the GPU backend falls back to the CPU product.
        let p = fourier_primes(31, 9, 20).into_iter().find(|p| (p - 1) % 1024 != 0).unwrap();
        let f: Vec<sfixn> = (0..600).map(|i| (i * 7 % p as i64) as sfixn).collect();
        let call = |h: &mut [sfixn]| unsafe { gpmp_cumodp_fftmul_uni(1198, h.as_mut_ptr(), 599, f.as_ptr(), 599, f.as_ptr(), p as sfixn) };
        let h0 = vec![0; 1199];
        let cpu = on(1, &h0, &call);
        assert_eq!(cpu.0, gpmp_status::GPMP_SUCCESS);
        assert!(on(2, &h0, &call) == cpu);
        assert_eq!(gpmp_set_backend(RawBackend(0)), gpmp_status::GPMP_SUCCESS);
    }
}
