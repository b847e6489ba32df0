//! g = 1/f mod x^n in Z/pZ\[\[x\]\] (f(0) ≠ 0) by Newton's iteration ([MCA] Algorithm 9.3),
//! g_new = g − g·(f·g − 1) mod x^m, from precision k to m = ⌈…⌉ with k = ⌈m/2⌉.
//!
//! One step at transform size N = 2^⌈log2(m − 1)⌉ (≥ 16), the spectrum of g used twice:
//! - E = coefficients k .. m − 1 of (f mod x^m)·g: the product has m + k − 1 coefficients, so modulo
//!   x^N + 1 the coefficients k .. N − 1 are untouched by the wrap-around, and when m = N + 1 the
//!   last one, c_N, wrapped onto 0: c_0 − c_N is read there and c_0 = 1 (f·g ≡ 1 mod x^k);
//! - D = g·E mod x^(m−k) (m − 1 coefficients, exact at size N), and g_new = g − x^k·D.
//!
//! Five transforms of size N a step. Below [`NMOD_INV_SERIES_NEWTON_MIN_LEN`] the series is
//! inverted coefficient by coefficient, g_t = −f_0^(−1)·Σ_{1≤j≤t} f_j·g_(t−j).
use super::ntt_field::NttField;
use super::prime::{check_modulus, check_reduced, invmod};
use crate::tuning::{NMOD_INV_SERIES_NEWTON_MIN_LEN, NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN};
use crate::{invalid, Result};

/// 1/f mod x^n (n entries; none when n = 0). f non-empty with f\[0\] ≠ 0, entries < p, p an odd
/// prime < 2^63; otherwise `InvalidArgument`.
pub fn inv_series(f: &[u64], n: usize, p: u64) -> Result<Vec<u64>> {
    check_modulus(p)?;
    check_reduced(f, p, "f")?;
    if f.first().is_none_or(|&c| c == 0) {
        return invalid!("the constant term of f is zero: f is not invertible as a power series");
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    if n < NMOD_INV_SERIES_NEWTON_MIN_LEN {
        return Ok(basecase(f, n, &super::reduce::Modulus::new(p)));
    }
    let field = NttField::new(p, (n - 1).next_power_of_two())?;
    inv_series_with(&field, f, n)
}

/// [`inv_series`] for checked arguments, transforms from `field` (which serves size
/// 2^⌈log2(n − 1)⌉).
pub fn inv_series_with(field: &NttField, f: &[u64], n: usize) -> Result<Vec<u64>> {
    let mut precs = vec![n];
    while *precs.last().unwrap() >= NMOD_INV_SERIES_NEWTON_MIN_LEN {
        let m = *precs.last().unwrap();
        precs.push(m.div_ceil(2));
    }
    let mut g = basecase(f, precs.pop().unwrap(), &field.m);
    while let Some(m) = precs.pop() {
        crate::interrupt::checkpoint()?;
        newton_step(field, f, &mut g, m)?;
    }
    Ok(g)
}

/// g (1/f mod x^k) → 1/f mod x^m, k < m ≤ 2k.
fn newton_step(field: &NttField, f: &[u64], g: &mut Vec<u64>, m: usize) -> Result<()> {
    let k = g.len();
    debug_assert!(k < m && m <= 2 * k);
    let n = field.size_for(m - 1)?;
    let (mut sf, mut sg) = (field.spectrum(n)?, field.spectrum(n)?);
    field.fwd(&f[..f.len().min(m)], n, &mut sf)?;
    field.fwd(g, n, &mut sg)?;
    field.mul(&mut sf, &sg, n);
    field.inv_rows(&mut sf, n)?;
    let mut e = vec![0u64; m - k];
    let top = m.min(n);
    field.read(&sf, n, k, &mut e[..top - k]);
    if m > n {
        let mut w0 = [0u64];
        field.read_signed(&mut sf, n, 0, &mut w0);
        e[n - k] = field.m.sub(1, w0[0]);
    }
    let mut d = vec![0u64; m - k];
    if e.len().min(k) <= NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN {
        let mut t = vec![0u64; k + e.len() - 1];
        super::ntt_field::schoolbook(g, &e, &field.m, &mut t);
        d.copy_from_slice(&t[..m - k]);
    } else {
        field.fwd(&e, n, &mut sf)?;
        field.mul(&mut sf, &sg, n);
        field.inv(&mut sf, n, 0, &mut d)?;
    }
    g.extend(d.iter().map(|&v| field.m.neg(v)));
    Ok(())
}

/// 1/f mod x^n coefficient by coefficient (f\[0\] ≠ 0), O(n²).
pub fn basecase(f: &[u64], n: usize, m: &super::reduce::Modulus) -> Vec<u64> {
    let c = invmod(f[0], m.p);
    let cs = m.shoup(c);
    let mut g = Vec::with_capacity(n);
    g.push(c);
    for t in 1..n {
        let mut acc = super::ntt_field::Acc::default();
        for j in 1..=t.min(f.len() - 1) {
            acc.add(f[j], g[t - j]);
        }
        g.push(m.neg(m.mul_shoup(acc.reduce(m), c, cs)));
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::poly_mul::tests::{naive, rand_vec};
    use crate::nmod::prime::fourier_primes;

    /// g·f ≡ 1 mod x^n for the listed primes, lengths on both sides of the Newton crossover and of
    /// powers of two (n = 2^k + 1 exercises the wrapped last coefficient), f shorter than n, f of
    /// all p − 1, f = 1.
    #[test]
    fn inverse_times_f_is_one() {
        let primes =
            [3u64, 257, 65537, (1 << 31) - 1, (1 << 61) - 1, (1 << 63) - 25, fourier_primes(62, 30, 1)[0], fourier_primes(50, 30, 1)[0]];
        for &p in &primes {
            for &n in &[1usize, 2, 17, 63, 64, 65, 129, 200, 513, 1024, 1025, 3000] {
                for kind in 0..3 {
                    let mut f = match kind {
                        0 => rand_vec(n, p, n as u64 + p),
                        1 => vec![p - 1; n],
                        _ => rand_vec(n / 3 + 1, p, 5),
                    };
                    if f[0] == 0 {
                        f[0] = 1;
                    }
                    let g = inv_series(&f, n, p).unwrap();
                    assert_eq!(g.len(), n);
                    let mut prod = naive(&f, &g, p);
                    prod.resize(n.max(prod.len()), 0);
                    let mut one = vec![0u64; n];
                    one[0] = 1;
                    assert_eq!(prod[..n], one[..], "p = {p}, n = {n}, kind {kind}");
                }
            }
            assert_eq!(inv_series(&[1], 5, p).unwrap(), vec![1, 0, 0, 0, 0]);
        }
    }

    #[test]
    fn bad_inputs_are_rejected() {
        assert!(inv_series(&[0, 1], 4, 7).is_err(), "f(0) = 0");
        assert!(inv_series(&[], 4, 7).is_err(), "empty f");
        assert!(inv_series(&[7], 4, 7).is_err(), "unreduced");
        assert!(inv_series(&[1], 4, 9).is_err(), "composite p");
        assert!(inv_series(&[1], 4, 2).is_err(), "even p");
        assert_eq!(inv_series(&[3], 0, 7).unwrap(), Vec::<u64>::new());
    }
}
