//! Multipoint evaluation over Z: values_i = f(u_i) exactly, for integer f and points (the points
//! may repeat).
//!
//! **Bound.** |f(u)| ≤ Σ_j |f_j|·|u|^j ≤ flen·2^(bf)·2^(bu·(flen−1)) with bf, bu the largest bit
//! sizes of the coefficients and the points, so every value has fewer than
//! B = bf + bu·(flen − 1) + ⌈log2 flen⌉ bits.
//!
//! Two methods, by B:
//! - **multi-modular** (B ≤ [`ZPOLY_EVALUATE_MULTI_MODULAR_MAX_BITS`]): f and the points modulo
//!   the fewest 50-bit Fourier primes q_i (2^(⌈log2 n⌉+2) | q_i − 1, so each tree runs on one-row
//!   transforms) whose product Q exceeds 2^(B+1), one subproduct-tree evaluation per prime
//!   ([`crate::nmod::evaluate`]), then the symmetric residue in (−Q/2, Q/2) by CRT, which is the
//!   value since |f(u)| < 2^B < Q/2. The CRT is quadratic in the number of primes;
//! - **one point at a time** (larger B, where that CRT would dominate): f(u) = f_lo(u) +
//!   u^(2^k)·f_hi(u) bottom-up over the coefficient pairs, u^(2^k) squared level by level
//!   (log2 flen levels of products of growing integers, [`crate::int::mul_mag`]), points in
//!   parallel.
use crate::int::{ceil_log2, limbs_for_bits, max_bits, mul_mag, normalized, sum_shifted, IntRef, ZSlab};
use crate::nmod::convolution::primes_for;
use crate::nmod::crt::Crt;
use crate::nmod::reduce::Modulus;
use crate::tuning::ZPOLY_EVALUATE_MULTI_MODULAR_MAX_BITS;
use crate::{Error, Result};
use rayon::prelude::*;

/// The values of an evaluation: a slab (multi-modular) or one vector per value.
pub enum Values {
    Slab(ZSlab),
    Owned(Vec<(bool, Vec<u64>)>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Slab(s) => s.len(),
            Values::Owned(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value i.
    pub fn get(&self, i: usize) -> IntRef<'_> {
        match self {
            Values::Slab(s) => s.get(i),
            Values::Owned(v) => IntRef::new(v[i].0, &v[i].1),
        }
    }

    /// The most limbs of a value.
    pub fn max_limbs(&self) -> usize {
        match self {
            Values::Slab(s) => s.stride(),
            Values::Owned(v) => v.iter().map(|x| x.1.len()).max().unwrap_or(0),
        }
    }
}

/// The bound B of the module doc: every f(u_i) has fewer than B bits.
pub fn value_bits(f: &[IntRef], points: &[IntRef]) -> u64 {
    if f.is_empty() {
        return 0;
    }
    max_bits(f) + max_bits(points) * (f.len() as u64 - 1) + ceil_log2(f.len())
}

/// The two methods of the module doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    MultiModular,
    ByPoints,
}

/// f(u_i) for every point (n = points.len() values; all zero when f is empty).
pub fn evaluate(f: &[IntRef], points: &[IntRef]) -> Result<Values> {
    let method = if value_bits(f, points) <= ZPOLY_EVALUATE_MULTI_MODULAR_MAX_BITS { Method::MultiModular } else { Method::ByPoints };
    evaluate_by(f, points, method)
}

/// [`evaluate`] by the given method (for the benchmark that sets the crossover).
pub fn evaluate_by(f: &[IntRef], points: &[IntRef], method: Method) -> Result<Values> {
    let n = points.len();
    let bits = value_bits(f, points);
    if f.is_empty() || n == 0 || bits == 0 {
        return Ok(Values::Slab(ZSlab::zeros(n, 0)?));
    }
    match method {
        Method::MultiModular => multi_modular(f, points, bits).map(Values::Slab),
        Method::ByPoints => by_points(f, points).map(Values::Owned),
    }
}

/// The 50-bit Fourier primes for trees of n points whose product exceeds 2^bits (at least
/// `extra` more when asked), cached by [`primes_for`].
pub(crate) fn tree_primes(bits: u64, n: usize) -> Result<Vec<u64>> {
    // 2^(⌈log2 n⌉ + 2) | q − 1: primes_for gives 2^k | q − 1 with 2^k ≥ 2·(its n).
    primes_for(bits, 2 * n.next_power_of_two())
}

/// x_i mod q for integers x_i.
pub(crate) fn residues(x: &[IntRef], q: u64) -> Vec<u64> {
    let m = Modulus::new(q);
    let w = m.limb_weights(x.iter().map(|v| v.mag.len()).max().unwrap_or(0));
    x.iter()
        .map(|v| {
            let r = m.reduce_limbs(v.mag, &w);
            if v.neg {
                m.neg(r)
            } else {
                r
            }
        })
        .collect()
}

/// The multi-modular method (values of fewer than `bits` bits).
fn multi_modular(f: &[IntRef], points: &[IntRef], bits: u64) -> Result<ZSlab> {
    let n = points.len();
    let primes = tree_primes(bits + 1, n)?;
    let k = primes.len();
    let mut res = crate::int::try_zeroed::<u64>(k * n)?;
    let cur = crate::interrupt::current();
    res.par_chunks_mut(n).zip(primes.par_iter()).try_for_each(|(row, &q)| -> Result<()> {
        cur.check()?;
        let v = crate::nmod::evaluate::evaluate_vec(&residues(f, q), &residues(points, q), q)?;
        row.copy_from_slice(&v);
        Ok(())
    })?;
    let crt = Crt::new(&primes);
    let mut out = ZSlab::zeros(n, limbs_for_bits(bits + 1).min(crt.limbs()))?;
    crt.signed_into(&res, n, &mut out)?;
    Ok(out)
}

/// One point at a time (each in parallel).
fn by_points(f: &[IntRef], points: &[IntRef]) -> Result<Vec<(bool, Vec<u64>)>> {
    let cur = crate::interrupt::current();
    points
        .par_iter()
        .with_max_len(1)
        .map(|&u| {
            cur.check()?;
            at_point(f, u, &cur)
        })
        .collect()
}

/// (sign, magnitude) of a·b.
fn mul(a: (bool, &[u64]), b: (bool, &[u64])) -> Result<(bool, Vec<u64>)> {
    if a.1.is_empty() || b.1.is_empty() {
        return Ok((false, Vec::new()));
    }
    let mut m = mul_mag(a.1, b.1)?;
    let l = normalized(&m).len();
    m.truncate(l);
    Ok((a.0 != b.0, m))
}

/// f(u): pairs combined bottom-up, c ← c_lo + u^(2^k)·c_hi.
fn at_point(f: &[IntRef], u: IntRef, cur: &crate::interrupt::Current) -> Result<(bool, Vec<u64>)> {
    let mut c: Vec<(bool, Vec<u64>)> = f.iter().map(|x| (x.neg, x.mag.to_vec())).collect();
    let mut pw = (u.neg, u.mag.to_vec());
    while c.len() > 1 {
        cur.check()?;
        let next: Result<Vec<(bool, Vec<u64>)>> = c
            .chunks(2)
            .map(|pair| match pair {
                [lo, hi] => {
                    let t = mul((hi.0, &hi.1), (pw.0, &pw.1))?;
                    let (m, neg) = sum_shifted(&[(0, lo.0, &lo.1), (0, t.0, &t.1)])?;
                    Ok((neg && !m.is_empty(), m))
                }
                [lo] => Ok(lo.clone()),
                _ => unreachable!(),
            })
            .collect();
        c = next?;
        if c.len() > 1 {
            pw = mul((false, &pw.1), (false, &pw.1))?;
        }
    }
    c.pop().ok_or_else(|| Error::Internal("empty polynomial".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{poly, views, Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    /// f(u) by Horner over GMP.
    fn oracle(f: &[IntRef], u: IntRef) -> Mpz {
        let mut acc = Mpz::new();
        let uz = Mpz::from_coef(u);
        for c in f.iter().rev() {
            let cz = Mpz::from_coef(*c);
            unsafe {
                gmp::mpz_mul(acc.as_mut_ptr(), acc.as_ptr(), uz.as_ptr());
                gmp::mpz_add(acc.as_mut_ptr(), acc.as_ptr(), cz.as_ptr());
            }
        }
        acc
    }

    /// Both methods against Horner over GMP: random signed points and coefficients, zeros, ±1,
    /// repeated points, large and small bit sizes, lengths 0 and 1.
    #[test]
    fn evaluation_matches_horner_over_gmp() {
        let mut rng = Rng(31);
        for &(flen, n, bf, bu) in &[
            (0usize, 3usize, 10u64, 10u64),
            (1, 4, 100, 64),
            (5, 1, 64, 64),
            (40, 33, 64, 20),
            (100, 70, 200, 64),
            (300, 5, 3, 1),
            (64, 64, 1000, 300),
            (3, 100, 64, 2000),
        ] {
            let f = poly(&mut rng, flen, bf, 2);
            let mut u = poly(&mut rng, n, bu, 2);
            if n > 2 {
                u[2] = u[0].clone();
            }
            let (fv, uv) = (views(&f), views(&u));
            let want: Vec<_> = uv.iter().map(|&x| oracle(&fv, x).to_coef()).collect();
            let got = evaluate(&fv, &uv).unwrap();
            for (i, w) in want.iter().enumerate() {
                assert_eq!(&(got.get(i).neg, got.get(i).mag.to_vec()), w, "flen {flen}, n {n}, bf {bf}, bu {bu}: value {i}");
            }
            // The other method on the same input.
            let other: Vec<(bool, Vec<u64>)> = if value_bits(&fv, &uv) <= ZPOLY_EVALUATE_MULTI_MODULAR_MAX_BITS && flen > 0 {
                by_points(&fv, &uv).unwrap()
            } else if flen > 0 {
                let s = multi_modular(&fv, &uv, value_bits(&fv, &uv)).unwrap();
                (0..n).map(|i| (s.get(i).neg, s.get(i).mag.to_vec())).collect()
            } else {
                continue;
            };
            for (i, (o, w)) in other.iter().zip(&want).enumerate() {
                let o = IntRef::new(o.0, &o.1);
                assert_eq!(&(o.neg, o.mag.to_vec()), w, "other method: flen {flen}, n {n}: value {i}");
            }
        }
    }
}
