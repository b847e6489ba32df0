//! Interpolation in Z/pZ: the unique f of degree < n with f(u_i) = v_i at n distinct points, by
//! Lagrange's formula over a subproduct tree ([MCA] Algorithm 10.11, [FM] Algorithms 17–18):
//!
//!   f = Σ_i c_i·m/(x − u_i),  c_i = v_i/m′(u_i),  m′(u_i) = Π_(j≠i) (u_i − u_j),
//!
//! with the weights 1/m′(u_i) computed once per tree (the derivative of the root evaluated at the
//! points by [`super::evaluate`], then inverted together: one inversion and 3(n − 1) products) and
//! the sum built bottom-up by the linear combination I_(leaf j) = c_j,
//! I_P = A·I_B + B·I_A = x^(dA)·I_B + x^(dB)·I_A + a·I_B + b·I_A for P = A·B, A = x^(dA) + a,
//! B = x^(dB) + b. The products a·I_B + b·I_A (dA + dB − 1 coefficients) are summed in the transform
//! domain: two forward transforms of size 2^i and one inverse a node, with the spectra of a and b
//! kept by the [`Tree`]. Levels up to H by schoolbook, one subtree of 2^H points per task.
use super::evaluate::evaluate_checked;
use super::ntt_field::Acc;
use super::prime::{check_reduced, invmod};
use super::reduce::Modulus;
use super::tree::{add_shifted, Tree};
use crate::tuning::NMOD_NTT_FIELD_PARALLEL_MIN_N;
use crate::{Error, Result};
use rayon::prelude::*;

/// The n coefficients of the f of degree < n with f(u_i) = values\[i\] (n = tree.len() values,
/// entries < p; else `InvalidArgument`).
pub fn interpolate(tree: &Tree, values: &[u64]) -> Result<Vec<u64>> {
    if values.len() != tree.len() {
        return crate::invalid!("{} values for a tree of {} points", values.len(), tree.len());
    }
    check_reduced(values, tree.p(), "values")?;
    let w = weights(tree)?;
    let m = tree.field.m;
    let mut g: Vec<u64> = values.iter().zip(w).map(|(&v, &x)| m.mul_shoup(v, x, m.shoup(x))).collect();
    combine(tree, &mut g)?;
    Ok(g)
}

/// [`interpolate`] through a tree built for the call (distinct points, else `InvalidArgument`).
pub fn interpolate_vec(points: &[u64], values: &[u64], p: u64) -> Result<Vec<u64>> {
    if points.len() != values.len() {
        return crate::invalid!("{} points but {} values", points.len(), values.len());
    }
    super::tree::check_points(points, p)?;
    check_reduced(values, p, "values")?;
    let tree = Tree::new(points, p)?;
    interpolate(&tree, values)
}

/// The weights 1/m′(u_i) of the tree, computed on first use.
pub fn weights(tree: &Tree) -> Result<&[u64]> {
    weights_with(tree, evaluate_checked)
}

/// [`weights`], m′(u_i) evaluated by `eval` (the CPU or the device path: the same words).
pub(crate) fn weights_with(tree: &Tree, eval: impl FnOnce(&Tree, &[u64]) -> Result<Vec<u64>>) -> Result<&[u64]> {
    if let Some(w) = tree.weights.get() {
        return Ok(w);
    }
    let n = tree.len();
    let m = tree.field.m;
    let root = tree.root();
    // m′ = n·x^(n−1) + Σ_(k<n−1) (k + 1)·c_(k+1)·x^k.
    let dm: Vec<u64> = (0..n)
        .map(|k| {
            let c = (k as u64 + 1) % m.p;
            if k + 1 < n {
                m.mul_shoup(root[k + 1], c, m.shoup(c))
            } else {
                c
            }
        })
        .collect();
    let e = eval(tree, &dm)?;
    let w = batch_inverse(&e, &m).ok_or_else(|| Error::Internal("m'(u_i) = 0: the tree's points are not distinct".into()))?;
    let _ = tree.weights.set(w);
    Ok(tree.weights.get().expect("set above"))
}

/// 1/x_i for all i (Montgomery's trick), `None` when some x_i = 0.
fn batch_inverse(x: &[u64], m: &Modulus) -> Option<Vec<u64>> {
    let mut pre = Vec::with_capacity(x.len());
    let mut acc = 1u64;
    for &v in x {
        if v == 0 {
            return None;
        }
        pre.push(acc);
        acc = m.mul_shoup(acc, v, m.shoup(v));
    }
    let mut inv = invmod(acc, m.p);
    let mut out = vec![0u64; x.len()];
    for i in (0..x.len()).rev() {
        // inv = 1/(x_0⋯x_i): out_i = inv·(x_0⋯x_(i−1)), then inv ← inv·x_i.
        out[i] = m.mul_shoup(inv, pre[i], m.shoup(pre[i]));
        inv = m.mul_shoup(inv, x[i], m.shoup(x[i]));
    }
    Some(out)
}

/// g (c_j at the leaves) ← the root's linear combination Σ c_j·m/(x − u_j), in place.
fn combine(tree: &Tree, g: &mut [u64]) -> Result<()> {
    let field = &tree.field;
    let m = field.m;
    let l = tree.depth() - 1;
    let cur = crate::interrupt::current();
    let top = tree.h.min(l);
    let ws = 1usize << top;
    g.par_chunks_mut(ws).enumerate().with_min_len((1 << 12 >> top).max(1)).try_for_each(|(s, sub)| -> Result<()> {
        cur.check()?;
        let mut tmp = Vec::with_capacity(2 * ws);
        for i in 1..=top {
            let w = 1usize << i;
            let base = s * ws / w;
            for (jj, v) in sub.chunks_mut(w).enumerate() {
                let j = base + jj;
                if v.len() <= w / 2 {
                    continue;
                }
                let (a, b) = (tree.node(i - 1, 2 * j), tree.node(i - 1, 2 * j + 1));
                step_plain(v, a, b, &m, &mut tmp);
            }
        }
        Ok(())
    })?;
    for i in tree.h + 1..=l {
        crate::interrupt::checkpoint()?;
        let w = 1usize << i;
        g.par_chunks_mut(w).enumerate().with_min_len((1 << 14 >> i).max(1)).try_for_each_init(
            || (field.spectrum(w), field.spectrum(w), field.spectrum(w), Vec::new()),
            |(fa, fb, acc, out), (j, v)| -> Result<()> {
                cur.check()?;
                let (fa, fb, acc) =
                    (fa.as_mut().map_err(|e| e.clone())?, fb.as_mut().map_err(|e| e.clone())?, acc.as_mut().map_err(|e| e.clone())?);
                let d = v.len();
                let da = (w / 2).min(d);
                if d == da {
                    return Ok(());
                }
                let (ia, ib) = v.split_at(da);
                if w >= NMOD_NTT_FIELD_PARALLEL_MIN_N {
                    let (x, y) = rayon::join(|| field.fwd(ia, w, fa), || field.fwd(ib, w, fb));
                    x?;
                    y?;
                } else {
                    field.fwd(ia, w, fa)?;
                    field.fwd(ib, w, fb)?;
                }
                acc.fill(0);
                field.mul_acc(acc, fb, tree.spectrum(i - 1, 2 * j), w);
                field.mul_acc(acc, fa, tree.spectrum(i - 1, 2 * j + 1), w);
                field.normalize(acc, w);
                out.clear();
                out.resize(d, 0);
                field.inv(acc, w, 0, &mut out[..d - 1])?;
                add_shifted(out, ia, ib, &m);
                v.copy_from_slice(out);
                Ok(())
            },
        )?;
    }
    Ok(())
}

/// I_P from I_A = v\[..dA\], I_B = v\[dA..\] by schoolbook (a: dA, b: dB ≥ 1 coefficients):
/// I_P\[k\] = Σ a_i·I_B\[k − i\] + Σ b_i·I_A\[k − i\] + I_B\[k − dA\] + I_A\[k − dB\].
fn step_plain(v: &mut [u64], a: &[u64], b: &[u64], m: &Modulus, tmp: &mut Vec<u64>) {
    let (da, db, d) = (a.len(), b.len(), v.len());
    tmp.clear();
    tmp.extend_from_slice(v);
    let (ia, ib) = tmp.split_at(da);
    for (k, vk) in v.iter_mut().enumerate().take(d - 1) {
        let mut acc = Acc::default();
        // a·I_B: i < dA, k − i < dB.
        for i in k.saturating_sub(db - 1)..=k.min(da - 1) {
            acc.add(a[i], ib[k - i]);
        }
        // b·I_A: i < dB, k − i < dA.
        for i in k.saturating_sub(da - 1)..=k.min(db - 1) {
            acc.add(b[i], ia[k - i]);
        }
        *vk = acc.reduce(m);
    }
    v[d - 1] = 0;
    add_shifted(v, ia, ib, m);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::evaluate::evaluate;
    use crate::nmod::evaluate::tests::{horner_oracle, points};
    use crate::nmod::poly_mul::tests::rand_vec;
    use crate::nmod::prime::fourier_primes;
    use crate::testing::Rng;

    /// interpolate(evaluate(f)) = f for n = 1, 2, 3, 255, 256, 257, 4097 and random n, the listed
    /// primes (points include 0 and p − 1), and the interpolant agrees with the values by Horner.
    #[test]
    fn interpolation_inverts_evaluation() {
        let primes =
            [3u64, 257, 65537, (1 << 31) - 1, (1 << 61) - 1, (1 << 63) - 25, fourier_primes(62, 30, 1)[0], fourier_primes(50, 30, 1)[0]];
        let mut rng = Rng(23);
        for &p in &primes {
            let mut ns = vec![1usize, 2, 3, 255, 256, 257, 4097];
            ns.push(1 + rng.below(2000) as usize);
            for &n in &ns {
                if n as u64 > p || (n == 4097 && p != primes[5] && p != primes[6]) {
                    continue;
                }
                let pts = points(n, p, 3 * n as u64 + 1);
                let tree = Tree::new(&pts, p).unwrap();
                for kind in 0..2 {
                    let f = if kind == 0 { rand_vec(n, p, n as u64 + 99) } else { vec![p - 1; n] };
                    let v = evaluate(&tree, &f).unwrap();
                    assert_eq!(interpolate(&tree, &v).unwrap(), f, "p = {p}, n = {n}, kind {kind}");
                }
                let v = rand_vec(n, p, 5);
                let f = interpolate_vec(&pts, &v, p).unwrap();
                assert_eq!(f.len(), n);
                for (i, &u) in pts.iter().enumerate().step_by((n / 50).max(1)) {
                    assert_eq!(horner_oracle(&f, u, p), v[i], "p = {p}, n = {n}, point {i}");
                }
            }
        }
    }

    /// The worked example backwards: the values at the eight points give P back.
    #[test]
    fn worked_example_p257() {
        let u = [63, 100, 148, 113, 109, 26, 39, 206];
        let f = interpolate_vec(&u, &[75, 101, 49, 74, 55, 159, 26, 169], 257).unwrap();
        assert_eq!(f, vec![250, 161, 179, 170, 82, 24, 89, 92]);
    }

    #[test]
    fn bad_inputs_are_rejected() {
        assert!(interpolate_vec(&[1, 2, 1], &[0, 0, 0], 7).is_err(), "repeated point");
        assert!(interpolate_vec(&[1, 2], &[0, 7], 7).is_err(), "unreduced value");
        assert!(interpolate_vec(&[1, 2], &[0], 7).is_err(), "length mismatch");
        assert!(interpolate_vec(&[], &[], 7).is_err(), "n = 0");
        let tree = Tree::new(&[1, 2], 7).unwrap();
        assert!(interpolate(&tree, &[1]).is_err());
    }
}
