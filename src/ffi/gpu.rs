//! CUDA devices: count, names, the device set and the current device, and kernel warm-up.
use super::gpmp_status;
use super::nmod::slice_in;
use super::status::{guard, guard_value};
use crate::gpu::{compile, device};
use crate::invalid;
use crate::ops;
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

/// Makes `device` the one CUDA device of every later GPU call in the process: the same as
/// `gpmp_set_cuda_devices(&device, 1)`.
#[no_mangle]
pub extern "C" fn gpmp_set_cuda_device(device: c_int) -> gpmp_status {
    guard("gpmp_set_cuda_device", || device::set_current(device as i64))
}

/// Makes the `n` distinct CUDA devices `ids` the device set of every later GPU call in the process
/// (default every visible device, or env `GPMP_CUDA_DEVICES=0,1,...`): the Z\[x\] product and the
/// batched mulmod and powm share their work over all of them; the first is the current device,
/// where the other GPU routes run. An empty list, a repeated or nonexistent device is
/// `GPMP_INVALID_ARGUMENT` and changes nothing.
///
/// # Safety
/// `ids` must point to `n` readable ints.
#[no_mangle]
pub unsafe extern "C" fn gpmp_set_cuda_devices(ids: *const c_int, n: usize) -> gpmp_status {
    guard("gpmp_set_cuda_devices", || {
        let ids = slice_in(ids, n, "ids")?;
        device::set_devices(&ids.iter().map(|&d| d as i64).collect::<Vec<_>>())
    })
}

/// Opens the current device and compiles and loads every kernel now, on several threads (otherwise
/// a call compiles the kernels it launches at its first use). Compiled kernels are cached on disk,
/// so a later process loads them without compiling.
#[no_mangle]
pub extern "C" fn gpmp_gpu_warmup() -> gpmp_status {
    guard("gpmp_gpu_warmup", compile::warmup)
}

/// Times the candidate kernel configurations on the current device (a few seconds) and records
/// the fastest beside the kernel cache; later calls, in this process and later ones with the same
/// cache, use them. Without it, calls use the configurations shipped for the device's architecture
/// (or recorded by an earlier `gpmp_gpu_tune`) and never wait for a search. `GPMP_AUTOTUNE=off`
/// turns the search off (then this only checks the device).
#[no_mangle]
pub extern "C" fn gpmp_gpu_tune() -> gpmp_status {
    guard("gpmp_gpu_tune", ops::gpu::tune)
}

/// Waits for all work queued on the current device (zvec operations included) and returns the
/// first error the device reports (`GPMP_CUDA_ERROR`).
#[no_mangle]
pub extern "C" fn gpmp_gpu_sync() -> gpmp_status {
    guard("gpmp_gpu_sync", ops::gpu::sync)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without libcuda (CI): no devices; every call fails cleanly and leaves the buffer untouched.
    #[test]
    fn without_cuda_the_c_api_reports_no_device() {
        if device::driver_present() {
            eprintln!("skipped: libcuda is present on this machine");
            return;
        }
        assert_eq!(gpmp_cuda_device_count(), 0);
        let mut buf = [b'x' as c_char; 8];
        let st = unsafe { gpmp_cuda_device_name(0, buf.as_mut_ptr(), buf.len()) };
        assert_eq!(st, gpmp_status::GPMP_NO_CUDA_DEVICE);
        assert!(buf.iter().all(|&c| c == b'x' as c_char));
        assert_eq!(gpmp_set_cuda_device(0), gpmp_status::GPMP_NO_CUDA_DEVICE);
        assert_eq!(unsafe { gpmp_set_cuda_devices([0].as_ptr(), 1) }, gpmp_status::GPMP_NO_CUDA_DEVICE);
        assert_eq!(gpmp_gpu_warmup(), gpmp_status::GPMP_NO_CUDA_DEVICE);
        assert_eq!(gpmp_gpu_tune(), gpmp_status::GPMP_NO_CUDA_DEVICE);
        assert_eq!(gpmp_gpu_sync(), gpmp_status::GPMP_NO_CUDA_DEVICE);
        assert_eq!(crate::ffi::zvec::gpmp_zvec_sync(), gpmp_status::GPMP_SUCCESS, "no zvec lives on a device");
    }

    #[test]
    fn a_null_or_empty_name_buffer_is_invalid() {
        assert_eq!(unsafe { gpmp_cuda_device_name(0, std::ptr::null_mut(), 8) }, gpmp_status::GPMP_INVALID_ARGUMENT);
        let mut buf = [0 as c_char; 1];
        assert_eq!(unsafe { gpmp_cuda_device_name(0, buf.as_mut_ptr(), 0) }, gpmp_status::GPMP_INVALID_ARGUMENT);
    }

    #[test]
    fn an_empty_or_null_device_list_is_invalid() {
        assert_eq!(unsafe { gpmp_set_cuda_devices(std::ptr::null(), 0) }, gpmp_status::GPMP_INVALID_ARGUMENT);
        assert_eq!(unsafe { gpmp_set_cuda_devices(std::ptr::null(), 2) }, gpmp_status::GPMP_INVALID_ARGUMENT);
    }

    #[cfg(feature = "gpu-tests")]
    #[test]
    fn device_lists_are_checked_and_one_device_is_a_set_of_one() {
        let n = gpmp_cuda_device_count();
        assert!(n > 0, "gpu-tests need a CUDA device");
        let before = device::devices();
        for bad in [vec![-1], vec![0, n], vec![0, 0]] {
            assert_eq!(unsafe { gpmp_set_cuda_devices(bad.as_ptr(), bad.len()) }, gpmp_status::GPMP_INVALID_ARGUMENT, "{bad:?}");
            assert_eq!(device::devices(), before);
        }
        let all: Vec<c_int> = (0..n).collect();
        assert_eq!(unsafe { gpmp_set_cuda_devices(all.as_ptr(), all.len()) }, gpmp_status::GPMP_SUCCESS);
        assert_eq!(device::devices().len(), n as usize);
        assert_eq!(gpmp_set_cuda_device(n - 1), gpmp_status::GPMP_SUCCESS);
        assert_eq!(device::devices(), [n as usize - 1]);
        let back: Vec<c_int> = before.iter().map(|&d| d as c_int).collect();
        assert_eq!(unsafe { gpmp_set_cuda_devices(back.as_ptr(), back.len()) }, gpmp_status::GPMP_SUCCESS);
    }

    #[cfg(feature = "gpu-tests")]
    #[test]
    fn names_are_written_and_truncated_and_bad_devices_fail() {
        use std::ffi::CStr;
        let n = gpmp_cuda_device_count();
        assert!(n > 0, "gpu-tests need a CUDA device");
        let full = device::name(0).unwrap();
        let mut buf = [b'x' as c_char; 256];
        assert_eq!(unsafe { gpmp_cuda_device_name(0, buf.as_mut_ptr(), buf.len()) }, gpmp_status::GPMP_SUCCESS);
        assert_eq!(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap(), full);
        let mut small = [b'x' as c_char; 5];
        assert_eq!(unsafe { gpmp_cuda_device_name(0, small.as_mut_ptr(), small.len()) }, gpmp_status::GPMP_SUCCESS);
        assert_eq!(unsafe { CStr::from_ptr(small.as_ptr()) }.to_bytes(), &full.as_bytes()[..4]);
        for bad in [-1, n] {
            assert_eq!(unsafe { gpmp_cuda_device_name(bad, buf.as_mut_ptr(), buf.len()) }, gpmp_status::GPMP_INVALID_ARGUMENT);
            assert_eq!(gpmp_set_cuda_device(bad), gpmp_status::GPMP_INVALID_ARGUMENT);
        }
        assert_eq!(gpmp_set_cuda_device(0), gpmp_status::GPMP_SUCCESS);
        assert_eq!(gpmp_gpu_warmup(), gpmp_status::GPMP_SUCCESS);
        assert_eq!(gpmp_gpu_sync(), gpmp_status::GPMP_SUCCESS);
    }
}
