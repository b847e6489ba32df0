//! The two-convolution algorithm CVL²ₚ (\[FM\] Ch. 4, BPAS `TwoConvolutionMultiplication`), with the
//! corrections to (4.1), (4.5), (4.18) and the Good-N table listed under \[FM\] in docs/REFERENCES.md.
//!
//! For f, g ∈ Z\[y\] with |coefficients| < 2^B:
//! 1. **Limbs** (sign–magnitude as in the example of \[FM\] §1.1.1 and BPAS, not (4.5)): with K = 2^k and
//!    M = ⌈B/K⌉ ≤ 64, |f_i| = Σ_{j<K} a_{i,j} 2^{Mj} with 0 ≤ a_{i,j} < 2^M and every limb carries
//!    the sign of f_i. So f(y) = A(2^M, y) with A(x, y) = Σ_{i,j} ±a_{i,j} x^j y^i, and likewise g, B.
//! 2. **Two convolutions** modulo e word-size primes p: C⁺ = A·B mod (x^K + 1) (negacyclic) and
//!    C⁻ = A·B mod (x^K − 1) (cyclic), both linear in y.
//! 3. **Recovery** (4.30), i.e. the corrected (4.1): writing C = Lo + x^K·Hi with deg_x Lo, Hi < K,
//!    C⁻ = Lo + Hi and C⁺ = Lo − Hi, so Lo = (C⁻ + C⁺)/2, Hi = (C⁻ − C⁺)/2 (exact halvings, done
//!    mod p before the CRT) and h_i = Σ_{j<K} Lo_{i,j} 2^{Mj} + Σ_{j<K} Hi_{i,j} 2^{M(j+K)}.
//! 4. **CRT** (Garner) of each Lo_{i,j}, Hi_{i,j} shifted by ⌊P/2⌋ into \[0, P) (the symmetric
//!    range without centring), summed with carries; the shift is removed once per coefficient.
//!    Note: \[FM\] names C⁺ the negacyclic image (mod x^K + 1) and C⁻ the cyclic one; this file
//!    keeps that convention.
//!
//! **Transforms.** tfhe-ntt computes negacyclic products in Z/p\[z\]/(z^n + 1) ([`plan`]). The pair
//! (x, y) is Kronecker-packed as x = z^L, y = z with L = 2^⌈log₂(flen+glen−1)⌉, n = K·L: then
//! z^n + 1 = x^K + 1, and since deg_y(A·B) < L no y-power spills into x, so C⁺ is one length-n
//! negacyclic product. C⁻ is turned into one too by the twist of (4.20)–(4.23) run the other way:
//! with ζ a primitive 2K-th root of unity (ζ^K = −1, so 2K | p − 1), x = ζx′ maps x^K − 1 to
//! −(x′^K + 1), hence C⁻_{i,j} = ζ^{−j}·(A(ζx′,y)·B(ζx′,y) mod (x′^K + 1))_{i,j}. We twist rather
//! than compute the full product mod x^{2K} + 1 and fold: the cost is the same (two transforms of
//! size KL instead of one of 2KL), but the two halves are independent jobs for rayon and stay
//! faithful to the two convolutions of \[FM\]. The factor ½ of the recovery and ζ^{−j} are folded
//! into one Shoup multiplication per output residue.
//!
//! **Bound and moduli (4.16)–(4.17), with the actual sizes** (the Good-N table, \[FM\] App. B, ignores d
//! and is wrong for d = 256, N = 114). Let m = min(flen, glen). Every coefficient of Lo and Hi is a
//! full coefficient c_{i,j} = Σ_{ℓ+r=i} Σ_{s+t=j} a_{ℓ,s} b_{r,t} of A·B: at most m pairs (ℓ, r) and
//! at most K pairs (s, t), each term below (2^M − 1)² in absolute value, so
//! |c_{i,j}| ≤ m·K·(2^M − 1)² < 2^{⌈log₂m⌉ + k + 2M}. The symmetric residue modulo P = p₁⋯p_e is
//! exact when P > 2·max|c_{i,j}|, which holds when
//!
//! **1 + ⌈log₂ m⌉ + k + 2M ≤ Σ_i ⌊log₂ p_i⌋**  (since P ≥ 2^{Σ⌊log₂ p_i⌋}).
//!
//! `Params::choose` takes, for each e, the smallest k meeting this with M ≤ 64, and then the e
//! with the least transform work e·K (ties to fewer primes, or from
//! [`ZPOLY_MUL_TWO_CONVOLUTION_SHORTER_MIN_N`] on to the shorter transforms, of which there are more:
//! a stop is seen between two transforms); the transform length must also divide
//! (p − 1)/2. With the BPAS pair (cap 122) this is the setting of \[FM\] with a d-aware M; on CPUs
//! where tfhe-ntt runs 50-bit primes with IFMA, five such primes (cap 245) are used instead, since
//! there the IFMA transforms cost less per coefficient bit than the 62-bit ones (49 instead of 61
//! bits per prime). M = 64 limbs (one machine word) usually win: e.g. 2^16 × 256 bits gives K = 4,
//! M = 64 with three primes.
use crate::int::{limbs_for_bits, max_bits, product_bits, try_zeroed, IntRef, ZSlab};
use crate::nmod::negacyclic::negacyclic;
use crate::nmod::plan::{plan, MIN_NTT};
use crate::nmod::prime::{invmod, mul_shoup, mulmod, powmod, primitive_root_of_unity, shoup};
use crate::tuning::ZPOLY_MUL_TWO_CONVOLUTION_SHORTER_MIN_N;
use crate::{Error, Result};
use rayon::prelude::*;

/// The BPAS Fourier primes P₁ = 29·2^57+1, P₂ = 69·2^55+1, then 177·2^54+1 and 163·2^54+1: 62-bit
/// primes (below 2^62, tfhe-ntt's 62-bit AVX path) with 2-adic valuation ≥ 54.
const BPAS_PRIMES: &[u64] = &[29 << 57 | 1, 69 << 55 | 1, 177 << 54 | 1, 163 << 54 | 1];

/// 50-bit primes (below 2^50: tfhe-ntt's IFMA path on AVX-512 IFMA CPUs) with 2-adic valuation
/// ≥ 42: 63·2^44+1, 75·2^43+1, 247·2^42+1, 207·2^42+1, 159·2^42+1.
const IFMA_PRIMES: &[u64] = &[1108307720798209, 659706976665601, 1086317488242689, 910395627798529, 699289395265537];

/// Most primes a product uses (the CRT is monomorphised for 1 ..= MAX_PRIMES).
const MAX_PRIMES: usize = 5;
const _: () = assert!(BPAS_PRIMES.len() <= MAX_PRIMES && IFMA_PRIMES.len() <= MAX_PRIMES);

/// Output coefficients per rayon task below which the recovery stays on one thread.
const GRAIN: usize = 64;

/// f·g by the two-convolution algorithm.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    let (bf, bg) = (max_bits(f), max_bits(g));
    if bf == 0 || bg == 0 {
        return ZSlab::zeros(f.len() + g.len() - 1, 1);
    }
    mul_with(f, g, Params::choose(family()?, bf.max(bg), f.len(), g.len())?)
}

/// The 50-bit primes where tfhe-ntt runs them with IFMA, else the 62-bit BPAS primes.
fn family() -> Result<&'static [u64]> {
    Ok(if plan(MIN_NTT, IFMA_PRIMES[0])?.use_ifma() { IFMA_PRIMES } else { BPAS_PRIMES })
}

/// f·g with the given parameters (which must satisfy the bound).
fn mul_with(f: &[IntRef], g: &[IntRef], par: Params) -> Result<ZSlab> {
    let stride = limbs_for_bits(product_bits(max_bits(f), max_bits(g), f.len(), g.len()));
    let mut h = ZSlab::zeros(f.len() + g.len() - 1, stride)?;
    let c = Convolutions::new(f, g, par)?;
    match par.e {
        1 => c.recover::<1>(&mut h),
        2 => c.recover::<2>(&mut h),
        3 => c.recover::<3>(&mut h),
        4 => c.recover::<4>(&mut h),
        _ => c.recover::<5>(&mut h),
    }
    crate::interrupt::checkpoint()?;
    Ok(h)
}

/// K = 2^k limbs of M bits per coefficient, the first e primes of `primes`, y-length L (a power of
/// two ≥ flen+glen−1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Params {
    k: u32,
    m: u32,
    e: usize,
    l: usize,
    primes: &'static [u64],
}

impl Params {
    /// The cheapest parameters meeting the bound of the module doc for coefficients of < 2^bits.
    fn choose(primes: &'static [u64], bits: u64, flen: usize, glen: usize) -> Result<Params> {
        let need0 = 1 + crate::int::ceil_log2(flen.min(glen));
        let l = (flen + glen - 1).next_power_of_two();
        let mut best: Option<Params> = None;
        for e in 1..=primes.len() {
            let Some(k) = (1..=40u32).find(|&k| {
                let m = bits.div_ceil(1 << k);
                m <= 64 && need0 + k as u64 + 2 * m <= cap(&primes[..e])
            }) else {
                continue;
            };
            let m = bits.div_ceil(1 << k) as u32;
            let par = Params { k, m, e, l: l.max(MIN_NTT.div_ceil(1 << k)), primes };
            // Equal work: fewer primes, unless the transforms are long (then shorter transforms).
            let better = |b: Params| match (par.e << par.k).cmp(&(b.e << b.k)) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Equal => b.n() >= ZPOLY_MUL_TWO_CONVOLUTION_SHORTER_MIN_N,
                std::cmp::Ordering::Greater => false,
            };
            if best.is_none_or(better) {
                best = Some(par);
            }
        }
        let too_large = || Error::SizeTooLarge(format!("two-convolution: {bits}-bit coefficients, lengths {flen}, {glen}"));
        let par = best.ok_or_else(too_large)?;
        // 2n | p − 1 for the transform length n = K·L = 2^(k + log₂L).
        let log_2n = par.k + par.l.ilog2() + 1;
        match par.primes[..par.e].iter().all(|&p| (p - 1).trailing_zeros() >= log_2n) {
            true => Ok(par),
            false => Err(too_large()),
        }
    }

    fn kk(&self) -> usize {
        1 << self.k
    }

    fn n(&self) -> usize {
        self.l << self.k
    }
}

/// Σ ⌊log₂ p⌋: P = Π p ≥ 2^cap.
fn cap(primes: &[u64]) -> u64 {
    primes.iter().map(|&p| p.ilog2() as u64).sum()
}

/// Shoup multiplier: w < p with ⌊w·2^64/p⌋.
#[derive(Clone, Copy, Debug, Default)]
struct Shoup {
    w: u64,
    wq: u64,
}

impl Shoup {
    fn new(w: u64, p: u64) -> Shoup {
        Shoup { w, wq: shoup(w, p) }
    }

    /// a·w mod p for any a < 2^64 (p < 2^63).
    #[inline]
    fn mul(self, a: u64, p: u64) -> u64 {
        mul_shoup(a, self.w, self.wq, p)
    }
}

/// Per-prime constants: ζ^j (input twist of the cyclic product), ζ^{−j}/2 (its output untwist and
/// halving) and 1/2 (halving of the negacyclic product), j < K.
struct PrimeData {
    p: u64,
    twist: Vec<Shoup>,
    untwist: Vec<Shoup>,
    half: Shoup,
}

impl PrimeData {
    /// ζ is a primitive 2K-th root of unity: ζ^K = −1 ((4.18) corrected: 2K | p − 1).
    fn new(p: u64, kk: usize) -> Result<PrimeData> {
        let zeta = primitive_root_of_unity(2 * kk as u64, p)?;
        let inv2 = p.div_ceil(2);
        let zinv = powmod(zeta, 2 * kk as u64 - 1, p);
        let pows = |z: u64, s: u64| -> Vec<Shoup> {
            let mut v = s;
            (0..kk)
                .map(|_| {
                    let w = Shoup::new(v, p);
                    v = mulmod(v, z, p);
                    w
                })
                .collect()
        };
        Ok(PrimeData { p, twist: pows(zeta, 1), untwist: pows(zinv, inv2), half: Shoup::new(inv2, p) })
    }
}

/// Garner CRT modulo P = p₁⋯p_E.
struct Crt<const E: usize> {
    p: [u64; E],
    /// inv\[i\]\[j\] = p_j^{−1} mod p_i for j < i.
    inv: [[Shoup; E]; E],
    /// lift\[i\] = p_i·⌈max p / p_i⌉ ≥ every Garner digit, with lift\[i\] + p_i < 2^64.
    lift: [u64; E],
}

impl<const E: usize> Crt<E> {
    fn new(primes: &[u64]) -> Crt<E> {
        let p: [u64; E] = std::array::from_fn(|i| primes[i]);
        let inv = std::array::from_fn(|i| {
            std::array::from_fn(|j| if j < i { Shoup::new(invmod(p[j] % p[i], p[i]), p[i]) } else { Shoup::default() })
        });
        let pmax = p.iter().copied().max().unwrap_or(0);
        let lift = p.map(|q| q * pmax.div_ceil(q));
        assert!(p.iter().zip(&lift).all(|(&q, &l)| l.checked_add(q).is_some()), "CRT primes too far apart");
        Crt { p, inv, lift }
    }

    /// P as E limbs.
    fn modulus(&self) -> [u64; E] {
        let mut x = [0; E];
        x[0] = 1;
        for &p in &self.p {
            mul_small(&mut x, p, 0);
        }
        x
    }

    /// The x ∈ \[0, P) with x ≡ r\[i\] mod p_i (r\[i\] < p_i).
    #[inline]
    fn value(&self, r: &[u64; E]) -> [u64; E] {
        let mut v = [0u64; E];
        for i in 0..E {
            let p = self.p[i];
            let mut t = r[i];
            // t ← (t − v_j)·p_j^{−1}, with t + lift − v_j ∈ [0, 2^64) fed to one Shoup product.
            for (&w, &vj) in self.inv[i][..i].iter().zip(&v) {
                t = w.mul(t + self.lift[i] - vj, p);
            }
            v[i] = t;
        }
        let mut x = [0u64; E];
        x[0] = v[E - 1];
        for i in (0..E - 1).rev() {
            mul_small(&mut x, self.p[i], v[i]);
        }
        x
    }
}

/// x ← x·a + c (the caller guarantees no overflow).
fn mul_small(x: &mut [u64], a: u64, c: u64) {
    let mut carry = c as u128;
    for l in x.iter_mut() {
        let t = *l as u128 * a as u128 + carry;
        *l = t as u64;
        carry = t >> 64;
    }
}

/// x ← ⌊x/2⌋.
fn halve(x: &mut [u64]) {
    let mut bit = 0;
    for l in x.iter_mut().rev() {
        let nb = *l & 1;
        *l = (*l >> 1) | (bit << 63);
        bit = nb;
    }
}

/// x mod p.
fn rem(x: &[u64], p: u64) -> u64 {
    x.iter().rev().fold(0u128, |r, &l| ((r << 64) | l as u128) % p as u128) as u64
}

/// a ← a − b mod 2^(64·a.len()) (b no longer than a).
fn sub_in_place(a: &mut [u64], b: &[u64]) {
    let mut borrow = false;
    for (i, x) in a.iter_mut().enumerate() {
        let (d, b1) = x.overflowing_sub(b.get(i).copied().unwrap_or(0));
        let (d, b2) = d.overflowing_sub(borrow as u64);
        *x = d;
        borrow = b1 || b2;
    }
}

/// acc += v·2^s (acc is wide enough to absorb the carry).
#[inline]
fn add_shifted(acc: &mut [u64], v: &[u64], s: u64) {
    let (q, r) = ((s / 64) as usize, (s % 64) as u32);
    let mut carry = false;
    let mut prev = 0u64;
    let mut idx = q;
    for k in 0..=v.len() {
        let cur = v.get(k).copied().unwrap_or(0);
        let w = if r == 0 { cur } else { (cur << r) | (prev >> (64 - r)) };
        prev = cur;
        let (s1, c1) = acc[idx].overflowing_add(w);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        acc[idx] = s2;
        carry = c1 || c2;
        idx += 1;
    }
    while carry {
        let (s1, c1) = acc[idx].overflowing_add(1);
        acc[idx] = s1;
        carry = c1;
        idx += 1;
    }
}

/// Bits s .. s+m of the magnitude `mag` (m ≤ 64).
fn bits_at(mag: &[u64], s: u64, m: u32) -> u64 {
    let (q, r) = ((s / 64) as usize, (s % 64) as u32);
    let Some(&lo) = mag.get(q) else { return 0 };
    let mut v = lo >> r;
    if r > 0 {
        v |= mag.get(q + 1).map_or(0, |&hi| hi << (64 - r));
    }
    if m < 64 {
        v & ((1 << m) - 1)
    } else {
        v
    }
}

/// The limb magnitudes a_{i,j} of every coefficient, row-major (index K·i + j).
fn split(f: &[IntRef], par: Params) -> Result<Vec<u64>> {
    let kk = par.kk();
    let mut a = try_zeroed(f.len() * kk)?;
    a.par_chunks_mut(kk).zip(f).with_min_len(256).for_each(|(row, c)| {
        for (j, x) in row.iter_mut().enumerate() {
            *x = bits_at(c.mag, j as u64 * par.m as u64, par.m);
        }
    });
    Ok(a)
}

/// The Z/p images of the two convolutions for every prime q: `neg[q]` holds C⁺_{i,j} mod p_q and
/// `cyc[q]` holds ζ^j·C⁻_{i,j} mod p_q, both at index i + L·j.
struct Convolutions {
    par: Params,
    primes: Vec<PrimeData>,
    neg: Vec<Vec<u64>>,
    cyc: Vec<Vec<u64>>,
}

impl Convolutions {
    /// Splits f and g and runs the 2e negacyclic products in parallel (one forward transform
    /// fewer per product when f and g are the same slice).
    fn new(f: &[IntRef], g: &[IntRef], par: Params) -> Result<Convolutions> {
        let square = std::ptr::eq(f.as_ptr(), g.as_ptr()) && f.len() == g.len();
        let a = split(f, par)?;
        let b = if square { None } else { Some(split(g, par)?) };
        let primes = par.primes[..par.e].iter().map(|&p| PrimeData::new(p, par.kk())).collect::<Result<Vec<_>>>()?;
        let jobs: Vec<(usize, bool)> = (0..par.e).flat_map(|q| [(q, false), (q, true)]).collect();
        let cur = crate::interrupt::current();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let mut out = jobs
            .par_iter()
            .map(|&(q, cyclic)| {
                cur.check()?;
                let pd = &primes[q];
                let pl = negacyclic(par.n(), pd.p, true)?;
                let ones;
                let tw = if cyclic {
                    &pd.twist
                } else {
                    ones = vec![Shoup::new(1, pd.p); par.kk()];
                    &ones
                };
                let mut x = load(&a, f, par, pd.p, tw)?;
                cur.check()?;
                pl.fwd(&mut x, &cur);
                cur.check()?;
                let y = match &b {
                    Some(b) => {
                        let mut y = load(b, g, par, pd.p, tw)?;
                        cur.check()?;
                        pl.fwd(&mut y, &cur);
                        y
                    }
                    None => {
                        let mut y = try_zeroed(x.len())?;
                        y.copy_from_slice(&x);
                        y
                    }
                };
                cur.check()?;
                pl.mul_assign_normalize(&mut x, &y);
                drop(y);
                cur.check()?;
                pl.inv(&mut x, &cur);
                cur.check()?;
                cur.set_progress((done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1) as f64 / (2 * par.e) as f64);
                Ok(x)
            })
            .collect::<Result<Vec<Vec<u64>>>>()?
            .into_iter();
        let (mut neg, mut cyc) = (Vec::new(), Vec::new());
        for _ in 0..par.e {
            neg.push(out.next().expect("job"));
            cyc.push(out.next().expect("job"));
        }
        Ok(Convolutions { par, primes, neg, cyc })
    }

    /// Residues of Lo_{i,j} + ⌊P/2⌋ and Hi_{i,j} + ⌊P/2⌋, where Lo = (C⁻+C⁺)/2, Hi = (C⁻−C⁺)/2 and
    /// `offset[q]` = ⌊P/2⌋ mod p_q: shifted so that their CRT lands in \[0, P) with no centring.
    #[inline]
    fn lo_hi<const E: usize>(&self, i: usize, j: usize, offset: &[u64; E]) -> ([u64; E], [u64; E]) {
        let (mut lo, mut hi) = ([0; E], [0; E]);
        let t = i + self.par.l * j;
        for q in 0..E {
            let pd = &self.primes[q];
            let p = pd.p;
            let c = pd.untwist[j].mul(self.cyc[q][t], p) + offset[q];
            let c = if c >= p { c - p } else { c };
            let n = pd.half.mul(self.neg[q][t], p);
            lo[q] = if c + n >= p { c + n - p } else { c + n };
            hi[q] = if c >= n { c - n } else { c + p - n };
        }
        (lo, hi)
    }

    /// h_i = Σ_j Lo_{i,j} 2^{Mj} + Hi_{i,j} 2^{M(j+K)} (4.30) with E primes, in parallel over i.
    ///
    /// Each Lo, Hi lies in \[−⌊P/2⌋, ⌊P/2⌋] (the bound), so u = value + ⌊P/2⌋ ∈ \[0, P) is what
    /// Garner returns; the accumulator sums the 2K shifted u's (< 2^(bits P + M(2K−1) + 1)) and then
    /// subtracts the constant Z = ⌊P/2⌋·Σ_{t<2K} 2^{Mt}, in two's complement over w limbs.
    fn recover<const E: usize>(&self, h: &mut ZSlab) {
        let (kk, m) = (self.par.kk() as u64, self.par.m as u64);
        let crt = Crt::<E>::new(self.par.primes);
        let mut half = crt.modulus();
        halve(&mut half);
        let offset: [u64; E] = std::array::from_fn(|q| rem(&half, crt.p[q]));
        let w = (limbs_for_bits(64 * E as u64 + m * (2 * kk - 1) + 1) + 1).max(h.stride() + 1);
        let mut z = vec![0u64; w];
        for t in 0..2 * kk {
            add_shifted(&mut z, &half, m * t);
        }
        let cur = crate::interrupt::current();
        h.par_rows_mut().enumerate().with_min_len(GRAIN).for_each_init(
            || vec![0u64; w],
            |acc, (i, (row, sign))| {
                if cur.is_stopped() {
                    return;
                }
                acc.fill(0);
                for j in 0..kk as usize {
                    let (lo, hi) = self.lo_hi(i, j, &offset);
                    add_shifted(acc, &crt.value(&lo), m * j as u64);
                    add_shifted(acc, &crt.value(&hi), m * (j as u64 + kk));
                }
                sub_in_place(acc, &z);
                ZSlab::set_twos_complement(acc, sign);
                debug_assert!(acc[row.len()..].iter().all(|&l| l == 0), "two-convolution: coefficient overflow");
                row.copy_from_slice(&acc[..row.len()]);
            },
        );
    }
}

/// The length-n residue vector of ±a_{i,j}·tw_j mod p at index i + L·j.
fn load(a: &[u64], f: &[IntRef], par: Params, p: u64, tw: &[Shoup]) -> Result<Vec<u64>> {
    let (kk, l) = (par.kk(), par.l);
    let mut x = try_zeroed(par.n())?;
    x.par_chunks_mut(l).zip(tw).enumerate().for_each(|(j, (col, &w))| {
        for (i, (y, c)) in col.iter_mut().zip(f).enumerate() {
            let r = w.mul(a[kk * i + j], p);
            *y = if c.neg && r != 0 { p - r } else { r };
        }
    });
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::zpoly::{assert_mul, check_alg};
    use crate::testing::{oracle, poly, slab_coefs, views, Rng};
    use crate::zpoly::Alg;

    const FAMILIES: [&[u64]; 2] = [BPAS_PRIMES, IFMA_PRIMES];

    fn small(v: &[i64]) -> Vec<(bool, Vec<u64>)> {
        v.iter().map(|&x| (x < 0, vec![x.unsigned_abs()])).collect()
    }

    /// [FM] §1.1.1: N = 10, K = 2, M = 5; the limbs, C⁺ and C⁻ at y⁰ and y¹⁶,
    /// and the product, with two primes of either family.
    #[test]
    fn thesis_worked_example() {
        let a = small(&[40, 84, -127, 225, -102, 201, 217, -55, 100]);
        let b = small(&[104, 152, -1, 51, -114, 9, -110, -85, -26]);
        let (av, bv) = (views(&a), views(&b));
        let signed = |f: &[IntRef], l: Vec<u64>| -> Vec<[i64; 2]> {
            f.iter()
                .zip(l.chunks(2))
                .map(|(c, r)| {
                    let s = if c.neg { -1 } else { 1 };
                    [s * r[0] as i64, s * r[1] as i64]
                })
                .collect()
        };
        let want =
            [4160, 14816, -480, 6052, 23443, -10518, 75531, -17572, 31517, -13649, -30437, -5967, -50198, -16721, -11967, -7070, -2600];
        for primes in FAMILIES {
            let par = Params { k: 1, m: 5, e: 2, l: 32, primes };
            let la = signed(&av, split(&av, par).unwrap());
            let lb = signed(&bv, split(&bv, par).unwrap());
            assert_eq!(la, [[8, 1], [20, 2], [-31, -3], [1, 7], [-6, -3], [9, 6], [25, 6], [-23, -1], [4, 3]]);
            assert_eq!(lb, [[8, 3], [24, 4], [-1, 0], [19, 1], [-18, -3], [9, 0], [-14, -3], [-21, -2], [-26, 0]]);

            let conv = Convolutions::new(&av, &bv, par).unwrap();
            let crt = Crt::<2>::new(primes);
            let mut half = crt.modulus();
            halve(&mut half);
            let offset = [rem(&half, primes[0]), rem(&half, primes[1])];
            let int = |x: [u64; 2]| -> i128 {
                let v = |x: [u64; 2]| (x[0] as u128 | (x[1] as u128) << 64) as i128;
                v(x) - v(half)
            };
            // (Lo, Hi) of A·B at y^i, x^j; C⁺ = Lo − Hi and C⁻ = Lo + Hi.
            let lh = |i: usize, j: usize| {
                let (lo, hi) = conv.lo_hi(i, j, &offset);
                (int(crt.value(&lo)), int(crt.value(&hi)))
            };
            let pm = |i: usize, j: usize| {
                let (lo, hi) = lh(i, j);
                (lo - hi, lo + hi)
            };
            assert_eq!((pm(0, 0), pm(0, 1)), ((61, 67), (32, 32)));
            assert_eq!((pm(16, 0), pm(16, 1)), ((-104, -104), (-78, -78)));
            // C at y⁰ is 3x² + 32x + 64: Lo = 64 + 32x, Hi = 3.
            assert_eq!((lh(0, 0), lh(0, 1)), ((64, 3), (32, 0)));

            let h = mul_with(&av, &bv, par).unwrap();
            assert_eq!(slab_coefs(&h), small(&want));
        }
        assert_mul(Alg::TwoConvolution, &a, &b, "thesis example");
    }

    /// The bound is checked against the actual d: the counter-example to the Good-N table (d = 256,
    /// 2^113 − 1, where Good-N gives K = 2, M = 57 with the two BPAS primes) gets other parameters.
    #[test]
    fn parameters_respect_the_bound() {
        let par = Params::choose(BPAS_PRIMES, 113, 256, 256).unwrap();
        assert!(1 + 8 + par.k as u64 + 2 * par.m as u64 <= cap(&BPAS_PRIMES[..par.e]), "{par:?}");
        assert_ne!((par.k, par.m, par.e), (1, 57, 2));
        // Transforms beyond the primes' 2-adic valuation are refused, not wrapped.
        assert!(matches!(Params::choose(IFMA_PRIMES, 1 << 40, 1 << 20, 1 << 20), Err(Error::SizeTooLarge(_))));
        for primes in FAMILIES {
            for (bits, flen, glen) in
                [(1, 1, 1), (64, 5000, 3), (300, 2000, 2000), (1024, 4096, 4096), (256, 65536, 65536), (100_000, 3, 3)]
            {
                let par = Params::choose(primes, bits, flen, glen).unwrap();
                let need = 1 + crate::int::ceil_log2(flen.min(glen)) + par.k as u64 + 2 * par.m as u64;
                assert!(need <= cap(&primes[..par.e]), "{par:?}");
                assert!((par.m as u64) << par.k >= bits && par.m <= 64 && par.l >= flen + glen - 1, "{par:?}");
            }
        }
    }

    /// Violating the bound really breaks the product (so the check above is not vacuous): the
    /// counter-example with Good-N's K = 2, M = 57 and the two BPAS primes is wrong.
    #[test]
    fn good_n_counter_example_fails_without_the_check() {
        let c = vec![u64::MAX, (1 << 49) - 1]; // 2^113 − 1
        let f: Vec<(bool, Vec<u64>)> = (0..256).map(|_| (false, c.clone())).collect();
        let fv = views(&f);
        let par = Params { k: 1, m: 57, e: 2, l: 512, primes: BPAS_PRIMES };
        assert_ne!(slab_coefs(&mul_with(&fv, &fv, par).unwrap()), oracle(&fv, &fv));
        let par = Params::choose(BPAS_PRIMES, 113, 256, 256).unwrap();
        assert_eq!(slab_coefs(&mul_with(&fv, &fv, par).unwrap()), oracle(&fv, &fv));
    }

    #[test]
    fn crt_values() {
        fn check<const E: usize>(primes: &[u64]) {
            let crt = Crt::<E>::new(primes);
            let p = crt.modulus();
            let mut r = [0; E];
            for q in 0..E {
                r[q] = primes[q] - 5;
            }
            let mut want = p;
            sub_in_place(&mut want, &[5]);
            assert_eq!(crt.value(&r), want);
            let mut x = p;
            halve(&mut x);
            let r: [u64; E] = std::array::from_fn(|q| rem(&x, primes[q]));
            assert_eq!(crt.value(&r), x);
        }
        for primes in FAMILIES {
            check::<1>(primes);
            check::<2>(primes);
            check::<3>(primes);
            check::<4>(primes);
        }
        check::<5>(IFMA_PRIMES);
    }

    /// Every number of primes of both families, with the smallest K the bound allows.
    #[test]
    fn every_prime_count() {
        let mut rng = Rng(9);
        for primes in FAMILIES {
            for e in 1..=primes.len() {
                for (len, bits) in [(50usize, 200u64), (300, 1000), (7, 5000)] {
                    let f = poly(&mut rng, len, bits, 2);
                    let g = poly(&mut rng, len + 3, bits, 1);
                    let need0 = 1 + crate::int::ceil_log2(len);
                    let k = (1..30u32)
                        .find(|&k| {
                            let m = bits.div_ceil(1 << k);
                            m <= 64 && need0 + k as u64 + 2 * m <= cap(&primes[..e])
                        })
                        .unwrap();
                    let par = Params { k, m: bits.div_ceil(1 << k) as u32, e, l: (2 * len + 2).next_power_of_two().max(MIN_NTT), primes };
                    let (fv, gv) = (views(&f), views(&g));
                    assert_eq!(slab_coefs(&mul_with(&fv, &gv, par).unwrap()), oracle(&fv, &gv), "{par:?}");
                }
            }
        }
    }

    #[test]
    fn two_convolution_matches_oracle() {
        check_alg(Alg::TwoConvolution, 200, 3000);
    }

    #[test]
    fn two_convolution_matches_schoolbook_large() {
        crate::testing::zpoly::check_large(Alg::TwoConvolution);
    }

    #[test]
    fn two_convolution_large_and_unbalanced() {
        let mut rng = Rng(42);
        let f = poly(&mut rng, 2000, 300, 0);
        let g = poly(&mut rng, 2000, 300, 2);
        assert_mul(Alg::TwoConvolution, &f, &g, "2000 x 2000, 300 bits");
        let f = poly(&mut rng, 5000, 64, 1);
        let g = poly(&mut rng, 3, 64, 1);
        assert_mul(Alg::TwoConvolution, &f, &g, "5000 x 3, 64 bits");
        assert_mul(Alg::TwoConvolution, &g, &f, "3 x 5000, 64 bits");
    }
}
