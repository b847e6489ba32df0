//! Fast reduction modulo a fixed odd p < 2^63 without division: Shoup's multiplication by a
//! precomputed constant ([Shoup], NTL `MulModPrecon`) and the two-word reduction built on it.
//!
//! For b < p and b' = ⌊b·2^64/p⌋, q = ⌊a·b'/2^64⌋ satisfies a·b/p − 2 < q ≤ a·b/p for every
//! a < 2^64, so a·b − q·p ∈ [0, 2p) and one conditional subtraction gives a·b mod p.
use crate::int::IntRef;

/// An odd modulus p < 2^63 with its precomputed constants.
#[derive(Clone, Copy, Debug)]
pub struct Modulus {
    pub p: u64,
    /// ⌊2^64/p⌋ = the Shoup constant of 1.
    one_sh: u64,
    /// 2^64 mod p and its Shoup constant.
    r64: u64,
    r64_sh: u64,
    /// 2^128 mod p and its Shoup constant.
    r128: u64,
    r128_sh: u64,
}

impl Modulus {
    pub fn new(p: u64) -> Self {
        assert!(p > 2 && p < 1 << 63 && p % 2 == 1, "Modulus::new({p})");
        let r64 = ((1u128 << 64) % p as u128) as u64;
        let r128 = ((r64 as u128 * r64 as u128) % p as u128) as u64;
        let mut m = Modulus { p, one_sh: 0, r64, r64_sh: 0, r128, r128_sh: 0 };
        m.one_sh = m.shoup(1);
        m.r64_sh = m.shoup(r64);
        m.r128_sh = m.shoup(r128);
        m
    }

    /// ⌊b·2^64/p⌋ for b < p.
    pub fn shoup(&self, b: u64) -> u64 {
        super::prime::shoup(b, self.p)
    }

    /// a·b mod p for any a < 2^64, b < p, b_sh = `shoup(b)`.
    #[inline(always)]
    pub fn mul_shoup(&self, a: u64, b: u64, b_sh: u64) -> u64 {
        let q = ((a as u128 * b_sh as u128) >> 64) as u64;
        let r = a.wrapping_mul(b).wrapping_sub(q.wrapping_mul(self.p));
        // Branch-free conditional subtraction (r − p wraps above r when r < p).
        r.min(r.wrapping_sub(self.p))
    }

    /// x mod p.
    #[inline(always)]
    pub fn reduce(&self, x: u64) -> u64 {
        self.mul_shoup(x, 1, self.one_sh)
    }

    /// x mod p for any x < 2^128: (x_hi·(2^64 mod p) + x_lo) mod p.
    #[inline(always)]
    pub fn reduce_u128(&self, x: u128) -> u64 {
        let h = self.mul_shoup((x >> 64) as u64, self.r64, self.r64_sh);
        let l = self.reduce(x as u64);
        self.add(h, l)
    }

    /// (hi·2^128 + lo) mod p for any hi < 2^64, lo < 2^128.
    #[inline(always)]
    pub fn reduce_u192(&self, hi: u64, lo: u128) -> u64 {
        let l = self.reduce_u128(lo);
        if hi == 0 {
            return l;
        }
        self.add(l, self.mul_shoup(hi, self.r128, self.r128_sh))
    }

    /// a + b mod p for a, b < p.
    #[inline(always)]
    pub fn add(&self, a: u64, b: u64) -> u64 {
        let s = a + b;
        s.min(s.wrapping_sub(self.p))
    }

    /// a − b mod p for a, b < p.
    #[inline(always)]
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        let d = a.wrapping_sub(b);
        d.min(d.wrapping_add(self.p))
    }

    /// −a mod p for a < p.
    #[inline(always)]
    pub fn neg(&self, a: u64) -> u64 {
        if a == 0 {
            0
        } else {
            self.p - a
        }
    }

    /// 2^(64j) mod p for j < len: the weights that reduce a `len`-limb integer by a dot product.
    pub fn limb_weights(&self, len: usize) -> Vec<u64> {
        let mut w = Vec::with_capacity(len);
        let mut x = 1 % self.p;
        for _ in 0..len {
            w.push(x);
            x = self.mul_shoup(x, self.r64, self.r64_sh);
        }
        w
    }

    /// v mod p in \[0, p) for a signed v, given `w = limb_weights(≥ v.mag.len())`.
    pub fn reduce_signed(&self, v: crate::int::IntRef, w: &[u64]) -> u64 {
        let r = self.reduce_limbs(v.mag, w);
        if v.neg {
            self.neg(r)
        } else {
            r
        }
    }

    /// (Σ mag\[j\]·2^(64j)) mod p, given `w = limb_weights(≥ mag.len())`: a dot product in u128,
    /// reduced every 2^13 terms (each term < 2^64·p ≤ 2^114 when p < 2^50; in general we reduce
    /// every term when p ≥ 2^50).
    #[inline]
    pub fn reduce_limbs(&self, mag: &[u64], w: &[u64]) -> u64 {
        match mag.len() {
            0 => 0,
            1 => self.reduce(mag[0]),
            _ => {
                let chunk = if self.p < 1 << 50 { 1 << 13 } else { 1 };
                let mut r = 0u64;
                for (ms, ws) in mag.chunks(chunk).zip(w.chunks(chunk)) {
                    let s: u128 = ms.iter().zip(ws).map(|(&m, &x)| m as u128 * x as u128).sum();
                    r = self.add(r, self.reduce_u128(s));
                }
                r
            }
        }
    }
}

/// The fill function ([`super::convolution::Fill`]) of a vector of integers: c_j mod p by a dot
/// product of the limbs with 2^(64i) mod p ([`Modulus::reduce_limbs`]), negated for negative c_j;
/// residues in [0, p).
pub fn ints_mod<'a>(c: &'a [IntRef]) -> impl Fn(usize, &Modulus, usize, &mut [u64]) + Sync + 'a {
    let limbs = c.iter().map(|x| x.mag.len()).max().unwrap_or(0);
    move |_, m, first, out| {
        if limbs <= 1 {
            for (o, x) in out.iter_mut().zip(&c[first..]) {
                let r = x.mag.first().map_or(0, |&l| m.reduce(l));
                *o = if x.neg { m.neg(r) } else { r };
            }
            return;
        }
        let w = m.limb_weights(limbs);
        for (o, x) in out.iter_mut().zip(&c[first..]) {
            let r = m.reduce_limbs(x.mag, &w);
            *o = if x.neg { m.neg(r) } else { r };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    #[test]
    fn reductions_match_u128_remainder() {
        let mut rng = Rng(7);
        for &p in &[3u64, 1_125_899_865_948_161, (1 << 50) - 27, 29 * (1 << 57) + 1, (1 << 63) - 25] {
            let m = Modulus::new(p);
            for t in 0..2000 {
                let (a, x) = match t {
                    0 => (u64::MAX, u128::MAX),
                    1 => (0, 0),
                    _ => (rng.next(), (rng.next() as u128) << 64 | rng.next() as u128),
                };
                let b = rng.below(p);
                assert_eq!(m.mul_shoup(a, b, m.shoup(b)), ((a as u128 * b as u128) % p as u128) as u64);
                assert_eq!(m.reduce(a), a % p);
                assert_eq!(m.reduce_u128(x), (x % p as u128) as u64);
                let h = rng.next();
                let want =
                    (((h as u128 % p as u128) * (((1u128 << 64) % p as u128).pow(2) % p as u128)) % p as u128 + x % p as u128) % p as u128;
                assert_eq!(m.reduce_u192(h, x), want as u64);
            }
            let mag: Vec<u64> = (0..40).map(|i| if i % 3 == 0 { u64::MAX } else { rng.next() }).collect();
            let want = mag.iter().rev().fold(0u128, |r, &l| ((r << 64) | l as u128) % p as u128) as u64;
            assert_eq!(m.reduce_limbs(&mag, &m.limb_weights(mag.len())), want);
        }
    }
}
