//! Fallible allocation: Rust aborts the process on a failed infallible allocation, which a library
//! loaded into a CAS must never do, so every buffer whose size depends on the input goes through here.
use crate::{Error, Result};

/// A vector of `n` default (zero) values, or `Error::OutOfMemory`.
pub fn try_zeroed<T: Clone + Default>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::OutOfMemory(format!(
            "cannot allocate {} bytes",
            n.saturating_mul(std::mem::size_of::<T>())
        ))
    })?;
    v.resize(n, T::default());
    Ok(v)
}
