//! Test support for real roots: the classical test polynomials, exact signs at dyadic points and
//! Sturm counts by GMP, and the independent check of an answer of `zpoly::real_roots`.
use super::{Coef, Mpz};
use crate::int::IntRef;
use crate::zpoly::real_roots::refine::Dyadic;
use crate::zpoly::real_roots::RealRoot;
use gmp_mpfr_sys::gmp;

/// A polynomial of GMP integers, low to high.
pub type ZPoly = Vec<Mpz>;

pub fn from_i64(c: &[i64]) -> ZPoly {
    c.iter()
        .map(|&v| {
            let mut z = Mpz::new();
            // SAFETY: initialised.
            unsafe { gmp::mpz_set_si(&mut z.0, v) };
            z
        })
        .collect()
}

pub fn to_coefs(p: &ZPoly) -> Vec<Coef> {
    p.iter().map(Mpz::to_coef).collect()
}

pub fn from_coefs(c: &[Coef]) -> ZPoly {
    c.iter().map(|(n, m)| Mpz::from_coef(IntRef::new(*n, m))).collect()
}

fn trim(mut p: ZPoly) -> ZPoly {
    // SAFETY: initialised.
    while p.last().is_some_and(|z| unsafe { gmp::mpz_sgn(&z.0) } == 0) {
        p.pop();
    }
    p
}

/// a·b.
pub fn mul(a: &ZPoly, b: &ZPoly) -> ZPoly {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut c: ZPoly = (0..a.len() + b.len() - 1).map(|_| Mpz::new()).collect();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            // SAFETY: initialised.
            unsafe { gmp::mpz_addmul(&mut c[i + j].0, &x.0, &y.0) };
        }
    }
    c
}

/// p^k.
pub fn pow(p: &ZPoly, k: usize) -> ZPoly {
    let mut r = from_i64(&[1]);
    for _ in 0..k {
        r = mul(&r, p);
    }
    r
}

/// The Chebyshev polynomial T_n (T_0 = 1, T_1 = x, T_(n+1) = 2x·T_n − T_(n−1)): n simple roots in (−1, 1).
pub fn chebyshev(n: usize) -> ZPoly {
    let (mut a, mut b) = (from_i64(&[1]), from_i64(&[0, 1]));
    if n == 0 {
        return a;
    }
    for _ in 1..n {
        let mut c: ZPoly = (0..b.len() + 1).map(|_| Mpz::new()).collect();
        for (i, x) in b.iter().enumerate() {
            // SAFETY: initialised.
            unsafe { gmp::mpz_mul_2exp(&mut c[i + 1].0, &x.0, 1) };
        }
        for (i, x) in a.iter().enumerate() {
            // SAFETY: initialised.
            unsafe { gmp::mpz_sub(&mut c[i].0, &c[i].0, &x.0) };
        }
        a = b;
        b = c;
    }
    b
}

/// Wilkinson's ∏_(i=1..n) (x − i).
pub fn wilkinson(n: usize) -> ZPoly {
    let mut p = from_i64(&[1]);
    for i in 1..=n as i64 {
        p = mul(&p, &from_i64(&[-i, 1]));
    }
    p
}

/// Mignotte's x^n − 2(a·x − 1)²: two roots within about 2·a^(−(n+2)/2) of 1/a.
pub fn mignotte(n: usize, a: i64) -> ZPoly {
    let mut p = mul(&from_i64(&[-1, a]), &from_i64(&[-1, a]));
    for z in p.iter_mut() {
        // SAFETY: initialised.
        unsafe { gmp::mpz_mul_si(&mut z.0, &z.0, -2) };
    }
    while p.len() <= n {
        p.push(Mpz::new());
    }
    // SAFETY: initialised.
    unsafe { gmp::mpz_add_ui(&mut p[n].0, &p[n].0, 1) };
    p
}

/// 2^e·p(x) evaluated at x = m·2^e' as the sign of Σ p_i m^i 2^(e'·i) (e' ≥ 0) or of
/// Σ p_i m^i 2^(−e'·(d−i)) (e' < 0).
pub fn sign_at(p: &ZPoly, x: &Dyadic) -> i32 {
    let d = p.len() - 1;
    let mut m = Mpz::from_coef(IntRef::new(x.neg, &x.mag));
    let mut acc = Mpz::new();
    // SAFETY: initialised.
    unsafe {
        if x.exp >= 0 {
            gmp::mpz_mul_2exp(&mut m.0, &m.0, x.exp as u64);
            for c in p.iter().rev() {
                gmp::mpz_mul(&mut acc.0, &acc.0, &m.0);
                gmp::mpz_add(&mut acc.0, &acc.0, &c.0);
            }
        } else {
            let s = (-x.exp) as u64;
            for (i, c) in p.iter().enumerate().rev() {
                gmp::mpz_mul(&mut acc.0, &acc.0, &m.0);
                let mut t = Mpz::new();
                gmp::mpz_mul_2exp(&mut t.0, &c.0, s * (d - i) as u64);
                gmp::mpz_add(&mut acc.0, &acc.0, &t.0);
            }
        }
        gmp::mpz_sgn(&acc.0)
    }
}

/// The number of distinct real roots of p (degree ≥ 1) by a Sturm sequence: p_0 = p, p_1 = p′,
/// p_(k+1) = −prem(p_(k−1), p_k) with the sign of the pseudo-division's factor removed and the
/// content divided out (positive factors keep the sign pattern), counted at −∞ and +∞.
pub fn sturm_count(p: &ZPoly) -> usize {
    let p = trim(p.iter().map(clone).collect());
    let d = p.len() - 1;
    let dp: ZPoly = (1..=d)
        .map(|i| {
            let mut z = Mpz::new();
            // SAFETY: initialised.
            unsafe { gmp::mpz_mul_ui(&mut z.0, &p[i].0, i as _) };
            z
        })
        .collect();
    let mut seq = vec![p, trim(dp)];
    loop {
        let (a, b) = (&seq[seq.len() - 2], &seq[seq.len() - 1]);
        if b.len() <= 1 {
            break;
        }
        let r = neg_prem(a, b);
        if r.is_empty() {
            break;
        }
        seq.push(r);
    }
    let signs_at = |plus: bool| -> usize {
        let s: Vec<i32> = seq
            .iter()
            .map(|q| {
                // SAFETY: initialised.
                let lc = unsafe { gmp::mpz_sgn(&q[q.len() - 1].0) };
                if plus || (q.len() - 1) % 2 == 0 {
                    lc
                } else {
                    -lc
                }
            })
            .filter(|&s| s != 0)
            .collect();
        s.windows(2).filter(|w| w[0] != w[1]).count()
    };
    signs_at(false) - signs_at(true)
}

fn clone(z: &Mpz) -> Mpz {
    Mpz::from_coef(IntRef::new(z.neg(), z.mag()))
}

/// −c·rem(a, b) for a positive c (lc(b)^(δ+1) up to its sign), primitive.
fn neg_prem(a: &ZPoly, b: &ZPoly) -> ZPoly {
    let mut r: ZPoly = a.iter().map(clone).collect();
    let db = b.len() - 1;
    let lc = &b[db];
    // SAFETY: initialised throughout.
    let lc_neg = unsafe { gmp::mpz_sgn(&lc.0) } < 0;
    let mut flips = 0usize;
    while r.len() > db {
        let top = r.len() - 1;
        let t = clone(&r[top]);
        // r ← lc·r − t·x^(top−db)·b
        for z in r.iter_mut() {
            unsafe { gmp::mpz_mul(&mut z.0, &z.0, &lc.0) };
        }
        flips += 1;
        for (j, bj) in b.iter().enumerate() {
            unsafe { gmp::mpz_submul(&mut r[top - db + j].0, &t.0, &bj.0) };
        }
        r.pop();
        r = trim(r);
    }
    let negate = !(lc_neg && flips % 2 == 1);
    // content
    let mut g = Mpz::new();
    for z in &r {
        unsafe { gmp::mpz_gcd(&mut g.0, &g.0, &z.0) };
    }
    for z in r.iter_mut() {
        unsafe {
            if gmp::mpz_sgn(&g.0) != 0 {
                gmp::mpz_divexact(&mut z.0, &z.0, &g.0);
            }
            if negate {
                gmp::mpz_neg(&mut z.0, &z.0);
            }
        }
    }
    r
}

fn cmp(x: &Dyadic, y: &Dyadic) -> std::cmp::Ordering {
    crate::zpoly::real_roots::cmp_dyadic(x, y)
}

/// Checks an answer independently: sorted, closed intervals pairwise disjoint, each point a root of
/// `sqf` (the square-free part of the polynomial, known to the test), each interval with lo < hi,
/// `sqf` nonzero of opposite signs at its ends, width ≤ 2^−prec when prec ≥ 0; the count and the
/// multiplicities as expected (`mults`: None skips that check).
pub fn check(roots: &[RealRoot], sqf: &ZPoly, count: usize, mults: Option<&[usize]>, prec: i64, what: &str) {
    assert_eq!(roots.len(), count, "{what}: number of roots");
    for (i, r) in roots.iter().enumerate() {
        match cmp(&r.lo, &r.hi) {
            std::cmp::Ordering::Equal => assert_eq!(sign_at(sqf, &r.lo), 0, "{what}: point {i} is not a root"),
            std::cmp::Ordering::Less => {
                let (a, b) = (sign_at(sqf, &r.lo), sign_at(sqf, &r.hi));
                assert!(a != 0 && b != 0 && a != b, "{what}: interval {i}: signs {a}, {b} at its ends");
                if prec >= 0 {
                    // hi − lo ≤ 2^−prec
                    let lo_neg = Dyadic { neg: !r.lo.neg && !r.lo.mag.is_empty(), mag: r.lo.mag.clone(), exp: r.lo.exp };
                    let e = r.hi.exp.min(r.lo.exp).min(-prec);
                    let w = {
                        let a = Mpz::from_coef(IntRef::new(r.hi.neg, &r.hi.mag));
                        let b = Mpz::from_coef(IntRef::new(lo_neg.neg, &lo_neg.mag));
                        let mut s = Mpz::new();
                        // SAFETY: initialised.
                        unsafe {
                            let (mut x, mut y) = (Mpz::new(), Mpz::new());
                            gmp::mpz_mul_2exp(&mut x.0, &a.0, (r.hi.exp - e) as u64);
                            gmp::mpz_mul_2exp(&mut y.0, &b.0, (r.lo.exp - e) as u64);
                            gmp::mpz_add(&mut s.0, &x.0, &y.0);
                        }
                        s
                    };
                    // w·2^e ≤ 2^−prec ⟺ w ≤ 2^(−prec − e)
                    let mut lim = Mpz::new();
                    // SAFETY: initialised.
                    let ok = unsafe {
                        gmp::mpz_set_ui(&mut lim.0, 1);
                        gmp::mpz_mul_2exp(&mut lim.0, &lim.0, (-prec - e) as u64);
                        gmp::mpz_cmp(&w.0, &lim.0) <= 0
                    };
                    assert!(ok, "{what}: interval {i} wider than 2^-{prec}");
                }
            }
            std::cmp::Ordering::Greater => panic!("{what}: interval {i} has lo > hi"),
        }
        if i > 0 {
            assert_eq!(cmp(&roots[i - 1].hi, &r.lo), std::cmp::Ordering::Less, "{what}: roots {} and {i} not disjoint and sorted", i - 1);
        }
    }
    if let Some(m) = mults {
        let got: Vec<usize> = roots.iter().map(|r| r.mult).collect();
        assert_eq!(got, m, "{what}: multiplicities");
    }
}
