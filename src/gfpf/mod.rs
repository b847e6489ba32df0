//! Generalized Fermat prime fields Z/pZ, p = r^k + 1 (r < 2^64, k a power of 2), and their FFT
//! (Mohajerani 2021 Ch. 2–3; Chen–Covanov–Mohajerani–Moreno Maza, ISSAC 2017).
//!
//! An element is a vector of k radix-r digits x_0..x_{k−1} (least significant first) with
//! x = Σ x_i r^i; canonical means every digit < r, or the single special form x_{k−1} = r, others 0,
//! which encodes r^k ≡ −1 = p − 1. Vectors of n elements are stored element-major (n × k words).
//! Since r is a primitive 2k-th root of unity, multiplying by r^s is a digit shift with a
//! negated wrap-around, so DFTs of size ≤ 2k need no multiplication.
//! - [`field`]: the context [`Gfpf`] (validation, conversions to/from integers);
//! - [`builtin`]: the primes of Table 2.1 (P3, P4, …);
//! - [`arith`]: add, sub, neg, mul_pow_r, mul (Alg. 2, MulPowR, Alg. 3 with signed accumulators);
//! - [`crt_mul`]: the FFT-based product (Alg. 4: negacyclic NTTs modulo word primes + CRT), which
//!   `mul` uses from k = [`crate::tuning::GFPF_MUL_CRT_MIN_K`] on;
//! - [`root`]: powers and the roots of unity with ω^(N/2k) = r;
//! - [`fft`]: the DFT in natural order for every power-of-two N (six-step, rayon), its base DFTs
//!   batched eight rows per AVX-512 vector where the CPU has it (`simd`);
//! - [`poly`]: products of polynomials over Z/pZ.
pub mod arith;
pub mod builtin;
pub mod crt_mul;
pub mod fft;
pub mod field;
pub mod poly;
pub mod root;
mod simd;

/// Process-wide choices between equivalent implementations of the DFT and the element product, for
/// benchmarks and tests that compare them in one process (`bench/gfpf_bench.rs`). Every setting gives
/// the same results; the defaults are the tuned choices of [`crate::tuning`]. These and the backend and
/// thread count are the library's only process-wide settings.
pub mod variants {
    pub use super::fft::set_stream_min;
    pub use super::simd::set_enabled as set_simd;
    pub use super::simd::{set_base_cap, set_karatsuba};
}

pub use field::Gfpf;
