//! The DFT over Z/pZ in natural order in and out, for every power of two N | p − 1:
//! X_i = Σ_j x_j ω^(ij), and its inverse with 1/N.
//!
//! Six-step recursion (Thesis (3.5)): N = N1·N2, x viewed as N1 × N2 (x[N2·n1 + n2]);
//! (1) N2 DFTs of size N1 at ω^N2 on the columns (transposed to rows), (2) twiddles
//! x[m1][n2] ·= ω^(m1·n2), (3) N1 DFTs of size N2 at ω^N1 on the rows, (4) a transpose gives
//! X[m1 + N1·m2]. Every size ≤ K = 2k is a base case: its root is a 2k-th root of unity, i.e. a
//! power r^t of r, so it runs as a radix-2 DFT whose butterflies multiply only by powers of r
//! (shifts, [`Gfpf::butterfly`]). N is split into f = ⌈log_K N⌉ base sizes as even as possible
//! (⌊f/2⌋ of them in N2); for N = K^e this is the K^e FFT of the papers: e·K^(e−1) shift-only
//! DFT_K and (e−1)·N twiddle multiplications (fewer: those by ω^0 are skipped).
//! With AVX-512 ([`simd`]), the base DFTs run eight rows per vector and the twiddles of step (2)
//! are IFMA products fused into the base DFTs of step (3) that follow them.
//! Rows of each step run in parallel (rayon); the twiddles ω^i (i < N) are tabulated once per
//! (N, ω) and cached in the field.
use super::{simd, Gfpf};
use crate::int::try_zeroed;
use crate::{invalid, Result};
use rayon::prelude::*;

/// ω^i for i < N, element-major.
pub struct Twiddles {
    pub(super) n: usize,
    pub(super) omega: Vec<u64>,
    pows: Vec<u64>,
}

/// Words per parallel task below which work stays serial.
const GRAIN: usize = 1 << 14;

impl Twiddles {
    fn new(f: &Gfpf, n: usize, omega: &[u64]) -> Result<Self> {
        Ok(Twiddles {
            n,
            omega: omega.to_vec(),
            pows: f.powers(omega, n)?,
        })
    }
}

impl Gfpf {
    /// ω^e for e < n, element-major (parallel runs of repeated products from ω^(256·c)).
    pub fn powers(&self, omega: &[u64], n: usize) -> Result<Vec<u64>> {
        let k = self.k;
        let mut pows = try_zeroed(n * k)?;
        const B: usize = 256;
        pows.par_chunks_mut(B * k)
            .enumerate()
            .for_each(|(c, chunk)| {
                let mut w = self.pow_u64(omega, (c * B) as u64);
                let mut t = vec![0u64; k];
                for e in chunk.chunks_exact_mut(k) {
                    e.copy_from_slice(&w);
                    self.mul(&mut t, &w, omega);
                    std::mem::swap(&mut w, &mut t);
                }
            });
        Ok(pows)
    }
}

/// One transform: the field, its twiddles, the direction, and t with r^t = ω^(N/M0), M0 = min(N, 2k).
struct Plan<'a> {
    f: &'a Gfpf,
    /// Base DFTs through [`simd::base8`] (else scalar only).
    simd: bool,
    /// Twiddle products through [`simd::mul8`] / fused into [`simd::base8`].
    mul_simd: bool,
    tw: &'a Twiddles,
    inverse: bool,
    t0: usize,
    m0: usize,
}

/// dst (cols × rows) = transpose of src (rows × cols), elements of k words.
fn transpose(dst: &mut [u64], src: &[u64], rows: usize, cols: usize, k: usize) {
    // Constant k for P3/P4: the element copies become moves instead of memmove calls.
    match k {
        8 => transpose_k(dst, src, rows, cols, 8),
        16 => transpose_k(dst, src, rows, cols, 16),
        k => transpose_k(dst, src, rows, cols, k),
    }
}

#[inline(always)]
fn transpose_k(dst: &mut [u64], src: &[u64], rows: usize, cols: usize, k: usize) {
    let grain = (GRAIN / (rows * k)).max(1);
    dst.par_chunks_mut(rows * k)
        .with_min_len(grain)
        .enumerate()
        .for_each(|(j, d)| {
            for (i, e) in d.chunks_exact_mut(k).enumerate() {
                e.copy_from_slice(&src[(i * cols + j) * k..][..k]);
            }
        });
}

impl Plan<'_> {
    /// Twiddle ω^i (i taken mod N), the inverse root's power for the inverse transform.
    fn twiddle(&self, i: usize) -> &[u64] {
        let n = self.tw.n;
        let i = if self.inverse { (n - i % n) % n } else { i % n };
        &self.tw.pows[i * self.f.k..][..self.f.k]
    }

    /// em < 2k with ω^(N/m) = r^em (r^(t0·m0/m), its inverse when inverse) for m ≤ 2k.
    fn base_exp(&self, m: usize) -> usize {
        let k2 = 2 * self.f.k;
        let em = self.t0 * (self.m0 / m) % k2;
        if self.inverse {
            (k2 - em) % k2
        } else {
            em
        }
    }

    /// The base DFTs (size m ≤ 2k) of the rows of m elements of x: eight rows per AVX-512 batch
    /// ([`simd::base8`]; a last batch of fewer rows is padded with zero rows), with the
    /// twiddles `tw` of [`simd::Tw`] fused in when given (rows numbered from 0 in x); scalar
    /// row by row without the AVX-512 path (`tw` must then be None); `t` is k words of scratch.
    fn base_rows(&self, x: &mut [u64], m: usize, t: &mut [u64], tw: Option<simd::Tw>) {
        let len = m * self.f.k;
        if !(self.simd && m > 1) {
            debug_assert!(tw.is_none());
            for row in x.chunks_exact_mut(len) {
                self.base(row, m, t);
            }
            return;
        }
        let em = self.base_exp(m);
        for (b, batch) in x.chunks_mut(8 * len).enumerate() {
            let shifted = |l: usize, e: usize| tw.unwrap()(8 * b + l, e);
            let twb = tw.map(|_| &shifted as simd::Tw);
            if batch.len() == 8 * len {
                simd::base8(self.f, batch, m, em, twb);
            } else {
                let mut pad = vec![0u64; 8 * len];
                pad[..batch.len()].copy_from_slice(batch);
                simd::base8(self.f, &mut pad, m, em, twb);
                batch.copy_from_slice(&pad[..batch.len()]);
            }
        }
    }

    /// In-place DFT of the m ≤ 2k elements of x at ω^(N/m) = r^(t0·m0/m) (r^−… when inverse).
    fn base(&self, x: &mut [u64], m: usize, t: &mut [u64]) {
        let k = self.f.k;
        let k2 = 2 * k;
        let lg = m.trailing_zeros();
        if m == 1 {
            return;
        }
        for i in 0..m {
            let j = i.reverse_bits() >> (usize::BITS - lg);
            if i < j {
                let (a, b) = x.split_at_mut(j * k);
                a[i * k..][..k].swap_with_slice(&mut b[..k]);
            }
        }
        let em = self.base_exp(m);
        let mut len = 2;
        while len <= m {
            let (half, step) = (len / 2, em * (m / len) % k2);
            for blk in x.chunks_exact_mut(len * k) {
                let (lo, hi) = blk.split_at_mut(half * k);
                for (j, (a, b)) in lo
                    .chunks_exact_mut(k)
                    .zip(hi.chunks_exact_mut(k))
                    .enumerate()
                {
                    self.f.butterfly(a, b, (step * j) & (k2 - 1), t);
                }
            }
            len *= 2;
        }
    }

    /// In-place DFTs of size n of the rows of x (one row when n > 2k), scratch of the same size.
    fn rows(&self, x: &mut [u64], scratch: &mut [u64], n: usize) {
        if n <= 2 * self.f.k {
            self.base_rows(x, n, &mut scratch[..self.f.k], None);
        } else {
            self.run(x, scratch, n);
        }
    }

    /// In-place DFT of size n (root ω^(N/n)) of x, with scratch of the same size.
    fn run(&self, x: &mut [u64], scratch: &mut [u64], n: usize) {
        let k = self.f.k;
        let kk = 2 * k;
        if n <= kk {
            self.base(x, n, &mut scratch[..k]);
            return;
        }
        let (lg, lgk) = (n.trailing_zeros(), kk.trailing_zeros());
        // f = ⌈lg/lgk⌉ base DFT sizes, as even as possible (so that no level has fewer than 8
        // rows for the AVX-512 batches when avoidable), ⌊f/2⌋ of them in n2.
        let f = lg.div_ceil(lgk);
        let n2 = 1usize << (lg * (f / 2) / f);
        let n1 = n / n2;
        // (1) columns → rows of scratch, DFTs of size n1.
        transpose(scratch, x, n1, n2, k);
        // Base-size rows go in batches of eight (one per AVX-512 lane), larger ones one by one.
        let batch = |m: usize| if m <= kk { 8 } else { 1 };
        let (b1, b2) = (batch(n1), batch(n2));
        let g1 = (GRAIN / (b1 * n1 * k)).max(1);
        scratch
            .par_chunks_mut(b1 * n1 * k)
            .zip(x.par_chunks_mut(b1 * n1 * k))
            .with_min_len(g1)
            .for_each(|(rows, tmp)| self.rows(rows, tmp, n1));
        transpose(x, scratch, n2, n1, k);
        // (2) twiddles ω_n^(m1·n2), ω_n = ω^(N/n); (3) row DFTs of size n2.
        let mult = self.tw.n / n;
        let g2 = (GRAIN / (b2 * n2 * k)).max(1);
        x.par_chunks_mut(b2 * n2 * k)
            .zip(scratch.par_chunks_mut(b2 * n2 * k))
            .enumerate()
            .with_min_len(g2)
            .for_each(|(c, (rows, tmp))| {
                if self.mul_simd && n2 <= kk {
                    // Twiddle products fused into the batched base DFTs (padding rows: any m1).
                    let tw = |l: usize, j: usize| self.twiddle(mult * (c * 8 + l) * j).as_ptr();
                    self.base_rows(rows, n2, &mut tmp[..k], Some(&tw));
                    return;
                }
                let t = &mut tmp[..k];
                for (i, row) in rows.chunks_exact_mut(n2 * k).enumerate() {
                    let m1 = c * b2 + i;
                    if m1 == 0 {
                        continue;
                    }
                    let mut done = 0;
                    if self.mul_simd {
                        for (b, batch) in row.chunks_exact_mut(8 * k).enumerate() {
                            let w = std::array::from_fn(|l| {
                                self.twiddle(mult * m1 * (8 * b + l)).as_ptr()
                            });
                            // SAFETY: twiddles are k words each.
                            unsafe { simd::mul8(self.f, batch, &w) };
                            done += 8;
                        }
                    }
                    for (j, e) in row.chunks_exact_mut(k).enumerate().skip(done.max(1)) {
                        self.f.mul(t, e, self.twiddle(mult * m1 * j));
                        e.copy_from_slice(t);
                    }
                }
                self.rows(rows, tmp, n2);
            });
        // (4) X[m1 + n1·m2] = x[m1][m2].
        transpose(scratch, x, n1, n2, k);
        x.copy_from_slice(scratch);
    }
}

impl Gfpf {
    /// Checks N, ω (canonical, ω^(N/2) = −1, or ω = 1 for N = 1) and x (N canonical elements).
    fn check_dft(&self, x: &[u64], n: usize, omega: &[u64]) -> Result<()> {
        let k = self.k;
        if !n.is_power_of_two() || n.trailing_zeros() as u64 > self.two_adicity() {
            return invalid!("N = {n} is not a power of 2 dividing p − 1");
        }
        if omega.len() != k || !self.is_canonical(omega) {
            return invalid!("ω is not a canonical element");
        }
        let primitive = if n == 1 {
            omega == self.from_u64(1)
        } else {
            self.is_minus_one(&self.pow_u64(omega, n as u64 / 2))
        };
        if !primitive {
            return invalid!("ω is not a primitive {n}-th root of unity");
        }
        if n.checked_mul(k) != Some(x.len()) {
            return invalid!("x has {} words, not N·k = {n}·{k}", x.len());
        }
        self.check_vec(x, "x")
    }

    /// The DFT (or its unscaled inverse) of x; `simd`: the AVX-512 base DFTs where available.
    fn transform(
        &self,
        x: &mut [u64],
        n: usize,
        omega: &[u64],
        inverse: bool,
        simd: bool,
    ) -> Result<()> {
        self.check_dft(x, n, omega)?;
        if n == 1 {
            return Ok(());
        }
        let tw = self.twiddles(n, omega, || Twiddles::new(self, n, omega))?;
        let m0 = n.min(2 * self.k);
        let eta = &tw.pows[(n / m0) * self.k..][..self.k];
        let Some(t0) = self.log_r(eta) else {
            return Err(crate::Error::Internal("ω^(N/M) is not a power of r".into()));
        };
        let plan = Plan {
            f: self,
            simd: simd && simd::available(self),
            mul_simd: simd && simd::mul_available(self),
            tw: &tw,
            inverse,
            t0,
            m0,
        };
        let mut scratch = try_zeroed(x.len())?;
        plan.run(x, &mut scratch, n);
        Ok(())
    }

    /// In place, x ← (Σ_j x_j ω^(ij))_i: N canonical elements (N·k words), natural order in and out;
    /// ω a primitive N-th root of unity, N a power of 2 dividing p − 1.
    pub fn dft(&self, x: &mut [u64], n: usize, omega: &[u64]) -> Result<()> {
        self.transform(x, n, omega, false, true)
    }

    /// The inverse of [`Gfpf::dft`] with the same ω: x ← (1/N)·(Σ_j x_j ω^(−ij))_i.
    pub fn idft(&self, x: &mut [u64], n: usize, omega: &[u64]) -> Result<()> {
        self.transform(x, n, omega, true, true)?;
        if n > 1 {
            let ninv = self.inv(&self.from_u64(n as u64))?;
            let k = self.k;
            x.par_chunks_mut(k).with_min_len(GRAIN / k).for_each_init(
                || vec![0u64; k],
                |t, e| {
                    self.mul(t, e, &ninv);
                    e.copy_from_slice(t);
                },
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{eq, fields, p_mpz, random, value};
    use crate::zpoly::testing::{Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    /// X_i = Σ_j x_j ω^(ij) mod p in GMP.
    fn naive(f: &super::Gfpf, x: &[u64], n: usize, omega: &[u64]) -> Vec<Mpz> {
        let p = p_mpz(f);
        let w = value(f, omega);
        let xs: Vec<Mpz> = x.chunks(f.k()).map(|e| value(f, e)).collect();
        (0..n)
            .map(|i| {
                let mut acc = Mpz::new();
                let mut wi = Mpz::new();
                let mut e = Mpz::new();
                // SAFETY: initialised.
                unsafe {
                    gmp::mpz_set_ui(&mut e.0, i as u64);
                    gmp::mpz_powm(&mut wi.0, &w.0, &e.0, &p.0); // ω^i
                    let mut wij = Mpz::new();
                    gmp::mpz_set_ui(&mut wij.0, 1);
                    for xj in &xs {
                        gmp::mpz_addmul(&mut acc.0, &xj.0, &wij.0);
                        gmp::mpz_mul(&mut wij.0, &wij.0, &wi.0);
                        gmp::mpz_mod(&mut wij.0, &wij.0, &p.0);
                    }
                    gmp::mpz_mod(&mut acc.0, &acc.0, &p.0);
                }
                acc
            })
            .collect()
    }

    fn input(f: &super::Gfpf, rng: &mut Rng, n: usize) -> Vec<u64> {
        let k = f.k();
        let mut x: Vec<u64> = (0..n).flat_map(|_| random(f, rng)).collect();
        if n > 2 {
            f.set_minus_one(&mut x[k..2 * k]); // p − 1
            x[2 * k..3 * k].fill(f.radix() - 1); // all digits r − 1
            x[..k].fill(0);
        }
        x
    }

    #[test]
    fn dft_matches_naive_dft() {
        let mut rng = Rng(0xD7);
        for f in fields() {
            let k = f.k();
            let lg_max = f.two_adicity().min(if k >= 16 { 9 } else { 10 });
            for lg in 0..=lg_max {
                let n = 1usize << lg;
                // FindOmega's root and another primitive root (ω^3).
                let w0 = f.root_of_unity(n).unwrap();
                for w in [w0.clone(), f.pow_u64(&w0, 3)] {
                    let x = input(&f, &mut rng, n);
                    let mut y = x.clone();
                    f.dft(&mut y, n, &w).unwrap();
                    assert!(f.check_vec(&y, "y").is_ok());
                    let want = naive(&f, &x, n, &w);
                    for i in 0..n {
                        assert!(
                            eq(&value(&f, &y[i * k..(i + 1) * k]), &want[i]),
                            "r = {} k = {k} N = {n}: X_{i}",
                            f.radix()
                        );
                    }
                    f.idft(&mut y, n, &w).unwrap();
                    assert_eq!(y, x, "round trip r = {} k = {k} N = {n}", f.radix());
                }
            }
        }
    }

    #[test]
    fn round_trip_large() {
        let mut rng = Rng(0xD8);
        for k in [8, 16] {
            let f = super::Gfpf::builtin(k).unwrap();
            for lg in [12, 13] {
                let n = 1usize << lg;
                let w = f.root_of_unity(n).unwrap();
                let x = input(&f, &mut rng, n);
                let mut y = x.clone();
                f.dft(&mut y, n, &w).unwrap();
                // Spot-check two outputs against GMP: X_1 and X_(N−1).
                let want = naive(&f, &x, 2, &w);
                let x1: Vec<u64> = {
                    let mut s = vec![0u64; k];
                    let mut t = vec![0u64; k];
                    let mut wj = f.from_u64(1);
                    for e in x.chunks(k) {
                        f.mul(&mut t, e, &wj);
                        f.add_assign(&mut s, &t);
                        f.mul(&mut t, &wj, &w);
                        wj.copy_from_slice(&t);
                    }
                    s
                };
                assert!(eq(&value(&f, &x1), &want[1]));
                assert_eq!(&y[k..2 * k], &x1[..], "X_1, k = {k} N = {n}");
                f.idft(&mut y, n, &w).unwrap();
                assert_eq!(y, x, "round trip k = {k} N = {n}");
            }
        }
    }

    /// The AVX-512 base DFTs and the forced scalar fallback give the same transform, equal to the
    /// naive DFT, on random and adversarial inputs (all −1, the impulse −1, all digits r − 1,
    /// alternating edge elements), for P3, P4 and k = 32, every N up to 2^9..2^10 (base sizes, one
    /// and two six-step levels), forward and inverse.
    #[test]
    fn simd_and_scalar_paths_match_naive() {
        use super::super::testing::elements;
        let mut rng = Rng(0xD9);
        for k in [8usize, 16, 32] {
            let f = super::Gfpf::builtin(k).unwrap();
            if !super::simd::available(&f) {
                eprintln!("no AVX-512F/DQ: only the scalar path runs for k = {k}");
            }
            let els = elements(&f, &mut rng, 3);
            let mut m1 = vec![0u64; k];
            f.set_minus_one(&mut m1);
            let lg_max = if k == 8 { 10 } else { 9 };
            for lg in 1..=lg_max {
                let n = 1usize << lg;
                let w = f.root_of_unity(n).unwrap();
                for case in 0..4 {
                    let x: Vec<u64> = match case {
                        0 => (0..n).flat_map(|_| m1.clone()).collect(),
                        1 => (0..n)
                            .flat_map(|j| if j == 0 { m1.clone() } else { vec![0; k] })
                            .collect(),
                        2 => (0..n)
                            .flat_map(|j| els[(j * 5) % els.len()].clone())
                            .collect(),
                        _ => input(&f, &mut rng, n),
                    };
                    let mut y = x.clone();
                    f.transform(&mut y, n, &w, false, true).unwrap();
                    let mut ys = x.clone();
                    f.transform(&mut ys, n, &w, false, false).unwrap();
                    assert_eq!(y, ys, "simd vs scalar k = {k} N = {n} case {case}");
                    if lg <= 7 || case == 3 {
                        let want = naive(&f, &x, n, &w);
                        for i in 0..n {
                            assert!(
                                eq(&value(&f, &y[i * k..(i + 1) * k]), &want[i]),
                                "k = {k} N = {n} case {case}: X_{i}"
                            );
                        }
                    }
                    let mut back = y.clone();
                    f.idft(&mut back, n, &w).unwrap();
                    assert_eq!(back, x, "round trip k = {k} N = {n} case {case}");
                    f.transform(&mut y, n, &w, true, false).unwrap();
                    f.transform(&mut ys, n, &w, true, true).unwrap();
                    assert_eq!(y, ys, "inverse simd vs scalar k = {k} N = {n} case {case}");
                }
            }
        }
    }

    /// N = 2^16 for P3 (16·16 · 16·16: step (3) rows of 256 > 2k, so the twiddles run as separate
    /// IFMA batches, not fused): the AVX-512 path equals the scalar one, forward and inverse.
    #[test]
    fn simd_matches_scalar_with_unfused_twiddles() {
        let mut rng = Rng(0xDA);
        let f = super::Gfpf::builtin(8).unwrap();
        let n = 1 << 16;
        let w = f.root_of_unity(n).unwrap();
        let x = input(&f, &mut rng, n);
        let (mut y, mut ys) = (x.clone(), x.clone());
        f.transform(&mut y, n, &w, false, true).unwrap();
        f.transform(&mut ys, n, &w, false, false).unwrap();
        assert!(y == ys, "forward");
        f.transform(&mut y, n, &w, true, true).unwrap();
        f.transform(&mut ys, n, &w, true, false).unwrap();
        assert!(y == ys, "inverse");
    }

    #[test]
    fn dft_rejects_bad_input() {
        let f = super::Gfpf::builtin(8).unwrap();
        let w = f.root_of_unity(16).unwrap();
        let mut x = vec![0u64; 16 * 8];
        assert!(f.dft(&mut x, 16, &w).is_ok());
        assert!(f.dft(&mut x, 8, &w).is_err()); // wrong order / length
        assert!(f.dft(&mut x[..15 * 8], 15, &w).is_err());
        let w2 = f.pow_u64(&w, 2); // not primitive of order 16
        assert!(f.dft(&mut x, 16, &w2).is_err());
        x[3] = f.radix(); // malformed digit
        assert!(f.dft(&mut x, 16, &w).is_err());
        let g = super::Gfpf::new(2, 4).unwrap(); // 17: v2 = 4
        assert!(g.dft(&mut vec![0u64; 32 * 4], 32, &g.from_u64(3)).is_err());
    }
}
