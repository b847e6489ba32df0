//! Cached negacyclic NTT plans (tfhe-ntt's `prime64::Plan`, AVX-512/IFMA when the CPU has it).
//!
//! A plan for (n, p) computes in Z/pZ\[x\]/(x^n + 1): `fwd` maps coefficients to evaluations at the odd
//! powers of a primitive 2n-th root of unity (bit-reversed order), `inv` maps back up to a factor n,
//! `mul_assign_normalize` multiplies pointwise and divides by n. It needs n a power of two ≥ 16 and
//! 2n | p − 1. A product of degree < n is exact, so it serves plain products after zero padding.
use crate::{invalid, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
pub use tfhe_ntt::prime64::Plan;

/// Smallest transform size tfhe-ntt accepts.
pub const MIN_NTT: usize = 16;

/// The plan for x^n + 1 over Z/pZ, built once per (n, p) and shared.
pub fn plan(n: usize, p: u64) -> Result<Arc<Plan>> {
    type Cache = Mutex<HashMap<(usize, u64), Arc<Plan>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(pl) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&(n, p)) {
        return Ok(Arc::clone(pl));
    }
    let Some(pl) = Plan::try_new(n, p) else {
        return invalid!("no negacyclic NTT of size {n} modulo {p} (need n a power of two >= {MIN_NTT}, p prime, 2n | p-1)");
    };
    let pl = Arc::new(pl);
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert((n, p), Arc::clone(&pl));
    Ok(pl)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Naive negacyclic product as the oracle.
    fn naive(a: &[u64], b: &[u64], p: u64) -> Vec<u64> {
        let n = a.len();
        let mut c = vec![0u128; n];
        let p128 = p as u128;
        for (i, &ai) in a.iter().enumerate() {
            for (j, &bj) in b.iter().enumerate() {
                let t = ai as u128 * bj as u128 % p128;
                let k = (i + j) % n;
                c[k] = if i + j < n { (c[k] + t) % p128 } else { (c[k] + p128 - t) % p128 };
            }
        }
        c.into_iter().map(|x| x as u64).collect()
    }

    #[test]
    fn negacyclic_product_matches_naive() {
        for &p in &[1_125_899_865_948_161, 0xffff_ffff_0000_0001, 29 * (1u64 << 57) + 1] {
            let n = 64;
            let pl = plan(n, p).unwrap();
            let a: Vec<u64> = (0..n as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15)) % p).collect();
            let b: Vec<u64> = (0..n as u64).map(|i| (p - 1 - i * 12345) % p).collect();
            let (mut x, mut y) = (a.clone(), b.clone());
            pl.fwd(&mut x);
            pl.fwd(&mut y);
            pl.mul_assign_normalize(&mut x, &y);
            pl.inv(&mut x);
            assert_eq!(x, naive(&a, &b, p), "p = {p}");
        }
        assert!(plan(8, 0xffff_ffff_0000_0001).is_err());
    }
}
