//! gpmp: parallel arbitrary-precision integer, prime-field and integer-polynomial arithmetic.
//!
//! **Layers** (bottom to top; docs/ARCHITECTURE.md has the map):
//! 1. infrastructure: [`error`], [`runtime`] (thread pool, backend), [`interrupt`] (stopping a call,
//!    progress), [`log`], [`memory`] (limits), [`tuning`] (every crossover),
//!    and the GPU's shared parts `gpu::{device, compile, kernels, autotune}`;
//! 2. core, CPU arithmetic: [`int`] (limb slices, batches), [`nmod`] (word-size prime fields, NTTs,
//!    CRT), [`gfpf`] (generalized Fermat prime fields);
//! 3. device engines: `gpu::{ntt, gfpf, zvec, batch, zpoly_mul, ntt_mul}`;
//! 4. operations: [`ops`] (the routing point [`ops::route`] and the routed entries) and [`zpoly`]
//!    (operations on Z\[x\]);
//! 5. `ffi`: the C ABI (`include/gpmp.h`), the only place that sees `mpz_t`.
//!
//! **The rule:** a module names only its own layer and the layers below it; the C layer reaches
//! the GPU only through the operations; library code never names [`testing`]. `tests/layers.rs`
//! enforces it.
pub mod error;
pub mod gfpf;
pub mod gpu;
pub mod int;
pub mod interrupt;
pub mod log;
pub mod memory;
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
