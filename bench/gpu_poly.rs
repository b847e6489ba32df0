//! The GPU Z\[x\] product (`gpu::zpoly_mul`) per case: kernel-only time (events around residues,
//! transforms, pointwise, inverse transforms and CRT on device-resident inputs; median after a
//! warm-up), the GPU path end to end from coefficient views to the output slab (host conversion and
//! transfers included; median), and gpmp's CPU path (`zpoly::mul` Auto with the CPU backend, all
//! cores; median), with the bound from bytes and operations.
//!   usage: gpu_poly [reps] [FLEN[xGLEN]:BITS ...]   lengths as 2^k; default: the W2 grid,
//!          (20,256), (22,64) and the AUTO threshold probes.
//! Inputs: signed coefficients of exactly `bits` bits, random signs (`gpmp::testing::Rng`,
//! splitmix64 as in gpmp-bench).
use gpmp::gpu::zpoly_mul;
use gpmp::int::{limbs_for_bits, max_bits, product_bits, IntRef};
use gpmp::runtime::{self, Backend};
use gpmp::testing::Rng;
use gpmp::zpoly::{self, Alg};

#[path = "common.rs"]
mod common;
use common::median_ms;

/// `len` coefficients of exactly `bits` bits: (signs, limbs) with `limbs_for_bits(bits)` limbs each.
fn operand(len: usize, bits: u64, rng: &mut Rng) -> (Vec<bool>, Vec<u64>) {
    let l = limbs_for_bits(bits);
    let mut m = vec![0u64; len * l];
    let mut neg = vec![false; len];
    for (c, ng) in m.chunks_mut(l).zip(&mut neg) {
        c.iter_mut().for_each(|x| *x = rng.next());
        let top = bits - 64 * (l as u64 - 1);
        if top < 64 {
            c[l - 1] &= (1 << top) - 1;
        }
        c[l - 1] |= 1 << (top - 1);
        *ng = rng.next() & 1 == 1;
    }
    (neg, m)
}

fn views<'a>(op: &'a (Vec<bool>, Vec<u64>), bits: u64) -> Vec<IntRef<'a>> {
    let l = limbs_for_bits(bits);
    op.1.chunks(l).zip(&op.0).map(|(m, &n)| IntRef::new(n, m)).collect()
}

fn parse_len(s: &str) -> usize {
    s.strip_prefix("2^").map_or_else(|| s.parse().unwrap(), |k| 1 << k.parse::<u32>().unwrap())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut cases: Vec<String> = args.iter().filter(|a| a.contains(':')).cloned().collect();
    if cases.is_empty() {
        cases = [
            "2^10:64",
            "2^14:64",
            "2^16:64",
            "2^17:64",
            "2^20:64",
            "2^12:1024",
            "2^16:256",
            "2^10:16384",
            "2^20x2^4:64",
            "2^20:256",
            "2^22:64",
            "2^13:64",
            "2^15:64",
            "2^11:1024",
            "2^13:256",
        ]
        .map(String::from)
        .to_vec();
    }
    println!("| case | primes | n | kernel ms | bound ms | GPU e2e ms | CPU ms ({} threads) | CPU / GPU e2e |", runtime::num_threads());
    println!("|---|---|---|---|---|---|---|---|");
    for c in &cases {
        let (lens, bits) = c.split_once(':').unwrap();
        let bits: u64 = bits.parse().unwrap();
        let (fl, gl) = lens.split_once('x').map_or_else(|| (parse_len(lens), parse_len(lens)), |(a, b)| (parse_len(a), parse_len(b)));
        let mut rng = Rng(42);
        let (fo, go) = (operand(fl, bits, &mut rng), operand(gl, bits, &mut rng));
        let (f, g) = (views(&fo, bits), views(&go, bits));
        let (kernel, k, n) = match zpoly_mul::time_device(&f, &g, reps.max(5)) {
            Ok(t) => t,
            Err(e) => {
                println!("| {c} | - | - | {e} | | | | |");
                continue;
            }
        };
        runtime::set_backend(Backend::Gpu).unwrap();
        let gpu = runtime::install(|| zpoly_mul::mul(&f, &g)).unwrap();
        let e2e = median_ms(reps, || drop(runtime::install(|| zpoly_mul::mul(&f, &g)).unwrap()));
        runtime::set_backend(Backend::Cpu).unwrap();
        let cpu = runtime::install(|| zpoly::mul(&f, &g, Alg::Auto)).unwrap();
        assert!(gpu == cpu, "{c}: GPU and CPU products differ");
        let cpu_ms = median_ms(reps.min(3), || drop(runtime::install(|| zpoly::mul(&f, &g, Alg::Auto)).unwrap()));
        runtime::set_backend(Backend::Auto).unwrap();
        // Bound: DRAM bytes (each NTT pass reads and writes 8 bytes a point; 3 transforms of 2 or 3
        // passes, residues, pointwise, CRT) at 3.0 TB/s, against 62-bit modular products (NTT:
        // about (log2 n)/2 + 2 per point and transform; CRT: k²/2 + k per coefficient) at 6.2e11/s.
        let hlen = fl + gl - 1;
        let passes = gpmp::gpu::ntt::passes(n.trailing_zeros(), 1 << 61) as f64;
        let (kf, nf) = (k as f64, n as f64);
        let in_words = ((fl + gl) * limbs_for_bits(max_bits(&f).max(max_bits(&g)))) as f64;
        let out_words = (hlen * limbs_for_bits(product_bits(bits, bits, fl, gl))) as f64;
        let bytes = 8.0 * (kf * nf * (3.0 * 2.0 * passes + 2.0 + 3.0 + 2.0) + in_words + 2.0 * out_words);
        let products = 3.0 * kf * nf * ((n.trailing_zeros() as f64) / 2.0 + 2.0) + hlen as f64 * (kf * kf / 2.0 + kf);
        let bound = (bytes / 3.0e12).max(products / 6.2e11) * 1e3;
        println!("| {c} | {k} | 2^{} | {kernel:.4} | {bound:.4} | {e2e:.4} | {cpu_ms:.4} | {:.2} |", n.trailing_zeros(), cpu_ms / e2e);
    }
}
