//! `gpmp_mpz_mod_primes`, `gpmp_crt`, `gpmp_poly_mul_primes`: the multi-modular representation as
//! separate phases (reduce modulo word-size primes, recombine by the Chinese remainder theorem, the
//! primes of a Z\[x\] product), so that a distributed driver can spread a product over processes.
//! The primes are distinct odd primes below 2^63; residues are `uint64_t` in [0, p), prime-major:
//! residues\[j·n + i\] belongs to element i and prime j.
use super::gpmp_status;
use super::mpz::{check_slots, mpz_ptr, mpz_srcptr, mpz_t, recycle_views, write_slab, MpzIn, MpzOut};
use super::nmod::{slice_in, slice_out};
use super::status::guard;
use crate::ops::crt;
use crate::{invalid, runtime, Error, Result};
use std::ffi::c_int;

/// k·n, or `SizeTooLarge`.
fn words(k: usize, n: usize) -> Result<usize> {
    k.checked_mul(n).ok_or_else(|| Error::SizeTooLarge(format!("k·n = {k}·{n} residues")))
}

/// The body of `gpmp_mpz_mod_primes` and its `_ptr` twin.
unsafe fn mod_primes(name: &str, residues: *mut u64, a: MpzIn, n: usize, primes: *const u64, k: usize) -> gpmp_status {
    guard(name, || {
        let primes = slice_in(primes, k, "primes")?;
        let out = slice_out(residues, words(k, n)?, "residues")?;
        let views = a.views(n, "a")?;
        runtime::install(|| crt::mod_primes_into(&views, primes, out))?;
        recycle_views(views);
        Ok(())
    })
}

/// residues\[j·n + i\] = a\[i\] mod primes\[j\] in [0, primes\[j\]) for i < n, j < k (a\[i\] of any
/// sign and size). primes: k distinct odd primes below 2^63, else `GPMP_INVALID_ARGUMENT` and
/// nothing written. Nothing is written when k or n is 0. CPU (gpmp's worker threads, over primes and
/// blocks of elements); no GMP memory function is called.
///
/// # Safety
/// residues holds k·n `uint64_t`, a n initialised `mpz_t`, primes k `uint64_t` (each may be NULL
/// when its length is 0).
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mod_primes(residues: *mut u64, a: *const mpz_t, n: usize, primes: *const u64, k: usize) -> gpmp_status {
    mod_primes("gpmp_mpz_mod_primes", residues, MpzIn::Array(a), n, primes, k)
}

/// `gpmp_mpz_mod_primes` over an array of pointers.
///
/// # Safety
/// As `gpmp_mpz_mod_primes`, a holding n pointers to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_mpz_mod_primes_ptr(
    residues: *mut u64,
    a: *const mpz_srcptr,
    n: usize,
    primes: *const u64,
    k: usize,
) -> gpmp_status {
    mod_primes("gpmp_mpz_mod_primes_ptr", residues, MpzIn::Ptrs(a), n, primes, k)
}

/// The body of `gpmp_crt` and its `_ptr` twin.
unsafe fn crt_into(name: &str, r: MpzOut, residues: *const u64, n: usize, primes: *const u64, k: usize, is_signed: c_int) -> gpmp_status {
    guard(name, || {
        let primes = slice_in(primes, k, "primes")?;
        let res = slice_in(residues, words(k, n)?, "residues")?;
        let out = r.slots();
        check_slots(n, "r", &out)?;
        let x = runtime::install(|| crt::crt(res, n, primes, is_signed != 0))?;
        write_slab(&x, out)
    })
}

/// r\[i\] = the integer congruent to residues\[j·n + i\] modulo primes\[j\] for every j < k, in the
/// symmetric range (−M/2, M/2) when is_signed ≠ 0, else in [0, M), M = Π primes\[j\] (Garner's
/// mixed radix); with k = 0 (M = 1) every r\[i\] is 0. primes: k distinct odd primes below 2^63;
/// every residues\[j·n + i\] < primes\[j\]; else `GPMP_INVALID_ARGUMENT` and nothing written.
/// `GPMP_OUT_OF_MEMORY` when the constants (k²/2 words) and the result exceed the memory limit.
/// CPU (gpmp's worker threads, blocks of elements); outputs grown on the calling thread.
///
/// # Safety
/// r holds n initialised `mpz_t`, residues k·n `uint64_t`, primes k `uint64_t` (each may be NULL
/// when its length is 0).
#[no_mangle]
pub unsafe extern "C" fn gpmp_crt(
    r: *mut mpz_t,
    residues: *const u64,
    n: usize,
    primes: *const u64,
    k: usize,
    is_signed: c_int,
) -> gpmp_status {
    crt_into("gpmp_crt", MpzOut::Array(r), residues, n, primes, k, is_signed)
}

/// `gpmp_crt` into an array of pointers (distinct r\[i\]).
///
/// # Safety
/// As `gpmp_crt`, r holding n pointers to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_crt_ptr(
    r: *mut mpz_ptr,
    residues: *const u64,
    n: usize,
    primes: *const u64,
    k: usize,
    is_signed: c_int,
) -> gpmp_status {
    crt_into("gpmp_crt_ptr", MpzOut::Ptrs(r), residues, n, primes, k, is_signed)
}

/// *k = the number of primes gpmp's multi-modular product f·g uses for lengths flen, glen and
/// coefficients |f_i| < 2^fbits, |g_j| < 2^gbits, and primes\[0 .. *k\] = those primes: 50-bit
/// Fourier primes (2^25 divides p − 1) with Π p > 2^(B+1), B = fbits + gbits + ⌈log2 min(flen,
/// glen)⌉, the same on every backend and machine. Then f·g mod each prime (`gpmp_nmod_poly_mul`)
/// and `gpmp_crt` with is_signed ≠ 0 give f·g. *k = 0 when a length or a size is 0. cap = 0 asks
/// for *k only (primes may be NULL); 0 < cap < *k is `GPMP_SIZE_TOO_LARGE` with nothing written.
/// `GPMP_SIZE_TOO_LARGE` when B + 1 > 100 352 (coefficients of about 50 000 bits each; gpmp
/// multiplies Kronecker-packed integers there) or flen + glen is beyond any memory.
///
/// # Safety
/// k points to a writable `size_t`; primes holds cap `uint64_t` (NULL allowed when cap = 0).
#[no_mangle]
pub unsafe extern "C" fn gpmp_poly_mul_primes(
    primes: *mut u64,
    k: *mut usize,
    cap: usize,
    flen: usize,
    fbits: usize,
    glen: usize,
    gbits: usize,
) -> gpmp_status {
    guard("gpmp_poly_mul_primes", || {
        if k.is_null() {
            return invalid!("k is NULL");
        }
        let ps = crt::poly_mul_primes(flen, fbits as u64, glen, gbits as u64)?;
        if cap != 0 {
            if cap < ps.len() {
                return Err(Error::SizeTooLarge(format!("the product needs {} primes, cap is {cap}", ps.len())));
            }
            slice_out(primes, cap, "primes")?[..ps.len()].copy_from_slice(&ps);
        }
        *k = ps.len();
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::prime::fourier_primes;
    use crate::testing::{coef, Mpz, Rng};
    use gmp_mpfr_sys::gmp;
    use gpmp_status::*;

    fn ints(rng: &mut Rng, n: usize, bits: u64) -> Vec<Mpz> {
        (0..n)
            .map(|_| {
                let kind = rng.below(4);
                let (neg, mag) = coef(rng, bits, kind);
                Mpz::from_coef(crate::int::IntRef::new(neg, &mag))
            })
            .collect()
    }

    fn cmp(a: &Mpz, b: &Mpz) -> i32 {
        // SAFETY: initialised.
        unsafe { gmp::mpz_cmp(a.as_ptr(), b.as_ptr()) }
    }

    /// The array and pointer forms agree with each other and round-trip values of the symmetric
    /// range; the pointer form's outputs are scattered in memory.
    #[test]
    fn exports_round_trip_and_twins_agree() {
        let mut rng = Rng(31);
        let primes = fourier_primes(50, 25, 6);
        let k = primes.len();
        for n in [1usize, 2, 50] {
            let a = ints(&mut rng, n, 250);
            let mut res = vec![0u64; k * n];
            let mut res2 = vec![1u64; k * n];
            // SAFETY: sizes as documented.
            unsafe {
                assert_eq!(gpmp_mpz_mod_primes(res.as_mut_ptr(), a.as_ptr().cast(), n, primes.as_ptr(), k), GPMP_SUCCESS);
                let ap: Vec<mpz_srcptr> = a.iter().map(|z| z.as_ptr()).collect();
                assert_eq!(gpmp_mpz_mod_primes_ptr(res2.as_mut_ptr(), ap.as_ptr(), n, primes.as_ptr(), k), GPMP_SUCCESS);
            }
            assert_eq!(res, res2);
            let mut r: Vec<Mpz> = (0..n).map(|_| Mpz::new()).collect();
            let mut store: Vec<Mpz> = (0..n).map(|_| Mpz::new()).collect();
            let rp: Vec<mpz_ptr> = store.iter_mut().rev().map(|z| z.as_mut_ptr()).collect();
            // SAFETY: as above.
            unsafe {
                assert_eq!(gpmp_crt(r.as_mut_ptr().cast(), res.as_ptr(), n, primes.as_ptr(), k, 1), GPMP_SUCCESS);
                assert_eq!(gpmp_crt_ptr(rp.as_ptr() as *mut mpz_ptr, res.as_ptr(), n, primes.as_ptr(), k, 1), GPMP_SUCCESS);
            }
            for i in 0..n {
                assert_eq!(cmp(&r[i], &a[i]), 0, "crt(mod_primes(a)) = a, n = {n}");
                assert_eq!(cmp(&store[n - 1 - i], &a[i]), 0, "the _ptr twin, n = {n}");
            }
            // The unsigned range: a mod M.
            // SAFETY: as above.
            unsafe {
                assert_eq!(gpmp_crt(r.as_mut_ptr().cast(), res.as_ptr(), n, primes.as_ptr(), k, 0), GPMP_SUCCESS);
                let m = Mpz::from_coef(crate::int::IntRef::new(false, &crate::nmod::crt::prime_product(&primes)));
                for i in 0..n {
                    let mut want = Mpz::new();
                    gmp::mpz_fdiv_r(want.as_mut_ptr(), a[i].as_ptr(), m.as_ptr());
                    assert_eq!(cmp(&r[i], &want), 0);
                }
            }
        }
    }

    /// Bad input: the documented status and nothing written.
    #[test]
    fn bad_input_writes_nothing() {
        let a = [Mpz::from_coef(crate::int::IntRef::new(true, &[7]))];
        let mut res = [99u64; 2];
        let mut r = [Mpz::from_coef(crate::int::IntRef::new(false, &[5]))];
        let five = Mpz::from_coef(crate::int::IntRef::new(false, &[5]));
        // SAFETY: sizes as documented, or NULL where the test says so.
        unsafe {
            for bad in [[3u64, 3], [3, 15], [2, 5], [3, 1 << 63]] {
                assert_eq!(gpmp_mpz_mod_primes(res.as_mut_ptr(), a.as_ptr().cast(), 1, bad.as_ptr(), 2), GPMP_INVALID_ARGUMENT);
                assert_eq!(gpmp_crt(r.as_mut_ptr().cast(), [0u64, 0].as_ptr(), 1, bad.as_ptr(), 2, 1), GPMP_INVALID_ARGUMENT);
            }
            assert_eq!(gpmp_mpz_mod_primes(std::ptr::null_mut(), a.as_ptr().cast(), 1, [3u64].as_ptr(), 1), GPMP_INVALID_ARGUMENT);
            assert_eq!(gpmp_mpz_mod_primes(res.as_mut_ptr(), std::ptr::null(), 1, [3u64].as_ptr(), 1), GPMP_INVALID_ARGUMENT);
            assert_eq!(gpmp_crt(r.as_mut_ptr().cast(), [1u64, 5].as_ptr(), 1, [3u64, 5].as_ptr(), 2, 1), GPMP_INVALID_ARGUMENT);
            assert_eq!(gpmp_crt(std::ptr::null_mut(), [1u64, 4].as_ptr(), 1, [3u64, 5].as_ptr(), 2, 1), GPMP_INVALID_ARGUMENT);
            let nulls = [std::ptr::null_mut::<mpz_t>()];
            assert_eq!(
                gpmp_crt_ptr(nulls.as_ptr() as *mut mpz_ptr, [1u64, 4].as_ptr(), 1, [3u64, 5].as_ptr(), 2, 1),
                GPMP_INVALID_ARGUMENT
            );
            // Lengths 0: success, nothing read or written.
            assert_eq!(gpmp_mpz_mod_primes(std::ptr::null_mut(), std::ptr::null(), 0, [3u64].as_ptr(), 1), GPMP_SUCCESS);
            assert_eq!(gpmp_mpz_mod_primes(std::ptr::null_mut(), a.as_ptr().cast(), 1, std::ptr::null(), 0), GPMP_SUCCESS);
            assert_eq!(gpmp_crt(std::ptr::null_mut(), std::ptr::null(), 0, [3u64].as_ptr(), 1, 0), GPMP_SUCCESS);
        }
        assert_eq!(res, [99, 99]);
        assert_eq!(cmp(&r[0], &five), 0);
        // k = 0: r = 0.
        // SAFETY: as above.
        unsafe { assert_eq!(gpmp_crt(r.as_mut_ptr().cast(), std::ptr::null(), 1, std::ptr::null(), 0, 1), GPMP_SUCCESS) };
        assert_eq!(cmp(&r[0], &Mpz::new()), 0);
    }

    #[test]
    fn poly_mul_primes_query_and_cap() {
        let mut k = 77usize;
        let mut ps = [0u64; 8];
        // SAFETY: k and ps writable, cap as given.
        unsafe {
            assert_eq!(gpmp_poly_mul_primes(std::ptr::null_mut(), &mut k, 0, 1000, 1024, 1000, 1024), GPMP_SUCCESS);
            let want = crt::poly_mul_primes(1000, 1024, 1000, 1024).unwrap();
            assert_eq!(k, want.len());
            let mut k2 = 77usize;
            assert_eq!(gpmp_poly_mul_primes(ps.as_mut_ptr(), &mut k2, 8, 1000, 1024, 1000, 1024), GPMP_SIZE_TOO_LARGE);
            assert_eq!((k2, ps), (77, [0; 8]), "nothing written");
            let mut big = vec![0u64; 64];
            assert_eq!(gpmp_poly_mul_primes(big.as_mut_ptr(), &mut k2, 64, 1000, 1024, 1000, 1024), GPMP_SUCCESS);
            assert_eq!(&big[..k2], &want[..]);
            assert!(big[k2..].iter().all(|&p| p == 0));
            assert_eq!(gpmp_poly_mul_primes(ps.as_mut_ptr(), &mut k2, 8, 0, 1024, 10, 1024), GPMP_SUCCESS);
            assert_eq!(k2, 0);
            assert_eq!(gpmp_poly_mul_primes(ps.as_mut_ptr(), std::ptr::null_mut(), 8, 1, 1, 1, 1), GPMP_INVALID_ARGUMENT);
            assert_eq!(gpmp_poly_mul_primes(ps.as_mut_ptr(), &mut k2, 8, 1, 1 << 20, 1, 1), GPMP_SIZE_TOO_LARGE);
        }
    }
}
