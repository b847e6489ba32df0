//! GPU generalized Fermat prime field FFT: kernel-only time of one forward DFT of N
//! elements (events around the stages, digit-major device-resident data, twiddle tables ready,
//! median after a warm-up) for P3 (k = 8) and P4 (k = 16), N = 2^12..2^20, with two bounds:
//! memory (every stage reads and writes the N·k words once, plus its twiddle table, at 3.0 TB/s)
//! and multiplier (each twiddle product is k² 64×64→128-bit word products, about 8 IMADs each
//! with the accumulation, at 132 SMs × 64 IMAD/clock × 1.98 GHz on an H100);
//! then `mul_n` kernel time, and end to end (host words in and out, transfers and tables cached)
//! GPU against the CPU on all cores, for AUTO's thresholds.
//!   usage: gpu_gfpf [reps]   (default 20)
use gpmp::gfpf::Gfpf;
use gpmp::gpu::{device, gfpf};
use gpmp::runtime;
use gpmp::testing::Rng;

#[path = "common.rs"]
mod common;
use common::median_ms_on;

fn data(f: &Gfpf, n: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    (0..n * f.k()).map(|_| rng.next() % f.radix()).collect()
}

fn main() {
    let reps = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let dev = match device::current() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(2);
        }
    };
    println!("device: {} (sm_{}{}), driver {}", dev.name, dev.cc.0, dev.cc.1, dev.driver_version);
    println!();
    println!("| field | log2 N | stages (log2 radix) | twiddle products | kernel ms | memory bound ms | multiplier bound ms | kernel / max bound | Melem/s |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for k in [8usize, 16] {
        let f = Gfpf::builtin(k).unwrap();
        for logn in 12..=20u32 {
            let n = 1usize << logn;
            let rad = gfpf::radices(logn, gfpf::max_logm(k));
            let (mut prods, mut bytes, mut logns) = (0f64, 0f64, 0u32);
            for &m in &rad {
                let (mm, ns) = (f64::from(1u32 << m), f64::from(1u32 << logns));
                bytes += 2.0 * (n * k * 8) as f64;
                if logns > 0 {
                    prods += n as f64 * (1.0 - 1.0 / mm) * (1.0 - 1.0 / ns);
                    bytes += mm * ns * (k * 8) as f64;
                }
                logns += m;
            }
            let mem = bytes / 3.0e12 * 1e3;
            let alu = prods * (k * k) as f64 * 8.0 / (132.0 * 64.0 * 1.98e9) * 1e3;
            match gfpf::time_dft(&f, n, reps) {
                Ok(ms) => println!(
                    "| P{} (k={k}) | {logn} | {} ({rad:?}) | {prods:.0} | {ms:.4} | {mem:.4} | {alu:.4} | {:.1} | {:.1} |",
                    if k == 8 { 3 } else { 4 },
                    rad.len(),
                    ms / mem.max(alu),
                    n as f64 / ms / 1e3
                ),
                Err(e) => println!("| k={k} | {logn} | error: {e} |"),
            }
        }
    }
    println!();
    println!("| field | op | n | kernel ms | Melem/s |");
    println!("|---|---|---|---|---|");
    for k in [8usize, 16] {
        let f = Gfpf::builtin(k).unwrap();
        for op in [gfpf::Op::Mul, gfpf::Op::Add] {
            let n = 1 << 20;
            match gfpf::time_binary(&f, op, n, reps) {
                Ok(ms) => println!("| k={k} | {op:?} | 2^20 | {ms:.4} | {:.1} |", n as f64 / ms / 1e3),
                Err(e) => println!("| k={k} | {op:?} | error: {e} |"),
            }
        }
    }
    println!();
    let reps = reps.min(5);
    println!("End to end (host element-major words in and out; GPU: transfers, tables cached; CPU: {} threads):", runtime::num_threads());
    println!();
    println!("| field | what | log2 N | CPU ms | GPU ms | CPU/GPU |");
    println!("|---|---|---|---|---|---|");
    for k in [8usize, 16] {
        let f = Gfpf::builtin(k).unwrap();
        for logn in (10..=20).step_by(2) {
            let n = 1usize << logn;
            let x = data(&f, n, 7 + logn as u64);
            let w = f.root_of_unity(n).unwrap();
            let cpu = median_ms_on(&x, reps, |y| runtime::install(|| f.dft_cpu(y, n, &w)).unwrap());
            let gpu = median_ms_on(&x, reps, |y| gfpf::dft(&f, y, n, &w, false, false).unwrap());
            println!("| k={k} | dft | {logn} | {cpu:.3} | {gpu:.3} | {:.2} |", cpu / gpu);
            let y = data(&f, n, 99 + logn as u64);
            let cpu = median_ms_on(&x, reps, |z| {
                let kk = f.k();
                runtime::install(|| {
                    use rayon::prelude::*;
                    let xs = z.to_vec();
                    z.par_chunks_mut(kk)
                        .zip(xs.par_chunks(kk).zip(y.par_chunks(kk)))
                        .with_min_len(256)
                        .for_each(|(o, (a, b))| f.mul(o, a, b));
                })
            });
            let gpu = median_ms_on(&x, reps, |z| {
                let xs = z.to_vec();
                gfpf::binary(&f, gfpf::Op::Mul, z, &xs, &y, false).unwrap()
            });
            println!("| k={k} | mul_n | {logn} | {cpu:.3} | {gpu:.3} | {:.2} |", cpu / gpu);
        }
    }
}
