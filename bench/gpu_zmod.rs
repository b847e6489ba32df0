//! Batched modular multiplication and exponentiation on the GPU (`src/gpu/batch.rs`):
//! - device-resident (`ZVec::mulmod`/`powm` on device vectors, `reps` back-to-back calls, then one
//!   synchronisation: kernel plus launch, per-call constant upload and allocation) at 1024 and 2048
//!   bits, full-size odd modulus (top bit set), operands and exponents;
//! - end to end through zvec from host integers (set a, set b, mulmod or powm, get);
//! - the CPU: `batch::powm` (GMP `mpz_powm` per element) and `batch::mulmod` on all host threads;
//! - the `gpmp_mpz_mulmod_n`/`_powm_n` GPU route (`ops::int::on_device`) against the CPU at several n,
//!   for AUTO's threshold.
//!
//! Each GPU result is checked against the CPU on sampled elements. The bound column counts 64×64
//! multiply-adds (CIOS: 2L² + L per Montgomery product, 1.5L² + L/2 per `mont_sqr` square) of the
//! kernel's algorithm at the H100's measured 1.79e12 64×64→128 products/s (a 64×64→128-bit
//! multiply-add microbenchmark on that GPU), and that of CIOS squares with 4-bit windows. powm
//! and mulmod rows: the library's kernel, then the alternatives (`set_powm_kernel`, `set_mulmod_kernel`).
//!   usage: gpu_zmod [reps] [log2 n mulmod] [log2 n powm 1024] [log2 n powm 2048] [resident]
//!          (default 5 20 20 18; `resident`: the first table only)
use gpmp::gpu::batch::{set_mulmod_kernel, set_powm_kernel};
use gpmp::int::{batch, IntRef, ZList};
use gpmp::ops::{int::on_device, zvec::ZVec};
use gpmp::runtime::{self, Backend};
use std::time::Instant;

#[path = "common.rs"]
mod common;
use gpmp::testing::Rng;
#[path = "zvec_common.rs"]
mod zvec_common;
use zvec_common::{device_or_exit, per_call, random, vec_on, views};

/// f under the CPU backend (AUTO would send large powm batches to the GPU).
fn on_cpu<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    runtime::set_backend(Backend::Cpu).unwrap();
    let r = runtime::install(f);
    runtime::set_backend(Backend::Auto).unwrap();
    r
}

/// Checks 64 sampled elements of `got` against the CPU's `want(i)` (a one-element list).
fn check(got: &ZList, want: impl Fn(usize) -> ZList, n: usize, what: &str) {
    for i in (0..n).step_by((n / 64).max(1)) {
        assert_eq!(got.get(i), want(i).get(0), "{what}: element {i}");
    }
}

/// 64×64 multiply-adds per powm with e-bit exponents, L-limb modulus, w-bit windows: e squarings
/// (1.5L² + L/2 each with `mont_sqr`, else 2L² + L), e/w window products, 2^w − 2 table products,
/// the base's entry into Montgomery form and the final exit (2L² + L each: CIOS).
fn madds_per_powm(e: u64, l: u64, w: u64, sqr: bool) -> f64 {
    let (mul, sq) = ((2 * l * l + l) as f64, if sqr { 1.5 * (l * l) as f64 + 0.5 * l as f64 } else { (2 * l * l + l) as f64 });
    e as f64 * sq + (e / w + (1 << w)) as f64 * mul
}

/// The library's powm kernel at 1024 and 2048 bits (`GPU_ZMOD_POWM_WINDOW_BITS`, `GPU_ZMOD_SQR_MAX_LIMBS`).
const DEFAULT_WINDOW: [u64; 2] = [5, 5];
const DEFAULT_SQR: [bool; 2] = [true, false];
/// ... and its mulmod of operands of at most L limbs by two Montgomery products (`GPU_ZMOD_MULMOD_TWO_PRODUCTS`).
const DEFAULT_MUL2: bool = true;

const MADD_RATE: f64 = 1.79e12;

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let reps = args.first().copied().unwrap_or(5);
    let n_mul = 1usize << args.get(1).copied().unwrap_or(20);
    let n_pow = [1usize << args.get(2).copied().unwrap_or(20), 1usize << args.get(3).copied().unwrap_or(18)];
    device_or_exit();
    let mut rng = Rng(7);
    println!("| bits | op | n | GPU resident ms/call | GPU ops/s | bound ops/s (64×64 madds at 1.79e12/s) | GPU / bound | GPU e2e via zvec ms | CPU (GMP, {} threads) ops/s | GPU resident / CPU |", runtime::num_threads());
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (t, bits) in [1024u64, 2048].into_iter().enumerate() {
        let l = (bits / 64) as usize;
        let mut m: Vec<u64> = (0..l).map(|_| rng.next()).collect();
        m[0] |= 1;
        m[l - 1] |= 1 << 63;
        let mv = IntRef::new(false, &m);
        let lf = l as f64;
        // mulmod: signed full-size operands (reduced on the device: 2 Montgomery products, + 1)
        let n = n_mul;
        let (ma, sa) = random(&mut rng, n, bits, true);
        let (mb, sb) = random(&mut rng, n, bits, true);
        let (xa, xb) = (views(&ma, &sa, l), views(&mb, &sb, l));
        let (a, b) = (vec_on(&xa, bits, true), vec_on(&xb, bits, true));
        let r = ZVec::zeros_on(n, bits, true).unwrap();
        let sync = |v: &ZVec| v.synchronize().unwrap();
        let tc = per_call(1, || on_cpu(|| batch::mulmod(&xa, &xb, mv).unwrap()), |_| ());
        // the library's kernel (two Montgomery products for operands of at most L limbs), then three
        for (two, name) in [(None, "mulmod"), (Some(false), "mulmod, alternative (three products)")] {
            set_mulmod_kernel(two);
            let tk = per_call(reps, || ZVec::mulmod(&r, &a, &b, mv).unwrap(), sync);
            let got = ZVec::mulmod(&r, &a, &b, mv).unwrap().to_list().unwrap();
            check(&got, |i| on_cpu(|| batch::mulmod(&xa[i..=i], &xb[i..=i], mv).unwrap()), n, "mulmod");
            let te = per_call(
                1,
                || {
                    let (a, b) = (vec_on(&xa, bits, true), vec_on(&xb, bits, true));
                    let r = ZVec::zeros_on(n, bits, true).unwrap();
                    ZVec::mulmod(&r, &a, &b, mv).unwrap().to_list().unwrap()
                },
                |_| (),
            );
            let products = if two.unwrap_or(DEFAULT_MUL2) { 2.0 } else { 3.0 };
            let bound = MADD_RATE / (products * (2.0 * lf * lf + lf));
            println!(
                "| {bits} | {name} | 2^{} | {:.3} | {:.3e} | {:.3e} ({products} products) | {:.2} | {:.2} | {:.3e} | {:.1} |",
                n.trailing_zeros(),
                tk * 1e3,
                n as f64 / tk,
                bound,
                n as f64 / tk / bound,
                te * 1e3,
                n as f64 / tc,
                tc / tk
            );
        }
        set_mulmod_kernel(None);
        drop((a, b, r, xa, xb));
        // powm: full-size base (unsigned) and exponent
        let n = n_pow[t];
        let (ma, sa) = random(&mut rng, n, bits, false);
        let (me, se) = random(&mut rng, n, bits, false);
        let (xa, xe) = (views(&ma, &sa, l), views(&me, &se, l));
        let (a, e) = (vec_on(&xa, bits, true), vec_on(&xe, bits, true));
        let r = ZVec::zeros_on(n, bits, true).unwrap();
        let nc = 4096.min(n);
        let tc = per_call(1, || on_cpu(|| batch::powm(&xa[..nc], &xe[..nc], mv).unwrap()), |_| ()) / nc as f64;
        // the library's kernel, then the alternatives (window bits, squares by mont_sqr), each
        // against its own multiply-add bound
        let (small, ll) = (1024.min(n), l as u64);
        let (a1, e1, r1) = (vec_on(&xa[..small], bits, true), vec_on(&xe[..small], bits, true), ZVec::zeros_on(small, bits, true).unwrap());
        // (1024 bits: the previous kernel and 6-bit windows; 2048: the previous and mont_sqr at 32 limbs)
        let alt = if t == 0 { (6, true) } else { (5, true) };
        for (w, sqr) in [(0, false), (4, false), alt] {
            set_powm_kernel(w, sqr);
            // warm-up (module compile and load) on a small batch, then one timed call
            ZVec::powm(&r1, &a1, &e1, mv).unwrap();
            let s = Instant::now();
            let got = ZVec::powm(&r, &a, &e, mv).unwrap();
            got.synchronize().unwrap();
            let tk = s.elapsed().as_secs_f64();
            let got = got.to_list().unwrap();
            check(&got, |i| on_cpu(|| batch::powm(&xa[i..=i], &xe[i..=i], mv).unwrap()), n, "powm");
            let (wb, sq) = if w == 0 { (DEFAULT_WINDOW[t], DEFAULT_SQR[t]) } else { (w as u64, sqr) };
            let bound = MADD_RATE / madds_per_powm(bits, ll, wb, sq);
            let cios = MADD_RATE / madds_per_powm(bits, ll, 4, false);
            let name = format!(
                "powm{} (w = {wb}, squares by {})",
                if w == 0 { "" } else { ", alternative" },
                if sq { "mont_sqr" } else { "CIOS" }
            );
            println!(
                "| {bits} | {name} | 2^{} | {:.1} | {:.3e} | {:.3e} (CIOS, w = 4: {cios:.3e}) | {:.2} | – | {:.3e} ({nc} elements) | {:.1} |",
                n.trailing_zeros(),
                tk * 1e3,
                n as f64 / tk,
                bound,
                n as f64 / tk / bound,
                1.0 / tc,
                tc * n as f64 / tk
            );
        }
        set_powm_kernel(0, false);
    }
    if std::env::args().any(|a| a == "resident") {
        return;
    }
    // mpz_*_n routes: GPU (upload, kernel, download) against the CPU, for AUTO's threshold
    println!("\nThe gpmp_mpz_mulmod_n/_powm_n GPU route (ops::int::on_device: views → device → ZList) against the CPU batch (GMP, {} threads), full-size odd modulus (top bit set), full-size operands and exponents of the given bits:\n", runtime::num_threads());
    println!("| op | m bits | e bits | n | CPU ms | GPU route ms | CPU / GPU |");
    println!("|---|---|---|---|---|---|---|");
    let cases: [(bool, u64, u64, &[usize]); 6] = [
        (false, 1024, 0, &[10, 12, 14, 16, 18, 20]),
        (true, 256, 256, &[8, 10, 12, 14]),
        (true, 512, 512, &[6, 8, 10, 12, 14]),
        (true, 1024, 64, &[8, 10, 12, 14]),
        (true, 1024, 1024, &[4, 6, 8, 10, 12, 14]),
        (true, 2048, 2048, &[6, 8, 10, 12]),
    ];
    for (pow, bits, ebits, logs) in cases {
        let l = (bits / 64) as usize;
        let mut m: Vec<u64> = (0..l).map(|_| rng.next()).collect();
        m[0] |= 1;
        m[l - 1] |= 1 << 63;
        let mv = IntRef::new(false, &m);
        for &logn in logs {
            let n = 1usize << logn;
            let (ma, sa) = random(&mut rng, n, bits, !pow);
            let (mb, sb) = if pow { random(&mut rng, n, ebits, false) } else { random(&mut rng, n, bits, true) };
            let lb = if pow { (ebits / 64) as usize } else { l };
            let (xa, xb) = (views(&ma, &sa, l), views(&mb, &sb, lb));
            let r = if pow { 1 } else { 3 };
            let cpu = per_call(r, || on_cpu(|| if pow { batch::powm(&xa, &xb, mv) } else { batch::mulmod(&xa, &xb, mv) }.unwrap()), |_| ());
            let gpu = per_call(r, || runtime::install(|| on_device(&xa, &xb, &m, pow).unwrap()), |_| ());
            println!(
                "| {} | {bits} | {} | 2^{logn} | {:.3} | {:.3} | {:.2} |",
                if pow { "powm" } else { "mulmod" },
                if pow { ebits.to_string() } else { "–".into() },
                cpu * 1e3,
                gpu * 1e3,
                cpu / gpu
            );
        }
    }
}
