//! The `_ptr` twins: each gives what its array form gives and what GMP gives, on random and edge
//! values, with pointer arrays in an order unlike memory order, outputs pointing to the inputs, and
//! bad pointer arrays rejected with nothing written.
use super::gfpf::*;
use super::mpz::{mpz_ptr, mpz_srcptr, mpz_t};
use super::mpz_n::*;
use super::poly::*;
use super::status::gpmp_status;
use super::zvec::*;
use crate::testing::Mpz;
use crate::testing::{coef, Rng};
use gmp_mpfr_sys::gmp;

/// n random integers of up to `bits` bits (edge kinds mixed in: zero, ±1, all-ones limbs).
fn ints(rng: &mut Rng, n: usize, bits: u64) -> Vec<Mpz> {
    (0..n)
        .map(|_| {
            let kind = rng.below(8);
            let (neg, mag) = coef(rng, bits, kind);
            Mpz::from_coef(crate::int::IntRef::new(neg, &mag))
        })
        .collect()
}

fn copy(v: &[Mpz]) -> Vec<Mpz> {
    v.iter()
        .map(|z| {
            let mut c = Mpz::new();
            // SAFETY: initialised.
            unsafe { gmp::mpz_set(c.as_mut_ptr(), z.as_ptr()) };
            c
        })
        .collect()
}

fn same(a: &[Mpz], b: &[Mpz]) -> bool {
    // SAFETY: initialised.
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| unsafe { gmp::mpz_cmp(x.as_ptr(), y.as_ptr()) } == 0)
}

/// Pointers to the elements of `v`, element i at position perm(i) of the pointer array: the
/// pointer array runs backwards through memory.
fn ptrs(v: &mut [Mpz]) -> Vec<mpz_ptr> {
    let n = v.len();
    let base: Vec<mpz_ptr> = v.iter_mut().map(|z| z.as_mut_ptr()).collect();
    (0..n).map(|i| base[i]).collect()
}

/// Stores its integers in reverse memory order: element i of the logical array is `store[n-1-i]`.
struct Scattered {
    store: Vec<Mpz>,
}

impl Scattered {
    fn new(v: &[Mpz]) -> Self {
        let mut store = copy(v);
        store.reverse();
        Scattered { store }
    }
    fn ptrs(&mut self) -> Vec<mpz_ptr> {
        let mut p = ptrs(&mut self.store);
        p.reverse();
        p
    }
    fn logical(&self) -> Vec<Mpz> {
        let mut v = copy(&self.store);
        v.reverse();
        v
    }
}

type ArrayFn = unsafe extern "C" fn(*mut mpz_t, *const mpz_t, *const mpz_t, usize) -> gpmp_status;
type PtrFn = unsafe extern "C" fn(*mut mpz_ptr, *const mpz_srcptr, *const mpz_srcptr, usize) -> gpmp_status;
type ModArrayFn = unsafe extern "C" fn(*mut mpz_t, *const mpz_t, *const mpz_t, *const mpz_t, usize) -> gpmp_status;
type ModPtrFn = unsafe extern "C" fn(*mut mpz_ptr, *const mpz_srcptr, *const mpz_srcptr, *const mpz_t, usize) -> gpmp_status;
type Oracle = unsafe fn(*mut mpz_t, *const mpz_t, *const mpz_t, *const mpz_t);

unsafe fn o_add(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, _: *const mpz_t) {
    gmp::mpz_add(r, a, b)
}
unsafe fn o_sub(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, _: *const mpz_t) {
    gmp::mpz_sub(r, a, b)
}
unsafe fn o_mul(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, _: *const mpz_t) {
    gmp::mpz_mul(r, a, b)
}
unsafe fn o_addmul(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, _: *const mpz_t) {
    gmp::mpz_addmul(r, a, b)
}
unsafe fn o_addmod(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: *const mpz_t) {
    gmp::mpz_add(r, a, b);
    gmp::mpz_mod(r, r, m)
}
unsafe fn o_submod(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: *const mpz_t) {
    gmp::mpz_sub(r, a, b);
    gmp::mpz_mod(r, r, m)
}
unsafe fn o_mulmod(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: *const mpz_t) {
    gmp::mpz_mul(r, a, b);
    gmp::mpz_mod(r, r, m)
}
unsafe fn o_powm(r: *mut mpz_t, a: *const mpz_t, b: *const mpz_t, m: *const mpz_t) {
    gmp::mpz_powm(r, a, b, m)
}

/// One operation in both forms against the oracle: r separate, and r aliasing a (the array form:
/// r = a; the pointer form: r\[i\] points to a's element i).
#[allow(clippy::too_many_arguments)]
unsafe fn check_op(
    name: &str,
    arr: Option<ArrayFn>,
    ptr: Option<PtrFn>,
    marr: Option<ModArrayFn>,
    mptr: Option<ModPtrFn>,
    oracle: Oracle,
    rng: &mut Rng,
    n: usize,
    bits: u64,
) {
    let a = ints(rng, n, bits);
    let mut b = ints(rng, n, bits);
    let r0 = ints(rng, n, bits);
    let mut m = Mpz::new();
    gmp::mpz_set_ui(m.as_mut_ptr(), 1);
    gmp::mpz_mul_2exp(m.as_mut_ptr(), m.as_ptr(), (bits + 8) as _);
    gmp::mpz_sub_ui(m.as_mut_ptr(), m.as_ptr(), 1 + 2 * rng.below(100)); // odd, > 2^bits
    if name == "powm" {
        for e in b.iter_mut() {
            gmp::mpz_abs(e.as_mut_ptr(), e.as_ptr());
        }
    }
    let mut want = copy(&r0);
    for i in 0..n {
        oracle(want[i].as_mut_ptr(), a[i].as_ptr(), b[i].as_ptr(), m.as_ptr());
    }
    let call_arr = |r: *mut mpz_t, x: *const mpz_t, y: *const mpz_t| match (arr, marr) {
        (Some(f), _) => f(r, x, y, n),
        (_, Some(f)) => f(r, x, y, m.as_ptr(), n),
        _ => unreachable!(),
    };
    let call_ptr = |r: *mut mpz_ptr, x: *const mpz_srcptr, y: *const mpz_srcptr| match (ptr, mptr) {
        (Some(f), _) => f(r, x, y, n),
        (_, Some(f)) => f(r, x, y, m.as_ptr(), n),
        _ => unreachable!(),
    };
    // Array form, separate output.
    let mut r = copy(&r0);
    let (ac, bc) = (copy(&a), copy(&b));
    assert_eq!(call_arr(r.as_mut_ptr().cast(), ac.as_ptr().cast(), bc.as_ptr().cast()), gpmp_status::GPMP_SUCCESS, "{name}");
    assert!(same(&r, &want), "{name} n={n} bits={bits}: array form");
    // Pointer form, scattered operands and outputs.
    let (mut sa, mut sb, mut sr) = (Scattered::new(&a), Scattered::new(&b), Scattered::new(&r0));
    let (pa, pb, mut pr) = (sa.ptrs(), sb.ptrs(), sr.ptrs());
    assert_eq!(call_ptr(pr.as_mut_ptr(), pa.as_ptr().cast(), pb.as_ptr().cast()), gpmp_status::GPMP_SUCCESS, "{name}_ptr");
    assert!(same(&sr.logical(), &want), "{name}_ptr n={n} bits={bits}");
    assert!(same(&sa.logical(), &a) && same(&sb.logical(), &b), "{name}_ptr changed an input");
    // Outputs aliasing the first operand (for addmul the accumulator is r itself: skip).
    if name != "addmul" && n > 0 {
        let mut want_alias = copy(&a);
        for i in 0..n {
            oracle(want_alias[i].as_mut_ptr(), a[i].as_ptr(), b[i].as_ptr(), m.as_ptr());
        }
        let mut x = copy(&a);
        assert_eq!(call_arr(x.as_mut_ptr().cast(), x.as_ptr().cast(), bc.as_ptr().cast()), gpmp_status::GPMP_SUCCESS);
        assert!(same(&x, &want_alias), "{name}: r = a");
        let mut sx = Scattered::new(&a);
        let mut px = sx.ptrs();
        let pxc = px.clone();
        assert_eq!(call_ptr(px.as_mut_ptr(), pxc.as_ptr().cast(), pb.as_ptr().cast()), gpmp_status::GPMP_SUCCESS);
        assert!(same(&sx.logical(), &want_alias), "{name}_ptr: r[i] = a[i]");
    }
    // A NULL entry in a pointer array: rejected, nothing written.
    if n > 0 {
        let mut sr = Scattered::new(&r0);
        let mut pr = sr.ptrs();
        let mut pa_bad = pa.clone();
        pa_bad[n - 1] = std::ptr::null_mut();
        assert_eq!(call_ptr(pr.as_mut_ptr(), pa_bad.as_ptr().cast(), pb.as_ptr().cast()), gpmp_status::GPMP_INVALID_ARGUMENT);
        assert!(same(&sr.logical(), &r0), "{name}_ptr wrote after a NULL input");
    }
}

#[test]
fn mpz_n_ptr_twins_match_their_array_forms_and_gmp() {
    let mut rng = Rng(0x9e37);
    type Case = (&'static str, Option<ArrayFn>, Option<PtrFn>, Option<ModArrayFn>, Option<ModPtrFn>, Oracle);
    let cases: [Case; 8] = [
        ("add", Some(gpmp_mpz_add_n), Some(gpmp_mpz_add_n_ptr), None, None, o_add),
        ("sub", Some(gpmp_mpz_sub_n), Some(gpmp_mpz_sub_n_ptr), None, None, o_sub),
        ("mul", Some(gpmp_mpz_mul_n), Some(gpmp_mpz_mul_n_ptr), None, None, o_mul),
        ("addmul", Some(gpmp_mpz_addmul_n), Some(gpmp_mpz_addmul_n_ptr), None, None, o_addmul),
        ("addmod", None, None, Some(gpmp_mpz_addmod_n), Some(gpmp_mpz_addmod_n_ptr), o_addmod),
        ("submod", None, None, Some(gpmp_mpz_submod_n), Some(gpmp_mpz_submod_n_ptr), o_submod),
        ("mulmod", None, None, Some(gpmp_mpz_mulmod_n), Some(gpmp_mpz_mulmod_n_ptr), o_mulmod),
        ("powm", None, None, Some(gpmp_mpz_powm_n), Some(gpmp_mpz_powm_n_ptr), o_powm),
    ];
    for (name, arr, ptr, marr, mptr, oracle) in cases {
        // 40000 elements: past the length from which views are taken in parallel.
        let sizes: &[(usize, u64)] =
            if name == "powm" { &[(0, 64), (1, 64), (7, 200), (300, 130)] } else { &[(0, 64), (1, 1), (9, 300), (40000, 150)] };
        for &(n, bits) in sizes {
            // SAFETY: valid arrays throughout.
            unsafe { check_op(name, arr, ptr, marr, mptr, oracle, &mut rng, n, bits) };
        }
    }
}

#[test]
fn poly_ptr_twins_match_their_array_forms() {
    let mut rng = Rng(77);
    for (flen, glen, bits) in [(1, 1, 10), (5, 3, 64), (30, 17, 300)] {
        let f = ints(&mut rng, flen, bits);
        let g = ints(&mut rng, glen, bits);
        let hlen = flen + glen - 1;
        for alg in [0, 1, 2, 7] {
            let mut want: Vec<Mpz> = (0..hlen).map(|_| Mpz::new()).collect();
            // SAFETY: arrays of the stated lengths.
            let st =
                unsafe { gpmp_poly_mul_alg(want.as_mut_ptr().cast(), f.as_ptr().cast(), flen, g.as_ptr().cast(), glen, RawMulAlg(alg)) };
            assert_eq!(st, gpmp_status::GPMP_SUCCESS);
            let (mut sf, mut sg, mut sh) = (Scattered::new(&f), Scattered::new(&g), Scattered::new(&ints(&mut rng, hlen, 8)));
            let (pf, pg, mut ph) = (sf.ptrs(), sg.ptrs(), sh.ptrs());
            // SAFETY: as above.
            let st = unsafe { gpmp_poly_mul_alg_ptr(ph.as_mut_ptr(), pf.as_ptr().cast(), flen, pg.as_ptr().cast(), glen, RawMulAlg(alg)) };
            assert_eq!(st, gpmp_status::GPMP_SUCCESS);
            assert!(same(&sh.logical(), &want), "gpmp_poly_mul_alg_ptr alg {alg}");
        }
        // Squares, also with h pointing to f's elements (h longer than f: its first entries).
        let mut want: Vec<Mpz> = (0..2 * flen - 1).map(|_| Mpz::new()).collect();
        // SAFETY: as above.
        assert_eq!(unsafe { gpmp_poly_sqr(want.as_mut_ptr().cast(), f.as_ptr().cast(), flen) }, gpmp_status::GPMP_SUCCESS);
        let mut sf = Scattered::new(&f);
        let pf = sf.ptrs();
        let mut extra = ints(&mut rng, flen - 1, 8);
        let mut ph: Vec<mpz_ptr> = pf.clone();
        ph.extend(ptrs(&mut extra));
        // SAFETY: as above.
        assert_eq!(unsafe { gpmp_poly_sqr_ptr(ph.as_mut_ptr(), pf.as_ptr().cast(), flen) }, gpmp_status::GPMP_SUCCESS);
        let mut got = sf.logical();
        got.extend(copy(&extra));
        assert!(same(&got, &want), "gpmp_poly_sqr_ptr with h aliasing f");
    }
}

#[test]
fn zvec_and_gfpf_ptr_twins_round_trip() {
    let mut rng = Rng(5);
    let n = 37;
    let a = ints(&mut rng, n, 120);
    let mut sa = Scattered::new(&a);
    let pa = sa.ptrs();
    // SAFETY: a zvec of n integers of 128 bits, filled from and read into pointer arrays.
    unsafe {
        let v = gpmp_zvec_new(n, 128);
        assert!(!v.is_null());
        assert_eq!(gpmp_zvec_set_mpz_ptr(v, pa.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
        let mut sb = Scattered::new(&ints(&mut rng, n, 8));
        let mut pb = sb.ptrs();
        assert_eq!(gpmp_zvec_get_mpz_ptr(pb.as_mut_ptr(), v, n), gpmp_status::GPMP_SUCCESS);
        assert!(same(&sb.logical(), &a), "zvec set/get through pointer arrays");
        let mut bad = pa.clone();
        bad[3] = std::ptr::null_mut();
        assert_eq!(gpmp_zvec_set_mpz_ptr(v, bad.as_ptr().cast(), n), gpmp_status::GPMP_INVALID_ARGUMENT);
        gpmp_zvec_free(v);
    }
    // GFPF: from/to through pointers equals the array forms.
    // SAFETY: a field of the listed ones; buffers of n·k words.
    unsafe {
        let f = gpmp_gfpf_builtin(8);
        assert!(!f.is_null());
        let k = gpmp_gfpf_k(f) as usize;
        let (mut x, mut y) = (vec![0u64; n * k], vec![0u64; n * k]);
        let lay = RawLayout(0);
        assert_eq!(gpmp_gfpf_from_mpz(f, x.as_mut_ptr(), a.as_ptr().cast(), n, lay), gpmp_status::GPMP_SUCCESS);
        assert_eq!(gpmp_gfpf_from_mpz_ptr(f, y.as_mut_ptr(), pa.as_ptr().cast(), n, lay), gpmp_status::GPMP_SUCCESS);
        assert_eq!(x, y);
        let mut want: Vec<Mpz> = (0..n).map(|_| Mpz::new()).collect();
        assert_eq!(gpmp_gfpf_to_mpz(f, want.as_mut_ptr().cast(), x.as_ptr(), n, lay), gpmp_status::GPMP_SUCCESS);
        let mut so = Scattered::new(&ints(&mut rng, n, 8));
        let mut po = so.ptrs();
        assert_eq!(gpmp_gfpf_to_mpz_ptr(f, po.as_mut_ptr(), x.as_ptr(), n, lay), gpmp_status::GPMP_SUCCESS);
        assert!(same(&so.logical(), &want));
        gpmp_gfpf_free(f);
    }
}

/// n integers of at most `bits` bits for the batched products: random sizes and kinds, zeros, ±1,
/// all-ones limbs (±(2^(64k) − 1)), powers of two, random signs.
#[cfg(feature = "gpu-tests")]
fn product_operands(rng: &mut Rng, n: usize, bits: u64) -> Vec<Mpz> {
    (0..n)
        .map(|i| {
            let (neg, mag) = match i % 7 {
                0 => (false, vec![]),
                1 => (rng.below(2) == 1, vec![1]),
                2 => (rng.below(2) == 1, vec![u64::MAX; bits.div_ceil(64) as usize]),
                k => {
                    let b = 1 + rng.below(bits);
                    coef(rng, b, k as u64 % 3)
                }
            };
            Mpz::from_coef(crate::int::IntRef::new(neg, &mag))
        })
        .collect()
}

/// `gpmp_mpz_mul_n` / `_addmul_n` and their `_ptr` twins on the GPU route (asserted) against GMP:
/// one element, a few blocks, and batches of several staging chunks (2^20-element chunks at 1024
/// bits, 2^15 at 4096); operands of up to 65,536 bits (the wide kernel); outputs fresh (grown) and
/// already sized; r = a (array form) and r\[i\] = a\[i\] (pointer form); for addmul r is the
/// accumulator in both forms.
#[cfg(feature = "gpu-tests")]
#[test]
fn batched_products_on_the_gpu_match_gmp() {
    use crate::ops::int::{mul_n, Products};
    use crate::runtime::{self, Backend};
    let _lock = crate::testing::backend_lock();
    runtime::set_backend(Backend::Gpu).unwrap();
    let mut rng = Rng(0x5eed_1234);
    for &(n, ba, bb) in &[(1usize, 64u64, 64u64), (300, 1000, 700), (70_000, 4096, 4096), (5000, 1024, 1024), (9, 65_536, 1000)] {
        let (a, b) = (product_operands(&mut rng, n, ba), product_operands(&mut rng, n, bb));
        let (av, bv): (Vec<_>, Vec<_>) = (
            a.iter().map(|z| crate::int::IntRef::new(z.neg(), z.mag())).collect(),
            b.iter().map(|z| crate::int::IntRef::new(z.neg(), z.mag())).collect(),
        );
        let routed = runtime::install(|| mul_n(&av, &bv)).unwrap();
        assert!(matches!(routed, Products::Device(_)), "{n} x {ba} bits: the GPU route");
        drop(routed);
        let mut want: Vec<Mpz> = (0..n).map(|_| Mpz::new()).collect();
        let c = product_operands(&mut rng, n, ba + bb);
        let mut want_add = copy(&c);
        // SAFETY: initialised mpz_t throughout; arrays of n elements.
        unsafe {
            for i in 0..n {
                gmp::mpz_mul(want[i].as_mut_ptr(), a[i].as_ptr(), b[i].as_ptr());
                gmp::mpz_addmul(want_add[i].as_mut_ptr(), a[i].as_ptr(), b[i].as_ptr());
            }
            let what = format!("{n} x {ba}·{bb} bits");
            for sized in [false, true] {
                let fresh = || -> Vec<Mpz> {
                    (0..n)
                        .map(|_| {
                            let mut z = Mpz::new();
                            if sized {
                                gmp::mpz_realloc2(z.as_mut_ptr(), ba + bb + 64);
                            }
                            z
                        })
                        .collect()
                };
                let mut r = fresh();
                assert_eq!(gpmp_mpz_mul_n(r.as_mut_ptr().cast(), a.as_ptr().cast(), b.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
                assert!(same(&r, &want), "mul_n {what}, sized {sized}");
                let mut sr = Scattered::new(&fresh());
                let (mut sa, mut sb) = (Scattered::new(&a), Scattered::new(&b));
                let (pa, pb, mut pr) = (sa.ptrs(), sb.ptrs(), sr.ptrs());
                assert_eq!(gpmp_mpz_mul_n_ptr(pr.as_mut_ptr(), pa.as_ptr().cast(), pb.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
                assert!(same(&sr.logical(), &want), "mul_n_ptr {what}, sized {sized}");
                assert!(same(&sa.logical(), &a) && same(&sb.logical(), &b), "mul_n_ptr changed an input");
            }
            // r = a: the array form and the pointer form.
            let mut x = copy(&a);
            assert_eq!(gpmp_mpz_mul_n(x.as_mut_ptr().cast(), x.as_ptr().cast(), b.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
            assert!(same(&x, &want), "mul_n r = a, {what}");
            let mut sx = Scattered::new(&a);
            let mut px = sx.ptrs();
            let pxc = px.clone();
            let mut sb = Scattered::new(&b);
            let pb = sb.ptrs();
            assert_eq!(gpmp_mpz_mul_n_ptr(px.as_mut_ptr(), pxc.as_ptr().cast(), pb.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
            assert!(same(&sx.logical(), &want), "mul_n_ptr r[i] = a[i], {what}");
            // r += a·b, the accumulator r itself; then r = b (aliasing an operand too).
            let mut r = copy(&c);
            assert_eq!(gpmp_mpz_addmul_n(r.as_mut_ptr().cast(), a.as_ptr().cast(), b.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
            assert!(same(&r, &want_add), "addmul_n {what}");
            let mut sr = Scattered::new(&c);
            let mut pr = sr.ptrs();
            let (mut sa, mut sb) = (Scattered::new(&a), Scattered::new(&b));
            let (pa, pb) = (sa.ptrs(), sb.ptrs());
            assert_eq!(gpmp_mpz_addmul_n_ptr(pr.as_mut_ptr(), pa.as_ptr().cast(), pb.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
            assert!(same(&sr.logical(), &want_add), "addmul_n_ptr {what}");
            let mut y = copy(&b);
            let mut want_y = copy(&b);
            for i in 0..n {
                gmp::mpz_addmul(want_y[i].as_mut_ptr(), a[i].as_ptr(), b[i].as_ptr());
            }
            assert_eq!(gpmp_mpz_addmul_n(y.as_mut_ptr().cast(), a.as_ptr().cast(), y.as_ptr().cast(), n), gpmp_status::GPMP_SUCCESS);
            assert!(same(&y, &want_y), "addmul_n r = b, {what}");
        }
    }
    runtime::set_backend(Backend::Auto).unwrap();
}
