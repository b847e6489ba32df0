//! CUDA devices: count, names, the current device and kernel warm-up.
use super::gpmp_status;
use super::status::{guard, guard_value};
use crate::gpu::{compile, device};
use crate::invalid;
use std::ffi::{c_char, c_int};

/// The number of CUDA devices; 0 when there is no driver or no device.
#[no_mangle]
pub extern "C" fn gpmp_cuda_device_count() -> c_int {
    guard_value("gpmp_cuda_device_count", 0, || Ok(device::device_count().min(c_int::MAX as usize) as c_int))
}

/// Writes the name of CUDA device `device` into `buf` (`len` bytes, NUL-terminated, truncated to
/// fit); `buf` is untouched on failure.
///
/// # Safety
/// `buf` must point to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn gpmp_cuda_device_name(device: c_int, buf: *mut c_char, len: usize) -> gpmp_status {
    guard("gpmp_cuda_device_name", || {
        if buf.is_null() || len == 0 {
            return invalid!("the name buffer is null or empty");
        }
        let name = device::name(device as i64)?;
        let n = name.len().min(len - 1);
        // SAFETY: the caller gives len >= n + 1 writable bytes at buf.
        unsafe {
            std::ptr::copy_nonoverlapping(name.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
        }
        Ok(())
    })
}

/// Makes `device` the CUDA device of every later GPU call in the process (default 0, or env
/// `GPMP_CUDA_DEVICE`).
#[no_mangle]
pub extern "C" fn gpmp_set_cuda_device(device: c_int) -> gpmp_status {
    guard("gpmp_set_cuda_device", || device::set_current(device as i64))
}

/// Opens the current device and compiles and loads every kernel now (otherwise that happens at
/// first use).
#[no_mangle]
pub extern "C" fn gpmp_gpu_warmup() -> gpmp_status {
    guard("gpmp_gpu_warmup", compile::warmup)
}
