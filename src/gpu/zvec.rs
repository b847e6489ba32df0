//! `gpmp_zvec` in device memory: n signed integers of at most `bits` bits, L = ⌈bits/64⌉ limbs
//! each, word-major (limb j of element i at `data[j·n + i]`, as [`crate::int::ZVec`] on the host)
//! and one sign byte per element (0 or 1; zero has sign 0). Element-wise add/sub and mul run in
//! `kernels/zvec.cu`, one thread per element; every operation writes a fresh buffer (freed buffers
//! are kept for reuse, [`FREED`]), so that an operation whose result does not fit its destination
//! leaves it untouched (the caller installs the result only on success) and the destination may
//! be an operand.
//!
//! All zvec work of a device goes to one stream of its own, in call order: an operation returns
//! once its work is queued (stream-ordered, asynchronous), and host reads ([`DevVec::download`])
//! wait for it. A failure of queued work on the device is therefore seen at the next wait (a
//! download, an upload, an overflow check, [`sync`]); the error then names the first operation
//! queued since the last wait that was not yet seen complete ([`queued`] records an event after
//! each). `GPMP_SYNC=1` makes every operation wait for its own work, so that it reports its own
//! failure.
use super::compile;
use super::device::{self, Device};
use super::kernels::{Kernel, Spec};
use super::staging::Host;
use super::{driver_err, shield};
use crate::int::{limbs_for_bits, pack_word_major, IntRef};
use crate::log::{log, Level};
use crate::runtime::sync_calls;
use crate::tuning::{
    GPU_ZVEC_ADDSUB_BLOCK_LIMBS, GPU_ZVEC_ADDSUB_LANES, GPU_ZVEC_MULC_MIN_BLOCKS_PER_SM, GPU_ZVEC_MULW_CHUNK_LIMBS,
    GPU_ZVEC_MULW_MIN_BLOCKS_PER_SM, GPU_ZVEC_MULW_MIN_LIMBS, GPU_ZVEC_MULW_UNIT, GPU_ZVEC_MUL_ACCUMULATORS,
    GPU_ZVEC_MUL_MIN_BLOCKS_PER_SM, GPU_ZVEC_PREFETCH, GPU_ZVEC_STAGE_WORDS,
};
use crate::{invalid, Error, Result};
use cudarc::driver::CudaEvent;
use cudarc::driver::{result, sys, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Threads per block (`NT` in the kernel).
const NT: u32 = 128;
/// Operands of up to this many limbs (1024 bits) are multiplied with both in registers (`zv_mul`);
/// above, chunks of this many limbs of a slide along b (`zv_mulc`), and from
/// [`GPU_ZVEC_MULW_MIN_LIMBS`] wider chunks against a shared-memory ring of b (`zv_mulw`).
const MAX_REG: usize = 16;

/// Threads per block of `zv_mulw` (its shared ring takes 8·(2CW + ZW_E) bytes a thread).
const NT_WIDE: u32 = 64;

/// Digit columns of a `zv_mulw` group (`ZW_E`: eight independent carry chains a thread; 2CW must
/// be a multiple of it).
const ZW_E: usize = 8;

/// `zv_mulw`'s specialisation: chunks of `cw` limbs, `minb` blocks per SM, prefetch `pf` groups of
/// ZW_E / 2 limbs ahead, ragged columns in units of `u` blocks of 4 digits.
fn wide_spec_of(cw: usize, minb: usize, pf: usize, u: usize) -> Spec {
    let d = [("CW", cw), ("NT", NT_WIDE as usize), ("MINB", minb), ("PF", pf), ("ZW_U", u), ("ZW_E", ZW_E)];
    Spec { source: "zvec.cu", defines: d.iter().map(|&(k, v)| (k, v as i64)).collect() }
}

/// The specialisation of `zv_mulw`.
fn wide_spec() -> Spec {
    wide_spec_of(GPU_ZVEC_MULW_CHUNK_LIMBS, GPU_ZVEC_MULW_MIN_BLOCKS_PER_SM, GPU_ZVEC_PREFETCH, GPU_ZVEC_MULW_UNIT)
}

/// The specialisation with register products of `c` limbs (add/sub: 1) and `minb` blocks per SM.
fn spec_of(c: usize, minb: usize) -> Spec {
    let d = [("C", c), ("NT", NT as usize), ("MINB", minb), ("ZV_ACC", GPU_ZVEC_MUL_ACCUMULATORS)];
    Spec { source: "zvec.cu", defines: d.iter().map(|&(k, v)| (k, v as i64)).collect() }
}

/// The chunked product's specialisation: chunks of [`MAX_REG`] limbs.
fn chunked_spec() -> Spec {
    let mut s = spec_of(MAX_REG, GPU_ZVEC_MULC_MIN_BLOCKS_PER_SM);
    s.defines.push(("PF", GPU_ZVEC_PREFETCH as i64));
    s
}

/// The specialisation of add/sub with `lanes` elements a thread for `zv_addsubv` (`zv_addsub`: any).
fn addsub_spec(lanes: usize) -> Spec {
    let mut s = spec_of(1, GPU_ZVEC_MUL_MIN_BLOCKS_PER_SM);
    s.defines.extend([("ZA_K", GPU_ZVEC_ADDSUB_BLOCK_LIMBS as i64), ("ZA_V", lanes as i64)]);
    s
}

/// The add/sub kernel chosen by [`set_addsub_kernel`]; `usize::MAX`: [`GPU_ZVEC_ADDSUB_LANES`].
static ADDSUB_KERNEL: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Selects the add/sub kernel of this process, for benchmarks that compare them in one run: 0 the
/// one-element-a-thread `zv_addsub`, 1 or 2 `zv_addsubv` with that many elements a thread; any other
/// value restores the library's choice, [`GPU_ZVEC_ADDSUB_LANES`].
pub fn set_addsub_kernel(lanes: usize) {
    ADDSUB_KERNEL.store(if lanes <= 2 { lanes } else { usize::MAX }, Ordering::Relaxed);
}

/// The add/sub kernel for n elements: its specialisation, name and elements a thread.
fn addsub_kernel(n: usize) -> (Spec, &'static str, usize) {
    let lanes = match ADDSUB_KERNEL.load(Ordering::Relaxed) {
        usize::MAX => GPU_ZVEC_ADDSUB_LANES,
        v => v,
    };
    match lanes {
        0 => (addsub_spec(1), "zv_addsub", 1),
        v if n.is_multiple_of(v) => (addsub_spec(v), "zv_addsubv", v),
        _ => (addsub_spec(1), "zv_addsubv", 1),
    }
}

/// The product kernel for operands of at most `l` limbs: its specialisation, name and threads per block.
fn mul_kernel(l: usize) -> (Spec, &'static str, u32) {
    if l <= MAX_REG {
        (spec_of(l.max(1), GPU_ZVEC_MUL_MIN_BLOCKS_PER_SM), "zv_mul", NT)
    } else if l >= GPU_ZVEC_MULW_MIN_LIMBS {
        (wide_spec(), "zv_mulw", NT_WIDE)
    } else {
        (chunked_spec(), "zv_mulc", NT)
    }
}

/// `kernels/zvec.cu`: element-wise integer arithmetic on word-major batches.
pub static KERNEL: Kernel = Kernel { file: "zvec.cu", source: include_str!("../../kernels/zvec.cu"), int128: false, specs };

/// Every specialisation this module can request.
pub fn specs() -> Vec<Spec> {
    let mut v: Vec<Spec> = (1..=MAX_REG).map(|c| spec_of(c, GPU_ZVEC_MUL_MIN_BLOCKS_PER_SM)).collect();
    v.extend([addsub_spec(1), addsub_spec(2), chunked_spec(), wide_spec()]);
    v
}

/// The zvec streams, by device ordinal.
static STREAMS: OnceLock<Mutex<HashMap<usize, Arc<CudaStream>>>> = OnceLock::new();

/// The zvec stream of `dev` (created at first use, kept).
fn stream(dev: &Device) -> Result<Arc<CudaStream>> {
    let mut m = STREAMS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = m.get(&dev.ordinal) {
        return Ok(Arc::clone(s));
    }
    let s = dev.stream()?;
    m.insert(dev.ordinal, Arc::clone(&s));
    Ok(s)
}

/// An operation queued on a zvec stream, with an event recorded after its work.
struct Queued {
    what: &'static str,
    done: CudaEvent,
}

/// The operations queued and not yet seen complete, oldest first.
static QUEUED: Mutex<VecDeque<Queued>> = Mutex::new(VecDeque::new());
/// The first device failure seen since the last [`sync`].
static DEFERRED: Mutex<Option<Error>> = Mutex::new(None);

/// Records that the work of operation `what` is queued on `stream`. With `GPMP_SYNC=1` waits for
/// it and returns its failure; else records an event after it (and forgets the operations already
/// complete).
pub(super) fn queued(what: &'static str, stream: &Arc<CudaStream>) -> Result<()> {
    if sync_calls() {
        return waited(what, stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)));
    }
    let done = shield("cuEventRecord", || {
        let ev =
            stream.context().new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(|e| driver_err("cuEventCreate", e))?;
        ev.record(stream).map_err(|e| driver_err("cuEventRecord", e))?;
        Ok(ev)
    })?;
    let mut q = QUEUED.lock().unwrap_or_else(|e| e.into_inner());
    while q.front().is_some_and(|o| o.done.try_is_complete().unwrap_or(false)) {
        q.pop_front();
    }
    q.push_back(Queued { what, done });
    Ok(())
}

/// The outcome `w` of a wait by operation `what` on a zvec stream: on success, the operations seen
/// complete are forgotten; a failure names the first queued operation not seen complete (whose
/// event reports the error, else the oldest still queued), is kept for [`sync`], and is returned.
pub(super) fn waited(what: &'static str, w: Result<()>) -> Result<()> {
    let mut q = QUEUED.lock().unwrap_or_else(|e| e.into_inner());
    let Err(e) = w else {
        q.retain(|o| !o.done.try_is_complete().unwrap_or(false));
        return Ok(());
    };
    let culprit = q.iter().find(|o| o.done.try_is_complete().is_err()).or(q.front()).map_or(what, |o| o.what);
    q.clear();
    let e = match e {
        Error::Cuda(m) if culprit == what => Error::Cuda(format!("{what} failed on the device: {m}")),
        Error::Cuda(m) => Error::Cuda(format!("{culprit} (or an operation queued after it) failed on the device, seen by {what}: {m}")),
        other => other,
    };
    DEFERRED.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(|| e.clone());
    Err(e)
}

/// `r`, with a CUDA error (the driver reports an earlier device failure at any later call) named
/// as [`waited`] names it.
pub(super) fn attributed<T>(what: &'static str, r: Result<T>) -> Result<T> {
    match r {
        Err(e @ Error::Cuda(_)) => Err(waited(what, Err(e)).expect_err("a failed wait stays failed")),
        r => r,
    }
}

/// Waits for every zvec operation queued on every device and returns the first device failure seen
/// since the last call (by this wait or by an earlier one), then forgets it.
pub fn sync() -> Result<()> {
    let streams: Vec<_> =
        STREAMS.get().map(|m| m.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()).unwrap_or_default();
    for s in streams {
        let w = shield("cuStreamSynchronize", || s.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)));
        let _ = waited("gpmp_zvec_sync", w);
    }
    DEFERRED.lock().unwrap_or_else(|e| e.into_inner()).take().map_or(Ok(()), Err)
}

/// Loaded kernels by (device, specialisation, name).
type Functions = Mutex<HashMap<(usize, Spec, &'static str), CudaFunction>>;

/// Kernel `name` of `spec` on `dev` (looked up once, then kept).
fn function(dev: &Device, spec: &Spec, name: &'static str) -> Result<CudaFunction> {
    static F: OnceLock<Functions> = OnceLock::new();
    let key = (dev.ordinal, spec.clone(), name);
    if let Some(f) = F.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(f.clone());
    }
    let f = compile::module(dev, spec)?.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e))?;
    F.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert(key, f.clone());
    Ok(f)
}

/// One device allocation of a zvec: the n·L limbs, then the n sign bytes, then (4-aligned) a u32
/// overflow flag for add/sub. Raw stream-ordered memory of the zvec stream (cuMemAllocAsync /
/// cuMemFreeAsync), not a cudarc `CudaSlice`: all zvec work is ordered by that one stream, so the
/// two events a `CudaSlice` creates and records at every use (about 30 driver calls an operation)
/// would order nothing. A dropped buffer goes to [`FREED`] for the next allocation of its size.
struct Buf {
    ptr: sys::CUdeviceptr,
    bytes: usize,
    stream: Arc<CudaStream>,
    /// Bytes [`FREED`] may hold: 1/16 of the device's memory.
    cap: usize,
}

/// Freed zvec buffers (at most [`FREED_MAX`] of them and 1/16 of the device's memory, the oldest
/// given back to the driver first), reused
/// by the next allocation of the same size on the same stream: every operation writes a fresh
/// destination, and the driver's pool returns unused memory to the system at each
/// synchronisation, so that without this a chain of operations would map fresh memory for most
/// of its results. Reuse is stream-ordered: work queued later on the zvec stream runs after all
/// work on the buffer's previous contents.
static FREED: Mutex<Vec<(sys::CUdeviceptr, usize, Arc<CudaStream>)>> = Mutex::new(Vec::new());
const FREED_MAX: usize = 4;

/// Gives `ptr` back to the driver (stream-ordered; a failure can only leak).
fn release(ptr: sys::CUdeviceptr, stream: &CudaStream) {
    let _ = shield("zvec free", || {
        stream.context().bind_to_thread().map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        // SAFETY: ptr came from malloc_async on this stream and is freed once.
        unsafe { result::free_async(ptr, stream.cu_stream()) }.map_err(|e| driver_err("cuMemFreeAsync", e))
    });
}

impl Buf {
    fn new(dev: &Device, stream: &Arc<CudaStream>, bytes: usize) -> Result<Buf> {
        let cap = dev.total_mem / 16;
        let mut freed = FREED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = freed.iter().position(|(_, b, s)| *b == bytes && Arc::ptr_eq(s, stream)) {
            let (ptr, _, _) = freed.remove(k);
            return Ok(Buf { ptr, bytes, stream: Arc::clone(stream), cap });
        }
        let alloc = || {
            shield("zvec allocation", || {
                stream.context().bind_to_thread().map_err(|e| driver_err("cuCtxSetCurrent", e))?;
                // SAFETY: a fresh allocation on the zvec stream; every byte is written before it is read.
                unsafe { result::malloc_async(stream.cu_stream(), bytes) }.map_err(|e| driver_err("cuMemAllocAsync", e))
            })
        };
        let ptr = match alloc() {
            Err(Error::OutOfMemory(_)) if !freed.is_empty() => {
                for (p, _, s) in freed.drain(..) {
                    release(p, &s);
                }
                alloc()?
            }
            r => r?,
        };
        Ok(Buf { ptr, bytes, stream: Arc::clone(stream), cap })
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        let mut freed = FREED.lock().unwrap_or_else(|e| e.into_inner());
        freed.push((self.ptr, self.bytes, Arc::clone(&self.stream)));
        while freed.len() > FREED_MAX || freed.iter().map(|f| f.1).sum::<usize>() > self.cap {
            let (p, _, s) = freed.remove(0);
            release(p, &s);
        }
    }
}

/// A batch of integers on one device.
pub struct DevVec {
    n: usize,
    bits: u64,
    pub(super) dev: Arc<Device>,
    pub(super) stream: Arc<CudaStream>,
    buf: Buf,
}

impl DevVec {
    /// Byte offsets of the signs and of the flag in the allocation, and its size, for n·L words.
    fn layout(n: usize, words: usize) -> (usize, usize, usize) {
        let signs = 8 * words.max(1);
        let flag = (signs + n.max(1)).next_multiple_of(4);
        (signs, flag, flag + 4)
    }

    /// Uninitialised storage for n integers of `bits` bits on `dev`.
    pub(super) fn alloc(dev: Arc<Device>, n: usize, bits: u64) -> Result<Self> {
        let stream = stream(&dev)?;
        let words = limbs_for_bits(bits)
            .checked_mul(n)
            .filter(|&w| w <= isize::MAX as usize / 16)
            .ok_or_else(|| Error::SizeTooLarge(format!("zvec of {n} integers of {bits} bits")))?;
        let buf = Buf::new(&dev, &stream, Self::layout(n, words).2)?;
        // The raw copies and fills that follow run in the thread's current context: make it this
        // device's (a recycled buffer skips the allocation that would), so that a thread serving one
        // device of a split batch never runs them in another device's context behind its work.
        shield("cuCtxSetCurrent", || stream.context().bind_to_thread().map_err(|e| driver_err("cuCtxSetCurrent", e)))?;
        Ok(DevVec { n, bits, dev, stream, buf })
    }

    fn words(&self) -> usize {
        self.n * limbs_for_bits(self.bits)
    }

    /// Device addresses of the limbs, the signs and the flag (kernel arguments; the kernels run on
    /// [`DevVec::stream`], which orders every use of the buffer).
    pub(super) fn ptrs(&self) -> (u64, u64, u64) {
        let (s, f, _) = Self::layout(self.n, self.words());
        (self.buf.ptr, self.buf.ptr + s as u64, self.buf.ptr + f as u64)
    }

    /// n zeros of `bits` bits on the current device.
    pub fn zeros(n: usize, bits: u64) -> Result<Self> {
        let v = attributed("zvec zeros", Self::alloc(device::current()?, n, bits))?;
        let bytes = Self::layout(n, v.words()).2;
        attributed(
            "zvec zeros",
            shield("zvec zeros", || {
                // SAFETY: the allocation holds `bytes` bytes.
                unsafe { result::memset_d8_async(v.buf.ptr, 0, bytes, v.stream.cu_stream()) }.map_err(|e| driver_err("cuMemsetD8Async", e))
            }),
        )?;
        attributed("zvec zeros", queued("zvec zeros", &v.stream))?;
        Ok(v)
    }

    /// The integers of `data` (word-major, n·L limbs) and `neg` (n signs) on the current device.
    pub fn upload(n: usize, bits: u64, data: &[u64], neg: &[bool]) -> Result<Self> {
        if data.len() != n * limbs_for_bits(bits) || neg.len() != n {
            return Err(Error::Internal(format!("zvec upload of {} limbs and {} signs", data.len(), neg.len())));
        }
        let v = attributed("zvec upload", Self::alloc(device::current()?, n, bits))?;
        let signs: Vec<u8> = neg.iter().map(|&s| u8::from(s)).collect();
        let (d, s, _) = v.ptrs();
        let copied = shield("zvec upload", || {
            let cs = v.stream.cu_stream();
            // SAFETY: the allocation holds n·L words at d and n bytes at s.
            unsafe {
                if !data.is_empty() {
                    result::memcpy_htod_async(d, data, cs).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
                }
                if n > 0 {
                    result::memcpy_htod_async(s, &signs[..], cs).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
                }
            }
            Ok(())
        });
        // The host buffers may go once this returns (also after a failed copy).
        let t = Instant::now();
        let synced = shield("cuStreamSynchronize", || v.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)));
        waited("zvec upload", copied.and(synced))?;
        log(Level::Debug, "zvec upload", || format!("{} bytes, upload {:.2} ms", 8 * data.len() + n, compile::ms(t, Instant::now())));
        Ok(v)
    }

    /// (limbs, signs) in host memory, after all work queued on the zvec stream.
    pub fn download(&self) -> Result<(Vec<u64>, Vec<bool>)> {
        let words = self.words();
        let (d, s, _) = self.ptrs();
        let t = Instant::now();
        let r = shield("zvec download", || {
            let mut data = vec![0u64; words];
            let mut neg = vec![0u8; self.n];
            let cs = self.stream.cu_stream();
            self.stream.context().bind_to_thread().map_err(|e| driver_err("cuCtxSetCurrent", e))?;
            // SAFETY: the allocation holds n·L words at d and n bytes at s; the stream is
            // synchronised before the host buffers are read or dropped.
            unsafe {
                if words > 0 {
                    result::memcpy_dtoh_async(&mut data[..], d, cs).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                }
                if self.n > 0 {
                    result::memcpy_dtoh_async(&mut neg[..], s, cs).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                }
            }
            waited("zvec download", self.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)))?;
            Ok((data, neg.into_iter().map(|s| s != 0).collect()))
        });
        log(Level::Debug, "zvec download", || {
            format!("{} bytes, queued work and download {:.2} ms", 8 * words + self.n, compile::ms(t, Instant::now()))
        });
        attributed("zvec download", r)
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub fn bits(&self) -> u64 {
        self.bits
    }

    pub(super) fn limbs(&self) -> u32 {
        limbs_for_bits(self.bits) as u32
    }

    /// Whether a and b live on the same device (then their operations can run there).
    pub fn same_device(&self, other: &DevVec) -> bool {
        self.dev.ordinal == other.dev.ordinal
    }

    pub(super) fn check_pair(a: &DevVec, b: &DevVec) -> Result<()> {
        if a.n != b.n {
            return invalid!("zvec lengths differ ({}, {})", a.n, b.n);
        }
        if !a.same_device(b) {
            return Err(Error::Internal("zvec operands on different devices".into()));
        }
        Ok(())
    }

    fn config(&self, nt: u32) -> Result<LaunchConfig> {
        let blocks = self.n.div_ceil(nt as usize).max(1);
        if blocks > i32::MAX as usize {
            return Err(Error::SizeTooLarge(format!("{} elements in one launch", self.n)));
        }
        Ok(LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (nt, 1, 1), shared_mem_bytes: 0 })
    }

    /// a + b (`sub` false) or a − b into a new vector of `bits` bits; `Error::SizeTooLarge` when
    /// an element does not fit (then the device is synchronised to read the overflow flag, which
    /// is skipped when bits ≥ max(a.bits, b.bits) + 1 makes every result fit).
    pub fn add_sub(a: &DevVec, b: &DevVec, sub: bool, bits: u64) -> Result<DevVec> {
        Self::check_pair(a, b)?;
        let what = if sub { "zvec sub" } else { "zvec add" };
        let r = attributed(what, Self::alloc(Arc::clone(&a.dev), a.n, bits))?;
        if a.n == 0 {
            return Ok(r);
        }
        let (spec, name, lanes) = addsub_kernel(a.n);
        let f = attributed(what, function(&a.dev, &spec, name))?;
        let mut cfg = r.config(NT)?;
        cfg.grid_dim.0 = a.n.div_ceil(lanes * NT as usize).max(1) as u32;
        let fits = bits > a.bits.max(b.bits);
        attributed(
            what,
            shield(what, || {
                let s = &r.stream;
                let cs = s.cu_stream();
                let ((rd, rs, flag), (ad, as_, _), (bd, bs, _)) = (r.ptrs(), a.ptrs(), b.ptrs());
                if !fits {
                    // SAFETY: the flag is 4 bytes of r's allocation.
                    unsafe { result::memset_d8_async(flag, 0, 4, cs) }.map_err(|e| driver_err("cuMemsetD8Async", e))?;
                }
                let (n, la, lb, lr, rtop, subw) = (a.n as u64, a.limbs(), b.limbs(), r.limbs(), (bits % 64) as u32, u32::from(sub));
                let mut l = s.launch_builder(&f);
                l.arg(&rd).arg(&rs).arg(&ad).arg(&as_).arg(&bd).arg(&bs);
                l.arg(&n).arg(&la).arg(&lb).arg(&lr).arg(&rtop).arg(&subw).arg(&flag);
                // SAFETY: arguments match zv_addsub and zv_addsubv (n a multiple of its elements a
                // thread); r, a, b hold n·(lr, la, lb) limbs and n signs, ordered by the zvec stream.
                unsafe { l.launch(cfg) }.map_err(|e| driver_err("zv_addsub launch", e))?;
                if !fits {
                    let mut h = [0u32];
                    // SAFETY: reads the 4-byte flag, then waits for the copy.
                    unsafe { result::memcpy_dtoh_async(&mut h[..], flag, cs) }.map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                    waited(what, s.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)))?;
                    if h[0] != 0 {
                        return Err(Error::SizeTooLarge(format!(
                            "a {} does not fit in {bits} bits",
                            if sub { "difference" } else { "sum" }
                        )));
                    }
                    return Ok(());
                }
                queued(what, s)
            }),
        )?;
        Ok(r)
    }

    /// a·b into a new vector of `bits` ≥ a.bits + b.bits bits (else `Error::SizeTooLarge`).
    pub fn mul(a: &DevVec, b: &DevVec, bits: u64) -> Result<DevVec> {
        Self::check_pair(a, b)?;
        if bits < a.bits.saturating_add(b.bits) {
            return Err(Error::SizeTooLarge(format!("product of {}- and {}-bit zvecs into a {bits}-bit zvec", a.bits, b.bits)));
        }
        let r = attributed("zvec mul", Self::alloc(Arc::clone(&a.dev), a.n, bits))?;
        if a.n == 0 {
            return Ok(r);
        }
        let (spec, name, nt) = mul_kernel(a.limbs().max(b.limbs()) as usize);
        let f = attributed("zvec mul", function(&a.dev, &spec, name))?;
        let cfg = r.config(nt)?;
        attributed(
            "zvec mul",
            shield("zvec mul", || {
                let ((rd, rs, _), (ad, as_, _), (bd, bs, _)) = (r.ptrs(), a.ptrs(), b.ptrs());
                let (n, la, lb, lr) = (a.n as u64, a.limbs(), b.limbs(), r.limbs());
                let mut l = r.stream.launch_builder(&f);
                l.arg(&rd).arg(&rs).arg(&ad).arg(&as_).arg(&bd).arg(&bs);
                l.arg(&n).arg(&la).arg(&lb).arg(&lr);
                // SAFETY: arguments match zv_mul; r, a, b hold n·(lr, la, lb) limbs and n signs, all
                // ordered by the zvec stream, and lr limbs of ≥ a.bits + b.bits bits hold every product.
                unsafe { l.launch(cfg) }.map_err(|e| driver_err("zv_mul launch", e))?;
                queued("zvec mul", &r.stream)
            }),
        )?;
        Ok(r)
    }

    /// Waits for the work queued on this vector's stream.
    pub fn synchronize(&self) -> Result<()> {
        waited(
            "zvec synchronize",
            shield("cuStreamSynchronize", || self.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))),
        )
    }
}

/// Largest operand (limbs) of the batched products from host memory ([`Products`]): one thread
/// multiplies one pair, so that beyond this a product belongs to the big-integer engines.
pub const PRODUCTS_MAX_LIMBS: usize = 1024;

/// Whether the kernels of [`Products`] for operands of at most `la` and `lb` limbs (with an addend:
/// `addend`) are loaded on the current device; when not, their compilation is started in the
/// background (`compile::ready_or_start`) and false returned at once. False without a device.
pub fn products_ready(la: usize, lb: usize, addend: bool) -> bool {
    let Ok(dev) = device::current() else { return false };
    let (spec, _, _) = mul_kernel(la.max(lb).max(1));
    let mul = compile::ready_or_start(&dev, &spec);
    // Chunks of even and odd length may take different add/sub specialisations: start both.
    let add = !addend || {
        let ready: Vec<bool> = [addsub_kernel(0).0, addsub_spec(1)].iter().map(|s| compile::ready_or_start(&dev, s)).collect();
        ready.into_iter().all(|r| r)
    };
    mul && add
}

/// r\[i\] = c\[i\] + a\[i\]·b\[i\] (or a\[i\]·b\[i\] without c) for operands in host memory, computed
/// chunk by chunk: the operands of a chunk are packed word-major (in parallel) into one of two
/// pinned staging buffers while the previous chunk uploads and its product runs, all on the zvec
/// stream; the results stay on the device until [`Products::chunk`] downloads them (two pinned
/// buffers: chunk k + 1 downloads while the caller reads chunk k). Every result has `lr` limbs
/// (la + lb, or max(lc, la + lb) + 1 with an addend; L the longest operand of each array).
/// [`Products::start`] reads the operands and nothing after, so the caller may reuse their memory
/// (grow outputs that alias them) once it returns.
pub struct Products {
    n: usize,
    chunk: usize,
    lr: usize,
    dev: Arc<Device>,
    stream: Arc<CudaStream>,
    results: Vec<DevVec>,
    /// Recorded after the last kernel: [`Products::chunk`] waits for it once, so that a kernel's
    /// failure is seen before any result is read.
    computed: Option<CudaEvent>,
    out: [Option<Host>; 2],
    /// One event per queued download, recorded after it.
    downloads: Vec<CudaEvent>,
    stages: crate::log::Stages,
}

/// The results of one chunk in host memory (word-major, `lr` limbs an element).
pub struct Chunk<'a> {
    start: usize,
    n: usize,
    data: &'a [u64],
    neg: &'a [u8],
}

impl Chunk<'_> {
    /// The elements of the batch this chunk holds.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.n
    }

    /// Element `i` of the batch (in [`Chunk::range`]): its limbs written into `out` (at least as
    /// many as its value needs; the limbs above them are zero), returns (sign, normalized length).
    pub fn get(&self, i: usize, out: &mut [u64]) -> (bool, usize) {
        let t = i - self.start;
        let lr = self.data.len() / self.n.max(1);
        let take = out.len().min(lr);
        let len = crate::int::read_word_major(self.data, self.n, t, &mut out[..take]);
        (self.neg[t] != 0 && len > 0, len)
    }
}

/// The limbs (n·l words, then n sign bytes) of a staging buffer of at least n·l + ⌈n/8⌉ words.
fn carve(buf: &mut [u64], n: usize, l: usize) -> (&mut [u64], &mut [u8]) {
    let (words, rest) = buf.split_at_mut(n * l);
    assert!(8 * rest.len() >= n, "staging of {} words for {n}·{l}", n * l + rest.len());
    // SAFETY: u8 has no invalid bit patterns and alignment 1; the n bytes lie inside `rest`.
    let signs = unsafe { std::slice::from_raw_parts_mut(rest.as_mut_ptr().cast::<u8>(), n) };
    (words, signs)
}

impl Products {
    /// Packs, uploads and multiplies every chunk (see [`Products`]); a.len() = b.len() (= c.len())
    /// = n, every operand of at most [`PRODUCTS_MAX_LIMBS`] limbs. Call it inside gpmp's pool.
    pub fn start(c: Option<&[IntRef]>, a: &[IntRef], b: &[IntRef]) -> Result<Products> {
        let n = a.len();
        let longest = |x: &[IntRef]| x.par_iter().map(|v| v.mag.len()).max().unwrap_or(0).max(1);
        let (la, lb, lc) = (longest(a), longest(b), c.map_or(0, longest));
        if b.len() != n || c.is_some_and(|c| c.len() != n) || la.max(lb) > PRODUCTS_MAX_LIMBS {
            return Err(Error::Internal(format!("batched products of {n} elements, {la} and {lb} limbs")));
        }
        let lp = la + lb;
        let lr = if c.is_some() { lc.max(lp) + 1 } else { lp };
        let mut stages = crate::log::Stages::new("mpz products", || format!("n = {n}, {la}·{lb} limbs, addend {lc} limbs"));
        let dev = attributed("mpz products", device::current())?;
        let stream = attributed("mpz products", stream(&dev))?;
        let per = la + lb + lc;
        let chunk = (GPU_ZVEC_STAGE_WORDS / per.max(lr)).max(NT as usize).min(n.max(1));
        let chunks = n.div_ceil(chunk);
        let in_words = per * chunk + (3 * chunk).div_ceil(8);
        let mut inb = [Host::get(&dev, in_words)?, Host::get(&dev, in_words)?];
        stages.mark("staging");
        let mut uploaded: [Option<CudaEvent>; 2] = [None, None];
        let mut results = Vec::with_capacity(chunks);
        let mut p =
            Products { n, chunk, lr, dev, stream, results: Vec::new(), computed: None, out: [None, None], downloads: Vec::new(), stages };
        for k in 0..chunks {
            crate::interrupt::checkpoint()?;
            let r = k * chunk..((k + 1) * chunk).min(n);
            let m = r.len();
            if let Some(ev) = uploaded[k % 2].take() {
                waited("mpz products", shield("cuEventSynchronize", || ev.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))))?;
            }
            p.stages.mark("upload wait");
            let buf = inb[k % 2].slice()?;
            let (words, rest) = buf.split_at_mut(per * m);
            let (wa, rest_w) = words.split_at_mut(la * m);
            let (wb, wc) = rest_w.split_at_mut(lb * m);
            let (_, signs) = carve(rest, 3 * m, 0);
            let (sa, rest_s) = signs.split_at_mut(m);
            let (sb, sc) = rest_s.split_at_mut(m);
            let (ra, rb) = (&a[r.clone()], &b[r.clone()]);
            let rc = c.map(|c| &c[r.clone()]);
            let (pa, (pb, pc)) = rayon::join(
                || pack_word_major(ra, la, wa, sa),
                || rayon::join(|| pack_word_major(rb, lb, wb, sb), || rc.map_or(Ok(()), |rc| pack_word_major(rc, lc, wc, sc))),
            );
            pa.and(pb).and(pc)?;
            p.stages.mark("host pack");
            let alloc = |l: usize| attributed("mpz products", DevVec::alloc(Arc::clone(&p.dev), m, 64 * l as u64));
            let (da, db) = (alloc(la)?, alloc(lb)?);
            let dc = if c.is_some() { Some(alloc(lc)?) } else { None };
            let ev = attributed(
                "mpz products",
                shield("mpz products upload", || {
                    let cs = p.stream.cu_stream();
                    p.stream.context().bind_to_thread().map_err(|e| driver_err("cuCtxSetCurrent", e))?;
                    for (d, w, s) in [(Some(&da), &*wa, &*sa), (Some(&db), &*wb, &*sb), (dc.as_ref(), &*wc, &*sc)] {
                        let Some(d) = d else { continue };
                        let (dd, ds, _) = d.ptrs();
                        // SAFETY: d holds m·L words and m sign bytes; the pinned source is not
                        // written again before the event recorded below completes.
                        unsafe {
                            result::memcpy_htod_async(dd, w, cs).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
                            result::memcpy_htod_async(ds, s, cs).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
                        }
                    }
                    p.stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(|e| driver_err("cuEventRecord", e))
                }),
            )?;
            uploaded[k % 2] = Some(ev);
            let prod = DevVec::mul(&da, &db, 64 * lp as u64)?;
            results.push(match &dc {
                Some(dc) => DevVec::add_sub(&prod, dc, false, 64 * lr as u64)?,
                None => prod,
            });
            p.stages.mark("queue");
        }
        p.results = results;
        p.computed = Some(attributed(
            "mpz products",
            shield("cuEventRecord", || {
                p.stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(|e| driver_err("cuEventRecord", e))
            }),
        )?);
        // The staging buffers go back to the pool only after their last upload.
        for ev in uploaded.into_iter().flatten() {
            waited("mpz products", shield("cuEventSynchronize", || ev.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))))?;
        }
        drop(inb);
        p.stages.mark("upload wait");
        Ok(p)
    }

    /// Elements of the batch.
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Limbs of every result.
    pub fn result_limbs(&self) -> usize {
        self.lr
    }

    /// Chunks of the batch.
    pub fn chunks(&self) -> usize {
        self.results.len()
    }

    /// Queues the download of the next chunk into its output buffer (chunk k into buffer k mod 2,
    /// which chunk k − 2 held: the caller has finished reading it).
    fn queue_next(&mut self) -> Result<()> {
        let k = self.downloads.len();
        let r = &self.results[k];
        let (m, lr) = (r.len(), self.lr);
        if self.out[k % 2].is_none() {
            self.out[k % 2] = Some(Host::get(&self.dev, self.chunk * lr + self.chunk.div_ceil(8))?);
        }
        let host = self.out[k % 2].as_mut().expect("allocated");
        let (words, signs) = carve(host.slice()?, m, lr);
        let (rd, rs, _) = r.ptrs();
        let stream = &self.stream;
        let ev = attributed(
            "mpz products",
            shield("mpz products download", || {
                let cs = stream.cu_stream();
                stream.context().bind_to_thread().map_err(|e| driver_err("cuCtxSetCurrent", e))?;
                // SAFETY: r holds m·lr words and m sign bytes; the pinned destination is read only
                // after the event recorded below completes, and kept until then (Drop waits).
                unsafe {
                    result::memcpy_dtoh_async(words, rd, cs).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                    result::memcpy_dtoh_async(signs, rs, cs).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                }
                stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(|e| driver_err("cuEventRecord", e))
            }),
        )?;
        self.downloads.push(ev);
        Ok(())
    }

    /// Queues the downloads of the first two chunks (call it before work on the host that the
    /// transfers may overlap).
    pub fn prefetch(&mut self) -> Result<()> {
        while self.downloads.len() < self.chunks().min(2) {
            self.queue_next()?;
        }
        Ok(())
    }

    /// Chunk k's results in host memory (chunks in order, each read before the next is asked for).
    /// The first call waits for every product, so that a kernel's failure is an error here, before
    /// any result is read; chunk k + 1's download is queued before this returns.
    pub fn chunk(&mut self, k: usize) -> Result<Chunk<'_>> {
        if let Some(ev) = self.computed.take() {
            waited("mpz products", shield("cuEventSynchronize", || ev.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))))?;
            self.stages.mark("kernels wait");
        }
        while self.downloads.len() < self.chunks().min(k + 2) {
            self.queue_next()?;
        }
        let ev = &self.downloads[k];
        waited("mpz products", shield("cuEventSynchronize", || ev.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))))?;
        self.stages.mark("download wait");
        let m = self.results[k].len();
        let (start, lr) = (k * self.chunk, self.lr);
        let host = self.out[k % 2].as_mut().expect("queued");
        let (data, neg) = carve(host.slice()?, m, lr);
        Ok(Chunk { start, n: m, data, neg })
    }

    /// Marks the end of the caller's host stage `stage` in this call's stage timers.
    pub fn mark(&mut self, stage: &'static str) {
        self.stages.mark(stage);
    }
}

impl Drop for Products {
    fn drop(&mut self) {
        // The pinned output buffers may still be a queued download's destination.
        let _ = shield("cuStreamSynchronize", || self.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_specialisations_cover_every_size() {
        let specs = specs();
        for n in [0, 1, 2, 3, 1 << 20] {
            let (s, name, lanes) = addsub_kernel(n);
            assert!(specs.contains(&s) && n.is_multiple_of(lanes), "{n} {name}");
        }
        for l in 0..=600 {
            let (s, name, nt) = mul_kernel(l);
            assert!(specs.contains(&s), "{l}");
            let (d, c) = (s.defines[0].0, s.defines[0].1 as usize);
            assert_eq!(s.defines.iter().find(|d| d.0 == "NT").map(|d| d.1), Some(nt as i64));
            match name {
                "zv_mul" => assert!(d == "C" && c >= l && c <= MAX_REG, "{l}: operands in registers"),
                "zv_mulc" => assert!(d == "C" && l > MAX_REG && c <= MAX_REG, "{l}"),
                _ => assert!(name == "zv_mulw" && d == "CW" && l > 2 * MAX_REG && c % 2 == 0, "{l}"),
            }
        }
    }
}

#[cfg(all(test, feature = "gpu-tests"))]
mod gpu_tests {
    use crate::int::{batch, IntRef};
    use crate::ops::zvec::ZVec;

    /// The n integers of `v` as a device vector of `bits`-bit elements.
    fn on_dev(v: &[IntRef], n: usize, bits: u64) -> ZVec {
        let mut z = ZVec::zeros_on(n, bits, true).unwrap();
        z.set(v).unwrap();
        z
    }

    /// Products, sums and differences on the device equal GMP's (`batch`, mpn per element) for
    /// every limb count 1..=66 (the register product for 1..=16 limbs, the chunked one above, with
    /// every remainder mod 16 and both operand orders), operands of other sizes, and elements that
    /// are zero, all-ones limbs, single limbs or random, of mixed signs; 129 elements (two blocks).
    #[test]
    fn every_limb_count_matches_gmp() {
        let mut rng = crate::testing::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next();
        let n = 129;
        for l in 1..=66usize {
            for lb in [l, l.div_ceil(2), 1, l + 3] {
                let mut gen = |l: usize| -> Vec<(bool, Vec<u64>)> {
                    (0..n)
                        .map(|_| {
                            let mag = match next() % 5 {
                                0 => vec![],
                                1 => vec![u64::MAX; l],
                                2 => vec![next() | 1],
                                _ => (0..l - (next() as usize % l)).map(|_| next()).collect(),
                            };
                            (!mag.is_empty() && next() & 1 == 1, mag)
                        })
                        .collect()
                };
                let (x, y) = (gen(l), gen(lb));
                let (vx, vy): (Vec<IntRef>, Vec<IntRef>) =
                    (x.iter().map(|(s, m)| IntRef::new(*s, m)).collect(), y.iter().map(|(s, m)| IntRef::new(*s, m)).collect());
                let (ba, bb) = (64 * l as u64, 64 * lb as u64);
                let (a, b) = (on_dev(&vx, n, ba), on_dev(&vy, n, bb));
                let rp = ZVec::zeros_on(n, ba + bb, true).unwrap();
                let want = batch::mul(&vx, &vy).unwrap();
                assert_eq!(ZVec::mul(&rp, &a, &b).unwrap().to_list().unwrap().views(), want.views(), "{l}·{lb} limbs");
                assert_eq!(ZVec::mul(&rp, &b, &a).unwrap().to_list().unwrap().views(), want.views(), "{lb}·{l} limbs");
                let rs = ZVec::zeros_on(n, ba.max(bb) + 1, true).unwrap();
                assert_eq!(ZVec::add(&rs, &a, &b).unwrap().to_list().unwrap().views(), batch::add(&vx, &vy).unwrap().views(), "{l}+{lb}");
                assert_eq!(ZVec::sub(&rs, &a, &b).unwrap().to_list().unwrap().views(), batch::sub(&vx, &vy).unwrap().views(), "{l}−{lb}");
            }
        }
    }

    /// Sums and differences by each add/sub kernel (`zv_addsub`, `zv_addsubv` with one and two
    /// elements a thread) equal GMP's for limb counts across its register blocks (one block: no
    /// comparison pass; several), operands of unequal sizes, elements zero, all-ones limbs, ±1 and
    /// random of mixed signs, b = ±a, odd and even n, destinations that fit and destinations one
    /// bit short (`SizeTooLarge` exactly when a result does not fit).
    #[test]
    fn every_addsub_kernel_matches_gmp() {
        let mut rng = crate::testing::Rng(0x51ed_2701_aa11_f00d);
        let mut next = move || rng.next();
        for kernel in [0, 1, 2] {
            super::set_addsub_kernel(kernel);
            for n in [2usize, 129, 256] {
                for (la, lb) in [(1, 1), (4, 4), (8, 8), (9, 9), (16, 3), (32, 32), (33, 40), (64, 64)] {
                    let mut gen = |l: usize| -> Vec<(bool, Vec<u64>)> {
                        (0..n)
                            .map(|_| {
                                let mag = match next() % 5 {
                                    0 => vec![],
                                    1 => vec![u64::MAX; l],
                                    2 => vec![1],
                                    _ => (0..l - (next() as usize % l)).map(|_| next()).collect(),
                                };
                                (!mag.is_empty() && next() & 1 == 1, mag)
                            })
                            .collect()
                    };
                    let x = gen(la);
                    let mut y = gen(lb);
                    if la == lb {
                        for (i, e) in y.iter_mut().enumerate().filter(|(i, _)| i % 4 == 0) {
                            *e = (x[i].0 ^ (i % 8 == 0) && !x[i].1.is_empty(), x[i].1.clone());
                        }
                    }
                    let (vx, vy): (Vec<IntRef>, Vec<IntRef>) =
                        (x.iter().map(|(s, m)| IntRef::new(*s, m)).collect(), y.iter().map(|(s, m)| IntRef::new(*s, m)).collect());
                    let (ba, bb) = (64 * la as u64, 64 * lb as u64);
                    let (a, b) = (on_dev(&vx, n, ba), on_dev(&vy, n, bb));
                    let (sum, dif) = (batch::add(&vx, &vy).unwrap(), batch::sub(&vx, &vy).unwrap());
                    let rs = ZVec::zeros_on(n, ba.max(bb) + 1, true).unwrap();
                    let what = format!("kernel {kernel}, n = {n}, {la} and {lb} limbs");
                    assert_eq!(ZVec::add(&rs, &a, &b).unwrap().to_list().unwrap().views(), sum.views(), "{what}: sum");
                    assert_eq!(ZVec::sub(&rs, &a, &b).unwrap().to_list().unwrap().views(), dif.views(), "{what}: difference");
                    let short = ba.max(bb);
                    let rd = ZVec::zeros_on(n, short, true).unwrap();
                    for (got, want) in [(ZVec::add(&rd, &a, &b), &sum), (ZVec::sub(&rd, &a, &b), &dif)] {
                        let fits = want.views().iter().all(|z| z.bits() <= short);
                        match got {
                            Ok(g) => assert!(fits && g.to_list().unwrap().views() == want.views(), "{what}: into {short} bits"),
                            Err(crate::Error::SizeTooLarge(_)) => assert!(!fits, "{what}: into {short} bits"),
                            Err(e) => panic!("{what}: {e}"),
                        }
                    }
                }
            }
        }
        super::set_addsub_kernel(usize::MAX);
    }

    /// Queues a product reading an invalid device address (the device faults), then a sum, then
    /// waits: the error names the product, is returned by the next wait and once more by `sync`.
    /// With `GPMP_SYNC=1` the product itself reports the failure. The device is unusable
    /// afterwards, so this runs alone in a child process ([`device_failures_name_the_operation`]).
    #[test]
    #[ignore = "leaves the device unusable: run by device_failures_name_the_operation in a child process"]
    fn fault_child() {
        use super::{sync, Buf, DevVec};
        use crate::runtime::sync_calls;
        use crate::Error;
        use std::sync::Arc;
        let n = 1 << 12;
        let a = DevVec::zeros(n, 64).unwrap();
        let b = DevVec::zeros(n, 64).unwrap();
        assert!(sync().is_ok(), "nothing failed yet");
        // A vector whose storage is an unmapped address.
        let bad = DevVec {
            n,
            bits: 64,
            dev: Arc::clone(&a.dev),
            stream: Arc::clone(&a.stream),
            buf: Buf { ptr: 16, bytes: 16 * n, stream: Arc::clone(&a.stream), cap: 0 },
        };
        let named = |e: Error| match e {
            Error::Cuda(m) => assert!(m.contains("zvec mul") && m.contains("failed on the device"), "{m}"),
            e => panic!("expected a CUDA error, got {e:?}"),
        };
        let product = DevVec::mul(&bad, &b, 128);
        std::mem::forget(bad);
        if sync_calls() {
            named(product.err().expect("GPMP_SYNC=1: the product reports its own failure"));
        } else if let Err(e) = product {
            // The launch itself may already see the bad address.
            named(e);
        } else {
            std::mem::forget(product);
            match DevVec::add_sub(&a, &b, false, 65) {
                // The fault may already be visible when the sum is queued.
                Err(e) => named(e),
                Ok(sum) => {
                    std::mem::forget(sum);
                    named(a.download().expect_err("the next wait sees the failure"));
                }
            }
        }
        named(sync().expect_err("sync returns the first failure"));
        println!("fault_child: failure named (GPMP_SYNC={})", sync_calls());
    }

    /// See [`fault_child`]: asynchronous (the failure is seen at the next wait) and with
    /// `GPMP_SYNC=1` (seen by the operation itself).
    #[test]
    fn device_failures_name_the_operation() {
        for sync in ["0", "1"] {
            let out = crate::testing::run_in_child("gpu::zvec::gpu_tests::fault_child", &[("GPMP_SYNC", sync)]);
            assert!(out.contains(&format!("failure named (GPMP_SYNC={})", sync == "1")), "{out}");
        }
    }

    /// With no failure, `sync` waits for a chain of queued operations and succeeds, and the results
    /// are those of the host.
    #[test]
    fn sync_after_a_chain_succeeds() {
        let n = 1000;
        let x: Vec<(bool, Vec<u64>)> = (0..n).map(|i| (i % 3 == 0, vec![i as u64 * 0x9e37_79b9 + 1, i as u64])).collect();
        let vx: Vec<IntRef> = x.iter().map(|(s, m)| IntRef::new(*s, m)).collect();
        let mut a = ZVec::zeros_on(n, 128, true).unwrap();
        a.set(&vx).unwrap();
        let mut r = ZVec::zeros_on(n, 256, true).unwrap();
        for _ in 0..8 {
            r = ZVec::mul(&r, &a, &a).unwrap();
        }
        let s = ZVec::add(&ZVec::zeros_on(n, 257, true).unwrap(), &r, &r).unwrap();
        super::sync().unwrap();
        let sq = batch::mul(&vx, &vx).unwrap();
        assert_eq!(s.to_list().unwrap().views(), batch::add(&sq.views(), &sq.views()).unwrap().views());
        super::sync().unwrap();
    }
}
