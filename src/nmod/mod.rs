//! Word-size prime fields Z/pZ (p < 2^63): arithmetic, Fourier primes, NTTs and CRT, products,
//! Taylor shifts and GCDs of polynomials.
pub mod convolution;
pub mod crt;
pub mod ntt;
pub mod plan;
pub mod poly_gcd;
pub mod poly_mul;
pub mod prime;
pub mod reduce;
pub mod scratch;
pub mod taylor_shift;
