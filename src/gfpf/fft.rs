//! The DFT over Z/pZ in natural order in and out, for every power of two N | p − 1:
//! X_i = Σ_j x_j ω^(ij), and its inverse with 1/N.
//!
//! Six-step recursion (Thesis (3.5)): N = N1·N2, x viewed as N1 × N2 (x[N2·n1 + n2]);
//! (1) N2 DFTs of size N1 on the columns, (2) twiddles x[m1][n2] ·= ω^(m1·n2), (3) N1 DFTs of
//! size N2 on the rows, (4) X[m1 + N1·m2] = x[m1][m2]. N2 ≤ K = 2k is a base size: its root is a
//! 2k-th root of unity, i.e. a power r^t of r, so it runs as a radix-2 DFT whose butterflies
//! multiply only by powers of r (shifts, [`Gfpf::butterfly`]); step (1) recurses on N1 with the
//! N2 columns as one batch of columns. N is cut into f = ⌈log_K N⌉ base sizes as even as
//! possible; for N = K^e this is the K^e FFT of the papers: e·K^(e−1) shift-only DFT_K and
//! (e−1)·N twiddle multiplications.
//! No transposes: each level is one pass ([`Plan::pass`]) that reads its base DFTs' inputs in
//! place (strided) and writes the outputs to their step-(4) places in the other buffer, the two
//! buffers alternating so that the last pass lands in x (f passes over the data in all).
//! With AVX-512 ([`simd`]), eight base DFTs run per vector, with the twiddles of step (2) as IFMA
//! products fused into them; with the IFMA products and k ≤ 16 a base size may also be 4k
//! (M = 4k: f = ⌈log_4k N⌉ passes; one radix-2 level with products by ω_4k on a quarter of the
//! elements, [`simd::dft8`]), which saves a pass where log2 N is not a multiple of log2 2k
//! (P3: N = 2^13, 2^14, 2^15, 2^17, 2^18, 2^19; P4: 2^12, 2^16, 2^17, 2^18). While a batch
//! loads, the next batch's inputs and twiddles are prefetched. Batches run in parallel (rayon); the twiddles ω^i (i < N) are
//! tabulated once per (N, ω) and cached in the field.
use super::{simd, Gfpf};
use crate::nmod::scratch;
use crate::tuning::{GFPF_DFT_PARALLEL_TASK_MIN_WORDS, GFPF_DFT_STREAM_MIN_WORDS};
use crate::{invalid, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// ω^i for i < N, element-major, for a primitive N-th root ω (N ≥ 2), checked once when the
/// table is made, so that a transform whose (N, ω) hits the cache ([`Gfpf::twiddles`]) skips the
/// check (ω^(N/2) = −1: log2 N products) and log_r; 1/N made on the first inverse transform.
/// The table starts on a 64-byte boundary (word `off` of `pows`): an element of P3 is one cache
/// line, not two (the last pass gathers one twiddle per element from all over the table).
pub struct Twiddles {
    pub(super) n: usize,
    pub(super) omega: Vec<u64>,
    pows: Vec<u64>,
    off: usize,
    /// t0 with r^t0 = ω^(N/M0), M0 = min(N, 2k).
    t0: usize,
    /// 1/N.
    ninv: std::sync::OnceLock<Vec<u64>>,
}

impl Twiddles {
    /// The table of a canonical ω, N ≥ 2; `InvalidArgument` unless ω is a primitive N-th root
    /// of unity (ω^(N/2) = −1).
    fn new(f: &Gfpf, n: usize, omega: &[u64]) -> Result<Self> {
        if !f.is_minus_one(&f.pow_u64(omega, n as u64 / 2)) {
            return invalid!("ω is not a primitive {n}-th root of unity");
        }
        let mut pows = scratch::fresh(n * f.k + 7)?;
        let off = line_offset(&pows);
        f.powers_into(omega, &mut pows[off..off + n * f.k]);
        // A stopped call left the table unfinished: it is not cached.
        crate::interrupt::checkpoint()?;
        let m0 = n.min(2 * f.k);
        let Some(t0) = f.log_r(&pows[off + (n / m0) * f.k..][..f.k]) else {
            return Err(crate::Error::Internal("ω^(N/M) is not a power of r".into()));
        };
        Ok(Twiddles { n, omega: omega.to_vec(), pows, off, t0, ninv: std::sync::OnceLock::new() })
    }

    /// The table: ω^i at words [i·k, (i + 1)·k).
    fn table(&self) -> &[u64] {
        &self.pows[self.off..]
    }
}

/// The words from the start of v to its first 64-byte boundary (< 8).
fn line_offset(v: &[u64]) -> usize {
    v.as_ptr().align_offset(64).min(7)
}

/// Passes of DFTs with at least this many words (N·k) store through a staging batch and
/// non-temporal stores where their destination is 64-byte aligned ([`simd::stream_out`]).
static STREAM_MIN: AtomicUsize = AtomicUsize::new(GFPF_DFT_STREAM_MIN_WORDS);

/// Sets the size (N·k words) from which the DFT passes store non-temporally into 64-byte
/// aligned buffers (usize::MAX: never; default [`GFPF_DFT_STREAM_MIN_WORDS`]; for benchmarks that
/// compare the two, same results).
pub fn set_stream_min(words: usize) {
    STREAM_MIN.store(words, Ordering::Relaxed);
}

impl Gfpf {
    /// ω^e for e < n, element-major (parallel runs of repeated products from ω^(256·c)); the
    /// table is on huge pages where it is large ([`scratch::fresh`]: the last pass of a DFT
    /// gathers its twiddles from all over it).
    pub fn powers(&self, omega: &[u64], n: usize) -> Result<Vec<u64>> {
        let mut pows = scratch::fresh(n * self.k)?;
        self.powers_into(omega, &mut pows);
        crate::interrupt::checkpoint()?;
        Ok(pows)
    }

    /// pows ← ω^e for e < pows.len()/k, element-major (as [`Gfpf::powers`]). A stopped call
    /// skips the remaining chunks (the caller checks and discards the table).
    fn powers_into(&self, omega: &[u64], pows: &mut [u64]) {
        let k = self.k;
        const B: usize = 256;
        let cur = crate::interrupt::current();
        pows.par_chunks_mut(B * k).enumerate().for_each(|(c, chunk)| {
            if cur.is_stopped() {
                return;
            }
            let mut w = self.pow_u64(omega, (c * B) as u64);
            let mut t = vec![0u64; k];
            for e in chunk.chunks_exact_mut(k) {
                e.copy_from_slice(&w);
                self.mul(&mut t, &w, omega);
                std::mem::swap(&mut w, &mut t);
            }
        });
    }
}

/// One transform: the field, its twiddles, the direction, and t with r^t = ω^(N/M0), M0 = min(N, 2k).
struct Plan<'a> {
    f: &'a Gfpf,
    /// Base DFTs through [`simd::dft8`] (else scalar only).
    simd: bool,
    /// Twiddle products fused into [`simd::dft8`] (else scalar products).
    mul_simd: bool,
    tw: &'a Twiddles,
    inverse: bool,
    t0: usize,
    m0: usize,
    /// The largest base size: 2k, or 4k with the IFMA products ([`simd::max_base`]).
    max_base: usize,
    /// Non-temporal stores into 64-byte aligned destinations ([`STREAM_MIN`]).
    stream: bool,
    /// The running call: once it is stopped the remaining passes are skipped (the buffer then holds
    /// no transform, and [`Gfpf::transform`] returns `Err(Interrupted)`).
    cur: crate::interrupt::Current,
}

/// A buffer of N elements shared by the tasks of a pass, which touch disjoint elements.
#[derive(Clone, Copy)]
struct Buf(*mut u64);
// SAFETY: the passes write disjoint elements from different tasks (see `Plan::pass`).
unsafe impl Send for Buf {}
// SAFETY: as above.
unsafe impl Sync for Buf {}

impl Buf {
    /// The address of word i.
    ///
    /// # Safety
    /// i is within the buffer.
    unsafe fn at(self, i: usize) -> *mut u64 {
        // SAFETY: caller.
        unsafe { self.0.add(i) }
    }
}

impl Plan<'_> {
    /// Twiddle ω^i (i taken mod N), the inverse root's power for the inverse transform.
    fn twiddle(&self, i: usize) -> &[u64] {
        let n = self.tw.n;
        let i = if self.inverse { (n - i % n) % n } else { i % n };
        &self.tw.table()[i * self.f.k..][..self.f.k]
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
                for (j, (a, b)) in lo.chunks_exact_mut(k).zip(hi.chunks_exact_mut(k)).enumerate() {
                    self.f.butterfly(a, b, (step * j) & (k2 - 1), t);
                }
            }
            len *= 2;
        }
    }

    /// The base size n2 of the last pass of a DFT of size n > M (M = `max_base`): n is cut into
    /// f = ⌈log_M n⌉ base sizes as even as possible, the smallest ones last (so a 4k-point
    /// base, which costs 1/4 product per element more than a 2k-point one, is used only where it
    /// saves a pass: e.g. P3, N = 2^13 = 32·16·16 in three passes instead of four).
    fn split(&self, n: usize) -> usize {
        let lg = n.trailing_zeros();
        let f = lg.div_ceil(self.max_base.trailing_zeros());
        1 << (lg / f)
    }

    /// DFTs of size n of the c columns of a (n rows of c elements), the result in b if `to_b`,
    /// else in a; the other buffer (as large) is scratch. n = n1·n2: the columns of size n1 (the
    /// rows of n2·c elements, into the other buffer), then the twiddled base DFTs of size n2 from
    /// there to the result's buffer ([`Plan::pass`]), so the buffers alternate level by level.
    fn dft(&self, a: Buf, b: Buf, n: usize, c: usize, to_b: bool) {
        let (src, dst) = if to_b { (a, b) } else { (b, a) };
        if n <= self.max_base {
            if !self.cur.is_stopped() {
                self.pass(a, dst, 1, n, c);
            }
        } else {
            let n2 = self.split(n);
            self.dft(a, b, n / n2, n2 * c, !to_b);
            if !self.cur.is_stopped() {
                self.pass(src, dst, n / n2, n2, c);
            }
        }
    }

    /// Steps (2)–(4) of a level n = n1·n2 (n2 ≤ 2k) over c columns: src holds
    /// Y[a][b] (row a·n2 + b, a < n1, b < n2, column j at element (a·n2 + b)·c + j), the DFTs of
    /// size n1 already done; dst gets X[a + n1·b'] = Σ_b Y[a][b]·ω_n^(a·b)·ω_n2^(b·b'),
    /// ω_n = ω^(N/n) (at element (a + n1·b')·c + j). The n1·c DFTs run eight per batch
    /// ([`simd::dft8`], lanes = consecutive (a, j), j fastest), in parallel over batches; src may
    /// be dst when n1 = 1 (no twiddles: the base DFTs of the first pass, in place).
    fn pass(&self, src: Buf, dst: Buf, n1: usize, n2: usize, c: usize) {
        let k = self.f.k;
        let lanes = n1 * c;
        let nb = lanes.div_ceil(8);
        let (mult, lc) = (self.tw.n / (n1 * n2), c.trailing_zeros());
        // A 4k-point base (n2 > 2k): r^em = ω_n2², and ω_n2 itself for its last level.
        let em = self.base_exp(n2.min(2 * k));
        let root = (n2 > 2 * k).then(|| self.twiddle(self.tw.n / n2));
        let stream = self.stream && (dst.0 as usize).is_multiple_of(64);
        let batch = |bi: usize, tmp: &mut Vec<u64>| {
            let u0 = 8 * bi;
            let cnt = (lanes - u0).min(8);
            let (mut sp, mut dp, mut step) = ([std::ptr::null(); 8], [std::ptr::null_mut(); 8], [0; 8]);
            for l in 0..cnt {
                let (a, j) = ((u0 + l) >> lc, (u0 + l) & (c - 1));
                // SAFETY: in the buffers of N elements (a·n2·c + j < N, a·c + j < N).
                unsafe {
                    sp[l] = src.at((a * n2 * c + j) * k).cast_const();
                    dp[l] = dst.at((a * c + j) * k);
                }
                step[l] = mult * a;
            }
            let twiddled = step.iter().any(|&s| s != 0);
            if self.mul_simd || (self.simd && !twiddled) {
                let mut io = simd::Lanes {
                    src: sp,
                    src_step: c * k,
                    dst: dp,
                    dst_step: n1 * c * k,
                    lanes: cnt,
                    // The next batch: eight columns on (c ≥ 8) or 8/c rows a on.
                    next: if bi + 1 == nb {
                        0
                    } else if c >= 8 {
                        8 * k
                    } else {
                        8 * n2 * k
                    },
                };
                if stream {
                    // Stage the outputs (element e of lane l at (8·e + l)·k), then stream them.
                    tmp.resize(8 * n2 * k, 0);
                    io.dst = std::array::from_fn(|l| tmp[l * k..].as_mut_ptr());
                    io.dst_step = 8 * k;
                }
                let tw = simd::Twiddles {
                    table: self.tw.table().as_ptr(),
                    step,
                    n: self.tw.n,
                    inverse: self.inverse,
                    next: if bi + 1 == nb || c >= 8 { 0 } else { mult * (8 / c) },
                };
                // SAFETY: every (lane, element) of every batch is a distinct element of src and of
                // dst (the index maps above are bijections); step·b < N (the table's size).
                unsafe { simd::dft8(self.f, n2, em, &io, twiddled.then_some(&tw), root) };
                if stream {
                    // SAFETY: tmp holds the 8·n2·k staged words; dst is 64-byte aligned and k a
                    // multiple of 8, so every lane's output element is (the maps above).
                    unsafe { simd::stream_out(k, tmp.as_ptr(), &dp, cnt, n2, n1 * c * k) };
                }
                return;
            }
            // Scalar: gather the rows, twiddles, base DFTs (batched if possible), scatter.
            let len = n2 * k;
            tmp.resize(8 * len + k, 0);
            let (rows, t) = tmp.split_at_mut(8 * len);
            for l in 0..cnt {
                for (b, e) in rows[l * len..][..len].chunks_exact_mut(k).enumerate() {
                    // SAFETY: lane l's element b (as above).
                    e.copy_from_slice(unsafe { std::slice::from_raw_parts(sp[l].add(b * c * k), k) });
                    if b > 0 && step[l] != 0 {
                        self.f.mul(t, e, self.twiddle(step[l] * b));
                        e.copy_from_slice(t);
                    }
                }
            }
            if self.simd {
                rows[cnt * len..].fill(0);
                simd::base8(self.f, rows, n2, em);
            } else {
                for row in rows.chunks_exact_mut(len).take(cnt) {
                    self.base(row, n2, t);
                }
            }
            for l in 0..cnt {
                for (b, e) in rows[l * len..][..len].chunks_exact(k).enumerate() {
                    // SAFETY: lane l's output element b (as above).
                    unsafe { std::slice::from_raw_parts_mut(dp[l].add(b * n1 * c * k), k) }.copy_from_slice(e);
                }
            }
        };
        if rayon::current_num_threads() == 1 || lanes * n2 * k < 2 * GFPF_DFT_PARALLEL_TASK_MIN_WORDS {
            let mut tmp = Vec::new();
            (0..nb).for_each(|bi| batch(bi, &mut tmp));
        } else {
            (0..nb)
                .into_par_iter()
                .with_min_len((GFPF_DFT_PARALLEL_TASK_MIN_WORDS / (8 * n2 * k)).max(1))
                .for_each_init(Vec::new, |tmp, bi| batch(bi, tmp));
        }
    }
}

impl Gfpf {
    /// Checks N, ω (canonical; ω = 1 for N = 1, else primitive: checked by [`Twiddles::new`]) and
    /// x (N canonical elements).
    fn check_dft(&self, x: &[u64], n: usize, omega: &[u64]) -> Result<()> {
        let k = self.k;
        if !n.is_power_of_two() || n.trailing_zeros() as u64 > self.two_adicity() {
            return invalid!("N = {n} is not a power of 2 dividing p − 1");
        }
        if omega.len() != k || !self.is_canonical(omega) {
            return invalid!("ω is not a canonical element");
        }
        if n == 1 && omega != self.from_u64(1) {
            return invalid!("ω is not a primitive {n}-th root of unity");
        }
        if n.checked_mul(k) != Some(x.len()) {
            return invalid!("x has {} words, not N·k = {n}·{k}", x.len());
        }
        self.check_vec(x, "x")
    }

    /// The DFT (or its unscaled inverse) of x; `simd`: the AVX-512 base DFTs where available.
    /// Returns the twiddle table used (none for N = 1).
    fn transform(&self, x: &mut [u64], n: usize, omega: &[u64], inverse: bool, simd: bool) -> Result<Option<Arc<Twiddles>>> {
        self.check_dft(x, n, omega)?;
        if n == 1 {
            return Ok(None);
        }
        let tw = self.twiddles(n, omega, || Twiddles::new(self, n, omega))?;
        let (t0, m0) = (tw.t0, n.min(2 * self.k));
        let mul_simd = simd && simd::mul_available(self);
        let plan_simd = simd && simd::available(self);
        let plan = Plan {
            f: self,
            simd: plan_simd,
            mul_simd,
            tw: &tw,
            inverse,
            t0,
            m0,
            max_base: if mul_simd { simd::max_base(self) } else { 2 * self.k },
            stream: plan_simd && x.len() >= STREAM_MIN.load(Ordering::Relaxed),
            cur: crate::interrupt::current(),
        };
        // The second buffer from the process-wide pool (huge pages, no page faults or memset after
        // the first transform of this size: at 2^20 a P4 buffer is 128 MiB), from a 64-byte
        // boundary (elements on whole cache lines).
        let mut other = scratch::take(x.len() + 7)?;
        let off = line_offset(&other);
        plan.dft(Buf(x.as_mut_ptr()), Buf(other[off..].as_mut_ptr()), n, 1, false);
        scratch::give(other);
        plan.cur.check()?;
        Ok(Some(tw))
    }

    /// In place, x ← (Σ_j x_j ω^(ij))_i: N canonical elements (N·k words), natural order in and out;
    /// ω a primitive N-th root of unity, N a power of 2 dividing p − 1. On the CPU; `Gfpf::dft`
    /// ([`crate::ops::gfpf`]) is the same transform on the device its route picks.
    pub fn dft_cpu(&self, x: &mut [u64], n: usize, omega: &[u64]) -> Result<()> {
        self.transform(x, n, omega, false, true).map(|_| ())
    }

    /// The inverse of [`Gfpf::dft_cpu`] with the same ω: x ← (1/N)·(Σ_j x_j ω^(−ij))_i.
    pub fn idft_cpu(&self, x: &mut [u64], n: usize, omega: &[u64]) -> Result<()> {
        if let Some(tw) = self.transform(x, n, omega, true, true)? {
            let ninv = match tw.ninv.get() {
                Some(v) => v,
                None => {
                    let v = self.inv(&self.from_u64(n as u64))?;
                    tw.ninv.get_or_init(|| v)
                }
            };
            let k = self.k;
            let simd = simd::mul_available(self);
            x.par_chunks_mut(8 * k).with_min_len(GFPF_DFT_PARALLEL_TASK_MIN_WORDS / (8 * k)).for_each_init(
                || vec![0u64; k],
                |t, c| {
                    if simd && c.len() == 8 * k {
                        // SAFETY: ninv holds k words.
                        unsafe { simd::mul8(self, c, &[ninv.as_ptr(); 8]) };
                        return;
                    }
                    for e in c.chunks_exact_mut(k) {
                        self.mul(t, e, ninv);
                        e.copy_from_slice(t);
                    }
                },
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::gfpf::{eq, fields, p_mpz, random, value};
    use crate::testing::{Mpz, Rng};
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
                    f.dft_cpu(&mut y, n, &w).unwrap();
                    assert!(f.check_vec(&y, "y").is_ok());
                    let want = naive(&f, &x, n, &w);
                    for i in 0..n {
                        assert!(eq(&value(&f, &y[i * k..(i + 1) * k]), &want[i]), "r = {} k = {k} N = {n}: X_{i}", f.radix());
                    }
                    f.idft_cpu(&mut y, n, &w).unwrap();
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
                f.dft_cpu(&mut y, n, &w).unwrap();
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
                f.idft_cpu(&mut y, n, &w).unwrap();
                assert_eq!(y, x, "round trip k = {k} N = {n}");
            }
        }
    }

    /// The AVX-512 base DFTs and the forced scalar fallback give the same transform, equal to the
    /// naive DFT, on random and adversarial inputs (all −1, the impulse −1, all digits r − 1,
    /// alternating edge elements), for P3, P4, k = 32 and r = 2^50 + 97·2^20, k = 8 (AVX-512 base
    /// DFTs with scalar twiddle products, r < 2^60), every N up to 2^9..2^10 (base sizes, one and
    /// two six-step levels, passes of fewer than eight rows), forward and inverse.
    #[test]
    fn simd_and_scalar_paths_match_naive() {
        use crate::testing::gfpf::elements;
        let mut rng = Rng(0xD9);
        let mut fs: Vec<_> = [8, 16, 32].map(|k| super::Gfpf::builtin(k).unwrap()).into();
        fs.push(super::Gfpf::new((1 << 50) + 97 * (1 << 20), 8).unwrap());
        for f in fs {
            let k = f.k();
            if !super::simd::available(&f) {
                eprintln!("no AVX-512F/DQ: only the scalar path runs for k = {k}");
            }
            assert!(f.radix() >= 1 << 60 || !super::simd::mul_available(&f));
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
                        1 => (0..n).flat_map(|j| if j == 0 { m1.clone() } else { vec![0; k] }).collect(),
                        2 => (0..n).flat_map(|j| els[(j * 5) % els.len()].clone()).collect(),
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
                            assert!(eq(&value(&f, &y[i * k..(i + 1) * k]), &want[i]), "k = {k} N = {n} case {case}: X_{i}");
                        }
                    }
                    let mut back = y.clone();
                    f.idft_cpu(&mut back, n, &w).unwrap();
                    assert_eq!(back, x, "round trip k = {k} N = {n} case {case}");
                    f.transform(&mut y, n, &w, true, false).unwrap();
                    f.transform(&mut ys, n, &w, true, true).unwrap();
                    assert_eq!(y, ys, "inverse simd vs scalar k = {k} N = {n} case {case}");
                }
            }
        }
    }

    /// N = 2^16 for P3 (four passes of 16, 512 batches each, split over the rayon pool): the
    /// AVX-512 path equals the scalar one, forward and inverse.
    #[test]
    fn simd_matches_scalar_at_2_16() {
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

    /// Non-temporal stores ([`super::set_stream_min`]`(0)`: every pass into a 64-byte aligned
    /// destination stages and streams): P3 and P4, x aligned (every pass streams) and not (only
    /// the passes into the scratch buffer), one to three passes, equal to the cached stores and to
    /// the naive DFT, forward and inverse. Other tests that run meanwhile take the same path and
    /// check it against their own oracles.
    #[test]
    fn streaming_stores_match() {
        let mut rng = Rng(0xDB);
        for k in [8, 16] {
            let f = super::Gfpf::builtin(k).unwrap();
            if !super::simd::available(&f) {
                eprintln!("no AVX-512: the streaming path does not run for k = {k}");
            }
            for lg in [5, 7, 10] {
                let n = 1usize << lg;
                let w = f.root_of_unity(n).unwrap();
                let x = input(&f, &mut rng, n);
                let mut cached = x.clone();
                super::set_stream_min(usize::MAX);
                f.dft_cpu(&mut cached, n, &w).unwrap();
                let mut buf = vec![0u64; n * k + 8];
                let a = super::line_offset(&buf);
                for off in [a, a + 1] {
                    let y = &mut buf[off..off + n * k];
                    y.copy_from_slice(&x);
                    super::set_stream_min(0);
                    f.dft_cpu(y, n, &w).unwrap();
                    assert!(y == cached, "k = {k} N = {n} offset {off}");
                    f.idft_cpu(y, n, &w).unwrap();
                    super::set_stream_min(crate::tuning::GFPF_DFT_STREAM_MIN_WORDS);
                    assert!(y == x, "round trip k = {k} N = {n} offset {off}");
                }
                if lg == 7 {
                    let want = naive(&f, &x, n, &w);
                    for i in 0..n {
                        assert!(eq(&value(&f, &cached[i * k..(i + 1) * k]), &want[i]), "X_{i}");
                    }
                }
            }
        }
    }

    #[test]
    fn dft_rejects_bad_input() {
        let f = super::Gfpf::builtin(8).unwrap();
        let w = f.root_of_unity(16).unwrap();
        let mut x = vec![0u64; 16 * 8];
        assert!(f.dft_cpu(&mut x, 16, &w).is_ok());
        assert!(f.dft_cpu(&mut x, 8, &w).is_err()); // wrong order / length
        assert!(f.dft_cpu(&mut x[..15 * 8], 15, &w).is_err());
        let w2 = f.pow_u64(&w, 2); // not primitive of order 16
        assert!(f.dft_cpu(&mut x, 16, &w2).is_err());
        x[3] = f.radix(); // malformed digit
        assert!(f.dft_cpu(&mut x, 16, &w).is_err());
        let g = super::Gfpf::new(2, 4).unwrap(); // 17: v2 = 4
        assert!(g.dft_cpu(&mut vec![0u64; 32 * 4], 32, &g.from_u64(3)).is_err());
    }
}
