//! `gpmp_nmod_*`: word-size prime fields Z/pZ (p an odd prime < 2^63): Fourier primes, roots of
//! unity, cyclic NTTs and polynomial products. Residues are `uint64_t` in [0, p); an unreduced
//! input is rejected with `GPMP_INVALID_ARGUMENT` (never silently reduced), outputs untouched.
use super::gpmp_status;
use super::status::guard;
use crate::nmod::prime;
use crate::ops::nmod;
use crate::{invalid, runtime, Error, Result};
use std::ffi::c_uint;

/// The slice (ptr, len); NULL is allowed only for len = 0.
pub(crate) unsafe fn slice_in<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return invalid!("{what} is NULL with length {len}");
    }
    if len.checked_mul(std::mem::size_of::<T>()).is_none_or(|b| b > isize::MAX as usize) {
        return Err(Error::SizeTooLarge(format!("{what}: length {len} is too large")));
    }
    Ok(std::slice::from_raw_parts(ptr, len))
}

/// The mutable slice (ptr, len); NULL is allowed only for len = 0.
pub(crate) unsafe fn slice_out<'a, T>(ptr: *mut T, len: usize, what: &str) -> Result<&'a mut [T]> {
    slice_in(ptr as *const T, len, what)?;
    Ok(if len == 0 { &mut [] } else { std::slice::from_raw_parts_mut(ptr, len) })
}

/// *p = the `index`-th (from 0) odd prime below 2^bits, bits ∈ [20, 63], in the order "2-adic
/// valuation k of p − 1 descending, then p descending" (p = c·2^k + 1, c odd): index 0 is the
/// largest prime with the largest k for which one exists, and the list moves to a smaller k only
/// after every prime with the current one. Distinct indices give distinct primes; the prime at
/// index i supports transforms of every power-of-two length up to 2^k. index < 65536.
///
/// # Safety
/// `p` points to a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_fourier_prime(bits: c_uint, index: usize, p: *mut u64) -> gpmp_status {
    guard("gpmp_nmod_fourier_prime", || {
        if p.is_null() {
            return invalid!("p is NULL");
        }
        *p = prime::fourier_prime(bits, index)?;
        Ok(())
    })
}

/// *w = a primitive n-th root of unity mod p (n a power of two dividing p − 1, p an odd prime
/// < 2^63): g^((p−1)/n) for the smallest quadratic non-residue g, so the same (n, p) always gives
/// the same w, and w^(n/2) = p − 1.
///
/// # Safety
/// `w` points to a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_primitive_root(n: u64, p: u64, w: *mut u64) -> gpmp_status {
    guard("gpmp_nmod_primitive_root", || {
        if w.is_null() {
            return invalid!("w is NULL");
        }
        prime::check_modulus(p)?;
        *w = prime::primitive_root_of_unity(n, p)?;
        Ok(())
    })
}

/// In place, x\[i\] ← Σ_j x\[j\]·w^(ij) mod p for i < n (natural order in and out, no scaling).
/// n a power of two (≥ 1), w < p of exact multiplicative order n, p an odd prime < 2^63, every
/// x\[j\] < p.
/// Backend: the GPU under `GPMP_BACKEND_GPU` (`GPMP_NO_CUDA_DEVICE` without a usable one); AUTO
/// stays on the CPU, which wins end to end at every size measured on an H100 host. Same results
/// on either (`_intt` and `_ntt_many` likewise).
///
/// # Safety
/// `x` holds n `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_ntt(x: *mut u64, n: usize, w: u64, p: u64) -> gpmp_status {
    guard("gpmp_nmod_ntt", || {
        if n == 0 {
            return invalid!("transform length 0");
        }
        let x = slice_out(x, n, "x")?;
        runtime::install(|| nmod::ntt(x, w, p))
    })
}

/// The inverse of `gpmp_nmod_ntt` with the same w: x\[i\] ← n^(−1)·Σ_j x\[j\]·w^(−ij) mod p.
///
/// # Safety
/// As `gpmp_nmod_ntt`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_intt(x: *mut u64, n: usize, w: u64, p: u64) -> gpmp_status {
    guard("gpmp_nmod_intt", || {
        if n == 0 {
            return invalid!("transform length 0");
        }
        let x = slice_out(x, n, "x")?;
        runtime::install(|| nmod::intt(x, w, p))
    })
}

/// `gpmp_nmod_ntt` on each of `count` rows of length n stored one after another in x (rows in
/// parallel). count = 0 does nothing (n, w, p are still validated).
///
/// # Safety
/// `x` holds count·n `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_ntt_many(x: *mut u64, count: usize, n: usize, w: u64, p: u64) -> gpmp_status {
    guard("gpmp_nmod_ntt_many", || {
        let len = count.checked_mul(n).ok_or_else(|| Error::SizeTooLarge(format!("{count} rows of length {n}")))?;
        if n == 0 {
            return invalid!("transform length 0");
        }
        let x = slice_out(x, len, "x")?;
        runtime::install(|| nmod::ntt_many(x, n, w, p))
    })
}

/// h\[0 .. flen+glen−2\] = f·g mod p for any odd prime p < 2^63 (Fourier primes: one NTT product;
/// others: products modulo up to four 50-bit NTT primes and CRT). Nothing is written when flen or
/// glen is 0. Entries of f and g must be < p. h may alias f or g.
///
/// Backend: the GPU under `GPMP_BACKEND_GPU` (`GPMP_NO_CUDA_DEVICE` without a usable one) and under
/// `GPMP_BACKEND_AUTO` from 2^19 output limbs ((flen+glen−1) × the 2–3 limbs of the integer
/// product's coefficients) when a GPU is usable (measured on an H100 host: a tie with its 16 cores
/// at 2^16 × 2^16, the GPU 2× faster at 2^22). There the exact product over Z runs on the GPU (the multi-modular
/// product of `gpmp_poly_mul`) and each coefficient is reduced mod p on the host. The same words
/// on every backend.
///
/// # Safety
/// `h` holds flen+glen−1 `uint64_t`, f and g hold flen and glen.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_mul(h: *mut u64, f: *const u64, flen: usize, g: *const u64, glen: usize, p: u64) -> gpmp_status {
    guard("gpmp_nmod_poly_mul", || {
        let (fs, gs) = (slice_in(f, flen, "f")?, slice_in(g, glen, "g")?);
        let hlen = if flen == 0 || glen == 0 { 0 } else { flen + glen - 1 };
        slice_in(h as *const u64, hlen, "h")?;
        let overlaps = |x: &[u64]| {
            let (hs, he) = (h as usize, h as usize + 8 * hlen);
            let (xs, xe) = (x.as_ptr() as usize, x.as_ptr() as usize + 8 * x.len());
            xs < he && hs < xe
        };
        if hlen == 0 || (!overlaps(fs) && !overlaps(gs)) {
            // h is disjoint from f and g: written in place (poly_mul_into writes it last).
            let hs = slice_out(h, hlen, "h")?;
            return runtime::install(|| nmod::poly_mul_into(fs, gs, p, hs));
        }
        // f or g aliases h: their last use is here, before h is borrowed mutably.
        let r = runtime::install(|| nmod::poly_mul(fs, gs, p))?;
        slice_out(h, hlen, "h")?.copy_from_slice(&r);
        Ok(())
    })
}

#[cfg(all(test, feature = "gpu-tests"))]
mod gpu_tests {
    use super::super::runtime::{gpmp_set_backend, RawBackend};
    use super::*;
    use crate::nmod::prime::{fourier_primes, primitive_root_of_unity};

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut r = crate::testing::Rng(seed);
        move || r.next()
    }

    /// `call` on a copy of x under the backend b (0 auto, 1 CPU, 2 GPU): its status and result.
    fn on(b: i32, x: &[u64], call: impl Fn(&mut [u64]) -> gpmp_status) -> (gpmp_status, Vec<u64>) {
        assert_eq!(gpmp_set_backend(RawBackend(b)), gpmp_status::GPMP_SUCCESS);
        let mut y = x.to_vec();
        let s = call(&mut y);
        (s, y)
    }

    /// gpmp_nmod_ntt, _intt and _ntt_many give the same words on the CPU, on the GPU and under
    /// AUTO, for 31-, 50-, 62- and 63-bit primes, random and edge inputs (0, p − 1, a unit
    /// vector), at lengths across the GPU's one-pass/multi-pass boundaries and AUTO's threshold (2^20).
    #[test]
    fn c_api_transforms_agree_on_both_backends() {
        let _g = crate::testing::backend_lock();
        let mut r = rng(5);
        let primes =
            [fourier_primes(31, 24, 1)[0], fourier_primes(50, 30, 1)[0], fourier_primes(62, 30, 1)[0], fourier_primes(63, 32, 1)[0]];
        for p in primes {
            for (logn, count) in [(1u32, 7usize), (4, 3), (12, 2), (13, 3), (14, 1), (17, 9), (20, 1)] {
                let n = 1usize << logn;
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                for kind in 0..3 {
                    let x: Vec<u64> = (0..count * n)
                        .map(|i| match kind {
                            0 => r() % p,
                            1 => p - 1,
                            _ => u64::from(i % n == 1),
                        })
                        .collect();
                    type Call<'a> = &'a dyn Fn(&mut [u64]) -> gpmp_status;
                    let calls: [Call; 3] = [
                        &|y| unsafe { gpmp_nmod_ntt(y.as_mut_ptr(), n, w, p) },
                        &|y| unsafe { gpmp_nmod_intt(y.as_mut_ptr(), n, w, p) },
                        &|y| unsafe { gpmp_nmod_ntt_many(y.as_mut_ptr(), count, n, w, p) },
                    ];
                    for (c, call) in calls.iter().enumerate() {
                        let x = if c < 2 { &x[..n] } else { &x[..] };
                        let cpu = on(1, x, call);
                        assert_eq!(cpu.0, gpmp_status::GPMP_SUCCESS);
                        assert!(on(2, x, call) == cpu, "GPU: p={p} n={n} count={count} kind={kind} call={c}");
                        assert!(on(0, x, call) == cpu, "AUTO: p={p} n={n} count={count} kind={kind} call={c}");
                    }
                }
            }
        }
        assert_eq!(gpmp_set_backend(RawBackend(0)), gpmp_status::GPMP_SUCCESS);
    }

    /// gpmp_nmod_poly_mul gives the same words on the CPU, GPU and AUTO backends, with h disjoint
    /// and h aliasing f (63-bit non-Fourier and 50-bit Fourier primes, above and below AUTO's rule).
    #[test]
    fn c_api_poly_mul_agrees_on_all_backends() {
        let _g = crate::testing::backend_lock();
        let mut r = rng(11);
        for p in [(1u64 << 63) - 25, fourier_primes(50, 30, 1)[0]] {
            for (fl, gl) in [(3usize, 2usize), (300, 200), (40_000, 30_000)] {
                let f: Vec<u64> = (0..fl).map(|i| if i % 7 == 0 { p - 1 } else { r() % p }).collect();
                let g: Vec<u64> = (0..gl).map(|_| r() % p).collect();
                let hlen = fl + gl - 1;
                let run = |b: i32| -> (Vec<u64>, Vec<u64>) {
                    assert_eq!(gpmp_set_backend(RawBackend(b)), gpmp_status::GPMP_SUCCESS);
                    let mut h = vec![0u64; hlen];
                    let s = unsafe { gpmp_nmod_poly_mul(h.as_mut_ptr(), f.as_ptr(), fl, g.as_ptr(), gl, p) };
                    assert_eq!(s, gpmp_status::GPMP_SUCCESS, "backend {b}");
                    let mut a = f.clone();
                    a.resize(hlen, 0);
                    let s = unsafe { gpmp_nmod_poly_mul(a.as_mut_ptr(), a.as_ptr(), fl, g.as_ptr(), gl, p) };
                    assert_eq!(s, gpmp_status::GPMP_SUCCESS, "aliased, backend {b}");
                    (h, a)
                };
                let cpu = run(1);
                assert_eq!(cpu.0, cpu.1);
                assert!(run(2) == cpu, "GPU: p={p} {fl} x {gl}");
                assert!(run(0) == cpu, "AUTO: p={p} {fl} x {gl}");
            }
        }
        assert_eq!(gpmp_set_backend(RawBackend(0)), gpmp_status::GPMP_SUCCESS);
    }

    /// On the GPU backend, bad input is rejected as on the CPU and leaves x untouched.
    #[test]
    fn c_api_rejects_bad_input_on_the_gpu() {
        let _g = crate::testing::backend_lock();
        let p = fourier_primes(62, 30, 1)[0];
        let n = 1 << 14;
        let w = primitive_root_of_unity(n as u64, p).unwrap();
        let mut x: Vec<u64> = (0..n as u64).collect();
        x[77] = p;
        for b in [1, 2] {
            let (s, y) = on(b, &x, |y| unsafe { gpmp_nmod_ntt(y.as_mut_ptr(), n, w, p) });
            assert_eq!(s, gpmp_status::GPMP_INVALID_ARGUMENT, "backend {b}");
            assert!(y == x);
            let (s, _) = on(b, &x[..n / 2], |y| unsafe { gpmp_nmod_ntt(y.as_mut_ptr(), n / 2, w, p) });
            assert_eq!(s, gpmp_status::GPMP_INVALID_ARGUMENT, "w of the wrong order, backend {b}");
        }
        assert_eq!(gpmp_set_backend(RawBackend(0)), gpmp_status::GPMP_SUCCESS);
    }
}
