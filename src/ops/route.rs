//! The routing point: where one call of an operation runs, CPU or GPU. Every operation with a GPU
//! path asks [`route`] once, at its entry, with its size in the unit of its crossover in
//! [`crate::tuning`]; nothing else in the library chooses a device, and the C layer never does.
//!
//! The backend decides first: `Cpu` → CPU; `Gpu` → GPU (`NoCudaDevice` when none is usable);
//! `Auto` → GPU when the size reaches the operation's crossover and a GPU is usable, else CPU.
//! Whether the device can serve the call's shape at all (an odd modulus of at most 4096 bits, a
//! product bound the prime set covers, ...) is the engine's `supports`, asked before `route`: a call
//! the device cannot serve runs on the CPU under every backend.
use crate::runtime::{self, Backend};
use crate::tuning::*;
use crate::Result;

/// The operations that have a GPU path, with what their AUTO rule reads beyond the size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Z\[x\] product; size: output words.
    ZpolyMul,
    /// Z\[x\] Taylor shift f(x + c) modulo primes; size: output words (length × limbs of the bound).
    ZpolyTaylorShift,
    /// One big-integer product; size: limbs of the shorter operand.
    IntMul,
    /// Product mod a word-size prime; size: output words of the integer product.
    NmodPolyMul,
    /// Word-size NTTs (one or many rows, CUMODP layer too); size: words.
    NmodNtt,
    /// Multipoint evaluation and interpolation mod p through a subproduct tree; size: points.
    NmodTree,
    /// GFPF DFT and inverse; size: elements.
    GfpfDft,
    /// GFPF elementwise add, sub, mul; size: elements.
    GfpfElementwise,
    /// Where a new zvec is stored; size: words.
    Zvec,
    /// Batched products (and r + a·b) over mpz arrays; size: elements; `limbs`: the longest operand.
    MpzMulN { limbs: u64 },
    /// Batched mulmod over mpz arrays; size: elements.
    MpzMulmodN,
    /// Batched powm over mpz arrays; size: elements; `work`: the average bits(m)²·bits(e).
    MpzPowmN { work: u64 },
}

/// Where a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    Cpu,
    Gpu,
}

impl Op {
    /// Whether a call of `size` is large enough for the GPU under `Backend::Auto` (the tuning table).
    pub fn gpu_wins(self, size: u64) -> bool {
        match self {
            Op::ZpolyMul => reaches(size, ZPOLY_MUL_GPU_MIN_WORDS),
            Op::ZpolyTaylorShift => reaches(size, ZPOLY_TAYLOR_SHIFT_GPU_MIN_WORDS),
            Op::IntMul => reaches(size, INT_MUL_GPU_MIN_LIMBS),
            Op::NmodPolyMul => reaches(size, NMOD_POLY_MUL_GPU_MIN_WORDS),
            Op::NmodNtt => reaches(size, NMOD_NTT_GPU_MIN_WORDS),
            Op::NmodTree => reaches(size, NMOD_TREE_GPU_MIN_N),
            Op::GfpfDft => reaches(size, GFPF_DFT_GPU_MIN_N),
            Op::GfpfElementwise => reaches(size, GFPF_ELEMENTWISE_GPU_MIN_N),
            Op::Zvec => reaches(size, ZVEC_GPU_MIN_WORDS),
            Op::MpzMulN { limbs } => reaches(size, MPZ_MUL_N_GPU_MIN_N) && limbs <= MPZ_MUL_N_GPU_MAX_LIMBS,
            Op::MpzMulmodN => reaches(size, MPZ_MULMOD_N_GPU_MIN_N),
            Op::MpzPowmN { work } => reaches(size, MPZ_POWM_N_GPU_MIN_N) && reaches(work, MPZ_POWM_N_GPU_MIN_WORK),
        }
    }
}

/// size ≥ min; a crossover of `u64::MAX` means "never".
fn reaches(size: u64, min: u64) -> bool {
    size >= min
}

/// Where a call of `op` of `size` runs under the current backend.
pub fn route(op: Op, size: u64) -> Result<Where> {
    route_on(runtime::backend(), op, size)
}

/// [`route`] under a given backend.
pub fn route_on(backend: Backend, op: Op, size: u64) -> Result<Where> {
    Ok(match backend {
        Backend::Cpu => Where::Cpu,
        Backend::Gpu => {
            crate::gpu::device::current()?;
            Where::Gpu
        }
        Backend::Auto if op.gpu_wins(size) && runtime::gpu_available() => Where::Gpu,
        Backend::Auto => Where::Cpu,
    })
}

/// [`route`] for a call whose kernels may not be loaded yet: under `Backend::Auto`, when the GPU
/// would serve, `ready()` (the engine's non-blocking "loaded, or start compiling in the background")
/// is asked, and the call runs on the CPU while it answers false, so that a cold process never
/// waits for a compile under AUTO. `Backend::Gpu` does not ask: the call waits for its kernels.
pub fn route_when_ready(op: Op, size: u64, ready: impl FnOnce() -> bool) -> Result<Where> {
    route_when_ready_on(runtime::backend(), op, size, ready)
}

/// [`route_when_ready`] under a given backend.
pub fn route_when_ready_on(backend: Backend, op: Op, size: u64, ready: impl FnOnce() -> bool) -> Result<Where> {
    Ok(match route_on(backend, op, size)? {
        Where::Gpu if backend == Backend::Auto && !ready() => Where::Cpu,
        w => w,
    })
}

/// Whether a call of `op` of `size` runs on the GPU under the current backend.
pub fn on_gpu(op: Op, size: u64) -> Result<bool> {
    Ok(route(op, size)? == Where::Gpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_backend_never_routes_to_the_gpu_and_auto_follows_the_table() {
        for op in [
            Op::ZpolyMul,
            Op::ZpolyTaylorShift,
            Op::IntMul,
            Op::NmodPolyMul,
            Op::NmodNtt,
            Op::NmodTree,
            Op::GfpfDft,
            Op::Zvec,
            Op::MpzPowmN { work: u64::MAX },
            Op::MpzMulN { limbs: 1 },
        ] {
            assert_eq!(route_on(Backend::Cpu, op, u64::MAX - 1).unwrap(), Where::Cpu, "{op:?}");
        }
        assert!(!Op::ZpolyMul.gpu_wins(ZPOLY_MUL_GPU_MIN_WORDS - 1) && Op::ZpolyMul.gpu_wins(ZPOLY_MUL_GPU_MIN_WORDS));
        let shift = ZPOLY_TAYLOR_SHIFT_GPU_MIN_WORDS;
        assert!(!Op::ZpolyTaylorShift.gpu_wins(shift - 1) && Op::ZpolyTaylorShift.gpu_wins(shift));
        assert!(!Op::NmodNtt.gpu_wins(1 << 40), "AUTO never sends NTTs from host memory");
        assert!(!Op::NmodTree.gpu_wins(NMOD_TREE_GPU_MIN_N - 1) && Op::NmodTree.gpu_wins(NMOD_TREE_GPU_MIN_N));
        assert!(!Op::MpzPowmN { work: MPZ_POWM_N_GPU_MIN_WORK - 1 }.gpu_wins(1 << 20));
        assert!(Op::MpzPowmN { work: MPZ_POWM_N_GPU_MIN_WORK }.gpu_wins(MPZ_POWM_N_GPU_MIN_N));
        assert!(Op::MpzMulN { limbs: MPZ_MUL_N_GPU_MAX_LIMBS }.gpu_wins(MPZ_MUL_N_GPU_MIN_N));
        assert!(!Op::MpzMulN { limbs: MPZ_MUL_N_GPU_MAX_LIMBS + 1 }.gpu_wins(u64::MAX));
        assert!(!Op::MpzMulN { limbs: 1 }.gpu_wins(MPZ_MUL_N_GPU_MIN_N - 1));
        if !runtime::gpu_available() {
            assert_eq!(route_on(Backend::Auto, Op::ZpolyMul, u64::MAX).unwrap(), Where::Cpu);
            assert!(matches!(route_on(Backend::Gpu, Op::ZpolyMul, 0), Err(crate::Error::NoCudaDevice(_))));
        }
    }

    /// AUTO asks whether the kernels are loaded only where the GPU would serve, and serves on the
    /// CPU while they are not; the CPU backend never asks; the GPU backend never asks (it waits).
    #[test]
    fn auto_serves_on_the_cpu_while_kernels_compile() {
        let op = Op::MpzMulN { limbs: 4 };
        let asked = std::cell::Cell::new(0);
        let ready = |r: bool| {
            let asked = &asked;
            move || {
                asked.set(asked.get() + 1);
                r
            }
        };
        assert_eq!(route_when_ready_on(Backend::Cpu, op, u64::MAX - 1, ready(true)).unwrap(), Where::Cpu);
        assert_eq!(route_when_ready_on(Backend::Auto, op, 0, ready(true)).unwrap(), Where::Cpu);
        assert_eq!(asked.get(), 0, "no question where the CPU serves anyway");
        let big = MPZ_MUL_N_GPU_MIN_N.max(1 << 20);
        assert_eq!(route_when_ready_on(Backend::Auto, op, big, ready(false)).unwrap(), Where::Cpu);
        if runtime::gpu_available() {
            assert_eq!(asked.get(), 1);
            assert_eq!(route_when_ready_on(Backend::Auto, op, big, ready(true)).unwrap(), Where::Gpu);
            assert_eq!(route_when_ready_on(Backend::Gpu, op, 1, ready(false)).unwrap(), Where::Gpu, "the GPU backend waits");
            assert_eq!(asked.get(), 2);
        } else {
            assert_eq!(asked.get(), 0, "no device: AUTO serves on the CPU without asking");
            assert!(route_when_ready_on(Backend::Gpu, op, 1, ready(true)).is_err());
        }
    }
}
