//! The last step at a leaf of the subdivision: from the node polynomial q of an interval (a, b) with
//! exactly one simple root, an interval of the caller's coordinates that holds the root, lies
//! strictly inside (a, b) (so that intervals of neighbouring leaves never touch), has dyadic
//! endpoints and, when asked, a width ≤ 2^−prec; or the root itself when it is a dyadic point met
//! on the way.
//!
//! **Signs.** P(x) = p(a + (b − a)·x) up to a constant, so the sign of p at t = a + (b − a)·λ is
//! the sign of P at λ, i.e. of Σ P_i·N^i·2^(R(d−i)) for λ = N/2^R. P is the local expansion of p
//! about the leaf, whose other roots lie at least about a leaf's width away, so a double-precision
//! Horner sum with an a-priori error bound decides almost every sign ([`Evaluator::sign`]): with u = 2^−53, coefficients rounded to
//! ĉ_i = q_i/2^E (E the largest size), x rounded to x̃, and S = Σ |ĉ_i|·x̃^i, the computed value v
//! differs from the exact scaled value by at most γ_2d·S (Horner, [Higham] §5.1) + 2u·S
//! (coefficients) + 3u·d·(1 + 3u)^d·S (the point) + (d + 2)·2^−1020 (underflow), below
//! 8(d + 2)·u·S + (d + 2)·2^−1020 for d·u < 2^−20; when |v| is not above that, the same sum in
//! double-double arithmetic (about 106 bits) is tried, and then the exact sum decides. For x > 1 the
//! reversed polynomial is summed at 1/x.
//!
//! **Bisection.** λ-intervals (J/2^r, (J + 1)/2^r) are halved by the sign at the midpoint compared
//! with the sign at a⁺ (the sign of q_0) until they are strictly inside (0, 1) and narrow enough.
//! For the square-root map (roots of h(y) with f(x) = h(x²)) the final interval is
//! [⌈√t_lo⌉, ⌊√t_hi⌋] on a dyadic grid fine enough to leave room, accepted once the signs of h at
//! its squared endpoints show the root between them.
use crate::int::{mag_bits, mpn, Int, IntRef, ZSlab};
use crate::interrupt::Current;
use crate::Result;
use gmp_mpfr_sys::gmp;

/// A dyadic number (−1)^neg · mag · 2^exp (mag normalized; zero is mag empty, exp 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dyadic {
    pub neg: bool,
    pub mag: Vec<u64>,
    pub exp: i64,
}

impl Dyadic {
    /// mag·2^exp with the trailing zero bits of mag moved into the exponent.
    pub fn new(neg: bool, mag: Vec<u64>, exp: i64) -> Self {
        let mut m = Int::from_ref(IntRef::new(neg, &mag));
        if m.is_zero() {
            return Dyadic { neg: false, mag: Vec::new(), exp: 0 };
        }
        let tz = trailing_zeros(&m.mag);
        if tz > 0 {
            m.mag = shr(&m.mag, tz);
        }
        Dyadic { neg: m.neg, mag: m.mag, exp: exp + tz as i64 }
    }

    /// −self.
    pub fn neg(&self) -> Self {
        Dyadic { neg: !self.neg && !self.mag.is_empty(), mag: self.mag.clone(), exp: self.exp }
    }
}

/// What a leaf (or a split point) yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The root is this dyadic number.
    Point(Dyadic),
    /// The root lies strictly between these.
    Interval(Dyadic, Dyadic),
    /// Under the square-root map: the root is √t for this dyadic t, irrational; its interval is
    /// chosen between its neighbours' once the list is complete.
    SqrtOf(Dyadic),
}

impl Found {
    /// The root √t of an exact root t of h (the square-root map): a point when t is a square.
    pub fn sqrt_of(t: Dyadic) -> Found {
        match sqrt_exact(&t) {
            Some(x) => Found::Point(x),
            None => Found::SqrtOf(t),
        }
    }

    /// The image under x ↦ −x (endpoints swapped).
    pub fn mirror(&self) -> Found {
        match self {
            Found::Point(x) => Found::Point(x.neg()),
            Found::Interval(lo, hi) => Found::Interval(hi.neg(), lo.neg()),
            // Only counted (pending roots are resolved before the mirror images of real answers).
            Found::SqrtOf(t) => Found::SqrtOf(t.clone()),
        }
    }
}

/// How the roots of the isolated polynomial map to the caller's: x = t, or x = √t (for f(x) = h(x²)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Map {
    Identity,
    Sqrt,
}

/// A node polynomial prepared for sign evaluation.
pub struct Evaluator<'a> {
    q: Vec<IntRef<'a>>,
    /// q_i = m_i·2^(e_i) with m_i (signed) of magnitude in [1/2, 1), rounded to a double.
    coef: Vec<(f64, i64)>,
    /// The same mantissas as double-double numbers, built on first use.
    dd: std::sync::OnceLock<Vec<Dd>>,
}

const U: f64 = 1.0 / 9007199254740992.0; // 2^−53

impl<'a> Evaluator<'a> {
    pub fn new(q: &'a ZSlab) -> Self {
        let q = q.views();
        let coef = q
            .iter()
            .map(|v| {
                let e = v.bits() as i64;
                (to_f64(v.mag, e) * if v.neg { -1.0 } else { 1.0 }, e)
            })
            .collect();
        Evaluator { q, coef, dd: std::sync::OnceLock::new() }
    }

    /// The sign of the constant coefficient (the sign near the left end a).
    pub fn sign_at_left(&self) -> i32 {
        signum(self.q[0])
    }

    /// The sign of Σ q_i·n^i·m^(d−i) for naturals n, m > 0 (the sign of q at x = n/m).
    pub fn sign(&self, n: &[u64], m: &[u64], cur: &Current) -> Result<i32> {
        if let Some(s) = self.sign_filtered(n, m) {
            return Ok(s);
        }
        if let Some(s) = self.sign_double_double(n, m) {
            return Ok(s);
        }
        self.sign_exact(n, m, cur)
    }

    /// The filter again in double-double arithmetic (about 106 bits): coefficients and the point
    /// rounded with relative errors below 2^−104, each step of Horner's scheme with relative error
    /// below 2^−102 ([JMP17]: the accurate double-word sum and a double-word product), so the
    /// computed value is within (d + 2)·2^−98·S of the exact one (S = Σ |q_i|·x^i, generous).
    fn sign_double_double(&self, n: &[u64], m: &[u64]) -> Option<i32> {
        let d = self.coef.len() - 1;
        let c = self.dd.get_or_init(|| self.q.iter().map(|v| Dd::from_mag(v.mag, v.bits() as i64, v.neg)).collect());
        let (x, small) = ratio(n, m)?;
        let xf = x.0;
        let (mut v, mut ev) = (Dd(0.0, 0.0), i64::MIN);
        let mut s = Ext::ZERO;
        let mut step = |i: usize| {
            let (ci, ei) = (c[i], self.coef[i].1);
            v = v.mul(x);
            // v·2^ev + ci·2^ei at the larger exponent
            if ci.0 != 0.0 {
                if ev == i64::MIN || ei > ev {
                    v = v.scale(pow2(ev.saturating_sub(ei).max(-2000))).add(ci);
                    ev = ei;
                } else {
                    v = v.add(ci.scale(pow2((ei - ev).max(-2000))));
                }
            }
            if v.0 != 0.0 && (v.0.abs() < pow2(-200) || v.0.abs() > pow2(200)) {
                let k = exponent(v.0);
                v = v.scale(pow2(-k));
                ev += k;
            }
            s = s.mul(xf).add(ci.0.abs(), ei);
        };
        if small {
            (0..=d).rev().for_each(&mut step);
        } else {
            (0..=d).for_each(&mut step);
        }
        decide(Ext { v: v.0 + v.1, e: if ev == i64::MIN { 0 } else { ev } }, s, (d as f64 + 2.0) * pow2(-98))
    }

    fn sign_filtered(&self, n: &[u64], m: &[u64]) -> Option<i32> {
        let d = self.coef.len() - 1;
        let (x, small) = ratio(n, m)?;
        let x = x.0 + x.1;
        let mut v = Ext::ZERO;
        let mut s = Ext::ZERO;
        let mut step = |&(c, e): &(f64, i64)| {
            v = v.mul(x).add(c, e);
            s = s.mul(x).add(c.abs(), e);
        };
        if small {
            self.coef.iter().rev().for_each(&mut step);
        } else {
            self.coef.iter().for_each(&mut step);
        }
        decide(v, s, 8.0 * (d as f64 + 2.0) * U)
    }

    /// Σ q_i·n^i·m^(d−i) exactly (Horner with the powers of m alongside).
    pub fn sign_exact(&self, n: &[u64], m: &[u64], cur: &Current) -> Result<i32> {
        let d = self.q.len() - 1;
        let (nn, mm) = (Int { neg: false, mag: n.to_vec() }, Int { neg: false, mag: m.to_vec() });
        let mut acc = Int::from_ref(self.q[d]);
        let mut pw = Int::from_u64(1);
        for i in (0..d).rev() {
            cur.check()?;
            acc = acc.mul(&nn)?;
            pw = pw.mul(&mm)?;
            if !self.q[i].is_zero() {
                let t = Int::from_ref(self.q[i]).mul(&pw)?;
                acc = acc.add(t.view());
            }
        }
        Ok(acc.signum())
    }
}

/// The final result of a leaf: q the node polynomial P of (a, b) = (c·2^e, (c + 1)·2^e) (its roots in
/// (0, 1) those of p in (a, b)) with exactly one root there, simple, and none at the ends;
/// `prec` the requested width 2^−prec (None: isolation only), `map` the coordinates of the result.
pub fn finish_leaf(q: &ZSlab, c: &[u64], e: i64, prec: Option<i64>, map: Map, cur: &Current) -> Result<Found> {
    let ev = Evaluator::new(q);
    let s0 = ev.sign_at_left();
    debug_assert!(s0 != 0);
    // λ-interval (j/2^r, (j + 1)/2^r), holding the root.
    let mut j = Int::default();
    let mut r: u64 = 0;
    loop {
        cur.check()?;
        let inside = r >= 2 && !j.is_zero() && !is_last(&j, r);
        if inside {
            let done = match map {
                Map::Identity => prec.is_none_or(|p| r as i64 >= e + p),
                Map::Sqrt => false,
            };
            if done {
                let lo = shl_add(c, r, &j.mag, 0);
                let hi = shl_add(c, r, &j.mag, 1);
                return Ok(Found::Interval(Dyadic::new(false, lo, e - r as i64), Dyadic::new(false, hi, e - r as i64)));
            }
            if map == Map::Sqrt {
                if let Some(f) = sqrt_interval(&ev, s0, c, e, &j.mag, r, prec, cur)? {
                    return Ok(f);
                }
            }
        }
        // Midpoint λ = (2j + 1)/2^(r+1).
        let mid = j.shl(1).add(IntRef::new(false, &[1]));
        let s = sign_at_lambda(&ev, &mid.mag, r + 1, cur)?;
        if s == 0 {
            let t = Dyadic::new(false, shl_add(c, r + 1, &mid.mag, 0), e - r as i64 - 1);
            return Ok(match map {
                Map::Identity => Found::Point(t),
                Map::Sqrt => Found::sqrt_of(t),
            });
        }
        j = if s == s0 { mid } else { j.shl(1) };
        r += 1;
    }
}

/// The sign of P at λ = n/2^r (0 < n < 2^r): of Σ P_i·n^i·2^(r(d−i)).
fn sign_at_lambda(ev: &Evaluator, n: &[u64], r: u64, cur: &Current) -> Result<i32> {
    ev.sign(n, &Int::from_u64(1).shl(r).mag, cur)
}

/// For the square-root map: with the root of h in t ∈ (t_lo, t_hi) (λ = j/2^r), an interval
/// [X_lo, X_hi] = [⌈√t_lo⌉, ⌊√t_hi⌋] on the grid 2^−ρ, when the signs of h at X_lo² and X_hi²
/// show the root between them and the width is small enough; `None` to bisect further.
#[allow(clippy::too_many_arguments)] // the leaf's state, passed through
fn sqrt_interval(ev: &Evaluator, s0: i32, c: &[u64], e: i64, j: &[u64], r: u64, prec: Option<i64>, cur: &Current) -> Result<Option<Found>> {
    let lo = shl_add(c, r, j, 0); // t_lo = lo·2^(e−r)
    let hi = shl_add(c, r, j, 1);
    // Grid step about (√t_hi − √t_lo)/8 ≈ 2^(e−r)/(16·√t_hi).
    let log_t = mag_bits(&hi) as i64 + e - r as i64;
    let mut rho = r as i64 - e + 4 + (log_t + 1).div_euclid(2) + 1;
    rho = rho.max((r as i64 - e + 1).div_euclid(2) + 1).max((-e + 1).div_euclid(2) + 1);
    let sh = (e - r as i64 + 2 * rho) as u64; // t·2^(2ρ) = lo·2^sh
    let (xl, xl_exact) = sqrt_floor(&Int { neg: false, mag: lo.clone() }.shl(sh).mag);
    let xl = if xl_exact { xl } else { Int { neg: false, mag: xl }.add(IntRef::new(false, &[1])).mag };
    let (xh, _) = sqrt_floor(&Int { neg: false, mag: hi }.shl(sh).mag);
    if crate::int::cmp_mag(&xl, &xh) != std::cmp::Ordering::Less {
        return Ok(None);
    }
    if let Some(p) = prec {
        // X_hi − X_lo ≤ 2^−prec ⟺ (xh − xl) ≤ 2^(ρ − prec).
        let w = Int { neg: false, mag: xh.clone() }.add(IntRef::new(true, &xl));
        let lim = rho - p;
        if lim < 0 || (mag_bits(&w.mag) as i64) > lim {
            return Ok(None);
        }
    }
    // λ(X²) = (X²·2^(2ρ) − c·2^(e+2ρ)) / 2^(e+2ρ).
    let rr = (e + 2 * rho) as u64;
    let base = Int { neg: false, mag: c.to_vec() }.shl(rr);
    let lam = |x: &[u64]| -> Result<Vec<u64>> {
        let xx = Int { neg: false, mag: x.to_vec() };
        Ok(xx.mul(&xx)?.add(IntRef::new(true, &base.mag)).mag)
    };
    let (nl, nh) = (lam(&xl)?, lam(&xh)?);
    let sl = sign_at_lambda(ev, &nl, rr, cur)?;
    let sr = sign_at_lambda(ev, &nh, rr, cur)?;
    if sl == 0 {
        return Ok(Some(Found::Point(Dyadic::new(false, xl, -rho))));
    }
    if sr == 0 {
        return Ok(Some(Found::Point(Dyadic::new(false, xh, -rho))));
    }
    if sl == s0 && sr == -s0 {
        return Ok(Some(Found::Interval(Dyadic::new(false, xl, -rho), Dyadic::new(false, xh, -rho))));
    }
    Ok(None)
}

/// √t for a dyadic t that is the square of a dyadic, else None.
pub fn sqrt_exact(t: &Dyadic) -> Option<Dyadic> {
    let (mag, exp) = if t.exp % 2 == 0 { (t.mag.clone(), t.exp) } else { (Int { neg: false, mag: t.mag.clone() }.shl(1).mag, t.exp - 1) };
    let (s, exact) = sqrt_floor(&mag);
    exact.then(|| Dyadic::new(false, s, exp / 2))
}

/// (⌊√x⌋, whether x is a square) for a natural x, on any thread: GMP's `mpn_sqrtrem` within its
/// stack bound ([`mpn::sqrtrem`]), Newton's iteration s ← ⌊(s + ⌊x/s⌋)/2⌋ from s = 2^⌈bits/2⌉ ≥ √x
/// above (it decreases to ⌊√x⌋ and stops there, [MCA] Algorithm 9.22).
pub fn sqrt_floor(x: &[u64]) -> (Vec<u64>, bool) {
    let x = crate::int::normalized(x);
    if x.is_empty() {
        return (Vec::new(), true);
    }
    let n = x.len();
    if n <= mpn::GMP_SQRTREM_MAX_LIMBS {
        let mut s = vec![0u64; n.div_ceil(2)];
        let mut rem = vec![0u64; n];
        let rn = mpn::sqrtrem(&mut s, &mut rem, x);
        let n = crate::int::normalized(&s).len();
        s.truncate(n);
        return (s, rn == 0);
    }
    let xi = Int { neg: false, mag: x.to_vec() };
    let mut s = Int::from_u64(1).shl(mag_bits(x).div_ceil(2));
    loop {
        let (q, _) = xi.div_rem(&s).expect("square root scratch");
        let t = s.add(q.view()).shr(1);
        if t >= s {
            break;
        }
        s = t;
    }
    let exact = s.mul(&s).expect("square root scratch") == xi;
    (s.mag, exact)
}

/// Whether j = 2^r − 1.
fn is_last(j: &Int, r: u64) -> bool {
    let k = j.add(IntRef::new(false, &[1]));
    mag_bits(&k.mag) == r + 1 && trailing_zeros(&k.mag) == r
}

/// c·2^r + j + add.
fn shl_add(c: &[u64], r: u64, j: &[u64], add: u64) -> Vec<u64> {
    let t = Int { neg: false, mag: crate::int::normalized(c).to_vec() }.shl(r).add(IntRef::new(false, crate::int::normalized(j)));
    if add == 0 {
        t.mag
    } else {
        t.add(IntRef::new(false, &[add])).mag
    }
}

fn signum(v: IntRef) -> i32 {
    if v.is_zero() {
        0
    } else if v.neg {
        -1
    } else {
        1
    }
}

/// Number of trailing zero bits of a nonzero magnitude.
pub fn trailing_zeros(m: &[u64]) -> u64 {
    let i = m.iter().position(|&l| l != 0).unwrap_or(0);
    i as u64 * 64 + m.get(i).map_or(0, |l| l.trailing_zeros() as u64)
}

/// m >> s (s < bits of m).
pub fn shr(m: &[u64], s: u64) -> Vec<u64> {
    let (limbs, bits) = ((s / 64) as usize, (s % 64) as u32);
    let src = &m[limbs.min(m.len())..];
    let mut r = src.to_vec();
    if bits > 0 && !r.is_empty() {
        // SAFETY: in-place right shift of r.len() ≥ 1 limbs.
        unsafe { gmp::mpn_rshift(r.as_mut_ptr(), r.as_ptr(), r.len() as _, bits) };
    }
    let n = crate::int::normalized(&r).len();
    r.truncate(n);
    r
}

/// The mantissa of a nonzero magnitude as a double in [1/2, 1) (rounded from its top 64 bits).
pub fn top_bits(mag: &[u64]) -> f64 {
    to_f64(mag, mag_bits(mag) as i64)
}

/// mag·2^−shift as a double (rounded; 0 when far below the double range).
fn to_f64(mag: &[u64], shift: i64) -> f64 {
    let bits = mag_bits(mag) as i64;
    if bits == 0 {
        return 0.0;
    }
    let top = if bits <= 64 {
        mag[0]
    } else {
        let s = (bits - 64) as u64;
        let (l, b) = ((s / 64) as usize, (s % 64) as u32);
        if b == 0 {
            mag[l]
        } else {
            (mag[l] >> b) | (mag.get(l + 1).copied().unwrap_or(0) << (64 - b))
        }
    };
    let ex = (bits - 64).max(0) - shift;
    (top as f64) * pow2(ex)
}

/// A double with a separate exponent, v·2^e, kept in range by rescaling: Horner's scheme on it has
/// relative error u per operation and never underflows (a term below 2^−1000 of the other is
/// dropped, an error far below u).
#[derive(Clone, Copy, Debug)]
struct Ext {
    v: f64,
    e: i64,
}

impl Ext {
    const ZERO: Ext = Ext { v: 0.0, e: 0 };

    fn mul(self, x: f64) -> Ext {
        Ext { v: self.v * x, e: self.e }.normalized()
    }

    /// self + c·2^e.
    fn add(self, c: f64, e: i64) -> Ext {
        if c == 0.0 {
            return self;
        }
        if self.v == 0.0 {
            return Ext { v: c, e }.normalized();
        }
        if e > self.e {
            Ext { v: self.v * pow2((self.e - e).max(-2000)) + c, e }.normalized()
        } else {
            Ext { v: self.v + c * pow2((e - self.e).max(-2000)), e: self.e }.normalized()
        }
    }

    fn normalized(self) -> Ext {
        if self.v == 0.0 || (self.v.abs() >= pow2(-200) && self.v.abs() <= pow2(200)) {
            return self;
        }
        let k = exponent(self.v);
        Ext { v: self.v * pow2(-k), e: self.e + k }
    }
}

/// The binary exponent k of a finite nonzero x (x·2^−k in [1, 2)).
fn exponent(x: f64) -> i64 {
    let b = ((x.to_bits() >> 52) & 0x7ff) as i64;
    if b == 0 {
        // subnormal
        exponent(x * pow2(600)) - 600
    } else {
        b - 1023
    }
}

/// x = n/m if n ≤ m (small = true), else m/n, as a double-double in (0, 1]; None when it is below
/// 2^−900 (the exact evaluation decides then).
fn ratio(n: &[u64], m: &[u64]) -> Option<(Dd, bool)> {
    let (nb, mb) = (mag_bits(n) as i64, mag_bits(m) as i64);
    let small = crate::int::cmp_mag(n, m) != std::cmp::Ordering::Greater;
    let (num, den, nbits, dbits) = if small { (n, m, nb, mb) } else { (m, n, mb, nb) };
    let ex = nbits - dbits;
    if ex < -900 {
        return None;
    }
    let x = Dd::from_mag(num, nbits, false).div(Dd::from_mag(den, dbits, false)).scale(pow2(ex));
    (x.0 > 0.0 && x.0 <= 1.0 + 4.0 * U).then_some((x, small))
}

/// The sign of v when |v| exceeds rel·s (v, s as extended doubles), else None.
fn decide(v: Ext, s: Ext, rel: f64) -> Option<i32> {
    if v.v == 0.0 {
        return None;
    }
    // |v| > rel·s ⟺ |v.v| > rel·s.v·2^(s.e − v.e)
    let d = s.e - v.e;
    if d > 900 {
        return None;
    }
    let bound = if d < -900 { 0.0 } else { rel * s.v * pow2(d) };
    (v.v.abs() > bound).then_some(if v.v > 0.0 { 1 } else { -1 })
}

/// A double-double number hi + lo, |lo| ≤ ulp(hi)/2 ([JMP17]).
#[derive(Clone, Copy, Debug)]
struct Dd(f64, f64);

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

impl Dd {
    /// ±mag·2^−shift from the top 128 bits of mag (relative error below 2^−105).
    fn from_mag(mag: &[u64], shift: i64, neg: bool) -> Dd {
        let bits = mag_bits(mag) as i64;
        if bits == 0 {
            return Dd(0.0, 0.0);
        }
        // top = the 128 bits below bit `bits`, as h·2^64 + l.
        let s = bits - 128;
        let word = |k: i64| -> u64 {
            // bits [k, k + 64) of mag (zero below 0)
            if k <= -64 {
                return 0;
            }
            if k < 0 {
                return mag[0] << (-k);
            }
            let (l, b) = ((k / 64) as usize, (k % 64) as u32);
            let lo = mag.get(l).copied().unwrap_or(0);
            if b == 0 {
                lo
            } else {
                (lo >> b) | (mag.get(l + 1).copied().unwrap_or(0) << (64 - b))
            }
        };
        let (h, l) = (word(s + 64), word(s));
        let a = (h >> 11) as f64 * pow2(75);
        let r = ((((h & 0x7ff) as u128) << 64) | l as u128) as f64;
        let (hi, lo) = fast_two_sum(a, r);
        let sc = pow2(s - shift);
        let sign = if neg { -1.0 } else { 1.0 };
        Dd(sign * hi * sc, sign * lo * sc)
    }

    fn scale(self, f: f64) -> Dd {
        Dd(self.0 * f, self.1 * f)
    }

    fn add(self, b: Dd) -> Dd {
        let (s, e) = two_sum(self.0, b.0);
        let (t, f) = two_sum(self.1, b.1);
        let (s, e) = fast_two_sum(s, e + t);
        let (s, e) = fast_two_sum(s, e + f);
        Dd(s, e)
    }

    fn mul(self, b: Dd) -> Dd {
        let p = self.0 * b.0;
        let e = self.0.mul_add(b.0, -p);
        let (s, e) = fast_two_sum(p, e + (self.0 * b.1 + self.1 * b.0));
        Dd(s, e)
    }

    fn div(self, b: Dd) -> Dd {
        let q1 = self.0 / b.0;
        let r = self.add(b.mul(Dd(-q1, 0.0)));
        let q2 = r.0 / b.0;
        let (s, e) = fast_two_sum(q1, q2);
        Dd(s, e)
    }
}

/// 2^e as a double (0 below the subnormal range, +∞ above the range).
fn pow2(e: i64) -> f64 {
    if e > 1023 {
        f64::INFINITY
    } else if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else if e >= -1074 {
        f64::from_bits(1u64 << (e + 1074))
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::roots::{from_i64, mul, to_coefs};
    use crate::testing::{views, Mpz, Rng};

    /// ⌊√x⌋ and squareness against GMP on both sides of GMP's stack bound (Newton's iteration
    /// above), for random x, perfect squares s² and s² − 1.
    #[test]
    fn square_roots_match_gmp() {
        let mut rng = Rng(47);
        for &n in &[1usize, 2, 7, mpn::GMP_SQRTREM_MAX_LIMBS - 1, mpn::GMP_SQRTREM_MAX_LIMBS, mpn::GMP_SQRTREM_MAX_LIMBS + 1, 2600] {
            for kind in 0..3 {
                let mut x: Vec<u64> = (0..n).map(|_| rng.next()).collect();
                x[n - 1] |= 1;
                if kind > 0 {
                    let h: Vec<u64> = (0..n.div_ceil(2)).map(|_| rng.next() | 1).collect();
                    let sq = Int { neg: false, mag: h.clone() }.mul(&Int { neg: false, mag: h }).unwrap();
                    x = if kind == 1 { sq.mag } else { sq.sub(IntRef::new(false, &[1])).mag };
                }
                let z = Mpz::from_coef(IntRef::new(false, &x));
                let (mut s, mut r) = (Mpz::new(), Mpz::new());
                // SAFETY: initialised.
                unsafe { gmp_mpfr_sys::gmp::mpz_sqrtrem(&mut s.0, &mut r.0, &z.0) };
                let (got, exact) = sqrt_floor(&x);
                assert_eq!(got, s.mag(), "{n} limbs, kind {kind}");
                assert_eq!(exact, r.mag().is_empty(), "{n} limbs, kind {kind}");
            }
        }
    }

    /// The double and double-double filters never contradict the exact sign: q = ∏ (j·x − k) with
    /// close roots, huge and tiny coefficients, at points near and far from the roots (x ≤ 1 and
    /// x > 1, so both the direct and the reversed sums).
    #[test]
    fn filters_agree_with_exact_signs() {
        let mut rng = Rng(5);
        let cur = crate::interrupt::current();
        for round in 0..12 {
            let mut p = from_i64(&[1]);
            let deg = 2 + rng.below(30) as usize;
            let mut roots = Vec::new();
            for _ in 0..deg {
                let (k, j) = (1 + rng.below(1000) as i64, 1 + rng.below(1000) as i64);
                roots.push((k, j));
                p = mul(&p, &from_i64(&[-k, j]));
            }
            if round % 3 == 0 {
                // scale x ↦ 2^200 x: coefficients spread over a wide range
                for (i, z) in p.iter_mut().enumerate() {
                    // SAFETY: initialised.
                    unsafe { gmp_mpfr_sys::gmp::mpz_mul_2exp(&mut z.0, &z.0, 7 * i as u64) };
                }
            }
            let c = to_coefs(&p);
            let mut slab = ZSlab::zeros(c.len(), c.iter().map(|x| x.1.len()).max().unwrap()).unwrap();
            for (i, v) in views(&c).iter().enumerate() {
                slab.set(i, v.neg, v.mag);
            }
            let ev = Evaluator::new(&slab);
            let (mut filtered, mut total) = (0, 0);
            for t in 0..300 {
                // points n/m: near a root k/j (perturbed) or random
                let (k, j) = roots[t % roots.len()];
                let (n, m) = if t % 2 == 0 {
                    let scale = 1u64 << (rng.below(60) as u32);
                    let n = (k as u64).wrapping_mul(scale).wrapping_add(rng.below(3)) | 1;
                    (vec![n], vec![(j as u64).wrapping_mul(scale)])
                } else {
                    (vec![1 + rng.below(1 << 40)], vec![1 + rng.below(1 << 40)])
                };
                if m[0] == 0 {
                    continue;
                }
                let exact = ev.sign_exact(&n, &m, &cur).unwrap();
                total += 1;
                let f64_sign = ev.sign_filtered(&n, &m);
                if let Some(s) = f64_sign {
                    assert_eq!(s, exact, "round {round}, point {n:?}/{m:?}: double filter wrong");
                }
                let dd_sign = ev.sign_double_double(&n, &m);
                if let Some(s) = dd_sign {
                    assert_eq!(s, exact, "round {round}, point {n:?}/{m:?}: double-double filter wrong");
                }
                if f64_sign.is_some() || dd_sign.is_some() {
                    filtered += 1;
                }
                assert_eq!(ev.sign(&n, &m, &cur).unwrap(), exact);
            }
            assert!(filtered > total / 3, "round {round}: the filters decided only {filtered} of {total}");
        }
    }
}
