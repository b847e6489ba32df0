//! `gpmp_zvec` on the GPU: device-resident throughput of mul and add at 2^20 elements of
//! 256, 1024, 2048 and 4096 bits (wall time of `reps` back-to-back operations through `ZVec`, then
//! one synchronisation: kernel plus launch and stream-ordered allocation), each result checked
//! against the CPU on sampled elements; then end to end from host integers (set a, set b, mul, get)
//! against the CPU batch product (`batch::mul`, GMP mpn per element, all cores), for AUTO's
//! threshold (powm against the CPU: `gpu_zmod`).
//! Prints Markdown tables. Bounds: mul ≥ (bytes moved)/3.0 TB/s; CGBN's H100 numbers for reference.
//! add: the library's kernel and the one-element-a-thread zv_addsub (`set_addsub_kernel`), then sub.
//!   usage: gpu_zvec [reps] [log2 n]     (default 10 reps, n = 2^20)
//!          gpu_zvec resident [reps]      the device-resident table only
//!          gpu_zvec mul [reps]           its product rows only (repeated processes give the spread)
//!          gpu_zvec kernels              one mul a·b and one add a + b per size (for a profiler)
use gpmp::gpu::zvec::set_addsub_kernel;
use gpmp::int::{batch, IntRef};
use gpmp::ops::zvec::ZVec;
use gpmp::runtime;

#[path = "common.rs"]
mod common;
use gpmp::testing::Rng;
#[path = "zvec_common.rs"]
mod zvec_common;
use zvec_common::{device_or_exit, per_call, per_call_host, random, vec_on, views};

/// Checks 64 sampled elements of `got` against `want`.
fn check(got: &ZVec, want: &[IntRef], what: &str) {
    let g = got.to_list().unwrap();
    let step = (want.len() / 64).max(1);
    for i in (0..want.len()).step_by(step) {
        assert_eq!(g.get(i), want[i], "{what}: element {i}");
    }
}

fn main() {
    let mode = std::env::args().nth(1).filter(|a| a.parse::<usize>().is_err()).unwrap_or_default();
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let reps = args.first().copied().unwrap_or(10);
    let n = 1usize << args.get(1).copied().unwrap_or(20);
    device_or_exit();
    let cgbn = [(256u64, 1.656e10, 2.277e10), (1024, 3.798e9, 7.796e9), (2048, 8.375e8, 3.985e9), (4096, 3.050e8, 1.990e9)];
    let mut rng = Rng(1);
    if mode == "kernels" {
        for &(bits, _, _) in &cgbn {
            let l = (bits / 64) as usize;
            let (ma, sa) = random(&mut rng, n, bits, true);
            let xa = views(&ma, &sa, l);
            let (mb, sb) = random(&mut rng, n, bits, true);
            let (a, b) = (vec_on(&xa, bits, true), vec_on(&views(&mb, &sb, l), bits, true));
            let rp = ZVec::zeros_on(n, 2 * bits, true).unwrap();
            let rs = ZVec::zeros_on(n, bits + 1, true).unwrap();
            ZVec::mul(&rp, &a, &b).unwrap().synchronize().unwrap();
            ZVec::add(&rs, &a, &b).unwrap().synchronize().unwrap();
        }
        return;
    }
    println!("Device-resident, n = {n}, {reps} reps (wall time per call / n):\n");
    println!("| bits | op | ms per call | host µs per call | ops/s | GB/s moved | CGBN ops/s | ours / CGBN |");
    println!("|---|---|---|---|---|---|---|---|");
    for &(bits, cg_mul, cg_add) in &cgbn {
        let l = (bits / 64) as usize;
        let (ma, sa) = random(&mut rng, n, bits, true);
        let (mb, sb) = random(&mut rng, n, bits, true);
        let (xa, xb) = (views(&ma, &sa, l), views(&mb, &sb, l));
        let (a, b) = (vec_on(&xa, bits, true), vec_on(&xb, bits, true));
        let rp = ZVec::zeros_on(n, 2 * bits, true).unwrap();
        let rs = ZVec::zeros_on(n, bits + 1, true).unwrap();
        let sync = |v: &ZVec| v.synchronize().unwrap();
        let (t, h) = per_call_host(reps, || ZVec::mul(&rp, &a, &b).unwrap(), sync);
        let bytes = (n * (4 * l) * 8 + 3 * n) as f64;
        println!(
            "| {bits} | mul | {:.4} | {:.1} | {:.3e} | {:.0} | {cg_mul:.3e} | {:.2} |",
            t * 1e3,
            h * 1e6,
            n as f64 / t,
            bytes / t / 1e9,
            n as f64 / t / cg_mul
        );
        check(&ZVec::mul(&rp, &a, &b).unwrap(), &batch::mul(&xa, &xb).unwrap().views(), "mul");
        if mode == "mul" {
            continue;
        }
        // bytes moved: a, b, the (l + 1)-limb sum and the three sign bytes
        let bytes = (n * (3 * l + 1) * 8 + 3 * n) as f64;
        for (kernel, name) in [(usize::MAX, "add"), (0, "add (zv_addsub, one element a thread)")] {
            set_addsub_kernel(kernel);
            let (t, h) = per_call_host(reps, || ZVec::add(&rs, &a, &b).unwrap(), sync);
            println!(
                "| {bits} | {name} | {:.4} | {:.1} | {:.3e} | {:.0} | {cg_add:.3e} | {:.2} |",
                t * 1e3,
                h * 1e6,
                n as f64 / t,
                bytes / t / 1e9,
                n as f64 / t / cg_add
            );
            check(&ZVec::add(&rs, &a, &b).unwrap(), &batch::add(&xa, &xb).unwrap().views(), "add");
        }
        set_addsub_kernel(usize::MAX);
        let (t, h) = per_call_host(reps, || ZVec::sub(&rs, &a, &b).unwrap(), sync);
        println!("| {bits} | sub | {:.4} | {:.1} | {:.3e} | {:.0} | | |", t * 1e3, h * 1e6, n as f64 / t, bytes / t / 1e9);
        check(&ZVec::sub(&rs, &a, &b).unwrap(), &batch::sub(&xa, &xb).unwrap().views(), "sub");
        // a difference into `bits` bits may overflow: the flag is read back every call
        let rd = ZVec::zeros_on(n, bits, true).unwrap();
        let (t, h) = per_call_host(reps, || ZVec::sub(&rd, &a, &b), |_| ());
        println!("| {bits} | sub (checked) | {:.4} | {:.1} | {:.3e} | {:.0} | | |", t * 1e3, h * 1e6, n as f64 / t, bytes / t / 1e9);
    }
    if mode == "resident" || mode == "mul" {
        return;
    }
    println!("\nEnd to end from host integers: a zvec chain set a, set b, mul, get (word-major packing) in host memory (CPU, {} threads) and in device memory (GPU, PCIe both ways), and the plain batch product batch::mul (GMP mpn per element, the CPU path of gpmp_mpz_mul_n):\n", runtime::num_threads());
    println!("| bits | n | batch::mul ms | CPU zvec ms | GPU zvec ms | CPU zvec / GPU zvec |");
    println!("|---|---|---|---|---|---|");
    for (bits, logn) in [
        (256u64, 14usize),
        (256, 16),
        (256, 18),
        (256, 20),
        (1024, 12),
        (1024, 14),
        (1024, 16),
        (1024, 18),
        (1024, 20),
        (2048, 20),
        (4096, 18),
    ] {
        let n = 1usize << logn;
        let l = (bits / 64) as usize;
        let (ma, sa) = random(&mut rng, n, bits, true);
        let (mb, sb) = random(&mut rng, n, bits, true);
        let (xa, xb) = (views(&ma, &sa, l), views(&mb, &sb, l));
        let r = 3.min(reps);
        let plain = per_call(r, || runtime::install(|| batch::mul(&xa, &xb).unwrap()), |_| ());
        let chain = |dev: bool| {
            per_call(
                r,
                || {
                    runtime::install(|| {
                        let (a, b) = (vec_on(&xa, bits, dev), vec_on(&xb, bits, dev));
                        let rp = ZVec::zeros_on(n, 2 * bits, dev).unwrap();
                        ZVec::mul(&rp, &a, &b).unwrap().to_list().unwrap()
                    })
                },
                |_| (),
            )
        };
        let (cpu, gpu) = (chain(false), chain(true));
        println!("| {bits} | 2^{logn} | {:.3} | {:.3} | {:.3} | {:.2} |", plain * 1e3, cpu * 1e3, gpu * 1e3, cpu / gpu);
    }
}
