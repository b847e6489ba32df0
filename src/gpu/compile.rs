//! Kernel compilation: the CUDA C files of `kernels/` (listed in [`super::kernels`]) are embedded in
//! the library, specialised by `-D` defines and compiled by NVRTC at first use, `kernels/common.cuh`
//! prepended, for the device's real architecture (`--gpu-architecture=sm_XY`). One compile gives
//! both the device code (CUBIN, `nvrtcGetCUBIN`), which the driver loads as is, and the PTX, which
//! is loaded (through the driver's JIT) only when the driver refuses the CUBIN.
//!
//! Caches, both per specialisation:
//! - in memory, per device: one slot per module, so that different modules compile at the same time
//!   on different threads ([`warmup`] uses them all) while a module is compiled once however many
//!   threads ask for it;
//! - on disk under `$XDG_CACHE_HOME/gpmp` (or `~/.cache/gpmp`): one file per compile holding its key,
//!   the CUBIN and the PTX. The key is what determines the code: the compiled text (common header
//!   and source), the options (which name the architecture) and the NVRTC version; the driver's
//!   version is not part of it (a CUBIN is the driver's input, not its output). An entry is used
//!   only on an exact key match. `GPMP_KERNEL_CACHE=off` disables the disk cache.
//!
//! No precompiled kernels are shipped in the library: building it must not need CUDA, so they could
//! come only from an optional build step, making two libraries that behave differently, or from
//! binary blobs committed beside their sources, which go stale silently. A call compiles only the
//! modules it launches, and each machine does so once.
use super::device::{nvrtc_present, Device};
use super::kernels::{self, all_specs, Kernel, Spec, COMMON};
use super::{driver_err, shield};
use crate::log::{log, Level};
use crate::{Error, Result};
use cudarc::driver::CudaModule;
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys, Ptx};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Instant;

/// NVRTC options for `spec` on `arch` (e.g. "sm_90").
pub fn options(spec: &Spec, arch: &str) -> Result<Vec<String>> {
    let src = kernels::find(spec.source)?;
    let mut o = vec![format!("--gpu-architecture={arch}"), "--std=c++17".to_string()];
    if src.int128 {
        o.push("--device-int128".into());
    }
    o.extend(spec.defines.iter().map(|(k, v)| format!("-D{k}={v}")));
    Ok(o)
}

/// What NVRTC compiles for `src`: the common header, then the file, its lines numbered as in
/// `kernels/` (so that compiler messages point into the right file and line).
fn compiled_text(src: &Kernel) -> String {
    format!("#line 1 \"common.cuh\"\n{COMMON}\n#line 1 \"{}\"\n{}", src.file, src.source)
}

/// "major.minor" of the loaded libnvrtc.
fn nvrtc_version() -> Result<String> {
    shield("nvrtcVersion", || {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: writes two ints.
        let r = unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) };
        r.result().map_err(|e| Error::Cuda(format!("nvrtcVersion: {e:?}")))?;
        Ok(format!("{major}.{minor}"))
    })
}

pub(crate) fn cache_dir() -> Option<PathBuf> {
    if std::env::var("GPMP_KERNEL_CACHE").is_ok_and(|v| v.trim().eq_ignore_ascii_case("off")) {
        return None;
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("gpmp"))
}

/// 64-bit FNV-1a (only names the cache file; the file itself holds the full key).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// The two compiled forms of one specialisation, from one NVRTC compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    /// Device code for the real architecture (an ELF image).
    pub cubin: Vec<u8>,
    /// The PTX of the same compile.
    pub ptx: String,
}

impl Code {
    /// The disk entry: `key`, a NUL, the CUBIN's length (8 bytes, little-endian), the CUBIN, the PTX.
    fn entry(&self, key: &str) -> Vec<u8> {
        let mut e = Vec::with_capacity(key.len() + 9 + self.cubin.len() + self.ptx.len());
        e.extend_from_slice(key.as_bytes());
        e.push(0);
        e.extend_from_slice(&(self.cubin.len() as u64).to_le_bytes());
        e.extend_from_slice(&self.cubin);
        e.extend_from_slice(self.ptx.as_bytes());
        e
    }

    /// The code of a disk entry written for exactly `key`; `None` for another key or a damaged file.
    fn from_entry(e: &[u8], key: &str) -> Option<Code> {
        let rest = e.strip_prefix(key.as_bytes())?.strip_prefix(&[0])?;
        let (len, rest) = rest.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok().filter(|&l| l <= rest.len())?;
        let (cubin, ptx) = rest.split_at(len);
        Some(Code { cubin: cubin.to_vec(), ptx: String::from_utf8(ptx.to_vec()).ok()? })
    }
}

/// The disk cache key of `spec` for `arch` and the cache file's name.
fn cache_key(spec: &Spec, arch: &str) -> Result<(String, String)> {
    let src = kernels::find(spec.source)?;
    let opts = options(spec, arch)?;
    let key = format!("gpmp kernel {}\n{}\nnvrtc {}\n{}", src.file, opts.join(" "), nvrtc_version()?, compiled_text(src));
    let name = format!("{}-{arch}-{:016x}.bin", src.file.trim_end_matches(".cu"), fnv1a(&key));
    Ok((key, name))
}

/// An NVRTC program, destroyed on drop.
struct Program(nvrtc_sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by create_program and destroyed once.
        let _ = unsafe { nvrtc::destroy_program(self.0) };
    }
}

/// `what` of an NVRTC call as a gpmp error.
fn nvrtc_err(what: &str, e: nvrtc::NvrtcError) -> Error {
    Error::Cuda(format!("{what}: {e:?}"))
}

/// Compiles `text` (named `file`) with `opts` for a real architecture: its CUBIN and PTX.
fn nvrtc_compile(file: &str, text: &str, opts: &[String]) -> Result<Code> {
    shield("NVRTC", || {
        let src = CString::new(text).map_err(|_| Error::Internal(format!("{file} holds a NUL byte")))?;
        let name = CString::new(file).map_err(|_| Error::Internal(format!("{file}: a NUL byte in the name")))?;
        let prog = Program(nvrtc::create_program(&src, Some(&name)).map_err(|e| nvrtc_err("nvrtcCreateProgram", e))?);
        // SAFETY: prog is a live program; src and name outlive it.
        if let Err(e) = unsafe { nvrtc::compile_program(prog.0, opts) } {
            // SAFETY: as above; the log is NUL-terminated.
            let log =
                unsafe { nvrtc::get_program_log(prog.0) }.map(|l| unsafe { CStr::from_ptr(l.as_ptr()) }.to_string_lossy().into_owned());
            return Err(Error::Cuda(format!("NVRTC cannot compile {file} with {} ({e:?}):\n{}", opts.join(" "), log.unwrap_or_default())));
        }
        // SAFETY: as above; NVRTC writes the sizes it reported.
        let ptx = unsafe { nvrtc::get_ptx(prog.0) }.map_err(|e| nvrtc_err("nvrtcGetPTX", e))?;
        let ptx = unsafe { CStr::from_ptr(ptx.as_ptr()) }.to_string_lossy().into_owned();
        let mut size = 0usize;
        unsafe { nvrtc_sys::nvrtcGetCUBINSize(prog.0, &mut size) }.result().map_err(|e| nvrtc_err("nvrtcGetCUBINSize", e))?;
        let mut cubin = vec![0u8; size];
        unsafe { nvrtc_sys::nvrtcGetCUBIN(prog.0, cubin.as_mut_ptr().cast::<c_char>()) }
            .result()
            .map_err(|e| nvrtc_err("nvrtcGetCUBIN", e))?;
        if size == 0 {
            return Err(Error::Cuda(format!("NVRTC gave no CUBIN for {file} with {}", opts.join(" "))));
        }
        Ok(Code { cubin, ptx })
    })
}

/// The compiled code of `spec` for the real architecture `arch` (e.g. "sm_90"), from the disk cache
/// or NVRTC (then written to the cache); the flag tells whether it came from the cache.
pub fn code(spec: &Spec, arch: &str) -> Result<(Code, bool)> {
    if !nvrtc_present() {
        return Err(Error::NoCudaDevice("libnvrtc cannot be loaded, so no kernel can be compiled".into()));
    }
    let src = kernels::find(spec.source)?;
    let (key, name) = cache_key(spec, arch)?;
    let file = cache_dir().map(|d| d.join(name));
    if let Some(code) = file.as_ref().and_then(|f| std::fs::read(f).ok()).and_then(|e| Code::from_entry(&e, &key)) {
        return Ok((code, true));
    }
    let code = nvrtc_compile(src.file, &compiled_text(src), &options(spec, arch)?)?;
    if let Some(f) = &file {
        // Best effort: write a private temporary, then rename it into place atomically.
        static SERIAL: AtomicUsize = AtomicUsize::new(0);
        let tmp = f.with_extension(format!("tmp{}-{}", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed)));
        let ok = f.parent().is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && std::fs::write(&tmp, code.entry(&key)).is_ok()
            && std::fs::rename(&tmp, f).is_ok();
        if !ok {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    Ok((code, false))
}

/// The PTX of `spec` for `arch`, through [`code`] (and its cache).
pub fn ptx(spec: &Spec, arch: &str) -> Result<String> {
    code(spec, arch).map(|(c, _)| c.ptx)
}

/// One module's slot in [`Device::modules`]: empty until a compile and load succeed.
pub(crate) type Slot = Arc<Mutex<Option<Arc<CudaModule>>>>;

/// The module of `spec` loaded on `dev` (compiled and loaded at first use, then kept). Threads
/// asking for different modules compile them at the same time; threads asking for the same one
/// wait for its first compile.
pub fn module(dev: &Device, spec: &Spec) -> Result<Arc<CudaModule>> {
    let slot = slot_of(dev, spec);
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = &*slot {
        return Ok(Arc::clone(m));
    }
    // A first use compiles (up to seconds, on an empty cache): a stopped call returns before that.
    crate::interrupt::checkpoint()?;
    let t0 = Instant::now();
    let arch = dev.arch();
    let (code, cached) = code(spec, &arch)?;
    let t1 = Instant::now();
    let m = shield("cuModuleLoadData", || {
        dev.ctx.load_module(Ptx::from_binary(code.cubin)).or_else(|cubin_err| {
            // A driver older than the compiler may refuse its CUBIN: try the PTX through the JIT.
            log(Level::Warn, "kernel load", || format!("{spec:?}: the driver refuses the {arch} CUBIN ({cubin_err:?}); loading the PTX"));
            dev.ctx.load_module(Ptx::from_src(code.ptx)).map_err(|e| driver_err("cuModuleLoadData", e))
        })
    })?;
    log(Level::Debug, "kernel load", || {
        let how = if cached { "from the disk cache" } else { "compiled by NVRTC" };
        format!("{} {}: {how} in {:.1} ms, loaded in {:.1} ms", spec.source, spec_defines(spec), ms(t0, t1), ms(t1, Instant::now()))
    });
    *slot = Some(Arc::clone(&m));
    Ok(m)
}

/// The slot of `spec`'s module on `dev` (created empty at first ask).
fn slot_of(dev: &Device, spec: &Spec) -> Slot {
    let mut mods = dev.modules.lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(mods.entry(format!("{spec:?}")).or_default())
}

/// A compile started by [`ready_or_start`] and not yet seen loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Background {
    Running,
    /// Failed: not started again (the calls that asked keep running on the CPU; a call that waits
    /// for the module, under `Backend::Gpu`, compiles it itself and reports the error).
    Failed,
}

/// The background compiles, by device ordinal and module.
static BACKGROUND: Mutex<Option<HashMap<String, Background>>> = Mutex::new(None);

/// Whether `spec`'s module is loaded on `dev`, without waiting: when it is not, and nobody is
/// compiling it, its compile and load start on a thread of their own, and false is returned at once
/// (the call that asked runs on the CPU meanwhile, under `Backend::Auto`). A module being compiled
/// by a call that waits for it also answers false.
pub fn ready_or_start(dev: &Arc<Device>, spec: &Spec) -> bool {
    let key = format!("{}:{spec:?}", dev.ordinal);
    let (d, sp, k) = (Arc::clone(dev), spec.clone(), key.clone());
    ready_or_start_with(&slot_of(dev, spec), &BACKGROUND, &key, move || {
        let run = move || {
            let r = module(&d, &sp);
            if let Err(e) = &r {
                log(Level::Warn, "kernel load", || format!("{} {} (in the background): {e}", sp.source, spec_defines(&sp)));
            }
            background_done(&BACKGROUND, &k, r.is_ok());
        };
        std::thread::Builder::new().name("gpmp-compile".into()).spawn(run).is_ok()
    })
}

/// [`ready_or_start`]'s state machine on a slot of any kind: true when `slot` holds a value; else
/// false, after calling `spawn` (which starts the fill and later calls [`background_done`]; it
/// returns false if it could not start) unless a fill is running (the slot is locked, or `jobs`
/// records one under `key`) or has failed.
fn ready_or_start_with<T>(
    slot: &Mutex<Option<T>>,
    jobs: &Mutex<Option<HashMap<String, Background>>>,
    key: &str,
    spawn: impl FnOnce() -> bool,
) -> bool {
    match slot.try_lock() {
        Ok(g) if g.is_some() => return true,
        Err(TryLockError::Poisoned(p)) if p.get_ref().is_some() => return true,
        Err(TryLockError::WouldBlock) => return false,
        _ => {}
    }
    {
        let mut j = jobs.lock().unwrap_or_else(|e| e.into_inner());
        let j = j.get_or_insert_with(HashMap::new);
        if j.contains_key(key) {
            return false;
        }
        j.insert(key.to_string(), Background::Running);
    }
    if !spawn() {
        background_done(jobs, key, false);
    }
    false
}

/// Records the end of the background fill `key` (a success forgets it, a failure is kept).
fn background_done(jobs: &Mutex<Option<HashMap<String, Background>>>, key: &str, ok: bool) {
    let mut j = jobs.lock().unwrap_or_else(|e| e.into_inner());
    let j = j.get_or_insert_with(HashMap::new);
    if ok {
        j.remove(key);
    } else {
        j.insert(key.to_string(), Background::Failed);
    }
}

/// Milliseconds from `a` to `b`.
pub(crate) fn ms(a: Instant, b: Instant) -> f64 {
    b.duration_since(a).as_secs_f64() * 1e3
}

/// `-DK=V ...` of `spec`.
fn spec_defines(spec: &Spec) -> String {
    spec.defines.iter().map(|(k, v)| format!("-D{k}={v}")).collect::<Vec<_>>().join(" ")
}

/// Compiles and loads every specialisation on the current device now, on up to as many threads as
/// the machine has cores (NVRTC compiles independent programs in parallel); the first error is
/// returned after every thread has finished.
pub fn warmup() -> Result<()> {
    let dev = super::device::current()?;
    let specs = all_specs();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, specs.len().max(1));
    let next = AtomicUsize::new(0);
    let first_err: Mutex<Option<Error>> = Mutex::new(None);
    let call = crate::interrupt::current();
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(spec) = specs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = call.check().and_then(|_| module(&dev, spec)) {
                        first_err.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                    }
                }
            });
        }
    });
    log(Level::Debug, "gpmp_gpu_warmup", || format!("{} modules on {threads} threads in {:.1} ms", specs.len(), ms(t0, Instant::now())));
    first_err.into_inner().unwrap_or_else(|e| e.into_inner()).map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points `XDG_CACHE_HOME` at a fresh directory for the life of the value. Only the tests of this
    /// module change the variable; other tests merely use whichever cache it names.
    struct TempCache {
        dir: PathBuf,
        old: Option<std::ffi::OsString>,
        _lock: std::sync::MutexGuard<'static, ()>,
    }

    impl TempCache {
        fn new(tag: &str) -> TempCache {
            static LOCK: Mutex<()> = Mutex::new(());
            let lock = LOCK.lock().unwrap_or_else(|e| e.into_inner());
            let dir = std::env::temp_dir().join(format!("gpmp-cache-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let old = std::env::var_os("XDG_CACHE_HOME");
            std::env::set_var("XDG_CACHE_HOME", &dir);
            TempCache { dir, old, _lock: lock }
        }

        /// The cache files written for `spec` on `arch`.
        fn files(&self, spec: &Spec, arch: &str) -> Vec<PathBuf> {
            let (_, name) = cache_key(spec, arch).unwrap();
            let f = self.dir.join("gpmp").join(name);
            if f.exists() {
                vec![f]
            } else {
                vec![]
            }
        }
    }

    impl Drop for TempCache {
        fn drop(&mut self) {
            match self.old.take() {
                Some(v) => std::env::set_var("XDG_CACHE_HOME", v),
                None => std::env::remove_var("XDG_CACHE_HOME"),
            }
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// The background compile's state machine on a plain slot: an empty idle slot starts one fill
    /// and answers false; while it runs, false and nothing more started; once filled, true; a failed
    /// fill (or one that could not start) is recorded and not started again.
    #[test]
    fn background_fills_start_once_and_failures_are_not_retried() {
        use std::sync::atomic::AtomicBool;
        use std::sync::Barrier;
        let slot: Arc<Mutex<Option<u32>>> = Arc::new(Mutex::new(None));
        let jobs: Arc<Mutex<Option<HashMap<String, Background>>>> = Arc::new(Mutex::new(None));
        let spawns = Arc::new(AtomicUsize::new(0));
        let (locked, release) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
        let handle: Mutex<Option<std::thread::JoinHandle<()>>> = Mutex::new(None);
        let start = || {
            spawns.fetch_add(1, Ordering::SeqCst);
            let (slot, jobs, locked, release) = (Arc::clone(&slot), Arc::clone(&jobs), Arc::clone(&locked), Arc::clone(&release));
            *handle.lock().unwrap() = Some(std::thread::spawn(move || {
                let mut g = slot.lock().unwrap();
                locked.wait();
                release.wait();
                *g = Some(7);
                drop(g);
                background_done(&jobs, "m", true);
            }));
            true
        };
        // Empty and idle: starts the fill, answers false at once.
        assert!(!ready_or_start_with(&slot, &jobs, "m", start));
        locked.wait();
        // While it runs (slot locked): false, nothing started again.
        assert!(!ready_or_start_with(&slot, &jobs, "m", || panic!("started twice")));
        release.wait();
        handle.lock().unwrap().take().unwrap().join().unwrap();
        // Filled: true, and the job is forgotten.
        assert!(ready_or_start_with(&slot, &jobs, "m", || panic!("filled")));
        assert_eq!(spawns.load(Ordering::SeqCst), 1);
        assert!(jobs.lock().unwrap().as_ref().unwrap().is_empty());
        // A failed fill is recorded and not started again; a fill that cannot start counts as failed.
        let empty: Mutex<Option<u32>> = Mutex::new(None);
        let failed = AtomicBool::new(false);
        assert!(!ready_or_start_with(&empty, &jobs, "f", || {
            failed.store(true, Ordering::SeqCst);
            false
        }));
        assert!(failed.load(Ordering::SeqCst));
        assert_eq!(jobs.lock().unwrap().as_ref().unwrap().get("f"), Some(&Background::Failed));
        assert!(!ready_or_start_with(&empty, &jobs, "f", || panic!("a failed fill is not retried")));
        // Job records are per key.
        let other: Mutex<Option<u32>> = Mutex::new(None);
        let started = AtomicBool::new(false);
        assert!(!ready_or_start_with(&other, &jobs, "g", || {
            started.store(true, Ordering::SeqCst);
            true
        }));
        assert!(started.load(Ordering::SeqCst));
    }

    /// An entry reads back only under its own key, and a damaged one reads as absent.
    #[test]
    fn a_cache_entry_round_trips_under_its_key_only() {
        for code in [
            Code { cubin: vec![], ptx: String::new() },
            Code { cubin: b"\x7fELF\0\0\xff".to_vec(), ptx: ".version 9.0\n.target sm_90\n".into() },
            Code { cubin: vec![0; 1000], ptx: "\0x".into() },
        ] {
            let e = code.entry("key\nnvrtc 13.0");
            assert_eq!(Code::from_entry(&e, "key\nnvrtc 13.0"), Some(code.clone()));
            assert_eq!(Code::from_entry(&e, "key\nnvrtc 13.1"), None);
            assert_eq!(Code::from_entry(&e, "key"), None);
            // Truncated inside the length or the CUBIN.
            let head = "key\nnvrtc 13.0".len() + 1;
            assert_eq!(Code::from_entry(&e[..head + 4], "key\nnvrtc 13.0"), None);
            if !code.cubin.is_empty() {
                assert_eq!(Code::from_entry(&e[..head + 8 + code.cubin.len() - 1], "key\nnvrtc 13.0"), None);
            }
        }
    }

    /// The key changes with everything that changes the code (options, architecture, text) and
    /// with nothing else.
    #[test]
    fn the_cache_key_names_the_code_not_the_driver() {
        if !nvrtc_present() {
            eprintln!("skipped: libnvrtc cannot be loaded");
            return;
        }
        let specs = all_specs();
        let (a, b) = (&specs[0], &specs[1]);
        let (ka, na) = cache_key(a, "sm_90").unwrap();
        assert_eq!(cache_key(a, "sm_90").unwrap(), (ka.clone(), na.clone()));
        assert_ne!(cache_key(a, "sm_80").unwrap().1, na);
        assert_ne!(cache_key(b, "sm_90").unwrap().1, na);
        assert!(ka.contains("--gpu-architecture=sm_90") && ka.contains(&format!("nvrtc {}", nvrtc_version().unwrap())));
        assert!(ka.contains(COMMON) && ka.contains(kernels::find(a.source).unwrap().source));
        assert!(!ka.contains("driver"));
    }

    /// CI has no GPU but installs libnvrtc: every kernel and specialisation must compile for sm_90,
    /// to PTX and to an sm_90 CUBIN (an ELF image).
    #[test]
    fn every_kernel_compiles_for_sm_90() {
        if !nvrtc_present() {
            eprintln!("skipped: libnvrtc cannot be loaded (install nvidia-cuda-nvrtc and put its lib/ on LD_LIBRARY_PATH)");
            return;
        }
        let specs = all_specs();
        assert!(!specs.is_empty());
        let _cache = TempCache::new("all");
        // In parallel, as `warmup` compiles them.
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..std::thread::available_parallelism().map_or(1, |n| n.get()) {
                s.spawn(|| {
                    while let Some(spec) = specs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let (c, _) = code(spec, "sm_90").unwrap_or_else(|e| panic!("{spec:?}: {e}"));
                        assert!(c.ptx.contains(".target sm_90"), "{spec:?}");
                        assert!(c.ptx.contains(".entry"), "{spec:?}");
                        assert!(c.cubin.starts_with(b"\x7fELF"), "{spec:?}");
                    }
                });
            }
        });
    }

    #[test]
    fn a_broken_kernel_is_an_error_not_a_panic() {
        if !nvrtc_present() {
            eprintln!("skipped: libnvrtc cannot be loaded");
            return;
        }
        let bad = Spec { source: "ntt.cu", defines: vec![("GPMP_FORCE_ERROR", 1)] };
        match ptx(&bad, "sm_90") {
            Err(Error::Cuda(msg)) => assert!(msg.contains("GPMP_FORCE_ERROR"), "{msg}"),
            other => panic!("expected a compile error, got {other:?}"),
        }
        assert!(matches!(kernels::find("nope.cu"), Err(Error::Internal(_))));
    }

    /// The disk cache: a compile leaves one file holding key, CUBIN and PTX; a second request is
    /// served from it (the same bytes); a file whose key does not match is ignored and rewritten.
    #[test]
    fn the_disk_cache_round_trips_and_checks_its_key() {
        if !nvrtc_present() {
            eprintln!("skipped: libnvrtc cannot be loaded");
            return;
        }
        let cache = TempCache::new("round-trip");
        let spec = &all_specs()[0];
        let (fresh, hit) = code(spec, "sm_90").unwrap();
        assert!(!hit);
        let files = cache.files(spec, "sm_90");
        assert_eq!(files.len(), 1);
        let (key, _) = cache_key(spec, "sm_90").unwrap();
        let bytes = std::fs::read(&files[0]).unwrap();
        assert!(bytes.starts_with(b"gpmp kernel ntt.cu\n"));
        assert_eq!(bytes, fresh.entry(&key));
        assert_eq!(code(spec, "sm_90").unwrap(), (fresh.clone(), true));
        // A stale entry (same file name, other key) is recompiled, not trusted.
        std::fs::write(&files[0], Code { cubin: b"garbage".to_vec(), ptx: "garbage".into() }.entry("another key")).unwrap();
        assert_eq!(code(spec, "sm_90").unwrap(), (fresh.clone(), false));
        assert_eq!(std::fs::read(&files[0]).unwrap(), fresh.entry(&key));
        // Another architecture is another entry.
        let (sm80, hit) = code(spec, "sm_80").unwrap();
        assert!(!hit && sm80.ptx.contains(".target sm_80") && sm80.cubin != fresh.cubin);
        assert_eq!(cache.files(spec, "sm_80").len(), 1);
    }

    /// One NTT of 2^10 points on the device (against the naive DFT) in a process whose kernel cache
    /// is the one the parent names; the parent reads from the log whether the module was compiled
    /// or read from the disk cache. Then, with `GPMP_TEST_WARMUP=1`, every module.
    #[cfg(feature = "gpu-tests")]
    #[test]
    #[ignore = "needs a fresh process: run by a_fresh_cache_compiles_once_then_loads in a child process"]
    fn cold_child() {
        use crate::nmod::prime::{fourier_prime, mulmod, powmod, primitive_root_of_unity};
        let p = fourier_prime(62, 0).unwrap();
        let n = 1usize << 10;
        let w = primitive_root_of_unity(n as u64, p).unwrap();
        let x: Vec<u64> = (0..n as u64).map(|i| (i * 0x9e37_79b9_7f4a_7c15) % p).collect();
        let mut y = x.clone();
        crate::gpu::ntt::ntt_many(&mut y, 1, n, w, p, false).unwrap();
        for (i, &yi) in y.iter().enumerate() {
            let wi = powmod(w, i as u64, p);
            let want = x.iter().rev().fold(0u64, |acc, &xj| ((mulmod(acc, wi, p) as u128 + xj as u128) % p as u128) as u64);
            assert_eq!(yi, want, "X_{i}");
        }
        if std::env::var("GPMP_TEST_WARMUP").is_ok_and(|v| v == "1") {
            warmup().unwrap();
            let dev = super::super::device::current().unwrap();
            let mods = dev.modules.lock().unwrap();
            for s in all_specs() {
                assert!(mods.get(&format!("{s:?}")).is_some_and(|m| m.lock().unwrap().is_some()), "{s:?} loaded");
            }
        }
        println!("cold_child: done");
    }

    /// A first process on an empty cache compiles the NTT module (and only the modules it launches);
    /// a second process with the same cache loads it from disk without compiling; a warm-up in a
    /// fresh cache compiles and loads every module.
    #[cfg(feature = "gpu-tests")]
    #[test]
    fn a_fresh_cache_compiles_once_then_loads() {
        let dir = std::env::temp_dir().join(format!("gpmp-cold-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let d = dir.to_str().unwrap();
        let env = [("XDG_CACHE_HOME", d), ("GPMP_LOG", "debug"), ("GPMP_KERNEL_CACHE", "on")];
        let first = crate::testing::run_in_child("gpu::compile::tests::cold_child", &env);
        assert!(first.contains("kernel load: ntt.cu") && first.contains("compiled by NVRTC"), "{first}");
        assert_eq!(first.matches("kernel load: ").count(), 1, "only the module the call launches: {first}");
        let second = crate::testing::run_in_child("gpu::compile::tests::cold_child", &env);
        assert!(second.contains("from the disk cache") && !second.contains("compiled by NVRTC"), "{second}");
        let fresh = dir.join("warm");
        let env = [("XDG_CACHE_HOME", fresh.to_str().unwrap()), ("GPMP_LOG", "debug"), ("GPMP_TEST_WARMUP", "1")];
        let warm = crate::testing::run_in_child("gpu::compile::tests::cold_child", &env);
        assert!(warm.contains("gpmp_gpu_warmup: ") && warm.contains(" modules on "), "{warm}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
