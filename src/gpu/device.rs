//! CUDA devices: discovery, one context per device (the device's primary context, created at first
//! use and kept for the life of the process), the device set and the current device. Everything
//! here is safe to call from many threads and never panics: without libcuda there are simply no
//! devices.
//!
//! The device set (`gpmp_set_cuda_devices`, env `GPMP_CUDA_DEVICES=0,1,...`, default every visible
//! device) is the ordered list of devices the splitting routes share their work over ([`devices`]:
//! the Z\[x\] product by primes, the batched mulmod and powm by blocks of elements). Its first
//! entry is the current device, where every route that runs on one device runs. One device is
//! the set of one: `gpmp_set_cuda_device(d)` is `gpmp_set_cuda_devices([d])`, and env
//! `GPMP_CUDA_DEVICE=d` (read only when `GPMP_CUDA_DEVICES` is unset) means the set {d}. A thread
//! doing one device's share of a split call has that device [`pinned`]: its current device is that
//! one while it works, and its device set is that device alone.
use super::{driver_err, shield};
use crate::{invalid, Error, Result};
use cudarc::driver::{result, sys, CudaContext, CudaStream};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

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

/// The device set; `None` until first read or set.
static SET: RwLock<Option<Vec<usize>>> = RwLock::new(None);

thread_local! {
    /// The device this thread works on for a split call ([`pinned`]); -1 when none.
    static PINNED: Cell<i64> = const { Cell::new(-1) };
}

/// The device list of env `GPMP_CUDA_DEVICES` (`s`) on a host of `count` devices: comma-separated
/// distinct ordinals below `count`, at least one (spaces allowed); `None` for anything else.
pub fn parse_device_list(s: &str, count: usize) -> Option<Vec<usize>> {
    let mut ids = Vec::new();
    for part in s.split(',') {
        let d = part.trim().parse::<usize>().ok().filter(|&d| d < count)?;
        if ids.contains(&d) {
            return None;
        }
        ids.push(d);
    }
    Some(ids)
}

/// The set at first read: env `GPMP_CUDA_DEVICES` when it parses ([`parse_device_list`]), else env
/// `GPMP_CUDA_DEVICE=d` as {d}, else every one of the `count` devices (`[0]` when there are none,
/// so that the current device stays 0 and its use reports `NoCudaDevice`).
fn default_set(list: Option<&str>, single: Option<&str>, count: usize) -> Vec<usize> {
    if let Some(ids) = list.and_then(|s| parse_device_list(s, count)) {
        return ids;
    }
    if let Some(d) = single.and_then(|s| s.trim().parse::<usize>().ok()) {
        return vec![d];
    }
    (0..count.max(1)).collect()
}

/// The device set, in order (the first is the current device); on a thread with a [`pinned`]
/// device, that device alone (a device's share of a split call is never split again).
pub fn devices() -> Vec<usize> {
    let p = PINNED.get();
    if p >= 0 {
        return vec![p as usize];
    }
    if let Some(s) = SET.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return s.clone();
    }
    let env = |k: &str| std::env::var(k).ok();
    let init = default_set(env("GPMP_CUDA_DEVICES").as_deref(), env("GPMP_CUDA_DEVICE").as_deref(), device_count());
    SET.write().unwrap_or_else(|e| e.into_inner()).get_or_insert(init).clone()
}

/// Makes `ids` (existing, distinct, at least one) the device set for the whole process; on a bad
/// list (`InvalidArgument`, or `NoCudaDevice` without devices) nothing changes.
pub fn set_devices(ids: &[i64]) -> Result<()> {
    if ids.is_empty() {
        return invalid!("the CUDA device list is empty");
    }
    for (i, &d) in ids.iter().enumerate() {
        check_ordinal(d)?;
        if ids[..i].contains(&d) {
            return invalid!("CUDA device {d} is listed twice");
        }
    }
    *SET.write().unwrap_or_else(|e| e.into_inner()) = Some(ids.iter().map(|&d| d as usize).collect());
    Ok(())
}

/// The current device ordinal: this thread's [`pinned`] device, else the first of the set.
pub fn current_ordinal() -> i64 {
    let p = PINNED.get();
    if p >= 0 {
        return p;
    }
    devices()[0] as i64
}

/// Makes `ordinal` (it must exist) the current device and the whole set: [`set_devices`] of one.
pub fn set_current(ordinal: i64) -> Result<()> {
    set_devices(&[ordinal])
}

/// Runs `f` with `ordinal` as this thread's current device (the previous one restored after).
pub fn pinned<R>(ordinal: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(i64);
    impl Drop for Restore {
        fn drop(&mut self) {
            PINNED.set(self.0);
        }
    }
    let _restore = Restore(PINNED.replace(ordinal as i64));
    f()
}

/// `f(i, devs[i])` for every device of `devs` at once, each on a thread of its own with that device
/// [`pinned`] and the calling thread's call entered (its stop flag): the results in order, or the
/// first error. One thread per device, not pool workers, so that a thread waiting on its device
/// never holds up another device's share; `f` should leave heavy host loops to the caller.
pub fn on_each<T: Send>(devs: &[usize], f: impl Fn(usize, usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    on_each_while(devs, f, || Ok(()))
}

/// [`on_each`], running `meanwhile` on the calling thread (in its pool: host work the devices'
/// threads wait for, such as staging their inputs) while the devices' threads run; its error
/// comes first.
pub fn on_each_while<T: Send>(
    devs: &[usize],
    f: impl Fn(usize, usize) -> Result<T> + Sync,
    meanwhile: impl FnOnce() -> Result<()>,
) -> Result<Vec<T>> {
    let cur = crate::interrupt::current();
    let (f, cur) = (&f, &cur);
    std::thread::scope(|s| {
        let hs: Vec<_> = devs.iter().enumerate().map(|(i, &d)| s.spawn(move || cur.enter(|| pinned(d, || f(i, d))))).collect();
        let m = meanwhile();
        let rs: Vec<Result<T>> =
            hs.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::Internal("a device thread panicked".into())))).collect();
        m?;
        rs.into_iter().collect()
    })
}

/// `0..n` in `parts` contiguous ranges whose lengths differ by at most one, longer ones first
/// (empty ranges when `parts > n`): the shares of primes or of elements of a split call.
pub fn shares(n: usize, parts: usize) -> Vec<std::ops::Range<usize>> {
    let parts = parts.max(1);
    let (q, r) = (n / parts, n % parts);
    let mut at = 0;
    (0..parts)
        .map(|i| {
            let len = q + usize::from(i < r);
            at += len;
            at - len..at
        })
        .collect()
}

/// Lets device `a`'s context read and write device `b`'s memory directly (NVLink or PCIe peer to
/// peer) when the hardware allows, once per ordered pair; otherwise peer copies between them go
/// through host memory (the driver stages them), which is still correct.
pub fn enable_peer(a: &Device, b: &Device) {
    static DONE: OnceLock<Mutex<std::collections::HashSet<(usize, usize)>>> = OnceLock::new();
    if a.ordinal == b.ordinal
        || !DONE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert((a.ordinal, b.ordinal))
    {
        return;
    }
    let _ = shield("cuCtxEnablePeerAccess", || {
        let mut can = 0;
        // SAFETY: writes one int; both ordinals name existing devices.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, a.ordinal as i32, b.ordinal as i32) }
            .result()
            .map_err(|e| driver_err("cuDeviceCanAccessPeer", e))?;
        if can != 0 {
            a.ctx.bind_to_thread().map_err(|e| driver_err("cuCtxSetCurrent", e))?;
            // SAFETY: b's context is live (kept for the process); an already enabled pair only reports that.
            let _ = unsafe { sys::cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0) };
        }
        Ok(())
    });
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

    #[test]
    fn device_lists_parse_strictly() {
        assert_eq!(parse_device_list("0,1,2", 4), Some(vec![0, 1, 2]));
        assert_eq!(parse_device_list(" 3 , 0", 4), Some(vec![3, 0]));
        assert_eq!(parse_device_list("1", 2), Some(vec![1]));
        for bad in ["", ",", "0,", "0,0", "4", "-1", "a", "0;1", "1,2,1"] {
            assert_eq!(parse_device_list(bad, 4), None, "{bad:?}");
        }
        assert_eq!(parse_device_list("0", 0), None);
    }

    #[test]
    fn the_default_set_reads_the_list_then_the_single_device_then_takes_all() {
        assert_eq!(default_set(Some("2,1"), Some("0"), 4), [2, 1]);
        assert_eq!(default_set(Some("9"), Some("3"), 4), [3], "a bad list falls back");
        assert_eq!(default_set(None, Some(" 1 "), 4), [1]);
        assert_eq!(default_set(None, Some("x"), 4), [0, 1, 2, 3]);
        assert_eq!(default_set(None, None, 2), [0, 1]);
        assert_eq!(default_set(None, None, 0), [0]);
    }

    #[test]
    fn shares_are_contiguous_and_balanced() {
        for n in [0usize, 1, 5, 34, 1 << 20] {
            for parts in 1..=9 {
                let s = shares(n, parts);
                assert_eq!(s.len(), parts);
                assert_eq!(s[0].start, 0);
                assert_eq!(s[parts - 1].end, n);
                assert!(s.windows(2).all(|w| w[0].end == w[1].start && w[0].len() >= w[1].len() && w[0].len() - w[1].len() <= 1));
            }
        }
        assert_eq!(shares(34, 4), [0..9, 9..18, 18..26, 26..34]);
        assert_eq!(shares(2, 3), [0..1, 1..2, 2..2]);
    }

    #[test]
    fn a_pinned_device_is_current_on_its_thread_only() {
        let base = current_ordinal();
        pinned(7, || {
            assert_eq!(current_ordinal(), 7);
            assert_eq!(devices(), [7]);
            pinned(5, || assert_eq!(current_ordinal(), 5));
            assert_eq!(current_ordinal(), 7);
            std::thread::scope(|s| s.spawn(|| assert_eq!(current_ordinal(), base)).join().unwrap());
        });
        assert_eq!(current_ordinal(), base);
        let seen = on_each(&[3, 1, 2], |i, d| Ok((i, d, current_ordinal(), devices()))).unwrap();
        assert_eq!(seen, [(0, 3, 3, vec![3]), (1, 1, 1, vec![1]), (2, 2, 2, vec![2])]);
        let e = on_each(&[0, 1], |i, _| if i == 1 { invalid!("share {i}") } else { Ok(i) });
        assert!(matches!(e, Err(Error::InvalidArgument(_))));
    }

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
        assert!(matches!(set_devices(&[0]), Err(Error::NoCudaDevice(_))));
        assert_eq!(devices(), [0], "no devices: the current device stays 0");
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
        assert_eq!(devices(), [0]);
        assert!(crate::runtime::gpu_available());
    }

    #[cfg(feature = "gpu-tests")]
    #[test]
    fn the_device_set_is_checked_and_its_first_is_current() {
        let n = device_count() as i64;
        let before = devices();
        for bad in [vec![], vec![-1], vec![0, n], vec![0, 0]] {
            assert!(matches!(set_devices(&bad), Err(Error::InvalidArgument(_))), "{bad:?}");
            assert_eq!(devices(), before, "a bad list changes nothing");
        }
        let all: Vec<i64> = (0..n).rev().collect();
        set_devices(&all).unwrap();
        assert_eq!(current_ordinal(), n - 1);
        assert_eq!(pinned(0, current_ordinal), 0);
        let seen = on_each(&devices(), |i, d| Ok((i, d, current_ordinal()))).unwrap();
        assert_eq!(seen.len(), n as usize);
        assert!(seen.iter().enumerate().all(|(i, &(j, d, c))| i == j && d as i64 == c && d as i64 == n - 1 - i as i64));
        set_devices(&before.iter().map(|&d| d as i64).collect::<Vec<_>>()).unwrap();
    }
}
