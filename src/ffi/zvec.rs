//! `gpmp_zvec`: a batch of n signed integers of at most `bits` bits kept inside gpmp, for chains of
//! element-wise operations without conversions (word-major layout, see `ops::zvec::ZVec`: device memory
//! with the GPU backend, or with AUTO for large vectors when a GPU is usable; host memory
//! otherwise). Every operation that would not fit its destination
//! returns `GPMP_SIZE_TOO_LARGE` and changes nothing; r may be a or b.
use super::gpmp_status;
use super::mpz::{check_slots, mpz_ptr, mpz_srcptr, mpz_t, write_list, MpzIn, MpzOut};
use super::mpz_n::view_arg;
use super::status::{guard, guard_value};
use crate::ops::zvec::ZVec;
use crate::{invalid, runtime, Result};

/// Opaque batch of integers (`typedef struct gpmp_zvec gpmp_zvec;`).
///
/// Device zvec operations are asynchronous: `gpmp_zvec_add`, `_sub`, `_mul`, `_mulmod`, `_powm`
/// and `gpmp_zvec_new` return once their work is queued on the device (one stream per device, so
/// the work runs in call order); `gpmp_zvec_set_mpz` and `gpmp_zvec_get_mpz` wait for all work
/// queued before them. A status returned by an operation covers its arguments and what could be
/// checked when it was queued (a result that does not fit its destination is checked at once
/// unless the destination's bits make every result fit). A failure of the queued work on the
/// device is returned by the next call that waits (`gpmp_zvec_get_mpz`, `gpmp_zvec_set_mpz`,
/// `gpmp_zvec_sync`), its message naming the first operation queued since the previous wait that
/// was not yet complete. `GPMP_SYNC=1` makes every operation wait for its own work (for
/// debugging). Host zvecs (CPU backend, small vectors under AUTO) are synchronous.
pub struct gpmp_zvec(ZVec);

/// Waits for every queued zvec operation and returns the first device failure seen since the
/// previous `gpmp_zvec_sync` (`GPMP_CUDA_ERROR`, `gpmp_last_error` naming the operation), then
/// forgets it; `GPMP_SUCCESS` when there was none, and when no zvec lives on a device.
#[no_mangle]
pub extern "C" fn gpmp_zvec_sync() -> gpmp_status {
    guard("gpmp_zvec_sync", crate::ops::zvec::sync)
}

/// A zvec of n zeros of up to `bits` bits each, or NULL (out of memory, too large; see
/// `gpmp_last_error`). Free it with `gpmp_zvec_free`.
#[no_mangle]
pub extern "C" fn gpmp_zvec_new(n: usize, bits: usize) -> *mut gpmp_zvec {
    guard_value("gpmp_zvec_new", std::ptr::null_mut(), || {
        let v = runtime::install(|| ZVec::zeros(n, bits as u64))?;
        Ok(Box::into_raw(Box::new(gpmp_zvec(v))))
    })
}

/// Frees a zvec (NULL is allowed).
///
/// # Safety
/// v is NULL or from `gpmp_zvec_new`, not freed before.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_free(v: *mut gpmp_zvec) {
    if !v.is_null() {
        drop(Box::from_raw(v));
    }
}

/// The zvec behind a pointer.
unsafe fn zvec<'a>(v: *const gpmp_zvec, what: &str) -> Result<&'a ZVec> {
    if v.is_null() {
        return invalid!("{what} is NULL");
    }
    Ok(&(*v).0)
}

/// The body of `gpmp_zvec_set_mpz` and its `_ptr` twin.
unsafe fn set_mpz(name: &str, v: *mut gpmp_zvec, a: MpzIn, n: usize) -> gpmp_status {
    guard(name, || {
        zvec(v, "v")?;
        let a = a.views(n, "a")?;
        let v = &mut (*v).0;
        runtime::install(|| v.set(&a))
    })
}

/// The body of `gpmp_zvec_get_mpz` and its `_ptr` twin.
unsafe fn get_mpz(name: &str, a: MpzOut, v: *const gpmp_zvec, n: usize) -> gpmp_status {
    guard(name, || {
        let v = zvec(v, "v")?;
        if n != v.len() {
            return invalid!("n = {n} but the zvec has {} integers", v.len());
        }
        let out = a.slots();
        check_slots(n, "a", &out)?;
        let l = runtime::install(|| v.to_list())?;
        write_list(&l, out)
    })
}

/// v\[i\] = a\[i\] for i < n; n must be v's length; `GPMP_SIZE_TOO_LARGE` (v unchanged) when an
/// element exceeds v's bits.
///
/// # Safety
/// v from `gpmp_zvec_new`; a points to n initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_set_mpz(v: *mut gpmp_zvec, a: *const mpz_t, n: usize) -> gpmp_status {
    set_mpz("gpmp_zvec_set_mpz", v, MpzIn::Array(a), n)
}

/// `gpmp_zvec_set_mpz` from an array of pointers.
///
/// # Safety
/// v from `gpmp_zvec_new`; a points to n pointers to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_set_mpz_ptr(v: *mut gpmp_zvec, a: *const mpz_srcptr, n: usize) -> gpmp_status {
    set_mpz("gpmp_zvec_set_mpz_ptr", v, MpzIn::Ptrs(a), n)
}

/// a\[i\] = v\[i\] for i < n; n must be v's length.
///
/// # Safety
/// v from `gpmp_zvec_new`; a points to n initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_get_mpz(a: *mut mpz_t, v: *const gpmp_zvec, n: usize) -> gpmp_status {
    get_mpz("gpmp_zvec_get_mpz", MpzOut::Array(a), v, n)
}

/// `gpmp_zvec_get_mpz` into an array of pointers (the a\[i\] distinct).
///
/// # Safety
/// v from `gpmp_zvec_new`; a points to n pointers to initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_get_mpz_ptr(a: *mut mpz_ptr, v: *const gpmp_zvec, n: usize) -> gpmp_status {
    get_mpz("gpmp_zvec_get_mpz_ptr", MpzOut::Ptrs(a), v, n)
}

/// r = op(r, a, b): the new contents of r, computed from shared borrows of r, a and b (which may
/// be the same), then installed in r.
unsafe fn binary(
    name: &str,
    r: *mut gpmp_zvec,
    a: *const gpmp_zvec,
    b: *const gpmp_zvec,
    op: impl FnOnce(&ZVec, &ZVec, &ZVec) -> Result<ZVec> + Send,
) -> gpmp_status {
    guard(name, || {
        let res = {
            let (rv, av, bv) = (zvec(r, "r")?, zvec(a, "a")?, zvec(b, "b")?);
            runtime::install(|| op(rv, av, bv))?
        };
        (*r).0 = res;
        Ok(())
    })
}

/// r = a + b element-wise.
///
/// # Safety
/// r, a, b from `gpmp_zvec_new` (possibly the same).
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_add(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec) -> gpmp_status {
    binary("gpmp_zvec_add", r, a, b, ZVec::add)
}

/// r = a − b element-wise.
///
/// # Safety
/// As `gpmp_zvec_add`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_sub(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec) -> gpmp_status {
    binary("gpmp_zvec_sub", r, a, b, ZVec::sub)
}

/// r = a·b element-wise; r needs bits ≥ a.bits + b.bits (else `GPMP_SIZE_TOO_LARGE`).
///
/// # Safety
/// As `gpmp_zvec_add`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_mul(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec) -> gpmp_status {
    binary("gpmp_zvec_mul", r, a, b, ZVec::mul)
}

/// r = a·b mod m element-wise, m > 1.
///
/// # Safety
/// As `gpmp_zvec_add`; m points to an initialised `mpz_t`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_mulmod(r: *mut gpmp_zvec, a: *const gpmp_zvec, b: *const gpmp_zvec, m: mpz_srcptr) -> gpmp_status {
    let mv = view_arg(m, "m");
    binary("gpmp_zvec_mulmod", r, a, b, |r, a, b| ZVec::mulmod(r, a, b, mv?))
}

/// r = base^exp mod m element-wise, m > 1, exp ≥ 0.
///
/// # Safety
/// As `gpmp_zvec_mulmod`.
#[no_mangle]
pub unsafe extern "C" fn gpmp_zvec_powm(r: *mut gpmp_zvec, base: *const gpmp_zvec, exp: *const gpmp_zvec, m: mpz_srcptr) -> gpmp_status {
    let mv = view_arg(m, "m");
    binary("gpmp_zvec_powm", r, base, exp, |r, a, b| ZVec::powm(r, a, b, mv?))
}

#[cfg(all(test, feature = "gpu-tests"))]
mod tests {
    use super::*;
    use crate::testing::{coef, Rng};
    use gmp_mpfr_sys::gmp;
    use std::mem::MaybeUninit;

    /// n initialised `mpz_t` (cleared on drop).
    struct Arr(Vec<mpz_t>);

    impl Arr {
        fn new(n: usize) -> Self {
            // SAFETY: mpz_init initialises each.
            Arr((0..n)
                .map(|_| unsafe {
                    let mut z = MaybeUninit::uninit();
                    gmp::mpz_init(z.as_mut_ptr());
                    z.assume_init()
                })
                .collect())
        }

        /// n integers of at most `bits` bits: random, all ones, powers of two, zero, ±1.
        fn random(rng: &mut Rng, n: usize, bits: u64) -> Self {
            let mut a = Arr::new(n);
            for z in a.0.iter_mut() {
                let (neg, mag) = match rng.below(5) {
                    4 => (rng.next() & 1 == 1, vec![1]),
                    k => {
                        let b = rng.below(bits + 1);
                        coef(rng, b, k)
                    }
                };
                // SAFETY: writes mag.len() limbs into an initialised mpz_t.
                unsafe {
                    let d = gmp::mpz_limbs_write(z, mag.len().max(1) as _);
                    std::ptr::copy_nonoverlapping(mag.as_ptr(), d, mag.len());
                    let s = crate::int::normalized(&mag).len() as gmp::size_t;
                    gmp::mpz_limbs_finish(z, if neg { -s } else { s });
                }
            }
            a
        }

        fn ptr(&self) -> *const mpz_t {
            self.0.as_ptr()
        }
    }

    impl Drop for Arr {
        fn drop(&mut self) {
            for z in self.0.iter_mut() {
                // SAFETY: initialised in new.
                unsafe { gmp::mpz_clear(z) }
            }
        }
    }

    fn same(x: &Arr, y: &Arr) -> bool {
        // SAFETY: initialised mpz_t.
        x.0.len() == y.0.len() && x.0.iter().zip(&y.0).all(|(a, b)| unsafe { gmp::mpz_cmp(a, b) } == 0)
    }

    fn new_on(n: usize, bits: u64, device: bool) -> *mut gpmp_zvec {
        Box::into_raw(Box::new(gpmp_zvec(ZVec::zeros_on(n, bits, device).unwrap())))
    }

    fn get(v: *const gpmp_zvec, n: usize) -> Arr {
        let mut a = Arr::new(n);
        // SAFETY: v from new_on, a holds n mpz_t.
        assert_eq!(unsafe { gpmp_zvec_get_mpz(a.0.as_mut_ptr(), v, n) }, gpmp_status::GPMP_SUCCESS);
        a
    }

    /// The C API on device-resident zvecs gives the statuses and integers of host zvecs, for every
    /// operation (mulmod and powm with odd and even m), with aliasing, overflow (SIZE_TOO_LARGE,
    /// destination unchanged) and too-wide elements.
    #[test]
    fn device_zvecs_match_host_zvecs_through_the_c_api() {
        let mut rng = Rng(31);
        for (n, bits) in [(1usize, 64u64), (100, 300), (2048, 1024), (513, 2100)] {
            let (x, y) = (Arr::random(&mut rng, n, bits), Arr::random(&mut rng, n, bits));
            let mut e = Arr::random(&mut rng, n, 40);
            let mut m = Arr::random(&mut rng, 2, bits);
            // SAFETY: initialised mpz_t throughout.
            unsafe {
                for z in e.0.iter_mut() {
                    gmp::mpz_abs(z, z);
                }
                gmp::mpz_abs(&mut m.0[0], &m.0[0]);
                gmp::mpz_setbit(&mut m.0[0], bits - 1);
                gmp::mpz_setbit(&mut m.0[0], 0);
                gmp::mpz_set(&mut m.0[1], &m.0[0]);
                gmp::mpz_clrbit(&mut m.0[1], 0);
            }
            let mut outs: Vec<Vec<(gpmp_status, Arr)>> = Vec::new();
            for device in [false, true] {
                let (a, b, ex) = (new_on(n, bits, device), new_on(n, bits, device), new_on(n, 64, device));
                let (s, p) = (new_on(n, bits + 1, device), new_on(n, 2 * bits, device));
                let mut got = Vec::new();
                // SAFETY: zvecs from new_on, arrays of n mpz_t.
                unsafe {
                    let mut rec = |st: gpmp_status, v: *const gpmp_zvec| got.push((st, get(v, n)));
                    rec(gpmp_zvec_set_mpz(a, x.ptr(), n), a);
                    rec(gpmp_zvec_set_mpz(b, y.ptr(), n), b);
                    rec(gpmp_zvec_set_mpz(ex, e.ptr(), n), ex);
                    rec(gpmp_zvec_add(s, a, b), s);
                    rec(gpmp_zvec_sub(s, a, b), s);
                    rec(gpmp_zvec_sub(s, b, a), s);
                    rec(gpmp_zvec_mul(p, a, b), p);
                    rec(gpmp_zvec_mul(p, b, b), p);
                    rec(gpmp_zvec_mul(a, a, b), a); // too narrow: unchanged
                    rec(gpmp_zvec_add(s, s, s), s); // may overflow
                    rec(gpmp_zvec_add(s, s, s), s);
                    rec(gpmp_zvec_sub(s, s, s), s); // zeros
                    rec(gpmp_zvec_add(a, a, b), a); // may overflow
                    rec(gpmp_zvec_sub(b, a, b), b);
                    for mi in 0..2 {
                        rec(gpmp_zvec_mulmod(p, a, b, &m.0[mi]), p);
                        rec(gpmp_zvec_powm(s, a, ex, &m.0[mi]), s);
                    }
                    rec(gpmp_zvec_set_mpz(ex, x.ptr(), n), ex); // too wide unless bits ≤ 64
                    for v in [a, b, ex, s, p] {
                        gpmp_zvec_free(v);
                    }
                }
                outs.push(got);
            }
            assert_eq!(outs[0].len(), outs[1].len());
            for (k, (h, d)) in outs[0].iter().zip(&outs[1]).enumerate() {
                assert_eq!(h.0, d.0, "n={n} bits={bits} step {k}: status");
                assert!(same(&h.1, &d.1), "n={n} bits={bits} step {k}: values");
            }
            assert!(outs[0].iter().any(|r| r.0 == gpmp_status::GPMP_SIZE_TOO_LARGE));
        }
    }
}
