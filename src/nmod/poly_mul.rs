//! h = f·g in Z/pZ\[x\] for any odd prime p < 2^63.
//!
//! - min(flen, glen) ≤ [`NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN`]: schoolbook, 128-bit accumulation.
//! - p a Fourier prime with 2n | p − 1 (n the power of two ≥ flen + glen − 1): the convolution
//!   engine ([`convolution::convolve_mod`]) modulo p itself, one negacyclic tfhe-ntt product (exact
//!   because deg h < n; overlap-add blocks when the lengths are unbalanced).
//! - otherwise the product over Z by the multi-modular engine ([`convolution::convolve`]) modulo the
//!   fewest Fourier primes q_i < 2^50 whose product Q exceeds the bound below, and h_k mod p directly
//!   from Garner's mixed-radix digits ([`super::crt::Crt::reduce_into`]: h_k ≡ Σ v_i·(q_0⋯q_(i−1) mod p)).
//!
//! **Bound.** With 0 ≤ f_i, g_j ≤ p − 1 each integer coefficient h_k = Σ f_i·g_(k−i) has at most
//! m = min(flen, glen) terms, so 0 ≤ h_k ≤ m·(p − 1)² < 2^b, b the bit length of m·(p − 1)², and
//! Q > 2^b makes h_k the unique residue in [0, Q) with the computed images. For p < 2^63 that is
//! b ≤ 126 + ⌈log2 m⌉: three primes (Q > 2^149.9) while m ≤ 2^23, fewer for small p.
use super::convolution::{self, Fill};
use super::prime::{check_modulus, check_reduced};
use super::reduce::Modulus;
use super::scratch;
use crate::int::try_zeroed;
use crate::tuning::NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN;
use crate::Result;
use rayon::prelude::*;

/// f·g mod p (flen + glen − 1 coefficients; empty when f or g is). Entries must be < p.
pub fn poly_mul(f: &[u64], g: &[u64], p: u64) -> Result<Vec<u64>> {
    let hlen = if f.is_empty() || g.is_empty() { 0 } else { f.len() + g.len() - 1 };
    let mut h = scratch::fresh(hlen)?;
    poly_mul_into(f, g, p, &mut h)?;
    Ok(h)
}

/// h = f·g mod p into the caller's h (flen + glen − 1 entries; nothing when f or g is empty).
/// Entries of f, g must be < p. h is written only at the end, after every step that can fail.
pub fn poly_mul_into(f: &[u64], g: &[u64], p: u64, h: &mut [u64]) -> Result<()> {
    check_args(f, g, p)?;
    poly_mul_into_checked(f, g, p, h)
}

/// `InvalidArgument` unless p is an odd prime < 2^63 and every entry of f and g is < p.
pub fn check_args(f: &[u64], g: &[u64], p: u64) -> Result<()> {
    check_modulus(p)?;
    check_reduced(f, p, "f")?;
    check_reduced(g, p, "g")
}

/// [`poly_mul_into`] for arguments that passed [`check_args`].
pub fn poly_mul_into_checked(f: &[u64], g: &[u64], p: u64, h: &mut [u64]) -> Result<()> {
    if f.is_empty() || g.is_empty() {
        return Ok(());
    }
    let hlen = f.len() + g.len() - 1;
    assert_eq!(h.len(), hlen, "poly_mul_into: h must hold flen + glen − 1 entries");
    if f.len().min(g.len()) <= NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN {
        h.copy_from_slice(&schoolbook(f, g, p)?);
        return Ok(());
    }
    let n = hlen.next_power_of_two().max(super::plan::MIN_NTT);
    if (p - 1).is_multiple_of(2 * n as u64) {
        // Entries are already residues mod p: copied as they are.
        let ff = |_: usize, _: &Modulus, first: usize, out: &mut [u64]| out.copy_from_slice(&f[first..first + out.len()]);
        let fg = |_: usize, _: &Modulus, first: usize, out: &mut [u64]| out.copy_from_slice(&g[first..first + out.len()]);
        let gf: Option<&Fill> = if std::ptr::eq(f, g) { None } else { Some(&fg) };
        let res = convolution::convolve_mod(&|_| Ok(vec![p]), f.len(), &ff, g.len(), gf)?;
        // Row 0 of the residues (stride ≥ hlen) is h.
        h.copy_from_slice(&res.data[..hlen]);
        return Ok(());
    }
    // The engine reduces each entry modulo its primes (entries are < p, which may exceed them).
    let (ff, fg) = (convolution::words_mod(f), convolution::words_mod(g));
    let gf: Option<&Fill> = if std::ptr::eq(f, g) { None } else { Some(&fg) };
    let res = convolution::convolve(bound_bits(f.len().min(g.len()), p), f.len(), &ff, g.len(), gf)?;
    res.crt().reduce_into(&res.data, res.stride, p, h);
    Ok(())
}

/// The bit length of m·(p − 1)², the bound on the coefficients of the integer product.
fn bound_bits(m: usize, p: u64) -> u64 {
    let sq = (p - 1) as u128 * (p - 1) as u128;
    let lo = (sq as u64) as u128 * m as u128;
    let hi = (sq >> 64) * m as u128 + (lo >> 64);
    if hi == 0 {
        128 - lo.leading_zeros() as u64
    } else {
        192 - hi.leading_zeros() as u64
    }
}

/// Schoolbook product, 128-bit accumulators reduced whenever they pass 2^127 (each term < 2^126).
fn schoolbook(f: &[u64], g: &[u64], p: u64) -> Result<Vec<u64>> {
    let hlen = f.len() + g.len() - 1;
    let mut h = try_zeroed::<u64>(hlen)?;
    let p128 = p as u128;
    h.par_iter_mut().enumerate().with_min_len(256).for_each(|(k, hk)| {
        let lo = k.saturating_sub(g.len() - 1);
        let hi = k.min(f.len() - 1);
        let mut acc = 0u128;
        for i in lo..=hi {
            acc += f[i] as u128 * g[k - i] as u128;
            if acc >> 127 != 0 {
                acc %= p128;
            }
        }
        *hk = (acc % p128) as u64;
    });
    Ok(h)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::prime::fourier_primes;
    use super::*;

    pub(crate) fn naive(f: &[u64], g: &[u64], p: u64) -> Vec<u64> {
        if f.is_empty() || g.is_empty() {
            return vec![];
        }
        let mut h = vec![0u128; f.len() + g.len() - 1];
        for (i, &a) in f.iter().enumerate() {
            for (j, &b) in g.iter().enumerate() {
                h[i + j] = (h[i + j] + a as u128 * b as u128 % p as u128) % p as u128;
            }
        }
        h.into_iter().map(|v| v as u64).collect()
    }

    pub(crate) fn rand_vec(n: usize, p: u64, seed: u64) -> Vec<u64> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s % p
            })
            .collect()
    }

    #[test]
    fn bound_gives_the_fewest_primes() {
        // b = bit length of m·(p − 1)², against the same product in u128 where it fits.
        for (m, p) in [(1usize, 3u64), (25, 7681), (1000, (1 << 31) - 1), (7, (1 << 50) - 27)] {
            let b = (m as u128) * ((p - 1) as u128).pow(2);
            assert_eq!(bound_bits(m, p), 128 - b.leading_zeros() as u64, "m = {m}, p = {p}");
        }
        let p = (1u64 << 63) - 25;
        assert_eq!(bound_bits(1, p), 126);
        assert_eq!(bound_bits(1 << 20, p), 146);
        assert_eq!(bound_bits(usize::MAX, 3), 66);
        // Three 50-bit primes cover p just below 2^63 up to m = 2^23; m = 2^24 needs a fourth.
        assert_eq!(convolution::primes_for(bound_bits(1 << 23, p), 1 << 24).unwrap().len(), 3);
        assert_eq!(convolution::primes_for(bound_bits(1 << 24, p), 1 << 25).unwrap().len(), 4);
        assert_eq!(convolution::primes_for(bound_bits(100, 7681), 256).unwrap().len(), 1);
    }

    #[test]
    fn matches_schoolbook() {
        let primes = [
            (1u64 << 63) - 25,            // not Fourier: CRT
            fourier_primes(63, 20, 1)[0], // Fourier, close to 2^63
            fourier_primes(50, 30, 1)[0], // Fourier, IFMA
            257,                          // 2-adicity 8: CRT for n > 128
            7681,
            (1u64 << 61) - 1, // Mersenne, 2-adicity 1
        ];
        let lens = [
            (0usize, 5usize),
            (1, 1),
            (1, 2),
            (2, 2),
            (3, 1),
            (25, 25),
            (25, 200),
            (300, 40),
            (129, 128),
            (1000, 1000),
            (2049, 31),
            (40, 5000),
            (4000, 3000),
        ];
        for &p in &primes {
            for &(fl, gl) in &lens {
                let f = rand_vec(fl, p, fl as u64 * 7 + p);
                let g = rand_vec(gl, p, gl as u64 * 13 + 1);
                let want = naive(&f, &g, p);
                assert_eq!(poly_mul(&f, &g, p).unwrap(), want, "p = {p}, lens ({fl}, {gl})");
                let mut h = vec![u64::MAX; want.len()];
                poly_mul_into(&f, &g, p, &mut h).unwrap();
                assert_eq!(h, want, "into: p = {p}, lens ({fl}, {gl})");
                // Every coefficient p − 1: the bound case.
                let (f1, g1) = (vec![p - 1; fl], vec![p - 1; gl]);
                assert_eq!(poly_mul(&f1, &g1, p).unwrap(), naive(&f1, &g1, p), "p − 1, p = {p}, lens ({fl}, {gl})");
            }
        }
        // Squaring through the same slice.
        let p = (1u64 << 63) - 25;
        let f = rand_vec(500, p, 3);
        assert_eq!(poly_mul(&f, &f, p).unwrap(), naive(&f, &f, p));
    }
}
