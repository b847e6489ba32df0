//! The Taylor shift by divide and conquer ([vzGG97]; BPAS `taylorShiftDnC`, FLINT's
//! `_fmpz_poly_taylor_shift_divconquer`): with m the largest power of two below n and
//! f = f_lo + x^m·f_hi (f_lo of m coefficients),
//!
//! f(x + c) = f_lo(x + c) + (x + c)^m · f_hi(x + c),
//!
//! the two halves shifted recursively (in parallel) and the product taken by [`crate::zpoly::mul`]
//! (Kronecker substitution or a multi-modular NTT; the GPU under AUTO for large products). The
//! powers (x + c)^(2^j) come from a [`Powers`] table computed once per call (or once per real-root
//! isolation). Blocks that [`super::gpu_wanted`], [`super::tableau_wins`] or
//! [`super::multi_modular_wins`] chooses go to the GPU shift or those algorithms instead of splitting
//! further (so a shift too large for the GPU's primes runs with the GPU shift at its leaves). With M(n) the cost
//! of the product at the top level, the whole shift costs O(M(n)): each level halves the lengths and
//! the coefficient growth, so the levels' costs form a geometric series.
use super::{gpu_wanted, multi_modular, multi_modular_wins, shift_bits, tableau, tableau_wins, Powers};
use crate::int::{add_assign_signed, RowsMut, ZSlab};
use crate::interrupt::Current;
use crate::tuning::ZPOLY_TAYLOR_SHIFT_PARALLEL_MIN_WORDS;
use crate::zpoly::{mul, Alg};
use crate::Result;
use rayon::prelude::*;

/// rows ← rows(x + c) in place, c the table's shift; rows hold the block's bound. Blocks go to the
/// GPU by [`gpu_wanted`], else to the multi-modular shift by [`multi_modular_wins`], else to the
/// tableau by [`tableau_wins`]; with `base` = Some(b), to the tableau exactly when they have at most
/// b rows and never to the others.
pub fn shift_rows(rows: &mut RowsMut, pw: &Powers, base: Option<usize>, cur: &Current) -> Result<()> {
    let n = rows.len();
    if n <= 1 {
        return Ok(());
    }
    cur.check()?;
    let bits = (0..n).map(|i| rows.get(i).bits()).max().unwrap_or(0);
    if bits == 0 {
        return Ok(());
    }
    if base.is_some_and(|b| n <= b.max(1)) {
        return tableau::shift_rows(rows, pw.c(), cur);
    }
    let out = shift_bits(bits, n, pw.c());
    if base.is_none() && gpu_wanted(n, out, crate::runtime::backend())? {
        let g = crate::gpu::zpoly_mul::taylor_shift(&rows.views(), pw.c(), out)?;
        store(rows, &g);
        return Ok(());
    }
    if base.is_none() && multi_modular_wins(n, out) {
        let g = multi_modular::shift(&rows.views(), pw.c(), cur)?;
        store(rows, &g);
        return Ok(());
    }
    if base.is_none() && tableau_wins(n, bits) {
        return tableau::shift_rows(rows, pw.c(), cur);
    }
    let m = 1usize << (usize::BITS - 1 - (n - 1).leading_zeros());
    let stride = rows.stride;
    let (mut lo, mut hi) = rows.reborrow().split_at(m);
    if (n * stride) as u64 >= ZPOLY_TAYLOR_SHIFT_PARALLEL_MIN_WORDS {
        let (a, b) = rayon::join(|| shift_rows(&mut lo, pw, base, cur), || shift_rows(&mut hi, pw, base, cur));
        a?;
        b?;
    } else {
        shift_rows(&mut lo, pw, base, cur)?;
        shift_rows(&mut hi, pw, base, cur)?;
    }
    cur.check()?;
    let p = {
        let bin = pw.power(m)?;
        mul(&bin.views(), &hi.views(), Alg::Auto)?
    };
    debug_assert_eq!(p.len(), n);
    let (mag, neg) = (&mut *rows.mag, &mut *rows.neg);
    mag.par_chunks_mut(stride).zip(neg.par_iter_mut()).enumerate().with_min_len(64).for_each(|(k, (row, sign))| {
        let v = p.get(k);
        if k < m {
            add_assign_signed(row, sign, v);
        } else {
            assert!(v.mag.len() <= row.len(), "divide and conquer: a shifted coefficient exceeds the bound");
            row[..v.mag.len()].copy_from_slice(v.mag);
            row[v.mag.len()..].fill(0);
            *sign = v.neg;
        }
    });
    Ok(())
}

/// rows ← g (as many coefficients; each within the rows' stride).
fn store(rows: &mut RowsMut, g: &ZSlab) {
    for i in 0..rows.len() {
        let v = g.get(i);
        let (row, sign) = rows.row_mut(i);
        assert!(v.mag.len() <= row.len(), "shift of a block: a coefficient exceeds the block's bound");
        row[..v.mag.len()].copy_from_slice(v.mag);
        row[v.mag.len()..].fill(0);
        *sign = v.neg;
    }
}
