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
// Measured end to end from host memory on the H100 host against gpmp's CPU path on its 16 cores
// (bench/results/gpu-h100.md). Under the GPU backend every call the device can serve goes there.

/// Z\[x\] product, output words (length × limbs of a product coefficient): 2^13 × 64-bit (49k words)
/// ties, 2^14 × 64-bit (98k) is 2× faster on the GPU, 2^10 × 64-bit (6k) 0.7×.
pub const ZPOLY_MUL_GPU_MIN_WORDS: u64 = 1 << 16;
/// Z\[x\] Taylor shift modulo primes, output words (length × limbs of `shift_bits`). On the H100
/// host a shift of 2^12 × 64 bits (2^18 words, 68 primes) takes about 5 ms on the GPU, of which
/// about 4 ms is enqueueing its launches, and a first shift of a new prime count or length pays
/// 17–85 ms of device constants; 2^14 × 64 bits (2^22 words) takes 62 ms against 427 ms on the 16
/// cores. Real-root isolation shifts many node polynomials of distinct sizes, where the setups
/// dominate below about 2^21 words.
pub const ZPOLY_TAYLOR_SHIFT_GPU_MIN_WORDS: u64 = 1 << 21;
/// One big-integer product, limbs of the shorter operand: 2^12 limbs 0.30 ms GPU / 0.18 ms CPU,
/// 2^13 0.28 / 0.35, 2^16 0.66 / 2.00.
pub const INT_MUL_GPU_MIN_LIMBS: u64 = 1 << 13;
/// Product mod a word-size prime, output words of the integer product: balanced 2^16 (2^18 words)
/// ties, 2^20 is 1.5× and 2^22 2× faster on the GPU.
pub const NMOD_POLY_MUL_GPU_MIN_WORDS: u64 = 1 << 19;
/// Word-size NTTs from host memory: never (the CPU won at every size in `gpu_ntt e2e`,
/// bench/results/gpu-h100.md).
pub const NMOD_NTT_GPU_MIN_WORDS: u64 = u64::MAX;
/// GFPF DFT, elements: 4–8× faster on the GPU from N = 2^10 (P3 and P4, tables cached).
pub const GFPF_DFT_GPU_MIN_N: u64 = 1 << 10;
/// GFPF elementwise add/sub/mul: never (three transfers cost more than the CPU's products up to 2^20).
pub const GFPF_ELEMENTWISE_GPU_MIN_N: u64 = u64::MAX;
/// Where a new zvec lives, words (n × limbs): the chain set, set, mul, get takes 2.3–4.8× less time in
/// device memory from 2^16 words to 2^25.
pub const ZVEC_GPU_MIN_WORDS: u64 = 1 << 16;
/// Batched products (and r + a·b) over mpz arrays, elements: the device's products from host memory
/// (pinned, chunked, overlapped) against GMP on every core; to be measured with `gpu_zvec mpz`
/// (bench/gpu_zvec.rs), set from the kernels' and the bus's rates at 2^20 × 1024–4096 bits.
pub const MPZ_MUL_N_GPU_MIN_N: u64 = 1 << 14;
/// ... for operands of at most this many limbs (8192 bits; beyond, one thread per product falls
/// behind GMP's subquadratic products on the CPU cores).
pub const MPZ_MUL_N_GPU_MAX_LIMBS: u64 = 128;
/// Batched mulmod over mpz arrays: never (uploads and downloads cost more than GMP on 16 cores).
pub const MPZ_MULMOD_N_GPU_MIN_N: u64 = u64::MAX;
/// Batched powm over mpz arrays, elements (together with [`MPZ_POWM_N_GPU_MIN_WORK`]): CPU / GPU time
/// at n = 2^10 is 2.5–3.8 from 256-bit to 2048-bit operands, 38 at 2^14 × 1024 bits.
pub const MPZ_POWM_N_GPU_MIN_N: u64 = 1 << 10;
/// ... and the average work of one element, bits(m)²·bits(e), at least this (256-bit m and e, the
/// smallest size measured to win).
pub const MPZ_POWM_N_GPU_MIN_WORK: u64 = 1 << 24;
/// Multipoint evaluation and interpolation mod p through a subproduct tree, points (supported
/// primes only, `gpu::tree::supports`): not yet measured on the device; set from the thesis's GPU
/// break-even against FLINT (2^15, Tesla C2050) doubled for gpmp's CPU path on 16 cores, to be
/// replaced by the crossover `bench/gpu_tree.rs` measures.
pub const NMOD_TREE_GPU_MIN_N: u64 = 1 << 16;

// ---- Z[x] multiplication ----

/// One row of the Z\[x\] dispatcher's table ([`crate::zpoly::choose`]): for coefficients of at most
/// `max_bits` bits and a shorter length m, schoolbook when m ≤ `schoolbook_max_len`, the fast
/// algorithm when m ≥ `fast_min_len`, Kronecker substitution in between.
pub struct ZpolyMulRow {
    pub max_bits: u64,
    pub schoolbook_max_len: usize,
    pub fast_min_len: usize,
}

/// The rows, by coefficient size; the fast algorithm is the small-prime NTT up to
/// [`ZPOLY_MUL_SMALL_PRIME_NTT_MAX_BITS`] and the two-convolution above. Measured with
/// `make -C bench thresholds` at 1 and 2 threads (bench/results/cpu-zpoly.md).
/// Divide-and-conquer and Toom-4/8 won no cell; they stay available through `gpmp_poly_mul_alg`.
pub const ZPOLY_MUL_ROWS: [ZpolyMulRow; 5] = [
    ZpolyMulRow { max_bits: 128, schoolbook_max_len: 8, fast_min_len: 64 },
    ZpolyMulRow { max_bits: 512, schoolbook_max_len: 4, fast_min_len: 256 },
    ZpolyMulRow { max_bits: 2048, schoolbook_max_len: 2, fast_min_len: 256 },
    ZpolyMulRow { max_bits: 8192, schoolbook_max_len: 2, fast_min_len: 1024 },
    ZpolyMulRow { max_bits: u64::MAX, schoolbook_max_len: 2, fast_min_len: usize::MAX },
];
/// Transform length from which the two-convolution, between parameters of equal transform work, takes
/// more primes and shorter transforms (a stop waits for the running transform; CPU time equal:
/// `cargo run --release --example interrupt -- cpu`, bench/results/gpu-h100.md).
pub const ZPOLY_MUL_TWO_CONVOLUTION_SHORTER_MIN_N: usize = 1 << 22;
/// Coefficient size up to which the fast algorithm is the small-prime NTT (two-convolution above).
pub const ZPOLY_MUL_SMALL_PRIME_NTT_MAX_BITS: u64 = 512;
/// Unbalanced products of coefficients up to 512 bits with a longer length ≥ 1024 go to the
/// small-prime NTT from a shorter length of 3: its overlap-add blocks transform the short operand once
/// (2^20 × 16 at 64 bits: 101 ms against Kronecker's 125 ms at 1 thread).
pub const ZPOLY_MUL_UNBALANCED_NTT_MIN_LONG_LEN: usize = 1024;
/// The shorter length from which the unbalanced rule above applies.
pub const ZPOLY_MUL_UNBALANCED_NTT_MIN_LEN: usize = 3;

/// Multipoint evaluation over Z by residues modulo 50-bit primes and CRT while the values have at
/// most this many bits, one point at a time above (the CRT is quadratic in the prime count).
pub const ZPOLY_EVALUATE_MULTI_MODULAR_MAX_BITS: u64 = 1 << 14;

// ---- Z[x] Taylor shift ----
// Measured with `cargo run --release --example taylor_shift -- 1` (process CPU time, c = 1, the
// 2-core box; bench/results/roots.md).

/// Blocks shorter than this are shifted by the tableau (unless the multi-modular rule below takes
/// them): at 1024 coefficients the tableau beat divide and conquer at 1000 to 30000 bits (4.3 / 7.2,
/// 23.2 / 31.2, 69.5 / 80.8 ms), at 2048 they tie (24.4 / 21.2, 104.9 / 91.1 ms).
pub const ZPOLY_TAYLOR_SHIFT_DC_MIN_LEN: usize = 1536;
/// Blocks of at least this many coefficients go modulo primes when their shifted coefficients need
/// at most [`ZPOLY_TAYLOR_SHIFT_MULTI_MOD_BITS_PER_LEN`] bits per coefficient of length: 1024 × 64
/// bits 1.0 ms against the tableau's 2.5, 2048 × 4000 bits 29.8 against 48.8; below 1024 the tableau
/// won every size (512 × 1000 bits: 1.08 / 0.85 ms).
pub const ZPOLY_TAYLOR_SHIFT_MULTI_MOD_MIN_LEN: usize = 1024;
/// See [`ZPOLY_TAYLOR_SHIFT_MULTI_MOD_MIN_LEN`]: out_bits ≤ 4·len (the CRT is quadratic in the prime
/// count): 1024 × 4000 bits (5033 out) lost 11.7 / 9.9 ms, 2048 × 10000 (12058 out) tied.
pub const ZPOLY_TAYLOR_SHIFT_MULTI_MOD_BITS_PER_LEN: u64 = 4;
/// ... and at most this many bits (about 330 primes): 16384 × 64 bits (16461 out) took 2.0 s modulo
/// primes, 0.35 s for each half at 8192 (8268 out).
pub const ZPOLY_TAYLOR_SHIFT_MULTI_MOD_MAX_BITS: u64 = 16384;
/// The two halves of a divide-and-conquer shift run in parallel from this many words (length × stride).
pub const ZPOLY_TAYLOR_SHIFT_PARALLEL_MIN_WORDS: u64 = 1 << 14;

// ---- Real roots of Z[x] ----

/// The two children of a bisection node (their shifts, then their subtrees) are computed in parallel
/// from this many words of the node polynomial (length × stride).
pub const ZPOLY_REAL_ROOTS_PARALLEL_MIN_WORDS: u64 = 1 << 10;
/// Node polynomials of at least this many limbs per coefficient get their children's counts in
/// floating point first (below, the exact shift costs about as much as the approximate one).
pub const ZPOLY_REAL_ROOTS_APPROX_MIN_LIMBS: usize = 4;

// ---- Integers ----

/// Shorter operand (limbs) from which the multi-modular NTT product beats GMP's `mpn_mul` (1 thread,
/// balanced, ms NTT / GMP: 640² 0.054 / 0.051, 768² 0.059 / 0.064, 1024² 0.068 / 0.092).
pub const INT_MUL_NTT_MIN_LIMBS: usize = 768;
/// Powers modulo an odd m (gpmp's own exponentiation, 256-bit exponents), limbs of m: Montgomery's REDC
/// by products over REDC one limb at a time from 72 (1.12 ms against 1.13 ms; 0.93 against 0.92 at 64).
pub const POWM_REDC_MULLO_MIN_LIMBS: usize = 72;

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
/// The convolution engines' negacyclic transforms (`nmod::negacyclic`) are split into rows and
/// columns of short tfhe-ntt transforms from this length on, so that a stop is seen between them
/// (`cargo run --release --example interrupt -- cpu 300`, bench/results/gpu-h100.md).
pub const NMOD_NEGACYCLIC_SPLIT_MIN_N: usize = 1 << 20;

// ---- Word-size prime fields: products ----

/// f·g mod p by schoolbook up to this shorter length, by NTT convolution above.
pub const NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN: usize = 24;

// ---- Word-size prime fields: power series, division, subproduct trees ----

/// Power series inverses from this precision by Newton's iteration, coefficient by coefficient below.
pub const NMOD_INV_SERIES_NEWTON_MIN_LEN: usize = 64;
/// Division by Newton's iteration once the quotient and the divisor both have this many
/// coefficients, schoolbook below.
pub const NMOD_POLY_DIVREM_NEWTON_MIN_LEN: usize = 64;
/// Subproduct-tree levels whose nodes have at most this many coefficients (a power of two, 2^H)
/// multiply, evaluate and interpolate by schoolbook; above, by transforms. Tree + evaluation +
/// interpolation, 1 thread, ms at 2^H = 8 / 16 / 32 / 64: 62-bit Fourier p, n = 2^16, 48.6 / 47.4 /
/// 48.3 / 50.7; p = 2^63 − 25 (three CRT rows) 124.6 / 114.4 / 108.6 / 105.6 (`nmod_bench 1 tree`):
/// the best for Fourier primes (one NTT row).
pub const NMOD_TREE_PLAIN_MAX_LEN: usize = 16;
/// [`NMOD_TREE_PLAIN_MAX_LEN`] for primes whose products run modulo three CRT primes (a transform
/// costs three): 2^H = 64, the best of the same measurement (105.6 ms against 114.4 at 16).
pub const NMOD_TREE_CRT_PLAIN_MAX_LEN: usize = 64;
/// The CRT rows of one product mod p transform in parallel from this size on (a transform of 2^13
/// 50-bit words takes about 40 µs, well above the cost of handing it to another thread).
pub const NMOD_NTT_FIELD_PARALLEL_MIN_N: usize = 1 << 13;
/// One-shot multipoint evaluation by Horner's rule while flen·n is at most this.
pub const NMOD_POLY_EVALUATE_HORNER_MAX_WORK: u64 = 1 << 12;
/// The Taylor shift mod p by the convolution form from this length on, the tableau below (FLINT's
/// 100; not measured for gpmp).
pub const NMOD_TAYLOR_SHIFT_CONVOLUTION_MIN_LEN: usize = 100;

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
//
// Compile-time shapes of the kernels (`-D` defines of `kernels/*.cu`; each value is another
// compiled module, so the autotuner of `gpu::autotune` does not search them). Measured on the H100
// with `bench/gpu_ntt.rs` and `bench/gpu_zvec.rs` (kernel time, 2^20 products for zvec).

/// NTT passes (`ntt.cu`, `MINB`): blocks per SM the register allocation must allow; 2^24 points, 62-bit p: 0.609 / 0.579 / 0.698 ms at 3 / 4 / 5.
pub const GPU_NTT_MIN_BLOCKS_PER_SM: u32 = 4;
/// Subproduct-tree levels of the GPU (`gpu::tree`) whose nodes have at most this many coefficients
/// (2^H) run by schoolbook kernels, one thread per output (2^(H−1) products); above, by batched
/// NTTs. [FM] measured H = 8 on a Tesla C2050; a plain level of 2^6 costs 32 products an output
/// against three NTT passes over 2 words: 2^6 until `bench/gpu_tree.rs` measures the levels.
pub const GPU_NMOD_TREE_PLAIN_MAX_LEN: usize = 64;
/// zvec add/sub and register product (`zv_mul`, `MINB`): 96 registers, 4.2e9 products/s at 1024 bits against 3.5e9 at 1 block (144 registers).
pub const GPU_ZVEC_MUL_MIN_BLOCKS_PER_SM: usize = 5;
/// zvec add/sub kernel: 0 for the one-element-a-thread `zv_addsub`, or the elements a thread of `zv_addsubv` (`ZA_V`, 2:
/// one 16-byte access per limb row for both; 1 when n is odd). H100, 2^20 resident elements at 256/1024/2048/4096 bits:
/// `zv_addsub` 2.37e10/6.94e9/3.59e9/1.84e9 adds/s, `zv_addsubv` (2) 1.62e10/5.61e9/2.68e9/1.44e9.
pub const GPU_ZVEC_ADDSUB_LANES: usize = 0;
/// `zv_addsubv`'s register block (`ZA_K` limbs of each operand loaded before any arithmetic): 256–512-bit
/// operands in one block (no comparison pass), 16·ZA_K·ZA_V bytes in flight a thread.
pub const GPU_ZVEC_ADDSUB_BLOCK_LIMBS: usize = 8;
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
/// Operand words staged at once by the batched products from host memory (`gpu::zvec::Products`):
/// 32 MiB a chunk, 8 chunks at 2^20 × 1024 bits and 32 at 2^20 × 4096 bits, so that packing,
/// upload and kernels overlap (chosen, not yet measured).
pub const GPU_ZVEC_STAGE_WORDS: usize = 1 << 22;

/// Batched powm (`zm_powm`, `ZM_W`): fixed-window bits by padded modulus limbs (first entry whose limbs ≥ L). Montgomery
/// products for b-bit exponents, b + b/w + 2^w: 256 bits 334 at w = 4 against 338 at 5; 1024 bits 1294 / 1259 / 1257 at
/// 4 / 5 / 6; 2048 bits 2574 / 2488 / 2451 (w = 6: a 16 KB table a thread in local memory at 2048 bits).
pub const GPU_ZMOD_POWM_WINDOW_BITS: [(usize, usize); 2] = [(4, 4), (64, 5)];
/// Batched mulmod of operands of at most L limbs by two Montgomery products, mont(mont(a, b), R² mod m) (4L² + 2L
/// multiply-adds), instead of three (entering and reducing each operand: 6L² + 3L).
pub const GPU_ZMOD_MULMOD_TWO_PRODUCTS: bool = true;
/// Batched powm squares with the squaring-specialised `mont_sqr` (1.5L² + L/2 multiply-adds against 2L² + L) up to this
/// many padded limbs: its off-diagonal triangle is unrolled (L(L−1)/2 multiply-adds of straight code, ≈ 23 KB of
/// instructions at 16 limbs, 95 KB at 32), the general product loops over rows. H100: 1024 bits (16 limbs)
/// 2.28e6 powm/s at w = 5 against 1.85e6 at w = 4 with CIOS squares; 2048 bits (32 limbs, w = 5) 2.05e5 against 2.32e5 with
/// CIOS squares, so 32 limbs stay on CIOS.
pub const GPU_ZMOD_SQR_MAX_LIMBS: usize = 16;

/// Work units (per position: k² + 2W + cs for `garner`, T·(D + 2) + 2(S + 1) for `recombine`) of one
/// CRT launch of the Z\[x\] product, a stop checked between launches: about 10 ms at the 6·10^10
/// units/s the 2^22 × 1024-bit product's CRT reaches on the H100, so a stop waits ≤ 20 ms for one.
pub const GPU_ZPOLY_CRT_BLOCK_UNITS: usize = 1 << 29;
/// Positions of one CRT launch, at least: 256 blocks of 256 threads keep the H100's 132 SMs busy.
pub const GPU_ZPOLY_CRT_BLOCK_MIN: usize = 1 << 16;
/// Words of one download of the Z\[x\] product's result, a stop checked between them: 64 MiB, about
/// 15 ms into pageable memory (first touch included), 3 ms pinned.
pub const GPU_ZPOLY_DOWNLOAD_WORDS: usize = 1 << 23;

// ---- Several GPUs: when a GPU call is split over the device set (`gpu::device::devices`) ----
/// Device batches (mulmod, powm) are split over the device set in blocks of at least this many
/// elements (an estimate: a smaller block's thread, transfers and launch cost about what it saves).
pub const MPZ_BATCH_GPU_SPLIT_MIN_N: u64 = 1 << 12;
/// The GPU Z\[x\] product is split over the device set from this many output words on (an estimate:
/// below it the per-device transforms take well under the exchange's and setup's few milliseconds).
pub const ZPOLY_MUL_GPU_SPLIT_MIN_WORDS: u64 = 1 << 22;

// ---- GPU engines: choices per architecture (used without searching; see `gpu::autotune`) ----

/// An NTT pass count for (compute capability, word bits, log2 n, log2 of the batch's words).
pub struct NttPasses {
    pub cc: (i32, i32),
    pub word_bits: u32,
    pub logn: u32,
    pub log_total: u32,
    pub passes: u32,
}

/// NTT pass counts that differ from the default structure (one pass up to a block's words, else
/// ⌈log2 n / 10⌉).
/// sm_90 (H100, `gpu_ntt`, bench/results/gpu-h100.md): the search picks the default at every
/// measured size but one 31-bit transform of 2^22 points, 2 passes (0.0765 ms) rather than 3.
pub const GPU_NTT_PASSES: &[NttPasses] = &[NttPasses { cc: (9, 0), word_bits: 32, logn: 22, log_total: 22, passes: 2 }];
