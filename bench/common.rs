//! What the Rust timing programs of bench/ share; each includes this file with
//! `#[path = "common.rs"] mod common;` (examples are separate crates), using what it needs.
//! Random inputs come from the crate's test support, `gpmp::testing::Rng` (splitmix64).
#![allow(dead_code)]
use std::time::Instant;

/// Seconds: the process CPU time while gpmp runs one worker thread (on a shared, loaded box it counts
/// only our own work), the monotonic clock above (the CPU time would add up every worker's).
pub fn now() -> f64 {
    let clock = if gpmp::runtime::num_threads() == 1 { libc::CLOCK_PROCESS_CPUTIME_ID } else { libc::CLOCK_MONOTONIC };
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The best time of f in seconds by [`now`], over at least `min_runs` runs that add up to
/// `min_time` seconds, and at most `max_runs` runs.
pub fn best_s(min_runs: usize, min_time: f64, max_runs: usize, mut f: impl FnMut()) -> f64 {
    let (mut best, mut total, mut runs) = (f64::INFINITY, 0.0, 0);
    while runs < min_runs || (total < min_time && runs < max_runs) {
        let t = now();
        f();
        let dt = now() - t;
        best = best.min(dt);
        total += dt;
        runs += 1;
    }
    best
}

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
