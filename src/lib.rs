//! gpmp: parallel arbitrary-precision integer, prime-field and integer-polynomial arithmetic.
//!
//! Layers (as in FLINT's raw vs managed split):
//! - the safe core, one module per mathematical object, over limb slices and residue vectors:
//!   [`int`] (signed limb views and fixed-stride integer matrices), [`nmod`] (word-size prime
//!   fields, NTTs, CRT) and [`zpoly`] (dense Z\[x\] multiplication and its dispatcher);
//! - [`runtime`]: the thread pool and the backend choice;
//! - [`gpu`]: the CUDA backend (devices, NVRTC kernels, GPU NTTs), loaded at run time;
//! - `ffi`: the C ABI (`include/gpmp.h`), the only place that sees `mpz_t`.
pub mod error;
pub mod gfpf;
pub mod gpu;
pub mod int;
pub mod nmod;
pub mod ops;
pub mod runtime;
pub mod tuning;
pub mod zpoly;

#[doc(hidden)]
pub mod testing;

#[doc(hidden)]
pub mod ffi;

pub use error::{Error, Result};
