//! Operations on dense polynomials over Z, coefficients low to high as [`IntRef`](crate::int::IntRef)
//! views: multiplication ([`mul`]: one file per algorithm and one dispatcher, CPU or GPU by
//! [`crate::ops::route`]), division ([`divrem`]), multipoint evaluation ([`evaluate`]) and
//! interpolation ([`interpolate`]). Each further operation (Taylor shift, real roots) gets a file or
//! folder of its own here.
pub mod divrem;
pub mod evaluate;
pub mod interpolate;
pub mod mul;
pub mod real_roots;
pub mod scale_shift;
pub mod taylor_shift;

pub use mul::{choose, gpu_wanted, mul, mul_on_gpu, runs_inline, Alg, HostProduct};
