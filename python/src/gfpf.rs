//! `gpmp.Gfpf`: a generalized Fermat prime field p = r^k + 1. Elements are Python integers (any
//! value, reduced mod p on the way in; results in \[0, p)); inside, each is k radix-r digits.
use crate::compute;
use crate::ints::{new_int, new_list, Ints};
use gpmp::gfpf::Gfpf as Field;
use gpmp::int::{try_zeroed, IntRef, ZSlab};
use gpmp::ops::gfpf::{binary_n, BinaryOp};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;

/// A generalized Fermat prime field r^k + 1 (immutable; usable from several threads).
#[pyclass(frozen, module = "gpmp")]
pub struct Gfpf(Field);

impl Gfpf {
    /// The digit rows (n × k words) of the integers in `x`.
    fn rows(&self, py: Python<'_>, x: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u64>> {
        let ints = Ints::from_seq(x, what)?;
        let v = ints.views();
        let f = &self.0;
        compute(py, what, || {
            let k = f.k();
            let mut out: Vec<u64> = try_zeroed(v.len() * k)?;
            out.par_chunks_mut(k).zip(v.par_iter()).with_min_len(64).for_each(|(e, z)| f.from_limbs(e, z.neg, z.mag));
            Ok(out)
        })
    }

    /// The integers in \[0, p) of the digit rows v.
    fn ints<'py>(&self, py: Python<'py>, name: &str, v: &[u64]) -> PyResult<Bound<'py, PyList>> {
        let (k, pl) = (self.0.k(), self.0.prime().len());
        let n = v.len() / k;
        let f = &self.0;
        let h = compute(py, name, || {
            let mut h = ZSlab::zeros(n, pl)?;
            h.par_rows_mut().zip(v.par_chunks(k)).with_min_len(64).for_each(|((row, _), x)| f.to_limbs(row, x));
            Ok(h)
        })?;
        new_list(py, n, |i| h.get(i))
    }

    fn binary<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        op: BinaryOp,
        x: &Bound<'py, PyAny>,
        y: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (xv, yv) = (self.rows(py, x, "x")?, self.rows(py, y, "y")?);
        if xv.len() != yv.len() {
            return Err(PyValueError::new_err(format!("{name}: x and y have different lengths")));
        }
        let f = &self.0;
        let z = compute(py, name, || {
            let mut z = try_zeroed(xv.len())?;
            binary_n(f, op, &mut z, &xv, &yv)?;
            Ok(z)
        })?;
        self.ints(py, name, &z)
    }

    /// The digits of ω: the given one (an integer) or the field's primitive N-th root.
    fn omega(&self, py: Python<'_>, n: usize, omega: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<u64>> {
        match omega {
            Some(w) => {
                let l = PyList::new(py, [w])?;
                self.rows(py, l.as_any(), "omega")
            }
            None => self.0.root_of_unity(n).map_err(|e| crate::error("root_of_unity", e)),
        }
    }

    fn transform<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        x: &Bound<'py, PyAny>,
        omega: Option<&Bound<'py, PyAny>>,
        inverse: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut v = self.rows(py, x, "x")?;
        let n = v.len() / self.0.k();
        if !n.is_power_of_two() {
            return Err(PyValueError::new_err(format!("{name}: N = {n} is not a power of 2")));
        }
        let w = self.omega(py, n, omega)?;
        let f = &self.0;
        compute(py, name, || if inverse { f.idft(&mut v, n, &w) } else { f.dft(&mut v, n, &w) })?;
        self.ints(py, name, &v)
    }
}

#[pymethods]
impl Gfpf {
    /// The field r^k + 1 (k a power of 2 in \[2, 256\], r even, r^k + 1 prime; ValueError otherwise).
    #[new]
    fn new(r: u64, k: usize) -> PyResult<Self> {
        Field::new(r, k).map(Gfpf).map_err(|e| crate::error("Gfpf", e))
    }

    /// The built-in field with k digits (the Table 2.1 primes; k = 8 is P3 = (2^63 + 2^34)^8 + 1,
    /// k = 16 is P4 = (2^62 + 2^36)^16 + 1).
    #[staticmethod]
    fn builtin(k: usize) -> PyResult<Self> {
        Field::builtin(k).map(Gfpf).map_err(|e| crate::error("Gfpf.builtin", e))
    }

    /// The number of digits k.
    #[getter]
    fn k(&self) -> usize {
        self.0.k()
    }

    /// The radix r.
    #[getter]
    fn radix(&self) -> u64 {
        self.0.radix()
    }

    /// The prime p = r^k + 1.
    #[getter]
    fn prime<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        new_int(py, IntRef::new(false, self.0.prime()))
    }

    fn __repr__(&self) -> String {
        format!("Gfpf({}, {})", self.0.radix(), self.0.k())
    }

    /// \[(x_i + y_i) mod p\].
    fn add<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, y: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.binary(py, "Gfpf.add", BinaryOp::Add, x, y)
    }

    /// \[(x_i − y_i) mod p\].
    fn sub<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, y: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.binary(py, "Gfpf.sub", BinaryOp::Sub, x, y)
    }

    /// \[x_i·y_i mod p\].
    fn mul<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, y: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.binary(py, "Gfpf.mul", BinaryOp::Mul, x, y)
    }

    /// \[x_i·r^s mod p\], 0 ≤ s < 2k (digit shifts only).
    fn mul_pow_r<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, s: usize) -> PyResult<Bound<'py, PyList>> {
        let k = self.0.k();
        if s >= 2 * k {
            return Err(PyValueError::new_err(format!("Gfpf.mul_pow_r: s = {s} is not below 2k = {}", 2 * k)));
        }
        let xv = self.rows(py, x, "x")?;
        let f = &self.0;
        let z = compute(py, "Gfpf.mul_pow_r", || {
            let mut z = try_zeroed(xv.len())?;
            z.par_chunks_mut(k).zip(xv.par_chunks(k)).with_min_len(256).for_each(|(o, a)| f.mul_pow_r(o, a, s));
            Ok(z)
        })?;
        self.ints(py, "Gfpf.mul_pow_r", &z)
    }

    /// The field's primitive N-th root of unity ω with ω^(N/2k) = r (N a power of 2, 2k ≤ N, N | p − 1).
    fn root_of_unity<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyAny>> {
        if n < 2 * self.0.k() {
            return Err(PyValueError::new_err(format!("Gfpf.root_of_unity: N = {n} is below 2k = {}", 2 * self.0.k())));
        }
        let w = self.0.root_of_unity(n).map_err(|e| crate::error("Gfpf.root_of_unity", e))?;
        let l = self.ints(py, "Gfpf.root_of_unity", &w)?;
        l.get_item(0)
    }

    /// The DFT (Σ_j x_j·ω^(ij))_i of the N = len(x) elements (N a power of 2), natural order; ω
    /// defaults to `root_of_unity(N)`.
    #[pyo3(signature = (x, omega = None))]
    fn dft<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, omega: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyList>> {
        self.transform(py, "Gfpf.dft", x, omega, false)
    }

    /// The inverse of `dft` with the same ω (scaled by 1/N).
    #[pyo3(signature = (x, omega = None))]
    fn idft<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, omega: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyList>> {
        self.transform(py, "Gfpf.idft", x, omega, true)
    }

    /// The coefficients of f·g over the field (by its FFT).
    fn poly_mul<'py>(&self, py: Python<'py>, f: &Bound<'py, PyAny>, g: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let (a, b) = (self.rows(py, f, "f")?, self.rows(py, g, "g")?);
        if a.is_empty() || b.is_empty() {
            return Ok(PyList::empty(py));
        }
        let field = &self.0;
        let h = compute(py, "Gfpf.poly_mul", || field.poly_mul(&a, &b))?;
        self.ints(py, "Gfpf.poly_mul", &h)
    }

    /// The k radix-r digits (least significant first) of each element of x, reduced mod p (p − 1 is
    /// the special form: every digit 0 but the last, which is r).
    fn to_digits(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u64>>> {
        let v = self.rows(py, x, "x")?;
        Ok(v.chunks(self.0.k()).map(<[u64]>::to_vec).collect())
    }

    /// The integers in \[0, p) of canonical digit vectors (ValueError for a digit vector that is not).
    #[pyo3(name = "from_digits")]
    fn ints_of_digits<'py>(&self, py: Python<'py>, rows: Vec<Vec<u64>>) -> PyResult<Bound<'py, PyList>> {
        let k = self.0.k();
        if let Some(i) = rows.iter().position(|r| r.len() != k) {
            return Err(PyValueError::new_err(format!("Gfpf.from_digits: row {i} does not have k = {k} digits")));
        }
        let v: Vec<u64> = rows.concat();
        self.0.check_vec(&v, "rows").map_err(|e| crate::error("Gfpf.from_digits", e))?;
        self.ints(py, "Gfpf.from_digits", &v)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Gfpf>()
}
