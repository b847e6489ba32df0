//! `gpmp_status`, the thread-local detail message, and the panic-catching guard around every export.
use crate::{Error, Result};
use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Status of every gpmp call; the values are CUMODP's `cumodp_err` where one exists.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum gpmp_status {
    GPMP_SUCCESS = 0x000,
    GPMP_FAILURE = 0x001,
    GPMP_INVALID_ARGUMENT = 0x002,
    /// Stopped by the interrupt handler or `gpmp_interrupt_all`; no output was written.
    GPMP_INTERRUPTED = 0x003,
    GPMP_NO_CUDA_DEVICE = 0x100,
    GPMP_CUDA_ERROR = 0x102,
    GPMP_SIZE_TOO_LARGE = 0x202,
    GPMP_OUT_OF_MEMORY = 0x401,
    GPMP_INTERNAL_ERROR = 0x999,
}

impl gpmp_status {
    fn of(e: &Error) -> Self {
        match e {
            Error::InvalidArgument(_) => gpmp_status::GPMP_INVALID_ARGUMENT,
            Error::SizeTooLarge(_) => gpmp_status::GPMP_SIZE_TOO_LARGE,
            Error::OutOfMemory(_) => gpmp_status::GPMP_OUT_OF_MEMORY,
            Error::NoCudaDevice(_) => gpmp_status::GPMP_NO_CUDA_DEVICE,
            Error::Cuda(_) => gpmp_status::GPMP_CUDA_ERROR,
            Error::Interrupted(_) => gpmp_status::GPMP_INTERRUPTED,
            Error::Internal(_) => gpmp_status::GPMP_INTERNAL_ERROR,
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `msg` as this thread's last error detail.
pub(crate) fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|l| *l.borrow_mut() = c);
}

/// This thread's last error detail; valid until the thread's next failing call.
pub(crate) fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|l| l.borrow().as_ptr())
}

/// Runs an export's body as one call (see `crate::interrupt`): `Ok` → `GPMP_SUCCESS`; `Err` → its
/// status and detail; a panic → `GPMP_INTERNAL_ERROR` (no panic crosses the C boundary).
pub(crate) fn guard(name: &str, f: impl FnOnce() -> Result<()>) -> gpmp_status {
    match catch_unwind(AssertUnwindSafe(|| crate::interrupt::call(f))) {
        Ok(Ok(())) => gpmp_status::GPMP_SUCCESS,
        Ok(Err(e)) => {
            set_last_error(&format!("{name}: {e}"));
            gpmp_status::of(&e)
        }
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(&format!("{name}: internal error: {what}"));
            gpmp_status::GPMP_INTERNAL_ERROR
        }
    }
}

/// Like [`guard`] for exports that return a value instead of a status (`on_error` on failure).
pub(crate) fn guard_value<T>(name: &str, on_error: T, f: impl FnOnce() -> Result<T>) -> T {
    let mut out = None;
    let st = guard(name, || {
        out = Some(f()?);
        Ok(())
    });
    match (st, out) {
        (gpmp_status::GPMP_SUCCESS, Some(v)) => v,
        _ => on_error,
    }
}
