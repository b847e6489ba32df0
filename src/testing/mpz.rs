//! GMP integers for the oracles (on the test's own thread): [`Mpz`] owns one (cleared on drop),
//! [`MpzView`] reads a borrowed magnitude without copying (GMP's `MPZ_ROINIT_N`).
use gmp_mpfr_sys::gmp;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// An owned, initialised `mpz_t`.
pub struct Mpz(pub(crate) gmp::mpz_t);

// SAFETY: an mpz_t owns its limbs (malloc'd by GMP); GMP's read-only functions are thread-safe.
unsafe impl Send for Mpz {}
unsafe impl Sync for Mpz {}

impl Mpz {
    /// Zero.
    pub fn new() -> Self {
        let mut z = MaybeUninit::uninit();
        // SAFETY: mpz_init initialises z.
        unsafe {
            gmp::mpz_init(z.as_mut_ptr());
            Mpz(z.assume_init())
        }
    }

    pub fn as_ptr(&self) -> *const gmp::mpz_t {
        &self.0
    }

    pub fn as_mut_ptr(&mut self) -> *mut gmp::mpz_t {
        &mut self.0
    }

    /// Sign (true when negative).
    pub fn neg(&self) -> bool {
        self.0.size < 0
    }

    /// Magnitude limbs (no high zero limb).
    pub fn mag(&self) -> &[u64] {
        // SAFETY: d holds |size| initialised limbs while self lives.
        unsafe { std::slice::from_raw_parts(self.0.d.as_ptr(), self.0.size.unsigned_abs() as usize) }
    }
}

impl Default for Mpz {
    fn default() -> Self {
        Mpz::new()
    }
}

impl Drop for Mpz {
    fn drop(&mut self) {
        // SAFETY: initialised in new.
        unsafe { gmp::mpz_clear(&mut self.0) }
    }
}

/// A read-only `mpz_t` over borrowed limbs: pass it only as a source operand.
pub struct MpzView<'a>(gmp::mpz_t, PhantomData<&'a [u64]>);

// SAFETY: a view only reads borrowed limbs, which are Sync.
unsafe impl Send for MpzView<'_> {}
unsafe impl Sync for MpzView<'_> {}

impl<'a> MpzView<'a> {
    /// (−1)^neg · mag; mag must have fewer than 2^31 limbs (GMP's size field).
    pub fn new(neg: bool, mag: &'a [u64]) -> Self {
        let mag = crate::int::normalized(mag);
        let n = i32::try_from(mag.len()).expect("MpzView: more than 2^31 limbs");
        let d = NonNull::new(mag.as_ptr() as *mut u64).unwrap_or(NonNull::dangling());
        MpzView(gmp::mpz_t { alloc: 0, size: if neg { -n } else { n }, d }, PhantomData)
    }

    pub fn as_ptr(&self) -> *const gmp::mpz_t {
        &self.0
    }
}
