use super::memory::{plan_memory, Shape};
use super::primes::{garner_table, limb_weights, modulus, montgomery, plan_shape, MIN_K};
use super::*;
use crate::nmod::crt::Crt;
use crate::nmod::prime::{mul_shoup, mulmod, shoup, submod};
use crate::testing::Rng;

/// The `garner` kernel's arithmetic on the host: (negative, |x|) from the residues.
fn garner_host(r: &[u64], primes: &[u64]) -> (bool, Vec<u64>) {
    let t = garner_table(primes);
    let (m, half) = modulus(primes);
    let mut v = vec![0u64; primes.len()];
    let mut at = 0;
    for (i, &p) in primes.iter().enumerate() {
        let g = |j: usize| (t[2 * (at + j)], t[2 * (at + j) + 1]);
        let mut x = mul_shoup(r[i], g(i).0, g(i).1, p);
        for (j, &vj) in v[..i].iter().enumerate() {
            x = submod(x, mul_shoup(vj, g(j).0, g(j).1, p), p);
        }
        v[i] = x;
        at += i + 1;
    }
    let mut x = vec![0u64; m.len()];
    x[0] = v[primes.len() - 1];
    for i in (0..primes.len() - 1).rev() {
        let mut carry = v[i] as u128;
        for l in x.iter_mut() {
            let s = *l as u128 * primes[i] as u128 + carry;
            *l = s as u64;
            carry = s >> 64;
        }
    }
    let greater = (0..m.len()).rev().find(|&i| x[i] != half[i]).is_some_and(|i| x[i] > half[i]);
    if greater {
        let mut borrow = 0u64;
        for (a, &b) in x.iter_mut().zip(&m) {
            let (d, b1) = b.overflowing_sub(*a);
            let (d, b2) = d.overflowing_sub(borrow);
            *a = d;
            borrow = u64::from(b1 | b2);
        }
    }
    (greater && x.iter().any(|&l| l != 0), x)
}

#[test]
fn prime_counts_follow_the_bound() {
    for bits in [1u64, 60, 61, 122, 123, 124, 149, 500, 16000, 32778, 100_000] {
        let ps = primes_for(bits).unwrap();
        let sum: f64 = ps.iter().map(|&p| (p as f64).log2()).sum();
        let less: f64 = sum - (*ps.last().unwrap() as f64).log2();
        assert!(sum > bits as f64 && less <= bits as f64 + 1e-3, "{bits}: {} primes", ps.len());
        assert!(ps.iter().all(|&p| p < 1 << 62 && p > 1 << 61 && (p - 1) % (1 << MIN_K) == 0));
    }
    // 64-bit coefficients at length 2^20 need 3 primes.
    assert_eq!(primes_for(64 + 64 + 20 + 1).unwrap().len(), 3);
    assert!(primes_for(MAX_PRIMES as u64 * 62).is_err());
    assert!(supports(100_000) && !supports(MAX_PRIMES as u64 * 61));
}

/// The Taylor shift's rounded prime counts: the bound's primes first, at most k/16 more, a multiple
/// of 2^(⌊log2 k⌋ − 4), at most [`MAX_PRIMES`]; nearby bounds share the count; the shift's limits.
#[test]
fn rounded_prime_counts_cover_the_bound() {
    use super::primes::primes_rounded;
    for bits in [1u64, 61, 123, 500, 4173, 16462, 16462 + 61 * 5, 65616, 120_000, MAX_PRIMES as u64 * 61 - 200] {
        let (exact, r) = (primes_for(bits).unwrap(), primes_rounded(bits).unwrap());
        let k = exact.len();
        let unit = if k < 32 { 1 } else { 1 << (k.ilog2() - 4) };
        assert_eq!(r[..k], exact[..], "{bits}");
        assert!(r.len() <= (k + k / 16).min(MAX_PRIMES), "{bits}: {k} → {}", r.len());
        assert!(r.len() == MAX_PRIMES || r.len() % unit == 0, "{bits}: {k} → {}", r.len());
    }
    assert_eq!(primes_rounded(16462).unwrap().len(), primes_rounded(16462 + 61 * 5).unwrap().len());
    assert!(primes_rounded(MAX_PRIMES as u64 * 62).is_err());
    assert!(super::shift_supports(1 << 20, 100_000) && !super::shift_supports(1 << 20, MAX_PRIMES as u64 * 61));
    assert!(!super::shift_supports((1 << 31) + 1, 64));
}

/// The shape: one-limb coefficients stay direct; many-limb ones are split into limbs with 3
/// primes when that is cheaper (lengths 2^12 at 1024 bits, 2^10 at 16384 bits), and the digit bound
/// min(la, lb)·l·2^128 holds for those primes.
#[test]
fn shapes_follow_the_cost_model() {
    let shape = |la: usize, lb: usize, b: u64| {
        let l = limbs_for_bits(b);
        let (p, t, d) = plan_shape(product_bits(b, b, la, lb), la, lb, l).unwrap();
        (p.len(), t, d)
    };
    assert_eq!(shape(1 << 20, 1 << 20, 64), (3, 1, 0));
    assert_eq!(shape(1 << 22, 1 << 22, 64), (3, 1, 0));
    assert_eq!(shape(1 << 20, 1 << 20, 256).1, 1);
    assert_eq!(shape(1 << 12, 1 << 12, 1024), (3, 31, 3));
    assert_eq!(shape(1 << 10, 1 << 10, 16384), (3, 511, 3));
    // Beyond MAX_PRIMES the split shape still serves.
    let (p, t, _) = plan_shape(200_000, 4, 4, 1600).unwrap();
    assert_eq!((p.len(), t), (3, 3199));
    for (la, lb, l) in [(1usize, 1usize, 2usize), (1 << 12, 5, 16), (1 << 10, 1 << 10, 256)] {
        let (p, _, _) = plan_shape(u64::MAX / 4, la, lb, l).unwrap_or_else(|_| plan_shape(100_000, la, lb, l).unwrap());
        let sum: f64 = p.iter().map(|&q| (q as f64).log2()).sum();
        let need = 128.0 + ((la.min(lb) * l) as f64).log2() + 1.0;
        assert!(sum > need, "{la} {lb} {l}");
    }
}

#[test]
fn constants_match_their_definitions() {
    let ps = primes_for(400).unwrap();
    let w = limb_weights(&ps, 5);
    for (i, &p) in ps.iter().enumerate() {
        for t in 0..5 {
            let want = ((1u128 << 64) % p as u128) as u64;
            let want = crate::nmod::prime::powmod(want, t as u64, p);
            assert_eq!(w[2 * (i * 5 + t)], want);
            assert_eq!(w[2 * (i * 5 + t) + 1], shoup(want, p));
        }
    }
    let c = montgomery(&ps);
    let mut rng = Rng(5);
    for (i, &p) in ps.iter().enumerate() {
        assert_eq!(c[4 * i], p);
        assert_eq!(p.wrapping_mul(c[4 * i + 1]), u64::MAX, "-p^-1");
        // The kernel's product, emulated: Montgomery then the Shoup factor 2^64.
        for _ in 0..100 {
            let (a, b) = (rng.below(p), rng.below(p));
            let lo = a.wrapping_mul(b);
            let hi = ((a as u128 * b as u128) >> 64) as u64;
            let mh = ((lo.wrapping_mul(c[4 * i + 1]) as u128 * p as u128) >> 64) as u64;
            let mut t = hi + mh + u64::from(lo != 0);
            if t >= p {
                t -= p;
            }
            assert_eq!(mul_shoup(t, c[4 * i + 2], c[4 * i + 3], p), mulmod(a, b, p));
        }
    }
    assert_eq!(garner_table(&ps).len(), ps.len() * (ps.len() + 1));
}

/// The Garner arithmetic and constants agree with nmod::crt (itself checked against GMP) on
/// random residues, 0, p − 1 and the values around ±M/2.
#[test]
fn garner_matches_the_cpu_crt() {
    let mut rng = Rng(9);
    for k in [1usize, 2, 3, 4, 7, 20] {
        let ps = primes_for(61 * k as u64).unwrap()[..k].to_vec();
        let crt = Crt::new(&ps);
        let (m, half) = modulus(&ps);
        let (mut v, mut x) = (vec![0; k], vec![0; crt.limbs()]);
        let mut cases: Vec<Vec<u64>> = (0..200).map(|_| ps.iter().map(|&p| rng.below(p)).collect()).collect();
        cases.push(vec![0; k]);
        cases.push(ps.iter().map(|&p| p - 1).collect());
        // ⌊M/2⌋ and ⌊M/2⌋ + 1 (= −⌊M/2⌋ symmetric).
        for add in [0u64, 1] {
            cases.push(
                ps.iter()
                    .map(|&p| {
                        let r = half.iter().rev().fold(0u128, |acc, &l| ((acc << 64) + l as u128) % p as u128) as u64;
                        (r + add) % p
                    })
                    .collect(),
            );
        }
        for r in cases {
            let want_neg = crt.signed(&r, &mut v, &mut x);
            let (neg, got) = garner_host(&r, &ps);
            assert_eq!(neg, want_neg, "k = {k}, r = {r:?}");
            assert_eq!(&got[..], &x[..m.len()], "k = {k}, r = {r:?}");
        }
    }
}

/// The products of the parts tests, (f, g, prime group): 256- to 1024-bit coefficients,
/// direct and split shapes, one huge coefficient, max coefficients with alternating signs.
fn parts_cases() -> Vec<(Vec<crate::testing::Coef>, Vec<crate::testing::Coef>, usize)> {
    use crate::testing::{coef, poly};
    let mut rng = Rng(53);
    let mut v = Vec::new();
    for &(fl, gl, bits, style, group) in &[
        (3000usize, 2000usize, 256u64, 0u64, 1usize),
        (3000, 2000, 256, 1, 2),
        (2500, 2500, 300, 2, 2),
        (700, 1, 200, 3, 1),
        (600, 400, 1024, 1, 1),
    ] {
        let f = poly(&mut rng, fl, bits, style);
        let g = poly(&mut rng, gl, bits, (style + 1) % 4);
        v.push((f, g, group));
    }
    let c = coef(&mut rng, 500, 1).1;
    v.push(((0..300).map(|i| (i % 2 == 0, c.clone())).collect(), vec![], 0));
    v
}

/// The test cap on the free device memory whose budget (7/8 of it) holds `inputs`
/// coefficients of `l` limbs and `group` + 1 rows of 2n words, plus 1000 bytes.
fn parts_cap(inputs: usize, l: usize, n: usize, group: usize) -> usize {
    let b = (inputs * (8 * l + 1)) as u128 + 16 * n as u128 * (group as u128 + 1) + 1000;
    (b * 8 / 7 + 8) as usize
}

/// The memory plan of the parts tests' products on the host: the cap of [`parts_cap`] gives
/// the requested prime group (all primes at most), CRT blocks shorter than the product (the
/// products, not the squares), `OutOfMemory` below the inputs, and no cut without a cap.
#[test]
fn cuts_follow_the_memory_budget() {
    use crate::testing::views;
    for (f, g, group) in parts_cases() {
        let (fv, gv) = (views(&f), views(&g));
        let ops: Vec<(&[IntRef], &[IntRef])> = if g.is_empty() { vec![(&fv, &fv)] } else { vec![(&fv, &gv), (&fv, &fv)] };
        for (i, (a, b)) in ops.into_iter().enumerate() {
            let square = std::ptr::eq(a, b);
            let bits = product_bits(max_bits_par(a), max_bits_par(b), a.len(), b.len());
            let l = max_limbs(a, b).max(1);
            let (primes, t, d) = plan_shape(bits, a.len(), b.len(), l).unwrap();
            let hlen = a.len() + b.len() - 1;
            let (k, n, stride) = (primes.len(), (hlen * t).next_power_of_two().max(2), limbs_for_bits(bits));
            let inputs = if square { a.len() } else { a.len() + b.len() };
            let group = if group == 0 { k / 2 } else { group };
            let shape = Shape { k, n, inputs, l, hlen, stride, t, d, table: 0 };
            let w = || crate::nmod::crt::prime_product(&primes).len();
            let what = format!("{} x {}, {bits} bits, k = {k}, T = {t}", a.len(), b.len());
            assert_eq!(plan_memory(&shape, w, usize::MAX).unwrap(), None);
            let cut = plan_memory(&shape, w, parts_cap(inputs, l, n, group));
            let cut = cut.unwrap_or_else(|e| panic!("{what}: {e}")).unwrap_or_else(|| panic!("{what}: no cut"));
            assert_eq!(cut.group, group.min(k), "{what}");
            assert!(cut.block >= 1 && (i > 0 || g.is_empty() || cut.block < hlen), "{what}: {cut:?}");
            let low = plan_memory(&shape, w, parts_cap(inputs / 3, l, 0, 0) / 2);
            assert!(matches!(low, Err(Error::OutOfMemory(_))), "{what}: {low:?}");
        }
    }
}

/// The CRT launches cover every item once, in order, in blocks of the size asked (a multiple of
/// the kernels' NT, at least the minimum, about the work units asked), the last one shorter.
#[test]
fn crt_blocks_partition_the_items() {
    use super::pipeline::{blocks, crt_block};
    let nt = NT as usize;
    for &(work, units, min) in &[
        (1usize, 1usize << 29, 1usize << 16),
        (108, 1 << 29, 1 << 16),
        (15, 1 << 29, 1 << 16),
        (1 << 30, 1 << 29, 1),
        (0, 1000, 1),
        (99, 0, 0),
    ] {
        let b = crt_block(work, units, min);
        assert!(b >= min.max(1) && b.is_multiple_of(nt), "{work} {units} {min}: {b}");
        assert!(b < (units / work.max(1)).max(min).max(1) + nt, "{work} {units} {min}: {b}");
    }
    assert_eq!(crt_block(108, 1 << 29, 1 << 16), (((1 << 29) / 108) as usize).next_multiple_of(nt));
    for &len in &[0usize, 1, 255, 256, 257, 1000, 65536, 100_003] {
        for &block in &[1usize, 7, 256, 1000, 1 << 20] {
            let v: Vec<_> = blocks(len, block).collect();
            assert_eq!(v.len(), len.div_ceil(block), "{len} {block}");
            let mut at = 0;
            for (i, r) in v.iter().enumerate() {
                assert_eq!(r.start, at, "{len} {block}");
                assert!(!r.is_empty() && r.len() <= block && (i + 1 == v.len() || r.len() == block), "{len} {block}: {r:?}");
                at = r.end;
            }
            assert_eq!(at, len, "{len} {block}");
        }
    }
    assert_eq!(blocks(5, 0).count(), 5, "a block of 0 items counts as 1");
}

#[cfg(feature = "gpu-tests")]
mod gpu {
    use super::super::memory::{Cut, MEMORY_CAP};
    use super::super::pipeline::Job;
    use super::*;
    use crate::testing::{coef, oracle, poly, slab_coefs, views, Coef};
    use crate::zpoly::{self, Alg};

    fn check(f: &[Coef], g: &[Coef], what: &str) {
        let (fv, gv) = (views(f), views(g));
        let got = slab_coefs(&mul(&fv, &gv).unwrap_or_else(|e| panic!("{what}: {e}")));
        let want = if f.len().min(g.len()) <= 300 && f.len() * g.len() <= 1 << 18 {
            oracle(&fv, &gv)
        } else {
            slab_coefs(&zpoly::mul(&fv, &gv, Alg::SmallPrimeNtt).unwrap())
        };
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert_eq!(a, b, "{what}: coefficient {i}");
        }
    }

    /// Random and adversarial inputs against the GMP oracle: lengths 1, 2, unbalanced, around
    /// powers of two; 1 to 20000 bits; all-ones, powers of two, zeros, mixed signs; squares.
    #[test]
    fn matches_the_oracle() {
        let mut rng = Rng(41);
        let lens = [1usize, 2, 3, 31, 32, 33, 255, 256, 257, 1000];
        for &bits in &[1u64, 2, 63, 64, 65, 127, 128, 129, 300, 1000, 4000] {
            for (t, &fl) in lens.iter().enumerate() {
                let gl = lens[(t * 7 + bits as usize) % lens.len()];
                let style = rng.below(4);
                let f = poly(&mut rng, fl, bits, style);
                let g = poly(&mut rng, gl, bits, (style + 1) % 3);
                check(&f, &g, &format!("{fl} x {gl}, {bits} bits, style {style}"));
            }
            let f = poly(&mut rng, 77, bits, 1);
            let fv = views(&f);
            let got = slab_coefs(&mul(&fv, &fv).unwrap());
            assert_eq!(got, oracle(&fv, &fv), "square, {bits} bits");
        }
        // Max coefficients ±(2^b − 1) everywhere (the bound is tight) and zeros.
        for &bits in &[64u64, 128, 1000, 20000] {
            for len in [1usize, 2, 64, 129] {
                let c = coef(&mut rng, bits, 1).1;
                let f: Vec<Coef> = (0..len).map(|_| (false, c.clone())).collect();
                let g: Vec<Coef> = (0..len).map(|i| (i % 3 == 1, c.clone())).collect();
                let neg: Vec<Coef> = (0..len).map(|_| (true, c.clone())).collect();
                check(&f, &f, &format!("all 2^{bits}-1, len {len}"));
                check(&f, &g, &format!("mixed signs, len {len}, {bits} bits"));
                check(&neg, &f, &format!("negated, len {len}, {bits} bits"));
            }
        }
        let z: Vec<Coef> = vec![(false, vec![]); 9];
        let f = poly(&mut rng, 9, 100, 0);
        check(&z, &f, "zero times f");
        check(&[(true, vec![1])], &[(true, vec![1])], "-1 * -1");
        check(&[(false, vec![1])], &[(true, vec![1]), (false, vec![])], "1 * (-1 + 0x)");
    }

    /// Large and unbalanced sizes (several NTT passes, block boundaries of the kernels and of
    /// the staging chunks) against the CPU small-prime NTT.
    #[test]
    fn large_sizes_match_the_cpu() {
        let mut rng = Rng(43);
        for &(fl, gl, bits) in &[
            (1usize << 16, 1usize << 16, 64u64),
            ((1 << 17) + 5, 1 << 4, 64),
            (1 << 4, (1 << 17) + 3, 100),
            (5000, 4097, 1024),
            (1 << 19, (1 << 19) - 1, 64),
            (600_000, 3, 200),
        ] {
            let f = poly(&mut rng, fl, bits, 2);
            let g = poly(&mut rng, gl, bits, 0);
            check(&f, &g, &format!("{fl} x {gl}, {bits} bits"));
        }
    }

    #[test]
    fn backend_gpu_routes_poly_mul_to_the_device_and_agrees() {
        let mut rng = Rng(47);
        let f = poly(&mut rng, 3000, 200, 2);
        let g = poly(&mut rng, 2000, 200, 1);
        let (fv, gv) = (views(&f), views(&g));
        let cpu = zpoly::mul(&fv, &gv, Alg::SmallPrimeNtt).unwrap();
        assert_eq!(mul(&fv, &gv).unwrap(), cpu);
        assert!(zpoly::gpu_wanted(&fv, &gv, crate::runtime::Backend::Gpu).unwrap());
        assert!(!zpoly::gpu_wanted(&fv, &gv, crate::runtime::Backend::Cpu).unwrap());
    }

    /// The product in parts (a test cap on the free device memory, see [`parts_cases`] and
    /// [`cuts_follow_the_memory_budget`]): prime groups of 1 to k/2 primes, CRT blocks of a few
    /// hundred coefficients (crossing the operands' and the blocks' boundaries), direct and
    /// split (recombined) shapes, squares, max coefficients and mixed signs, against the uncut
    /// product and the GMP oracle; a cap below the inputs gives `OutOfMemory`, cleanly.
    #[test]
    fn products_in_parts_match() {
        let dev = device::current().unwrap();
        let check = |f: &[IntRef], g: &[IntRef], group: usize, what: &str| -> Cut {
            let bits = product_bits(max_bits_par(f), max_bits_par(g), f.len(), g.len());
            let job = Job::new(&dev, f, g, bits, max_limbs(f, g)).unwrap();
            assert_eq!(job.cut, None, "{what}");
            let group = if group == 0 { job.s.primes.len() / 2 } else { group };
            let inputs = if std::ptr::eq(f, g) { f.len() } else { f.len() + g.len() };
            MEMORY_CAP.set(Some(parts_cap(inputs, job.l, job.n, group)));
            let cut = Job::new(&dev, f, g, bits, max_limbs(f, g)).map(|j| j.cut);
            let got = mul(f, g);
            MEMORY_CAP.set(Some(parts_cap(inputs / 3, job.l, 0, 0) / 2));
            let refused = mul(f, g);
            MEMORY_CAP.set(None);
            let cut = cut.unwrap_or_else(|e| panic!("{what}: {e}")).expect("a cut");
            assert_eq!(cut.group, group.min(job.s.primes.len()), "{what}");
            let got = got.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(got, mul(f, g).unwrap(), "{what}, {cut:?}");
            let want = if f.len() * g.len() <= 1 << 22 { oracle(f, g) } else { slab_coefs(&zpoly::mul(f, g, Alg::SmallPrimeNtt).unwrap()) };
            assert_eq!(slab_coefs(&got), want, "{what}, {cut:?}");
            match refused {
                Err(Error::OutOfMemory(_)) => {}
                other => panic!("{what}: expected OutOfMemory, got {:?}", other.map(|h| h.len())),
            }
            cut
        };
        for (f, g, group) in parts_cases() {
            let (fv, gv) = (views(&f), views(&g));
            let what = format!("{} x {}", f.len(), g.len());
            if !g.is_empty() {
                let cut = check(&fv, &gv, group, &what);
                assert!(cut.block < f.len() + g.len() - 1, "{what}: one block of {}", cut.block);
            }
            check(&fv, &fv, group, &format!("square of {what}"));
        }
    }

    /// The CRT and the recombination in several launches, and the download in several pieces
    /// (blocks of 256 to 1280 items, or one item, by the test hook): direct and split shapes,
    /// squares, lengths around the blocks, the Taylor shift's CRT, equal to the one-block product
    /// and to the oracle.
    #[test]
    fn products_in_crt_blocks_match() {
        use super::super::pipeline::SMALL_BLOCKS;
        let mut rng = Rng(59);
        for &(fl, gl, bits, block) in &[
            (700usize, 600usize, 256u64, 256usize),
            (1000, 1000, 64, 512),
            (300, 257, 1024, 256),
            (129, 128, 2000, 1),
            (2000, 1, 300, 1280),
        ] {
            let f = poly(&mut rng, fl, bits, 2);
            let g = poly(&mut rng, gl, bits, 1);
            let (fv, gv) = (views(&f), views(&g));
            for (a, b, what) in [(&fv, &gv, "product"), (&fv, &fv, "square")] {
                let what = format!("{what} {fl} x {gl}, {bits} bits, blocks of {block}");
                let whole = mul(a, b).unwrap_or_else(|e| panic!("{what}: {e}"));
                SMALL_BLOCKS.set(Some(block));
                let got = mul(a, b);
                SMALL_BLOCKS.set(None);
                let got = got.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(got, whole, "{what}");
                let want =
                    if a.len() * b.len() <= 1 << 20 { oracle(a, b) } else { slab_coefs(&zpoly::mul(a, b, Alg::SmallPrimeNtt).unwrap()) };
                assert_eq!(slab_coefs(&got), want, "{what}");
            }
        }
        let f = poly(&mut rng, 3000, 100, 2);
        let fv = views(&f);
        let c = [7u64];
        let c = IntRef::new(true, &c);
        let bits = crate::zpoly::taylor_shift::shift_bits(crate::int::max_bits(&fv), fv.len(), c);
        SMALL_BLOCKS.set(Some(256));
        let got = super::super::taylor_shift(&fv, c, bits);
        SMALL_BLOCKS.set(None);
        let want = crate::zpoly::taylor_shift::taylor_shift(&fv, c).unwrap();
        assert_eq!(got.unwrap(), want, "Taylor shift in blocks of 256");
    }

    #[test]
    fn absurd_sizes_fail_cleanly() {
        // 2^23 x 2^23 coefficients of 950 limbs: about 1960 primes and n = 2^24, so 520 GB of
        // rows, and 127 GB of inputs: refused (in parts too: the inputs do not fit, the parked
        // rows would need 263 GB of host memory) before any device or output allocation.
        let one = vec![u64::MAX; 950];
        let f: Vec<IntRef> = vec![IntRef::new(false, &one); 1 << 23];
        let g: Vec<IntRef> = vec![IntRef::new(true, &one); 1 << 23];
        match mul(&f, &g) {
            Err(Error::OutOfMemory(_)) => {}
            other => panic!("expected OutOfMemory, got {:?}", other.map(|h| h.len())),
        }
        // The device still works afterwards.
        let a = [IntRef::new(false, &[3]), IntRef::new(true, &[1])];
        let h = mul(&a, &a).unwrap();
        assert_eq!(slab_coefs(&h), vec![(false, vec![9]), (true, vec![6]), (false, vec![1])]);
    }

    /// Concurrent products from several host threads (one takes the pinned staging buffer, the
    /// others pageable memory).
    #[test]
    fn concurrent_calls() {
        std::thread::scope(|s| {
            for t in 0..6u64 {
                s.spawn(move || {
                    let mut rng = Rng(100 + t);
                    for _ in 0..3 {
                        let f = poly(&mut rng, 2000, 150, 2);
                        let g = poly(&mut rng, 1500, 150, 0);
                        check(&f, &g, "concurrent");
                    }
                });
            }
        });
    }

    /// The product split over several devices (every device, in order and reversed, and the
    /// first two) against one device and the GMP oracle (or the CPU NTT): direct and split
    /// shapes, squares, max coefficients, fewer primes than devices, fewer coefficients than
    /// devices; and under a memory cap that one device's whole product exceeds, where it still
    /// runs split without parts. Fewer than 2 devices: skipped.
    #[test]
    fn products_over_several_devices_match_one_device() {
        use super::super::memory::split_fits;
        use super::super::multi::{self, split};
        let count = device::device_count();
        if count < 2 {
            eprintln!("skipped: {count} device(s), the split product needs 2");
            return;
        }
        let all: Vec<usize> = (0..count).collect();
        let sets = [all.clone(), all.iter().rev().copied().collect(), vec![0, 1]];
        let mut rng = Rng(61);
        let mut cases = parts_cases();
        cases.push((poly(&mut rng, 1, 64, 1), poly(&mut rng, 2, 64, 1), 0));
        cases.push((poly(&mut rng, 5000, 64, 2), poly(&mut rng, 3000, 60, 0), 0));
        cases.push((poly(&mut rng, 20_000, 2000, 1), poly(&mut rng, 10_000, 2000, 3), 0));
        for (f, g, _) in &cases {
            let (fv, gv) = (views(f), views(g));
            let gv = if g.is_empty() { &fv } else { &gv };
            let what = format!("{} x {}", fv.len(), gv.len());
            let one = device::pinned(0, || mul(&fv, gv)).unwrap_or_else(|e| panic!("{what}: {e}"));
            let want = if fv.len() * gv.len() <= 1 << 22 {
                oracle(&fv, gv)
            } else {
                slab_coefs(&zpoly::mul(&fv, gv, Alg::SmallPrimeNtt).unwrap())
            };
            assert_eq!(slab_coefs(&one), want, "{what}: one device");
            let bits = product_bits(max_bits_par(&fv), max_bits_par(gv), fv.len(), gv.len());
            for devs in &sets {
                let got = multi::mul(devs, &fv, gv, bits, max_limbs(&fv, gv)).unwrap_or_else(|e| panic!("{what} on {devs:?}: {e}"));
                let got = got.unwrap_or_else(|| panic!("{what} on {devs:?}: does not fit")).to_slab().unwrap();
                assert_eq!(got, one, "{what} on {devs:?}");
            }
            // The smallest cap every share of a split over all devices fits, below the whole product.
            let l = max_limbs(&fv, gv).max(1);
            let (primes, t, d) = plan_shape(bits, fv.len(), gv.len(), l).unwrap();
            let hlen = fv.len() + gv.len() - 1;
            let inputs = if std::ptr::eq(&fv[..], &gv[..]) { fv.len() } else { fv.len() + gv.len() };
            let n = (hlen * t).next_power_of_two().max(2);
            let shape = Shape { k: primes.len(), n, inputs, l, hlen, stride: limbs_for_bits(bits), t, d, table: 0 };
            let w = crate::nmod::crt::prime_product(&primes).len();
            let sp = split(primes.len(), hlen, count);
            let (mut lo, mut hi) = (0usize, shape.device_bytes() as usize * 2);
            while lo + 1 < hi {
                let mid = lo + (hi - lo) / 2;
                if split_fits(&shape, w, &sp, &vec![mid; count]) {
                    hi = mid
                } else {
                    lo = mid
                }
            }
            if (hi as u128) < shape.device_bytes() {
                MEMORY_CAP.set(Some(hi));
                let got = multi::mul(&all, &fv, gv, bits, l);
                MEMORY_CAP.set(None);
                let got =
                    got.unwrap_or_else(|e| panic!("{what} capped: {e}")).unwrap_or_else(|| panic!("{what}: the capped split does not fit"));
                assert_eq!(got.to_slab().unwrap(), one, "{what}: capped at {hi} bytes a device");
            }
        }
    }
}
