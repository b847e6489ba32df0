#!/usr/bin/env bash
# The GPU Z[x] product on the device machine (bench/results/gpu-h100.md, section "gpmp_poly_mul on the GPU"),
# run from the checkout root over a packed, stripped release build in $GPU_DIR (default .gpu-gpupoly/):
#   lib/libgpmp.so.0, lib/libflint.so.24 (FLINT 3 native, stripped), lib/libmpfr.so.6,
#   tests/gpmp-lib   (cargo test --release --features gpu-tests --lib --no-run),
#   bin/gpu_poly     (cargo build --release --example gpu_poly), bin/gpmp-bench (make -C bench).
# Writes under $OUT: device.txt, tests.log (every test with "gpu" in its name), gpu_poly.md (kernel-only,
# GPU end to end, CPU), flint16.md (gpmp_poly_mul, backend AUTO, vs FLINT on all cores) and trace.err
# (GPMP_TRACE stage times of the GPU product).
set -u
. "$(dirname "$0")/device-env.sh" .gpu-gpupoly
timeout 120 $H/tests/gpmp-lib --test-threads=6 gpu > $OUT/tests.log 2>&1; echo "tests rc=$?"
grep -E "test result|panicked|FAILED|failed" $OUT/tests.log | tail -12
timeout 60 $H/bin/gpu_poly 5 2>&1 | tee $OUT/gpu_poly.md
cases=2^10:64,2^14:64,2^17:64,2^20:64,2^12:1024,2^16:256,2^10:16384,2^20x2^4:64,2^20:256,2^22:64
BENCH_WARMUP=1 timeout 100 $H/bin/gpmp-bench poly-mul --threads $(nproc) --cases "$cases" --min-time 0.2 \
  > $OUT/flint16.md 2> $OUT/flint16.err
echo "bench rc=$?"; sed -n '/### 16 threads/,$p' $OUT/flint16.md | head -20
GPMP_TRACE=1 GPMP_BACKEND=gpu BENCH_WARMUP=1 timeout 30 $H/bin/gpmp-bench poly-mul --threads $(nproc) \
  --cases 2^22:64,2^12:1024,2^10:16384 --min-time 0.01 --max-runs 1 > $OUT/trace.md 2> $OUT/trace.err
grep GPMP_TRACE $OUT/trace.err | tail -6
