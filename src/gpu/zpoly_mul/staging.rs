//! [`HostProduct`], the product as the device left it, in the process's pinned staging buffer
//! ([`crate::gpu::staging`]), which also holds a call's inputs on their way up.
use crate::gpu::device::Device;
use crate::gpu::staging::Host;
use crate::int::{IntRef, ZSlab};
use crate::{Error, Result};
use rayon::prelude::*;

/// `words` split into its first `at` words and the bytes of the rest.
pub(super) fn words_and_bytes(words: &mut [u64], at: usize) -> (&mut [u64], &mut [u8]) {
    let (a, b) = words.split_at_mut(at);
    // SAFETY: the same memory as bytes (u8 has no alignment or validity requirement).
    (a, unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast::<u8>(), 8 * b.len()) })
}

/// A product in host memory as the device left it, in the pinned staging buffer when it was free:
/// `len` magnitudes of `stride` limbs (not normalized), then `len` sign bytes (nonzero: negative).
/// The C layer writes it into the `mpz_t` without an intermediate [`ZSlab`].
pub struct HostProduct {
    pub(super) host: Host,
    len: usize,
    stride: usize,
}

impl HostProduct {
    /// Host memory for a product of `len` coefficients of `stride` limbs, at least `min` words
    /// (the staged inputs share the buffer).
    pub(crate) fn new(dev: Option<&Device>, len: usize, stride: usize, min: usize) -> Result<HostProduct> {
        let words = len.checked_mul(stride).and_then(|w| w.checked_add(len.div_ceil(8)));
        let words = words.ok_or_else(|| Error::SizeTooLarge(format!("{len} coefficients of {stride} limbs")))?.max(min);
        let host = match dev {
            Some(dev) => Host::get(dev, words)?,
            None => Host::Pageable(crate::int::try_zeroed_words(words)?),
        };
        Ok(HostProduct { host, len, stride })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Limbs a coefficient.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The magnitudes (coefficient i at limbs i·stride ..) and the sign bytes.
    pub fn parts(&mut self) -> Result<(&[u64], &[u8])> {
        let (m, b) = self.parts_mut()?;
        Ok((m, b))
    }

    pub(crate) fn parts_mut(&mut self) -> Result<(&mut [u64], &mut [u8])> {
        let (len, stride) = (self.len, self.stride);
        let (m, b) = words_and_bytes(self.host.slice()?, len * stride);
        Ok((m, &mut b[..len]))
    }

    /// Coefficient i from [`Self::parts`].
    pub fn coef<'a>(mags: &'a [u64], neg: &[u8], stride: usize, i: usize) -> IntRef<'a> {
        IntRef::new(neg[i] != 0, &mags[i * stride..(i + 1) * stride])
    }

    /// The product as a [`ZSlab`] (a parallel copy).
    pub fn to_slab(mut self) -> Result<ZSlab> {
        let (len, stride) = (self.len, self.stride);
        let mut h = ZSlab::zeros(len, stride)?;
        let (mags, neg) = self.parts()?;
        if let Some((dm, dn)) = h.par_blocks_mut(len.max(1)).find_first(|_| true) {
            dm.par_chunks_mut(1 << 14).zip(mags.par_chunks(1 << 14)).for_each(|(d, s)| d.copy_from_slice(s));
            dn.par_iter_mut().zip(neg.par_iter()).with_min_len(1 << 14).for_each(|(d, &s)| *d = s != 0);
        }
        Ok(h)
    }
}
