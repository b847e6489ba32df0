# Sourced by the device scripts (bench/gpu/*-run.sh), from the checkout root on the device machine:
#   . "$(dirname "$0")/device-env.sh" .gpu-<name>
# sets H, the packed build ($GPU_DIR, else the folder named), puts its lib/ and the host's NVRTC 13 on
# the library path, keeps the kernel cache in /tmp, writes $OUT/device.txt (date, GPU, driver, host
# CPU) and defines t CMD..., which runs CMD and then prints "[CMD rc=status seconds s]".
H=$PWD/${GPU_DIR:-$1}
nv=$(find /usr /opt -name 'libnvrtc.so.13' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$H/lib:$(dirname "${nv:-/none}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XDG_CACHE_HOME=/tmp/gpmp-cache
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader;
  echo "nvrtc: $nv"; lscpu | grep -E "Model name|^CPU\(s\)"; } > $OUT/device.txt 2>&1
cat $OUT/device.txt
t() { local s=$(date +%s); "$@"; echo "[$* rc=$? $(( $(date +%s) - s ))s]"; }
