//! base^e mod m (m > 1, e ≥ 0) on any thread (see [`super::mpn`] for the rule): GMP's `mpz_powm`
//! where its temporary space stays on the stack ([`mpn::powm`]: small odd m, moderate exponents),
//! else gpmp's own left-to-right sliding-window exponentiation ([HAC] Algorithm 14.85) with GMP's
//! window sizes ([`win_size`]), products by [`super::mul_into`], and reductions
//! - for an odd m of k limbs, Montgomery's REDC with R = B^k ([HAC] Algorithm 14.32): x̃ = x·R mod m
//!   and REDC(t) ≡ t·R^−1 (mod m), so REDC(ã·b̃) = (ab)~. Below [`POWM_REDC_MULLO_MIN_LIMBS`] one
//!   `mpn_addmul_1` per limb (GMP's `redc_1`); from there by products (GMP's `redc_n`):
//!   q = (t mod R)·m′ mod R with m′ = −m^−1 mod R (a low-half product, [`mullo`]), then
//!   (t + q·m)/R = ⌊t/R⌋ + ⌊q·m/R⌋ + [t mod R ≠ 0] (the low halves sum to 0 or R);
//! - for an even m, [`Divisor`] (GMP's quotients, Barrett's reduction above them).
//!
//! The table holds the odd powers b^1, b^3, …, b^(2^w − 1) (2^(w−1)·k limbs of Rust memory).
use super::mpn::{self, win_size};
use super::try_zeroed_words;
use super::{mul_into, normalized, Divisor, IntRef};
use crate::interrupt::Current;
use crate::tuning::POWM_REDC_MULLO_MIN_LIMBS;
use crate::Result;
use gmp_mpfr_sys::gmp;
use std::cmp::Ordering;

/// Exponent bits between two interrupt checks (each bit costs at least one k-limb squaring and its
/// reduction, against one atomic load per check).
const CHECK_BITS: i64 = 8;

/// How the working values are reduced (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowmReduction {
    /// Montgomery's REDC one limb at a time (odd m).
    Redc1,
    /// Montgomery's REDC by products (odd m).
    RedcMullo,
    /// Remainders by [`Divisor`].
    Quotients,
}

/// A modulus m > 1 prepared for powers.
pub struct PowmModulus {
    div: Divisor,
    reduction: PowmReduction,
    /// −m^−1 mod 2^64 (REDC_1), −m^−1 mod B^k (REDC by products).
    minv: u64,
    mneg_inv: Vec<u64>,
    /// Whether GMP's `mpz_powm` takes the powers it can take on the stack ([`mpn::powm`]).
    gmp: bool,
}

/// Scratch of one exponentiation (reused across the elements a thread computes).
#[derive(Default)]
pub struct PowmScratch {
    /// A product, 2k limbs.
    t: Vec<u64>,
    /// The table of odd powers.
    table: Vec<u64>,
    /// The accumulator and b² (k limbs each; b² then the accumulator's copy).
    acc: Vec<u64>,
    sq: Vec<u64>,
    /// b mod m (k limbs).
    b: Vec<u64>,
    /// Quotient scratch of the reductions.
    q: Vec<u64>,
}

impl PowmModulus {
    /// m > 1 (high zero limbs allowed) for bases of at most `max_base_limbs` limbs.
    pub fn new(m: &[u64], max_base_limbs: usize) -> Result<Self> {
        let m = normalized(m);
        let reduction = match m.first() {
            Some(&l) if l & 1 == 0 => PowmReduction::Quotients,
            _ if m.len() < POWM_REDC_MULLO_MIN_LIMBS => PowmReduction::Redc1,
            _ => PowmReduction::RedcMullo,
        };
        let mut pm = Self::with_reduction(m, max_base_limbs, reduction)?;
        pm.gmp = true;
        Ok(pm)
    }

    /// As [`PowmModulus::new`] with gpmp's own exponentiation always and the reduction chosen (REDC
    /// needs an odd m): for the benchmark that measures [`POWM_REDC_MULLO_MIN_LIMBS`].
    pub fn with_reduction(m: &[u64], max_base_limbs: usize, reduction: PowmReduction) -> Result<Self> {
        let m = normalized(m);
        assert!(!m.is_empty() && m != [1], "powm needs m > 1");
        assert!(reduction == PowmReduction::Quotients || m[0] & 1 == 1, "Montgomery's reduction needs an odd modulus");
        let k = m.len();
        let (mut minv, mut mneg_inv) = (0, Vec::new());
        if reduction != PowmReduction::Quotients {
            // Newton's iteration x ← x(2 − m0·x) doubles the correct low bits (3 for x = m0).
            let mut x = m[0];
            for _ in 0..5 {
                x = x.wrapping_mul(2u64.wrapping_sub(m[0].wrapping_mul(x)));
            }
            minv = x.wrapping_neg();
        }
        if reduction == PowmReduction::RedcMullo {
            mneg_inv = neg_inverse(m, minv)?;
        }
        Ok(PowmModulus { div: Divisor::new(m, max_base_limbs.max(2 * k))?, reduction, minv, mneg_inv, gmp: false })
    }

    /// out = base^exp mod m ∈ [0, m) (out has m's k limbs; exp a non-negative magnitude, high zero
    /// limbs allowed; any base, its sign included). `Err(Interrupted)` once `cur` is stopped,
    /// checked every [`CHECK_BITS`] exponent bits (out then unspecified).
    pub fn powm_into(&self, out: &mut [u64], base: IntRef, exp: &[u64], s: &mut PowmScratch, cur: &Current) -> Result<()> {
        let m = self.div.modulus();
        let k = m.len();
        assert_eq!(out.len(), k);
        let e = normalized(exp);
        out.fill(0);
        if e.is_empty() {
            out[0] = 1; // m > 1
            return Ok(());
        }
        // b = base mod m ∈ [0, m).
        fit(&mut s.b, k)?;
        let b = &mut s.b[..];
        self.div.rem_into(b, base.mag, &mut s.q)?;
        if b.iter().all(|&l| l == 0) {
            return Ok(());
        }
        if base.neg {
            // SAFETY: equal lengths; rp == s2p is allowed; 0 < b < m, so no borrow.
            unsafe { gmp::mpn_sub_n(b.as_mut_ptr(), m.as_ptr(), b.as_ptr(), k as _) };
        }
        if self.gmp && mpn::powm(out, b, e, m) {
            return Ok(());
        }
        fit(&mut s.t, 2 * k)?;
        fit(&mut s.acc, k)?;
        fit(&mut s.sq, k)?;
        // b into the working form (b̃ = b·R mod m for Montgomery).
        if self.reduction != PowmReduction::Quotients {
            s.t[..k].fill(0);
            s.t[k..].copy_from_slice(b);
            self.div.rem_into(b, &s.t, &mut s.q)?;
        }
        let bits = (e.len() as u64 - 1) * 64 + (64 - e[e.len() - 1].leading_zeros() as u64);
        let w = win_size(bits);
        let half = 1usize << (w - 1);
        fit(&mut s.table, half * k)?;
        s.table[..k].copy_from_slice(b);
        if half > 1 {
            self.mul(&mut s.sq, b, b, &mut s.t, &mut s.q)?;
            for i in 1..half {
                let (prev, cur) = s.table.split_at_mut(i * k);
                self.mul(&mut cur[..k], &prev[(i - 1) * k..], &s.sq, &mut s.t, &mut s.q)?;
            }
        }
        let bit = |i: u64| (e[(i / 64) as usize] >> (i % 64)) & 1 == 1;
        let mut started = false;
        let mut i = bits as i64 - 1;
        let mut next_check = i - CHECK_BITS;
        while i >= 0 {
            if i <= next_check {
                cur.check()?;
                next_check = i - CHECK_BITS;
            }
            if !bit(i as u64) {
                self.sqr(&mut s.acc, &mut s.t, &mut s.q)?;
                i -= 1;
                continue;
            }
            // The window [j, i]: at most w bits, its lowest bit set.
            let mut j = (i - w as i64 + 1).max(0);
            while !bit(j as u64) {
                j += 1;
            }
            let mut val = 0usize;
            for t in (j..=i).rev() {
                val = 2 * val + bit(t as u64) as usize;
            }
            let g = &s.table[(val - 1) / 2 * k..][..k];
            if started {
                for _ in j..=i {
                    self.sqr(&mut s.acc, &mut s.t, &mut s.q)?;
                }
                s.sq.copy_from_slice(&s.acc);
                self.mul(&mut s.acc, &s.sq, g, &mut s.t, &mut s.q)?;
            } else {
                s.acc.copy_from_slice(g);
                started = true;
            }
            i = j - 1;
        }
        if self.reduction == PowmReduction::Quotients {
            out.copy_from_slice(&s.acc);
        } else {
            s.t[..k].copy_from_slice(&s.acc);
            s.t[k..].fill(0);
            self.redc(out, &mut s.t, true, &mut s.q)?;
        }
        Ok(())
    }

    /// r = x·y reduced (working form), r distinct from x and y; t (2k limbs) and q are scratch.
    fn mul(&self, r: &mut [u64], x: &[u64], y: &[u64], t: &mut [u64], q: &mut Vec<u64>) -> Result<()> {
        let k = r.len();
        mul_into(t, &x[..k], &y[..k])?;
        self.reduce(r, t, q)
    }

    /// acc = acc² reduced; t (2k limbs) and q are scratch.
    fn sqr(&self, acc: &mut [u64], t: &mut [u64], q: &mut Vec<u64>) -> Result<()> {
        mul_into(t, acc, acc)?;
        self.reduce(acc, t, q)
    }

    /// r = t reduced: REDC(t) below B^k (Montgomery: the working values stay below B^k, not
    /// necessarily below m, as in GMP's `mpn_powm`), else t mod m.
    fn reduce(&self, r: &mut [u64], t: &mut [u64], q: &mut Vec<u64>) -> Result<()> {
        match self.reduction {
            PowmReduction::Quotients => self.div.rem_into(r, t, q),
            _ => self.redc(r, t, false, q),
        }
    }

    /// r ≡ t·B^−k (mod m) for t < B^2k (2k limbs, destroyed by REDC_1): the sum (t + q·m)/B^k is
    /// below B^k + m, so one subtraction of m on a carry leaves r < B^k; `full` also subtracts it
    /// when r ≥ m, which gives r ∈ [0, m) for t < m·B^k. `w` is scratch.
    fn redc(&self, r: &mut [u64], t: &mut [u64], full: bool, w: &mut Vec<u64>) -> Result<()> {
        let m = self.div.modulus();
        let k = m.len();
        let carry = if self.reduction == PowmReduction::Redc1 {
            // k steps t += (t_i·minv mod B)·m·B^i clear the low limbs; each step's carry is kept
            // in the cleared limb and added at the end, as GMP's `redc_1`.
            for i in 0..k {
                let q = t[i].wrapping_mul(self.minv);
                // SAFETY: t[i..i + k] lies in t (2k limbs) and does not overlap m.
                t[i] = unsafe { gmp::mpn_addmul_1(t[i..].as_mut_ptr(), m.as_ptr(), k as _, q) };
            }
            let (lo, hi) = t.split_at(k);
            // SAFETY: r, hi and lo have k limbs; r does not overlap t.
            unsafe { gmp::mpn_add_n(r.as_mut_ptr(), hi.as_ptr(), lo.as_ptr(), k as _) }
        } else {
            let (lo, hi) = t.split_at(k);
            fit(w, 6 * k)?;
            let (q, rest) = w.split_at_mut(k);
            let (u, ws) = rest.split_at_mut(2 * k);
            mullo(q, lo, &self.mneg_inv, ws)?;
            mul_into(u, q, m)?;
            // SAFETY: r, hi and u[k..] have k limbs; r does not overlap them; rp == s1p is allowed.
            unsafe {
                let c = gmp::mpn_add_n(r.as_mut_ptr(), hi.as_ptr(), u[k..].as_ptr(), k as _);
                c + if lo.iter().any(|&l| l != 0) { gmp::mpn_add_1(r.as_mut_ptr(), r.as_ptr(), k as _, 1) } else { 0 }
            }
        };
        if carry != 0 || (full && r.iter().rev().cmp(m.iter().rev()) != Ordering::Less) {
            // SAFETY: k limbs each; rp == s1p is allowed; the borrow cancels the carry.
            unsafe { gmp::mpn_sub_n(r.as_mut_ptr(), r.as_ptr(), m.as_ptr(), k as _) };
        }
        Ok(())
    }
}

/// `v` resized to `n` limbs (contents unspecified), or `OutOfMemory`.
fn fit(v: &mut Vec<u64>, n: usize) -> Result<()> {
    if n > v.len() {
        v.try_reserve(n - v.len()).map_err(|_| crate::Error::OutOfMemory(format!("cannot allocate {n} limbs")))?;
    }
    v.resize(n, 0);
    Ok(())
}

/// r = x·y mod B^n for r, x, y of n limbs (high zero limbs allowed), GMP's `mpn_dc_mullo_n` split
/// ([GMP] `mpn/generic/mullo_n.c`): with x = x1·B^n2 + x0, y = y1·B^n2 + y0 and 2·n2 ≥ n,
/// x·y ≡ x0·y0 + (x1·y0 + x0·y1 mod B^n1)·B^n2 (mod B^n), n1 = n − n2 < 0.31n, the cross terms
/// recursively. `w` holds at least 3n limbs (2n2 + n1 here, 3n1 below).
fn mullo(r: &mut [u64], x: &[u64], y: &[u64], w: &mut [u64]) -> Result<()> {
    let n = r.len();
    let (x, y) = (&x[..n], &y[..n]);
    if n < 24 {
        let t = &mut w[..2 * n];
        mul_into(t, x, y)?;
        r.copy_from_slice(&t[..n]);
        return Ok(());
    }
    let n1 = if n < 100 { n * 11 / 36 } else { n * 9 / 40 };
    let n2 = n - n1;
    let (t, w) = w.split_at_mut(2 * n2);
    mul_into(t, &x[..n2], &y[..n2])?;
    r.copy_from_slice(&t[..n]);
    let (c, w) = w.split_at_mut(n1);
    for (a, b) in [(&x[n2..], &y[..n1]), (&x[..n1], &y[n2..])] {
        mullo(c, a, b, w)?;
        // SAFETY: r[n2..] and c have n1 limbs; rp == s1p is allowed; the carry out is dropped (mod B^n).
        unsafe { gmp::mpn_add_n(r[n2..].as_mut_ptr(), r[n2..].as_ptr(), c.as_ptr(), n1 as _) };
    }
    Ok(())
}

/// −m^−1 mod B^k for an odd m of k limbs, from minv = −m^−1 mod B by Hensel's lifting
/// x ← x·(2 − m·x) mod B^(2j) (m·x ≡ 1 mod B^j gives m·x′ ≡ 1 mod B^(2j)).
fn neg_inverse(m: &[u64], minv: u64) -> Result<Vec<u64>> {
    let k = m.len();
    let mut x = try_zeroed_words(k)?;
    x[0] = minv.wrapping_neg(); // m^−1 mod B
    let (mut e, mut f, mut w) = (try_zeroed_words(k)?, try_zeroed_words(k)?, try_zeroed_words(3 * k)?);
    let mut j = 1;
    while j < k {
        let j2 = (2 * j).min(k);
        // e = 2 − m·x mod B^j2, then x = x·e mod B^j2 (x's limbs from j on are zero).
        mullo(&mut e[..j2], &m[..j2], &x[..j2], &mut w)?;
        // SAFETY: e and f have at least j2 limbs; no overlap.
        unsafe {
            gmp::mpn_neg(e.as_mut_ptr(), e.as_ptr(), j2 as _);
            gmp::mpn_add_1(e.as_mut_ptr(), e.as_ptr(), j2 as _, 2);
        }
        mullo(&mut f[..j2], &x[..j2], &e[..j2], &mut w)?;
        x[..j2].copy_from_slice(&f[..j2]);
        j = j2;
    }
    // SAFETY: in-place negation of k limbs.
    unsafe { gmp::mpn_neg(x.as_mut_ptr(), x.as_ptr(), k as _) };
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// base^exp mod m by GMP's mpz_powm on the test thread: the oracle.
    fn gmp_powm(neg: bool, base: &[u64], exp: &[u64], m: &[u64]) -> Vec<u64> {
        use crate::testing::Mpz;
        let (b, e, mz) =
            (Mpz::from_coef(IntRef::new(neg, base)), Mpz::from_coef(IntRef::new(false, exp)), Mpz::from_coef(IntRef::new(false, m)));
        let mut r = Mpz::new();
        // SAFETY: initialised mpz_t; m > 1.
        unsafe { gmp::mpz_powm(&mut r.0, &b.0, &e.0, &mz.0) };
        let mut v = r.to_coef().1;
        v.resize(normalized(m).len(), 0);
        v
    }

    fn limbs(rng: &mut Rng, n: usize, kind: u64) -> Vec<u64> {
        (0..n)
            .map(|i| {
                if kind == 1 {
                    u64::MAX
                } else if kind == 2 && i > 0 {
                    0
                } else {
                    rng.next()
                }
            })
            .collect()
    }

    /// Every reduction (REDC one limb at a time, REDC by products, quotients) and GMP's own path,
    /// on both sides of the REDC crossover and of mullo's base case, odd and even moduli, bases of
    /// any sign and size (0, ±1, m, longer than m), exponents 0, 1, 2, all ones and random of several
    /// window sizes.
    #[test]
    fn powers_match_gmp() {
        let mut rng = Rng(41);
        let mm = POWM_REDC_MULLO_MIN_LIMBS;
        for &k in &[1usize, 2, 5, 23, 24, 65, mm - 1, mm, 130, 800] {
            for kind in 0..3u64 {
                for odd in [true, false] {
                    let mut m = limbs(&mut rng, k, kind);
                    m[k - 1] |= 1 << 40;
                    m[0] = if odd { m[0] | 1 } else { m[0] & !1 };
                    let pm = PowmModulus::new(&m, 3 * k).unwrap();
                    let want_reduction = match (odd, k < mm) {
                        (false, _) => PowmReduction::Quotients,
                        (true, true) => PowmReduction::Redc1,
                        (true, false) => PowmReduction::RedcMullo,
                    };
                    assert_eq!(pm.reduction, want_reduction);
                    let mut all =
                        vec![(pm, "new"), (PowmModulus::with_reduction(&m, 3 * k, PowmReduction::Quotients).unwrap(), "quotients")];
                    if odd && k < 200 {
                        all.push((PowmModulus::with_reduction(&m, 3 * k, PowmReduction::Redc1).unwrap(), "REDC_1"));
                    }
                    if odd {
                        all.push((PowmModulus::with_reduction(&m, 3 * k, PowmReduction::RedcMullo).unwrap(), "REDC by products"));
                    }
                    let exps: Vec<Vec<u64>> =
                        vec![vec![], vec![1], vec![2], vec![u64::MAX; 2], limbs(&mut rng, 1, 0), limbs(&mut rng, 3, 0), vec![0, 0, 1, 0]];
                    let bases: Vec<(bool, Vec<u64>)> = vec![
                        (false, vec![]),
                        (false, vec![1]),
                        (true, vec![1]),
                        (false, m.clone()),
                        (true, limbs(&mut rng, k, 0)),
                        (false, limbs(&mut rng, 3 * k, 1)),
                        (true, limbs(&mut rng, 2 * k + 1, 0)),
                    ];
                    for e in &exps {
                        for (neg, b) in &bases {
                            let want = gmp_powm(*neg, b, e, &m);
                            for (pm, name) in &all {
                                let mut s = PowmScratch::default();
                                let mut out = vec![9; k];
                                pm.powm_into(&mut out, IntRef::new(*neg, b), e, &mut s, &crate::interrupt::current()).unwrap();
                                assert_eq!(out, want, "{name}: k = {k}, kind {kind}, odd {odd}, e {e:?}, base {neg} {} limbs", b.len());
                            }
                        }
                    }
                }
            }
        }
    }

    /// The low half of products against the full product, on both sides of the base case and
    /// of the split rule, with all-ones operands.
    #[test]
    fn low_halves_match_full_products() {
        let mut rng = Rng(43);
        for &n in &[1usize, 2, 23, 24, 25, 50, 99, 100, 101, 300, 1000] {
            for kind in [0, 1] {
                let (x, y) = (limbs(&mut rng, n, kind), limbs(&mut rng, n, kind));
                let mut full = vec![0; 2 * n];
                mul_into(&mut full, &x, &y).unwrap();
                let (mut r, mut w) = (vec![7; n], vec![0; 3 * n]);
                mullo(&mut r, &x, &y, &mut w).unwrap();
                assert_eq!(r, full[..n], "n = {n}, kind {kind}");
            }
        }
        // −m^−1 mod B^k: m·(−m′) ≡ 1.
        for &k in &[1usize, 3, 64, 257] {
            let mut m = limbs(&mut rng, k, 0);
            m[0] |= 1;
            let inv = PowmModulus::with_reduction(&m, k, PowmReduction::RedcMullo).unwrap().mneg_inv;
            let mut p = vec![0; 2 * k];
            mul_into(&mut p, &m, &inv).unwrap();
            let minus_one: Vec<u64> = vec![u64::MAX; k];
            assert_eq!(p[..k], minus_one[..], "k = {k}");
        }
    }

    #[test]
    fn window_sizes_are_gmps() {
        assert_eq!((win_size(1), win_size(7), win_size(8), win_size(25), win_size(26)), (1, 1, 2, 2, 3));
        assert_eq!((win_size(28161), win_size(28162), win_size(u64::MAX)), (9, 10, 10));
    }
}
