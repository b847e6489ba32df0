//! Memory limits: a call whose plan needs more host memory than `gpmp_set_memory_limit` (env
//! `GPMP_MEMORY_LIMIT`) allows, or more device memory than `gpmp_set_device_memory_limit` (env
//! `GPMP_DEVICE_MEMORY_LIMIT`) allows, fails with `OutOfMemory` before it allocates. The limits
//! apply to each call's plan (its inputs' views, scratch and results), not to the process.
//!
//! Without a limit, a plan larger than the host's physical memory (or, on the GPU, than the
//! device's free memory even when computed in parts) also fails with `OutOfMemory` before
//! allocating, and every large buffer is allocated fallibly, so that gpmp reports instead of
//! aborting the host.
use crate::{Error, Result};
use std::sync::atomic::{AtomicUsize, Ordering};

/// 0 = none; `UNSET` until read from the environment.
static HOST: AtomicUsize = AtomicUsize::new(UNSET);
static DEVICE: AtomicUsize = AtomicUsize::new(UNSET);
const UNSET: usize = usize::MAX;

/// A byte count as `GPMP_MEMORY_LIMIT` writes it: a number with an optional suffix K, M, G or T
/// (powers of 1024; "KiB", "GB" and the like are read the same); 0, "off" or "none": no limit.
pub fn parse_bytes(s: &str) -> Option<usize> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("off") || s.eq_ignore_ascii_case("none") {
        return Some(0);
    }
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: u128 = s[..digits].parse().ok()?;
    let unit = s[digits..].trim().to_ascii_lowercase();
    let shift = match unit.trim_end_matches('b').trim_end_matches('i') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    usize::try_from(n << shift).ok()
}

fn limit(cell: &AtomicUsize, var: &str) -> usize {
    match cell.load(Ordering::Relaxed) {
        UNSET => {
            let l = std::env::var(var).ok().and_then(|s| parse_bytes(&s)).unwrap_or(0);
            let _ = cell.compare_exchange(UNSET, l, Ordering::Relaxed, Ordering::Relaxed);
            cell.load(Ordering::Relaxed)
        }
        l => l,
    }
}

/// The host limit in bytes (0: none).
pub fn host_limit() -> usize {
    limit(&HOST, "GPMP_MEMORY_LIMIT")
}

/// The device limit in bytes (0: none).
pub fn device_limit() -> usize {
    limit(&DEVICE, "GPMP_DEVICE_MEMORY_LIMIT")
}

/// Sets the host limit (0: none).
pub fn set_host_limit(bytes: usize) {
    HOST.store(if bytes == UNSET { UNSET - 1 } else { bytes }, Ordering::Relaxed);
}

/// Sets the device limit (0: none).
pub fn set_device_limit(bytes: usize) {
    DEVICE.store(if bytes == UNSET { UNSET - 1 } else { bytes }, Ordering::Relaxed);
}

/// Bytes of physical host memory.
pub fn physical_bytes() -> u128 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    pages.max(0) as u128 * size.max(0) as u128
}

/// `Ok` when a plan of `bytes` host bytes may run: within the limit, and within physical memory.
pub fn check_host(bytes: u128, what: &str) -> Result<()> {
    let lim = host_limit();
    if lim != 0 && bytes > lim as u128 {
        return Err(Error::OutOfMemory(format!(
            "{what} needs about {bytes} bytes of host memory, more than the limit of {lim} bytes (gpmp_set_memory_limit, GPMP_MEMORY_LIMIT)"
        )));
    }
    if bytes > physical_bytes() {
        return Err(Error::OutOfMemory(format!("{what} needs about {bytes} bytes of host memory, more than this machine has")));
    }
    Ok(())
}

/// `Ok` when a plan of `bytes` device bytes is within the device limit.
pub fn check_device(bytes: u128, what: &str) -> Result<()> {
    let lim = device_limit();
    if lim != 0 && bytes > lim as u128 {
        return Err(Error::OutOfMemory(format!(
            "{what} needs about {bytes} bytes of device memory, more than the limit of {lim} bytes (gpmp_set_device_memory_limit, GPMP_DEVICE_MEMORY_LIMIT)"
        )));
    }
    Ok(())
}

/// The device bytes a plan may use given `free` bytes free on the device: at most the limit.
pub fn device_budget(free: usize) -> usize {
    match device_limit() {
        0 => free,
        l => free.min(l),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_parse() {
        assert_eq!(parse_bytes("0"), Some(0));
        assert_eq!(parse_bytes("off"), Some(0));
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("2K"), Some(2048));
        assert_eq!(parse_bytes("3 MiB"), Some(3 << 20));
        assert_eq!(parse_bytes("1g"), Some(1 << 30));
        assert_eq!(parse_bytes("2TB"), Some(2 << 40));
        assert_eq!(parse_bytes("12 apples"), None);
        assert_eq!(parse_bytes(""), None);
    }
}
