//! `mpz_t` ↔ limb views. Inputs are borrowed without copying (long arrays in parallel, into pooled
//! vectors, with their largest bit size). Outputs: only the calling thread grows the `mpz_t` that
//! are too small (so the host's GMP allocator — Julia's, Maple's — is only ever called from the
//! caller's thread), limbs and sizes are set in parallel: `write_bounded` (values of a known most
//! limbs: slabs, GPU products) copies what fits in one pass and grows the rest after, `write_ints`
//! grows first, then copies.
use crate::int::{IntRef, ZList, ZSlab};
use crate::zpoly::HostProduct;
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

/// An input array of `mpz_t` as C passes it: contiguous (`const mpz_t *`, one GMP array) or of
/// pointers (`const mpz_srcptr *`: Julia's `Vector{BigInt}`, gmpy2 objects, PARI's and Maple's
/// integers). Every export that reads an `mpz_t` array takes one of these, so that it and its
/// `_ptr` twin are the same code.
#[derive(Clone, Copy)]
pub(crate) enum MpzIn {
    Array(*const mpz_t),
    Ptrs(*const mpz_srcptr),
}

impl MpzIn {
    fn is_null(self) -> bool {
        match self {
            MpzIn::Array(p) => p.is_null(),
            MpzIn::Ptrs(p) => p.is_null(),
        }
    }

    /// Element i (NULL if a pointer array holds NULL there).
    ///
    /// # Safety
    /// The array is non-NULL with more than i entries.
    unsafe fn at(self, i: usize) -> *const mpz_t {
        match self {
            MpzIn::Array(p) => p.add(i),
            MpzIn::Ptrs(p) => *p.add(i),
        }
    }

    /// Views of the `len` elements (see [`views_and_bits`]).
    ///
    /// # Safety
    /// As [`views_and_bits`].
    pub(crate) unsafe fn views<'a>(self, len: usize, what: &str) -> Result<Vec<IntRef<'a>>> {
        views_and_bits(self, len, what).map(|(v, _)| v)
    }
}

/// An output array of `mpz_t`: contiguous (`mpz_t *`) or of pointers (`mpz_ptr *`, whose entries
/// must be distinct; they may point to inputs).
#[derive(Clone, Copy)]
pub(crate) enum MpzOut {
    Array(*mut mpz_t),
    Ptrs(*mut mpz_ptr),
}

impl MpzOut {
    /// Slot i of the array (NULL slots when the array is NULL, for [`check_slots`]).
    pub(crate) fn slots(self) -> impl Fn(usize) -> *mut mpz_t + Sync + Copy {
        let (p, ptrs) = match self {
            MpzOut::Array(p) => (SendPtr(p), false),
            MpzOut::Ptrs(p) => (SendPtr(p.cast::<mpz_t>()), true),
        };
        move |i| {
            if p.get().is_null() {
                std::ptr::null_mut()
            } else if ptrs {
                // SAFETY: a pointer array of at least i + 1 entries (the callers' contract).
                unsafe { *p.get().cast::<mpz_ptr>().add(i) }
            } else {
                // SAFETY: an array of at least i + 1 elements.
                unsafe { p.get().add(i) }
            }
        }
    }

    /// The same array read as an input (for r += ... calls).
    pub(crate) fn as_input(self) -> MpzIn {
        match self {
            MpzOut::Array(p) => MpzIn::Array(p),
            MpzOut::Ptrs(p) => MpzIn::Ptrs(p as *const mpz_srcptr),
        }
    }
}

/// Views of `len` consecutive `mpz_t` (an `mpz_t *` array). NULL is allowed only with len 0.
///
/// # Safety
/// `p` points to `len` initialised `mpz_t` (see [`view`]).
pub(crate) unsafe fn views_of_array<'a>(p: *const mpz_t, len: usize, what: &str) -> Result<Vec<IntRef<'a>>> {
    MpzIn::Array(p).views(len, what)
}

/// Views of the `len` elements of `a` and the largest bit size among them (found in the same pass;
/// long arrays in gpmp's pool, into pooled vectors). NULL arrays are allowed only with len 0; a
/// pointer array may not hold NULL.
///
/// # Safety
/// `a` has `len` elements, each an initialised `mpz_t` (see [`view`]).
pub(crate) unsafe fn views_and_bits<'a>(a: MpzIn, len: usize, what: &str) -> Result<(Vec<IntRef<'a>>, u64)> {
    if len == 0 {
        return Ok((Vec::new(), 0));
    }
    if a.is_null() {
        return invalid!("{what} is NULL but its length is {len}");
    }
    check_len(len, what)?;
    let get = |i: usize| {
        let z = a.at(i);
        if z.is_null() {
            return invalid!("{what}[{i}] is NULL");
        }
        Ok(view(z))
    };
    if len < PARALLEL_LEN {
        let v = (0..len).map(get).collect::<Result<Vec<IntRef>>>()?;
        let bits = crate::int::max_bits(&v);
        return Ok((v, bits));
    }
    let mut v: Vec<IntRef<'a>> = pooled_views();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory(format!("{what}: views of {len} elements")))?;
    const GRAIN: usize = 1 << 12;
    let spare = &mut v.spare_capacity_mut()[..len];
    let a = SendIn(a);
    let bits = crate::runtime::install(|| {
        spare
            .par_chunks_mut(GRAIN)
            .enumerate()
            .try_fold(
                || 0u64,
                |bits, (c, chunk)| {
                    let mut bits = bits;
                    for (j, slot) in chunk.iter_mut().enumerate() {
                        let i = c * GRAIN + j;
                        // SAFETY: as above; the workers only read distinct elements.
                        let z = unsafe { a.get().at(i) };
                        if z.is_null() {
                            return invalid!("{what}[{i}] is NULL");
                        }
                        let x = unsafe { view(z) };
                        bits = bits.max(x.bits());
                        slot.write(x);
                    }
                    Ok(bits)
                },
            )
            .try_reduce(|| 0, |x, y| Ok(x.max(y)))
    });
    let bits = match bits {
        Ok(b) => b,
        Err(e) => {
            recycle_views(v);
            return Err(e);
        }
    };
    // SAFETY: the first len slots were all written above.
    v.set_len(len);
    Ok((v, bits))
}

/// [`MpzIn`] crossing to gpmp's workers (which only read distinct elements).
#[derive(Clone, Copy)]
struct SendIn(MpzIn);
// SAFETY: read-only access to distinct elements.
unsafe impl Send for SendIn {}
unsafe impl Sync for SendIn {}
impl SendIn {
    fn get(self) -> MpzIn {
        self.0
    }
}

/// Empty view vectors kept for reuse, at most [`POOL_SLOTS`] of [`PARALLEL_LEN`] to
/// [`POOL_MAX_LEN`] elements: their pages stay mapped, where a fresh vector of 2^20 views (24 MiB)
/// costs a page fault every 4 KiB on every call.
static VIEW_POOL: std::sync::Mutex<Vec<Vec<IntRef<'static>>>> = std::sync::Mutex::new(Vec::new());
const POOL_SLOTS: usize = 2;
const POOL_MAX_LEN: usize = 1 << 23;

/// The largest pooled vector, or a new one.
fn pooled_views() -> Vec<IntRef<'static>> {
    VIEW_POOL.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
}

/// Gives the vector of views back to the pool (see [`VIEW_POOL`]); its views end here.
pub(crate) fn recycle_views(v: Vec<IntRef>) {
    if v.capacity() < PARALLEL_LEN || v.capacity() > POOL_MAX_LEN {
        return;
    }
    let mut v = std::mem::ManuallyDrop::new(v);
    v.clear();
    // SAFETY: the same allocation, empty, so no view outlives its lifetime.
    let v = unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<IntRef<'static>>(), 0, v.capacity()) };
    let mut pool = VIEW_POOL.lock().unwrap_or_else(|e| e.into_inner());
    pool.push(v);
    pool.sort_by_key(|v| v.capacity());
    if pool.len() > POOL_SLOTS {
        pool.remove(0);
    }
}

/// Arrays from this many elements are viewed, and size-checked before writing, in gpmp's pool (a
/// serial pass costs milliseconds per million elements: the GPU product's whole budget).
const PARALLEL_LEN: usize = 1 << 15;

fn check_len(len: usize, what: &str) -> Result<()> {
    if len > isize::MAX as usize / std::mem::size_of::<mpz_t>() {
        return Err(Error::SizeTooLarge(format!("{what}: length {len} is too large")));
    }
    Ok(())
}

/// The slots of an `mpz_t *` array (NULL slots when the array is NULL, for [`check_slots`]).
pub(crate) fn array_slots(h: *mut mpz_t) -> impl Fn(usize) -> *mut mpz_t + Sync + Copy {
    MpzOut::Array(h).slots()
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
    write_bounded(h.len(), h.stride(), |i| h.get(i), slot)
}

/// Writes a GPU product left in host memory (pinned: no [`ZSlab`] in between) into the `mpz_t`
/// given by `slot(i)`, i < p.len() (see [`write_ints`]).
///
/// # Safety
/// As [`write_ints`].
pub(crate) unsafe fn write_product(p: &mut HostProduct, slot: impl Fn(usize) -> *mut mpz_t + Sync) -> Result<()> {
    let (len, stride) = (p.len(), p.stride());
    let (mags, neg) = p.parts()?;
    write_bounded(len, stride, |i| HostProduct::coef(mags, neg, stride, i), slot)
}

/// [`write_ints`] for values of at most `max_limbs` limbs. Within GMP's size limit nothing can
/// fail, so one parallel pass copies every value whose `mpz_t` is large enough and collects the
/// others; those are grown on the caller's thread and copied after (one pass over the outputs
/// instead of two when they were used before).
///
/// # Safety
/// As [`write_ints`].
pub(crate) unsafe fn write_bounded<'a>(
    len: usize,
    max_limbs: usize,
    get: impl Fn(usize) -> IntRef<'a> + Sync,
    slot: impl Fn(usize) -> *mut mpz_t + Sync,
) -> Result<()> {
    if max_limbs > i32::MAX as usize {
        return write_ints(len, get, slot);
    }
    let (get, slot) = (&get, &slot);
    // Copies element i when its mpz_t has room; true when it must grow first.
    let try_copy = |i: usize| {
        let v = get(i);
        let z = slot(i);
        // SAFETY: distinct initialised mpz per i (the caller's contract); written only with room.
        unsafe {
            if ((*z).alloc as usize) < v.mag.len() {
                return true;
            }
            set_value(z, v);
        }
        false
    };
    let todo: Vec<usize> = if len < SERIAL_COPY_LEN {
        (0..len).filter(|&i| try_copy(i)).collect()
    } else {
        crate::runtime::install(|| (0..len).into_par_iter().with_min_len(1024).filter(|&i| try_copy(i)).collect())
    };
    for &i in &todo {
        gmp::mpz_limbs_write(slot(i), get(i).mag.len() as _);
        set_value(slot(i), get(i));
    }
    Ok(())
}

/// Copies v into the `mpz_t` z.
///
/// # Safety
/// z is an initialised `mpz_t` with room for v's limbs, not borrowed by v.
unsafe fn set_value(z: *mut mpz_t, v: IntRef) {
    if !v.mag.is_empty() {
        std::ptr::copy_nonoverlapping(v.mag.as_ptr(), (*z).d.as_ptr(), v.mag.len());
    }
    let n = v.mag.len() as i32;
    (*z).size = if v.neg { -n } else { n };
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
    // SAFETY: distinct mpz per i, capacity ensured in pass 1.
    let copy = |i: usize| unsafe { set_value(slot(i), get(i)) };
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
    use crate::testing::{poly, views, Rng};

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

    /// `len` initialised mpz_t: every third with room for 5 limbs, every third holding a 2-limb
    /// value, the rest fresh (no room).
    unsafe fn outputs(len: usize) -> Vec<mpz_t> {
        let mut z: Vec<std::mem::MaybeUninit<mpz_t>> = (0..len).map(|_| std::mem::MaybeUninit::uninit()).collect();
        for (i, x) in z.iter_mut().enumerate() {
            match i % 3 {
                0 => gmp::mpz_init2(x.as_mut_ptr(), 64 * 5),
                1 => gmp::mpz_init_set_si(x.as_mut_ptr(), -(1 << 62)),
                _ => gmp::mpz_init(x.as_mut_ptr()),
            }
            if i % 3 == 1 {
                gmp::mpz_mul_2exp(x.as_mut_ptr(), x.as_ptr(), 70);
            }
        }
        z.into_iter().map(|x| x.assume_init()).collect()
    }

    /// The one-pass writer (`write_bounded`, through `write_product` from a product in host
    /// memory, and `write_slab`) on both sides of SERIAL_COPY_LEN: values with high zero limbs,
    /// zero, "negative zero" (sign byte set, magnitude 0), all-ones limbs, into mpz_t with and
    /// without room; the GMP values equal the expected ones.
    #[test]
    fn host_products_write_every_value() {
        let mut rng = Rng(79);
        for len in [1usize, 7, SERIAL_COPY_LEN + 5, PARALLEL_LEN + 1] {
            let stride = 4;
            let mut p = HostProduct::new(None, len, stride, 0).unwrap();
            let mut want = Vec::with_capacity(len);
            {
                let (mags, neg) = p.parts_mut().unwrap();
                for i in 0..len {
                    let m = &mut mags[i * stride..(i + 1) * stride];
                    let used = (i * 7 + rng.below(3) as usize) % (stride + 1);
                    for (t, l) in m.iter_mut().enumerate() {
                        *l = if t >= used {
                            0
                        } else if i % 5 == 0 {
                            u64::MAX
                        } else {
                            rng.next() | 1
                        };
                    }
                    neg[i] = u8::from(rng.below(2) == 1 || used == 0);
                    let v = IntRef::new(neg[i] != 0, m);
                    want.push((v.neg, v.mag.to_vec()));
                }
            }
            let mut slab = ZSlab::zeros(len, stride).unwrap();
            for (i, (n, m)) in want.iter().enumerate() {
                slab.set(i, *n, m);
            }
            // SAFETY: initialised and cleared here; distinct slots.
            unsafe {
                for from_slab in [false, true] {
                    let mut z = outputs(len);
                    let base = SendPtr(z.as_mut_ptr());
                    if from_slab {
                        write_slab(&slab, move |i| base.get().add(i)).unwrap();
                    } else {
                        write_product(&mut p, move |i| base.get().add(i)).unwrap();
                    }
                    for (i, x) in z.iter_mut().enumerate() {
                        let v = view(x);
                        assert_eq!((v.neg, v.mag.to_vec()), want[i], "len {len}, element {i}, slab {from_slab}");
                        gmp::mpz_clear(x);
                    }
                }
            }
        }
    }

    /// gpmp_poly_mul with h the same array as f, under AUTO (on the GPU from 2^16 output words
    /// when one is usable, through `write_product`): lengths across the 2^20-coefficient staging
    /// chunk and the GPU threshold, mixed signs, against the CPU product and the GMP oracle.
    #[cfg(feature = "gpu-tests")]
    #[test]
    fn c_api_products_alias_their_inputs() {
        use crate::testing::slab_coefs;
        use crate::zpoly::{self, Alg};
        let mut rng = Rng(83);
        for &(fl, gl, bits) in &[(300usize, 400usize, 3000u64), ((1 << 20) + 5, 3, 64), (40_000, 30_000, 100), (5000, 5000, 1)] {
            let f = poly(&mut rng, fl, bits, 2);
            let g = poly(&mut rng, gl, bits, 0);
            let (fv, gv) = (views(&f), views(&g));
            assert!(zpoly::gpu_wanted(&fv, &gv, crate::runtime::Backend::Gpu).unwrap());
            let want = if fl * gl <= 1 << 20 {
                crate::testing::oracle(&fv, &gv)
            } else {
                slab_coefs(&zpoly::mul(&fv, &gv, Alg::SmallPrimeNtt).unwrap())
            };
            let hlen = fl + gl - 1;
            // SAFETY: initialised and cleared here.
            unsafe {
                let mut h = outputs(hlen);
                let mut gz = outputs(gl);
                for (i, (n, m)) in f.iter().enumerate() {
                    gmp::mpz_import(&mut h[i], m.len(), -1, 8, 0, 0, m.as_ptr().cast());
                    if *n {
                        gmp::mpz_neg(&mut h[i], &h[i]);
                    }
                }
                for (i, (n, m)) in g.iter().enumerate() {
                    gmp::mpz_import(&mut gz[i], m.len(), -1, 8, 0, 0, m.as_ptr().cast());
                    if *n {
                        gmp::mpz_neg(&mut gz[i], &gz[i]);
                    }
                }
                let hp = h.as_mut_ptr();
                let st = crate::ffi::poly::gpmp_poly_mul(hp, hp, fl, gz.as_ptr(), gl);
                assert_eq!(st, crate::ffi::gpmp_status::GPMP_SUCCESS, "{fl} x {gl}");
                for (i, x) in h.iter_mut().enumerate() {
                    let v = view(x);
                    assert_eq!((v.neg, v.mag.to_vec()), want[i], "{fl} x {gl}, {bits} bits: coefficient {i}");
                    gmp::mpz_clear(x);
                }
                for x in gz.iter_mut() {
                    gmp::mpz_clear(x);
                }
            }
        }
    }
}
