//! What the Rust timing programs of bench/ share; each includes this file with
//! `#[path = "common.rs"] mod common;` (examples are separate crates), using what it needs.
//! Random inputs come from the crate's test support, `gpmp::testing::Rng` (splitmix64).
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
