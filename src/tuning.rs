//! The tuning table: every crossover of the library, CPU and GPU, in one place (in the spirit of
//! GMP's `gmp-mparam.h` and FLINT's `flint-mparam.h`).
//!
//! Naming: `<OPERATION>_<CHOICE>_MIN_<UNIT>` (or `_MAX_`), where the choice is an algorithm, the GPU,
//! or parallel work, and the unit says what is compared (`LIMBS`, `WORDS`, `N` elements, `LEN`
//! coefficients). Each constant has a one-line reason: the measurement that set it, and the command
//! that repeats it (`make -C bench thresholds` prints the CPU Z\[x\] and integer table in this
//! format; the GPU crossovers come from `bench/gpu/run.sh`). Values are measured on the 2-core
//! development box (CPU) and on the H100 host against its 16 cores (GPU).
//!
//! Nothing here reads the environment: a user changes where work runs with the backend
//! (`gpmp_set_backend`) and the thread count, never with hidden switches.

// ---- CPU or GPU: the AUTO backend's crossovers (read only by `ops::route`) ----

// ---- Z[x] multiplication ----

// ---- Integers ----

// ---- Word-size prime fields: the NTT ----

// ---- Word-size prime fields: products ----

// ---- Generalized Fermat prime fields ----

// ---- GPU engines: kernel variants and launch shapes ----
//
// Compile-time shapes of the kernels (`-D` defines of `kernels/*.cu`; each value is another
// compiled module, so the autotuner of `gpu::autotune` does not search them). Measured on the H100
// with `bench/gpu_ntt.rs` and `bench/gpu_zvec.rs` (kernel time, 2^20 products for zvec).

/// NTT passes (`ntt.cu`, `MINB`): blocks per SM the register allocation must allow; 2^24 points, 62-bit p: 0.609 / 0.579 / 0.698 ms at 3 / 4 / 5.
pub const GPU_NTT_MIN_BLOCKS_PER_SM: u32 = 4;
/// zvec add/sub and register product (`zv_mul`, `MINB`): 96 registers, 4.2e9 products/s at 1024 bits against 3.5e9 at 1 block (144 registers).
pub const GPU_ZVEC_MUL_MIN_BLOCKS_PER_SM: usize = 5;
/// zvec chunked product (`zv_mulc`, `MINB`): 128 registers, 1.00e9 products/s at 2048 bits against 0.89e9 at 1 block (142 registers).
pub const GPU_ZVEC_MULC_MIN_BLOCKS_PER_SM: usize = 4;
/// Independent accumulators of a product column (`ZV_ACC`) in `zv_mul` and `zv_mulc`: 2 costs the registers of the rows above and is slower.
pub const GPU_ZVEC_MUL_ACCUMULATORS: usize = 1;
/// Limb columns the chunked products load ahead of use (`PF`): 3.6 ms at 4096 bits against 4.26 without prefetching and 3.82 at 1.
pub const GPU_ZVEC_PREFETCH: usize = 2;
/// Operands from this many limbs use the wide chunked product `zv_mulw`: 3.53 ms at 4096 bits against 3.63 (`zv_mulc`); 1.09 at 2048 against 0.90.
pub const GPU_ZVEC_MULW_MIN_LIMBS: usize = 33;
/// `zv_mulw`'s chunk of the shorter operand (`CW` limbs, 2 chunks at 4096 bits): chunks of 24 or 20 limbs ran 3.67 ms and more against 3.45.
pub const GPU_ZVEC_MULW_CHUNK_LIMBS: usize = 32;
/// `zv_mulw` (`MINB`, 64 threads a block): 6 blocks per SM, at most 170 registers and 6 × 36.9 KB of shared memory per SM.
pub const GPU_ZVEC_MULW_MIN_BLOCKS_PER_SM: usize = 6;
/// `zv_mulw`'s ragged columns run or skip blocks of 4 digits in units of this many (`ZW_U`): 3.45 ms against 3.49 at 4 and 3.55 at 1.
pub const GPU_ZVEC_MULW_UNIT: usize = 2;
