//! Division in Z\[x\] ([MCA] Algorithm 2.5, [Knuth] 4.6.1 Algorithm R), by the classical
//! algorithm (`m·blen` multiply-subtracts, m = alen − blen + 1) over [`Int`] (Rust memory, callable
//! on any thread):
//! - [`divrem`]: a = q·b + r, deg r < deg b, when lc(b) = ±1 (every quotient digit is an integer);
//!   for another lc(b) only when b divides a in Z\[x\] (r = 0), else `InvalidArgument`;
//! - [`pseudo_divrem`]: lc(b)^d·a = q·b + r with d = alen − blen + 1 (0 when alen < blen), by m steps
//!   r ← lc·r − t·x^k·b, q ← lc·q + t·x^k with t the leading coefficient of r; by induction
//!   lc^s·a = q·b + r after s steps.
use crate::int::{Int, IntRef};
use crate::{invalid, Result};

/// Owned copies of the coefficients.
fn owned(a: &[IntRef]) -> Vec<Int> {
    a.iter().map(|&v| Int::from_ref(v)).collect()
}

/// `InvalidArgument` unless b is non-empty with a nonzero leading coefficient.
fn check_divisor(b: &[IntRef]) -> Result<()> {
    match b.last() {
        None => invalid!("division by the zero polynomial (blen = 0)"),
        Some(c) if c.is_zero() => invalid!("the leading coefficient b[{}] of the divisor is zero", b.len() - 1),
        _ => Ok(()),
    }
}

/// (q, r) with a = q·b + r: q of alen − blen + 1 coefficients (none when alen < blen), r of blen − 1.
pub fn divrem(a: &[IntRef], b: &[IntRef]) -> Result<(Vec<Int>, Vec<Int>)> {
    check_divisor(b)?;
    let blen = b.len();
    let mut r = owned(a);
    if a.len() < blen {
        r.resize_with(blen - 1, Int::default);
        return Ok((Vec::new(), r));
    }
    let m = a.len() - blen + 1;
    let lc = b[blen - 1];
    let unit = lc.mag == [1];
    let bz = owned(b);
    let mut q: Vec<Int> = vec![Int::default(); m];
    for k in (0..m).rev() {
        crate::interrupt::checkpoint()?;
        let t = &r[k + blen - 1];
        q[k] = if unit {
            if lc.neg {
                t.neg()
            } else {
                t.clone()
            }
        } else {
            let (qk, rk) = t.div_rem(&bz[blen - 1])?;
            if !rk.is_zero() {
                return invalid!("the division is not exact: lc(b) = ±1 is needed for a remainder");
            }
            qk
        };
        for j in 0..blen {
            r[k + j] = r[k + j].sub(q[k].mul(&bz[j])?.view());
        }
    }
    r.truncate(blen - 1);
    if !unit && r.iter().any(|v| !v.is_zero()) {
        return invalid!("the division is not exact: lc(b) = ±1 is needed for a remainder");
    }
    Ok((q, r))
}

/// (q, r, d) with lc(b)^d·a = q·b + r, d = alen − blen + 1 (q of d coefficients, r of blen − 1;
/// d = 0, q empty, r = a when alen < blen).
pub fn pseudo_divrem(a: &[IntRef], b: &[IntRef]) -> Result<(Vec<Int>, Vec<Int>, u64)> {
    check_divisor(b)?;
    let blen = b.len();
    let mut r = owned(a);
    if a.len() < blen {
        r.resize_with(blen - 1, Int::default);
        return Ok((Vec::new(), r, 0));
    }
    let m = a.len() - blen + 1;
    let bz = owned(b);
    let lc = &bz[blen - 1];
    let mut q: Vec<Int> = vec![Int::default(); m];
    for k in (0..m).rev() {
        crate::interrupt::checkpoint()?;
        let t = std::mem::take(&mut r[k + blen - 1]);
        for v in &mut q[k + 1..] {
            *v = v.mul(lc)?;
        }
        for v in &mut r[..k + blen - 1] {
            *v = v.mul(lc)?;
        }
        for j in 0..blen - 1 {
            r[k + j] = r[k + j].sub(t.mul(&bz[j])?.view());
        }
        q[k] = t;
    }
    r.truncate(blen - 1);
    Ok((q, r, m as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{oracle, poly, views, Coef, Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    fn coefs(v: &[Int]) -> Vec<Coef> {
        v.iter().map(|x| (x.neg, x.mag.clone())).collect()
    }

    /// Σ of two coefficient lists (as GMP integers), padded.
    fn add(x: &[Coef], y: &[Coef]) -> Vec<Coef> {
        let n = x.len().max(y.len());
        (0..n)
            .map(|i| {
                let mut z = Mpz::new();
                unsafe {
                    if let Some(c) = x.get(i) {
                        gmp::mpz_add(z.as_mut_ptr(), z.as_ptr(), Mpz::from_coef(IntRef::new(c.0, &c.1)).as_ptr());
                    }
                    if let Some(c) = y.get(i) {
                        gmp::mpz_add(z.as_mut_ptr(), z.as_ptr(), Mpz::from_coef(IntRef::new(c.0, &c.1)).as_ptr());
                    }
                }
                z.to_coef()
            })
            .collect()
    }

    fn trim(x: Vec<Coef>) -> Vec<Coef> {
        let mut x: Vec<Coef> = x.iter().map(|c| Mpz::from_coef(IntRef::new(c.0, &c.1)).to_coef()).collect();
        while x.last().is_some_and(|c| c.1.is_empty()) {
            x.pop();
        }
        x
    }

    /// a = q·b + r (lc ±1), lc^d·a = q·b + r (any lc), exact division with another lc, and the
    /// refusals: an inexact division by lc ≠ ±1, b = 0, a zero leading coefficient.
    #[test]
    fn division_identities_hold() {
        let mut rng = Rng(53);
        for &(al, bl, bits) in &[(0usize, 1usize, 10u64), (5, 1, 64), (3, 5, 64), (10, 4, 64), (30, 30, 100), (40, 7, 200)] {
            let a = poly(&mut rng, al, bits, 2);
            let mut b = poly(&mut rng, bl, bits, 2);
            // lc(b) = ±1
            b[bl - 1] = (rng.next() & 1 == 1, vec![1]);
            let (av, bv) = (views(&a), views(&b));
            let (q, r) = divrem(&av, &bv).unwrap();
            assert_eq!(r.len(), bl - 1);
            let qb = if q.is_empty() { vec![] } else { oracle(&views(&coefs(&q)), &bv) };
            assert_eq!(trim(add(&qb, &coefs(&r))), trim(a.clone()), "a = qb + r: {al} / {bl}");
            // pseudo-division with a random leading coefficient
            b[bl - 1] = poly(&mut rng, 1, 30, 0)[0].clone();
            if b[bl - 1].1.is_empty() {
                b[bl - 1] = (false, vec![3]);
            }
            let bv = views(&b);
            let (q, r, d) = pseudo_divrem(&av, &bv).unwrap();
            assert_eq!(d as usize, (al + 1).saturating_sub(bl));
            let mut lhs: Vec<Coef> = a.clone();
            for _ in 0..d {
                lhs = oracle(&views(&lhs), &bv[bl - 1..]);
            }
            let qb = if q.is_empty() { vec![] } else { oracle(&views(&coefs(&q)), &bv) };
            assert_eq!(trim(add(&qb, &coefs(&r))), trim(lhs), "lc^d a = qb + r: {al} / {bl}");
            // exact division by b with lc ≠ ±1: a' = c·b
            let c = poly(&mut rng, 3, 40, 0);
            let ab = oracle(&views(&c), &bv);
            let (q, r) = divrem(&views(&ab), &bv).unwrap();
            assert_eq!(trim(coefs(&q)), trim(c.clone()));
            assert!(r.iter().all(Int::is_zero));
            if bl > 1 && b[bl - 1].1 != [1] {
                let mut ab1 = ab.clone();
                ab1[0] = add(&ab1[..1], &[(false, vec![1])])[0].clone();
                assert!(divrem(&views(&ab1), &bv).is_err(), "inexact");
            }
        }
        assert!(divrem(&views(&[(false, vec![1])]), &[]).is_err());
        assert!(pseudo_divrem(&views(&[(false, vec![1])]), &views(&[(false, vec![1]), (false, vec![])])).is_err());
    }
}
