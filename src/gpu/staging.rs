//! Host staging shared by the engines: the process's pinned buffers (a few, reused; a call that
//! finds none free gets pageable memory), through which a call's inputs go up and its results come
//! down. DMA from and to pinned memory runs at the bus's rate and asynchronously, so that host work
//! on one piece overlaps the copy of another (a pipelined call holds two or three at once).
use crate::gpu::device::Device;
use crate::gpu::driver_err;
use crate::Result;
use cudarc::driver::PinnedHostSlice;
use std::sync::{Mutex, OnceLock};

/// Largest pinned staging buffer kept (1 GiB); larger products use pageable memory.
const STAGING_MAX_WORDS: usize = 1 << 27;
/// Pinned buffers in use or kept at once.
const STAGING_BUFFERS: usize = 4;

/// The process's pinned staging buffers: those free, and how many are lent.
#[derive(Default)]
struct Staging {
    free: Vec<PinnedHostSlice<u64>>,
    lent: usize,
}

fn staging() -> &'static Mutex<Staging> {
    static S: OnceLock<Mutex<Staging>> = OnceLock::new();
    S.get_or_init(Default::default)
}

/// Host memory for `len` words: a pinned staging buffer (grown to a power of two) if one is free,
/// else a pageable vector. The pinned buffer goes back to [`staging`] on drop.
pub(crate) enum Host {
    Pinned(Option<PinnedHostSlice<u64>>),
    Pageable(Vec<u64>),
}

impl Host {
    pub(crate) fn get(dev: &Device, len: usize) -> Result<Host> {
        let pageable = || Ok(Host::Pageable(crate::int::try_zeroed_words(len)?));
        if len > STAGING_MAX_WORDS {
            return pageable();
        }
        let mut buf = {
            let mut st = staging().lock().unwrap_or_else(|e| e.into_inner());
            if st.lent >= STAGING_BUFFERS {
                return pageable();
            }
            st.lent += 1;
            // The smallest free buffer that fits on this context; else a new one, in place of the
            // smallest free one when the pool is full.
            st.free.sort_by_key(|s| s.len());
            match st.free.iter().position(|s| s.context() == &dev.ctx && s.len() >= len) {
                Some(k) => Some(st.free.remove(k)),
                None if st.free.len() + st.lent > STAGING_BUFFERS => Some(st.free.remove(0)),
                None => None,
            }
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
                    staging().lock().unwrap_or_else(|e| e.into_inner()).lent -= 1;
                    return pageable();
                }
            }
        }
        Ok(Host::Pinned(buf))
    }

    pub(crate) fn slice(&mut self) -> Result<&mut [u64]> {
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
            st.lent -= 1;
            st.free.extend(s.take());
            while st.free.len() + st.lent > STAGING_BUFFERS {
                st.free.sort_by_key(|s| s.len());
                st.free.remove(0);
            }
        }
    }
}

impl Host {
    /// The first `len` words of the buffer as words of `W` (u32 or u64: `len` ≤ the buffer's
    /// bytes / size of W).
    pub(crate) fn words<W: StageWord>(&mut self, len: usize) -> Result<&mut [W]> {
        let s = self.slice()?;
        assert!(len * std::mem::size_of::<W>() <= 8 * s.len(), "staging of {} words holds {len}", s.len());
        // SAFETY: W is u32 or u64 (no invalid bit patterns, alignment ≤ 8), inside the buffer.
        Ok(unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<W>(), len) })
    }
}

/// The words a staging buffer may be viewed as: u32 and u64.
pub(crate) trait StageWord: Copy {}
impl StageWord for u32 {}
impl StageWord for u64 {}
