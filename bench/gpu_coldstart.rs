//! Cold start of the GPU: what a fresh process pays before its first result. One measurement per
//! process (`bench/gpu/run.sh cold` runs each with an empty kernel cache, then again with the cache
//! that run left). Wall-clock milliseconds:
//!   gpu_coldstart first    context creation, then the first and a second `gpmp_poly_mul`-route product
//!                          (`zpoly::mul`, GPU backend) of two 2^16-coefficient, 64-bit polynomials
//!   gpu_coldstart warmup   context creation, then `gpmp_gpu_warmup` (every kernel module)
//!   gpu_coldstart tune     context creation, then `gpmp_gpu_tune` (the empirical search)
//! `GPMP_LOG=debug` adds each module's compile and load time and each call's stages.
use gpmp::int::IntRef;
use gpmp::runtime::{self, Backend};
use gpmp::testing::Rng;
use gpmp::zpoly::{self, Alg};
use std::time::Instant;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Coefficients of one limb each, every third negative.
fn view(v: &[u64]) -> Vec<IntRef<'_>> {
    v.iter().enumerate().map(|(i, x)| IntRef::new(i % 3 == 0, std::slice::from_ref(x))).collect()
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "first".into());
    let t = Instant::now();
    if let Err(e) = runtime::set_backend(Backend::Gpu) {
        println!("skipped: {e}");
        return;
    }
    println!("context: {:.1} ms", ms(t));
    match mode.as_str() {
        "first" => {
            let mut rng = Rng(0x5eed);
            let n = 1 << 16;
            let (f, g): (Vec<u64>, Vec<u64>) = ((0..n).map(|_| rng.next()).collect(), (0..n).map(|_| rng.next()).collect());
            let (vf, vg) = (view(&f), view(&g));
            for call in ["first call", "second call"] {
                let t = Instant::now();
                let h = zpoly::mul(&vf, &vg, Alg::Auto).expect("product");
                println!("{call}: {:.1} ms ({} coefficients)", ms(t), h.len());
            }
        }
        "warmup" => {
            let t = Instant::now();
            gpmp::gpu::compile::warmup().expect("warm-up");
            println!("warmup: {:.1} ms ({} modules)", ms(t), gpmp::gpu::kernels::all_specs().len());
        }
        "tune" => {
            let t = Instant::now();
            gpmp::ops::gpu::tune().expect("tune");
            println!("tune: {:.1} ms", ms(t));
        }
        m => {
            eprintln!("unknown mode {m}: first, warmup or tune");
            std::process::exit(2);
        }
    }
}
