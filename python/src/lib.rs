//! `gpmp._gpmp`: the Python extension over the gpmp crate (the package `gpmp` re-exports it).
//!
//! Every call converts its arguments with the GIL held ([`ints`]), then computes in gpmp's thread
//! pool with the GIL released ([`compute`]), then builds the Python results. gpmp's errors become
//! Python exceptions: invalid arguments `ValueError`, sizes beyond gpmp's or GMP's limits
//! `OverflowError`, failed allocations `MemoryError`, CUDA and internal failures `RuntimeError`,
//! and a call stopped by a signal (Ctrl-C) the exception its handler raised (`KeyboardInterrupt`).
mod crt;
mod gfpf;
mod integers;
mod ints;
mod nmod;
mod zpoly;
mod zvec;

use gpmp::runtime::{self, Backend};
use gpmp::{interrupt, Error};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyOverflowError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::ffi::{c_int, c_void};

/// The Python exception for gpmp's error `e` in the call `name`.
pub(crate) fn error(name: &str, e: Error) -> PyErr {
    let msg = format!("{name}: {e}");
    match e {
        Error::InvalidArgument(_) => PyValueError::new_err(msg),
        Error::SizeTooLarge(_) => PyOverflowError::new_err(msg),
        Error::OutOfMemory(_) => PyMemoryError::new_err(msg),
        Error::Interrupted(_) => PyKeyboardInterrupt::new_err(msg),
        Error::NoCudaDevice(_) | Error::Cuda(_) | Error::Internal(_) => PyRuntimeError::new_err(msg),
    }
}

thread_local! {
    /// The exception a signal handler raised during this thread's running call.
    static PENDING: std::cell::RefCell<Option<PyErr>> = const { std::cell::RefCell::new(None) };
}

/// gpmp's interrupt handler (`gpmp::interrupt`), polled on the calling thread while a call runs:
/// takes the GIL and runs Python's signal handlers (`PyErr_CheckSignals`, a no-op off the main
/// thread); when one raises (Ctrl-C: KeyboardInterrupt), keeps the exception and stops the call.
unsafe extern "C" fn check_signals(_data: *mut c_void) -> c_int {
    Python::attach(|py| match py.check_signals() {
        Ok(()) => 0,
        Err(e) => {
            PENDING.with(|p| *p.borrow_mut() = Some(e));
            1
        }
    })
}

/// Runs `f` in gpmp's pool with the GIL released; gpmp's error becomes the Python exception. A
/// signal (Ctrl-C) stops the call: it raises what the signal's handler raised (KeyboardInterrupt).
pub(crate) fn compute<T: Send>(py: Python<'_>, name: &str, f: impl FnOnce() -> gpmp::Result<T> + Send) -> PyResult<T> {
    interrupt::set_interrupt_handler(Some((check_signals, std::ptr::null_mut())));
    let r = py.detach(|| runtime::install(f));
    interrupt::set_interrupt_handler(None);
    let pending = PENDING.with(|p| p.borrow_mut().take());
    match r {
        Ok(v) => match pending {
            // The call finished before it saw the stop: the exception is raised now.
            Some(e) => Err(e),
            None => Ok(v),
        },
        Err(Error::Interrupted(msg)) => Err(pending.unwrap_or_else(|| PyKeyboardInterrupt::new_err(format!("{name}: {msg}")))),
        Err(e) => Err(error(name, e)),
    }
}

/// Sets the number of worker threads (0: all cores). The default comes from the environment
/// variable `GPMP_NUM_THREADS`.
#[pyfunction]
fn set_num_threads(n: usize) -> PyResult<()> {
    runtime::set_num_threads(n).map_err(|e| error("set_num_threads", e))
}

/// The number of worker threads.
#[pyfunction]
fn get_num_threads() -> usize {
    runtime::num_threads()
}

/// Chooses where the heavy work runs: "auto" (the GPU above measured sizes when one is usable),
/// "cpu" or "gpu" (RuntimeError without a usable CUDA device).
#[pyfunction]
fn set_backend(name: &str) -> PyResult<()> {
    let b = match name.to_ascii_lowercase().as_str() {
        "auto" => Backend::Auto,
        "cpu" => Backend::Cpu,
        "gpu" => Backend::Gpu,
        _ => return Err(PyValueError::new_err(format!("set_backend: unknown backend {name:?} (auto, cpu or gpu)"))),
    };
    runtime::set_backend(b).map_err(|e| error("set_backend", e))
}

/// The current backend: "auto", "cpu" or "gpu".
#[pyfunction]
fn get_backend() -> &'static str {
    match runtime::backend() {
        Backend::Auto => "auto",
        Backend::Cpu => "cpu",
        Backend::Gpu => "gpu",
    }
}

/// The names of the usable CUDA devices (an empty list without a driver or a device).
#[pyfunction]
fn cuda_devices() -> Vec<String> {
    let n = gpmp::gpu::device::device_count();
    (0..n).map(|i| gpmp::gpu::device::name(i as i64).unwrap_or_else(|e| format!("<{e}>"))).collect()
}

/// gpmp's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// How `int` objects are read and written: ("raw" or "portable", "raw" or "portable").
#[pyfunction]
fn _int_paths() -> (&'static str, &'static str) {
    let name = |l| if l == ints::Layout::Portable { "portable" } else { "raw" };
    let (r, w) = ints::paths();
    (name(r), name(w))
}

#[pymodule]
fn _gpmp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    ints::init(m.py())?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(set_backend, m)?)?;
    m.add_function(wrap_pyfunction!(get_backend, m)?)?;
    m.add_function(wrap_pyfunction!(cuda_devices, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_int_paths, m)?)?;
    zpoly::register(m)?;
    crt::register(m)?;
    integers::register(m)?;
    nmod::register(m)?;
    gfpf::register(m)?;
    zvec::register(m)?;
    Ok(())
}
