//! Operations: the entry points that the C API (`src/ffi/`) and Rust callers use for everything that
//! has a GPU path. Each decides CPU or GPU once, at its entry, through [`route`], then calls the
//! core's CPU code (`int`, `nmod`, `gfpf`) or a device engine (`gpu::*`). The Z\[x\] operations live in
//! [`crate::zpoly`], which routes the same way.
pub mod crt;
pub mod gfpf;
pub mod gpu;
pub mod int;
pub mod nmod;
pub mod route;
pub mod zvec;

pub use route::{route, Op, Where};
