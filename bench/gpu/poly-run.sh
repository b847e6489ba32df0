#!/usr/bin/env bash
# Runs on the device machine from the checkout root, over a packed release build copied to $GPU_DIR
# (default .gpu-gpupoly/): lib/ (libgpmp.so.0, libflint.so.24 stripped), tests/gpmp-* (lib tests,
# --features gpu-tests), bin/gpu_poly, bin/gpmp-bench. Writes under $OUT: device.txt, tests.log (the
# GPU Z[x] product's tests), gpu_poly.md (kernel-only, GPU end to end, CPU; bench/gpu_poly.rs) and
# flint16.md (gpmp-bench poly-mul, gpmp on the GPU backend vs FLINT 3 native on all host cores).
set -u
H=$PWD/${GPU_DIR:-.gpu-gpupoly}
nv=$(find /usr /opt -name 'libnvrtc.so.13' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$H/lib:$(dirname "${nv:-/none}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XDG_CACHE_HOME=/tmp/gpmp-cache
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "nvrtc: $nv"; echo "cores: $(nproc)"; grep -o -m1 avx512ifma /proc/cpuinfo; grep -m1 "model name" /proc/cpuinfo
} > $OUT/device.txt 2>&1
cat $OUT/device.txt
T=${TESTS:-multimod}
for t in "$H"/tests/gpmp-*; do timeout 150 "$t" --test-threads=4 $T > $OUT/tests.log 2>&1; echo "tests rc=$?"; done
grep -E "^test |test result|panicked|FAILED" $OUT/tests.log | tail -30
timeout ${POLY_TIMEOUT:-60} "$H"/bin/gpu_poly ${POLY_REPS:-5} ${POLY_CASES:-} 2>&1 | tee $OUT/gpu_poly.md
cases=${FLINT_CASES:-2^10:64,2^14:64,2^17:64,2^20:64,2^12:1024,2^16:256,2^10:16384,2^20x2^4:64,2^20:256,2^22:64}
GPMP_BACKEND=gpu BENCH_WARMUP=1 timeout ${FLINT_TIMEOUT:-100} "$H"/bin/gpmp-bench poly-mul --threads $(nproc) \
  --cases "$cases" --min-time 0.2 > $OUT/flint16.md 2> $OUT/flint16.err
echo "gpmp-bench rc=$?"; cat $OUT/flint16.md; tail -5 $OUT/flint16.err
