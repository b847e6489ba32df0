use super::*;
use crate::testing::roots::{self as tr, chebyshev, check, from_i64, mignotte, mul, pow, sturm_count, to_coefs, wilkinson, ZPoly};
use crate::testing::{poly, views, Rng};

fn roots_of(p: &ZPoly, prec: i64) -> Vec<RealRoot> {
    let c = to_coefs(p);
    real_roots(&views(&c), prec).unwrap()
}

fn count_of(p: &ZPoly) -> usize {
    let c = to_coefs(p);
    count_real_roots(&views(&c)).unwrap()
}

/// Chebyshev T_n: n simple roots in (−1, 1); even n goes through the x ↦ x² deflation, odd n through
/// a root at 0; isolation only and refined to 10 and 60 bits; the count by Sturm up to n = 64.
#[test]
fn chebyshev_roots() {
    for n in [1usize, 2, 3, 5, 8, 16, 31, 64, 101, 256, 1024] {
        let t = chebyshev(n);
        if n <= 64 {
            assert_eq!(sturm_count(&t), n, "Sturm count of T_{n}");
        }
        assert_eq!(count_of(&t), n, "count T_{n}");
        for prec in [-1i64, 10, 60] {
            if n == 1024 && prec != 60 {
                continue;
            }
            let r = roots_of(&t, prec);
            check(&r, &t, n, Some(&vec![1; n]), prec, &format!("T_{n}, prec {prec}"));
            for x in &r {
                // Every root is in (−1, 1): each interval meets it.
                assert!(cmp_dyadic(&x.hi, &Dyadic::new(true, vec![1], 0)) == Ordering::Greater, "T_{n}: a root below −1");
                assert!(cmp_dyadic(&x.lo, &Dyadic::new(false, vec![1], 0)) == Ordering::Less, "T_{n}: a root above 1");
            }
        }
    }
}

/// Wilkinson ∏(x − i): every root an integer, reported as a point.
#[test]
fn wilkinson_roots_are_points() {
    for n in [1usize, 2, 7, 20, 60] {
        let w = wilkinson(n);
        let r = roots_of(&w, -1);
        check(&r, &w, n, Some(&vec![1; n]), -1, &format!("Wilkinson {n}"));
        for (i, x) in r.iter().enumerate() {
            assert_eq!(x.lo, x.hi, "Wilkinson {n}: root {i} not a point");
            assert_eq!(x.lo, Dyadic::new(false, vec![i as u64 + 1], 0));
        }
    }
}

/// Mignotte's x^n − 2(a·x − 1)²: two roots near 1/a closer than a^(−n/2), separated.
#[test]
fn mignotte_close_roots() {
    for (n, a) in [(4usize, 3i64), (9, 10), (16, 10), (30, 100), (64, 10)] {
        let m = mignotte(n, a);
        let want = if n <= 30 { sturm_count(&m) } else { 4 };
        let r = roots_of(&m, 20);
        check(&r, &m, want, None, 20, &format!("Mignotte n = {n}, a = {a}"));
        assert_eq!(count_of(&m), want);
    }
}

/// (x² − 2)³·(3x − 1)²·(2x + 1)·x⁴: multiplicities 3, 1, 4, 2, 3; −1/2 and 0 are points, 1/3 and
/// ±√2 intervals.
#[test]
fn multiplicities_and_rational_roots() {
    let p = mul(&mul(&mul(&pow(&from_i64(&[-2, 0, 1]), 3), &pow(&from_i64(&[-1, 3]), 2)), &from_i64(&[1, 2])), &from_i64(&[0, 0, 0, 0, 1]));
    let sqf = mul(&mul(&mul(&from_i64(&[-2, 0, 1]), &from_i64(&[-1, 3])), &from_i64(&[1, 2])), &from_i64(&[0, 1]));
    for prec in [-1i64, 0, 30, 100] {
        let r = roots_of(&p, prec);
        check(&r, &sqf, 5, Some(&[3, 1, 4, 2, 3]), prec, &format!("multiplicities, prec {prec}"));
        assert_eq!(r[1].lo, Dyadic::new(true, vec![1], -1), "−1/2 is a point");
        assert_eq!(r[2].lo, r[2].hi, "0 is a point");
    }
    assert_eq!(count_of(&p), 5);
    // Squares of even polynomials: (x² − 2)²·(x² − 9): ±3 points, ±√2 double (the deflated path).
    let q = mul(&pow(&from_i64(&[-2, 0, 1]), 2), &from_i64(&[-9, 0, 1]));
    let s = mul(&from_i64(&[-2, 0, 1]), &from_i64(&[-9, 0, 1]));
    check(&roots_of(&q, 8), &s, 4, Some(&[1, 2, 2, 1]), 8, "(x² − 2)²(x² − 9)");
}

/// Polynomials without real roots, and the zero and constant polynomials.
#[test]
fn no_real_roots_and_degenerate_inputs() {
    let mut p = from_i64(&[1, 0, 1]);
    for i in 2..12 {
        p = mul(&p, &from_i64(&[i * i, 0, 1]));
    }
    assert!(roots_of(&p, 10).is_empty());
    assert_eq!(count_of(&p), 0);
    assert!(roots_of(&from_i64(&[5, 1, 1, 0, 0]), -1).is_empty(), "x² + x + 5 with high zeros");
    assert!(roots_of(&from_i64(&[-7]), 5).is_empty(), "a constant");
    let z = to_coefs(&from_i64(&[0, 0]));
    assert!(matches!(real_roots(&views(&z), 3), Err(crate::Error::InvalidArgument(_))));
    assert!(matches!(count_real_roots(&[]), Err(crate::Error::InvalidArgument(_))));
    // x^5: one root of multiplicity 5.
    let r = roots_of(&from_i64(&[0, 0, 0, 0, 0, 1]), 10);
    assert_eq!(r, vec![RealRoot { lo: Dyadic::new(false, vec![], 0), hi: Dyadic::new(false, vec![], 0), mult: 5 }]);
}

/// Huge and tiny roots: x − 2^200 (a point), 3^80·x − 1 and x² − 3^100·7 (intervals), 2^300·x + 1.
#[test]
fn huge_and_tiny_roots() {
    let big = |neg: bool, bits: &[u64]| crate::testing::roots::from_coefs(&[(neg, bits.to_vec())]);
    let mut two200 = vec![0u64; 4];
    two200[3] = 1 << 8;
    let p = {
        let mut p = big(true, &two200);
        p.extend(from_i64(&[1]));
        p
    };
    let r = roots_of(&p, 5);
    check(&r, &p, 1, Some(&[1]), 5, "x − 2^200");
    assert_eq!(r[0].lo, Dyadic::new(false, vec![1], 200));
    let mut three = from_i64(&[1]);
    for _ in 0..80 {
        three = mul(&three, &from_i64(&[3]));
    }
    let q = vec![crate::testing::roots::from_i64(&[-1]).remove(0), three.remove(0)];
    check(&roots_of(&q, 200), &q, 1, Some(&[1]), 200, "3^80·x − 1");
    check(&roots_of(&q, -1), &q, 1, Some(&[1]), -1, "3^80·x − 1, isolated");
    let mut c = from_i64(&[7]);
    for _ in 0..100 {
        c = mul(&c, &from_i64(&[3]));
    }
    let mut s = c;
    s[0] = {
        let mut z = crate::testing::Mpz::new();
        // SAFETY: initialised.
        unsafe { gmp_mpfr_sys::gmp::mpz_neg(&mut z.0, &s[0].0) };
        z
    };
    s.extend(from_i64(&[0, 1]));
    check(&roots_of(&s, 3), &s, 2, Some(&[1, 1]), 3, "x² − 7·3^100");
    let mut t = from_i64(&[1]);
    let mut two300 = vec![0u64; 5];
    two300[4] = 1 << 44;
    t.extend(big(false, &two300));
    let r = roots_of(&t, 10);
    check(&r, &t, 1, Some(&[1]), 10, "2^300·x + 1");
    assert_eq!(r[0].lo, Dyadic::new(true, vec![1], -300));
}

/// Random dense polynomials (few real roots), degrees 10 … 300, against Sturm counts up to 60.
#[test]
fn random_dense_polynomials() {
    let mut rng = Rng(2401);
    for (t, &deg) in [10usize, 11, 25, 40, 60, 150, 300, 1000].iter().enumerate() {
        for bits in [8u64, 64] {
            if deg >= 1000 && bits == 8 {
                continue;
            }
            let c = poly(&mut rng, deg + 1, bits, if t % 2 == 0 { 0 } else { 2 });
            let mut p = tr::from_coefs(&c);
            if p.last().is_none_or(|z| z.mag().is_empty()) {
                p.pop();
                p.extend(from_i64(&[1]));
            }
            let r = roots_of(&p, 40);
            let n = r.len();
            if deg <= 60 {
                assert_eq!(n, sturm_count(&p), "degree {deg}, {bits} bits: Sturm count");
            }
            // Square-free with probability ≈ 1: check against p itself (a square factor would show
            // as a multiplicity above 1).
            assert!(r.iter().all(|x| x.mult == 1), "degree {deg}: a random polynomial with a multiple root");
            check(&r, &p, n, None, 40, &format!("random degree {deg}, {bits} bits"));
            assert_eq!(count_of(&p), n);
        }
    }
}

/// Real roots under the GPU backend equal the CPU's answer exactly: Chebyshev 512 and Mignotte 128
/// (short node polynomials: CPU blocks under both backends), and a degree-1600 polynomial with
/// 6000-bit coefficients and two real roots; under the GPU backend every exact node shift runs on
/// the GPU's multi-modular shift (its call counter moves). Without a device only the CPU answers are checked (their known
/// counts).
#[cfg(feature = "gpu-tests")]
#[test]
fn gpu_real_roots_matches_cpu() {
    use crate::runtime::{set_backend, Backend};
    let _g = crate::testing::backend_lock();
    let gpu_available = crate::runtime::gpu_available();
    let mut rng = Rng(7);
    // (x² − 3x + 1)·g(x²), g with positive 6000-bit coefficients (no real root): the two roots
    // (3 ∓ √5)/2 are isolated after a few shifts of degree 1600, which split by divide and conquer
    // (their products on the GPU), while refinement and deeper subdivisions stay cheap.
    let g: Vec<(bool, Vec<u64>)> = poly(&mut rng, 800, 6000, 0).into_iter().flat_map(|(_, m)| [(false, m), (false, Vec::new())]).collect();
    let r = mul(&from_i64(&[1, -3, 1]), &tr::from_coefs(&g[..g.len() - 1]));
    let rv = to_coefs(&r);
    let n = rv.len();
    let bits = crate::int::max_bits(&views(&rv));
    let one = crate::int::IntRef::new(false, &[1]);
    let out = crate::zpoly::taylor_shift::shift_bits(bits, n, one);
    assert!(
        !crate::zpoly::taylor_shift::multi_modular_wins(n, out) && !crate::zpoly::taylor_shift::tableau_wins(n, bits),
        "the degree-1600 case no longer splits by divide and conquer"
    );
    for (p, what, count, prec) in [
        (chebyshev(512), "Chebyshev 512", 512, 53),
        (mignotte(128, 10), "Mignotte 128", 4, 53),
        (r, "(x² − 3x + 1)·g(x²), degree 1600, 6000 bits", 2, 10),
    ] {
        set_backend(Backend::Cpu).unwrap();
        let cpu = roots_of(&p, prec);
        set_backend(Backend::Auto).unwrap();
        assert_eq!(cpu.len(), count, "{what}: real roots");
        if !gpu_available {
            eprintln!("skipped: {what} on the GPU (no usable CUDA device)");
            continue;
        }
        set_backend(Backend::Gpu).unwrap();
        let before = crate::gpu::zpoly_mul::SHIFT_DEVICE_CALLS.load(std::sync::atomic::Ordering::SeqCst);
        let gpu = roots_of(&p, prec);
        let reached = crate::gpu::zpoly_mul::SHIFT_DEVICE_CALLS.load(std::sync::atomic::Ordering::SeqCst) > before;
        set_backend(Backend::Auto).unwrap();
        assert!(cpu == gpu, "{what}: GPU differs");
        assert!(reached, "{what}: no node shift reached the GPU shift");
    }
}
