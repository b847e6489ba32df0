//! The host's GMP memory functions (`mp_set_memory_functions`: Julia's, Maple's, PARI's) are called
//! only on the thread that called gpmp (the rule of `src/int/mpn.rs`). Counting memory functions
//! record every allocate, reallocate and free and whether it ran on the calling thread; every export
//! that reads or writes `mpz_t` (and its `_ptr` twin) runs at small and large sizes (up to 10^6-bit
//! operands, 200,000-bit moduli and coefficients, long arrays) with 1 and 4 worker threads, its
//! results are checked against GMP, and no call may reach the memory functions on another thread.
//! With `gpu-tests` the matrix runs once more under the GPU backend (on a CUDA machine; "skipped"
//! without one).
//!
//! The default sizes are chosen to pass every bound where GMP's temporary space leaves the stack
//! (1000 limbs, `src/int/mpn.rs`) while the whole test stays within about a minute on two cores:
//! the schoolbook product at 200,000 bits is 64 × 16 rather than 64 × 64, powers modulo 200,000 bits
//! take 2-bit exponents. `GPMP_ALLOCATOR_HEAVY=1` adds the heavier cases (64 × 64 at 200,000 bits,
//! powers with 64-bit exponents modulo 200,000 bits, 4·10^6-bit products); without it they print
//! "skipped".
//!
//! One test: the memory functions are process-wide. GMP's defaults are restored at the end.
use gmp_mpfr_sys::gmp::{self, mpz_t};
use gpmp::ffi::bpas::{
    gpmp_freePolynomial_DUZP, gpmp_makePolynomial_DUZP, gpmp_multiplyPolynomialsPreAlloc_DUZP, gpmp_multiplyPolynomials_DUZP,
    gpmp_multiplyPolynomials_DUZP_inp, DUZP_t,
};
use gpmp::ffi::crt::{gpmp_crt, gpmp_crt_ptr, gpmp_mpz_mod_primes, gpmp_mpz_mod_primes_ptr, gpmp_poly_mul_primes};
use gpmp::ffi::gfpf::{
    gpmp_gfpf_builtin, gpmp_gfpf_free, gpmp_gfpf_from_mpz, gpmp_gfpf_from_mpz_ptr, gpmp_gfpf_new, gpmp_gfpf_prime, gpmp_gfpf_to_mpz,
    gpmp_gfpf_to_mpz_ptr, RawLayout,
};
use gpmp::ffi::gpmp_status::{self, GPMP_INVALID_ARGUMENT, GPMP_SUCCESS};
use gpmp::ffi::mpz_n::*;
use gpmp::ffi::poly::{
    gpmp_poly_mul, gpmp_poly_mul_alg, gpmp_poly_mul_alg_ptr, gpmp_poly_mul_ptr, gpmp_poly_sqr, gpmp_poly_sqr_ptr, RawMulAlg,
};
use gpmp::ffi::poly_eval::{
    gpmp_poly_divrem, gpmp_poly_divrem_ptr, gpmp_poly_evaluate, gpmp_poly_evaluate_ptr, gpmp_poly_interpolate, gpmp_poly_interpolate_ptr,
    gpmp_poly_pseudo_divrem, gpmp_poly_pseudo_divrem_ptr,
};
use gpmp::ffi::roots::{
    gpmp_poly_count_real_roots, gpmp_poly_count_real_roots_ptr, gpmp_poly_real_roots, gpmp_poly_real_roots_ptr, gpmp_poly_scale_shift,
    gpmp_poly_scale_shift_ptr, gpmp_poly_taylor_shift, gpmp_poly_taylor_shift_ptr,
};
use gpmp::ffi::runtime::{gpmp_set_backend, gpmp_set_num_threads, RawBackend};
use gpmp::ffi::zvec::{
    gpmp_zvec_free, gpmp_zvec_get_mpz, gpmp_zvec_get_mpz_ptr, gpmp_zvec_mul, gpmp_zvec_mulmod, gpmp_zvec_new, gpmp_zvec_powm,
    gpmp_zvec_set_mpz, gpmp_zvec_set_mpz_ptr,
};
use std::cell::Cell;
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

// ---- the counting memory functions ----

thread_local! {
    /// True on the thread that calls gpmp (the test's).
    static CALLER: Cell<bool> = const { Cell::new(false) };
}
static ON: AtomicUsize = AtomicUsize::new(0);
static OFF: AtomicUsize = AtomicUsize::new(0);
static LARGEST_OFF: AtomicUsize = AtomicUsize::new(0);
type Fns = (gmp::allocate_function, gmp::reallocate_function, gmp::free_function);
static DEFAULTS: OnceLock<Fns> = OnceLock::new();

fn note(bytes: usize) {
    if CALLER.with(Cell::get) {
        ON.fetch_add(1, Relaxed);
    } else {
        OFF.fetch_add(1, Relaxed);
        LARGEST_OFF.fetch_max(bytes, Relaxed);
    }
}

extern "C" fn counting_alloc(n: usize) -> *mut c_void {
    note(n);
    (DEFAULTS.get().unwrap().0.unwrap())(n)
}

unsafe extern "C" fn counting_realloc(p: *mut c_void, old: usize, new: usize) -> *mut c_void {
    note(new);
    (DEFAULTS.get().unwrap().1.unwrap())(p, old, new)
}

unsafe extern "C" fn counting_free(p: *mut c_void, n: usize) {
    note(n);
    (DEFAULTS.get().unwrap().2.unwrap())(p, n)
}

/// Installs the counting functions; GMP's defaults come back on drop (also on a failed assertion).
struct Hooks;

impl Hooks {
    fn install() -> Hooks {
        let mut f: Fns = (None, None, None);
        // SAFETY: plain calls; the counting functions forward to the defaults, so blocks allocated
        // before or after the swap may be freed by either.
        unsafe {
            gmp::get_memory_functions(&mut f.0, &mut f.1, &mut f.2);
            DEFAULTS.get_or_init(|| f);
            gmp::set_memory_functions(Some(counting_alloc), Some(counting_realloc), Some(counting_free));
        }
        CALLER.with(|c| c.set(true));
        Hooks
    }
}

impl Drop for Hooks {
    fn drop(&mut self) {
        // SAFETY: NULL restores GMP's default functions.
        unsafe { gmp::set_memory_functions(None, None, None) };
    }
}

/// Runs one call (with its checks) and asserts that no memory function ran off this thread.
fn case(name: &str, run: impl FnOnce()) {
    ON.store(0, Relaxed);
    OFF.store(0, Relaxed);
    LARGEST_OFF.store(0, Relaxed);
    run();
    let off = OFF.load(Relaxed);
    assert_eq!(
        off,
        0,
        "{name}: {off} calls of the GMP memory functions off the calling thread (largest {} bytes)",
        LARGEST_OFF.load(Relaxed)
    );
}

// ---- integers ----

/// An array of initialised `mpz_t` (an `mpz_t *` argument), cleared on drop.
struct Ints(Vec<mpz_t>);

impl Ints {
    fn new(n: usize) -> Ints {
        Ints(
            (0..n)
                .map(|_| {
                    let mut z = MaybeUninit::uninit();
                    // SAFETY: mpz_init initialises z.
                    unsafe {
                        gmp::mpz_init(z.as_mut_ptr());
                        z.assume_init()
                    }
                })
                .collect(),
        )
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn p(&self) -> *const mpz_t {
        self.0.as_ptr()
    }
    fn mp(&mut self) -> *mut mpz_t {
        self.0.as_mut_ptr()
    }
    fn at(&self, i: usize) -> *const mpz_t {
        &self.0[i]
    }
    fn at_mut(&mut self, i: usize) -> *mut mpz_t {
        &mut self.0[i]
    }
    /// The elements as separate objects (a `const mpz_srcptr *` argument).
    fn ptrs(&self) -> Vec<*const mpz_t> {
        (0..self.len()).map(|i| self.at(i)).collect()
    }
    /// The elements as separate objects (an `mpz_ptr *` argument).
    fn ptrs_mut(&mut self) -> Vec<*mut mpz_t> {
        (0..self.len()).map(|i| self.at_mut(i)).collect()
    }
    /// Element-wise equality with `want`.
    fn assert_eq(&self, want: &Ints, what: &str) {
        assert_eq!(self.len(), want.len(), "{what}: lengths");
        for i in 0..self.len() {
            // SAFETY: initialised mpz_t.
            assert_eq!(unsafe { gmp::mpz_cmp(self.at(i), want.at(i)) }, 0, "{what}: element {i}");
        }
    }
}

impl Drop for Ints {
    fn drop(&mut self) {
        for z in &mut self.0 {
            // SAFETY: initialised mpz_t.
            unsafe { gmp::mpz_clear(z) };
        }
    }
}

/// GMP's random generator, fixed seed.
struct Gen(gmp::randstate_t);

impl Gen {
    fn new(seed: u64) -> Gen {
        let mut s = MaybeUninit::uninit();
        // SAFETY: randinit_default initialises s.
        unsafe {
            gmp::randinit_default(s.as_mut_ptr());
            let mut g = Gen(s.assume_init());
            gmp::randseed_ui(&mut g.0, seed as _);
            g
        }
    }

    /// n integers of exactly `bits` bits (element i: random, long runs of ones and zeros, or all
    /// ones, by i mod 3), negative at odd i when `signed`; element 0 is 0 and element 1 is ±1 when
    /// n > 4 (adversarial small values).
    fn ints(&mut self, n: usize, bits: u64, signed: bool) -> Ints {
        let mut v = Ints::new(n);
        for i in 0..n {
            let z = v.at_mut(i);
            // SAFETY: initialised mpz_t and state.
            unsafe {
                match i % 3 {
                    0 => gmp::mpz_urandomb(z, &mut self.0, bits),
                    1 => gmp::mpz_rrandomb(z, &mut self.0, bits),
                    _ => {
                        gmp::mpz_set_ui(z, 1);
                        gmp::mpz_mul_2exp(z, z, bits);
                        gmp::mpz_sub_ui(z, z, 1);
                    }
                }
                gmp::mpz_setbit(z, bits - 1);
                if n > 4 && i == 0 {
                    gmp::mpz_set_ui(z, 0);
                }
                if n > 4 && i == 1 {
                    gmp::mpz_set_ui(z, 1);
                }
                if signed && i % 2 == 1 {
                    gmp::mpz_neg(z, z);
                }
            }
        }
        v
    }

    /// An odd (or even) modulus of exactly `bits` bits.
    fn modulus(&mut self, bits: u64, odd: bool) -> Ints {
        let mut m = self.ints(1, bits, false);
        // SAFETY: initialised mpz_t.
        unsafe {
            if odd {
                gmp::mpz_setbit(m.at_mut(0), 0);
            } else {
                gmp::mpz_clrbit(m.at_mut(0), 0);
            }
        }
        m
    }
}

impl Drop for Gen {
    fn drop(&mut self) {
        // SAFETY: initialised state.
        unsafe { gmp::randclear(&mut self.0) };
    }
}

/// Whether the heavier cases run (`GPMP_ALLOCATOR_HEAVY` set); prints "skipped" for `what` if not.
fn heavy(what: &str) -> bool {
    let on = std::env::var_os("GPMP_ALLOCATOR_HEAVY").is_some_and(|v| !v.is_empty() && v != "0");
    if !on {
        eprintln!("skipped: {what} (set GPMP_ALLOCATOR_HEAVY=1 to run it)");
    }
    on
}

fn ok(s: gpmp_status, what: &str) {
    assert_eq!(s, GPMP_SUCCESS, "{what}: {}", last_error());
}

fn last_error() -> String {
    // SAFETY: gpmp_last_error returns a NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(gpmp::ffi::runtime::gpmp_last_error()) }.to_string_lossy().into_owned()
}

type Op2 = unsafe extern "C" fn(*mut mpz_t, *const mpz_t, *const mpz_t);

/// want[i] = op(a[i], b[i]), then reduced mod m when given (into [0, m)).
fn oracle(a: &Ints, b: &Ints, op: Op2, m: Option<&Ints>) -> Ints {
    let mut w = Ints::new(a.len());
    for i in 0..a.len() {
        // SAFETY: initialised mpz_t.
        unsafe {
            op(w.at_mut(i), a.at(i), b.at(i));
            if let Some(m) = m {
                gmp::mpz_mod(w.at_mut(i), w.at(i), m.at(0));
            }
        }
    }
    w
}

// ---- the exports ----

/// An element-wise export on `mpz_t` arrays and its `_ptr` twin.
type Call2 = unsafe extern "C" fn(*mut mpz_t, *const mpz_t, *const mpz_t, usize) -> gpmp_status;
type Call2Ptr = unsafe extern "C" fn(*mut *mut mpz_t, *const *const mpz_t, *const *const mpz_t, usize) -> gpmp_status;
type Call3 = unsafe extern "C" fn(*mut mpz_t, *const mpz_t, *const mpz_t, *const mpz_t, usize) -> gpmp_status;
type Call3Ptr = unsafe extern "C" fn(*mut *mut mpz_t, *const *const mpz_t, *const *const mpz_t, *const mpz_t, usize) -> gpmp_status;

fn elementwise(g: &mut Gen, threads: i32) {
    let ops: [(&str, Call2, Call2Ptr, Op2); 3] = [
        ("gpmp_mpz_add_n", gpmp_mpz_add_n, gpmp_mpz_add_n_ptr, gmp::mpz_add),
        ("gpmp_mpz_sub_n", gpmp_mpz_sub_n, gpmp_mpz_sub_n_ptr, gmp::mpz_sub),
        ("gpmp_mpz_mul_n", gpmp_mpz_mul_n, gpmp_mpz_mul_n_ptr, gmp::mpz_mul),
    ];
    // (n, bits of a, bits of b, the _ptr twins too): small, the 10^6-bit products of 64 elements, a
    // long operand against a short one (GMP products of pieces), around GMP's stack bound (1000
    // limbs), a batch of two staging chunks of the GPU's batched products (outputs grown while the
    // device works), and (heavy) 4·10^6 bits.
    let mut shapes = vec![
        (300usize, 1000u64, 900u64, true),
        (64, 1_000_000, 1_000_000, false),
        (6, 1_000_000, 20_000, true),
        (8, 64_000, 63_900, true),
        (40_000, 4096, 3000, true),
    ];
    if heavy("gpmp_mpz_*_n on 16 x 4·10^6 bits") {
        shapes.push((16, 4_000_000, 4_000_000, true));
    }
    for &(n, ba, bb, twins) in &shapes {
        let (a, b) = (g.ints(n, ba, true), g.ints(n, bb, true));
        for &(name, call, call_ptr, op) in &ops {
            let want = oracle(&a, &b, op, None);
            let what = format!("{name} n = {n}, {ba} x {bb} bits, {threads} threads");
            case(&what, || {
                let mut r = Ints::new(n);
                // SAFETY: arrays of n initialised mpz_t.
                ok(unsafe { call(r.mp(), a.p(), b.p(), n) }, &what);
                r.assert_eq(&want, &what);
            });
            if twins {
                let what = format!("{name}_ptr n = {n}, {ba} x {bb} bits, {threads} threads");
                case(&what, || {
                    let mut r = Ints::new(n);
                    // SAFETY: arrays of n pointers to initialised mpz_t.
                    ok(unsafe { call_ptr(r.ptrs_mut().as_mut_ptr(), a.ptrs().as_ptr(), b.ptrs().as_ptr(), n) }, &what);
                    r.assert_eq(&want, &what);
                });
            }
        }
        // r += a·b with r = a copy of b (grown in place) and r aliasing a.
        let what = format!("gpmp_mpz_addmul_n n = {n}, {ba} x {bb} bits, {threads} threads");
        let mut want = Ints::new(n);
        let mut r = Ints::new(n);
        for i in 0..n {
            // SAFETY: initialised mpz_t.
            unsafe {
                gmp::mpz_set(r.at_mut(i), b.at(i));
                gmp::mpz_mul(want.at_mut(i), a.at(i), b.at(i));
                gmp::mpz_add(want.at_mut(i), want.at(i), b.at(i));
            }
        }
        let mut r2 = Ints::new(n);
        for i in 0..n {
            // SAFETY: initialised mpz_t.
            unsafe { gmp::mpz_set(r2.at_mut(i), b.at(i)) };
        }
        case(&what, || {
            // SAFETY: arrays of n initialised mpz_t; r may alias an input.
            ok(unsafe { gpmp_mpz_addmul_n(r.mp(), a.p(), b.p(), n) }, &what);
            r.assert_eq(&want, &what);
        });
        if twins {
            let what = format!("gpmp_mpz_addmul_n_ptr n = {n}, {ba} x {bb} bits, {threads} threads");
            case(&what, || {
                // SAFETY: arrays of n pointers to initialised mpz_t.
                ok(unsafe { gpmp_mpz_addmul_n_ptr(r2.ptrs_mut().as_mut_ptr(), a.ptrs().as_ptr(), b.ptrs().as_ptr(), n) }, &what);
                r2.assert_eq(&want, &what);
            });
        }
    }
}

fn modular(g: &mut Gen, threads: i32) {
    let ops: [(&str, Call3, Call3Ptr, Op2); 3] = [
        ("gpmp_mpz_addmod_n", gpmp_mpz_addmod_n, gpmp_mpz_addmod_n_ptr, gmp::mpz_add),
        ("gpmp_mpz_submod_n", gpmp_mpz_submod_n, gpmp_mpz_submod_n_ptr, gmp::mpz_sub),
        ("gpmp_mpz_mulmod_n", gpmp_mpz_mulmod_n, gpmp_mpz_mulmod_n_ptr, gmp::mpz_mul),
    ];
    // (n, bits of m, odd, bits of the operands, the _ptr twins too): below and above the sizes where
    // GMP's quotient would leave the stack, unreduced and negative operands, the 200,000-bit moduli
    // of 64 elements.
    for &(n, mb, odd, ab, twins) in &[
        (300usize, 1024u64, true, 1500u64, true),
        (40, 4096, false, 9000, false),
        (16, 40_000, true, 70_000, true),
        (4, 40_000, false, 200_000, false),
        (64, 200_000, true, 200_000, false),
        (4, 200_000, true, 450_000, true),
    ] {
        let m = g.modulus(mb, odd);
        let (a, b) = (g.ints(n, ab, true), g.ints(n, ab - 7, true));
        for &(name, call, call_ptr, op) in &ops {
            let want = oracle(&a, &b, op, Some(&m));
            let what = format!("{name} n = {n}, m {mb} bits (odd {odd}), operands {ab} bits, {threads} threads");
            case(&what, || {
                let mut r = Ints::new(n);
                // SAFETY: arrays of n initialised mpz_t, m initialised.
                ok(unsafe { call(r.mp(), a.p(), b.p(), m.at(0), n) }, &what);
                r.assert_eq(&want, &what);
            });
            if twins {
                let what = format!("{name}_ptr n = {n}, m {mb} bits (odd {odd}), operands {ab} bits, {threads} threads");
                case(&what, || {
                    let mut r = Ints::new(n);
                    // SAFETY: arrays of n pointers to initialised mpz_t, m initialised.
                    ok(unsafe { call_ptr(r.ptrs_mut().as_mut_ptr(), a.ptrs().as_ptr(), b.ptrs().as_ptr(), m.at(0), n) }, &what);
                    r.assert_eq(&want, &what);
                });
            }
        }
    }
}

fn powers(g: &mut Gen, threads: i32) {
    // (n, bits of m, odd, bits of the bases, bits of the exponents): Montgomery's range (≤ 64
    // limbs), GMP quotients above it, Barrett's reduction from 500 limbs, the 200,000-bit moduli of
    // 64 elements, bases longer than m, even moduli.
    let mut shapes = vec![
        (64usize, 1024u64, true, 1024u64, 1024u64),
        (16, 1024, false, 3000, 700),
        (4, 4096, true, 4096, 4096),
        (4, 4160, true, 9000, 300),
        (4, 40_000, true, 40_000, 40),
        (64, 200_000, true, 200_000, 2),
        (2, 200_000, false, 500_000, 9),
    ];
    if heavy("gpmp_mpz_powm_n on 64 x 200,000 bits with 64-bit exponents") {
        shapes.push((64, 200_000, true, 200_000, 64));
    }
    for (shape, &(n, mb, odd, bb, eb)) in shapes.iter().enumerate() {
        let m = g.modulus(mb, odd);
        let (a, mut e) = (g.ints(n, bb, true), g.ints(n, eb, false));
        if n > 4 {
            // SAFETY: initialised mpz_t: exponents 0 and 1 too.
            unsafe {
                gmp::mpz_set_ui(e.at_mut(2), 0);
                gmp::mpz_set_ui(e.at_mut(3), 1);
            }
        }
        let mut want = Ints::new(n);
        for i in 0..n {
            // SAFETY: initialised mpz_t, m > 1.
            unsafe { gmp::mpz_powm(want.at_mut(i), a.at(i), e.at(i), m.at(0)) };
        }
        let what = format!("gpmp_mpz_powm_n n = {n}, m {mb} bits (odd {odd}), bases {bb} bits, exponents {eb} bits, {threads} threads");
        case(&what, || {
            let mut r = Ints::new(n);
            // SAFETY: arrays of n initialised mpz_t, m initialised.
            ok(unsafe { gpmp_mpz_powm_n(r.mp(), a.p(), e.p(), m.at(0), n) }, &what);
            r.assert_eq(&want, &what);
        });
        if shape % 2 == 0 {
            let what =
                format!("gpmp_mpz_powm_n_ptr n = {n}, m {mb} bits (odd {odd}), bases {bb} bits, exponents {eb} bits, {threads} threads");
            case(&what, || {
                let mut r = Ints::new(n);
                // SAFETY: arrays of n pointers to initialised mpz_t, m initialised.
                ok(unsafe { gpmp_mpz_powm_n_ptr(r.ptrs_mut().as_mut_ptr(), a.ptrs().as_ptr(), e.ptrs().as_ptr(), m.at(0), n) }, &what);
                r.assert_eq(&want, &what);
            });
        }
    }
}

fn big_products(g: &mut Gen, threads: i32) {
    // Bits of a and b: GMP's range, the NTT's, GMP's stack bound, 10^6 bits, long against short.
    for &(ba, bb) in &[(300u64, 200u64), (49_000, 49_000), (64_040, 44_800), (1_000_000, 1_000_000), (1_000_000, 20_000), (4_000_000, 64)] {
        let (mut a, b) = (g.ints(1, ba, true), g.ints(1, bb, true));
        let mut want = Ints::new(2);
        // SAFETY: initialised mpz_t.
        unsafe {
            gmp::mpz_mul(want.at_mut(0), a.at(0), b.at(0));
            gmp::mpz_mul(want.at_mut(1), a.at(0), a.at(0));
        }
        let what = format!("gpmp_mpz_mul / gpmp_mpz_sqr {ba} x {bb} bits, {threads} threads");
        case(&what, || {
            let mut r = Ints::new(1);
            // SAFETY: initialised mpz_t; r may alias an input.
            unsafe {
                ok(gpmp_mpz_mul(r.at_mut(0), a.at(0), b.at(0)), &what);
                assert_eq!(gmp::mpz_cmp(r.at(0), want.at(0)), 0, "{what}: a·b");
                ok(gpmp_mpz_sqr(r.at_mut(0), a.at(0)), &what);
                assert_eq!(gmp::mpz_cmp(r.at(0), want.at(1)), 0, "{what}: a²");
                let ap = a.at_mut(0);
                ok(gpmp_mpz_mul(ap, ap, b.at(0)), &what);
                assert_eq!(gmp::mpz_cmp(a.at(0), want.at(0)), 0, "{what}: a = a·b");
            }
        });
    }
}

/// h = f·g by mpz_addmul on this thread.
fn poly_oracle(f: &Ints, g: &Ints) -> Ints {
    let mut h = Ints::new(f.len() + g.len() - 1);
    for i in 0..f.len() {
        for j in 0..g.len() {
            // SAFETY: initialised mpz_t.
            unsafe { gmp::mpz_addmul(h.at_mut(i + j), f.at(i), g.at(j)) };
        }
    }
    h
}

fn polynomials(gen: &mut Gen, threads: i32) {
    // (flen, glen, bits, every algorithm or the schoolbook only): small, 200,000-bit coefficients
    // (GMP's products leave the stack there), large coefficients, long and thin, unbalanced, and a
    // length of one.
    let mut shapes = vec![
        (40usize, 30usize, 300u64, true),
        (64, 16, 200_000, false),
        (16, 12, 30_000, true),
        (2000, 1500, 64, true),
        (700, 3, 5000, true),
        (1, 300, 2000, true),
    ];
    if heavy("gpmp_poly_mul_alg(SCHOOLBOOK) 64 x 64 at 200,000 bits, every algorithm at 64 x 64, 60,000 bits") {
        shapes.push((64, 64, 200_000, false));
        shapes.push((64, 64, 60_000, true));
    }
    for &(fl, gl, bits, all) in &shapes {
        let (f, g) = (gen.ints(fl, bits, true), gen.ints(gl, bits - 3, true));
        let want = poly_oracle(&f, &g);
        let hl = fl + gl - 1;
        let shape = format!("{fl} x {gl}, {bits} bits, {threads} threads");
        for alg in if all { 0..=8 } else { 1..=1 } {
            let what = format!("gpmp_poly_mul_alg({alg}) {shape}");
            case(&what, || {
                let mut h = Ints::new(hl);
                // SAFETY: arrays of initialised mpz_t of the given lengths.
                let s = unsafe { gpmp_poly_mul_alg(h.mp(), f.p(), fl, g.p(), gl, RawMulAlg(alg)) };
                if s == GPMP_INVALID_ARGUMENT {
                    eprintln!("skipped: {what}: the algorithm does not take this shape ({})", last_error());
                    return;
                }
                ok(s, &what);
                h.assert_eq(&want, &what);
            });
        }
        let what = format!("gpmp_poly_mul {shape}");
        case(&what, || {
            let mut h = Ints::new(hl);
            // SAFETY: as above.
            ok(unsafe { gpmp_poly_mul(h.mp(), f.p(), fl, g.p(), gl) }, &what);
            h.assert_eq(&want, &what);
        });
        let what = format!("gpmp_poly_mul_ptr {shape}");
        case(&what, || {
            let mut h = Ints::new(hl);
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            ok(unsafe { gpmp_poly_mul_ptr(h.ptrs_mut().as_mut_ptr(), f.ptrs().as_ptr(), fl, g.ptrs().as_ptr(), gl) }, &what);
            h.assert_eq(&want, &what);
        });
        // The _ptr twin of the algorithm choice, at the algorithm the shape exercises most.
        let alg = if all { 4 } else { 1 };
        let what = format!("gpmp_poly_mul_alg_ptr({alg}) {shape}");
        case(&what, || {
            let mut h = Ints::new(hl);
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            let s =
                unsafe { gpmp_poly_mul_alg_ptr(h.ptrs_mut().as_mut_ptr(), f.ptrs().as_ptr(), fl, g.ptrs().as_ptr(), gl, RawMulAlg(alg)) };
            if s == GPMP_INVALID_ARGUMENT {
                eprintln!("skipped: {what}: the algorithm does not take this shape ({})", last_error());
                return;
            }
            ok(s, &what);
            h.assert_eq(&want, &what);
        });
        let sq = poly_oracle(&f, &f);
        let what = format!("gpmp_poly_sqr {shape}");
        case(&what, || {
            let mut h = Ints::new(2 * fl - 1);
            // SAFETY: as above.
            ok(unsafe { gpmp_poly_sqr(h.mp(), f.p(), fl) }, &what);
            h.assert_eq(&sq, &what);
        });
        let what = format!("gpmp_poly_sqr_ptr {shape}");
        case(&what, || {
            let mut h = Ints::new(2 * fl - 1);
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            ok(unsafe { gpmp_poly_sqr_ptr(h.ptrs_mut().as_mut_ptr(), f.ptrs().as_ptr(), fl) }, &what);
            h.assert_eq(&sq, &what);
        });
    }
}

fn zvecs(g: &mut Gen, threads: i32) {
    // (n, bits): small elements, and 100,000-bit ones (mulmod by Barrett's reduction).
    for &(n, bits) in &[(200usize, 1000u64), (6, 100_000)] {
        let (a, b) = (g.ints(n, bits, true), g.ints(n, bits, false));
        let m = g.modulus(bits - 5, true);
        let prod = oracle(&a, &b, gmp::mpz_mul, None);
        let mulmod = oracle(&a, &b, gmp::mpz_mul, Some(&m));
        let e = g.ints(n, 20, false);
        let mut powm = Ints::new(n);
        for i in 0..n {
            // SAFETY: initialised mpz_t.
            unsafe { gmp::mpz_powm(powm.at_mut(i), a.at(i), e.at(i), m.at(0)) };
        }
        let what = format!("gpmp_zvec_set_mpz(_ptr) / mul / mulmod / powm / get_mpz(_ptr), n = {n}, {bits} bits, {threads} threads");
        case(&what, || unsafe {
            // SAFETY: zvecs from gpmp_zvec_new, arrays of n initialised mpz_t.
            let (va, vb, ve) = (gpmp_zvec_new(n, bits as usize), gpmp_zvec_new(n, bits as usize), gpmp_zvec_new(n, 20));
            let vr = gpmp_zvec_new(n, 2 * bits as usize);
            assert!(!va.is_null() && !vb.is_null() && !ve.is_null() && !vr.is_null(), "{what}: {}", last_error());
            ok(gpmp_zvec_set_mpz(va, a.p(), n), &what);
            ok(gpmp_zvec_set_mpz(vb, b.p(), n), &what);
            ok(gpmp_zvec_set_mpz(ve, e.p(), n), &what);
            let mut r = Ints::new(n);
            ok(gpmp_zvec_mul(vr, va, vb), &what);
            ok(gpmp_zvec_get_mpz(r.mp(), vr, n), &what);
            r.assert_eq(&prod, &format!("{what}: mul"));
            let mut r = Ints::new(n);
            ok(gpmp_zvec_mulmod(vr, va, vb, m.at(0)), &what);
            ok(gpmp_zvec_get_mpz(r.mp(), vr, n), &what);
            r.assert_eq(&mulmod, &format!("{what}: mulmod"));
            let mut r = Ints::new(n);
            ok(gpmp_zvec_powm(vr, va, ve, m.at(0)), &what);
            ok(gpmp_zvec_get_mpz(r.mp(), vr, n), &what);
            r.assert_eq(&powm, &format!("{what}: powm"));
            // The _ptr twins: a and b through pointer arrays, their product read back the same way.
            ok(gpmp_zvec_set_mpz_ptr(va, a.ptrs().as_ptr(), n), &what);
            ok(gpmp_zvec_set_mpz_ptr(vb, b.ptrs().as_ptr(), n), &what);
            ok(gpmp_zvec_mul(vr, va, vb), &what);
            let mut r = Ints::new(n);
            ok(gpmp_zvec_get_mpz_ptr(r.ptrs_mut().as_mut_ptr(), vr, n), &what);
            r.assert_eq(&prod, &format!("{what}: mul through the _ptr twins"));
            for v in [va, vb, ve, vr] {
                gpmp_zvec_free(v);
            }
        });
    }
}

fn fields(g: &mut Gen, threads: i32) {
    // P3 (k = 8) and the 128-digit built-in prime (8192 bits); gpmp_gfpf_new checks primality with
    // GMP on the calling thread.
    for &(k, n, bits) in &[(8u32, 3000usize, 300u64), (8, 4, 6_400_000), (128, 40, 20_000)] {
        let a = g.ints(n, bits, true);
        let what =
            format!("gpmp_gfpf_builtin/new, from_mpz(_ptr) / to_mpz(_ptr) / prime, k = {k}, n = {n}, {bits} bits, {threads} threads");
        case(&what, || unsafe {
            // SAFETY: fields from gpmp_gfpf_builtin/new; x has n·k words; arrays of n initialised mpz_t.
            let f = gpmp_gfpf_builtin(k);
            assert!(!f.is_null(), "{what}: {}", last_error());
            if k <= 32 {
                let checked = gpmp_gfpf_new(gpmp::gfpf::builtin::radix(k as usize).unwrap(), k);
                assert!(!checked.is_null(), "{what}: {}", last_error());
                gpmp_gfpf_free(checked);
            }
            let mut p = Ints::new(1);
            gpmp_gfpf_prime(f, p.at_mut(0));
            let mut x = vec![0u64; n * k as usize];
            ok(gpmp_gfpf_from_mpz(f, x.as_mut_ptr(), a.p(), n, RawLayout(0)), &what);
            let mut r = Ints::new(n);
            ok(gpmp_gfpf_to_mpz(f, r.mp(), x.as_ptr(), n, RawLayout(0)), &what);
            let mut want = Ints::new(n);
            for i in 0..n {
                gmp::mpz_mod(want.at_mut(i), a.at(i), p.at(0));
            }
            r.assert_eq(&want, &what);
            // The _ptr twins, the other layout.
            let mut y = vec![0u64; n * k as usize];
            ok(gpmp_gfpf_from_mpz_ptr(f, y.as_mut_ptr(), a.ptrs().as_ptr(), n, RawLayout(1)), &what);
            let mut r = Ints::new(n);
            ok(gpmp_gfpf_to_mpz_ptr(f, r.ptrs_mut().as_mut_ptr(), y.as_ptr(), n, RawLayout(1)), &what);
            r.assert_eq(&want, &format!("{what}: _ptr twins"));
            gpmp_gfpf_free(f);
        });
    }
}

/// A BPAS polynomial with the values of `c`.
unsafe fn duzp(c: &Ints) -> *mut DUZP_t {
    let p = gpmp_makePolynomial_DUZP(c.len() as _);
    assert!(!p.is_null());
    for i in 0..c.len() {
        if i > 0 {
            gmp::mpz_init((*p).coefs.add(i));
        }
        gmp::mpz_set((*p).coefs.add(i), c.at(i));
    }
    (*p).lt = c.len() as std::ffi::c_long - 1;
    p
}

/// The coefficients of a BPAS polynomial equal `want`.
unsafe fn check_duzp(p: *const DUZP_t, want: &Ints, what: &str) {
    assert!(!p.is_null(), "{what}: NULL");
    assert_eq!((*p).lt as usize + 1, want.len(), "{what}: degree");
    for i in 0..want.len() {
        assert_eq!(gmp::mpz_cmp((*p).coefs.add(i), want.at(i)), 0, "{what}: coefficient {i}");
    }
}

fn bpas(g: &mut Gen, threads: i32) {
    for &(al, bl, bits) in &[(30usize, 20usize, 300u64), (16, 16, 50_000)] {
        let (a, b) = (g.ints(al, bits, true), g.ints(bl, bits, true));
        // Leading coefficients nonzero (BPAS polynomials are normalized).
        let want = poly_oracle(&a, &b);
        let what = format!("gpmp_multiplyPolynomials_DUZP (+ _inp, PreAlloc) {al} x {bl}, {bits} bits, {threads} threads");
        case(&what, || unsafe {
            // SAFETY: polynomials built above, freed here.
            let (pa, pb) = (duzp(&a), duzp(&b));
            let c = gpmp_multiplyPolynomials_DUZP(pa, pb);
            check_duzp(c, &want, &what);
            let mut pre = gpmp_makePolynomial_DUZP(1);
            gpmp_multiplyPolynomialsPreAlloc_DUZP(pa, pb, &mut pre);
            check_duzp(pre, &want, &what);
            let mut inp = duzp(&b);
            gpmp_multiplyPolynomials_DUZP_inp(pa, &mut inp);
            check_duzp(inp, &want, &what);
            for p in [pa, pb, c, pre, inp] {
                gpmp_freePolynomial_DUZP(p);
            }
        });
    }
}

/// f(t) by Horner's rule.
fn horner(f: &Ints, t: *const mpz_t) -> Ints {
    let mut v = Ints::new(1);
    for i in (0..f.len()).rev() {
        // SAFETY: initialised mpz_t.
        unsafe {
            gmp::mpz_mul(v.at_mut(0), v.at(0), t);
            gmp::mpz_add(v.at_mut(0), v.at(0), f.at(i));
        }
    }
    v
}

/// Σ f_i·2^(k·(d − i))·(x + c)^i (d = flen − 1) by Horner's rule over polynomials: f(x + c) for k = 0.
fn shift_oracle(f: &Ints, k: u64, c: *const mpz_t) -> Ints {
    let n = f.len();
    let mut g = Ints::new(n);
    let mut t = Ints::new(1);
    for i in (0..n).rev() {
        // SAFETY: initialised mpz_t. g ← g·(x + c) + f_i·2^(k(d − i)), g of degree d − i − 1 before.
        unsafe {
            for j in (0..n - 1 - i).rev() {
                gmp::mpz_add(g.at_mut(j + 1), g.at(j + 1), g.at(j));
                gmp::mpz_mul(g.at_mut(j), g.at(j), c);
            }
            gmp::mpz_mul_2exp(t.at_mut(0), f.at(i), k * (n - 1 - i) as u64);
            gmp::mpz_add(g.at_mut(0), g.at(0), t.at(0));
        }
    }
    g
}

/// a − q·b − r = 0 (as polynomials), where q·b is the schoolbook product.
fn assert_division(a: &Ints, q: &Ints, b: &Ints, r: &Ints, what: &str) {
    let mut rest = Ints::new(a.len());
    for i in 0..a.len() {
        // SAFETY: initialised mpz_t.
        unsafe { gmp::mpz_set(rest.at_mut(i), a.at(i)) };
    }
    if q.len() > 0 {
        let qb = poly_oracle(q, b);
        for i in 0..qb.len() {
            // SAFETY: initialised mpz_t; q·b has alen coefficients.
            unsafe { gmp::mpz_sub(rest.at_mut(i), rest.at(i), qb.at(i)) };
        }
    }
    for i in 0..r.len() {
        // SAFETY: initialised mpz_t.
        unsafe { gmp::mpz_sub(rest.at_mut(i), rest.at(i), r.at(i)) };
    }
    for i in 0..rest.len() {
        // SAFETY: initialised mpz_t.
        assert_eq!(unsafe { gmp::mpz_sgn(rest.at(i)) }, 0, "{what}: a ≠ q·b + r at coefficient {i}");
    }
}

fn evaluation_and_division(g: &mut Gen, threads: i32) {
    // Evaluation (flen, f bits, n points, point bits): values within 2^14 bits (subproduct trees
    // modulo primes), and 200,000-bit values (one point at a time, GMP's products off the stack).
    for &(fl, fb, n, ub) in &[(100usize, 100u64, 200usize, 60u64), (64, 70_000, 12, 2000)] {
        let (f, u) = (g.ints(fl, fb, true), g.ints(n, ub, true));
        let mut want = Ints::new(n);
        for i in 0..n {
            // SAFETY: initialised mpz_t.
            unsafe { gmp::mpz_set(want.at_mut(i), horner(&f, u.at(i)).at(0)) };
        }
        let what = format!("gpmp_poly_evaluate(_ptr) {fl} coefficients of {fb} bits at {n} points of {ub} bits, {threads} threads");
        case(&what, || {
            let mut v = Ints::new(n);
            // SAFETY: arrays of initialised mpz_t of the stated lengths.
            ok(unsafe { gpmp_poly_evaluate(v.mp(), f.p(), fl, u.p(), n) }, &what);
            v.assert_eq(&want, &what);
            let mut v = Ints::new(n);
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            ok(unsafe { gpmp_poly_evaluate_ptr(v.ptrs_mut().as_mut_ptr(), f.ptrs().as_ptr(), fl, u.ptrs().as_ptr(), n) }, &what);
            v.assert_eq(&want, &what);
        });
    }
    // Interpolation through the values of f at n distinct points gives back num = f, den = 1;
    // 40,000-bit coefficients take a modulus above GMP's stack bound in the reconstruction.
    for &(n, fb) in &[(50usize, 200u64), (24, 40_000)] {
        let f = g.ints(n, fb, true);
        let mut u = Ints::new(n);
        let mut vals = Ints::new(n);
        for i in 0..n {
            // SAFETY: initialised mpz_t; the points −n/2 … n/2 − 1 times a 70-bit odd number.
            unsafe {
                gmp::mpz_set_si(u.at_mut(i), i as std::ffi::c_long - (n / 2) as std::ffi::c_long);
                gmp::mpz_mul_2exp(u.at_mut(i), u.at(i), 70);
                gmp::mpz_add_ui(u.at_mut(i), u.at(i), 12345);
                gmp::mpz_set(vals.at_mut(i), horner(&f, u.at(i)).at(0));
            }
        }
        let mut one = Ints::new(1);
        // SAFETY: initialised mpz_t.
        unsafe { gmp::mpz_set_ui(one.at_mut(0), 1) };
        let what = format!("gpmp_poly_interpolate(_ptr) n = {n}, {fb}-bit coefficients, {threads} threads");
        case(&what, || {
            let (mut num, mut den) = (Ints::new(n), Ints::new(1));
            // SAFETY: arrays of n initialised mpz_t, den initialised.
            ok(unsafe { gpmp_poly_interpolate(num.mp(), den.mp(), u.p(), vals.p(), n) }, &what);
            num.assert_eq(&f, &what);
            den.assert_eq(&one, &what);
            let (mut num, mut den) = (Ints::new(n), Ints::new(1));
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            let s = unsafe { gpmp_poly_interpolate_ptr(num.ptrs_mut().as_mut_ptr(), den.mp(), u.ptrs().as_ptr(), vals.ptrs().as_ptr(), n) };
            ok(s, &what);
            num.assert_eq(&f, &what);
            den.assert_eq(&one, &what);
        });
    }
    // Division: lc(b) = ±1 with a remainder, and pseudo-division; (alen, blen, bits) small and with
    // 100,000-bit coefficients.
    for &(al, bl, bits) in &[(60usize, 20usize, 300u64), (12, 5, 100_000)] {
        let (a, mut b) = (g.ints(al, bits, true), g.ints(bl, bits, true));
        // SAFETY: initialised mpz_t.
        unsafe { gmp::mpz_set_si(b.at_mut(bl - 1), -1) };
        let (ql, rl) = (al - bl + 1, bl - 1);
        let what = format!("gpmp_poly_divrem(_ptr) {al} / {bl}, {bits} bits, {threads} threads");
        case(&what, || {
            let (mut q, mut r) = (Ints::new(ql), Ints::new(rl));
            // SAFETY: arrays of initialised mpz_t of the stated lengths.
            ok(unsafe { gpmp_poly_divrem(q.mp(), r.mp(), a.p(), al, b.p(), bl) }, &what);
            assert_division(&a, &q, &b, &r, &what);
            let (mut q2, mut r2) = (Ints::new(ql), Ints::new(rl));
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            let s = unsafe {
                gpmp_poly_divrem_ptr(q2.ptrs_mut().as_mut_ptr(), r2.ptrs_mut().as_mut_ptr(), a.ptrs().as_ptr(), al, b.ptrs().as_ptr(), bl)
            };
            ok(s, &what);
            q2.assert_eq(&q, &what);
            r2.assert_eq(&r, &what);
        });
        // Pseudo-division by b with a 200-bit leading coefficient: lc^d·a = q·b + r.
        let mut b = g.ints(bl, bits, true);
        // SAFETY: initialised mpz_t.
        unsafe { gmp::mpz_set(b.at_mut(bl - 1), g.ints(1, 200, false).at(0)) };
        let d = (al - bl + 1) as std::ffi::c_ulong;
        let mut lca = Ints::new(al);
        for i in 0..al {
            // SAFETY: initialised mpz_t.
            unsafe {
                gmp::mpz_pow_ui(lca.at_mut(i), b.at(bl - 1), d as _);
                gmp::mpz_mul(lca.at_mut(i), lca.at(i), a.at(i));
            }
        }
        let what = format!("gpmp_poly_pseudo_divrem(_ptr) {al} / {bl}, {bits} bits, {threads} threads");
        case(&what, || {
            let (mut q, mut r, mut dd) = (Ints::new(ql), Ints::new(rl), 0);
            // SAFETY: arrays of initialised mpz_t of the stated lengths.
            ok(unsafe { gpmp_poly_pseudo_divrem(q.mp(), r.mp(), &mut dd, a.p(), al, b.p(), bl) }, &what);
            assert_eq!(dd, d, "{what}: d");
            assert_division(&lca, &q, &b, &r, &what);
            let (mut q2, mut r2, mut d2) = (Ints::new(ql), Ints::new(rl), 0);
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            let s = unsafe {
                gpmp_poly_pseudo_divrem_ptr(
                    q2.ptrs_mut().as_mut_ptr(),
                    r2.ptrs_mut().as_mut_ptr(),
                    &mut d2,
                    a.ptrs().as_ptr(),
                    al,
                    b.ptrs().as_ptr(),
                    bl,
                )
            };
            ok(s, &what);
            assert_eq!(d2, dd, "{what}: d");
            q2.assert_eq(&q, &what);
            r2.assert_eq(&r, &what);
        });
    }
}

fn shifts_and_roots(g: &mut Gen, threads: i32) {
    // Shifts (flen, bits, bits of c, k): small; 100,000-bit coefficients (parallel halves, GMP's
    // products off the stack); long with c = ±1 (divide and conquer, multi-modular blocks).
    for &(fl, bits, cb, k) in &[(30usize, 200u64, 40u64, 3u64), (40, 100_000, 100, 7), (2500, 64, 1, 0)] {
        let f = g.ints(fl, bits, true);
        let c = g.ints(1, cb, cb > 1);
        let shifted = shift_oracle(&f, 0, c.at(0));
        let scaled = shift_oracle(&f, k, c.at(0));
        let what = format!("gpmp_poly_taylor_shift / scale_shift (k = {k}) (_ptr) {fl} x {bits} bits, c of {cb} bits, {threads} threads");
        case(&what, || {
            let mut h = Ints::new(fl);
            // SAFETY: arrays of fl initialised mpz_t, c initialised.
            ok(unsafe { gpmp_poly_taylor_shift(h.mp(), f.p(), fl, c.at(0)) }, &what);
            h.assert_eq(&shifted, &format!("{what}: shift"));
            let mut h = Ints::new(fl);
            // SAFETY: arrays of valid pointers to initialised mpz_t.
            ok(unsafe { gpmp_poly_taylor_shift_ptr(h.ptrs_mut().as_mut_ptr(), f.ptrs().as_ptr(), fl, c.at(0)) }, &what);
            h.assert_eq(&shifted, &format!("{what}: shift _ptr"));
            let mut h = Ints::new(fl);
            // SAFETY: as above.
            ok(unsafe { gpmp_poly_scale_shift(h.mp(), f.p(), fl, k as _, c.at(0)) }, &what);
            h.assert_eq(&scaled, &format!("{what}: scale-shift"));
            let mut h = Ints::new(fl);
            // SAFETY: as above.
            ok(unsafe { gpmp_poly_scale_shift_ptr(h.ptrs_mut().as_mut_ptr(), f.ptrs().as_ptr(), fl, k as _, c.at(0)) }, &what);
            h.assert_eq(&scaled, &format!("{what}: scale-shift _ptr"));
        });
    }
    // Real roots of ∏ (x − r_i)·(x² + 1) with r_i = (i − 3)·2^s (s = 10: small; s = 12,000: the
    // coefficients pass GMP's stack bound); the integer roots come back as points.
    for &(nr, s) in &[(8usize, 10u64), (6, 12_000)] {
        let mut roots = Ints::new(nr);
        let mut f = Ints::new(3);
        // SAFETY: initialised mpz_t; f = x² + 1, then times (x − r_i) for each root.
        unsafe {
            gmp::mpz_set_ui(f.at_mut(0), 1);
            gmp::mpz_set_ui(f.at_mut(2), 1);
        }
        for i in 0..nr {
            let mut next = Ints::new(f.len() + 1);
            // SAFETY: initialised mpz_t.
            unsafe {
                gmp::mpz_set_si(roots.at_mut(i), i as std::ffi::c_long - 3);
                gmp::mpz_mul_2exp(roots.at_mut(i), roots.at(i), s);
                for j in 0..f.len() {
                    gmp::mpz_add(next.at_mut(j + 1), next.at(j + 1), f.at(j));
                    gmp::mpz_submul(next.at_mut(j), f.at(j), roots.at(i));
                }
            }
            f = next;
        }
        let fl = f.len();
        let what = format!("gpmp_poly_real_roots / count_real_roots (_ptr), {nr} roots spaced 2^{s}, {threads} threads");
        let check = |lo: &[Rat], hi: &[Rat], mult: &[usize], got: usize, what: &str| {
            assert_eq!(got, nr, "{what}: count");
            for i in 0..nr {
                let (l, h) = (&lo[i], &hi[i]);
                // SAFETY: initialised mpq_t / mpz_t.
                unsafe {
                    assert_eq!(gmp::mpz_cmp_ui(gmp::mpq_denref_const(&l.0), 1), 0, "{what}: root {i} is an integer");
                    assert_eq!(gmp::mpz_cmp(gmp::mpq_numref_const(&l.0), roots.at(i)), 0, "{what}: root {i}");
                    assert_eq!(gmp::mpq_cmp(&l.0, &h.0), 0, "{what}: root {i} as a point");
                }
                assert_eq!(mult[i], 1, "{what}: multiplicity {i}");
            }
        };
        case(&what, || {
            let m = fl - 1;
            let (mut lo, mut hi, mut mult, mut got) = (Rat::many(m), Rat::many(m), vec![0usize; m], 0usize);
            let (lp, hp) = (lo.as_mut_ptr() as *mut gmp::mpq_t, hi.as_mut_ptr() as *mut gmp::mpq_t);
            // SAFETY: m initialised mpq_t each, f of fl initialised mpz_t.
            ok(unsafe { gpmp_poly_real_roots(lp, hp, mult.as_mut_ptr(), &mut got, f.p(), fl, 10) }, &what);
            check(&lo, &hi, &mult, got, &what);
            let (mut lo, mut hi, mut mult, mut got) = (Rat::many(m), Rat::many(m), vec![0usize; m], 0usize);
            let mut lps: Vec<*mut gmp::mpq_t> = lo.iter_mut().map(|q| &mut q.0 as *mut gmp::mpq_t).collect();
            let mut hps: Vec<*mut gmp::mpq_t> = hi.iter_mut().map(|q| &mut q.0 as *mut gmp::mpq_t).collect();
            // SAFETY: arrays of valid pointers to initialised mpq_t and mpz_t.
            let st = unsafe {
                gpmp_poly_real_roots_ptr(lps.as_mut_ptr(), hps.as_mut_ptr(), mult.as_mut_ptr(), &mut got, f.ptrs().as_ptr(), fl, 10)
            };
            ok(st, &what);
            check(&lo, &hi, &mult, got, &format!("{what}: _ptr"));
            let mut count = 0usize;
            // SAFETY: f of fl initialised mpz_t.
            ok(unsafe { gpmp_poly_count_real_roots(&mut count, f.p(), fl) }, &what);
            assert_eq!(count, nr, "{what}: count_real_roots");
            let mut count = 0usize;
            // SAFETY: fl valid pointers to initialised mpz_t.
            ok(unsafe { gpmp_poly_count_real_roots_ptr(&mut count, f.ptrs().as_ptr(), fl) }, &what);
            assert_eq!(count, nr, "{what}: count_real_roots_ptr");
        });
    }
}

/// An initialised `mpq_t`, cleared on drop.
struct Rat(gmp::mpq_t);

impl Rat {
    fn many(n: usize) -> Vec<Rat> {
        (0..n)
            .map(|_| {
                let mut q = MaybeUninit::uninit();
                // SAFETY: mpq_init initialises q.
                unsafe {
                    gmp::mpq_init(q.as_mut_ptr());
                    Rat(q.assume_init())
                }
            })
            .collect()
    }
}

impl Drop for Rat {
    fn drop(&mut self) {
        // SAFETY: initialised mpq_t.
        unsafe { gmp::mpq_clear(&mut self.0) };
    }
}

/// The whole matrix under the current backend (each part's time on stderr).
/// The multi-modular phases: residues of f and g modulo the primes of their product, the products
/// mod each prime (`ops::nmod::poly_mul`), the signed CRT = f·g; and single integers of 10^6 bits
/// reduced, and values of 70,000 bits (1200 62-bit primes, M > 2^74000, outputs grown past GMP's stack
/// bound) recombined, unsigned. Each through the array and the `_ptr` forms.
fn multi_modular(gen: &mut Gen, threads: i32) {
    for &(fl, gl, bits) in &[(1usize, 1usize, 64u64), (200, 150, 1024), (3000, 7, 300)] {
        let (f, g) = (gen.ints(fl, bits, true), gen.ints(gl, bits, true));
        let want = poly_oracle(&f, &g);
        let what = format!("gpmp_mpz_mod_primes / gpmp_crt {fl} x {gl}, {bits} bits, {threads} threads");
        case(&what, || {
            let mut k = 0usize;
            let mut primes = vec![0u64; 256];
            // SAFETY: initialised mpz_t; buffers of the documented sizes.
            unsafe {
                ok(gpmp_poly_mul_primes(primes.as_mut_ptr(), &mut k, primes.len(), fl, bits as usize, gl, bits as usize), &what);
                let primes = &primes[..k];
                let (mut rf, mut rg) = (vec![0u64; k * fl], vec![0u64; k * gl]);
                ok(gpmp_mpz_mod_primes(rf.as_mut_ptr(), f.p(), fl, primes.as_ptr(), k), &what);
                ok(gpmp_mpz_mod_primes_ptr(rg.as_mut_ptr(), g.ptrs().as_ptr(), gl, primes.as_ptr(), k), &what);
                let hl = fl + gl - 1;
                let mut rh = Vec::with_capacity(k * hl);
                for (j, &p) in primes.iter().enumerate() {
                    rh.extend(gpmp::ops::nmod::poly_mul(&rf[j * fl..(j + 1) * fl], &rg[j * gl..(j + 1) * gl], p).unwrap());
                }
                let mut h = Ints::new(hl);
                ok(gpmp_crt(h.mp(), rh.as_ptr(), hl, primes.as_ptr(), k, 1), &what);
                h.assert_eq(&want, &what);
                let mut h2 = Ints::new(hl);
                ok(gpmp_crt_ptr(h2.ptrs_mut().as_mut_ptr(), rh.as_ptr(), hl, primes.as_ptr(), k, 1), &what);
                h2.assert_eq(&want, &what);
            }
        });
    }
    let primes = gpmp::nmod::prime::fourier_primes(62, 40, 1200);
    let a = gen.ints(3, 1_000_000, true);
    let b = gen.ints(3, 70_000, false);
    let what = format!("gpmp_mpz_mod_primes / gpmp_crt, 10^6-bit integers, 1200 primes, {threads} threads");
    case(&what, || {
        let k = primes.len();
        let (mut ra, mut ra2, mut rb) = (vec![0u64; 3 * k], vec![0u64; 3 * k], vec![0u64; 3 * k]);
        // SAFETY: as above.
        unsafe {
            ok(gpmp_mpz_mod_primes(ra.as_mut_ptr(), a.p(), 3, primes.as_ptr(), k), &what);
            ok(gpmp_mpz_mod_primes_ptr(ra2.as_mut_ptr(), a.ptrs().as_ptr(), 3, primes.as_ptr(), k), &what);
            assert_eq!(ra, ra2, "{what}: the twins");
            for (j, &p) in primes.iter().enumerate().step_by(97) {
                for i in 0..3 {
                    assert_eq!(ra[j * 3 + i], gmp::mpz_fdiv_ui(a.at(i), p as _) as u64, "{what}: a[{i}] mod p_{j}");
                }
            }
            ok(gpmp_mpz_mod_primes(rb.as_mut_ptr(), b.p(), 3, primes.as_ptr(), k), &what);
            let mut x = Ints::new(3);
            ok(gpmp_crt(x.mp(), rb.as_ptr(), 3, primes.as_ptr(), k, 0), &what);
            x.assert_eq(&b, &what);
            let mut x2 = Ints::new(3);
            ok(gpmp_crt_ptr(x2.ptrs_mut().as_mut_ptr(), rb.as_ptr(), 3, primes.as_ptr(), k, 0), &what);
            x2.assert_eq(&b, &what);
        }
    });
}

fn matrix(g: &mut Gen) {
    type Part = fn(&mut Gen, i32);
    let parts: [(&str, Part); 11] = [
        ("multi-modular phases", multi_modular),
        ("elementwise", elementwise),
        ("modular", modular),
        ("powers", powers),
        ("big products", big_products),
        ("polynomials", polynomials),
        ("zvecs", zvecs),
        ("fields", fields),
        ("bpas", bpas),
        ("evaluation, interpolation and division", evaluation_and_division),
        ("shifts and real roots", shifts_and_roots),
    ];
    for threads in [1, 4] {
        ok(gpmp_set_num_threads(threads), "gpmp_set_num_threads");
        for (name, part) in parts {
            let t = std::time::Instant::now();
            part(g, threads);
            eprintln!("{name}, {threads} threads: {:.1} s", t.elapsed().as_secs_f64());
        }
    }
}

#[test]
fn gmp_memory_functions_run_only_on_the_calling_thread() {
    let _hooks = Hooks::install();
    // The counters see another thread's GMP allocations (so this test can fail).
    case("self-check", || {});
    std::thread::spawn(|| {
        let mut z = Ints::new(1);
        // SAFETY: initialised mpz_t.
        unsafe {
            gmp::mpz_set_ui(z.at_mut(0), 1);
            gmp::mpz_mul_2exp(z.at_mut(0), z.at(0), 1 << 16);
        }
    })
    .join()
    .unwrap();
    assert!(OFF.load(Relaxed) > 0, "the counting memory functions did not see another thread");
    let mut g = Gen::new(20);
    ok(gpmp_set_backend(RawBackend(1)), "gpmp_set_backend(CPU)");
    matrix(&mut g);
    #[cfg(feature = "gpu-tests")]
    {
        if gpmp_set_backend(RawBackend(2)) == GPMP_SUCCESS {
            matrix(&mut g);
        } else {
            eprintln!("skipped: the GPU pass: no usable CUDA device ({})", last_error());
        }
    }
    ok(gpmp_set_backend(RawBackend(0)), "gpmp_set_backend(AUTO)");
    ok(gpmp_set_num_threads(0), "gpmp_set_num_threads(0)");
}
