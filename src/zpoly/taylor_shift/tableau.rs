//! The Taylor shift by Horner's scheme on a tableau: for i = n−2 down to 0, for j = i … n−2,
//! a_j ← a_j + c·a_(j+1) (Horner's scheme, [vzGG97]; FLINT's `_fmpz_poly_taylor_shift_horner`). After the
//! last row a_k = Σ_i f_i·C(i, k)·c^(i−k) = g_k.
//!
//! The coefficients are held in two's complement over w limbs, w from the block's bound
//! ([`super::shift_bits`]) plus a sign bit, so every step is one `mpn_add_n` / `mpn_sub_n` (c = ±1)
//! or one `mpn_addmul_1` / `mpn_submul_1` per limb of c, all modulo 2^(64w): exact because every
//! intermediate a_j is a partial sum of the same terms and obeys the same bound. The loop visits the
//! tableau in square tiles of [`TILE`] rows and columns (a tile's coefficients stay in L1), which
//! respects its dependencies (a_(i+j) of row i needs a_(i+j+1) of row i and a_(i+j) of row i+1).
//! None of these GMP functions allocates, so the shift runs on any worker.
use super::shift_bits;
use crate::int::{limbs_for_bits, max_bits, negate_in_place, normalized, try_zeroed_words, IntRef, RowsMut, ZSlab};
use crate::interrupt::Current;
use crate::Result;
use gmp_mpfr_sys::gmp;

/// Rows and columns of one tile of the tableau.
const TILE: usize = 32;

/// rows ← rows(x + c) in place (rows hold the block's bound). Checks for an interrupt every tile row.
pub fn shift_rows(rows: &mut RowsMut, c: IntRef, cur: &Current) -> Result<()> {
    let n = rows.len();
    if n <= 1 || c.is_zero() {
        return Ok(());
    }
    let bits = (0..n).map(|i| rows.get(i).bits()).max().unwrap_or(0);
    if bits == 0 {
        return Ok(());
    }
    let w = limbs_for_bits(shift_bits(bits, n, c) + 1);
    let mut t = try_zeroed_words(n * w)?;
    for i in 0..n {
        let v = rows.get(i);
        let a = &mut t[i * w..(i + 1) * w];
        a[..v.mag.len()].copy_from_slice(v.mag);
        if v.neg {
            negate_in_place(a);
        }
    }
    run(&mut t, n, w, c, cur)?;
    for i in 0..n {
        let a = &mut t[i * w..(i + 1) * w];
        let neg = a[w - 1] >> 63 == 1;
        if neg {
            negate_in_place(a);
        }
        let m = normalized(a);
        let (row, sign) = rows.row_mut(i);
        assert!(m.len() <= row.len(), "tableau: a shifted coefficient exceeds the block's bound");
        row[..m.len()].copy_from_slice(m);
        row[m.len()..].fill(0);
        *sign = neg && !m.is_empty();
    }
    Ok(())
}

/// f(x + c) by the tableau alone, as a slab of `shift_bits` limbs (any length; for tests and the
/// dispatcher's small cases).
pub fn shift(f: &[IntRef], c: IntRef, cur: &Current) -> Result<ZSlab> {
    let bits = shift_bits(max_bits(f), f.len(), c);
    let mut g = ZSlab::zeros(f.len(), limbs_for_bits(bits))?;
    for (i, v) in f.iter().enumerate() {
        g.set(i, v.neg, v.mag);
    }
    shift_rows(&mut g.rows_parts_mut(), c, cur)?;
    Ok(g)
}

/// The tableau on n two's complement coefficients of w limbs in t.
fn run(t: &mut [u64], n: usize, w: usize, c: IntRef, cur: &Current) -> Result<()> {
    let step = Step::new(c);
    let p = t.as_mut_ptr();
    let mut ii = n as isize - 2;
    while ii >= 0 {
        cur.check()?;
        let lo = (ii - TILE as isize + 1).max(0);
        let mut jj = 0usize;
        while jj < n - ii as usize - 1 {
            for i in (lo..=ii).rev() {
                let i = i as usize;
                let end = (jj + TILE).min(n - i - 1);
                for k in i + jj..i + end {
                    // SAFETY: k + 1 < n, so both coefficients lie in t; they do not overlap.
                    unsafe { step.apply(p.add(k * w), p.add((k + 1) * w), w) };
                }
            }
            jj += TILE;
        }
        ii -= TILE as isize;
    }
    Ok(())
}

/// One tableau step a ← a + c·b modulo 2^(64w).
enum Step<'a> {
    Add,
    Sub,
    /// |c| and the sign of c.
    Mul(&'a [u64], bool),
}

impl<'a> Step<'a> {
    fn new(c: IntRef<'a>) -> Self {
        match (c.mag, c.neg) {
            ([1], false) => Step::Add,
            ([1], true) => Step::Sub,
            (m, neg) => Step::Mul(m, neg),
        }
    }

    /// # Safety
    /// a and b point to w limbs each, not overlapping.
    #[inline(always)]
    unsafe fn apply(&self, a: *mut u64, b: *const u64, w: usize) {
        match *self {
            Step::Add => {
                gmp::mpn_add_n(a, a, b, w as _);
            }
            Step::Sub => {
                gmp::mpn_sub_n(a, a, b, w as _);
            }
            Step::Mul(m, neg) => {
                for (l, &cl) in m.iter().enumerate().take(w) {
                    if cl == 0 {
                        continue;
                    }
                    if neg {
                        gmp::mpn_submul_1(a.add(l), b, (w - l) as _, cl);
                    } else {
                        gmp::mpn_addmul_1(a.add(l), b, (w - l) as _, cl);
                    }
                }
            }
        }
    }
}
