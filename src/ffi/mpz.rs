//! `mpz_t` ↔ limb views. Inputs are borrowed without copying; outputs are written in two passes:
//! a serial pass on the calling thread grows the `mpz_t` that are too small (so the host's GMP
//! allocator — Julia's, Maple's — is only ever called from the caller's thread), then a parallel
//! pass copies limbs and sets sizes.
use crate::int::{IntRef, ZList, ZSlab};
use crate::{invalid, Error, Result};
use gmp_mpfr_sys::gmp;
use rayon::prelude::*;

pub use gmp::mpz_t;
/// GMP's `mpz_ptr` (pointer to one `__mpz_struct`), as in `<gmp.h>`.
pub type mpz_ptr = *mut mpz_t;
/// GMP's `mpz_srcptr`, as in `<gmp.h>`.
pub type mpz_srcptr = *const mpz_t;

/// A pointer that may cross to rayon workers: each worker touches distinct `mpz_t`.
#[derive(Clone, Copy)]
pub(crate) struct SendPtr<T>(pub *mut T);
// SAFETY: used only for disjoint elements, see the callers.
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so that closures capture the whole `SendPtr`).
    pub fn get(self) -> *mut T {
        self.0
    }
}

/// The view of an initialised `mpz_t`.
///
/// # Safety
/// `z` points to an initialised `mpz_t` that outlives the view and is not written meanwhile.
pub(crate) unsafe fn view<'a>(z: *const mpz_t) -> IntRef<'a> {
    let z = &*z;
    let n = z.size.unsigned_abs() as usize;
    if n == 0 {
        return IntRef::ZERO;
    }
    IntRef { neg: z.size < 0, mag: std::slice::from_raw_parts(z.d.as_ptr(), n) }
}

/// Views of `len` consecutive `mpz_t` (an `mpz_t *` array). NULL is allowed only with len 0.
///
/// # Safety
/// `p` points to `len` initialised `mpz_t` (see [`view`]).
pub(crate) unsafe fn views_of_array<'a>(p: *const mpz_t, len: usize, what: &str) -> Result<Vec<IntRef<'a>>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return invalid!("{what} is NULL but its length is {len}");
    }
    check_len(len, what)?;
    if len < PARALLEL_LEN {
        return Ok((0..len).map(|i| view(p.add(i))).collect());
    }
    let base = SendPtr(p as *mut mpz_t);
    // SAFETY: as above; the workers only read distinct elements.
    Ok(crate::runtime::install(|| (0..len).into_par_iter().with_min_len(1 << 12).map(|i| unsafe { view(base.get().add(i)) }).collect()))
}

/// Arrays from this many elements are viewed, and size-checked before writing, in gpmp's pool (a
/// serial pass costs milliseconds per million elements: the GPU product's whole budget).
const PARALLEL_LEN: usize = 1 << 15;

/// Views of `len` `mpz_t` given by pointers (an `mpz_srcptr *` array).
///
/// # Safety
/// `p` points to `len` pointers, each to an initialised `mpz_t` (see [`view`]).
pub(crate) unsafe fn views_of_ptrs<'a>(p: *const mpz_srcptr, len: usize, what: &str) -> Result<Vec<IntRef<'a>>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return invalid!("{what} is NULL but its length is {len}");
    }
    check_len(len, what)?;
    (0..len)
        .map(|i| {
            let z = *p.add(i);
            if z.is_null() {
                invalid!("{what}[{i}] is NULL")
            } else {
                Ok(view(z))
            }
        })
        .collect()
}

fn check_len(len: usize, what: &str) -> Result<()> {
    if len > isize::MAX as usize / std::mem::size_of::<mpz_t>() {
        return Err(Error::SizeTooLarge(format!("{what}: length {len} is too large")));
    }
    Ok(())
}

/// The slots of an `mpz_t *` array (NULL slots when the array is NULL, for [`check_slots`]).
pub(crate) fn array_slots(h: *mut mpz_t) -> impl Fn(usize) -> *mut mpz_t + Sync {
    let h = SendPtr(h);
    move |i| if h.get().is_null() { std::ptr::null_mut() } else { unsafe { h.get().add(i) } }
}

/// Checks that the `len` output slots of `out` (given by `slot`) are non-NULL.
pub(crate) fn check_slots(len: usize, what: &str, slot: &impl Fn(usize) -> *mut mpz_t) -> Result<()> {
    check_len(len, what)?;
    for i in 0..len {
        if slot(i).is_null() {
            return invalid!("{what}[{i}] is NULL");
        }
    }
    Ok(())
}

/// Results of fewer elements than this are copied out on the caller's thread.
const SERIAL_COPY_LEN: usize = 4096;

/// Writes the slab into the `mpz_t` given by `slot(i)`, i < h.len() (see [`write_ints`]).
///
/// # Safety
/// As [`write_ints`].
pub(crate) unsafe fn write_slab(h: &ZSlab, slot: impl Fn(usize) -> *mut mpz_t + Sync) -> Result<()> {
    write_ints(h.len(), |i| h.get(i), slot)
}

/// Writes the list into the `mpz_t` given by `slot(i)`, i < h.len() (see [`write_ints`]).
///
/// # Safety
/// As [`write_ints`].
pub(crate) unsafe fn write_list(h: &ZList, slot: impl Fn(usize) -> *mut mpz_t + Sync) -> Result<()> {
    write_ints(h.len(), |i| h.get(i), slot)
}

/// Writes `get(i)` into the `mpz_t` given by `slot(i)` for i < len. Call it on the caller's thread
/// (not inside `runtime::install`): pass 1 may call the host's GMP allocator. Nothing is written
/// when an element exceeds GMP's size limit (some `mpz_t` may have been grown, none changed value).
///
/// # Safety
/// Every `slot(i)` is a distinct initialised `mpz_t` not borrowed by any live view.
pub(crate) unsafe fn write_ints<'a>(
    len: usize,
    get: impl Fn(usize) -> IntRef<'a> + Sync,
    slot: impl Fn(usize) -> *mut mpz_t + Sync,
) -> Result<()> {
    // Pass 1 (caller's thread): grow what is too small (values unchanged), stop at an element over
    // GMP's size limit. For long arrays the elements to visit are found in parallel first.
    let visit = |i: usize| {
        let need = get(i).mag.len();
        // SAFETY: slot(i) is an initialised mpz_t (the caller's contract); only read here.
        need > i32::MAX as usize || unsafe { (*slot(i)).alloc as usize } < need
    };
    let todo: Vec<usize> = if len < PARALLEL_LEN {
        (0..len).filter(|&i| visit(i)).collect()
    } else {
        crate::runtime::install(|| (0..len).into_par_iter().with_min_len(1 << 12).filter(|&i| visit(i)).collect())
    };
    for i in todo {
        let need = get(i).mag.len();
        if need > i32::MAX as usize {
            return Err(Error::SizeTooLarge(format!("result {i} of {need} limbs exceeds GMP's limit")));
        }
        gmp::mpz_limbs_write(slot(i), need as _);
    }
    // Pass 2 (parallel in gpmp's pool; small results stay on this thread, where handing the copy
    // to the pool would cost more than the copy): copy limbs, set sizes.
    let (get, slot) = (&get, &slot);
    let copy = |i: usize| {
        let v = get(i);
        let z = slot(i);
        // SAFETY: distinct mpz per i, capacity ensured in pass 1.
        unsafe {
            if !v.mag.is_empty() {
                std::ptr::copy_nonoverlapping(v.mag.as_ptr(), (*z).d.as_ptr(), v.mag.len());
            }
            let n = v.mag.len() as i32;
            (*z).size = if v.neg { -n } else { n };
        }
    };
    if len < SERIAL_COPY_LEN {
        (0..len).for_each(copy);
    } else {
        crate::runtime::install(|| (0..len).into_par_iter().with_min_len(1024).for_each(copy));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zpoly::testing::{poly, views, Rng};

    /// Arrays past PARALLEL_LEN take the parallel paths: the views equal the serial ones, and the
    /// writer grows exactly what is too small and writes every value (mixed signs, zeros, sizes).
    #[test]
    fn long_arrays_round_trip_in_parallel() {
        let len = PARALLEL_LEN + 3;
        let mut rng = Rng(77);
        let c = poly(&mut rng, len, 300, 2);
        let cv = views(&c);
        let mut h = ZSlab::zeros(len, 5).unwrap();
        for (i, v) in cv.iter().enumerate() {
            h.set(i, v.neg, v.mag);
        }
        // SAFETY: every mpz_t is initialised here and cleared below; slots are distinct.
        unsafe {
            let mut z: Vec<std::mem::MaybeUninit<mpz_t>> = (0..len).map(|_| std::mem::MaybeUninit::uninit()).collect();
            for (i, x) in z.iter_mut().enumerate() {
                if i % 3 == 0 {
                    gmp::mpz_init2(x.as_mut_ptr(), 64 * 5);
                } else {
                    gmp::mpz_init(x.as_mut_ptr());
                }
            }
            let mut z: Vec<mpz_t> = z.into_iter().map(|x| x.assume_init()).collect();
            let base = SendPtr(z.as_mut_ptr());
            write_slab(&h, move |i| base.get().add(i)).unwrap();
            let got = views_of_array(z.as_ptr(), len, "z").unwrap();
            assert_eq!(got.len(), len);
            for (i, (g, w)) in got.iter().zip(&cv).enumerate() {
                assert_eq!(g, w, "element {i}");
            }
            for x in z.iter_mut() {
                gmp::mpz_clear(x);
            }
        }
    }
}
