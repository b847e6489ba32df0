//! Dense multiplication in Z\[x\]: one file per algorithm, one dispatcher.
//!
//! Every algorithm has the raw signature `fn mul(f, g) -> Result<ZSlab>` over coefficient views
//! (low to high, `f` and `g` non-empty, zero and leading-zero coefficients allowed, `f` and `g` may be
//! the same slice for a square) and returns the `f.len() + g.len() − 1` coefficients of f·g with a
//! stride of `limbs_for_bits(product_bits(..))` limbs (see [`crate::int::product_bits`]).
//! [`mul`] validates, handles empty operands and picks the algorithm.
pub mod big_prime_fft;
pub mod divide_conquer;
pub mod kronecker;
pub mod schoolbook;
pub mod small_prime_ntt;
pub mod toom;
pub mod two_convolution;

use crate::int::{product_bits, IntRef, ZSlab};
use crate::runtime::{self, Backend};
use crate::Result;

/// The algorithms of `gpmp_mul_alg` (same numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    Auto = 0,
    Schoolbook = 1,
    Kronecker = 2,
    DivideConquer = 3,
    Toom4 = 4,
    Toom8 = 5,
    TwoConvolution = 6,
    SmallPrimeNtt = 7,
    BigPrimeFft = 8,
}

impl Alg {
    /// The algorithm with C enum value `v`.
    pub fn from_raw(v: i64) -> Option<Alg> {
        use Alg::*;
        [Auto, Schoolbook, Kronecker, DivideConquer, Toom4, Toom8, TwoConvolution, SmallPrimeNtt, BigPrimeFft]
            .into_iter()
            .find(|a| *a as i64 == v)
    }
}

/// f·g with the algorithm `alg` (`Auto` picks by size, and goes to the GPU product
/// [`crate::gpu::multimod`] when [`gpu_wanted`] says so). Empty `f` or `g` gives an empty result.
pub fn mul(f: &[IntRef], g: &[IntRef], alg: Alg) -> Result<ZSlab> {
    if f.is_empty() || g.is_empty() {
        return ZSlab::zeros(0, 1);
    }
    if alg == Alg::Auto {
        if let Some(bits) = gpu_bits(f, g, runtime::backend())? {
            return crate::gpu::multimod::mul_bits(f, g, bits);
        }
    }
    let alg = if alg == Alg::Auto { choose(f, g) } else { alg };
    match alg {
        Alg::Auto => unreachable!("choose never returns Auto"),
        Alg::Schoolbook => schoolbook::mul(f, g),
        Alg::Kronecker => kronecker::mul(f, g),
        Alg::DivideConquer => divide_conquer::mul(f, g),
        Alg::Toom4 => toom::mul4(f, g),
        Alg::Toom8 => toom::mul8(f, g),
        Alg::TwoConvolution => two_convolution::mul(f, g),
        Alg::SmallPrimeNtt => small_prime_ntt::mul(f, g),
        Alg::BigPrimeFft => big_prime_fft::mul(f, g),
    }
}

/// The dispatcher: the fastest algorithm for these operands, by the thresholds below, measured
/// with `gpmp-bench thresholds` (bench/README.md; table in bench/results/cpu-zpoly.md) at 1 and 2
/// threads. `m` is the shorter length, `bits` the larger coefficient size.
///
/// | coefficient bits | schoolbook   | Kronecker          | small-prime NTT | two-convolution |
/// |------------------|--------------|--------------------|-----------------|-----------------|
/// | ≤ 128            | m ≤ 8        | 8 < m < 64         | m ≥ 64          | —               |
/// | ≤ 512            | m ≤ 4        | 4 < m < 256        | m ≥ 256         | —               |
/// | ≤ 2048           | m ≤ 2        | 2 < m < 256        | —               | m ≥ 256         |
/// | ≤ 8192           | m ≤ 2        | 2 < m < 1024       | —               | m ≥ 1024        |
/// | > 8192           | m ≤ 2        | m > 2              | —               | —               |
///
/// Unbalanced operands up to 512 bits (longer length n ≥ 1024) go to the small-prime NTT from
/// m > 2: its overlap-add blocks transform the short operand once and run in parallel (2^20 × 16 at
/// 64 bits: 101 ms against Kronecker's 125 ms at 1 thread, 59 against 90 ms at 2 threads).
///
/// Divide-and-conquer and Toom-4/8 (one level over Kronecker blocks) never won a cell on this
/// 2-core box; they stay available through `gpmp_poly_mul_alg`.
pub fn choose(f: &[IntRef], g: &[IntRef]) -> Alg {
    let (m, n) = (f.len().min(g.len()), f.len().max(g.len()));
    let bits = crate::int::max_bits(f).max(crate::int::max_bits(g));
    if bits <= 512 && n >= 1024 && m > 2 {
        return Alg::SmallPrimeNtt;
    }
    let (school, ks_below, fast) = match bits {
        0..=128 => (8, 64, Alg::SmallPrimeNtt),
        129..=512 => (4, 256, Alg::SmallPrimeNtt),
        513..=2048 => (2, 256, Alg::TwoConvolution),
        2049..=8192 => (2, 1024, Alg::TwoConvolution),
        _ => (2, usize::MAX, Alg::Kronecker),
    };
    if m <= school {
        Alg::Schoolbook
    } else if m < ks_below {
        Alg::Kronecker
    } else {
        fast
    }
}

/// The GPU takes `mul(f, g, Auto)` from this many output words (length × limbs a coefficient).
/// Measured on the H100 host (bench/results/gpu-h100.md, `gpu_poly`, GPU end to end against gpmp's
/// CPU path on 16 cores): 2^13 × 64-bit (49k words) a tie (0.59 against 0.58 ms), 2^14 × 64-bit
/// (98k) 2× faster on the GPU, 2^11 × 1024-bit (135k) 1.1×, 2^10 × 64-bit (6k) 0.7×.
const GPU_MIN_WORDS: u64 = 1 << 16;

/// Whether `mul(f, g, Auto)` runs on the GPU under `backend`: always with `Gpu` (`NoCudaDevice` when
/// no GPU is usable), with `Auto` from [`GPU_MIN_WORDS`] when a GPU is usable, never with `Cpu`; and
/// only for coefficient sizes the GPU product serves. The explicit algorithms of [`Alg`] always
/// run on the CPU.
pub fn gpu_wanted(f: &[IntRef], g: &[IntRef], backend: Backend) -> Result<bool> {
    Ok(gpu_bits(f, g, backend)?.is_some())
}

/// `mul(f, g, Auto)` when it runs on the GPU (see [`gpu_wanted`]), left in host memory for the C
/// layer to write into `mpz_t` without a [`ZSlab`]; `None` when it runs on the CPU. `bits`: the
/// operands' `max_bits` when the caller has them.
pub fn mul_on_gpu(f: &[IntRef], g: &[IntRef], bits: Option<(u64, u64)>) -> Result<Option<crate::gpu::multimod::HostProduct>> {
    if f.is_empty() || g.is_empty() {
        return Ok(None);
    }
    match gpu_shape(f, g, bits, runtime::backend())? {
        Some((bits, limbs)) => crate::gpu::multimod::mul_host_limbs(f, g, bits, limbs).map(Some),
        None => Ok(None),
    }
}

/// [`gpu_wanted`], with the product's coefficient bound (`product_bits`) when it is.
fn gpu_bits(f: &[IntRef], g: &[IntRef], backend: Backend) -> Result<Option<u64>> {
    Ok(gpu_shape(f, g, None, backend)?.map(|(bits, _)| bits))
}

/// [`gpu_bits`], with the most limbs of an input coefficient (one pass over the coefficients
/// serves both; `known`: the operands' `max_bits`, when the caller has them).
fn gpu_shape(f: &[IntRef], g: &[IntRef], known: Option<(u64, u64)>, backend: Backend) -> Result<Option<(u64, usize)>> {
    if backend == Backend::Cpu {
        return Ok(None);
    }
    use crate::gpu::multimod::{max_bits_par, supports};
    let (bf, bg) = known.unwrap_or_else(|| rayon::join(|| max_bits_par(f), || max_bits_par(g)));
    let bits = product_bits(bf, bg, f.len(), g.len());
    if bits == 0 || !supports(bits) {
        return Ok(None);
    }
    let words = (f.len() + g.len() - 1) as u64 * crate::int::limbs_for_bits(bits) as u64;
    let on = backend.on_gpu(words >= GPU_MIN_WORDS)?;
    Ok(on.then_some((bits, crate::int::limbs_for_bits(bf.max(bg)))))
}

/// Whether `mul(f, g, Auto)` runs entirely on the calling thread (a small schoolbook product), so
/// that the C layer can skip handing it to the worker pool.
pub fn runs_inline(f: &[IntRef], g: &[IntRef]) -> bool {
    // The length test first: `choose` reads every coefficient (a cache miss each for mpz inputs).
    !f.is_empty()
        && !g.is_empty()
        && f.len() + g.len() - 1 < schoolbook::GRAIN
        && runtime::backend() != Backend::Gpu
        && choose(f, g) == Alg::Schoolbook
}
