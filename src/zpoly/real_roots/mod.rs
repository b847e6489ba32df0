//! Real roots of integer polynomials: isolation, refinement, multiplicities.
//!
//! [`real_roots`]`(f, prec)`: the distinct real roots of a nonzero f ∈ Z\[x\], ascending, each as a
//! dyadic point (the root itself) or an open interval with dyadic endpoints that holds it and no
//! other root; the closed intervals are pairwise disjoint, no endpoint is a root, and with prec ≥ 0
//! every interval has width ≤ 2^−prec. With each root its multiplicity in f.
//!
//! Steps, one file each:
//! 1. x^z is split off (0 is a root of multiplicity z);
//! 2. [`squarefree`]: s = the square-free part of the rest (s(0) ≠ 0);
//! 3. s(x) = h(x²) is isolated through h on (0, ∞) and mapped by ±√ (even polynomials such as
//!    Chebyshev's of even degree: half the degree); otherwise the positive roots of s(x) and of
//!    s(−x);
//! 4. [`bounds`]: all positive roots below 2^K; [`descartes`]: the bisection tree with Descartes'
//!    rule, its shifts by [`crate::zpoly::taylor_shift`], subtrees in parallel;
//! 5. [`refine`]: each isolating interval narrowed strictly inside its leaf and to 2^−prec;
//! 6. multiplicities: g_1 = gcd(f, f′), g_(k+1) = gcd(g_k, g_k′) and s_k = sqf(g_k); a root of s has
//!    multiplicity 1 + #{k : it is a root of s_k}, decided by the sign of s_k at the interval's ends
//!    (s_k is square-free with at most this one root in the interval) or its value at the point.
pub mod approximate;
pub mod bounds;
pub mod descartes;
pub mod refine;
pub mod squarefree;

use crate::int::{cmp_mag, Int, IntRef, ZSlab};
use crate::interrupt;
use crate::zpoly::taylor_shift::Powers;
use crate::{invalid, Result};
use refine::{sqrt_floor, Dyadic, Found, Map};
use std::cmp::Ordering;

/// One real root: lo = hi (the root) or lo < root < hi, and its multiplicity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RealRoot {
    pub lo: Dyadic,
    pub hi: Dyadic,
    pub mult: usize,
}

/// The real roots of f (see the module comment); prec < 0: isolation only. `InvalidArgument` for
/// the zero polynomial; a nonzero constant has none.
pub fn real_roots(f: &[IntRef], prec: i64) -> Result<Vec<RealRoot>> {
    let prec = (prec >= 0).then_some(prec);
    let f = trimmed(f)?;
    if f.len() <= 1 {
        return Ok(Vec::new());
    }
    let z = f.iter().position(|v| !v.is_zero()).unwrap_or(0);
    let f0 = &f[z..];
    let mut found: Vec<(Found, usize)> = Vec::new();
    if f0.len() >= 2 {
        let (s, g) = squarefree::squarefree_split(f0)?;
        let roots = isolate(&s.views(), prec, false)?;
        let chain = sqf_chain(g)?;
        for r in roots {
            let mult = 1 + multiplicity_steps(&r, &chain)?;
            found.push((r, mult));
        }
    }
    if z > 0 {
        let at = found.iter().position(|(r, _)| !negative(r)).unwrap_or(found.len());
        found.insert(at, (Found::Point(Dyadic::new(false, Vec::new(), 0)), z));
    }
    Ok(found
        .into_iter()
        .map(|(r, mult)| match r {
            Found::Point(x) => RealRoot { lo: x.clone(), hi: x, mult },
            Found::Interval(lo, hi) => RealRoot { lo, hi, mult },
            Found::SqrtOf(_) => unreachable!("resolved in isolate"),
        })
        .collect())
}

/// The number of distinct real roots of f (`InvalidArgument` for the zero polynomial).
pub fn count_real_roots(f: &[IntRef]) -> Result<usize> {
    let f = trimmed(f)?;
    if f.len() <= 1 {
        return Ok(0);
    }
    let z = f.iter().position(|v| !v.is_zero()).unwrap_or(0);
    let f0 = &f[z..];
    let mut n = usize::from(z > 0);
    if f0.len() >= 2 {
        let (s, _) = squarefree::squarefree_split(f0)?;
        n += isolate(&s.views(), None, true)?.len();
    }
    Ok(n)
}

/// f without high zero coefficients; `InvalidArgument` when nothing is left.
fn trimmed<'a>(f: &'a [IntRef<'a>]) -> Result<&'a [IntRef<'a>]> {
    let n = f.iter().rposition(|v| !v.is_zero()).map_or(0, |i| i + 1);
    if n == 0 {
        return invalid!("the zero polynomial (every real number is a root)");
    }
    Ok(&f[..n])
}

/// Whether every point of r is negative.
fn negative(r: &Found) -> bool {
    match r {
        Found::Point(x) => x.neg,
        Found::Interval(_, hi) => hi.neg || hi.mag.is_empty(),
        Found::SqrtOf(_) => false,
    }
}

/// The roots of s (square-free, s(0) ≠ 0, degree ≥ 1), ascending. `count_only`: the leaves are not
/// narrowed (their intervals are then the leaves' own).
fn isolate(s: &[IntRef], prec: Option<i64>, count_only: bool) -> Result<Vec<Found>> {
    let powers = Powers::new(IntRef::new(false, &[1]), s.len())?;
    let cur = interrupt::current();
    let d = s.len() - 1;
    let even = d >= 2 && s.iter().skip(1).step_by(2).all(|v| v.is_zero());
    let mode = descartes::Mode { prec, count_only };
    if even {
        let h: Vec<IntRef> = s.iter().step_by(2).copied().collect();
        let mut pos = descartes::positive_roots(&h, mode, Map::Sqrt, &powers, &cur)?;
        if !count_only {
            resolve_square_roots(&mut pos, prec)?;
        }
        let mut all: Vec<Found> = pos.iter().rev().map(Found::mirror).collect();
        all.extend(pos);
        return Ok(all);
    }
    let mirrored: Vec<IntRef> =
        s.iter().enumerate().map(|(i, v)| if i % 2 == 1 && !v.is_zero() { IntRef { neg: !v.neg, mag: v.mag } } else { *v }).collect();
    let (neg, pos) = rayon::join(
        || descartes::positive_roots(&mirrored, mode, Map::Identity, &powers, &cur),
        || descartes::positive_roots(s, mode, Map::Identity, &powers, &cur),
    );
    let mut all: Vec<Found> = neg?.iter().rev().map(Found::mirror).collect();
    all.extend(pos?);
    Ok(all)
}

/// Replaces every pending √t (an exact root t of h that is not a dyadic square) by [S, S + 1]·2^−ρ,
/// S = ⌊√t·2^ρ⌋, for the first ρ ≥ prec that keeps it strictly between its neighbours (whose
/// intervals hold the only other roots nearby, so the result isolates √t).
fn resolve_square_roots(pos: &mut [Found], prec: Option<i64>) -> Result<()> {
    for i in 0..pos.len() {
        let Found::SqrtOf(t) = &pos[i] else { continue };
        let t = t.clone();
        let mut rho = prec.unwrap_or(0).max((-t.exp + 1).div_euclid(2)).max(1);
        loop {
            interrupt::checkpoint()?;
            let (s, s1) = grid_sqrt(&t, rho);
            let lo = Dyadic::new(false, s, -rho);
            let hi = Dyadic::new(false, s1, -rho);
            let left_ok = match i.checked_sub(1).map(|j| &pos[j]) {
                None => true,
                Some(Found::Point(x)) | Some(Found::Interval(_, x)) => cmp_dyadic(x, &lo) == Ordering::Less,
                Some(Found::SqrtOf(_)) => unreachable!("resolved left to right"),
            };
            let right_ok = match pos.get(i + 1) {
                None => true,
                Some(Found::Point(x)) | Some(Found::Interval(x, _)) => cmp_dyadic(&hi, x) == Ordering::Less,
                Some(Found::SqrtOf(u)) => cmp_dyadic(&hi, &Dyadic::new(false, grid_sqrt(u, rho).0, -rho)) == Ordering::Less,
            };
            if left_ok && right_ok {
                pos[i] = Found::Interval(lo, hi);
                break;
            }
            rho += 16;
        }
    }
    Ok(())
}

/// (⌊√t·2^ρ⌋, that + 1), 2ρ ≥ −exp(t).
fn grid_sqrt(t: &Dyadic, rho: i64) -> (Vec<u64>, Vec<u64>) {
    let (s, _) = sqrt_floor(&Int { neg: false, mag: t.mag.clone() }.shl((t.exp + 2 * rho) as u64).mag);
    let s1 = Int { neg: false, mag: s.clone() }.add(IntRef::new(false, &[1])).mag;
    (s, s1)
}

/// Orders two dyadic numbers.
pub fn cmp_dyadic(x: &Dyadic, y: &Dyadic) -> Ordering {
    let sx = if x.mag.is_empty() {
        0
    } else if x.neg {
        -1
    } else {
        1
    };
    let sy = if y.mag.is_empty() {
        0
    } else if y.neg {
        -1
    } else {
        1
    };
    if sx != sy || sx == 0 {
        return sx.cmp(&sy);
    }
    let e = x.exp.min(y.exp);
    let a = Int { neg: false, mag: x.mag.clone() }.shl((x.exp - e) as u64);
    let b = Int { neg: false, mag: y.mag.clone() }.shl((y.exp - e) as u64);
    let c = cmp_mag(&a.mag, &b.mag);
    if sx < 0 {
        c.reverse()
    } else {
        c
    }
}

/// s_1, s_2, …: the square-free parts of g_1 = g, g_(k+1) = gcd(g_k, g_k′).
fn sqf_chain(mut g: Option<ZSlab>) -> Result<Vec<ZSlab>> {
    let mut chain = Vec::new();
    while let Some(gk) = g {
        let v = gk.views();
        let n = v.iter().rposition(|x| !x.is_zero()).map_or(0, |i| i + 1);
        if n <= 1 {
            break;
        }
        let (s, next) = squarefree::squarefree_split(&v[..n])?;
        chain.push(s);
        g = next;
    }
    Ok(chain)
}

/// #{k : the root r is a root of s_k}.
fn multiplicity_steps(r: &Found, chain: &[ZSlab]) -> Result<usize> {
    let mut n = 0;
    for s in chain {
        let v = s.views();
        let hit = match r {
            Found::Point(x) => sign_at(&v, x)? == 0,
            Found::Interval(lo, hi) => sign_at(&v, lo)? != sign_at(&v, hi)?,
            Found::SqrtOf(_) => unreachable!("resolved in isolate"),
        };
        if !hit {
            break;
        }
        n += 1;
    }
    Ok(n)
}

/// The sign of p at the dyadic x = (−1)^neg·m·2^e: of Σ p_i·x^i, times 2^(−e·d) when e < 0.
pub fn sign_at(p: &[IntRef], x: &Dyadic) -> Result<i32> {
    let d = p.len() - 1;
    let m = Int { neg: x.neg, mag: x.mag.clone() };
    if x.exp >= 0 {
        let xv = m.shl(x.exp as u64);
        let mut acc = Int::from_ref(p[d]);
        for i in (0..d).rev() {
            interrupt::checkpoint()?;
            acc = acc.mul(&xv)?.add(p[i]);
        }
        return Ok(acc.signum());
    }
    let sh = (-x.exp) as u64;
    let mut acc = Int::from_ref(p[d]);
    for i in (0..d).rev() {
        interrupt::checkpoint()?;
        acc = acc.mul(&m)?.add(Int::from_ref(p[i]).shl(sh * (d - i) as u64).view());
    }
    Ok(acc.signum())
}

#[cfg(test)]
mod tests;
