//! Every GPU of a host: end-to-end times from host memory to host memory on 1, 2, 4 devices (and the
//! host's count), the device set set with `gpmp_set_cuda_devices`' entry (`device::set_devices`):
//! - the Z\[x\] product 2^L × 2^L with 1024-bit coefficients (`gpu::zpoly_mul::mul_host`: the path of
//!   `gpmp_poly_mul` up to the product in host memory; staging, uploads, transforms, regrouping,
//!   CRT, downloads);
//! - `powm_n` of 2^N elements, 1024-bit odd modulus, bases and exponents (`ops::int::powm_n` under
//!   the GPU backend: the path of `gpmp_mpz_powm_n` up to the results in host memory).
//!
//! Median of 5 after a warm-up run per device count; every multi-device result is checked against
//! the one-device result (a checksum of every limb and sign). Speedup: one device's time / this one.
//!   usage: gpu_multi [L [N]]   (default 22 20; e.g. `gpu_multi 18 16` for a quick run)
use gpmp::gpu::{device, zpoly_mul};
use gpmp::int::{max_bits, product_bits, IntRef, ZList};
use gpmp::ops::int::powm_n;
use gpmp::runtime::{self, Backend};
use gpmp::testing::Rng;
use rayon::prelude::*;

#[path = "common.rs"]
mod common;
use common::median_ms;

const REPS: usize = 5;
const BITS: u64 = 1024;

/// n random full-size 1024-bit magnitudes (top bit set), signs random when `signed`.
fn random(rng: &mut Rng, n: usize, signed: bool) -> (Vec<u64>, Vec<bool>) {
    let l = (BITS / 64) as usize;
    let mut mag: Vec<u64> = (0..n * l).map(|_| rng.next()).collect();
    mag.chunks_mut(l).for_each(|c| c[l - 1] |= 1 << 63);
    (mag, (0..n).map(|_| signed && rng.next() & 1 == 1).collect())
}

fn views<'a>(x: &'a (Vec<u64>, Vec<bool>)) -> Vec<IntRef<'a>> {
    x.0.chunks((BITS / 64) as usize).zip(&x.1).map(|(m, &s)| IntRef::new(s, m)).collect()
}

/// A checksum of magnitudes and signs (position-dependent).
fn checksum(mags: &[u64], signs: impl IndexedParallelIterator<Item = bool>) -> u64 {
    let h = |i: usize, w: u64| (w ^ i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17);
    let m = mags.par_iter().enumerate().map(|(i, &w)| h(i, w)).reduce(|| 0, u64::wrapping_add);
    let s = signs.enumerate().map(|(i, s)| h(i, u64::from(s) + 7)).reduce(|| 0, u64::wrapping_add);
    m ^ s.rotate_left(31)
}

fn list_sum(r: &ZList) -> u64 {
    let v = r.views();
    let mags: Vec<u64> = v.iter().flat_map(|x| x.mag.iter().copied().chain([x.mag.len() as u64])).collect();
    checksum(&mags, v.par_iter().map(|x| x.neg))
}

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let (logl, logn) = (args.first().copied().unwrap_or(22), args.get(1).copied().unwrap_or(20));
    let count = device::device_count();
    if count == 0 {
        eprintln!("no GPU: gpu_multi needs at least one CUDA device");
        std::process::exit(2);
    }
    let mut counts: Vec<usize> = [1, 2, 4].into_iter().filter(|&d| d <= count).collect();
    if !counts.contains(&count) {
        counts.push(count);
    }
    let names: Vec<String> = (0..count as i64).map(|d| device::name(d).unwrap_or_default()).collect();
    println!("devices: {count} ({}); host threads: {}", names.join(", "), runtime::num_threads());
    runtime::set_backend(Backend::Gpu).unwrap();
    let mut rng = Rng(42);

    // The product 2^L x 2^L, 1024-bit coefficients.
    let len = 1usize << logl;
    let (fo, go) = (random(&mut rng, len, true), random(&mut rng, len, true));
    let (f, g) = (views(&fo), views(&go));
    let bits = product_bits(max_bits(&f), max_bits(&g), len, len);
    let k = zpoly_mul::primes_for(bits + 1).map(|p| p.len()).unwrap_or(0);
    let mut poly = Vec::new();
    for &d in &counts {
        device::set_devices(&(0..d as i64).collect::<Vec<_>>()).unwrap();
        let run = || runtime::install(|| zpoly_mul::mul_host(&f, &g, bits)).unwrap();
        let mut h = run();
        let sum = {
            let (m, s) = h.parts().unwrap();
            checksum(m, s.par_iter().map(|&b| b != 0))
        };
        drop(h);
        let ms = median_ms(REPS, || drop(run()));
        poly.push((d, ms, sum));
    }

    // powm_n: 2^N elements, 1024-bit modulus, bases and exponents.
    let n = 1usize << logn;
    let (bo, eo) = (random(&mut rng, n, true), random(&mut rng, n, false));
    let mut m = random(&mut rng, 1, false).0;
    m[0] |= 1;
    let (b, e, mv) = (views(&bo), views(&eo), IntRef::new(false, &m));
    let mut pow = Vec::new();
    for &d in &counts {
        device::set_devices(&(0..d as i64).collect::<Vec<_>>()).unwrap();
        let run = || runtime::install(|| powm_n(&b, &e, mv)).unwrap();
        let sum = list_sum(&run());
        let ms = median_ms(REPS, || drop(run()));
        pow.push((d, ms, sum));
    }

    println!("\n| operation | devices | ms (median of {REPS}) | speedup vs 1 | same result as 1 |");
    println!("|---|---|---|---|---|");
    let mut ok = true;
    for (what, rows) in
        [(format!("poly_mul 2^{logl} x 2^{logl}, {BITS}-bit, {k} primes"), &poly), (format!("powm_n 2^{logn}, {BITS}-bit"), &pow)]
    {
        let (base, sum0) = (rows[0].1, rows[0].2);
        for &(d, ms, sum) in rows {
            ok &= sum == sum0;
            println!("| {what} | {d} | {ms:.1} | {:.2} | {} |", base / ms, if sum == sum0 { "yes" } else { "NO" });
        }
    }
    println!("\ntargets: >= 1.8x on 2 devices, >= 3.4x on 4");
    if !ok {
        eprintln!("gpu_multi: a multi-device result differs from the one-device result");
        std::process::exit(1);
    }
}
