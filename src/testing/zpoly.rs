//! Test support for the Z[x] products: the standard battery every algorithm passes.
use super::{coef, oracle, poly, slab_coefs, views, Coef, Rng};
use crate::zpoly::{mul, Alg};

/// Asserts alg(f, g) == oracle(f, g).
pub fn assert_mul(alg: Alg, f: &[Coef], g: &[Coef], what: &str) {
    let (fv, gv) = (views(f), views(g));
    let got = mul(&fv, &gv, alg).unwrap_or_else(|e| panic!("{alg:?} failed on {what}: {e}"));
    let want = oracle(&fv, &gv);
    let got = slab_coefs(&got);
    assert_eq!(got.len(), want.len(), "{alg:?} {what}: length");
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        assert_eq!(a, b, "{alg:?} {what}: coefficient {k} differs (flen {}, glen {})", f.len(), g.len());
    }
}

/// The standard battery for one algorithm: lengths 1, 2, small, unbalanced, up to `max_len`;
/// bit sizes 1..`max_bits`; random, all-ones, mixed and one-huge coefficient styles; squares.
pub fn check_alg(alg: Alg, max_len: usize, max_bits: u64) {
    let mut rng = Rng(0x5EED ^ alg as u64);
    let lens = [1usize, 2, 3, 7, 16, 33, max_len / 3, max_len];
    let bitss = [1u64, 2, 63, 64, 65, 127, 128, 300, max_bits];
    for (t, &bits) in bitss.iter().enumerate() {
        for &fl in &lens {
            let gl = lens[(t + fl) % lens.len()];
            let (style, gstyle) = (rng.below(4), rng.below(3));
            let f = poly(&mut rng, fl.max(1), bits, style);
            let g = poly(&mut rng, gl.max(1), bits, gstyle);
            assert_mul(alg, &f, &g, &format!("len {fl}x{gl}, {bits} bits, style {style}"));
        }
        let len = 1 + rng.below(max_len as u64) as usize;
        let f = poly(&mut rng, len, bits, 1);
        let fv = views(&f);
        let got = slab_coefs(&mul(&fv, &fv, alg).unwrap());
        assert_eq!(got, oracle(&fv, &fv), "{alg:?} square, {bits} bits");
    }
    // Zero polynomials and leading zeros.
    let z = vec![(false, vec![]); 5];
    let f = poly(&mut rng, 9, 100, 0);
    assert_mul(alg, &z, &f, "zero times f");
    assert_mul(alg, &f, &z, "f times zero");
    // The reference's counter-example of the two-convolution bound: d = 256, 2^113 − 1.
    let c = coef(&mut rng, 113, 1);
    let f: Vec<Coef> = (0..257).map(|_| (false, c.1.clone())).collect();
    assert_mul(alg, &f, &f, "d=256, coefficients 2^113-1");
    let g: Vec<Coef> = (0..257).map(|i| (i % 2 == 1, c.1.clone())).collect();
    assert_mul(alg, &f, &g, "d=256, alternating signs");
}

/// Larger and very unbalanced products against the schoolbook algorithm: 3000 × 1000 and
/// 1000 × 3000 with 200-bit coefficients, 20 × 5 with 5000-bit coefficients, 1 × 2000, 2000 × 2,
/// and a square of length 1500.
pub fn check_large(alg: Alg) {
    let mut rng = Rng(0x1A26E ^ alg as u64);
    let cases = [(3000, 1000, 200), (1000, 3000, 200), (20, 5, 5000), (1, 2000, 300), (2000, 2, 64)];
    for (t, &(fl, gl, bits)) in cases.iter().enumerate() {
        let f = poly(&mut rng, fl, bits, t as u64 % 3);
        let g = poly(&mut rng, gl, bits, 2);
        let (fv, gv) = (views(&f), views(&g));
        let got = slab_coefs(&mul(&fv, &gv, alg).unwrap());
        let want = slab_coefs(&mul(&fv, &gv, Alg::Schoolbook).unwrap());
        assert!(got == want, "{alg:?} differs from schoolbook on {fl} x {gl}, {bits} bits");
    }
    let f = poly(&mut rng, 1500, 130, 0);
    let fv = views(&f);
    let got = slab_coefs(&mul(&fv, &fv, alg).unwrap());
    let want = slab_coefs(&mul(&fv, &fv, Alg::Schoolbook).unwrap());
    assert!(got == want, "{alg:?} differs from schoolbook on a square of length 1500");
}
