#!/usr/bin/env bash
# gpu.sh AIR_RUN AIRC SOFT_RT PROGRAM OUT_ARGS [TIMEOUT] [GPU] [OTHER_GPU] - a
# program's generated GPU kernels run end to end and compared with the CPU driver,
# bit for bit:
#   1. air-run PROGRAM --device hsa:0 against the software HSA runtime
#      (AIR_HSA_RUNTIME=SOFT_RT) posing as GPU (default gfx90a): kernels generated
#      on the way, artifact, code objects loaded, AQL dispatches, every workgroup
#      run by the host workgroup simulator (the same kernels built for the host);
#   2. airc compile --target GPU, then air-run of that .airbin on the same;
#   3. air-run PROGRAM --device cpu;
# with the same --random seed, writing the arguments OUT_ARGS (comma-separated
# indices). Also: an artifact for OTHER_GPU (default gfx1100; "none" skips it) is
# refused by name, and the real libhsa-runtime64 (no GPU here) fails at opening,
# naming HSA/the GPU.
air_run=$1 airc=$2 soft=$3 prog=$4 out_args=$5 timeout_s=${6:-60} gpu=${7:-gfx90a}
other=${8:-gfx1100}
label=$(basename "$prog")
. "$(dirname "$0")/lib.sh"

# -o I=PREFIX_I.npy for every output argument.
outs() { local i; for i in ${out_args//,/ }; do printf -- '-o %s=%s_%s.npy ' "$i" "$1" "$i"; done; }

export SOFT_HSA_PROGRAM=$prog SOFT_HSA_TIMEOUT=$timeout_s SOFT_HSA_GPU=$gpu
AIR_HSA_RUNTIME=$soft run 0 "$air_run" "$prog" --device hsa:0 --random=7 $(outs gpu)
run 0 "$airc" compile "$prog" --target "$gpu" -o k.airbin
AIR_HSA_RUNTIME=$soft run 0 "$air_run" k.airbin --device hsa:0 --random=7 $(outs gpu2)
run 0 "$air_run" "$prog" --device cpu --random=7 $(outs cpu)
for i in ${out_args//,/ }; do
  cmp -s gpu_$i.npy cpu_$i.npy || fail "argument $i: GPU (soft HSA, simulated) and CPU results differ"
  cmp -s gpu2_$i.npy cpu_$i.npy || fail "argument $i: the .airbin's GPU results differ from the CPU's"
done
# An artifact for another GPU is refused by name, not run.
if [ "$other" != none ]; then
  run 0 "$airc" compile "$prog" --target "$other" -o r.airbin
  AIR_HSA_RUNTIME=$soft run 1 "$air_run" r.airbin --device hsa:0 --random=7
  err_has "for target \"$other\"; this device runs \"$gpu\""
fi
# Without the software runtime: the machine's own (no GPU): exit 1, no hang.
if [ -z "${AIR_HSA_RUNTIME:-}" ]; then
  run 1 "$air_run" "$prog" --device hsa:0 --random
  err_has "HSA|GPU"
fi
echo "ok: $label"
