//! The element products against GMP and the base DFTs against the definition.
use super::super::Gfpf;
use crate::testing::gfpf::elements;
use crate::testing::Rng;

/// X_i = Σ_j x_j r^(em·i·j) by shifts and additions (the definition, no butterflies).
fn naive_shift_dft(f: &Gfpf, x: &[u64], m: usize, em: usize) -> Vec<u64> {
    let k = f.k();
    let mut out = vec![0u64; m * k];
    let mut t = vec![0u64; k];
    for i in 0..m {
        let z = &mut out[i * k..(i + 1) * k];
        for j in 0..m {
            f.mul_pow_r(&mut t, &x[j * k..(j + 1) * k], em * i * j % (2 * k));
            f.add_assign(z, &t);
        }
    }
    out
}

/// r = 2^64 − 207·2^32 (r^8 + 1 prime), k = 8: r mod 2^32 = 0 and r > 2^64 − 2^44, so
/// [`super::digits::finish`] checks the carries' range with the three comparisons.
fn wide_field() -> Gfpf {
    let f = Gfpf::new(0xFFFF_FF31_0000_0000, 8).unwrap();
    assert!(f.radix() > u64::MAX - (1 << 44));
    f
}

/// mul_n (eight elements per IFMA batch, scalar tails) against GMP on every pair of edge
/// elements (0, ±1, p − 2, r, r^(k−1), the special −1, all digits r − 1, halves of r − 1
/// and 0, …) and random ones,
/// for P3, P4, k = 32 (the AVX-512 path) and fields where only the scalar path runs; products
/// landing on −1 and 0 (the sub_carry finish and the sign crossings) are among them.
#[test]
fn mul_n_matches_gmp() {
    use crate::testing::gfpf::{digits, fields, p_mpz, value};
    use crate::testing::Mpz;
    use gmp_mpfr_sys::gmp;
    let mut rng = Rng(0x1F3A);
    let mut fs = fields();
    fs.push(Gfpf::builtin(32).unwrap());
    fs.push(wide_field());
    for f in fs {
        let k = f.k();
        let mut els = elements(&f, &mut rng, 6);
        // Halves of digits r − 1 and 0: the Karatsuba digit sums and differences extreme.
        let (h, r) = (k / 2, f.radix());
        els.push((0..k).map(|i| if i < h { r - 1 } else { 0 }).collect());
        els.push((0..k).map(|i| if i < h { 0 } else { r - 1 }).collect());
        els.push((0..k).map(|i| if i % 4 < 2 { r - 1 } else { 0 }).collect());
        let mut m1 = vec![0u64; k];
        f.set_minus_one(&mut m1);
        let (mut x, mut y) = (vec![], vec![]);
        for a in &els {
            for b in &els {
                x.extend_from_slice(a);
                y.extend_from_slice(b);
            }
        }
        // −1 = (−1)·1, 1 = (−1)(−1), and a tail that is not a multiple of 8.
        for (a, b) in [(&m1, &f.from_u64(1)), (&m1, &m1), (&els[4], &els[4])] {
            x.extend_from_slice(a);
            y.extend_from_slice(b);
        }
        // The Karatsuba level (P3, P4, k = 32) and the schoolbook product.
        let mut z = vec![0u64; x.len()];
        super::set_karatsuba(false);
        f.mul_n(&mut z, &x, &y);
        let school = z.clone();
        super::set_karatsuba(true);
        f.mul_n(&mut z, &x, &y);
        assert_eq!(z, school, "k = {k}");
        let p = p_mpz(&f);
        for ((ze, xe), ye) in z.chunks(k).zip(x.chunks(k)).zip(y.chunks(k)) {
            let mut want = Mpz::new();
            // SAFETY: initialised.
            unsafe {
                gmp::mpz_mul(&mut want.0, &value(&f, xe).0, &value(&f, ye).0);
                gmp::mpz_mod(&mut want.0, &want.0, &p.0);
            }
            assert_eq!(ze, &digits(&f, &want)[..], "r = {} k = {k}: {xe:?} {ye:?}", f.radix());
        }
        if k == 8 || k == 16 {
            assert_eq!(super::mul_available(&f), super::available(&f));
        }
    }
}

/// The batched base DFTs against the definition for every size m ≤ 2k and several primitive
/// roots r^em, on rows of edge elements (0, ±1, p − 2, r, r^(k−1), …), random elements, and the
/// rows whose outputs are all −1 (the impulse −1: every lane goes through the scalar
/// `sub_carry` finish) or all 0 and r − 1 digits.
#[test]
fn base8_matches_definition() {
    let mut rng = Rng(0x51D);
    let fs = [8, 16, 32].map(|k| Gfpf::builtin(k).unwrap());
    for f in fs.into_iter().chain([wide_field()]) {
        let k = f.k();
        if !super::available(&f) {
            eprintln!("no AVX-512F/DQ: base8 not tested for k = {k}");
            continue;
        }
        let els = elements(&f, &mut rng, 4);
        let mut m1 = vec![0u64; k];
        f.set_minus_one(&mut m1);
        let mut m = 2;
        while m <= 2 * k {
            for u in [1usize, 3, 2 * k / m - 1 + (2 * k / m) % 2] {
                let em = (2 * k / m) * u % (2 * k);
                for trial in 0..6 {
                    let mut x = vec![0u64; 8 * m * k];
                    for (l, row) in x.chunks_exact_mut(m * k).enumerate() {
                        for (j, e) in row.chunks_exact_mut(k).enumerate() {
                            let src = match (trial + l) % 6 {
                                0 if j == 0 => &m1, // impulse −1
                                0 => &els[0],       // zeros
                                1 => &m1,           // all −1
                                2 => &els[4],       // all digits r − 1
                                _ => &els[(j * 7 + l * 3 + trial) % els.len()],
                            };
                            e.copy_from_slice(src);
                        }
                    }
                    let want: Vec<u64> = x.chunks_exact(m * k).flat_map(|row| naive_shift_dft(&f, row, m, em)).collect();
                    super::base8(&f, &mut x, m, em);
                    assert!(f.check_vec(&x, "x").is_ok(), "k = {k} m = {m} em = {em}");
                    assert_eq!(x, want, "k = {k} m = {m} em = {em} trial {trial}");
                }
            }
            m *= 2;
        }
    }
}
