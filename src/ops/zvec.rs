//! Fixed-capacity vector of signed integers in word-major (structure-of-arrays) layout, the storage of
//! `gpmp_zvec`: n integers of at most `bits` bits, L = ⌈bits/64⌉ limbs each, limb j of element i at
//! `data[j·n + i]` (so that consecutive GPU threads, one per element, read consecutive words), signs
//! apart.
//!
//! A ZVec lives where the backend puts it when it is created ([`ZVec::zeros`]): in host memory, or
//! in device memory ([`crate::gpu::zvec::DevVec`], same layout) with `Backend::Gpu`, or with
//! `Backend::Auto` from [`crate::tuning::ZVEC_GPU_MIN_WORDS`] words on when a GPU is usable ([`super::route`]). Operations whose operands
//! and destination all live on one device run there (add, sub, mul; mulmod and powm for an odd
//! modulus of at most 4096 bits); every other combination, and an even modulus, runs on the CPU: the host gathers elements into a [`ZList`], runs the
//! [`batch`] kernels and scatters the result, moving data to and from the device as needed. Both
//! paths give the same integers. Every operation returns the new contents of the destination and
//! fails with `Error::SizeTooLarge` when an element does not fit (the destination is then unchanged,
//! since the caller installs the result only on success).
use super::route::{on_gpu, Op};
use crate::gpu::{batch as gpu_batch, zvec::DevVec};
use crate::int::{batch, limbs_for_bits, pack_word_major, read_word_major, try_zeroed, try_zeroed_words, IntRef, ZList};
use crate::{invalid, Error, Result};
use rayon::prelude::*;

/// Waits for the zvec operations queued on every device and returns the first device failure seen
/// since the previous call (see `gpu::zvec`); nothing to wait for without a device zvec.
pub fn sync() -> Result<()> {
    crate::gpu::zvec::sync()
}

/// n signed integers of at most `bits` bits each, word-major, in host or device memory.
pub struct ZVec {
    n: usize,
    bits: u64,
    store: Store,
}

enum Store {
    Host(Host),
    Device(DevVec),
}

/// The host storage: limbs word-major, signs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Host {
    data: Vec<u64>,
    neg: Vec<bool>,
}

const GRAIN: usize = 1024;

impl ZVec {
    /// n zeros of capacity `bits` (fallible), where the backend puts them.
    pub fn zeros(n: usize, bits: u64) -> Result<Self> {
        let words = Self::words(n, bits)?;
        Self::zeros_on(n, bits, on_gpu(Op::Zvec, words as u64)?)
    }

    /// n zeros of capacity `bits` in device memory (`device`) or host memory.
    pub fn zeros_on(n: usize, bits: u64, device: bool) -> Result<Self> {
        let words = Self::words(n, bits)?;
        let bytes = 8 * words as u128 + n as u128;
        if device {
            crate::memory::check_device(bytes, "the zvec")?;
        } else {
            crate::memory::check_host(bytes, "the zvec")?;
        }
        let store = if device {
            Store::Device(DevVec::zeros(n, bits)?)
        } else {
            Store::Host(Host { data: try_zeroed(words)?, neg: try_zeroed(n)? })
        };
        Ok(ZVec { n, bits, store })
    }

    /// n·L, checked.
    fn words(n: usize, bits: u64) -> Result<usize> {
        usize::try_from(bits.div_ceil(64))
            .ok()
            .and_then(|l| l.checked_mul(n))
            .filter(|&t| t <= isize::MAX as usize / 8)
            .ok_or_else(|| Error::SizeTooLarge(format!("zvec of {n} integers of {bits} bits")))
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Capacity in bits of every element.
    pub fn bits(&self) -> u64 {
        self.bits
    }

    /// Whether the elements live in device memory.
    pub fn on_device(&self) -> bool {
        matches!(self.store, Store::Device(_))
    }

    fn limbs(&self) -> usize {
        limbs_for_bits(self.bits)
    }

    /// The host storage (downloaded when on the device).
    fn host(&self) -> Result<std::borrow::Cow<'_, Host>> {
        Ok(match &self.store {
            Store::Host(h) => std::borrow::Cow::Borrowed(h),
            Store::Device(d) => {
                let (data, neg) = d.download()?;
                std::borrow::Cow::Owned(Host { data, neg })
            }
        })
    }

    /// The elements gathered into a list.
    pub fn to_list(&self) -> Result<ZList> {
        let h = self.host()?;
        let (n, l) = (self.n, self.limbs());
        let mut out = ZList::zeros((0..n).map(|_| l))?;
        out.par_rows_mut()?.enumerate().with_min_len(GRAIN).for_each(|(i, row)| {
            read_word_major(&h.data, n, i, row.mag);
            row.finish(h.neg[i]);
        });
        Ok(out)
    }

    /// Sets every element from `x` (x.len() = n); `Error::SizeTooLarge` (self unchanged) when one
    /// has more than `bits` bits.
    pub fn set(&mut self, x: &[IntRef]) -> Result<()> {
        if x.len() != self.n {
            return invalid!("{} integers for a zvec of {}", x.len(), self.n);
        }
        if let Some(i) = x.iter().position(|v| v.bits() > self.bits) {
            return Err(Error::SizeTooLarge(format!("element {i} has {} bits, the zvec holds {}", x[i].bits(), self.bits)));
        }
        let (n, l) = (self.n, self.limbs());
        let mut h = Host { data: try_zeroed_words(n * l)?, neg: try_zeroed(n)? };
        pack_word_major(x, l, &mut h.data, &mut h.neg)?;
        self.store = match self.store {
            Store::Host(_) => Store::Host(h),
            Store::Device(_) => Store::Device(DevVec::upload(n, self.bits, &h.data, &h.neg)?),
        };
        Ok(())
    }

    /// Sets every element from the list (see [`ZVec::set`]).
    pub fn set_list(&mut self, x: &ZList) -> Result<()> {
        self.set(&x.views())
    }

    /// A vector like `r` (same length, capacity and place) holding the list, or
    /// `Error::SizeTooLarge` when an element does not fit.
    fn like(r: &ZVec, x: &ZList) -> Result<ZVec> {
        let mut v = ZVec::zeros_on(r.n, r.bits, false)?;
        v.set_list(x)?;
        if let (Store::Device(_), Store::Host(h)) = (&r.store, &v.store) {
            v.store = Store::Device(DevVec::upload(r.n, r.bits, &h.data, &h.neg)?);
        }
        Ok(v)
    }

    /// The device vectors of r, a and b when all three live on one device.
    fn all_on_device<'a>(r: &'a ZVec, a: &'a ZVec, b: &'a ZVec) -> Option<(&'a DevVec, &'a DevVec)> {
        match (&r.store, &a.store, &b.store) {
            (Store::Device(r), Store::Device(a), Store::Device(b)) if r.same_device(a) && r.same_device(b) => Some((a, b)),
            _ => None,
        }
    }

    fn from_device(d: DevVec) -> ZVec {
        ZVec { n: d.len(), bits: d.bits(), store: Store::Device(d) }
    }

    /// Element-wise `op` of a and b on the CPU, as the new contents of r.
    fn on_host(r: &ZVec, a: &ZVec, b: &ZVec, op: impl FnOnce(&[IntRef], &[IntRef]) -> Result<ZList>) -> Result<ZVec> {
        let (la, lb) = (a.to_list()?, b.to_list()?);
        let res = op(&la.views(), &lb.views())?;
        Self::like(r, &res)
    }

    fn check_lens(r: &ZVec, a: &ZVec, b: &ZVec) -> Result<()> {
        if r.n != a.n || a.n != b.n {
            return invalid!("zvec lengths differ ({}, {}, {})", r.n, a.n, b.n);
        }
        Ok(())
    }

    /// a + b, as the new contents of r.
    pub fn add(r: &ZVec, a: &ZVec, b: &ZVec) -> Result<ZVec> {
        Self::check_lens(r, a, b)?;
        match Self::all_on_device(r, a, b) {
            Some((da, db)) => Ok(Self::from_device(DevVec::add_sub(da, db, false, r.bits)?)),
            None => Self::on_host(r, a, b, batch::add),
        }
    }

    /// a − b, as the new contents of r.
    pub fn sub(r: &ZVec, a: &ZVec, b: &ZVec) -> Result<ZVec> {
        Self::check_lens(r, a, b)?;
        match Self::all_on_device(r, a, b) {
            Some((da, db)) => Ok(Self::from_device(DevVec::add_sub(da, db, true, r.bits)?)),
            None => Self::on_host(r, a, b, batch::sub),
        }
    }

    /// a·b, as the new contents of r: requires r.bits ≥ a.bits + b.bits (else
    /// `Error::SizeTooLarge`), so that every product fits.
    pub fn mul(r: &ZVec, a: &ZVec, b: &ZVec) -> Result<ZVec> {
        Self::check_lens(r, a, b)?;
        if r.bits < a.bits.saturating_add(b.bits) {
            return Err(Error::SizeTooLarge(format!("product of {}- and {}-bit zvecs into a {}-bit zvec", a.bits, b.bits, r.bits)));
        }
        match Self::all_on_device(r, a, b) {
            Some((da, db)) => Ok(Self::from_device(DevVec::mul(da, db, r.bits)?)),
            None => Self::on_host(r, a, b, batch::mul),
        }
    }

    /// a·b mod m, as the new contents of r: on the device ([`gpu_batch`]) when all three live there and
    /// m is odd of at most [`gpu_batch::MAX_LIMBS`] limbs, else on the CPU.
    pub fn mulmod(r: &ZVec, a: &ZVec, b: &ZVec, m: IntRef) -> Result<ZVec> {
        Self::check_lens(r, a, b)?;
        match Self::all_on_device(r, a, b) {
            Some((da, db)) if gpu_batch::supports(batch::modulus(m)?) => Ok(Self::from_device(gpu_batch::mulmod(da, db, m.mag, r.bits)?)),
            _ => Self::on_host(r, a, b, |x, y| batch::mulmod(x, y, m)),
        }
    }

    /// base^exp mod m (exp ≥ 0), as the new contents of r: placed as [`ZVec::mulmod`].
    pub fn powm(r: &ZVec, base: &ZVec, exp: &ZVec, m: IntRef) -> Result<ZVec> {
        Self::check_lens(r, base, exp)?;
        match Self::all_on_device(r, base, exp) {
            Some((db, de)) if gpu_batch::supports(batch::modulus(m)?) => Ok(Self::from_device(gpu_batch::powm(db, de, m.mag, r.bits)?)),
            _ => Self::on_host(r, base, exp, |x, y| batch::powm(x, y, m)),
        }
    }

    /// The same elements in device memory (on the current device) when `device`, else in host
    /// memory (a copy either way).
    pub fn placed(&self, device: bool) -> Result<ZVec> {
        let store = match (&self.store, device) {
            (Store::Host(h), true) => Store::Device(DevVec::upload(self.n, self.bits, &h.data, &h.neg)?),
            (Store::Device(d), true) => {
                let (data, neg) = d.download()?;
                Store::Device(DevVec::upload(self.n, self.bits, &data, &neg)?)
            }
            (_, false) => Store::Host(self.host()?.into_owned()),
        };
        Ok(ZVec { n: self.n, bits: self.bits, store })
    }

    /// Waits for the device work queued for this vector (nothing on the host).
    pub fn synchronize(&self) -> Result<()> {
        match &self.store {
            Store::Host(_) => Ok(()),
            Store::Device(d) => d.synchronize(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{coef, views, Coef, Rng};

    /// n integers of at most `bits` bits: random kinds (random, all-ones, power of two, zero) and
    /// sizes, random signs, some ±1.
    fn sample(rng: &mut Rng, n: usize, bits: u64) -> Vec<Coef> {
        (0..n)
            .map(|_| {
                let (b, k) = (rng.below(bits + 1), rng.below(5));
                if k == 4 {
                    (rng.next() & 1 == 1 && bits > 0, if bits > 0 { vec![1] } else { vec![] })
                } else {
                    coef(rng, b, k)
                }
            })
            .collect()
    }

    fn host_data(v: &ZVec) -> Vec<u64> {
        v.host().unwrap().data.clone()
    }

    /// The battery shared by both placements: set/get round trips with the word-major layout,
    /// add/sub/mul against the batch kernels, the fit rules (nothing changes on SIZE_TOO_LARGE),
    /// aliasing (a result computed from r itself).
    fn battery(device: bool) {
        let mut rng = Rng(9);
        for (n, bits) in [(0, 64), (1, 1), (5, 0), (37, 130), (300, 1000), (1000, 64), (513, 256), (77, 2048), (40, 4100)] {
            let x = sample(&mut rng, n, bits);
            let xv = views(&x);
            let mut v = ZVec::zeros_on(n, bits, device).unwrap();
            assert_eq!(v.on_device(), device);
            assert!(v.to_list().unwrap().views().iter().all(|z| z.is_zero()));
            v.set(&xv).unwrap();
            let l = limbs_for_bits(bits);
            let data = host_data(&v);
            for (i, c) in x.iter().enumerate() {
                for j in 0..l {
                    assert_eq!(data[j * n + i], c.1.get(j).copied().unwrap_or(0), "limb {j} of {i}");
                }
            }
            assert_eq!(v.to_list().unwrap().views(), xv);
            if n == 0 || bits == 0 {
                continue;
            }
            // an element too wide is refused and changes nothing
            let big = vec![u64::MAX; l + 1];
            let mut y = xv.clone();
            y[n - 1] = IntRef::new(false, &big);
            assert!(matches!(v.set(&y), Err(Error::SizeTooLarge(_))));
            assert_eq!(v.to_list().unwrap().views(), xv);
            // sums and differences against batch::add/sub, into vectors of several capacities
            let y = sample(&mut rng, n, bits);
            let mut w = ZVec::zeros_on(n, bits, device).unwrap();
            w.set(&views(&y)).unwrap();
            for rb in [bits + 1, bits, bits + 64] {
                let r = ZVec::zeros_on(n, rb, device).unwrap();
                for sub in [false, true] {
                    let want = if sub { batch::sub(&xv, &views(&y)) } else { batch::add(&xv, &views(&y)) }.unwrap();
                    let fits = want.views().iter().all(|z| z.bits() <= rb);
                    let got = if sub { ZVec::sub(&r, &v, &w) } else { ZVec::add(&r, &v, &w) };
                    match got {
                        Ok(g) => {
                            assert!(fits, "n={n} bits={bits} rb={rb} sub={sub}: overflow not seen");
                            assert_eq!(g.on_device(), device);
                            assert_eq!(g.to_list().unwrap().views(), want.views(), "n={n} bits={bits} rb={rb} sub={sub}");
                        }
                        Err(Error::SizeTooLarge(_)) => assert!(!fits, "n={n} bits={bits} rb={rb} sub={sub}"),
                        Err(e) => panic!("{e}"),
                    }
                }
            }
            // a − a = 0, a + (−a) = 0, a + a = 2a (aliased operands)
            let zero = ZVec::sub(&v, &v, &v).unwrap();
            assert!(zero.to_list().unwrap().views().iter().all(|z| z.is_zero() && !z.neg));
            let twice = ZVec::zeros_on(n, bits + 1, device).unwrap();
            let t = ZVec::add(&twice, &v, &v).unwrap();
            assert_eq!(t.to_list().unwrap().views(), batch::add(&xv, &xv).unwrap().views());
            // an all-ones sum that cannot fit: SIZE_TOO_LARGE
            let ones: Vec<_> = (0..n).map(|_| coef(&mut rng, bits, 1)).map(|c| (false, c.1)).collect();
            let mut o = ZVec::zeros_on(n, bits, device).unwrap();
            o.set(&views(&ones)).unwrap();
            assert!(matches!(ZVec::add(&o, &o, &o), Err(Error::SizeTooLarge(_))));
            // products: the capacity rule, then exact products (also a·a and a·b of other sizes)
            let r = ZVec::zeros_on(n, 2 * bits - 1, device).unwrap();
            assert!(matches!(ZVec::mul(&r, &o, &o), Err(Error::SizeTooLarge(_))));
            for (p, q) in [(&o, &o), (&v, &w), (&v, &v)] {
                let r = ZVec::zeros_on(n, 2 * bits + rng.below(3) * 64, device).unwrap();
                let want = batch::mul(&p.to_list().unwrap().views(), &q.to_list().unwrap().views()).unwrap();
                assert_eq!(ZVec::mul(&r, p, q).unwrap().to_list().unwrap().views(), want.views(), "n={n} bits={bits}");
            }
            let small = sample(&mut rng, n, 70);
            let mut s = ZVec::zeros_on(n, 70, device).unwrap();
            s.set(&views(&small)).unwrap();
            let r = ZVec::zeros_on(n, bits + 70, device).unwrap();
            let want = batch::mul(&xv, &views(&small)).unwrap();
            assert_eq!(ZVec::mul(&r, &v, &s).unwrap().to_list().unwrap().views(), want.views());
            assert_eq!(ZVec::mul(&r, &s, &v).unwrap().to_list().unwrap().views(), want.views());
        }
        assert!(matches!(ZVec::zeros_on(usize::MAX, 128, device), Err(Error::SizeTooLarge(_))));
    }

    #[test]
    fn host_battery() {
        battery(false);
    }

    #[cfg(feature = "gpu-tests")]
    mod gpu {
        use super::*;

        #[test]
        fn device_battery() {
            battery(true);
        }

        /// Device and host give the same integers on every operation, for sizes through every
        /// product specialisation (1..=16, 24, 32 limbs in registers, chunks above), mixed
        /// operand sizes, and a mixed placement (device operands, host destination).
        #[test]
        fn device_matches_host_bit_for_bit() {
            let mut rng = Rng(77);
            let sizes = [64u64, 128, 192, 256, 320, 448, 512, 640, 1000, 1024, 1088, 1536, 2048, 2100, 4096, 8192, 32768];
            for (t, &ba) in sizes.iter().enumerate() {
                let bb = sizes[(t * 7 + 3) % sizes.len()].min(ba);
                let n = [1usize, 33, 257, 1000][t % 4];
                let (x, y) = (sample(&mut rng, n, ba), sample(&mut rng, n, bb));
                let mk = |c: &[Coef], bits, dev| {
                    let mut v = ZVec::zeros_on(n, bits, dev).unwrap();
                    v.set(&views(c)).unwrap();
                    v
                };
                for dev in [false, true] {
                    let (a, b) = (mk(&x, ba, dev), mk(&y, bb, dev));
                    let (hx, hy) = (mk(&x, ba, false), mk(&y, bb, false));
                    let rs = ZVec::zeros_on(n, ba + 1, dev).unwrap();
                    let rp = ZVec::zeros_on(n, ba + bb, dev).unwrap();
                    let hs = ZVec::zeros_on(n, ba + 1, false).unwrap();
                    let hp = ZVec::zeros_on(n, ba + bb, false).unwrap();
                    let same = |g: Result<ZVec>, w: Result<ZVec>| {
                        assert_eq!(
                            g.unwrap().to_list().unwrap().views(),
                            w.unwrap().to_list().unwrap().views(),
                            "{ba} {bb} n={n} dev={dev}"
                        )
                    };
                    same(ZVec::add(&rs, &a, &b), ZVec::add(&hs, &hx, &hy));
                    same(ZVec::sub(&rs, &a, &b), ZVec::sub(&hs, &hx, &hy));
                    same(ZVec::sub(&rs, &b, &a), ZVec::sub(&hs, &hy, &hx));
                    same(ZVec::mul(&rp, &a, &b), ZVec::mul(&hp, &hx, &hy));
                    same(ZVec::mul(&rp, &b, &a), ZVec::mul(&hp, &hy, &hx));
                    // mixed placement: device operands, host destination (CPU path)
                    same(ZVec::mul(&hp, &a, &b), ZVec::mul(&hp, &hx, &hy));
                }
            }
        }

        /// A chain on the device (x ← x·y, x ← x − y, …) equals the same chain on the host.
        #[test]
        fn device_chain() {
            let mut rng = Rng(5);
            let n = 4099;
            let (x, y) = (sample(&mut rng, n, 256), sample(&mut rng, n, 256));
            let run = |dev: bool| {
                let mut a = ZVec::zeros_on(n, 2048, dev).unwrap();
                let mut b = ZVec::zeros_on(n, 256, dev).unwrap();
                a.set(&views(&x)).unwrap();
                b.set(&views(&y)).unwrap();
                for _ in 0..5 {
                    let t = ZVec::zeros_on(n, 2048, dev).unwrap();
                    let mut small = ZVec::zeros_on(n, 2048 - 256, dev).unwrap();
                    small = ZVec::sub(&small, &a, &b).unwrap_or(small);
                    a = ZVec::mul(&t, &small, &b).unwrap_or(a);
                    a = ZVec::sub(&a, &a, &b).unwrap();
                }
                a.to_list().unwrap()
            };
            assert_eq!(run(true).views(), run(false).views());
        }
    }
}
