#!/usr/bin/env bash
# gpu.sh AIR_RUN AIRC SOFT_RT PROGRAM OUT_ARG [TIMEOUT] - a program's generated GPU
# kernels run end to end and compared with the CPU driver, bit for bit:
#   1. air-run PROGRAM --device hsa:0 against the software HSA runtime
#      (AIR_HSA_RUNTIME=SOFT_RT): kernels generated on the way, artifact, code
#      objects loaded, AQL dispatches, every workgroup run by the host workgroup
#      simulator (the same kernels built for the host);
#   2. airc compile --target gfx90a, then air-run of that .airbin on the same;
#   3. air-run PROGRAM --device cpu;
# with the same --random seed, writing argument OUT_ARG. Also: the real
# libhsa-runtime64 (no GPU here) fails at opening, naming HSA/the GPU.
air_run=$1 airc=$2 soft=$3 prog=$4 out_arg=$5 timeout_s=${6:-60}
label=$(basename "$prog")
. "$(dirname "$0")/lib.sh"

export SOFT_HSA_PROGRAM=$prog SOFT_HSA_TIMEOUT=$timeout_s
AIR_HSA_RUNTIME=$soft run 0 "$air_run" "$prog" --device hsa:0 --random=7 -o "$out_arg=gpu.npy"
run 0 "$airc" compile "$prog" --target gfx90a -o k.airbin
AIR_HSA_RUNTIME=$soft run 0 "$air_run" k.airbin --device hsa:0 --random=7 -o "$out_arg=gpu2.npy"
run 0 "$air_run" "$prog" --device cpu --random=7 -o "$out_arg=cpu.npy"
cmp -s gpu.npy cpu.npy || fail "GPU (soft HSA, simulated) and CPU results differ"
cmp -s gpu2.npy cpu.npy || fail "the .airbin's GPU results differ from the CPU's"
# An artifact for another GPU is refused by name, not run.
run 0 "$airc" compile "$prog" --target gfx1100 -o r.airbin
AIR_HSA_RUNTIME=$soft run 1 "$air_run" r.airbin --device hsa:0 --random=7
err_has "for target \"gfx1100\"; this device runs \"gfx90a\""
# Without the software runtime: the machine's own (no GPU): exit 1, no hang.
if [ -z "${AIR_HSA_RUNTIME:-}" ]; then
  run 1 "$air_run" "$prog" --device hsa:0 --random
  err_has "HSA|GPU"
fi
echo "ok: $label"
