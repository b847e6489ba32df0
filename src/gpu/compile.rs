//! Kernel compilation: the CUDA C files of `kernels/` (listed in [`super::kernels`]) are embedded in
//! the library, specialised by `-D` defines, compiled by NVRTC to PTX for the device's compute
//! capability at first use, `kernels/common.cuh` prepended, and cached twice: loaded modules in
//! memory per device, PTX on disk under `$XDG_CACHE_HOME/gpmp` (or `~/.cache/gpmp`). A disk entry
//! is keyed by the full compiled text (common header and source), the options, the architecture,
//! the NVRTC version and the driver version; its file holds the whole key and is used only on an
//! exact match. `GPMP_KERNEL_CACHE=off` disables the disk cache.
use super::device::{nvrtc_present, Device};
use super::kernels::{self, all_specs, Kernel, Spec, COMMON};
use super::{driver_err, shield};
use crate::{Error, Result};
use cudarc::driver::CudaModule;
use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions, Ptx};
use std::path::PathBuf;
use std::sync::Arc;

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
        let r = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
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

/// The PTX of `spec` for `arch`, from the disk cache or NVRTC. `driver` (the driver version, or
/// none when compiling without a device) is part of the cache key.
pub fn ptx(spec: &Spec, arch: &str, driver: Option<i32>) -> Result<String> {
    if !nvrtc_present() {
        return Err(Error::NoCudaDevice("libnvrtc cannot be loaded, so no kernel can be compiled".into()));
    }
    let src = kernels::find(spec.source)?;
    let opts = options(spec, arch)?;
    let text = compiled_text(src);
    let key = format!("gpmp kernel {}\n{}\nnvrtc {}\ndriver {driver:?}\n{text}", src.file, opts.join(" "), nvrtc_version()?);
    let file = cache_dir().map(|d| d.join(format!("{}-{arch}-{:016x}.ptx", src.file.trim_end_matches(".cu"), fnv1a(&key))));
    if let Some(f) = &file {
        if let Ok(text) = std::fs::read_to_string(f) {
            if let Some(ptx) = text.strip_prefix(&key).and_then(|t| t.strip_prefix('\0')) {
                return Ok(ptx.to_string());
            }
        }
    }
    let compiled = shield("NVRTC", || {
        let o = CompileOptions { options: opts.clone(), name: Some(src.file.to_string()), ..Default::default() };
        compile_ptx_with_opts(&text, o).map(|p| p.to_src()).map_err(|e| match e {
            CompileError::CompileError { log, .. } => {
                Error::Cuda(format!("NVRTC cannot compile {} with {}:\n{}", src.file, opts.join(" "), log.to_string_lossy()))
            }
            e => Error::Cuda(format!("NVRTC: {e}")),
        })
    })?;
    if let Some(f) = &file {
        // Best effort: write a private temporary, then rename it into place atomically.
        let tmp = f.with_extension(format!("tmp{}", std::process::id()));
        let ok = f.parent().is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && std::fs::write(&tmp, format!("{key}\0{compiled}")).is_ok()
            && std::fs::rename(&tmp, f).is_ok();
        if !ok {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    Ok(compiled)
}

/// The module of `spec` loaded on `dev` (compiled and loaded at first use, then kept).
pub fn module(dev: &Device, spec: &Spec) -> Result<Arc<CudaModule>> {
    let key = format!("{spec:?}");
    let mut mods = dev.modules.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = mods.get(&key) {
        return Ok(Arc::clone(m));
    }
    // A first use compiles (seconds, on an empty cache): a stopped call returns before that.
    crate::interrupt::checkpoint()?;
    let code = ptx(spec, &dev.arch(), Some(dev.driver_version))?;
    let m = shield("cuModuleLoadData", || dev.ctx.load_module(Ptx::from_src(code)).map_err(|e| driver_err("cuModuleLoadData", e)))?;
    mods.insert(key, Arc::clone(&m));
    Ok(m)
}

/// Compiles and loads every specialisation on the current device now.
pub fn warmup() -> Result<()> {
    let dev = super::device::current()?;
    for s in all_specs() {
        module(&dev, &s)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CI has no GPU but installs libnvrtc: every kernel and specialisation must compile for sm_90.
    #[test]
    fn every_kernel_compiles_for_sm_90() {
        if !nvrtc_present() {
            eprintln!("skipped: libnvrtc cannot be loaded (install nvidia-cuda-nvrtc and put its lib/ on LD_LIBRARY_PATH)");
            return;
        }
        let specs = all_specs();
        assert!(!specs.is_empty());
        for s in &specs {
            let p = ptx(s, "sm_90", None).unwrap_or_else(|e| panic!("{s:?}: {e}"));
            assert!(p.contains(".target sm_90"), "{s:?}");
            assert!(p.contains(".entry"), "{s:?}");
        }
    }

    #[test]
    fn a_broken_kernel_is_an_error_not_a_panic() {
        if !nvrtc_present() {
            eprintln!("skipped: libnvrtc cannot be loaded");
            return;
        }
        let bad = Spec { source: "ntt.cu", defines: vec![("GPMP_FORCE_ERROR", 1)] };
        match ptx(&bad, "sm_90", None) {
            Err(Error::Cuda(msg)) => assert!(msg.contains("GPMP_FORCE_ERROR"), "{msg}"),
            other => panic!("expected a compile error, got {other:?}"),
        }
        assert!(matches!(kernels::find("nope.cu"), Err(Error::Internal(_))));
    }

    /// The disk cache: a compile leaves one file holding key and PTX, a second request is served
    /// from it, and a file whose key does not match is ignored and rewritten.
    #[test]
    fn the_disk_cache_round_trips_and_checks_its_key() {
        if !nvrtc_present() {
            eprintln!("skipped: libnvrtc cannot be loaded");
            return;
        }
        let dir = std::env::temp_dir().join(format!("gpmp-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Only this test changes the variable; other tests merely use whichever cache it names.
        let old = std::env::var_os("XDG_CACHE_HOME");
        std::env::set_var("XDG_CACHE_HOME", &dir);
        let spec = &all_specs()[0];
        let fresh = ptx(spec, "sm_90", Some(1)).unwrap();
        // Tests running at the same time may add their own entries (other driver versions): count
        // only this one's (driver 1).
        let files: Vec<_> = std::fs::read_dir(dir.join("gpmp"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("\ndriver Some(1)\n")))
            .collect();
        assert_eq!(files.len(), 1);
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert!(text.starts_with("gpmp kernel ntt.cu\n") && text.ends_with(&fresh));
        // The key holds everything NVRTC compiled: the common header and the kernel file.
        assert!(text.contains(COMMON) && text.contains(kernels::find("ntt.cu").unwrap().source));
        assert_eq!(ptx(spec, "sm_90", Some(1)).unwrap(), fresh);
        // A stale entry (same file name, other key) is recompiled, not trusted.
        std::fs::write(&files[0], format!("another key\0{}", "garbage")).unwrap();
        assert_eq!(ptx(spec, "sm_90", Some(1)).unwrap(), fresh);
        assert!(std::fs::read_to_string(&files[0]).unwrap().ends_with(&fresh));
        match old {
            Some(v) => std::env::set_var("XDG_CACHE_HOME", v),
            None => std::env::remove_var("XDG_CACHE_HOME"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
