//! The memory plan: the device bytes of a product, and, when they exceed the free device memory,
//! the parts ([`Cut`]) it is computed in, or `OutOfMemory` before any large allocation.
use super::launch_err;
use crate::{Error, Result};
use cudarc::driver::result as cu;

/// How a product that does not fit the free device memory is computed in parts: the residues,
/// transforms and products for `group` primes at a time (each group's rows parked in host memory),
/// then the CRT for `block` coefficients at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cut {
    pub(super) group: usize,
    pub(super) block: usize,
}

/// The sizes of one product that its memory plan reads.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    /// Primes.
    pub(super) k: usize,
    /// Transform length.
    pub(super) n: usize,
    /// Input coefficients on the device (one operand's for a square).
    pub(super) inputs: usize,
    /// Limbs per input coefficient.
    pub(super) l: usize,
    /// Product coefficients.
    pub(super) hlen: usize,
    /// Limbs per product coefficient (S).
    pub(super) stride: usize,
    /// Transform positions per coefficient (T: 2l − 1 split, 1 direct).
    pub(super) t: usize,
    /// Split mode: limbs of a digit product (the CRT's output stride); 0 direct.
    pub(super) d: usize,
    /// Words per prime beside its rows (the Taylor shift's table of 1/j!; 0 for a product).
    pub(super) table: usize,
}

impl Shape {
    /// Device bytes of the whole product: (k + 1)·2n words of rows and k tables, the inputs, the CRT
    /// scratch (at most k limbs a position) and output for hlen·T positions of d limbs, and the final
    /// output.
    pub(super) fn device_bytes(&self) -> u128 {
        let (k, n, pos) = (self.k as u128, self.n as u128, (self.hlen * self.t) as u128);
        let words = (k + 1) * 2 * n
            + k * self.table as u128
            + self.inputs as u128 * self.l as u128
            + pos * (k + self.d as u128)
            + n * (self.stride as u128 + 1);
        8 * words + 2 * n + 2 * pos + 16 * k
    }
}

#[cfg(test)]
thread_local! {
    /// Test hook: device bytes this thread's products may assume free (forces [`Cut`]s at
    /// ordinary sizes).
    pub(super) static MEMORY_CAP: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Free bytes of the current context's device, at most the device memory limit (and the test
/// hook's cap).
pub(super) fn free_bytes() -> Result<usize> {
    let (free, _) = cu::mem_get_info().map_err(launch_err("cuMemGetInfo"))?;
    let free = crate::memory::device_budget(free);
    #[cfg(test)]
    if let Some(cap) = MEMORY_CAP.get() {
        return Ok(free.min(cap));
    }
    Ok(free)
}

/// The parts of a product of shape `s` that needs more than `free` device bytes, W = `w` limbs of
/// M, CRT output stride cs (d split, S direct). Phase 1 holds the inputs, (group + 1)·2n words
/// of rows and group tables; phase 2 holds, per coefficient, T positions of k residues, W scratch limbs, cs limbs and
/// a sign byte (and in split mode the recombination's S + 1 accumulator limbs, S limbs and a sign).
/// Both within 7/8 of `free` (the rest for the driver, twiddles and tables); the parked rows
/// (k·hlen·T words) and the output must fit half the host's memory. Otherwise `OutOfMemory`.
fn plan_cut(s: &Shape, w: usize, free: usize) -> Result<Cut> {
    let Shape { k, n, inputs, l, hlen, stride, t, d, table } = *s;
    let cs = if t > 1 { d } else { stride };
    let oom = |what: &str| Err(Error::OutOfMemory(format!("the GPU product does not fit {free} free device bytes even in parts ({what})")));
    let budget = free as u128 - free as u128 / 8;
    let input = inputs as u128 * (8 * l as u128 + 1);
    let group = (budget.saturating_sub(input + 16 * n as u128) / (16 * n as u128 + 8 * table as u128)).min(k as u128) as usize;
    if group == 0 {
        return oom("the inputs and two rows");
    }
    let (k128, t128, s128) = (k as u128, t as u128, stride as u128);
    let per = t128 * (8 * (k128 + w as u128 + cs as u128) + 1) + if t > 1 { 8 * (2 * s128 + 1) + 1 } else { 0 };
    let block = (budget / per).min(hlen as u128) as usize;
    if block == 0 {
        return oom("one coefficient's CRT");
    }
    let host = 8 * k128 * hlen as u128 * t128 + 8 * hlen as u128 * s128;
    if host > crate::memory::physical_bytes() / 2 {
        return Err(Error::OutOfMemory(format!("the GPU product in parts needs {host} bytes of host memory")));
    }
    Ok(Cut { group, block })
}

/// Whether every device's share of a product of shape `s` (n set) split as `sp` fits 7/8 of that
/// device's `free` bytes (W = `w` limbs of M). Device e with k_e primes and b_e coefficients holds,
/// while transforming, the inputs and (k_e + 1)·2n words of rows (none without primes); then its k_e
/// rows (until every device has pulled its residues) and, per coefficient of its block, T
/// positions of k residues and the CRT's scratch and output as in [`plan_cut`].
pub(super) fn split_fits(s: &Shape, w: usize, sp: &super::multi::Split, free: &[usize]) -> bool {
    let Shape { k, n, inputs, l, stride, t, d, .. } = *s;
    let cs = if t > 1 { d } else { stride } as u128;
    let (n, t128, s128) = (n as u128, t as u128, stride as u128);
    let per = t128 * (8 * (k as u128 + w as u128 + cs) + 1) + if t > 1 { 8 * (2 * s128 + 1) + 1 } else { 0 };
    let input = inputs as u128 * (8 * l as u128 + 1);
    sp.primes.iter().zip(&sp.coefs).zip(free).all(|((ps, cs), &free)| {
        let ke = ps.len() as u128;
        let rows = if ke > 0 { 16 * n * (ke + 1) } else { 0 };
        let need = (input + rows).max(16 * n * ke + cs.len() as u128 * per);
        need <= free as u128 - free as u128 / 8
    })
}

/// None when the product of shape `s` ([`Shape::device_bytes`]) fits `free` device bytes, else the
/// [`Cut`] of [`plan_cut`] (`w`: the limbs of M, computed only then).
pub(super) fn plan_memory(s: &Shape, w: impl FnOnce() -> usize, free: usize) -> Result<Option<Cut>> {
    if s.device_bytes() <= free as u128 {
        return Ok(None);
    }
    plan_cut(s, w(), free).map(Some)
}

#[cfg(test)]
mod tests {
    use super::super::multi::split;
    use super::*;

    /// 2^22 × 2^22 with 1024-bit coefficients (34 primes, n = 2^23, 33 limbs out): more than 8 GiB
    /// on one device, a share of at most 8 GiB on each of two.
    #[test]
    fn a_product_larger_than_one_device_fits_two() {
        let hlen = (1usize << 23) - 1;
        let s = Shape { k: 34, n: 1 << 23, inputs: 1 << 23, l: 16, hlen, stride: 33, t: 1, d: 0, table: 0 };
        let (w, gib) = (35, 1usize << 30);
        assert!(s.device_bytes() > 8 * gib as u128);
        assert!(split_fits(&s, w, &split(34, hlen, 2), &[8 * gib, 8 * gib]));
        assert!(!split_fits(&s, w, &split(34, hlen, 2), &[8 * gib, 4 * gib]), "each device's own memory counts");
        assert!(!split_fits(&s, w, &split(34, hlen, 1), &[8 * gib]));
        assert!(split_fits(&s, w, &split(34, hlen, 4), &[4 * gib; 4]));
        assert!(!split_fits(&s, w, &split(34, hlen, 4), &[gib; 4]), "the inputs alone need 1 GiB a device");
    }
}
