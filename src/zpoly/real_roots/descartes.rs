//! Positive real roots of a square-free integer polynomial by Descartes' rule of signs on a bisection
//! tree (Vincent–Collins–Akritas; [CA76], [RZ04]; CUMODP's `desBound`).
//!
//! **Nodes.** With every positive root below 2^K ([`super::bounds`]), node (k, c) is the interval
//! I = (a, b) = (c·2^e, (c + 1)·2^e), e = K − k, and holds the polynomial
//! q_I(x) = (1 + x)^d·p((a + b·x)/(1 + x)) up to a positive power of two (and a sign once exact roots
//! are divided out): the Möbius map sends (0, ∞) onto I, so the roots of p in I are the positive
//! roots of q_I and Var(q_I), the sign variations of its coefficients, bounds their number with the
//! same parity (Descartes). Var = 0: no root; Var = 1: one root, a leaf; otherwise split I at its
//! midpoint m (x = 1):
//!
//! - right half (m, b): q_R(z) = q_I(1 + 2z), a Taylor shift by 1 then z^i scaled by 2^i;
//! - left half (a, m): q_L(z) = Σ q_i·z^i·(z + 2)^(d−i), the reversed polynomial shifted by 1,
//!   scaled by 2^i and reversed again (coefficient i gets 2^(d−i)).
//!
//! Both children cost one Taylor shift ([`crate::zpoly::taylor_shift`], with a shared table of
//! (x + 1)^(2^j)) and their tests are free. q_I(1) = 0 means p(m) = 0: m is reported as an exact
//! root and divided out (q_R loses its zero constant coefficient, q_L its zero leading one). Common
//! powers of two are removed from every node polynomial. By the one- and two-circle theorems
//! ([KM06]) the tree is finite for square-free p. Subtrees run in parallel (rayon); a chain of nodes
//! with a single active child is walked iteratively.
use super::refine::{finish_leaf, trailing_zeros, Dyadic, Found, Map};
use crate::int::{limbs_for_bits, mag_bits, IntRef, ZSlab};
use crate::interrupt::Current;
use crate::tuning::ZPOLY_REAL_ROOTS_PARALLEL_MIN_WORDS;
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
    // t_i = p_i·2^(K·i) (K ≥ 0) or p_i·2^(−K·(d−i)) (K < 0): the roots of t in (0, 1).
    let shifts: Vec<i64> = (0..=d).map(|i| if k0 >= 0 { k0 * i as i64 } else { -k0 * (d - i) as i64 }).collect();
    let t = scaled(p, |i| shifts[i], false)?;
    // q = (1 + x)^d·t(1/(1 + x)) reversed... q_i = coefficient of x^i in Σ t_i x^i (1 + x)^(d−i).
    let tv = t.views();
    let rev: Vec<IntRef> = tv.iter().rev().copied().collect();
    let s = shift_with(&rev, IntRef::new(false, &[1]), Some(powers), cur)?;
    let mut q = reverse(&s)?;
    let tree = Tree { k0, mode, map, powers, cur: cur.clone() };
    let mut top = Vec::new();
    // A root at 2^K itself makes q's leading coefficient zero.
    if q.get(q.len() - 1).is_zero() {
        q = drop_end(&q, false)?;
        let t = Dyadic::new(false, vec![1], k0);
        top.push(if map == Map::Sqrt { Found::sqrt_of(t) } else { Found::Point(t) });
    }
    let mut out = if q.len() >= 2 { node(&tree, q, 0, Vec::new())? } else { Vec::new() };
    out.extend(top);
    Ok(out)
}

/// The roots in node (k, c) of polynomial q, ascending.
fn node(tree: &Tree, mut q: ZSlab, mut k: u64, mut c: Vec<u64>) -> Result<Vec<Found>> {
    let mut before: Vec<Found> = Vec::new();
    let mut after: Vec<Found> = Vec::new(); // reversed
    loop {
        tree.cur.check()?;
        let v = variations(&q);
        if v == 0 {
            break;
        }
        let e = tree.k0 - k as i64;
        if v == 1 {
            before.push(if tree.mode.count_only {
                Found::Interval(Dyadic::new(false, c.clone(), e), Dyadic::new(false, shl1(&c, 1), e - 1))
            } else {
                finish_leaf(&q, &c, e, tree.mode.prec, tree.map, &tree.cur)?
            });
            break;
        }
        let (l, r, exact) = children(tree, &q)?;
        let lc: Vec<u64> = shl1(&c, 0);
        let rc: Vec<u64> = shl1(&c, 1);
        let mid = if exact {
            // m = (2c + 1)·2^(e−1).
            let m = Dyadic::new(false, rc.clone(), e - 1);
            Some(match tree.map {
                Map::Identity => Found::Point(m),
                Map::Sqrt => Found::sqrt_of(m),
            })
        } else {
            None
        };
        let (vl, vr) = (variations(&l), variations(&r));
        k += 1;
        match (vl > 0, vr > 0) {
            (false, false) => {
                before.extend(mid);
                break;
            }
            (true, false) => {
                after.extend(mid);
                q = l;
                c = lc;
            }
            (false, true) => {
                before.extend(mid);
                q = r;
                c = rc;
            }
            (true, true) => {
                let big = (l.len() * l.stride()) as u64 >= ZPOLY_REAL_ROOTS_PARALLEL_MIN_WORDS;
                let (left, right) = if big {
                    rayon::join(|| node(tree, l, k, lc), || node(tree, r, k, rc))
                } else {
                    (node(tree, l, k, lc), node(tree, r, k, rc))
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

/// (q_L, q_R, whether the midpoint is a root), see the module comment.
fn children(tree: &Tree, q: &ZSlab) -> Result<(ZSlab, ZSlab, bool)> {
    let one = IntRef::new(false, &[1]);
    let qv = q.views();
    let rev: Vec<IntRef> = qv.iter().rev().copied().collect();
    let big = (q.len() * q.stride()) as u64 >= ZPOLY_REAL_ROOTS_PARALLEL_MIN_WORDS;
    let (sr, sl) = if big {
        rayon::join(|| shift_with(&qv, one, Some(tree.powers), &tree.cur), || shift_with(&rev, one, Some(tree.powers), &tree.cur))
    } else {
        (shift_with(&qv, one, Some(tree.powers), &tree.cur), shift_with(&rev, one, Some(tree.powers), &tree.cur))
    };
    let (sr, sl) = (sr?, sl?);
    let exact = sr.get(0).is_zero();
    // q_R: coefficient i ← sr_i·2^i; q_L: coefficient d − i ← sl_i·2^i.
    let mut r = scaled(&sr.views(), |i| i as i64, true)?;
    let mut l = reverse(&scaled(&sl.views(), |i| i as i64, true)?)?;
    if exact {
        r = drop_end(&r, true)?;
        l = drop_end(&l, false)?;
    }
    Ok((l, r, exact))
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
        let s = shift(i) as i64 - v as i64;
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

/// The coefficients in reverse order.
fn reverse(p: &ZSlab) -> Result<ZSlab> {
    let n = p.len();
    let mut out = ZSlab::zeros(n, p.stride())?;
    for i in 0..n {
        let v = p.get(n - 1 - i);
        out.set(i, v.neg, v.mag);
    }
    Ok(out)
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
