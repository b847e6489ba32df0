//! Launch parameters: from the compiled kernel's resources and the device's occupancy limits
//! (`cuFuncGetAttribute`, `cuOccupancyMaxActiveBlocksPerMultiprocessor`, i.e. formula (4.1) of
//! KLARAPTOR, Mohajerani 2021 §4.2.2), and for the hot kernels a choice among candidate
//! configurations per key. The key names the kernel, its compile options, the architecture, the
//! driver and the size class, so a decision is never reused for another build or device.
//!
//! A call never waits for a search. The choice is, in this order: a decision recorded by an earlier
//! search (in memory, and on disk in `autotune.txt` beside the kernel cache, one `key<TAB>choice`
//! line each; `GPMP_KERNEL_CACHE=off` keeps them in memory only), else the shipped default of the
//! architecture (`src/tuning.rs`, taken from the searches on that architecture). The empirical
//! search (each candidate timed by CUDA events, median of a few runs after a warm-up, the fastest
//! recorded) runs only inside [`searching`] (`gpmp_gpu_tune`) or, at first use of each key, with
//! `GPMP_AUTOTUNE=on`. `GPMP_AUTOTUNE=off` uses the shipped defaults only (no search, recorded
//! decisions ignored).
use super::device::Device;
use super::kernels::Spec;
use super::{compile, driver_err};
use crate::Result;
use cudarc::driver::{CudaFunction, CudaStream};
use std::cell::Cell;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// What the driver reports for one kernel at one launch shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resources {
    /// Registers a thread.
    pub regs: i32,
    /// Local memory (spills, stack) a thread, in bytes.
    pub local_bytes: i32,
    /// Resident blocks a multiprocessor at `threads` threads and the given dynamic shared memory.
    pub blocks_per_sm: u32,
    /// Resident warps a multiprocessor over the device's maximum (the occupancy).
    pub occupancy: f64,
}

/// The resources of `func` launched with `threads` threads a block and `shared` bytes of dynamic
/// shared memory; `blocks_per_sm` = 0 means the launch cannot run on this device.
pub fn resources(dev: &Device, func: &CudaFunction, threads: u32, shared: usize) -> Result<Resources> {
    let regs = func.num_regs().map_err(|e| driver_err("cuFuncGetAttribute", e))?;
    let local_bytes = func.local_size_bytes().map_err(|e| driver_err("cuFuncGetAttribute", e))?;
    let blocks_per_sm = func
        .occupancy_max_active_blocks_per_multiprocessor(threads, shared, None)
        .map_err(|e| driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
    let max_threads = dev
        .ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        .map_err(|e| driver_err("cuDeviceGetAttribute", e))?;
    let occupancy = (blocks_per_sm * threads) as f64 / max_threads.max(1) as f64;
    Ok(Resources { regs, local_bytes, blocks_per_sm, occupancy })
}

/// What `GPMP_AUTOTUNE` asks for, with [`searching`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `off`: the shipped defaults only.
    Off,
    /// Unset (or anything else): recorded decisions, else the shipped defaults; no search.
    Recorded,
    /// `on`, or inside [`searching`]: recorded decisions, else a search at first use of the key.
    Search,
}

thread_local! {
    /// Set by [`searching`] on its thread.
    static SEARCHING: Cell<bool> = const { Cell::new(false) };
}

/// The mode for choices made on this thread now.
pub fn mode() -> Mode {
    match std::env::var("GPMP_AUTOTUNE").map(|v| v.trim().to_ascii_lowercase()) {
        Ok(v) if v == "off" => Mode::Off,
        _ if SEARCHING.with(Cell::get) => Mode::Search,
        Ok(v) if v == "on" => Mode::Search,
        _ => Mode::Recorded,
    }
}

/// Runs `f` with the search on for the choices it makes on this thread (unless `GPMP_AUTOTUNE=off`).
pub fn searching<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            SEARCHING.with(|s| s.set(self.0));
        }
    }
    let _reset = Reset(SEARCHING.with(|s| s.replace(true)));
    f()
}

/// The decisions made so far in this process, and those read from disk.
fn cache() -> &'static Mutex<HashMap<String, String>> {
    static C: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    C.get_or_init(|| {
        let mut m = HashMap::new();
        if let Some(text) = disk_file().and_then(|f| std::fs::read_to_string(f).ok()) {
            for line in text.lines() {
                if let Some((k, v)) = line.split_once('\t') {
                    m.insert(k.to_string(), v.to_string());
                }
            }
        }
        Mutex::new(m)
    })
}

fn disk_file() -> Option<std::path::PathBuf> {
    compile::cache_dir().map(|d| d.join("autotune.txt"))
}

/// The key of a decision: `what` (kernel and size class) with the device's architecture and
/// driver and the compile options of the kernel's module. Tabs and newlines become spaces.
pub fn key(dev: &Device, spec: &Spec, what: &str) -> String {
    let opts = compile::options(spec, &dev.arch()).map(|o| o.join(" ")).unwrap_or_default();
    format!("{what} | {} | {opts} | driver {}", dev.name, dev.driver_version).replace(['\t', '\n'], " ")
}

/// The index among `labels` (candidates for `key`) to use: the recorded decision, else `shipped`
/// (the architecture's default), else, when searching (see [`mode`]), the fastest by `time`
/// (milliseconds; a candidate whose timing fails is skipped), then recorded. `shipped` when every
/// timing fails or the running call is stopped (then nothing is recorded, so a later search tries
/// again).
pub fn choose(key: &str, labels: &[String], shipped: usize, mut time: impl FnMut(usize) -> Result<f64>) -> usize {
    let shipped = shipped.min(labels.len().saturating_sub(1));
    let mode = mode();
    if labels.len() <= 1 || mode == Mode::Off {
        return shipped;
    }
    if let Some(i) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(key).and_then(|l| labels.iter().position(|x| x == l)) {
        return i;
    }
    if mode == Mode::Recorded {
        return shipped;
    }
    let mut best: Option<(f64, usize)> = None;
    for i in 0..labels.len() {
        if crate::interrupt::checkpoint().is_err() {
            // A stopped call: the default now, nothing recorded (the call returns at its next checkpoint).
            return shipped;
        }
        if let Ok(ms) = time(i) {
            if ms.is_finite() && best.is_none_or(|(b, _)| ms < b) {
                best = Some((ms, i));
            }
        }
    }
    let Some((_, i)) = best else { return shipped };
    cache().lock().unwrap_or_else(|e| e.into_inner()).insert(key.to_string(), labels[i].clone());
    if let Some(f) = disk_file() {
        // Best effort: one short appended line (O_APPEND keeps concurrent writers' lines whole).
        let _ = f.parent().map(std::fs::create_dir_all);
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(&f) {
            let _ = file.write_all(format!("{key}\t{}\n", labels[i]).as_bytes());
        }
    }
    i
}

/// The median over `reps` runs of `f` (after one warm-up run) in milliseconds, timed by events on
/// `stream`.
pub fn time_ms(stream: &Arc<CudaStream>, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    let ev = || {
        stream.context().new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| driver_err("cuEventCreate", e))
    };
    let (start, end) = (ev()?, ev()?);
    let mut times = Vec::with_capacity(reps);
    for i in 0..=reps {
        start.record(stream).map_err(|e| driver_err("cuEventRecord", e))?;
        f()?;
        end.record(stream).map_err(|e| driver_err("cuEventRecord", e))?;
        end.synchronize().map_err(|e| driver_err("cuEventSynchronize", e))?;
        if i > 0 {
            times.push(start.elapsed_ms(&end).map_err(|e| driver_err("cuEventElapsedTime", e))? as f64);
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times.get(times.len() / 2).copied().unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a search the shipped default is used; a search picks the fastest candidate once,
    /// records it, and the record is then served without timing (but not under `off`).
    #[test]
    fn the_fastest_candidate_is_chosen_once() {
        if mode() == Mode::Off {
            eprintln!("skipped: GPMP_AUTOTUNE=off");
            return;
        }
        let labels: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let key = format!("test key {}", std::process::id());
        let ms = [3.0, 1.0, 2.0];
        if mode() == Mode::Recorded {
            assert_eq!(choose(&key, &labels, 2, |_| panic!("timed without a search")), 2);
        }
        let mut calls = 0;
        let picked = searching(|| {
            choose(&key, &labels, 2, |i| {
                calls += 1;
                Ok(ms[i])
            })
        });
        assert_eq!((picked, calls), (1, 3));
        assert_eq!(choose(&key, &labels, 2, |_| panic!("timed again")), 1);
        assert_eq!(searching(|| choose(&key, &labels, 0, |_| panic!("timed again"))), 1);
        // failing timings are skipped; all failing gives the shipped default and records nothing
        let key2 = format!("{key} 2");
        assert_eq!(searching(|| choose(&key2, &labels, 0, |i| if i == 2 { Ok(1.0) } else { Err(crate::Error::Cuda("x".into())) })), 2);
        let key3 = format!("{key} 3");
        assert_eq!(searching(|| choose(&key3, &labels, 1, |_| Err(crate::Error::Cuda("x".into())))), 1);
        assert!(!cache().lock().unwrap().contains_key(&key3));
        // a single candidate, and a shipped index out of range
        assert_eq!(searching(|| choose(&key3, &labels[..1], 5, |_| panic!("nothing to time"))), 0);
        assert!(!SEARCHING.with(Cell::get), "searching resets its flag");
    }
}
