//! Generalized Fermat prime fields p = r^k + 1 on the GPU (`kernels/gfpf.cu`): the DFT of
//! [`Gfpf::dft`]/[`Gfpf::idft`] and the elementwise add/sub/mul, bit for bit the CPU's canonical
//! digit vectors (canonical vectors are unique, so any correct computation agrees).
//!
//! The DFT of N = 2^n points runs as ⌈n/m⌉ radix-M Stockham stages (M = 2^m = min(2k, 32), 16 for
//! k = 256; stage radices as equal as possible, so N need not be a power of M): stage s, with
//! stride Ns = M_0⋯M_{s−1}, multiplies v_t = x[j + t·N/M] by its twiddle ω^((N/(Ns·M))·(j mod Ns)·t)
//! (a general product, skipped where the exponent is 0), runs a DFT_M at ω^(N/M), which is a power
//! r^ts of r because ω^(N/2k) is a primitive 2k-th root (shifts only), and writes
//! X[(j div Ns)·Ns·M + (j mod Ns) + q·Ns]. For N = K^e with K = 2k ≤ 32 this is the papers' blocked K^e FFT (Prop. 2/3
//! of [BPF] in Stockham form): e·K^(e−1) shift-only DFT_K and fewer than (e−1)·N twiddle products.
//! Each stage's twiddles are a table T_s[(j mod Ns)·M + t] of Ns·M elements (≈ 1.07·N elements for
//! all stages), digit-major so that a warp's reads are coalesced, built on the host once per
//! (field, N, ω, direction) and kept on the device; the inverse uses ω^(−e) and folds 1/N into the
//! last stage's table (every entry then is a product: DFT is linear). Between stages the data are
//! digit-major (digit d of element i at d·N + i); the first stage reads and the last one writes in
//! the caller's layout.
use super::compile;
use super::device::{self, Device};
use super::kernels::{Kernel, Spec};
use super::{driver_err, shield};
use crate::gfpf::{builtin, Gfpf};
use crate::runtime;
use crate::{invalid, Error, Result};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// Most threads per block (the kernels' `__launch_bounds__`).
const NT: usize = 256;
/// Shared memory a stage's tile may use (the default limit without opt-in).
const SHARED_MAX: usize = 48 * 1024;

/// An elementwise operation (`op` of `gfpf_binary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add = 0,
    Sub = 1,
    Mul = 2,
}

/// `kernels/gfpf.cu`: the FFT stages and the elementwise arithmetic of r^k + 1, one specialisation per field.
pub static KERNEL: Kernel = Kernel { file: "gfpf.cu", source: include_str!("../../kernels/gfpf.cu"), int128: true, specs };

/// The kernel specialisation for r^k + 1: k, log2 k, r, the reciprocal v = ⌊(2^128 − 1)/d⌋ − 2^64
/// of the normalized d = r·2^sh (Möller–Granlund, as `gfpf::arith`) and sh.
pub fn spec(r: u64, k: usize) -> Spec {
    let sh = r.leading_zeros();
    let d = r << sh;
    let v = (u128::MAX / d as u128 - (1u128 << 64)) as u64;
    let half = |x: u64| ((x >> 32) as i64, (x & 0xffff_ffff) as i64);
    let ((rh, rl), (vh, vl)) = (half(r), half(v));
    let defines = vec![
        ("KD", k as i64),
        ("LOGK", k.trailing_zeros() as i64),
        ("R_HI", rh),
        ("R_LO", rl),
        ("V_HI", vh),
        ("V_LO", vl),
        ("SH", sh as i64),
    ];
    Spec { source: "gfpf.cu", defines }
}

/// The specialisations for the built-in primes (Table 2.1, k = 2 … 128; P3 and P4 among them).
/// Other fields compile their own at first use.
pub fn specs() -> Vec<Spec> {
    builtin::TABLE_2_1.iter().map(|&(k, ..)| spec(builtin::radix(k).expect("a table row"), k)).collect()
}

/// log2 of the largest stage radix: min(2k, 32), halved while one group's tile (k·(M + 1) words)
/// exceeds shared memory (k = 256: 16).
pub fn max_logm(k: usize) -> u32 {
    let mut m = (2 * k).min(32);
    while m > 2 && k * (m + 1) * 8 > SHARED_MAX {
        m /= 2;
    }
    m.trailing_zeros()
}

/// The stage radices (log2) for N = 2^logn: as equal as possible, larger first, each ≤ 2^max.
pub fn radices(logn: u32, max: u32) -> Vec<u32> {
    if logn == 0 {
        return Vec::new();
    }
    let s = logn.div_ceil(max);
    (0..s).map(|i| logn / s + u32::from(i < logn % s)).collect()
}

/// Groups (of 2^logm threads) per block: up to NT threads and the shared-memory limit, at most
/// `groups` (all powers of two).
fn groups_per_block(k: usize, logm: u32, groups: usize) -> usize {
    let m = 1usize << logm;
    let mut g = (NT / m).max(1);
    while g > 1 && k * g * (m + 1) * 8 > SHARED_MAX {
        g /= 2;
    }
    g.min(groups).max(1)
}

/// One stage of the schedule, on the host.
#[derive(Clone, Debug)]
pub struct Stage {
    pub logm: u32,
    pub logns: u32,
    /// DFT_M at root r^ts.
    pub ts: u32,
    /// The table holds 1/N·ω^e (inverse, last stage): no entry is skipped.
    pub scaled: bool,
    /// T[(j mod Ns)·M + t], digit-major (digit d of entry i at d·len + i); empty when all are 1.
    pub table: Vec<u64>,
}

/// Checks N (a power of 2 dividing p − 1) and ω (canonical, primitive N-th root of unity).
fn check_root(f: &Gfpf, n: usize, omega: &[u64]) -> Result<()> {
    if !n.is_power_of_two() || n.trailing_zeros() as u64 > f.two_adicity() {
        return invalid!("N = {n} is not a power of 2 dividing p − 1");
    }
    if omega.len() != f.k() || !f.is_canonical(omega) {
        return invalid!("ω is not a canonical element");
    }
    let primitive = if n == 1 { omega == f.from_u64(1) } else { f.is_minus_one(&f.pow_u64(omega, n as u64 / 2)) };
    if !primitive {
        return invalid!("ω is not a primitive {n}-th root of unity");
    }
    Ok(())
}

/// The stages of the length-N transform at ω (ω^(−1) and 1/N when `inverse`), tables included.
pub fn schedule(f: &Gfpf, n: usize, omega: &[u64], inverse: bool) -> Result<Vec<Stage>> {
    check_root(f, n, omega)?;
    let (k, k2) = (f.k(), 2 * f.k() as u32);
    let logms = radices(n.trailing_zeros(), max_logm(k));
    if logms.is_empty() {
        return Ok(Vec::new());
    }
    // ω^(N/m0) = r^t0, m0 = min(N, 2k); a stage of radix M ≤ m0 runs at ω^(N/M) = r^(t0·m0/M).
    let m0 = n.min(2 * k);
    let eta = f.pow_u64(omega, (n / m0) as u64);
    let t0 = f.log_r(&eta).ok_or_else(|| Error::Internal("ω^(N/M) is not a power of r".into()))? as u32;
    let needs_powers = logms.len() > 1;
    let pows = if needs_powers { f.powers(omega, n)? } else { Vec::new() };
    let ninv = if inverse { Some(f.inv(&f.from_u64(n as u64))?) } else { None };
    let mut stages = Vec::with_capacity(logms.len());
    let mut logns = 0;
    for (s, &logm) in logms.iter().enumerate() {
        let m = 1usize << logm;
        let mut ts = (t0 * (m0 / m) as u32) % k2;
        if inverse {
            ts = (k2 - ts) % k2;
        }
        let scaled = inverse && s + 1 == logms.len();
        let mut table = Vec::new();
        if logns > 0 || scaled {
            let len = m << logns;
            let step = n >> (logns + logm);
            let mut rows = crate::int::try_zeroed(len * k)?;
            rows.par_chunks_mut(k).enumerate().with_min_len(256).for_each(|(i, e)| {
                let (jp, t) = (i >> logm, i & (m - 1));
                let ex = (step * jp * t) % n;
                let ex = if inverse { (n - ex) % n } else { ex };
                if pows.is_empty() {
                    e.copy_from_slice(&f.pow_u64(omega, ex as u64));
                } else {
                    e.copy_from_slice(&pows[ex * k..][..k]);
                }
                if let (true, Some(ni)) = (scaled, &ninv) {
                    let w = e.to_vec();
                    f.mul(e, &w, ni);
                }
            });
            table = crate::int::try_zeroed(len * k)?;
            table.par_chunks_mut(len).enumerate().for_each(|(d, row)| {
                for (i, w) in row.iter_mut().enumerate() {
                    *w = rows[i * k + d];
                }
            });
        }
        stages.push(Stage { logm, logns, ts, scaled, table });
        logns += logm;
    }
    Ok(stages)
}

/// A schedule's tables on one device.
struct DevPlan {
    key: (usize, u64, usize, usize, Vec<u64>, bool),
    stages: Vec<(Stage, Option<CudaSlice<u64>>)>,
}

/// The device plans in use (a few: a P4 plan at N = 2^20 holds about 140 MB of tables).
static PLANS: Mutex<Vec<Arc<DevPlan>>> = Mutex::new(Vec::new());
const PLANS_KEPT: usize = 4;

fn plan(dev: &Device, stream: &Arc<CudaStream>, f: &Gfpf, n: usize, omega: &[u64], inverse: bool) -> Result<Arc<DevPlan>> {
    let key = (dev.ordinal, f.radix(), f.k(), n, omega.to_vec(), inverse);
    if let Some(p) = PLANS.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|p| p.key == key) {
        return Ok(Arc::clone(p));
    }
    let host = runtime::install(|| schedule(f, n, omega, inverse))?;
    let mut stages = Vec::with_capacity(host.len());
    for mut s in host {
        let t = if s.table.is_empty() { None } else { Some(stream.clone_htod(&s.table).map_err(|e| driver_err("cuMemcpyHtoD", e))?) };
        s.table = Vec::new();
        stages.push((s, t));
    }
    stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
    let p = Arc::new(DevPlan { key, stages });
    let mut c = PLANS.lock().unwrap_or_else(|e| e.into_inner());
    if c.len() >= PLANS_KEPT {
        c.remove(0);
    }
    c.push(Arc::clone(&p));
    Ok(p)
}

fn function(dev: &Device, f: &Gfpf, name: &str) -> Result<CudaFunction> {
    compile::module(dev, &spec(f.radix(), f.k()))?.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e))
}

/// (element stride, digit stride) of n elements of k digits: element-major or digit-major.
fn strides(n: usize, k: usize, digits: bool) -> (u64, u64) {
    if digits {
        (1, n as u64)
    } else {
        (k as u64, 1)
    }
}

/// Runs the stages on a (in the caller's layout), ping-ponging with b; returns whether the result
/// is in b. Asynchronous on `stream`.
#[allow(clippy::too_many_arguments)]
fn run_stages(
    stream: &Arc<CudaStream>,
    func: &CudaFunction,
    plan: &DevPlan,
    k: usize,
    n: usize,
    user: (u64, u64),
    a: &mut CudaSlice<u64>,
    b: &mut CudaSlice<u64>,
) -> Result<bool> {
    let mut in_b = false;
    let last = plan.stages.len().saturating_sub(1);
    for (i, (s, table)) in plan.stages.iter().enumerate() {
        let groups = n >> s.logm;
        let g = groups_per_block(k, s.logm, groups);
        let m = 1usize << s.logm;
        let cfg = LaunchConfig {
            grid_dim: ((groups / g) as u32, 1, 1),
            block_dim: ((g * m) as u32, 1, 1),
            shared_mem_bytes: (k * g * (m + 1) * 8) as u32,
        };
        let (ise, isd) = if i == 0 { user } else { (1, n as u64) };
        let (ose, osd) = if i == last { user } else { (1, n as u64) };
        let (src, dst) = if in_b { (&*b, &mut *a) } else { (&*a, &mut *b) };
        let (n64, scaled) = (n as u64, i32::from(s.scaled));
        let twlen = if table.is_some() { (m << s.logns) as u64 } else { 0 };
        let logg = g.trailing_zeros();
        let mut l = stream.launch_builder(func);
        l.arg(src).arg(dst).arg(&n64).arg(&s.logm).arg(&s.logns).arg(&logg).arg(&ise).arg(&isd).arg(&ose).arg(&osd);
        match table {
            Some(t) => l.arg(t),
            None => l.arg(src),
        };
        l.arg(&twlen).arg(&scaled).arg(&s.ts);
        // SAFETY: the arguments match gfpf_stage; src and dst hold n·k words, the table Ns·M·k, and
        // every index formed is below those (j < N/M, t, q < M, d < k).
        unsafe { l.launch(cfg) }.map_err(|e| driver_err("gfpf_stage launch", e))?;
        in_b = !in_b;
    }
    Ok(in_b)
}

/// Whether the n elements of x (layout as `digits`) are canonical.
fn check_elements(f: &Gfpf, x: &[u64], n: usize, digits: bool, what: &str) -> Result<()> {
    let k = f.k();
    if n.checked_mul(k) != Some(x.len()) {
        return invalid!("{what} has {} words, not {n}·{k}", x.len());
    }
    let bad = runtime::install(|| {
        if digits {
            (0..n).into_par_iter().with_min_len(4096).find_first(|&i| {
                let e: Vec<u64> = (0..k).map(|d| x[d * n + i]).collect();
                !f.is_canonical(&e)
            })
        } else {
            x.par_chunks(k).with_min_len(4096).position_first(|e| !f.is_canonical(e))
        }
    });
    match bad {
        Some(i) => invalid!("{what}[{i}] is not a canonical digit vector"),
        None => Ok(()),
    }
}

fn alloc(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<u64>> {
    if len.checked_mul(8).is_none_or(|b| b > isize::MAX as usize) {
        return Err(Error::OutOfMemory(format!("{len} words do not fit in the address space")));
    }
    // SAFETY: words have no invalid bit patterns; the contents are written before being read.
    unsafe { stream.alloc::<u64>(len.max(1)) }.map_err(|e| driver_err("cuMemAlloc", e))
}

/// In place, the DFT (or, with `inverse`, the inverse DFT with 1/N) of the N canonical elements
/// of x at ω, on the current device; `digits` selects the digit-major layout (k × N) instead of
/// the element-major one (N × k). Same checks and results as [`Gfpf::dft`].
pub fn dft(f: &Gfpf, x: &mut [u64], n: usize, omega: &[u64], inverse: bool, digits: bool) -> Result<()> {
    check_root(f, n, omega)?;
    check_elements(f, x, n, digits, "x")?;
    let dev = device::current()?;
    if n == 1 {
        return Ok(());
    }
    shield("GPU GFPF DFT", || {
        let stream = dev.stream()?;
        let plan = plan(&dev, &stream, f, n, omega, inverse)?;
        let func = function(&dev, f, "gfpf_stage")?;
        let mut a = alloc(&stream, x.len())?;
        let mut b = alloc(&stream, x.len())?;
        stream.memcpy_htod(&*x, &mut a).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        let in_b = run_stages(&stream, &func, &plan, f.k(), n, strides(n, f.k(), digits), &mut a, &mut b)?;
        stream.memcpy_dtoh(if in_b { &b } else { &a }, x).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))
    })
}

/// z = x op y elementwise for n = x.len()/k canonical elements on the current device (layout as
/// `digits`); z may be x or y's copy. Same checks and results as the CPU's add/sub/mul.
pub fn binary(f: &Gfpf, op: Op, z: &mut [u64], x: &[u64], y: &[u64], digits: bool) -> Result<()> {
    let k = f.k();
    let n = x.len() / k;
    check_elements(f, x, n, digits, "x")?;
    check_elements(f, y, n, digits, "y")?;
    if z.len() != x.len() {
        return invalid!("z has {} words, not {}", z.len(), x.len());
    }
    let dev = device::current()?;
    if n == 0 {
        return Ok(());
    }
    shield("GPU GFPF elementwise", || {
        let stream = dev.stream()?;
        let func = function(&dev, f, "gfpf_binary")?;
        let xd = stream.clone_htod(x).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        let yd = stream.clone_htod(y).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        let mut zd = alloc(&stream, z.len())?;
        launch_binary(&stream, &func, op, &mut zd, &xd, &yd, n, strides(n, k, digits))?;
        stream.memcpy_dtoh(&zd, z).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))
    })
}

#[allow(clippy::too_many_arguments)]
fn launch_binary(
    stream: &Arc<CudaStream>,
    func: &CudaFunction,
    op: Op,
    z: &mut CudaSlice<u64>,
    x: &CudaSlice<u64>,
    y: &CudaSlice<u64>,
    n: usize,
    (se, sd): (u64, u64),
) -> Result<()> {
    let blocks = n.div_ceil(NT).min(1 << 20) as u32;
    let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (NT as u32, 1, 1), shared_mem_bytes: 0 };
    let (n64, op) = (n as u64, op as i32);
    let mut l = stream.launch_builder(func);
    l.arg(z).arg(x).arg(y).arg(&n64).arg(&se).arg(&sd).arg(&op);
    // SAFETY: the arguments match gfpf_binary; x, y, z hold n·k words and i·se + d·sd < n·k.
    unsafe { l.launch(cfg) }.map_err(|e| driver_err("gfpf_binary launch", e))?;
    Ok(())
}

/// Random canonical elements (element-major), for timing.
fn sample(f: &Gfpf, n: usize) -> Vec<u64> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let r = f.radix();
    (0..n * f.k())
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % r
        })
        .collect()
}

/// Kernel-only time in ms of one forward DFT of N random elements (digit-major, device-resident,
/// tables ready): the median of `reps` runs timed by events after a warm-up.
pub fn time_dft(f: &Gfpf, n: usize, reps: usize) -> Result<f64> {
    let dev = device::current()?;
    let omega = f.root_of_unity(n)?;
    shield("GPU GFPF DFT timing", || {
        let stream = dev.stream()?;
        let plan = plan(&dev, &stream, f, n, &omega, false)?;
        let func = function(&dev, f, "gfpf_stage")?;
        let data = sample(f, n);
        let mut a = stream.clone_htod(&data).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        let mut b = alloc(&stream, data.len())?;
        super::autotune::time_ms(&stream, reps, || run_stages(&stream, &func, &plan, f.k(), n, (1, n as u64), &mut a, &mut b).map(|_| ()))
    })
}

/// Kernel-only time in ms of one elementwise `op` on n random elements (digit-major).
pub fn time_binary(f: &Gfpf, op: Op, n: usize, reps: usize) -> Result<f64> {
    let dev = device::current()?;
    shield("GPU GFPF elementwise timing", || {
        let stream = dev.stream()?;
        let func = function(&dev, f, "gfpf_binary")?;
        let data = sample(f, 2 * n);
        let xd = stream.clone_htod(&data[..n * f.k()]).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        let yd = stream.clone_htod(&data[n * f.k()..]).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        let mut zd = alloc(&stream, n * f.k())?;
        super::autotune::time_ms(&stream, reps, || launch_binary(&stream, &func, op, &mut zd, &xd, &yd, n, (1, n as u64)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfpf::Gfpf;
    use crate::testing::Rng;

    /// What gfpf_stage's threads do for one group: the inputs in bit-reversed order, then log2 M
    /// levels where lane t combines with lane t ^ h: lower a + b·r^s, upper a − b·r^s, with
    /// s = ts·(M/2h)·(t mod h) (radix-2 DIT at root r^ts).
    fn dit_like_kernel(f: &Gfpf, v: &[Vec<u64>], logm: u32, ts: u32) -> Vec<Vec<u64>> {
        let (m, k) = (1usize << logm, f.k());
        let k2 = 2 * k as u32;
        let mut x: Vec<Vec<u64>> = (0..m).map(|t| v[t.reverse_bits() >> (usize::BITS - logm)].clone()).collect();
        for lv in 0..logm {
            let h = 1usize << lv;
            let old = x.clone();
            for t in 0..m {
                let upper = t & h != 0;
                let (a, b) = if upper { (&old[t ^ h], &old[t]) } else { (&old[t], &old[t ^ h]) };
                let s = (ts * (m as u32 >> (lv + 1)) * (t & (h - 1)) as u32) & (k2 - 1);
                let mut bs = vec![0u64; k];
                f.mul_pow_r(&mut bs, b, s as usize);
                if upper {
                    f.sub(&mut x[t], a, &bs);
                } else {
                    f.add(&mut x[t], a, &bs);
                }
            }
        }
        x
    }

    /// The schedule run stage by stage as the kernel does (Stockham indices, tables, skipped
    /// entries, the DIT above), element-major.
    fn emulate(f: &Gfpf, x: &[u64], n: usize, stages: &[Stage]) -> Vec<u64> {
        let k = f.k();
        let mut cur = x.to_vec();
        for s in stages {
            let (m, ns) = (1usize << s.logm, 1usize << s.logns);
            let len = m * ns;
            let mut out = vec![0u64; n * k];
            for j in 0..n / m {
                let jp = j % ns;
                let v: Vec<Vec<u64>> = (0..m)
                    .map(|t| {
                        let mut e = cur[(j + t * (n / m)) * k..][..k].to_vec();
                        if !s.table.is_empty() && (s.scaled || (jp != 0 && t != 0)) {
                            let w: Vec<u64> = (0..k).map(|d| s.table[d * len + jp * m + t]).collect();
                            let mut z = vec![0u64; k];
                            f.mul(&mut z, &e, &w);
                            e = z;
                        }
                        e
                    })
                    .collect();
                let big_v = dit_like_kernel(f, &v, s.logm, s.ts);
                for (q, e) in big_v.iter().enumerate() {
                    let o = (j / ns) * ns * m + jp + q * ns;
                    out[o * k..][..k].copy_from_slice(e);
                }
            }
            cur = out;
        }
        cur
    }

    fn input(f: &Gfpf, rng: &mut Rng, n: usize) -> Vec<u64> {
        let k = f.k();
        let mut x: Vec<u64> = (0..n).flat_map(|_| crate::testing::gfpf::random(f, rng)).collect();
        if n >= 4 {
            f.set_minus_one(&mut x[k..2 * k]);
            x[2 * k..3 * k].fill(f.radix() - 1);
            x[..k].fill(0);
            x[3 * k] = 1;
            x[3 * k + 1..4 * k].fill(0);
        }
        x
    }

    #[test]
    fn radices_cover_the_length() {
        for max in 1..=5 {
            for logn in 0..=40 {
                let r = radices(logn, max);
                assert_eq!(r.iter().sum::<u32>(), logn);
                assert!(r.iter().all(|&l| (1..=max).contains(&l)));
                assert!(r.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
            }
        }
        assert_eq!(radices(20, 4), vec![4; 5]);
        assert_eq!(radices(20, 5), vec![5; 4]);
        assert_eq!(radices(18, 4), vec![4, 4, 4, 3, 3]);
        assert_eq!((max_logm(8), max_logm(16), max_logm(2), max_logm(128), max_logm(256)), (4, 5, 2, 5, 4));
        for k in [2usize, 4, 8, 16, 32, 64, 128, 256] {
            for logm in 1..=max_logm(k) {
                let g = groups_per_block(k, logm, usize::MAX);
                assert!(g.is_power_of_two() && g << logm <= NT && k * g * ((1 << logm) + 1) * 8 <= SHARED_MAX, "k {k} logm {logm}");
            }
        }
    }

    /// The stage schedule (tables, roots, Stockham indices, the kernel's DIT) reproduces the
    /// CPU DFT and inverse, for P3, P4, k = 2 and 4 and a tiny field, at N up to 2^10 (several
    /// stages, N not a power of 2k) and for FindOmega's root and another primitive root.
    #[test]
    fn emulated_schedule_matches_the_cpu_dft() {
        let mut rng = Rng(0x6F0);
        let fields = [
            Gfpf::builtin(8).unwrap(),
            Gfpf::builtin(16).unwrap(),
            Gfpf::builtin(2).unwrap(),
            Gfpf::builtin(4).unwrap(),
            Gfpf::new(6, 2).unwrap(),
        ];
        for f in &fields {
            let lg_max = f.two_adicity().min(if f.k() == 16 { 10 } else { 9 });
            for lg in [1, 2, 3, 4, 5, 6, 7, 9, 10].into_iter().filter(|&l| l <= lg_max) {
                let n = 1usize << lg;
                let w0 = f.root_of_unity(n).unwrap();
                for w in [w0.clone(), f.pow_u64(&w0, 3)] {
                    let x = input(f, &mut rng, n);
                    let mut want = x.clone();
                    f.dft_cpu(&mut want, n, &w).unwrap();
                    let got = emulate(f, &x, n, &schedule(f, n, &w, false).unwrap());
                    assert!(got == want, "forward r = {} k = {} N = {n}", f.radix(), f.k());
                    let back = emulate(f, &got, n, &schedule(f, n, &w, true).unwrap());
                    assert!(back == x, "inverse r = {} k = {} N = {n}", f.radix(), f.k());
                }
            }
        }
    }

    #[test]
    fn spec_constants() {
        let s = spec(builtin::radix(8).unwrap(), 8);
        let get = |name: &str| s.defines.iter().find(|d| d.0 == name).unwrap().1;
        let r = ((get("R_HI") as u64) << 32) | get("R_LO") as u64;
        assert_eq!(r, (1u64 << 63) + (1 << 34));
        assert_eq!((get("KD"), get("LOGK"), get("SH")), (8, 3, 0));
        let s4 = spec(builtin::radix(16).unwrap(), 16);
        assert!(s4.defines.contains(&("SH", 1)) && s4.defines.contains(&("KD", 16)));
        assert_eq!(specs().len(), builtin::TABLE_2_1.len());
    }

    #[test]
    fn bad_arguments_are_rejected_before_any_device_work() {
        let f = Gfpf::builtin(8).unwrap();
        let w = f.root_of_unity(16).unwrap();
        let mut x = vec![0u64; 16 * 8];
        let w2 = f.pow_u64(&w, 2);
        assert!(matches!(dft(&f, &mut x, 16, &w2, false, false), Err(Error::InvalidArgument(_))));
        assert!(matches!(dft(&f, &mut x[..15 * 8], 15, &w, false, false), Err(Error::InvalidArgument(_))));
        x[9] = f.radix();
        assert!(matches!(dft(&f, &mut x, 16, &w, false, false), Err(Error::InvalidArgument(_))));
        assert!(matches!(dft(&f, &mut x, 16, &w, false, true), Err(Error::InvalidArgument(_))));
        let y = vec![0u64; 16 * 8];
        let mut z = vec![0u64; 16 * 8];
        assert!(matches!(binary(&f, Op::Mul, &mut z, &x, &y, false), Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn without_cuda_valid_calls_report_no_device() {
        if device::driver_present() {
            eprintln!("skipped: libcuda is present on this machine");
            return;
        }
        let f = Gfpf::builtin(8).unwrap();
        let w = f.root_of_unity(64).unwrap();
        let mut x = vec![0u64; 64 * 8];
        assert!(matches!(dft(&f, &mut x, 64, &w, false, false), Err(Error::NoCudaDevice(_))));
        let y = x.clone();
        let mut z = x.clone();
        assert!(matches!(binary(&f, Op::Add, &mut z, &x, &y, true), Err(Error::NoCudaDevice(_))));
    }

    #[cfg(feature = "gpu-tests")]
    mod gpu {
        use super::*;
        use crate::testing::gfpf::elements;

        fn transpose(v: &[u64], n: usize, k: usize) -> Vec<u64> {
            (0..k).flat_map(|j| (0..n).map(move |i| v[i * k + j])).collect()
        }

        /// GPU DFT and inverse against the CPU bit for bit: P3, P4, k = 4 (r close to 2^64), k = 2
        /// and r = 6 (tiny r), N from 2 to 2^17 (one to five stages, N a power of 2k or not), both
        /// layouts, FindOmega's root and ω^3, inputs with 0, 1, p − 1 and all digits r − 1.
        #[test]
        fn dft_matches_the_cpu() {
            let mut rng = Rng(0x6F1);
            let fields = [
                Gfpf::builtin(8).unwrap(),
                Gfpf::builtin(16).unwrap(),
                Gfpf::builtin(4).unwrap(),
                Gfpf::builtin(2).unwrap(),
                Gfpf::new(6, 2).unwrap(),
            ];
            for f in &fields {
                let k = f.k();
                for lg in [1u32, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 15, 16, 17] {
                    if lg as u64 > f.two_adicity() || (k == 16 && lg == 17) {
                        continue;
                    }
                    let n = 1usize << lg;
                    let w0 = f.root_of_unity(n).unwrap();
                    let roots = if lg <= 12 { vec![w0.clone(), f.pow_u64(&w0, 3)] } else { vec![w0] };
                    for w in roots {
                        let x = input(f, &mut rng, n);
                        let mut want = x.clone();
                        runtime::install(|| f.dft_cpu(&mut want, n, &w)).unwrap();
                        for digits in [false, true] {
                            let mut y = if digits { transpose(&x, n, k) } else { x.clone() };
                            dft(f, &mut y, n, &w, false, digits).unwrap();
                            let got = if digits { transpose(&y, k, n) } else { y.clone() };
                            assert!(got == want, "forward r = {} k = {k} N = {n} digits = {digits}", f.radix());
                            dft(f, &mut y, n, &w, true, digits).unwrap();
                            let back = if digits { transpose(&y, k, n) } else { y };
                            assert!(back == x, "inverse r = {} k = {k} N = {n} digits = {digits}", f.radix());
                        }
                    }
                }
            }
        }

        /// The benchmark size: P3 at N = 2^20 against the CPU, and a round trip.
        #[test]
        fn p3_at_two_to_the_20() {
            let mut rng = Rng(0x6F2);
            let f = Gfpf::builtin(8).unwrap();
            let n = 1 << 20;
            let w = f.root_of_unity(n).unwrap();
            let x = input(&f, &mut rng, n);
            let mut want = x.clone();
            runtime::install(|| f.dft_cpu(&mut want, n, &w)).unwrap();
            let mut y = x.clone();
            dft(&f, &mut y, n, &w, false, false).unwrap();
            assert!(y == want);
            dft(&f, &mut y, n, &w, true, false).unwrap();
            assert!(y == x);
        }

        /// add/sub/mul on every pair of edge and random elements (and a long random vector), both
        /// layouts, against the CPU's operations.
        #[test]
        fn elementwise_matches_the_cpu() {
            let mut rng = Rng(0x6F3);
            let fields = [
                Gfpf::builtin(8).unwrap(),
                Gfpf::builtin(16).unwrap(),
                Gfpf::builtin(4).unwrap(),
                Gfpf::new(6, 2).unwrap(),
                Gfpf::new(2, 16).unwrap(),
            ];
            for f in &fields {
                let k = f.k();
                let els = elements(f, &mut rng, 20);
                let mut x: Vec<u64> = els.iter().flat_map(|a| els.iter().flat_map(move |_| a.iter().copied())).collect();
                let mut y: Vec<u64> = els.iter().flat_map(|_| els.iter().flatten().copied()).collect();
                for _ in 0..100_003 {
                    x.extend(crate::testing::gfpf::random(f, &mut rng));
                    y.extend(crate::testing::gfpf::random(f, &mut rng));
                }
                let n = x.len() / k;
                type Core = fn(&Gfpf, &mut [u64], &[u64], &[u64]);
                let ops: [(Op, Core); 3] = [(Op::Add, Gfpf::add), (Op::Sub, Gfpf::sub), (Op::Mul, Gfpf::mul)];
                for (op, core) in ops {
                    let mut want = vec![0u64; n * k];
                    for i in 0..n {
                        core(f, &mut want[i * k..][..k], &x[i * k..][..k], &y[i * k..][..k]);
                    }
                    let mut z = vec![0u64; n * k];
                    binary(f, op, &mut z, &x, &y, false).unwrap();
                    assert!(z == want, "{op:?} rows r = {} k = {k}", f.radix());
                    let (xd, yd) = (transpose(&x, n, k), transpose(&y, n, k));
                    binary(f, op, &mut z, &xd, &yd, true).unwrap();
                    assert!(z == transpose(&want, n, k), "{op:?} digits r = {} k = {k}", f.radix());
                }
            }
        }

        #[test]
        fn absurd_sizes_are_out_of_memory_and_timing_runs() {
            let dev = device::current().unwrap();
            let stream = dev.stream().unwrap();
            assert!(matches!(alloc(&stream, 1 << 40), Err(Error::OutOfMemory(_))));
            let f = Gfpf::builtin(16).unwrap();
            assert!(time_dft(&f, 1 << 10, 2).unwrap() > 0.0);
            assert!(time_binary(&f, Op::Mul, 1 << 10, 2).unwrap() > 0.0);
        }
    }
}
