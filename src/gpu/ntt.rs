//! Batched word-size cyclic NTTs on the GPU: `count` transforms of length n = 2^k stored one after
//! another, X_i = Σ_j x_j w^(ij) mod p in natural order (the inverse uses w^(−1) and multiplies by
//! n^(−1)), for an odd prime p < 2^63 and a primitive n-th root of unity w.
//!
//! The transform is a sequence of radix-R Stockham passes (`kernels/ntt.cu`), each reading and
//! writing every word once, in 32-bit words and arithmetic when p < 2^31, else 64-bit, with lazy
//! reduction (values in [0, 2p) between stages) in 64-bit words when p < 2^62 (in 32-bit words the
//! canonical reduction is the faster). A [`Variant`] is the kernel ([`PassKernel`]: `ntt_pass` for
//! n ≤ 2^32, with 32-bit exponents and offsets, `ntt_pass_long` above) and the number of passes, of
//! nearly equal radix ≤ 2^12 (2^13 in 32-bit words). The default has one pass up to 2^12 (2^13) and
//! ⌈k/10⌉ passes above (2^24 = 3 passes of 2^8); per size class [`autotune`] picks among the
//! candidates (the default, the fewest passes, one more): the pick of an earlier search, else the
//! architecture's shipped pick ([`GPU_NTT_PASSES`]), else the default; [`tune`] searches them all.
//! Twiddles are precomputed on the host with their Shoup companions ⌊t·2^bits/p⌋: the DFT_R roots
//! (R/2 of them for each radix R ≤ 2^12 or n, compact per radix) and w^e for e < n as a product of
//! two tables of about √n entries each.
//! [`ntt_many`] splits a batch that does not fit in free device memory.
use super::compile;
use super::device::{self, Device};
use super::kernels::{Kernel, Spec};
use super::staging::{Host, StageWord};
use super::{autotune, driver_err, shield};
use crate::log::Stages;
use crate::nmod::prime::{fourier_prime, invmod, is_prime, mulmod, powmod, primitive_root_of_unity};
use crate::tuning::{GPU_NTT_MIN_BLOCKS_PER_SM, GPU_NTT_PASSES};
use crate::{invalid, Error, Result};
use cudarc::driver::{result, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::{Arc, Mutex};

/// Threads per block (`NT` in the kernel).
const NT: u32 = 256;
/// Largest radix (log2) of a pass in the default pass structure when the transform needs several.
const MAX_LOGR: u32 = 10;
/// Largest supported transform length (log2).
const MAX_LOGN: u32 = 40;
/// Largest batch (words) the autotuner times; larger batches use the default variant.
const AUTOTUNE_MAX_WORDS: usize = 1 << 26;

/// A device word: u32 (for p < 2^31) or u64.
pub trait Word: DeviceRepr + Copy + Default + Send + Sync + 'static {
    const BITS: u32;
    fn from_u64(x: u64) -> Self;
    fn to_u64(self) -> u64;
    /// The host words themselves when they are already of this type (u64).
    fn same(x: &mut [u64]) -> Option<&mut [Self]>;
}
impl Word for u32 {
    const BITS: u32 = 32;
    fn from_u64(x: u64) -> Self {
        x as u32
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
    fn same(_: &mut [u64]) -> Option<&mut [Self]> {
        None
    }
}
impl Word for u64 {
    const BITS: u32 = 64;
    fn from_u64(x: u64) -> Self {
        x
    }
    fn to_u64(self) -> u64 {
        self
    }
    fn same(x: &mut [u64]) -> Option<&mut [Self]> {
        Some(x)
    }
}

/// log2 of the words one block holds (`LOGE` in the kernel): 32 KiB of shared memory.
fn loge(word_bits: u32) -> u32 {
    if word_bits == 32 {
        13
    } else {
        12
    }
}

/// Dynamic shared memory of a pass of radix 2^logr, in bytes: E words and one pad word per group
/// when a block holds several groups.
fn shared_bytes(word_bits: u32, logr: u32) -> u32 {
    let (e, t) = (1u32 << loge(word_bits), 1u32 << (loge(word_bits) - logr));
    (e + if t > 1 { t } else { 0 }) * word_bits / 8
}

/// The kernel for words of `word_bits` bits; `lazy` (p < 2^(word_bits − 2)) selects Harvey's lazy
/// reduction (`LAZY` in the kernel).
fn spec(word_bits: u32, lazy: bool) -> Spec {
    let defines = vec![
        ("LAZY", i64::from(lazy)),
        ("WORD", word_bits as i64),
        ("LOGE", loge(word_bits) as i64),
        ("NT", NT as i64),
        ("MINB", GPU_NTT_MIN_BLOCKS_PER_SM as i64),
    ];
    Spec { source: "ntt.cu", defines }
}

/// `kernels/ntt.cu`: batched Stockham NTT passes.
pub static KERNEL: Kernel = Kernel { file: "ntt.cu", source: include_str!("../../kernels/ntt.cu"), int128: false, specs };

/// Every specialisation this module can request.
pub fn specs() -> Vec<Spec> {
    vec![spec(64, false), spec(64, true), spec(32, false)]
}

/// `k` radices (log2) summing to logn, as equal as possible, larger first.
fn balanced(logn: u32, k: u32) -> Vec<u32> {
    (0..k).map(|i| logn / k + u32::from(i < logn % k)).collect()
}

/// The default radices (log2) of the passes for n = 2^logn: one pass up to 2^loge, else the
/// fewest passes of radix ≤ 2^MAX_LOGR.
fn pass_radices(logn: u32, loge: u32) -> Vec<u32> {
    if logn <= loge {
        return vec![logn];
    }
    balanced(logn, logn.div_ceil(MAX_LOGR))
}

/// The number of passes (each one read and one write of every word) of the default pass structure
/// for length 2^logn modulo p.
pub fn passes(logn: u32, p: u64) -> usize {
    pass_radices(logn, loge(if p < 1 << 31 { 32 } else { 64 })).len()
}

/// The pass kernels of `kernels/ntt.cu` (same arguments and results).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKernel {
    /// `ntt_pass`: for n ≤ 2^32 (exponents and word offsets in 32 bits, the DFT roots at a
    /// compile-time stride, the pass twiddle without branches).
    Short,
    /// `ntt_pass_long`: for any n (64-bit exponents and offsets).
    Long,
}

impl PassKernel {
    /// The kernel's name in `kernels/ntt.cu`.
    pub fn name(self) -> &'static str {
        match self {
            PassKernel::Short => "ntt_pass",
            PassKernel::Long => "ntt_pass_long",
        }
    }

    /// The kernel for transforms of length 2^logn.
    fn for_length(logn: u32) -> PassKernel {
        if logn <= 32 {
            PassKernel::Short
        } else {
            PassKernel::Long
        }
    }
}

/// A pass structure: the kernel and the number of passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub kernel: PassKernel,
    pub passes: u32,
}

impl Variant {
    pub fn label(&self) -> String {
        format!("{}/{}", self.kernel.name(), self.passes)
    }
}

/// The candidates for length 2^logn, the default first: the kernel for the length with the
/// default passes, with the fewest passes and one more (from 2^10 on).
fn variants(logn: u32, loge: u32) -> Vec<Variant> {
    let kernel = PassKernel::for_length(logn);
    let mut passes = vec![pass_radices(logn, loge).len() as u32];
    if logn >= 10 {
        let kmin = logn.div_ceil(loge);
        for k in [kmin, kmin + 1] {
            if !passes.contains(&k) {
                passes.push(k);
            }
        }
    }
    passes.into_iter().map(|passes| Variant { kernel, passes }).collect()
}

/// ⌊t·2^bits/p⌋, the Shoup companion of t < p (bits = 32 needs p < 2^31, 64 needs p < 2^63).
fn companion(t: u64, p: u64, bits: u32) -> u64 {
    (((t as u128) << bits) / p as u128) as u64
}

/// (w^i, companion) for i < len, flattened, in words of W.
fn power_table<W: Word>(w: u64, len: usize, p: u64) -> Vec<W> {
    let mut t = Vec::with_capacity(2 * len);
    let mut x = 1 % p;
    for _ in 0..len {
        t.push(W::from_u64(x));
        t.push(W::from_u64(companion(x, p, W::BITS)));
        x = mulmod(x, w, p);
    }
    t
}

/// Checks p, n and w, and returns log2 n.
pub fn check_params(n: usize, w: u64, p: u64) -> Result<u32> {
    if !(3..1 << 63).contains(&p) || !is_prime(p) {
        return invalid!("modulus {p} is not an odd prime below 2^63");
    }
    if !n.is_power_of_two() || n.trailing_zeros() > MAX_LOGN {
        return invalid!("NTT length {n} is not a power of two up to 2^{MAX_LOGN}");
    }
    if w >= p || powmod(w, n as u64, p) != 1 || (n > 1 && powmod(w, n as u64 / 2, p) != p - 1) {
        return invalid!("{w} is not a primitive {n}-th root of unity modulo {p}");
    }
    Ok(n.trailing_zeros())
}

/// A transform ready to run on one device in words of W (u32 needs p < 2^31): its twiddle tables,
/// kernels and candidate pass structures.
pub struct Plan<W: Word> {
    logn: u32,
    p: u64,
    logl: u32,
    roots: CudaSlice<W>,
    tlo: CudaSlice<W>,
    thi: CudaSlice<W>,
    scale: (u64, u64),
    /// `ntt_pass` and `ntt_pass_long`, when they can be launched on the device.
    funcs: [Option<CudaFunction>; 2],
    /// The candidates, the default first.
    variants: Vec<Variant>,
    /// The autotuner's key without the size class.
    key: String,
    /// The device's compute capability (for the shipped picks).
    cc: (i32, i32),
}

impl<W: Word> Plan<W> {
    /// Plans the length-n transform with root w (w^(−1) and the factor n^(−1) when `inverse`),
    /// uploading its tables on `stream`.
    pub fn new(dev: &Device, stream: &Arc<CudaStream>, n: usize, w: u64, p: u64, inverse: bool) -> Result<Self> {
        let logn = check_params(n, w, p)?;
        if logn == 0 {
            return invalid!("a GPU plan needs n >= 2");
        }
        if p >> (W::BITS - 1) != 0 {
            return invalid!("modulus {p} needs 64-bit words");
        }
        let w = if inverse { invmod(w, p) } else { w };
        // The roots of every radix 2^l a variant may use (l ≤ logr0), each radix's R/2 roots
        // contiguous at entry R/2 − 1, so that a pass reads a compact table (one strided table for
        // the largest radix spread the lane-varying root loads over 16× more cache lines).
        let logr0 = logn.min(loge(W::BITS));
        let logl = logn.div_ceil(2);
        let roots: Vec<W> = (1..=logr0).flat_map(|l| power_table::<W>(powmod(w, (n >> l) as u64, p), 1 << (l - 1), p)).collect();
        let tlo = power_table::<W>(w, 1 << logl, p);
        let thi = power_table::<W>(powmod(w, 1 << logl, p), 1 << (logn - logl), p);
        let scale = if inverse { invmod(n as u64 % p, p) } else { 1 };
        let spec = spec(W::BITS, W::BITS == 64 && p >> 62 == 0);
        let module = compile::module(dev, &spec)?;
        let load = |name| module.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e));
        // Launch shape from the kernels' resources: a kernel that cannot keep one block of NT
        // threads with the largest shared-memory request resident is never launched.
        let shared = shared_bytes(W::BITS, logr0) as usize;
        let mut funcs = [None, None];
        for (f, kernel) in funcs.iter_mut().zip([PassKernel::Short, PassKernel::Long]) {
            let func = load(kernel.name())?;
            if autotune::resources(dev, &func, NT, shared)?.blocks_per_sm > 0 {
                *f = Some(func);
            }
        }
        let mut variants = variants(logn, loge(W::BITS));
        if funcs[variants[0].kernel as usize].is_none() {
            // The long kernel runs any length.
            variants.iter_mut().for_each(|v| v.kernel = PassKernel::Long);
        }
        if funcs[PassKernel::Long as usize].is_none() && variants[0].kernel == PassKernel::Long {
            return Err(Error::Cuda(format!("no NTT kernel can run on {} with {NT} threads a block", dev.name)));
        }
        let key = autotune::key(dev, &spec, &format!("ntt 2^{logn}"));
        let up = |t: &[W]| stream.clone_htod(t).map_err(|e| driver_err("cuMemcpyHtoD", e));
        Ok(Plan {
            logn,
            p,
            logl,
            roots: up(&roots)?,
            tlo: up(&tlo)?,
            thi: up(&thi)?,
            scale: (scale, companion(scale, p, W::BITS)),
            funcs,
            variants,
            key,
            cc: dev.cc,
        })
    }

    /// The candidate pass structures, the default first.
    pub fn variants(&self) -> &[Variant] {
        &self.variants
    }

    /// Transforms the `count` vectors in `x` (each entry < p), ping-ponging with `y` (both of at
    /// least count·n words); returns whether the result ended in `y` (else in `x`). Asynchronous on
    /// `stream`, except that the first call per size class may time the variants (see [`autotune`]).
    pub fn run(&self, stream: &Arc<CudaStream>, count: usize, x: &mut CudaSlice<W>, y: &mut CudaSlice<W>) -> Result<bool> {
        let total = self.total(count)?;
        let v = self.choose(stream, total)?;
        self.run_variant(stream, v, count, x, y)
    }

    fn total(&self, count: usize) -> Result<usize> {
        let total = count.checked_shl(self.logn).filter(|t| t >> self.logn == count);
        total.ok_or_else(|| Error::SizeTooLarge(format!("{count} transforms of 2^{}", self.logn)))
    }

    /// The variant for `total` words: the autotuner's choice for the size class ⌈log2 total⌉ (when
    /// searching, timed on scratch buffers of that size with random residues).
    fn choose(&self, stream: &Arc<CudaStream>, total: usize) -> Result<Variant> {
        if self.variants.len() == 1 || total > AUTOTUNE_MAX_WORDS {
            return Ok(self.variants[0]);
        }
        let class = total.next_power_of_two();
        let count = class >> self.logn;
        let key = format!("{} | total {class}", self.key);
        let labels: Vec<String> = self.variants.iter().map(Variant::label).collect();
        let shipped = shipped_passes(self.cc, W::BITS, self.logn, class.trailing_zeros())
            .and_then(|k| self.variants.iter().position(|v| v.passes == k))
            .unwrap_or(0);
        let mut scratch = None;
        let i = autotune::choose(&key, &labels, shipped, |i| {
            if scratch.is_none() {
                scratch = Some(self.random_buffers(stream, class)?);
            }
            let (a, b) = scratch.as_mut().expect("just made");
            autotune::time_ms(stream, 3, || self.run_variant(stream, self.variants[i], count, a, b).map(|_| ()))
        });
        Ok(self.variants[i])
    }

    /// Two device buffers of `len` words, the first holding random residues.
    fn random_buffers(&self, stream: &Arc<CudaStream>, len: usize) -> Result<(CudaSlice<W>, CudaSlice<W>)> {
        let (mut a, b) = buffers::<W>(stream, len)?;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let chunk: Vec<W> = (0..len.min(1 << 20))
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                W::from_u64(seed % self.p)
            })
            .collect();
        for off in (0..len).step_by(chunk.len()) {
            let m = chunk.len().min(len - off);
            stream.memcpy_htod(&chunk[..m], &mut a.slice_mut(off..off + m)).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        }
        Ok((a, b))
    }

    /// The candidates and, for lengths up to 2^32, the same pass structures with the long kernel
    /// (which runs any length), for tests.
    #[cfg(all(test, feature = "gpu-tests"))]
    fn every_variant(&self) -> Vec<Variant> {
        let long = self.variants.iter().map(|v| Variant { kernel: PassKernel::Long, passes: v.passes });
        let mut all = self.variants.clone();
        all.extend(long.filter(|v| self.funcs[PassKernel::Long as usize].is_some() && !self.variants.contains(v)));
        all
    }

    /// [`Plan::run`] with the pass structure `v`: one of [`Plan::variants`], or one of their
    /// pass counts with the long kernel.
    pub fn run_variant(
        &self,
        stream: &Arc<CudaStream>,
        v: Variant,
        count: usize,
        x: &mut CudaSlice<W>,
        y: &mut CudaSlice<W>,
    ) -> Result<bool> {
        let total = self.total(count)?;
        if x.len() < total || y.len() < total {
            return invalid!("device buffers hold {} and {} words, {total} needed", x.len(), y.len());
        }
        let Some(func) = self.funcs[v.kernel as usize].as_ref().filter(|_| self.variants.iter().any(|c| c.passes == v.passes)) else {
            return invalid!("{v:?} is not a pass structure of this plan");
        };
        if v.kernel == PassKernel::Short && self.logn > 32 {
            return invalid!("{v:?}: ntt_pass needs n <= 2^32");
        }
        let mut in_y = false;
        let mut logns = 0;
        let radices = balanced(self.logn, v.passes);
        for (i, &logr) in radices.iter().enumerate() {
            let groups = (total >> logr) as u64;
            let blocks = groups.div_ceil(1 << (loge(W::BITS) - logr));
            if blocks > i32::MAX as u64 {
                return Err(Error::SizeTooLarge(format!("{blocks} blocks in one launch")));
            }
            let shared_mem_bytes = shared_bytes(W::BITS, logr);
            let cfg = LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (NT, 1, 1), shared_mem_bytes };
            let last = i + 1 == radices.len();
            let (scale, scaleq) = if last { self.scale } else { (1, 0) };
            let (src, dst) = if in_y { (&*y, &mut *x) } else { (&*x, &mut *y) };
            let roots = self.roots.slice(2 * ((1 << (logr - 1)) - 1)..);
            let mut b = stream.launch_builder(func);
            b.arg(src).arg(dst).arg(&self.p).arg(&self.logn).arg(&logr).arg(&logns).arg(&groups);
            b.arg(&roots).arg(&logr).arg(&self.tlo).arg(&self.thi).arg(&self.logl).arg(&scale).arg(&scaleq);
            // SAFETY: the arguments match the signature of both kernels; src and dst hold `total`
            // words and every index the kernels form is below `total` (b < count, j < n/R,
            // r, k < R); logr ≤ LOGE, `roots` holds the R/2 roots of radix R (read at stride 1:
            // logr0 = logr), and `ntt_pass` runs only for n ≤ 2^32.
            unsafe { b.launch(cfg) }.map_err(|e| driver_err("ntt_pass launch", e))?;
            in_y = !in_y;
            logns += logr;
        }
        Ok(in_y)
    }
}

/// The shipped pass count for compute capability `cc`, words of `word_bits`, length 2^logn and
/// batches of 2^log_total words, when [`GPU_NTT_PASSES`] lists one.
fn shipped_passes(cc: (i32, i32), word_bits: u32, logn: u32, log_total: u32) -> Option<u32> {
    GPU_NTT_PASSES.iter().find(|e| (e.cc, e.word_bits, e.logn, e.log_total) == (cc, word_bits, logn, log_total)).map(|e| e.passes)
}

/// Searches the pass structure of every length 2^10..2^24 at every batch class up to the largest
/// the autotuner times, for 31-, 62- and 63-bit primes (the three kernel specialisations), on the
/// current device, and records the fastest (see [`autotune`]); later calls, in this and later
/// processes with the same cache, use them.
pub fn tune() -> Result<()> {
    let dev = device::current()?;
    shield("GPU NTT tuning", || {
        autotune::searching(|| {
            let stream = dev.stream()?;
            for bits in [31, 62, 63] {
                let p = fourier_prime(bits, 0)?;
                for logn in 10..=24u32 {
                    let w = primitive_root_of_unity(1 << logn, p)?;
                    if p < 1 << 31 {
                        tune_plan::<u32>(&dev, &stream, 1 << logn, w, p)?;
                    } else {
                        tune_plan::<u64>(&dev, &stream, 1 << logn, w, p)?;
                    }
                }
            }
            stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))
        })
    })
}

/// [`tune`] for one length.
fn tune_plan<W: Word>(dev: &Device, stream: &Arc<CudaStream>, n: usize, w: u64, p: u64) -> Result<()> {
    let plan = Plan::<W>::new(dev, stream, n, w, p, false)?;
    let mut total = n;
    while total <= AUTOTUNE_MAX_WORDS {
        crate::interrupt::checkpoint()?;
        plan.choose(stream, total)?;
        total *= 2;
    }
    Ok(())
}

/// Two device buffers of `len` words each, for [`Plan::run`]; fails with `OutOfMemory` when the
/// device cannot hold them.
pub fn buffers<W: Word>(stream: &Arc<CudaStream>, len: usize) -> Result<(CudaSlice<W>, CudaSlice<W>)> {
    shield("device buffers", || {
        if len.checked_mul(2 * W::BITS as usize / 8).is_none() {
            return Err(Error::OutOfMemory(format!("{len} words do not fit in the address space")));
        }
        // SAFETY: words have no invalid bit patterns; the contents are written before being read.
        let x = unsafe { stream.alloc::<W>(len.max(1)) }.map_err(|e| driver_err("cuMemAlloc", e))?;
        let y = unsafe { stream.alloc::<W>(len.max(1)) }.map_err(|e| driver_err("cuMemAlloc", e))?;
        Ok((x, y))
    })
}

/// `count` NTTs of length n in place (host memory in and out), on the current device, in batches
/// of as many rows as fit in three quarters of the free device memory (at least one row).
/// `x.len()` must be count·n and every entry below p (else `InvalidArgument`, x untouched).
///
/// The transfer: the plan (twiddle tables, kernels) is kept across calls ([`cached_plan`]), the
/// stream is taken from a pool, and the words go through the process's pinned staging buffer
/// ([`super::staging`]) in pieces of [`PIECE_WORDS`]: each piece is checked and packed (narrowed
/// to 32 bits when p < 2^31) by all threads, then its upload is queued, so that packing the next
/// piece overlaps it; downloads are queued piece by piece and each piece is unpacked into `x` as
/// soon as its copy is complete, while the later ones are still being copied.
pub fn ntt_many(x: &mut [u64], count: usize, n: usize, w: u64, p: u64, inverse: bool) -> Result<()> {
    ntt_many_batched(x, count, n, w, p, inverse, usize::MAX)
}

/// Words of one piece of an upload or download (see [`ntt_many`]).
const PIECE_WORDS: usize = 1 << 20;
/// Device bytes of twiddle tables [`cached_plan`] keeps, at most (the least recently used go first).
const PLAN_CACHE_BYTES: usize = 64 << 20;

/// `Err(InvalidArgument)` naming the first entry of x that is not below p; all threads look.
fn check_reduced_par(x: &[u64], p: u64) -> Result<()> {
    use rayon::prelude::*;
    if x.par_chunks(1 << 16).any(|c| crate::nmod::ntt::check_entries(c, p).is_err()) {
        crate::nmod::ntt::check_entries(x, p)?;
    }
    Ok(())
}

/// [`ntt_many`] with at most `max_rows` rows a batch.
fn ntt_many_batched(x: &mut [u64], count: usize, n: usize, w: u64, p: u64, inverse: bool, max_rows: usize) -> Result<()> {
    check_params(n, w, p)?;
    if count.checked_mul(n) != Some(x.len()) {
        return invalid!("{} words given for {count} transforms of length {n}", x.len());
    }
    let dev = match device::current() {
        Ok(d) => d,
        Err(e) => {
            // Bad input is reported as such on any machine.
            check_reduced_par(x, p)?;
            return Err(e);
        }
    };
    if n == 1 || count == 0 {
        return check_reduced_par(x, p);
    }
    shield("GPU NTT", || {
        if p < 1 << 31 {
            ntt_words::<u32>(&dev, x, count, n, w, p, inverse, max_rows)
        } else {
            ntt_words::<u64>(&dev, x, count, n, w, p, inverse, max_rows)
        }
    })
}

/// The key of a kept plan: device, word bits, n, w, p, inverse.
type PlanKey = (usize, u32, usize, u64, u64, bool);
/// Kept plans, least recently used first, with their table bytes.
type PlanList = Vec<(PlanKey, Arc<dyn std::any::Any + Send + Sync>, usize)>;

/// The plan of the length-n transform with root w modulo p on `dev` (see [`Plan::new`]), kept across
/// calls: at most [`PLAN_CACHE_BYTES`] of tables, the least recently used dropped first.
pub(crate) fn cached_plan<W: Word>(
    dev: &Device,
    stream: &Arc<CudaStream>,
    n: usize,
    w: u64,
    p: u64,
    inverse: bool,
) -> Result<Arc<Plan<W>>> {
    static PLANS: Mutex<PlanList> = Mutex::new(Vec::new());
    let key = (dev.ordinal, W::BITS, n, w, p, inverse);
    {
        let mut list = PLANS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = list.iter().position(|e| e.0 == key) {
            let e = list.remove(i);
            let plan = Arc::clone(&e.1).downcast::<Plan<W>>().ok();
            list.push(e);
            if let Some(plan) = plan {
                return Ok(plan);
            }
        }
    }
    let plan = Arc::new(Plan::<W>::new(dev, stream, n, w, p, inverse)?);
    let bytes = (plan.roots.len() + plan.tlo.len() + plan.thi.len()) * (W::BITS as usize / 8);
    let mut list = PLANS.lock().unwrap_or_else(|e| e.into_inner());
    list.retain(|e| e.0 != key);
    list.push((key, Arc::clone(&plan) as Arc<dyn std::any::Any + Send + Sync>, bytes));
    let mut total: usize = list.iter().map(|e| e.2).sum();
    while total > PLAN_CACHE_BYTES && list.len() > 1 {
        total -= list.remove(0).2;
    }
    Ok(plan)
}

/// A stream of a device from the NTT's pool, given back when dropped (a call that finds the pool
/// empty creates one; streams live as long as the process).
struct PooledStream {
    ordinal: usize,
    stream: Arc<CudaStream>,
}

/// The NTT's idle streams, by device ordinal.
static STREAMS: Mutex<Vec<(usize, Arc<CudaStream>)>> = Mutex::new(Vec::new());

impl PooledStream {
    fn take(dev: &Device) -> Result<PooledStream> {
        let mut pool = STREAMS.lock().unwrap_or_else(|e| e.into_inner());
        let stream = match pool.iter().position(|e| e.0 == dev.ordinal) {
            Some(i) => pool.swap_remove(i).1,
            None => {
                drop(pool);
                dev.stream()?
            }
        };
        Ok(PooledStream { ordinal: dev.ordinal, stream })
    }
}

impl Drop for PooledStream {
    fn drop(&mut self) {
        STREAMS.lock().unwrap_or_else(|e| e.into_inner()).push((self.ordinal, Arc::clone(&self.stream)));
    }
}

/// [`ntt_many`] on words of W, checked parameters (the entries are checked here).
#[allow(clippy::too_many_arguments)]
fn ntt_words<W: Word + StageWord>(
    dev: &Device,
    x: &mut [u64],
    count: usize,
    n: usize,
    w: u64,
    p: u64,
    inverse: bool,
    max_rows: usize,
) -> Result<()> {
    let mut t = Stages::new("GPU NTT", || format!("{count} × 2^{} in {}-bit words", n.trailing_zeros(), W::BITS));
    let pooled = PooledStream::take(dev)?;
    let stream = &pooled.stream;
    let plan = cached_plan::<W>(dev, stream, n, w, p, inverse)?;
    let (free, _) = dev.ctx.mem_get_info().map_err(|e| driver_err("cuMemGetInfo", e))?;
    let free = crate::memory::device_budget(free);
    let row_bytes = (2 * n).saturating_mul(W::BITS as usize / 8);
    let rows = (free / 4 * 3 / row_bytes).clamp(1, count.min(max_rows));
    if rows < count {
        // Several batches: x is written batch by batch, so every entry is checked first.
        check_reduced_par(x, p)?;
    }
    let (mut a, mut b) = buffers::<W>(stream, rows * n)?;
    let mut host = Host::get(dev, (rows * n * (W::BITS as usize / 8)).div_ceil(8))?;
    let stage = host.words::<W>(rows * n)?;
    if t.on() {
        stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
    }
    t.mark("plan and buffers");
    let r = (|| {
        for batch in x.chunks_mut(rows * n) {
            transform_batch(stream, &plan, &mut t, batch, &mut stage[..batch.len()], &mut a, &mut b, n, p)?;
        }
        Ok(())
    })();
    if r.is_err() {
        // No copy may still target the staging buffer when it goes back to the pool.
        let _ = stream.synchronize();
    }
    r
}

/// One batch of [`ntt_words`]: `batch` (its rows of n words) up through `stage`, transformed in
/// `a`/`b`, and back down into `batch`.
#[allow(clippy::too_many_arguments)]
fn transform_batch<W: Word>(
    stream: &Arc<CudaStream>,
    plan: &Plan<W>,
    t: &mut Stages,
    batch: &mut [u64],
    stage: &mut [W],
    a: &mut CudaSlice<W>,
    b: &mut CudaSlice<W>,
    n: usize,
    p: u64,
) -> Result<()> {
    use rayon::prelude::*;
    let wb = W::BITS as u64 / 8;
    let cs = stream.cu_stream();
    let wait = |t: &Stages| if t.on() { stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)) } else { Ok(()) };
    {
        let (aptr, _sync) = a.device_ptr_mut(stream);
        for (k, (dst, src)) in stage.chunks_mut(PIECE_WORDS).zip(batch.chunks(PIECE_WORDS)).enumerate() {
            let reduced = dst.par_chunks_mut(1 << 14).zip(src.par_chunks(1 << 14)).all(|(d, s)| {
                d.iter_mut().zip(s).for_each(|(d, &s)| *d = W::from_u64(s));
                s.iter().all(|&v| v < p)
            });
            if !reduced {
                crate::nmod::ntt::check_entries(batch, p)?;
            }
            // SAFETY: dst lies in the staging buffer, which is not written again before the stream
            // has passed this copy (pinned: asynchronous DMA; pageable: copied before the return);
            // the device range is inside `a`, which holds the batch.
            unsafe { result::memcpy_htod_async(aptr + k as u64 * PIECE_WORDS as u64 * wb, &*dst, cs) }
                .map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        }
    }
    wait(t)?;
    t.mark("host pack and upload");
    let in_b = plan.run(stream, batch.len() / n, a, b)?;
    wait(t)?;
    t.mark("kernels");
    let res = if in_b { &*b } else { &*a };
    let (rptr, _sync) = res.device_ptr(stream);
    let mut done = Vec::with_capacity(stage.len().div_ceil(PIECE_WORDS));
    for (k, dst) in stage.chunks_mut(PIECE_WORDS).enumerate() {
        // SAFETY: dst lies in the staging buffer, read only after the event recorded behind this
        // copy has completed; the device range is inside the result.
        unsafe { result::memcpy_dtoh_async(dst, rptr + k as u64 * PIECE_WORDS as u64 * wb, cs) }
            .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        let ev = stream
            .context()
            .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(|e| driver_err("cuEventCreate", e))?;
        ev.record(stream).map_err(|e| driver_err("cuEventRecord", e))?;
        done.push(ev);
    }
    for ((ev, src), dst) in done.iter().zip(stage.chunks(PIECE_WORDS)).zip(batch.chunks_mut(PIECE_WORDS)) {
        ev.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))?;
        dst.par_chunks_mut(1 << 14).zip(src.par_chunks(1 << 14)).for_each(|(d, s)| d.iter_mut().zip(s).for_each(|(d, s)| *d = s.to_u64()));
    }
    t.mark("download and unpack");
    Ok(())
}

/// Kernel-only time of `count` forward NTTs of length n on the current device, in milliseconds:
/// the median of `reps` runs timed by events after a warm-up run, on random device-resident data
/// (32-bit words when p < 2^31), for every candidate pass structure; the choice a call makes (see
/// [`autotune`]) is marked.
pub fn time_device(count: usize, n: usize, w: u64, p: u64, reps: usize) -> Result<Vec<(Variant, f64, bool)>> {
    let dev = device::current()?;
    if p < 1 << 31 {
        time_words::<u32>(&dev, count, n, w, p, reps)
    } else {
        time_words::<u64>(&dev, count, n, w, p, reps)
    }
}

fn time_words<W: Word>(dev: &Device, count: usize, n: usize, w: u64, p: u64, reps: usize) -> Result<Vec<(Variant, f64, bool)>> {
    shield("GPU NTT timing", || {
        let stream = dev.stream()?;
        let plan = Plan::<W>::new(dev, &stream, n, w, p, false)?;
        let total = plan.total(count)?;
        let chosen = plan.choose(&stream, total)?;
        let (mut a, mut b) = plan.random_buffers(&stream, total)?;
        let mut out = Vec::new();
        for &v in plan.variants() {
            let ms = autotune::time_ms(&stream, reps, || plan.run_variant(&stream, v, count, &mut a, &mut b).map(|_| ()))?;
            out.push((v, ms, v == chosen));
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::prime::{fourier_primes, primitive_root_of_unity};

    #[test]
    fn passes_cover_the_length() {
        for bits in [32, 64] {
            for logn in 1..=MAX_LOGN {
                let r = pass_radices(logn, loge(bits));
                assert_eq!(r.iter().sum::<u32>(), logn);
                assert!(r.iter().all(|l| (1..=loge(bits)).contains(l)));
                assert!(r.len() == 1 || r.iter().all(|&l| l <= MAX_LOGR));
                assert!(r.windows(2).all(|w| w[0] >= w[1]));
            }
        }
        assert_eq!(pass_radices(24, 12), vec![8, 8, 8]);
        assert_eq!(pass_radices(12, 12), vec![12]);
        assert_eq!(pass_radices(13, 13), vec![13]);
    }

    #[test]
    fn every_variant_covers_the_length() {
        for bits in [32, 64] {
            for logn in 1..=MAX_LOGN {
                let v = variants(logn, loge(bits));
                let kernel = if logn <= 32 { PassKernel::Short } else { PassKernel::Long };
                assert_eq!(v[0], Variant { kernel, passes: pass_radices(logn, loge(bits)).len() as u32 });
                assert!(v.iter().all(|x| x.kernel == kernel), "ntt_pass only up to 2^32, ntt_pass_long above");
                for x in &v {
                    let r = balanced(logn, x.passes);
                    assert_eq!(r.iter().sum::<u32>(), logn);
                    assert!(r.iter().all(|l| (1..=loge(bits)).contains(l)), "{logn} {x:?}");
                }
            }
        }
        assert_eq!(balanced(24, 2), vec![12, 12]);
        assert_eq!(balanced(23, 3), vec![8, 8, 7]);
    }

    /// Every shipped pick is a candidate of its length and word size, and is found by its key.
    #[test]
    fn shipped_picks_are_candidates() {
        assert!(!GPU_NTT_PASSES.is_empty());
        for e in GPU_NTT_PASSES {
            assert!(e.log_total >= e.logn, "a batch holds at least one transform");
            let v = variants(e.logn, loge(e.word_bits));
            assert!(v.iter().any(|c| c.passes == e.passes), "{} passes for 2^{}", e.passes, e.logn);
            assert_eq!(shipped_passes(e.cc, e.word_bits, e.logn, e.log_total), Some(e.passes));
        }
        assert_eq!(shipped_passes((9, 0), 32, 22, 22), Some(2));
        assert_eq!(shipped_passes((9, 0), 64, 22, 22), None);
        assert_eq!(shipped_passes((8, 0), 32, 22, 22), None);
    }

    #[test]
    fn bad_parameters_are_rejected_before_any_device_work() {
        let p = fourier_primes(62, 30, 1)[0];
        let w = primitive_root_of_unity(8, p).unwrap();
        let mut x = vec![0u64; 8];
        for (n, w, p) in [(8, w, p + 2), (8, w, 15), (6, w, p), (8, mulmod(w, w, p), p), (8, p, p), (8, w, 1 << 63)] {
            assert!(matches!(ntt_many(&mut x, 1, n, w, p, false), Err(Error::InvalidArgument(_))), "{n} {w} {p}");
        }
        assert!(matches!(ntt_many(&mut x, 2, 8, w, p, false), Err(Error::InvalidArgument(_))));
        x[3] = p;
        assert!(matches!(ntt_many(&mut x, 1, 8, w, p, false), Err(Error::InvalidArgument(_))));
    }

    /// On a machine without CUDA a valid call reports `NoCudaDevice` and never panics.
    #[test]
    fn without_cuda_valid_calls_report_no_device() {
        if device::driver_present() {
            eprintln!("skipped: libcuda is present on this machine");
            return;
        }
        let p = fourier_primes(62, 30, 1)[0];
        let w = primitive_root_of_unity(1 << 10, p).unwrap();
        let mut x: Vec<u64> = (0..1 << 10).collect();
        assert!(matches!(ntt_many(&mut x, 1, 1 << 10, w, p, false), Err(Error::NoCudaDevice(_))));
        assert!(matches!(time_device(1, 1 << 10, w, p, 1), Err(Error::NoCudaDevice(_))));
        assert!(matches!(compile::warmup(), Err(Error::NoCudaDevice(_))));
    }

    #[cfg(feature = "gpu-tests")]
    mod gpu {
        use super::*;

        /// x_i ← Σ_j x_j w^(ij) (times n^(−1) when `inverse`, with w^(−1)), O(n²).
        fn naive(x: &[u64], w: u64, p: u64, inverse: bool) -> Vec<u64> {
            let n = x.len();
            let w = if inverse { invmod(w, p) } else { w };
            let s = if inverse { invmod(n as u64 % p, p) } else { 1 };
            (0..n)
                .map(|i| {
                    let wi = powmod(w, i as u64, p);
                    let (mut acc, mut t) = (0u64, 1u64);
                    for &xj in x {
                        acc = ((acc as u128 + mulmod(xj, t, p) as u128) % p as u128) as u64;
                        t = mulmod(t, wi, p);
                    }
                    mulmod(acc, s, p)
                })
                .collect()
        }

        fn rng(seed: u64) -> impl FnMut() -> u64 {
            let mut r = crate::testing::Rng(seed);
            move || r.next()
        }

        fn primes() -> Vec<u64> {
            vec![
                fourier_primes(63, 32, 1)[0],
                fourier_primes(62, 30, 1)[0],
                fourier_primes(31, 24, 1)[0],
                fourier_primes(32, 20, 1)[0], // just above 2^31: 64-bit words
                fourier_primes(50, 30, 1)[0],
                998_244_353,
            ]
        }

        /// Random and edge inputs (all p−1, all 0, a unit vector) against the naive DFT, for every
        /// pass structure up to 2^13 and counts 1 and 3; the inverse undoes the forward transform.
        #[test]
        fn matches_naive_dft() {
            let mut r = rng(7);
            for p in primes() {
                for logn in 0..=13u32 {
                    let n = 1usize << logn;
                    if (p - 1) % n as u64 != 0 {
                        continue;
                    }
                    let w = primitive_root_of_unity(n as u64, p).unwrap();
                    for count in [1usize, 3] {
                        for kind in 0..4 {
                            let x: Vec<u64> = (0..count * n)
                                .map(|i| match kind {
                                    0 => r() % p,
                                    1 => p - 1,
                                    2 => 0,
                                    _ => u64::from(i % n == 1 % n),
                                })
                                .collect();
                            let mut y = x.clone();
                            ntt_many(&mut y, count, n, w, p, false).unwrap();
                            if logn <= 11 || kind == 0 && count == 1 {
                                for c in 0..count {
                                    let want = naive(&x[c * n..(c + 1) * n], w, p, false);
                                    assert!(y[c * n..(c + 1) * n] == want[..], "p={p} n={n} count={count} kind={kind} c={c}");
                                }
                            }
                            ntt_many(&mut y, count, n, w, p, true).unwrap();
                            assert!(y == x, "inverse p={p} n={n} count={count} kind={kind}");
                        }
                    }
                }
            }
        }

        /// Large lengths (several passes): the forward transform agrees with the naive DFT at
        /// sampled outputs, and the inverse restores the input.
        #[test]
        fn large_lengths_sampled() {
            let mut r = rng(11);
            for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
                for (logn, count) in [(16u32, 5usize), (20, 2), (21, 1), (24, 1)] {
                    let n = 1usize << logn;
                    let w = primitive_root_of_unity(n as u64, p).unwrap();
                    let x: Vec<u64> = (0..count * n).map(|_| r() % p).collect();
                    let mut y = x.clone();
                    ntt_many(&mut y, count, n, w, p, false).unwrap();
                    let c = count - 1;
                    let src = &x[c * n..];
                    for _ in 0..8 {
                        let i = (r() % n as u64) as usize;
                        let wi = powmod(w, i as u64, p);
                        let (mut acc, mut t) = (0u64, 1u64);
                        for &xj in &src[..n] {
                            acc = ((acc as u128 + mulmod(xj, t, p) as u128) % p as u128) as u64;
                            t = mulmod(t, wi, p);
                        }
                        assert_eq!(y[c * n + i], acc, "p={p} n=2^{logn} i={i}");
                    }
                    ntt_many(&mut y, count, n, w, p, true).unwrap();
                    assert!(y == x, "inverse p={p} n=2^{logn}");
                }
            }
        }

        /// Every candidate pass structure of the plan (each pass count the autotuner may pick, with
        /// `ntt_pass` and with `ntt_pass_long`) against the naive DFT, at every length up to 2^13 and counts 1 and 3 (partial
        /// blocks), sampled at 2^16..2^24 (two and three passes), for primes of both word sizes (lazy
        /// and canonical 64-bit kernels); the inverse plan restores the input.
        #[test]
        fn every_variant_matches_naive_dft() {
            let dev = device::current().unwrap();
            let stream = dev.stream().unwrap();
            let mut r = rng(5);
            for p in primes() {
                for logn in (1..=13u32).chain([16, 20, 22, 24]) {
                    let n = 1usize << logn;
                    if (p - 1) % n as u64 != 0 {
                        continue;
                    }
                    let w = primitive_root_of_unity(n as u64, p).unwrap();
                    for count in [1usize, 3] {
                        if logn > 13 && count > 1 {
                            continue;
                        }
                        let x: Vec<u64> = (0..count * n).map(|_| r() % p).collect();
                        // (position, expected word): every output up to 2^11, else 4 samples.
                        let want: Vec<(usize, u64)> = if logn <= 11 {
                            (0..count)
                                .flat_map(|c| {
                                    naive(&x[c * n..(c + 1) * n], w, p, false).into_iter().enumerate().map(move |(i, v)| (c * n + i, v))
                                })
                                .collect()
                        } else {
                            (0..4)
                                .map(|_| {
                                    let (c, i) = ((r() % count as u64) as usize, (r() % n as u64) as usize);
                                    let wi = powmod(w, i as u64, p);
                                    let (mut acc, mut t) = (0u64, 1u64);
                                    for &xj in &x[c * n..(c + 1) * n] {
                                        acc = ((acc as u128 + mulmod(xj, t, p) as u128) % p as u128) as u64;
                                        t = mulmod(t, wi, p);
                                    }
                                    (c * n + i, acc)
                                })
                                .collect()
                        };
                        let check = |y: &[u64], what: &str| {
                            for &(i, v) in &want {
                                assert_eq!(y[i], v, "{what} p={p} n=2^{logn} count={count} at {i}");
                            }
                        };
                        if p < 1 << 31 {
                            all_variants::<u32>(&dev, &stream, &x, count, n, w, p, &check);
                        } else {
                            all_variants::<u64>(&dev, &stream, &x, count, n, w, p, &check);
                        }
                    }
                }
            }
        }

        /// Runs every variant forward on x, checks the result with `check`, then the inverse
        /// plan's default on the result, which must give x back.
        #[allow(clippy::too_many_arguments)]
        fn all_variants<W: Word>(
            dev: &Device,
            stream: &Arc<CudaStream>,
            x: &[u64],
            count: usize,
            n: usize,
            w: u64,
            p: u64,
            check: &dyn Fn(&[u64], &str),
        ) {
            let fwd = Plan::<W>::new(dev, stream, n, w, p, false).unwrap();
            let inv = Plan::<W>::new(dev, stream, n, w, p, true).unwrap();
            let host: Vec<W> = x.iter().map(|&v| W::from_u64(v)).collect();
            let (mut a, mut b) = buffers::<W>(stream, x.len()).unwrap();
            for v in fwd.every_variant() {
                for vi in inv.every_variant() {
                    stream.memcpy_htod(&host, &mut a).unwrap();
                    let in_b = fwd.run_variant(stream, v, count, &mut a, &mut b).unwrap();
                    let y: Vec<u64> = stream.clone_dtoh(if in_b { &b } else { &a }).unwrap().into_iter().map(W::to_u64).collect();
                    check(&y, &v.label());
                    let (s, d) = if in_b { (&mut b, &mut a) } else { (&mut a, &mut b) };
                    let back = inv.run_variant(stream, vi, count, s, d).unwrap();
                    let z: Vec<u64> = stream.clone_dtoh(if back { &*d } else { &*s }).unwrap().into_iter().map(W::to_u64).collect();
                    assert!(z == x, "inverse {} after {} p={p} n={n} count={count}", vi.label(), v.label());
                }
            }
        }

        /// A batch split into pieces of two rows (as when it exceeds free device memory) gives the
        /// same rows as the naive DFT.
        /// Transforms longer than one staging piece (several pieces up and down, 31- and 62-bit
        /// words) match the naive DFT on sampled outputs, and invert exactly; an unreduced entry in
        /// the last piece (one batch) or in the last batch (several) is `InvalidArgument` and leaves
        /// x untouched; a plan is kept per (n, w, p, direction).
        #[test]
        fn pieces_match_and_bad_entries_leave_x_untouched() {
            let mut r = rng(11);
            for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
                let n = 2 * PIECE_WORDS + (1 << 12);
                let n = n.next_power_of_two();
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                let x: Vec<u64> = (0..n)
                    .map(|_| match r() % 4 {
                        0 => p - 1,
                        1 => 0,
                        _ => r() % p,
                    })
                    .collect();
                let mut y = x.clone();
                ntt_many(&mut y, 1, n, w, p, false).unwrap();
                for i in [0, 1, n / 2 - 1, n / 2, PIECE_WORDS - 1, PIECE_WORDS, n - 1] {
                    let wi = powmod(w, i as u64, p);
                    let want = x.iter().rev().fold(0u64, |acc, &xj| ((mulmod(acc, wi, p) as u128 + xj as u128) % p as u128) as u64);
                    assert_eq!(y[i], want, "p={p} X_{i}");
                }
                ntt_many(&mut y, 1, n, w, p, true).unwrap();
                assert!(y == x, "p={p}: the inverse restores x");
                let mut bad = x.clone();
                bad[n - 1] = p;
                let copy = bad.clone();
                assert!(matches!(ntt_many(&mut bad, 1, n, w, p, false), Err(Error::InvalidArgument(_))));
                assert!(bad == copy, "x untouched");
                let (m, count) = (1usize << 10, 6usize);
                let wm = primitive_root_of_unity(m as u64, p).unwrap();
                let mut rows: Vec<u64> = (0..m * count).map(|_| r() % p).collect();
                rows[m * count - 1] = p + 1;
                let copy = rows.clone();
                assert!(matches!(ntt_many_batched(&mut rows, count, m, wm, p, false, 2), Err(Error::InvalidArgument(_))));
                assert!(rows == copy, "x untouched across batches");
                let dev = device::current().unwrap();
                let s = dev.stream().unwrap();
                if p < 1 << 31 {
                    let (a, b) =
                        (cached_plan::<u32>(&dev, &s, m, wm, p, false).unwrap(), cached_plan::<u32>(&dev, &s, m, wm, p, false).unwrap());
                    assert!(Arc::ptr_eq(&a, &b));
                    assert!(!Arc::ptr_eq(&a, &cached_plan::<u32>(&dev, &s, m, wm, p, true).unwrap()));
                } else {
                    let (a, b) =
                        (cached_plan::<u64>(&dev, &s, m, wm, p, false).unwrap(), cached_plan::<u64>(&dev, &s, m, wm, p, false).unwrap());
                    assert!(Arc::ptr_eq(&a, &b));
                }
            }
        }

        #[test]
        fn batches_split_by_memory_match() {
            let mut r = rng(9);
            for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
                let (n, count) = (1usize << 9, 5usize);
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                let x: Vec<u64> = (0..count * n).map(|_| r() % p).collect();
                let mut y = x.clone();
                ntt_many_batched(&mut y, count, n, w, p, false, 2).unwrap();
                for c in 0..count {
                    assert!(y[c * n..(c + 1) * n] == naive(&x[c * n..(c + 1) * n], w, p, false)[..], "p={p} c={c}");
                }
                ntt_many_batched(&mut y, count, n, w, p, true, 3).unwrap();
                assert!(y == x);
            }
        }

        /// Device out of memory (an absurd size) is `GPMP_OUT_OF_MEMORY` through the C status, and
        /// a bad device index is refused without changing the current device.
        #[test]
        fn out_of_memory_and_bad_device_statuses() {
            use crate::ffi::gpmp_status;
            let dev = device::current().unwrap();
            let stream = dev.stream().unwrap();
            let st = crate::ffi::status::guard("test", || buffers::<u64>(&stream, 1 << 40).map(|_| ()));
            assert_eq!(st, gpmp_status::GPMP_OUT_OF_MEMORY);
            let before = device::current_ordinal();
            assert_eq!(
                crate::ffi::status::guard("test", || device::set_current(device::device_count() as i64)),
                gpmp_status::GPMP_INVALID_ARGUMENT
            );
            assert_eq!(device::current_ordinal(), before);
        }

        #[test]
        fn many_transforms_at_once() {
            let mut r = rng(3);
            let p = fourier_primes(62, 30, 1)[0];
            for (n, count) in [(2usize, 5000usize), (16, 999), (1 << 10, 257)] {
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                let x: Vec<u64> = (0..count * n).map(|_| r() % p).collect();
                let mut y = x.clone();
                ntt_many(&mut y, count, n, w, p, false).unwrap();
                for c in [0, count / 2, count - 1] {
                    assert!(y[c * n..(c + 1) * n] == naive(&x[c * n..(c + 1) * n], w, p, false)[..], "n={n} c={c}");
                }
            }
        }

        #[test]
        fn absurd_sizes_are_out_of_memory() {
            let dev = device::current().unwrap();
            let stream = dev.stream().unwrap();
            assert!(matches!(buffers::<u64>(&stream, 1 << 40), Err(Error::OutOfMemory(_))));
            assert!(matches!(buffers::<u32>(&stream, usize::MAX / 4), Err(Error::OutOfMemory(_))));
            // the device still works afterwards
            let p = 998_244_353;
            let w = primitive_root_of_unity(4, p).unwrap();
            let mut x = vec![1, 2, 3, 4];
            ntt_many(&mut x, 1, 4, w, p, false).unwrap();
            assert_eq!(x, naive(&[1, 2, 3, 4], w, p, false));
        }

        #[test]
        fn concurrent_calls_from_many_threads() {
            let p = fourier_primes(62, 30, 1)[0];
            let n = 1 << 12;
            let w = primitive_root_of_unity(n as u64, p).unwrap();
            std::thread::scope(|s| {
                for t in 0..8u64 {
                    s.spawn(move || {
                        let mut r = rng(100 + t);
                        for _ in 0..4 {
                            let x: Vec<u64> = (0..n).map(|_| r() % p).collect();
                            let mut y = x.clone();
                            ntt_many(&mut y, 1, n, w, p, false).unwrap();
                            assert!(y == naive(&x, w, p, false));
                        }
                    });
                }
            });
        }
    }
}
