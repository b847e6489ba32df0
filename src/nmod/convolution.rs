//! The multi-modular convolution engine shared by the small-prime Z\[x\] product and the NTT
//! integer product: residues → negacyclic NTTs (tfhe-ntt, AVX-512 IFMA for p < 2^50) → pointwise
//! products → inverse NTTs, modulo enough Fourier primes p < 2^50 that the exact convolution is
//! recovered by CRT ([`super::crt`]).
//!
//! A linear convolution of lengths la, lb (la + lb − 1 ≤ n) equals the negacyclic one mod x^n + 1.
//! When one operand is much shorter (ls ≪ ll) the long one is cut into blocks of B = n − ls + 1
//! coefficients with n ≥ 2·ls ("overlap-add"): the short operand is transformed once, each block
//! costs one forward and one inverse transform, and the block products are added at offsets j·B.
//! The n that minimises the estimated transform work is chosen. Work runs in parallel over primes,
//! operands and blocks.
use super::crt::Crt;
use super::negacyclic::{negacyclic, Negacyclic};
use super::plan::MIN_NTT;
use super::prime::fourier_primes;
use super::reduce::Modulus;
use super::scratch::{give, take};
use crate::int::try_zeroed;
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Bits of the primes: below 2^50 tfhe-ntt uses its 52-bit IFMA kernels.
pub const PRIME_BITS: u32 = 50;

/// Largest coefficient bound (bits) served: 2048 primes, a CRT table of 2^21 words and about 2^21
/// multiply-adds per coefficient. Coefficients of f, g up to about 51 000 bits each.
pub const MAX_BITS: u64 = 2048 * 49;

/// Writes the residues mod `m.p` of the coefficients `first .. first + out.len()` of one operand
/// (prime index, modulus, first, out).
pub type Fill<'a> = dyn Fn(usize, &Modulus, usize, &mut [u64]) + Sync + 'a;

/// The fill function of a vector of words: entry j reduced modulo the prime.
pub fn words_mod(x: &[u64]) -> impl Fn(usize, &Modulus, usize, &mut [u64]) + Sync + '_ {
    move |_, m, first, out| {
        for (o, &v) in out.iter_mut().zip(&x[first..]) {
            *o = m.reduce(v);
        }
    }
}

/// The residues of a convolution: coefficient m modulo prime i is `data[i·stride + m]`, m < len.
/// The buffer returns to the scratch pool when dropped.
pub struct Residues {
    pub primes: Vec<u64>,
    pub data: Vec<u64>,
    pub stride: usize,
    pub len: usize,
}

impl Drop for Residues {
    fn drop(&mut self) {
        give(std::mem::take(&mut self.data));
    }
}

impl Residues {
    /// The CRT constants for these primes.
    pub fn crt(&self) -> Arc<Crt> {
        crt_for(&self.primes)
    }
}

/// Prime lists up to this length keep their CRT constants, and their first this-many primes keep
/// their NTT plans, in process-wide caches; beyond it they are rebuilt per call (a cache over all
/// prefixes of up to 2048 primes could grow to gigabytes, and such products are dominated by
/// their quadratic CRT anyway).
const CACHED_PRIMES: usize = 64;

/// CRT constants for a prime list (cached for short lists).
fn crt_for(primes: &[u64]) -> Arc<Crt> {
    if primes.len() > CACHED_PRIMES {
        return Arc::new(Crt::new(primes));
    }
    static CACHE: OnceLock<Mutex<HashMap<Vec<u64>, Arc<Crt>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(primes) {
        return Arc::clone(c);
    }
    let c = Arc::new(Crt::new(primes));
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(primes.to_vec(), Arc::clone(&c));
    c
}

/// The fewest Fourier primes p < 2^50 with 2^k | p − 1, 2^k ≥ max(2n, 2^25), whose product M
/// satisfies M > 2^bits (checked as Σ log2 p_i > bits + 10^−3; log2 is accurate to 10^−12 here).
pub fn primes_for(bits: u64, n: usize) -> Result<Vec<u64>> {
    if bits > MAX_BITS {
        return Err(Error::SizeTooLarge(format!(
            "{bits}-bit convolution coefficients: the multi-modular product stops at {MAX_BITS} bits (its CRT is quadratic in the prime count); use Kronecker substitution"
        )));
    }
    static CACHE: OnceLock<Mutex<HashMap<u32, Vec<u64>>>> = OnceLock::new();
    let min_k = (n.max(1).trailing_zeros() + 1).max(25);
    if min_k >= PRIME_BITS - 2 {
        return Err(Error::SizeTooLarge(format!("transform of length {n}")));
    }
    let cache = CACHE.get_or_init(Default::default);
    let want = (bits as usize + 1) / 49 + 2;
    let mut guard = cache.lock().unwrap_or_else(|e| e.into_inner());
    let list = guard.entry(min_k).or_default();
    if list.len() < want {
        *list = fourier_primes(PRIME_BITS, min_k, want.max(2 * list.len()).max(64));
        if list.len() < want {
            return Err(Error::SizeTooLarge(format!("{bits}-bit convolution coefficients need more than {} primes", list.len())));
        }
    }
    let mut sum = 0.0f64;
    let target = bits as f64 + 1e-3;
    for (i, &p) in list.iter().enumerate() {
        sum += (p as f64).log2();
        if sum > target {
            return Ok(list[..=i].to_vec());
        }
    }
    unreachable!("the list holds at least bits/49 + 2 primes")
}

/// [`primes_for`] at the transform length that [`convolve`] picks for a product of lengths la, lb ≥ 1
/// (not a square): the primes of that convolution.
pub fn primes_for_lengths(bits: u64, la: usize, lb: usize) -> Result<Vec<u64>> {
    let (n, _) = layout(la.max(lb), la.min(lb), false);
    primes_for(bits, n)
}

/// Transform size and block length for lengths ll ≥ ls: (n, block) with block = ll when one
/// transform covers the whole product.
fn layout(ll: usize, ls: usize, square: bool) -> (usize, usize) {
    let full = (ll + ls - 1).next_power_of_two().max(MIN_NTT);
    let cost = |n: usize| (n as f64) * (n as f64).log2();
    let mut best = (3.0 * cost(full), full, ll);
    if !square {
        let mut n = (2 * ls).next_power_of_two().max(MIN_NTT);
        while n < full {
            let b = n - ls + 1;
            let c = (2.0 * ll.div_ceil(b) as f64 + 1.0) * cost(n);
            if c < best.0 {
                best = (c, n, b);
            }
            n *= 2;
        }
    }
    (best.1, best.2)
}

/// The linear convolution of a (length la) and b (length lb; `None` = a itself, a square) modulo
/// enough primes that every coefficient c satisfies M > 2^bits (the caller's bound: |c| < 2^(bits−1)
/// for a symmetric, c < 2^bits for an unsigned recovery).
pub fn convolve(bits: u64, la: usize, a: &Fill, lb: usize, b: Option<&Fill>) -> Result<Residues> {
    convolve_mod(&|n| primes_for(bits, n), la, a, lb, b)
}

/// [`convolve`] modulo the primes `primes(n)` returns for the transform size n it chose (odd primes
/// < 2^63 with 2n | p − 1; n is at most the power of two ≥ max(la + lb − 1, [`MIN_NTT`])).
pub fn convolve_mod(primes: &dyn Fn(usize) -> Result<Vec<u64>>, la: usize, a: &Fill, lb: usize, b: Option<&Fill>) -> Result<Residues> {
    assert!(la > 0 && lb > 0);
    let len = la + lb - 1;
    let Some(b) = b else {
        let (n, _) = layout(la, la, true);
        let primes = primes(n)?;
        let data = full(&primes, n, la, a, None)?;
        return Ok(Residues { primes, data, stride: n, len });
    };
    let (ll, long, ls, short) = if la >= lb { (la, a, lb, b) } else { (lb, b, la, a) };
    let (n, block) = layout(ll, ls, false);
    let primes = primes(n)?;
    if block >= ll {
        let data = full(&primes, n, la, a, Some((lb, b)))?;
        return Ok(Residues { primes, data, stride: n, len });
    }
    let data = blocked(&primes, n, block, ll, long, ls, short)?;
    Ok(Residues { primes, data, stride: len, len })
}

/// The transforms for the primes, built in parallel on first use (tfhe-ntt's plan construction is
/// costly: about 11 ms at n = 2^18 per prime, one u128 division per twiddle; split transforms
/// need only short plans).
fn plans(primes: &[u64], n: usize) -> Result<Vec<Arc<Negacyclic>>> {
    let cur = crate::interrupt::current();
    // Each build sees the call's stop (a split transform's tables are built in checked pieces).
    primes.par_iter().enumerate().with_max_len(1).map(|(i, &p)| cur.enter(|| negacyclic(n, p, i < CACHED_PRIMES))).collect()
}

/// One transform of size n per operand and prime; prime-major output with stride n. Each prime is
/// one job (the product overwrites a's transform in the output row; b's goes to pooled scratch), its
/// two forward transforms run side by side.
fn full(primes: &[u64], n: usize, la: usize, a: &Fill, b: Option<(usize, &Fill)>) -> Result<Vec<u64>> {
    let k = primes.len();
    let plans = plans(primes, n)?;
    let mods: Vec<Modulus> = primes.iter().map(|&p| Modulus::new(p)).collect();
    let mut out = take(k * n)?;
    let cur = crate::interrupt::current();
    let done = std::sync::atomic::AtomicUsize::new(0);
    out.par_chunks_mut(n).enumerate().with_max_len(1).try_for_each(|(i, x)| -> Result<()> {
        cur.check()?;
        let load = |buf: &mut [u64], l: usize, fill: &Fill| {
            fill(i, &mods[i], 0, &mut buf[..l]);
            buf[l..].fill(0);
            if !cur.is_stopped() {
                plans[i].fwd(buf, &cur);
            }
        };
        let mut y = take(n)?;
        match b {
            Some((lb, b)) => {
                rayon::join(|| load(x, la, a), || load(&mut y, lb, b));
            }
            None => {
                load(x, la, a);
                y.copy_from_slice(x);
            }
        }
        cur.check()?;
        plans[i].mul_assign_normalize(x, &y);
        cur.check()?;
        plans[i].inv(x, &cur);
        give(y);
        cur.set_progress((done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1) as f64 / k as f64);
        Ok(())
    })?;
    cur.check()?;
    Ok(out)
}

/// Overlap-add: the long operand in blocks of `block` coefficients, transforms of size n ≥ 2·ls;
/// prime-major output with stride ll + ls − 1. Even blocks, then odd blocks, run in parallel
/// (block j writes [j·B, j·B + B + ls − 1) ⊂ [j·B, (j+2)·B) since ls − 1 ≤ B).
fn blocked(primes: &[u64], n: usize, block: usize, ll: usize, long: &Fill, ls: usize, short: &Fill) -> Result<Vec<u64>> {
    let k = primes.len();
    let len = ll + ls - 1;
    let plans = plans(primes, n)?;
    let mods: Vec<Modulus> = primes.iter().map(|&p| Modulus::new(p)).collect();
    let mut fs = take(k * n)?;
    let cur = crate::interrupt::current();
    fs.par_chunks_mut(n).enumerate().with_max_len(1).for_each(|(i, buf)| {
        if cur.is_stopped() {
            return;
        }
        short(i, &mods[i], 0, &mut buf[..ls]);
        buf[ls..].fill(0);
        plans[i].fwd(buf, &cur);
    });
    cur.check()?;
    let mut out = take(k * len)?;
    out.par_chunks_mut(len).for_each(|row| row.fill(0));
    let two = 2 * block;
    for parity in 0..2 {
        out.par_chunks_mut(len).enumerate().try_for_each(|(i, row)| -> Result<()> {
            let start = parity * block;
            if start >= len {
                return Ok(());
            }
            row[start..].par_chunks_mut(two).enumerate().try_for_each_init(
                || try_zeroed::<u64>(n),
                |buf, (c, dst)| -> Result<()> {
                    cur.check()?;
                    let buf = buf.as_mut().map_err(|e| e.clone())?;
                    let first = start + c * two;
                    if first >= ll {
                        return Ok(());
                    }
                    let bl = block.min(ll - first);
                    buf.fill(0);
                    long(i, &mods[i], first, &mut buf[..bl]);
                    plans[i].fwd(buf, &cur);
                    plans[i].mul_assign_normalize(buf, &fs[i * n..(i + 1) * n]);
                    plans[i].inv(buf, &cur);
                    cur.check()?;
                    let m = &mods[i];
                    for (d, &x) in dst.iter_mut().zip(&buf[..bl + ls - 1]) {
                        *d = m.add(*d, x);
                    }
                    Ok(())
                },
            )
        })?;
    }
    give(fs);
    cur.check()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    fn naive(a: &[u64], b: &[u64], p: u64) -> Vec<u64> {
        let mut c = vec![0u64; a.len() + b.len() - 1];
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().enumerate() {
                c[i + j] = ((c[i + j] as u128 + x as u128 * y as u128) % p as u128) as u64;
            }
        }
        c
    }

    #[test]
    fn convolution_residues_match_naive() {
        let mut rng = Rng(3);
        for &(la, lb, bits) in &[(1, 1, 10), (5, 300, 100), (300, 5, 200), (1000, 3, 149), (64, 64, 500), (2000, 40, 60), (7, 7, 3000)] {
            let a: Vec<u64> = (0..la).map(|_| rng.next()).collect();
            let b: Vec<u64> = (0..lb).map(|_| rng.next()).collect();
            let fa = |_: usize, m: &Modulus, first: usize, out: &mut [u64]| {
                for (o, &x) in out.iter_mut().zip(&a[first..]) {
                    *o = m.reduce(x);
                }
            };
            let fb = |_: usize, m: &Modulus, first: usize, out: &mut [u64]| {
                for (o, &x) in out.iter_mut().zip(&b[first..]) {
                    *o = m.reduce(x);
                }
            };
            for sq in [false, true] {
                let r = if sq { convolve(bits, la, &fa, la, None) } else { convolve(bits, la, &fa, lb, Some(&fb)) }.unwrap();
                let sum: f64 = r.primes.iter().map(|&p| (p as f64).log2()).sum();
                assert!(sum > bits as f64);
                for (i, &p) in r.primes.iter().enumerate() {
                    let (x, y): (Vec<u64>, Vec<u64>) = (a.iter().map(|v| v % p).collect(), b.iter().map(|v| v % p).collect());
                    let want = if sq { naive(&x, &x, p) } else { naive(&x, &y, p) };
                    assert_eq!(&r.data[i * r.stride..i * r.stride + r.len], &want[..], "la {la} lb {lb} sq {sq} prime {i}");
                }
            }
        }
        // The blocked layout is used for very unbalanced lengths.
        assert!(layout(1 << 16, 16, false).1 < 1 << 16);
    }
}
