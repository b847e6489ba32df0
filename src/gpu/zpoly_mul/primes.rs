//! Prime choice and the constants of a prime list: the fewest 62-bit Fourier primes for a product
//! bound, the direct or split shape of a product (by a cost model), and the per-prime tables the
//! kernels read (limb weights, Montgomery constants, Garner's triangle, M and ⌊M/2⌋).
use crate::int::{ceil_log2, limbs_for_bits};
use crate::nmod::prime::{fourier_primes, invmod, mulmod, neg_inverse, shoup};
use crate::{Error, Result};
use std::sync::{Mutex, OnceLock};

/// Bits of the primes (p < 2^62 also gives the NTT its lazy reduction).
pub const PRIME_BITS: u32 = 62;
/// 2^MIN_K divides p − 1: transforms up to 2^32 points.
pub(super) const MIN_K: u32 = 32;
/// Most primes served (product coefficients up to about 2048·61 bits; the CRT is quadratic in k).
pub const MAX_PRIMES: usize = 2048;

/// The fewest primes (from [`PRIME_BITS`]-bit Fourier primes, largest first) whose product exceeds
/// 2^bits (Σ log2 p_i > bits + 10^−3; log2 is accurate to 10^−12 here).
pub fn primes_for(bits: u64) -> Result<Vec<u64>> {
    let list = prime_list((bits as usize / 61 + 2).min(MAX_PRIMES));
    let mut sum = 0.0f64;
    for (i, &p) in list.iter().enumerate() {
        sum += (p as f64).log2();
        if sum > bits as f64 + 1e-3 {
            return Ok(list[..=i].to_vec());
        }
    }
    Err(Error::SizeTooLarge(format!("{bits}-bit CRT modulus: the GPU product stops at {MAX_PRIMES} primes")))
}

/// The list of primes, at least `want` long (at most [`MAX_PRIMES`]).
fn prime_list(want: usize) -> std::sync::MutexGuard<'static, Vec<u64>> {
    static LIST: OnceLock<Mutex<Vec<u64>>> = OnceLock::new();
    let mut list = LIST.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if list.len() < want {
        *list = fourier_primes(PRIME_BITS, MIN_K, (2 * list.len()).clamp(want.max(16), MAX_PRIMES));
    }
    list
}

/// [`primes_for`] with the count k rounded up to a multiple of 2^(⌊log2 k⌋ − 4) (at most k/16 more
/// primes, within [`MAX_PRIMES`]): calls of many nearby sizes (the node shifts of a real-root
/// isolation) then share their device constants, which are kept per prime count.
pub(super) fn primes_rounded(bits: u64) -> Result<Vec<u64>> {
    let k = primes_for(bits)?.len();
    let unit = 1usize << (usize::BITS - 1 - k.leading_zeros()).saturating_sub(4);
    let want = k.next_multiple_of(unit).min(MAX_PRIMES);
    Ok(prime_list(want)[..want].to_vec())
}

/// Whether the GPU product serves coefficients of `bits` bits (see [`MAX_PRIMES`]).
pub fn supports(bits: u64) -> bool {
    bits + 2 < MAX_PRIMES as u64 * 61
}

/// (w, ⌊w·2^64/p⌋) flattened.
fn pairs(ws: impl Iterator<Item = (u64, u64)>) -> Vec<u64> {
    ws.flat_map(|(w, p)| [w, shoup(w, p)]).collect()
}

/// 2^(64t) mod p_i for t < limbs, prime after prime, with Shoup companions.
pub(super) fn limb_weights(primes: &[u64], limbs: usize) -> Vec<u64> {
    pairs(primes.iter().flat_map(|&p| {
        let r = ((1u128 << 64) % p as u128) as u64;
        (0..limbs).scan(1 % p, move |x, _| {
            let w = *x;
            *x = mulmod(*x, r, p);
            Some((w, p))
        })
    }))
}

/// Per prime (p, −p^(−1) mod 2^64, 2^64 mod p, its companion): the pointwise product's constants.
pub(super) fn montgomery(primes: &[u64]) -> Vec<u64> {
    primes
        .iter()
        .flat_map(|&p| {
            let r = ((1u128 << 64) % p as u128) as u64;
            [p, neg_inverse(p), r, shoup(r, p)]
        })
        .collect()
}

/// Garner's triangle: row i holds g_ij = P_j·P_i^(−1) mod p_i for j < i and g_ii = P_i^(−1) mod p_i
/// (P_j = p_0⋯p_(j−1)), each with its companion.
pub(super) fn garner_table(primes: &[u64]) -> Vec<u64> {
    let mut t = Vec::with_capacity(primes.len() * (primes.len() + 1));
    for (i, &p) in primes.iter().enumerate() {
        let mut pj = Vec::with_capacity(i + 1);
        let mut x = 1 % p;
        for &q in &primes[..i] {
            pj.push(x);
            x = mulmod(x, q % p, p);
        }
        let inv = invmod(x, p);
        t.extend(pairs(pj.iter().map(|&a| (mulmod(a, inv, p), p)).chain([(inv, p)])));
    }
    t
}

/// The limbs of M = Π p_i and of ⌊M/2⌋.
pub(super) fn modulus(primes: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let m = crate::nmod::crt::prime_product(primes);
    let half = (0..m.len()).map(|i| (m[i] >> 1) | m.get(i + 1).map_or(0, |&h| h << 63)).collect();
    (m, half)
}

/// Estimated device milliseconds of a product with k primes at length n and `pos` CRT positions, a
/// model with an H100's rates: 3 transforms of about 25 Gpoints/s, 4 µs a launch (host bound for
/// small n), the quadratic CRT at about 10^8 Shoup products per ms.
fn cost_ms(k: usize, n: usize, pos: usize) -> f64 {
    let passes = crate::gpu::ntt::passes(n.trailing_zeros(), 1 << 61) as f64;
    let (k, n) = (k as f64, n as f64);
    3.0 * k * n / 2.5e7 + (3.0 * k * passes + 4.0) * 0.004 + pos as f64 * k * k / 2e8
}

/// The shape of a product with `bits`-bit coefficients (`product_bits`), lengths la, lb and at
/// most `l` limbs a coefficient: (primes, T, d). Direct (T = 1): the coefficients' residues, primes
/// for 2^(bits+1). Split (T = 2l − 1): coefficient c becomes the l positions cT + j (its limbs, signed)
/// of a longer sequence, so that the digit products d_q = Σ f_(c,j) g_(c',j') at q = (c + c')T + j + j'
/// never mix coefficients (j + j' < T) and h_c = Σ_(j<T) d_(cT+j)·2^(64j); |d_q| < min(la,lb)·l·2^128
/// needs only 3 primes, at T times the length. The cheaper by [`cost_ms`].
pub(super) fn plan_shape(bits: u64, la: usize, lb: usize, l: usize) -> Result<(Vec<u64>, usize, usize)> {
    let hlen = la + lb - 1;
    let direct = primes_for(bits + 1);
    if l < 2 {
        return Ok((direct?, 1, 0));
    }
    let t = 2 * l - 1;
    let dbits = 128 + ceil_log2(la.min(lb)) + ceil_log2(l);
    let split = primes_for(dbits + 1)?;
    let pos = hlen.checked_mul(t).filter(|p| p.next_power_of_two() >> MIN_K == 0);
    let Some(pos) = pos else { return Ok((direct?, 1, 0)) };
    let split_ms = cost_ms(split.len(), pos.next_power_of_two().max(2), pos);
    match direct {
        Ok(p) if cost_ms(p.len(), hlen.next_power_of_two().max(2), hlen) <= split_ms => Ok((p, 1, 0)),
        _ => Ok((split, t, limbs_for_bits(dbits))),
    }
}
