//! Fixed-capacity vector of signed integers in word-major (structure-of-arrays) layout, the storage of
//! `gpmp_zvec`: n integers of at most `bits` bits, L = ⌈bits/64⌉ limbs each, limb j of element i at
//! `data[j·n + i]` (so that consecutive GPU threads, one per element, read consecutive words; the GPU
//! backend mirrors this layout in device memory), signs in `neg[i]`.
//!
//! The CPU operations gather elements into a [`ZList`], run the [`batch`] kernels, and scatter the
//! result back after checking that every element fits.
use super::{batch, limbs_for_bits, try_zeroed, IntRef, ZList};
use crate::{invalid, Error, Result};
use rayon::prelude::*;

/// n signed integers of at most `bits` bits each, word-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZVec {
    n: usize,
    bits: u64,
    data: Vec<u64>,
    neg: Vec<bool>,
}

const GRAIN: usize = 1024;

impl ZVec {
    /// n zeros of capacity `bits` (fallible).
    pub fn zeros(n: usize, bits: u64) -> Result<Self> {
        let limbs = usize::try_from(bits.div_ceil(64)).ok();
        let total = limbs
            .and_then(|l| l.checked_mul(n))
            .filter(|&t| t <= isize::MAX as usize / 8)
            .ok_or_else(|| Error::SizeTooLarge(format!("zvec of {n} integers of {bits} bits")))?;
        Ok(ZVec { n, bits, data: try_zeroed(total)?, neg: try_zeroed(n)? })
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Capacity in bits of every element.
    pub fn bits(&self) -> u64 {
        self.bits
    }

    fn limbs(&self) -> usize {
        limbs_for_bits(self.bits)
    }

    /// The elements gathered into a list.
    pub fn to_list(&self) -> Result<ZList> {
        let (n, l) = (self.n, self.limbs());
        let mut out = ZList::zeros((0..n).map(|_| l))?;
        out.par_rows_mut()?.enumerate().with_min_len(GRAIN).for_each(|(i, row)| {
            for (j, w) in row.mag.iter_mut().enumerate() {
                *w = self.data[j * n + i];
            }
            row.finish(self.neg[i]);
        });
        Ok(out)
    }

    /// Sets every element from `x` (x.len() = n); `Error::SizeTooLarge` (self unchanged) when one
    /// has more than `bits` bits.
    pub fn set(&mut self, x: &[IntRef]) -> Result<()> {
        if x.len() != self.n {
            return invalid!("{} integers for a zvec of {}", x.len(), self.n);
        }
        if let Some(i) = x.iter().position(|v| v.bits() > self.bits) {
            return Err(Error::SizeTooLarge(format!(
                "element {i} has {} bits, the zvec holds {}",
                x[i].bits(),
                self.bits
            )));
        }
        let (n, l) = (self.n, self.limbs());
        // Limb-row j (n words) is written in parallel chunks of elements.
        if l > 0 && n > 0 {
            self.data.par_chunks_mut(n).enumerate().for_each(|(j, row)| {
                row.par_iter_mut().with_min_len(GRAIN).enumerate().for_each(|(i, w)| {
                    *w = x[i].mag.get(j).copied().unwrap_or(0);
                })
            });
        }
        self.neg.iter_mut().zip(x).for_each(|(s, v)| *s = v.neg);
        Ok(())
    }

    /// Sets every element from the list (see [`ZVec::set`]).
    pub fn set_list(&mut self, x: &ZList) -> Result<()> {
        self.set(&x.views())
    }

    /// Element-wise `op` of a and b, as a list to store with [`ZVec::set_list`] (the destination may
    /// be a or b, and is checked to hold every result only then).
    fn apply(a: &ZVec, b: &ZVec, op: impl FnOnce(&[IntRef], &[IntRef]) -> Result<ZList>) -> Result<ZList> {
        if a.n != b.n {
            return invalid!("zvec lengths differ ({}, {})", a.n, b.n);
        }
        let (la, lb) = (a.to_list()?, b.to_list()?);
        op(&la.views(), &lb.views())
    }

    /// a + b.
    pub fn add(a: &ZVec, b: &ZVec) -> Result<ZList> {
        Self::apply(a, b, batch::add)
    }

    /// a − b.
    pub fn sub(a: &ZVec, b: &ZVec) -> Result<ZList> {
        Self::apply(a, b, batch::sub)
    }

    /// a·b for a destination of `bits` bits: requires bits ≥ a.bits + b.bits (else
    /// `Error::SizeTooLarge`), so that every product fits.
    pub fn mul(a: &ZVec, b: &ZVec, bits: u64) -> Result<ZList> {
        if bits < a.bits.saturating_add(b.bits) {
            return Err(Error::SizeTooLarge(format!(
                "product of {}- and {}-bit zvecs into a {bits}-bit zvec",
                a.bits, b.bits
            )));
        }
        Self::apply(a, b, batch::mul)
    }

    /// a·b mod m.
    pub fn mulmod(a: &ZVec, b: &ZVec, m: IntRef) -> Result<ZList> {
        Self::apply(a, b, |x, y| batch::mulmod(x, y, m))
    }

    /// base^exp mod m (exp ≥ 0).
    pub fn powm(base: &ZVec, exp: &ZVec, m: IntRef) -> Result<ZList> {
        Self::apply(base, exp, |x, y| batch::powm(x, y, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zpoly::testing::{coef, views, Rng};

    #[test]
    fn word_major_round_trip_and_fit_checks() {
        let mut rng = Rng(9);
        for (n, bits) in [(0, 64), (1, 1), (5, 0), (37, 130), (300, 1000)] {
            let x: Vec<_> = (0..n)
                .map(|_| {
                    let (b, k) = (rng.below(bits + 1), rng.below(4));
                    coef(&mut rng, b, k)
                })
                .collect();
            let xv = views(&x);
            let mut v = ZVec::zeros(n, bits).unwrap();
            v.set(&xv).unwrap();
            let l = limbs_for_bits(bits);
            for (i, c) in x.iter().enumerate() {
                for j in 0..l {
                    assert_eq!(v.data[j * n + i], c.1.get(j).copied().unwrap_or(0), "limb {j} of {i}");
                }
            }
            assert_eq!(v.to_list().unwrap().views(), xv);
            // a sum that overflows `bits` is refused and changes nothing
            if n > 0 && bits > 0 {
                let before = v.clone();
                let big = vec![u64::MAX; l];
                let mut y = xv.clone();
                y[n - 1] = IntRef::new(false, &big);
                assert!(matches!(v.set(&y), Err(Error::SizeTooLarge(_))) || bits % 64 == 0);
                v.clone_from(&before);
                let mut w = ZVec::zeros(n, bits).unwrap();
                let ones: Vec<_> = (0..n).map(|_| coef(&mut rng, bits, 1)).map(|c| (false, c.1)).collect();
                w.set(&views(&ones)).unwrap();
                let s = ZVec::add(&w, &w).unwrap();
                assert!(matches!(v.set_list(&s), Err(Error::SizeTooLarge(_))));
                assert_eq!(v, before);
                assert!(matches!(ZVec::mul(&w, &w, 2 * bits - 1), Err(Error::SizeTooLarge(_))));
                let p = ZVec::mul(&w, &w, 2 * bits).unwrap();
                let mut r = ZVec::zeros(n, 2 * bits).unwrap();
                r.set_list(&p).unwrap();
                assert_eq!(r.to_list().unwrap().views(), batch::mul(&views(&ones), &views(&ones)).unwrap().views());
            }
        }
        assert!(matches!(ZVec::zeros(usize::MAX, 128), Err(Error::SizeTooLarge(_))));
    }
}
