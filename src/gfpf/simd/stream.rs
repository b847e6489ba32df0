//! Non-temporal stores of a staged batch: whole 64-byte lines straight to memory, no read for
//! ownership and no cache lines evicted for them.
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Non-temporal copy of a staged batch: for e < m and lane l < `lanes`, the k words at
/// stage + (8·e + l)·k go to dst[l] + e·step through streaming stores (whole 64-byte lines
/// straight to memory: no read for ownership, no cache lines evicted for them), then a store
/// fence, so later (and other threads') reads see them.
///
/// # Safety
/// stage holds 8·m·k readable words; every dst[l] + e·step (l < lanes, e < m) is 64-byte
/// aligned and writable for k words; k is a multiple of 8; AVX-512F is available.
pub(in crate::gfpf) unsafe fn stream_out(k: usize, stage: *const u64, dst: &[*mut u64; 8], lanes: usize, m: usize, step: usize) {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn run(k: usize, stage: *const u64, dst: &[*mut u64; 8], lanes: usize, m: usize, step: usize) {
        for e in 0..m {
            for (l, &d) in dst.iter().enumerate().take(lanes) {
                for w in (0..k).step_by(8) {
                    // SAFETY: caller (readable stage words, aligned writable destination).
                    unsafe {
                        let v = _mm512_loadu_si512(stage.add((8 * e + l) * k + w).cast());
                        _mm512_stream_si512(d.add(e * step + w).cast(), v);
                    }
                }
            }
        }
        _mm_sfence();
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: caller.
    unsafe {
        run(k, stage, dst, lanes, m, step)
    };
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("stream_out without AVX-512 ({k}, {stage:?}, {dst:?}, {lanes}, {m}, {step})");
}
