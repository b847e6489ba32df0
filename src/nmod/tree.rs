//! The subproduct tree of n points u_0, …, u_(n−1) of Z/pZ ([MCA] §10.1, [FM] Algorithm 9), for
//! any n ≥ 1: level 0 holds x − u_j, level i the products M_(i,j) = Π (x − u_t) over the points
//! t ∈ [j·2^i, min((j+1)·2^i, n)), so M_(i,j) = M_(i−1,2j)·M_(i−1,2j+1) (a lone last child is
//! copied up), and level L = ⌈log2 n⌉ holds the root m = Π (x − u_t).
//!
//! **Storage.** Every node is monic and stored without its leading 1 ([FM] Remark 13): level i is
//! one array of n words, node j's deg M_(i,j) coefficients at offset j·2^i. With A = x^(dA) + a
//! and B = x^(dB) + b the product is AB = x^(dA+dB) + x^(dA)·b + x^(dB)·a + a·b, where a·b has
//! dA + dB − 1 < 2^i coefficients: one negacyclic product at size 2^i, exact.
//!
//! Levels i ≤ H (nodes of at most 2^H coefficients: [`NMOD_TREE_PLAIN_MAX_LEN`], or
//! [`NMOD_TREE_CRT_PLAIN_MAX_LEN`] when products run modulo CRT primes) are multiplied by
//! schoolbook; above, the spectra of size 2^(i+1) of every node of level i ≥ H (the a, b of
//! their parent's products) are kept with the tree, for the products of evaluation and
//! interpolation (`rows`·2^(i+1) words a node: about 2n·rows words a level). The nodes of a level
//! are computed in parallel.
//!
//! The tree also keeps 1/rev_n(m) mod x^n (rev_n(m) = x^n·m(1/x), the reversed root), the start of
//! evaluation ([`super::evaluate`]), and, once interpolation first needs them, the weights
//! 1/m′(u_i) ([`super::interpolate`]).
use super::inv_series::inv_series_with;
use super::ntt_field::{schoolbook, NttField};
use super::prime::{check_modulus, check_reduced};
use crate::tuning::{NMOD_NTT_FIELD_PARALLEL_MIN_N, NMOD_TREE_CRT_PLAIN_MAX_LEN, NMOD_TREE_PLAIN_MAX_LEN};
use crate::{invalid, Result};
use rayon::prelude::*;
use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

/// A subproduct tree with its spectra; immutable once built (the weights are computed once, on
/// first use, by whichever thread needs them first), so one tree serves many threads.
pub struct Tree {
    pub(crate) field: NttField,
    pub(crate) points: Vec<u64>,
    /// levels\[i\]: the nodes of level i, monic, leading 1 dropped (n words).
    pub(crate) levels: Vec<Vec<u64>>,
    /// spectra\[i\] for H ≤ i < L: node j of level i at size 2^(i+1), `rows`·2^(i+1) words at
    /// offset j·rows·2^(i+1); empty below H.
    pub(crate) spectra: Vec<Vec<u64>>,
    /// 1/rev_n(m) mod x^n.
    pub(crate) root_inv: Vec<u64>,
    pub(crate) weights: OnceLock<Vec<u64>>,
    /// A device engine's copy of the tree, made at its first use there and freed with the tree.
    pub(crate) device: Mutex<Option<Arc<dyn Any + Send + Sync>>>,
    /// H: levels up to H run by schoolbook (2^H = [`NMOD_TREE_PLAIN_MAX_LEN`] or
    /// [`NMOD_TREE_CRT_PLAIN_MAX_LEN`] by the field, unless chosen).
    pub(crate) h: usize,
}

/// log2 of [`NMOD_TREE_PLAIN_MAX_LEN`]: levels up to H multiply by schoolbook (Fourier p).
pub(crate) const H: usize = NMOD_TREE_PLAIN_MAX_LEN.trailing_zeros() as usize;
/// log2 of [`NMOD_TREE_CRT_PLAIN_MAX_LEN`]: H when products run modulo CRT primes.
const H_CRT: usize = NMOD_TREE_CRT_PLAIN_MAX_LEN.trailing_zeros() as usize;

impl Tree {
    /// The tree of n ≥ 1 distinct points (entries < p, p an odd prime < 2^63); `InvalidArgument`
    /// otherwise (naming a repeated point).
    pub fn new(points: &[u64], p: u64) -> Result<Tree> {
        check_points(points, p)?;
        check_distinct(points)?;
        Tree::build(points, p, None)
    }

    /// [`Tree::new`] with schoolbook levels up to `h` (3 ≤ h, so that transforms have at least 16
    /// words): for the benchmark that measures [`NMOD_TREE_PLAIN_MAX_LEN`].
    #[doc(hidden)]
    pub fn with_plain_levels(points: &[u64], p: u64, h: usize) -> Result<Tree> {
        check_points(points, p)?;
        check_distinct(points)?;
        Tree::build(points, p, Some(h.max(3)))
    }

    /// The tree of checked points that may repeat (evaluation needs no distinct points); schoolbook
    /// levels up to `h`, or the tuned H of the field when None.
    pub(crate) fn build(points: &[u64], p: u64, h: Option<usize>) -> Result<Tree> {
        let n = points.len();
        let l = depth(n);
        let field = NttField::new(p, field_size(n))?;
        let h = h.unwrap_or(if field.is_fourier() { H } else { H_CRT });
        let m = field.m;
        let mut levels = Vec::with_capacity(l + 1);
        levels.push(points.iter().map(|&u| m.neg(u)).collect::<Vec<u64>>());
        let mut spectra: Vec<Vec<u64>> = Vec::with_capacity(l);
        for i in 1..=l {
            crate::interrupt::checkpoint()?;
            let w = 1usize << i;
            let mut next = crate::int::try_zeroed::<u64>(n)?;
            let prev = &levels[i - 1];
            let cur = crate::interrupt::current();
            if i <= h {
                spectra.push(Vec::new());
                next.par_chunks_mut(w).enumerate().with_min_len((256 >> i).max(1)).try_for_each(|(j, out)| -> Result<()> {
                    cur.check()?;
                    let (a, b) = prev[j * w..j * w + out.len()].split_at((w / 2).min(out.len()));
                    combine_plain(a, b, out, &m);
                    Ok(())
                })?;
            } else {
                let rows = field.rows();
                let sl = rows * w; // one child's spectrum at size w
                let mut spec = crate::int::try_zeroed::<u64>(n.div_ceil(w / 2) * sl)?;
                let field = &field;
                next.par_chunks_mut(w).zip(spec.par_chunks_mut(2 * sl)).enumerate().with_min_len((1 << 14 >> i).max(1)).try_for_each_init(
                    || field.spectrum(w),
                    |tmp, (j, (out, sp))| -> Result<()> {
                        cur.check()?;
                        let tmp = tmp.as_mut().map_err(|e| e.clone())?;
                        let (a, b) = prev[j * w..j * w + out.len()].split_at((w / 2).min(out.len()));
                        let (sa, sb) = sp.split_at_mut(sl);
                        if b.is_empty() {
                            field.fwd(a, w, sa)?;
                            out.copy_from_slice(a);
                            return Ok(());
                        }
                        if w >= NMOD_NTT_FIELD_PARALLEL_MIN_N {
                            let (x, y) = rayon::join(|| field.fwd(a, w, sa), || field.fwd(b, w, sb));
                            x?;
                            y?;
                        } else {
                            field.fwd(a, w, sa)?;
                            field.fwd(b, w, sb)?;
                        }
                        tmp.copy_from_slice(sa);
                        field.mul(tmp, sb, w);
                        let d = out.len();
                        field.inv(tmp, w, 0, &mut out[..d - 1])?;
                        out[d - 1] = 0;
                        add_shifted(out, a, b, &m);
                        Ok(())
                    },
                )?;
                spectra.push(spec);
            }
            levels.push(next);
        }
        // 1/rev_n(m) mod x^n: rev_n(m) = 1 + c_(n−1)·x + … + c_0·x^n.
        let root = &levels[l];
        let rev: Vec<u64> = std::iter::once(1).chain(root.iter().rev().copied()).take(n).collect();
        let root_inv = if n < crate::tuning::NMOD_INV_SERIES_NEWTON_MIN_LEN {
            super::inv_series::basecase(&rev, n, &m)
        } else {
            inv_series_with(&field, &rev, n)?
        };
        Ok(Tree { field, points: points.to_vec(), levels, spectra, root_inv, weights: OnceLock::new(), device: Mutex::new(None), h })
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always false: a tree has at least one point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The prime.
    pub fn p(&self) -> u64 {
        self.field.p()
    }

    /// The points.
    pub fn points(&self) -> &[u64] {
        &self.points
    }

    /// L + 1 = ⌈log2 n⌉ + 1 levels.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Node j of level i without its leading 1 (deg M_(i,j) coefficients, low to high).
    pub fn node(&self, i: usize, j: usize) -> &[u64] {
        let w = 1usize << i;
        let n = self.len();
        &self.levels[i][j * w..(j * w + w).min(n)]
    }

    /// The root m = Π (x − u_t) without its leading 1 (n coefficients).
    pub fn root(&self) -> &[u64] {
        &self.levels[self.levels.len() - 1]
    }

    /// The root with its leading 1 (n + 1 coefficients).
    pub(crate) fn root_monic(&self) -> Vec<u64> {
        let mut m = self.root().to_vec();
        m.push(1);
        m
    }

    /// Spectrum of node j of level i (H ≤ i < L) at size 2^(i+1).
    pub(crate) fn spectrum(&self, i: usize, j: usize) -> &[u64] {
        let sl = self.field.rows() << (i + 1);
        &self.spectra[i][j * sl..(j + 1) * sl]
    }
}

/// ⌈log2 n⌉ (0 for n = 1).
pub(crate) fn depth(n: usize) -> usize {
    n.next_power_of_two().trailing_zeros() as usize
}

/// The largest transform a tree of n points uses: products at size 2^L, the root's inverse at
/// 2^⌈log2(n − 1)⌉, evaluation's truncated product and divisions by the root at up to 2·2^L.
pub(crate) fn field_size(n: usize) -> usize {
    2 * n.next_power_of_two()
}

/// `InvalidArgument` unless p is an odd prime < 2^63, n ≥ 1 and every point is < p.
pub(crate) fn check_points(points: &[u64], p: u64) -> Result<()> {
    check_modulus(p)?;
    if points.is_empty() {
        return invalid!("no points (n = 0)");
    }
    check_reduced(points, p, "points")
}

/// `InvalidArgument` naming a point that occurs twice.
pub(crate) fn check_distinct(points: &[u64]) -> Result<()> {
    let mut s = points.to_vec();
    s.par_sort_unstable();
    if let Some(w) = s.windows(2).find(|w| w[0] == w[1]) {
        let first = points.iter().position(|&u| u == w[0]).unwrap_or(0);
        let second = points.iter().skip(first + 1).position(|&u| u == w[0]).map_or(0, |k| k + first + 1);
        return invalid!("points[{first}] = points[{second}] = {}: the points must be distinct", w[0]);
    }
    Ok(())
}

/// out = A·B without its leading 1, for monic A, B given without theirs (a: dA, b: dB ≤ dA
/// coefficients, out: dA + dB; b empty: out = a), by schoolbook.
pub(crate) fn combine_plain(a: &[u64], b: &[u64], out: &mut [u64], m: &super::reduce::Modulus) {
    if b.is_empty() {
        out.copy_from_slice(a);
        return;
    }
    let d = out.len();
    schoolbook(a, b, m, &mut out[..d - 1]);
    out[d - 1] = 0;
    add_shifted(out, a, b, m);
}

/// out += x^(dB)·a + x^(dA)·b (out of dA + dB coefficients).
pub(crate) fn add_shifted(out: &mut [u64], a: &[u64], b: &[u64], m: &super::reduce::Modulus) {
    let (da, db) = (a.len(), b.len());
    for (o, &v) in out[db..].iter_mut().zip(a) {
        *o = m.add(*o, v);
    }
    for (o, &v) in out[da..].iter_mut().zip(b) {
        *o = m.add(*o, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::poly_mul::tests::{naive, rand_vec};
    use crate::nmod::prime::fourier_primes;

    /// Every node equals the product of its points (naive products of x − u), for n across the
    /// plain/NTT boundary and not powers of two, on one-row and CRT fields.
    #[test]
    fn nodes_are_products_of_their_points() {
        for p in [fourier_primes(62, 30, 1)[0], (1 << 63) - 25, 257] {
            for n in [1usize, 2, 3, 31, 32, 33, 100, 257, 1000] {
                if n as u64 >= p {
                    continue;
                }
                let mut pts = rand_vec(n, p, n as u64);
                pts.sort_unstable();
                pts.dedup();
                let t = Tree::new(&pts, p).unwrap();
                let n = pts.len();
                for i in 0..t.depth() {
                    let w = 1usize << i;
                    for j in 0..n.div_ceil(w) {
                        let mut want = vec![1u64];
                        for &u in &pts[j * w..(j * w + w).min(n)] {
                            want = naive(&want, &[(p - u) % p, 1], p);
                        }
                        let mut got = t.node(i, j).to_vec();
                        got.push(1);
                        assert_eq!(got, want, "p = {p}, n = {n}, node ({i}, {j})");
                    }
                }
                // The root's reversed inverse.
                let rev: Vec<u64> = std::iter::once(1).chain(t.root().iter().rev().copied()).collect();
                let prod = naive(&rev, &t.root_inv, p);
                assert_eq!(prod[0], 1);
                assert!(prod[1..n].iter().all(|&c| c == 0), "p = {p}, n = {n}");
            }
        }
    }

    #[test]
    fn repeated_points_and_bad_inputs_are_rejected() {
        let e = Tree::new(&[5, 9, 2, 9], 11).err().unwrap();
        assert!(e.detail().contains("points[1] = points[3] = 9"), "{e}");
        assert!(Tree::new(&[], 11).is_err());
        assert!(Tree::new(&[11], 11).is_err(), "a point ≥ p");
        assert!(Tree::new(&[1], 9).is_err(), "composite p");
        assert!(Tree::new(&[1], 2).is_err(), "even p");
        assert!(Tree::new(&[0, 1, 2], 3).is_ok(), "every residue of p = 3");
    }
}
