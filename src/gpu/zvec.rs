//! `gpmp_zvec` in device memory: n signed integers of at most `bits` bits, L = ⌈bits/64⌉ limbs
//! each, word-major (limb j of element i at `data[j·n + i]`, as [`crate::int::ZVec`] on the host)
//! and one sign byte per element (0 or 1; zero has sign 0). Element-wise add/sub and mul run in
//! `kernels/zvec.cu`, one thread per element; every operation writes a fresh buffer, so that an
//! operation whose result does not fit its destination leaves it untouched (the caller installs
//! the result only on success) and the destination may be an operand.
//!
//! All zvec work of a device goes to one stream of its own, in call order; host reads
//! ([`DevVec::download`]) wait for it.
use super::compile::{self, Spec};
use super::device::{self, Device};
use super::{driver_err, shield};
use crate::int::limbs_for_bits;
use crate::{invalid, Error, Result};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Threads per block (`NT` in the kernel).
const NT: u32 = 128;
/// Operands of up to this many limbs (1024 bits) are multiplied with both in registers; above,
/// chunks of a of [`chunk`] limbs slide along b. (32 limbs in registers took 230 registers a
/// thread and ran at a quarter of CGBN's rate on the H100, bench/results/gpu-h100.md.)
const MAX_REG: usize = 16;

/// Limbs per chunk above [`MAX_REG`]: 16, or env `GPMP_ZVEC_CHUNK` (1..=16, for tuning).
fn chunk() -> usize {
    static C: OnceLock<usize> = OnceLock::new();
    *C.get_or_init(|| {
        std::env::var("GPMP_ZVEC_CHUNK").ok().and_then(|v| v.trim().parse().ok()).filter(|c| (1..=MAX_REG).contains(c)).unwrap_or(MAX_REG)
    })
}

/// `C` of the product kernel for operands of at most `l` limbs.
fn mul_c(l: usize) -> usize {
    if l <= MAX_REG {
        l.max(1)
    } else {
        chunk()
    }
}

fn spec(c: usize) -> Spec {
    Spec { source: "zvec.cu", defines: vec![("C", c as i64), ("NT", NT as i64)] }
}

/// Every specialisation this module can request.
pub fn specs() -> Vec<Spec> {
    (1..=MAX_REG).map(spec).collect()
}

/// The zvec stream of `dev` (created at first use, kept).
fn stream(dev: &Device) -> Result<Arc<CudaStream>> {
    static S: OnceLock<Mutex<HashMap<usize, Arc<CudaStream>>>> = OnceLock::new();
    let mut m = S.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = m.get(&dev.ordinal) {
        return Ok(Arc::clone(s));
    }
    let s = dev.stream()?;
    m.insert(dev.ordinal, Arc::clone(&s));
    Ok(s)
}

/// Kernel `name` of specialisation c on `dev` (looked up once, then kept).
fn function(dev: &Device, c: usize, name: &'static str) -> Result<CudaFunction> {
    static F: OnceLock<Mutex<HashMap<(usize, usize, &'static str), CudaFunction>>> = OnceLock::new();
    let key = (dev.ordinal, c, name);
    if let Some(f) = F.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(f.clone());
    }
    let f = compile::module(dev, &spec(c))?.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e))?;
    F.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert(key, f.clone());
    Ok(f)
}

/// A batch of integers on one device.
pub struct DevVec {
    n: usize,
    bits: u64,
    pub(super) dev: Arc<Device>,
    pub(super) stream: Arc<CudaStream>,
    /// n·L limbs (at least one word: empty allocations are avoided).
    pub(super) data: CudaSlice<u64>,
    /// n signs (at least one byte).
    pub(super) neg: CudaSlice<u8>,
}

impl DevVec {
    /// Uninitialised storage for n integers of `bits` bits on `dev`.
    pub(super) fn alloc(dev: Arc<Device>, n: usize, bits: u64) -> Result<Self> {
        let stream = stream(&dev)?;
        let words = limbs_for_bits(bits)
            .checked_mul(n)
            .filter(|&w| w <= isize::MAX as usize / 8)
            .ok_or_else(|| Error::SizeTooLarge(format!("zvec of {n} integers of {bits} bits")))?;
        shield("zvec allocation", || {
            // SAFETY: plain words and bytes; every word is written before it is read.
            let data = unsafe { stream.alloc::<u64>(words.max(1)) }.map_err(|e| driver_err("cuMemAllocAsync", e))?;
            let neg = unsafe { stream.alloc::<u8>(n.max(1)) }.map_err(|e| driver_err("cuMemAllocAsync", e))?;
            Ok(DevVec { n, bits, dev, stream, data, neg })
        })
    }

    /// n zeros of `bits` bits on the current device.
    pub fn zeros(n: usize, bits: u64) -> Result<Self> {
        let mut v = Self::alloc(device::current()?, n, bits)?;
        shield("zvec zeros", || {
            v.stream.memset_zeros(&mut v.data).map_err(|e| driver_err("cuMemsetD8Async", e))?;
            v.stream.memset_zeros(&mut v.neg).map_err(|e| driver_err("cuMemsetD8Async", e))
        })?;
        Ok(v)
    }

    /// The integers of `data` (word-major, n·L limbs) and `neg` (n signs) on the current device.
    pub fn upload(n: usize, bits: u64, data: &[u64], neg: &[bool]) -> Result<Self> {
        if data.len() != n * limbs_for_bits(bits) || neg.len() != n {
            return Err(Error::Internal(format!("zvec upload of {} limbs and {} signs", data.len(), neg.len())));
        }
        let mut v = Self::alloc(device::current()?, n, bits)?;
        let signs: Vec<u8> = neg.iter().map(|&s| u8::from(s)).collect();
        shield("zvec upload", || {
            if !data.is_empty() {
                v.stream.memcpy_htod(data, &mut v.data).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
            }
            if n > 0 {
                v.stream.memcpy_htod(&signs[..], &mut v.neg).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
            }
            // The host buffers may go once this returns.
            v.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))
        })?;
        Ok(v)
    }

    /// (limbs, signs) in host memory, after all work queued on the zvec stream.
    pub fn download(&self) -> Result<(Vec<u64>, Vec<bool>)> {
        let words = self.n * limbs_for_bits(self.bits);
        shield("zvec download", || {
            let mut data = vec![0u64; words.max(1)];
            let mut neg = vec![0u8; self.n.max(1)];
            self.stream.memcpy_dtoh(&self.data, &mut data[..]).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
            self.stream.memcpy_dtoh(&self.neg, &mut neg[..]).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
            self.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
            data.truncate(words);
            neg.truncate(self.n);
            Ok((data, neg.into_iter().map(|s| s != 0).collect()))
        })
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

    fn config(&self) -> Result<LaunchConfig> {
        let blocks = self.n.div_ceil(NT as usize).max(1);
        if blocks > i32::MAX as usize {
            return Err(Error::SizeTooLarge(format!("{} elements in one launch", self.n)));
        }
        Ok(LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (NT, 1, 1), shared_mem_bytes: 0 })
    }

    /// a + b (`sub` false) or a − b into a new vector of `bits` bits; `Error::SizeTooLarge` when
    /// an element does not fit (then the device is synchronised to read the overflow flag, which
    /// is skipped when bits ≥ max(a.bits, b.bits) + 1 makes every result fit).
    pub fn add_sub(a: &DevVec, b: &DevVec, sub: bool, bits: u64) -> Result<DevVec> {
        Self::check_pair(a, b)?;
        let mut r = Self::alloc(Arc::clone(&a.dev), a.n, bits)?;
        if a.n == 0 {
            return Ok(r);
        }
        let f = function(&a.dev, 1, "zv_addsub")?;
        let cfg = r.config()?;
        let fits = bits > a.bits.max(b.bits);
        shield("zvec add/sub", || {
            let s = &r.stream;
            let mut flag = s.alloc_zeros::<u32>(1).map_err(|e| driver_err("cuMemAllocAsync", e))?;
            let (n, la, lb, lr, rtop, subw) = (a.n as u64, a.limbs(), b.limbs(), r.limbs(), (bits % 64) as u32, u32::from(sub));
            let mut l = s.launch_builder(&f);
            l.arg(&mut r.data).arg(&mut r.neg).arg(&a.data).arg(&a.neg).arg(&b.data).arg(&b.neg);
            l.arg(&n).arg(&la).arg(&lb).arg(&lr).arg(&rtop).arg(&subw).arg(&mut flag);
            // SAFETY: arguments match zv_addsub; r, a, b hold n·(lr, la, lb) limbs and n signs.
            unsafe { l.launch(cfg) }.map_err(|e| driver_err("zv_addsub launch", e))?;
            if !fits {
                let mut h = [0u32];
                s.memcpy_dtoh(&flag, &mut h[..]).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                s.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
                if h[0] != 0 {
                    return Err(Error::SizeTooLarge(format!("a {} does not fit in {bits} bits", if sub { "difference" } else { "sum" })));
                }
            }
            Ok(())
        })?;
        Ok(r)
    }

    /// a·b into a new vector of `bits` ≥ a.bits + b.bits bits (else `Error::SizeTooLarge`).
    pub fn mul(a: &DevVec, b: &DevVec, bits: u64) -> Result<DevVec> {
        Self::check_pair(a, b)?;
        if bits < a.bits.saturating_add(b.bits) {
            return Err(Error::SizeTooLarge(format!("product of {}- and {}-bit zvecs into a {bits}-bit zvec", a.bits, b.bits)));
        }
        let mut r = Self::alloc(Arc::clone(&a.dev), a.n, bits)?;
        if a.n == 0 {
            return Ok(r);
        }
        let c = mul_c(a.limbs().max(b.limbs()) as usize);
        let f = function(&a.dev, c, "zv_mul")?;
        let cfg = r.config()?;
        shield("zvec mul", || {
            let (n, la, lb, lr) = (a.n as u64, a.limbs(), b.limbs(), r.limbs());
            let mut l = r.stream.launch_builder(&f);
            l.arg(&mut r.data).arg(&mut r.neg).arg(&a.data).arg(&a.neg).arg(&b.data).arg(&b.neg);
            l.arg(&n).arg(&la).arg(&lb).arg(&lr);
            // SAFETY: arguments match zv_mul; r, a, b hold n·(lr, la, lb) limbs and n signs, and
            // lr ≥ la + lb limbs' worth of bits holds every product.
            unsafe { l.launch(cfg) }.map_err(|e| driver_err("zv_mul launch", e))
        })?;
        Ok(r)
    }

    /// Waits for the work queued on this vector's stream.
    pub fn synchronize(&self) -> Result<()> {
        shield("cuStreamSynchronize", || self.stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_specialisations_cover_every_size() {
        let specs = specs();
        for l in 0..=600 {
            let c = mul_c(l);
            assert!(specs.contains(&spec(c)), "{l}");
            assert!(l > MAX_REG || c >= l, "{l}: operands in registers");
            assert!(c <= MAX_REG);
        }
    }
}
