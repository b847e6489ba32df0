//! Multipoint evaluation and interpolation mod p on the GPU (`gpu::tree`) against gpmp's CPU path on
//! all cores (`nmod::evaluate`, `nmod::interpolate`), end to end from host arrays with the tree on
//! the device, p = `fourier_prime(62, 0)` (and a 31-bit Fourier prime at the smallest size):
//!   tree:        `Tree::new` on the host (all cores), once;
//!   upload:      the tree's device copy (`gpu::tree::upload`: the tree built again on the device
//!                from the leaves, level by level with batched NTTs, its root checked against the
//!                host's; the root's inverse uploaded), once;
//!   eval:        median of `reps` GPU evaluations of f of n coefficients (values checked against the
//!                CPU's word for word), and of the CPU's;
//!   interp first: the first GPU interpolation on a tree (computes the weights 1/m′(u_i) by a GPU
//!                evaluation), once; interp: median with the weights kept, GPU and CPU (CPU with
//!                the same kept weights), results checked against f;
//! then per size one profiled evaluation: each level's time and its NTTs' time (every step
//! synchronised; level L + 1 is the start rev(f)·1/rev(m), level 0 the download).
//!   usage: gpu_tree [reps] [LOG ...]     default reps 5, LOG 16 18 20 22 (24 when asked for).
//! FLINT at 1 thread on the same inputs' sizes: `make -C bench nmod-tree && bench/build/nmod-tree 1 22`
//! on a host with FLINT (not run here).
use gpmp::gpu::tree as gtree;
use gpmp::nmod::prime::fourier_prime;
use gpmp::nmod::tree::Tree;
use gpmp::nmod::{evaluate, interpolate};
use gpmp::testing::Rng;
use std::time::Instant;

#[path = "common.rs"]
mod common;
use common::median_ms;

fn once_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let r = f();
    (t.elapsed().as_secs_f64() * 1e3, r)
}

/// n distinct random residues mod p (for 2^62-size p a collision is unlikely; redrawn if any).
fn points(n: usize, p: u64, rng: &mut Rng) -> Vec<u64> {
    loop {
        let u: Vec<u64> = (0..n).map(|_| rng.next() % p).collect();
        let mut s = u.clone();
        s.sort_unstable();
        if s.windows(2).all(|w| w[0] != w[1]) {
            return u;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut logs: Vec<u32> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    if logs.is_empty() {
        logs = vec![16, 18, 20, 22];
    }
    let p62 = fourier_prime(62, 0).unwrap();
    let p31 = fourier_prime(31, 0).unwrap();
    let threads = gpmp::runtime::num_threads();
    println!("## GPU subproduct tree, p62 = {p62}, CPU on {threads} threads, ms\n");
    println!("| n | p | tree (CPU) | upload | GPU eval | CPU eval | CPU/GPU eval | GPU interp first | GPU interp | CPU interp | CPU/GPU interp |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut profiles = Vec::new();
    let mut cases: Vec<(u32, u64)> = logs.iter().map(|&k| (k, p62)).collect();
    cases.insert(0, (logs[0], p31));
    for (k, p) in cases {
        let n = 1usize << k;
        if !gtree::supports(n, p) {
            println!("| 2^{k} | {p} | not supported by the device path |");
            continue;
        }
        let mut rng = Rng(k as u64 * 7919 + p % 1000);
        let u = points(n, p, &mut rng);
        let f: Vec<u64> = (0..n).map(|_| rng.next() % p).collect();
        let (t_tree, tree) = once_ms(|| gpmp::runtime::install(|| Tree::new(&u, p).unwrap()));
        let (t_up, ()) = once_ms(|| gtree::upload(&tree).unwrap());
        let mut v = Vec::new();
        let cpu_reps = if k >= 22 { 1 } else { reps.min(3) };
        let t_geval = median_ms(reps, || v = gtree::evaluate(&tree, &f).unwrap());
        let mut w = Vec::new();
        let t_ceval = median_ms(cpu_reps, || w = gpmp::runtime::install(|| evaluate::evaluate(&tree, &f).unwrap()));
        assert!(v == w, "n = 2^{k}: GPU and CPU values differ");
        let (t_first, g) = once_ms(|| gtree::interpolate(&tree, &v).unwrap());
        assert!(g == f, "n = 2^{k}: GPU interpolation does not give f back");
        let t_gint = median_ms(reps, || assert!(gtree::interpolate(&tree, &v).unwrap() == f));
        let t_cint = median_ms(cpu_reps, || assert!(gpmp::runtime::install(|| interpolate::interpolate(&tree, &v).unwrap()) == f));
        println!(
            "| 2^{k} | {}-bit | {t_tree:.1} | {t_up:.1} | {t_geval:.2} | {t_ceval:.1} | {:.1}× | {t_first:.2} | {t_gint:.2} | {t_cint:.1} | {:.1}× |",
            64 - p.leading_zeros(),
            t_ceval / t_geval,
            t_cint / t_gint
        );
        if p == p62 {
            let mut prof = Vec::new();
            gtree::evaluate_profiled(&tree, &f, Some(&mut prof)).unwrap();
            profiles.push((k, prof));
        }
    }
    for (k, prof) in profiles {
        println!("\n### Evaluation by level, n = 2^{k} (synchronised steps), ms\n");
        println!("| level | total | of which NTTs | NTT share |");
        println!("|---|---|---|---|");
        for l in prof {
            let share = if l.total_ms > 0.0 { 100.0 * l.ntt_ms / l.total_ms } else { 0.0 };
            println!("| {} | {:.3} | {:.3} | {share:.0}% |", l.level, l.total_ms, l.ntt_ms);
        }
    }
}
