//! Fallible allocation: Rust aborts the process on a failed infallible allocation, which a library
//! loaded into a CAS must never do, so every buffer whose size depends on the input goes through here.
use crate::{Error, Result};

/// A vector of `n` default (zero) values, or `Error::OutOfMemory`.
pub fn try_zeroed<T: Clone + Default>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::OutOfMemory(format!("cannot allocate {} bytes", n.saturating_mul(std::mem::size_of::<T>()))))?;
    v.resize(n, T::default());
    Ok(v)
}

/// `n` zero words like [`try_zeroed`], but from zero-initialised memory (`calloc`): large blocks
/// come straight from fresh, already-zero pages, so nothing is written now (the big transform and
/// output buffers are mostly overwritten anyway).
pub fn try_zeroed_words(n: usize) -> Result<Vec<u64>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let oom = || Error::OutOfMemory(format!("cannot allocate {} bytes", n.saturating_mul(8)));
    let layout = std::alloc::Layout::array::<u64>(n).map_err(|_| oom())?;
    // SAFETY: layout has non-zero size; a non-null result is a zeroed block of n u64 (all-zero bits
    // are a valid u64) allocated by the global allocator with exactly this layout, as
    // Vec::from_raw_parts requires.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut u64;
        if p.is_null() {
            return Err(oom());
        }
        Ok(Vec::from_raw_parts(p, n, n))
    }
}
