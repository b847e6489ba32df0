//! Fixed-stride matrix of signed integers, the common output of the Z\[x\] algorithms.
use super::{normalized, try_zeroed, try_zeroed_words, IntRef};
use crate::Result;
use rayon::prelude::*;

/// `len` signed integers in sign–magnitude form, each with `stride` limbs of magnitude:
/// element i is (−1)^neg\[i\] · mag\[i·stride .. (i+1)·stride\].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZSlab {
    stride: usize,
    mag: Vec<u64>,
    neg: Vec<bool>,
}

impl ZSlab {
    /// `len` zeros of `stride` limbs (at least one; fallible: large products report out-of-memory).
    pub fn zeros(len: usize, stride: usize) -> Result<Self> {
        let stride = stride.max(1);
        let total = len.checked_mul(stride).ok_or_else(|| crate::Error::SizeTooLarge(format!("{len} coefficients of {stride} limbs")))?;
        Ok(ZSlab { stride, mag: try_zeroed_words(total)?, neg: try_zeroed(len)? })
    }

    pub fn len(&self) -> usize {
        self.neg.len()
    }

    pub fn is_empty(&self) -> bool {
        self.neg.is_empty()
    }

    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Element i as a normalized view.
    pub fn get(&self, i: usize) -> IntRef<'_> {
        IntRef::new(self.neg[i], &self.mag[i * self.stride..(i + 1) * self.stride])
    }

    /// All elements as views.
    pub fn views(&self) -> Vec<IntRef<'_>> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// Sets element i to (−1)^neg · mag (mag may be shorter than the stride; its high limbs beyond
    /// the stride must be zero).
    pub fn set(&mut self, i: usize, neg: bool, mag: &[u64]) {
        let (row, sign) = self.row_mut(i);
        let m = normalized(mag);
        assert!(m.len() <= row.len(), "ZSlab::set: value wider than the stride");
        row[..m.len()].copy_from_slice(m);
        row[m.len()..].fill(0);
        *sign = !m.is_empty() && neg;
    }

    /// Mutable magnitude and sign of element i.
    pub fn row_mut(&mut self, i: usize) -> (&mut [u64], &mut bool) {
        (&mut self.mag[i * self.stride..(i + 1) * self.stride], &mut self.neg[i])
    }

    /// Parallel iterator over (magnitude, sign) of every element, in order.
    pub fn par_rows_mut(&mut self) -> impl IndexedParallelIterator<Item = (&mut [u64], &mut bool)> {
        let stride = self.stride;
        self.mag.par_chunks_mut(stride).zip(self.neg.par_iter_mut())
    }

    /// Parallel iterator over blocks of `rows` consecutive elements: (magnitudes, signs), the
    /// magnitudes `rows·stride` limbs (the last block may be shorter).
    pub fn par_blocks_mut(&mut self, rows: usize) -> impl IndexedParallelIterator<Item = (&mut [u64], &mut [bool])> {
        let stride = self.stride;
        self.mag.par_chunks_mut(stride * rows).zip(self.neg.par_chunks_mut(rows))
    }

    /// Sequential iterator over (magnitude, sign) of every element, in order.
    pub fn rows_mut(&mut self) -> impl Iterator<Item = (&mut [u64], &mut bool)> {
        let stride = self.stride;
        self.mag.chunks_mut(stride).zip(self.neg.iter_mut())
    }

    /// Element i from a two's-complement value of `stride` limbs (the top bit is the sign), in place.
    pub fn set_twos_complement(row: &mut [u64], sign: &mut bool) {
        let negative = row.last().is_some_and(|&t| t >> 63 == 1);
        if negative {
            negate_in_place(row);
        }
        *sign = negative && row.iter().any(|&l| l != 0);
    }
}

/// x ← −x mod 2^(64·len) (two's complement negation).
pub fn negate_in_place(x: &mut [u64]) {
    let mut carry = true;
    for l in x.iter_mut() {
        let (v, c) = (!*l).overflowing_add(carry as u64);
        *l = v;
        carry = c;
    }
}
