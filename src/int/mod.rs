//! Signed multi-precision integers at the limb level (64-bit limbs, least significant first).
//!
//! - [`IntRef`]: a borrowed sign–magnitude integer (what the C layer makes of an `mpz_t` without
//!   copying);
//! - [`ZSlab`]: `len` signed integers of `stride` limbs each in one allocation, the output format of
//!   every multiplication algorithm;
//! - [`try_zeroed`]: fallible allocation, so that out-of-memory becomes a status instead of an abort;
//! - [`pack`]: signed Kronecker packing and unpacking; [`sum_shifted`]: Σ ±x_i·2^(64·o_i);
//! - [`mul_into`]: products, [`Divisor`]: remainders, [`div_rem_mag`]: quotients, [`PowmModulus`]:
//!   modular powers, all callable on worker threads (GMP only within the sizes where it takes no
//!   memory from the host's memory functions, [`mpn`]);
//! - [`Int`]: an owned signed integer for exact scalar work on worker threads;
//! - [`ZList`]: integers of individual sizes in one allocation; [`batch`]: element-wise arithmetic
//!   over batches (the CPU path of `gpmp_mpz_*_n` and `gpmp_zvec_*`).
mod alloc;
pub mod batch;
mod div;
mod list;
pub mod mpn;
mod mul;
mod ntt_mul;
mod owned;
pub mod pack;
mod powm;
mod shifted_sum;
mod slab;
mod word_major;

pub use alloc::{try_zeroed, try_zeroed_words};
pub use div::{div_rem_mag, rem_by_gmp, Divisor};
pub use list::{Row, ZList};
pub use mul::{limb_views, mul_into, mul_mag};
pub use ntt_mul::ntt_mul;
pub use owned::{cmp_mag, cmp_signed, Int};
pub use pack::{pack_signed, unpack_signed};
pub use powm::{PowmModulus, PowmReduction, PowmScratch};
pub use shifted_sum::sum_shifted;
pub use slab::{add_assign_signed, negate_in_place, RowsMut, ZSlab};
pub use word_major::{pack_word_major, read_word_major};

/// Bits per limb.
pub const LIMB_BITS: u64 = 64;

/// A borrowed signed integer: value = (−1)^neg · Σ mag\[i\]·2^(64i).
/// `mag` has no leading (high) zero limb; zero is the empty slice with `neg == false`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntRef<'a> {
    pub neg: bool,
    pub mag: &'a [u64],
}

impl<'a> IntRef<'a> {
    /// The integer of the given sign and magnitude; high zero limbs are dropped, −0 becomes 0.
    pub fn new(neg: bool, mag: &'a [u64]) -> Self {
        let mag = normalized(mag);
        IntRef { neg: neg && !mag.is_empty(), mag }
    }

    /// Zero.
    pub const ZERO: IntRef<'static> = IntRef { neg: false, mag: &[] };

    pub fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    /// Number of bits of |x| (0 for zero).
    pub fn bits(&self) -> u64 {
        mag_bits(self.mag)
    }
}

/// `mag` without its high zero limbs.
pub fn normalized(mag: &[u64]) -> &[u64] {
    let n = mag.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
    &mag[..n]
}

/// Bits of the unsigned integer `mag` (high zero limbs allowed).
pub fn mag_bits(mag: &[u64]) -> u64 {
    let m = normalized(mag);
    match m.last() {
        None => 0,
        Some(&top) => (m.len() as u64) * LIMB_BITS - top.leading_zeros() as u64,
    }
}

/// max over the coefficients of their bit sizes.
pub fn max_bits(coeffs: &[IntRef]) -> u64 {
    coeffs.iter().map(IntRef::bits).max().unwrap_or(0)
}

/// ⌈log2 n⌉ for n ≥ 1 (0 for n ≤ 1).
pub fn ceil_log2(n: usize) -> u64 {
    if n <= 1 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as u64
    }
}

/// Limbs needed for `bits` bits.
pub fn limbs_for_bits(bits: u64) -> usize {
    bits.div_ceil(LIMB_BITS) as usize
}

/// Bound on the bits of every coefficient of f·g: |h_k| ≤ min(flen,glen)·max|f_i|·max|g_j|, so
/// bits(h_k) ≤ bf + bg + ⌈log2 min(flen, glen)⌉.
pub fn product_bits(bf: u64, bg: u64, flen: usize, glen: usize) -> u64 {
    if bf == 0 || bg == 0 {
        0
    } else {
        bf + bg + ceil_log2(flen.min(glen))
    }
}
