//! The job pipeline of one product or Taylor shift: device constants and transform plans (kept per
//! prime list and length), the upload of the staged inputs, residues, the shift's scale steps,
//! transforms, pointwise products, the CRT (and the recombination in split mode), whole or in the
//! parts of the memory plan, and the download. [`Pace`] keeps the host close behind the device, with
//! an interrupt check between steps: the transforms of one prime, one launch of the CRT or of the
//! recombination (coefficient blocks of [`crt_block`]), one piece of the download.
use super::memory::{free_bytes, plan_memory, Cut, Shape};
use super::primes::{garner_table, limb_weights, modulus, montgomery, plan_shape, MIN_K};
use super::staging::{words_and_bytes, HostProduct};
use super::{launch_err, max_bits_par, max_limbs, spec, NT};
use crate::gpu::device::{self, Device};
use crate::gpu::ntt::Plan;
use crate::gpu::{driver_err, shield};
use crate::int::{limbs_for_bits, product_bits, IntRef};
use crate::nmod::prime::primitive_root_of_unity;
use crate::{Error, Result};
use cudarc::driver::{result as cu, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Words per staging chunk (8 MiB): the copy of one chunk overlaps the transfer of the next.
const CHUNK: usize = 1 << 20;

/// Items (positions or coefficients) of one CRT-stage launch over items of `work` units each: about
/// `units` units, at least `min` items, a multiple of the kernels' block of `NT` threads.
pub(super) fn crt_block(work: usize, units: usize, min: usize) -> usize {
    (units / work.max(1)).max(min).max(1).next_multiple_of(NT as usize)
}

/// `0..len` in consecutive ranges of `block` items (the last one shorter); none when `len` is 0.
pub(super) fn blocks(len: usize, block: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let block = block.max(1);
    (0..len).step_by(block).map(move |a| a..(a + block).min(len))
}

#[cfg(test)]
thread_local! {
    /// Test hook: items per CRT launch and coefficients per download of this thread's products
    /// (forces several blocks at small sizes).
    pub(super) static SMALL_BLOCKS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Device constants of one prime list, with the transform plans of one length.
pub(super) struct Setup {
    pub(super) primes: Vec<u64>,
    d_primes: CudaSlice<u64>,
    d_mont: CudaSlice<u64>,
    d_garner: CudaSlice<u64>,
    d_modulus: CudaSlice<u64>,
    d_half: CudaSlice<u64>,
    /// Limbs of M.
    w: usize,
    fwd: Vec<Arc<Plan<u64>>>,
    inv: Vec<Arc<Plan<u64>>>,
    funcs: [CudaFunction; 7],
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
    let module = crate::gpu::compile::module(dev, &spec())?;
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
        funcs: [
            f("residues")?,
            f("pointwise")?,
            f("garner")?,
            f("residues_split")?,
            f("recombine")?,
            f("shift_scale")?,
            f("shift_unscale")?,
        ],
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

/// One product's (or Taylor shift's) sizes and device state.
pub(super) struct Job {
    dev: Arc<Device>,
    pub(super) stream: Arc<CudaStream>,
    pub(super) s: Arc<Setup>,
    wts: Arc<CudaSlice<u64>>,
    pub(super) n: usize,
    /// Limbs per input coefficient (the larger operand's).
    pub(super) l: usize,
    square: bool,
    /// Split mode: T = 2L − 1 transform positions per coefficient (one limb each), else 1.
    t: usize,
    /// Split mode: limbs of a digit product d_q (the CRT's output stride).
    d: usize,
    /// Parts, when the whole product does not fit the device memory.
    pub(super) cut: Option<Cut>,
    /// A Taylor shift: c mod p_i for every prime (the input is f reversed); `None` for a product.
    shift: Option<CudaSlice<u64>>,
    /// The name of the stage-time log lines.
    what: &'static str,
    /// Test hook [`SMALL_BLOCKS`]: items per CRT launch and coefficients per download.
    small_blocks: Option<usize>,
}

impl Job {
    /// Chooses the primes and the length, checks that the product fits the free device memory (or
    /// plans its parts), and loads the constants and plans.
    pub(super) fn new(dev: &Arc<Device>, f: &[IntRef], g: &[IntRef], bits: u64, limbs: usize) -> Result<Job> {
        let hlen = f.len() + g.len() - 1;
        let l = limbs.max(1);
        let (primes, t, d) = plan_shape(bits, f.len(), g.len(), l)?;
        let square = std::ptr::eq(f, g);
        let inputs = if square { f.len() } else { f.len() + g.len() };
        let shape = Shape { k: primes.len(), n: 0, inputs, l, hlen, stride: limbs_for_bits(bits), t, d, table: 0 };
        Job::build(dev, &primes, shape, hlen * t, square, None, true)
    }

    /// The job of one device's share of a product split over several devices (`multi.rs`), whose
    /// memory that split plans: `shape` as [`Job::new`] would make it, never in parts.
    pub(super) fn part(dev: &Arc<Device>, primes: &[u64], shape: Shape, square: bool) -> Result<Job> {
        Job::build(dev, primes, shape, shape.hlen * shape.t, square, None, false)
    }

    /// A Taylor shift of `len` coefficients of at most `limbs` limbs whose results have at most
    /// `bits` bits, modulo `primes` (M > 2^(bits+1)), `cres[i]` = c mod p_i: one operand (f reversed),
    /// transforms of 2·len − 1 positions, the CRT of `len`.
    pub(super) fn shift(dev: &Arc<Device>, len: usize, bits: u64, limbs: usize, primes: &[u64], cres: &[u64]) -> Result<Job> {
        let l = limbs.max(1);
        let shape = Shape { k: primes.len(), n: 0, inputs: len, l, hlen: len, stride: limbs_for_bits(bits), t: 1, d: 0, table: len };
        Job::build(dev, primes, shape, 2 * len - 1, false, Some(cres), true)
    }

    /// The job of `shape` (its k and n set here) with transforms covering `conv` positions, its
    /// memory planned (`plan`) or left to the caller.
    fn build(
        dev: &Arc<Device>,
        primes: &[u64],
        mut shape: Shape,
        conv: usize,
        square: bool,
        cres: Option<&[u64]>,
        plan: bool,
    ) -> Result<Job> {
        let logn = conv.next_power_of_two().max(2).trailing_zeros();
        if logn > MIN_K {
            return Err(Error::SizeTooLarge(format!("{conv} transform positions")));
        }
        let (k, n, l, t, d) = (primes.len(), 1usize << logn, shape.l, shape.t, shape.d);
        shape.k = k;
        shape.n = n;
        dev.ctx.bind_to_thread().map_err(launch_err("cuCtxSetCurrent"))?;
        // cuMemGetInfo costs a driver round trip: asked only from an eighth of the device.
        let free = if shape.device_bytes() > dev.total_mem as u128 / 8 || cfg!(test) { free_bytes()? } else { usize::MAX };
        let w = || crate::nmod::crt::prime_product(primes).len();
        let cut = if plan { plan_memory(&shape, w, free)? } else { None };
        let stream = take_stream(dev)?;
        let s = setup(dev, &stream, primes, logn)?;
        let wts = weights(dev, &stream, primes, l)?;
        let shift = cres.map(|c| stream.clone_htod(c).map_err(launch_err("cuMemcpyHtoD"))).transpose()?;
        let what = if shift.is_some() { "gpu taylor_shift" } else { "gpu poly_mul" };
        #[cfg(test)]
        let small_blocks = SMALL_BLOCKS.get();
        #[cfg(not(test))]
        let small_blocks = None;
        Ok(Job { dev: Arc::clone(dev), stream, s, wts, n, l, square, t, d, cut, shift, what, small_blocks })
    }

    /// Items per launch of a CRT stage whose items cost `work` units each.
    fn crt_block(&self, work: usize) -> usize {
        use crate::tuning::{GPU_ZPOLY_CRT_BLOCK_MIN, GPU_ZPOLY_CRT_BLOCK_UNITS};
        self.small_blocks.unwrap_or_else(|| crt_block(work, GPU_ZPOLY_CRT_BLOCK_UNITS, GPU_ZPOLY_CRT_BLOCK_MIN))
    }

    pub(super) fn alloc(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: u64 words; every word is written before it is read.
        unsafe { self.stream.alloc::<u64>(len.max(1)) }.map_err(launch_err("cuMemAlloc"))
    }

    pub(super) fn bytes(&self, len: usize) -> Result<CudaSlice<u8>> {
        // SAFETY: bytes, written before being read.
        unsafe { self.stream.alloc::<u8>(len.max(1)) }.map_err(launch_err("cuMemAlloc"))
    }

    /// The device pointers of `rows`, uploaded.
    fn ptrs(&self, rows: &[CudaSlice<u64>]) -> Result<CudaSlice<u64>> {
        let p: Vec<u64> = rows.iter().map(|r| r.device_ptr(&self.stream).0).collect();
        self.stream.clone_htod(&p).map_err(launch_err("cuMemcpyHtoD"))
    }

    /// Steps 2–4 on device-resident inputs (`lens`: the operands' lengths, one for a square; their
    /// limbs and signs one after another): the output magnitudes (stride S) and sign bytes.
    fn compute(
        &self,
        limbs: &CudaSlice<u64>,
        d_signs: &CudaSlice<u8>,
        lens: &[usize],
        hlen: usize,
        stride: usize,
    ) -> Result<(CudaSlice<u64>, CudaSlice<u8>)> {
        let mut pace = Pace { stream: &self.stream, prev: None };
        let rows = self.convolve(limbs, d_signs, lens, 0..self.s.primes.len(), &mut pace)?;
        self.crt(rows, hlen, stride, &mut pace)
    }

    /// Steps 2–3 for the primes `ps`: residues, forward transforms, pointwise products, inverse
    /// transforms. Row i − ps.start (2n words) holds h mod p_i in its first hlen·T words. A Taylor
    /// shift scales its one operand's rows and writes the second operand before the transforms, and
    /// scales the results after them (`shift_scale`, `shift_unscale`): row i then holds f(x + c) mod p_i.
    pub(super) fn convolve(
        &self,
        limbs: &CudaSlice<u64>,
        d_signs: &CudaSlice<u8>,
        lens: &[usize],
        ps: std::ops::Range<usize>,
        pace: &mut Pace,
    ) -> Result<Vec<CudaSlice<u64>>> {
        let (stream, n, l, kg) = (&self.stream, self.n, self.l, ps.len());
        let mut rows: Vec<CudaSlice<u64>> = (0..kg).map(|_| self.alloc(2 * n)).collect::<Result<_>>()?;
        let mut scratch = self.alloc(2 * n)?;
        let p0 = self.ptrs(&rows)?;
        let primes = self.s.d_primes.slice(ps.clone());
        let wts = self.wts.slice(2 * ps.start * l..2 * ps.end * l);
        let mont = self.s.d_mont.slice(4 * ps.start..4 * ps.end);
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
            b.arg(&nu).arg(&primes).arg(&wts).arg(&p0).arg(&offu);
            // SAFETY: matches `residues` / `residues_split`; rows hold 2n words, limbs len·L, signs
            // len, w kg·L pairs, primes kg.
            unsafe { b.launch(grid(n, kg)?) }.map_err(launch_err("residues launch"))?;
        }
        let table = match &self.shift {
            Some(cres) => Some(self.shift_scale(&p0, lens[0], cres, ps.clone())?),
            None => None,
        };
        let count = if self.shift.is_some() { 2 } else { lens.len() };
        for (row, plan) in rows.iter_mut().zip(&self.s.fwd[ps.clone()]) {
            if plan.run(stream, count, row, &mut scratch)? {
                std::mem::swap(row, &mut scratch);
            }
            pace.step()?;
        }
        let p1 = self.ptrs(&rows)?;
        {
            let (nu, sq) = (n as u64, i32::from(self.square));
            let mut b = stream.launch_builder(&self.s.funcs[1]);
            b.arg(&p1).arg(&nu).arg(&mont).arg(&sq);
            // SAFETY: matches `pointwise`; rows hold 2n words (n read when squaring), mont 4·kg words.
            unsafe { b.launch(grid(n, kg)?) }.map_err(launch_err("pointwise launch"))?;
        }
        for (row, plan) in rows.iter_mut().zip(&self.s.inv[ps.clone()]) {
            if plan.run(stream, 1, row, &mut scratch)? {
                std::mem::swap(row, &mut scratch);
            }
            pace.step()?;
        }
        if let Some(table) = table {
            self.shift_unscale(&self.ptrs(&rows)?, lens[0], &table, ps)?;
        }
        Ok(rows)
    }

    /// The shift's first scale step on the rows `p0` of the primes `ps` (residues of f reversed,
    /// `len` coefficients): the table of 1/j! it leaves (`len` words a prime).
    fn shift_scale(&self, p0: &CudaSlice<u64>, len: usize, cres: &CudaSlice<u64>, ps: std::ops::Range<usize>) -> Result<CudaSlice<u64>> {
        let kg = ps.len();
        let table = self.alloc(kg * len)?;
        let mont = self.s.d_mont.slice(4 * ps.start..4 * ps.end);
        let c = cres.slice(ps);
        let (lu, nu) = (len as u64, self.n as u64);
        let mut b = self.stream.launch_builder(&self.s.funcs[5]);
        b.arg(p0).arg(&lu).arg(&nu).arg(&mont).arg(&c).arg(&table);
        let cfg = LaunchConfig { grid_dim: (kg as u32, 1, 1), block_dim: (NT, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: matches `shift_scale`; kg rows of 2n words (len ≤ n), mont 4·kg words, c kg, table kg·len.
        unsafe { b.launch(cfg) }.map_err(launch_err("shift_scale launch"))?;
        Ok(table)
    }

    /// The shift's last scale step on the rows `p` of the primes `ps` with the table of [`Self::shift_scale`].
    fn shift_unscale(&self, p: &CudaSlice<u64>, len: usize, table: &CudaSlice<u64>, ps: std::ops::Range<usize>) -> Result<()> {
        let kg = ps.len();
        let mont = self.s.d_mont.slice(4 * ps.start..4 * ps.end);
        let lu = len as u64;
        let mut b = self.stream.launch_builder(&self.s.funcs[6]);
        b.arg(p).arg(&lu).arg(&mont).arg(table);
        // SAFETY: matches `shift_unscale`; kg rows of ≥ 2·len − 1 words, mont 4·kg words, table kg·len.
        unsafe { b.launch(grid(len.div_ceil(2), kg)?) }.map_err(launch_err("shift_unscale launch"))?;
        Ok(())
    }

    /// Step 4 for `len` coefficients whose k residue rows (one per prime, len·T positions) are
    /// `rows`: CRT into stride `cs` (split mode: the digit products, then their recombination into
    /// the coefficients of `stride` limbs), each in launches of [`Job::crt_block`] items with a
    /// [`Pace`] step between them. The rows are consumed.
    pub(super) fn crt(
        &self,
        rows: Vec<CudaSlice<u64>>,
        len: usize,
        stride: usize,
        pace: &mut Pace,
    ) -> Result<(CudaSlice<u64>, CudaSlice<u8>)> {
        let (stream, k) = (&self.stream, self.s.primes.len());
        let (pos, cs) = if self.t > 1 { (len * self.t, self.d) } else { (len, stride) };
        let p2 = self.ptrs(&rows)?;
        let x = self.alloc(self.s.w * pos)?;
        let crt = self.alloc(pos * cs)?;
        let crt_neg = self.bytes(pos)?;
        let (lu, ku, wu, su) = (pos as u64, k as u32, self.s.w as u32, cs as u32);
        for (i, r) in blocks(pos, self.crt_block(k * k + 2 * self.s.w + cs)).enumerate() {
            if i > 0 {
                pace.step()?;
            }
            let (m0, m1) = (r.start as u64, r.end as u64);
            let mut b = stream.launch_builder(&self.s.funcs[2]);
            b.arg(&p2).arg(&lu).arg(&m0).arg(&m1).arg(&ku).arg(&self.s.d_primes).arg(&self.s.d_garner).arg(&self.s.d_modulus);
            b.arg(&self.s.d_half).arg(&wu).arg(&x).arg(&crt).arg(&su).arg(&crt_neg);
            // SAFETY: matches `garner`; m0 < m1 ≤ pos, rows hold ≥ pos words, x W·pos, crt pos·cs,
            // crt_neg pos.
            unsafe { b.launch(grid(r.len(), 1)?) }.map_err(launch_err("garner launch"))?;
        }
        if self.t == 1 {
            return Ok((crt, crt_neg));
        }
        pace.step()?;
        drop((x, rows));
        let acc = self.alloc((stride + 1) * len)?;
        let out = self.alloc(len * stride)?;
        let neg = self.bytes(len)?;
        let (du, tu, lu, su) = (self.d as u32, self.t as u32, len as u64, stride as u32);
        for (i, r) in blocks(len, self.crt_block(self.t * (self.d + 2) + 2 * (stride + 1))).enumerate() {
            if i > 0 {
                pace.step()?;
            }
            let (c0, c1) = (r.start as u64, r.end as u64);
            let mut b = stream.launch_builder(&self.s.funcs[4]);
            b.arg(&crt).arg(&crt_neg).arg(&du).arg(&tu).arg(&lu).arg(&c0).arg(&c1).arg(&acc).arg(&out).arg(&su).arg(&neg);
            // SAFETY: matches `recombine`; c0 < c1 ≤ len, crt holds len·T digits of D limbs, acc
            // (S+1)·len, out len·S.
            unsafe { b.launch(grid(r.len(), 1)?) }.map_err(launch_err("recombine launch"))?;
        }
        Ok((out, neg))
    }

    /// Enqueues the download of `out` and `neg` (device results of a block of coefficients of
    /// `stride` limbs), from coefficient `at` on, into `mags` and `signs`.
    pub(super) fn download(
        &self,
        out: &CudaSlice<u64>,
        neg: &CudaSlice<u8>,
        at: usize,
        stride: usize,
        mags: &mut [u64],
        signs: &mut [u8],
    ) -> Result<()> {
        let s = self.stream.cu_stream();
        let (optr, _o) = out.device_ptr(&self.stream);
        let (nptr, _n) = neg.device_ptr(&self.stream);
        let (optr, nptr) = (optr + (at * stride * 8) as u64, nptr + at as u64);
        // SAFETY: the device ranges lie inside `out` and `neg` (at least `at` coefficients more
        // than the host slices); the host slices stay untouched until the stream is synchronized (pinned
        // memory: asynchronous DMA; pageable: a synchronous copy).
        unsafe {
            cu::memcpy_dtoh_async(mags, optr, s).map_err(launch_err("cuMemcpyDtoH"))?;
            cu::memcpy_dtoh_async(signs, nptr, s).map_err(launch_err("cuMemcpyDtoH"))?;
        }
        Ok(())
    }

    /// The whole job on the operands `ops` (f, or f and g; for a shift f reversed): `hlen`
    /// coefficients of `stride` limbs in host memory.
    pub(super) fn run(&self, ops: &[&[IntRef]], hlen: usize, stride: usize) -> Result<HostProduct> {
        let (stream, l) = (&self.stream, self.l);
        // 1. inputs: limbs and sign bytes into the host buffer, uploaded chunk by chunk as they fill
        let trace = crate::log::enabled(crate::log::Level::Debug);
        let t0 = Instant::now();
        let total: usize = ops.iter().map(|o| o.len()).sum();
        let lens: Vec<usize> = ops.iter().map(|o| o.len()).collect();
        let in_words = total * l;
        let mut out = HostProduct::new(Some(&self.dev), hlen, stride, in_words + total.div_ceil(8))?;
        let limbs = self.alloc(in_words)?;
        let d_signs = self.bytes(total)?;
        let t_setup = Instant::now();
        {
            let (buf, sbuf) = words_and_bytes(out.host.slice()?, in_words);
            let signs = &mut sbuf[..total];
            let (dptr, _sync) = limbs.device_ptr(stream);
            let per = (CHUNK / l).max(1);
            let mut at = 0;
            for op in ops {
                for src in op.chunks(per) {
                    let dst = &mut buf[at * l..(at + src.len()) * l];
                    let sg = &mut signs[at..at + src.len()];
                    dst.par_chunks_mut(l).zip(sg.par_iter_mut()).zip(src.par_iter()).with_min_len(1024).for_each(|((d, s), x)| {
                        d[..x.mag.len()].copy_from_slice(x.mag);
                        d[x.mag.len()..].fill(0);
                        *s = u8::from(x.neg);
                    });
                    if crate::interrupt::current().is_stopped() {
                        // Earlier chunks may still be in flight from `buf`: wait before returning.
                        stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                        crate::interrupt::checkpoint()?;
                    }
                    // SAFETY: dst lies in the live host buffer (pinned: asynchronous DMA; it is
                    // not written again before the stream has passed this copy); the device range
                    // is inside `limbs`.
                    unsafe { cu::memcpy_htod_async(dptr + (at * l * 8) as u64, &*dst, stream.cu_stream()) }
                        .map_err(launch_err("cuMemcpyHtoD"))?;
                    at += src.len();
                }
            }
            let (sptr, _s) = d_signs.device_ptr(stream);
            // SAFETY: as above, `total` bytes into `d_signs`.
            unsafe { cu::memcpy_htod_async(sptr, &*signs, stream.cu_stream()) }.map_err(launch_err("cuMemcpyHtoD"))?;
        }
        let t_up = Instant::now();
        // 2–5. compute and download (the buffer's input part is reused: stream order puts the
        // uploads first)
        let (t_enq, t_dev) = match self.cut {
            None => {
                let (d_out, d_neg) = self.compute(&limbs, &d_signs, &lens, hlen, stride)?;
                drop((limbs, d_signs));
                let t_enq = Instant::now();
                // The device work is done here; a stopped call skips the download (the stream is
                // idle, so no transfer targets `out` when it is freed).
                stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                crate::interrupt::checkpoint()?;
                let t_dev = Instant::now();
                let (mags, signs) = out.parts_mut()?;
                // In pieces, a stop checked between them: a copy into pageable memory (products
                // beyond the pinned buffer) returns only when done, at a few GB/s.
                let per = self.small_blocks.unwrap_or((crate::tuning::GPU_ZPOLY_DOWNLOAD_WORDS / stride).max(1));
                for r in blocks(hlen, per) {
                    if crate::interrupt::current().is_stopped() {
                        stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                        crate::interrupt::checkpoint()?;
                    }
                    let (m, sg) = (&mut mags[r.start * stride..r.end * stride], &mut signs[r.clone()]);
                    self.download(&d_out, &d_neg, r.start, stride, m, sg)?;
                }
                (t_enq, t_dev)
            }
            Some(cut) => {
                self.run_cut(cut, limbs, d_signs, &lens, hlen, stride, &mut out)?;
                let t = Instant::now();
                (t, t)
            }
        };
        stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
        crate::interrupt::checkpoint()?;
        if trace {
            let ms = |x: Instant, y: Instant| (y - x).as_secs_f64() * 1e3;
            crate::log::log(crate::log::Level::Debug, self.what, || {
                format!(
                    "{:?}: host buffers {:.3} ms, limbs+signs {:.3}, enqueue {:.3}, device wait {:.3}, download {:.3}",
                    lens,
                    ms(t0, t_setup),
                    ms(t_setup, t_up),
                    ms(t_up, t_enq),
                    ms(t_enq, t_dev),
                    ms(t_dev, Instant::now())
                )
            });
        }
        Ok(out)
    }

    /// The product in the parts `cut` (see [`Cut`]): the rows of each prime group downloaded
    /// into host memory, then the CRT block by block, each block's rows uploaded again.
    #[allow(clippy::too_many_arguments)]
    fn run_cut(
        &self,
        cut: Cut,
        limbs: CudaSlice<u64>,
        d_signs: CudaSlice<u8>,
        lens: &[usize],
        hlen: usize,
        stride: usize,
        out: &mut HostProduct,
    ) -> Result<()> {
        let (stream, k, t) = (&self.stream, self.s.primes.len(), self.t);
        let pos = hlen * t;
        let mut parked = crate::int::try_zeroed_words(k * pos)?;
        for i0 in (0..k).step_by(cut.group) {
            let i1 = (i0 + cut.group).min(k);
            let rows = self.convolve(&limbs, &d_signs, lens, i0..i1, &mut Pace { stream, prev: None })?;
            for (row, dst) in rows.iter().zip(parked[i0 * pos..i1 * pos].chunks_mut(pos)) {
                stream.memcpy_dtoh(&row.slice(..pos), dst).map_err(launch_err("cuMemcpyDtoH"))?;
            }
            stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
            // The stream is idle here: a stopped call may return (its buffers are no longer in use).
            crate::interrupt::checkpoint()?;
        }
        drop((limbs, d_signs));
        let (mags, signs) = out.parts_mut()?;
        for c0 in (0..hlen).step_by(cut.block) {
            if crate::interrupt::current().is_stopped() {
                // Downloads into `out` may be in flight: wait for them before returning.
                stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                crate::interrupt::checkpoint()?;
            }
            let c1 = (c0 + cut.block).min(hlen);
            let rows = (0..k)
                .map(|i| stream.clone_htod(&parked[i * pos + c0 * t..i * pos + c1 * t]).map_err(launch_err("cuMemcpyHtoD")))
                .collect::<Result<Vec<_>>>()?;
            let (d_out, d_neg) = self.crt(rows, c1 - c0, stride, &mut Pace { stream, prev: None })?;
            self.download(&d_out, &d_neg, 0, stride, &mut mags[c0 * stride..c1 * stride], &mut signs[c0..c1])?;
        }
        Ok(())
    }
}

/// Paces the host to the device through the kernel sequence of a product, so that a stop is seen
/// between the transforms of two primes (a few milliseconds of device time) rather than after the
/// whole sequence: each [`Pace::step`] records an event and waits for the previous step's one, so
/// the device always has the last step's work queued and never waits for the host. A stopped call
/// then waits for the stream (no transfer in flight into host buffers) and returns
/// `Err(Interrupted)`.
pub(super) struct Pace<'a> {
    pub(super) stream: &'a CudaStream,
    pub(super) prev: Option<CudaEvent>,
}

impl Pace<'_> {
    fn step(&mut self) -> Result<()> {
        let ev = self.stream.record_event(None).map_err(|e| driver_err("cuEventRecord", e))?;
        if let Some(prev) = self.prev.replace(ev) {
            prev.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))?;
        }
        if crate::interrupt::current().is_stopped() {
            self.stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
            crate::interrupt::checkpoint()?;
        }
        Ok(())
    }
}

/// Streams of finished products, kept for the next ones (a new stream costs driver round trips on
/// every call); at most 16.
fn stream_pool() -> &'static Mutex<Vec<Arc<CudaStream>>> {
    static P: OnceLock<Mutex<Vec<Arc<CudaStream>>>> = OnceLock::new();
    P.get_or_init(Default::default)
}

/// A kept stream of `dev`, or a new one.
fn take_stream(dev: &Device) -> Result<Arc<CudaStream>> {
    let mut pool = stream_pool().lock().unwrap_or_else(|e| e.into_inner());
    match pool.iter().position(|s| Arc::ptr_eq(s.context(), &dev.ctx)) {
        Some(i) => Ok(pool.swap_remove(i)),
        None => {
            drop(pool);
            dev.stream()
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        let mut pool = stream_pool().lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < 16 {
            pool.push(Arc::clone(&self.stream));
        }
    }
}

/// A launch of ⌈m / NT⌉ × y blocks.
fn grid(m: usize, y: usize) -> Result<LaunchConfig> {
    let x = m.div_ceil(NT as usize);
    if x > i32::MAX as usize || y > 65535 {
        return Err(Error::SizeTooLarge(format!("a launch of {x} x {y} blocks")));
    }
    Ok(LaunchConfig { grid_dim: (x as u32, y as u32, 1), block_dim: (NT, 1, 1), shared_mem_bytes: 0 })
}

/// Kernel-only time of f·g on the current device, in milliseconds: residues, transforms, pointwise
/// products, inverse transforms and CRT on device-resident inputs, timed by events; the median of
/// `reps` runs after a warm-up run. Also returns the prime count and the transform length.
pub fn time_device(f: &[IntRef], g: &[IntRef], reps: usize) -> Result<(f64, usize, usize)> {
    let bits = product_bits(max_bits_par(f), max_bits_par(g), f.len(), g.len()).max(1);
    let dev = device::current()?;
    shield("GPU poly_mul timing", || {
        let job = Job::new(&dev, f, g, bits, max_limbs(f, g))?;
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
