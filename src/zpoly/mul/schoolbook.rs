//! Schoolbook product h_k = Σ_{i+j=k} f_i·g_j ([FM] Algorithm 2), parallel over k.
//!
//! Each h_k is accumulated in two's complement over `stride + 1` limbs (the magnitude bound of
//! [`product_bits`] plus a sign limb) with GMP's `mpn_mul`, `mpn_add` and `mpn_sub`, then stored in
//! sign–magnitude form.
use crate::int::{limbs_for_bits, max_bits, normalized, product_bits, IntRef, ZSlab};
use crate::Result;
use gmp_mpfr_sys::gmp;
use rayon::prelude::*;

/// Outputs per rayon task; a product with fewer outputs than this runs on the calling thread.
pub(crate) const GRAIN: usize = 16;

/// f·g by the schoolbook method.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    let (bf, bg) = (max_bits(f), max_bits(g));
    let stride = limbs_for_bits(product_bits(bf, bg, f.len(), g.len()));
    let mut h = ZSlab::zeros(f.len() + g.len() - 1, stride)?;
    let w = h.stride() + 1;
    let tmp_len = (limbs_for_bits(bf) + limbs_for_bits(bg)).max(1);
    let init = || (vec![0u64; w], vec![0u64; tmp_len]);
    let cur = crate::interrupt::current();
    let row = |(acc, tmp): &mut (Vec<u64>, Vec<u64>), (k, (row, sign)): (usize, (&mut [u64], &mut bool))| {
        if cur.is_stopped() {
            return;
        }
        acc.fill(0);
        let lo = k.saturating_sub(g.len() - 1);
        let hi = k.min(f.len() - 1);
        for i in lo..=hi {
            addmul_signed(acc, f[i], g[k - i], tmp);
        }
        let n = row.len();
        row.copy_from_slice(&acc[..n]);
        let negative = acc[n] >> 63 == 1;
        if negative {
            crate::int::negate_in_place(row);
        }
        *sign = negative && row.iter().any(|&l| l != 0);
    };
    if h.len() < GRAIN {
        let mut scratch = init();
        h.rows_mut().enumerate().for_each(|r| row(&mut scratch, r));
    } else {
        h.par_rows_mut().enumerate().with_min_len(GRAIN).for_each_init(init, row);
    }
    cur.check()?;
    Ok(h)
}

/// acc += a·b in two's complement modulo 2^(64·acc.len()); `tmp` holds at least |a|+|b| limbs.
pub(crate) fn addmul_signed(acc: &mut [u64], a: IntRef, b: IntRef, tmp: &mut [u64]) {
    if a.is_zero() || b.is_zero() {
        return;
    }
    let (x, y) = if a.mag.len() >= b.mag.len() { (a.mag, b.mag) } else { (b.mag, a.mag) };
    let tl = x.len() + y.len();
    // SAFETY: tmp has tl limbs and does not overlap x or y; x.len() >= y.len() >= 1.
    unsafe {
        if y.len() == 1 {
            tmp[x.len()] = gmp::mpn_mul_1(tmp.as_mut_ptr(), x.as_ptr(), x.len() as _, y[0]);
        } else {
            gmp::mpn_mul(tmp.as_mut_ptr(), x.as_ptr(), x.len() as _, y.as_ptr(), y.len() as _);
        }
    }
    let p = normalized(&tmp[..tl]);
    let an = acc.len() as _;
    // SAFETY: acc.len() >= p.len() (product bound) and rp == s1p is allowed by GMP.
    unsafe {
        if a.neg != b.neg {
            gmp::mpn_sub(acc.as_mut_ptr(), acc.as_ptr(), an, p.as_ptr(), p.len() as _);
        } else {
            gmp::mpn_add(acc.as_mut_ptr(), acc.as_ptr(), an, p.as_ptr(), p.len() as _);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::zpoly::check_alg;
    use crate::zpoly::Alg;

    #[test]
    fn schoolbook_matches_oracle() {
        check_alg(Alg::Schoolbook, 200, 3000);
    }
}
