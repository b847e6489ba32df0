//! Kernel-only timing of the GPU NTT (events, median after a warm-up): one transform and a batch
//! of 2^24/n transforms, for a ~62-bit prime (64-bit words) and a ~31-bit prime (32-bit words).
//! Prints a Markdown table; the bound is the memory traffic (each pass reads and writes every
//! word once: passes · 2 · word bytes · points) at 3.0 TB/s (H100 device-to-device copy).
//!   usage: gpu_ntt [reps] [log2 n ...]   (default 20 reps, log2 n = 16 18 20 22 24)
use gpmp::gpu::{device, ntt};
use gpmp::nmod::prime::{fourier_primes, primitive_root_of_unity};

fn main() {
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
    println!("| prime | log2 n | count | passes | kernel ms | bound ms (3.0 TB/s) | Gpoints/s |");
    println!("|---|---|---|---|---|---|---|");
    for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
        let word_bytes = if p < 1 << 31 { 4.0 } else { 8.0 };
        for &logn in &sizes {
            for count in [1usize, 1 << 24usize.saturating_sub(logn)] {
                let n = 1usize << logn;
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                let passes = ntt::passes(logn as u32, p);
                match ntt::time_device(count, n, w, p, reps) {
                    Ok(ms) => {
                        let pts = (count * n) as f64;
                        let bound = passes as f64 * 2.0 * word_bytes * pts / 3.0e12 * 1e3;
                        let bits = 64 - p.leading_zeros();
                        println!("| {p} ({bits} bits) | {logn} | {count} | {passes} | {ms:.4} | {bound:.4} | {:.1} |", pts / ms / 1e6);
                    }
                    Err(e) => println!("| {p} | {logn} | {count} | {passes} | error: {e} | | |"),
                }
                if count == 1 << 24usize.saturating_sub(logn) {
                    break;
                }
            }
        }
    }
}
