#!/usr/bin/env bash
# Builds and runs bench/gpu/gfpf_host_check.cpp (needs g++ and gmp.h) for P3, P4, k = 2, 4, r = 6, k = 2.
set -eu
cd "$(dirname "$0")"
out=${TMPDIR:-/tmp}/gfpf_host_check
fail=0
for rk in 9223372054034644992:8 4611686087146864640:16 9223372036854775808+9007199254740992:2 18446744073709551616-1125899906842624:4 6:2; do
  read -r r k < <(python3 -c "import sys; r, k = sys.argv[1].split(':'); r = eval(r); print(r, k)" "$rk")
  defs=$(python3 -c "
r, k = $r, $k
sh = 64 - r.bit_length(); d = r << sh; v = ((1 << 128) - 1) // d - (1 << 64)
print(f'-DKD={k} -DLOGK={k.bit_length()-1} -DR_HI={r >> 32}u -DR_LO={r & 0xffffffff}u -DV_HI={v >> 32}u -DV_LO={v & 0xffffffff}u -DSH={sh}')")
  g++ -O2 -std=c++17 -w -DGPMP_HOST_CHECK $defs gfpf_host_check.cpp -lgmp -o "$out"
  "$out" || fail=1
done
exit $fail
