//! gpmp's log: silent by default; `GPMP_LOG=error|warn|info|debug|trace` (or `gpmp_set_log_level`)
//! turns it on, and `gpmp_set_log_handler` sends the messages to the host instead of stderr.
//!
//! Messages come from any of gpmp's threads (the calling thread, workers, GPU stages); the handler
//! is called with a lock held, so never twice at once, and must not call back into gpmp's log.
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

/// Severity, as `GPMP_LOG` names it; a level shows its own messages and the more severe ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Level {
    Error = 1,
    Warn = 2,
    Info = 3,
    Debug = 4,
    Trace = 5,
}

impl Level {
    /// The name `GPMP_LOG` uses.
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Info => "info",
            Level::Debug => "debug",
            Level::Trace => "trace",
        }
    }

    fn parse(s: &str) -> Option<u8> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "" | "off" | "0" | "none" => 0,
            "error" | "1" => 1,
            "warn" | "warning" | "2" => 2,
            "info" | "3" => 3,
            "debug" | "4" => 4,
            "trace" | "5" => 5,
            _ => return None,
        })
    }
}

/// 0 = off, 1..=5 = the most verbose level shown; `UNSET` until read from the environment.
static LEVEL: AtomicU8 = AtomicU8::new(UNSET);
const UNSET: u8 = u8::MAX;

/// `gpmp_log_fn`: `level` 1 (error) to 5 (trace), `message` a NUL-terminated line valid during the call.
pub type LogFn = unsafe extern "C" fn(data: *mut c_void, level: c_int, message: *const c_char);

struct Handler(LogFn, *mut c_void);
// SAFETY: the host's handler and its data are used under the lock only (see the module doc).
unsafe impl Send for Handler {}

static HANDLER: Mutex<Option<Handler>> = Mutex::new(None);

fn max_level() -> u8 {
    match LEVEL.load(Ordering::Relaxed) {
        UNSET => {
            let l = std::env::var("GPMP_LOG").ok().and_then(|s| Level::parse(&s)).unwrap_or(0);
            let _ = LEVEL.compare_exchange(UNSET, l, Ordering::Relaxed, Ordering::Relaxed);
            LEVEL.load(Ordering::Relaxed)
        }
        l => l,
    }
}

/// Whether messages of `level` are shown (cheap: one atomic load).
pub fn enabled(level: Level) -> bool {
    level as u8 <= max_level()
}

/// Shows messages up to `level` (`None`: none).
pub fn set_level(level: Option<Level>) {
    LEVEL.store(level.map_or(0, |l| l as u8), Ordering::Relaxed);
}

/// The current level (`None`: off).
pub fn level() -> Option<Level> {
    [Level::Error, Level::Warn, Level::Info, Level::Debug, Level::Trace].into_iter().find(|&l| l as u8 == max_level())
}

/// Sends messages to `h` (`None`: back to stderr).
pub fn set_handler(h: Option<(LogFn, *mut c_void)>) {
    *HANDLER.lock().unwrap_or_else(|e| e.into_inner()) = h.map(|(f, d)| Handler(f, d));
}

/// Logs the message `msg()` (built only when `level` is shown), naming its source `what`.
pub fn log(level: Level, what: &str, msg: impl FnOnce() -> String) {
    if !enabled(level) {
        return;
    }
    let line = format!("{what}: {}", msg());
    let h = HANDLER.lock().unwrap_or_else(|e| e.into_inner());
    match &*h {
        Some(Handler(f, data)) => {
            let c = CString::new(line.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the host's handler with its own data, under the lock.
            unsafe { f(*data, level as c_int, c.as_ptr()) };
        }
        None => eprintln!("gpmp {}: {line}", level.name()),
    }
}

/// The stage times of one call, logged at `Debug` when dropped: `what: detail: stage1 x ms, stage2 y
/// ms, ...`. [`Stages::mark`] closes the stage begun at the previous mark (or at creation). With the
/// debug level off nothing is measured and [`Stages::on`] is false (a caller that waits for device
/// work only to time it asks `on` first).
pub struct Stages {
    what: &'static str,
    detail: String,
    last: Option<std::time::Instant>,
    parts: Vec<(&'static str, f64)>,
}

impl Stages {
    /// Starts timing the call `what` (`detail()`, e.g. its sizes, built only when shown).
    pub fn new(what: &'static str, detail: impl FnOnce() -> String) -> Stages {
        let on = enabled(Level::Debug);
        Stages { what, detail: if on { detail() } else { String::new() }, last: on.then(std::time::Instant::now), parts: Vec::new() }
    }

    /// Whether the stages are timed.
    pub fn on(&self) -> bool {
        self.last.is_some()
    }

    /// Ends the current stage, naming it `stage` (times of repeated names add up).
    pub fn mark(&mut self, stage: &'static str) {
        if let Some(t) = self.last {
            let now = std::time::Instant::now();
            let ms = now.duration_since(t).as_secs_f64() * 1e3;
            match self.parts.iter_mut().find(|p| p.0 == stage) {
                Some(p) => p.1 += ms,
                None => self.parts.push((stage, ms)),
            }
            self.last = Some(now);
        }
    }

    /// The log line, once the stages are marked.
    fn line(&self) -> String {
        let parts: Vec<String> = self.parts.iter().map(|(s, ms)| format!("{s} {ms:.3} ms")).collect();
        format!("{}: {}", self.detail, parts.join(", "))
    }
}

impl Drop for Stages {
    fn drop(&mut self) {
        if self.on() {
            log(Level::Debug, self.what, || self.line());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_order() {
        assert_eq!(Level::parse("DEBUG"), Some(4));
        assert_eq!(Level::parse(" warn "), Some(2));
        assert_eq!(Level::parse("off"), Some(0));
        assert_eq!(Level::parse("loud"), None);
        assert!(Level::Error < Level::Trace);
    }

    #[test]
    fn stages_add_up_by_name_and_measure_nothing_when_off() {
        let mut s = Stages { what: "t", detail: "n = 4".into(), last: Some(std::time::Instant::now()), parts: Vec::new() };
        s.mark("upload");
        s.mark("kernels");
        s.mark("upload");
        assert_eq!(s.parts.iter().map(|p| p.0).collect::<Vec<_>>(), ["upload", "kernels"]);
        assert!(s.parts.iter().all(|p| p.1 >= 0.0));
        let l = s.line();
        assert!(l.starts_with("n = 4: upload ") && l.contains(" ms, kernels ") && l.ends_with(" ms"), "{l}");
        s.last = None;
        let mut off = Stages { what: "t", detail: String::new(), last: None, parts: Vec::new() };
        off.mark("upload");
        assert!(!off.on() && off.parts.is_empty());
    }
}
