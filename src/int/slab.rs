//! Fixed-stride matrix of signed integers, the common output of the Z\[x\] algorithms.
use super::{normalized, try_zeroed, try_zeroed_words, IntRef};
use crate::Result;
use gmp_mpfr_sys::gmp;
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

    /// The elements as one block of rows (magnitudes `len·stride` limbs, signs), to split into
    /// disjoint row ranges.
    pub fn rows_parts_mut(&mut self) -> RowsMut<'_> {
        RowsMut { stride: self.stride, mag: &mut self.mag, neg: &mut self.neg }
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

/// A mutable block of consecutive rows of a [`ZSlab`]: row i is (−1)^neg\[i\] · mag\[i·stride .. (i+1)·stride\].
pub struct RowsMut<'a> {
    pub stride: usize,
    pub mag: &'a mut [u64],
    pub neg: &'a mut [bool],
}

impl<'a> RowsMut<'a> {
    pub fn len(&self) -> usize {
        self.neg.len()
    }

    pub fn is_empty(&self) -> bool {
        self.neg.is_empty()
    }

    /// Rows \[0, m) and \[m, len).
    pub fn split_at(self, m: usize) -> (RowsMut<'a>, RowsMut<'a>) {
        let (ma, mb) = self.mag.split_at_mut(m * self.stride);
        let (na, nb) = self.neg.split_at_mut(m);
        (RowsMut { stride: self.stride, mag: ma, neg: na }, RowsMut { stride: self.stride, mag: mb, neg: nb })
    }

    /// Row i as a normalized view.
    pub fn get(&self, i: usize) -> IntRef<'_> {
        IntRef::new(self.neg[i], &self.mag[i * self.stride..(i + 1) * self.stride])
    }

    /// All rows as views.
    pub fn views(&self) -> Vec<IntRef<'_>> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// Mutable magnitude and sign of row i.
    pub fn row_mut(&mut self, i: usize) -> (&mut [u64], &mut bool) {
        (&mut self.mag[i * self.stride..(i + 1) * self.stride], &mut self.neg[i])
    }

    /// The same rows, reborrowed.
    pub fn reborrow(&mut self) -> RowsMut<'_> {
        RowsMut { stride: self.stride, mag: self.mag, neg: self.neg }
    }
}

/// (row, neg) ← (−1)^neg·row + x, in place: row is a magnitude with room for the result (the caller's
/// bound; a carry out of the row is a bug and panics).
pub fn add_assign_signed(row: &mut [u64], neg: &mut bool, x: IntRef) {
    let xl = x.mag.len();
    if xl == 0 {
        return;
    }
    assert!(xl <= row.len(), "add_assign_signed: the value is wider than the row");
    let rl = normalized(row).len();
    if rl == 0 {
        row[..xl].copy_from_slice(x.mag);
        *neg = x.neg;
        return;
    }
    let n = rl.max(xl);
    // SAFETY: row has ≥ n limbs, x has xl ≤ n; the _n functions allow rp == s1p or rp == s2p.
    unsafe {
        if *neg == x.neg {
            let carry = gmp::mpn_add(row.as_mut_ptr(), row.as_ptr(), n as _, x.mag.as_ptr(), xl as _);
            if carry != 0 {
                assert!(n < row.len(), "add_assign_signed: the sum overflows the row");
                row[n] = 1;
            }
            return;
        }
        let row_bigger = rl > xl || (rl == xl && gmp::mpn_cmp(row.as_ptr(), x.mag.as_ptr(), n as _) >= 0);
        if row_bigger {
            gmp::mpn_sub(row.as_mut_ptr(), row.as_ptr(), n as _, x.mag.as_ptr(), xl as _);
            if normalized(row).is_empty() {
                *neg = false;
            }
        } else {
            // |x| > |row|: row ← x − row over xl limbs (row's limbs above rl are zero).
            gmp::mpn_sub_n(row.as_mut_ptr(), x.mag.as_ptr(), row.as_ptr(), xl as _);
            *neg = x.neg;
        }
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
