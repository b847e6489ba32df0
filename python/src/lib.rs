//! `gpmp._gpmp`: the Python extension over the gpmp crate (the package `gpmp` re-exports it).
//!
//! Every call converts its arguments with the GIL held ([`ints`]), then computes in gpmp's thread
//! pool with the GIL released ([`compute`]), then builds the Python results. gpmp's errors become
//! Python exceptions: invalid arguments `ValueError`, sizes beyond gpmp's or GMP's limits
//! `OverflowError`, failed allocations `MemoryError`, CUDA and internal failures `RuntimeError`.
mod gfpf;
mod integers;
mod ints;
mod nmod;
mod zpoly;
mod zvec;

use gpmp::runtime::{self, Backend};
use gpmp::Error;
use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// The Python exception for gpmp's error `e` in the call `name`.
pub(crate) fn error(name: &str, e: Error) -> PyErr {
    let msg = format!("{name}: {e}");
    match e {
        Error::InvalidArgument(_) => PyValueError::new_err(msg),
        Error::SizeTooLarge(_) => PyOverflowError::new_err(msg),
        Error::OutOfMemory(_) => PyMemoryError::new_err(msg),
        Error::NoCudaDevice(_) | Error::Cuda(_) | Error::Internal(_) => PyRuntimeError::new_err(msg),
    }
}

/// Runs `f` in gpmp's pool with the GIL released; gpmp's error becomes the Python exception.
pub(crate) fn compute<T: Send>(py: Python<'_>, name: &str, f: impl FnOnce() -> gpmp::Result<T> + Send) -> PyResult<T> {
    py.detach(|| runtime::install(f)).map_err(|e| error(name, e))
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
    integers::register(m)?;
    nmod::register(m)?;
    gfpf::register(m)?;
    zvec::register(m)?;
    Ok(())
}
