//! Stopping a running call, and reporting its progress.
//!
//! - The calling thread may install an interrupt handler and a progress handler ([`set_interrupt_handler`],
//!   [`set_progress_handler`]); they are called only on that thread, while [`crate::runtime::install`]
//!   waits for the work, at least every [`POLL`] (and every progress interval).
//! - [`interrupt_all`] stops every running call; it only increments an atomic counter, so it is
//!   async-signal-safe (a host may call it from a SIGINT handler).
//! - The work sees one atomic flag per call: serial code calls [`checkpoint`]; a parallel loop takes
//!   [`current`] before it starts and calls [`Call::check`] inside (rayon may run the loop's pieces on
//!   threads that do not know the call). Both return [`Error::Interrupted`] once the call is stopped;
//!   the error travels up like any other, so the outputs are not written and every buffer is freed.
//!   Checkpoints are placed at least every few milliseconds of work, so a stop takes effect well within
//!   100 ms.
use crate::{Error, Result};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often the calling thread asks its interrupt handler.
pub const POLL: Duration = Duration::from_millis(20);

/// `gpmp_interrupt_fn`: nonzero means "stop".
pub type InterruptFn = unsafe extern "C" fn(data: *mut c_void) -> c_int;
/// `gpmp_progress_fn`: `fraction` of the call's work done, in \[0, 1\].
pub type ProgressFn = unsafe extern "C" fn(data: *mut c_void, fraction: f64);

/// Incremented by [`interrupt_all`]; a call started at epoch e is stopped once the counter differs.
static EPOCH: AtomicU64 = AtomicU64::new(0);

/// Stops every running call (their checkpoints fail from now on). Async-signal-safe.
pub fn interrupt_all() {
    EPOCH.fetch_add(1, Ordering::SeqCst);
}

#[derive(Clone, Copy)]
struct Handler<F> {
    f: F,
    data: *mut c_void,
}

thread_local! {
    static INTERRUPT: Cell<Option<Handler<InterruptFn>>> = const { Cell::new(None) };
    static PROGRESS: Cell<Option<(Handler<ProgressFn>, Duration)>> = const { Cell::new(None) };
    static CURRENT: RefCell<Option<Arc<Call>>> = const { RefCell::new(None) };
}

/// Installs (or with `None` removes) this thread's interrupt handler.
pub fn set_interrupt_handler(h: Option<(InterruptFn, *mut c_void)>) {
    INTERRUPT.with(|c| c.set(h.map(|(f, data)| Handler { f, data })));
}

/// Installs (or with `None` removes) this thread's progress handler, called about every `interval`
/// (at least every 10 ms apart) while a call of this thread runs.
pub fn set_progress_handler(h: Option<(ProgressFn, *mut c_void)>, interval: Duration) {
    let interval = interval.max(Duration::from_millis(10));
    PROGRESS.with(|c| c.set(h.map(|(f, data)| (Handler { f, data }, interval))));
}

/// One running call: its stop flag, the epoch it started in, and its progress.
pub struct Call {
    stopped: AtomicBool,
    epoch: u64,
    progress: AtomicU64,
}

impl Call {
    fn new() -> Self {
        Call { stopped: AtomicBool::new(false), epoch: EPOCH.load(Ordering::SeqCst), progress: AtomicU64::new(0f64.to_bits()) }
    }

    /// Whether the call has been asked to stop.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed) || EPOCH.load(Ordering::Relaxed) != self.epoch
    }

    /// `Err(Interrupted)` once the call has been asked to stop.
    pub fn check(&self) -> Result<()> {
        if self.is_stopped() {
            return Err(Error::Interrupted("interrupted".into()));
        }
        Ok(())
    }

    /// Records that `fraction` (clamped to \[0, 1\]) of the work is done.
    pub fn set_progress(&self, fraction: f64) {
        self.progress.store(fraction.clamp(0.0, 1.0).to_bits(), Ordering::Relaxed);
    }

    fn progress(&self) -> f64 {
        f64::from_bits(self.progress.load(Ordering::Relaxed))
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }
}

/// A handle on the running call, to check inside parallel loops (a call that cannot be stopped
/// when code runs outside any call).
#[derive(Clone)]
pub struct Current(Option<Arc<Call>>);

impl Current {
    /// Whether the call has been asked to stop (parallel loops skip their remaining pieces, then
    /// [`Current::check`] after the loop reports it).
    pub fn is_stopped(&self) -> bool {
        self.0.as_deref().is_some_and(Call::is_stopped)
    }

    /// `Err(Interrupted)` once the call has been asked to stop.
    pub fn check(&self) -> Result<()> {
        self.0.as_deref().map_or(Ok(()), Call::check)
    }

    /// Records the call's progress (see [`Call::set_progress`]).
    pub fn set_progress(&self, fraction: f64) {
        if let Some(c) = &self.0 {
            c.set_progress(fraction);
        }
    }

    /// Runs `f` with this call as the thread's current one (for work handed to other threads).
    pub fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        let prev = CURRENT.with(|c| c.replace(self.0.clone()));
        struct Restore(Option<Arc<Call>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let prev = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = prev);
            }
        }
        let _restore = Restore(prev);
        f()
    }
}

/// The call this thread is working for.
pub fn current() -> Current {
    Current(CURRENT.with(|c| c.borrow().clone()))
}

/// `Err(Interrupted)` once the call this thread works for has been asked to stop.
pub fn checkpoint() -> Result<()> {
    CURRENT.with(|c| c.borrow().as_deref().map_or(Ok(()), Call::check))
}

/// Test hook: stops the call this thread works for (as its handler would).
#[cfg(test)]
pub(crate) fn stop_current() {
    CURRENT.with(|c| {
        if let Some(c) = c.borrow().as_deref() {
            c.stop()
        }
    })
}

/// Records the progress of the call this thread works for.
pub fn progress(fraction: f64) {
    CURRENT.with(|c| {
        if let Some(c) = c.borrow().as_deref() {
            c.set_progress(fraction)
        }
    })
}

/// Runs `f` as one call of this thread (the C layer's guard does this for every export): checkpoints
/// reached on this thread, and in the work [`crate::runtime::install`] hands to gpmp's pool, see
/// one stop flag. Inside a running call, `f` joins it.
pub fn call<R>(f: impl FnOnce() -> R) -> R {
    if CURRENT.with(|c| c.borrow().is_some()) {
        return f();
    }
    Current(Some(Arc::new(Call::new()))).enter(f)
}

/// Runs `work`, polling this thread's handlers meanwhile when it has any (then `work` runs on a
/// scoped thread of its own while this thread waits in steps of at most [`POLL`]).
pub(crate) fn wait<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    let cur = current();
    let Some(call) = cur.0.clone() else { return work() };
    let interrupt = INTERRUPT.with(|c| c.get());
    let progress = PROGRESS.with(|c| c.get());
    if interrupt.is_none() && progress.is_none() {
        return work();
    }
    let tick = match (interrupt, progress) {
        (Some(_), Some((_, iv))) => iv.min(POLL),
        (None, Some((_, iv))) => iv,
        _ => POLL,
    };
    let mut last_progress = std::time::Instant::now();
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let worker = s.spawn(move || {
            let r = work();
            let _ = tx.send(());
            r
        });
        loop {
            match rx.recv_timeout(tick) {
                Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            if let Some(h) = interrupt {
                // SAFETY: the host's handler, called on the thread that installed it.
                if unsafe { (h.f)(h.data) } != 0 {
                    call.stop();
                }
            }
            if let Some((h, iv)) = progress {
                if last_progress.elapsed() >= iv {
                    last_progress = std::time::Instant::now();
                    // SAFETY: as above.
                    unsafe { (h.f)(h.data, call.progress()) };
                }
            }
        }
        match worker.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_see_only_their_own_call() {
        assert!(checkpoint().is_ok(), "outside any call nothing is stopped");
        let r = call(|| {
            let inside = checkpoint();
            let c = current();
            c.0.as_deref().unwrap().stop();
            let nested = call(checkpoint);
            (inside, checkpoint(), c.check(), nested)
        });
        assert_eq!(r.0, Ok(()));
        assert!(matches!(r.1, Err(Error::Interrupted(_))));
        assert!(matches!(r.2, Err(Error::Interrupted(_))));
        assert!(matches!(r.3, Err(Error::Interrupted(_))), "a nested call is part of its outer call");
        assert!(checkpoint().is_ok(), "the stop ends with its call");
        assert_eq!(call(checkpoint), Ok(()), "the next call runs");
    }

    unsafe extern "C" fn stop_after(data: *mut c_void) -> c_int {
        let n = &*(data as *const AtomicU64);
        (n.fetch_add(1, Ordering::SeqCst) >= 2) as c_int
    }

    #[test]
    fn the_handler_runs_on_the_calling_thread_and_stops_the_work() {
        let polls = AtomicU64::new(0);
        set_interrupt_handler(Some((stop_after, &polls as *const AtomicU64 as *mut c_void)));
        let me = std::thread::current().id();
        let t0 = std::time::Instant::now();
        let r = call(|| {
            let cur = current();
            wait(move || {
                assert_ne!(std::thread::current().id(), me, "the work runs while this thread polls");
                while cur.check().is_ok() && t0.elapsed() < Duration::from_secs(10) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                cur.check()
            })
        });
        set_interrupt_handler(None);
        assert!(matches!(r, Err(Error::Interrupted(_))));
        assert!(polls.load(Ordering::SeqCst) >= 3);
        assert!(t0.elapsed() < Duration::from_secs(5), "stopped after three polls, not at the 10 s bound");
    }
}
