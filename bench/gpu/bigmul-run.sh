#!/usr/bin/env bash
# Device run of gpu::bigmul (gpmp_mpz_mul on the GPU, issue 5), from the checkout root over a packed
# release build in $GPU_DIR (default .gpu-bigmul/):
#   lib/   libgpmp.so.0, libflint.so.24 (FLINT 3 native, stripped), libmpfr.so.6
#   tests/ gpmp-lib   (cargo test --release --features gpu-tests --lib --no-run)
#   bin/   gpu_bigmul (cargo build --release --example gpu_bigmul), mpz-flint (bench/mpz_flint.c)
# The bigmul and int::mul tests, then kernel-only and limb-to-limb times (gpu_bigmul, with the
# GPMP_TRACE stage times), then gpmp_mpz_mul (GPU backend on 16 and 2 host threads; GPU, CPU and AUTO
# backends at small sizes for AUTO's crossover) against
# FLINT fmpz_mul at 1 thread. Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh" .gpu-bigmul
t timeout 65 $H/tests/gpmp-lib bigmul int::mul --test-threads=4 > $OUT/tests.log 2>&1
grep -E "^test |test result|panicked|FAILED|failed" $OUT/tests.log | tail -20
t env GPMP_TRACE=1 timeout 35 $H/bin/gpu_bigmul 16 18 20 22 24 26 28 30 > $OUT/gpu_bigmul.md 2> $OUT/gpu_bigmul.trace
cat $OUT/gpu_bigmul.md; grep -E "1048576 x|16777216 x" -A1 $OUT/gpu_bigmul.trace | tail -8
M="BENCH_THREADS=$(nproc) BENCH_WARMUP=1"
t env $M GPMP_BACKEND=gpu timeout 35 $H/bin/mpz-flint 16 3 20 24 26 > $OUT/mpz-gpu.md 2>&1; cat $OUT/mpz-gpu.md
t env $M GPMP_BACKEND=gpu BENCH_SKIP_GMP=1 timeout 35 $H/bin/mpz-flint 16 2 28 30 > $OUT/mpz-gpu-big.md 2>&1; cat $OUT/mpz-gpu-big.md
t env BENCH_THREADS=2 BENCH_WARMUP=1 GPMP_BACKEND=gpu BENCH_SKIP_GMP=1 timeout 25 $H/bin/mpz-flint 2 2 26 30 > $OUT/mpz-gpu-2t.md 2>&1; cat $OUT/mpz-gpu-2t.md
for b in gpu cpu auto; do
  t env $M GPMP_BACKEND=$b BENCH_SKIP_GMP=1 timeout 15 $H/bin/mpz-flint 16 5 16 17 18 19 20 22 > $OUT/mpz-small-$b.md 2>&1; cat $OUT/mpz-small-$b.md
done
