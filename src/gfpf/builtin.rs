//! The generalized Fermat primes of Table 2.1 (Thesis; Table 1 of [BPF]): p = (2^w ± 2^u)^k + 1,
//! v₂(p − 1) = u·k. P3 (k = 8) and P4 (k = 16) are the papers' benchmark primes.
use super::Gfpf;
use crate::{invalid, Result};

/// (k, w, u, sign of 2^u) for each row of Table 2.1.
pub const TABLE_2_1: [(usize, u32, u32, i8); 7] = [
    (2, 63, 53, 1),
    (4, 64, 50, -1),
    (8, 63, 34, 1),  // P3
    (16, 62, 36, 1), // P4
    (32, 62, 56, 1),
    (64, 63, 40, -1),
    (128, 64, 28, -1),
];

/// The radix 2^w ± 2^u of the Table 2.1 prime with k digits, if there is one.
pub fn radix(k: usize) -> Option<u64> {
    TABLE_2_1.iter().find(|t| t.0 == k).map(|&(_, w, u, sg)| {
        let (hi, lo) = ((1u128 << w), (1u128 << u));
        (if sg > 0 { hi + lo } else { hi - lo }) as u64
    })
}

impl Gfpf {
    /// The Table 2.1 prime with k digits (k = 2, 4, …, 128): k = 8 is P3 = (2^63 + 2^34)^8 + 1,
    /// k = 16 is P4 = (2^62 + 2^36)^16 + 1.
    pub fn builtin(k: usize) -> Result<Self> {
        match radix(k) {
            Some(r) => Ok(Gfpf::new_unchecked(r, k)),
            None => invalid!("no built-in generalized Fermat prime with k = {k} (Table 2.1 has k = 2, 4, …, 128)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_primes_are_prime_with_the_paper_two_adicity() {
        for &(k, _, u, _) in &TABLE_2_1 {
            let r = radix(k).unwrap();
            if k <= 32 {
                // The checked constructor (the larger ones take a few seconds in a debug build).
                assert!(Gfpf::new(r, k).is_ok(), "k = {k}");
            }
            let f = Gfpf::builtin(k).unwrap();
            assert_eq!(f.two_adicity(), (u as u64) * k as u64, "k = {k}");
        }
        assert_eq!(radix(8), Some((1 << 63) + (1 << 34)));
        assert_eq!(radix(16), Some((1 << 62) + (1 << 36)));
        assert_eq!(Gfpf::builtin(8).unwrap().prime().len(), 8); // 505 bits
        assert_eq!(Gfpf::builtin(128).unwrap().prime().len(), 128); // 8192 bits
        assert!(Gfpf::builtin(256).is_err() && Gfpf::builtin(3).is_err());
    }
}
