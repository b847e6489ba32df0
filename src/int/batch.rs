//! Element-wise arithmetic on batches of signed integers (the CPU path of `gpmp_mpz_*_n` and
//! `gpmp_zvec_*`): rayon over elements, GMP's `mpn` layer per element (`mpz_powm` for powers).
//!
//! Each kernel takes equal-length slices of views and returns a [`ZList`] whose slot i is sized by a
//! bound computed from the input sizes (limbs): a ± b: max(la, lb) + 1; a·b: la + lb;
//! r + a·b: max(lr, la + lb) + 1; anything mod m: lm. The modular kernels reduce any signed value
//! into [0, m) (m > 1): t mod m = t − m·⌊t/m⌋.
use super::{normalized, IntRef, MpzView, ZList, Mpz};
use crate::{invalid, Error, Result};
use gmp_mpfr_sys::gmp;
use rayon::prelude::*;
use std::cmp::Ordering;

/// Elements per rayon task for the cheap kernels (serial below); `powm` uses [`POWM_GRAIN`].
const GRAIN: usize = 256;
const POWM_GRAIN: usize = 4;

/// Per-thread scratch: a value and a quotient buffer, and a GMP integer for `mpz_powm`.
#[derive(Default)]
struct Scratch {
    t: Vec<u64>,
    q: Vec<u64>,
    z: Mpz,
}

/// `v` resized to `n` zero limbs (fallible).
fn zeroed(v: &mut Vec<u64>, n: usize) -> Result<&mut [u64]> {
    v.clear();
    v.try_reserve(n).map_err(|_| Error::OutOfMemory(format!("cannot allocate {n} limbs")))?;
    v.resize(n, 0);
    Ok(v)
}

fn check_lens(what: &str, lens: &[usize]) -> Result<usize> {
    if lens.windows(2).any(|w| w[0] != w[1]) {
        return invalid!("{what}: operand lengths differ ({lens:?})");
    }
    Ok(lens[0])
}

/// m > 1, as a normalized magnitude.
fn modulus<'a>(m: IntRef<'a>) -> Result<&'a [u64]> {
    if m.neg || m.mag.is_empty() || m.mag == [1] {
        return invalid!("the modulus must be > 1");
    }
    Ok(m.mag)
}

/// Runs `f(i, slot, scratch) -> sign` for every element i < n in parallel (grain `grain`), slot i
/// holding `cap(i)` zero limbs.
fn run(
    n: usize,
    grain: usize,
    cap: impl Fn(usize) -> usize,
    f: impl Fn(usize, &mut [u64], &mut Scratch) -> Result<bool> + Sync,
) -> Result<ZList> {
    let mut out = ZList::zeros((0..n).map(cap))?;
    out.par_rows_mut()?
        .enumerate()
        .with_min_len(grain)
        .try_for_each_init(Scratch::default, |s, (i, (slot, sign))| {
            *sign = f(i, slot, s)?;
            Ok(())
        })?;
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
fn mul_into(out: &mut [u64], x: IntRef, y: IntRef) -> bool {
    if x.is_zero() || y.is_zero() {
        return false;
    }
    let (a, b) = if x.mag.len() >= y.mag.len() { (x.mag, y.mag) } else { (y.mag, x.mag) };
    // SAFETY: out has ≥ la + lb limbs, no overlap with a, b; la ≥ lb ≥ 1.
    unsafe {
        if std::ptr::eq(a, b) {
            gmp::mpn_sqr(out.as_mut_ptr(), a.as_ptr(), a.len() as _);
        } else {
            gmp::mpn_mul(out.as_mut_ptr(), a.as_ptr(), a.len() as _, b.as_ptr(), b.len() as _);
        }
    }
    x.neg != y.neg
}

/// out ← t mod m ∈ \[0, m) for t = (−1)^neg·|t|; out has |m| limbs, `q` is scratch.
fn reduce_into(out: &mut [u64], neg: bool, t: &[u64], m: &[u64], q: &mut Vec<u64>) -> Result<()> {
    let t = normalized(t);
    let ml = m.len();
    if t.len() < ml {
        out[..t.len()].copy_from_slice(t);
        out[t.len()..].fill(0);
    } else {
        let q = zeroed(q, t.len() - ml + 1)?;
        // SAFETY: q has tl − ml + 1 limbs, out ml; no overlap; m's top limb is nonzero.
        unsafe {
            gmp::mpn_tdiv_qr(q.as_mut_ptr(), out.as_mut_ptr(), 0, t.as_ptr(), t.len() as _, m.as_ptr(), ml as _)
        };
    }
    if neg && out.iter().any(|&l| l != 0) {
        // SAFETY: out and m have ml limbs; GMP allows rp == s2p; |t| mod m < m so no borrow.
        unsafe { gmp::mpn_sub_n(out.as_mut_ptr(), m.as_ptr(), out.as_ptr(), ml as _) };
    }
    Ok(())
}

/// r\[i\] = a\[i\] + b\[i\].
pub fn add(a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("add", &[a.len(), b.len()])?;
    run(n, GRAIN, |i| a[i].mag.len().max(b[i].mag.len()) + 1, |i, o, _| Ok(add_into(o, a[i], b[i])))
}

/// r\[i\] = a\[i\] − b\[i\].
pub fn sub(a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("sub", &[a.len(), b.len()])?;
    run(n, GRAIN, |i| a[i].mag.len().max(b[i].mag.len()) + 1, |i, o, _| Ok(add_into(o, a[i], neg(b[i]))))
}

/// r\[i\] = a\[i\]·b\[i\].
pub fn mul(a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("mul", &[a.len(), b.len()])?;
    run(n, GRAIN, |i| a[i].mag.len() + b[i].mag.len(), |i, o, _| Ok(mul_into(o, a[i], b[i])))
}

/// r\[i\] = c\[i\] + a\[i\]·b\[i\].
pub fn addmul(c: &[IntRef], a: &[IntRef], b: &[IntRef]) -> Result<ZList> {
    let n = check_lens("addmul", &[c.len(), a.len(), b.len()])?;
    run(
        n,
        GRAIN,
        |i| c[i].mag.len().max(a[i].mag.len() + b[i].mag.len()) + 1,
        |i, o, s| {
            let t = zeroed(&mut s.t, a[i].mag.len() + b[i].mag.len())?;
            let sign = mul_into(t, a[i], b[i]);
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
    let m = modulus(m)?;
    run(n, GRAIN, |_| m.len(), |i, o, s| {
        let y = if sub { neg(b[i]) } else { b[i] };
        let t = zeroed(&mut s.t, a[i].mag.len().max(y.mag.len()) + 1)?;
        let sign = add_into(t, a[i], y);
        reduce_into(o, sign, t, m, &mut s.q)?;
        Ok(false)
    })
}

/// r\[i\] = a\[i\]·b\[i\] mod m.
pub fn mulmod(a: &[IntRef], b: &[IntRef], m: IntRef) -> Result<ZList> {
    let n = check_lens("mulmod", &[a.len(), b.len()])?;
    let m = modulus(m)?;
    run(n, GRAIN, |_| m.len(), |i, o, s| {
        let t = zeroed(&mut s.t, a[i].mag.len() + b[i].mag.len())?;
        let sign = mul_into(t, a[i], b[i]);
        reduce_into(o, sign, t, m, &mut s.q)?;
        Ok(false)
    })
}

/// r\[i\] = base\[i\]^exp\[i\] mod m, exp\[i\] ≥ 0, by GMP's `mpz_powm` (Montgomery sliding window for
/// odd m; for even m = 2^k·m', CRT of the odd part and the power of two).
pub fn powm(base: &[IntRef], exp: &[IntRef], m: IntRef) -> Result<ZList> {
    let n = check_lens("powm", &[base.len(), exp.len()])?;
    let mag = modulus(m)?;
    if let Some(i) = exp.iter().position(|e| e.neg) {
        return invalid!("powm: exponent {i} is negative");
    }
    let mv = MpzView::new(false, mag);
    run(n, POWM_GRAIN, |_| mag.len(), |i, o, s| {
        let (b, e) = (MpzView::new(base[i].neg, base[i].mag), MpzView::new(false, exp[i].mag));
        // SAFETY: s.z is an owned initialised mpz; the views are read-only sources; m > 1.
        unsafe { gmp::mpz_powm(s.z.as_mut_ptr(), b.as_ptr(), e.as_ptr(), mv.as_ptr()) };
        let r = s.z.mag();
        o[..r.len()].copy_from_slice(r);
        Ok(false)
    })
}
