//! CUDA devices: discovery, one context per device (the device's primary context, created at first
//! use and kept for the life of the process) and the current device (`gpmp_set_cuda_device`, env
//! `GPMP_CUDA_DEVICE`, default 0). Everything here is safe to call from many threads and never
//! panics: without libcuda there are simply no devices.
use super::{driver_err, shield};
use crate::{invalid, Error, Result};
use cudarc::driver::{result, sys, CudaContext, CudaStream};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Whether libcuda can be loaded (checked once; cudarc panics on first use when it cannot).
pub fn driver_present() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the library under its usual names.
    *P.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Whether libnvrtc can be loaded (checked once).
pub fn nvrtc_present() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    // SAFETY: as above.
    *P.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}

/// The number of CUDA devices; 0 when there is no driver or it cannot be initialised.
pub fn device_count() -> usize {
    if !driver_present() {
        return 0;
    }
    shield("cuDeviceGetCount", || {
        result::init().map_err(|e| driver_err("cuInit", e))?;
        let n = result::device::get_count().map_err(|e| driver_err("cuDeviceGetCount", e))?;
        Ok(n.max(0) as usize)
    })
    .unwrap_or(0)
}

/// `Ok(())` when `ordinal` names an existing device; `NoCudaDevice` when there are none,
/// `InvalidArgument` when it is out of range.
fn check_ordinal(ordinal: i64) -> Result<()> {
    let count = device_count();
    if count == 0 {
        let why = if driver_present() { "the CUDA driver reports no device" } else { "libcuda cannot be loaded" };
        return Err(Error::NoCudaDevice(format!("no usable CUDA device ({why})")));
    }
    if ordinal < 0 || ordinal >= count as i64 {
        return invalid!("CUDA device {ordinal} does not exist (there are {count})");
    }
    Ok(())
}

/// The name of device `ordinal`, e.g. "NVIDIA H100 80GB HBM3" (creates no context).
pub fn name(ordinal: i64) -> Result<String> {
    check_ordinal(ordinal)?;
    shield("cuDeviceGetName", || {
        let dev = result::device::get(ordinal as i32).map_err(|e| driver_err("cuDeviceGet", e))?;
        result::device::get_name(dev).map_err(|e| driver_err("cuDeviceGetName", e))
    })
}

/// One device with its context and its loaded kernel modules.
pub struct Device {
    pub ordinal: usize,
    pub name: String,
    /// Compute capability (major, minor).
    pub cc: (i32, i32),
    /// `cuDriverGetVersion`, e.g. 13000.
    pub driver_version: i32,
    /// Bytes of device memory.
    pub total_mem: usize,
    pub ctx: Arc<CudaContext>,
    /// Loaded modules by compile key, one slot each (see `compile::module`).
    pub(crate) modules: Mutex<HashMap<String, super::compile::Slot>>,
}

impl Device {
    /// The NVRTC target, e.g. "sm_90".
    pub fn arch(&self) -> String {
        format!("sm_{}{}", self.cc.0, self.cc.1)
    }

    /// A new stream of this device (each call of a GPU routine uses its own, so that calls from
    /// several host threads overlap and never wait on each other's work).
    pub fn stream(&self) -> Result<Arc<CudaStream>> {
        shield("cuStreamCreate", || self.ctx.new_stream().map_err(|e| driver_err("cuStreamCreate", e)))
    }

    fn open(ordinal: usize) -> Result<Device> {
        shield("CUDA context", || {
            let ctx = CudaContext::new(ordinal).map_err(|e| driver_err("cuDevicePrimaryCtxRetain", e))?;
            let name = ctx.name().map_err(|e| driver_err("cuDeviceGetName", e))?;
            let cc = ctx.compute_capability().map_err(|e| driver_err("cuDeviceGetAttribute", e))?;
            let total_mem = ctx.total_mem().map_err(|e| driver_err("cuDeviceTotalMem", e))?;
            let mut driver_version = 0;
            // SAFETY: writes one int.
            unsafe { sys::cuDriverGetVersion(&mut driver_version) }.result().map_err(|e| driver_err("cuDriverGetVersion", e))?;
            Ok(Device { ordinal, name, cc, driver_version, total_mem, ctx, modules: Mutex::new(HashMap::new()) })
        })
    }
}

/// Device `ordinal`, its context created at first use (a failed creation is retried next time).
pub fn get(ordinal: i64) -> Result<Arc<Device>> {
    check_ordinal(ordinal)?;
    static OPEN: OnceLock<Mutex<HashMap<usize, Arc<Device>>>> = OnceLock::new();
    let mut open = OPEN.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let ord = ordinal as usize;
    if let Some(d) = open.get(&ord) {
        return Ok(Arc::clone(d));
    }
    let d = Arc::new(Device::open(ord)?);
    open.insert(ord, Arc::clone(&d));
    Ok(d)
}

/// -1 until first read, then the current device ordinal.
static CURRENT: AtomicI64 = AtomicI64::new(-1);

/// The current device ordinal: the last `set_current`, else env `GPMP_CUDA_DEVICE`, else 0.
pub fn current_ordinal() -> i64 {
    let c = CURRENT.load(Ordering::Relaxed);
    if c >= 0 {
        return c;
    }
    let env = std::env::var("GPMP_CUDA_DEVICE").ok().and_then(|s| s.trim().parse::<i64>().ok()).filter(|&d| d >= 0);
    let _ = CURRENT.compare_exchange(-1, env.unwrap_or(0), Ordering::Relaxed, Ordering::Relaxed);
    CURRENT.load(Ordering::Relaxed)
}

/// Makes `ordinal` the current device for the whole process (it must exist).
pub fn set_current(ordinal: i64) -> Result<()> {
    check_ordinal(ordinal)?;
    CURRENT.store(ordinal, Ordering::Relaxed);
    Ok(())
}

/// The current device, ready for use (also checks that NVRTC can be loaded, since every kernel
/// is compiled at run time).
pub fn current() -> Result<Arc<Device>> {
    let d = get(current_ordinal())?;
    if !nvrtc_present() {
        return Err(Error::NoCudaDevice("libnvrtc cannot be loaded, so no kernel can be compiled".into()));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without libcuda (CI): no devices, and every entry point reports `NoCudaDevice`.
    #[test]
    fn no_driver_means_no_device() {
        if driver_present() {
            eprintln!("skipped: libcuda is present on this machine");
            return;
        }
        assert_eq!(device_count(), 0);
        assert!(matches!(get(0), Err(Error::NoCudaDevice(_))));
        assert!(matches!(current(), Err(Error::NoCudaDevice(_))));
        assert!(matches!(name(0), Err(Error::NoCudaDevice(_))));
        assert!(matches!(set_current(0), Err(Error::NoCudaDevice(_))));
        assert!(!crate::runtime::gpu_available());
    }

    #[cfg(feature = "gpu-tests")]
    #[test]
    fn devices_are_listed_and_bad_ordinals_fail() {
        let n = device_count();
        assert!(n > 0, "gpu-tests need a CUDA device");
        let d = get(0).unwrap();
        assert!(!d.name.is_empty() && d.cc.0 >= 5 && d.total_mem > 0);
        assert_eq!(name(0).unwrap(), d.name);
        assert!(Arc::ptr_eq(&d, &get(0).unwrap()));
        for bad in [-1, n as i64, 1 << 40] {
            assert!(matches!(get(bad), Err(Error::InvalidArgument(_))), "{bad}");
            assert!(matches!(set_current(bad), Err(Error::InvalidArgument(_))), "{bad}");
        }
        set_current(0).unwrap();
        assert_eq!(current_ordinal(), 0);
        assert!(crate::runtime::gpu_available());
    }
}
