#!/usr/bin/env bash
# gpmp_zvec products with the wide chunked kernel zv_mulw (issue 5, helper zmul5), one call over a
# packed release build in $GPU_DIR (default .gpu-zmul5/: tests/gpmp-lib built with --features
# gpu-tests, bin/gpu_zvec): the zvec tests (GPU vs CPU vs GMP), the device-resident table with the
# default kernels, the product rows under each variant (env knobs of src/gpu/zvec.rs:
# GPMP_ZVEC_WIDE=100000 is the former zv_mulc path, GPMP_ZVEC_WIDE=17 the wide kernel from 2048
# bits on, GPMP_ZVEC_PF, GPMP_ZVEC_MINBW, GPMP_ZVEC_CW), then Nsight Compute on the products (clocks
# not locked; $NCU_ENV picks the variants, one profile each, e.g. "- GPMP_ZVEC_ZWU=4"; "-" the defaults).
# TESTS=0 skips the tests, $TEST_ENV is the tests' variant; steps after $BUDGET_S seconds (default
# 200) are skipped. Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh" .gpu-zmul5
start=$(date +%s)
left() { [ $(( $(date +%s) - start )) -lt ${BUDGET_S:-200} ]; }
lib=$(ls $H/tests/gpmp-* | head -1)
if [ "${TESTS:-1}" != 0 ]; then
  te=${TEST_ENV:-}
  t env ${te//,/ } timeout ${TEST_S:-70} $lib zvec --test-threads=4 > $OUT/tests.log 2>&1
  grep -E "^test |test result|panicked" $OUT/tests.log | tail -14
fi
t timeout 40 $H/bin/gpu_zvec ${RESIDENT:-resident} 10 20 > $OUT/zvec.md 2>&1; grep -E "^\||device" $OUT/zvec.md
for v in ${VARIANTS:-"GPMP_ZVEC_WIDE=100000" "GPMP_ZVEC_WIDE=17" "GPMP_ZVEC_PF=1" "GPMP_ZVEC_PF=3"}; do
  left || { echo "skipped $v"; continue; }
  echo "== $v" >> $OUT/variants.md
  t env ${v//,/ } timeout 25 $H/bin/gpu_zvec mul 10 20 >> $OUT/variants.md 2>&1
  echo "$v"; grep -E "\| mul \|" $OUT/variants.md | tail -4 | cut -d'|' -f2-5
done
ncu=$(command -v ncu || find /usr/local /opt -name ncu -type f 2>/dev/null | head -1)
for ne in ${NCU_ENV:--}; do  # "-": the defaults
  [ -n "$ncu" ] && left || break
  ne=${ne#-}
  echo "== ncu ${ne:-defaults}" | tee -a $OUT/ncu.txt
  t env ${ne//,/ } timeout ${NCU_S:-50} $ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --metrics lts__t_sector_hit_rate.pct,dram__bytes.sum -k regex:zv_mul[cw] $H/bin/gpu_zvec kernels > $OUT/ncu1.txt 2>&1
  cat $OUT/ncu1.txt >> $OUT/ncu.txt
  grep -E "zv_|Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Th|DRAM Through|Memory Through|Warp Cycles Per Issued|lts__t_sector_hit|dram__bytes|Shared Memory Config|Block Limit" $OUT/ncu1.txt | head -70
done
rm -f $OUT/ncu1.txt
echo "total $(( $(date +%s) - start ))s"
