//! Multipoint evaluation f(u_0), …, f(u_(n−1)) in Z/pZ down a subproduct tree ([`Tree`]), by the
//! transposed remainder tree ([BLS] §3, Bernstein's scaled remainders): instead of f mod M at
//! every node, the tree carries the first deg M coefficients in 1/x of the Laurent series f/M,
//!
//!   G_M\[k\] = coefficient of x^(−k−1) in f/M,  k < deg M,
//!
//! which depend only on f mod M (f/M = quotient + (f mod M)/M), and for P = A·B
//! f/A = (f/P)·B gives G_A\[k\] = Σ_(j ≤ dB) B_j·G_P\[k + j\], k < dA (a middle product). At a leaf
//! x − u, G\[0\] = f(u).
//!
//! **Layout.** Each node keeps rg = G reversed (rg\[t\] = G\[d − 1 − t\]); then the child's rg is a
//! slice of one product with the sibling: rg_A\[t\] = rg_P\[t\] + (b·rg_P)\[dB + t\], t < dA (B = x^dB + b),
//! and rg_B likewise with a. b·rg_P has d + dB − 1 coefficients and the slice dB .. d − 1 is untouched
//! by the wrap-around modulo x^N + 1 for N = 2^i ≥ d: one forward transform of rg_P and two
//! products with the kept spectra of a and b a node, three transforms of size 2^i ([`Tree`]).
//! Levels up to H run by schoolbook, one subtree of 2^H points per task.
//!
//! **Start.** r = f mod m (by the root's kept inverse when flen ≤ 2n, [`super::poly_divrem`]), then
//! G_root = rev_(n−1)(r)·(1/rev_n(m)) mod x^n (f/m = x^(−n)·f(x)/rev_n(m)(1/x)).
//!
//! Cost: three transforms of size 2^i per node of level i > H, plus the start; the tree's own cost
//! is [`Tree::new`]'s.
use super::ntt_field::Acc;
use super::poly_divrem::{divrem_checked, newton};
use super::prime::check_reduced;
use super::reduce::Modulus;
use super::tree::{check_points, Tree};
use crate::tuning::{
    NMOD_NTT_FIELD_PARALLEL_MIN_N, NMOD_POLY_DIVREM_NEWTON_MIN_LEN, NMOD_POLY_EVALUATE_HORNER_MAX_WORK, NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN,
};
use crate::Result;
use rayon::prelude::*;

/// values\[i\] = f(u_i) for the tree's n points; f of any length (entries < p, else
/// `InvalidArgument`).
pub fn evaluate(tree: &Tree, f: &[u64]) -> Result<Vec<u64>> {
    check_reduced(f, tree.p(), "f")?;
    evaluate_checked(tree, f)
}

/// f(u_i) at points that may repeat, through a tree built for the call, or by Horner's rule when
/// flen·n ≤ [`NMOD_POLY_EVALUATE_HORNER_MAX_WORK`]. n may be 0.
pub fn evaluate_vec(f: &[u64], points: &[u64], p: u64) -> Result<Vec<u64>> {
    if points.is_empty() {
        super::prime::check_modulus(p)?;
        check_reduced(f, p, "f")?;
        return Ok(Vec::new());
    }
    check_points(points, p)?;
    check_reduced(f, p, "f")?;
    if (f.len() as u128) * (points.len() as u128) <= NMOD_POLY_EVALUATE_HORNER_MAX_WORK as u128 {
        let m = Modulus::new(p);
        return Ok(points.iter().map(|&u| horner(f, u, &m)).collect());
    }
    let tree = Tree::build(points, p, None)?;
    evaluate_checked(&tree, f)
}

/// f(x) by Horner's rule.
pub fn horner(f: &[u64], x: u64, m: &Modulus) -> u64 {
    let xs = m.shoup(x);
    f.iter().rev().fold(0, |acc, &c| m.add(m.mul_shoup(acc, x, xs), c))
}

/// [`evaluate`] for a reduced f.
pub(crate) fn evaluate_checked(tree: &Tree, f: &[u64]) -> Result<Vec<u64>> {
    let n = tree.len();
    let field = &tree.field;
    let m = field.m;
    let mut r = reduce_by_root(tree, f)?;
    crate::interrupt::checkpoint()?;
    // rg_root = rev(G_root), G_root = rev(r)·root_inv mod x^n.
    r.reverse();
    let mut g = vec![0u64; n];
    field.mullow(&r, &tree.root_inv, &mut g, NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN)?;
    g.reverse();
    let l = tree.depth() - 1;
    let cur = crate::interrupt::current();
    for i in (tree.h + 1..=l).rev() {
        crate::interrupt::checkpoint()?;
        let w = 1usize << i;
        g.par_chunks_mut(w).enumerate().with_min_len((1 << 14 >> i).max(1)).try_for_each_init(
            || (field.spectrum(w), field.spectrum(w), Vec::new(), Vec::new()),
            |(s, t, xa, xb), (j, rg)| -> Result<()> {
                cur.check()?;
                let (s, t) = (s.as_mut().map_err(|e| e.clone())?, t.as_mut().map_err(|e| e.clone())?);
                let d = rg.len();
                let da = (w / 2).min(d);
                let db = d - da;
                if db == 0 {
                    return Ok(());
                }
                field.fwd(rg, w, s)?;
                t.copy_from_slice(s);
                // rg_A = rg_P[..dA] + (b·rg_P)[dB..d], rg_B = rg_P[..dB] + (a·rg_P)[dA..d].
                xa.resize(da, 0);
                xb.resize(db, 0);
                let (sb, sa) = (tree.spectrum(i - 1, 2 * j + 1), tree.spectrum(i - 1, 2 * j));
                let mut left = || {
                    field.mul(s, sb, w);
                    field.inv(s, w, db, xa)
                };
                let mut right = || {
                    field.mul(t, sa, w);
                    field.inv(t, w, da, xb)
                };
                let (l, r) = if w >= NMOD_NTT_FIELD_PARALLEL_MIN_N { rayon::join(left, right) } else { (left(), right()) };
                l?;
                r?;
                for (v, &x) in xb.iter_mut().zip(rg.iter()) {
                    *v = m.add(*v, x);
                }
                for (v, &x) in rg[..da].iter_mut().zip(xa.iter()) {
                    *v = m.add(*v, x);
                }
                rg[da..].copy_from_slice(xb);
                Ok(())
            },
        )?;
    }
    // Levels min(H, L) .. 1 by schoolbook, one subtree of 2^H points per task.
    let top = tree.h.min(l);
    let ws = 1usize << top;
    g.par_chunks_mut(ws).enumerate().with_min_len((1 << 12 >> top).max(1)).try_for_each(|(s, sub)| -> Result<()> {
        cur.check()?;
        let mut tmp = Vec::with_capacity(2 * ws);
        for i in (1..=top).rev() {
            let w = 1usize << i;
            let base = s * ws / w; // index of this subtree's first node at level i
            for (jj, rg) in sub.chunks_mut(w).enumerate() {
                let j = base + jj;
                let d = rg.len();
                let da = (w / 2).min(d);
                let db = d - da;
                if db == 0 {
                    continue;
                }
                let (a, b) = (tree.node(i - 1, 2 * j), tree.node(i - 1, 2 * j + 1));
                step_plain(rg, a, b, &m, &mut tmp);
            }
        }
        Ok(())
    })?;
    Ok(g)
}

/// r = f mod m (n coefficients; f padded with zeros when flen ≤ n), by the root's kept inverse
/// when n < flen ≤ 2n, else by division.
pub(crate) fn reduce_by_root(tree: &Tree, f: &[u64]) -> Result<Vec<u64>> {
    let n = tree.len();
    Ok(if f.len() > n {
        let q = f.len() - n;
        let root = tree.root_monic();
        let (_, r) = if q <= n && q >= NMOD_POLY_DIVREM_NEWTON_MIN_LEN {
            newton(&tree.field, f, &root, &tree.root_inv)?
        } else {
            divrem_checked(f, &root, tree.p(), None)?
        };
        r
    } else {
        let mut r = f.to_vec();
        r.resize(n, 0);
        r
    })
}

/// rg_A, rg_B from rg_P by schoolbook (a: dA, b: dB ≥ 1 coefficients, rg of dA + dB): only the
/// slices of the two products that are kept, dA·dB products each.
fn step_plain(rg: &mut [u64], a: &[u64], b: &[u64], m: &Modulus, tmp: &mut Vec<u64>) {
    let (da, db) = (a.len(), b.len());
    tmp.clear();
    tmp.extend_from_slice(rg);
    // rg_A[t] = rg[t] + Σ_(j<dB) b_j·rg[dB + t − j]; rg_B[t] = rg[t] + Σ_(j<dA) a_j·rg[dA + t − j].
    for t in 0..da {
        let mut acc = Acc::default();
        for (j, &bj) in b.iter().enumerate() {
            acc.add(bj, tmp[db + t - j]);
        }
        rg[t] = m.add(tmp[t], acc.reduce(m));
    }
    for t in 0..db {
        let mut acc = Acc::default();
        for (j, &aj) in a.iter().enumerate() {
            acc.add(aj, tmp[da + t - j]);
        }
        rg[da + t] = m.add(tmp[t], acc.reduce(m));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::nmod::poly_mul::tests::rand_vec;
    use crate::nmod::prime::fourier_primes;

    /// Horner with `%`, the oracle (independent of the Shoup arithmetic of [`horner`]).
    pub(crate) fn horner_oracle(f: &[u64], x: u64, p: u64) -> u64 {
        f.iter().rev().fold(0u128, |acc, &c| (acc * x as u128 + c as u128) % p as u128) as u64
    }

    /// Distinct random points (n < p), including 0 and p − 1 when n ≥ 2.
    pub(crate) fn points(n: usize, p: u64, seed: u64) -> Vec<u64> {
        let mut set = std::collections::HashSet::new();
        let mut out = Vec::with_capacity(n);
        if n >= 2 {
            out.extend([0, p - 1]);
            set.extend([0, p - 1]);
        }
        let mut s = seed;
        while out.len() < n {
            let u = rand_vec(1, p, s)[0];
            s += 1;
            if set.insert(u) {
                out.push(u);
            }
        }
        out
    }

    /// Against Horner for the listed primes, n across the plain/NTT levels and not powers of two,
    /// f shorter than, as long as, and much longer than n (the division by the root), f of all
    /// p − 1, repeated points through `evaluate_vec`.
    #[test]
    fn evaluation_matches_horner() {
        let primes =
            [3u64, 257, 65537, (1 << 31) - 1, (1 << 61) - 1, (1 << 63) - 25, fourier_primes(62, 30, 1)[0], fourier_primes(50, 30, 1)[0]];
        for &p in &primes {
            for &n in &[1usize, 2, 3, 33, 64, 100, 255, 256, 257, 1000] {
                if n as u64 > p {
                    continue;
                }
                let pts = points(n, p, n as u64 + 17);
                let tree = Tree::new(&pts, p).unwrap();
                for &fl in &[0usize, 1, n / 2 + 1, n, n + 1, 2 * n + 3, 5 * n + 100] {
                    for kind in 0..2 {
                        let f = if kind == 0 { rand_vec(fl, p, fl as u64 * 3 + 1) } else { vec![p - 1; fl] };
                        let want: Vec<u64> = pts.iter().map(|&u| horner_oracle(&f, u, p)).collect();
                        assert_eq!(evaluate(&tree, &f).unwrap(), want, "p = {p}, n = {n}, flen = {fl}, kind {kind}");
                    }
                }
            }
            // Repeated points: no tree needed.
            let pts = [5 % p, 5 % p, 1, 5 % p];
            let f = rand_vec(300, p, 9);
            let want: Vec<u64> = pts.iter().map(|&u| horner_oracle(&f, u, p)).collect();
            assert_eq!(evaluate_vec(&f, &pts, p).unwrap(), want);
            let pts: Vec<u64> = (0..600).map(|i| (i / 3) % p).collect();
            let want: Vec<u64> = pts.iter().map(|&u| horner_oracle(&f, u, p)).collect();
            assert_eq!(evaluate_vec(&f, &pts, p).unwrap(), want, "600 points in triples, p = {p}");
        }
    }

    /// The worked example: p = 257, P = 92x^7 + 89x^6 + 24x^5 + 82x^4 + 170x^3 + 179x^2 + 161x + 250
    /// at (63, 100, 148, 113, 109, 26, 39, 206), and its tree.
    #[test]
    fn worked_example_p257() {
        let p = 257;
        let f = [250, 161, 179, 170, 82, 24, 89, 92];
        let u = [63, 100, 148, 113, 109, 26, 39, 206];
        let tree = Tree::new(&u, p).unwrap();
        assert_eq!(tree.node(1, 0), &[132, 94]);
        assert_eq!(tree.node(2, 1), &[212, 34, 253, 134]);
        assert_eq!(tree.root(), &[220, 135, 203, 146, 235, 80, 9, 224]);
        assert_eq!(evaluate(&tree, &f).unwrap(), vec![75, 101, 49, 74, 55, 159, 26, 169]);
        assert_eq!(evaluate_vec(&f, &u, p).unwrap(), vec![75, 101, 49, 74, 55, 159, 26, 169]);
    }

    #[test]
    fn bad_inputs_are_rejected() {
        let tree = Tree::new(&[1, 2, 3], 7).unwrap();
        assert!(evaluate(&tree, &[1, 7]).is_err(), "unreduced f");
        assert!(evaluate_vec(&[1], &[7], 7).is_err(), "unreduced point");
        assert!(evaluate_vec(&[1], &[1], 8).is_err(), "composite p");
        assert_eq!(evaluate_vec(&[1, 2], &[], 7).unwrap(), Vec::<u64>::new());
    }
}
