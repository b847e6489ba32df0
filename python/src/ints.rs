//! Python integers ↔ gpmp's limb views ([`IntRef`]: sign and 64-bit limbs, least significant first).
//!
//! Inputs: `int` (and its subclasses), `gmpy2.mpz`, and any object with `__index__`.
//! - `gmpy2.mpz` is immutable and holds a GMP `mpz_t` with 64-bit limbs: it is viewed in place, no
//!   copy (a reference to the object is kept for as long as the view).
//! - CPython stores an `int` as 30-bit digits, least significant first, after a 24-byte header whose
//!   last word holds the digit count and the sign (`ob_size` = ±count up to 3.11; from 3.12 `lv_tag`
//!   = count·8 + sign, sign 0 positive, 1 zero, 2 negative). Where [`Layout`] finds that layout
//!   (checked at import against `int.to_bytes` on test values), the digits are repacked into limbs
//!   directly: one pass, no Python call. Elsewhere (another interpreter or version) the portable path
//!   calls `int.to_bytes`.
//!
//! Outputs are new `int` objects: one machine word through `PyLong_From(Unsigned)LongLong`, larger
//! values through CPython's `_PyLong_New(ndigits)` with the digits written from the limbs (where the
//! layout check passed and the interpreter exports that function), else `int.from_bytes`.
use gpmp::int::IntRef;
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use rayon::prelude::*;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// Bits per CPython digit (`sys.int_info.bits_per_digit` where the raw layout is used).
const DIGIT_BITS: u32 = 30;
const DIGIT_MASK: u64 = (1 << DIGIT_BITS) - 1;
/// Offset of the size word and of the first digit in a CPython int object (64-bit builds).
const SIZE_OFFSET: usize = 16;
const DIGIT_OFFSET: usize = 24;
/// Offset of the `mpz_t` in a `gmpy2.mpz` object (`MPZ_Object`: `PyObject_HEAD`, then `mpz_t z`):
/// `int alloc` at +0, `int size` at +4, `mp_limb_t *d` at +8.
const MPZ_OFFSET: usize = 16;

/// How `int` objects are read and built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// CPython ≤ 3.11: signed digit count at [`SIZE_OFFSET`].
    SignedSize,
    /// CPython 3.12–3.14: `lv_tag` at [`SIZE_OFFSET`].
    Tagged,
    /// `int.to_bytes` / `int.from_bytes`.
    Portable,
}

type NewLong = unsafe extern "C" fn(ffi::Py_ssize_t) -> *mut ffi::PyObject;

struct Setup {
    read: Layout,
    /// `_PyLong_New`, when the raw layout is used for writing too.
    new_long: Option<NewLong>,
}

static SETUP: OnceLock<Setup> = OnceLock::new();

fn setup() -> &'static Setup {
    SETUP.get().unwrap_or(&Setup { read: Layout::Portable, new_long: None })
}

/// The layouts in use (for reading, for writing), as `gpmp._int_paths()` reports them.
pub fn paths() -> (Layout, Layout) {
    let s = setup();
    (s.read, if s.new_long.is_some() { s.read } else { Layout::Portable })
}

/// Finds the interpreter's int layout and checks it on test values (called once at import).
pub fn init(py: Python<'_>) -> PyResult<()> {
    if SETUP.get().is_some() {
        return Ok(());
    }
    let sys = py.import("sys")?;
    let cpython = sys.getattr("implementation")?.getattr("name")?.extract::<String>()? == "cpython";
    let info = sys.getattr("int_info")?;
    let digits_ok = info.getattr("bits_per_digit")?.extract::<u32>()? == DIGIT_BITS && info.getattr("sizeof_digit")?.extract::<u32>()? == 4;
    let (major, minor): (u32, u32) =
        (sys.getattr("version_info")?.get_item(0)?.extract()?, sys.getattr("version_info")?.get_item(1)?.extract()?);
    let guess = match (cpython && digits_ok && cfg!(target_pointer_width = "64"), major, minor) {
        (true, 3, 8..=11) => Layout::SignedSize,
        (true, 3, 12..=14) => Layout::Tagged,
        _ => Layout::Portable,
    };
    let mut s = Setup { read: guess, new_long: None };
    if guess != Layout::Portable {
        // SAFETY: dlsym on the process's global symbols; the signature is CPython's.
        let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"_PyLong_New".as_ptr()) };
        if !sym.is_null() {
            s.new_long = Some(unsafe { std::mem::transmute::<*mut libc::c_void, NewLong>(sym) });
        }
    }
    let s = verified(py, s)?;
    let _ = SETUP.set(s);
    Ok(())
}

/// `s` if its raw paths agree with the portable ones on test values, else the portable setup
/// (for reading, or for writing only).
fn verified(py: Python<'_>, mut s: Setup) -> PyResult<Setup> {
    if s.read == Layout::Portable {
        return Ok(s);
    }
    let values = py.eval(
        c"[0, 1, -1, 2**29, 2**30, -2**30, 2**63, -2**63, 2**64 - 1, -(2**64), 2**64, 3**200, -(7**300), 2**960 - 1, -(2**961)]",
        None,
        None,
    )?;
    let values: Vec<Bound<PyAny>> = values.extract()?;
    for v in &values {
        let mut raw = Vec::new();
        let mut portable = Vec::new();
        // SAFETY: v is an int (the test list above).
        let neg_raw = unsafe { push_digits(&mut raw, v.as_ptr(), s.read) };
        let neg_portable = push_portable(&mut portable, v)?;
        if (neg_raw, &raw) != (neg_portable, &portable) {
            return Ok(Setup { read: Layout::Portable, new_long: None });
        }
        if s.new_long.is_some() {
            let back = unsafe { new_int_raw(py, IntRef::new(neg_raw, &raw), &s) }?;
            if !back.eq(v)? || !back.is_instance_of::<pyo3::types::PyInt>() {
                s.new_long = None;
            }
        }
    }
    Ok(s)
}

// ---- reading ----

/// Integers read from Python objects: limbs copied from `int`s, in-place views of `gmpy2.mpz`.
#[derive(Default)]
pub struct Ints<'py> {
    limbs: Vec<u64>,
    items: Vec<Item>,
    /// The objects read later or viewed (`int`s in `jobs`, `gmpy2.mpz`): kept alive meanwhile.
    keep: Vec<Bound<'py, PyAny>>,
    /// `int`s whose digits are still to be repacked into limbs\[start ..\] (see [`Ints::finish`]).
    jobs: Vec<Job>,
}

/// The digits of one `int` (alive in `keep`) and where its limbs go.
struct Job {
    digits: *const u32,
    ndigits: usize,
    start: usize,
    len: usize,
}

/// From this many `int`s on, their digits are repacked in gpmp's pool.
const PARALLEL_INTS: usize = 2048;

#[derive(Clone, Copy)]
enum Item {
    /// limbs\[start .. start+len\].
    Own { neg: bool, start: usize, len: usize },
    /// An mpz's limbs.
    Ext { neg: bool, ptr: *const u64, len: usize },
}

impl<'py> Ints<'py> {
    pub fn with_capacity(n: usize, limbs: usize) -> Self {
        Ints { limbs: Vec::with_capacity(limbs), items: Vec::with_capacity(n), keep: Vec::with_capacity(n), jobs: Vec::with_capacity(n) }
    }

    /// Repacks the digits of the `int`s read so far (in gpmp's pool when there are many; the GIL
    /// stays held, so no Python code can change or free them meanwhile).
    fn finish(mut self) -> Self {
        let jobs = std::mem::take(&mut self.jobs);
        let base = SendPtr(self.limbs.as_mut_ptr());
        // SAFETY: each job's digits belong to an int kept alive in `keep` (immutable), and its limbs
        // are a disjoint range of `limbs` (reserved by `push_int`).
        let run = |j: &Job| unsafe {
            let d = std::slice::from_raw_parts(j.digits, j.ndigits);
            digits_to_limbs(d, std::slice::from_raw_parts_mut(base.get().add(j.start), j.len));
        };
        if jobs.len() >= PARALLEL_INTS {
            SendJobs(&jobs).par_for_each(run);
        } else {
            jobs.iter().for_each(run);
        }
        self
    }

    /// Reads the integers of a list, a tuple or any iterable.
    pub fn from_seq(seq: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(l) = seq.cast::<PyList>() {
            let mut out = Ints::with_capacity(l.len(), 4 * l.len());
            for x in l.iter() {
                out.push(&x, what)?;
            }
            return Ok(out.finish());
        }
        if let Ok(t) = seq.cast::<PyTuple>() {
            let mut out = Ints::with_capacity(t.len(), 4 * t.len());
            for x in t.iter() {
                out.push(&x, what)?;
            }
            return Ok(out.finish());
        }
        if seq.is_instance_of::<pyo3::types::PyInt>() || is_mpz(seq) {
            return Err(PyTypeError::new_err(format!("{what}: expected a sequence of integers, got an integer")));
        }
        let mut out = Ints::default();
        for x in seq.try_iter().map_err(|_| PyTypeError::new_err(format!("{what}: expected a sequence of integers")))? {
            out.push(&x?, what)?;
        }
        Ok(out.finish())
    }

    /// One integer.
    pub fn one(x: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        let mut out = Ints::with_capacity(1, 4);
        out.push(x, what)?;
        Ok(out.finish())
    }

    /// Appends x (an `int`, a `gmpy2.mpz` or an object with `__index__`).
    fn push(&mut self, x: &Bound<'py, PyAny>, what: &str) -> PyResult<()> {
        if x.is_instance_of::<pyo3::types::PyInt>() {
            return self.push_int(x);
        }
        if is_mpz(x) {
            // SAFETY: x is a gmpy2.mpz (exact type), kept alive in `keep`; an mpz never changes.
            let (neg, ptr, len) = unsafe {
                let z = x.as_ptr().cast::<u8>().add(MPZ_OFFSET);
                let size = *(z.add(4) as *const i32);
                let d = *(z.add(8) as *const *const u64);
                (size < 0, d, size.unsigned_abs() as usize)
            };
            self.items.push(Item::Ext { neg, ptr, len });
            self.keep.push(x.clone());
            return Ok(());
        }
        match x.call_method0("__index__") {
            Ok(i) if i.is_instance_of::<pyo3::types::PyInt>() => self.push_int(&i),
            _ => Err(PyTypeError::new_err(format!("{what}: expected integers (int or gmpy2.mpz), got {}", x.get_type().name()?))),
        }
    }

    fn push_int(&mut self, x: &Bound<'py, PyAny>) -> PyResult<()> {
        let start = self.limbs.len();
        let s = setup();
        if s.read == Layout::Portable {
            let neg = push_portable(&mut self.limbs, x)?;
            let len = self.limbs.len() - start;
            self.items.push(Item::Own { neg: neg && len > 0, start, len });
            return Ok(());
        }
        // SAFETY: x is an int object and the layout was verified at import.
        let (neg, digits) = unsafe { raw_digits(x.as_ptr(), s.read) };
        let len = limbs_of_digits(digits);
        self.limbs.resize(start + len, 0);
        self.items.push(Item::Own { neg: neg && len > 0, start, len });
        if len > 0 {
            self.jobs.push(Job { digits: digits.as_ptr(), ndigits: digits.len(), start, len });
            self.keep.push(x.clone());
        }
        Ok(())
    }

    /// The views, in order (valid while self is).
    pub fn views(&self) -> Vec<IntRef<'_>> {
        self.items.iter().map(|&it| self.view(it)).collect()
    }

    pub fn get(&self, i: usize) -> IntRef<'_> {
        self.view(self.items[i])
    }

    fn view(&self, it: Item) -> IntRef<'_> {
        match it {
            Item::Own { neg, start, len } => IntRef { neg, mag: &self.limbs[start..start + len] },
            Item::Ext { len: 0, .. } => IntRef::ZERO,
            // SAFETY: the mpz object is in `keep` (alive, immutable) for as long as self.
            Item::Ext { neg, ptr, len } => IntRef::new(neg, unsafe { std::slice::from_raw_parts(ptr, len) }),
        }
    }
}

/// The type object of `gmpy2.mpz` once gmpy2 has been imported (by the user: gpmp never imports it).
static MPZ_TYPE: AtomicPtr<ffi::PyTypeObject> = AtomicPtr::new(std::ptr::null_mut());

/// Whether x is exactly a `gmpy2.mpz` (and its `mpz_t` has 64-bit limbs, checked once).
fn is_mpz(x: &Bound<'_, PyAny>) -> bool {
    let t = x.get_type().as_type_ptr();
    let known = MPZ_TYPE.load(Ordering::Relaxed);
    if !known.is_null() {
        return t == known;
    }
    // Only a type named "mpz" can be gmpy2's: look it up then.
    if x.get_type().name().map(|n| n != "mpz").unwrap_or(true) {
        return false;
    }
    let py = x.py();
    let Ok(found) = (|| -> PyResult<*mut ffi::PyTypeObject> {
        let gmpy2 = py.import("sys")?.getattr("modules")?.get_item("gmpy2")?;
        if gmpy2.call_method0("mp_limbsize")?.extract::<u32>()? != 64 {
            return Ok(std::ptr::null_mut());
        }
        let mpz = gmpy2.getattr("mpz")?;
        let ty = mpz.cast::<pyo3::types::PyType>()?.as_type_ptr();
        // Check the layout on a value with several limbs and a sign.
        let probe = py.eval(c"-(3**150 + 2**64)", None, None)?;
        let z = mpz.call1((&probe,))?;
        let mut want = Vec::new();
        let want_neg = push_portable(&mut want, &probe)?;
        // SAFETY: z is a fresh gmpy2.mpz, alive here; only read.
        let ok = unsafe {
            let p = z.as_ptr().cast::<u8>().add(MPZ_OFFSET);
            let size = *(p.add(4) as *const i32);
            let d = *(p.add(8) as *const *const u64);
            size < 0 && want_neg && std::slice::from_raw_parts(d, size.unsigned_abs() as usize) == want.as_slice()
        };
        Ok(if ok { ty } else { std::ptr::null_mut() })
    })() else {
        return false;
    };
    if found.is_null() {
        return false;
    }
    MPZ_TYPE.store(found, Ordering::Relaxed);
    t == found
}

/// The sign and the digits (least significant first, the top one nonzero) of the int at `x`.
///
/// # Safety
/// `x` is a live `int` object of an interpreter with layout `lay` (not `Portable`); the slice lives
/// as long as the object.
unsafe fn raw_digits<'a>(x: *mut ffi::PyObject, lay: Layout) -> (bool, &'a [u32]) {
    let base = x.cast::<u8>();
    let word = *(base.add(SIZE_OFFSET) as *const isize);
    let (neg, n) = match lay {
        Layout::SignedSize => (word < 0, word.unsigned_abs()),
        _ => ((word as usize & 3) == 2, word as usize >> 3),
    };
    (neg, std::slice::from_raw_parts(base.add(DIGIT_OFFSET) as *const u32, n))
}

/// The number of limbs of the value of `digits` (top digit nonzero).
fn limbs_of_digits(d: &[u32]) -> usize {
    match d.last() {
        None => 0,
        Some(&top) => ((d.len() as u64 - 1) * DIGIT_BITS as u64 + (32 - top.leading_zeros()) as u64).div_ceil(64) as usize,
    }
}

/// Writes the value of the 30-bit `digits` into `out` (exactly [`limbs_of_digits`] limbs).
fn digits_to_limbs(d: &[u32], out: &mut [u64]) {
    let (mut acc, mut have, mut k) = (0u64, 0u32, 0usize);
    for &digit in d {
        let digit = (digit as u64) & DIGIT_MASK;
        acc |= digit << have;
        have += DIGIT_BITS;
        if have >= 64 {
            out[k] = acc;
            k += 1;
            have -= 64;
            acc = if have == 0 { 0 } else { digit >> (DIGIT_BITS - have) };
        }
    }
    if k < out.len() {
        out[k] = acc;
    }
}

/// Appends the magnitude of the int at `x` to `out` as limbs; returns its sign.
///
/// # Safety
/// As [`raw_digits`].
unsafe fn push_digits(out: &mut Vec<u64>, x: *mut ffi::PyObject, lay: Layout) -> bool {
    let (neg, d) = raw_digits(x, lay);
    let start = out.len();
    out.resize(start + limbs_of_digits(d), 0);
    digits_to_limbs(d, &mut out[start..]);
    neg
}

/// Appends |x| (an int) to `out` as limbs through `int.to_bytes`; returns x < 0.
fn push_portable(out: &mut Vec<u64>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
    let neg = x.lt(0)?;
    let a = if neg { x.neg()? } else { x.clone() };
    let bits: u64 = a.call_method0("bit_length")?.extract()?;
    let nbytes = bits.div_ceil(64) * 8;
    let b = a.call_method1("to_bytes", (nbytes, "little"))?;
    let bytes: &[u8] = b.cast::<pyo3::types::PyBytes>()?.as_bytes();
    out.extend(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())));
    Ok(neg)
}

// ---- writing ----

/// A new `int` of value v.
pub fn new_int<'py>(py: Python<'py>, v: IntRef) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: the setup was verified at import.
    unsafe { new_int_raw(py, v, setup()) }
}

/// # Safety
/// `s` describes this interpreter (verified).
unsafe fn new_int_raw<'py>(py: Python<'py>, v: IntRef, s: &Setup) -> PyResult<Bound<'py, PyAny>> {
    let p = new_int_ptr(py, v, s);
    Bound::from_owned_ptr_or_err(py, p)
}

/// A new reference to an `int` of value v, or NULL with a Python error set.
///
/// # Safety
/// As [`new_int_raw`].
unsafe fn new_int_ptr(py: Python<'_>, v: IntRef, s: &Setup) -> *mut ffi::PyObject {
    match v.mag {
        [] => return ffi::PyLong_FromLong(0),
        [m] if !v.neg => return ffi::PyLong_FromUnsignedLongLong(*m),
        [m] if *m <= 1 << 63 => return ffi::PyLong_FromLongLong((*m as i64).wrapping_neg()),
        _ => {}
    }
    let Some(new_long) = s.new_long else {
        return match portable_int(py, v) {
            Ok(b) => b.into_ptr(),
            Err(e) => {
                e.restore(py);
                std::ptr::null_mut()
            }
        };
    };
    let n = digits_of(v);
    let obj = new_long(n as ffi::Py_ssize_t);
    if !obj.is_null() {
        set_digits(obj, v, n, s.read);
    }
    obj
}

/// The number of 30-bit digits of |v| (v ≠ 0).
fn digits_of(v: IntRef) -> usize {
    let top = *v.mag.last().unwrap();
    let bits = (v.mag.len() as u64 - 1) * 64 + (64 - top.leading_zeros()) as u64;
    bits.div_ceil(DIGIT_BITS as u64) as usize
}

/// Writes the n digits and the sign of v into the int at obj (made by `_PyLong_New(n)`).
///
/// # Safety
/// obj is an int object of n digits that nothing else reads or writes meanwhile.
unsafe fn set_digits(obj: *mut ffi::PyObject, v: IntRef, n: usize, lay: Layout) {
    let base = obj.cast::<u8>();
    let d = std::slice::from_raw_parts_mut(base.add(DIGIT_OFFSET) as *mut u32, n);
    let (mut acc, mut have, mut next) = (0u128, 0u32, 0usize);
    for digit in d.iter_mut() {
        if have < DIGIT_BITS && next < v.mag.len() {
            acc |= (v.mag[next] as u128) << have;
            have += 64;
            next += 1;
        }
        *digit = (acc as u64 & DIGIT_MASK) as u32;
        acc >>= DIGIT_BITS;
        have = have.saturating_sub(DIGIT_BITS);
    }
    let size = base.add(SIZE_OFFSET) as *mut isize;
    *size = match lay {
        Layout::SignedSize if v.neg => -(n as isize),
        Layout::SignedSize => n as isize,
        _ => ((n << 3) | if v.neg { 2 } else { 0 }) as isize,
    };
}

fn portable_int<'py>(py: Python<'py>, v: IntRef) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = v.mag.iter().flat_map(|l| l.to_le_bytes()).collect();
    let b = pyo3::types::PyBytes::new(py, &bytes);
    let x = py.get_type::<pyo3::types::PyInt>().call_method1("from_bytes", (b, "little"))?;
    if v.neg {
        x.neg()
    } else {
        Ok(x)
    }
}

/// A new list of `n` ints, element i of value `get(i)`. Large ints are allocated first (with the
/// GIL), then their digits are written in gpmp's pool when there are many (the new objects are not
/// yet reachable from Python).
pub fn new_list<'py, 'a>(py: Python<'py>, n: usize, get: impl Fn(usize) -> IntRef<'a> + Sync) -> PyResult<Bound<'py, PyList>> {
    let s = setup();
    let mut fills: Vec<(SendPtr<ffi::PyObject>, usize, usize)> = Vec::new();
    // SAFETY: PyList_New(n) gives n NULL slots, each filled once by PyList_SetItem (which steals the
    // reference); on failure the list (with NULL slots, which list_dealloc allows) is released.
    unsafe {
        let list = Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))?;
        for i in 0..n {
            let v = get(i);
            let x = match (s.new_long, v.mag.len() > 1 || (v.neg && v.mag.first().is_some_and(|&m| m > 1 << 63))) {
                (Some(new_long), true) => {
                    let nd = digits_of(v);
                    let x = new_long(nd as ffi::Py_ssize_t);
                    if !x.is_null() {
                        fills.push((SendPtr(x), i, nd));
                    }
                    x
                }
                _ => new_int_ptr(py, v, s),
            };
            if x.is_null() {
                // The ints not yet filled hold no digits: give them a valid size before they go.
                for (obj, _, _) in &fills {
                    set_digits(obj.get(), IntRef::ZERO, 0, s.read);
                }
                return Err(PyErr::fetch(py));
            }
            ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, x);
        }
        let fill = |&(obj, i, nd): &(SendPtr<ffi::PyObject>, usize, usize)| set_digits(obj.get(), get(i), nd, s.read);
        if fills.len() >= PARALLEL_INTS {
            SendJobs(&fills).par_for_each(fill);
        } else {
            fills.iter().for_each(fill);
        }
        Ok(list.cast_into_unchecked())
    }
}

/// A raw pointer that may cross to gpmp's workers (each touches distinct memory; see the callers).
struct SendPtr<T>(*mut T);
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}
impl<T> SendPtr<T> {
    fn get(self) -> *mut T {
        self.0
    }
}

/// A slice of jobs with raw pointers, for gpmp's pool (see the callers).
struct SendJobs<'a, T>(&'a [T]);
unsafe impl<T> Send for SendJobs<'_, T> {}
unsafe impl<T> Sync for SendJobs<'_, T> {}
impl<'a, T> SendJobs<'a, T> {
    /// Runs `f` on every job in gpmp's pool (a method, so that closures capture the whole wrapper).
    fn par_for_each(&self, f: impl Fn(&'a T) + Sync) {
        let jobs = self;
        gpmp::runtime::install(|| (0..jobs.0.len()).into_par_iter().with_min_len(256).for_each(|k| f(jobs.at(k))));
    }

    fn at(&self, k: usize) -> &'a T {
        &self.0[k]
    }
}
