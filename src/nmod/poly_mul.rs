//! h = f·g in Z/pZ\[x\] for any odd prime p < 2^63.
//!
//! - min(flen, glen) ≤ [`SCHOOLBOOK_MAX`]: schoolbook, 128-bit accumulation.
//! - p a Fourier prime with 2n | p − 1 (n the padded length ≥ flen + glen − 1): one negacyclic
//!   tfhe-ntt product modulo p (exact because deg h < n).
//! - otherwise the product over Z is computed modulo r primes q_i < 2^50 with 2^33 | q_i − 1
//!   (tfhe-ntt's IFMA path) and rebuilt by Garner's CRT, then reduced mod p.
//!
//! **Bound.** With 0 ≤ f_i, g_j ≤ p − 1 each integer coefficient h_k = Σ f_i·g_(k−i) has at most
//! min(flen, glen) terms, so 0 ≤ h_k ≤ min(flen, glen)·(p − 1)² < 2^(126 + log2 min(flen, glen)).
//! If Q = Π q_i exceeds that bound, h_k is the unique residue in [0, Q) with the computed images,
//! which Garner's mixed-radix form v_0 + v_1·q_0 + v_2·q_0·q_1 + … recovers exactly; h_k mod p is then
//! Σ v_i·(q_0⋯q_(i−1) mod p). r is chosen from that exact comparison: every q_i > 2^50 − 2^40 > 2^49.99, so
//! Q > 2^149.99 for r = 3, which covers every p < 2^63 whenever min(flen, glen) ≤ 2^23 (so every
//! product of length ≤ 2^24); r = 4 covers min(flen, glen) < 2^73.
use super::plan::{plan, Plan, MIN_NTT};
use super::prime::{addmod, check_modulus, check_reduced, fourier_primes, invmod, mul_shoup, mulmod, shoup, submod};
use crate::int::try_zeroed;
use crate::{Error, Result};
use rayon::prelude::*;
use std::sync::OnceLock;

/// Schoolbook below this shorter length.
const SCHOOLBOOK_MAX: usize = 24;
/// 2-adicity required of the CRT primes: transforms up to n = 2^32.
const CRT_K: u32 = 33;
/// At most this many CRT primes (enough for min(flen, glen) < 2^73).
const MAX_CRT: usize = 4;
/// Output chunk handled by one rayon task in the pointwise passes.
const GRAIN: usize = 1 << 13;

/// The CRT primes: the largest primes below 2^50 that are 1 mod 2^33, largest first.
pub fn crt_primes() -> &'static [u64] {
    static P: OnceLock<Vec<u64>> = OnceLock::new();
    P.get_or_init(|| fourier_primes(50, CRT_K, MAX_CRT))
}

/// f·g mod p (flen + glen − 1 coefficients; empty when f or g is). Entries must be < p.
pub fn poly_mul(f: &[u64], g: &[u64], p: u64) -> Result<Vec<u64>> {
    check_modulus(p)?;
    check_reduced(f, p, "f")?;
    check_reduced(g, p, "g")?;
    if f.is_empty() || g.is_empty() {
        return Ok(Vec::new());
    }
    let hlen = f.len() + g.len() - 1;
    if f.len().min(g.len()) <= SCHOOLBOOK_MAX {
        return schoolbook(f, g, p);
    }
    let n = hlen.next_power_of_two().max(MIN_NTT);
    // (Tested first: tfhe-ntt's plan constructor searches for a 2n-th root before failing.)
    if (p - 1) % (2 * n as u64) == 0 {
        let mut h = ntt_product(&*plan(n, p)?, f, g, None)?;
        h.truncate(hlen);
        return Ok(h);
    }
    crt_product(f, g, p, n, hlen)
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

/// The length-n negacyclic product of f and g modulo the plan's prime q (= the plain product when
/// flen + glen − 1 ≤ n). Entries are first reduced mod q when `reduce` gives q's Shoup constant
/// ⌊2^64/q⌋ (inputs are then any u64), else they must already be < q.
fn ntt_product(pl: &Plan, f: &[u64], g: &[u64], reduce: Option<u64>) -> Result<Vec<u64>> {
    let (n, q) = (pl.ntt_size(), pl.modulus());
    let load = |src: &[u64]| -> Result<Vec<u64>> {
        let mut v = try_zeroed::<u64>(n)?;
        match reduce {
            Some(qs) => v.iter_mut().zip(src).for_each(|(d, &s)| *d = mul_shoup(s, 1, qs, q)),
            None => v[..src.len()].copy_from_slice(src),
        }
        Ok(v)
    };
    let (ff, gg) = rayon::join(
        || load(f).map(|mut v| {
            pl.fwd(&mut v);
            v
        }),
        || load(g).map(|mut v| {
            pl.fwd(&mut v);
            v
        }),
    );
    let (mut ff, gg) = (ff?, gg?);
    pl.mul_assign_normalize(&mut ff, &gg);
    drop(gg);
    pl.inv(&mut ff);
    Ok(ff)
}

/// Π_(i<r) q_i > bound (little-endian limbs), compared exactly.
fn exceeds(qs: &[u64], bound: &[u64; 3]) -> bool {
    let mut prod = [0u64; MAX_CRT + 1];
    prod[0] = 1;
    for &q in qs {
        let mut carry = 0u128;
        for d in prod.iter_mut() {
            let t = *d as u128 * q as u128 + carry;
            *d = t as u64;
            carry = t >> 64;
        }
    }
    if prod[3..].iter().any(|&d| d != 0) {
        return true;
    }
    (0..3).rev().map(|i| prod[i].cmp(&bound[i])).find(|o| o.is_ne()) == Some(std::cmp::Ordering::Greater)
}

/// min(flen, glen)·(p − 1)², the bound on the coefficients of the integer product, as 3 limbs.
fn coeff_bound(minlen: usize, p: u64) -> [u64; 3] {
    let sq = (p - 1) as u128 * (p - 1) as u128;
    let lo = (sq as u64) as u128 * minlen as u128;
    let hi = (sq >> 64) * minlen as u128 + (lo >> 64);
    [lo as u64, hi as u64, (hi >> 64) as u64]
}

/// Garner's constants for r ≤ [`MAX_CRT`] primes q_0..q_(r−1) and the target p, each multiplier
/// with its Shoup constant.
struct Garner {
    q: [u64; MAX_CRT],
    /// (q_0⋯q_(i−1))^(−1) mod q_i (index 0 unused).
    inv: [(u64, u64); MAX_CRT],
    /// qmod\[i\]\[j\] = q_j mod q_i for j < i.
    qmod: [[(u64, u64); MAX_CRT]; MAX_CRT],
    /// q_0⋯q_(i−1) mod p.
    mp: [(u64, u64); MAX_CRT],
    p: u64,
}

impl Garner {
    fn new(q: &[u64], p: u64) -> Self {
        let with = |v: u64, m: u64| (v, shoup(v, m));
        let mut g = Garner { q: [1; MAX_CRT], inv: [(0, 0); MAX_CRT], qmod: [[(0, 0); MAX_CRT]; MAX_CRT], mp: [(0, 0); MAX_CRT], p };
        let mut acc = 1 % p;
        for (i, &qi) in q.iter().enumerate() {
            g.q[i] = qi;
            let prod = q[..i].iter().fold(1u64, |a, &b| mulmod(a, b % qi, qi));
            g.inv[i] = with(invmod(prod, qi), qi);
            for (j, &qj) in q[..i].iter().enumerate() {
                g.qmod[i][j] = with(qj % qi, qi);
            }
            g.mp[i] = with(acc, p);
            acc = mulmod(acc, qi % p, p);
        }
        g
    }

    /// The integer with residues c_i (< q_i), which must lie in [0, Π q_i), reduced mod p: mixed
    /// radix digits v_i = (c_i − (v_0 + v_1·q_0 + … + v_(i−1)·q_0⋯q_(i−2)))·(q_0⋯q_(i−1))^(−1) mod q_i,
    /// then Σ v_i·(q_0⋯q_(i−1) mod p).
    #[inline(always)]
    fn combine<const R: usize>(&self, c: [u64; R]) -> u64 {
        let mut v = [0u64; R];
        v[0] = c[0];
        for i in 1..R {
            let qi = self.q[i];
            // Every v_j < q_j < 2^50 < 2·q_i: one conditional subtraction reduces it mod q_i.
            let red = |x: u64| if x >= qi { x - qi } else { x };
            let mut t = red(v[i - 1]);
            for j in (0..i - 1).rev() {
                let (m, ms) = self.qmod[i][j];
                t = addmod(mul_shoup(t, m, ms, qi), red(v[j]), qi);
            }
            let (iv, ivs) = self.inv[i];
            v[i] = mul_shoup(submod(c[i], t, qi), iv, ivs, qi);
        }
        (0..R).fold(0, |acc, i| addmod(acc, mul_shoup(v[i], self.mp[i].0, self.mp[i].1, self.p), self.p))
    }

    /// h\[k\] = the CRT of images\[0..R\]\[k\] reduced mod p, in parallel chunks.
    fn rebuild<const R: usize>(&self, h: &mut [u64], images: &[Vec<u64>]) {
        h.par_chunks_mut(GRAIN).enumerate().for_each(|(b, out)| {
            let at = b * GRAIN;
            let ims: [&[u64]; R] = std::array::from_fn(|i| &images[i][at..at + out.len()]);
            for (k, hk) in out.iter_mut().enumerate() {
                *hk = self.combine::<R>(std::array::from_fn(|i| ims[i][k]));
            }
        });
    }
}

/// Multi-modular product: r CRT primes (fewest with Π q_i > the coefficient bound), in parallel.
fn crt_product(f: &[u64], g: &[u64], p: u64, n: usize, hlen: usize) -> Result<Vec<u64>> {
    let all = crt_primes();
    let bound = coeff_bound(f.len().min(g.len()), p);
    let r = (1..=all.len())
        .find(|&r| exceeds(&all[..r], &bound))
        .ok_or_else(|| Error::SizeTooLarge(format!("product of length {hlen} needs more than {MAX_CRT} CRT primes")))?;
    if n > 1 << (CRT_K - 1) {
        return Err(Error::SizeTooLarge(format!("product of length {hlen} exceeds the largest transform 2^{}", CRT_K - 1)));
    }
    let qs = &all[..r];
    let images = qs
        .par_iter()
        .map(|&q| {
            let pl = plan(n, q)?;
            let mut h = ntt_product(&pl, f, g, Some(shoup(1, q)))?;
            h.truncate(hlen);
            Ok(h)
        })
        .collect::<Result<Vec<Vec<u64>>>>()?;
    let garner = Garner::new(qs, p);
    let mut h = try_zeroed::<u64>(hlen)?;
    match r {
        1 => garner.rebuild::<1>(&mut h, &images),
        2 => garner.rebuild::<2>(&mut h, &images),
        3 => garner.rebuild::<3>(&mut h, &images),
        _ => garner.rebuild::<MAX_CRT>(&mut h, &images),
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::super::prime::fourier_primes;
    use super::*;

    fn naive(f: &[u64], g: &[u64], p: u64) -> Vec<u64> {
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

    fn rand_vec(n: usize, p: u64, seed: u64) -> Vec<u64> {
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
    fn crt_primes_fit_the_bound() {
        let q = crt_primes();
        assert_eq!(q.len(), MAX_CRT);
        assert!(q.iter().all(|&q| q < 1 << 50 && q > (1 << 50) - (1 << 40) && (q - 1) % (1 << CRT_K) == 0));
        // Three primes cover p just below 2^63 with min(flen, glen) = 2^23.
        assert!(exceeds(&q[..3], &coeff_bound(1 << 23, (1 << 63) - 25)));
        assert!(!exceeds(&q[..2], &coeff_bound(1, (1 << 63) - 25)));
    }

    #[test]
    fn matches_schoolbook() {
        let primes = [
            (1u64 << 63) - 25,                // not Fourier: CRT
            fourier_primes(63, 20, 1)[0],     // Fourier, close to 2^63
            fourier_primes(50, 30, 1)[0],     // Fourier, IFMA
            257,                              // 2-adicity 8: CRT for n > 128
            7681,
            (1u64 << 61) - 1,                 // Mersenne, 2-adicity 1
        ];
        let lens = [(0usize, 5usize), (1, 1), (1, 2), (2, 2), (3, 1), (25, 25), (25, 200), (300, 40), (129, 128), (1000, 1000), (2049, 31)];
        for &p in &primes {
            for &(fl, gl) in &lens {
                let f = rand_vec(fl, p, fl as u64 * 7 + p);
                let g = rand_vec(gl, p, gl as u64 * 13 + 1);
                assert_eq!(poly_mul(&f, &g, p).unwrap(), naive(&f, &g, p), "p = {p}, lens ({fl}, {gl})");
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

    #[test]
    fn bad_inputs_are_rejected() {
        assert!(poly_mul(&[1], &[1], 15).is_err());
        assert!(poly_mul(&[1], &[1], 2).is_err());
        assert!(poly_mul(&[1], &[1], (1 << 63) + 29).is_err());
        assert!(poly_mul(&[7], &[1], 7).is_err());
        assert!(poly_mul(&[1], &[1, 2, 9], 7).is_err());
    }
}
