//! Generalized Fermat prime field operations with a GPU path: the DFT and its inverse
//! ([`Gfpf::dft`], [`Gfpf::idft`]) and the elementwise add, sub and mul of n elements ([`binary_n`]),
//! each on the CPU ([`crate::gfpf`]) or the GPU ([`crate::gpu::gfpf`]) by [`route`]. Both are exact:
//! the words are the same.
use super::route::{route, Op, Where};
use crate::gfpf::Gfpf;
use crate::gpu::gfpf as device;
use crate::Result;
use rayon::prelude::*;

pub use crate::gpu::gfpf::Op as BinaryOp;

impl Gfpf {
    /// In place, x ← (Σ_j x_j ω^(ij))_i: N canonical elements (N·k words, rows layout), natural order
    /// in and out; ω a primitive N-th root of unity, N a power of 2 dividing p − 1. On the CPU
    /// ([`Gfpf::dft_cpu`]) or the GPU by [`route`].
    pub fn dft(&self, x: &mut [u64], n: usize, omega: &[u64]) -> Result<()> {
        transform(self, x, n, omega, false)
    }

    /// The inverse of [`Gfpf::dft`] with the same ω: x ← (1/N)·(Σ_j x_j ω^(−ij))_i.
    pub fn idft(&self, x: &mut [u64], n: usize, omega: &[u64]) -> Result<()> {
        transform(self, x, n, omega, true)
    }
}

fn transform(f: &Gfpf, x: &mut [u64], n: usize, omega: &[u64], inverse: bool) -> Result<()> {
    if route(Op::GfpfDft, n as u64)? == Where::Gpu {
        return device::dft(f, x, n, omega, inverse, false);
    }
    if inverse {
        f.idft_cpu(x, n, omega)
    } else {
        f.dft_cpu(x, n, omega)
    }
}

/// z_i = x_i ∘ y_i for the n elements of x, y, z (n·k words each, rows layout, canonical), ∘ = `op`:
/// on the GPU when [`route`] says so, else on the CPU (products eight elements per AVX-512 IFMA
/// batch by [`Gfpf::mul_n`], sums and differences in parallel).
pub fn binary_n(f: &Gfpf, op: BinaryOp, z: &mut [u64], x: &[u64], y: &[u64]) -> Result<()> {
    let k = f.k();
    if route(Op::GfpfElementwise, (x.len() / k) as u64)? == Where::Gpu {
        return device::binary(f, op, z, x, y, false);
    }
    let each: fn(&Gfpf, &mut [u64], &[u64], &[u64]) = match op {
        BinaryOp::Mul => {
            f.mul_n(z, x, y);
            return Ok(());
        }
        BinaryOp::Add => Gfpf::add,
        BinaryOp::Sub => Gfpf::sub,
    };
    z.par_chunks_mut(k).zip(x.par_chunks(k).zip(y.par_chunks(k))).with_min_len(256).for_each(|(o, (a, b))| each(f, o, a, b));
    Ok(())
}
