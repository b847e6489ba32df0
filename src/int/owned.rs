//! An owned signed integer in Rust memory, for the few exact scalar computations of the polynomial
//! operations (evaluations at rational points, interval endpoints) that run on worker threads, where
//! GMP's `mpz_*` functions may not allocate. Products go through [`super::mul_mag`], quotients
//! through [`super::div_rem_mag`]; sums and shifts through GMP's non-allocating `mpn` functions.
use super::{div_rem_mag, mag_bits, mul_mag, normalized, IntRef};
use crate::Result;
use gmp_mpfr_sys::gmp;
use std::cmp::Ordering;

/// (−1)^neg · mag, mag without high zero limbs, zero with neg = false.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Int {
    pub neg: bool,
    pub mag: Vec<u64>,
}

impl Int {
    /// A copy of v.
    pub fn from_ref(v: IntRef) -> Self {
        Int { neg: v.neg, mag: v.mag.to_vec() }
    }

    /// The non-negative integer x.
    pub fn from_u64(x: u64) -> Self {
        Int { neg: false, mag: if x == 0 { vec![] } else { vec![x] } }
    }

    pub fn view(&self) -> IntRef<'_> {
        IntRef { neg: self.neg, mag: &self.mag }
    }

    pub fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    /// −1, 0 or 1.
    pub fn signum(&self) -> i32 {
        if self.mag.is_empty() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    fn normalize(&mut self) {
        let n = normalized(&self.mag).len();
        self.mag.truncate(n);
        if n == 0 {
            self.neg = false;
        }
    }

    /// self·y.
    pub fn mul(&self, y: &Int) -> Result<Int> {
        let mut r = Int { neg: self.neg != y.neg, mag: mul_mag(&self.mag, &y.mag)? };
        r.normalize();
        Ok(r)
    }

    /// self·2^s.
    pub fn shl(&self, s: u64) -> Int {
        if self.is_zero() {
            return Int::default();
        }
        let (limbs, bits) = ((s / 64) as usize, (s % 64) as u32);
        let mut mag = vec![0u64; limbs + self.mag.len() + 1];
        let n = self.mag.len();
        if bits == 0 {
            mag[limbs..limbs + n].copy_from_slice(&self.mag);
        } else {
            // SAFETY: the destination has n + 1 limbs from `limbs`, the source n; no overlap.
            let hi = unsafe { gmp::mpn_lshift(mag[limbs..].as_mut_ptr(), self.mag.as_ptr(), n as _, bits) };
            mag[limbs + n] = hi;
        }
        let mut r = Int { neg: self.neg, mag };
        r.normalize();
        r
    }

    /// self/2^s rounded toward zero.
    pub fn shr(&self, s: u64) -> Int {
        let limbs = (s / 64) as usize;
        if limbs >= self.mag.len() {
            return Int::default();
        }
        let mut mag = self.mag[limbs..].to_vec();
        let bits = (s % 64) as u32;
        if bits > 0 {
            // SAFETY: in place on mag.len() ≥ 1 limbs (allowed), 0 < bits < 64.
            unsafe { gmp::mpn_rshift(mag.as_mut_ptr(), mag.as_ptr(), mag.len() as _, bits) };
        }
        let mut r = Int { neg: self.neg, mag };
        r.normalize();
        r
    }

    /// self + y.
    pub fn add(&self, y: IntRef) -> Int {
        let x = self.view();
        let (a, b) = if x.mag.len() >= y.mag.len() { (x, y) } else { (y, x) };
        if b.mag.is_empty() {
            return Int::from_ref(a);
        }
        let (al, bl) = (a.mag.len(), b.mag.len());
        let mut mag = vec![0u64; al + 1];
        // SAFETY: mag has al + 1 limbs, al ≥ bl ≥ 1, no overlap with a or b.
        let neg = unsafe {
            if a.neg == b.neg {
                mag[al] = gmp::mpn_add(mag.as_mut_ptr(), a.mag.as_ptr(), al as _, b.mag.as_ptr(), bl as _);
                a.neg
            } else {
                match cmp_mag(a.mag, b.mag) {
                    Ordering::Equal => return Int::default(),
                    Ordering::Greater => {
                        gmp::mpn_sub(mag.as_mut_ptr(), a.mag.as_ptr(), al as _, b.mag.as_ptr(), bl as _);
                        a.neg
                    }
                    Ordering::Less => {
                        // |b| > |a| with al ≥ bl: equal lengths.
                        gmp::mpn_sub_n(mag.as_mut_ptr(), b.mag.as_ptr(), a.mag.as_ptr(), al as _);
                        b.neg
                    }
                }
            }
        };
        let mut r = Int { neg, mag };
        r.normalize();
        r
    }

    /// −self.
    pub fn neg(&self) -> Int {
        Int { neg: !self.neg && !self.is_zero(), mag: self.mag.clone() }
    }

    /// self − y.
    pub fn sub(&self, y: IntRef) -> Int {
        self.add(IntRef { neg: !y.neg && !y.mag.is_empty(), mag: y.mag })
    }

    /// Bits of |self| (0 for zero).
    pub fn bits(&self) -> u64 {
        mag_bits(&self.mag)
    }

    /// (q, r) with self = q·y + r, q rounded toward zero, r of self's sign and |r| < |y| (y ≠ 0).
    pub fn div_rem(&self, y: &Int) -> Result<(Int, Int)> {
        let (q, r) = div_rem_mag(&self.mag, &y.mag)?;
        let mut q = Int { neg: self.neg != y.neg, mag: q };
        let mut r = Int { neg: self.neg, mag: r };
        q.normalize();
        r.normalize();
        Ok((q, r))
    }

    /// gcd(|self|, |y|) ≥ 0 by Euclid's algorithm.
    pub fn gcd(&self, y: &Int) -> Result<Int> {
        let (mut a, mut b) = (Int { neg: false, mag: self.mag.clone() }, Int { neg: false, mag: y.mag.clone() });
        while !b.is_zero() {
            let r = a.div_rem(&b)?.1;
            a = std::mem::replace(&mut b, r);
        }
        Ok(a)
    }
}

/// Order by value.
impl Ord for Int {
    fn cmp(&self, y: &Int) -> Ordering {
        cmp_signed(self.view(), y.view())
    }
}

impl PartialOrd for Int {
    fn partial_cmp(&self, y: &Int) -> Option<Ordering> {
        Some(self.cmp(y))
    }
}

/// x vs y by value (normalized magnitudes).
pub fn cmp_signed(x: IntRef, y: IntRef) -> Ordering {
    match (x.neg, y.neg) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => cmp_mag(x.mag, y.mag),
        (true, true) => cmp_mag(y.mag, x.mag),
    }
}

/// |x| vs |y| for normalized magnitudes.
pub fn cmp_mag(x: &[u64], y: &[u64]) -> Ordering {
    x.len().cmp(&y.len()).then_with(|| {
        for i in (0..x.len()).rev() {
            match x[i].cmp(&y[i]) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        Ordering::Equal
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{coef, Mpz, Rng};

    #[test]
    fn arithmetic_matches_gmp() {
        let mut rng = Rng(41);
        for round in 0..400 {
            let (ba, bb) = (rng.below(300), if round % 5 == 0 { rng.below(3) } else { rng.below(300) });
            let (ka, kb) = (rng.below(4), rng.below(4));
            let a = coef(&mut rng, ba, ka);
            let b = if round % 7 == 0 { a.clone() } else { coef(&mut rng, bb, kb) };
            let (x, y) = (Int::from_ref(IntRef::new(a.0, &a.1)), Int::from_ref(IntRef::new(b.0, &b.1)));
            let (za, zb) = (Mpz::from_coef(x.view()), Mpz::from_coef(y.view()));
            let (mut s, mut p) = (Mpz::new(), Mpz::new());
            // SAFETY: initialised.
            unsafe {
                gmp::mpz_add(&mut s.0, &za.0, &zb.0);
                gmp::mpz_mul(&mut p.0, &za.0, &zb.0);
            }
            assert_eq!(x.add(y.view()).view(), Int::from_ref(IntRef::new(s.neg(), s.mag())).view(), "sum {round}");
            assert_eq!(x.mul(&y).unwrap().view(), IntRef::new(p.neg(), p.mag()), "product {round}");
            // x − x = 0 through the signed sum.
            let negx = Int { neg: !x.neg && !x.is_zero(), mag: x.mag.clone() };
            assert!(x.add(negx.view()).is_zero());
            let sh = rng.below(200);
            let mut t = Mpz::new();
            // SAFETY: initialised.
            unsafe { gmp::mpz_mul_2exp(&mut t.0, &za.0, sh) };
            assert_eq!(x.shl(sh).view(), IntRef::new(t.neg(), t.mag()), "shift {round}");
        }
    }

    /// Truncated quotients and remainders (all sign combinations), gcd, right shifts and the order
    /// against GMP.
    #[test]
    fn division_gcd_shift_and_order_match_gmp() {
        let mut rng = Rng(43);
        let int = |c: &(bool, Vec<u64>)| Int::from_ref(IntRef::new(c.0, &c.1));
        for round in 0..300 {
            let (ba, bb) = (rng.below(3000) + 1, if round % 3 == 0 { rng.below(70) + 1 } else { rng.below(3000) + 1 });
            let (ka, kb) = (rng.below(4), rng.below(4));
            let (x, y) = (int(&coef(&mut rng, ba, ka)), int(&coef(&mut rng, bb, kb)));
            let (za, zb) = (Mpz::from_coef(x.view()), Mpz::from_coef(y.view()));
            let (mut q, mut r, mut g, mut sh) = (Mpz::new(), Mpz::new(), Mpz::new(), Mpz::new());
            let s = rng.below(200);
            // SAFETY: initialised.
            let c = unsafe {
                gmp::mpz_gcd(&mut g.0, &za.0, &zb.0);
                gmp::mpz_tdiv_q_2exp(&mut sh.0, &za.0, s);
                gmp::mpz_cmp(&za.0, &zb.0)
            };
            assert_eq!(x.gcd(&y).unwrap().view(), IntRef::new(g.neg(), g.mag()), "gcd {round}");
            assert_eq!(x.shr(s).view(), IntRef::new(sh.neg(), sh.mag()), "shift {round}");
            assert_eq!(x.cmp(&y), c.cmp(&0), "order {round}");
            if !y.is_zero() {
                // SAFETY: initialised, divisor nonzero.
                unsafe { gmp::mpz_tdiv_qr(&mut q.0, &mut r.0, &za.0, &zb.0) };
                let (qq, rr) = x.div_rem(&y).unwrap();
                assert_eq!(qq.view(), IntRef::new(q.neg(), q.mag()), "quotient {round}");
                assert_eq!(rr.view(), IntRef::new(r.neg(), r.mag()), "remainder {round}");
            }
        }
    }
}
