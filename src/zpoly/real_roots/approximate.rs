//! Descartes' test of a node polynomial without its exact Taylor shift: the test counts the sign
//! variations of the shift by 1 of P reversed, so Horner's tableau in floating point with error
//! bounds gives those signs.
//!
//! **Bound.** With every q_i rounded to a double (relative error u = 2^−53) and every addition
//! rounded, each computed coefficient ĝ_k of the shift differs from g_k = Σ_i q_i·C(i, k) by at
//! most (γ_(n−1) + u)·A_k with A_k = Σ_i |q_i|·C(i, k) ([Higham] §3.1: n − 1 additions on each path);
//! A_k is computed alongside by the same tableau on |q_i| (computed â_k ≥ (1 − γ_n)·A_k). A sign is
//! taken when |ĝ_k| > 2(n + 2)·u·â_k; a count is returned only when every sign is taken (or the
//! coefficient is exactly 0, â_k = 0). Values carry their own exponent ([`Ext`]), so neither the
//! spread of the coefficients nor the growth by up to 2^n overflows or underflows.
//!
//! An exact shift is spent only on an undecided test. The tableau costs n²/2 pairs of double
//! operations against the exact one's n²/2 additions of whole coefficients.
use crate::int::{mag_bits, Int, ZSlab};
use crate::interrupt::Current;
use crate::Result;

/// A double with its own exponent, v·2^e (|v| kept within 2^±200).
#[derive(Clone, Copy, Debug)]
struct Ext {
    v: f64,
    e: i64,
}

const U: f64 = 1.0 / 9007199254740992.0; // 2^−53

impl Ext {
    #[inline(always)]
    fn add(self, y: Ext) -> Ext {
        if y.v == 0.0 {
            return self;
        }
        if self.v == 0.0 {
            return y;
        }
        let d = y.e - self.e;
        let r = if d >= 0 { Ext { v: self.v * pow2(-d) + y.v, e: y.e } } else { Ext { v: self.v + y.v * pow2(d), e: self.e } };
        let a = r.v.abs();
        if a > 1e60 || (a < 1e-60 && a != 0.0) {
            let k = ((r.v.to_bits() >> 52) & 0x7ff) as i64 - 1023;
            return Ext { v: r.v * pow2(-k), e: r.e + k };
        }
        r
    }
}

/// 2^e for e ≤ 0 (0 below the subnormal range).
#[inline(always)]
fn pow2(e: i64) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        0.0
    }
}

/// Descartes' test of the node polynomial P — the sign variations of the shift by 1 of P reversed —
/// when all its signs are certain. Its constant coefficient is P(1), summed exactly.
pub fn test_variations(q: &ZSlab, cur: &Current) -> Result<Option<usize>> {
    let n = q.len();
    let load = |i: usize| {
        let v = q.get(i);
        let bits = mag_bits(v.mag) as i64;
        if bits == 0 {
            return Ext { v: 0.0, e: 0 };
        }
        let top = super::refine::top_bits(v.mag);
        Ext { v: if v.neg { -top } else { top }, e: bits }
    };
    let mut at_one = Int::default();
    for i in 0..n {
        at_one = at_one.add(q.get(i));
    }
    shifted_variations((0..n).rev().map(load), n, at_one.signum(), cur)
}

/// The sign variations of the shift by 1 of the given coefficients (low to high) when certain; its
/// constant coefficient has the exact sign s1 (0: left out).
fn shifted_variations(c: impl Iterator<Item = Ext>, n: usize, s1: i32, cur: &Current) -> Result<Option<usize>> {
    let mut v: Vec<Ext> = c.collect();
    let mut a: Vec<Ext> = v.iter().map(|x| Ext { v: x.v.abs(), e: x.e }).collect();
    for i in (0..n.saturating_sub(1)).rev() {
        if i % 64 == 0 {
            cur.check()?;
        }
        for j in i..n - 1 {
            v[j] = v[j].add(v[j + 1]);
            a[j] = a[j].add(a[j + 1]);
        }
    }
    let rel = 2.0 * (n as f64 + 2.0) * U;
    let mut last: Option<bool> = None;
    let mut var = 0;
    for (k, (x, b)) in v.iter().zip(&a).enumerate() {
        if k == 0 {
            if s1 != 0 {
                last = Some(s1 < 0);
            }
            continue;
        }
        if b.v == 0.0 {
            continue; // exactly zero
        }
        // |x| > rel·b ⟺ |x.v| > rel·b.v·2^(b.e − x.e)
        let d = b.e - x.e;
        let certain = x.v != 0.0 && d < 900 && (d < -900 || x.v.abs() > rel * b.v * 2f64.powi(d as i32));
        if !certain {
            return Ok(None);
        }
        let neg = x.v < 0.0;
        if last.is_some_and(|s| s != neg) {
            var += 1;
        }
        last = Some(neg);
    }
    Ok(Some(var))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{poly, views, Rng};
    use crate::zpoly::taylor_shift::taylor_shift;

    fn exact_var(p: &ZSlab) -> usize {
        super::super::descartes::variations(p)
    }

    /// Whenever a count is returned it equals the exact count of the exact shift (random
    /// polynomials with wide coefficient spreads).
    #[test]
    fn counts_match_exact_shifts() {
        let mut rng = Rng(9);
        let cur = crate::interrupt::current();
        let one = crate::int::IntRef::new(false, &[1]);
        let (mut decided, mut total) = (0, 0);
        for round in 0..200 {
            let len = 2 + rng.below(150) as usize;
            let bits = 1 + rng.below(3000);
            let f = poly(&mut rng, len, bits, round % 4);
            let fv = views(&f);
            let mut q = ZSlab::zeros(len, fv.iter().map(|v| v.mag.len()).max().unwrap().max(1)).unwrap();
            for (i, v) in fv.iter().enumerate() {
                q.set(i, v.neg, v.mag);
            }
            let rev: Vec<_> = fv.iter().rev().copied().collect();
            let want = exact_var(&taylor_shift(&rev, one).unwrap());
            total += 1;
            if let Some(g) = test_variations(&q, &cur).unwrap() {
                assert_eq!(g, want, "round {round}: certified count wrong");
                decided += 1;
            }
        }
        assert!(decided > total / 2, "only {decided} of {total} counts decided");
    }
}
