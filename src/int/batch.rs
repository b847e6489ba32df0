//! Element-wise arithmetic on batches of signed integers (the CPU path of `gpmp_mpz_*_n` and
//! `gpmp_zvec_*`): rayon over elements; per element GMP's `mpn` additions, [`mul_into`] products,
//! [`Divisor`] remainders and [`PowmModulus`] powers, none of which reaches the host's GMP memory
//! functions from a worker thread ([`super::mpn`]). The modulus is prepared once per batch.
//!
//! Each kernel takes equal-length slices of views and returns a [`ZList`] whose slot i is sized by a
//! bound computed from the input sizes (limbs): a ± b: max(la, lb) + 1; a·b: la + lb;
//! r + a·b: max(lr, la + lb) + 1; anything mod m: lm. The modular kernels reduce any signed value
//! into [0, m) (m > 1): t mod m = t − m·⌊t/m⌋.
use super::{mul_into, Divisor, IntRef, PowmModulus, PowmScratch, ZList};
use crate::interrupt::Current;
use crate::{invalid, Error, Result};
use gmp_mpfr_sys::gmp;
use rayon::prelude::*;
use std::cmp::Ordering;

/// Elements per rayon task for the cheap kernels (serial below); `powm` uses [`POWM_GRAIN`].
const GRAIN: usize = 256;
const POWM_GRAIN: usize = 4;

/// Per-thread scratch: a value and a quotient buffer, and the buffers of a power.
#[derive(Default)]
struct Scratch {
    t: Vec<u64>,
    q: Vec<u64>,
    powm: PowmScratch,
}

/// `v` resized to `n` zero limbs (fallible).
fn zeroed(v: &mut Vec<u64>, n: usize) -> Result<&mut [u64]> {
    v.clear();
    v.try_reserve(n).map_err(|_| Error::OutOfMemory(format!("cannot allocate {n} limbs")))?;
    v.resize(n, 0);
    Ok(v)
}

pub(crate) fn check_lens(what: &str, lens: &[usize]) -> Result<usize> {
    if lens.windows(2).any(|w| w[0] != w[1]) {
        return invalid!("{what}: operand lengths differ ({lens:?})");
    }
    Ok(lens[0])
}

/// m > 1, as a normalized magnitude.
pub(crate) fn modulus<'a>(m: IntRef<'a>) -> Result<&'a [u64]> {
    if m.neg || m.mag.is_empty() || m.mag == [1] {
        return invalid!("the modulus must be > 1");
    }
    Ok(m.mag)
}

/// Elements between two interrupt checks of a batch (one atomic load per check).
const CHECK_EVERY: usize = 16;

/// Elements whose slot has at least this many limbs (products of 2^15 bits and more, tens of
/// microseconds and up) run inside the running call ([`Current::enter`]), so that the checkpoints of
/// their own products and transforms, on whichever worker thread runs them, see a stop.
const ENTER_MIN_LIMBS: usize = 512;

/// Runs `f(i, slot, scratch, call) -> sign` for every element i < n in parallel (grain `grain`), slot
/// i holding `cap(i)` zero limbs; checks for a stop every [`CHECK_EVERY`] elements and before every
/// large one (`Err(Interrupted)`, nothing returned).
fn run(
    n: usize,
    grain: usize,
    cap: impl Fn(usize) -> usize,
    f: impl Fn(usize, &mut [u64], &mut Scratch, &Current) -> Result<bool> + Sync,
) -> Result<ZList> {
    let cur = crate::interrupt::current();
    let mut out = ZList::zeros((0..n).map(cap))?;
    out.par_rows_mut()?.enumerate().with_min_len(grain).try_for_each_init(Scratch::default, |s, (i, row)| {
        let large = row.mag.len() >= ENTER_MIN_LIMBS;
        if large || i % CHECK_EVERY == 0 {
            cur.check()?;
        }
        let neg = if large { cur.enter(|| f(i, row.mag, s, &cur))? } else { f(i, row.mag, s, &cur)? };
        row.finish(neg);
        Ok(())
    })?;
    cur.check()?;
    Ok(out)
}

/// |x| vs |y| (normalized magnitudes).
fn cmp_mag(x: &[u64], y: &[u64]) -> Ordering {
    x.len().cmp(&y.len()).then_with(|| {
        // SAFETY: both have x.len() limbs.
        let c = unsafe { gmp::mpn_cmp(x.as_ptr(), y.as_ptr(), x.len() as _) };
        c.cmp(&0)
    })
}

/// out ← x + y; out (zeroed) has at least max(|x|, |y|) + 1 limbs. Returns the sign.
fn add_into(out: &mut [u64], x: IntRef, y: IntRef) -> bool {
    let (x, y) = if x.mag.len() >= y.mag.len() { (x, y) } else { (y, x) };
    let (xl, yl) = (x.mag.len(), y.mag.len());
    if yl == 0 {
        out[..xl].copy_from_slice(x.mag);
        return x.neg;
    }
    // SAFETY: out has ≥ xl + 1 limbs and does not overlap x, y; xl ≥ yl ≥ 1.
    unsafe {
        if x.neg == y.neg {
            out[xl] = gmp::mpn_add(out.as_mut_ptr(), x.mag.as_ptr(), xl as _, y.mag.as_ptr(), yl as _);
            return x.neg;
        }
        let (big, small) = match cmp_mag(x.mag, y.mag) {
            Ordering::Equal => return false,
            Ordering::Greater => (x, y),
            Ordering::Less => (y, x),
        };
        let (bl, sl) = (big.mag.len(), small.mag.len());
        gmp::mpn_sub(out.as_mut_ptr(), big.mag.as_ptr(), bl as _, small.mag.as_ptr(), sl as _);
        big.neg
    }
}

/// out ← x·y; out (zeroed) has at least |x| + |y| limbs. Returns the sign.
fn mul_signed(out: &mut [u64], x: IntRef, y: IntRef) -> Result<bool> {
    if x.is_zero() || y.is_zero() {
        return Ok(false);
    }
    mul_into(&mut out[..x.mag.len() + y.mag.len()], x.mag, y.mag)?;
    Ok(x.neg != y.neg)
}

/// out ← t mod m ∈ \[0, m) for t = (−1)^neg·|t|; out has |m| limbs, `q` is scratch.
fn reduce_into(out: &mut [u64], neg: bool, t: &[u64], m: &Divisor, q: &mut Vec<u64>) -> Result<()> {
    m.rem_into(out, t, q)?;
    if neg && out.iter().any(|&l| l != 0) {
        let m = m.modulus();
        // SAFETY: out and m have m.len() limbs; GMP allows rp == s2p; |t| mod m < m so no borrow.
        unsafe { gmp::mpn_sub_n(out.as_mut_ptr(), m.as_ptr(), out.as_ptr(), m.len() as _) };
    }
    Ok(())
}

/// r\[i\] = a\[i\] + b\[i\].
pub fn add(a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("add", &[a.len(), b.len()])?;
    run(n, GRAIN, |i| a[i].mag.len().max(b[i].mag.len()) + 1, |i, o, _, _| Ok(add_into(o, a[i], b[i])))
}

/// r\[i\] = a\[i\] − b\[i\].
pub fn sub(a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("sub", &[a.len(), b.len()])?;
    run(n, GRAIN, |i| a[i].mag.len().max(b[i].mag.len()) + 1, |i, o, _, _| Ok(add_into(o, a[i], neg(b[i]))))
}

/// r\[i\] = a\[i\]·b\[i\].
pub fn mul(a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("mul", &[a.len(), b.len()])?;
    run(n, GRAIN, |i| a[i].mag.len() + b[i].mag.len(), |i, o, _, _| mul_signed(o, a[i], b[i]))
}

/// r\[i\] = c\[i\] + a\[i\]·b\[i\].
pub fn addmul(c: &[IntRef], a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("addmul", &[c.len(), a.len(), b.len()])?;
    run(
        n,
        GRAIN,
        |i| c[i].mag.len().max(a[i].mag.len() + b[i].mag.len()) + 1,
        |i, o, s, _| {
            let t = zeroed(&mut s.t, a[i].mag.len() + b[i].mag.len())?;
            let sign = mul_signed(t, a[i], b[i])?;
            Ok(add_into(o, c[i], IntRef::new(sign, t)))
        },
    )
}

fn neg(x: IntRef) -> IntRef {
    IntRef { neg: !x.neg && !x.is_zero(), mag: x.mag }
}

/// r\[i\] = (a\[i\] + b\[i\]) mod m.
pub fn addmod(a: &[IntRef], b: &[IntRef], m: IntRef) -> Result<ZList> {
    aors_mod("addmod", a, b, m, false)
}

/// r\[i\] = (a\[i\] − b\[i\]) mod m.
pub fn submod(a: &[IntRef], b: &[IntRef], m: IntRef) -> Result<ZList> {
    aors_mod("submod", a, b, m, true)
}

fn aors_mod(what: &str, a: &[IntRef], b: &[IntRef], m: IntRef, sub: bool) -> Result<ZList> {
    let n = check_lens(what, &[a.len(), b.len()])?;
    let longest = (0..n).map(|i| a[i].mag.len().max(b[i].mag.len()) + 1).max().unwrap_or(0);
    let m = Divisor::new(modulus(m)?, longest)?;
    run(
        n,
        GRAIN,
        |_| m.modulus().len(),
        |i, o, s, _| {
            let y = if sub { neg(b[i]) } else { b[i] };
            let t = zeroed(&mut s.t, a[i].mag.len().max(y.mag.len()) + 1)?;
            let sign = add_into(t, a[i], y);
            reduce_into(o, sign, t, &m, &mut s.q)?;
            Ok(false)
        },
    )
}

/// r\[i\] = a\[i\]·b\[i\] mod m.
pub fn mulmod(a: &[IntRef], b: &[IntRef], m: IntRef) -> Result<ZList> {
    let n = check_lens("mulmod", &[a.len(), b.len()])?;
    let longest = (0..n).map(|i| a[i].mag.len() + b[i].mag.len()).max().unwrap_or(0);
    let m = Divisor::new(modulus(m)?, longest)?;
    run(
        n,
        GRAIN,
        |_| m.modulus().len(),
        |i, o, s, _| {
            let t = zeroed(&mut s.t, a[i].mag.len() + b[i].mag.len())?;
            let sign = mul_signed(t, a[i], b[i])?;
            reduce_into(o, sign, t, &m, &mut s.q)?;
            Ok(false)
        },
    )
}

/// Every exponent ≥ 0.
pub(crate) fn check_exponents(exp: &[IntRef]) -> Result<()> {
    match exp.iter().position(|e| e.neg) {
        Some(i) => invalid!("powm: exponent {i} is negative"),
        None => Ok(()),
    }
}

/// r\[i\] = base\[i\]^exp\[i\] mod m, exp\[i\] ≥ 0 ([`PowmModulus`]: sliding windows, Montgomery's
/// reduction for small odd m, GMP's quotients or Barrett's reduction otherwise).
pub fn powm(base: &[IntRef], exp: &[IntRef], m: IntRef) -> Result<ZList> {
    let n = check_lens("powm", &[base.len(), exp.len()])?;
    let mag = modulus(m)?;
    check_exponents(exp)?;
    let longest = base.iter().map(|b| b.mag.len()).max().unwrap_or(0);
    let pm = PowmModulus::new(mag, longest)?;
    run(
        n,
        POWM_GRAIN,
        |_| mag.len(),
        |i, o, s, cur| {
            pm.powm_into(o, base[i], exp[i].mag, &mut s.powm, cur)?;
            Ok(false)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{coef, views, Coef, Mpz as Z, Rng};
    use gmp_mpfr_sys::gmp::mpz_t;

    /// A batch of n integers of mixed sizes 1..=max_bits: random, all-ones limbs (±(2^64k − 1)),
    /// powers of two, zeros, ±1, and the values in `extra`.
    fn batch(rng: &mut Rng, n: usize, max_bits: u64, extra: &[Coef]) -> Vec<Coef> {
        (0..n)
            .map(|i| match rng.below(8) {
                _ if i < extra.len() => extra[i].clone(),
                6 => (rng.below(2) == 1, vec![1]),
                7 => {
                    let b = 64 * (1 + rng.below(max_bits.div_ceil(64)));
                    coef(rng, b, 1)
                }
                k => {
                    let b = 1 + rng.below(max_bits);
                    coef(rng, b, k % 4)
                }
            })
            .collect()
    }

    fn from(c: IntRef) -> Z {
        Z::from_coef(c)
    }

    /// Asserts r\[i\] = want(i) for every i.
    fn check(what: &str, r: &ZList, want: impl Fn(usize, &mut Z)) {
        for i in 0..r.len() {
            let mut w = Z::new();
            want(i, &mut w);
            let got = r.get(i);
            assert_eq!((got.neg, got.mag.to_vec()), w.to_coef(), "{what}: element {i}");
        }
    }

    type Op2 = unsafe extern "C" fn(*mut mpz_t, *const mpz_t, *const mpz_t);

    fn oracle2(op: Op2, x: IntRef, y: IntRef, w: &mut Z) {
        let (a, b) = (from(x), from(y));
        unsafe { op(&mut w.0, &a.0, &b.0) }
    }

    fn moduli(rng: &mut Rng) -> Vec<Coef> {
        let mut m: Vec<Coef> = vec![
            (false, vec![2]),
            (false, vec![3]),
            (false, vec![0, 1]),               // 2^64
            (false, vec![0, 1 << 36]),         // 2^100
            (false, vec![u64::MAX, u64::MAX]), // 2^128 − 1
            (false, vec![1000]),               // even
        ];
        for bits in [64, 65, 256, 1000, 4096] {
            let (_, mut c) = coef(rng, bits, 0);
            *c.last_mut().unwrap() |= 1 << ((bits - 1) % 64);
            m.push((false, c.clone()));
            c[0] |= 1;
            m.push((false, c));
        }
        m
    }

    #[test]
    fn plain_ops_match_gmp() {
        let mut rng = Rng(5);
        for n in [0, 1, 2, 300, 700] {
            let (a, b, c) = (batch(&mut rng, n, 8192, &[]), batch(&mut rng, n, 8192, &[]), batch(&mut rng, n, 8192, &[]));
            let (a, b, c) = (views(&a), views(&b), views(&c));
            check("add", &add(&a, &b).unwrap(), |i, w| oracle2(gmp::mpz_add, a[i], b[i], w));
            check("sub", &sub(&a, &b).unwrap(), |i, w| oracle2(gmp::mpz_sub, a[i], b[i], w));
            check("sub self", &sub(&a, &a).unwrap(), |_, _| {});
            check("mul", &mul(&a, &b).unwrap(), |i, w| oracle2(gmp::mpz_mul, a[i], b[i], w));
            check("sqr", &mul(&a, &a).unwrap(), |i, w| oracle2(gmp::mpz_mul, a[i], a[i], w));
            check("addmul", &addmul(&c, &a, &b).unwrap(), |i, w| {
                *w = from(c[i]);
                let (x, y) = (from(a[i]), from(b[i]));
                unsafe { gmp::mpz_addmul(&mut w.0, &x.0, &y.0) }
            });
        }
        assert!(add(&views(&batch(&mut rng, 2, 64, &[])), &[]).is_err());
    }

    #[test]
    fn modular_ops_match_gmp() {
        let mut rng = Rng(6);
        for m in moduli(&mut rng) {
            let mv = IntRef::new(m.0, &m.1);
            let mut m1 = from(mv);
            unsafe { gmp::mpz_sub_ui(&mut m1.0, &m1.0, 1) };
            let mut neg_m1 = from(mv);
            unsafe { gmp::mpz_neg(&mut neg_m1.0, &m1.0) };
            let edges = [m1.to_coef(), neg_m1.to_coef(), m.clone(), (true, m.1.clone())];
            let n = 200;
            let (a, b) = (batch(&mut rng, n, 8192, &edges), batch(&mut rng, n, 8192, &edges[1..]));
            let (a, b) = (views(&a), views(&b));
            let reduce = |w: &mut Z| unsafe { gmp::mpz_mod(&mut w.0, &w.0, &from(mv).0) };
            check("addmod", &addmod(&a, &b, mv).unwrap(), |i, w| {
                oracle2(gmp::mpz_add, a[i], b[i], w);
                reduce(w)
            });
            check("submod", &submod(&a, &b, mv).unwrap(), |i, w| {
                oracle2(gmp::mpz_sub, a[i], b[i], w);
                reduce(w)
            });
            check("mulmod", &mulmod(&a, &b, mv).unwrap(), |i, w| {
                oracle2(gmp::mpz_mul, a[i], b[i], w);
                reduce(w)
            });
            check("sqrmod", &mulmod(&a, &a, mv).unwrap(), |i, w| {
                oracle2(gmp::mpz_mul, a[i], a[i], w);
                reduce(w)
            });
            // powm against square-and-multiply with mpz_mul/mpz_mod; exponents up to 300 bits.
            let mut e = batch(&mut rng, 40, 300, &[(false, vec![]), (false, vec![1]), m1.to_coef()]);
            e.iter_mut().for_each(|c| c.0 = false);
            let ev = views(&e);
            let base = &a[..40];
            check("powm", &powm(base, &ev, mv).unwrap(), |i, w| {
                unsafe { gmp::mpz_set_ui(&mut w.0, 1) };
                reduce(w);
                let bm = {
                    let mut t = from(base[i]);
                    unsafe { gmp::mpz_mod(&mut t.0, &t.0, &from(mv).0) };
                    t
                };
                for k in (0..ev[i].bits()).rev() {
                    unsafe { gmp::mpz_mul(&mut w.0, &w.0, &w.0) };
                    if ev[i].mag[(k / 64) as usize] >> (k % 64) & 1 == 1 {
                        unsafe { gmp::mpz_mul(&mut w.0, &w.0, &bm.0) };
                    }
                    reduce(w);
                }
            });
        }
    }

    #[test]
    fn bad_moduli_and_exponents_are_rejected() {
        let a = [IntRef::new(false, &[5])];
        for m in [IntRef::ZERO, IntRef::new(false, &[1]), IntRef::new(true, &[7]), IntRef::new(true, &[1])] {
            assert!(matches!(addmod(&a, &a, m), Err(Error::InvalidArgument(_))));
            assert!(matches!(submod(&[], &[], m), Err(Error::InvalidArgument(_))));
            assert!(matches!(mulmod(&a, &a, m), Err(Error::InvalidArgument(_))));
            assert!(matches!(powm(&a, &a, m), Err(Error::InvalidArgument(_))));
        }
        let e = [IntRef::new(true, &[3])];
        assert!(matches!(powm(&a, &e, IntRef::new(false, &[7])), Err(Error::InvalidArgument(_))));
    }
}
