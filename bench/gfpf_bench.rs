//! GFPF timings: the DFT over P3 (k = 8) and P4 (k = 16) against the same transform written over
//! GMP mpz (iterative radix-2, mpz_mul + mpz_mod per butterfly, precomputed twiddles), and the
//! element product against mpz_mul + mpz_mod.
//!
//! `cargo run --release --example gfpf_bench [max_lg]` (default 16): per N, after one untimed
//! warm-up round, interleaved rounds of the DFT on the AVX-512 path, on the forced scalar fallback
//! and over GMP (the order reversed every other round), all on one thread of a 1-thread pool,
//! medians; the multi-thread wall times afterwards, in a separate loop (so that no many-thread
//! burst runs between single-thread timings). The GMP data is allocated in index order with room
//! for a product (mpz_init2), so that the timed FFT never reallocates;
//! `GFPF_SCALAR_MAX=lg` times the scalar fallback only up to N = 2^lg (to fit a time limit);
//! `GFPF_K=16` times only that field (8 or 16; default both); `GFPF_MIN_LG=lg` starts at 2^lg;
//! `GFPF_PAR=0` skips the multi-thread table. The speed-up is printed twice: the ratio of the
//! medians and the median of the per-round ratios (GMP's time in a round over gpmp's in the same
//! round: robust to a host whose speed drifts between rounds).
//! `gfpf_bench plans lo hi`: the gfpf DFT alone for N = 2^lo..2^hi, plans with 2k-point bases
//! only against plans with 4k-point bases (`set_base_cap`), interleaved, medians of thread CPU
//! time, and ns per element per pass; `gfpf_bench kara lo hi`: the same with the default plans,
//! schoolbook against Karatsuba element products (`set_karatsuba`); `gfpf_bench stream lo hi`:
//! the default plans with cached stores against non-temporal stores into aligned buffers
//! (`set_stream_min`; `GFPF_STREAM_MIN=words` sets it for the other modes).
//! `GFPF_PROFILE_LG=lg [GFPF_K=k GFPF_BASE_CAP=m]`: only that DFT, repeated (for perf).
//! `cargo run --release --example gfpf_bench mul`: plain against FFT-based (CRT) product per k. Single-thread times are
//! thread CPU times (best of a few runs), so that a shared machine's load does not inflate them.
use gmp_mpfr_sys::gmp;
use gpmp::gfpf::Gfpf;
use std::mem::MaybeUninit;
use std::time::Instant;

#[path = "common.rs"]
mod common;
use common::median;
use gpmp::testing::Rng;

/// The root of unity of order n and n random elements (rows layout): a DFT's input.
fn dft_input(f: &Gfpf, n: usize, rng: &mut Rng) -> (Vec<u64>, Vec<u64>) {
    let x = (0..n).flat_map(|i| f.from_u64(rng.next() ^ i as u64)).collect();
    (f.root_of_unity(n).unwrap(), x)
}

struct Z(gmp::mpz_t);
impl Z {
    fn new() -> Self {
        let mut z = MaybeUninit::uninit();
        unsafe {
            gmp::mpz_init(z.as_mut_ptr());
            Z(z.assume_init())
        }
    }
    /// Zero with room for `limbs` limbs.
    fn with_limbs(limbs: usize) -> Self {
        let mut z = MaybeUninit::uninit();
        unsafe {
            gmp::mpz_init2(z.as_mut_ptr(), (64 * limbs) as _);
            Z(z.assume_init())
        }
    }
    fn from_limbs(l: &[u64]) -> Self {
        let mut z = Z::new();
        unsafe { gmp::mpz_import(&mut z.0, l.len(), -1, 8, 0, 0, l.as_ptr().cast()) };
        z
    }
}
// SAFETY: a Z owns its limbs; the timings move the data to the pool's one thread and back.
unsafe impl Send for Z {}
// SAFETY: shared Z are only read.
unsafe impl Sync for Z {}
impl Drop for Z {
    fn drop(&mut self) {
        unsafe { gmp::mpz_clear(&mut self.0) }
    }
}

/// In-place natural-order radix-2 DIT DFT over mpz mod p with the twiddles w[i] = ω^i, i < N/2.
fn gmp_fft(x: &mut [Z], w: &[Z], p: &Z) {
    let n = x.len();
    let lg = n.trailing_zeros();
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - lg);
        if i < j {
            x.swap(i, j);
        }
    }
    let mut t = Z::new();
    let mut len = 2;
    while len <= n {
        let (half, step) = (len / 2, n / len);
        for blk in (0..n).step_by(len) {
            for j in 0..half {
                unsafe {
                    let (a, b) = (blk + j, blk + j + half);
                    gmp::mpz_mul(&mut t.0, &x[b].0, &w[j * step].0);
                    gmp::mpz_mod(&mut t.0, &t.0, &p.0);
                    gmp::mpz_sub(&mut x[b].0, &x[a].0, &t.0);
                    if gmp::mpz_sgn(&x[b].0) < 0 {
                        gmp::mpz_add(&mut x[b].0, &x[b].0, &p.0);
                    }
                    gmp::mpz_add(&mut x[a].0, &x[a].0, &t.0);
                    if gmp::mpz_cmp(&x[a].0, &p.0) >= 0 {
                        gmp::mpz_sub(&mut x[a].0, &x[a].0, &p.0);
                    }
                }
            }
        }
        len *= 2;
    }
}

/// CPU time of the calling thread (stable on a shared, oversubscribed machine).
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Best of `reps` single-thread runs, in thread CPU seconds.
fn best<F: FnMut()>(reps: usize, mut f: F) -> f64 {
    (0..reps)
        .map(|_| {
            let t = thread_cpu();
            f();
            thread_cpu() - t
        })
        .fold(f64::INFINITY, f64::min)
}

/// Best of `reps` runs, in wall seconds (for the parallel runs).
fn best_wall<F: FnMut()>(reps: usize, mut f: F) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let max_lg: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(16);
    let threads = rayon::current_num_threads();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut rng = Rng(42);
    if std::env::args().nth(1).as_deref() == Some("mul") {
        // Plain against FFT-based (CRT) product for every built-in k (Table 2.1: k = 2 … 128).
        println!("per-element product, 1 thread, thread CPU time, best of 7");
        for k in [2usize, 4, 8, 16, 32, 64, 128] {
            let f = Gfpf::builtin(k).unwrap();
            let pl = f.prime().len();
            let n = (1usize << 15) / k;
            let rand: Vec<u64> = (0..2 * n)
                .flat_map(|_| {
                    let l: Vec<u64> = (0..pl + 1).map(|_| rng.next()).collect();
                    let mut e = vec![0u64; k];
                    f.from_limbs(&mut e, false, &l);
                    e
                })
                .collect();
            let (xs, ys) = rand.split_at(n * k);
            let mut zs = vec![0u64; n * k];
            let mut time = |op: fn(&Gfpf, &mut [u64], &[u64], &[u64])| {
                best(7, || {
                    for ((z, x), y) in zs.chunks_exact_mut(k).zip(xs.chunks_exact(k)).zip(ys.chunks_exact(k)) {
                        op(&f, z, x, y);
                    }
                }) / n as f64
            };
            let tp = time(Gfpf::mul_plain);
            let tc = time(Gfpf::mul_crt);
            println!(
                "k={k:3}: plain {:9.1} ns  fft/crt {:9.1} ns  plain/crt {:5.2}  (mul uses {})",
                tp * 1e9,
                tc * 1e9,
                tp / tc,
                if k >= gpmp::tuning::GFPF_MUL_CRT_MIN_K { "crt" } else { "plain" }
            );
        }
        return;
    }
    let env = |v: &str| std::env::var(v).ok().and_then(|s| s.parse::<usize>().ok());
    let ks: Vec<usize> = env("GFPF_K").map_or(vec![8, 16], |k| vec![k]);
    let min_lg = env("GFPF_MIN_LG").unwrap_or(12) as u32;
    if let Some(w) = env("GFPF_STREAM_MIN") {
        gpmp::gfpf::variants::set_stream_min(w);
    }
    let mode = std::env::args().nth(1).unwrap_or_default();
    if mode == "plans" || mode == "kara" || mode == "stream" {
        let arg = |i: usize| std::env::args().nth(i).unwrap().parse::<u32>().unwrap();
        let (lo, hi) = (arg(2), arg(3));
        println!("gfpf DFT alone, 1 thread, thread CPU time, medians of interleaved rounds");
        for &k in &ks {
            let f = Gfpf::builtin(k).unwrap();
            for lg in lo..=hi {
                let n = 1usize << lg;
                let (w, x) = dft_input(&f, n, &mut rng);
                let mut y = x.clone();
                // plans: base cap 2k against 4k; kara: the default plan with the schoolbook
                // against the Karatsuba element product.
                let caps = if mode == "plans" { [2 * k, 4 * k] } else { [4 * k; 2] };
                let mut t = [vec![], vec![]];
                let mut out = [vec![], vec![]];
                let reps = if lg <= 15 {
                    9
                } else if lg <= 18 {
                    5
                } else {
                    3
                };
                one.install(|| {
                    for round in 0..=reps {
                        for i in [round % 2, 1 - round % 2] {
                            gpmp::gfpf::variants::set_base_cap(caps[i]);
                            gpmp::gfpf::variants::set_karatsuba(mode != "kara" || i == 1);
                            gpmp::gfpf::variants::set_stream_min(if mode == "stream" && i == 1 { 0 } else { usize::MAX });
                            let s = best(1, || {
                                y.copy_from_slice(&x);
                                f.dft_cpu(&mut y, n, &w).unwrap();
                            });
                            if round > 0 {
                                t[i].push(s);
                            }
                            out[i] = y.clone();
                        }
                    }
                });
                gpmp::gfpf::variants::set_base_cap(0);
                gpmp::gfpf::variants::set_karatsuba(true);
                let ratios = t[1].iter().zip(&t[0]).map(|(a, b)| a / b).collect();
                let line: Vec<String> = (0..2)
                    .map(|i| {
                        let passes = lg.div_ceil(caps[i].trailing_zeros());
                        let m = median(t[i].clone());
                        format!(
                            "{}{:3}: {passes} passes {:9.2} ms {:6.2} ns/el/pass",
                            match mode.as_str() {
                                "plans" => "base<=",
                                "kara" => ["school", "kara"][i],
                                _ => ["cached", "stream"][i],
                            },
                            caps[i],
                            m * 1e3,
                            m * 1e9 / (n as f64 * passes as f64)
                        )
                    })
                    .collect();
                println!(
                    "k={k:3} N=2^{lg}: {} | {} | second/first {:.3}, per round {:.3} [equal: {}]",
                    line[0],
                    line[1],
                    median(t[1].clone()) / median(t[0].clone()),
                    median(ratios),
                    out[0] == out[1]
                );
            }
        }
        return;
    }
    if let Ok(lg) = std::env::var("GFPF_PROFILE_LG") {
        // Only one DFT, repeated (for perf).
        gpmp::gfpf::variants::set_base_cap(env("GFPF_BASE_CAP").unwrap_or(0));
        let (f, n) = (Gfpf::builtin(ks[0]).unwrap(), 1usize << lg.parse::<u32>().unwrap());
        let w = f.root_of_unity(n).unwrap();
        let mut x: Vec<u64> = (0..n).flat_map(|i| f.from_u64(i as u64 * 0x1234_5678_9abc)).collect();
        for _ in 0..100 {
            one.install(|| f.dft_cpu(&mut x, n, &w).unwrap());
        }
        return;
    }
    let scalar_max: u32 = std::env::var("GFPF_SCALAR_MAX").ok().and_then(|s| s.parse().ok()).unwrap_or(u32::MAX);
    println!("threads available: {threads}");
    for &k in &ks {
        let f = Gfpf::builtin(k).unwrap();
        let p = Z::from_limbs(f.prime());
        let pl = f.prime().len();
        let rand_el = |rng: &mut Rng| {
            let l: Vec<u64> = (0..pl + 1).map(|_| rng.next()).collect();
            let mut e = vec![0u64; k];
            f.from_limbs(&mut e, false, &l);
            e
        };
        // Element products.
        let n = 1 << 16;
        let xs: Vec<u64> = (0..n).flat_map(|_| rand_el(&mut rng)).collect();
        let ys: Vec<u64> = (0..n).flat_map(|_| rand_el(&mut rng)).collect();
        let mut zs = vec![0u64; n * k];
        let to_z = |e: &[u64]| {
            let mut l = vec![0u64; pl];
            f.to_limbs(&mut l, e);
            Z::from_limbs(&l)
        };
        let xz: Vec<Z> = xs.chunks(k).map(to_z).collect();
        let yz: Vec<Z> = ys.chunks(k).map(to_z).collect();
        let mut t = Z::new();
        // Interleaved rounds: mul_n (AVX-512 IFMA batches), mul per element (scalar), GMP.
        let (mut tn, mut t1, mut tg) = (vec![], vec![], vec![]);
        for _ in 0..7 {
            tn.push(one.install(|| best(1, || f.mul_n(&mut zs, &xs, &ys))) / n as f64);
            t1.push(
                best(1, || {
                    for ((z, x), y) in zs.chunks_exact_mut(k).zip(xs.chunks_exact(k)).zip(ys.chunks_exact(k)) {
                        f.mul(z, x, y);
                    }
                }) / n as f64,
            );
            tg.push(
                best(1, || {
                    for (a, b) in xz.iter().zip(&yz) {
                        unsafe {
                            gmp::mpz_mul(&mut t.0, &a.0, &b.0);
                            gmp::mpz_mod(&mut t.0, &t.0, &p.0);
                        }
                    }
                }) / n as f64,
            );
        }
        let mut zn = vec![0u64; n * k];
        f.mul_n(&mut zn, &xs, &ys);
        let (tn, t1, tg) = (median(tn), median(t1), median(tg));
        println!(
            "k={k:3} mul: gfpf mul_n {:7.1} ns  mul {:7.1} ns  gmp mpz_mul+mpz_mod {:7.1} ns  ratio mul_n {:.2}x, mul {:.2}x [equal: {}]",
            tn * 1e9,
            t1 * 1e9,
            tg * 1e9,
            tg / tn,
            tg / t1,
            zn == zs
        );
        for lg in min_lg..=max_lg {
            let n = 1usize << lg;
            let w = f.root_of_unity(n).unwrap();
            let x: Vec<u64> = (0..n).flat_map(|_| rand_el(&mut rng)).collect();
            let reps = if lg <= 15 {
                21
            } else if lg <= 17 {
                5
            } else {
                3
            };
            let mut y = x.clone();
            // Builds and caches the twiddles.
            one.install(|| f.dft_cpu(&mut y, n, &w).unwrap());
            // The same DFT over GMP (single thread), twiddles precomputed outside the timing, every
            // mpz allocated in index order with room for 2·pl + 1 limbs (no reallocation inside).
            let room = 2 * pl + 1;
            let wz = to_z(&w);
            let mut tw = vec![Z::from_limbs(&[1])];
            for i in 1..n / 2 {
                let mut z = Z::with_limbs(room);
                unsafe {
                    gmp::mpz_mul(&mut z.0, &tw[i - 1].0, &wz.0);
                    gmp::mpz_mod(&mut z.0, &z.0, &p.0);
                }
                tw.push(z);
            }
            let xz: Vec<Z> = x.chunks(k).map(to_z).collect();
            let mut yz: Vec<Z> = (0..n).map(|_| Z::with_limbs(room)).collect();
            let mut ys = x.clone();
            // One untimed warm-up round, then interleaved rounds (AVX-512 path, scalar fallback,
            // GMP; reversed every other round), thread CPU time of the pool's one thread, medians.
            let (mut t1, mut ts, mut tg) = (vec![], vec![], vec![]);
            one.install(|| {
                for round in 0..=reps {
                    let mut order = [0, 1, 2];
                    if round % 2 == 1 {
                        order.reverse();
                    }
                    for v in order {
                        if v == 1 && lg > scalar_max {
                            continue;
                        }
                        let t = if v < 2 {
                            gpmp::gfpf::variants::set_simd(v == 0);
                            let out = if v == 0 { &mut y } else { &mut ys };
                            best(1, || {
                                out.copy_from_slice(&x);
                                f.dft_cpu(out, n, &w).unwrap();
                            })
                        } else {
                            best(1, || {
                                for (d, s) in yz.iter_mut().zip(&xz) {
                                    unsafe { gmp::mpz_set(&mut d.0, &s.0) };
                                }
                                gmp_fft(&mut yz, &tw, &p);
                            })
                        };
                        if round > 0 {
                            [&mut t1, &mut ts, &mut tg][v].push(t);
                        }
                    }
                }
            });
            gpmp::gfpf::variants::set_simd(true);
            // Same result?
            let same =
                (lg > scalar_max || y == ys) && yz.iter().zip(y.chunks(k)).all(|(a, b)| unsafe { gmp::mpz_cmp(&a.0, &to_z(b).0) == 0 });
            let ts = if ts.is_empty() { f64::NAN } else { median(ts) };
            // Each round's GMP time against the same round's gpmp time: the host's drift between
            // rounds cancels.
            let per_round = median(tg.iter().zip(&t1).map(|(g, t)| g / t).collect());
            let (t1, tg) = (median(t1), median(tg));
            println!(
                "k={k:3} N=2^{lg}: gfpf 1t {:9.2} ms (scalar {:9.2}) | gmp fft {:9.2} ms | speed-up 1t {:5.2}x, per round {per_round:5.2}x (scalar {:5.2}x) [equal: {same}, {reps} rounds]",
                t1 * 1e3,
                ts * 1e3,
                tg * 1e3,
                tg / t1,
                tg / ts,
            );
        }
    }
    // The parallel transform on all threads, wall time, after all single-thread timings.
    if env("GFPF_PAR") == Some(0) {
        return;
    }
    for &k in &ks {
        let f = Gfpf::builtin(k).unwrap();
        for lg in min_lg..=max_lg {
            let n = 1usize << lg;
            let (w, x) = dft_input(&f, n, &mut rng);
            let mut y = x.clone();
            let tp = best_wall(if lg <= 17 { 5 } else { 3 }, || {
                y.copy_from_slice(&x);
                f.dft_cpu(&mut y, n, &w).unwrap();
            });
            println!("k={k:3} N=2^{lg}: gfpf {threads}t wall {:8.2} ms", tp * 1e3);
        }
    }
}
