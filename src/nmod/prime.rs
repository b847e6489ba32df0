//! Word-size primes: arithmetic mod p < 2^64, a deterministic primality test, Fourier primes
//! c·2^k + 1 and primitive roots of unity.
use crate::{invalid, Result};

/// a·b mod p.
#[inline]
pub fn mulmod(a: u64, b: u64, p: u64) -> u64 {
    ((a as u128 * b as u128) % p as u128) as u64
}

/// −m0^(−1) mod 2^64 for odd m0: Newton's x ← x(2 − m0·x) doubles the correct low bits, and x = m0
/// is right to 3 bits (m0² ≡ 1 mod 8), so five steps give 96 ≥ 64.
/// (The Montgomery constant of the GPU products.)
pub fn neg_inverse(m0: u64) -> u64 {
    let mut x = m0;
    for _ in 0..5 {
        x = x.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(x)));
    }
    x.wrapping_neg()
}

/// Shoup's constant ⌊w·2^64/p⌋ for w < p, used by [`mul_shoup`].
#[inline]
pub fn shoup(w: u64, p: u64) -> u64 {
    (((w as u128) << 64) / p as u128) as u64
}

/// a·w mod p for any a < 2^64, given w < p < 2^63 and ws = [`shoup`]`(w, p)` (Shoup 2007): with
/// q = ⌊a·ws/2^64⌋, a·w − q·p lies in [0, 2p), so one conditional subtraction finishes.
#[inline]
pub fn mul_shoup(a: u64, w: u64, ws: u64, p: u64) -> u64 {
    let q = ((a as u128 * ws as u128) >> 64) as u64;
    let r = a.wrapping_mul(w).wrapping_sub(q.wrapping_mul(p));
    if r >= p {
        r - p
    } else {
        r
    }
}

/// (a + b) mod p for a, b < p < 2^63.
#[inline]
pub fn addmod(a: u64, b: u64, p: u64) -> u64 {
    let s = a + b;
    if s >= p {
        s - p
    } else {
        s
    }
}

/// (a − b) mod p for a, b < p.
#[inline]
pub fn submod(a: u64, b: u64, p: u64) -> u64 {
    if a >= b {
        a - b
    } else {
        a + (p - b)
    }
}

/// `Ok` when p is an odd prime < 2^63 (the moduli of the nmod layer), `InvalidArgument` otherwise.
pub fn check_modulus(p: u64) -> Result<()> {
    if !(3..1 << 63).contains(&p) || !is_prime(p) {
        return invalid!("modulus {p} is not an odd prime below 2^63");
    }
    Ok(())
}

/// `Ok` when every entry of `x` is a residue in [0, p), `InvalidArgument` naming the first that is not.
pub fn check_reduced(x: &[u64], p: u64, what: &str) -> Result<()> {
    match x.iter().position(|&v| v >= p) {
        Some(i) => invalid!("{what}[{i}] = {} is not reduced modulo {p}", x[i]),
        None => Ok(()),
    }
}

/// a^e mod p.
pub fn powmod(mut a: u64, mut e: u64, p: u64) -> u64 {
    let mut r = 1 % p;
    a %= p;
    while e > 0 {
        if e & 1 == 1 {
            r = mulmod(r, a, p);
        }
        a = mulmod(a, a, p);
        e >>= 1;
    }
    r
}

/// a^(−1) mod p for p prime and a ≢ 0 (Fermat).
pub fn invmod(a: u64, p: u64) -> u64 {
    powmod(a, p - 2, p)
}

/// Deterministic primality for all n < 2^64 (Miller–Rabin with the first 12 prime bases).
pub fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for &q in &BASES {
        if n.is_multiple_of(q) {
            return n == q;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for &a in &BASES {
        let mut x = powmod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mulmod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// The primes p = c·2^k + 1 < 2^bits with k ≥ `min_k`, from the largest down; at most `count`.
/// (For `gpmp_nmod_fourier_prime` the caller passes the largest feasible k.)
pub fn fourier_primes(bits: u32, min_k: u32, count: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(count);
    if bits > 64 || min_k >= bits {
        return out;
    }
    let step = 1u64 << min_k;
    let top = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    // largest c with c·2^min_k + 1 ≤ top
    let mut c = (top - 1) >> min_k;
    while c > 0 && out.len() < count {
        let p = c * step + 1;
        if is_prime(p) {
            out.push(p);
        }
        c -= 1;
    }
    out
}

/// Largest `index` accepted by [`fourier_prime`] (the search costs about 45·index primality tests).
const FOURIER_INDEX_MAX: usize = 1 << 16;

/// The `index`-th (from 0) odd prime below 2^bits in the order "2-adic valuation k of p − 1
/// descending, then p descending": writing p = c·2^k + 1 with c odd, index 0 is the largest prime
/// with the largest k for which any exists, and the list moves to a smaller k only after every
/// prime with the current one. So index i has the i-th best transform capacity (NTTs of every
/// length up to 2^k) and distinct indices give distinct primes (CRT-ready). bits ∈ [20, 63].
pub fn fourier_prime(bits: u32, index: usize) -> Result<u64> {
    if !(20..=63).contains(&bits) {
        return invalid!("bits = {bits} is outside [20, 63]");
    }
    if index >= FOURIER_INDEX_MAX {
        return invalid!("index {index} is not below {FOURIER_INDEX_MAX}");
    }
    let top = (1u64 << bits) - 1; // p ≤ top
    let mut seen = 0;
    for k in (1..bits).rev() {
        let mut c = (top - 1) >> k;
        if c.is_multiple_of(2) {
            c = c.wrapping_sub(1);
        }
        while c >= 1 && c != u64::MAX {
            let p = (c << k) | 1;
            if is_prime(p) {
                if seen == index {
                    return Ok(p);
                }
                seen += 1;
            }
            c = c.wrapping_sub(2);
        }
    }
    invalid!("there are only {seen} odd primes below 2^{bits}")
}

/// A primitive n-th root of unity mod p (n a power of two dividing p − 1): g^((p−1)/n) for the
/// smallest g that is a quadratic non-residue (then ω^(n/2) = −1, so ω has order exactly n).
pub fn primitive_root_of_unity(n: u64, p: u64) -> Result<u64> {
    if !n.is_power_of_two() {
        return invalid!("root order {n} is not a power of two");
    }
    if p < 3 || !is_prime(p) {
        return invalid!("{p} is not an odd prime");
    }
    if !(p - 1).is_multiple_of(n) {
        return invalid!("{n} does not divide p - 1 = {}", p - 1);
    }
    if n == 1 {
        return Ok(1);
    }
    let g = (2..p).find(|&g| powmod(g, (p - 1) / 2, p) == p - 1).expect("a non-residue exists mod an odd prime");
    Ok(powmod(g, (p - 1) / n, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(n: u64) -> bool {
        n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
    }

    #[test]
    fn primality_agrees_with_trial_division() {
        for n in 0..20_000 {
            assert_eq!(is_prime(n), trial(n), "{n}");
        }
        // Strong pseudoprimes to several bases, and known large primes.
        for n in [3_215_031_751u64, 2_152_302_898_747, 3_474_749_660_383, 341_550_071_728_321, 3_825_123_056_546_413_051] {
            assert!(!is_prime(n), "{n}");
        }
        for p in [0xffff_ffff_0000_0001u64, (1 << 61) - 1, 29 * (1 << 57) + 1, 69 * (1 << 55) + 1, (1u64 << 63) - 25] {
            assert!(is_prime(p), "{p}");
        }
        assert!(!is_prime(u64::MAX));
    }

    #[test]
    fn fourier_primes_are_prime_and_ordered() {
        let ps = fourier_primes(50, 30, 5);
        assert_eq!(ps.len(), 5);
        for w in ps.windows(2) {
            assert!(w[0] > w[1]);
        }
        for &p in &ps {
            assert!(is_prime(p) && p < 1 << 50 && (p - 1) % (1 << 30) == 0);
        }
    }

    #[test]
    fn fourier_prime_order() {
        // Brute force over all primes below 2^20 for the first few ranks.
        let mut all: Vec<u64> = (3..1u64 << 20).filter(|&p| is_prime(p)).collect();
        all.sort_by_key(|&p| (std::cmp::Reverse((p - 1).trailing_zeros()), std::cmp::Reverse(p)));
        for i in [0usize, 1, 2, 3, 10, 100, 1000] {
            assert_eq!(fourier_prime(20, i).unwrap(), all[i], "index {i}");
        }
        assert_eq!(all[..2], [786_433, 65_537]); // 3·2^18 + 1, then 2^16 + 1
        assert_eq!(fourier_prime(63, 0).unwrap(), 29 * (1 << 57) + 1);
        let p = fourier_prime(63, 0).unwrap();
        assert!(p < 1 << 63 && is_prime(p) && (p - 1).trailing_zeros() >= 55, "{p}");
        let q = fourier_prime(63, 1).unwrap();
        assert!(q != p && (q - 1).trailing_zeros() <= (p - 1).trailing_zeros());
        assert!(fourier_prime(19, 0).is_err());
        assert!(fourier_prime(64, 0).is_err());
        assert!(fourier_prime(20, FOURIER_INDEX_MAX).is_err());
    }

    #[test]
    fn roots_have_exact_order() {
        for (n, p) in [(1u64 << 20, fourier_primes(62, 40, 1)[0]), (8, 17), (2, 3), (1 << 32, 0xffff_ffff_0000_0001)] {
            let w = primitive_root_of_unity(n, p).unwrap();
            assert_eq!(powmod(w, n, p), 1);
            if n > 1 {
                assert_eq!(powmod(w, n / 2, p), p - 1);
            }
        }
        assert!(primitive_root_of_unity(3, 17).is_err());
        assert!(primitive_root_of_unity(32, 17).is_err());
        assert!(primitive_root_of_unity(2, 15).is_err());
    }
}
