//! Process-wide settings: the worker pool (`gpmp_set_num_threads`, env `GPMP_NUM_THREADS`) and the
//! backend (`gpmp_set_backend`, env `GPMP_BACKEND=auto|cpu|gpu`).
//!
//! gpmp runs its parallel work in a rayon pool of its own, so that a host which also uses rayon keeps
//! its global pool, and so that the thread count can change at run time.
use crate::{Error, Result};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

/// Where the heavy work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The GPU above measured size thresholds when one is usable, else the CPU.
    Auto = 0,
    Cpu = 1,
    Gpu = 2,
}

struct Pool {
    pool: Arc<ThreadPool>,
}

fn pool_cell() -> &'static RwLock<Pool> {
    static POOL: OnceLock<RwLock<Pool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let requested = std::env::var("GPMP_NUM_THREADS").ok().and_then(|s| s.trim().parse::<usize>().ok()).unwrap_or(0);
        let pool = build_pool(requested).or_else(|_| build_pool(1)).expect("gpmp: cannot start even one worker thread");
        RwLock::new(Pool { pool })
    })
}

fn build_pool(requested: usize) -> Result<Arc<ThreadPool>> {
    let n = if requested == 0 { available_cores() } else { requested };
    ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("gpmp-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| Error::Internal(format!("cannot start {n} worker threads: {e}")))
}

/// Logical cores available to this process.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Sets the number of worker threads (0 = all cores).
pub fn set_num_threads(n: usize) -> Result<()> {
    let pool = build_pool(n)?;
    let mut cell = pool_cell().write().unwrap_or_else(|e| e.into_inner());
    *cell = Pool { pool };
    Ok(())
}

/// The number of worker threads in use.
pub fn num_threads() -> usize {
    let cell = pool_cell().read().unwrap_or_else(|e| e.into_inner());
    cell.pool.current_num_threads()
}

/// Runs `f` inside gpmp's pool (rayon calls in `f` use its threads) as part of the calling thread's
/// call (`crate::interrupt`): `f` sees the call's stop flag, and the calling thread polls its
/// interrupt and progress handlers while it waits.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let pool = {
        let cell = pool_cell().read().unwrap_or_else(|e| e.into_inner());
        Arc::clone(&cell.pool)
    };
    if pool.current_thread_index().is_some() {
        return pool.install(f);
    }
    crate::interrupt::call(|| {
        let cur = crate::interrupt::current();
        crate::interrupt::wait(|| pool.install(|| cur.enter(f)))
    })
}

static BACKEND: AtomicU8 = AtomicU8::new(u8::MAX);

fn backend_from_env() -> Backend {
    match std::env::var("GPMP_BACKEND").map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Ok("cpu") => Backend::Cpu,
        Ok("gpu") => Backend::Gpu,
        _ => Backend::Auto,
    }
}

/// The current backend (env `GPMP_BACKEND` until `set_backend` is called).
pub fn backend() -> Backend {
    match BACKEND.load(Ordering::Relaxed) {
        0 => Backend::Auto,
        1 => Backend::Cpu,
        2 => Backend::Gpu,
        _ => {
            let b = backend_from_env();
            let _ = BACKEND.compare_exchange(u8::MAX, b as u8, Ordering::Relaxed, Ordering::Relaxed);
            backend()
        }
    }
}

/// Whether every GPU operation waits for its device work before returning (env `GPMP_SYNC=1`, read
/// once): an asynchronous operation (the zvec arithmetic) then reports a device failure itself,
/// for debugging, instead of at a later synchronisation.
pub fn sync_calls() -> bool {
    static S: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *S.get_or_init(|| std::env::var("GPMP_SYNC").is_ok_and(|v| matches!(v.trim(), "1" | "on" | "true")))
}

/// Whether a usable GPU is present: the current CUDA device opens and NVRTC can be loaded.
pub fn gpu_available() -> bool {
    crate::gpu::device::current().is_ok()
}

/// Chooses the backend. `Gpu` without a usable GPU fails with `NoCudaDevice` and changes nothing.
pub fn set_backend(b: Backend) -> Result<()> {
    if b == Backend::Gpu && !gpu_available() {
        return Err(Error::NoCudaDevice("no usable CUDA device (no driver, no device, or no libnvrtc)".into()));
    }
    BACKEND.store(b as u8, Ordering::Relaxed);
    Ok(())
}

/// What a bug report needs, one `key: value` per line: gpmp's version and git commit, GMP's
/// version, the CPU features gpmp's kernels use and whether this CPU has them, the worker threads
/// and backend, whether libcuda and libnvrtc load, the CUDA devices, the kernel cache folder and
/// the log level.
pub fn build_info() -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "gpmp: {} ({})", env!("CARGO_PKG_VERSION"), env!("GPMP_GIT_COMMIT"));
    // SAFETY: GMP's version string is a static NUL-terminated string.
    let gmp = unsafe { std::ffi::CStr::from_ptr(gmp_mpfr_sys::gmp::version) }.to_string_lossy().into_owned();
    let _ = writeln!(s, "gmp: {gmp}");
    let _ = writeln!(s, "target: {}-{}", std::env::consts::ARCH, std::env::consts::OS);
    #[cfg(target_arch = "x86_64")]
    {
        let f = [
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("bmi2", std::arch::is_x86_feature_detected!("bmi2")),
            ("adx", std::arch::is_x86_feature_detected!("adx")),
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            ("avx512dq", std::arch::is_x86_feature_detected!("avx512dq")),
            ("avx512ifma", std::arch::is_x86_feature_detected!("avx512ifma")),
        ];
        let list: Vec<String> = f.iter().map(|(n, on)| format!("{n}{}", if *on { "+" } else { "-" })).collect();
        let _ = writeln!(s, "cpu features (+ present and used): {}", list.join(" "));
    }
    let _ = writeln!(s, "cores: {}, worker threads: {}", available_cores(), num_threads());
    let _ = writeln!(s, "backend: {:?}", backend());
    let (cuda, nvrtc) = (crate::gpu::device::driver_present(), crate::gpu::device::nvrtc_present());
    let _ = writeln!(s, "libcuda: {}, libnvrtc: {}", if cuda { "found" } else { "not found" }, if nvrtc { "found" } else { "not found" });
    if cuda {
        let n = crate::gpu::device::device_count();
        let names: Vec<String> = (0..n as i64).map(|i| crate::gpu::device::name(i).unwrap_or_else(|e| e.to_string())).collect();
        let _ = writeln!(s, "cuda devices: {n}{}{}", if n > 0 { ": " } else { "" }, names.join(", "));
    }
    let cache = crate::gpu::compile::cache_dir().map_or_else(|| "off".to_string(), |p| p.display().to_string());
    let _ = writeln!(s, "kernel cache: {cache}");
    let _ = writeln!(s, "log: {}", crate::log::level().map_or("off", |l| l.name()));
    s
}
