//! The C ABI: the only place with `extern "C"`. Each export validates its arguments, converts
//! `mpz_t` to limb views, calls the safe core inside [`guard`] (which catches panics and records the
//! detail message) and writes its outputs only after everything has succeeded.
#![allow(non_camel_case_types)]

pub mod bpas;
pub mod crt;
pub mod cumodp;
pub mod gfpf;
pub mod gpu;
pub mod mpz;
pub mod mpz_n;
pub mod nmod;
pub mod nmod_tree;
pub mod poly;
pub mod poly_eval;
pub mod roots;
pub mod runtime;
pub mod status;
pub mod zvec;

#[cfg(test)]
mod tests;

pub use status::gpmp_status;
