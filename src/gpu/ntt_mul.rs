//! One big-integer product r = a·b on the GPU, limbs in and limbs out (`gpmp_mpz_mul` under the GPU
//! backend), the GPU twin of the CPU's three-prime NTT product (`src/int/ntt_mul.rs`). The limbs
//! are the coefficients of a(x), b(x) at x = 2^64; the coefficients of the product,
//! c_m = Σ a_j·b_(m−j) < min(la, lb)·2^128, are recovered exactly from three primes
//! 2^61 < p_i < 2^62 (M = p_0·p_1·p_2 > 2^183 > c_m while min(la, lb) < 2^55), and
//! r = Σ c_m·2^(64m) is resolved on the device. Counting: 64-bit digits need 128 + log2 n bits per
//! coefficient, so three 62-bit primes on n = 2^⌈log2(la+lb−1)⌉ points (3·3 transforms of n words);
//! 32-bit digits would fit two primes but on 2n points (2·3 transforms of 2n words: 4/3 the work).
//! 2^30-bit operands: n = 2^25, about 10n words = 2.7 GB of device memory.
//!
//! Pipeline (`kernels/ntt_mul.cu`), on a copy stream and a compute stream:
//! 1. upload: the raw limbs through a ring of [`SLOTS`] pinned staging chunks of [`CHUNK`] words
//!    (the host copy of one chunk overlaps the DMA of the others; the ring is kept for the process);
//! 2. `residues`: an operand's limbs mod the three primes, zero-padded to n, one row per prime;
//! 3. forward NTTs ([`super::ntt::Plan`]) of a's rows as soon as a is on the device (they overlap
//!    b's upload), then of b's (none for a square), `pointwise` (Montgomery, leaving c·2^(−64)),
//!    inverse NTTs;
//! 4. `crt_carry`: Garner per coefficient (the constants undo the 2^(−64)), the three limbs of c_m
//!    summed into limb positions, carries rippled within each thread's [`E`] positions, a (G, P)
//!    carry-lookahead scan within each block; `carry_scan`: the block carries; `carry_apply`: the
//!    threads whose carry-in is 1 add it. The limbs on the device are then exactly r;
//! 5. download through the same ring straight into the caller's limb buffer (each chunk copied out
//!    while the next ones move).
//!
//! The streams and device buffers of a length are kept for the next call of that length (up to
//! n = 2^[`KEEP_MAX_LOGN`]).
//!
//! [`start`] returns after the operands have been read (so an output may alias them); [`Product::finish`]
//! checks the device work for errors before writing anything into the output. `GPMP_LOG=debug` logs
//! the stage times of every call.
use super::device::{self, Device};
use super::kernels::{Kernel, Spec};
use super::ntt::Plan;
use super::{driver_err, shield};
use crate::nmod::prime::{fourier_primes, invmod, mulmod, neg_inverse, primitive_root_of_unity, shoup};
use crate::{invalid, Error, Result};
use cudarc::driver::{
    result as cu, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Threads per block of the elementwise kernels and of `crt_carry` (`NT` in the kernel).
const NT: u32 = 256;
/// Limb positions per thread of `crt_carry` (`E` in the kernel).
pub const E: usize = 8;
/// Threads of the single `carry_scan` block (`SCAN_NT` in the kernel).
const SCAN_NT: u32 = 1024;
/// Words per pinned staging chunk (8 MiB).
pub const CHUNK: usize = 1 << 20;
/// Staging chunks in the ring.
const SLOTS: usize = 4;
/// Largest transform length (log2): 2^32 | p_i − 1.
const MAX_LOGN: u32 = 32;

/// `kernels/ntt_mul.cu`: residues, pointwise products, CRT and carry resolution of one big-integer product.
pub static KERNEL: Kernel = Kernel { file: "ntt_mul.cu", source: include_str!("../../kernels/ntt_mul.cu"), int128: false, specs };

/// The specialisation of `kernels/ntt_mul.cu`.
pub fn specs() -> Vec<Spec> {
    vec![spec()]
}

fn spec() -> Spec {
    Spec { source: "ntt_mul.cu", defines: vec![("NT", NT as i64), ("E", E as i64)] }
}

/// The three primes: the largest below 2^62 with 2^32 | p − 1.
pub fn primes() -> [u64; 3] {
    static P: OnceLock<[u64; 3]> = OnceLock::new();
    *P.get_or_init(|| {
        let v = fourier_primes(62, MAX_LOGN, 3);
        [v[0], v[1], v[2]]
    })
}

/// Garner's constants of `kernels/ntt_mul.cu` (value, Shoup companion pairs, then the primes):
/// R = 2^64 mod p_0; R·p_0^(−1), p_0^(−1) mod p_1; R·(p_0p_1)^(−1), (p_0p_1)^(−1), p_1^(−1) mod p_2
/// (R = 2^64 mod that prime: the pointwise products leave c·2^(−64)).
pub fn garner_constants(p: [u64; 3]) -> Vec<u64> {
    let r = |q: u64| ((1u128 << 64) % q as u128) as u64;
    let inv01 = invmod(mulmod(p[0] % p[2], p[1] % p[2], p[2]), p[2]);
    let pairs = [
        (r(p[0]), p[0]),
        (mulmod(r(p[1]), invmod(p[0] % p[1], p[1]), p[1]), p[1]),
        (invmod(p[0] % p[1], p[1]), p[1]),
        (mulmod(r(p[2]), inv01, p[2]), p[2]),
        (inv01, p[2]),
        (invmod(p[1] % p[2], p[2]), p[2]),
    ];
    let mut k: Vec<u64> = pairs.iter().flat_map(|&(w, q)| [w, shoup(w, q)]).collect();
    k.extend(p);
    k
}

/// The kernels' arithmetic for one coefficient on the host: c from the residues r_i of c·2^(−64)
/// (three limbs). The reference for the device's Garner step in the tests.
pub fn garner_host(r: [u64; 3], k: &[u64]) -> [u64; 3] {
    use crate::nmod::prime::{mul_shoup, submod};
    let p = [k[12], k[13], k[14]];
    let v0 = mul_shoup(r[0], k[0], k[1], p[0]);
    let v1 = submod(mul_shoup(r[1], k[2], k[3], p[1]), mul_shoup(v0, k[4], k[5], p[1]), p[1]);
    let v2 =
        submod(submod(mul_shoup(r[2], k[6], k[7], p[2]), mul_shoup(v0, k[8], k[9], p[2]), p[2]), mul_shoup(v1, k[10], k[11], p[2]), p[2]);
    let y = v1 as u128 + p[1] as u128 * v2 as u128;
    let lo = p[0] as u128 * (y as u64) as u128 + v0 as u128;
    let hi = p[0] as u128 * (y >> 64) + (lo >> 64);
    [lo as u64, hi as u64, (hi >> 64) as u64]
}

/// The device's limb resolution on the host (same blocking: threads of [`E`] positions with
/// carry-in 0, then the carry-ins by the (G, P) recurrence): r\[j\] for j < total from the three-limb
/// coefficients c (c.len() < total). The reference for `crt_carry`/`carry_scan`/`carry_apply`.
pub fn carry_host(c: &[[u64; 3]], total: usize) -> Vec<u64> {
    let at = |m: i64| if m >= 0 && (m as usize) < c.len() { c[m as usize] } else { [0; 3] };
    // s_j = c_j[0] + c_(j−1)[1] + c_(j−2)[2] = lo + 2^64 h
    let s = |j: i64| {
        let v = at(j)[0] as u128 + at(j - 1)[1] as u128 + at(j - 2)[2] as u128;
        (v as u64, (v >> 64) as u64)
    };
    let mut out = vec![0u64; total];
    let threads = total.div_ceil(E);
    let mut gp = Vec::with_capacity(threads);
    for (t, chunk) in out.chunks_mut(E).enumerate() {
        let j0 = (t * E) as i64;
        let (mut carry, mut allmax) = (0u64, true);
        for (i, w) in chunk.iter_mut().enumerate() {
            let j = j0 + i as i64;
            let (lo, _) = s(j);
            let (wj, o) = lo.overflowing_add(s(j - 1).1 + carry);
            *w = wj;
            carry = o as u64;
            allmax &= wj == u64::MAX;
        }
        gp.push((carry == 1, allmax && chunk.len() == E));
    }
    let mut cin = false;
    for (t, chunk) in out.chunks_mut(E).enumerate() {
        if cin {
            for w in chunk.iter_mut() {
                *w = w.wrapping_add(1);
                if *w != 0 {
                    break;
                }
            }
        }
        cin = gp[t].0 || (gp[t].1 && cin);
    }
    out
}

/// Device constants and transform plans for one length 2^logn.
struct Setup {
    p: [u64; 3],
    /// (p_i, −p_i^(−1) mod 2^64) for `pointwise`.
    d_mont: CudaSlice<u64>,
    /// [`garner_constants`].
    d_garner: CudaSlice<u64>,
    fwd: Vec<Plan<u64>>,
    inv: Vec<Plan<u64>>,
    /// residues, pointwise, crt_carry, carry_scan, carry_apply.
    funcs: [CudaFunction; 5],
}

/// The setup of (device, 2^logn), built at first use and kept.
fn setup(dev: &Device, stream: &Arc<CudaStream>, logn: u32) -> Result<Arc<Setup>> {
    type Setups = Mutex<HashMap<(usize, u32), Arc<Setup>>>;
    static CACHE: OnceLock<Setups> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(s) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&(dev.ordinal, logn)) {
        return Ok(Arc::clone(s));
    }
    let n = 1usize << logn;
    let p = primes();
    let plan = |q: u64, inverse: bool| Plan::<u64>::new(dev, stream, n, primitive_root_of_unity(n as u64, q)?, q, inverse);
    let fwd = p.iter().map(|&q| plan(q, false)).collect::<Result<Vec<_>>>()?;
    let inv = p.iter().map(|&q| plan(q, true)).collect::<Result<Vec<_>>>()?;
    let module = super::compile::module(dev, &spec())?;
    let f = |name: &str| module.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e));
    let mont: Vec<u64> = p.iter().flat_map(|&q| [q, neg_inverse(q)]).collect();
    let up = |t: &[u64]| stream.clone_htod(t).map_err(|e| driver_err("cuMemcpyHtoD", e));
    let s = Arc::new(Setup {
        p,
        d_mont: up(&mont)?,
        d_garner: up(&garner_constants(p))?,
        fwd,
        inv,
        funcs: [f("residues")?, f("pointwise")?, f("crt_carry")?, f("carry_scan")?, f("carry_apply")?],
    });
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert((dev.ordinal, logn), Arc::clone(&s));
    Ok(s)
}

/// The ring of pinned staging chunks; `done[s]` marks the end of the last DMA that used slot s.
struct Ring {
    slots: Vec<PinnedHostSlice<u64>>,
    done: Vec<Option<CudaEvent>>,
}

/// The process's ring (one; allocated at first use on the device that first needs it).
fn ring() -> &'static Mutex<Option<Ring>> {
    static R: OnceLock<Mutex<Option<Ring>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

impl Ring {
    fn new(dev: &Device) -> Result<Ring> {
        let slots = (0..SLOTS)
            .map(|_| {
                // SAFETY: u64 has no invalid bit patterns; every word read is written first.
                // Flags 0: cached pinned memory (write-combined memory is slow to read back).
                unsafe { dev.ctx.alloc_pinned_with_flags::<u64>(CHUNK, 0) }.map_err(|e| driver_err("cuMemHostAlloc", e))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Ring { slots, done: (0..SLOTS).map(|_| None).collect() })
    }

    /// Waits until slot s is free and returns its words.
    fn slot(&mut self, s: usize) -> Result<&mut [u64]> {
        if let Some(ev) = self.done[s].take() {
            ev.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))?;
        }
        self.slots[s].as_mut_slice().map_err(|e| driver_err("pinned buffer", e))
    }

    fn mark(&mut self, s: usize, stream: &Arc<CudaStream>) -> Result<()> {
        self.done[s] = Some(stream.record_event(None).map_err(|e| driver_err("cuEventRecord", e))?);
        Ok(())
    }
}

/// The ring, locked, allocated on `dev` if needed (reallocated when it belongs to another device).
fn lock_ring(dev: &Device) -> Result<std::sync::MutexGuard<'static, Option<Ring>>> {
    let mut g = ring().lock().unwrap_or_else(|e| e.into_inner());
    if g.as_ref().is_some_and(|r| r.slots[0].context() != &dev.ctx) {
        *g = None;
    }
    if g.is_none() {
        *g = Some(Ring::new(dev)?);
    }
    Ok(g)
}

/// dst = src, in parallel for long slices.
fn par_copy(dst: &mut [u64], src: &[u64]) {
    dst.par_chunks_mut(1 << 15).zip(src.par_chunks(1 << 15)).for_each(|(d, s)| d.copy_from_slice(s));
}

/// Copies `src` into the device buffer `dst` through the ring, chunk by chunk (asynchronous: the
/// host's part is done when this returns).
fn upload(ring: &mut Ring, stream: &Arc<CudaStream>, src: &[u64], dst: &CudaSlice<u64>, next: &mut usize) -> Result<()> {
    let (dptr, _sync) = dst.device_ptr(stream);
    for (c, chunk) in src.chunks(CHUNK).enumerate() {
        let s = *next;
        *next = (s + 1) % SLOTS;
        let buf = &mut ring.slot(s)?[..chunk.len()];
        par_copy(buf, chunk);
        // SAFETY: buf is pinned and not written again before `done[s]` has completed; the device
        // range lies inside `dst` (src.len() words).
        unsafe { cu::memcpy_htod_async(dptr + (c * CHUNK * 8) as u64, &*buf, stream.cu_stream()) }
            .map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        ring.mark(s, stream)?;
    }
    Ok(())
}

/// Copies the device words `src` into `dst` (same length) through the ring: SLOTS chunks in flight,
/// each copied out on the host as soon as it has arrived.
fn download(ring: &mut Ring, stream: &Arc<CudaStream>, src: &impl DevicePtr<u64>, dst: &mut [u64]) -> Result<()> {
    let (sptr, _sync) = src.device_ptr(stream);
    let len = dst.len();
    let chunks = len.div_ceil(CHUNK);
    let issue = |ring: &mut Ring, c: usize| -> Result<()> {
        let s = c % SLOTS;
        let m = CHUNK.min(len - c * CHUNK);
        let buf = &mut ring.slot(s)?[..m];
        // SAFETY: the device range lies inside `src`; buf is not read before `done[s]` completes.
        unsafe { cu::memcpy_dtoh_async(buf, sptr + (c * CHUNK * 8) as u64, stream.cu_stream()) }
            .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        ring.mark(s, stream)
    };
    for c in 0..chunks.min(SLOTS) {
        issue(ring, c)?;
    }
    for (c, out) in dst.chunks_mut(CHUNK).enumerate() {
        let buf = ring.slot(c % SLOTS)?;
        par_copy(out, &buf[..out.len()]);
        if c + SLOTS < chunks {
            issue(ring, c + SLOTS)?;
        }
    }
    Ok(())
}

/// Transform lengths (log2) whose device buffers are kept between calls (one set per length and
/// device, about 10n words: 1.3 GB at 2^24); longer products allocate theirs per call.
const KEEP_MAX_LOGN: u32 = 24;

/// The streams and device buffers of one product of transform length n = 2^logn.
struct Work {
    logn: u32,
    /// Kernels and the download.
    stream: Arc<CudaStream>,
    /// The uploads (so that a's transforms overlap b's upload).
    copy: Arc<CudaStream>,
    /// The operands' limbs (n words each ≥ la, lb).
    inp: [CudaSlice<u64>; 2],
    /// Per prime, a's and b's rows, forward-transformed; then a's row holds the product mod p_i.
    ra: [CudaSlice<u64>; 3],
    rb: [CudaSlice<u64>; 3],
    scratch: CudaSlice<u64>,
    /// The product's limbs (n + 1 ≥ la + lb words).
    out: CudaSlice<u64>,
    /// `crt_carry`'s per-thread prefixes and per-block aggregates.
    flags: CudaSlice<u8>,
    agg: CudaSlice<u8>,
}

type WorkCache = Mutex<HashMap<(usize, u32), Work>>;

fn work_cache() -> &'static WorkCache {
    static C: OnceLock<WorkCache> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// `crt_carry` blocks for `total` limb positions.
fn carry_blocks(total: usize) -> usize {
    total.div_ceil(E).div_ceil(NT as usize)
}

impl Work {
    /// The kept buffers of (device, logn) if free, else new ones.
    fn take(dev: &Device, logn: u32) -> Result<Work> {
        if let Some(w) = work_cache().lock().unwrap_or_else(|e| e.into_inner()).remove(&(dev.ordinal, logn)) {
            return Ok(w);
        }
        let n = 1usize << logn;
        let stream = dev.stream()?;
        let copy = dev.stream()?;
        let words = |len: usize| -> Result<CudaSlice<u64>> {
            // SAFETY: u64 words, written before they are read.
            unsafe { stream.alloc::<u64>(len) }.map_err(|e| driver_err("cuMemAlloc", e))
        };
        let blocks = carry_blocks(n + 1);
        // SAFETY: bytes, written by crt_carry before being read.
        let bytes = |len: usize| unsafe { stream.alloc::<u8>(len) }.map_err(|e| driver_err("cuMemAlloc", e));
        let w = Work {
            logn,
            inp: [words(n)?, words(n)?],
            ra: [words(n)?, words(n)?, words(n)?],
            rb: [words(n)?, words(n)?, words(n)?],
            scratch: words(n)?,
            out: words(n + 1)?,
            flags: bytes(blocks * NT as usize)?,
            agg: bytes(blocks)?,
            stream,
            copy,
        };
        // The copy stream may use the buffers once their (stream-ordered) allocation is done.
        let ev = w.stream.record_event(None).map_err(|e| driver_err("cuEventRecord", e))?;
        w.copy.wait(&ev).map_err(|e| driver_err("cuStreamWaitEvent", e))?;
        Ok(w)
    }

    /// Keeps the buffers for the next product of this length (its work must be complete).
    fn keep(self, dev: &Device) {
        if self.logn <= KEEP_MAX_LOGN {
            work_cache().lock().unwrap_or_else(|e| e.into_inner()).insert((dev.ordinal, self.logn), self);
        }
    }
}

/// A product whose operands are on the device and whose kernels are enqueued.
pub struct Product {
    dev: Arc<Device>,
    work: Work,
    total: usize,
    trace: Option<(Instant, Instant)>,
}

/// Starts |a|·|b| on the current device (a, b non-empty; the same slice = a square). Returns once a
/// and b have been read: the caller may then reuse their memory (an output aliasing an input).
pub fn start(a: &[u64], b: &[u64]) -> Result<Product> {
    if a.is_empty() || b.is_empty() {
        return invalid!("the GPU product needs non-empty operands");
    }
    let total = a.len() + b.len();
    let logn = (total - 1).next_power_of_two().max(2).trailing_zeros();
    if logn > MAX_LOGN || a.len().min(b.len()) >= 1 << 55 {
        return Err(Error::SizeTooLarge(format!("a GPU product of {} x {} limbs", a.len(), b.len())));
    }
    let dev = device::current()?;
    shield("GPU big-integer product", || {
        let t0 = Instant::now();
        let mut w = Work::take(&dev, logn)?;
        let s = setup(&dev, &w.stream, logn)?;
        let square = std::ptr::eq(a, b);
        let t1 = Instant::now();
        {
            let mut g = lock_ring(&dev)?;
            let ring = g.as_mut().expect("allocated");
            let mut next = 0;
            let ops: &[&[u64]] = if square { &[a] } else { &[a, b] };
            for (i, op) in ops.iter().enumerate() {
                upload(ring, &w.copy, op, &w.inp[i], &mut next)?;
                let ev = w.copy.record_event(None).map_err(|e| driver_err("cuEventRecord", e))?;
                w.stream.wait(&ev).map_err(|e| driver_err("cuStreamWaitEvent", e))?;
                let Work { stream, inp, ra, rb, scratch, .. } = &mut w;
                forward(&s, stream, &inp[i], op.len(), if i == 0 { ra } else { rb }, scratch)?;
            }
        }
        let t2 = Instant::now();
        finish_device(&s, &mut w, square, total)?;
        let trace = crate::log::enabled(crate::log::Level::Debug).then(|| {
            crate::log::log(crate::log::Level::Debug, "gpu mpz_mul", || {
                format!(
                    "{} x {} limbs (n = 2^{logn}): setup {:.3} ms, upload (host side, a's transforms enqueued between) {:.3} ms, enqueue {:.3} ms",
                    a.len(),
                    b.len(),
                    ms(t0, t1),
                    ms(t1, t2),
                    ms(t2, Instant::now())
                )
            });
            (t0, Instant::now())
        });
        Ok(Product { dev: Arc::clone(&dev), work: w, total, trace })
    })
}

fn ms(x: Instant, y: Instant) -> f64 {
    (y - x).as_secs_f64() * 1e3
}

impl Product {
    /// The number of limbs of the product (la + lb; the top ones may be zero).
    pub fn len(&self) -> usize {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Waits for the device, then writes the product's limbs into r (r.len() = [`Product::len`]).
    /// Nothing is written when the device work failed.
    pub fn finish(self, r: &mut [u64]) -> Result<()> {
        if r.len() != self.total {
            return invalid!("output of {} limbs for a product of {}", r.len(), self.total);
        }
        let Product { dev, work, total, trace } = self;
        shield("GPU big-integer product", || {
            let t3 = Instant::now();
            work.stream.synchronize().map_err(|e| driver_err("GPU product (kernels)", e))?;
            let t4 = Instant::now();
            {
                let mut g = lock_ring(&dev)?;
                download(g.as_mut().expect("allocated"), &work.stream, &work.out.slice(..total), r)?;
            }
            work.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
            if let Some((t0, t2)) = trace {
                crate::log::log(crate::log::Level::Debug, "gpu mpz_mul", || {
                    format!(
                        "host until the wait {:.3} ms, device wait {:.3} ms (upload DMA tail + kernels), download + copy {:.3} ms, total {:.3} ms",
                        ms(t2, t3),
                        ms(t3, t4),
                        ms(t4, Instant::now()),
                        ms(t0, Instant::now())
                    )
                });
            }
            work.keep(&dev);
            Ok(())
        })
    }
}

/// r = |a|·|b| on the current device (r.len() = a.len() + b.len(), a, b non-empty; a and b the same
/// slice = a square).
pub fn mul_into(a: &[u64], b: &[u64], r: &mut [u64]) -> Result<()> {
    start(a, b)?.finish(r)
}

/// A launch of `m` threads in blocks of `nt` (grid y = `y`).
fn grid(m: usize, nt: u32, y: u32) -> Result<LaunchConfig> {
    let x = m.div_ceil(nt as usize).max(1);
    if x > i32::MAX as usize {
        return Err(Error::SizeTooLarge(format!("a launch of {x} blocks")));
    }
    Ok(LaunchConfig { grid_dim: (x as u32, y, 1), block_dim: (nt, 1, 1), shared_mem_bytes: 0 })
}

fn launch_err(what: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |e| driver_err(what, e)
}

/// Steps 2–3a for one operand of `len` limbs in `src`: its residues mod the three primes into
/// `rows` (zero-padded to n), forward-transformed.
fn forward(
    s: &Setup,
    stream: &Arc<CudaStream>,
    src: &CudaSlice<u64>,
    len: usize,
    rows: &mut [CudaSlice<u64>; 3],
    scratch: &mut CudaSlice<u64>,
) -> Result<()> {
    let n = scratch.len();
    {
        let (lenu, nu, off) = (len as u64, n as u64, 0u64);
        let [r0, r1, r2] = &mut *rows;
        let mut b = stream.launch_builder(&s.funcs[0]);
        b.arg(src).arg(&lenu).arg(&nu).arg(r0).arg(r1).arg(r2).arg(&off).arg(&s.p[0]).arg(&s.p[1]).arg(&s.p[2]);
        // SAFETY: matches `residues`; src holds ≥ len words, each row n.
        unsafe { b.launch(grid(n, NT, 1)?) }.map_err(launch_err("residues launch"))?;
    }
    for (row, plan) in rows.iter_mut().zip(&s.fwd) {
        if plan.run(stream, 1, row, scratch)? {
            std::mem::swap(row, scratch);
        }
    }
    Ok(())
}

/// Steps 3b–4 on the forward-transformed rows of `w`: pointwise products (a² when `square`),
/// inverse transforms, CRT and carries into `w.out[..total]`.
fn finish_device(s: &Setup, w: &mut Work, square: bool, total: usize) -> Result<()> {
    let stream = &w.stream;
    let n = w.scratch.len();
    {
        let (nu, sq) = (n as u64, i32::from(square));
        let rb = if square { &w.ra } else { &w.rb };
        let mut b = stream.launch_builder(&s.funcs[1]);
        b.arg(&w.ra[0]).arg(&w.ra[1]).arg(&w.ra[2]).arg(&rb[0]).arg(&rb[1]).arg(&rb[2]).arg(&nu).arg(&s.d_mont).arg(&sq);
        // SAFETY: matches `pointwise`; every row holds n words.
        unsafe { b.launch(grid(n, NT, 3)?) }.map_err(launch_err("pointwise launch"))?;
    }
    for (row, plan) in w.ra.iter_mut().zip(&s.inv) {
        if plan.run(stream, 1, row, &mut w.scratch)? {
            std::mem::swap(row, &mut w.scratch);
        }
    }
    let blocks = carry_blocks(total);
    {
        let (clen, tu) = ((total - 1) as u64, total as u64);
        let mut b = stream.launch_builder(&s.funcs[2]);
        b.arg(&w.ra[0]).arg(&w.ra[1]).arg(&w.ra[2]).arg(&clen).arg(&tu).arg(&s.d_garner).arg(&w.out).arg(&w.flags).arg(&w.agg);
        // SAFETY: matches `crt_carry`; rows hold n ≥ clen words, out n + 1 ≥ total, flags and agg
        // are sized for carry_blocks(n + 1) ≥ blocks.
        unsafe { b.launch(grid(blocks * NT as usize, NT, 1)?) }.map_err(launch_err("crt_carry launch"))?;
    }
    {
        let nb = blocks as u64;
        let mut b = stream.launch_builder(&s.funcs[3]);
        b.arg(&w.agg).arg(&nb);
        // SAFETY: matches `carry_scan`; agg holds ≥ nb bytes.
        unsafe { b.launch(grid(SCAN_NT as usize, SCAN_NT, 1)?) }.map_err(launch_err("carry_scan launch"))?;
    }
    {
        let tu = total as u64;
        let mut b = stream.launch_builder(&s.funcs[4]);
        b.arg(&w.out).arg(&tu).arg(&w.flags).arg(&w.agg);
        // SAFETY: matches `carry_apply`; flags holds ≥ blocks·NT bytes, agg ≥ blocks, out ≥ total words.
        unsafe { b.launch(grid(blocks * NT as usize, NT, 1)?) }.map_err(launch_err("carry_apply launch"))?;
    }
    Ok(())
}

/// Kernel-only time of |a|·|b| on the current device in milliseconds: steps 2–4 on device-resident
/// operands (kept buffers, as a repeated call of that length uses); CUDA events, median of `reps`
/// after a warm-up run.
pub fn time_device(a: &[u64], b: &[u64], reps: usize) -> Result<f64> {
    if a.is_empty() || b.is_empty() {
        return invalid!("the GPU product needs non-empty operands");
    }
    let dev = device::current()?;
    shield("GPU big-integer product timing", || {
        let total = a.len() + b.len();
        let logn = (total - 1).next_power_of_two().max(2).trailing_zeros();
        let mut w = Work::take(&dev, logn)?;
        let s = setup(&dev, &w.stream, logn)?;
        let square = std::ptr::eq(a, b);
        for (x, d) in [a, b].iter().zip(w.inp.iter_mut()) {
            w.stream.memcpy_htod(*x, &mut d.slice_mut(..x.len())).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        }
        let stream = Arc::clone(&w.stream);
        let ms = super::autotune::time_ms(&stream, reps, || {
            for i in 0..if square { 1 } else { 2 } {
                let Work { stream, inp, ra, rb, scratch, .. } = &mut w;
                forward(&s, stream, &inp[i], [a.len(), b.len()][i], if i == 0 { ra } else { rb }, scratch)?;
            }
            finish_device(&s, &mut w, square, total)
        })?;
        stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
        w.keep(&dev);
        Ok(ms)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// Garner's constants reconstruct c from the residues of c·2^(−64), for c up to 3·2^183.
    #[test]
    fn garner_recovers_coefficients() {
        let p = primes();
        assert!(p.iter().all(|&q| q > 1 << 61 && q < 1 << 62 && (q - 1) % (1 << 32) == 0));
        let k = garner_constants(p);
        let mut rng = Rng(3);
        let rinv: Vec<u64> = p.iter().map(|&q| invmod(((1u128 << 64) % q as u128) as u64, q)).collect();
        let cases: Vec<[u64; 3]> = (0..2000)
            .map(|i| match i {
                0 => [0, 0, 0],
                1 => [u64::MAX, u64::MAX, (1 << 55) - 1],
                2 => [1, 0, 0],
                _ => [rng.next(), rng.next(), rng.next() >> (9 + i % 50)],
            })
            .collect();
        for c in cases {
            let r: Vec<u64> = (0..3)
                .map(|i| {
                    let q = p[i] as u128;
                    let m = ((c[2] as u128 % q) << 64 | c[1] as u128) % q;
                    let m = (m << 64 | c[0] as u128) % q;
                    mulmod(m as u64, rinv[i], p[i])
                })
                .collect();
            assert_eq!(garner_host([r[0], r[1], r[2]], &k), c);
        }
    }

    /// The blocked carry resolution equals the plain sum Σ c_m·2^(64m), with maximal carries.
    #[test]
    fn carry_resolution_matches_a_plain_sum() {
        let mut rng = Rng(9);
        for &(len, kind) in &[(1, 0), (2, 1), (7, 1), (8, 1), (9, 2), (63, 1), (100, 0), (1000, 2), (4097, 1), (3000, 3)] {
            let c: Vec<[u64; 3]> = (0..len)
                .map(|i| match kind {
                    0 => [rng.next(), rng.next(), rng.next() >> 40],
                    // all-ones products: c_m = (m+1)(2^64 − 1)^2 for a square of all-ones
                    1 => [u64::MAX, u64::MAX, 3],
                    // coefficient sums that make long runs of 2^64 − 1
                    2 => [if i % 3 == 0 { u64::MAX } else { 0 }, if i % 5 == 1 { 1 } else { u64::MAX - 1 }, 0],
                    _ => [if i % 1000 == 999 { 0 } else { u64::MAX }, 0, 0],
                })
                .collect();
            let total = len + 3;
            let mut want = vec![0u64; total];
            for (m, cm) in c.iter().enumerate() {
                let mut carry = 0u128;
                for (t, w) in want[m..].iter_mut().enumerate() {
                    let v = *w as u128 + cm.get(t).copied().unwrap_or(0) as u128 + carry;
                    *w = v as u64;
                    carry = v >> 64;
                    if t >= 2 && carry == 0 {
                        break;
                    }
                }
            }
            assert_eq!(carry_host(&c, total), want, "{len} kind {kind}");
        }
    }

    #[cfg(feature = "gpu-tests")]
    mod device {
        use super::super::*;
        use crate::testing::Rng;
        use gmp_mpfr_sys::gmp;

        fn gmp_ref(a: &[u64], b: &[u64]) -> Vec<u64> {
            let mut r = vec![0; a.len() + b.len()];
            let (x, y) = if a.len() >= b.len() { (a, b) } else { (b, a) };
            // SAFETY: r has x.len() + y.len() limbs, x.len() >= y.len() >= 1.
            unsafe {
                if std::ptr::eq(x, y) {
                    gmp::mpn_sqr(r.as_mut_ptr(), x.as_ptr(), x.len() as _);
                } else {
                    gmp::mpn_mul(r.as_mut_ptr(), x.as_ptr(), x.len() as _, y.as_ptr(), y.len() as _);
                }
            }
            r
        }

        /// n limbs: random (0), all ones (1), random with runs of zeros (2), sparse (3).
        fn operand(rng: &mut Rng, n: usize, kind: u32) -> Vec<u64> {
            (0..n)
                .map(|i| match kind {
                    1 => u64::MAX,
                    2 if i % 1000 < 300 => 0,
                    3 => u64::from(i % 4099 == 0) << (i % 64),
                    _ => rng.next(),
                })
                .collect()
        }

        fn check(a: &[u64], b: &[u64], what: &str) {
            let mut r = vec![0u64; a.len() + b.len()];
            mul_into(a, b, &mut r).unwrap();
            assert!(r == gmp_ref(a, b), "{what}: {} x {}", a.len(), b.len());
        }

        /// Sizes crossing the thread (E), block (NT·E = 2048 positions), staging chunk (2^20 words)
        /// and transform-length boundaries, unbalanced operands, squares, adversarial limbs.
        #[test]
        fn gpu_ntt_mul_matches_gmp() {
            let mut rng = Rng(17);
            let blk = NT as usize * E;
            let sizes = [
                (1, 1),
                (1, 2),
                (3, 5),
                (4, 4),
                (E, 1),
                (blk / 2, blk / 2),
                (blk / 2, blk / 2 + 1),
                (blk - 1, 1),
                (blk + 3, blk - 7),
                (5000, 17),
                (17, 5000),
                (65536, 65536),
                (CHUNK - 1, 2),
                (CHUNK, CHUNK / 3),
                ((1 << 19) + 1, (1 << 19) - 1),
                (3 * 1024 * 1024 / 2, 1000),
            ];
            for &(la, lb) in &sizes {
                for kind in 0..4 {
                    if la * lb > 1 << 34 && kind > 1 {
                        continue;
                    }
                    let a = operand(&mut rng, la, kind);
                    let b = operand(&mut rng, lb, (kind + 1) % 4);
                    check(&a, &b, &format!("kinds {kind}/{}", (kind + 1) % 4));
                    let b = operand(&mut rng, lb, kind);
                    check(&a, &b, &format!("kind {kind}"));
                    check(&a, &a, &format!("square kind {kind}"));
                }
            }
        }

        /// 2^26-bit operands (2^20 limbs each) and squares, all ones and random.
        #[test]
        fn gpu_ntt_mul_2_26_bits() {
            let mut rng = Rng(29);
            for kind in [0, 1] {
                let a = operand(&mut rng, 1 << 20, kind);
                let b = operand(&mut rng, 1 << 20, kind);
                check(&a, &b, &format!("2^26 bits kind {kind}"));
                check(&a, &a, &format!("2^26 bits square kind {kind}"));
            }
        }

        /// Through the C API under `GPMP_BACKEND_GPU`: signs, r aliasing a or b, squares, against
        /// GMP's mpz_mul.
        #[test]
        fn gpu_mpz_mul_through_the_c_api_with_aliasing() {
            let _lock = crate::testing::backend_lock();
            use crate::ffi::gpmp_status;
            use crate::ffi::mpz_n::{gpmp_mpz_mul, gpmp_mpz_sqr};
            use crate::ffi::runtime::{gpmp_set_backend, RawBackend};
            use crate::testing::{Mpz, MpzView};
            assert_eq!(gpmp_set_backend(RawBackend(2)), gpmp_status::GPMP_SUCCESS);
            let mut rng = Rng(53);
            for &(la, lb, kind) in &[(768, 768, 1), (5000, 900, 0), (200_000, 123_457, 2), (1 << 20, 1 << 19, 1)] {
                let (xa, xb) = (operand(&mut rng, la, kind), operand(&mut rng, lb, kind));
                for (na, nb) in [(false, false), (true, false), (true, true)] {
                    let (va, vb) = (MpzView::new(na, &xa), MpzView::new(nb, &xb));
                    let set = |v: &MpzView| {
                        let mut z = Mpz::new();
                        // SAFETY: initialised mpz_t.
                        unsafe { gmp::mpz_set(z.as_mut_ptr(), v.as_ptr()) };
                        z
                    };
                    let mut want = Mpz::new();
                    let mut want2 = Mpz::new();
                    // SAFETY: initialised mpz_t throughout; the gpmp calls get valid pointers.
                    unsafe {
                        gmp::mpz_mul(want.as_mut_ptr(), va.as_ptr(), vb.as_ptr());
                        gmp::mpz_mul(want2.as_mut_ptr(), va.as_ptr(), va.as_ptr());
                        let mut r = Mpz::new();
                        assert_eq!(gpmp_mpz_mul(r.as_mut_ptr(), va.as_ptr(), vb.as_ptr()), gpmp_status::GPMP_SUCCESS);
                        assert_eq!(gmp::mpz_cmp(r.as_ptr(), want.as_ptr()), 0, "{la} x {lb}");
                        let (mut a, mut b) = (set(&va), set(&vb));
                        assert_eq!(gpmp_mpz_mul(a.as_mut_ptr(), a.as_ptr(), b.as_ptr()), gpmp_status::GPMP_SUCCESS);
                        assert_eq!(gmp::mpz_cmp(a.as_ptr(), want.as_ptr()), 0, "r = a");
                        let a = set(&va);
                        assert_eq!(gpmp_mpz_mul(b.as_mut_ptr(), a.as_ptr(), b.as_ptr()), gpmp_status::GPMP_SUCCESS);
                        assert_eq!(gmp::mpz_cmp(b.as_ptr(), want.as_ptr()), 0, "r = b");
                        let mut a = set(&va);
                        assert_eq!(gpmp_mpz_sqr(a.as_mut_ptr(), a.as_ptr()), gpmp_status::GPMP_SUCCESS);
                        assert_eq!(gmp::mpz_cmp(a.as_ptr(), want2.as_ptr()), 0, "sqr in place");
                        let mut a = set(&va);
                        assert_eq!(gpmp_mpz_mul(a.as_mut_ptr(), a.as_ptr(), a.as_ptr()), gpmp_status::GPMP_SUCCESS);
                        assert_eq!(gmp::mpz_cmp(a.as_ptr(), want2.as_ptr()), 0, "a = a a");
                    }
                }
            }
            assert_eq!(gpmp_set_backend(RawBackend(0)), gpmp_status::GPMP_SUCCESS);
        }

        /// Concurrent products from several threads share the staging ring correctly.
        #[test]
        fn gpu_ntt_mul_concurrent_calls() {
            let mut rng = Rng(41);
            let ops: Vec<(Vec<u64>, Vec<u64>)> =
                (0..6).map(|i| (operand(&mut rng, 300_000 + 7 * i, 0), operand(&mut rng, 1_100_000 - i, 2))).collect();
            ops.par_iter().for_each(|(a, b)| check(a, b, "concurrent"));
        }
    }
}
