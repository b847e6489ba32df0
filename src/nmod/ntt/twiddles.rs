//! The twiddle tables of the four-step transform, one set per direction (root r = w or w^(−1),
//! scale c = 1 or n^(−1)), values with their Shoup constants for the lanes' shift: the stage
//! twiddles of the two line DFTs, and the four-step twiddles r^(i1·j2) either folded into pass 2
//! as coset DFTs ([`Twist::Coset`], no products, 16n bytes) or applied by a twiddle stage at the
//! end of pass 1 ([`Twist::Stage`], two products per line, 2n bytes).
use super::lanes::{shoup_s, Line};
use super::line_dft::rev;
use crate::int::try_zeroed;
use crate::nmod::prime::{mul_shoup, mulmod, powmod, shoup};
use crate::Result;
use rayon::prelude::*;

/// Twiddle tables of one direction (root r = w or w^(−1), scale c = 1 or n^(−1)), values with
/// their Shoup constants for the lanes' shift.
pub(super) struct Dir {
    /// (r^n2)^rev(k), k < n1/2: the line DFT of pass 1.
    pub(super) tw1: Vec<[u64; 2]>,
    /// The four-step twiddles r^(i1·j2) (and c).
    pub(super) twist: Twist,
}

/// How the four-step twiddles r^(i1·j2) are applied (see [`super::four_step::FourStep::coset`]).
pub(super) enum Twist {
    /// Folded into pass 2's stage twiddles: the table of [`coset_twiddles`] (16n bytes, entry
    /// t·n2 + 2^s + g the line of stage s, block g of strip t), and (c, Shoup constant) when
    /// c ≠ 1, by which pass 2 multiplies its outputs.
    Coset { tw: Vec<[Line; 2]>, scale: Option<[u64; 2]> },
    /// A twiddle stage at the end of pass 1, two products per line: c·r^(i1·j2) =
    /// lane\[i1\]\[j2 mod 8\] · row\[(j2/8)·n1 + i1\], i.e. c·r^(i1·(j2 mod 8)) (lines of values and
    /// Shoup constants, n1 of them) times r^(8·i1·(j2/8)) (n/8 scalars); pass 2 runs plain DFTs
    /// with the stage twiddles tw2 = (r^n1)^rev(k), k < n2/2.
    Stage { tw2: Vec<[u64; 2]>, lane: Vec<[Line; 2]>, row: Vec<[u64; 2]> },
}

/// u^rev(k) for k < m/2 with Shoup constants: the stage twiddles of a size-m DFT at u.
fn stage_twiddles(m: usize, u: u64, p: u64, s: u32) -> Vec<[u64; 2]> {
    let bits = (m / 2).trailing_zeros();
    (0..m / 2).map(|k| powmod(u, rev(k, bits) as u64, p)).map(|v| [v, shoup_s(v, p, s)]).collect()
}

/// The stage twiddles of pass 2 as coset DFTs: pass 2 column i1 evaluates Y(z) = Σ_j2 Y_j2·z^j2
/// (Y = pass 1's output) at the coset c·⟨v⟩, c = r^i1, v = r^n1, which *is* the four-step
/// twiddle multiply Y_j2 ← r^(i1·j2)·Y_j2 followed by the DFT at v. Radix-2 Cooley–Tukey on
/// z^m − c^m (m = n2): block g of stage s holds Y mod z^M − (c·v^rev_s(g))^M (M = m/2^s) and
/// splits it with the butterfly (x + A·y, x − A·y), A = (c·v^rev_s(g))^(M/2) =
/// c^(m/2^(s+1))·v^rev(g) (rev on log2(m/2) bits: the plain stage twiddle); slot k ends holding
/// Y(c·v^rev(k)). So the twiddle multiply costs no product at all, only this n-line table.
fn coset_twiddles(n1: usize, n2: usize, r: u64, p: u64, sh: u32) -> Result<Vec<[Line; 2]>> {
    let plain: Vec<u64> = stage_twiddles(n2, powmod(r, n1 as u64, p), p, 64).into_iter().map(|[v, _]| v).collect();
    let mut tw = try_zeroed::<[Line; 2]>(n1 / 8 * n2)?;
    tw.par_chunks_mut(n2).enumerate().for_each(|(t, strip)| {
        for c in 0..8 {
            let i1 = (8 * t + c) as u64;
            for s in 0..n2.trailing_zeros() {
                let a = powmod(r, i1 * (n2 >> (s + 1)) as u64, p);
                let a_sh = shoup(a, p);
                for g in 0..1usize << s {
                    let v = mul_shoup(plain[g], a, a_sh, p);
                    let e = &mut strip[(1 << s) + g];
                    (e[0].0[c], e[1].0[c]) = (v, shoup_s(v, p, sh));
                }
            }
        }
    });
    Ok(tw)
}

impl Dir {
    pub(super) fn new(n1: usize, n2: usize, (r, c): (u64, u64), p: u64, s: u32, coset: bool) -> Result<Self> {
        let twist = if coset {
            Twist::Coset { tw: coset_twiddles(n1, n2, r, p, s)?, scale: (c != 1).then(|| [c, shoup_s(c, p, s)]) }
        } else {
            let mut row = try_zeroed::<[u64; 2]>(n1 * n2 / 8)?;
            row.par_chunks_mut(n1).enumerate().with_min_len(16).for_each(|(st, rows)| {
                let step = powmod(r, 8 * st as u64, p);
                let step_sh = shoup(step, p);
                let mut cur = 1;
                for e in rows {
                    *e = [cur, shoup_s(cur, p, s)];
                    cur = mul_shoup(cur, step, step_sh, p);
                }
            });
            let lane = (0..n1 as u64)
                .map(|i1| {
                    let v: [u64; 8] = std::array::from_fn(|l| mulmod(c, powmod(r, i1 * l as u64, p), p));
                    [Line(v), Line(v.map(|x| shoup_s(x, p, s)))]
                })
                .collect();
            Twist::Stage { tw2: stage_twiddles(n2, powmod(r, n1 as u64, p), p, s), lane, row }
        };
        Ok(Dir { tw1: stage_twiddles(n1, powmod(r, n2 as u64, p), p, s), twist })
    }
}
