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
