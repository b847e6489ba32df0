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

/// `nmod::ntt` runs the four-step from this size on, the direct O(n²) sum below: fixed by the
/// four-step, whose split n = n1·n2 needs n1, n2 ≥ 8.
pub const NTT_FOUR_STEP_MIN_N: usize = 64;
/// Parallel passes from this size on with the 64-bit products: 62-bit p at 2^15 (two tasks a pass),
/// 4 and 16 threads, took 0.68–1.02× tfhe-ntt's time in parallel against 0.96–1.01× serial.
pub const NTT_PARALLEL_MIN_N: usize = 1 << 15;
/// [`NTT_PARALLEL_MIN_N`] with the IFMA products: 50-bit p in parallel was slower at 2^15 (1.17–2.04×
/// tfhe-ntt's time against 1.13–1.20× serial) and faster at 2^16 (0.67–1.04× against 1.22–1.33×).
pub const NTT_IFMA_PARALLEL_MIN_N: usize = 1 << 16;
/// Words of one parallel task of an NTT pass, at least: waking a sleeping worker costs about as
/// much as a task of a small transform.
pub const NTT_PARALLEL_TASK_MIN_WORDS: usize = 1 << 14;
/// Each row visit of a four-step pass serves several strips of 8 columns from this size on (64-bit
/// products): a strip's rows are ≥ 4 KiB apart from 2^18; 62-bit p, 1.2–1.6× faster at 2^19..2^22,
/// equal at 2^18, slower below (Zen 4 core).
pub const NTT_WIDE_STRIPS_MIN_N: usize = 1 << 18;
/// [`NTT_WIDE_STRIPS_MIN_N`] with the IFMA products (cheaper butterflies, so the strided rows weigh
/// more): 50-bit p, one thread, equal at 2^16 and faster at 2^17 (Intel host), faster at both (Zen 5).
pub const NTT_IFMA_WIDE_STRIPS_MIN_N: usize = 1 << 16;
/// With the 64-bit products the four-step twiddles are a twiddle stage of pass 1 from this size on,
/// folded into pass 2's coset DFTs below (their 16n-byte table fills a 2 MiB L2 at 2^17): 62-bit p,
/// one thread, equal at 2^17..2^18 (Intel host), the stage faster from 2^17 (Zen 5). IFMA: always
/// the stage.
pub const NTT_TWIDDLE_STAGE_MIN_N: usize = 1 << 17;
/// The line DFT finishes its stages block by block once blocks have at most this many 64-byte lines
/// (16 KiB: a block stays in a 32 KiB L1d).
pub const NTT_LEAF_MAX_LINES: usize = 256;

// ---- Word-size prime fields: products ----

// ---- Generalized Fermat prime fields ----

/// `Gfpf::mul` uses the FFT-based (CRT) element product from this k on, the plain Θ(k²) product
/// below: plain/CRT time 0.83–0.87 at k = 64, 1.80–1.82 at k = 128 (`gfpf_bench mul`).
pub const GFPF_MUL_CRT_MIN_K: usize = 128;
/// `Gfpf::poly_mul` uses the schoolbook product while the shorter factor has at most this many
/// coefficients, the DFT convolution above (not measured: three DFTs against flen·glen products).
pub const GFPF_POLY_MUL_SCHOOLBOOK_MAX_LEN: usize = 16;
/// DFT passes of at least this many words (N·k, 32 MiB) store non-temporally into 64-byte aligned
/// buffers: 0–17 % faster (1–4 % typically, Intel host), 2–3 % (AMD), never slower by the median.
pub const GFPF_DFT_STREAM_MIN_WORDS: usize = 1 << 22;
/// Words of one parallel task of a GFPF DFT pass (and of its scaling), at least; a pass of fewer
/// than two tasks' words runs on the calling thread.
pub const GFPF_DFT_PARALLEL_TASK_MIN_WORDS: usize = 1 << 14;

// ---- GPU engines: kernel variants and launch shapes ----
