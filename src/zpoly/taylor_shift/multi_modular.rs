//! The Taylor shift modulo word-size primes (the modular variant in [vzGG97]; FLINT's
//! `_fmpz_poly_taylor_shift_multi_mod`): f(x + c) mod p for each of the fewest 50-bit Fourier primes
//! whose product M exceeds 2^(b+1), b = [`super::shift_bits`] (so every |g_k| < 2^b < M/2 is its
//! symmetric residue), by the convolution form of [`crate::nmod::taylor_shift`] (one product of
//! length n per prime; every p > n, so the factorials are invertible), then Garner's CRT
//! ([`crate::nmod::crt::Crt::signed_into`]). The primes run in parallel.
//!
//! Its cost is k transforms of length 2n and a CRT of k²/2 multiply-adds per coefficient, k ≈ b/50:
//! it wins while the output's size b·n is spread over few primes (moderate n and coefficients);
//! the quadratic CRT loses to divide and conquer once k reaches a few hundred.
use super::shift_bits;
use crate::int::{limbs_for_bits, max_bits, try_zeroed, IntRef, ZSlab};
use crate::interrupt::Current;
use crate::nmod::convolution::primes_for;
use crate::nmod::crt::Crt;
use crate::nmod::reduce::Modulus;
use crate::nmod::taylor_shift::taylor_shift_into;
use crate::Result;
use rayon::prelude::*;

/// f(x + c) (f non-empty), as a slab of `shift_bits` limbs; `cur`: the call to check for an interrupt.
pub fn shift(f: &[IntRef], c: IntRef, cur: &Current) -> Result<ZSlab> {
    let n = f.len();
    let bits = shift_bits(max_bits(f), n, c);
    let mut g = ZSlab::zeros(n, limbs_for_bits(bits))?;
    if bits == 0 {
        return Ok(g);
    }
    let primes = primes_for(bits + 1, n)?;
    let limbs = f.iter().map(|v| v.mag.len()).max().unwrap_or(0).max(c.mag.len());
    let mut res = try_zeroed::<u64>(primes.len() * n)?;
    res.par_chunks_mut(n).zip(primes.par_iter()).with_max_len(1).try_for_each(|(row, &p)| -> Result<()> {
        cur.check()?;
        let m = Modulus::new(p);
        let w = m.limb_weights(limbs);
        let red = |v: &IntRef| m.reduce_signed(*v, &w);
        let fp: Vec<u64> = f.iter().map(red).collect();
        taylor_shift_into(&fp, red(&c), p, row)
    })?;
    cur.check()?;
    Crt::new(&primes).signed_into(&res, n, &mut g)?;
    Ok(g)
}
