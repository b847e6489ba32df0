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
//! 5. download into the same pinned buffer ([`HostProduct`]), which the C layer writes into the
//!    `mpz_t` directly ([`mul_bits`] copies it into a [`ZSlab`]).
//!
//! Multi-limb coefficients may instead be split into their limbs (`plan_shape`): 3 primes on a
//! sequence 2L − 1 times longer, then `recombine` on the device. `GPMP_TRACE=1` prints the stage
//! times of every call to stderr.
//!
//! Device memory: (k + 1)·2n words for the rows, plus inputs, the CRT scratch (W·len words, W = limbs
//! of M) and the output. A product that does not fit the free device memory is computed in parts
//! (`Cut`): the transforms for a group of primes at a time, their rows parked in host memory, then
//! the CRT block by block; one whose inputs and two rows, or whose parked rows (in half the host
//! memory), do not fit fails with `OutOfMemory` before any large allocation.
use super::device::{self, Device};
use super::kernels::{Kernel, Spec};
use super::ntt::Plan;
use super::{driver_err, shield};
use crate::int::{ceil_log2, limbs_for_bits, product_bits, IntRef, ZSlab};
use crate::nmod::prime::{fourier_primes, invmod, mulmod, neg_inverse, primitive_root_of_unity, shoup};
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

/// `kernels/multimod.cu`: residues, pointwise products and Garner's CRT of the Z\[x\] product.
pub static KERNEL: Kernel = Kernel { file: "multimod.cu", source: include_str!("../../kernels/multimod.cu"), int128: false, specs };

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
            let r = ((1u128 << 64) % p as u128) as u64;
            [p, neg_inverse(p), r, shoup(r, p)]
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
#[derive(Default)]
struct Staging {
    buf: Option<PinnedHostSlice<u64>>,
    busy: bool,
}

fn staging() -> &'static Mutex<Staging> {
    static S: OnceLock<Mutex<Staging>> = OnceLock::new();
    S.get_or_init(Default::default)
}

/// Host memory for `len` words: the pinned staging buffer (grown to a power of two) if free, else a
/// pageable vector. The pinned buffer goes back to [`staging`] on drop.
enum Host {
    Pinned(Option<PinnedHostSlice<u64>>),
    Pageable(Vec<u64>),
}

impl Host {
    fn get(dev: &Device, len: usize) -> Result<Host> {
        let pageable = || Ok(Host::Pageable(crate::int::try_zeroed_words(len)?));
        if len > STAGING_MAX_WORDS {
            return pageable();
        }
        let mut buf = {
            let mut st = staging().lock().unwrap_or_else(|e| e.into_inner());
            if st.busy {
                return pageable();
            }
            st.busy = true;
            st.buf.take()
        };
        if buf.as_ref().is_some_and(|s| s.context() != &dev.ctx || s.len() < len) {
            buf = None;
        }
        if buf.is_none() {
            // SAFETY: u64 has no invalid bit patterns; every word used is written first.
            // Flags 0: cached pinned memory (the default write-combined kind is slow to read).
            match unsafe { dev.ctx.alloc_pinned_with_flags::<u64>(len.next_power_of_two(), 0) } {
                Ok(s) => buf = Some(s),
                Err(_) => {
                    staging().lock().unwrap_or_else(|e| e.into_inner()).busy = false;
                    return pageable();
                }
            }
        }
        Ok(Host::Pinned(buf))
    }

    fn slice(&mut self) -> Result<&mut [u64]> {
        match self {
            Host::Pinned(s) => s.as_mut().expect("allocated").as_mut_slice().map_err(|e| driver_err("pinned buffer", e)),
            Host::Pageable(v) => Ok(v),
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Host::Pinned(s) = self {
            let mut st = staging().lock().unwrap_or_else(|e| e.into_inner());
            st.buf = s.take();
            st.busy = false;
        }
    }
}

/// `words` split into its first `at` words and the bytes of the rest.
fn words_and_bytes(words: &mut [u64], at: usize) -> (&mut [u64], &mut [u8]) {
    let (a, b) = words.split_at_mut(at);
    // SAFETY: the same memory as bytes (u8 has no alignment or validity requirement).
    (a, unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast::<u8>(), 8 * b.len()) })
}

/// A product in host memory as the device left it, in the pinned staging buffer when it was free:
/// `len` magnitudes of `stride` limbs (not normalized), then `len` sign bytes (nonzero: negative).
/// The C layer writes it into the `mpz_t` without an intermediate [`ZSlab`].
pub struct HostProduct {
    host: Host,
    len: usize,
    stride: usize,
}

impl HostProduct {
    /// Host memory for a product of `len` coefficients of `stride` limbs, at least `min` words
    /// (the staged inputs share the buffer).
    pub(crate) fn new(dev: Option<&Device>, len: usize, stride: usize, min: usize) -> Result<HostProduct> {
        let words = len.checked_mul(stride).and_then(|w| w.checked_add(len.div_ceil(8)));
        let words = words.ok_or_else(|| Error::SizeTooLarge(format!("{len} coefficients of {stride} limbs")))?.max(min);
        let host = match dev {
            Some(dev) => Host::get(dev, words)?,
            None => Host::Pageable(crate::int::try_zeroed_words(words)?),
        };
        Ok(HostProduct { host, len, stride })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Limbs a coefficient.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The magnitudes (coefficient i at limbs i·stride ..) and the sign bytes.
    pub fn parts(&mut self) -> Result<(&[u64], &[u8])> {
        let (m, b) = self.parts_mut()?;
        Ok((m, b))
    }

    pub(crate) fn parts_mut(&mut self) -> Result<(&mut [u64], &mut [u8])> {
        let (len, stride) = (self.len, self.stride);
        let (m, b) = words_and_bytes(self.host.slice()?, len * stride);
        Ok((m, &mut b[..len]))
    }

    /// Coefficient i from [`Self::parts`].
    pub fn coef<'a>(mags: &'a [u64], neg: &[u8], stride: usize, i: usize) -> IntRef<'a> {
        IntRef::new(neg[i] != 0, &mags[i * stride..(i + 1) * stride])
    }

    /// The product as a [`ZSlab`] (a parallel copy).
    pub fn to_slab(mut self) -> Result<ZSlab> {
        let (len, stride) = (self.len, self.stride);
        let mut h = ZSlab::zeros(len, stride)?;
        let (mags, neg) = self.parts()?;
        if let Some((dm, dn)) = h.par_blocks_mut(len.max(1)).find_first(|_| true) {
            dm.par_chunks_mut(1 << 14).zip(mags.par_chunks(1 << 14)).for_each(|(d, s)| d.copy_from_slice(s));
            dn.par_iter_mut().zip(neg.par_iter()).with_min_len(1 << 14).for_each(|(d, &s)| *d = s != 0);
        }
        Ok(h)
    }
}

/// f·g on the current device (f, g non-empty; f and g the same slice = a square): the
/// [`crate::zpoly`] contract. Coefficients beyond [`supports`] fail with `SizeTooLarge`.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    mul_bits(f, g, product_bits(max_bits_par(f), max_bits_par(g), f.len(), g.len()))
}

/// [`mul`] given `bits` = `product_bits` of f and g (the dispatcher has it already).
pub fn mul_bits(f: &[IntRef], g: &[IntRef], bits: u64) -> Result<ZSlab> {
    mul_host(f, g, bits)?.to_slab()
}

/// [`mul_bits`] left in host memory (see [`HostProduct`]), stride `limbs_for_bits(bits)`.
pub fn mul_host(f: &[IntRef], g: &[IntRef], bits: u64) -> Result<HostProduct> {
    mul_host_limbs(f, g, bits, max_limbs(f, g))
}

/// The most limbs of a coefficient of f or g.
fn max_limbs(f: &[IntRef], g: &[IntRef]) -> usize {
    f.par_iter().chain(g).with_min_len(1 << 14).map(|c| c.mag.len()).max().unwrap_or(0)
}

/// [`mul_host`] given the most limbs of an input coefficient (`limbs_for_bits` of the larger
/// `max_bits`: the views are normalized).
pub fn mul_host_limbs(f: &[IntRef], g: &[IntRef], bits: u64, limbs: usize) -> Result<HostProduct> {
    let hlen = f.len() + g.len() - 1;
    if bits == 0 {
        return HostProduct::new(None, hlen, 1, 0);
    }
    let dev = device::current()?;
    shield("GPU poly_mul", || {
        let t0 = Instant::now();
        let job = Job::new(&dev, f, g, bits, limbs)?;
        if std::env::var_os("GPMP_TRACE").is_some() {
            let ms = (Instant::now() - t0).as_secs_f64() * 1e3;
            eprintln!("GPMP_TRACE gpu poly_mul: {} primes, n = {}, {:?}, setup {ms:.3} ms", job.s.primes.len(), job.n, job.cut);
        }
        job.run(f, g, hlen, limbs_for_bits(bits))
    })
}

/// How a product that does not fit the free device memory is computed in parts: the residues,
/// transforms and products for `group` primes at a time (each group's rows parked in host memory),
/// then the CRT for `block` coefficients at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cut {
    group: usize,
    block: usize,
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
    /// Parts, when the whole product does not fit the device memory.
    cut: Option<Cut>,
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

#[cfg(test)]
thread_local! {
    /// Test hook: device bytes this thread's products may assume free (forces [`Cut`]s at
    /// ordinary sizes).
    static MEMORY_CAP: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Free bytes of the current context's device (at most the test hook's cap).
fn free_bytes() -> Result<usize> {
    let (free, _) = cu::mem_get_info().map_err(launch_err("cuMemGetInfo"))?;
    #[cfg(test)]
    if let Some(cap) = MEMORY_CAP.get() {
        return Ok(free.min(cap));
    }
    Ok(free)
}

/// Bytes of host memory (physical).
fn host_bytes() -> u128 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    pages.max(0) as u128 * size.max(0) as u128
}

/// The parts of a product that needs more than `free` device bytes: k primes, length n, `inputs`
/// coefficients of `l` limbs, `hlen` coefficients of `stride` limbs, T positions a coefficient, W limbs
/// of M, CRT output stride `cs`. Phase 1 holds the inputs and (group + 1)·2n words of rows; phase 2
/// holds, per coefficient, T positions of k residues, W scratch limbs, cs limbs and a sign byte (and
/// in split mode the recombination's S + 1 accumulator limbs, S limbs and a sign). Both within 7/8
/// of `free` (the rest for the driver, twiddles and tables); the parked rows (k·hlen·T words) and the output must fit half the host's
/// memory. Otherwise `OutOfMemory`.
#[allow(clippy::too_many_arguments)]
fn plan_cut(
    k: usize,
    n: usize,
    inputs: usize,
    l: usize,
    hlen: usize,
    stride: usize,
    t: usize,
    w: usize,
    cs: usize,
    free: usize,
) -> Result<Cut> {
    let oom = |what: &str| Err(Error::OutOfMemory(format!("the GPU product does not fit {free} free device bytes even in parts ({what})")));
    let budget = free as u128 - free as u128 / 8;
    let input = inputs as u128 * (8 * l as u128 + 1);
    let group = (budget.saturating_sub(input) / (16 * n as u128)).saturating_sub(1).min(k as u128) as usize;
    if group == 0 {
        return oom("the inputs and two rows");
    }
    let (k128, t128, s128) = (k as u128, t as u128, stride as u128);
    let per = t128 * (8 * (k128 + w as u128 + cs as u128) + 1) + if t > 1 { 8 * (2 * s128 + 1) + 1 } else { 0 };
    let block = (budget / per).min(hlen as u128) as usize;
    if block == 0 {
        return oom("one coefficient's CRT");
    }
    let host = 8 * k128 * hlen as u128 * t128 + 8 * hlen as u128 * s128;
    if host > host_bytes() / 2 {
        return Err(Error::OutOfMemory(format!("the GPU product in parts needs {host} bytes of host memory")));
    }
    Ok(Cut { group, block })
}

/// None when `need` bytes fit `free`, else the [`Cut`] of [`plan_cut`] (d: the split mode's
/// digit limbs, w: the limbs of M).
#[allow(clippy::too_many_arguments)]
fn plan_memory(
    need: u128,
    k: usize,
    n: usize,
    inputs: usize,
    l: usize,
    hlen: usize,
    stride: usize,
    t: usize,
    w: impl FnOnce() -> usize,
    d: usize,
    free: usize,
) -> Result<Option<Cut>> {
    if need <= free as u128 {
        return Ok(None);
    }
    plan_cut(k, n, inputs, l, hlen, stride, t, w(), if t > 1 { d } else { stride }, free).map(Some)
}

impl Job {
    /// Chooses the primes and the length, checks that the product fits the free device memory (or
    /// plans its parts), and loads the constants and plans.
    fn new(dev: &Arc<Device>, f: &[IntRef], g: &[IntRef], bits: u64, limbs: usize) -> Result<Job> {
        let hlen = f.len() + g.len() - 1;
        let l = limbs.max(1);
        let (primes, t, d) = plan_shape(bits, f.len(), g.len(), l)?;
        let logn = (hlen * t).next_power_of_two().max(2).trailing_zeros();
        if logn > MIN_K {
            return Err(Error::SizeTooLarge(format!("{hlen} product coefficients")));
        }
        let (k, n, stride) = (primes.len(), 1usize << logn, limbs_for_bits(bits));
        let inputs = if std::ptr::eq(f, g) { f.len() } else { f.len() + g.len() };
        let need = device_bytes(k, n, inputs, l, stride, hlen * t, d);
        dev.ctx.bind_to_thread().map_err(launch_err("cuCtxSetCurrent"))?;
        // cuMemGetInfo costs a driver round trip: asked only from an eighth of the device.
        let free = if need > dev.total_mem as u128 / 8 || cfg!(test) { free_bytes()? } else { usize::MAX };
        let w = || crate::nmod::crt::prime_product(&primes).len();
        let cut = plan_memory(need, k, n, inputs, l, hlen, stride, t, w, d, free)?;
        let stream = take_stream(dev)?;
        let s = setup(dev, &stream, &primes, logn)?;
        let wts = weights(dev, &stream, &primes, l)?;
        Ok(Job { dev: Arc::clone(dev), stream, s, wts, n, l, square: std::ptr::eq(f, g), t, d, cut })
    }

    fn alloc(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: u64 words; every word is written before it is read.
        unsafe { self.stream.alloc::<u64>(len.max(1)) }.map_err(launch_err("cuMemAlloc"))
    }

    fn bytes(&self, len: usize) -> Result<CudaSlice<u8>> {
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
        let rows = self.convolve(limbs, d_signs, lens, 0..self.s.primes.len())?;
        self.crt(rows, hlen, stride)
    }

    /// Steps 2–3 for the primes `ps`: residues, forward transforms, pointwise products, inverse
    /// transforms. Row i − ps.start (2n words) holds h mod p_i in its first hlen·T words.
    fn convolve(
        &self,
        limbs: &CudaSlice<u64>,
        d_signs: &CudaSlice<u8>,
        lens: &[usize],
        ps: std::ops::Range<usize>,
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
        let count = lens.len();
        for (row, plan) in rows.iter_mut().zip(&self.s.fwd[ps.clone()]) {
            if plan.run(stream, count, row, &mut scratch)? {
                std::mem::swap(row, &mut scratch);
            }
        }
        let p1 = self.ptrs(&rows)?;
        {
            let (nu, sq) = (n as u64, i32::from(self.square));
            let mut b = stream.launch_builder(&self.s.funcs[1]);
            b.arg(&p1).arg(&nu).arg(&mont).arg(&sq);
            // SAFETY: matches `pointwise`; rows hold 2n words (n read when squaring), mont 4·kg words.
            unsafe { b.launch(grid(n, kg)?) }.map_err(launch_err("pointwise launch"))?;
        }
        for (row, plan) in rows.iter_mut().zip(&self.s.inv[ps]) {
            if plan.run(stream, 1, row, &mut scratch)? {
                std::mem::swap(row, &mut scratch);
            }
        }
        Ok(rows)
    }

    /// Step 4 for `len` coefficients whose k residue rows (one per prime, len·T positions) are
    /// `rows`: CRT into stride `cs` (split mode: the digit products, then their recombination into
    /// the coefficients of `stride` limbs). The rows are consumed.
    fn crt(&self, rows: Vec<CudaSlice<u64>>, len: usize, stride: usize) -> Result<(CudaSlice<u64>, CudaSlice<u8>)> {
        let (stream, k) = (&self.stream, self.s.primes.len());
        let (pos, cs) = if self.t > 1 { (len * self.t, self.d) } else { (len, stride) };
        let p2 = self.ptrs(&rows)?;
        let x = self.alloc(self.s.w * pos)?;
        let crt = self.alloc(pos * cs)?;
        let crt_neg = self.bytes(pos)?;
        {
            let (lu, ku, wu, su) = (pos as u64, k as u32, self.s.w as u32, cs as u32);
            let mut b = stream.launch_builder(&self.s.funcs[2]);
            b.arg(&p2).arg(&lu).arg(&ku).arg(&self.s.d_primes).arg(&self.s.d_garner).arg(&self.s.d_modulus);
            b.arg(&self.s.d_half).arg(&wu).arg(&x).arg(&crt).arg(&su).arg(&crt_neg);
            // SAFETY: matches `garner`; rows hold ≥ pos words, x W·pos, crt pos·cs, crt_neg pos.
            unsafe { b.launch(grid(pos, 1)?) }.map_err(launch_err("garner launch"))?;
        }
        if self.t == 1 {
            return Ok((crt, crt_neg));
        }
        drop((x, rows));
        let acc = self.alloc((stride + 1) * len)?;
        let out = self.alloc(len * stride)?;
        let neg = self.bytes(len)?;
        let (du, tu, lu, su) = (self.d as u32, self.t as u32, len as u64, stride as u32);
        let mut b = stream.launch_builder(&self.s.funcs[4]);
        b.arg(&crt).arg(&crt_neg).arg(&du).arg(&tu).arg(&lu).arg(&acc).arg(&out).arg(&su).arg(&neg);
        // SAFETY: matches `recombine`; crt holds len·T digits of D limbs, acc (S+1)·len, out len·S.
        unsafe { b.launch(grid(len, 1)?) }.map_err(launch_err("recombine launch"))?;
        Ok((out, neg))
    }

    /// Enqueues the download of `out` and `neg` (device results of a block of coefficients) into
    /// `mags` and `signs`.
    fn download(&self, out: &CudaSlice<u64>, neg: &CudaSlice<u8>, mags: &mut [u64], signs: &mut [u8]) -> Result<()> {
        let s = self.stream.cu_stream();
        let (optr, _o) = out.device_ptr(&self.stream);
        let (nptr, _n) = neg.device_ptr(&self.stream);
        // SAFETY: the device ranges lie inside `out` and `neg` (at least as long as the host
        // slices); the host slices stay untouched until the stream is synchronized (pinned
        // memory: asynchronous DMA; pageable: a synchronous copy).
        unsafe {
            cu::memcpy_dtoh_async(mags, optr, s).map_err(launch_err("cuMemcpyDtoH"))?;
            cu::memcpy_dtoh_async(signs, nptr, s).map_err(launch_err("cuMemcpyDtoH"))?;
        }
        Ok(())
    }

    fn run(&self, f: &[IntRef], g: &[IntRef], hlen: usize, stride: usize) -> Result<HostProduct> {
        let (stream, l) = (&self.stream, self.l);
        // 1. inputs: limbs and sign bytes into the host buffer, uploaded chunk by chunk as they fill
        let trace = std::env::var_os("GPMP_TRACE").is_some();
        let t0 = Instant::now();
        let ops: Vec<&[IntRef]> = if self.square { vec![f] } else { vec![f, g] };
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
            for op in &ops {
                for src in op.chunks(per) {
                    let dst = &mut buf[at * l..(at + src.len()) * l];
                    let sg = &mut signs[at..at + src.len()];
                    dst.par_chunks_mut(l).zip(sg.par_iter_mut()).zip(src.par_iter()).with_min_len(1024).for_each(|((d, s), x)| {
                        d[..x.mag.len()].copy_from_slice(x.mag);
                        d[x.mag.len()..].fill(0);
                        *s = u8::from(x.neg);
                    });
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
                if trace {
                    stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                }
                let t_dev = Instant::now();
                let (mags, signs) = out.parts_mut()?;
                self.download(&d_out, &d_neg, mags, signs)?;
                (t_enq, t_dev)
            }
            Some(cut) => {
                self.run_cut(cut, limbs, d_signs, &lens, hlen, stride, &mut out)?;
                let t = Instant::now();
                (t, t)
            }
        };
        stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
        if trace {
            let ms = |x: Instant, y: Instant| (y - x).as_secs_f64() * 1e3;
            eprintln!(
                "GPMP_TRACE gpu poly_mul {} x {}: host buffers {:.3} ms, limbs+signs {:.3}, enqueue {:.3}, device wait {:.3}, download {:.3}",
                f.len(), g.len(), ms(t0, t_setup), ms(t_setup, t_up), ms(t_up, t_enq), ms(t_enq, t_dev), ms(t_dev, Instant::now())
            );
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
            let rows = self.convolve(&limbs, &d_signs, lens, i0..i1)?;
            for (row, dst) in rows.iter().zip(parked[i0 * pos..i1 * pos].chunks_mut(pos)) {
                stream.memcpy_dtoh(&row.slice(..pos), dst).map_err(launch_err("cuMemcpyDtoH"))?;
            }
            stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
        }
        drop((limbs, d_signs));
        let (mags, signs) = out.parts_mut()?;
        for c0 in (0..hlen).step_by(cut.block) {
            let c1 = (c0 + cut.block).min(hlen);
            let rows = (0..k)
                .map(|i| stream.clone_htod(&parked[i * pos + c0 * t..i * pos + c1 * t]).map_err(launch_err("cuMemcpyHtoD")))
                .collect::<Result<Vec<_>>>()?;
            let (d_out, d_neg) = self.crt(rows, c1 - c0, stride)?;
            self.download(&d_out, &d_neg, &mut mags[c0 * stride..c1 * stride], &mut signs[c0..c1])?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::crt::Crt;
    use crate::nmod::prime::{mul_shoup, submod};
    use crate::testing::Rng;

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
                cases.push(
                    ps.iter()
                        .map(|&p| {
                            let r = half.iter().rev().fold(0u128, |acc, &l| ((acc << 64) + l as u128) % p as u128) as u64;
                            (r + add) % p
                        })
                        .collect(),
                );
            }
            for r in cases {
                let want_neg = crt.signed(&r, &mut v, &mut x);
                let (neg, got) = garner_host(&r, &ps);
                assert_eq!(neg, want_neg, "k = {k}, r = {r:?}");
                assert_eq!(&got[..], &x[..m.len()], "k = {k}, r = {r:?}");
            }
        }
    }

    /// The products of the parts tests, (f, g, prime group): 256- to 1024-bit coefficients,
    /// direct and split shapes, one huge coefficient, max coefficients with alternating signs.
    fn parts_cases() -> Vec<(Vec<crate::testing::Coef>, Vec<crate::testing::Coef>, usize)> {
        use crate::testing::{coef, poly};
        let mut rng = Rng(53);
        let mut v = Vec::new();
        for &(fl, gl, bits, style, group) in &[
            (3000usize, 2000usize, 256u64, 0u64, 1usize),
            (3000, 2000, 256, 1, 2),
            (2500, 2500, 300, 2, 2),
            (700, 1, 200, 3, 1),
            (600, 400, 1024, 1, 1),
        ] {
            let f = poly(&mut rng, fl, bits, style);
            let g = poly(&mut rng, gl, bits, (style + 1) % 4);
            v.push((f, g, group));
        }
        let c = coef(&mut rng, 500, 1).1;
        v.push(((0..300).map(|i| (i % 2 == 0, c.clone())).collect(), vec![], 0));
        v
    }

    /// The test cap on the free device memory whose budget (7/8 of it) holds `inputs`
    /// coefficients of `l` limbs and `group` + 1 rows of 2n words, plus 1000 bytes.
    fn parts_cap(inputs: usize, l: usize, n: usize, group: usize) -> usize {
        let b = (inputs * (8 * l + 1)) as u128 + 16 * n as u128 * (group as u128 + 1) + 1000;
        (b * 8 / 7 + 8) as usize
    }

    /// The memory plan of the parts tests' products on the host: the cap of [`parts_cap`] gives
    /// the requested prime group (all primes at most), CRT blocks shorter than the product (the
    /// products, not the squares), `OutOfMemory` below the inputs, and no cut without a cap.
    #[test]
    fn cuts_follow_the_memory_budget() {
        use crate::testing::views;
        for (f, g, group) in parts_cases() {
            let (fv, gv) = (views(&f), views(&g));
            let ops: Vec<(&[IntRef], &[IntRef])> = if g.is_empty() { vec![(&fv, &fv)] } else { vec![(&fv, &gv), (&fv, &fv)] };
            for (i, (a, b)) in ops.into_iter().enumerate() {
                let square = std::ptr::eq(a, b);
                let bits = product_bits(max_bits_par(a), max_bits_par(b), a.len(), b.len());
                let l = max_limbs(a, b).max(1);
                let (primes, t, d) = plan_shape(bits, a.len(), b.len(), l).unwrap();
                let hlen = a.len() + b.len() - 1;
                let (k, n, stride) = (primes.len(), (hlen * t).next_power_of_two().max(2), limbs_for_bits(bits));
                let inputs = if square { a.len() } else { a.len() + b.len() };
                let group = if group == 0 { k / 2 } else { group };
                let need = device_bytes(k, n, inputs, l, stride, hlen * t, d);
                let w = || crate::nmod::crt::prime_product(&primes).len();
                let what = format!("{} x {}, {bits} bits, k = {k}, T = {t}", a.len(), b.len());
                assert_eq!(plan_memory(need, k, n, inputs, l, hlen, stride, t, w, d, usize::MAX).unwrap(), None);
                let cut = plan_memory(need, k, n, inputs, l, hlen, stride, t, w, d, parts_cap(inputs, l, n, group));
                let cut = cut.unwrap_or_else(|e| panic!("{what}: {e}")).unwrap_or_else(|| panic!("{what}: no cut"));
                assert_eq!(cut.group, group.min(k), "{what}");
                assert!(cut.block >= 1 && (i > 0 || g.is_empty() || cut.block < hlen), "{what}: {cut:?}");
                let low = plan_memory(need, k, n, inputs, l, hlen, stride, t, w, d, parts_cap(inputs / 3, l, 0, 0) / 2);
                assert!(matches!(low, Err(Error::OutOfMemory(_))), "{what}: {low:?}");
            }
        }
    }

    #[cfg(feature = "gpu-tests")]
    mod gpu {
        use super::*;
        use crate::testing::{coef, oracle, poly, slab_coefs, views, Coef};
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

        /// The product in parts (a test cap on the free device memory): prime groups of 1, 2 and
        /// 4 of 9 primes, CRT blocks of a few hundred coefficients (crossing the operands' and the
        /// blocks' boundaries), direct and split (recombined) shapes, squares, max coefficients
        /// and mixed signs, against the uncut product and the GMP oracle; and a cap below the
        /// inputs gives `OutOfMemory`, cleanly.
        /// The product in parts (a test cap on the free device memory, see [`parts_cases`] and
        /// [`cuts_follow_the_memory_budget`]): prime groups of 1 to k/2 primes, CRT blocks of a few
        /// hundred coefficients (crossing the operands' and the blocks' boundaries), direct and
        /// split (recombined) shapes, squares, max coefficients and mixed signs, against the uncut
        /// product and the GMP oracle; a cap below the inputs gives `OutOfMemory`, cleanly.
        #[test]
        fn products_in_parts_match() {
            let dev = device::current().unwrap();
            let check = |f: &[IntRef], g: &[IntRef], group: usize, what: &str| -> Cut {
                let bits = product_bits(max_bits_par(f), max_bits_par(g), f.len(), g.len());
                let job = Job::new(&dev, f, g, bits, max_limbs(f, g)).unwrap();
                assert_eq!(job.cut, None, "{what}");
                let group = if group == 0 { job.s.primes.len() / 2 } else { group };
                let inputs = if std::ptr::eq(f, g) { f.len() } else { f.len() + g.len() };
                MEMORY_CAP.set(Some(parts_cap(inputs, job.l, job.n, group)));
                let cut = Job::new(&dev, f, g, bits, max_limbs(f, g)).map(|j| j.cut);
                let got = mul(f, g);
                MEMORY_CAP.set(Some(parts_cap(inputs / 3, job.l, 0, 0) / 2));
                let refused = mul(f, g);
                MEMORY_CAP.set(None);
                let cut = cut.unwrap_or_else(|e| panic!("{what}: {e}")).expect("a cut");
                assert_eq!(cut.group, group.min(job.s.primes.len()), "{what}");
                let got = got.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(got, mul(f, g).unwrap(), "{what}, {cut:?}");
                let want =
                    if f.len() * g.len() <= 1 << 22 { oracle(f, g) } else { slab_coefs(&zpoly::mul(f, g, Alg::SmallPrimeNtt).unwrap()) };
                assert_eq!(slab_coefs(&got), want, "{what}, {cut:?}");
                match refused {
                    Err(Error::OutOfMemory(_)) => {}
                    other => panic!("{what}: expected OutOfMemory, got {:?}", other.map(|h| h.len())),
                }
                cut
            };
            for (f, g, group) in parts_cases() {
                let (fv, gv) = (views(&f), views(&g));
                let what = format!("{} x {}", f.len(), g.len());
                if !g.is_empty() {
                    let cut = check(&fv, &gv, group, &what);
                    assert!(cut.block < f.len() + g.len() - 1, "{what}: one block of {}", cut.block);
                }
                check(&fv, &fv, group, &format!("square of {what}"));
            }
        }

        #[test]
        fn absurd_sizes_fail_cleanly() {
            // 2^23 x 2^23 coefficients of 950 limbs: about 1960 primes and n = 2^24, so 520 GB of
            // rows, and 127 GB of inputs: refused (in parts too: the inputs do not fit, the parked
            // rows would need 263 GB of host memory) before any device or output allocation.
            let one = vec![u64::MAX; 950];
            let f: Vec<IntRef> = vec![IntRef::new(false, &one); 1 << 23];
            let g: Vec<IntRef> = vec![IntRef::new(true, &one); 1 << 23];
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
