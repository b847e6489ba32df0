//! Variable-size list of signed integers in one allocation, the output of the element-wise batch
//! kernels ([`super::batch`]), whose elements may differ in size (ZSlab's fixed stride would waste
//! memory on mixed sizes).
use super::{normalized, try_zeroed, try_zeroed_words, IntRef};
use crate::{Error, Result};
use rayon::prelude::*;

/// `len` signed integers: element i is (−1)^neg\[i\] · mag\[off\[i\] .. off\[i\] + size\[i\]\], in a slot
/// mag\[off\[i\] .. off\[i+1\]\] of as many limbs as its size bound. The normalized size is recorded
/// when the element is written ([`Row::finish`]), so that reading the list (the serial pass of the
/// `mpz_t` writer) touches no limb.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZList {
    off: Vec<usize>,
    mag: Vec<u64>,
    neg: Vec<bool>,
    size: Vec<usize>,
}

/// The slot of one element, to fill and then [`Row::finish`] with its sign.
pub struct Row<'a> {
    pub mag: &'a mut [u64],
    neg: &'a mut bool,
    size: &'a mut usize,
}

impl Row<'_> {
    /// Records the sign (−0 = 0) and the normalized size of what `mag` now holds.
    pub fn finish(self, neg: bool) {
        *self.size = normalized(self.mag).len();
        *self.neg = neg && *self.size > 0;
    }
}

impl ZList {
    /// Zeros whose slots hold `caps[i]` limbs (fallible). The limbs come from zero-initialised memory
    /// ([`try_zeroed_words`]): nothing is written now, and the pages are zeroed by the kernel where
    /// the workers that fill the rows first touch them, in parallel, not on the calling thread.
    pub fn zeros(caps: impl ExactSizeIterator<Item = usize>) -> Result<Self> {
        let mut off: Vec<usize> = try_zeroed(caps.len() + 1)?;
        for (i, c) in caps.enumerate() {
            off[i + 1] = off[i].checked_add(c).ok_or_else(|| Error::SizeTooLarge("batch result: total size overflows".into()))?;
        }
        let total = *off.last().unwrap_or(&0);
        let len = off.len() - 1;
        Ok(ZList { off, mag: try_zeroed_words(total)?, neg: try_zeroed(len)?, size: try_zeroed(len)? })
    }

    /// The list of the given integers (one exact slot each).
    pub fn from_ints(x: &[IntRef]) -> Result<Self> {
        let mut l = ZList::zeros(x.iter().map(|v| v.mag.len()))?;
        l.par_rows_mut()?.zip(x.par_iter()).with_min_len(1024).for_each(|(row, v)| {
            row.mag.copy_from_slice(v.mag);
            row.finish(v.neg);
        });
        Ok(l)
    }

    pub fn len(&self) -> usize {
        self.neg.len()
    }

    pub fn is_empty(&self) -> bool {
        self.neg.is_empty()
    }

    /// Element i as a normalized view.
    #[inline]
    pub fn get(&self, i: usize) -> IntRef<'_> {
        let o = self.off[i];
        IntRef { neg: self.neg[i], mag: &self.mag[o..o + self.size[i]] }
    }

    /// All elements as views.
    pub fn views(&self) -> Vec<IntRef<'_>> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// Parallel iterator over the rows of every element, in order.
    pub fn par_rows_mut(&mut self) -> Result<impl IndexedParallelIterator<Item = Row<'_>>> {
        let mut rows = Vec::new();
        rows.try_reserve_exact(self.len()).map_err(|_| Error::OutOfMemory(format!("cannot allocate {} row pointers", self.len())))?;
        let mut rest = &mut self.mag[..];
        for w in self.off.windows(2) {
            let (row, tail) = rest.split_at_mut(w[1] - w[0]);
            rows.push(row);
            rest = tail;
        }
        Ok(rows.into_par_iter().zip(self.neg.par_iter_mut().zip(self.size.par_iter_mut())).map(|(mag, (neg, size))| Row { mag, neg, size }))
    }
}
