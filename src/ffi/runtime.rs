//! Version, error strings, thread count and backend.
use super::gpmp_status;
use super::status::{guard, guard_value, last_error_ptr};
use crate::invalid;
use crate::runtime::{self, Backend};
use std::ffi::{c_char, c_int, c_void};

/// Where the heavy work runs (`GPMP_BACKEND=auto|cpu|gpu` is the default).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum gpmp_backend {
    GPMP_BACKEND_AUTO = 0,
    GPMP_BACKEND_CPU = 1,
    GPMP_BACKEND_GPU = 2,
}

/// The C enum `gpmp_backend` as it arrives from C: any int, validated before use.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct RawBackend(pub c_int);

/// The library version, e.g. "0.1.0".
#[no_mangle]
pub extern "C" fn gpmp_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A static English description of `status`.
#[no_mangle]
pub extern "C" fn gpmp_strerror(status: gpmp_status) -> *const c_char {
    let s: &'static str = match status {
        gpmp_status::GPMP_SUCCESS => "success\0",
        gpmp_status::GPMP_FAILURE => "failure\0",
        gpmp_status::GPMP_INVALID_ARGUMENT => "invalid argument\0",
        gpmp_status::GPMP_NO_CUDA_DEVICE => "no usable CUDA device\0",
        gpmp_status::GPMP_CUDA_ERROR => "CUDA error\0",
        gpmp_status::GPMP_SIZE_TOO_LARGE => "size too large\0",
        gpmp_status::GPMP_OUT_OF_MEMORY => "out of memory\0",
        gpmp_status::GPMP_INTERRUPTED => "interrupted\0",
        gpmp_status::GPMP_INTERNAL_ERROR => "internal error\0",
    };
    s.as_ptr().cast()
}

/// The detail of this thread's last failure ("" if none); valid until its next failing call.
#[no_mangle]
pub extern "C" fn gpmp_last_error() -> *const c_char {
    last_error_ptr()
}

/// Sets the number of worker threads; 0 = all cores (env `GPMP_NUM_THREADS` is the default).
#[no_mangle]
pub extern "C" fn gpmp_set_num_threads(n: c_int) -> gpmp_status {
    guard("gpmp_set_num_threads", || {
        if n < 0 {
            return invalid!("thread count {n} is negative");
        }
        if n as usize > 4096 {
            return invalid!("thread count {n} is larger than 4096");
        }
        runtime::set_num_threads(n as usize)
    })
}

/// The number of worker threads in use.
#[no_mangle]
pub extern "C" fn gpmp_get_num_threads() -> c_int {
    guard_value("gpmp_get_num_threads", 1, || Ok(runtime::num_threads() as c_int))
}

/// Chooses the backend; `GPMP_BACKEND_GPU` without a usable GPU returns `GPMP_NO_CUDA_DEVICE`.
#[no_mangle]
pub extern "C" fn gpmp_set_backend(b: RawBackend) -> gpmp_status {
    guard("gpmp_set_backend", || {
        let b = match b.0 {
            0 => Backend::Auto,
            1 => Backend::Cpu,
            2 => Backend::Gpu,
            v => return invalid!("unknown backend {v}"),
        };
        runtime::set_backend(b)
    })
}

/// The backend in use.
#[no_mangle]
pub extern "C" fn gpmp_get_backend() -> gpmp_backend {
    match guard_value("gpmp_get_backend", Backend::Auto, || Ok(runtime::backend())) {
        Backend::Auto => gpmp_backend::GPMP_BACKEND_AUTO,
        Backend::Cpu => gpmp_backend::GPMP_BACKEND_CPU,
        Backend::Gpu => gpmp_backend::GPMP_BACKEND_GPU,
    }
}

/// An interrupt handler: returns nonzero when the running call should stop.
pub type gpmp_interrupt_fn = Option<unsafe extern "C" fn(data: *mut c_void) -> c_int>;
/// A progress handler: `fraction` of the running call's work is done, in \[0, 1\].
pub type gpmp_progress_fn = Option<unsafe extern "C" fn(data: *mut c_void, fraction: f64)>;

/// Installs this thread's interrupt handler (NULL removes it). While a call made on this thread
/// works, `fn(data)` is called on this thread every 20 ms or so; when it returns nonzero the call
/// stops within 100 ms and returns `GPMP_INTERRUPTED`, writing no output. For Ctrl-C in a CAS: the
/// handler reads the host's "interrupt pending" flag.
#[no_mangle]
pub extern "C" fn gpmp_set_interrupt_handler(f: gpmp_interrupt_fn, data: *mut c_void) {
    crate::interrupt::set_interrupt_handler(f.map(|f| (f, data)));
}

/// Installs this thread's progress handler (NULL removes it): while a call made on this thread
/// works, `fn(data, fraction)` is called on this thread about every `interval_s` seconds (at least
/// 0.01 s apart).
#[no_mangle]
pub extern "C" fn gpmp_set_progress_handler(f: gpmp_progress_fn, data: *mut c_void, interval_s: f64) {
    let s = if interval_s.is_finite() && interval_s > 0.0 { interval_s.min(1e6) } else { 0.0 };
    crate::interrupt::set_progress_handler(f.map(|f| (f, data)), std::time::Duration::from_secs_f64(s));
}

/// Stops every running call of every thread (each returns `GPMP_INTERRUPTED`); calls started
/// afterwards run normally. Async-signal-safe: it may be called from a signal handler.
#[no_mangle]
pub extern "C" fn gpmp_interrupt_all() {
    crate::interrupt::interrupt_all();
}

/// A log handler: `level` 1 (error) … 5 (trace), `message` one NUL-terminated line, valid only
/// during the call.
pub type gpmp_log_fn = Option<unsafe extern "C" fn(data: *mut c_void, level: c_int, message: *const c_char)>;

/// Sends gpmp's log to `fn` (NULL: back to stderr). It may be called from any of gpmp's threads,
/// never twice at once; it must not call gpmp.
#[no_mangle]
pub extern "C" fn gpmp_set_log_handler(f: gpmp_log_fn, data: *mut c_void) {
    crate::log::set_handler(f.map(|f| (f, data)));
}

/// Shows log messages up to `level`: 0 off (the default, unless env `GPMP_LOG` says otherwise),
/// 1 error, 2 warn, 3 info, 4 debug (stage timers of the GPU routes), 5 trace.
#[no_mangle]
pub extern "C" fn gpmp_set_log_level(level: c_int) -> gpmp_status {
    guard("gpmp_set_log_level", || {
        use crate::log::Level;
        let l = match level {
            0 => None,
            1 => Some(Level::Error),
            2 => Some(Level::Warn),
            3 => Some(Level::Info),
            4 => Some(Level::Debug),
            5 => Some(Level::Trace),
            v => return invalid!("log level {v} is not in 0..=5"),
        };
        crate::log::set_level(l);
        Ok(())
    })
}

/// A description of this build and machine for bug reports (version, git commit, GMP version, CPU
/// features, threads, backend, libcuda/libnvrtc, CUDA devices, kernel cache folder, log level),
/// one `key: value` per line. The string is computed at the first call and lives as long as the
/// process.
#[no_mangle]
pub extern "C" fn gpmp_build_info() -> *const c_char {
    static INFO: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    INFO.get_or_init(|| std::ffi::CString::new(runtime::build_info().replace('\0', " ")).unwrap_or_default()).as_ptr()
}

/// Limits the host memory of each call's plan to `bytes` (0: no limit; env `GPMP_MEMORY_LIMIT`,
/// e.g. `8G`, is the default): a call that would need more returns `GPMP_OUT_OF_MEMORY` before it
/// allocates.
#[no_mangle]
pub extern "C" fn gpmp_set_memory_limit(bytes: usize) {
    crate::memory::set_host_limit(bytes);
}

/// Limits the device memory of each GPU call's plan to `bytes` (0: no limit; env
/// `GPMP_DEVICE_MEMORY_LIMIT` is the default): products plan their parts within it, other calls
/// that would need more return `GPMP_OUT_OF_MEMORY` before they allocate.
#[no_mangle]
pub extern "C" fn gpmp_set_device_memory_limit(bytes: usize) {
    crate::memory::set_device_limit(bytes);
}
