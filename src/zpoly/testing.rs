//! Test support for the Z\[x\] algorithms: a GMP `mpz` schoolbook oracle and generators of random
//! and adversarial polynomials.
use crate::int::{IntRef, ZSlab};
use crate::zpoly::{mul, Alg};
use gmp_mpfr_sys::gmp;

/// Owned coefficient (sign, magnitude limbs).
pub type Coef = (bool, Vec<u64>);

/// Views of owned coefficients.
pub fn views(p: &[Coef]) -> Vec<IntRef<'_>> {
    p.iter().map(|(n, m)| IntRef::new(*n, m)).collect()
}

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A coefficient of exactly `bits` bits or fewer, of the given kind:
/// 0 random, 1 all ones (2^bits − 1), 2 a power of two 2^(bits−1), 3 zero; random sign.
pub fn coef(rng: &mut Rng, bits: u64, kind: u64) -> Coef {
    let n = bits.div_ceil(64) as usize;
    let mut m: Vec<u64> = match kind {
        0 => (0..n).map(|_| rng.next()).collect(),
        1 => vec![u64::MAX; n],
        2 => {
            let mut v = vec![0; n];
            if bits > 0 {
                v[n - 1] = 1 << ((bits - 1) % 64);
            }
            v
        }
        _ => vec![0; n],
    };
    if bits % 64 != 0 && n > 0 {
        m[n - 1] &= (1u64 << (bits % 64)) - 1;
    }
    let neg = rng.next() & 1 == 1;
    (neg && m.iter().any(|&l| l != 0), m)
}

/// A random polynomial of `len` coefficients of at most `bits` bits; `style` 0 random,
/// 1 all ones with random signs, 2 mixed kinds, 3 one huge coefficient among small ones.
pub fn poly(rng: &mut Rng, len: usize, bits: u64, style: u64) -> Vec<Coef> {
    let huge = rng.below(len as u64) as usize;
    (0..len)
        .map(|i| match style {
            0 => {
                let b = 1 + rng.below(bits.max(1));
                coef(rng, b, 0)
            }
            1 => coef(rng, bits, 1),
            2 => {
                let kind = rng.below(4);
                coef(rng, bits, kind)
            }
            _ => {
                if i == huge {
                    coef(rng, bits * 20, 0)
                } else {
                    let b = 1 + rng.below(8);
                    coef(rng, b, 0)
                }
            }
        })
        .collect()
}

pub use crate::int::Mpz;

/// Conversions between the oracle's integers and coefficient views.
impl Mpz {
    pub fn from_coef(c: IntRef) -> Self {
        let mut z = Mpz::new();
        // SAFETY: import reads c.mag.len() limbs.
        unsafe {
            gmp::mpz_import(&mut z.0, c.mag.len(), -1, 8, 0, 0, c.mag.as_ptr().cast());
            if c.neg {
                gmp::mpz_neg(&mut z.0, &z.0);
            }
        }
        z
    }
    pub fn to_coef(&self) -> Coef {
        (self.neg(), self.mag().to_vec())
    }
}

/// The oracle: f·g by mpz_addmul, as normalized (sign, magnitude) pairs.
pub fn oracle(f: &[IntRef], g: &[IntRef]) -> Vec<Coef> {
    if f.is_empty() || g.is_empty() {
        return vec![];
    }
    let fz: Vec<Mpz> = f.iter().map(|&c| Mpz::from_coef(c)).collect();
    let gz: Vec<Mpz> = g.iter().map(|&c| Mpz::from_coef(c)).collect();
    let mut h: Vec<Mpz> = (0..f.len() + g.len() - 1).map(|_| Mpz::new()).collect();
    for (i, a) in fz.iter().enumerate() {
        for (j, b) in gz.iter().enumerate() {
            // SAFETY: all initialised.
            unsafe { gmp::mpz_addmul(&mut h[i + j].0, &a.0, &b.0) };
        }
    }
    h.iter().map(Mpz::to_coef).collect()
}

/// Normalized (sign, magnitude) pairs of a slab.
pub fn slab_coefs(h: &ZSlab) -> Vec<Coef> {
    h.views().iter().map(|v| (v.neg, v.mag.to_vec())).collect()
}

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
