#!/usr/bin/env bash
# gpmp_zvec products at 4096 bits with prefetching (issue 5, helper zmul4k), one call over a packed
# release build in $GPU_DIR (default .gpu-zmul4k/: tests/gpmp-lib built with --features gpu-tests,
# bin/gpu_zvec): the zvec tests (GPU vs CPU vs GMP), the device-resident table with the default
# kernels, the product rows under each variant of the chunked product (env knobs of
# src/gpu/zvec.rs: GPMP_ZVEC_PF, GPMP_ZVEC_MINBC, GPMP_ZVEC_ACCC), then Nsight Compute on the
# chunked product (clocks not locked; env $NCU_ENV, e.g. GPMP_ZVEC_PF=4,GPMP_ZVEC_MINBC=2, picks its
# variant). TESTS=0 skips the tests; steps after $BUDGET_S seconds (default 200) are skipped.
# Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh" .gpu-zmul4k
start=$(date +%s)
left() { [ $(( $(date +%s) - start )) -lt ${BUDGET_S:-200} ]; }
lib=$(ls $H/tests/gpmp-* | head -1)
if [ "${TESTS:-1}" != 0 ]; then
  t timeout ${TEST_S:-70} $lib zvec --test-threads=4 > $OUT/tests.log 2>&1
  grep -E "^test |test result|panicked" $OUT/tests.log | tail -14
fi
t timeout 40 $H/bin/gpu_zvec ${RESIDENT:-resident} 10 20 > $OUT/zvec.md 2>&1; grep -E "^\||device" $OUT/zvec.md
for v in ${VARIANTS:-"GPMP_ZVEC_PF=1" "GPMP_ZVEC_PF=4" "GPMP_ZVEC_MINBC=3" "GPMP_ZVEC_MINBC=3,GPMP_ZVEC_PF=4" "GPMP_ZVEC_PF=3"}; do
  left || { echo "skipped $v"; continue; }
  echo "== $v" >> $OUT/variants.md
  t env ${v//,/ } timeout 25 $H/bin/gpu_zvec mul 10 20 >> $OUT/variants.md 2>&1
  echo "$v"; grep -E "\| mul \|" $OUT/variants.md | tail -4 | cut -d'|' -f2-5
done
ncu=$(command -v ncu || find /usr/local /opt -name ncu -type f 2>/dev/null | head -1)
if [ -n "$ncu" ] && left; then
  ne=${NCU_ENV:-}
  t env ${ne//,/ } timeout ${NCU_S:-50} $ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --metrics lts__t_sector_hit_rate.pct,dram__bytes.sum -k regex:zv_mulc $H/bin/gpu_zvec kernels > $OUT/ncu.txt 2>&1
  grep -E "zv_|Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Th|DRAM Through|Memory Through|Warp Cycles Per Issued|lts__t_sector_hit|dram__bytes" $OUT/ncu.txt | head -60
fi
echo "total $(( $(date +%s) - start ))s"
