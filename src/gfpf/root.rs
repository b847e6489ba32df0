//! Powers, inverses and roots of unity. For N ≥ 2k the root returned is the ω of FindOmega
//! (Alg. 1, rebuilt in §4 of the reference): g = α^((p−1)/N) for the first α = 2, 3, … with
//! g^(N/2) = −1, then ω = g^j for the odd j with (g^(N/2k))^j = r, so that ω^(N/2k) = r and every
//! K-point sub-DFT (K = 2k) of the FFT runs at a power of r. For N ≤ 2k, ω = r^(2k/N).
use super::Gfpf;
use crate::{invalid, Result};

/// ⌊a / 2^b⌋ for limbs a.
fn shr_limbs(a: &[u64], b: u64) -> Vec<u64> {
    let (w, s) = ((b / 64) as usize, (b % 64) as u32);
    let a = &a[w.min(a.len())..];
    (0..a.len()).map(|i| if s == 0 { a[i] } else { (a[i] >> s) | a.get(i + 1).map_or(0, |&h| h << (64 - s)) }).collect()
}

impl Gfpf {
    /// z = x^e, e given as limbs (left-to-right square and multiply).
    pub fn pow(&self, z: &mut [u64], x: &[u64], e: &[u64]) {
        let mut t = vec![0u64; self.k];
        z.fill(0);
        z[0] = 1;
        for &limb in e.iter().rev() {
            for b in (0..64).rev() {
                self.mul(&mut t, z, z);
                if (limb >> b) & 1 == 1 {
                    self.mul(z, &t, x);
                } else {
                    z.copy_from_slice(&t);
                }
            }
        }
    }

    /// x^e as a new vector.
    pub fn pow_u64(&self, x: &[u64], e: u64) -> Vec<u64> {
        let mut z = vec![0u64; self.k];
        self.pow(&mut z, x, &[e]);
        z
    }

    /// 1/x (x^(p−2)); `InvalidArgument` for x = 0.
    pub fn inv(&self, x: &[u64]) -> Result<Vec<u64>> {
        if x.iter().all(|&d| d == 0) {
            return invalid!("0 has no inverse");
        }
        let mut e = self.p.clone(); // p − 2 (the low limb of p can be 1: borrow)
        let mut i = 0;
        let (d, mut b) = e[0].overflowing_sub(2);
        e[0] = d;
        while b {
            i += 1;
            (e[i], b) = e[i].overflowing_sub(1);
        }
        let mut z = vec![0u64; self.k];
        self.pow(&mut z, x, &e);
        Ok(z)
    }

    /// r^t for 0 ≤ t < 2k as a digit vector.
    pub fn r_pow(&self, t: usize) -> Vec<u64> {
        let mut z = vec![0u64; self.k];
        let mut one = vec![0u64; self.k];
        one[0] = 1;
        self.mul_pow_r(&mut z, &one, t % (2 * self.k));
        z
    }

    /// The t < 2k with r^t = x, if x is a 2k-th root of unity.
    pub fn log_r(&self, x: &[u64]) -> Option<usize> {
        (0..2 * self.k).find(|&t| self.r_pow(t) == x)
    }

    /// A primitive N-th root of unity, N a power of 2 with N | p − 1; ω^(N/2k) = r when N ≥ 2k.
    pub fn root_of_unity(&self, n: usize) -> Result<Vec<u64>> {
        if !n.is_power_of_two() || n.trailing_zeros() as u64 > self.two_adicity() {
            return invalid!("N = {n} is not a power of 2 dividing p − 1 (v2(p − 1) = {})", self.two_adicity());
        }
        let k2 = 2 * self.k;
        if n <= k2 {
            return Ok(self.r_pow(k2 / n % k2));
        }
        let mut pm1 = self.p.clone();
        pm1[0] -= 1;
        let e = shr_limbs(&pm1, n.trailing_zeros() as u64);
        let r1 = self.r_pow(1);
        let mut g = vec![0u64; self.k];
        for a in 2u64.. {
            self.pow(&mut g, &self.from_u64(a), &e);
            if !self.is_minus_one(&self.pow_u64(&g, n as u64 / 2)) {
                continue;
            }
            let h = self.pow_u64(&g, (n / k2) as u64);
            let h2 = self.pow_u64(&h, 2);
            let (mut hj, mut t) = (h, vec![0u64; self.k]);
            for j in (1..k2).step_by(2) {
                if hj == r1 {
                    return Ok(self.pow_u64(&g, j as u64));
                }
                self.mul(&mut t, &hj, &h2);
                std::mem::swap(&mut hj, &mut t);
            }
            unreachable!("g^(N/2k) is a primitive 2k-th root, an odd power of r");
        }
        unreachable!()
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::gfpf::{fields, random};
    use crate::testing::Rng;

    #[test]
    fn roots_have_the_required_orders() {
        for f in fields() {
            let (k, r1) = (f.k(), f.r_pow(1));
            let lg_max = f.two_adicity().min(20);
            for lg in 0..=lg_max {
                let n = 1usize << lg;
                let w = f.root_of_unity(n).unwrap();
                assert!(f.is_canonical(&w));
                assert_eq!(f.pow_u64(&w, n as u64), f.from_u64(1), "ω^N = 1, N = {n}, r = {}", f.radix());
                if n >= 2 {
                    assert!(f.is_minus_one(&f.pow_u64(&w, n as u64 / 2)), "ω^(N/2) = −1, N = {n}");
                }
                if n >= 2 * k {
                    assert_eq!(f.pow_u64(&w, (n / (2 * k)) as u64), r1, "ω^(N/2k) = r, N = {n}");
                }
            }
            assert!(f.root_of_unity(3).is_err());
            if f.two_adicity() < 60 {
                assert!(f.root_of_unity(1 << (f.two_adicity() + 1)).is_err());
            }
        }
    }

    #[test]
    fn inverse_and_log_r() {
        let mut rng = Rng(9);
        for f in fields() {
            let x = random(&f, &mut rng);
            if x.iter().all(|&d| d == 0) {
                continue;
            }
            let xi = f.inv(&x).unwrap();
            let mut z = vec![0u64; f.k()];
            f.mul(&mut z, &x, &xi);
            assert_eq!(z, f.from_u64(1));
            for t in 0..2 * f.k() {
                assert_eq!(f.log_r(&f.r_pow(t)), Some(t));
            }
            assert!(f.inv(&vec![0; f.k()]).is_err());
        }
    }
}
