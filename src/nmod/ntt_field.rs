//! Products in Z/pZ\[x\] (p an odd prime < 2^63) through negacyclic transforms that callers keep
//! and reuse: the spectrum of a polynomial is computed once and multiplied pointwise with many
//! others (the nodes of a subproduct tree, a Newton iterate used twice).
//!
//! A spectrum of size n (a power of two, 16 ≤ n ≤ `max_n`) represents a polynomial in
//! Z/qZ\[x\]/(x^n + 1) for every NTT prime q of the field, one row of n words per prime:
//! - **Fourier p** (2·max_n | p − 1): one row, modulo p itself;
//! - **otherwise**: rows modulo the fewest 50-bit Fourier primes q_i whose product Q exceeds
//!   2^(b+1), b the bit length of 2·max_n·(p − 1)². A coefficient read back is then an integer v,
//!   a sum of at most 2n products x_i·y_j of residues (operands are folded modulo x^n + 1 in Z/pZ
//!   before they are reduced modulo q_i, so one transform holds at most n of them, and at most two
//!   products are summed), with signs when the product wraps: |v| < 2^b = K. A coefficient the
//!   wrap-around does not reach is a plain sum, v ∈ [0, Q): Garner's digits give v mod p
//!   ([`Crt::reduce_range`], [`NttField::read`]); a wrapped one is read as v + K ∈ [0, Q) after
//!   adding K mod q_i to the rows, and K mod p is subtracted ([`NttField::read_signed`]).
//!
//! Reading only the coefficients that the wrap-around does not touch, or whose wrapped part is
//! known, gives truncated and middle products at one transform size (see the callers).
use super::convolution::primes_for;
use super::crt::Crt;
use super::plan::{plan, Plan, MIN_NTT};
use super::prime::powmod;
use super::reduce::Modulus;
use super::scratch::Pooled;
use crate::tuning::NMOD_NTT_FIELD_PARALLEL_MIN_N;
use crate::{invalid, Result};
use rayon::prelude::*;
use std::sync::Arc;

/// One NTT prime of a field: its modulus, its plans (index log2 n − 4) and K mod q.
struct Row {
    q: Modulus,
    plans: Vec<Arc<Plan>>,
    offset: u64,
}

/// The reconstruction of a multi-prime field.
struct Recon {
    crt: Crt,
    w: Vec<u64>,
    offset_p: u64,
}

/// The NTT primes serving products mod p up to transforms of size `max_n`.
pub struct NttField {
    pub m: Modulus,
    max_n: usize,
    rows: Vec<Row>,
    recon: Option<Recon>,
}

/// log2 of a power of two n ≥ [`MIN_NTT`], as an index into the plans.
fn plan_index(n: usize) -> usize {
    debug_assert!(n.is_power_of_two() && n >= MIN_NTT);
    (n.trailing_zeros() - MIN_NTT.trailing_zeros()) as usize
}

impl NttField {
    /// The field for p (an odd prime < 2^63, checked by the caller) and transforms up to `max_n`
    /// (rounded up to a power of two ≥ 16).
    pub fn new(p: u64, max_n: usize) -> Result<Self> {
        let max_n = max_n.next_power_of_two().max(MIN_NTT);
        let m = Modulus::new(p);
        let fourier = (p - 1).is_multiple_of(2 * max_n as u64);
        let (primes, recon) = if fourier {
            (vec![p], None)
        } else {
            let bits = bound_bits(2 * max_n as u128, p);
            let primes = primes_for(bits + 1, max_n)?;
            let crt = Crt::new(&primes);
            let w = crt.reduce_weights(p);
            (primes, Some((crt, w, powmod(2, bits, p), bits)))
        };
        let mut rows = Vec::with_capacity(primes.len());
        for &q in &primes {
            let mut plans = Vec::new();
            let mut n = MIN_NTT;
            while n <= max_n {
                // A plan of a new length costs a division per twiddle: a stop is seen between them.
                crate::interrupt::checkpoint()?;
                plans.push(plan(n, q)?);
                n *= 2;
            }
            let offset = recon.as_ref().map_or(0, |r| powmod(2, r.3, q));
            rows.push(Row { q: Modulus::new(q), plans, offset });
        }
        let recon = recon.map(|(crt, w, offset_p, _)| Recon { crt, w, offset_p });
        Ok(NttField { m, max_n, rows, recon })
    }

    /// The prime p.
    pub fn p(&self) -> u64 {
        self.m.p
    }

    /// Largest transform size served.
    pub fn max_n(&self) -> usize {
        self.max_n
    }

    /// Whether the transforms run modulo p itself (one row, no reconstruction).
    pub fn is_fourier(&self) -> bool {
        self.recon.is_none()
    }

    /// Rows of a spectrum (NTT primes).
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Words of a spectrum of size n.
    pub fn spectrum_len(&self, n: usize) -> usize {
        self.rows.len() * n
    }

    /// A buffer for one spectrum of size n (arbitrary contents; large ones come from the scratch
    /// pool and return to it when dropped).
    pub fn spectrum(&self, n: usize) -> Result<Pooled> {
        Pooled::take(self.spectrum_len(n))
    }

    /// The transform size for a result that must hold `len` coefficients: the power of two ≥ len,
    /// at least 16. `InvalidArgument` beyond `max_n` (a caller's sizing bug, never user input).
    pub fn size_for(&self, len: usize) -> Result<usize> {
        let n = len.next_power_of_two().max(MIN_NTT);
        if n > self.max_n {
            return invalid!("transform of size {n} beyond the field's {}", self.max_n);
        }
        Ok(n)
    }

    /// out = the spectrum of size n of x (residues mod p, any length: folded modulo x^n + 1 in
    /// Z/pZ first). out holds `spectrum_len(n)` words. A stopped call skips the remaining rows and
    /// returns `Err(Interrupted)` (out is then unspecified).
    pub fn fwd(&self, x: &[u64], n: usize, out: &mut [u64]) -> Result<()> {
        debug_assert_eq!(out.len(), self.spectrum_len(n));
        let folded;
        let x = if x.len() > n {
            folded = self.fold(x, n);
            &folded[..]
        } else {
            x
        };
        let k = plan_index(n);
        let cur = crate::interrupt::current();
        let one = |row: &Row, o: &mut [u64]| {
            if cur.is_stopped() {
                return;
            }
            if self.recon.is_none() {
                o[..x.len()].copy_from_slice(x);
            } else {
                reduce_slice(x, row.q.p, &mut o[..x.len()]);
            }
            o[x.len()..].fill(0);
            row.plans[k].fwd(o);
        };
        if self.rows.len() > 1 && n >= NMOD_NTT_FIELD_PARALLEL_MIN_N {
            self.rows.par_iter().zip(out.par_chunks_exact_mut(n)).for_each(|(row, o)| one(row, o));
        } else {
            self.rows.iter().zip(out.chunks_exact_mut(n)).for_each(|(row, o)| one(row, o));
        }
        cur.check()
    }

    /// x modulo x^n + 1 in Z/pZ (n words).
    fn fold(&self, x: &[u64], n: usize) -> Vec<u64> {
        let mut y = x[..n].to_vec();
        for (c, chunk) in x[n..].chunks(n).enumerate() {
            for (d, &v) in y.iter_mut().zip(chunk) {
                *d = if c % 2 == 0 { self.m.sub(*d, v) } else { self.m.add(*d, v) };
            }
        }
        y
    }

    /// a ← a·b/n pointwise (the product's spectrum, scaled for [`NttField::inv`]).
    pub fn mul(&self, a: &mut [u64], b: &[u64], n: usize) {
        let k = plan_index(n);
        for ((row, x), y) in self.rows.iter().zip(a.chunks_exact_mut(n)).zip(b.chunks_exact(n)) {
            row.plans[k].mul_assign_normalize(x, y);
        }
    }

    /// acc ← acc + a·b pointwise (unscaled: finish with [`NttField::normalize`]).
    pub fn mul_acc(&self, acc: &mut [u64], a: &[u64], b: &[u64], n: usize) {
        let k = plan_index(n);
        for (((row, z), x), y) in self.rows.iter().zip(acc.chunks_exact_mut(n)).zip(a.chunks_exact(n)).zip(b.chunks_exact(n)) {
            row.plans[k].mul_accumulate(z, x, y);
        }
    }

    /// a ← a/n.
    pub fn normalize(&self, a: &mut [u64], n: usize) {
        let k = plan_index(n);
        for (row, x) in self.rows.iter().zip(a.chunks_exact_mut(n)) {
            row.plans[k].normalize(x);
        }
    }

    /// Inverse transform of a scaled spectrum of size n (destroyed), then out\[j\] = coefficient
    /// first + j mod p (first + out.len() ≤ n), for coefficients the wrap-around does not reach.
    pub fn inv(&self, spec: &mut [u64], n: usize, first: usize, out: &mut [u64]) -> Result<()> {
        self.inv_rows(spec, n)?;
        self.read(spec, n, first, out);
        Ok(())
    }

    /// [`NttField::inv`] for coefficients that may hold wrapped (subtracted) terms.
    pub fn inv_signed(&self, spec: &mut [u64], n: usize, first: usize, out: &mut [u64]) -> Result<()> {
        self.inv_rows(spec, n)?;
        self.read_signed(spec, n, first, out);
        Ok(())
    }

    /// The inverse transforms of the rows of a scaled spectrum of size n, in place; read the
    /// coefficients with [`NttField::read`] or [`NttField::read_signed`] (disjoint ranges). A
    /// stopped call skips the remaining rows and returns `Err(Interrupted)`.
    pub fn inv_rows(&self, spec: &mut [u64], n: usize) -> Result<()> {
        let k = plan_index(n);
        let cur = crate::interrupt::current();
        let one = |row: &Row, x: &mut [u64]| {
            if !cur.is_stopped() {
                row.plans[k].inv(x);
            }
        };
        if self.rows.len() > 1 && n >= NMOD_NTT_FIELD_PARALLEL_MIN_N {
            self.rows.par_iter().zip(spec.par_chunks_exact_mut(n)).for_each(|(row, x)| one(row, x));
        } else {
            self.rows.iter().zip(spec.chunks_exact_mut(n)).for_each(|(row, x)| one(row, x));
        }
        cur.check()
    }

    /// out\[j\] = coefficient first + j mod p of rows left by [`NttField::inv_rows`], for
    /// coefficients the wrap-around does not reach (v ∈ [0, Q) over Z).
    pub fn read(&self, spec: &[u64], n: usize, first: usize, out: &mut [u64]) {
        debug_assert!(first + out.len() <= n);
        match &self.recon {
            None => out.copy_from_slice(&spec[first..first + out.len()]),
            Some(r) => r.crt.reduce_range(spec, n, first, &r.w, &self.m, out),
        }
    }

    /// [`NttField::read`] for coefficients with wrapped terms (|v| < K over Z); adds K to the range
    /// of the rows, so a range is read once.
    pub fn read_signed(&self, spec: &mut [u64], n: usize, first: usize, out: &mut [u64]) {
        let Some(r) = &self.recon else {
            return self.read(spec, n, first, out);
        };
        for (row, x) in self.rows.iter().zip(spec.chunks_exact_mut(n)) {
            for v in &mut x[first..first + out.len()] {
                *v = row.q.add(*v, row.offset);
            }
        }
        r.crt.reduce_range(spec, n, first, &r.w, &self.m, out);
        for v in out.iter_mut() {
            *v = self.m.sub(*v, r.offset_p);
        }
    }

    /// h = f·g mod p (lengths ≥ 1, h of flen + glen − 1 entries ≤ `max_n`): schoolbook up to
    /// `plain_max` for the shorter factor, else one transform product.
    pub fn mul_full(&self, f: &[u64], g: &[u64], h: &mut [u64], plain_max: usize) -> Result<()> {
        let len = f.len() + g.len() - 1;
        debug_assert_eq!(h.len(), len);
        if f.len().min(g.len()) <= plain_max {
            schoolbook(f, g, &self.m, h);
            return Ok(());
        }
        let n = self.size_for(len)?;
        let (mut a, mut b) = (self.spectrum(n)?, self.spectrum(n)?);
        self.fwd(f, n, &mut a)?;
        self.fwd(g, n, &mut b)?;
        self.mul(&mut a, &b, n);
        self.inv(&mut a, n, 0, h)
    }

    /// h = f·g mod x^len (h.len() = len ≥ 1; f, g of at most len entries each).
    ///
    /// One transform of size n = 2^⌈log2 len⌉ when the w = flen + glen − 1 − n top coefficients
    /// that wrap onto 0 .. w − 1 are few (w(w+1)/2 ≤ n products to compute them directly and add
    /// them back: negacyclically, coefficient t holds c_t − c_(t+n)); size 2n otherwise.
    pub fn mullow(&self, f: &[u64], g: &[u64], h: &mut [u64], plain_max: usize) -> Result<()> {
        let len = h.len();
        let (f, g) = (&f[..f.len().min(len)], &g[..g.len().min(len)]);
        if f.is_empty() || g.is_empty() {
            h.fill(0);
            return Ok(());
        }
        let full = f.len() + g.len() - 1;
        if f.len().min(g.len()) <= plain_max {
            let mut t = vec![0; full];
            schoolbook(f, g, &self.m, &mut t);
            let l = len.min(full);
            h[..l].copy_from_slice(&t[..l]);
            h[l..].fill(0);
            return Ok(());
        }
        let mut n = self.size_for(len)?;
        let wrap = full.saturating_sub(n);
        if wrap * (wrap + 1) / 2 > n {
            n = self.size_for(full)?;
        }
        let wrap = full.saturating_sub(n);
        let (mut a, mut b) = (self.spectrum(n)?, self.spectrum(n)?);
        self.fwd(f, n, &mut a)?;
        self.fwd(g, n, &mut b)?;
        self.mul(&mut a, &b, n);
        let l = len.min(n).min(full);
        self.inv_rows(&mut a, n)?;
        self.read_signed(&mut a, n, 0, &mut h[..wrap]);
        self.read(&a, n, wrap, &mut h[wrap..l]);
        h[l..].fill(0);
        let m = &self.m;
        for (t, ht) in h.iter_mut().enumerate().take(wrap) {
            // c_(t+n) = Σ f_i·g_(t+n−i), i from t + n − (glen − 1) to flen − 1.
            let s = t + n;
            let lo = s + 1 - g.len();
            let mut acc = Acc::default();
            for i in lo..f.len() {
                acc.add(f[i], g[s - i]);
            }
            *ht = m.add(*ht, acc.reduce(m));
        }
        Ok(())
    }
}

/// out_i = x_i mod q for x_i < 2^63 and a prime 2^20 < q < 2^63 (the CRT rows' 50-bit primes): the
/// quotient estimate ⌊x_i·(1/q)⌋ in doubles is within 1 of ⌊x_i/q⌋ (relative error < 2^−50 on a
/// quotient < 2^43), so x_i − e·q ∈ (−q, 2q) and two corrections finish; AVX-512 where present.
fn reduce_slice(x: &[u64], q: u64, out: &mut [u64]) {
    debug_assert!(q > 1 << 20 && x.iter().all(|&v| v < 1 << 63));
    #[inline(always)]
    fn run(x: &[u64], q: u64, out: &mut [u64]) {
        let inv = 1.0 / q as f64;
        let qi = q as i64;
        for (o, &v) in out.iter_mut().zip(x) {
            let e = ((v as f64) * inv) as u64;
            let r = v.wrapping_sub(e.wrapping_mul(q)) as i64;
            let r = if r < 0 { r + qi } else { r };
            *o = (if r >= qi { r - qi } else { r }) as u64;
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn avx512(x: &[u64], q: u64, out: &mut [u64]) {
        run(x, q, out)
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512dq") {
        // SAFETY: the features were detected.
        return unsafe { avx512(x, q, out) };
    }
    run(x, q, out)
}

/// The bit length of pairs·(p − 1)² (pairs ≤ 2^64).
pub fn bound_bits(pairs: u128, p: u64) -> u64 {
    let sq = (p - 1) as u128 * (p - 1) as u128;
    let lo = (sq as u64) as u128 * pairs;
    let hi = (sq >> 64) * pairs + (lo >> 64);
    if hi == 0 {
        128 - lo.leading_zeros() as u64
    } else {
        192 - hi.leading_zeros() as u64
    }
}

/// h = f·g mod p by schoolbook (h of flen + glen − 1 entries), each coefficient summed in an
/// [`Acc`] and reduced once.
pub fn schoolbook(f: &[u64], g: &[u64], m: &Modulus, h: &mut [u64]) {
    debug_assert_eq!(h.len(), f.len() + g.len() - 1);
    for (k, hk) in h.iter_mut().enumerate() {
        let lo = k.saturating_sub(g.len() - 1);
        let hi = k.min(f.len() - 1);
        let mut acc = Acc::default();
        for i in lo..=hi {
            acc.add(f[i], g[k - i]);
        }
        *hk = acc.reduce(m);
    }
}

/// A sum of products of residues (each < 2^126) in 192 bits: a u128 and the count of its
/// overflows, reduced once at the end (no branch per term).
#[derive(Clone, Copy, Default)]
pub struct Acc {
    lo: u128,
    carries: u64,
}

impl Acc {
    /// self += a·b.
    #[inline(always)]
    pub fn add(&mut self, a: u64, b: u64) {
        let (s, c) = self.lo.overflowing_add(a as u128 * b as u128);
        self.lo = s;
        self.carries += c as u64;
    }

    /// The sum mod p.
    #[inline(always)]
    pub fn reduce(&self, m: &Modulus) -> u64 {
        m.reduce_u192(self.carries, self.lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::poly_mul::tests::{naive, rand_vec};
    use crate::nmod::prime::fourier_primes;

    /// Full and truncated products against the naive product, on a Fourier prime (one row) and on
    /// primes served by CRT rows (p = 2^63 − 25, 257, 3), with every entry p − 1 (the bound case).
    #[test]
    fn products_match_naive() {
        for p in [fourier_primes(62, 20, 1)[0], (1 << 63) - 25, 257, 3, 65537] {
            let field = NttField::new(p, 1 << 12).unwrap();
            assert_eq!(field.is_fourier(), (p - 1) % (1 << 13) == 0, "p = {p}");
            assert_eq!(field.rows() == 1, field.is_fourier() || p < 1 << 10, "p = {p}");
            for &(fl, gl) in &[(1usize, 1usize), (17, 30), (100, 100), (1000, 37), (1025, 1024), (2048, 2048)] {
                for kind in 0..2 {
                    let f = if kind == 0 { rand_vec(fl, p, fl as u64 + p) } else { vec![p - 1; fl] };
                    let g = if kind == 0 { rand_vec(gl, p, 7 * gl as u64) } else { vec![p - 1; gl] };
                    let want = naive(&f, &g, p);
                    let mut h = vec![u64::MAX; want.len()];
                    field.mul_full(&f, &g, &mut h, 0).unwrap();
                    assert_eq!(h, want, "p = {p}, {fl} x {gl}");
                    for len in [1, fl.max(gl), want.len() / 2 + 1, 1025, 2049] {
                        let mut h = vec![u64::MAX; len];
                        field.mullow(&f, &g, &mut h, 8).unwrap();
                        let mut w = want.clone();
                        w.resize(want.len().max(len), 0);
                        // Truncation first: the factors are cut to len before multiplying.
                        let (fc, gc) = (&f[..fl.min(len)], &g[..gl.min(len)]);
                        let mut wl = naive(fc, gc, p);
                        wl.resize(wl.len().max(len), 0);
                        assert_eq!(h, wl[..len], "mullow p = {p}, {fl} x {gl}, len {len}");
                        assert_eq!(h, w[..len], "mullow p = {p}, {fl} x {gl}, len {len}");
                    }
                }
            }
            // A folded operand: x of length 3n against y, modulo x^n + 1.
            let n = 64;
            let x = rand_vec(3 * n + 5, p, 1);
            let y = rand_vec(n, p, 2);
            let (mut a, mut b) = (field.spectrum(n).unwrap(), field.spectrum(n).unwrap());
            field.fwd(&x, n, &mut a).unwrap();
            field.fwd(&y, n, &mut b).unwrap();
            field.mul(&mut a, &b, n);
            let mut h = vec![0; n];
            field.inv_signed(&mut a, n, 0, &mut h).unwrap();
            let full = naive(&x, &y, p);
            let mut want = vec![0u64; n];
            for (i, &c) in full.iter().enumerate() {
                let t = i % n;
                want[t] = if (i / n) % 2 == 0 { (want[t] + c) % p } else { (want[t] + p - c) % p };
            }
            assert_eq!(h, want, "negacyclic, p = {p}");
        }
    }

    /// A stopped call: the transforms and a field of new lengths return `Err(Interrupted)` (the
    /// plans are built between checks), the call after it gets the same spectra as before.
    #[test]
    fn stopped_transforms_return_interrupted() {
        use crate::interrupt::{call, stop_current};
        use crate::Error;
        let p = 1_000_003u64;
        let field = NttField::new(p, 1 << 14).unwrap();
        let n = 1 << 14;
        let x = rand_vec(n / 2, p, 3);
        let mut want = field.spectrum(n).unwrap();
        field.fwd(&x, n, &mut want).unwrap();
        let r = call(|| {
            stop_current();
            let mut s = field.spectrum(n).unwrap();
            (field.fwd(&x, n, &mut s), field.inv_rows(&mut s, n), NttField::new(999_983, 1 << 15).err())
        });
        assert!(matches!(r.0, Err(Error::Interrupted(_))), "{:?}", r.0);
        assert!(matches!(r.1, Err(Error::Interrupted(_))), "{:?}", r.1);
        assert!(matches!(r.2, Some(Error::Interrupted(_))), "{:?}", r.2);
        let mut s = field.spectrum(n).unwrap();
        call(|| field.fwd(&x, n, &mut s)).unwrap();
        assert_eq!(&s[..], &want[..]);
    }
}
