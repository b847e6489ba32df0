//! The transform against the definition (naive DFT, spot checks), every four-step variant
//! (lane arithmetic, split, strips per row visit, twiddle scheme), and the rejection of bad input.
use super::four_step::{split, FourStep, WIDE};
use super::lanes::Arith;
use super::{intt, ntt, ntt_many};
use crate::nmod::prime::{addmod, fourier_primes, mulmod, powmod, primitive_root_of_unity};
use crate::tuning::NTT_FOUR_STEP_MIN_N;
use crate::Result;

fn naive(x: &[u64], w: u64, p: u64) -> Vec<u64> {
    let n = x.len() as u64;
    (0..n).map(|i| x.iter().enumerate().fold(0u64, |acc, (j, &v)| addmod(acc, mulmod(v, powmod(w, i * j as u64 % n, p), p), p))).collect()
}

fn rand_vec(n: usize, p: u64, seed: u64) -> Vec<u64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match i % 11 {
                0 => p - 1,
                1 => 0,
                _ => s % p,
            }
        })
        .collect()
}

/// Primes: tiny and mid Fourier primes (7681 = 15·2^9+1 has exactly 2-adicity 9), the
/// largest Fourier primes below 2^50, 2^62 and 2^63.
fn primes() -> Vec<u64> {
    let mut v = vec![257, 7681, 12289, 998_244_353];
    v.extend(fourier_primes(50, 20, 1));
    v.extend(fourier_primes(62, 20, 1));
    v.extend(fourier_primes(63, 20, 2));
    v
}

#[test]
fn matches_naive_dft() {
    for p in primes() {
        let k2 = (p - 1).trailing_zeros();
        for lg in 0..=8u32.min(k2) {
            let n = 1usize << lg;
            let w0 = primitive_root_of_unity(n as u64, p).unwrap();
            // Several roots of order n (odd powers of w0), so the exponent bookkeeping is exercised.
            for e in [1u64, 3, (n as u64).saturating_sub(1).max(1)] {
                let w = powmod(w0, e, p);
                let x = rand_vec(n, p, n as u64 + e + p);
                let mut y = x.clone();
                ntt(&mut y, w, p).unwrap();
                assert_eq!(y, naive(&x, w, p), "p = {p}, n = {n}, w = {w}");
                intt(&mut y, w, p).unwrap();
                assert_eq!(y, x, "round trip p = {p}, n = {n}");
            }
        }
    }
}

#[test]
fn round_trip_large_and_exact_2adicity() {
    // 7681 − 1 = 15·2^9: n = 512 uses all the 2-adicity.
    for (lg, p) in
        [(9u32, 7681u64), (16, fourier_primes(50, 20, 1)[0]), (17, fourier_primes(63, 20, 1)[0]), (15, fourier_primes(62, 20, 1)[0])]
    {
        let n = 1usize << lg;
        let w = primitive_root_of_unity(n as u64, p).unwrap();
        let x = rand_vec(n, p, lg as u64);
        let mut y = x.clone();
        ntt(&mut y, w, p).unwrap();
        // Spot-check a few outputs against the definition.
        for i in [0usize, 1, n / 2 + 3, n - 1] {
            let wi = powmod(w, i as u64, p);
            let mut acc = 0;
            let mut wij = 1;
            for &v in &x {
                acc = addmod(acc, mulmod(v, wij, p), p);
                wij = mulmod(wij, wi, p);
            }
            assert_eq!(y[i], acc, "p = {p}, n = {n}, i = {i}");
        }
        intt(&mut y, w, p).unwrap();
        assert_eq!(y, x, "p = {p}, n = {n}");
    }
}

/// Every arithmetic this CPU has for p, the portable one included.
fn ariths(p: u64) -> Vec<Arith> {
    let mut v = vec![Arith::Portable];
    if Arith::detect(p) != Arith::Portable {
        v.push(Arith::Avx512);
    }
    if Arith::detect(p) == Arith::Ifma {
        v.push(Arith::Ifma);
    }
    v
}

/// Every strip count per row visit that the four-step of size n with split n1 can take (1 up
/// to min(n1, n2)/8, [`WIDE`] among them where that allows), the default first.
fn widths(n: usize, n1: usize) -> Vec<usize> {
    let f = FourStep::with_split(n, n1, 1, 257);
    let mut v = vec![f.wide];
    v.extend((0..).map(|k| 1 << k).take_while(|&w| w <= (n1.min(n / n1) / 8).min(2 * WIDE)).filter(|&w| w != f.wide));
    v
}

/// Every split n1 (8 ≤ n1 ≤ n/8) of the four-step of size n, the default first.
fn splits(n: usize) -> Vec<usize> {
    let mut v = vec![split(n)];
    v.extend((3..=n.trailing_zeros() - 3).map(|l| 1 << l).filter(|&n1| n1 != split(n)));
    v
}

/// (arithmetic, split n1, strips per row visit, coset twiddles): every four-step variant of size n for p.
fn variants(n: usize, p: u64) -> impl Iterator<Item = (Arith, usize, usize, bool)> {
    ariths(p).into_iter().flat_map(move |a| {
        splits(n).into_iter().flat_map(move |n1| widths(n, n1).into_iter().flat_map(move |wd| [(a, n1, wd, false), (a, n1, wd, true)]))
    })
}

#[test]
fn four_step_matches_naive() {
    // The four-step path at sizes where the naive DFT is affordable, with every lane arithmetic,
    // split n1·n2 and strip width, and both twiddle schemes.
    for p in primes() {
        let k2 = (p - 1).trailing_zeros();
        for lg in 6..=10u32.min(k2) {
            let n = 1usize << lg;
            let w0 = primitive_root_of_unity(n as u64, p).unwrap();
            for e in [1u64, 3, n as u64 - 1] {
                let w = powmod(w0, e, p);
                let x = rand_vec(n, p, n as u64 + e + p);
                let want = naive(&x, w, p);
                for (a, n1, wide, coset) in variants(n, p) {
                    let mut fs = FourStep::with_split(n, n1, w, p);
                    (fs.arith, fs.wide, fs.coset) = (a, wide, coset);
                    let (mut y, mut tmp) = (x.clone(), vec![0; n]);
                    fs.run(&mut y, &mut tmp, false).unwrap();
                    assert_eq!(y, want, "p = {p}, n = {n}, w = {w}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                    fs.run(&mut y, &mut tmp, true).unwrap();
                    assert_eq!(y, x, "round trip p = {p}, n = {n}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                }
            }
        }
    }
}

#[test]
fn every_power_of_two_round_trips() {
    // n = 1 .. 2^k for a p < 2^50, a p in [2^62, 2^63) (the non-lazy path; 2^17 has n2 > NTT_LEAF_MAX_LINES) and p = 7681 (2^9 | p − 1
    // exactly), with every lane arithmetic, split and strip width and both twiddle schemes; the forward result spot-checked
    // against the definition.
    for (p, kmax) in [(fourier_primes(50, 20, 1)[0], 17u32), (fourier_primes(63, 20, 1)[0], 17), (7681, 9)] {
        for lg in 0..=kmax {
            let n = 1usize << lg;
            let w = primitive_root_of_unity(n as u64, p).unwrap();
            let x = rand_vec(n, p, lg as u64 + 77);
            let mut want = None;
            let cases: Vec<_> = if n >= NTT_FOUR_STEP_MIN_N { variants(n, p).collect() } else { vec![(Arith::Portable, 0, 1, false)] };
            for (a, n1, wide, coset) in cases {
                let mut y = x.clone();
                if n >= NTT_FOUR_STEP_MIN_N {
                    let mut fs = FourStep::with_split(n, n1, w, p);
                    (fs.arith, fs.wide, fs.coset) = (a, wide, coset);
                    let mut tmp = vec![0; n];
                    fs.run(&mut y, &mut tmp, false).unwrap();
                    for i in [0usize, 1, n / 2 + 3, n - 1] {
                        let wi = powmod(w, i as u64, p);
                        let acc = x.iter().rev().fold(0u64, |acc, &v| addmod(mulmod(acc, wi, p), v, p));
                        assert_eq!(y[i], acc, "p = {p}, n = {n}, i = {i}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                    }
                    let z = y.clone();
                    fs.run(&mut y, &mut tmp, true).unwrap();
                    assert_eq!(y, x, "round trip p = {p}, n = {n}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                    assert_eq!(
                        *want.get_or_insert(z.clone()),
                        z,
                        "variants disagree, p = {p}, n = {n}, {a:?}, n1 {n1}, wide {wide}, coset {coset}"
                    );
                } else {
                    ntt(&mut y, w, p).unwrap();
                    assert_eq!(y, naive(&x, w, p));
                    intt(&mut y, w, p).unwrap();
                    assert_eq!(y, x);
                }
            }
        }
    }
}

#[test]
fn extreme_inputs() {
    // All entries p − 1 (the largest lazy intermediates), a single 1 (the powers of w), zeros.
    for p in [fourier_primes(50, 20, 1)[0], fourier_primes(62, 20, 1)[0], fourier_primes(63, 20, 1)[0]] {
        let n = 1 << 12;
        let w = primitive_root_of_unity(n as u64, p).unwrap();
        let mut y = vec![p - 1; n];
        ntt(&mut y, w, p).unwrap();
        assert_eq!(y[0], mulmod(p - 1, n as u64, p));
        assert!(y[1..].iter().all(|&v| v == 0), "p = {p}");
        let mut e = vec![0; n];
        e[1] = 1;
        ntt(&mut e, w, p).unwrap();
        assert!(e.iter().enumerate().all(|(i, &v)| v == powmod(w, i as u64, p)));
        intt(&mut e, w, p).unwrap();
        assert!(e.iter().enumerate().all(|(i, &v)| v == (i == 1) as u64));
    }
}

#[test]
fn many_matches_rows() {
    let p = fourier_primes(62, 20, 1)[0];
    for (n, count) in [(1usize, 5usize), (16, 3), (64, 7), (1024, 4)] {
        let w = primitive_root_of_unity(n as u64, p).unwrap();
        let x = rand_vec(n * count, p, 9);
        let mut y = x.clone();
        ntt_many(&mut y, n, w, p).unwrap();
        for (row, out) in x.chunks(n).zip(y.chunks(n)) {
            let mut r = row.to_vec();
            ntt(&mut r, w, p).unwrap();
            assert_eq!(r, out);
        }
    }
}

/// x with `bad` at the first, a middle and the last index (each case its own copy).
fn unreduced(x: &[u64], p: u64) -> impl Iterator<Item = (usize, u64, Vec<u64>)> + '_ {
    let n = x.len();
    [0, (n / 2 + 5) % n, n - 1].into_iter().flat_map(move |i| {
        [p, p + 1, u64::MAX].into_iter().map(move |bad| {
            let mut y = x.to_vec();
            y[i] = bad;
            (i, bad, y)
        })
    })
}

/// The error of an unreduced entry, naming it, and x untouched.
fn assert_rejected(r: Result<()>, y: &[u64], want: &[u64], i: usize, what: &str) {
    match r {
        Err(crate::Error::InvalidArgument(m)) => assert!(m.contains(&format!("x[{i}] = {}", want[i])), "{what}: {m}"),
        other => panic!("{what}: {other:?}"),
    }
    assert!(y == want, "{what}: x changed");
}

#[test]
fn unreduced_entries_are_rejected_untouched() {
    // The four-step checks x while pass 1 reads it: every arithmetic (lazy and not), one strip
    // and several per row visit, both twiddle schemes, both directions, and the entry ≥ p
    // first, in the middle or last.
    let n = 1 << 10;
    for p in [fourier_primes(50, 20, 1)[0], fourier_primes(62, 20, 1)[0], fourier_primes(63, 20, 1)[0]] {
        let w = primitive_root_of_unity(n as u64, p).unwrap();
        let x = rand_vec(n, p, 5);
        for a in ariths(p) {
            for (n1, wide, coset) in [(split(n), 1, a != Arith::Ifma), (32, 4, false), (64, 2, true)] {
                let mut fs = FourStep::with_split(n, n1, w, p);
                (fs.arith, fs.wide, fs.coset) = (a, wide, coset);
                let mut tmp = vec![0; n];
                for (i, bad, y) in unreduced(&x, p) {
                    for inverse in [false, true] {
                        let mut z = y.clone();
                        let what = format!("p = {p}, {a:?}, n1 {n1}, wide {wide}, coset {coset}, inverse {inverse}, x[{i}] = {bad}");
                        assert_rejected(fs.run(&mut z, &mut tmp, inverse), &z, &y, i, &what);
                    }
                }
                // And the same tables still transform reduced input.
                let mut z = x.clone();
                fs.run(&mut z, &mut tmp, false).unwrap();
                fs.run(&mut z, &mut tmp, true).unwrap();
                assert_eq!(z, x, "p = {p}, {a:?}, n1 {n1}, wide {wide}");
            }
        }
        // Through the API: the direct sum (n < 64), the four-step, several rows (none transformed).
        for m in [8usize, 32, 1 << 12] {
            let w = primitive_root_of_unity(m as u64, p).unwrap();
            for (i, bad, y) in unreduced(&rand_vec(m, p, 6), p) {
                let mut z = y.clone();
                assert_rejected(ntt(&mut z, w, p), &z, &y, i, &format!("ntt p = {p}, n = {m}, x[{i}] = {bad}"));
                assert_rejected(intt(&mut z, w, p), &z, &y, i, &format!("intt p = {p}, n = {m}, x[{i}] = {bad}"));
            }
        }
        let w = primitive_root_of_unity(64, p).unwrap();
        for (i, bad, y) in unreduced(&rand_vec(3 * 64, p, 7), p) {
            let mut z = y.clone();
            assert_rejected(ntt_many(&mut z, 64, w, p), &z, &y, i, &format!("ntt_many p = {p}, x[{i}] = {bad}"));
        }
    }
}

#[test]
fn bad_inputs_are_rejected() {
    let p = 7681u64;
    let w = primitive_root_of_unity(8, p).unwrap();
    let mut x = vec![1u64; 8];
    assert!(ntt(&mut x, w, 7683).is_err()); // not prime
    assert!(ntt(&mut x, w, 2).is_err()); // even
    assert!(ntt(&mut x, mulmod(w, w, p), p).is_err()); // order 4, not 8
    assert!(ntt(&mut x, w + p, p).is_err()); // unreduced root
    assert!(ntt(&mut x[..6], w, p).is_err()); // not a power of two
    assert!(ntt(&mut [], 1, p).is_err());
    assert!(ntt(&mut x, 1 << 62, (1u64 << 63) + 29).is_err()); // p ≥ 2^63
    x[3] = p;
    assert!(ntt(&mut x, w, p).is_err()); // unreduced input
    assert_eq!(x[3], p);
    assert!(ntt_many(&mut x[..7], 4, powmod(w, 2, p), p).is_err());
}
