//! Chinese remaindering over word-size primes p_0, …, p_{k−1} (M = Π p_i), by Garner's mixed radix
//! ([MCA] §5.6, [Knuth] 4.3.2):
//!
//! x = v_0 + v_1·P_1 + … + v_{k−1}·P_{k−1},  P_i = p_0⋯p_{i−1},  0 ≤ v_i < p_i,
//! v_i = (r_i − Σ_{j<i} v_j·(P_j mod p_i)) · (P_i mod p_i)^(−1)  mod p_i.
//!
//! The inner sum is accumulated in u128 (each term < p_i·p_j < 2^126 / k for the primes we use, see
//! [`Crt::new`]) and reduced once, so a digit costs i multiply-adds plus two Shoup products; the
//! limbs follow by Horner, x = (…(v_{k−1}·p_{k−2} + v_{k−2})·p_{k−3} + …)·p_0 + v_0.
//! The symmetric residue is x if x ≤ ⌊M/2⌋, else x − M (M is odd).
use super::reduce::{ints_mod, Modulus};
use crate::int::{IntRef, ZSlab};
use crate::{invalid, Result};
use rayon::prelude::*;

/// Precomputed constants for one list of distinct odd primes.
#[derive(Clone, Debug)]
pub struct Crt {
    m: Vec<Modulus>,
    /// pm\[i\]\[j\] = P_j mod p_i for j < i.
    pm: Vec<Vec<u64>>,
    /// (P_i mod p_i)^(−1) mod p_i and its Shoup constant.
    inv: Vec<(u64, u64)>,
    /// M and ⌊M/2⌋, `limbs` limbs each.
    modulus: Vec<u64>,
    half: Vec<u64>,
    /// All primes < 2^50 (digit sums need no intermediate reduction).
    small: bool,
    /// For the batched k ≤ 4 forms: g\[i\]\[j\] = p_j^(−1) mod p_i for j < i with Shoup constants,
    /// so that v_i = (…((r_i − v_0)·p_0^(−1) − v_1)·p_1^(−1) − … − v_(i−1))·p_(i−1)^(−1) mod p_i
    /// costs i Shoup products (k(k−1)/2 a coefficient; the lanes hide the chain's latency), with
    /// lift\[i\] = p_i·⌈2^50/p_i⌉ added before each subtraction (every v_j < 2^50, and a Shoup product
    /// takes any u64); and the limbs of P_i (x = Σ v_i·P_i).
    g: Vec<Vec<(u64, u64)>>,
    lift: Vec<u64>,
    prefix: Vec<[u64; 4]>,
}

/// Rows per rayon task in the batched conversions.
const GRAIN: usize = 256;

/// Coefficients converted together by the batched Garner loop.
const LANES: usize = 8;

impl Crt {
    /// Constants for `primes` (distinct odd primes < 2^63; the u128 digit sums need
    /// k·max p² < 2^128, true for any k < 2^28 when p < 2^50, and we reduce per term otherwise).
    pub fn new(primes: &[u64]) -> Self {
        use super::prime::{invmod, mulmod};
        let k = primes.len();
        let m: Vec<Modulus> = primes.iter().map(|&p| Modulus::new(p)).collect();
        let mut pm = Vec::with_capacity(k);
        let mut inv = Vec::with_capacity(k);
        for (i, mi) in m.iter().enumerate() {
            let p = mi.p;
            let mut row = Vec::with_capacity(i);
            let mut x = 1 % p;
            for &q in &primes[..i] {
                row.push(x);
                x = mulmod(x, q % p, p);
            }
            let a = invmod(x, p);
            inv.push((a, mi.shoup(a)));
            pm.push(row);
        }
        let modulus = prime_product(primes);
        let mut half = modulus.clone();
        for i in 0..half.len() {
            half[i] = (half[i] >> 1) | half.get(i + 1).map_or(0, |&h| h << 63);
        }
        let small = primes.iter().all(|&p| p < 1 << 50);
        let mut g = Vec::new();
        let mut prefix = Vec::new();
        let mut lift = Vec::new();
        if small && k <= 4 {
            let mut pl = [1u64, 0, 0, 0];
            for (i, mi) in m.iter().enumerate() {
                g.push(primes[..i].iter().map(|&q| invmod(q % mi.p, mi.p)).map(|c| (c, mi.shoup(c))).collect());
                lift.push(mi.p * (1u64 << 50).div_ceil(mi.p));
                prefix.push(pl);
                let mut carry = 0u128;
                for l in pl.iter_mut() {
                    let t = *l as u128 * mi.p as u128 + carry;
                    *l = t as u64;
                    carry = t >> 64;
                }
            }
        }
        Crt { m, pm, inv, modulus, half, small, g, lift, prefix }
    }

    /// Number of primes.
    pub fn len(&self) -> usize {
        self.m.len()
    }

    pub fn is_empty(&self) -> bool {
        self.m.is_empty()
    }

    /// Limbs of M (every output of [`Crt::unsigned`] has this many).
    pub fn limbs(&self) -> usize {
        self.modulus.len()
    }

    /// x ∈ [0, M) with x ≡ r\[i\] (mod p_i), into `out` (`limbs()` limbs); `v` is scratch of
    /// `len()` words. Residues must be reduced (r\[i\] < p_i).
    #[inline]
    pub fn unsigned(&self, r: &[u64], v: &mut [u64], out: &mut [u64]) {
        if self.small {
            match self.m.len() {
                2 => return self.unsigned_k::<2>(r, out),
                3 => return self.unsigned_k::<3>(r, out),
                4 => return self.unsigned_k::<4>(r, out),
                _ => {}
            }
        }
        self.unsigned_any(r, v, out)
    }

    /// The mixed-radix digits v_0 … v_(K−1) of LANES coefficients at once (K primes < 2^50): each
    /// step runs over the lanes, so the long dependency chain of one coefficient overlaps with the
    /// others'. Coefficient l has residues res\[i·stride + m0 + l\]; its digits are v\[·\]\[l\].
    #[inline(always)]
    fn digits_lanes<const K: usize>(&self, res: &[u64], stride: usize, m0: usize) -> [[u64; LANES]; K] {
        let mut v = [[0u64; LANES]; K];
        for i in 0..K {
            let mi = &self.m[i];
            let (g, lift) = (&self.g[i], self.lift[i]);
            let r = &res[i * stride + m0..i * stride + m0 + LANES];
            for l in 0..LANES {
                let mut t = r[l];
                for j in 0..i {
                    t = mi.mul_shoup(t + lift - v[j][l], g[j].0, g[j].1);
                }
                v[i][l] = t;
            }
        }
        v
    }

    /// [`Crt::unsigned`] for LANES coefficients at once (K primes < 2^50), from
    /// [`Crt::digits_lanes`]; the limbs of coefficient l go to x\[l\]\[..limbs()\].
    #[inline(always)]
    fn unsigned_lanes<const K: usize>(&self, res: &[u64], stride: usize, m0: usize, x: &mut [[u64; 4]; LANES]) {
        let v = self.digits_lanes::<K>(res, stride, m0);
        for (l, xl) in x.iter_mut().enumerate() {
            let mut acc = [0u64; 4];
            acc[0] = v[0][l];
            #[allow(clippy::needless_range_loop)] // constant i keeps the loops unrolled
            for i in 1..K {
                let pi = &self.prefix[i];
                let mut carry = 0u128;
                // P_i < 2^(50·i) has at most i limbs.
                for j in 0..K {
                    let pij = if j < i { pi[j] } else { 0 };
                    let t = acc[j] as u128 + v[i][l] as u128 * pij as u128 + carry;
                    acc[j] = t as u64;
                    carry = t >> 64;
                }
            }
            *xl = acc;
        }
    }

    /// (x mod p) for LANES coefficients (K primes < 2^50): x = Σ v_i·P_i, so
    /// x ≡ Σ v_i·w_i (mod p) with w_i = P_i mod p < 2^63; each term is below 2^113 and the sum of
    /// K ≤ 4 terms fits a u128, reduced once.
    #[inline(always)]
    fn reduce_lanes<const K: usize>(&self, res: &[u64], stride: usize, m0: usize, w: &[u64], pm: &Modulus, out: &mut [u64]) {
        let v = self.digits_lanes::<K>(res, stride, m0);
        for (l, o) in out.iter_mut().enumerate().take(LANES) {
            let mut s = v[0][l] as u128;
            for i in 1..K {
                s += v[i][l] as u128 * w[i] as u128;
            }
            *o = pm.reduce_u128(s);
        }
    }

    /// Batched conversion of LANES coefficients when k ∈ 2..=4 primes < 2^50 (false otherwise).
    #[inline]
    fn lanes(&self, res: &[u64], stride: usize, m0: usize, x: &mut [[u64; 4]; LANES]) -> bool {
        if !self.small {
            return false;
        }
        match self.m.len() {
            2 => self.unsigned_lanes::<2>(res, stride, m0, x),
            3 => self.unsigned_lanes::<3>(res, stride, m0, x),
            4 => self.unsigned_lanes::<4>(res, stride, m0, x),
            _ => return false,
        }
        true
    }

    /// [`Crt::unsigned`] for K primes < 2^50, unrolled.
    #[inline(always)]
    fn unsigned_k<const K: usize>(&self, r: &[u64], out: &mut [u64]) {
        let mut v = [0u64; K];
        for i in 0..K {
            let mi = &self.m[i];
            let pm = &self.pm[i];
            let mut acc = 0u128;
            for j in 0..i {
                acc += v[j] as u128 * pm[j] as u128;
            }
            let t = mi.sub(r[i], mi.reduce_u128(acc));
            v[i] = mi.mul_shoup(t, self.inv[i].0, self.inv[i].1);
        }
        let mut x = [0u64; K];
        x[0] = v[K - 1];
        for i in (0..K - 1).rev() {
            let p = self.m[i].p as u128;
            let mut carry = v[i] as u128;
            for l in x.iter_mut() {
                let t = *l as u128 * p + carry;
                *l = t as u64;
                carry = t >> 64;
            }
        }
        let w = self.modulus.len();
        out[..w].copy_from_slice(&x[..w]);
    }

    /// The mixed-radix digits v (`len()` words) of the x ∈ [0, M) with residues r, any number of primes.
    fn digits(&self, r: &[u64], v: &mut [u64]) {
        for (i, mi) in self.m.iter().enumerate() {
            let s = if mi.p < 1 << 50 {
                let acc: u128 = v[..i].iter().zip(&self.pm[i]).map(|(&a, &b)| a as u128 * b as u128).sum();
                mi.reduce_u128(acc)
            } else {
                v[..i].iter().zip(&self.pm[i]).fold(0, |s, (&a, &b)| mi.add(s, mi.reduce_u128(a as u128 * b as u128)))
            };
            let t = mi.sub(r[i], s);
            v[i] = mi.mul_shoup(t, self.inv[i].0, self.inv[i].1);
        }
    }

    /// [`Crt::unsigned`] for any number of primes.
    fn unsigned_any(&self, r: &[u64], v: &mut [u64], out: &mut [u64]) {
        let k = self.m.len();
        self.digits(r, v);
        let out = &mut out[..self.modulus.len()];
        out.fill(0);
        out[0] = v[k - 1];
        let mut used = 1;
        for i in (0..k - 1).rev() {
            let p = self.m[i].p as u128;
            let mut carry = v[i] as u128;
            for l in out[..used].iter_mut() {
                let t = *l as u128 * p + carry;
                *l = t as u64;
                carry = t >> 64;
            }
            if carry != 0 {
                out[used] = carry as u64;
                used += 1;
            }
        }
    }

    /// The symmetric residue x ∈ (−M/2, M/2): writes |x| into `out` (`limbs()` limbs) and
    /// returns whether x < 0.
    #[inline]
    pub fn signed(&self, r: &[u64], v: &mut [u64], out: &mut [u64]) -> bool {
        self.unsigned(r, v, out);
        self.to_symmetric(out)
    }

    /// x ∈ [0, M) (`limbs()` limbs) → |x − M| and true when x > ⌊M/2⌋, else x and false.
    #[inline]
    fn to_symmetric(&self, out: &mut [u64]) -> bool {
        let n = self.modulus.len();
        let greater = (0..n).rev().find(|&i| out[i] != self.half[i]).is_some_and(|i| out[i] > self.half[i]);
        if greater {
            let mut borrow = false;
            for (o, &m) in out[..n].iter_mut().zip(&self.modulus) {
                let (d, b1) = m.overflowing_sub(*o);
                let (d, b2) = d.overflowing_sub(borrow as u64);
                *o = d;
                borrow = b1 | b2;
            }
        }
        greater
    }

    /// Symmetric residues of a batch, in parallel: element m of `out` comes from the residues
    /// res\[i·stride + m\] (prime-major, as the convolution engine leaves them). The values must
    /// fit the slab's stride. `Err(Interrupted)` once the running call is stopped (out unspecified).
    pub fn signed_into(&self, res: &[u64], stride: usize, out: &mut ZSlab) -> crate::Result<()> {
        let (k, w) = (self.len(), self.limbs());
        let st = out.stride();
        let n = st.min(w);
        let cur = crate::interrupt::current();
        out.par_blocks_mut(LANES).enumerate().with_min_len(GRAIN / LANES).for_each_init(
            || (vec![0u64; k], vec![0u64; k], vec![0u64; w]),
            |(r, v, x), (c, (mags, signs))| {
                if cur.is_stopped() {
                    return;
                }
                let m0 = c * LANES;
                let mut xs = [[0u64; 4]; LANES];
                let batched = signs.len() == LANES && self.lanes(res, stride, m0, &mut xs);
                for (l, (row, sign)) in mags.chunks_mut(st).zip(signs.iter_mut()).enumerate() {
                    let neg = if batched {
                        x.copy_from_slice(&xs[l][..w]);
                        self.to_symmetric(x)
                    } else {
                        for (i, ri) in r.iter_mut().enumerate() {
                            *ri = res[i * stride + m0 + l];
                        }
                        self.signed(r, v, x)
                    };
                    debug_assert!(x[n..].iter().all(|&l| l == 0), "CRT value wider than the stride");
                    row[..n].copy_from_slice(&x[..n]);
                    *sign = neg && x[..n].iter().any(|&l| l != 0);
                }
            },
        );
        cur.check()
    }

    /// out\[m\] = x_m mod p for a batch (`out.len()` values), in parallel, where x_m ∈ [0, M) is the
    /// value with the residues res\[i·stride + m\] (laid out as in [`Crt::signed_into`]) and p is
    /// any odd modulus < 2^63: the final reduction of a multi-modular product over Z/pZ, fused with
    /// Garner's digits (x ≡ Σ v_i·(P_i mod p)), so no x is ever formed.
    pub fn reduce_into(&self, res: &[u64], stride: usize, p: u64, out: &mut [u64]) {
        let pm = Modulus::new(p);
        let w = self.reduce_weights(p);
        out.par_chunks_mut(GRAIN).enumerate().for_each(|(c, o)| self.reduce_range(res, stride, c * GRAIN, &w, &pm, o));
    }

    /// The weights P_i mod p (i < `len()`) of [`Crt::reduce_range`] for the modulus p.
    pub fn reduce_weights(&self, p: u64) -> Vec<u64> {
        let mut w = Vec::with_capacity(self.len());
        let mut acc = 1 % p;
        for mi in &self.m {
            w.push(acc);
            acc = super::prime::mulmod(acc, mi.p % p, p);
        }
        w
    }

    /// [`Crt::reduce_into`] on one thread for the coefficients first .. first + out.len(), given
    /// w = [`Crt::reduce_weights`]`(p)` and pm = `Modulus::new(p)`.
    pub fn reduce_range(&self, res: &[u64], stride: usize, first: usize, w: &[u64], pm: &Modulus, out: &mut [u64]) {
        let k = self.len();
        let (mut r, mut v) = ([0u64; 8], [0u64; 8]);
        let (mut rv, mut vv) = (Vec::new(), Vec::new());
        let (r, v): (&mut [u64], &mut [u64]) = if k <= 8 {
            (&mut r[..k], &mut v[..k])
        } else {
            rv.resize(k, 0);
            vv.resize(k, 0);
            (&mut rv, &mut vv)
        };
        let len = out.len();
        for (c, o) in out.chunks_mut(LANES).enumerate() {
            let m0 = first + c * LANES;
            if self.small && c * LANES + LANES <= len {
                match k {
                    1 => {
                        self.reduce_lanes::<1>(res, stride, m0, w, pm, o);
                        continue;
                    }
                    2 => {
                        self.reduce_lanes::<2>(res, stride, m0, w, pm, o);
                        continue;
                    }
                    3 => {
                        self.reduce_lanes::<3>(res, stride, m0, w, pm, o);
                        continue;
                    }
                    4 => {
                        self.reduce_lanes::<4>(res, stride, m0, w, pm, o);
                        continue;
                    }
                    _ => {}
                }
            }
            for (l, ol) in o.iter_mut().enumerate() {
                for (i, ri) in r.iter_mut().enumerate() {
                    *ri = res[i * stride + m0 + l];
                }
                self.digits(r, v);
                *ol = v.iter().zip(w).fold(0, |s, (&d, &wi)| pm.add(s, pm.reduce_u128(d as u128 * wi as u128)));
            }
        }
    }

    /// The values of a batch into `out` (stride `limbs()`, zero on entry): element m ∈ (−M/2, M/2)
    /// when `signed`, else in [0, M), with the residues res\[i·stride + m\] (reduced: res < p_i), in
    /// parallel. With no primes (M = 1) every value is 0 and `out` is left as it is.
    pub fn values_into(&self, res: &[u64], stride: usize, signed: bool, out: &mut ZSlab) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        assert_eq!(out.stride(), self.limbs(), "values_into: the slab's stride must be limbs()");
        if signed {
            return self.signed_into(res, stride, out);
        }
        out.par_blocks_mut(GRAIN).enumerate().for_each(|(c, (mags, _))| self.unsigned_range(res, stride, c * GRAIN, mags));
        Ok(())
    }

    /// Unsigned values of a batch into rows of `limbs()` limbs (`out.len() = count·limbs()`), in
    /// parallel; residues laid out as in [`Crt::signed_into`].
    pub fn unsigned_into(&self, res: &[u64], stride: usize, out: &mut [u64]) {
        let w = self.limbs();
        out.par_chunks_mut(w * GRAIN).enumerate().for_each(|(c, rows)| self.unsigned_range(res, stride, c * GRAIN, rows));
    }

    /// [`Crt::unsigned_into`] on one thread for the coefficients first .. first + out.len()/limbs().
    pub fn unsigned_range(&self, res: &[u64], stride: usize, first: usize, out: &mut [u64]) {
        let (k, w) = (self.len(), self.limbs());
        let (mut r, mut v) = (vec![0u64; k], vec![0u64; k]);
        for (c, rows) in out.chunks_mut(w * LANES).enumerate() {
            let m0 = first + c * LANES;
            let mut xs = [[0u64; 4]; LANES];
            if rows.len() == w * LANES && self.lanes(res, stride, m0, &mut xs) {
                for (row, x) in rows.chunks_mut(w).zip(&xs) {
                    row.copy_from_slice(&x[..w]);
                }
                continue;
            }
            for (l, row) in rows.chunks_mut(w).enumerate() {
                for (i, ri) in r.iter_mut().enumerate() {
                    *ri = res[i * stride + m0 + l];
                }
                self.unsigned(&r, &mut v, row);
            }
        }
    }
}

/// `Ok` when `primes` are distinct odd primes below 2^63 (the primes [`Crt::new`] and
/// [`residues_into`] take), `InvalidArgument` naming the first that is not.
pub fn check_primes(primes: &[u64]) -> Result<()> {
    for (j, &p) in primes.iter().enumerate() {
        if !(3..1 << 63).contains(&p) || !super::prime::is_prime(p) {
            return invalid!("primes[{j}] = {p} is not an odd prime below 2^63");
        }
    }
    let mut sorted = primes.to_vec();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return invalid!("the prime {} is listed twice", w[0]);
    }
    Ok(())
}

/// out\[j·n + i\] = a\[i\] mod primes\[j\] in [0, p_j) for any sign of a\[i\] (n = a.len(),
/// out.len() = k·n), in parallel over primes and blocks of elements; `primes` odd primes < 2^63.
/// Each residue is a dot product of the limbs with 2^(64t) mod p ([`ints_mod`]).
pub fn residues_into(a: &[IntRef], primes: &[u64], out: &mut [u64]) {
    let n = a.len();
    if n == 0 {
        return;
    }
    assert_eq!(out.len(), primes.len() * n, "residues_into: out must hold k·n words");
    let fill = ints_mod(a);
    let mods: Vec<Modulus> = primes.iter().map(|&p| Modulus::new(p)).collect();
    let block = GRAIN.max(n.div_ceil(64));
    out.par_chunks_mut(n).zip(&mods).enumerate().for_each(|(j, (row, m))| {
        row.par_chunks_mut(block).enumerate().for_each(|(c, o)| fill(j, m, c * block, o));
    });
}

/// The limbs of M = Π p_i (repeated single-limb multiplication).
pub fn prime_product(primes: &[u64]) -> Vec<u64> {
    let mut m = vec![1u64];
    for &p in primes {
        let mut carry = 0u128;
        for l in m.iter_mut() {
            let t = *l as u128 * p as u128 + carry;
            *l = t as u64;
            carry = t >> 64;
        }
        if carry != 0 {
            m.push(carry as u64);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::prime::fourier_primes;
    use crate::testing::{Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    fn mpz_of(neg: bool, mag: &[u64]) -> Mpz {
        Mpz::from_coef(crate::int::IntRef::new(neg, mag))
    }

    /// Random residues → CRT → check with GMP that the value has those residues and lies in range;
    /// random values in range → residues (GMP) → CRT gives them back.
    fn check(primes: &[u64], rng: &mut Rng) {
        let crt = Crt::new(primes);
        let (k, w) = (crt.len(), crt.limbs());
        let mz = mpz_of(false, &crt.modulus);
        let (mut v, mut x) = (vec![0; k], vec![0; w]);
        for t in 0..200 {
            let r: Vec<u64> = primes
                .iter()
                .map(|&p| match t {
                    0 => 0,
                    1 => p - 1,
                    2 => 1,
                    _ => rng.below(p),
                })
                .collect();
            crt.unsigned(&r, &mut v, &mut x);
            let z = mpz_of(false, &x);
            // SAFETY: initialised mpz values.
            unsafe {
                assert!(gmp::mpz_cmp(&z.0, &mz.0) < 0);
                for (&p, &ri) in primes.iter().zip(&r) {
                    assert_eq!(gmp::mpz_fdiv_ui(&z.0, p as _) as u64, ri);
                }
            }
            let neg = crt.signed(&r, &mut v, &mut x);
            let z = mpz_of(neg, &x);
            // SAFETY: as above; 2|z| < M.
            unsafe {
                let mut a = Mpz::new();
                gmp::mpz_mul_2exp(&mut a.0, &z.0, 1);
                gmp::mpz_abs(&mut a.0, &a.0);
                assert!(gmp::mpz_cmp(&a.0, &mz.0) < 0);
                for (&p, &ri) in primes.iter().zip(&r) {
                    assert_eq!(gmp::mpz_fdiv_ui(&z.0, p as _) as u64, ri, "signed, t = {t}");
                }
            }
        }
        // Values at the edges of the symmetric range round-trip.
        let mut edges = vec![(false, crt.half.clone()), (true, crt.half.clone()), (false, vec![1]), (true, vec![1])];
        for _ in 0..50 {
            let mut m: Vec<u64> = (0..w).map(|_| rng.next()).collect();
            m[w - 1] %= crt.half[w - 1].max(1);
            edges.push((rng.next() & 1 == 1, m));
        }
        for (neg, mag) in edges {
            let z = mpz_of(neg, &mag);
            // SAFETY: initialised.
            let r: Vec<u64> = primes.iter().map(|&p| unsafe { gmp::mpz_fdiv_ui(&z.0, p as _) } as u64).collect();
            let got_neg = crt.signed(&r, &mut v, &mut x);
            let want = crate::int::IntRef::new(neg, &mag);
            assert_eq!(crate::int::IntRef::new(got_neg, &x), want);
        }
    }

    /// reduce_into against the limbs of unsigned() reduced by Horner, on a batch whose length is not
    /// a multiple of LANES (batched lanes and the scalar tail), edge residues 0 and p_i − 1 included.
    #[test]
    fn reduce_into_matches_limbs_mod_p() {
        let mut rng = Rng(17);
        let ps = fourier_primes(50, 30, 6);
        for k in [1, 2, 3, 4, 5] {
            let crt = Crt::new(&ps[..k]);
            let count = 8 * 5 + 3;
            let stride = count + 2;
            let mut res = vec![0u64; k * stride];
            for (i, &q) in ps[..k].iter().enumerate() {
                for m in 0..count {
                    res[i * stride + m] = match m {
                        0 => 0,
                        1 => q - 1,
                        2 => 1,
                        _ => rng.below(q),
                    };
                }
            }
            for p in [(1u64 << 63) - 25, 3, ps[0], ps[k - 1], 7681, (1 << 61) - 1] {
                let mut out = vec![0u64; count];
                crt.reduce_into(&res, stride, p, &mut out);
                let (mut r, mut v, mut x) = (vec![0; k], vec![0; k], vec![0; crt.limbs()]);
                for m in 0..count {
                    for i in 0..k {
                        r[i] = res[i * stride + m];
                    }
                    crt.unsigned(&r, &mut v, &mut x);
                    let want = x.iter().rev().fold(0u128, |a, &l| ((a << 64) | l as u128) % p as u128) as u64;
                    assert_eq!(out[m], want, "k = {k}, p = {p}, m = {m}");
                }
            }
        }
    }

    #[test]
    fn crt_matches_gmp() {
        let mut rng = Rng(11);
        let ps = fourier_primes(50, 30, 48);
        for k in [1, 2, 3, 4, 5, 8, 13, 48] {
            check(&ps[..k], &mut rng);
        }
        // Large primes take the per-term reduction path.
        check(&fourier_primes(63, 40, 5), &mut rng);
        check(&[3, 5, 7], &mut rng);
    }
}
