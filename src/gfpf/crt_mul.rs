//! The FFT-based product of elements (Thesis §3.3, Alg. 4, "FFT-BasedMultiplication"): the
//! negacyclic sums u = x·y mod (T^k + 1) over Z are computed modulo a few word primes p_i by
//! negacyclic NTTs of size k (formula (3.1); tfhe-ntt plans, [`crate::nmod::plan`]), recombined
//! by CRT in the symmetric range ([`Crt::signed`]), then carried in radix r exactly as the plain
//! product does (`Gfpf::carry_sums`).
//!
//! Bound: |u_j| < k·r², so M = Π p_i > 2k·r² is needed. With r ≥ 2^62 (all of Table 2.1) and
//! k ≤ 256 that is up to 2^137, more than the two 62-bit primes of BPAS give (2^123: their bound
//! k·r² < p_1p_2/2 holds only for the Table 3.1 radices < 2^60); we take as many 50-bit
//! primes as the bound needs (three for Table 2.1: M ≈ 2^150), which also lets tfhe-ntt use IFMA.
//! Cost: 3 forward/inverse NTT triples of size k per prime, k CRTs and k carry steps, against k²
//! word products for the plain product; [`crate::tuning::GFPF_MUL_CRT_MIN_K`] is the measured
//! crossover.
use super::Gfpf;
use crate::nmod::crt::Crt;
use crate::nmod::plan::{plan, Plan, MIN_NTT};
use crate::nmod::prime::fourier_primes;
use crate::nmod::reduce::Modulus;
use crate::Result;
use std::sync::{Arc, OnceLock};

/// The primes, their NTT plans and the CRT constants of one field.
pub(crate) struct CrtMul {
    plans: Vec<Arc<Plan>>,
    mods: Vec<Modulus>,
    crt: Crt,
}

impl CrtMul {
    /// The context for k digits below radix r; `None` when k is below the smallest NTT size.
    pub(crate) fn new(r: u64, k: usize) -> Result<Option<Self>> {
        if k < MIN_NTT {
            return Ok(None);
        }
        // log₂(2k·r²) + 1 bit of margin, against 49.9 bits per prime.
        let need = 2.0 + (k as f64).log2() + 2.0 * (r as f64).log2();
        // The four largest primes < 2^50 with 2^10 | p − 1 (negacyclic NTTs up to k = 512), once.
        static CANDS: OnceLock<Vec<u64>> = OnceLock::new();
        let cands = CANDS.get_or_init(|| fourier_primes(50, 10, 4));
        let mut primes = Vec::new();
        let mut have = 0.0;
        for &p in cands {
            if have > need {
                break;
            }
            primes.push(p);
            have += (p as f64).log2();
        }
        debug_assert!(have > need);
        let plans = primes.iter().map(|&p| plan(k, p)).collect::<Result<Vec<_>>>()?;
        Ok(Some(CrtMul { plans, mods: primes.iter().map(|&p| Modulus::new(p)).collect(), crt: Crt::new(&primes) }))
    }
}

impl Gfpf {
    /// z = x·y by the FFT-based product (the plain product when k < 16, where no NTT plan exists).
    pub fn mul_crt(&self, z: &mut [u64], x: &[u64], y: &[u64]) {
        let Some(c) = self.crt.as_ref() else {
            return self.mul_plain(z, x, y);
        };
        if self.is_minus_one(x) {
            return self.neg(z, y);
        }
        if self.is_minus_one(y) {
            return self.neg(z, x);
        }
        let k = self.k;
        // u mod p_i for each prime (at most 4 primes, k ≤ 256).
        let mut a = [[0u64; 256]; 4];
        let mut b = [0u64; 256];
        for ((ai, pl), m) in a.iter_mut().zip(&c.plans).zip(&c.mods) {
            let (ai, b) = (&mut ai[..k], &mut b[..k]);
            for ((ad, bd), (&xd, &yd)) in ai.iter_mut().zip(b.iter_mut()).zip(x.iter().zip(y)) {
                *ad = m.reduce(xd);
                *bd = m.reduce(yd);
            }
            pl.fwd(ai);
            pl.fwd(b);
            pl.mul_assign_normalize(ai, b);
            pl.inv(ai);
        }
        let np = c.mods.len();
        let (mut res, mut v, mut mag) = ([0u64; 4], [0u64; 4], [0u64; 4]);
        self.carry_sums(z, |j| {
            for (ri, ai) in res.iter_mut().zip(&a[..np]) {
                *ri = ai[j];
            }
            let neg = c.crt.signed(&res[..np], &mut v[..np], &mut mag[..c.crt.limbs()]);
            // |u_j| < 2^137: three limbs, as 192-bit two's complement.
            let u = [mag[0], mag[1], mag[2]];
            if neg {
                let (l, b0) = 0u64.overflowing_sub(u[0]);
                let (m, b1) = 0u64.overflowing_sub(u[1]);
                let (m, b2) = m.overflowing_sub(b0 as u64);
                [l, m, 0u64.wrapping_sub(u[2]).wrapping_sub((b1 | b2) as u64)]
            } else {
                u
            }
        });
    }
}
