//! Positive real roots of a square-free integer polynomial by Descartes' rule of signs on a bisection
//! tree (Vincent–Collins–Akritas; [CA76], [RZ04]; CUMODP's `desBound`, FLINT's
//! `_fmpz_poly_isolate_real_roots_0_1_vca`).
//!
//! **Nodes.** With every positive root below 2^K ([`super::bounds`]), node (k, c) is the interval
//! I = (a, b) = (c·2^e, (c + 1)·2^e), e = K − k, and holds P_I(x) = p(a + (b − a)·x) up to a positive
//! power of two (and a sign once exact roots are divided out): its roots in (0, 1) are those of p in
//! I. Descartes' test counts the sign variations V of T_I(x) = (1 + x)^d·P_I(1/(1 + x)), the
//! reversed polynomial shifted by 1 and reversed again (the Möbius map sends (0, ∞) onto (0, 1));
//! V bounds the number of roots in I with the same parity. V = 0: no root; V = 1: one root, a leaf;
//! otherwise I is split at its midpoint m:
//!
//! - left half: P_L(x) = 2^d·P_I(x/2), coefficient i scaled by 2^(d−i);
//! - right half: P_R(x) = P_L(x + 1), one Taylor shift by 1 ([`crate::zpoly::taylor_shift`], with a
//!   shared table of (x + 1)^(2^j)).
//!
//! P_R(0) = 0 means p(m) = 0: m is reported as an exact root and divided out (x from P_R, x − 1 from
//! P_L). The children's tests are first taken in floating point with error bounds
//! ([`super::approximate`]); only an undecided test costs its exact shift. Common powers of two are
//! removed from every node polynomial. By the one- and two-circle theorems ([KM06]) the tree is
//! finite for square-free p. Subtrees run in parallel (rayon); a chain of nodes with a single active
//! child is walked iteratively.
use super::refine::{finish_leaf, trailing_zeros, Dyadic, Found, Map};
use crate::int::{limbs_for_bits, mag_bits, Int, IntRef, ZSlab};
use crate::interrupt::Current;
use crate::tuning::{ZPOLY_REAL_ROOTS_APPROX_MIN_LIMBS, ZPOLY_REAL_ROOTS_PARALLEL_MIN_WORDS};
use crate::zpoly::taylor_shift::{shift_with, Powers};
use crate::Result;
use gmp_mpfr_sys::gmp;

/// What the caller wants from the leaves: their final intervals narrowed to 2^−prec (None: isolation
/// only), or with `count_only` just their number (the leaves are then left as they are).
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    pub prec: Option<i64>,
    pub count_only: bool,
}

/// What every node of one isolation shares.
struct Tree<'a> {
    k0: i64,
    mode: Mode,
    map: Map,
    powers: &'a Powers,
    cur: Current,
}

/// The positive roots of p (square-free, p(0) ≠ 0, degree ≥ 1), ascending: points and intervals
/// strictly inside their leaves (see [`super::refine`]); `map` applied.
pub fn positive_roots(p: &[IntRef], mode: Mode, map: Map, powers: &Powers, cur: &Current) -> Result<Vec<Found>> {
    let Some(k0) = super::bounds::positive_root_bound_2exp(p) else {
        return Ok(Vec::new());
    };
    let d = p.len() - 1;
    // P_i = p_i·2^(K·i) (K ≥ 0) or p_i·2^(−K·(d−i)) (K < 0): the roots of P in (0, 1).
    let shifts: Vec<i64> = (0..=d).map(|i| if k0 >= 0 { k0 * i as i64 } else { -k0 * (d - i) as i64 }).collect();
    let mut q = scaled(p, |i| shifts[i], true)?;
    let tree = Tree { k0, mode, map, powers, cur: cur.clone() };
    let mut top = Vec::new();
    // A root at 2^K itself: P(1) = 0.
    if sum(&q).is_zero() {
        q = divide_by_x_minus_1(&q)?;
        let t = Dyadic::new(false, vec![1], k0);
        top.push(if map == Map::Sqrt { Found::sqrt_of(t) } else { Found::Point(t) });
    }
    let mut out = if q.len() >= 2 {
        let v = test(&tree, &q)?;
        node(&tree, q, v, 0, Vec::new())?
    } else {
        Vec::new()
    };
    out.extend(top);
    Ok(out)
}

/// The roots in node (k, c) of polynomial P with test count v, ascending.
fn node(tree: &Tree, mut q: ZSlab, mut v: usize, mut k: u64, mut c: Vec<u64>) -> Result<Vec<Found>> {
    let mut before: Vec<Found> = Vec::new();
    let mut after: Vec<Found> = Vec::new(); // reversed
    loop {
        tree.cur.check()?;
        if v == 0 {
            break;
        }
        let e = tree.k0 - k as i64;
        if v == 1 {
            before.push(leaf(tree, &q, &c, e)?);
            break;
        }
        let (l, r, exact) = children(tree, &q)?;
        let lc: Vec<u64> = shl1(&c, 0);
        let rc: Vec<u64> = shl1(&c, 1);
        let mid = exact.then(|| {
            // m = (2c + 1)·2^(e−1).
            let m = Dyadic::new(false, rc.clone(), e - 1);
            match tree.map {
                Map::Identity => Found::Point(m),
                Map::Sqrt => Found::sqrt_of(m),
            }
        });
        let big = (l.len() * l.stride()) as u64 >= ZPOLY_REAL_ROOTS_PARALLEL_MIN_WORDS;
        let (vl, vr) = if big { rayon::join(|| test(tree, &l), || test(tree, &r)) } else { (test(tree, &l), test(tree, &r)) };
        let (vl, vr) = (vl?, vr?);
        k += 1;
        // Children with fewer than two variations are finished here.
        let settle = |p: ZSlab, vp: usize, cc: &[u64]| -> Result<(Option<ZSlab>, Option<Found>)> {
            Ok(match vp {
                0 => (None, None),
                1 => (None, Some(leaf(tree, &p, cc, e - 1)?)),
                _ => (Some(p), None),
            })
        };
        let (l, lf) = settle(l, vl, &lc)?;
        let (r, rf) = settle(r, vr, &rc)?;
        match (l, r) {
            (None, None) => {
                before.extend(lf);
                before.extend(mid);
                before.extend(rf);
                break;
            }
            (Some(l), None) => {
                after.extend(rf);
                after.extend(mid);
                (q, v, c) = (l, vl, lc);
            }
            (None, Some(r)) => {
                before.extend(lf);
                before.extend(mid);
                (q, v, c) = (r, vr, rc);
            }
            (Some(l), Some(r)) => {
                let (left, right) = if big {
                    rayon::join(|| node(tree, l, vl, k, lc), || node(tree, r, vr, k, rc))
                } else {
                    (node(tree, l, vl, k, lc), node(tree, r, vr, k, rc))
                };
                before.extend(left?);
                before.extend(mid);
                before.extend(right?);
                break;
            }
        }
    }
    after.reverse();
    before.extend(after);
    Ok(before)
}

/// The finished leaf of node polynomial P of (c·2^e, (c + 1)·2^e) (see [`finish_leaf`]), or a
/// stand-in when only counting.
fn leaf(tree: &Tree, q: &ZSlab, c: &[u64], e: i64) -> Result<Found> {
    if tree.mode.count_only {
        return Ok(Found::Interval(Dyadic::new(false, c.to_vec(), e), Dyadic::new(false, shl1(c, 1), e - 1)));
    }
    finish_leaf(q, c, e, tree.mode.prec, tree.map, &tree.cur)
}

/// Descartes' test of P: the sign variations of (1 + x)^d·P(1/(1 + x)), i.e. of the shift by 1 of P
/// reversed; in floating point first when the coefficients are wide enough for that to pay.
fn test(tree: &Tree, q: &ZSlab) -> Result<usize> {
    if q.stride() >= ZPOLY_REAL_ROOTS_APPROX_MIN_LIMBS {
        if let Some(v) = super::approximate::test_variations(q, &tree.cur)? {
            return Ok(v);
        }
    }
    let mut qv = q.views();
    qv.reverse();
    let t = shift_with(&qv, IntRef::new(false, &[1]), Some(tree.powers), &tree.cur)?;
    Ok(variations(&t))
}

/// (P_L, P_R, whether the midpoint is a root), see the module comment.
fn children(tree: &Tree, q: &ZSlab) -> Result<(ZSlab, ZSlab, bool)> {
    let d = q.len() as i64 - 1;
    let l = scaled(&q.views(), |i| d - i as i64, true)?;
    let r = shift_with(&l.views(), IntRef::new(false, &[1]), Some(tree.powers), &tree.cur)?;
    if r.get(0).is_zero() {
        let r = drop_end(&r, true)?;
        let l = divide_by_x_minus_1(&l)?;
        return Ok((strip(&l)?, strip(&r)?, true));
    }
    Ok((l, strip(&r)?, false))
}

/// Σ P_i = P(1), exactly.
fn sum(q: &ZSlab) -> Int {
    (0..q.len()).fold(Int::default(), |acc, i| acc.add(q.get(i)))
}

/// P/(x − 1) for P(1) = 0 (synthetic division from the top: Q_(d−1) = P_d, Q_(i−1) = P_i + Q_i).
fn divide_by_x_minus_1(q: &ZSlab) -> Result<ZSlab> {
    let d = q.len() - 1;
    let mut out = ZSlab::zeros(d, q.stride() + 1)?;
    let mut acc = Int::default();
    for i in (1..=d).rev() {
        acc = acc.add(q.get(i));
        out.set(i - 1, acc.neg, &acc.mag);
    }
    debug_assert!(acc.add(q.get(0)).is_zero(), "P(1) ≠ 0");
    Ok(out)
}

/// P divided by the largest power of two common to its coefficients.
fn strip(q: &ZSlab) -> Result<ZSlab> {
    scaled(&q.views(), |_| 0, true)
}

/// The sign variations of the coefficients (zeros skipped).
pub fn variations(q: &ZSlab) -> usize {
    let mut last: Option<bool> = None;
    let mut v = 0;
    for i in 0..q.len() {
        let x = q.get(i);
        if x.is_zero() {
            continue;
        }
        if last.is_some_and(|s| s != x.neg) {
            v += 1;
        }
        last = Some(x.neg);
    }
    v
}

/// Coefficient i multiplied by 2^shift(i) (shift ≥ 0), then, when `strip`, divided by the largest
/// power of two common to all.
fn scaled(p: &[IntRef], shift: impl Fn(usize) -> i64, strip: bool) -> Result<ZSlab> {
    let mut v = u64::MAX;
    let mut top = 0u64;
    for (i, x) in p.iter().enumerate() {
        if x.is_zero() {
            continue;
        }
        let s = shift(i) as u64;
        v = v.min(trailing_zeros(x.mag) + s);
        top = top.max(mag_bits(x.mag) + s);
    }
    if v == u64::MAX {
        return ZSlab::zeros(p.len(), 1);
    }
    let v = if strip { v } else { 0 };
    let mut out = ZSlab::zeros(p.len(), limbs_for_bits(top - v))?;
    for (i, x) in p.iter().enumerate() {
        if x.is_zero() {
            continue;
        }
        let s = shift(i) - v as i64;
        let (row, neg) = out.row_mut(i);
        write_shifted(row, x.mag, s);
        *neg = x.neg;
    }
    Ok(out)
}

/// row ← mag·2^s (s may be negative when the low s bits of mag are zero); row zeroed, wide enough.
fn write_shifted(row: &mut [u64], mag: &[u64], s: i64) {
    if s >= 0 {
        let (limbs, bits) = ((s / 64) as usize, (s % 64) as u32);
        let n = mag.len();
        if bits == 0 {
            row[limbs..limbs + n].copy_from_slice(mag);
        } else {
            // SAFETY: row has room for n (+1 when nonzero) limbs from `limbs`; no overlap.
            let hi = unsafe { gmp::mpn_lshift(row[limbs..].as_mut_ptr(), mag.as_ptr(), n as _, bits) };
            if hi != 0 {
                row[limbs + n] = hi;
            }
        }
    } else {
        let m = super::refine::shr(mag, (-s) as u64);
        row[..m.len()].copy_from_slice(&m);
    }
}

/// p without its first (`low`) or last coefficient.
fn drop_end(p: &ZSlab, low: bool) -> Result<ZSlab> {
    let n = p.len();
    let mut out = ZSlab::zeros(n - 1, p.stride())?;
    for i in 0..n - 1 {
        let v = p.get(if low { i + 1 } else { i });
        out.set(i, v.neg, v.mag);
    }
    Ok(out)
}

/// 2c + bit.
fn shl1(c: &[u64], bit: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(c.len() + 1);
    let mut carry = bit;
    for &l in c {
        out.push((l << 1) | carry);
        carry = l >> 63;
    }
    if carry != 0 {
        out.push(carry);
    }
    out
}
