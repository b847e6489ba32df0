//! Word-size prime fields Z/pZ (p < 2^63): arithmetic, Fourier primes, NTTs and CRT; polynomial
//! products, power series inverses, division, Taylor shifts and GCDs, and multipoint evaluation and
//! interpolation by subproduct trees.
pub mod convolution;
pub mod crt;
pub mod evaluate;
pub mod interpolate;
pub mod inv_series;
pub mod negacyclic;
pub mod ntt;
pub mod ntt_field;
pub mod plan;
pub mod poly_divrem;
pub mod poly_gcd;
pub mod poly_mul;
pub mod prime;
pub mod reduce;
pub mod scratch;
pub mod subinverse;
pub mod taylor_shift;
pub mod tree;
