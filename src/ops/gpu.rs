//! Device-wide operations: the empirical search of the kernels' tuned choices, and waiting for
//! every queued GPU operation.
use crate::gpu::{device, driver_err, ntt, shield};
use crate::Result;

/// Runs the empirical search of every searched kernel choice (the NTT pass structures, which every
/// NTT-based route uses) on the current device and records the picks beside the kernel cache (see
/// `gpu::autotune`); later calls, in this process and later ones with the same cache, use them.
/// Without this (or `GPMP_AUTOTUNE=on`) no call ever waits for a search.
pub fn tune() -> Result<()> {
    ntt::tune()
}

/// Waits for all work queued on the current device (every stream of its context) and returns the
/// first error the device reports. `NoCudaDevice` when no device is usable.
pub fn sync() -> Result<()> {
    let dev = device::current()?;
    shield("cuCtxSynchronize", || dev.ctx.synchronize().map_err(|e| driver_err("cuCtxSynchronize", e)))
}
