//! What the Rust timing programs of bench/ share; each includes this file with
//! `#[path = "common.rs"] mod common;` (examples are separate crates), using what it needs.
#![allow(dead_code)]
use std::time::Instant;

/// Median wall time in ms of `reps` runs of f, after one warm-up run.
pub fn median_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Median wall time in ms of `reps` runs of f on a fresh (untimed) copy of x, after one warm-up run.
pub fn median_ms_on(x: &[u64], reps: usize, mut f: impl FnMut(&mut [u64])) -> f64 {
    let mut t: Vec<f64> = (0..=reps)
        .map(|_| {
            let mut y = x.to_vec();
            let s = Instant::now();
            f(&mut y);
            s.elapsed().as_secs_f64() * 1e3
        })
        .skip(1)
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// The median of some timings.
pub fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
