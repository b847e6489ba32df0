#!/usr/bin/env bash
# gpmp_poly_mul end to end on the device machine (bench/results/gpu-h100.md, section "gpmp_poly_mul:
# host passes"), run from the checkout root over a packed, stripped release build in $GPU_DIR
# (default .gpu-polyhost/): lib/libgpmp.so.0, lib/libflint.so.24, lib/libmpfr.so.6 (FLINT 3 native),
# tests/gpmp-lib (cargo test --release --features gpu-tests --lib --no-run), bin/gpmp-bench (make -C
# bench), bin/gpu_poly. Writes under $OUT: device.txt, tests.log, flint16.md, trace.err, gpu_poly.md.
set -u
. "$(dirname "$0")/device-env.sh" .gpu-polyhost
cases=${CASES:-2^16:256,2^17:64,2^20:64,2^20x2^4:64,2^20:256,2^22:64}
t env BENCH_WARMUP=1 timeout 90 $H/bin/gpmp-bench poly-mul --threads $(nproc) --cases "$cases" --min-time 0.2 \
  > $OUT/flint16.md 2> $OUT/flint16.err
sed -n '/threads/,$p' $OUT/flint16.md | tail -12
t env GPMP_TRACE=1 BENCH_WARMUP=1 timeout 30 $H/bin/gpmp-bench poly-mul --threads $(nproc) \
  --cases 2^17:64,2^20:64,2^22:64 --min-time 0.01 --max-runs 2 > $OUT/trace.md 2> $OUT/trace.err
grep GPMP_TRACE $OUT/trace.err | tail -12
t timeout ${TEST_S:-150} $H/tests/gpmp-lib --test-threads=4 multimod ffi::mpz ffi::poly > $OUT/tests.log 2>&1
grep -E "^test |test result|panicked" $OUT/tests.log | grep -vE "\.\.\. ok$" | tail -12
grep -cE "\.\.\. ok$" $OUT/tests.log
[ -n "${GPU_POLY:-}" ] && t timeout 40 $H/bin/gpu_poly 5 > $OUT/gpu_poly.md 2>&1 && cat $OUT/gpu_poly.md
true
