#!/usr/bin/env bash
# gpmp_zvec products on the device (issue 5, helper zmul), one call over a packed release build in
# $GPU_DIR (default .gpu-zmul/: tests/gpmp-* built with --features gpu-tests, bin/gpu_zvec):
# the zvec tests (GPU vs CPU vs GMP), the device-resident table with the default kernels, the
# product rows under each tuning variant (env knobs of src/gpu/zvec.rs), kernel-only durations
# from Nsight Compute (clocks not locked), then the whole gpu_zvec benchmark. Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh" .gpu-zmul
lib=$(ls $H/tests/gpmp-* | head -1)
t timeout ${TEST_S:-80} $lib zvec --test-threads=4 > $OUT/tests.log 2>&1
grep -E "^test |test result|panicked" $OUT/tests.log | tail -14
t timeout 40 $H/bin/gpu_zvec resident 10 20 > $OUT/zvec.md 2>&1; grep -E "^\|" $OUT/zvec.md
for v in "GPMP_ZVEC_MINBC=5" "GPMP_ZVEC_ACCC=1" "GPMP_ZVEC_ACC=2" "GPMP_ZVEC_MINB=6"; do
  echo "== $v" >> $OUT/variants.md
  t env $v timeout 30 $H/bin/gpu_zvec mul 10 20 >> $OUT/variants.md 2>&1
  echo "$v"; grep -E "\| mul \|" $OUT/variants.md | tail -4 | cut -d'|' -f2-5
done
ncu=$(command -v ncu || find /usr/local /opt -name ncu -type f 2>/dev/null | head -1)
if [ -n "$ncu" ]; then
  t timeout 60 $ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats -k regex:zv_ \
    $H/bin/gpu_zvec kernels > $OUT/ncu.txt 2>&1
  grep -E "zv_|Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Th|DRAM Through|Memory Through" $OUT/ncu.txt | head -80
fi
# the whole benchmark (resident table again, end to end from host integers, CPU powm)
t timeout 100 $H/bin/gpu_zvec 10 20 > $OUT/zvec-full.md 2>&1; tail -22 $OUT/zvec-full.md
