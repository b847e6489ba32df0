//! Host staging: the process's pinned buffer (one, reused; a concurrent call gets pageable memory)
//! that holds a call's inputs on their way up and its product on the way down, and
//! [`HostProduct`], the product as the device left it.
use crate::gpu::device::Device;
use crate::gpu::driver_err;
use crate::int::{IntRef, ZSlab};
use crate::{Error, Result};
use cudarc::driver::PinnedHostSlice;
use rayon::prelude::*;
use std::sync::{Mutex, OnceLock};

/// Largest pinned staging buffer kept (1 GiB); larger products use pageable memory.
const STAGING_MAX_WORDS: usize = 1 << 27;

/// The process's pinned staging buffer (one; a call that finds it busy uses pageable memory).
#[derive(Default)]
struct Staging {
    buf: Option<PinnedHostSlice<u64>>,
    busy: bool,
}

fn staging() -> &'static Mutex<Staging> {
    static S: OnceLock<Mutex<Staging>> = OnceLock::new();
    S.get_or_init(Default::default)
}

/// Host memory for `len` words: the pinned staging buffer (grown to a power of two) if free, else a
/// pageable vector. The pinned buffer goes back to [`staging`] on drop.
pub(super) enum Host {
    Pinned(Option<PinnedHostSlice<u64>>),
    Pageable(Vec<u64>),
}

impl Host {
    fn get(dev: &Device, len: usize) -> Result<Host> {
        let pageable = || Ok(Host::Pageable(crate::int::try_zeroed_words(len)?));
        if len > STAGING_MAX_WORDS {
            return pageable();
        }
        let mut buf = {
            let mut st = staging().lock().unwrap_or_else(|e| e.into_inner());
            if st.busy {
                return pageable();
            }
            st.busy = true;
            st.buf.take()
        };
        if buf.as_ref().is_some_and(|s| s.context() != &dev.ctx || s.len() < len) {
            buf = None;
        }
        if buf.is_none() {
            // SAFETY: u64 has no invalid bit patterns; every word used is written first.
            // Flags 0: cached pinned memory (the default write-combined kind is slow to read).
            match unsafe { dev.ctx.alloc_pinned_with_flags::<u64>(len.next_power_of_two(), 0) } {
                Ok(s) => buf = Some(s),
                Err(_) => {
                    staging().lock().unwrap_or_else(|e| e.into_inner()).busy = false;
                    return pageable();
                }
            }
        }
        Ok(Host::Pinned(buf))
    }

    pub(super) fn slice(&mut self) -> Result<&mut [u64]> {
        match self {
            Host::Pinned(s) => s.as_mut().expect("allocated").as_mut_slice().map_err(|e| driver_err("pinned buffer", e)),
            Host::Pageable(v) => Ok(v),
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Host::Pinned(s) = self {
            let mut st = staging().lock().unwrap_or_else(|e| e.into_inner());
            st.buf = s.take();
            st.busy = false;
        }
    }
}

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
