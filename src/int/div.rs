//! Remainders t mod m of unsigned limb vectors on any thread (see [`super::mpn`] for the rule).
//!
//! - A numerator of at most [`GMP_STACK_MAX_LIMBS`] limbs: GMP's `mpn_tdiv_qr`.
//! - A divisor of k ≤ [`BLOCK_MAX_LIMBS`] limbs: long division by blocks, r ← (r·B^c + next c
//!   limbs) mod m with `mpn_tdiv_qr` on k + c ≤ [`GMP_STACK_MAX_LIMBS`] limbs (B = 2^64).
//! - Above: Barrett's reduction ([HAC] Algorithm 14.42) of t·2^s by the normalized d = m·2^s
//!   (top bit set), k limbs at a time from the top: u = r·B^k + next k limbs < d·B^k ≤ B^(2k),
//!   q1 = ⌊u/B^(k−1)⌋, q3 = ⌊q1·μ/B^(k+1)⌋ with μ = ⌊B^(2k)/d⌋, r = u − q3·d < 3d ([HAC] Fact 14.43:
//!   q3 ≥ ⌊u/d⌋ − 2), then at most two subtractions of d; finally r·2^−s. Products by
//!   [`super::mul_into`].
//!
//! μ comes from Newton's iteration for the reciprocal ([Knuth] §4.3.3, Algorithm R), computed once per divisor
//! ([`Divisor::new`]): with h = ⌈(k + 2)/2⌉ and d_h the top h limbs of d, μ_h = ⌊B^(2h)/(d_h + 1)⌋
//! (recursively; B^h when d_h + 1 = B^h) gives x0 = μ_h·B^(k−h) ≤ B^(2k)/d with relative error
//! below 3/B^h; one step x1 = x0 + ⌊x0·e/B^(2k)⌋, e = B^(2k) − d·x0 > 0, stays below B^(2k)/d
//! (x(2 − x·d/B^(2k)) ≤ B^(2k)/d) and misses it by less than 2B^k·(3/B^h)² + 1 ≤ 2; then
//! μ = x1 + ⌊(B^(2k) − d·x1)/d⌋ by subtractions. Below [`BLOCK_MAX_LIMBS`] μ is GMP's quotient.
use super::mpn::{self, GMP_STACK_MAX_LIMBS};
use super::{mul_into, normalized, try_zeroed_words};
use crate::Result;
use gmp_mpfr_sys::gmp;
use std::cmp::Ordering;

/// The largest divisor (limbs) reduced by blocks of GMP quotients: a block of k + c ≤
/// [`GMP_STACK_MAX_LIMBS`] limbs with c ≥ k advances by at least k limbs. Barrett's reduction above.
pub const BLOCK_MAX_LIMBS: usize = GMP_STACK_MAX_LIMBS / 2 - 1;

/// A divisor m > 0 prepared for remainders on any thread.
pub struct Divisor {
    /// m without high zero limbs (k limbs).
    m: Vec<u64>,
    /// s: d = m·2^s has its top bit set (Barrett only).
    shift: u32,
    /// d = m·2^s (Barrett only, else empty).
    d: Vec<u64>,
    /// μ = ⌊B^(2k)/d⌋, k + 1 limbs (Barrett only, when asked for; else empty).
    inv: Vec<u64>,
}

impl Divisor {
    /// The divisor m (high zero limbs allowed; m ≠ 0) for numerators of at most `max_limbs` limbs
    /// (a hint: a longer one costs a reciprocal of its own). Barrett's reciprocal, a few products of
    /// m's size, is computed only for a divisor above [`BLOCK_MAX_LIMBS`] limbs and numerators above
    /// [`GMP_STACK_MAX_LIMBS`].
    pub fn new(m: &[u64], max_limbs: usize) -> Result<Self> {
        let m = normalized(m).to_vec();
        assert!(!m.is_empty(), "division by zero");
        if m.len() <= BLOCK_MAX_LIMBS {
            return Ok(Divisor { m, shift: 0, d: Vec::new(), inv: Vec::new() });
        }
        let shift = m[m.len() - 1].leading_zeros();
        let mut d = m.clone();
        if shift > 0 {
            // SAFETY: in-place shift of d.len() limbs (allowed); the top bits shifted out are zero.
            unsafe { gmp::mpn_lshift(d.as_mut_ptr(), m.as_ptr(), m.len() as _, shift) };
        }
        let inv = if max_limbs > GMP_STACK_MAX_LIMBS { reciprocal(&d)? } else { Vec::new() };
        Ok(Divisor { m, shift, d, inv })
    }

    /// m (no high zero limbs).
    pub fn modulus(&self) -> &[u64] {
        &self.m
    }

    /// out = t mod m (out has m's k limbs; t any length, high zero limbs allowed). `q` is scratch.
    pub fn rem_into(&self, out: &mut [u64], t: &[u64], q: &mut Vec<u64>) -> Result<()> {
        let t = normalized(t);
        if t.len() < self.m.len() || t.len() <= GMP_STACK_MAX_LIMBS || self.m.len() <= BLOCK_MAX_LIMBS {
            rem_by_gmp(out, t, &self.m, q);
            return Ok(());
        }
        self.barrett(out, t)
    }

    /// Barrett's reduction (see the module comment): t·2^s mod d, k limbs at a time from the top.
    fn barrett(&self, out: &mut [u64], t: &[u64]) -> Result<()> {
        let k = self.d.len();
        let own;
        let inv = if self.inv.is_empty() {
            own = reciprocal(&self.d)?;
            &own
        } else {
            &self.inv
        };
        let mut ts = try_zeroed_words(t.len() + 1)?;
        if self.shift > 0 {
            // SAFETY: ts has t.len() + 1 limbs, no overlap with t.
            ts[t.len()] = unsafe { gmp::mpn_lshift(ts.as_mut_ptr(), t.as_ptr(), t.len() as _, self.shift) };
        } else {
            ts[..t.len()].copy_from_slice(t);
        }
        let ts = normalized(&ts);
        let mut s = Barrett::new(k)?;
        let mut r = try_zeroed_words(k)?;
        // The first block holds the top (len mod k, or k) limbs, so that every later one has k.
        let mut end = ts.len();
        let first = match ts.len() % k {
            0 => k,
            x => x,
        };
        let mut take = first;
        let mut top = true;
        while end > 0 {
            let start = end - take;
            s.u.fill(0);
            s.u[..take].copy_from_slice(&ts[start..end]);
            if !top {
                s.u[take..take + k].copy_from_slice(&r);
            }
            self.step(&mut s, inv, &mut r)?;
            top = false;
            end = start;
            take = k;
        }
        if self.shift > 0 {
            // SAFETY: out and r have k limbs, no overlap; 0 < shift < 64.
            unsafe { gmp::mpn_rshift(out.as_mut_ptr(), r.as_ptr(), k as _, self.shift) };
        } else {
            out.copy_from_slice(&r);
        }
        Ok(())
    }

    /// r = u mod d for u = s.u < B^(2k) (2k limbs), one Barrett step.
    fn step(&self, s: &mut Barrett, inv: &[u64], r: &mut [u64]) -> Result<()> {
        let (k, d) = (self.d.len(), &self.d[..]);
        mul_into(&mut s.q2, &s.u[k - 1..], inv)?;
        mul_into(&mut s.qd, &s.q2[k + 1..], d)?;
        // r' = (u − q3·d) mod B^(k+1): the true difference is below 3d < B^(k+1).
        let x = &mut s.q2[..k + 1];
        // SAFETY: x, u and qd have at least k + 1 limbs; x does not overlap them.
        unsafe { gmp::mpn_sub_n(x.as_mut_ptr(), s.u.as_ptr(), s.qd.as_ptr(), (k + 1) as _) };
        let mut rounds = 0;
        while x[k] != 0 || cmp(&x[..k], d) != Ordering::Less {
            // SAFETY: x has k + 1 limbs ≥ d's k; rp == s1p is allowed; x ≥ d, so no borrow.
            unsafe { gmp::mpn_sub(x.as_mut_ptr(), x.as_ptr(), (k + 1) as _, d.as_ptr(), k as _) };
            rounds += 1;
        }
        debug_assert!(rounds <= 2, "Barrett's quotient was {rounds} short");
        r.copy_from_slice(&x[..k]);
        Ok(())
    }
}

/// out = t mod m by GMP's quotients (out has m's k limbs, m's top limb nonzero; t any length, high
/// zero limbs allowed; `q` is scratch): whole while t has at most [`GMP_STACK_MAX_LIMBS`] limbs,
/// else (k ≤ [`BLOCK_MAX_LIMBS`]) by blocks, the top limbs first, then c = [`GMP_STACK_MAX_LIMBS`] − k
/// limbs at a time below the remainder. Scratch of at most [`GMP_STACK_MAX_LIMBS`] limbs.
pub fn rem_by_gmp(out: &mut [u64], t: &[u64], m: &[u64], q: &mut Vec<u64>) {
    let (t, k) = (normalized(t), m.len());
    assert!(k >= 1 && m[k - 1] != 0 && out.len() == k);
    if t.len() < k || (t.len() == k && cmp(t, m) == Ordering::Less) {
        out[..t.len()].copy_from_slice(t);
        out[t.len()..].fill(0);
        return;
    }
    // The quotient's room (its limbs need no zeroing: GMP writes them), grown only when too short.
    let need = if t.len() <= GMP_STACK_MAX_LIMBS { t.len() - k + 1 } else { GMP_STACK_MAX_LIMBS + 1 - k };
    if q.len() < need {
        q.resize(need, 0);
    }
    if t.len() <= GMP_STACK_MAX_LIMBS {
        mpn::tdiv_qr(&mut q[..t.len() - k + 1], out, t, m);
        return;
    }
    assert!(k <= BLOCK_MAX_LIMBS, "a {k}-limb divisor needs Barrett's reduction");
    let mut num = vec![0u64; GMP_STACK_MAX_LIMBS];
    let mut end = t.len();
    let mut have = 0; // limbs of the remainder in out (k after the first block)
    while end > 0 {
        let take = (GMP_STACK_MAX_LIMBS - have).min(end);
        let start = end - take;
        num[..take].copy_from_slice(&t[start..end]);
        num[take..take + have].copy_from_slice(&out[..have]);
        let n = normalized(&num[..take + have]);
        if n.len() < k {
            out[..n.len()].copy_from_slice(n);
            out[n.len()..].fill(0);
        } else {
            mpn::tdiv_qr(&mut q[..n.len() - k + 1], out, n, m);
        }
        have = k;
        end = start;
    }
}

/// Quotient limbs found per step of [`div_rem_mag`] above GMP's stack bound.
const QUOTIENT_STEP_LIMBS: usize = 400;

/// (⌊a/b⌋, a mod b) for unsigned a and b ≠ 0 (high zero limbs allowed; results without high zero
/// limbs) on any thread. GMP's `mpn_tdiv_qr` while a has at most [`GMP_STACK_MAX_LIMBS`] limbs;
/// above, schoolbook division by chunks of at most s = 400 quotient limbs ([Knuth] §4.3.1): with
/// T = s + 2 top limbs b_T of b and the top s′ + T − 1 limbs r_T of the remainder r (s′ ≤ s
/// quotient limbs at limb offset e), the estimate q̂ = ⌊r_T/(b_T + 1)⌋ ≤ ⌊r/(b·B^e)⌋ (⌊r_T/b⌋
/// when T covers b) never overshoots and misses by at most 2, and r ← r − q̂·b·B^e (products by [`mul_into`]); q̂ ≥ 1 whenever s′ ≥ 2, and when
/// s′ = 1 and q̂ = 0 then r < 2b, so one subtraction of b ends the division.
pub fn div_rem_mag(a: &[u64], b: &[u64]) -> Result<(Vec<u64>, Vec<u64>)> {
    let (a, b) = (normalized(a), normalized(b));
    assert!(!b.is_empty(), "division by zero");
    let bn = b.len();
    if a.len() < bn || (a.len() == bn && cmp(a, b) == Ordering::Less) {
        return Ok((Vec::new(), a.to_vec()));
    }
    let mut q = try_zeroed_words(a.len() - bn + 1)?;
    if a.len() <= GMP_STACK_MAX_LIMBS {
        let mut r = try_zeroed_words(bn)?;
        mpn::tdiv_qr(&mut q, &mut r, a, b);
        let (ql, rl) = (normalized(&q).len(), normalized(&r).len());
        q.truncate(ql);
        r.truncate(rl);
        return Ok((q, r));
    }
    let t = bn.min(QUOTIENT_STEP_LIMBS + 2);
    // b_T + 1 (T or T + 1 limbs), or b itself when T covers it (the estimate is then exact).
    let mut bt = try_zeroed_words(t + 1)?;
    bt[..t].copy_from_slice(&b[bn - t..]);
    if t < bn {
        // SAFETY: in place on t limbs (allowed); the carry goes into the limb above.
        bt[t] = unsafe { gmp::mpn_add_1(bt.as_mut_ptr(), bt.as_ptr(), t as _, 1) };
    }
    let btn = normalized(&bt).len();
    bt.truncate(btn);
    let mut r = a.to_vec();
    let mut prod = Vec::new();
    loop {
        let rn = normalized(&r).len();
        r.truncate(rn);
        if rn < bn || (rn == bn && cmp(&r, b) == Ordering::Less) {
            break;
        }
        let s = QUOTIENT_STEP_LIMBS.min(rn - bn + 1);
        let e = rn - bn + 1 - s;
        let rt = &r[e + bn - t..];
        let mut qh = Vec::new();
        if rt.len() >= btn && !(rt.len() == btn && cmp(rt, &bt) == Ordering::Less) {
            let mut rem = try_zeroed_words(btn)?;
            qh = try_zeroed_words(rt.len() - btn + 1)?;
            mpn::tdiv_qr(&mut qh, &mut rem, rt, &bt);
            let l = normalized(&qh).len();
            qh.truncate(l);
        }
        if qh.is_empty() {
            // s = 1, e = 0 and b ≤ r < 2b.
            debug_assert!(e == 0);
            qh.push(1);
        }
        prod.clear();
        prod.resize(qh.len() + bn, 0);
        mul_into(&mut prod, &qh, b)?;
        let pn = normalized(&prod).len();
        // SAFETY: q̂·b·B^e ≤ r, so r[e..] has at least pn limbs and no borrow leaves it; q gets
        // q̂ at offset e without overflow (the quotient fits q's limbs).
        unsafe {
            let borrow = gmp::mpn_sub(r[e..].as_mut_ptr(), r[e..].as_ptr(), (rn - e) as _, prod.as_ptr(), pn as _);
            debug_assert_eq!(borrow, 0);
            let carry = gmp::mpn_add(q[e..].as_mut_ptr(), q[e..].as_ptr(), (q.len() - e) as _, qh.as_ptr(), qh.len() as _);
            debug_assert_eq!(carry, 0);
        }
    }
    let ql = normalized(&q).len();
    q.truncate(ql);
    Ok((q, r))
}

/// Scratch of one Barrett step for a k-limb divisor.
struct Barrett {
    /// u, 2k limbs.
    u: Vec<u64>,
    /// q1·μ, 2k + 2 limbs (its low k + 1 limbs then hold r').
    q2: Vec<u64>,
    /// q3·d, 2k + 1 limbs.
    qd: Vec<u64>,
}

impl Barrett {
    fn new(k: usize) -> Result<Self> {
        Ok(Barrett { u: try_zeroed_words(2 * k)?, q2: try_zeroed_words(2 * k + 2)?, qd: try_zeroed_words(2 * k + 1)? })
    }
}

/// x vs y, equal lengths.
fn cmp(x: &[u64], y: &[u64]) -> Ordering {
    x.iter().rev().cmp(y.iter().rev())
}

/// μ = ⌊B^(2k)/d⌋ (k + 1 limbs) for d of k limbs with its top bit set (see the module comment).
fn reciprocal(d: &[u64]) -> Result<Vec<u64>> {
    let k = d.len();
    if 2 * k < GMP_STACK_MAX_LIMBS {
        let mut num = try_zeroed_words(2 * k + 1)?;
        num[2 * k] = 1;
        let (mut q, mut r) = (try_zeroed_words(k + 2)?, try_zeroed_words(k)?);
        mpn::tdiv_qr(&mut q, &mut r, &num, d);
        debug_assert_eq!(q[k + 1], 0);
        q.truncate(k + 1);
        return Ok(q);
    }
    let h = (k + 3) / 2;
    // μ_h = ⌊B^(2h)/(d_h + 1)⌋, h + 1 limbs.
    let mut dh = d[k - h..].to_vec();
    // SAFETY: in-place increment of h limbs.
    let overflow = unsafe { gmp::mpn_add_1(dh.as_mut_ptr(), dh.as_ptr(), h as _, 1) } != 0;
    let mu_h = if overflow {
        let mut b = try_zeroed_words(h + 1)?;
        b[h] = 1;
        b
    } else {
        reciprocal(&dh)?
    };
    // e = B^(k+h) − d·μ_h > 0 (d·μ_h < B^(k+h)), below 3B^k·B^... : k + 1 limbs suffice.
    let mut p = try_zeroed_words(k + h + 1)?;
    mul_into(&mut p, d, &mu_h)?;
    debug_assert_eq!(p[k + h], 0);
    let mut e = try_zeroed_words(k + h)?;
    // SAFETY: e and p have at least k + h limbs; e = −p mod B^(k+h).
    unsafe { gmp::mpn_neg(e.as_mut_ptr(), p.as_ptr(), (k + h) as _) };
    let e = normalized(&e);
    // δ = ⌊μ_h·e/B^(2h)⌋; x1 = μ_h·B^(k−h) + δ.
    let mut s = try_zeroed_words(mu_h.len() + e.len())?;
    mul_into(&mut s, &mu_h, e)?;
    let delta = normalized(s.get(2 * h..).unwrap_or(&[]));
    let mut x = try_zeroed_words(k + 2)?;
    x[k - h..k - h + h + 1].copy_from_slice(&mu_h);
    if !delta.is_empty() {
        // SAFETY: x has k + 2 ≥ delta.len() limbs (δ < 6B^(k−h)); rp == s1p is allowed.
        let c = unsafe { gmp::mpn_add(x.as_mut_ptr(), x.as_ptr(), x.len() as _, delta.as_ptr(), delta.len() as _) };
        debug_assert_eq!(c, 0);
    }
    // r = B^(2k) − d·x1 = e·B^(k−h) − d·δ ≥ 0; μ = x1 + ⌊r/d⌋.
    let len = 2 * k + 2;
    let mut r = try_zeroed_words(len)?;
    r[k - h..k - h + e.len()].copy_from_slice(e);
    if !delta.is_empty() {
        let mut dd = try_zeroed_words(k + delta.len())?;
        mul_into(&mut dd, d, delta)?;
        let dd = normalized(&dd);
        // SAFETY: r has len ≥ dd.len() limbs; rp == s1p is allowed; r ≥ d·δ (x1 ≤ B^(2k)/d).
        let b = unsafe { gmp::mpn_sub(r.as_mut_ptr(), r.as_ptr(), len as _, dd.as_ptr(), dd.len() as _) };
        debug_assert_eq!(b, 0, "Newton's step overshot the reciprocal");
    }
    let mut rounds = 0;
    loop {
        let rn = normalized(&r);
        if rn.len() < k || (rn.len() == k && cmp(rn, d) == Ordering::Less) {
            break;
        }
        // SAFETY: r ≥ d; rp == s1p; x has a spare limb, and μ ≤ 2B^k keeps the carry inside it.
        unsafe {
            gmp::mpn_sub(r.as_mut_ptr(), r.as_ptr(), len as _, d.as_ptr(), k as _);
            gmp::mpn_add_1(x.as_mut_ptr(), x.as_ptr(), x.len() as _, 1);
        }
        rounds += 1;
    }
    debug_assert!(rounds <= 3, "Newton's step was {rounds} short");
    debug_assert_eq!(x[k + 1], 0);
    x.truncate(k + 1);
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// (⌊n/d⌋, n mod d) by GMP on the test thread, any size: the oracle.
    fn gmp_divmod(n: &[u64], d: &[u64]) -> (Vec<u64>, Vec<u64>) {
        let (n, d) = (normalized(n), normalized(d));
        if n.len() < d.len() {
            let mut r = n.to_vec();
            r.resize(d.len(), 0);
            return (vec![0], r);
        }
        let (mut q, mut r) = (vec![0; n.len() - d.len() + 1], vec![0; d.len()]);
        // SAFETY: sizes as mpn_tdiv_qr requires.
        unsafe { gmp::mpn_tdiv_qr(q.as_mut_ptr(), r.as_mut_ptr(), 0, n.as_ptr(), n.len() as _, d.as_ptr(), d.len() as _) };
        (q, r)
    }

    /// n limbs: random (0), all ones (1), a power of two B^(n−1) (2), random with a small top limb (3),
    /// top limb with the top bit set and the rest zero (4).
    fn operand(rng: &mut Rng, n: usize, kind: u32) -> Vec<u64> {
        let mut v: Vec<u64> = (0..n)
            .map(|_| match kind {
                1 => u64::MAX,
                2 | 4 => 0,
                _ => rng.next(),
            })
            .collect();
        v[n - 1] = match kind {
            2 => 1,
            3 => 1 + rng.below(5),
            4 => 1 << 63,
            _ => v[n - 1] | 1,
        };
        v
    }

    /// Every path (small numerators, blocks, Barrett with its Newton reciprocal at several depths,
    /// normalized and not) against GMP, for adversarial divisors and numerators of many lengths,
    /// including t < m, t = m, t = m·q exactly and t = B^len − 1.
    #[test]
    fn remainders_match_gmp() {
        let mut rng = Rng(31);
        for &k in &[1usize, 2, 17, BLOCK_MAX_LIMBS, BLOCK_MAX_LIMBS + 1, 600, 1100, 2300] {
            for kind in 0..5 {
                let m = operand(&mut rng, k, kind);
                let div = Divisor::new(&m, usize::MAX).unwrap();
                if k > BLOCK_MAX_LIMBS {
                    let mut num = vec![0; 2 * k + 1];
                    num[2 * k] = 1;
                    let want = gmp_divmod(&num, &div.d).0;
                    assert_eq!(normalized(&div.inv), normalized(&want), "reciprocal, k = {k}, kind {kind}");
                }
                let mut q = Vec::new();
                for &tl in &[k.saturating_sub(1).max(1), k, k + 1, 2 * k, 2 * k + 3, GMP_STACK_MAX_LIMBS + 1, 3 * k + 1500] {
                    for tk in 0..3 {
                        let mut t = operand(&mut rng, tl, if tk == 2 { 1 } else { kind });
                        if tk == 1 && tl >= k {
                            // t = m·q exactly
                            let qv = operand(&mut rng, tl - k + 1, 0);
                            let mut p = vec![0; qv.len() + k];
                            mul_into(&mut p, &qv, &m).unwrap();
                            t = p;
                        }
                        let mut out = vec![5; k];
                        div.rem_into(&mut out, &t, &mut q).unwrap();
                        assert_eq!(out, gmp_divmod(&t, &m).1, "k = {k}, kind {kind}, t {tl} limbs ({tk})");
                    }
                }
                if k > BLOCK_MAX_LIMBS {
                    // A divisor prepared for short numerators meets a long one: its own reciprocal.
                    let lazy = Divisor::new(&m, 0).unwrap();
                    assert!(lazy.inv.is_empty());
                    let t = operand(&mut rng, 2 * k + 5, 0);
                    let mut out = vec![5; k];
                    lazy.rem_into(&mut out, &t, &mut q).unwrap();
                    assert_eq!(out, gmp_divmod(&t, &m).1, "k = {k}, kind {kind}, no reciprocal prepared");
                }
                let mut out = vec![5; k];
                div.rem_into(&mut out, &m, &mut q).unwrap();
                assert!(out.iter().all(|&x| x == 0), "m mod m, k = {k}");
                div.rem_into(&mut out, &[], &mut q).unwrap();
                assert!(out.iter().all(|&x| x == 0), "0 mod m, k = {k}");
            }
        }
    }

    /// Quotients and remainders against GMP for divisors of 1 to 1500 limbs (both sides of the
    /// truncated estimate's T = 402) and numerators up to 4000 limbs (GMP's path and the chunked
    /// one), adversarial limbs, exact multiples, a < b and a = b.
    #[test]
    fn quotients_match_gmp() {
        let mut rng = Rng(37);
        for &k in &[1usize, 2, 3, 401, 402, 403, 700, 1500] {
            for kind in 0..5 {
                let b = operand(&mut rng, k, kind);
                for &al in &[k.saturating_sub(1).max(1), k, k + 1, 999, 1000, 1001, 1805, 4000] {
                    if al < k.saturating_sub(1) {
                        continue;
                    }
                    for tk in 0..3 {
                        let a = match tk {
                            0 => operand(&mut rng, al, kind),
                            1 => operand(&mut rng, al, 1),
                            _ => {
                                let qv = operand(&mut rng, al.saturating_sub(k).max(1), 0);
                                let mut p = vec![0; qv.len() + k];
                                mul_into(&mut p, &qv, &b).unwrap();
                                p
                            }
                        };
                        let (q, r) = div_rem_mag(&a, &b).unwrap();
                        let (wq, wr) = gmp_divmod(&a, &b);
                        assert_eq!(q, normalized(&wq), "quotient: a {} limbs, b {k}, kind {kind}, {tk}", a.len());
                        assert_eq!(r, normalized(&wr), "remainder: a {} limbs, b {k}, kind {kind}, {tk}", a.len());
                    }
                }
                let (q, r) = div_rem_mag(&b, &b).unwrap();
                assert_eq!((q, r), (vec![1], vec![]), "b / b, k = {k}");
            }
        }
    }
}
