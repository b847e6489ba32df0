//! The word-major (structure-of-arrays) layout of a batch of n integers of at most L limbs: limb j of
//! element i at `data[j·n + i]`, signs apart, so that consecutive GPU threads (one per element) read
//! consecutive words. The layout of `gpmp_zvec` and of the batched GPU products' staging.
use super::IntRef;
use crate::{Error, Result};
use rayon::prelude::*;

/// Elements per packing block: a block's magnitudes stay in cache while their limbs are scattered
/// over the L rows.
const BLOCK: usize = 64;
/// Blocks per rayon task.
const BLOCKS_PER_TASK: usize = 16;

/// Writes x (every element of at most l limbs) word-major into `data` (n·l words, n = x.len()) and
/// its signs into `neg` (n entries: 1 / true for a negative element, zero has sign 0), in parallel
/// over blocks of elements (call it inside gpmp's pool).
pub fn pack_word_major<S: From<bool> + Send>(x: &[IntRef], l: usize, data: &mut [u64], neg: &mut [S]) -> Result<()> {
    let n = x.len();
    assert!(data.len() == n * l && neg.len() == n, "word-major packing of {n}·{l} into {} words, {} signs", data.len(), neg.len());
    debug_assert!(x.iter().all(|v| v.mag.len() <= l));
    if l > 0 && n > 0 {
        let nb = n.div_ceil(BLOCK);
        let mut pieces: Vec<Option<&mut [u64]>> = Vec::new();
        pieces.try_reserve_exact(nb * l).map_err(|_| Error::OutOfMemory(format!("{} row pieces", nb * l)))?;
        pieces.resize_with(nb * l, || None);
        for (j, row) in data.chunks_mut(n).enumerate() {
            for (b, piece) in row.chunks_mut(BLOCK).enumerate() {
                pieces[b * l + j] = Some(piece);
            }
        }
        pieces.par_chunks_mut(l).enumerate().with_min_len(BLOCKS_PER_TASK).for_each(|(b, rows)| {
            for (j, piece) in rows.iter_mut().enumerate() {
                for (t, w) in piece.as_deref_mut().unwrap_or_default().iter_mut().enumerate() {
                    *w = x[b * BLOCK + t].mag.get(j).copied().unwrap_or(0);
                }
            }
        });
    }
    neg.par_iter_mut().zip(x.par_iter()).with_min_len(BLOCK * BLOCKS_PER_TASK).for_each(|(s, v)| *s = S::from(v.neg && !v.is_zero()));
    Ok(())
}

/// Element i of a word-major batch of n elements (`data` holds n·out.len() words) copied into `out`;
/// returns its normalized length (limbs without the high zeros).
#[inline]
pub fn read_word_major(data: &[u64], n: usize, i: usize, out: &mut [u64]) -> usize {
    let mut len = 0;
    for (j, w) in out.iter_mut().enumerate() {
        *w = data[j * n + i];
        if *w != 0 {
            len = j + 1;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{coef, views, Rng};

    /// Packing then reading every element gives the elements back (zeros, ±1, all-ones limbs, random
    /// sizes), across block boundaries; a negative zero gets sign 0.
    #[test]
    fn pack_then_read_round_trips() {
        let mut rng = Rng(41);
        for (n, l) in [(0usize, 3usize), (1, 1), (63, 2), (65, 4), (3000, 7), (BLOCK * BLOCKS_PER_TASK * 3 + 5, 16)] {
            let x: Vec<_> = (0..n)
                .map(|i| match i % 5 {
                    0 => (false, vec![]),
                    1 => (i % 2 == 0, vec![1]),
                    2 => (true, vec![u64::MAX; l]),
                    _ => {
                        let bits = 1 + rng.below(64 * l as u64);
                        coef(&mut rng, bits, i as u64 % 4)
                    }
                })
                .collect();
            let xv = views(&x);
            let (mut data, mut neg) = (vec![7u64; n * l], vec![9u8; n]);
            crate::runtime::install(|| pack_word_major(&xv, l, &mut data, &mut neg)).unwrap();
            let mut out = vec![0u64; l];
            for (i, v) in xv.iter().enumerate() {
                let len = read_word_major(&data, n, i, &mut out);
                assert_eq!((neg[i] == 1, &out[..len]), (v.neg, v.mag), "{n}·{l}: element {i}");
            }
            let z = [IntRef { neg: true, mag: &[] }];
            let mut s = [true];
            pack_word_major(&z, 0, &mut [], &mut s).unwrap();
            assert!(!s[0], "zero has sign 0");
        }
    }
}
