//! Word-size prime fields Z/pZ (p < 2^63): arithmetic, Fourier primes, NTTs and CRT.
pub mod convolution;
pub mod crt;
pub mod ntt;
pub mod plan;
pub mod poly_mul;
pub mod prime;
pub mod reduce;
pub mod scratch;
