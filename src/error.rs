//! Errors of the safe core; the C layer maps each kind onto a `gpmp_status`.
use std::fmt;

/// What went wrong, with a human-readable detail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Bad input: null pointers, negative/huge sizes, bad primes, wrong layouts, unknown enum values.
    InvalidArgument(String),
    /// The result or an intermediate would exceed what gpmp (or GMP's `int` sizes) can represent.
    SizeTooLarge(String),
    /// A host or device allocation failed.
    OutOfMemory(String),
    /// The GPU backend was requested but no usable CUDA device exists.
    NoCudaDevice(String),
    /// The CUDA driver or NVRTC reported an error.
    Cuda(String),
    /// The call was stopped by the host's interrupt handler or `gpmp_interrupt_all`.
    Interrupted(String),
    /// A bug: an invariant of gpmp failed (including a caught panic).
    Internal(String),
}

/// Result of the safe core.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The detail message without the kind.
    pub fn detail(&self) -> &str {
        match self {
            Error::InvalidArgument(s)
            | Error::SizeTooLarge(s)
            | Error::OutOfMemory(s)
            | Error::NoCudaDevice(s)
            | Error::Cuda(s)
            | Error::Interrupted(s)
            | Error::Internal(s) => s,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.detail())
    }
}

impl std::error::Error for Error {}

/// `Err(Error::InvalidArgument(format!(...)))` in one line.
#[macro_export]
macro_rules! invalid {
    ($($t:tt)*) => { Err($crate::Error::InvalidArgument(format!($($t)*))) };
}
