//! Dense multiplication in Z\[x\]: one file per algorithm, one dispatcher ([`mul`], [`choose`]).
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

pub use crate::gpu::zpoly_mul::HostProduct;
use crate::int::{product_bits, IntRef, ZSlab};
use crate::ops::route::{route_on, Op, Where};
use crate::runtime::{self, Backend};
use crate::tuning::{
    ZPOLY_MUL_ROWS, ZPOLY_MUL_SMALL_PRIME_NTT_MAX_BITS, ZPOLY_MUL_UNBALANCED_NTT_MIN_LEN, ZPOLY_MUL_UNBALANCED_NTT_MIN_LONG_LEN,
};
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
/// [`crate::gpu::zpoly_mul`] when [`gpu_wanted`] says so). Empty `f` or `g` gives an empty result.
pub fn mul(f: &[IntRef], g: &[IntRef], alg: Alg) -> Result<ZSlab> {
    if f.is_empty() || g.is_empty() {
        return ZSlab::zeros(0, 1);
    }
    check_memory(f, g, alg)?;
    if alg == Alg::Auto {
        if let Some(bits) = gpu_bits(f, g, runtime::backend())? {
            return crate::gpu::zpoly_mul::mul_bits(f, g, bits);
        }
    }
    let alg = if alg == Alg::Auto { choose(f, g) } else { alg };
    crate::log::log(crate::log::Level::Debug, "zpoly mul", || format!("{} x {} coefficients on the CPU: {alg:?}", f.len(), g.len()));
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

/// The host-memory plan of f·g by `alg` against the memory limit (`crate::memory`): the result
/// (len(f) + len(g) − 1 coefficients of the product bound's limbs) once for the schoolbook method,
/// four times for the others (packed operands, residues or pieces and their transforms). Without a
/// limit only the lengths are read (one word a coefficient against physical memory), so that the
/// check costs no pass over the coefficients.
fn check_memory(f: &[IntRef], g: &[IntRef], alg: Alg) -> Result<()> {
    if crate::memory::host_limit() == 0 {
        return crate::memory::check_host(8 * (f.len() + g.len()) as u128, "the Z[x] product");
    }
    let (bf, bg) = (crate::int::max_bits(f), crate::int::max_bits(g));
    let hlen = (f.len() + g.len() - 1) as u128;
    let out = 8 * hlen * (crate::int::limbs_for_bits(product_bits(bf, bg, f.len(), g.len())) as u128 + 1);
    let factor = if alg == Alg::Schoolbook { 1 } else { 4 };
    crate::memory::check_host(factor * out, "the Z[x] product")
}

/// The dispatcher: the fastest CPU algorithm for these operands, by the table
/// [`ZPOLY_MUL_ROWS`] of [`crate::tuning`] (`m` the shorter length, `bits` the larger coefficient
/// size): schoolbook for short operands, Kronecker substitution in the middle, and from the row's
/// `fast_min_len` the small-prime NTT (up to [`ZPOLY_MUL_SMALL_PRIME_NTT_MAX_BITS`]) or the
/// two-convolution; unbalanced products of small coefficients go to the small-prime NTT early,
/// whose overlap-add blocks transform the short operand once.
pub fn choose(f: &[IntRef], g: &[IntRef]) -> Alg {
    let (m, n) = (f.len().min(g.len()), f.len().max(g.len()));
    let bits = crate::int::max_bits(f).max(crate::int::max_bits(g));
    if bits <= ZPOLY_MUL_SMALL_PRIME_NTT_MAX_BITS && n >= ZPOLY_MUL_UNBALANCED_NTT_MIN_LONG_LEN && m >= ZPOLY_MUL_UNBALANCED_NTT_MIN_LEN {
        return Alg::SmallPrimeNtt;
    }
    let row = ZPOLY_MUL_ROWS.iter().find(|r| bits <= r.max_bits).unwrap_or(&ZPOLY_MUL_ROWS[ZPOLY_MUL_ROWS.len() - 1]);
    if m <= row.schoolbook_max_len {
        Alg::Schoolbook
    } else if m < row.fast_min_len {
        Alg::Kronecker
    } else if bits <= ZPOLY_MUL_SMALL_PRIME_NTT_MAX_BITS {
        Alg::SmallPrimeNtt
    } else {
        Alg::TwoConvolution
    }
}

/// Whether `mul(f, g, Auto)` runs on the GPU under `backend`: always with `Gpu` (`NoCudaDevice` when
/// no GPU is usable), with `Auto` from [`crate::tuning::ZPOLY_MUL_GPU_MIN_WORDS`] output words when a GPU is
/// usable ([`crate::ops::route`]), never with `Cpu`; and
/// only for coefficient sizes the GPU product serves. The explicit algorithms of [`Alg`] always
/// run on the CPU.
pub fn gpu_wanted(f: &[IntRef], g: &[IntRef], backend: Backend) -> Result<bool> {
    Ok(gpu_bits(f, g, backend)?.is_some())
}

/// `mul(f, g, Auto)` when it runs on the GPU (see [`gpu_wanted`]), left in host memory for the C
/// layer to write into `mpz_t` without a [`ZSlab`]; `None` when it runs on the CPU. `bits`: the
/// operands' `max_bits` when the caller has them.
pub fn mul_on_gpu(f: &[IntRef], g: &[IntRef], bits: Option<(u64, u64)>) -> Result<Option<HostProduct>> {
    if f.is_empty() || g.is_empty() {
        return Ok(None);
    }
    match gpu_shape(f, g, bits, runtime::backend())? {
        Some((bits, limbs)) => {
            check_memory(f, g, Alg::Auto)?;
            crate::gpu::zpoly_mul::mul_host_limbs(f, g, bits, limbs).map(Some)
        }
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
    use crate::gpu::zpoly_mul::{max_bits_par, supports};
    let (bf, bg) = known.unwrap_or_else(|| rayon::join(|| max_bits_par(f), || max_bits_par(g)));
    let bits = product_bits(bf, bg, f.len(), g.len());
    if bits == 0 || !supports(bits) {
        return Ok(None);
    }
    let words = (f.len() + g.len() - 1) as u64 * crate::int::limbs_for_bits(bits) as u64;
    let on = route_on(backend, Op::ZpolyMul, words)? == Where::Gpu;
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
