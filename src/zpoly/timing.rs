//! Release-mode timings of the small-prime NTT product and the NTT integer product (ignored test:
//! `cargo test --release --lib -- --ignored --nocapture timing`; env GPMP_TIMING_THREADS, default 1).
//! Speed is reported, never asserted; the committed harness is `bench/`.
use crate::runtime;
use crate::testing::{poly, views, Rng};
use std::time::Instant;

/// CPU seconds of the calling thread (on a loaded machine a 1-thread run is timed by CPU time).
fn thread_cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: t is a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Minimum over repetitions (about 0.3 s in total, at least 2 runs) of `f`, in ms: thread CPU
/// time with one worker thread, wall time otherwise.
fn time_ms(mut f: impl FnMut()) -> f64 {
    let cpu = runtime::num_threads() == 1;
    let clock = || if cpu { thread_cpu() } else { Instant::now().duration_since(*EPOCH).as_secs_f64() };
    let mut best = f64::MAX;
    let start = Instant::now();
    let mut runs = 0;
    while runs < 2 || (start.elapsed().as_secs_f64() < 0.3 && runs < 50) {
        let t = clock();
        f();
        best = best.min((clock() - t) * 1e3);
        runs += 1;
    }
    best
}

static EPOCH: std::sync::LazyLock<Instant> = std::sync::LazyLock::new(Instant::now);

#[test]
#[ignore]
fn timing() {
    let threads = std::env::var("GPMP_TIMING_THREADS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    runtime::set_num_threads(threads).unwrap();
    let only = std::env::var("GPMP_TIMING_ONLY").unwrap_or_default();
    let mut rng = Rng(1);
    let grid: [(usize, usize, u64); 8] = [
        (1 << 10, 1 << 10, 64),
        (1 << 14, 1 << 14, 64),
        (1 << 17, 1 << 17, 64),
        (1 << 20, 1 << 20, 64),
        (1 << 12, 1 << 12, 1024),
        (1 << 16, 1 << 16, 256),
        (1 << 10, 1 << 10, 16384),
        (1 << 20, 16, 64),
    ];
    if only.is_empty() || only == "poly" {
        let sel: Option<usize> = std::env::var("GPMP_TIMING_CASE").ok().and_then(|s| s.parse().ok());
        for (c, (fl, gl, bits)) in grid.into_iter().enumerate() {
            if sel.is_some_and(|s| s != c) {
                continue;
            }
            let f = poly(&mut rng, fl, bits, 1);
            let g = poly(&mut rng, gl, bits, 1);
            let (fv, gv) = (views(&f), views(&g));
            let ms = runtime::install(|| time_ms(|| drop(super::small_prime_ntt::mul(&fv, &gv).unwrap())));
            println!("poly {fl} x {gl}, {bits} bits, {threads} thr: small_prime_ntt {ms:.3} ms");
        }
    }
    if only.is_empty() || only == "int" {
        let sizes: Vec<u64> = match std::env::var("GPMP_TIMING_INT_BITS") {
            Ok(v) => v.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
            Err(_) => vec![1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26],
        };
        for bits in sizes {
            let n = (bits / 128) as usize;
            let a: Vec<u64> = (0..n).map(|_| rng.next()).collect();
            let b: Vec<u64> = (0..n).map(|_| rng.next()).collect();
            let mut r = vec![0u64; 2 * n];
            let ntt = runtime::install(|| time_ms(|| crate::int::ntt_mul(&a, &b, &mut r).unwrap()));
            let gmp = if bits <= 1 << 24 {
                time_ms(|| unsafe {
                    gmp_mpfr_sys::gmp::mpn_mul(r.as_mut_ptr(), a.as_ptr(), n as _, b.as_ptr(), n as _);
                })
            } else {
                f64::NAN
            };
            println!("int {bits}-bit product ({n} x {n} limbs), {threads} thr: ntt {ntt:.3} ms, gmp {gmp:.3} ms");
        }
    }
}

#[test]
#[ignore]
fn timing_phases() {
    use crate::nmod::convolution::convolve;
    use crate::nmod::reduce::Modulus;
    runtime::set_num_threads(1).unwrap();
    let mut rng = Rng(2);
    for n in [1usize << 13, 1 << 17] {
        let a: Vec<u64> = (0..n).map(|_| rng.next()).collect();
        let fill = |_: usize, m: &Modulus, first: usize, out: &mut [u64]| {
            for (o, &x) in out.iter_mut().zip(&a[first..]) {
                *o = m.reduce(x);
            }
        };
        runtime::install(|| {
            let conv = time_ms(|| drop(convolve(150, n, &fill, n, Some(&fill)).unwrap()));
            let res = convolve(150, n, &fill, n, Some(&fill)).unwrap();
            let crt = res.crt();
            let mut rows = vec![0u64; res.len * crt.limbs()];
            let c = time_ms(|| crt.unsigned_into(&res.data, res.stride, &mut rows));
            let (k, w) = (crt.len(), crt.limbs());
            let plain = time_ms(|| {
                let (mut r, mut v) = (vec![0u64; k], vec![0u64; k]);
                for (m, row) in rows.chunks_mut(w).enumerate() {
                    for (i, ri) in r.iter_mut().enumerate() {
                        *ri = res.data[i * res.stride + m];
                    }
                    crt.unsigned(&r, &mut v, row);
                }
            });
            let z = time_ms(|| drop(crate::int::try_zeroed::<u64>(6 * n).unwrap()));
            println!("n {n}: convolve {conv:.3} ms, crt {c:.3} ms (plain loop {plain:.3}), zeroed alloc 6n {z:.3} ms");
        });
    }
}

#[test]
#[ignore]
fn timing_plan() {
    for lg in [12, 15, 18, 21] {
        let p = crate::nmod::convolution::primes_for(100, 1 << lg).unwrap()[0];
        let t = thread_cpu();
        let pl = tfhe_ntt::prime64::Plan::try_new(1 << lg, p).unwrap();
        println!("plan 2^{lg}: {:.3} ms (ifma {})", (thread_cpu() - t) * 1e3, pl.use_ifma());
    }
}
