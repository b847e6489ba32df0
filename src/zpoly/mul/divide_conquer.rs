//! Divide & conquer over Kronecker substitution ([FM] Algorithm 4, §3.3, §3.5.1; BPAS's DnC_p).
//!
//! One halving is h = F₁G₁x^(m₁+n₁) + F₁G₀x^(m₁) + F₀G₁x^(n₁) + F₀G₀ for f = F₀ + x^(m₁)F₁,
//! g = G₀ + x^(n₁)G₁ (eq. 3.8; Algorithm 4 prints the two middle shifts swapped, harmless only when
//! m = n). d levels of it are the 2^d × 2^d products of the blocks of f and g, which BPAS runs as
//! 16 concurrent KS sub-products for d = 2; here they run as one parallel loop, each block packed
//! once with the b of the whole product (b = product_bits + 1 bounds every partial sum too), and
//! the shifted sub-products are overlap-added as integers ([`sum_shifted`]) before one signed
//! unpacking. Block lengths are multiples of 64/gcd(b, 64), so every shift is a whole number of
//! limbs. An operand at least twice as long as the other is first cut into pieces of about the
//! shorter length (at most [`pieces_cap`] of them), each then split like a balanced pair.
//! Squares compute each off-diagonal block product once.
use super::kronecker::same;
use crate::int::{limbs_for_bits, max_bits, mul_mag, pack_signed, product_bits, sum_shifted, unpack_signed, IntRef, ZSlab};
use crate::Result;
use rayon::prelude::*;

/// Blocks are not split below this many coefficients.
const BASE: usize = 32;

/// f·g by divide & conquer with the depth that gives at least one block product per thread.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    let threads = rayon::current_num_threads() as u64;
    let mut depth = 1;
    while 4u64.pow(depth) < threads {
        depth += 1;
    }
    mul_depth(f, g, depth)
}

/// Most pieces an unbalanced operand is cut into.
fn pieces_cap() -> usize {
    4 * rayon::current_num_threads().max(1)
}

/// f·g with `depth` levels of halving (0 is plain Kronecker substitution of each piece).
pub(crate) fn mul_depth(f: &[IntRef], g: &[IntRef], depth: u32) -> Result<ZSlab> {
    let pb = product_bits(max_bits(f), max_bits(g), f.len(), g.len());
    let mut h = ZSlab::zeros(f.len() + g.len() - 1, limbs_for_bits(pb))?;
    if pb == 0 {
        return Ok(h);
    }
    let b = pb + 1;
    let align = 64 / (1usize << b.trailing_zeros().min(6));
    let (long, short) = (f.len().max(g.len()), f.len().min(g.len()));
    let pieces = if long >= 2 * short { long.div_ceil(short).min(pieces_cap()) } else { 1 };
    let mut d = depth.min(16);
    while d > 0 && short >> d < BASE {
        d -= 1;
    }
    let block = |len: usize, parts: usize| len.div_ceil(parts).next_multiple_of(align);
    let (lf, lg) = if f.len() >= g.len() {
        (block(f.len(), pieces << d), block(g.len(), 1 << d))
    } else {
        (block(f.len(), 1 << d), block(g.len(), pieces << d))
    };
    let square = same(f, g);
    let packed = |p: &[IntRef], l: usize| -> Result<Vec<(Vec<u64>, bool)>> { p.par_chunks(l).map(|c| pack_signed(c, b)).collect() };
    let (zf, zg) = if square {
        (packed(f, lf)?, Vec::new())
    } else {
        let (a, c) = rayon::join(|| packed(f, lf), || packed(g, lg));
        (a?, c?)
    };
    let zg = if square { &zf } else { &zg };
    let pairs: Vec<(usize, usize)> =
        (0..zf.len()).flat_map(|i| (0..zg.len()).map(move |j| (i, j))).filter(|&(i, j)| !square || i <= j).collect();
    // Each block product runs inside the call, so that its own checkpoints see a stop.
    let cur = crate::interrupt::current();
    let products: Vec<(usize, bool, Vec<u64>)> = pairs
        .par_iter()
        .map(|&(i, j)| {
            cur.check()?;
            let ((a, na), (c, nc)) = (&zf[i], &zg[j]);
            let p = cur.enter(|| if square && i == j { mul_mag(a, a) } else { mul_mag(a, c) })?;
            let off = b as usize * (i * lf + j * lg) / 64;
            Ok((off, na != nc, p))
        })
        .collect::<Result<_>>()?;
    cur.check()?;
    let terms: Vec<(usize, bool, &[u64])> = pairs
        .iter()
        .zip(&products)
        .flat_map(|(&(i, j), (o, n, p))| {
            let twice = square && i != j;
            std::iter::repeat_n((*o, *n, p.as_slice()), 1 + twice as usize)
        })
        .collect();
    let (p, neg) = sum_shifted(&terms)?;
    unpack_signed(&mut h, &p, neg, b);
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::mul_depth;
    use crate::testing::zpoly::{check_alg, check_large};
    use crate::testing::{oracle, poly, slab_coefs, views, Rng};
    use crate::zpoly::Alg;

    #[test]
    fn divide_conquer_matches_oracle() {
        check_alg(Alg::DivideConquer, 300, 3000);
    }

    #[test]
    fn divide_conquer_large_matches_schoolbook() {
        check_large(Alg::DivideConquer);
    }

    #[test]
    fn divide_conquer_depths() {
        let mut rng = Rng(4);
        for depth in 0..4 {
            for &(fl, gl, bits) in &[(300, 290, 70), (257, 1000, 130), (1000, 40, 64), (513, 1, 200)] {
                let (f, g) = (poly(&mut rng, fl, bits, 2), poly(&mut rng, gl, bits, 0));
                let (fv, gv) = (views(&f), views(&g));
                let got = slab_coefs(&mul_depth(&fv, &gv, depth).unwrap());
                assert!(got == oracle(&fv, &gv), "depth {depth}, {fl} x {gl}, {bits} bits");
                let got = slab_coefs(&mul_depth(&fv, &fv, depth).unwrap());
                assert!(got == oracle(&fv, &fv), "square, depth {depth}, {fl}, {bits} bits");
            }
        }
    }
}
