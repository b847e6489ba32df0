//! 32 host threads call gpmp at once for a bounded time (`GPMP_STRESS_SECONDS`, default 6): each
//! a random mix of exports (batched mpz operations and their `_ptr` twins, Z\[x\] products by every
//! algorithm, single products, word-size NTT products, zvecs), sizes and aliasing, while some of
//! them change the worker-thread count and the backend meanwhile. Every result is checked against
//! GMP or a schoolbook oracle. With `--features gpu-tests` the backend flips include the GPU.
use gmp_mpfr_sys::gmp;
use gpmp::ffi::mpz::{mpz_ptr, mpz_t};
use gpmp::ffi::mpz_n::*;
use gpmp::ffi::nmod::{gpmp_nmod_fourier_prime, gpmp_nmod_poly_mul};
use gpmp::ffi::poly::{gpmp_poly_mul_alg, gpmp_poly_mul_ptr, RawMulAlg};
use gpmp::ffi::runtime::{gpmp_set_backend, gpmp_set_num_threads, RawBackend};
use gpmp::ffi::status::gpmp_status;
use gpmp::ffi::zvec::*;
use gpmp::int::{IntRef, Mpz};
use gpmp::testing::{coef, Rng};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const THREADS: usize = 32;

fn ints(rng: &mut Rng, n: usize, bits: u64) -> Vec<Mpz> {
    (0..n)
        .map(|_| {
            let kind = rng.below(5);
            let (neg, mag) = coef(rng, bits, kind);
            Mpz::from_coef(IntRef::new(neg, &mag))
        })
        .collect()
}

fn eq(a: &Mpz, b: &Mpz) -> bool {
    // SAFETY: initialised.
    unsafe { gmp::mpz_cmp(a.as_ptr(), b.as_ptr()) == 0 }
}

fn ok(st: gpmp_status, what: &str) {
    assert_eq!(st, gpmp_status::GPMP_SUCCESS, "{what}");
}

/// One random element-wise call (array or pointer form), checked element by element.
fn batched(rng: &mut Rng) {
    let n = 1 + rng.below(200) as usize;
    let bits = 1 + rng.below(700);
    let a = ints(rng, n, bits);
    let mut b = ints(rng, n, bits);
    let mut m = Mpz::new();
    // SAFETY: initialised integers throughout; arrays of n.
    unsafe {
        gmp::mpz_set_ui(m.as_mut_ptr(), 1);
        gmp::mpz_mul_2exp(m.as_mut_ptr(), m.as_ptr(), (bits + 12) as _);
        gmp::mpz_sub_ui(m.as_mut_ptr(), m.as_ptr(), 1 + 2 * rng.below(1000));
        let op = rng.below(6);
        if op == 5 {
            b.iter_mut().for_each(|e| {
                gmp::mpz_abs(e.as_mut_ptr(), e.as_ptr());
                gmp::mpz_fdiv_r_2exp(e.as_mut_ptr(), e.as_ptr(), 40);
            });
        }
        let mut want: Vec<Mpz> = (0..n).map(|_| Mpz::new()).collect();
        for i in 0..n {
            let (r, x, y) = (want[i].as_mut_ptr(), a[i].as_ptr(), b[i].as_ptr());
            match op {
                0 => gmp::mpz_add(r, x, y),
                1 => gmp::mpz_sub(r, x, y),
                2 => gmp::mpz_mul(r, x, y),
                3 => {
                    gmp::mpz_mul(r, x, y);
                    gmp::mpz_mod(r, r, m.as_ptr())
                }
                4 => {
                    gmp::mpz_add(r, x, y);
                    gmp::mpz_mod(r, r, m.as_ptr())
                }
                _ => gmp::mpz_powm(r, x, y, m.as_ptr()),
            }
        }
        // r aliases a in one case out of three.
        let alias = rng.below(3) == 0;
        let mut r: Vec<Mpz> = if alias {
            a.iter().map(|z| Mpz::from_coef(IntRef::new(z.neg(), z.mag()))).collect()
        } else {
            (0..n).map(|_| Mpz::new()).collect()
        };
        let (ra, pa, pb) = (r.as_mut_ptr().cast::<mpz_t>(), a.as_ptr().cast::<mpz_t>(), b.as_ptr().cast::<mpz_t>());
        let pa = if alias { ra as *const mpz_t } else { pa };
        let st = if rng.below(2) == 0 {
            match op {
                0 => gpmp_mpz_add_n(ra, pa, pb, n),
                1 => gpmp_mpz_sub_n(ra, pa, pb, n),
                2 => gpmp_mpz_mul_n(ra, pa, pb, n),
                3 => gpmp_mpz_mulmod_n(ra, pa, pb, m.as_ptr(), n),
                4 => gpmp_mpz_addmod_n(ra, pa, pb, m.as_ptr(), n),
                _ => gpmp_mpz_powm_n(ra, pa, pb, m.as_ptr(), n),
            }
        } else {
            let mut rp: Vec<mpz_ptr> = (0..n).map(|i| ra.add(i)).collect();
            let ap: Vec<*const mpz_t> = (0..n).map(|i| pa.add(i)).collect();
            let bp: Vec<*const mpz_t> = (0..n).map(|i| pb.add(i)).collect();
            let (rp, ap, bp) = (rp.as_mut_ptr(), ap.as_ptr(), bp.as_ptr());
            match op {
                0 => gpmp_mpz_add_n_ptr(rp, ap, bp, n),
                1 => gpmp_mpz_sub_n_ptr(rp, ap, bp, n),
                2 => gpmp_mpz_mul_n_ptr(rp, ap, bp, n),
                3 => gpmp_mpz_mulmod_n_ptr(rp, ap, bp, m.as_ptr(), n),
                4 => gpmp_mpz_addmod_n_ptr(rp, ap, bp, m.as_ptr(), n),
                _ => gpmp_mpz_powm_n_ptr(rp, ap, bp, m.as_ptr(), n),
            }
        };
        ok(st, &format!("batched op {op}, n {n}, {bits} bits"));
        assert!(r.iter().zip(&want).all(|(x, y)| eq(x, y)), "batched op {op}, n {n}, {bits} bits, alias {alias}");
    }
}

/// One Z\[x\] product by a random algorithm (or AUTO, or the pointer form), against the oracle.
fn poly(rng: &mut Rng) {
    let (flen, glen) = (1 + rng.below(80) as usize, 1 + rng.below(80) as usize);
    let bits = 1 + rng.below(400);
    let (f, g) = (ints(rng, flen, bits), ints(rng, glen, bits));
    let hlen = flen + glen - 1;
    let mut want: Vec<Mpz> = (0..hlen).map(|_| Mpz::new()).collect();
    let mut h: Vec<Mpz> = (0..hlen).map(|_| Mpz::new()).collect();
    let alg = rng.below(9) as i32;
    // SAFETY: arrays of the stated lengths.
    unsafe {
        for i in 0..flen {
            for j in 0..glen {
                gmp::mpz_addmul(want[i + j].as_mut_ptr(), f[i].as_ptr(), g[j].as_ptr());
            }
        }
        let st = if rng.below(4) == 0 {
            let mut hp: Vec<mpz_ptr> = h.iter_mut().map(|z| z.as_mut_ptr()).collect();
            let fp: Vec<*const mpz_t> = f.iter().map(|z| z.as_ptr()).collect();
            let gp: Vec<*const mpz_t> = g.iter().map(|z| z.as_ptr()).collect();
            gpmp_poly_mul_ptr(hp.as_mut_ptr(), fp.as_ptr(), flen, gp.as_ptr(), glen)
        } else {
            gpmp_poly_mul_alg(h.as_mut_ptr().cast(), f.as_ptr().cast(), flen, g.as_ptr().cast(), glen, RawMulAlg(alg))
        };
        ok(st, &format!("poly_mul alg {alg}, {flen} x {glen}, {bits} bits"));
    }
    assert!(h.iter().zip(&want).all(|(x, y)| eq(x, y)), "poly_mul alg {alg}, {flen} x {glen}, {bits} bits");
}

/// One product of two large integers against GMP.
fn single(rng: &mut Rng) {
    let bits = 1000 + rng.below(300_000);
    let short = bits / (1 + rng.below(4));
    let (a, b) = (ints(rng, 1, bits), ints(rng, 1, short));
    let (mut r, mut want) = (Mpz::new(), Mpz::new());
    // SAFETY: initialised integers.
    unsafe {
        gmp::mpz_mul(want.as_mut_ptr(), a[0].as_ptr(), b[0].as_ptr());
        ok(gpmp::ffi::mpz_n::gpmp_mpz_mul(r.as_mut_ptr(), a[0].as_ptr(), b[0].as_ptr()), "mpz_mul");
    }
    assert!(eq(&r, &want), "mpz_mul of {bits} bits");
}

/// A word-size NTT product modulo a Fourier prime against the naive product.
fn nmod(rng: &mut Rng) {
    let mut p = 0u64;
    // SAFETY: p is a valid output.
    ok(unsafe { gpmp_nmod_fourier_prime(if rng.below(2) == 0 { 62 } else { 31 }, rng.below(3) as usize, &mut p) }, "fourier prime");
    let (flen, glen) = (1 + rng.below(300) as usize, 1 + rng.below(300) as usize);
    let f: Vec<u64> = (0..flen).map(|_| rng.below(p)).collect();
    let g: Vec<u64> = (0..glen).map(|_| if rng.below(8) == 0 { p - 1 } else { rng.below(p) }).collect();
    let mut want = vec![0u64; flen + glen - 1];
    for i in 0..flen {
        for j in 0..glen {
            want[i + j] = ((want[i + j] as u128 + f[i] as u128 * g[j] as u128) % p as u128) as u64;
        }
    }
    let mut h = vec![0u64; flen + glen - 1];
    // SAFETY: arrays of the stated lengths.
    ok(unsafe { gpmp_nmod_poly_mul(h.as_mut_ptr(), f.as_ptr(), flen, g.as_ptr(), glen, p) }, "nmod_poly_mul");
    assert_eq!(h, want, "nmod_poly_mul {flen} x {glen} mod {p}");
}

/// A zvec product round trip against GMP.
fn zvec(rng: &mut Rng) {
    let n = 1 + rng.below(100) as usize;
    let bits = 64 * (1 + rng.below(8));
    let (a, b) = (ints(rng, n, bits / 2), ints(rng, n, bits / 2));
    // SAFETY: zvecs of n integers of `bits` bits; arrays of n.
    unsafe {
        let half = (bits / 2) as usize;
        let (va, vb, vr) = (gpmp_zvec_new(n, half), gpmp_zvec_new(n, half), gpmp_zvec_new(n, bits as usize));
        assert!(!va.is_null() && !vb.is_null() && !vr.is_null());
        ok(gpmp_zvec_set_mpz(va, a.as_ptr().cast(), n), "zvec_set_mpz");
        let bp: Vec<*const mpz_t> = b.iter().map(|z| z.as_ptr()).collect();
        ok(gpmp_zvec_set_mpz_ptr(vb, bp.as_ptr(), n), "zvec_set_mpz_ptr");
        ok(gpmp_zvec_mul(vr, va, vb), "zvec_mul");
        let mut r: Vec<Mpz> = (0..n).map(|_| Mpz::new()).collect();
        ok(gpmp_zvec_get_mpz(r.as_mut_ptr().cast(), vr, n), "zvec_get_mpz");
        for i in 0..n {
            let mut w = Mpz::new();
            gmp::mpz_mul(w.as_mut_ptr(), a[i].as_ptr(), b[i].as_ptr());
            assert!(eq(&r[i], &w), "zvec_mul element {i}");
        }
        for v in [va, vb, vr] {
            gpmp_zvec_free(v);
        }
    }
}

#[test]
fn thirty_two_threads_of_random_calls() {
    let secs: u64 = std::env::var("GPMP_STRESS_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(6);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let calls = AtomicU64::new(0);
    let gpu = cfg!(feature = "gpu-tests");
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let calls = &calls;
            s.spawn(move || {
                let mut rng = Rng(0x5eed ^ (t as u64).wrapping_mul(0x9e37_79b9));
                while Instant::now() < deadline {
                    match rng.below(20) {
                        0..=5 => batched(&mut rng),
                        6..=10 => poly(&mut rng),
                        11..=12 => single(&mut rng),
                        13..=15 => nmod(&mut rng),
                        16..=17 => zvec(&mut rng),
                        18 => ok(gpmp_set_num_threads(1 + rng.below(4) as i32), "set_num_threads"),
                        _ => {
                            let b = if gpu { rng.below(3) } else { rng.below(2) };
                            ok(gpmp_set_backend(RawBackend(b as i32)), "set_backend");
                        }
                    }
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(gpmp_set_backend(RawBackend(0)), gpmp_status::GPMP_SUCCESS);
    println!("{THREADS} threads, {secs} s: {} calls checked", calls.load(Ordering::Relaxed));
    assert!(calls.load(Ordering::Relaxed) >= THREADS as u64);
}
