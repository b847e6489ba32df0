//! nmod timings (the Rust side; FLINT's side is bench/nmod_flint.c):
//! `cargo run --release --example nmod_bench -- [THREADS] [ntt|mul|tree]` prints markdown tables of
//! (1) gpmp's cyclic natural-order NTT (`nmod::ntt::ntt`, validation and scratch included) against
//!     tfhe-ntt's negacyclic bit-reversed forward transform of the same size (`nmod::plan`), at a
//!     50-bit and a 62-bit Fourier prime, n = 2^16 .. 2^22;
//! (2) `nmod::poly_mul::poly_mul` at lengths 2^16, 2^20, 2^22 for p = 2^63 − 25 (3-prime CRT path)
//!     and a 50-bit Fourier prime (one NTT product). FLINT's nmod_poly_mul: bench/nmod_flint.c;
//! (3) the subproduct tree at n = 2^12, 2^14, 2^16 (p62 and 2^63 − 25): building it, evaluation by the
//!     transposed remainder tree (`nmod::evaluate`, what `gpmp_nmod_poly_evaluate` runs), the
//!     subinverse tree and evaluation by fast remainders (`nmod::subinverse`), interpolation, and one
//!     product of two n/2-coefficient polynomials for scale (best of ≥ 3 runs and 0.5 s).
//!     FLINT's trees: bench/nmod_tree_flint.c;
//! (4) `zeval`: multipoint evaluation over Z by its two methods (`zpoly::evaluate::Method`) on the
//!     same inputs, for the crossover `ZPOLY_EVALUATE_MULTI_MODULAR_MAX_BITS` (values' bit bound B).
//! tfhe-ntt's output is in bit-reversed order; the last two columns of (1) add an in-place bit
//! reversal (`bit_reverse`) to it: what a caller of tfhe-ntt pays for gpmp's natural order.
//! Process CPU time at 1 thread (the default), wall time above (see `now`): the NTT table takes
//! medians of interleaved runs (see `interleaved`), the product table the best of ≥ 10 runs and
//! ≥ 1 s.
use gpmp::nmod::{ntt, plan, poly_mul, prime};
use gpmp::testing::Rng;

#[path = "common.rs"]
mod common;
use common::{best_s, median, now};

/// The best time of f in seconds over at least 10 runs and 1 s.
fn best(f: impl FnMut()) -> f64 {
    best_s(10, 1.0, usize::MAX, f)
}

/// n residues mod p from the crate's test generator, seeded with `seed`.
fn rand_vec(n: usize, p: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    (0..n).map(|_| rng.next() % p).collect()
}

fn main() {
    let threads: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(1);
    gpmp::runtime::set_num_threads(threads).unwrap();
    let p50 = prime::fourier_prime(50, 0).unwrap();
    let p62 = prime::fourier_prime(62, 0).unwrap();
    let only = std::env::args().skip(1).find(|a| a == "ntt" || a == "mul" || a == "tree" || a == "zeval");
    let run = |part: &str| only.as_deref().is_none_or(|o| o == part);
    if run("ntt") {
        ntt_table(p50, p62, threads);
    }
    if run("mul") {
        mul_table(p50, threads);
    }
    if run("tree") {
        tree_table(p62, threads);
    }
    if run("zeval") {
        zeval_table(threads);
    }
}

/// Table (4) of the module doc.
fn zeval_table(threads: usize) {
    use gpmp::zpoly::evaluate::{evaluate_by, value_bits, Method};
    println!("\n## Evaluation over Z: multi-modular against one point at a time, {threads} thread(s), ms\n");
    println!("| flen = n | coefficient bits | point bits | B | multi-modular | by points | ratio |");
    println!("|---|--:|--:|--:|--:|--:|--:|");
    let mut rng = Rng(9);
    for &(n, bf, bu) in
        &[(256usize, 64u64, 8u64), (256, 64, 32), (1024, 64, 2), (1024, 64, 8), (1024, 64, 16), (4096, 64, 2), (4096, 64, 4)]
    {
        let f = gpmp::testing::poly(&mut rng, n, bf, 0);
        let u = gpmp::testing::poly(&mut rng, n, bu, 0);
        let (fv, uv) = (gpmp::testing::views(&f), gpmp::testing::views(&u));
        let ms = |m: Method| best_s(2, 0.3, usize::MAX, || drop(evaluate_by(&fv, &uv, m).unwrap())) * 1e3;
        let (a, b) = (ms(Method::MultiModular), ms(Method::ByPoints));
        println!("| {n} | {bf} | {bu} | {} | {a:.2} | {b:.2} | {:.2} |", value_bits(&fv, &uv), a / b);
    }
}

/// Table (3) of the module doc.
fn tree_table(p62: u64, threads: usize) {
    use gpmp::nmod::{evaluate, interpolate, subinverse, tree::Tree};
    println!("\n## Subproduct tree, {threads} thread(s), ms\n");
    println!("| n | p | tree | eval (transposed) | subinverse tree | eval (fast remainders) | interp (weights kept) | product n/2 × n/2 |");
    println!("|---|---|--:|--:|--:|--:|--:|--:|");
    for p in [p62, (1u64 << 63) - 25] {
        for lg in [12, 14, 16] {
            let n = 1usize << lg;
            let f = rand_vec(n, p, 5);
            let mut u = rand_vec(n, p, 6);
            u.sort_unstable();
            u.dedup();
            while u.len() < n {
                u.push((u.last().unwrap() + 1) % p);
            }
            let ms = |f: &mut dyn FnMut()| best_s(3, 0.5, usize::MAX, f) * 1e3;
            let mut tree = None;
            let t_tree = ms(&mut || tree = Some(Tree::new(&u, p).unwrap()));
            let tree = tree.unwrap();
            let mut v = Vec::new();
            let t_eval = ms(&mut || v = evaluate::evaluate(&tree, &f).unwrap());
            let mut sub = None;
            let t_sub = ms(&mut || sub = Some(subinverse::build(&tree).unwrap()));
            let sub = sub.unwrap();
            let mut w = Vec::new();
            let t_rem = ms(&mut || w = subinverse::evaluate_by_remainders(&tree, &sub, &f).unwrap());
            assert_eq!(v, w, "the two evaluations differ");
            interpolate::interpolate(&tree, &v).unwrap();
            let t_int = ms(&mut || assert_eq!(interpolate::interpolate(&tree, &v).unwrap(), f));
            let (a, b) = (rand_vec(n / 2, p, 7), rand_vec(n / 2, p, 8));
            let t_mul = ms(&mut || {
                poly_mul::poly_mul(&a, &b, p).unwrap();
            });
            println!("| 2^{lg} | {p} | {t_tree:.2} | {t_eval:.2} | {t_sub:.2} | {t_rem:.2} | {t_int:.2} | {t_mul:.3} |");
        }
    }
    // The schoolbook levels: tree + evaluation + interpolation by H (NMOD_TREE_PLAIN_MAX_LEN = 2^H).
    println!("\n| n | p | H = 3 | H = 4 | H = 5 | H = 6 | H = 7 |\n|---|---|--:|--:|--:|--:|--:|");
    for p in [p62, (1u64 << 63) - 25] {
        for lg in [12, 14, 16] {
            let n = 1usize << lg;
            let f = rand_vec(n, p, 5);
            let mut u = rand_vec(n, p, 6);
            u.sort_unstable();
            u.dedup();
            while u.len() < n {
                u.push((u.last().unwrap() + 1) % p);
            }
            let cells: Vec<String> = (3..=7)
                .map(|h| {
                    let t = best_s(3, 0.5, usize::MAX, || {
                        let tree = Tree::with_plain_levels(&u, p, h).unwrap();
                        let v = evaluate::evaluate(&tree, &f).unwrap();
                        interpolate::interpolate(&tree, &v).unwrap();
                    });
                    format!("{:.2}", t * 1e3)
                })
                .collect();
            println!("| 2^{lg} | {p} | {} |", cells.join(" | "));
        }
    }
}

/// The runs (seconds) of each of fs, interleaved round by round (one run of each per round,
/// ≥ 11 rounds and ≥ 1 s in all), so that a change of the machine's load hits every column alike.
fn interleaved<const K: usize>(fs: &mut [&mut dyn FnMut(); K]) -> [Vec<f64>; K] {
    let mut t: [Vec<f64>; K] = std::array::from_fn(|_| Vec::new());
    let mut total = 0.0;
    while t[0].len() < 11 || total < 1.0 {
        for (f, ti) in fs.iter_mut().zip(t.iter_mut()) {
            let s = now();
            f();
            let dt = now() - s;
            ti.push(dt);
            total += dt;
        }
    }
    t
}

/// v with its low `bits` bits reversed (v < 2^bits).
fn rev(v: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        v.reverse_bits() >> (usize::BITS - bits)
    }
}

/// x_i ↔ x_rev(i) in place (n = x.len() a power of two): tiles of T × T words (T = 2^t) swapped
/// whole with their bit-reversed partner tile through two buffers (Carter–Gatlin, "Towards an
/// optimal bit-reversal permutation program", 1998): with i = a·n/T + b·T + c (a, c < T),
/// rev(i) = rev_t(c)·n/T + rev(b)·T + rev_t(a), so tile b's word (a, c) lands in tile rev(b) at
/// (rev_t(c), rev_t(a)). Every row of a tile is T contiguous words.
fn bit_reverse(x: &mut [u64]) {
    let n = x.len();
    let k = n.trailing_zeros();
    let t = 4.min(k / 2);
    let (tt, m) = (1usize << t, k - 2 * t);
    let (mut ba, mut bb) = (vec![0u64; tt * tt], vec![0u64; tt * tt]);
    let rt: Vec<usize> = (0..tt).map(|a| rev(a, t)).collect();
    for b in 0..1usize << m {
        let rb = rev(b, m);
        if rb < b {
            continue;
        }
        for a in 0..tt {
            let (sa, sb) = (a * (n / tt) + b * tt, a * (n / tt) + rb * tt);
            ba[a * tt..][..tt].copy_from_slice(&x[sa..sa + tt]);
            bb[a * tt..][..tt].copy_from_slice(&x[sb..sb + tt]);
        }
        for a in 0..tt {
            let (da, db) = (a * (n / tt) + b * tt, a * (n / tt) + rb * tt);
            for c in 0..tt {
                // Position (a, c) of tile rb takes tile b's word (rev_t(c), rev_t(a)), and back.
                x[db + c] = ba[rt[c] * tt + rt[a]];
                x[da + c] = bb[rt[c] * tt + rt[a]];
            }
        }
    }
}

/// `NMOD_LG=a..b` (default 16..22) and `NMOD_P=50|62` (default both) restrict the table.
fn ntt_table(p50: u64, p62: u64, threads: usize) {
    for lg in [0u32, 1, 2, 3, 5, 8, 9, 12] {
        let mut v: Vec<u64> = (0..1u64 << lg).collect();
        bit_reverse(&mut v);
        let want: Vec<u64> = (0..1usize << lg).map(|i| rev(i, lg) as u64).collect();
        assert_eq!(v, want, "bit_reverse at 2^{lg}");
    }
    let (lo, hi) = std::env::var("NMOD_LG")
        .ok()
        .and_then(|v| v.split_once("..").and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?))))
        .unwrap_or((16u32, 22u32));
    let only_p: Option<u32> = std::env::var("NMOD_P").ok().and_then(|v| v.parse().ok());
    println!("## gpmp nmod NTT vs tfhe-ntt ({threads} thread(s))\n");
    println!("p50 = {p50} (2-adicity {}), p62 = {p62} (2-adicity {})\n", (p50 - 1).trailing_zeros(), (p62 - 1).trailing_zeros());
    println!(
        "Medians of interleaved runs (tfhe-ntt, gpmp ntt, gpmp intt, tfhe-ntt + bit reversal, copy), {},",
        if threads > 1 { "wall time" } else { "process CPU time" }
    );
    println!("copy subtracted; ratio = gpmp ntt / tfhe-ntt of the medians, and (per round) the median of the");
    println!("rounds' ratios; the last column is gpmp ntt / (tfhe-ntt + bit reversal), both in natural order.\n");
    println!(
        "| n | p | tfhe-ntt fwd (us) | gpmp ntt (us) | ratio | per round | gpmp intt (us) | tfhe-ntt + bit reversal (us) | ratio to it |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for p in [p50, p62] {
        if only_p.is_some_and(|b| b != 64 - p.leading_zeros()) {
            continue;
        }
        for lg in lo..=hi {
            let n = 1usize << lg;
            let w = prime::primitive_root_of_unity(n as u64, p).unwrap();
            let x = rand_vec(n, p, 12345 + lg as u64);
            let pl = plan::plan(n, p).unwrap();
            let mut b = x.clone();
            let b = std::sync::Mutex::new(&mut b);
            gpmp::runtime::install(|| {
                let [t_tfhe, t_ours, t_inv, t_rev, t_copy] = interleaved(&mut [
                    &mut || {
                        let mut b = b.lock().unwrap();
                        b.copy_from_slice(&x);
                        pl.fwd(&mut b)
                    },
                    &mut || {
                        let mut b = b.lock().unwrap();
                        b.copy_from_slice(&x);
                        ntt::ntt(&mut b, w, p).unwrap()
                    },
                    &mut || {
                        let mut b = b.lock().unwrap();
                        b.copy_from_slice(&x);
                        ntt::intt(&mut b, w, p).unwrap()
                    },
                    &mut || {
                        let mut b = b.lock().unwrap();
                        b.copy_from_slice(&x);
                        pl.fwd(&mut b);
                        bit_reverse(&mut b)
                    },
                    &mut || b.lock().unwrap().copy_from_slice(&x),
                ]);
                let rounds = median(t_ours.iter().zip(&t_tfhe).zip(&t_copy).map(|((o, a), c)| (o - c) / (a - c)).collect());
                let c = median(t_copy);
                let (a, o, i) = ((median(t_tfhe) - c) * 1e6, (median(t_ours) - c) * 1e6, (median(t_inv) - c) * 1e6);
                let r = (median(t_rev) - c) * 1e6;
                println!(
                    "| 2^{lg} | {}-bit | {a:.0} | {o:.0} | {:.2} | {rounds:.2} | {i:.0} | {r:.0} | {:.2} |",
                    64 - p.leading_zeros(),
                    o / a,
                    o / r
                );
            });
        }
    }
}

fn mul_table(p50: u64, threads: usize) {
    println!("\n## gpmp nmod poly_mul ({threads} thread(s)), balanced lengths\n");
    println!("| len | p | ms |");
    println!("|---|---|---|");
    for p in [(1u64 << 63) - 25, p50] {
        for lg in [16, 20, 22] {
            let n = 1usize << lg;
            let (f, g) = (rand_vec(n, p, 1), rand_vec(n, p, 2));
            let t = gpmp::runtime::install(|| best(|| drop(poly_mul::poly_mul(&f, &g, p).unwrap())));
            println!("| 2^{lg} | {p} | {:.1} |", t * 1e3);
        }
    }
}
