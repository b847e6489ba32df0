//! The Taylor shift over Z: g(x) = f(x + c), i.e. g_k = Σ_(i≥k) f_i·C(i, k)·c^(i−k), for any integer c
//! and coefficients of any size. One file per algorithm and this dispatcher:
//!
//! - [`tableau`]: Horner's scheme as n²/2 additions (c = ±1) or scaled additions on the limbs, for
//!   short polynomials and large coefficients;
//! - [`multi_modular`]: the convolution form modulo word-size primes and CRT, for moderate lengths
//!   whose result needs few primes;
//! - [`divide_conquer`]: f_lo(x + c) + (x + c)^m·f_hi(x + c) over the fast Z\[x\] product, for long
//!   ones; its halves go back to this choice.
//!
//! The choice is the GPU ([`gpu_wanted`]: the multi-modular shift of [`crate::gpu::zpoly_mul`], bit
//! for bit the same result, where [`crate::ops::route`] sends it), then [`multi_modular_wins`], then
//! [`tableau_wins`] (crossovers in [`crate::tuning`]); a shift too large for the GPU's primes splits
//! by divide and conquer, whose blocks ask again. **Bound.** Every coefficient of
//! (x + c)^i is at most (1 + |c|)^i < 2^(i·bits(c)), so |g_k| ≤ Σ_(i<n) |f_i|·(1 + |c|)^i
//! < n·max|f_i|·2^((n−1)·bits(c)): [`shift_bits`] bits, the stride of the result.
pub mod divide_conquer;
pub mod multi_modular;
pub mod tableau;

use crate::int::{ceil_log2, limbs_for_bits, max_bits, IntRef, ZSlab};
use crate::interrupt::{self, Current};
use crate::ops::route::{route_on, Op, Where};
use crate::runtime::{self, Backend};
use crate::tuning::{
    ZPOLY_TAYLOR_SHIFT_DC_MIN_LEN, ZPOLY_TAYLOR_SHIFT_MULTI_MOD_BITS_PER_LEN, ZPOLY_TAYLOR_SHIFT_MULTI_MOD_MAX_BITS,
    ZPOLY_TAYLOR_SHIFT_MULTI_MOD_MIN_LEN,
};
use crate::zpoly::{mul, Alg, HostProduct};
use crate::{Error, Result};
use gmp_mpfr_sys::gmp;

/// g(x) = f(x + c) (f.len() coefficients, low to high; empty for empty f), with a stride of
/// `limbs_for_bits(shift_bits(max_bits(f), f.len(), c))` limbs.
pub fn taylor_shift(f: &[IntRef], c: IntRef) -> Result<ZSlab> {
    let (n, bits) = (f.len(), max_bits(f));
    if c.is_zero() || n <= 1 || bits == 0 {
        return shift_with(f, c, None, &interrupt::current());
    }
    let cur = interrupt::current();
    let out = shift_bits(bits, n, c);
    if gpu_wanted(n, out, runtime::backend())? {
        return crate::gpu::zpoly_mul::taylor_shift(f, c, out);
    }
    if multi_modular_wins(n, out) {
        return multi_modular::shift(f, c, &cur);
    }
    if tableau_wins(n, bits) {
        return tableau::shift(f, c, &cur);
    }
    shift_with(f, c, Some(&Powers::new(c, n)?), &cur)
}

/// [`taylor_shift`] when it runs on the GPU ([`gpu_wanted`]), left in host memory for the C layer to
/// write into `mpz_t` without a [`ZSlab`] (stride `limbs_for_bits(shift_bits)`); `None` when it runs
/// on the CPU.
pub fn shift_on_gpu(f: &[IntRef], c: IntRef) -> Result<Option<HostProduct>> {
    let (n, bits) = (f.len(), max_bits(f));
    if c.is_zero() || n <= 1 || bits == 0 {
        return Ok(None);
    }
    let out = shift_bits(bits, n, c);
    if !gpu_wanted(n, out, runtime::backend())? {
        return Ok(None);
    }
    crate::gpu::zpoly_mul::taylor_shift_host(f, c, out).map(Some)
}

/// [`taylor_shift`] by divide and conquer (its blocks by the dispatcher's choice) with a table of the
/// powers of (x + c) that covers f's length (or `None` when c = 0 or f has at most one
/// coefficient); `cur`: the call to check for an interrupt (see [`crate::interrupt`]).
pub fn shift_with(f: &[IntRef], c: IntRef, pw: Option<&Powers>, cur: &Current) -> Result<ZSlab> {
    let bits = max_bits(f);
    let out = shift_bits(bits, f.len(), c);
    if pw.is_some() && bits > 0 && gpu_wanted(f.len(), out, runtime::backend())? {
        return crate::gpu::zpoly_mul::taylor_shift(f, c, out);
    }
    let mut g = ZSlab::zeros(f.len(), limbs_for_bits(shift_bits(bits, f.len(), c)))?;
    for (i, v) in f.iter().enumerate() {
        g.set(i, v.neg, v.mag);
    }
    if let Some(pw) = pw {
        debug_assert!(pw.c() == c && pw.covers(f.len()));
        divide_conquer::shift_rows(&mut g.rows_parts_mut(), pw, None, cur)?;
    }
    Ok(g)
}

/// Bits of every coefficient of f(x + c), f of length n with coefficients of at most `bits` bits
/// (the module's bound).
pub fn shift_bits(bits: u64, n: usize, c: IntRef) -> u64 {
    if bits == 0 || n == 0 {
        return 0;
    }
    if c.is_zero() {
        return bits;
    }
    bits + ceil_log2(n) + (n as u64 - 1) * c.bits()
}

/// Whether the shift of n coefficients whose results have `out_bits` bits ([`shift_bits`]) runs on the
/// GPU under `backend`: never with `Cpu`; with `Gpu` (`NoCudaDevice` when no GPU is usable) and `Auto`
/// as [`crate::ops::route`] decides for [`Op::ZpolyTaylorShift`] of n·limbs(out_bits) words; only
/// for n ≥ 2, out_bits > 0 and sizes the GPU's primes serve ([`crate::gpu::zpoly_mul::shift_supports`]).
pub fn gpu_wanted(n: usize, out_bits: u64, backend: Backend) -> Result<bool> {
    if backend == Backend::Cpu || n <= 1 || out_bits == 0 || !crate::gpu::zpoly_mul::shift_supports(n, out_bits) {
        return Ok(false);
    }
    let words = (n as u64).saturating_mul(limbs_for_bits(out_bits) as u64);
    Ok(route_on(backend, Op::ZpolyTaylorShift, words)? == Where::Gpu)
}

/// Whether a block of n coefficients is shifted by the tableau (else by divide and conquer, or
/// first by [`multi_modular_wins`]): n below the crossover of [`crate::tuning`].
pub fn tableau_wins(n: usize, _bits: u64) -> bool {
    n < ZPOLY_TAYLOR_SHIFT_DC_MIN_LEN
}

/// Whether a block of n coefficients whose shift has `out_bits`-bit coefficients ([`shift_bits`]) is
/// shifted modulo primes: n ≥ MIN_LEN and out_bits ≤ min(BITS_PER_LEN·n, MAX_BITS) (few primes for
/// the length, and few enough for the quadratic CRT).
pub fn multi_modular_wins(n: usize, out_bits: u64) -> bool {
    n >= ZPOLY_TAYLOR_SHIFT_MULTI_MOD_MIN_LEN
        && out_bits <= ZPOLY_TAYLOR_SHIFT_MULTI_MOD_BITS_PER_LEN * n as u64
        && out_bits <= ZPOLY_TAYLOR_SHIFT_MULTI_MOD_MAX_BITS
}

/// The polynomials (x + c)^(2^j) for 2^j < `len`, the divide and conquer's multipliers: binomial
/// coefficients by C(m, i+1) = C(m, i)·(m − i)/(i + 1) when c = ±1 (signs (−1)^(m−i) for c = −1),
/// repeated squaring by [`crate::zpoly::mul`] otherwise.
pub struct Powers {
    c_neg: bool,
    c_mag: Vec<u64>,
    /// table\[j\] = (x + c)^(2^j).
    table: Vec<ZSlab>,
}

impl Powers {
    /// The table for shifts by c ≠ 0 of polynomials of at most `len` coefficients.
    pub fn new(c: IntRef, len: usize) -> Result<Self> {
        assert!(!c.is_zero(), "Powers: c = 0 needs no table");
        let mut table: Vec<ZSlab> = Vec::new();
        let mut m = 1usize;
        while m < len {
            interrupt::checkpoint()?;
            let p = if c.mag == [1] {
                binomials(m, c.neg)?
            } else if let Some(prev) = table.last() {
                let v = prev.views();
                mul(&v, &v, Alg::Auto)?
            } else {
                let mut p = ZSlab::zeros(2, c.mag.len())?;
                p.set(0, c.neg, c.mag);
                p.set(1, false, &[1]);
                p
            };
            table.push(p);
            m *= 2;
        }
        Ok(Powers { c_neg: c.neg, c_mag: c.mag.to_vec(), table })
    }

    /// The shift c.
    pub fn c(&self) -> IntRef<'_> {
        IntRef { neg: self.c_neg, mag: &self.c_mag }
    }

    /// Whether the table serves polynomials of `len` coefficients.
    pub fn covers(&self, len: usize) -> bool {
        len <= 1 || (1usize << self.table.len()) >= len
    }

    /// (x + c)^m, m a power of two below the table's length.
    pub fn power(&self, m: usize) -> Result<&ZSlab> {
        debug_assert!(m.is_power_of_two());
        self.table.get(m.trailing_zeros() as usize).ok_or_else(|| Error::Internal(format!("no power (x + c)^{m} in the table")))
    }
}

/// The coefficients of (x ± 1)^m: C(m, i)·(±1)^(m−i), i = 0 … m.
fn binomials(m: usize, minus: bool) -> Result<ZSlab> {
    let mut b = ZSlab::zeros(m + 1, limbs_for_bits(m as u64 + 1))?;
    let mut cur = vec![1u64];
    for i in 0..=m {
        let neg = minus && (m - i) % 2 == 1;
        b.set(i, neg, &cur);
        if i == m {
            break;
        }
        // cur ← cur·(m − i)/(i + 1), exact; one more limb for the product.
        cur.push(0);
        let n = cur.len();
        // SAFETY: cur has n limbs, its top limb is 0, so the product fits; in-place mul_1 and
        // divexact_1 are allowed.
        unsafe {
            let hi = gmp::mpn_mul_1(cur.as_mut_ptr(), cur.as_ptr(), (n - 1) as _, (m - i) as u64);
            cur[n - 1] = hi;
            gmp::mpn_divexact_1(cur.as_mut_ptr(), cur.as_ptr(), n as _, (i + 1) as u64);
        }
        while cur.len() > 1 && cur[cur.len() - 1] == 0 {
            cur.pop();
        }
    }
    Ok(b)
}

#[cfg(test)]
mod tests;
