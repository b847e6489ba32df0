//! The CUDA backend, in cudarc's three layers: `sys` (raw driver and NVRTC calls, loaded at run time),
//! `result` (error codes as `Result`) and the safe wrappers (contexts, streams, device buffers).
//!
//! - [`device`]: discovery, one lazily created context per device, the current device;
//! - [`autotune`]: launch parameters from kernel resources and occupancy, empirical search at first use;
//! - [`kernels`]: the registry of the CUDA C files of `kernels/`, each declared by its engine;
//! - [`compile`]: those files, `kernels/common.cuh` prepended, compiled by NVRTC at first use and cached;
//! - [`ntt`]: batched word-size NTTs on the device;
//! - [`gfpf`]: the generalized Fermat prime field FFT and elementwise arithmetic on the device;
//! - [`staging`]: the pinned host buffer the engines stage transfers through;
//! - [`zvec`]: `gpmp_zvec` in device memory (element-wise integer arithmetic);
//! - [`batch`]: batched modular multiplication and exponentiation (Montgomery, odd moduli);
//! - [`zpoly_mul`]: the multi-modular Z\[x\] product (`gpmp_poly_mul` on the GPU);
//! - [`ntt_mul`]: one big-integer product, limbs in and limbs out (`gpmp_mpz_mul` on the GPU);
//! - [`tree`]: multipoint evaluation and interpolation mod p over a device-resident subproduct tree.
//!
//! No build needs CUDA: libcuda and libnvrtc are loaded when first used, and only after their
//! presence has been checked (cudarc panics when a library is missing). Every driver or compiler
//! failure becomes a [`crate::Error`], and every entry point runs inside [`shield`], so a panic of
//! the bindings (a missing symbol in an old driver, say) is an error too.
pub mod autotune;
pub mod batch;
pub mod compile;
pub mod device;
pub mod gfpf;
pub mod kernels;
pub mod ntt;
pub mod ntt_mul;
pub mod staging;
pub mod tree;
pub mod zpoly_mul;
pub mod zvec;

use crate::{Error, Result};
use cudarc::driver::{result::DriverError, sys::CUresult};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A driver error as a gpmp error: out of memory stays out of memory, the rest is `Cuda`.
pub(crate) fn driver_err(what: &str, e: DriverError) -> Error {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    match e.0 {
        CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::OutOfMemory(format!("{what}: device out of memory ({name})")),
        CUresult::CUDA_ERROR_NO_DEVICE => Error::NoCudaDevice(format!("{what}: {name}")),
        _ => Error::Cuda(format!("{what}: {name}")),
    }
}

/// Runs `f`, turning a panic of the CUDA bindings into `Error::Cuda`.
pub(crate) fn shield<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Error::Cuda(format!("{what}: {msg}")))
    })
}
