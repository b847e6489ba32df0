//! One big-integer product on the GPU (`gpu::ntt_mul`, `gpmp_mpz_mul` under the GPU backend) per
//! size 2^e bits (both operands of exactly 2^e bits): kernel-only time (CUDA events around residues,
//! transforms, pointwise products, inverse transforms, CRT and carries on device-resident limbs,
//! per-call device allocations included; median of 5 after a warm-up), end to end from limbs to limbs
//! (`ntt_mul::mul_into` into a pre-faulted buffer: staging, transfers, copies; median of 3 after a
//! warm-up), the square end to end, and the bounds: device bytes at 3.0 TB/s, PCIe bytes (limbs up
//! and down) at 52 GB/s.
//!   usage: gpu_bigmul [e ...]      default: 20 22 24 26 28 30
//! `GPMP_LOG=debug` adds each call's stage times (stderr).
use gpmp::gpu::{ntt, ntt_mul};

#[path = "common.rs"]
mod common;
use common::median_ms;
use gpmp::testing::Rng;

fn main() {
    let es: Vec<u32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let es = if es.is_empty() { vec![20, 22, 24, 26, 28, 30] } else { es };
    println!("| bits | limbs each | n | kernel ms | e2e ms | e2e square ms | device bound ms | PCIe bound ms | kernel / device bound | e2e / (PCIe + device bound) |");
    println!("|---|---|---|--:|--:|--:|--:|--:|--:|--:|");
    let mut rng = Rng(42);
    for e in es {
        let l = 1usize << (e - 6);
        let mut a: Vec<u64> = (0..l).map(|_| rng.next()).collect();
        let mut b: Vec<u64> = (0..l).map(|_| rng.next()).collect();
        a[l - 1] |= 1 << 63;
        b[l - 1] |= 1 << 63;
        let total = 2 * l;
        let logn = (total - 1).next_power_of_two().trailing_zeros();
        let n = 1usize << logn;
        let kernel = ntt_mul::time_device(&a, &b, 5).unwrap();
        let mut r = vec![1u64; total];
        let e2e = median_ms(3, || ntt_mul::mul_into(&a, &b, &mut r).unwrap());
        let e2e_sq = median_ms(3, || ntt_mul::mul_into(&a, &a, &mut r).unwrap());
        // Device bytes: residues (read 2l words, write 3·2n), 3 primes × (2 forward + 1 inverse)
        // transforms of `passes` passes (read + write 8 bytes a point each), pointwise (read 2n,
        // write n per prime), CRT (read 3 words per coefficient, write 1 per limb).
        let passes = ntt::passes(logn, ntt_mul::primes()[0]) as f64;
        let nf = n as f64;
        let dev_bytes = 8.0 * (2.0 * l as f64 + 6.0 * nf + 9.0 * passes * 2.0 * nf + 9.0 * nf + 3.0 * total as f64 + total as f64);
        let dev_ms = dev_bytes / 3.0e12 * 1e3;
        let pcie_ms = 8.0 * (2 * l + total) as f64 / 52e9 * 1e3;
        println!(
            "| 2^{e} | 2^{} | 2^{logn} | {kernel:.3} | {e2e:.3} | {e2e_sq:.3} | {dev_ms:.3} | {pcie_ms:.3} | {:.1} | {:.1} |",
            e - 6,
            kernel / dev_ms,
            e2e / (pcie_ms + dev_ms)
        );
        a.clear();
        b.clear();
    }
}
