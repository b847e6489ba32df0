//! Kernel-only timing of the GPU NTT (events, median after a warm-up), 2^16..2^24 points, one
//! transform and a batch of 2^24/n transforms, for a ~62-bit and a ~31-bit prime.
//! Prints a Markdown table; the bound is the memory traffic (each pass reads and writes every
//! word once: passes · 2 · 8 B · points) at 3.0 TB/s.
//!   usage: cargo run --release --example gpu_ntt [reps]
use gpmp::gpu::{device, ntt};
use gpmp::nmod::prime::{fourier_primes, primitive_root_of_unity};

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
    println!("| prime | log2 n | count | passes | kernel ms | bound ms (3.0 TB/s) | Gpoints/s |");
    println!("|---|---|---|---|---|---|---|");
    for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
        for logn in (16..=24).step_by(2) {
            for count in [1usize, 1 << (24 - logn)] {
                let n = 1usize << logn;
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                let passes = ntt::passes(logn as u32);
                match ntt::time_device(count, n, w, p, reps) {
                    Ok(ms) => {
                        let pts = (count * n) as f64;
                        let bound = passes as f64 * 16.0 * pts / 3.0e12 * 1e3;
                        println!("| {p} ({} bits) | {logn} | {count} | {passes} | {ms:.4} | {bound:.4} | {:.1} |", 64 - p.leading_zeros(), pts / ms / 1e6);
                    }
                    Err(e) => println!("| {p} | {logn} | {count} | {passes} | error: {e} | | |"),
                }
                if logn == 24 {
                    break;
                }
            }
        }
    }
}
