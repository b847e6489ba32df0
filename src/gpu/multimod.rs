//! Dense Z\[x\] multiplication on the GPU by the multi-modular NTT (\[EM\] §9 of the reference's
//! integer-polynomial-multiplication.md): h = f·g modulo k primes 2^61 < p_i < 2^62 with 2^32 | p_i − 1,
//! then Garner's CRT with the symmetric lift, all on the device (`kernels/multimod.cu`).
//!
//! Every |h_m| < 2^B, B = `product_bits`, so M = Π p_i > 2^(B+1) > 2·|h_m| fixes h_m as the residue in
//! (−M/2, M/2): k is the fewest primes with Σ log2 p_i > B + 1. The 62-bit primes (64-bit words) move
//! more coefficient bits per millisecond through the H100 NTT than 31-bit ones (bench/results/gpu-h100.md,
//! v5 at 2^24: 62 bits / 0.850 ms = 73 against 31 / 0.519 = 60; batched 2^16 × 256: 113 against 87) and
//! need half as many primes, hence half the launches and a quarter of the quadratic CRT work.
//!
//! Pipeline, one stream per call:
//! 1. host: coefficients → fixed-stride limbs and sign bytes (parallel), into a pinned staging buffer,
//!    uploaded in chunks as they are filled;
//! 2. `residues`: c mod p_i for every coefficient and prime (zero padding up to n), each prime's f and g
//!    rows side by side in its own device buffer of 2n words;
//! 3. forward cyclic NTTs of length n = 2^⌈log2(flen+glen−1)⌉ with [`super::ntt::Plan`] (both rows of a
//!    prime in one call); `pointwise`; inverse NTT (scaled by n^(−1)): the linear convolution mod p_i;
//! 4. `garner`: mixed-radix digits, limbs by Horner, symmetric lift → stride-S magnitudes and signs;
//! 5. download in chunks into pinned staging, copied into the [`ZSlab`] while the next chunk moves.
//!
//! Multi-limb coefficients may instead be split into their limbs (`plan_shape`): 3 primes on a
//! sequence 2L − 1 times longer, then `recombine` on the device. `GPMP_TRACE=1` prints the stage
//! times of every call to stderr.
//!
//! Device memory: (k + 1)·2n words for the rows, plus inputs, the CRT scratch (W·len words, W = limbs
//! of M) and the output. A product that does not fit the free device memory fails with
//! `OutOfMemory` before any allocation.
use super::compile::Spec;
use super::device::{self, Device};
use super::ntt::Plan;
use super::{driver_err, shield};
use crate::int::{ceil_log2, limbs_for_bits, product_bits, IntRef, ZSlab};
use crate::nmod::prime::{fourier_primes, invmod, mulmod, primitive_root_of_unity, shoup};
use crate::{Error, Result};
use cudarc::driver::{result as cu, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Bits of the primes (p < 2^62 also gives the NTT its lazy reduction).
pub const PRIME_BITS: u32 = 62;
/// 2^MIN_K divides p − 1: transforms up to 2^32 points.
const MIN_K: u32 = 32;
/// Most primes served (product coefficients up to about 2048·61 bits; the CRT is quadratic in k).
pub const MAX_PRIMES: usize = 2048;
/// Threads per block of the multimod kernels (`NT` in the kernel).
const NT: u32 = 256;
/// Words per staging chunk (8 MiB): the copy of one chunk overlaps the transfer of the next.
const CHUNK: usize = 1 << 20;

/// The specialisations of `kernels/multimod.cu`.
pub fn specs() -> Vec<Spec> {
    vec![spec()]
}

fn spec() -> Spec {
    Spec { source: "multimod.cu", defines: vec![("NT", NT as i64)] }
}

/// The fewest primes (from [`PRIME_BITS`]-bit Fourier primes, largest first) whose product exceeds
/// 2^bits (Σ log2 p_i > bits + 10^−3; log2 is accurate to 10^−12 here).
pub fn primes_for(bits: u64) -> Result<Vec<u64>> {
    static LIST: OnceLock<Mutex<Vec<u64>>> = OnceLock::new();
    let want = (bits as usize / 61 + 2).min(MAX_PRIMES);
    let mut list = LIST.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if list.len() < want {
        *list = fourier_primes(PRIME_BITS, MIN_K, (2 * list.len()).clamp(want.max(16), MAX_PRIMES));
    }
    let mut sum = 0.0f64;
    for (i, &p) in list.iter().enumerate() {
        sum += (p as f64).log2();
        if sum > bits as f64 + 1e-3 {
            return Ok(list[..=i].to_vec());
        }
    }
    Err(Error::SizeTooLarge(format!("{bits}-bit CRT modulus: the GPU product stops at {MAX_PRIMES} primes")))
}

/// [`crate::int::max_bits`] in parallel (inputs of millions of coefficients).
pub fn max_bits_par(c: &[IntRef]) -> u64 {
    c.par_iter().with_min_len(1 << 14).map(IntRef::bits).max().unwrap_or(0)
}

/// Whether the GPU product serves coefficients of `bits` bits (see [`MAX_PRIMES`]).
pub fn supports(bits: u64) -> bool {
    bits + 2 < MAX_PRIMES as u64 * 61
}

/// (w, ⌊w·2^64/p⌋) flattened.
fn pairs(ws: impl Iterator<Item = (u64, u64)>) -> Vec<u64> {
    ws.flat_map(|(w, p)| [w, shoup(w, p)]).collect()
}

/// 2^(64t) mod p_i for t < limbs, prime after prime, with Shoup companions.
fn limb_weights(primes: &[u64], limbs: usize) -> Vec<u64> {
    pairs(primes.iter().flat_map(|&p| {
        let r = ((1u128 << 64) % p as u128) as u64;
        (0..limbs).scan(1 % p, move |x, _| {
            let w = *x;
            *x = mulmod(*x, r, p);
            Some((w, p))
        })
    }))
}

/// Per prime (p, −p^(−1) mod 2^64, 2^64 mod p, its companion): the pointwise product's constants.
fn montgomery(primes: &[u64]) -> Vec<u64> {
    primes
        .iter()
        .flat_map(|&p| {
            let mut inv = p; // Newton: p·inv ≡ 1 mod 2^(3·2^i)
            for _ in 0..5 {
                inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
            }
            let r = ((1u128 << 64) % p as u128) as u64;
            [p, inv.wrapping_neg(), r, shoup(r, p)]
        })
        .collect()
}

/// Garner's triangle: row i holds g_ij = P_j·P_i^(−1) mod p_i for j < i and g_ii = P_i^(−1) mod p_i
/// (P_j = p_0⋯p_(j−1)), each with its companion.
fn garner_table(primes: &[u64]) -> Vec<u64> {
    let mut t = Vec::with_capacity(primes.len() * (primes.len() + 1));
    for (i, &p) in primes.iter().enumerate() {
        let mut pj = Vec::with_capacity(i + 1);
        let mut x = 1 % p;
        for &q in &primes[..i] {
            pj.push(x);
            x = mulmod(x, q % p, p);
        }
        let inv = invmod(x, p);
        t.extend(pairs(pj.iter().map(|&a| (mulmod(a, inv, p), p)).chain([(inv, p)])));
    }
    t
}

/// The limbs of M = Π p_i and of ⌊M/2⌋.
fn modulus(primes: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let m = crate::nmod::crt::prime_product(primes);
    let half = (0..m.len()).map(|i| (m[i] >> 1) | m.get(i + 1).map_or(0, |&h| h << 63)).collect();
    (m, half)
}

/// Device constants of one prime list, with the transform plans of one length.
struct Setup {
    primes: Vec<u64>,
    d_primes: CudaSlice<u64>,
    d_mont: CudaSlice<u64>,
    d_garner: CudaSlice<u64>,
    d_modulus: CudaSlice<u64>,
    d_half: CudaSlice<u64>,
    /// Limbs of M.
    w: usize,
    fwd: Vec<Arc<Plan<u64>>>,
    inv: Vec<Arc<Plan<u64>>>,
    funcs: [CudaFunction; 5],
}

/// The setup for (device, k primes, length 2^logn), built at first use and kept.
fn setup(dev: &Device, stream: &Arc<CudaStream>, primes: &[u64], logn: u32) -> Result<Arc<Setup>> {
    type Setups = Mutex<HashMap<(usize, usize, u32), Arc<Setup>>>;
    type Plans = Mutex<HashMap<(usize, u32, u64, bool), Arc<Plan<u64>>>>;
    static CACHE: OnceLock<Setups> = OnceLock::new();
    static PLANS: OnceLock<Plans> = OnceLock::new();
    let key = (dev.ordinal, primes.len(), logn);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(s) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Arc::clone(s));
    }
    let n = 1usize << logn;
    let plans = |p: u64, inverse: bool| -> Result<Arc<Plan<u64>>> {
        let k = (dev.ordinal, logn, p, inverse);
        let map = PLANS.get_or_init(Default::default);
        if let Some(pl) = map.lock().unwrap_or_else(|e| e.into_inner()).get(&k) {
            return Ok(Arc::clone(pl));
        }
        let w = primitive_root_of_unity(n as u64, p)?;
        let pl = Arc::new(Plan::<u64>::new(dev, stream, n, w, p, inverse)?);
        map.lock().unwrap_or_else(|e| e.into_inner()).insert(k, Arc::clone(&pl));
        Ok(pl)
    };
    let fwd = primes.iter().map(|&p| plans(p, false)).collect::<Result<Vec<_>>>()?;
    let inv = primes.iter().map(|&p| plans(p, true)).collect::<Result<Vec<_>>>()?;
    let module = super::compile::module(dev, &spec())?;
    let f = |name: &str| module.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e));
    let up = |t: &[u64]| stream.clone_htod(t).map_err(|e| driver_err("cuMemcpyHtoD", e));
    let (m, half) = modulus(primes);
    let s = Arc::new(Setup {
        primes: primes.to_vec(),
        d_primes: up(primes)?,
        d_mont: up(&montgomery(primes))?,
        d_garner: up(&garner_table(primes))?,
        d_modulus: up(&m)?,
        d_half: up(&half)?,
        w: m.len(),
        fwd,
        inv,
        funcs: [f("residues")?, f("pointwise")?, f("garner")?, f("residues_split")?, f("recombine")?],
    });
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, Arc::clone(&s));
    Ok(s)
}

/// The limb weights of (device, k primes, L limbs), kept.
fn weights(dev: &Device, stream: &Arc<CudaStream>, primes: &[u64], limbs: usize) -> Result<Arc<CudaSlice<u64>>> {
    type Weights = Mutex<HashMap<(usize, usize, usize), Arc<CudaSlice<u64>>>>;
    static CACHE: OnceLock<Weights> = OnceLock::new();
    let key = (dev.ordinal, primes.len(), limbs);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(w) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Arc::clone(w));
    }
    let w = Arc::new(stream.clone_htod(&limb_weights(primes, limbs)).map_err(|e| driver_err("cuMemcpyHtoD", e))?);
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, Arc::clone(&w));
    Ok(w)
}

/// Largest pinned staging buffer kept (1 GiB); larger products use pageable memory.
const STAGING_MAX_WORDS: usize = 1 << 27;

/// The process's pinned staging buffer (one; a call that finds it busy uses pageable memory).
fn staging() -> &'static Mutex<Option<PinnedHostSlice<u64>>> {
    static S: OnceLock<Mutex<Option<PinnedHostSlice<u64>>>> = OnceLock::new();
    S.get_or_init(Default::default)
}

/// Host memory for `len` words: the pinned staging buffer (grown to a power of two) if free, else a
/// pageable vector.
enum Host<'a> {
    Pinned(std::sync::MutexGuard<'a, Option<PinnedHostSlice<u64>>>),
    Pageable(Vec<u64>),
}

impl Host<'_> {
    fn get(dev: &Device, len: usize) -> Result<Host<'static>> {
        if len > STAGING_MAX_WORDS {
            return Ok(Host::Pageable(crate::int::try_zeroed_words(len)?));
        }
        if let Ok(mut g) = staging().try_lock() {
            if g.as_ref().is_some_and(|s| s.context() != &dev.ctx || s.len() < len) {
                *g = None;
            }
            if g.is_none() {
                // SAFETY: u64 has no invalid bit patterns; every word used is written first.
                // Flags 0: cached pinned memory (the default write-combined kind is slow to read).
                let s = unsafe { dev.ctx.alloc_pinned_with_flags::<u64>(len.next_power_of_two(), 0) };
                match s {
                    Ok(s) => *g = Some(s),
                    Err(_) => return Ok(Host::Pageable(crate::int::try_zeroed_words(len)?)),
                }
            }
            return Ok(Host::Pinned(g));
        }
        Ok(Host::Pageable(crate::int::try_zeroed_words(len)?))
    }

    fn slice(&mut self) -> Result<&mut [u64]> {
        match self {
            Host::Pinned(g) => g.as_mut().expect("allocated").as_mut_slice().map_err(|e| driver_err("pinned buffer", e)),
            Host::Pageable(v) => Ok(v),
        }
    }
}

/// f·g on the current device (f, g non-empty; f and g the same slice = a square): the
/// [`crate::zpoly`] contract. Coefficients beyond [`supports`] fail with `SizeTooLarge`.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    mul_bits(f, g, product_bits(max_bits_par(f), max_bits_par(g), f.len(), g.len()))
}

/// [`mul`] given `bits` = `product_bits` of f and g (the dispatcher has it already).
pub fn mul_bits(f: &[IntRef], g: &[IntRef], bits: u64) -> Result<ZSlab> {
    let hlen = f.len() + g.len() - 1;
    if bits == 0 {
        return ZSlab::zeros(hlen, 1);
    }
    let dev = device::current()?;
    shield("GPU poly_mul", || {
        let t0 = Instant::now();
        let job = Job::new(&dev, f, g, bits)?;
        let t1 = Instant::now();
        let mut h = ZSlab::zeros(hlen, limbs_for_bits(bits))?;
        if std::env::var_os("GPMP_TRACE").is_some() {
            let ms = |x: Instant, y: Instant| (y - x).as_secs_f64() * 1e3;
            eprintln!("GPMP_TRACE gpu poly_mul: {} primes, n = {}, setup {:.3} ms, output slab {:.3} ms", job.s.primes.len(), job.n, ms(t0, t1), ms(t1, Instant::now()));
        }
        job.run(f, g, &mut h)?;
        Ok(h)
    })
}

/// One product's sizes and device state.
struct Job {
    dev: Arc<Device>,
    stream: Arc<CudaStream>,
    s: Arc<Setup>,
    wts: Arc<CudaSlice<u64>>,
    n: usize,
    /// Limbs per input coefficient (the larger operand's).
    l: usize,
    square: bool,
    /// Split mode: T = 2L − 1 transform positions per coefficient (one limb each), else 1.
    t: usize,
    /// Split mode: limbs of a digit product d_q (the CRT's output stride).
    d: usize,
}

/// Device bytes of a product with k primes, length n, `inputs` coefficients of `l` limbs, output
/// stride `stride`, `pos` CRT positions of `d` limbs: (k + 1)·2n words of rows, the inputs, the CRT
/// scratch (at most k limbs a position), its output and the final output.
fn device_bytes(k: usize, n: usize, inputs: usize, l: usize, stride: usize, pos: usize, d: usize) -> u128 {
    let (k, n, pos) = (k as u128, n as u128, pos as u128);
    let words = (k + 1) * 2 * n + inputs as u128 * l as u128 + pos * (k + d as u128) + n * (stride as u128 + 1);
    8 * words + 2 * n + 2 * pos + 16 * k
}

/// Estimated device milliseconds of a product with k primes at length n and `pos` CRT positions
/// (H100, bench/results/gpu-h100.md): 3 transforms of about 25 Gpoints/s, 4 µs a launch (host
/// bound for small n), the quadratic CRT at about 10^8 Shoup products per ms.
fn cost_ms(k: usize, n: usize, pos: usize) -> f64 {
    let passes = super::ntt::passes(n.trailing_zeros(), 1 << 61) as f64;
    let (k, n) = (k as f64, n as f64);
    3.0 * k * n / 2.5e7 + (3.0 * k * passes + 4.0) * 0.004 + pos as f64 * k * k / 2e8
}

/// The shape of a product with `bits`-bit coefficients (`product_bits`), lengths la, lb and at
/// most `l` limbs a coefficient: (primes, T, d). Direct (T = 1): the coefficients' residues, primes
/// for 2^(bits+1). Split (T = 2l − 1): coefficient c becomes the l positions cT + j (its limbs, signed)
/// of a longer sequence, so that the digit products d_q = Σ f_(c,j) g_(c',j') at q = (c + c')T + j + j'
/// never mix coefficients (j + j' < T) and h_c = Σ_(j<T) d_(cT+j)·2^(64j); |d_q| < min(la,lb)·l·2^128
/// needs only 3 primes, at T times the length. The cheaper by [`cost_ms`].
fn plan_shape(bits: u64, la: usize, lb: usize, l: usize) -> Result<(Vec<u64>, usize, usize)> {
    let hlen = la + lb - 1;
    let direct = primes_for(bits + 1);
    if l < 2 {
        return Ok((direct?, 1, 0));
    }
    let t = 2 * l - 1;
    let dbits = 128 + ceil_log2(la.min(lb)) + ceil_log2(l);
    let split = primes_for(dbits + 1)?;
    let pos = hlen.checked_mul(t).filter(|p| p.next_power_of_two() >> MIN_K == 0);
    let Some(pos) = pos else { return Ok((direct?, 1, 0)) };
    let split_ms = cost_ms(split.len(), pos.next_power_of_two().max(2), pos);
    match direct {
        Ok(p) if cost_ms(p.len(), hlen.next_power_of_two().max(2), hlen) <= split_ms => Ok((p, 1, 0)),
        _ => Ok((split, t, limbs_for_bits(dbits))),
    }
}

fn launch_err(what: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |e| driver_err(what, e)
}

impl Job {
    /// Chooses the primes and the length, checks that the product fits the free device memory, and
    /// loads the constants and plans.
    fn new(dev: &Arc<Device>, f: &[IntRef], g: &[IntRef], bits: u64) -> Result<Job> {
        let hlen = f.len() + g.len() - 1;
        let l = f.par_iter().chain(g).with_min_len(1 << 14).map(|c| c.mag.len()).max().unwrap_or(0).max(1);
        let (primes, t, d) = plan_shape(bits, f.len(), g.len(), l)?;
        let logn = (hlen * t).next_power_of_two().max(2).trailing_zeros();
        if logn > MIN_K {
            return Err(Error::SizeTooLarge(format!("{hlen} product coefficients")));
        }
        let need = device_bytes(primes.len(), 1 << logn, f.len() + g.len(), l, limbs_for_bits(bits), hlen * t, d);
        dev.ctx.bind_to_thread().map_err(launch_err("cuCtxSetCurrent"))?;
        let (free, _) = cu::mem_get_info().map_err(launch_err("cuMemGetInfo"))?;
        if need > free as u128 {
            return Err(Error::OutOfMemory(format!("the GPU product needs {need} bytes of device memory, {free} are free")));
        }
        let stream = dev.stream()?;
        let s = setup(dev, &stream, &primes, logn)?;
        let wts = weights(dev, &stream, &primes, l)?;
        Ok(Job { dev: Arc::clone(dev), stream, s, wts, n: 1 << logn, l, square: std::ptr::eq(f, g), t, d })
    }

    /// Steps 2–4 on device-resident inputs (`lens`: the operands' lengths, one for a square; their
    /// limbs and signs one after another): the output magnitudes (stride S) and sign bytes.
    fn compute(&self, limbs: &CudaSlice<u64>, d_signs: &CudaSlice<u8>, lens: &[usize], hlen: usize, stride: usize) -> Result<(CudaSlice<u64>, CudaSlice<u8>)> {
        let (stream, k, n, l) = (&self.stream, self.s.primes.len(), self.n, self.l);
        let out_words = hlen * stride;
        let alloc = |len: usize| -> Result<CudaSlice<u64>> {
            // SAFETY: u64 words; every word is written before it is read.
            unsafe { stream.alloc::<u64>(len.max(1)) }.map_err(launch_err("cuMemAlloc"))
        };
        // 2–3. residues, transforms, pointwise, inverse transforms
        let mut rows: Vec<CudaSlice<u64>> = (0..k).map(|_| alloc(2 * n)).collect::<Result<_>>()?;
        let mut scratch = alloc(2 * n)?;
        let ptrs = |rows: &Vec<CudaSlice<u64>>| -> Result<CudaSlice<u64>> {
            let p: Vec<u64> = rows.iter().map(|r| r.device_ptr(stream).0).collect();
            stream.clone_htod(&p).map_err(launch_err("cuMemcpyHtoD"))
        };
        let grid = |m: usize, y: usize| -> Result<LaunchConfig> {
            let x = m.div_ceil(NT as usize);
            if x > i32::MAX as usize || y > 65535 {
                return Err(Error::SizeTooLarge(format!("a launch of {x} x {y} blocks")));
            }
            Ok(LaunchConfig { grid_dim: (x as u32, y as u32, 1), block_dim: (NT, 1, 1), shared_mem_bytes: 0 })
        };
        let p0 = ptrs(&rows)?;
        for (o, (&len, off)) in lens.iter().zip([0usize, n]).enumerate() {
            let first = lens[..o].iter().sum::<usize>();
            let lv = limbs.slice(first * l..(first + len) * l);
            let sv = d_signs.slice(first..first + len);
            let (len, lu, tu, nu, offu) = (len as u64, l as u32, self.t as u32, n as u64, off as u64);
            let split = self.t > 1;
            let mut b = stream.launch_builder(&self.s.funcs[if split { 3 } else { 0 }]);
            b.arg(&lv).arg(&sv).arg(&len).arg(&lu);
            if split {
                b.arg(&tu);
            }
            b.arg(&nu).arg(&self.s.d_primes).arg(&*self.wts).arg(&p0).arg(&offu);
            // SAFETY: matches `residues` / `residues_split`; rows hold 2n words, limbs len·L, signs
            // len, w k·L pairs.
            unsafe { b.launch(grid(n, k)?) }.map_err(launch_err("residues launch"))?;
        }
        let count = lens.len();
        for (row, plan) in rows.iter_mut().zip(&self.s.fwd) {
            if plan.run(stream, count, row, &mut scratch)? {
                std::mem::swap(row, &mut scratch);
            }
        }
        let p1 = ptrs(&rows)?;
        {
            let (nu, sq) = (n as u64, i32::from(self.square));
            let mut b = stream.launch_builder(&self.s.funcs[1]);
            b.arg(&p1).arg(&nu).arg(&self.s.d_mont).arg(&sq);
            // SAFETY: matches `pointwise`; rows hold 2n words (n read when squaring).
            unsafe { b.launch(grid(n, k)?) }.map_err(launch_err("pointwise launch"))?;
        }
        for (row, plan) in rows.iter_mut().zip(&self.s.inv) {
            if plan.run(stream, 1, row, &mut scratch)? {
                std::mem::swap(row, &mut scratch);
            }
        }
        drop(scratch);
        // 4. CRT over `pos` positions into stride `cs` (split mode: the digit products, then their
        // recombination into the coefficients)
        let (pos, cs) = if self.t > 1 { (hlen * self.t, self.d) } else { (hlen, stride) };
        let p2 = ptrs(&rows)?;
        let x = alloc(self.s.w * pos)?;
        let crt = alloc(pos * cs)?;
        // SAFETY: bytes, written by the kernels before being read.
        let bytes = |len: usize| unsafe { stream.alloc::<u8>(len.max(1)) }.map_err(launch_err("cuMemAlloc"));
        let crt_neg = bytes(pos)?;
        {
            let (len, ku, wu, su) = (pos as u64, k as u32, self.s.w as u32, cs as u32);
            let mut b = stream.launch_builder(&self.s.funcs[2]);
            b.arg(&p2).arg(&len).arg(&ku).arg(&self.s.d_primes).arg(&self.s.d_garner).arg(&self.s.d_modulus);
            b.arg(&self.s.d_half).arg(&wu).arg(&x).arg(&crt).arg(&su).arg(&crt_neg);
            // SAFETY: matches `garner`; rows hold ≥ pos words, x W·pos, crt pos·cs, crt_neg pos.
            unsafe { b.launch(grid(pos, 1)?) }.map_err(launch_err("garner launch"))?;
        }
        if self.t == 1 {
            return Ok((crt, crt_neg));
        }
        drop((x, rows));
        let acc = alloc((stride + 1) * hlen)?;
        let out = alloc(out_words)?;
        let neg = bytes(hlen)?;
        let (du, tu, len, su) = (self.d as u32, self.t as u32, hlen as u64, stride as u32);
        let mut b = stream.launch_builder(&self.s.funcs[4]);
        b.arg(&crt).arg(&crt_neg).arg(&du).arg(&tu).arg(&len).arg(&acc).arg(&out).arg(&su).arg(&neg);
        // SAFETY: matches `recombine`; crt holds hlen·T digits of D limbs, acc (S+1)·hlen, out hlen·S.
        unsafe { b.launch(grid(hlen, 1)?) }.map_err(launch_err("recombine launch"))?;
        Ok((out, neg))
    }

    fn run(&self, f: &[IntRef], g: &[IntRef], h: &mut ZSlab) -> Result<()> {
        let (stream, l) = (&self.stream, self.l);
        let hlen = h.len();
        let stride = h.stride();
        let alloc = |len: usize| -> Result<CudaSlice<u64>> {
            // SAFETY: u64 words; every word is written before it is read.
            unsafe { stream.alloc::<u64>(len.max(1)) }.map_err(launch_err("cuMemAlloc"))
        };
        // 1. inputs
        let trace = std::env::var_os("GPMP_TRACE").is_some();
        let t0 = trace.then(Instant::now);
        let ops: Vec<&[IntRef]> = if self.square { vec![f] } else { vec![f, g] };
        let total: usize = ops.iter().map(|o| o.len()).sum();
        let limbs = alloc(total * l)?;
        let lens: Vec<usize> = ops.iter().map(|o| o.len()).collect();
        let mut signs = crate::int::try_zeroed::<u8>(total)?;
        let mut at = 0;
        for op in &ops {
            let d = &mut signs[at..at + op.len()];
            d.par_iter_mut().zip(op.par_iter()).with_min_len(1 << 14).for_each(|(d, c)| *d = u8::from(c.neg));
            at += op.len();
        }
        let d_signs = stream.clone_htod(&signs).map_err(launch_err("cuMemcpyHtoD"))?;
        let out_words = hlen * stride;
        let mut host = Host::get(&self.dev, (total * l).max(out_words))?;
        let t_setup = trace.then(Instant::now);
        {
            let buf = host.slice()?;
            let (dptr, _sync) = limbs.device_ptr(stream);
            let per = (CHUNK / l).max(1);
            let mut at = 0;
            for op in &ops {
                for src in op.chunks(per) {
                    let dst = &mut buf[at * l..(at + src.len()) * l];
                    dst.par_chunks_mut(l).zip(src.par_iter()).with_min_len(1024).for_each(|(d, x)| {
                        d[..x.mag.len()].copy_from_slice(x.mag);
                        d[x.mag.len()..].fill(0);
                    });
                    // SAFETY: dst lies in the live buffer `host` (pinned: asynchronous DMA; it is
                    // not written again before the stream has passed this copy); the device range
                    // is inside `limbs`.
                    unsafe { cu::memcpy_htod_async(dptr + (at * l * 8) as u64, &*dst, stream.cu_stream()) }
                        .map_err(launch_err("cuMemcpyHtoD"))?;
                    at += src.len();
                }
            }
        }
        let t_up = trace.then(Instant::now);
        let (out, d_neg) = self.compute(&limbs, &d_signs, &lens, hlen, stride)?;
        let t_enq = trace.then(Instant::now);
        // 5. download, chunk by chunk, copying each into h while the next one moves
        let neg = stream.clone_dtoh(&d_neg).map_err(launch_err("cuMemcpyDtoH"))?;
        let t_dev = trace.then(Instant::now);
        let buf = host.slice()?;
        let (optr, _sync) = out.device_ptr(stream);
        let mut events = Vec::new();
        for (c, dst) in buf[..out_words].chunks_mut(CHUNK).enumerate() {
            // SAFETY: the device range is inside `out`; dst is not read before its event completes.
            unsafe { cu::memcpy_dtoh_async(dst, optr + (c * CHUNK * 8) as u64, stream.cu_stream()) }
                .map_err(launch_err("cuMemcpyDtoH"))?;
            events.push(stream.record_event(None).map_err(launch_err("cuEventRecord"))?);
        }
        let (mags, sgn) = h.par_blocks_mut(hlen).find_first(|_| true).expect("hlen >= 1");
        for ((dst, src), ev) in mags.chunks_mut(CHUNK).zip(buf[..out_words].chunks(CHUNK)).zip(&events) {
            ev.synchronize().map_err(launch_err("cuEventSynchronize"))?;
            dst.par_chunks_mut(1 << 14).zip(src.par_chunks(1 << 14)).for_each(|(d, s)| d.copy_from_slice(s));
        }
        sgn.par_iter_mut().zip(neg.par_iter()).with_min_len(1 << 14).for_each(|(d, &s)| *d = s != 0);
        stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
        if let (Some(t0), Some(a), Some(b), Some(c), Some(d)) = (t0, t_setup, t_up, t_enq, t_dev) {
            let ms = |x: Instant, y: Instant| (y - x).as_secs_f64() * 1e3;
            eprintln!(
                "GPMP_TRACE gpu poly_mul {} x {}: signs+staging {:.3} ms, limbs {:.3}, enqueue {:.3}, device wait {:.3}, download+copy {:.3}",
                f.len(), g.len(), ms(t0, a), ms(a, b), ms(b, c), ms(c, d), ms(d, Instant::now())
            );
        }
        Ok(())
    }
}

/// Kernel-only time of f·g on the current device, in milliseconds: residues, transforms, pointwise
/// products, inverse transforms and CRT on device-resident inputs, timed by events; the median of
/// `reps` runs after a warm-up run. Also returns the prime count and the transform length.
pub fn time_device(f: &[IntRef], g: &[IntRef], reps: usize) -> Result<(f64, usize, usize)> {
    let bits = product_bits(max_bits_par(f), max_bits_par(g), f.len(), g.len()).max(1);
    let dev = device::current()?;
    shield("GPU poly_mul timing", || {
        let job = Job::new(&dev, f, g, bits)?;
        let stream = &job.stream;
        let (hlen, stride, l) = (f.len() + g.len() - 1, limbs_for_bits(bits), job.l);
        let mut words = vec![0u64; (f.len() + g.len()) * l];
        for (d, x) in words.chunks_mut(l).zip(f.iter().chain(g)) {
            d[..x.mag.len()].copy_from_slice(x.mag);
        }
        let signs: Vec<u8> = f.iter().chain(g).map(|c| u8::from(c.neg)).collect();
        let limbs = stream.clone_htod(&words).map_err(launch_err("cuMemcpyHtoD"))?;
        let d_signs = stream.clone_htod(&signs).map_err(launch_err("cuMemcpyHtoD"))?;
        let ev = || {
            let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
            stream.context().new_event(flags).map_err(launch_err("cuEventCreate"))
        };
        let (start, end) = (ev()?, ev()?);
        let mut times = Vec::with_capacity(reps);
        for i in 0..=reps {
            start.record(stream).map_err(launch_err("cuEventRecord"))?;
            let out = job.compute(&limbs, &d_signs, &[f.len(), g.len()], hlen, stride)?;
            end.record(stream).map_err(launch_err("cuEventRecord"))?;
            end.synchronize().map_err(launch_err("cuEventSynchronize"))?;
            drop(out);
            if i > 0 {
                times.push(start.elapsed_ms(&end).map_err(launch_err("cuEventElapsedTime"))? as f64);
            }
        }
        times.sort_by(f64::total_cmp);
        Ok((times.get(times.len() / 2).copied().unwrap_or(f64::NAN), job.s.primes.len(), job.n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::crt::Crt;
    use crate::nmod::prime::{mul_shoup, submod};
    use crate::zpoly::testing::Rng;

    /// The `garner` kernel's arithmetic on the host: (negative, |x|) from the residues.
    fn garner_host(r: &[u64], primes: &[u64]) -> (bool, Vec<u64>) {
        let t = garner_table(primes);
        let (m, half) = modulus(primes);
        let mut v = vec![0u64; primes.len()];
        let mut at = 0;
        for (i, &p) in primes.iter().enumerate() {
            let g = |j: usize| (t[2 * (at + j)], t[2 * (at + j) + 1]);
            let mut x = mul_shoup(r[i], g(i).0, g(i).1, p);
            for j in 0..i {
                x = submod(x, mul_shoup(v[j], g(j).0, g(j).1, p), p);
            }
            v[i] = x;
            at += i + 1;
        }
        let mut x = vec![0u64; m.len()];
        x[0] = v[primes.len() - 1];
        for i in (0..primes.len() - 1).rev() {
            let mut carry = v[i] as u128;
            for l in x.iter_mut() {
                let s = *l as u128 * primes[i] as u128 + carry;
                *l = s as u64;
                carry = s >> 64;
            }
        }
        let greater = (0..m.len()).rev().find(|&i| x[i] != half[i]).is_some_and(|i| x[i] > half[i]);
        if greater {
            let mut borrow = 0u64;
            for (a, &b) in x.iter_mut().zip(&m) {
                let (d, b1) = b.overflowing_sub(*a);
                let (d, b2) = d.overflowing_sub(borrow);
                *a = d;
                borrow = u64::from(b1 | b2);
            }
        }
        (greater && x.iter().any(|&l| l != 0), x)
    }

    #[test]
    fn prime_counts_follow_the_bound() {
        for bits in [1u64, 60, 61, 122, 123, 124, 149, 500, 16000, 32778, 100_000] {
            let ps = primes_for(bits).unwrap();
            let sum: f64 = ps.iter().map(|&p| (p as f64).log2()).sum();
            let less: f64 = sum - (*ps.last().unwrap() as f64).log2();
            assert!(sum > bits as f64 && less <= bits as f64 + 1e-3, "{bits}: {} primes", ps.len());
            assert!(ps.iter().all(|&p| p < 1 << 62 && p > 1 << 61 && (p - 1) % (1 << MIN_K) == 0));
        }
        // 64-bit coefficients at length 2^20 need 3 primes.
        assert_eq!(primes_for(64 + 64 + 20 + 1).unwrap().len(), 3);
        assert!(primes_for(MAX_PRIMES as u64 * 62).is_err());
        assert!(supports(100_000) && !supports(MAX_PRIMES as u64 * 61));
    }

    /// The shape: one-limb coefficients stay direct; many-limb ones are split into limbs with 3
    /// primes when that is cheaper (the W2 grid's 1024- and 16384-bit cells), and the digit bound
    /// min(la, lb)·l·2^128 holds for those primes.
    #[test]
    fn shapes_follow_the_cost_model() {
        let shape = |la: usize, lb: usize, b: u64| {
            let l = limbs_for_bits(b);
            let (p, t, d) = plan_shape(product_bits(b, b, la, lb), la, lb, l).unwrap();
            (p.len(), t, d)
        };
        assert_eq!(shape(1 << 20, 1 << 20, 64), (3, 1, 0));
        assert_eq!(shape(1 << 22, 1 << 22, 64), (3, 1, 0));
        assert_eq!(shape(1 << 20, 1 << 20, 256).1, 1);
        assert_eq!(shape(1 << 12, 1 << 12, 1024), (3, 31, 3));
        assert_eq!(shape(1 << 10, 1 << 10, 16384), (3, 511, 3));
        // Beyond MAX_PRIMES the split shape still serves.
        let (p, t, _) = plan_shape(200_000, 4, 4, 1600).unwrap();
        assert_eq!((p.len(), t), (3, 3199));
        for (la, lb, l) in [(1usize, 1usize, 2usize), (1 << 12, 5, 16), (1 << 10, 1 << 10, 256)] {
            let (p, _, _) = plan_shape(u64::MAX / 4, la, lb, l).unwrap_or_else(|_| plan_shape(100_000, la, lb, l).unwrap());
            let sum: f64 = p.iter().map(|&q| (q as f64).log2()).sum();
            let need = 128.0 + ((la.min(lb) * l) as f64).log2() + 1.0;
            assert!(sum > need, "{la} {lb} {l}");
        }
    }

    #[test]
    fn constants_match_their_definitions() {
        let ps = primes_for(400).unwrap();
        let w = limb_weights(&ps, 5);
        for (i, &p) in ps.iter().enumerate() {
            for t in 0..5 {
                let want = ((1u128 << 64) % p as u128) as u64;
                let want = crate::nmod::prime::powmod(want, t as u64, p);
                assert_eq!(w[2 * (i * 5 + t)], want);
                assert_eq!(w[2 * (i * 5 + t) + 1], shoup(want, p));
            }
        }
        let c = montgomery(&ps);
        let mut rng = Rng(5);
        for (i, &p) in ps.iter().enumerate() {
            assert_eq!(c[4 * i], p);
            assert_eq!(p.wrapping_mul(c[4 * i + 1]), u64::MAX, "-p^-1");
            // The kernel's product, emulated: Montgomery then the Shoup factor 2^64.
            for _ in 0..100 {
                let (a, b) = (rng.below(p), rng.below(p));
                let lo = a.wrapping_mul(b);
                let hi = ((a as u128 * b as u128) >> 64) as u64;
                let mh = ((lo.wrapping_mul(c[4 * i + 1]) as u128 * p as u128) >> 64) as u64;
                let mut t = hi + mh + u64::from(lo != 0);
                if t >= p {
                    t -= p;
                }
                assert_eq!(mul_shoup(t, c[4 * i + 2], c[4 * i + 3], p), mulmod(a, b, p));
            }
        }
        assert_eq!(garner_table(&ps).len(), ps.len() * (ps.len() + 1));
    }

    /// The Garner arithmetic and constants agree with nmod::crt (itself checked against GMP) on
    /// random residues, 0, p − 1 and the values around ±M/2.
    #[test]
    fn garner_matches_the_cpu_crt() {
        let mut rng = Rng(9);
        for k in [1usize, 2, 3, 4, 7, 20] {
            let ps = primes_for(61 * k as u64).unwrap()[..k].to_vec();
            let crt = Crt::new(&ps);
            let (m, half) = modulus(&ps);
            let (mut v, mut x) = (vec![0; k], vec![0; crt.limbs()]);
            let mut cases: Vec<Vec<u64>> = (0..200).map(|_| ps.iter().map(|&p| rng.below(p)).collect()).collect();
            cases.push(vec![0; k]);
            cases.push(ps.iter().map(|&p| p - 1).collect());
            // ⌊M/2⌋ and ⌊M/2⌋ + 1 (= −⌊M/2⌋ symmetric).
            for add in [0u64, 1] {
                cases.push(ps.iter().map(|&p| {
                    let r = half.iter().rev().fold(0u128, |acc, &l| ((acc << 64) + l as u128) % p as u128) as u64;
                    (r + add) % p
                }).collect());
            }
            for r in cases {
                let want_neg = crt.signed(&r, &mut v, &mut x);
                let (neg, got) = garner_host(&r, &ps);
                assert_eq!(neg, want_neg, "k = {k}, r = {r:?}");
                assert_eq!(&got[..], &x[..m.len()], "k = {k}, r = {r:?}");
            }
        }
    }

    #[cfg(feature = "gpu-tests")]
    mod gpu {
        use super::*;
        use crate::zpoly::testing::{coef, oracle, poly, slab_coefs, views, Coef};
        use crate::zpoly::{self, Alg};

        fn check(f: &[Coef], g: &[Coef], what: &str) {
            let (fv, gv) = (views(f), views(g));
            let got = slab_coefs(&mul(&fv, &gv).unwrap_or_else(|e| panic!("{what}: {e}")));
            let want = if f.len().min(g.len()) <= 300 && f.len() * g.len() <= 1 << 18 {
                oracle(&fv, &gv)
            } else {
                slab_coefs(&zpoly::mul(&fv, &gv, Alg::SmallPrimeNtt).unwrap())
            };
            assert_eq!(got.len(), want.len(), "{what}");
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                assert_eq!(a, b, "{what}: coefficient {i}");
            }
        }

        /// Random and adversarial inputs against the GMP oracle: lengths 1, 2, unbalanced, around
        /// powers of two; 1 to 20000 bits; all-ones, powers of two, zeros, mixed signs; squares.
        #[test]
        fn matches_the_oracle() {
            let mut rng = Rng(41);
            let lens = [1usize, 2, 3, 31, 32, 33, 255, 256, 257, 1000];
            for &bits in &[1u64, 2, 63, 64, 65, 127, 128, 129, 300, 1000, 4000] {
                for (t, &fl) in lens.iter().enumerate() {
                    let gl = lens[(t * 7 + bits as usize) % lens.len()];
                    let style = rng.below(4);
                    let f = poly(&mut rng, fl, bits, style);
                    let g = poly(&mut rng, gl, bits, (style + 1) % 3);
                    check(&f, &g, &format!("{fl} x {gl}, {bits} bits, style {style}"));
                }
                let f = poly(&mut rng, 77, bits, 1);
                let fv = views(&f);
                let got = slab_coefs(&mul(&fv, &fv).unwrap());
                assert_eq!(got, oracle(&fv, &fv), "square, {bits} bits");
            }
            // Max coefficients ±(2^b − 1) everywhere (the bound is tight) and zeros.
            for &bits in &[64u64, 128, 1000, 20000] {
                for len in [1usize, 2, 64, 129] {
                    let c = coef(&mut rng, bits, 1).1;
                    let f: Vec<Coef> = (0..len).map(|_| (false, c.clone())).collect();
                    let g: Vec<Coef> = (0..len).map(|i| (i % 3 == 1, c.clone())).collect();
                    let neg: Vec<Coef> = (0..len).map(|_| (true, c.clone())).collect();
                    check(&f, &f, &format!("all 2^{bits}-1, len {len}"));
                    check(&f, &g, &format!("mixed signs, len {len}, {bits} bits"));
                    check(&neg, &f, &format!("negated, len {len}, {bits} bits"));
                }
            }
            let z: Vec<Coef> = vec![(false, vec![]); 9];
            let f = poly(&mut rng, 9, 100, 0);
            check(&z, &f, "zero times f");
            check(&[(true, vec![1])], &[(true, vec![1])], "-1 * -1");
            check(&[(false, vec![1])], &[(true, vec![1]), (false, vec![])], "1 * (-1 + 0x)");
        }

        /// Large and unbalanced sizes (several NTT passes, block boundaries of the kernels and of
        /// the staging chunks) against the CPU small-prime NTT.
        #[test]
        fn large_sizes_match_the_cpu() {
            let mut rng = Rng(43);
            for &(fl, gl, bits) in &[
                (1usize << 16, 1usize << 16, 64u64),
                ((1 << 17) + 5, 1 << 4, 64),
                (1 << 4, (1 << 17) + 3, 100),
                (5000, 4097, 1024),
                (1 << 19, (1 << 19) - 1, 64),
                (600_000, 3, 200),
            ] {
                let f = poly(&mut rng, fl, bits, 2);
                let g = poly(&mut rng, gl, bits, 0);
                check(&f, &g, &format!("{fl} x {gl}, {bits} bits"));
            }
        }

        #[test]
        fn backend_gpu_routes_poly_mul_to_the_device_and_agrees() {
            let mut rng = Rng(47);
            let f = poly(&mut rng, 3000, 200, 2);
            let g = poly(&mut rng, 2000, 200, 1);
            let (fv, gv) = (views(&f), views(&g));
            let cpu = zpoly::mul(&fv, &gv, Alg::SmallPrimeNtt).unwrap();
            assert_eq!(mul(&fv, &gv).unwrap(), cpu);
            assert!(zpoly::gpu_wanted(&fv, &gv, crate::runtime::Backend::Gpu).unwrap());
            assert!(!zpoly::gpu_wanted(&fv, &gv, crate::runtime::Backend::Cpu).unwrap());
        }

        #[test]
        fn absurd_sizes_fail_cleanly() {
            // 2^21 x 2^21 coefficients of 950 limbs: about 1960 primes and n = 2^22, so 130 GB of
            // rows; refused before any device or output allocation.
            let one = vec![u64::MAX; 950];
            let f: Vec<IntRef> = vec![IntRef::new(false, &one); 1 << 21];
            let g: Vec<IntRef> = vec![IntRef::new(true, &one); 1 << 21];
            match mul(&f, &g) {
                Err(Error::OutOfMemory(_)) => {}
                other => panic!("expected OutOfMemory, got {:?}", other.map(|h| h.len())),
            }
            // The device still works afterwards.
            let a = [IntRef::new(false, &[3]), IntRef::new(true, &[1])];
            let h = mul(&a, &a).unwrap();
            assert_eq!(slab_coefs(&h), vec![(false, vec![9]), (true, vec![6]), (false, vec![1])]);
        }

        /// Concurrent products from several host threads (one takes the pinned staging buffer, the
        /// others pageable memory).
        #[test]
        fn concurrent_calls() {
            std::thread::scope(|s| {
                for t in 0..6u64 {
                    s.spawn(move || {
                        let mut rng = Rng(100 + t);
                        for _ in 0..3 {
                            let f = poly(&mut rng, 2000, 150, 2);
                            let g = poly(&mut rng, 1500, 150, 0);
                            check(&f, &g, "concurrent");
                        }
                    });
                }
            });
        }
    }
}
