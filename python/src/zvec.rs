//! `gpmp.ZVec`: n signed integers of at most `bits` bits kept inside gpmp (in device memory with
//! the GPU backend, or with AUTO for large vectors when a GPU is usable), for chains of element-wise
//! operations without conversions. A context manager: leaving the `with` block (or `close()`)
//! frees the storage at once.
use crate::ints::{new_list, Ints};
use crate::{compute, error};
use gpmp::int::IntRef;
use gpmp::ops::zvec::ZVec as Core;
use gpmp::Error;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::{Mutex, MutexGuard};

/// A batch of integers in gpmp's storage (see the module doc).
#[pyclass(frozen, module = "gpmp")]
pub struct ZVec {
    inner: Mutex<Option<Core>>,
}

fn lock(z: &ZVec) -> MutexGuard<'_, Option<Core>> {
    z.inner.lock().unwrap_or_else(|e| e.into_inner())
}

fn closed() -> Error {
    Error::InvalidArgument("the ZVec is closed".into())
}

/// r = op(r, x, y) for zvecs that may be the same objects: each distinct one is locked once (in
/// address order, with the GIL released), the result is computed from shared borrows and then
/// installed in r (r is unchanged on error).
fn update(
    py: Python<'_>,
    name: &str,
    r: &ZVec,
    x: &ZVec,
    y: &ZVec,
    op: impl FnOnce(&Core, &Core, &Core) -> gpmp::Result<Core> + Send,
) -> PyResult<()> {
    compute(py, name, || {
        let mut uniq: Vec<&ZVec> = Vec::with_capacity(3);
        for z in [r, x, y] {
            if !uniq.iter().any(|u| std::ptr::eq(*u, z)) {
                uniq.push(z);
            }
        }
        uniq.sort_by_key(|z| *z as *const ZVec as usize);
        let mut guards: Vec<MutexGuard<'_, Option<Core>>> = uniq.iter().map(|z| lock(z)).collect();
        let at = |z: &ZVec| uniq.iter().position(|u| std::ptr::eq(*u, z)).unwrap();
        let res = {
            let get = |z: &ZVec| guards[at(z)].as_ref().ok_or_else(closed);
            op(get(r)?, get(x)?, get(y)?)?
        };
        *guards[at(r)] = Some(res);
        Ok(())
    })
}

impl ZVec {
    /// `f` of the contents (None once closed), read under the lock with the GIL released (a call
    /// of another thread may hold the lock while it computes).
    fn peek<T: Send>(&self, py: Python<'_>, f: impl FnOnce(Option<&Core>) -> T + Send) -> T {
        py.detach(|| f(lock(self).as_ref()))
    }

    /// Runs `f` on the locked contents (GIL released).
    fn with<T: Send>(&self, py: Python<'_>, name: &str, f: impl FnOnce(&mut Core) -> gpmp::Result<T> + Send) -> PyResult<T> {
        compute(py, name, || f(lock(self).as_mut().ok_or_else(closed)?))
    }
}

#[pymethods]
impl ZVec {
    /// n zeros of at most `bits` bits each (placed by the backend: see `on_device`).
    #[new]
    fn new(py: Python<'_>, n: usize, bits: u64) -> PyResult<Self> {
        let v = compute(py, "ZVec", || Core::zeros(n, bits))?;
        Ok(ZVec { inner: Mutex::new(Some(v)) })
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.peek(py, |z| z.map_or(0, Core::len))
    }

    /// The capacity in bits of every element.
    #[getter]
    fn bits(&self, py: Python<'_>) -> PyResult<u64> {
        self.peek(py, |z| z.map(Core::bits)).ok_or_else(|| error("ZVec.bits", closed()))
    }

    /// Whether the elements live in device memory.
    #[getter]
    fn on_device(&self, py: Python<'_>) -> PyResult<bool> {
        self.peek(py, |z| z.map(Core::on_device)).ok_or_else(|| error("ZVec.on_device", closed()))
    }

    /// Sets every element from `values` (a sequence of len(self) integers); OverflowError (and no
    /// change) when one has more than `bits` bits.
    fn set(&self, py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let ints = Ints::from_seq(values, "values")?;
        let v: Vec<IntRef> = ints.views();
        self.with(py, "ZVec.set", |z| z.set(&v))
    }

    /// The elements, as a list of ints.
    fn get<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = self.with(py, "ZVec.get", |z| z.to_list())?;
        new_list(py, l.len(), |i| l.get(i))
    }

    /// self = a + b element-wise (OverflowError, self unchanged, when a sum exceeds `bits`).
    fn add(&self, py: Python<'_>, a: &Bound<'_, ZVec>, b: &Bound<'_, ZVec>) -> PyResult<()> {
        update(py, "ZVec.add", self, a.get(), b.get(), Core::add)
    }

    /// self = a − b element-wise.
    fn sub(&self, py: Python<'_>, a: &Bound<'_, ZVec>, b: &Bound<'_, ZVec>) -> PyResult<()> {
        update(py, "ZVec.sub", self, a.get(), b.get(), Core::sub)
    }

    /// self = a·b element-wise (self.bits ≥ a.bits + b.bits, else OverflowError).
    fn mul(&self, py: Python<'_>, a: &Bound<'_, ZVec>, b: &Bound<'_, ZVec>) -> PyResult<()> {
        update(py, "ZVec.mul", self, a.get(), b.get(), Core::mul)
    }

    /// self = a·b mod m element-wise (m > 1; results in \[0, m)).
    fn mulmod(&self, py: Python<'_>, a: &Bound<'_, ZVec>, b: &Bound<'_, ZVec>, m: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = Ints::one(m, "m")?;
        let m = m.get(0);
        update(py, "ZVec.mulmod", self, a.get(), b.get(), |r, x, y| Core::mulmod(r, x, y, m))
    }

    /// self = base^exp mod m element-wise (exp ≥ 0, m > 1).
    fn powm(&self, py: Python<'_>, base: &Bound<'_, ZVec>, exp: &Bound<'_, ZVec>, m: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = Ints::one(m, "m")?;
        let m = m.get(0);
        update(py, "ZVec.powm", self, base.get(), exp.get(), |r, x, y| Core::powm(r, x, y, m))
    }

    /// Waits for the device work queued for this vector.
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, "ZVec.synchronize", |z| z.synchronize())
    }

    /// Frees the storage now (later calls raise ValueError; closing twice is allowed).
    fn close(&self, py: Python<'_>) {
        let old = py.detach(|| lock(self).take());
        drop(old);
    }

    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        self.peek(py, |z| z.is_none())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        self.peek(py, |z| match z {
            Some(z) => format!("ZVec(n={}, bits={}, on_device={})", z.len(), z.bits(), z.on_device()),
            None => "ZVec(closed)".into(),
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ZVec>()
}
