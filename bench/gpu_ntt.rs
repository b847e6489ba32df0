//! Kernel-only timing of the GPU NTT (events, median after a warm-up): one transform and a batch
//! of 2^24/n transforms, for a ~62-bit prime (64-bit words, lazy reduction), a ~31-bit prime
//! (32-bit words) and a ~30-bit prime (32-bit words, lazy reduction), every candidate pass
//! structure (kernel variant, number of passes) with the autotuner's choice marked.
//! Prints a Markdown table; the bound is the memory traffic (each pass reads and writes every
//! word once: passes · 2 · word bytes · points) at 3.0 TB/s (H100 device-to-device copy).
//!   usage: gpu_ntt [reps] [log2 n ...]   (default 20 reps, log2 n = 16 18 20 22 24)
//!          gpu_ntt e2e [reps]             end-to-end gpmp_nmod_ntt_many (host words in and out) on
//!                                          the GPU against the CPU (all cores), for AUTO's threshold
use gpmp::gpu::{device, ntt};
use gpmp::nmod::prime::{fourier_primes, primitive_root_of_unity};
use gpmp::runtime::{self, Backend};

#[path = "common.rs"]
mod common;
use common::median_ms_on;

/// End-to-end ntt_many (host u64 words in and out) on each backend, rows of 2^10 and single rows.
fn end_to_end(reps: usize) {
    println!("| prime | log2 n | count | CPU ms ({} threads) | GPU ms | CPU/GPU |", runtime::num_threads());
    println!("|---|---|---|---|---|---|");
    for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
        for logt in (12..=24).step_by(2) {
            for logn in [10usize, logt] {
                let (n, count) = (1usize << logn, 1usize << (logt - logn));
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                let x: Vec<u64> = (0..n * count).map(|i| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) % p).collect();
                let mut ms = [0.0; 2];
                for (i, b) in [Backend::Cpu, Backend::Gpu].into_iter().enumerate() {
                    runtime::set_backend(b).unwrap();
                    ms[i] = median_ms_on(&x, reps, |y| runtime::install(|| gpmp::ops::nmod::ntt_many(y, n, w, p)).unwrap());
                }
                println!("| {p} | {logn} | {count} | {:.3} | {:.3} | {:.2} |", ms[0], ms[1], ms[0] / ms[1]);
                if logn == logt {
                    break;
                }
            }
        }
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("e2e") {
        let reps = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(5);
        return end_to_end(reps);
    }
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let reps = args.first().copied().unwrap_or(20);
    let sizes = if args.len() > 1 { args[1..].to_vec() } else { vec![16, 18, 20, 22, 24] };
    let dev = match device::current() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(2);
        }
    };
    println!("device: {} (sm_{}{}), driver {}", dev.name, dev.cc.0, dev.cc.1, dev.driver_version);
    println!("| prime | log2 n | count | variant (kernel/passes) | kernel ms | bound ms (3.0 TB/s) | Gpoints/s | autotuned |");
    println!("|---|---|---|---|---|---|---|---|");
    for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0], fourier_primes(30, 24, 1)[0]] {
        let word_bytes = if p < 1 << 31 { 4.0 } else { 8.0 };
        let bits = 64 - p.leading_zeros();
        for &logn in &sizes {
            for count in [1usize, 1 << 24usize.saturating_sub(logn)] {
                let n = 1usize << logn;
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                match ntt::time_device(count, n, w, p, reps) {
                    Ok(rows) => {
                        for (v, ms, chosen) in rows {
                            let pts = (count * n) as f64;
                            let bound = v.passes as f64 * 2.0 * word_bytes * pts / 3.0e12 * 1e3;
                            let mark = if chosen { "**yes**" } else { "" };
                            println!(
                                "| {p} ({bits} bits) | {logn} | {count} | {} | {ms:.4} | {bound:.4} | {:.1} | {mark} |",
                                v.label(),
                                pts / ms / 1e6
                            );
                        }
                    }
                    Err(e) => println!("| {p} | {logn} | {count} | | error: {e} | | | |"),
                }
                if count == 1 << 24usize.saturating_sub(logn) {
                    break;
                }
            }
        }
    }
}
