//! Wall-clock times of the Z[x] algorithms on a few sizes (printed, never asserted):
//! `cargo test --release --test zpoly_timings -- --ignored --nocapture`.
use gpmp::int::IntRef;
use gpmp::zpoly::{mul, Alg};
use std::time::Instant;

/// `len` random signed coefficients of `bits` bits (splitmix64).
fn poly(seed: u64, len: usize, bits: u64) -> Vec<(bool, Vec<u64>)> {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..len)
        .map(|_| {
            let mut m: Vec<u64> = (0..bits.div_ceil(64)).map(|_| next()).collect();
            if bits % 64 != 0 {
                *m.last_mut().unwrap() &= (1 << (bits % 64)) - 1;
            }
            (next() & 1 == 1, m)
        })
        .collect()
}

/// Seconds of CPU time used by the process (all threads).
fn cpu_time() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// (best wall time, best CPU time) of `reps` runs of `f`, in ms.
fn time(reps: usize, mut f: impl FnMut()) -> (f64, f64) {
    (0..reps)
        .map(|_| {
            let (t, c) = (Instant::now(), cpu_time());
            f();
            (t.elapsed().as_secs_f64() * 1e3, (cpu_time() - c) * 1e3)
        })
        .fold((f64::INFINITY, f64::INFINITY), |(a, b), (x, y)| (a.min(x), b.min(y)))
}

#[test]
#[ignore]
fn zpoly_timings() {
    let algs = [Alg::Kronecker, Alg::DivideConquer, Alg::Toom4, Alg::Toom8];
    for &(k, bits) in &[(10u32, 64u64), (14, 64), (12, 1024)] {
        let n = 1usize << k;
        let (f, g) = (poly(1, n, bits), poly(2, n, bits));
        let fv: Vec<IntRef> = f.iter().map(|(s, m)| IntRef::new(*s, m)).collect();
        let gv: Vec<IntRef> = g.iter().map(|(s, m)| IntRef::new(*s, m)).collect();
        let reps = if k <= 14 { 10 } else { 3 };
        let threads = rayon::current_num_threads();
        for alg in algs {
            let (wall, cpu) = time(reps, || {
                std::hint::black_box(mul(&fv, &gv, alg).unwrap());
            });
            println!("len 2^{k}, {bits} bits, {alg:?}: {wall:.3} ms wall, {cpu:.3} ms cpu ({threads} threads)");
        }
        // The big-integer product alone, at the size Kronecker substitution multiplies.
        let b = 2 * bits + k as u64 + 1;
        let limbs = (b as usize * n).div_ceil(64);
        let x: Vec<u64> = poly(3, limbs, 64).into_iter().map(|(_, m)| m[0]).collect();
        let y: Vec<u64> = poly(4, limbs, 64).into_iter().map(|(_, m)| m[0]).collect();
        let (wall, cpu) = time(reps, || {
            std::hint::black_box(gpmp::int::mul_mag(&x, &y).unwrap());
        });
        println!("len 2^{k}, {bits} bits, mul_mag {limbs} x {limbs} limbs: {wall:.3} ms wall, {cpu:.3} ms cpu");
        let (wall, cpu) = time(reps, || {
            std::hint::black_box(gpmp::int::pack_signed(&fv, b).unwrap());
        });
        println!("len 2^{k}, {bits} bits, pack f: {wall:.3} ms wall, {cpu:.3} ms cpu");
        let mut xy = x.clone();
        xy.extend_from_slice(&y);
        let mut h = gpmp::int::ZSlab::zeros(2 * n - 1, (b as usize - 1).div_ceil(64)).unwrap();
        let (wall, cpu) = time(reps, || gpmp::int::unpack_signed(&mut h, &xy, false, b));
        println!("len 2^{k}, {bits} bits, unpack h: {wall:.3} ms wall, {cpu:.3} ms cpu");
    }
}
