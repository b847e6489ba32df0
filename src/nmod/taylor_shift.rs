//! The Taylor shift over Z/pZ: g(x) = f(x + c) mod p, p an odd prime < 2^63, entries and c < p.
//!
//! - n < [`NMOD_TAYLOR_SHIFT_CONVOLUTION_MIN_LEN`] or n > p: the tableau a_j ← a_j + c·a_(j+1)
//!   (i = n−2 … 0, j = i … n−2), n²/2 modular steps (additions for c = 1 and c = p − 1);
//! - otherwise the convolution form (the convolution method of [vzGG97]; FLINT's `_nmod_poly_taylor_shift_convolution`):
//!   g_k·k! = Σ_(i≥k) (f_i·i!)·c^(i−k)/(i−k)!, one product of length n by [`super::poly_mul`], since
//!   every factorial up to (n−1)! is invertible when n ≤ p.
use super::poly_mul::poly_mul_into_checked;
use super::prime::{check_modulus, check_reduced, invmod};
use super::reduce::Modulus;
use crate::int::try_zeroed;
use crate::tuning::NMOD_TAYLOR_SHIFT_CONVOLUTION_MIN_LEN;
use crate::{invalid, Result};

/// g = f(x + c) mod p into g (g.len() = f.len(); g may not alias f: the C layer copies). Entries of f
/// and c must be < p (`InvalidArgument` otherwise, g untouched).
pub fn taylor_shift_into(f: &[u64], c: u64, p: u64, g: &mut [u64]) -> Result<()> {
    check_modulus(p)?;
    check_reduced(f, p, "f")?;
    if c >= p {
        return invalid!("c = {c} is not reduced modulo p = {p}");
    }
    assert_eq!(g.len(), f.len(), "taylor_shift_into: g must hold f.len() entries");
    let n = f.len();
    if n < NMOD_TAYLOR_SHIFT_CONVOLUTION_MIN_LEN || n as u64 > p || c == 0 {
        g.copy_from_slice(f);
        tableau(g, c, &Modulus::new(p))?;
        return Ok(());
    }
    let t = convolution(f, c, p)?;
    g.copy_from_slice(&t);
    Ok(())
}

/// f(x + c) mod p as a new vector (see [`taylor_shift_into`]).
pub fn taylor_shift(f: &[u64], c: u64, p: u64) -> Result<Vec<u64>> {
    let mut g = try_zeroed(f.len())?;
    taylor_shift_into(f, c, p, &mut g)?;
    Ok(g)
}

/// The tableau in place (an interrupt check every row).
fn tableau(a: &mut [u64], c: u64, m: &Modulus) -> Result<()> {
    let n = a.len();
    if n <= 1 || c == 0 {
        return Ok(());
    }
    let (one, minus_one) = (c == 1, c == m.p - 1);
    let csh = m.shoup(c);
    for i in (0..n - 1).rev() {
        if i % 64 == 0 {
            crate::interrupt::checkpoint()?;
        }
        for j in i..n - 1 {
            let b = a[j + 1];
            a[j] = if one {
                m.add(a[j], b)
            } else if minus_one {
                m.sub(a[j], b)
            } else {
                m.add(a[j], m.mul_shoup(b, c, csh))
            };
        }
    }
    Ok(())
}

/// The convolution form (n ≤ p, n ≥ 2, c ≠ 0).
fn convolution(f: &[u64], c: u64, p: u64) -> Result<Vec<u64>> {
    let m = Modulus::new(p);
    let n = f.len();
    let d = n - 1;
    // fact[i] = i! mod p, i ≤ d.
    let mut fact = try_zeroed::<u64>(n)?;
    fact[0] = 1;
    for i in 1..n {
        fact[i] = m.reduce_u128(fact[i - 1] as u128 * i as u128);
    }
    // a (reversed): a[d − i] = f_i·i!.
    let mut a = try_zeroed::<u64>(n)?;
    for i in 0..n {
        a[d - i] = m.reduce_u128(f[i] as u128 * fact[i] as u128);
    }
    // b_j = c^j / j!: 1/j! from 1/d! downwards.
    let mut inv_fact = try_zeroed::<u64>(n)?;
    inv_fact[d] = invmod(fact[d], p);
    for j in (1..n).rev() {
        inv_fact[j - 1] = m.reduce_u128(inv_fact[j] as u128 * j as u128);
    }
    let mut b = try_zeroed::<u64>(n)?;
    let mut cj = 1u64;
    let csh = m.shoup(c);
    for j in 0..n {
        b[j] = m.reduce_u128(cj as u128 * inv_fact[j] as u128);
        cj = m.mul_shoup(cj, c, csh);
    }
    crate::interrupt::checkpoint()?;
    let mut h = try_zeroed::<u64>(2 * n - 1)?;
    poly_mul_into_checked(&a, &b, p, &mut h)?;
    // g_k = h_(d−k) / k!.
    Ok((0..n).map(|k| m.reduce_u128(h[d - k] as u128 * inv_fact[k] as u128)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::prime::fourier_primes;

    /// The binomial formula mod p (u128 arithmetic), g_k = Σ_(i≥k) f_i·C(i, k)·c^(i−k).
    fn naive(f: &[u64], c: u64, p: u64) -> Vec<u64> {
        let n = f.len();
        let mul = |a: u64, b: u64| (a as u128 * b as u128 % p as u128) as u64;
        // Pascal's triangle row by row, C(i, k) mod p.
        let mut row = vec![0u64; n];
        let mut g = vec![0u64; n];
        for (i, &fi) in f.iter().enumerate() {
            // row ← C(i, ·)
            for k in (1..=i).rev() {
                row[k] = (row[k] + row[k - 1]) % p;
            }
            row[0] = 1 % p;
            let mut cp = 1 % p;
            for k in (0..=i).rev() {
                g[k] = (g[k] + mul(mul(fi, row[k]), cp)) % p;
                cp = mul(cp, c);
            }
        }
        g
    }

    fn rand_vec(n: usize, p: u64, seed: u64) -> Vec<u64> {
        crate::nmod::poly_mul::tests::rand_vec(n, p, seed)
    }

    #[test]
    fn matches_the_binomial_formula() {
        let primes = [3u64, 7, 257, 7681, (1 << 61) - 1, (1u64 << 63) - 25, fourier_primes(50, 30, 1)[0]];
        for &p in &primes {
            for n in [0usize, 1, 2, 3, 10, 63, 64, 65, 200, 700] {
                for c in [0u64, 1, p - 1, 2 % p, p / 3, p - 2] {
                    let f = rand_vec(n, p, n as u64 * 31 + c);
                    let want = naive(&f, c, p);
                    assert_eq!(taylor_shift(&f, c, p).unwrap(), want, "p = {p}, n = {n}, c = {c}");
                }
                // Every entry p − 1.
                let f = vec![p - 1; n];
                assert_eq!(taylor_shift(&f, 1, p).unwrap(), naive(&f, 1, p), "p − 1 entries, p = {p}, n = {n}");
            }
        }
    }

    #[test]
    fn rejects_bad_arguments() {
        let p = 7681;
        assert!(taylor_shift(&[1, 2], p, p).is_err(), "c = p");
        assert!(taylor_shift(&[1, p], 1, p).is_err(), "f unreduced");
        assert!(taylor_shift(&[1, 2], 1, 7680).is_err(), "p even");
        assert!(taylor_shift(&[1, 2], 1, 15).is_err(), "p composite");
    }
}
