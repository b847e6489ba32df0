//! The subinverse tree of a subproduct tree ([FM] §5.4, Definition 2) and multipoint evaluation by
//! fast remainders down the tree ([FM] Algorithms 11 and 16), the alternative to the transposed
//! evaluation of [`super::evaluate`].
//!
//! **Definition.** InvM_(i,j)·rev_d(M_(i,j)) ≡ 1 mod x^d, d = deg M_(i,j), for the levels
//! b ≤ i < L, b = min(H, L − 1) (not at the root). Since rev_d(P) = rev(A)·rev(B) for P = A·B
//! ([FM] Lemma 9), InvM_P = Inv(rev A, d)·Inv(rev B, d) mod x^d: each child's inverse is lifted
//! from precision d/2 to d by one Newton step, then the two are multiplied (Proposition 16).
//! Level b is inverted coefficient by coefficient; a node of another degree (the last of a level
//! when n is not a power of two) by [`super::inv_series`].
//!
//! **One Newton step** ([FM] Algorithm 13, with its corrected indices rev_(h−1) and x^(h−1)): for A
//! monic of degree h, A = x^h + M′, and g = rev_h(A)^(−1) mod x^h, rev_h(A)·g = 1 + x^h·E with
//! deg E < h and the lifted inverse is g − x^h·(g·E mod x^h). With a = rev_(h−1)(g),
//! A·a = x^(2h−1) + rev_(h−1)(E), so P = M′·a has low half rev(E) and high half x^(h−1) − a; modulo
//! x^h + 1 (a negacyclic product of size h) c = P_lo − P_hi, hence E = rev_(h−1)(c − a + x^(h−1)).
//!
//! **Fast remainder** ([FM] Algorithm 16): f mod C for deg f < 2·deg C is
//! f − C·rev(rev(f)·InvC mod x^(·)), the quotient's inverse being InvC itself
//! ([`super::poly_divrem::newton`]).
use super::inv_series::{basecase, inv_series_with};
use super::ntt_field::NttField;
use super::poly_divrem::{divrem_checked, newton};
use super::tree::Tree;
use crate::tuning::NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN;
use crate::Result;
use rayon::prelude::*;

/// InvM_(i,j) for the levels base ≤ i < L: `levels[i − base]` holds node j's deg M_(i,j)
/// coefficients at offset j·2^i (n words a level).
pub struct Subinverse {
    pub base: usize,
    pub levels: Vec<Vec<u64>>,
}

impl Subinverse {
    /// InvM_(i,j) (deg M_(i,j) coefficients).
    pub fn node(&self, tree: &Tree, i: usize, j: usize) -> &[u64] {
        let w = 1usize << i;
        let d = tree.node(i, j).len();
        &self.levels[i - self.base][j * w..j * w + d]
    }
}

/// rev_d(M) mod x^d for M monic of degree d given without its leading 1: 1, c_(d−1), …, c_1.
fn rev_trunc(c: &[u64]) -> Vec<u64> {
    std::iter::once(1).chain(c.iter().rev().copied()).take(c.len()).collect()
}

/// The subinverse tree of `tree` from level min(H, L − 1) (empty for n = 1).
pub fn build(tree: &Tree) -> Result<Subinverse> {
    build_from(tree, tree.h)
}

/// The subinverse tree from level min(base, L − 1).
pub fn build_from(tree: &Tree, base: usize) -> Result<Subinverse> {
    let l = tree.depth() - 1;
    let n = tree.len();
    if l == 0 {
        return Ok(Subinverse { base: 0, levels: Vec::new() });
    }
    let base = base.min(l - 1);
    let field = &tree.field;
    let m = field.m;
    let cur = crate::interrupt::current();
    let wb = 1usize << base;
    let mut first = crate::int::try_zeroed::<u64>(n)?;
    first.par_chunks_mut(wb).enumerate().for_each(|(j, out)| {
        let g = basecase(&rev_trunc(tree.node(base, j)), out.len(), &m);
        out.copy_from_slice(&g);
    });
    let mut levels = vec![first];
    for i in base + 1..l {
        crate::interrupt::checkpoint()?;
        let w = 1usize << i;
        let h = w / 2;
        let prev = levels.last().expect("the base level");
        let mut next = crate::int::try_zeroed::<u64>(n)?;
        next.par_chunks_mut(w).enumerate().with_min_len((1 << 12 >> i).max(1)).try_for_each(|(j, out)| -> Result<()> {
            cur.check()?;
            let d = out.len();
            if d <= h {
                out.copy_from_slice(&prev[j * w..j * w + d]);
                return Ok(());
            }
            if d < w {
                out.copy_from_slice(&inv_series_with(field, &rev_trunc(tree.node(i, j)), d)?);
                return Ok(());
            }
            let a = one_step(field, tree.node(i - 1, 2 * j), &prev[j * w..j * w + h])?;
            let b = one_step(field, tree.node(i - 1, 2 * j + 1), &prev[j * w + h..j * w + w])?;
            field.mullow(&a, &b, out, NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN)
        })?;
        levels.push(next);
    }
    Ok(Subinverse { base, levels })
}

/// The inverse of rev_h(A) mod x^(2h) from g = rev_h(A)^(−1) mod x^h, A = x^h + M′ (M′ of h
/// coefficients), by the corrected Algorithm 13 (module doc).
fn one_step(field: &NttField, mp: &[u64], g: &[u64]) -> Result<Vec<u64>> {
    let h = g.len();
    let m = &field.m;
    let a: Vec<u64> = g.iter().rev().copied().collect();
    // c = a·M′ mod x^h + 1.
    let mut c = vec![0u64; h];
    if h < 16 {
        let mut full = vec![0u64; 2 * h - 1];
        super::ntt_field::schoolbook(&a, mp, m, &mut full);
        for (t, v) in full.iter().enumerate() {
            c[t % h] = if t < h { m.add(c[t % h], *v) } else { m.sub(c[t % h], *v) };
        }
    } else {
        let (mut sa, mut sm) = (field.spectrum(h)?, field.spectrum(h)?);
        field.fwd(&a, h, &mut sa)?;
        field.fwd(mp, h, &mut sm)?;
        field.mul(&mut sa, &sm, h);
        field.inv_signed(&mut sa, h, 0, &mut c)?;
    }
    // P_lo = c − a + x^(h−1); e = −E = −rev_(h−1)(P_lo).
    let e: Vec<u64> = (0..h)
        .map(|t| {
            let s = h - 1 - t;
            let mut v = m.sub(c[s], a[s]);
            if s == h - 1 {
                v = m.add(v, 1);
            }
            m.neg(v)
        })
        .collect();
    let mut hh = vec![0u64; h];
    field.mullow(&e, g, &mut hh, NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN)?;
    let mut out = g.to_vec();
    out.extend_from_slice(&hh);
    Ok(out)
}

/// f(u_i) by remainders down the tree: fast remainders with the subinverse tree on its levels,
/// schoolbook below (f reduced, any length).
pub fn evaluate_by_remainders(tree: &Tree, sub: &Subinverse, f: &[u64]) -> Result<Vec<u64>> {
    let n = tree.len();
    let p = tree.p();
    let field = &tree.field;
    let mut r = if f.len() > n { divrem_checked(f, &tree.root_monic(), p, None)?.1 } else { f.to_vec() };
    r.resize(n, 0);
    let l = tree.depth() - 1;
    let cur = crate::interrupt::current();
    for i in (1..=l).rev() {
        crate::interrupt::checkpoint()?;
        let w = 1usize << i;
        let h = w / 2;
        r.par_chunks_mut(w).enumerate().with_min_len((1 << 12 >> i).max(1)).try_for_each(|(j, rem)| -> Result<()> {
            cur.check()?;
            let d = rem.len();
            if d <= h {
                return Ok(());
            }
            let mut out = Vec::with_capacity(d);
            for (c, child) in [(2 * j, tree.node(i - 1, 2 * j)), (2 * j + 1, tree.node(i - 1, 2 * j + 1))] {
                let mut b = child.to_vec();
                b.push(1);
                let fast = i > sub.base && !sub.levels.is_empty() && child.len() == h && d > child.len();
                let part =
                    if fast { newton(field, rem, &b, sub.node(tree, i - 1, c))?.1 } else { divrem_checked(rem, &b, p, Some(field))?.1 };
                out.extend_from_slice(&part);
            }
            rem.copy_from_slice(&out);
            Ok(())
        })?;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::evaluate::tests::{horner_oracle, points};
    use crate::nmod::poly_mul::tests::{naive, rand_vec};
    use crate::nmod::prime::fourier_primes;
    use crate::nmod::tree::H;

    /// InvM_(i,j)·rev(M_(i,j)) ≡ 1 mod x^(deg M) at every node, and evaluation by fast remainders
    /// against Horner, for n = 8 (p = 257), 256 (the model's p = 7·2^26 + 1 and base levels 1, 2, 4)
    /// and non-powers of two, one-row and CRT fields.
    #[test]
    fn identity_at_every_node_and_remainder_evaluation() {
        for p in [469_762_049u64, fourier_primes(62, 30, 1)[0], (1 << 63) - 25, 257] {
            for (n, base) in [(8usize, 1usize), (64, H), (100, 2), (256, 1), (256, 2), (256, 4), (256, H), (1000, H), (1000, 3)] {
                if n as u64 >= p {
                    continue;
                }
                let pts = points(n, p, n as u64 * 5 + 3);
                let tree = Tree::new(&pts, p).unwrap();
                let sub = build_from(&tree, base).unwrap();
                let l = tree.depth() - 1;
                for i in sub.base..l {
                    for j in 0..n.div_ceil(1 << i) {
                        let node = tree.node(i, j);
                        let d = node.len();
                        let rev: Vec<u64> = std::iter::once(1).chain(node.iter().rev().copied()).collect();
                        let prod = naive(&rev, sub.node(&tree, i, j), p);
                        let mut one = vec![0u64; d];
                        one[0] = 1;
                        assert_eq!(prod[..d], one[..], "p = {p}, n = {n}, node ({i}, {j})");
                    }
                }
                let f = rand_vec(n + 7, p, 77);
                let want: Vec<u64> = pts.iter().map(|&u| horner_oracle(&f, u, p)).collect();
                assert_eq!(evaluate_by_remainders(&tree, &sub, &f).unwrap(), want, "p = {p}, n = {n}, base {base}");
            }
        }
        // The worked example.
        let tree = Tree::new(&[63, 100, 148, 113, 109, 26, 39, 206], 257).unwrap();
        let sub = build_from(&tree, 1).unwrap();
        let f = [250, 161, 179, 170, 82, 24, 89, 92];
        assert_eq!(evaluate_by_remainders(&tree, &sub, &f).unwrap(), vec![75, 101, 49, 74, 55, 159, 26, 169]);
    }
}
