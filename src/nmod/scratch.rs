//! A process-wide pool of scratch buffers (words), and fresh zeroed buffers on huge pages, for the
//! NTT, the multi-modular convolution and the GFPF DFT: a fresh multi-megabyte buffer costs page
//! faults (or a memset) on every call, as much as the transforms themselves at mid sizes (FLINT's
//! fft_small keeps its buffers the same way). Pooled buffers have arbitrary contents.
use crate::int::try_zeroed_words;
use crate::Result;
use std::sync::{Mutex, OnceLock};

/// Words of recycled buffers kept between calls (512 MiB, what a 3-prime product of length 2^22
/// holds).
const POOL_WORDS: usize = 1 << 26;

fn pool() -> &'static Mutex<Vec<Vec<u64>>> {
    static POOL: OnceLock<Mutex<Vec<Vec<u64>>>> = OnceLock::new();
    POOL.get_or_init(Default::default)
}

/// A buffer of `len` words with arbitrary contents: the smallest pooled one that fits, else a new one.
pub fn take(len: usize) -> Result<Vec<u64>> {
    {
        let mut p = pool().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = (0..p.len()).filter(|&i| p[i].capacity() >= len).min_by_key(|&i| p[i].capacity()) {
            let mut v = p.swap_remove(i);
            v.truncate(len);
            if v.len() < len {
                v.resize(len, 0);
            }
            return Ok(v);
        }
    }
    fresh(len)
}

/// `len` zero words from fresh memory (`calloc`: untouched pages), with transparent huge pages
/// requested (`madvise`) for the 2 MiB-aligned part of a large buffer: one page fault per 2 MiB
/// instead of per 4 KiB (the faults cost about as much as a transform pass), and fewer TLB misses
/// in the transforms' strided passes.
pub fn fresh(len: usize) -> Result<Vec<u64>> {
    const HUGE: usize = 2 << 20;
    let v = try_zeroed_words(len)?;
    let (start, end) = (v.as_ptr() as usize, v.as_ptr() as usize + 8 * len);
    let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
    if hi > lo {
        // SAFETY: [lo, hi) lies inside v's allocation; MADV_HUGEPAGE only changes how its pages are
        // backed (a failure, e.g. THP disabled, leaves them as they are).
        unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
    }
    Ok(v)
}

/// Returns a buffer to the pool (dropping the smallest ones beyond [`POOL_WORDS`]).
pub fn give(v: Vec<u64>) {
    if v.capacity() == 0 || v.capacity() > POOL_WORDS {
        return;
    }
    let mut p = pool().lock().unwrap_or_else(|e| e.into_inner());
    p.push(v);
    while p.iter().map(Vec::capacity).sum::<usize>() > POOL_WORDS || p.len() > 8 {
        let i = (0..p.len()).min_by_key(|&i| p[i].capacity()).expect("non-empty");
        p.swap_remove(i);
    }
}

/// Buffers from this many words come from the pool ([`Pooled`]); smaller ones are plain allocations.
const POOLED_MIN_WORDS: usize = 1 << 15;

/// A buffer of arbitrary contents that returns to the pool when dropped (from
/// [`POOLED_MIN_WORDS`] words; a plain allocation below).
pub struct Pooled(Vec<u64>);

impl Pooled {
    /// `len` words of arbitrary contents.
    pub fn take(len: usize) -> Result<Self> {
        if len >= POOLED_MIN_WORDS {
            take(len).map(Pooled)
        } else {
            crate::int::try_zeroed(len).map(Pooled)
        }
    }
}

impl std::ops::Deref for Pooled {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.0
    }
}

impl std::ops::DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut [u64] {
        &mut self.0
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if self.0.len() >= POOLED_MIN_WORDS {
            give(std::mem::take(&mut self.0));
        }
    }
}
