//! k-way Toom-Cook on Kronecker-packed blocks, one level, as BPAS's Toom-4_p and Toom-8_p
//! ([FM] Algorithm 6, §3.4–3.5).
//!
//! With L a block length and b = product_bits + 1, f = Σ_{i<k} F_i(x)·x^(iL) gives the integers
//! Z_{F_i} = F_i(2^b) (packed in parallel); F(y) = Σ Z_{F_i} y^i and G(y) are evaluated at 2k−1
//! points (0, ±2^(±e), …, ∞; a point 1/2^e is scaled by 2^(e(k−1)), [FM] Remark 11 with its factor corrected), the 2k−1 products
//! are taken in parallel with [`mul_mag`], and H = F·G is recovered by the exact integer matrix
//! (D_r·M_{2k−1}^{−1}) row by row (rows in parallel), each row divided exactly by its denominator
//! D_r (lcm 360 for k = 4, 24809198109696000 for k = 8). H(2^(bL)) = f(2^b)·g(2^b) is then the
//! overlap-add of the H_j at bit offsets bLj ([`sum_shifted`]; L is a multiple of 64/gcd(b, 64), so
//! the offsets are whole limbs), unpacked once. Every coefficient of every H_j(x) is a partial sum
//! of the terms of one h_k, so b bounds it. The shorter operand is zero-padded (its high blocks are
//! zero), as in [FM]. Evaluation and interpolation are exact, on signed limb vectors (sums by
//! [`sum_shifted`], `mpn_lshift`, `mpn_mul_1`, exact division by `mpn_divrem_1`: nothing that
//! takes GMP memory on the worker threads).
use super::kronecker::same;
use crate::int::{
    limbs_for_bits, max_bits, mul_mag, pack_signed, product_bits, sum_shifted, try_zeroed_words, unpack_signed, IntRef, ZSlab,
};
use crate::Result;
use gmp_mpfr_sys::gmp;
use rayon::prelude::*;

/// A signed integer: (magnitude, negative).
type Signed = (Vec<u64>, bool);

/// An evaluation point of the Toom polynomial, in the order of the rows of [FM] §3.5.2–3.5.3.
#[derive(Clone, Copy)]
enum Point {
    Zero,
    /// The pair +2^e, −2^e (e < 0: 1/2^|e|, scaled), giving two consecutive rows.
    Pair(i32),
    /// The single point 2^e.
    Single(i32),
    Infinity,
}

/// Points (0, 1, −1, 1/2, −1/2, 2, ∞) ([FM] §3.5.2).
const POINTS4: [Point; 5] = [Point::Zero, Point::Pair(0), Point::Pair(-1), Point::Single(1), Point::Infinity];

/// Points (0, ±1, ±1/2, ±2, ±1/4, ±4, ±1/8, 8, ∞) ([FM] §3.5.3).
const POINTS8: [Point; 9] = [
    Point::Zero,
    Point::Pair(0),
    Point::Pair(-1),
    Point::Pair(1),
    Point::Pair(-2),
    Point::Pair(2),
    Point::Pair(-3),
    Point::Single(3),
    Point::Infinity,
];

/// Rows (D_r, D_r·M_7^{−1}[r]) of the inverse of the Toom-4 interpolation matrix (lcm of the D_r:
/// 360), for the points of [`POINTS4`] in order.
const INTERP4: [(u64, [i64; 7]); 7] = [
    (1, [1, 0, 0, 0, 0, 0, 0]),
    (180, [-90, -60, 20, 5, -3, 2, -90]),
    (24, [-120, -4, -4, 1, 1, 0, 6]),
    (18, [45, 27, -7, -1, 0, -1, 45]),
    (24, [96, 16, 16, -1, -1, 0, -30]),
    (180, [-360, -120, -40, 5, 3, 8, -360]),
    (1, [0, 0, 0, 0, 0, 0, 1]),
];

/// Rows (D_r, D_r·M_15^{−1}[r]) for Toom-8 (lcm of the D_r: 24809198109696000).
#[rustfmt::skip]
const INTERP8: [(u64, [i64; 15]); 15] = [
    (1, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    (48455465058000, [-6056933132250, -13890539520, 10803752960, 101285184, -89369280, 29789760, -17873856, -180180, 169260, -16380, 5460, 65, -63, 2, -6056933132250]),
    (94662691200, [-8075910843000, -23744512, -23744512, 371008, 371008, 21824, 21824, -1364, -1364, -4, -4, 1, 1, 0, 1479104550]),
    (567976147200, [6056933132250, 13748072448, -10661285888, -96833088, 84917184, -29724288, 17808384, 147444, -136524, 16374, -5454, -17, 15, -2, 6056933132250]),
    (4441651200, [6460728674400, 93933568, 93933568, -1415488, -1415488, -87104, -87104, 4436, 4436, 16, 16, -1, -1, 0, -5920755750]),
    (33312384000, [-6056933132250, -13186037760, 10099251200, 80052864, -68136960, 29463120, -17547216, -47100, 36180, -16350, 5430, 5, -3, 2, -6056933132250]),
    (1045094400, [-6153074928000, -359206912, -359206912, 4625728, 4625728, 345344, 345344, -5204, -5204, -64, -64, 1, 1, 0, 23752678950]),
    (4115059200, [3028466566125, 5530892544, -3987499264, -14214984, 8257032, -14214984, 8257032, 8127, -2667, 8127, -2667, -1, 0, -1, 3028466566125]),
    (1045094400, [6080685811200, 1184186368, 1184186368, -5612608, -5612608, -1332224, -1332224, 5396, 5396, 256, 256, -1, -1, 0, -96141795750]),
    (33312384000, [-24227732529000, -17816217600, 5469071360, 47336976, 326640, 97926720, -50263104, -32730, -10950, -63480, 19800, 5, 3, 8, -24227732529000]),
    (4441651200, [-6062853888000, -1449459712, -1449459712, 5870848, 5870848, 4542464, 4542464, -5444, -5444, -1024, -1024, 1, 1, 0, 403795542150]),
    (567976147200, [96910930116000, 36898971648, 12489613312, -119093568, -71560896, -186202368, -4452096, 98274, 76446, 229344, -54624, -17, -15, -32, 96910930116000]),
    (94662691200, [6058412236800, 1519648768, 1519648768, -5936128, -5936128, -5586944, -5586944, 5456, 5456, 4096, 4096, -1, -1, 0, -2018977710750]),
    (48455465058000, [-387643720464000, -111124316160, -86430023680, 405140736, 357477120, 476636160, 285981696, -360360, -338520, -524160, -174720, 65, 63, 128, -387643720464000]),
    (1, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
];

/// f·g by 4-way Toom-Cook on packed blocks.
pub fn mul4(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    let rows: Vec<(u64, &[i64])> = INTERP4.iter().map(|(d, r)| (*d, &r[..])).collect();
    mul_k(f, g, 4, &POINTS4, &rows)
}

/// f·g by 8-way Toom-Cook on packed blocks.
pub fn mul8(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    let rows: Vec<(u64, &[i64])> = INTERP8.iter().map(|(d, r)| (*d, &r[..])).collect();
    mul_k(f, g, 8, &POINTS8, &rows)
}

/// One level of k-way Toom-Cook with the given points and interpolation rows.
fn mul_k(f: &[IntRef], g: &[IntRef], k: usize, points: &[Point], rows: &[(u64, &[i64])]) -> Result<ZSlab> {
    let pb = product_bits(max_bits(f), max_bits(g), f.len(), g.len());
    let mut h = ZSlab::zeros(f.len() + g.len() - 1, limbs_for_bits(pb))?;
    if pb == 0 {
        return Ok(h);
    }
    let b = pb + 1;
    let align = 64 / (1usize << b.trailing_zeros().min(6));
    let l = f.len().max(g.len()).div_ceil(k).next_multiple_of(align);
    let square = same(f, g);
    let blocks = |p: &[IntRef]| -> Result<Vec<Signed>> {
        (0..k).into_par_iter().map(|i| pack_signed(&p[(i * l).min(p.len())..((i + 1) * l).min(p.len())], b)).collect()
    };
    let evaluate = |z: &[Signed]| -> Result<Vec<Signed>> {
        let rows: Vec<Vec<Signed>> = points.par_iter().map(|&pt| eval(z, pt)).collect::<Result<_>>()?;
        Ok(rows.into_iter().flatten().collect())
    };
    let (a, c) = if square {
        (evaluate(&blocks(f)?)?, Vec::new())
    } else {
        let (zf, zg) = rayon::join(|| blocks(f), || blocks(g));
        let (zf, zg) = (zf?, zg?);
        let (a, c) = rayon::join(|| evaluate(&zf), || evaluate(&zg));
        (a?, c?)
    };
    let c = if square { &a } else { &c };
    debug_assert_eq!(a.len(), 2 * k - 1);
    // Each point's product runs inside the call, so that its own checkpoints see a stop.
    let cur = crate::interrupt::current();
    let products: Vec<Signed> = a
        .par_iter()
        .zip(c.par_iter())
        .map(|(x, y)| {
            cur.check()?;
            cur.enter(|| Ok((if square { mul_mag(&x.0, &x.0)? } else { mul_mag(&x.0, &y.0)? }, x.1 != y.1)))
        })
        .collect::<Result<_>>()?;
    cur.check()?;
    let hs: Vec<Option<Signed>> = rows.par_iter().map(|&(d, row)| interpolate_row(&products, d, row)).collect::<Result<_>>()?;
    let terms: Vec<(usize, bool, &[u64])> = hs
        .iter()
        .enumerate()
        .map(|(j, hj)| {
            let off = b as usize * l * j / 64;
            match hj {
                Some((mag, neg)) => (off, *neg, mag.as_slice()),
                None => {
                    let src = rows[j].1.iter().position(|&x| x != 0).unwrap_or(0);
                    (off, products[src].1, products[src].0.as_slice())
                }
            }
        })
        .collect();
    let (p, neg) = sum_shifted(&terms)?;
    unpack_signed(&mut h, &p, neg, b);
    Ok(h)
}

/// The rows of the evaluation at `pt`: X ± Y with X, Y the sums of the even and odd terms
/// Z_j·2^(s_j), s_j = e·j for 2^e and |e|·(k−1−j) for 1/2^|e|.
fn eval(z: &[Signed], pt: Point) -> Result<Vec<Signed>> {
    let k = z.len();
    let shift = |e: i32, j: usize| {
        if e >= 0 {
            e as u64 * j as u64
        } else {
            e.unsigned_abs() as u64 * (k - 1 - j) as u64
        }
    };
    // Σ Z_j·2^(s_j) over the j of one parity (or all): shifts by whole limbs are offsets, only the
    // bit shifts are copies.
    let sum = |e: i32, parity: Option<usize>| -> Result<Signed> {
        let js: Vec<usize> = (0..k).filter(|j| parity.is_none_or(|p| j % 2 == p)).collect();
        let shifted: Vec<(usize, Option<Vec<u64>>)> = js.iter().map(|&j| shl(&z[j].0, shift(e, j))).collect::<Result<_>>()?;
        let terms: Vec<(usize, bool, &[u64])> =
            js.iter().zip(&shifted).map(|(&j, (off, v))| (*off, z[j].1, v.as_deref().unwrap_or(&z[j].0))).collect();
        sum_shifted(&terms)
    };
    Ok(match pt {
        Point::Zero => vec![z[0].clone()],
        Point::Infinity => vec![z[k - 1].clone()],
        Point::Single(e) => vec![sum(e, None)?],
        Point::Pair(e) => {
            // X ± Y from the even and odd sums, each computed once.
            let (x, y) = (sum(e, Some(0))?, sum(e, Some(1))?);
            vec![sum_shifted(&[(0, x.1, &x.0), (0, y.1, &y.0)])?, sum_shifted(&[(0, x.1, &x.0), (0, !y.1, &y.0)])?]
        }
    })
}

/// |x|·2^s as (limb offset ⌊s/64⌋, x shifted by s mod 64 bits, or None when that is 0: x itself).
fn shl(x: &[u64], s: u64) -> Result<(usize, Option<Vec<u64>>)> {
    let (off, bits) = ((s / 64) as usize, (s % 64) as u32);
    if bits == 0 || x.is_empty() {
        return Ok((off, None));
    }
    let mut v = try_zeroed_words(x.len() + 1)?;
    // SAFETY: v has x.len() + 1 limbs and does not overlap x; 0 < bits < 64.
    v[x.len()] = unsafe { gmp::mpn_lshift(v.as_mut_ptr(), x.as_ptr(), x.len() as _, bits) };
    Ok((off, Some(v)))
}

/// H_r = (Σ_j row_j·C_j) / d exactly, or None for a unit row (H_r is one of the C_j). The sum is
/// accumulated in place in two's complement (`mpn_addmul_1` / `mpn_submul_1`) over two limbs more
/// than the longest C_j: every |row_j| ≤ 2^63 and there are at most 15 terms, so
/// |sum| < 2^(64·len + 67) < 2^(64·(len + 2) − 1).
fn interpolate_row(c: &[Signed], d: u64, row: &[i64]) -> Result<Option<Signed>> {
    if d == 1 && row.iter().filter(|&&x| x != 0).count() == 1 && row.contains(&1) {
        return Ok(None);
    }
    let n = c.iter().zip(row).filter(|(_, &w)| w != 0).map(|((m, _), _)| m.len()).max().unwrap_or(0) + 2;
    let mut acc = try_zeroed_words(n)?;
    for ((m, neg), &w) in c.iter().zip(row) {
        if w == 0 || m.is_empty() {
            continue;
        }
        let (len, rest) = (m.len(), n - m.len());
        // SAFETY: acc has n > len limbs, no overlap with m; the carry or borrow goes into the
        // remaining limbs modulo 2^(64n) (two's complement).
        unsafe {
            if *neg != (w < 0) {
                let b = gmp::mpn_submul_1(acc.as_mut_ptr(), m.as_ptr(), len as _, w.unsigned_abs());
                gmp::mpn_sub_1(acc[len..].as_mut_ptr(), acc[len..].as_ptr(), rest as _, b);
            } else {
                let c = gmp::mpn_addmul_1(acc.as_mut_ptr(), m.as_ptr(), len as _, w.unsigned_abs());
                gmp::mpn_add_1(acc[len..].as_mut_ptr(), acc[len..].as_ptr(), rest as _, c);
            }
        }
    }
    let neg = acc[n - 1] >> 63 == 1;
    if neg {
        crate::int::negate_in_place(&mut acc);
    }
    let len = crate::int::normalized(&acc).len();
    acc.truncate(len);
    if d != 1 && !acc.is_empty() {
        // SAFETY: in-place mpn_divrem_1 (identical areas are allowed), d ≠ 0.
        let rem = unsafe { gmp::mpn_divrem_1(acc.as_mut_ptr(), 0, acc.as_ptr(), acc.len() as _, d) };
        debug_assert_eq!(rem, 0, "inexact interpolation");
        let len = crate::int::normalized(&acc).len();
        acc.truncate(len);
    }
    let neg = neg && !acc.is_empty();
    Ok(Some((acc, neg)))
}

#[cfg(test)]
mod tests {
    use crate::testing::zpoly::{check_alg, check_large};
    use crate::zpoly::Alg;

    #[test]
    fn toom4_matches_oracle() {
        check_alg(Alg::Toom4, 300, 3000);
    }

    #[test]
    fn toom8_matches_oracle() {
        check_alg(Alg::Toom8, 300, 3000);
    }

    #[test]
    fn toom4_large_matches_schoolbook() {
        check_large(Alg::Toom4);
    }

    #[test]
    fn toom8_large_matches_schoolbook() {
        check_large(Alg::Toom8);
    }

    /// Random shapes (lengths 1..2000, very unbalanced, 1..2000 bits, all coefficient styles):
    /// Kronecker, divide & conquer, Toom-4 and Toom-8 against the schoolbook product.
    #[test]
    fn block_algorithms_agree_on_random_shapes() {
        use crate::testing::{poly, slab_coefs, views, Rng};
        use crate::zpoly::mul;
        let mut rng = Rng(777);
        for it in 0..150 {
            let fl = 1 + rng.below(if it % 10 == 0 { 2000 } else { 150 }) as usize;
            let gl = 1 + rng.below(if it % 7 == 0 { 2000 } else { 150 }) as usize;
            let bits = 1 + rng.below(if it % 5 == 0 { 2000 } else { 200 });
            let (s1, s2) = (rng.below(4), rng.below(4));
            let (f, g) = (poly(&mut rng, fl, bits, s1), poly(&mut rng, gl, bits, s2));
            let (fv, gv) = (views(&f), views(&g));
            let want = slab_coefs(&mul(&fv, &gv, Alg::Schoolbook).unwrap());
            for alg in [Alg::Kronecker, Alg::DivideConquer, Alg::Toom4, Alg::Toom8] {
                let got = slab_coefs(&mul(&fv, &gv, alg).unwrap());
                assert!(got == want, "{alg:?}: {fl} x {gl}, {bits} bits, styles {s1}, {s2}");
            }
        }
    }
}
