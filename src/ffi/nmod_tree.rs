//! `gpmp_nmod_poly_divrem`, `gpmp_nmod_poly_inv_series` and the subproduct tree
//! `gpmp_nmod_tree` with multipoint evaluation and interpolation over Z/pZ, p any odd prime
//! < 2^63. Residues are `uint64_t` in [0, p); bad input (an unreduced residue, a composite or even
//! p, a zero divisor, repeated points where distinct ones are needed, lengths whose byte size
//! overflows) returns a status with the detail in `gpmp_last_error()` and writes nothing. Outputs
//! may alias inputs: they are written only after the result is complete.
//!
//! Evaluation and interpolation (through a tree and one-shot) run on the GPU, bit-identical to the
//! CPU, for primes with 2^(⌈log2 n⌉+1) | p − 1 (the Fourier primes of `gpmp_nmod_fourier_prime`) when
//! routed there (GPU backend; AUTO from 2^16 points with a usable device); other primes always run
//! on the CPU. A tree made on the CPU gets its device copy at its first GPU call and keeps it
//! until `gpmp_nmod_tree_free`.
// The C API names the tree argument `T`.
#![allow(non_snake_case)]
use super::gpmp_status;
use super::nmod::{slice_in, slice_out};
use super::status::{guard, guard_value};
use crate::ops::nmod::{self, Tree};
use crate::{invalid, runtime, Result};

/// Opaque subproduct tree of n distinct points mod p (`typedef struct gpmp_nmod_tree gpmp_nmod_tree;`),
/// with the subproducts' transforms and the inverse of the reversed root. Immutable after creation:
/// one tree may be used by several threads at once.
pub struct gpmp_nmod_tree(Tree);

/// Copies `r` into the caller's array (ptr, r.len()) unless ptr is NULL.
unsafe fn put(ptr: *mut u64, r: &[u64], what: &str) -> Result<()> {
    if ptr.is_null() {
        return Ok(());
    }
    slice_out(ptr, r.len(), what)?.copy_from_slice(r);
    Ok(())
}

/// The tree behind a pointer.
unsafe fn tree<'a>(t: *const gpmp_nmod_tree) -> Result<&'a Tree> {
    if t.is_null() {
        return invalid!("T is NULL");
    }
    Ok(&(*t).0)
}

/// a = q·b + r in Z/pZ\[x\] with deg r < deg b: q gets alen − blen + 1 coefficients (none when
/// alen < blen), r gets blen − 1 (a padded with zeros when alen < blen). b\[blen−1\] must be
/// nonzero (blen = 0, the zero polynomial, is `GPMP_INVALID_ARGUMENT`). q or r may be NULL when not
/// wanted; either may alias a or b. Schoolbook for short quotients or divisors, else Newton's
/// iteration on NTT products.
///
/// # Safety
/// a, b hold alen, blen `uint64_t`; q, r (when not NULL) hold the lengths above.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_divrem(
    q: *mut u64,
    r: *mut u64,
    a: *const u64,
    alen: usize,
    b: *const u64,
    blen: usize,
    p: u64,
) -> gpmp_status {
    guard("gpmp_nmod_poly_divrem", || {
        let (a, b) = (slice_in(a, alen, "a")?, slice_in(b, blen, "b")?);
        let (qv, rv) = runtime::install(|| nmod::poly_divrem(a, b, p))?;
        // Both outputs are checked before either is written.
        if !q.is_null() {
            slice_in(q as *const u64, qv.len(), "q")?;
        }
        if !r.is_null() {
            slice_in(r as *const u64, rv.len(), "r")?;
        }
        put(q, &qv, "q")?;
        put(r, &rv, "r")
    })
}

/// g = 1/f mod x^n (n coefficients) in Z/pZ\[\[x\]\]; f\[0\] must be nonzero (flen ≥ 1). g may alias f.
///
/// # Safety
/// f holds flen and g holds n `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_inv_series(g: *mut u64, f: *const u64, flen: usize, n: usize, p: u64) -> gpmp_status {
    guard("gpmp_nmod_poly_inv_series", || {
        let f = slice_in(f, flen, "f")?;
        slice_in(g as *const u64, n, "g")?;
        let v = runtime::install(|| nmod::inv_series(f, n, p))?;
        put(g, &v, "g")
    })
}

/// The subproduct tree of the n ≥ 1 distinct points (residues mod p), or NULL on error (repeated
/// points, an unreduced point, p not an odd prime < 2^63, n = 0; see `gpmp_last_error`). Free it
/// with `gpmp_nmod_tree_free`. Memory: about (⌈log2 n⌉ + 2·r·(⌈log2 n⌉ − 5) + 4)·n words, r = 1 when
/// 2^(⌈log2 n⌉+2) divides p − 1 and 2 or 3 otherwise.
///
/// GPU: when 2^(⌈log2 n⌉+1) divides p − 1 (the Fourier primes of `gpmp_nmod_fourier_prime`),
/// evaluation and interpolation through the tree run on the GPU when routed there (GPU backend, or
/// AUTO from 2^16 points with a usable device), with the same words as the CPU; the tree's device
/// copy (about (H + 2·(⌈log2 n⌉ − H) + 2)·n words, H = 6) is made at its first GPU call and freed
/// with the tree. Other primes always run on the CPU.
///
/// # Safety
/// points holds n `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_tree_new(points: *const u64, n: usize, p: u64) -> *mut gpmp_nmod_tree {
    guard_value("gpmp_nmod_tree_new", std::ptr::null_mut(), || {
        let u = slice_in(points, n, "points")?;
        let t = runtime::install(|| nmod::tree_new(u, p))?;
        Ok(Box::into_raw(Box::new(gpmp_nmod_tree(t))))
    })
}

/// Frees a tree (NULL is allowed), with its device copy if it has one.
///
/// # Safety
/// T is NULL or from `gpmp_nmod_tree_new`, not freed before, and no call is using it.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_tree_free(T: *mut gpmp_nmod_tree) {
    if !T.is_null() {
        drop(Box::from_raw(T));
    }
}

/// The number of points n of the tree (0 for NULL).
///
/// # Safety
/// T is NULL or a live tree.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_tree_len(T: *const gpmp_nmod_tree) -> usize {
    if T.is_null() {
        0
    } else {
        (*T).0.len()
    }
}

/// values\[i\] = f(points\[i\]) mod p for the tree's n points; any flen (also 0, or > n: f is first
/// reduced modulo Π (x − points\[i\])). values may alias f.
///
/// # Safety
/// f holds flen and values holds n `uint64_t`; T is a live tree.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_evaluate(values: *mut u64, f: *const u64, flen: usize, T: *const gpmp_nmod_tree) -> gpmp_status {
    guard("gpmp_nmod_poly_evaluate", || {
        let t = tree(T)?;
        let f = slice_in(f, flen, "f")?;
        slice_in(values as *const u64, t.len(), "values")?;
        let v = runtime::install(|| nmod::evaluate(t, f))?;
        put(values, &v, "values")
    })
}

/// The unique f of degree < n with f(points\[i\]) = values\[i\] for the tree's n points: writes n
/// coefficients. f may alias values. The first call on a tree also computes and keeps the weights
/// 1/Π_(j≠i)(points\[i\] − points\[j\]) (one evaluation).
///
/// # Safety
/// values and f hold n `uint64_t`; T is a live tree.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_interpolate(f: *mut u64, values: *const u64, T: *const gpmp_nmod_tree) -> gpmp_status {
    guard("gpmp_nmod_poly_interpolate", || {
        let t = tree(T)?;
        let v = slice_in(values, t.len(), "values")?;
        slice_in(f as *const u64, t.len(), "f")?;
        let c = runtime::install(|| nmod::interpolate(t, v))?;
        put(f, &c, "f")
    })
}

/// values\[i\] = f(points\[i\]) mod p, i < n, without a kept tree. The points may repeat (no tree of
/// distinct points is needed to evaluate); n = 0 writes nothing.
///
/// # Safety
/// f holds flen, points and values hold n `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_evaluate_vec(
    values: *mut u64,
    f: *const u64,
    flen: usize,
    points: *const u64,
    n: usize,
    p: u64,
) -> gpmp_status {
    guard("gpmp_nmod_poly_evaluate_vec", || {
        let (f, u) = (slice_in(f, flen, "f")?, slice_in(points, n, "points")?);
        slice_in(values as *const u64, n, "values")?;
        let v = runtime::install(|| nmod::evaluate_vec(f, u, p))?;
        put(values, &v, "values")
    })
}

/// The unique f of degree < n with f(points\[i\]) = values\[i\], n ≥ 1 distinct points, without a
/// kept tree: writes n coefficients. f may alias points or values.
///
/// # Safety
/// points, values and f hold n `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_nmod_poly_interpolate_vec(
    f: *mut u64,
    points: *const u64,
    values: *const u64,
    n: usize,
    p: u64,
) -> gpmp_status {
    guard("gpmp_nmod_poly_interpolate_vec", || {
        let (u, v) = (slice_in(points, n, "points")?, slice_in(values, n, "values")?);
        slice_in(f as *const u64, n, "f")?;
        let c = runtime::install(|| nmod::interpolate_vec(u, v, p))?;
        put(f, &c, "f")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpmp_status::*;

    /// The worked example through the C calls, outputs aliasing inputs, a shared tree, and bad input
    /// that leaves the outputs untouched.
    #[test]
    fn c_calls_with_aliasing_and_bad_input() {
        let p = 257u64;
        let u = [63u64, 100, 148, 113, 109, 26, 39, 206];
        let f = [250u64, 161, 179, 170, 82, 24, 89, 92];
        let want = [75u64, 101, 49, 74, 55, 159, 26, 169];
        unsafe {
            let t = gpmp_nmod_tree_new(u.as_ptr(), 8, p);
            assert!(!t.is_null());
            assert_eq!(gpmp_nmod_tree_len(t), 8);
            let mut x = f;
            assert_eq!(gpmp_nmod_poly_evaluate(x.as_mut_ptr(), x.as_ptr(), 8, t), GPMP_SUCCESS);
            assert_eq!(x, want, "values aliasing f");
            assert_eq!(gpmp_nmod_poly_interpolate(x.as_mut_ptr(), x.as_ptr(), t), GPMP_SUCCESS);
            assert_eq!(x, f, "f aliasing values");
            let mut y = [0u64; 8];
            assert_eq!(gpmp_nmod_poly_evaluate_vec(y.as_mut_ptr(), f.as_ptr(), 8, u.as_ptr(), 8, p), GPMP_SUCCESS);
            assert_eq!(y, want);
            let mut z = u;
            assert_eq!(gpmp_nmod_poly_interpolate_vec(z.as_mut_ptr(), z.as_ptr(), want.as_ptr(), 8, p), GPMP_SUCCESS);
            assert_eq!(z, f, "f aliasing points");
            // Bad input: outputs untouched.
            let mut o = [7u64; 8];
            let bad = [1u64, 300];
            assert_eq!(gpmp_nmod_poly_evaluate(o.as_mut_ptr(), bad.as_ptr(), 2, t), GPMP_INVALID_ARGUMENT);
            assert_eq!(gpmp_nmod_poly_interpolate(o.as_mut_ptr(), [257u64; 8].as_ptr(), t), GPMP_INVALID_ARGUMENT);
            assert_eq!(
                gpmp_nmod_poly_interpolate_vec(o.as_mut_ptr(), [1u64, 2, 1].as_ptr(), [0u64; 3].as_ptr(), 3, p),
                GPMP_INVALID_ARGUMENT
            );
            assert_eq!(gpmp_nmod_poly_evaluate_vec(o.as_mut_ptr(), f.as_ptr(), 8, u.as_ptr(), 8, 256), GPMP_INVALID_ARGUMENT);
            assert_eq!(o, [7u64; 8]);
            assert!(gpmp_nmod_tree_new([1u64, 2, 1].as_ptr(), 3, p).is_null());
            assert!(gpmp_nmod_tree_new(u.as_ptr(), 0, p).is_null());
            assert!(gpmp_nmod_tree_new(u.as_ptr(), 8, 255).is_null());
            assert!(gpmp_nmod_tree_new(std::ptr::null(), usize::MAX / 4, p).is_null(), "overflowing length");
            assert_eq!(gpmp_nmod_poly_evaluate(o.as_mut_ptr(), f.as_ptr(), 8, std::ptr::null()), GPMP_INVALID_ARGUMENT);
            gpmp_nmod_tree_free(t);
            gpmp_nmod_tree_free(std::ptr::null_mut());
            assert_eq!(gpmp_nmod_tree_len(std::ptr::null()), 0);
        }
    }

    /// divrem and inv_series: aliasing, NULL outputs, b = 0, overflowing lengths.
    #[test]
    fn division_calls() {
        let p = 7u64;
        unsafe {
            // x^3 + 2x + 5 = (x + 3)(x^2 − 3x + 11) − 28 = (x + 3)(x^2 + 4x + 4) mod 7.
            let a = [5u64, 2, 0, 1];
            let b = [3u64, 1];
            let (mut q, mut r) = ([0u64; 3], [0u64; 1]);
            assert_eq!(gpmp_nmod_poly_divrem(q.as_mut_ptr(), r.as_mut_ptr(), a.as_ptr(), 4, b.as_ptr(), 2, p), GPMP_SUCCESS);
            assert_eq!((q, r), ([4, 4, 1], [0]));
            let mut x = a;
            assert_eq!(gpmp_nmod_poly_divrem(x.as_mut_ptr(), std::ptr::null_mut(), x.as_ptr(), 4, b.as_ptr(), 2, p), GPMP_SUCCESS);
            assert_eq!(x[..3], [4, 4, 1], "q aliasing a");
            // x^3 + 2x + 6 = (x + 3)(x^2 + 4x + 4) + 1 mod 7.
            let mut y = b;
            assert_eq!(
                gpmp_nmod_poly_divrem(std::ptr::null_mut(), y.as_mut_ptr(), [6u64, 2, 0, 1].as_ptr(), 4, y.as_ptr(), 2, p),
                GPMP_SUCCESS
            );
            assert_eq!(y[0], 1, "r aliasing b");
            let mut o = [9u64; 3];
            assert_eq!(gpmp_nmod_poly_divrem(o.as_mut_ptr(), o.as_mut_ptr(), a.as_ptr(), 4, b.as_ptr(), 0, p), GPMP_INVALID_ARGUMENT);
            assert_eq!(
                gpmp_nmod_poly_divrem(o.as_mut_ptr(), o.as_mut_ptr(), a.as_ptr(), 4, [1u64, 0].as_ptr(), 2, p),
                GPMP_INVALID_ARGUMENT
            );
            assert_eq!(
                gpmp_nmod_poly_divrem(o.as_mut_ptr(), o.as_mut_ptr(), a.as_ptr(), usize::MAX / 2, b.as_ptr(), 2, p),
                GPMP_SIZE_TOO_LARGE
            );
            assert_eq!(o, [9u64; 3]);
            // 1/(1 − x) = 1 + x + x^2 + …, g aliasing f.
            let mut g = [1u64, 6, 9, 9, 9];
            assert_eq!(gpmp_nmod_poly_inv_series(g.as_mut_ptr(), g.as_ptr(), 2, 5, p), GPMP_SUCCESS);
            assert_eq!(g, [1; 5]);
            let mut g = [0u64, 1, 9];
            assert_eq!(gpmp_nmod_poly_inv_series(g.as_mut_ptr(), g.as_ptr(), 2, 3, p), GPMP_INVALID_ARGUMENT, "f(0) = 0");
            assert_eq!(g, [0, 1, 9]);
        }
    }
}
