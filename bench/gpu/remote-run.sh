#!/usr/bin/env bash
# Runs on the device machine from the checkout root, over a packed build (../shared/gpu/pack.sh) copied to
# .gpu-helper/ (lib/ with libgpmp.so and libgmp.so.10, tests/gpmp-*, bin/gpu_ntt): the library tests, the NTT
# timing table (bench.md), the end-to-end GPU-vs-CPU table (e2e.md) and an Nsight Compute profile of one 2^24
# transform, all under $OUT.
set -u
. "$(dirname "$0")/device-env.sh" .gpu-helper
fail=0
for t in "$H"/tests/gpmp-*; do timeout 300 "$t" --test-threads=8 "$@" > $OUT/tests.log 2>&1 || fail=1; done
grep -E "^test |test result|panicked|FAILED" $OUT/tests.log | grep -v " ok$" | tail -40
echo "tests fail=$fail"
timeout 150 "$H"/bin/gpu_ntt 20 2>&1 | tee $OUT/bench.md
GPMP_BACKEND=cpu timeout 120 "$H"/bin/gpu_ntt e2e 5 2>&1 | tee $OUT/e2e.md
# Profile the three passes of one 2^24 transform (62-bit, then 32-bit words) with Nsight Compute.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  timeout 200 "$NCU" --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    -k regex:ntt_pass --launch-skip 3 --launch-count 9 "$H"/bin/gpu_ntt 1 24 > $OUT/ncu.txt 2>&1
  grep -E "ntt_pass|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit" $OUT/ncu.txt | head -80
fi
