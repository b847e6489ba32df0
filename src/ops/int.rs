//! Integer operations with a GPU path: one big product ([`mul_mag_start`]), batched products
//! ([`mul_n`], [`addmul_n`]) and batched modular multiplication and exponentiation over views
//! ([`mulmod_n`], [`powm_n`]).
use super::route::{on_gpu, route, route_when_ready, Op, Where};
use super::zvec::ZVec;
use crate::gpu::zvec::{self as gpu_zvec, PRODUCTS_MAX_LIMBS};
use crate::gpu::{batch as gpu_batch, device, ntt_mul};
use crate::int::{batch, mag_bits, max_bits, mul_mag, IntRef, ZList};
use crate::runtime::{self, Backend};
use crate::tuning::{INT_MUL_NTT_MIN_LIMBS, MPZ_BATCH_GPU_SPLIT_MIN_N};
use crate::{Error, Result};
use rayon::prelude::*;

pub use crate::gpu::zvec::Chunk as ProductChunk;

/// |a|·|b| (a.len() + b.len() limbs) where it was computed.
pub enum MagProduct {
    /// In host memory.
    Host(Vec<u64>),
    /// Computed on the device; [`ntt_mul::Product::finish`] downloads it into the caller's limbs, so
    /// that the caller can grow its output (which may be an operand) first.
    Device(Box<ntt_mul::Product>),
}

/// |a|·|b|: on the GPU ([`ntt_mul`]) for a shorter operand of at least [`INT_MUL_NTT_MIN_LIMBS`] limbs
/// when [`route`] says so, else [`mul_mag`] (GMP below that size, the NTT product above). Under
/// `Backend::Auto` a device failure before anything was written (device memory, say) falls back to
/// the CPU. Call it inside gpmp's pool.
pub fn mul_mag_start(a: &[u64], b: &[u64]) -> Result<MagProduct> {
    let m = a.len().min(b.len());
    // The product, and the NTT product's residues (at most about three times the product).
    crate::memory::check_host(32 * (a.len() as u128 + b.len() as u128), "the integer product")?;
    if m >= INT_MUL_NTT_MIN_LIMBS && route(Op::IntMul, m as u64)? == Where::Gpu {
        match ntt_mul::start(a, b) {
            Ok(p) => return Ok(MagProduct::Device(Box::new(p))),
            Err(_) if runtime::backend() == Backend::Auto => {}
            Err(e) => return Err(e),
        }
    }
    Ok(MagProduct::Host(mul_mag(a, b)?))
}

/// The results of a batch of products, where they were computed.
pub enum Products {
    /// In host memory, each slot sized by the bound of [`batch`].
    Host(ZList),
    /// On the device, downloaded chunk by chunk.
    Device(DeviceProducts),
}

/// Batched products on the device ([`gpu_zvec::Products`]), with the limbs each result may need.
/// The operands were read when it was made, and are not read again: the caller may grow outputs
/// that alias them.
pub struct DeviceProducts {
    job: gpu_zvec::Products,
    need: Vec<usize>,
}

impl DeviceProducts {
    /// Limbs result i may need (the bound of [`batch`]: la + lb, or max(lc, la + lb) + 1), taken out.
    pub fn take_need(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.need)
    }

    /// Queues the first downloads (before host work they may overlap).
    pub fn prefetch(&mut self) -> Result<()> {
        self.job.prefetch()
    }

    pub fn chunks(&self) -> usize {
        self.job.chunks()
    }

    /// Chunk k in host memory (in order; see [`gpu_zvec::Products::chunk`]).
    pub fn chunk(&mut self, k: usize) -> Result<ProductChunk<'_>> {
        self.job.chunk(k)
    }

    /// Ends the caller's stage `stage` in the call's stage timers.
    pub fn mark(&mut self, stage: &'static str) {
        self.job.mark(stage)
    }
}

/// r\[i\] = a\[i\]·b\[i\]: on the GPU ([`gpu_zvec::Products`]) when [`route`] says so for the
/// batch (its AUTO rule reads the longest operand; a cold process serves on the CPU while the
/// kernels compile in the background), else [`batch::mul`]. Under `Backend::Auto` a device failure
/// before anything was written falls back to the CPU. Call it inside gpmp's pool.
pub fn mul_n(a: &[IntRef], b: &[IntRef]) -> Result<Products> {
    products(None, a, b)
}

/// r\[i\] = c\[i\] + a\[i\]·b\[i\], placed as [`mul_n`] ([`batch::addmul`] on the CPU).
pub fn addmul_n(c: &[IntRef], a: &[IntRef], b: &[IntRef]) -> Result<Products> {
    products(Some(c), a, b)
}

fn products(c: Option<&[IntRef]>, a: &[IntRef], b: &[IntRef]) -> Result<Products> {
    let n = match c {
        Some(c) => batch::check_lens("addmul", &[c.len(), a.len(), b.len()])?,
        None => batch::check_lens("mul", &[a.len(), b.len()])?,
    };
    let longest = |x: &[IntRef]| x.par_iter().map(|v| v.mag.len()).max().unwrap_or(0);
    let (la, lb) = (longest(a), longest(b));
    let limbs = la.max(lb);
    if n > 0
        && limbs <= PRODUCTS_MAX_LIMBS
        && route_when_ready(Op::MpzMulN { limbs: limbs as u64 }, n as u64, || gpu_zvec::products_ready(la, lb, c.is_some()))? == Where::Gpu
    {
        let mut need = Vec::new();
        need.try_reserve_exact(n).map_err(|_| Error::OutOfMemory(format!("result sizes of {n} products")))?;
        (0..n)
            .into_par_iter()
            .map(|i| {
                let p = a[i].mag.len() + b[i].mag.len();
                c.map_or(p, |c| c[i].mag.len().max(p) + 1)
            })
            .collect_into_vec(&mut need);
        match gpu_zvec::Products::start(c, a, b) {
            Ok(job) => return Ok(Products::Device(DeviceProducts { job, need })),
            Err(e @ Error::Interrupted(_)) => return Err(e),
            Err(_) if runtime::backend() == Backend::Auto => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Products::Host(match c {
        Some(c) => batch::addmul(c, a, b)?,
        None => batch::mul(a, b)?,
    }))
}

/// r\[i\] = a\[i\]·b\[i\] mod m (m > 1; results in \[0, m)): on the GPU ([`gpu_batch`]) for an odd m the
/// device serves when [`route`] says so, else [`batch::mulmod`].
pub fn mulmod_n(a: &[IntRef], b: &[IntRef], m: IntRef) -> Result<ZList> {
    let n = batch::check_lens("mulmod", &[a.len(), b.len()])?;
    let mag = batch::modulus(m)?;
    if n > 0 && gpu_batch::supports(mag) && on_gpu(Op::MpzMulmodN, n as u64)? {
        return on_device(a, b, mag, false);
    }
    batch::mulmod(a, b, m)
}

/// r\[i\] = base\[i\]^exp\[i\] mod m (m > 1, exp\[i\] ≥ 0; results in \[0, m)): on the GPU for an odd m
/// the device serves when [`route`] says so (its AUTO rule reads the average bits(m)²·bits(e)), else
/// [`batch::powm`].
pub fn powm_n(base: &[IntRef], exp: &[IntRef], m: IntRef) -> Result<ZList> {
    let n = batch::check_lens("powm", &[base.len(), exp.len()])?;
    let mag = batch::modulus(m)?;
    batch::check_exponents(exp)?;
    if n > 0 && gpu_batch::supports(mag) && on_gpu(Op::MpzPowmN { work: powm_work(mag, exp) }, n as u64)? {
        return on_device(base, exp, mag, true);
    }
    batch::powm(base, exp, m)
}

/// The average work of one element of a powm batch, bits(m)²·bits(e) (`exp` non-empty).
fn powm_work(m: &[u64], exp: &[IntRef]) -> u64 {
    let mb = mag_bits(m) as u128;
    let eb: u128 = exp.iter().map(|e| e.bits() as u128).sum();
    (mb * mb * eb / exp.len() as u128).min(u64::MAX as u128) as u64
}

/// The device path of [`mulmod_n`] (`pow` false) and [`powm_n`] (`pow` true): upload, kernel,
/// download. The elements are split in contiguous blocks over the device set
/// ([`device::devices`], [`split_blocks`]): each block is staged in host memory here (in gpmp's
/// pool), then one thread per device uploads its block, runs the kernel and downloads the results,
/// and the blocks are gathered in order. Every element is computed by the same kernel whatever the
/// split, so the results equal one device's and the CPU's.
pub fn on_device(x: &[IntRef], y: &[IntRef], m: &[u64], pow: bool) -> Result<ZList> {
    let devs = device::devices();
    let blocks = split_blocks(x.len(), devs.len());
    let mv = IntRef::new(false, m);
    let run = |vx: &ZVec, vy: &ZVec| -> Result<ZVec> {
        let r = ZVec::zeros_on(vx.len(), mag_bits(m), true)?;
        if pow {
            ZVec::powm(&r, vx, vy, mv)
        } else {
            ZVec::mulmod(&r, vx, vy, mv)
        }
    };
    let staged = |x: &[IntRef], device: bool| -> Result<ZVec> {
        let mut v = ZVec::zeros_on(x.len(), max_bits(x).max(1), device)?;
        v.set(x)?;
        Ok(v)
    };
    if blocks.len() == 1 {
        return run(&staged(x, true)?, &staged(y, true)?)?.to_list();
    }
    let host: Vec<(ZVec, ZVec)> =
        blocks.iter().map(|b| Ok((staged(&x[b.clone()], false)?, staged(&y[b.clone()], false)?))).collect::<Result<_>>()?;
    let done = device::on_each(&devs[..blocks.len()], |i, _| {
        let (vx, vy) = &host[i];
        run(&vx.placed(true)?, &vy.placed(true)?)?.placed(false)
    })?;
    drop(host);
    let lists = done.iter().map(ZVec::to_list).collect::<Result<Vec<_>>>()?;
    let views: Vec<IntRef> = lists.iter().flat_map(ZList::views).collect();
    ZList::from_ints(&views)
}

/// The element blocks of a device batch of n elements over `devices` devices: one per device, at
/// least [`MPZ_BATCH_GPU_SPLIT_MIN_N`] elements each (so fewer devices for small batches, one block
/// for n below twice that), contiguous, in order, sizes differing by at most one.
pub fn split_blocks(n: usize, devices: usize) -> Vec<std::ops::Range<usize>> {
    let min = MPZ_BATCH_GPU_SPLIT_MIN_N as usize;
    device::shares(n, devices.min(n / min).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{coef, views, Coef, Rng};

    #[test]
    fn powm_auto_rule() {
        use crate::tuning::MPZ_POWM_N_GPU_MIN_N;
        let n = MPZ_POWM_N_GPU_MIN_N as usize;
        let wins = |m: &[u64], e: &[IntRef]| Op::MpzPowmN { work: powm_work(m, e) }.gpu_wins(e.len() as u64);
        let m = [u64::MAX; 4]; // 256 bits
        let (e256, e64) = ([u64::MAX; 4], [u64::MAX]);
        let (e256, e64) = (IntRef::new(false, &e256), IntRef::new(false, &e64));
        assert!(wins(&m, &vec![e256; n]));
        assert!(!wins(&m, &vec![e256; n - 1]));
        assert!(!wins(&m, &vec![e64; 1 << 16]));
        assert!(!wins(&m[..2], &vec![e256; 1 << 16]));
    }

    #[test]
    fn batches_split_in_ordered_blocks_of_at_least_the_minimum() {
        let min = MPZ_BATCH_GPU_SPLIT_MIN_N as usize;
        let whole = |n: usize| vec![std::ops::Range { start: 0, end: n }];
        assert_eq!(split_blocks(0, 4), whole(0));
        assert_eq!(split_blocks(2 * min - 1, 4), whole(2 * min - 1), "below two minimum blocks: one device");
        assert_eq!(split_blocks(2 * min, 1), whole(2 * min));
        assert_eq!(split_blocks(2 * min, 4), [0..min, min..2 * min]);
        assert_eq!(split_blocks(1 << 20, 4), [0..1 << 18, 1 << 18..2 << 18, 2 << 18..3 << 18, 3 << 18..4 << 18]);
        for (n, d) in [(5 * min + 3, 4), (1_000_003, 3), (1 << 20, 8)] {
            let b = split_blocks(n, d);
            assert!(b.len() <= d && b.iter().all(|r| r.len() >= min));
            assert!(b.windows(2).all(|w| w[0].end == w[1].start) && b[0].start == 0 && b.last().unwrap().end == n);
        }
    }

    /// On a machine without a GPU the routed calls equal the CPU batch kernels (the GPU suite
    /// compares the device path with them bit for bit).
    #[test]
    fn routed_batches_equal_the_cpu_kernels() {
        let mut rng = Rng(7);
        for bits in [64u64, 300, 1024] {
            let a: Vec<Coef> = (0..40).map(|i| coef(&mut rng, bits, i % 4)).collect();
            let e: Vec<Coef> = (0..40).map(|i| (false, coef(&mut rng, 40, i % 4).1)).collect();
            let m = (false, coef(&mut rng, bits, 0).1.iter().map(|&w| w | 1).collect::<Vec<_>>());
            let (av, ev, mv) = (views(&a), views(&e), IntRef::new(false, crate::int::normalized(&m.1)));
            assert_eq!(mulmod_n(&av, &av, mv).unwrap().views(), batch::mulmod(&av, &av, mv).unwrap().views());
            assert_eq!(powm_n(&av, &ev, mv).unwrap().views(), batch::powm(&av, &ev, mv).unwrap().views());
        }
        let x = vec![3u64; 2000];
        match mul_mag_start(&x, &x).unwrap() {
            MagProduct::Host(p) => assert_eq!(p, mul_mag(&x, &x).unwrap()),
            MagProduct::Device(_) => assert!(runtime::gpu_available()),
        }
    }

    /// The child of [`a_cold_process_serves_products_on_the_cpu_while_compiling`]: under AUTO, in
    /// a fresh process with an empty kernel cache, the first batch large enough for the GPU is served
    /// on the CPU at once while its kernel compiles in the background; once it is loaded the same
    /// batch runs on the device; both equal the CPU kernels.
    #[cfg(feature = "gpu-tests")]
    #[test]
    #[ignore = "needs a fresh process: run by a_cold_process_serves_products_on_the_cpu_while_compiling"]
    fn cold_products_child() {
        use crate::tuning::MPZ_MUL_N_GPU_MIN_N;
        use std::time::{Duration, Instant};
        assert_eq!(runtime::backend(), Backend::Auto);
        crate::gpu::device::current().unwrap(); // the CUDA context, which every GPU call needs first
        let mut rng = Rng(11);
        let n = MPZ_MUL_N_GPU_MIN_N.max(1 << 14) as usize;
        let (a, b): (Vec<Coef>, Vec<Coef>) =
            ((0..n).map(|i| coef(&mut rng, 1024, i as u64 % 4)).collect(), (0..n).map(|i| coef(&mut rng, 1000, i as u64 % 3)).collect());
        let (av, bv) = (views(&a), views(&b));
        let want = batch::mul(&av, &bv).unwrap();
        let t = Instant::now();
        let first = runtime::install(|| mul_n(&av, &bv)).unwrap();
        let first_ms = t.elapsed().as_secs_f64() * 1e3;
        match first {
            Products::Host(h) => assert_eq!(h.views(), want.views()),
            Products::Device(_) => panic!("a cold process waited for the compile"),
        }
        assert!(first_ms < 1000.0, "the first call took {first_ms:.1} ms");
        let t = Instant::now();
        while !gpu_zvec::products_ready(16, 16, false) {
            assert!(t.elapsed() < Duration::from_secs(120), "the background compile did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        let ready_s = t.elapsed().as_secs_f64();
        let Products::Device(mut job) = runtime::install(|| mul_n(&av, &bv)).unwrap() else { panic!("the loaded kernel is not used") };
        let mut out = vec![0u64; 32];
        for k in 0..job.chunks() {
            let ch = job.chunk(k).unwrap();
            for i in ch.range() {
                let (neg, len) = ch.get(i, &mut out);
                assert_eq!(IntRef::new(neg, &out[..len]), want.get(i), "element {i}");
            }
        }
        println!("cold products: first call {first_ms:.1} ms on the CPU, kernel ready {ready_s:.2} s later, then on the GPU");
    }

    /// See [`cold_products_child`].
    #[cfg(feature = "gpu-tests")]
    #[test]
    fn a_cold_process_serves_products_on_the_cpu_while_compiling() {
        let dir = std::env::temp_dir().join(format!("gpmp-cold-products-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let env = [("XDG_CACHE_HOME", dir.to_str().unwrap()), ("GPMP_BACKEND", "auto"), ("GPMP_KERNEL_CACHE", "on"), ("GPMP_LOG", "debug")];
        let out = crate::testing::run_in_child("ops::int::tests::cold_products_child", &env);
        assert!(out.contains("cold products: first call") && out.contains("compiled by NVRTC"), "{out}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The batch split over several devices (blocks of at least the split minimum, uneven last
    /// block) equals one device and the CPU (GMP) for mulmod and powm: random, zero, ±1, m − 1,
    /// negative bases, all-ones limbs, full-size exponents. Fewer than 2 devices: skipped.
    #[cfg(feature = "gpu-tests")]
    #[test]
    fn batches_over_several_devices_match_one_device_and_gmp() {
        let count = device::device_count();
        if count < 2 {
            eprintln!("skipped: {count} device(s), the split batch needs 2");
            return;
        }
        let mut rng = Rng(67);
        let n = 2 * MPZ_BATCH_GPU_SPLIT_MIN_N as usize * count + 77;
        for bits in [64u64, 1024] {
            let m = (false, coef(&mut rng, bits, 0).1.iter().map(|&w| w | 1 | (1 << 63)).collect::<Vec<_>>());
            let mm1 = {
                let mut v = m.1.clone();
                v[0] -= 1;
                v
            };
            let a: Vec<Coef> = (0..n)
                .map(|i| match i % 11 {
                    0 => (false, vec![]),
                    1 => (i % 2 == 0, vec![1]),
                    2 => (false, mm1.clone()),
                    3 => (true, vec![u64::MAX; (bits / 64) as usize + 1]),
                    _ => coef(&mut rng, bits + 30, i as u64 % 4),
                })
                .collect();
            let e: Vec<Coef> = (0..n).map(|i| (false, coef(&mut rng, if i % 97 == 0 { bits } else { 80 }, i as u64 % 4).1)).collect();
            let (av, ev, mv) = (views(&a), views(&e), IntRef::new(false, crate::int::normalized(&m.1)));
            for pow in [false, true] {
                let y = if pow { &ev } else { &av };
                let split = on_device(&av, y, mv.mag, pow).unwrap();
                let one = device::pinned(0, || on_device(&av, y, mv.mag, pow)).unwrap();
                let cpu = if pow { batch::powm(&av, y, mv) } else { batch::mulmod(&av, y, mv) }.unwrap();
                assert_eq!(split.views(), one.views(), "{bits} bits, pow {pow}: split vs one device");
                assert_eq!(split.views(), cpu.views(), "{bits} bits, pow {pow}: split vs GMP");
            }
        }
    }
}
