#!/usr/bin/env bash
# xrt.sh AIR_RUN FAKE_XRT PROGRAM INSTS AIRC [SANITIZED] - `air-run --device xrt:N` on this kind of
# machine: never a signal, a hang or "not built"; exit 1 and an error naming XRT or
# the NPU, with and without XILINX_XRT; the real Debian libxrt_coreutil (when
# installed) is reached only past the probe and fails cleanly; through the fake
# XRT the whole path runs (exit 0).
label=xrt
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
air_run=$1 fake=$2 program=$3 insts=$4 airc=$5 sanitized=${6:-0}
no_signal() { [ "$1" -lt 128 ] || fail "killed by signal $(($1 - 128))"; }
try() { # try RC ENV... -- ARGS...: air-run under a 60 s limit
  local want=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env -u AIR_XRT_LIBRARY -u AIR_XRT_DEVICE_DIR "${envs[@]}" timeout 60 "$air_run" "$@" >out 2>err
  local rc=$?
  no_signal $rc
  [ $rc -ne 124 ] || fail "timed out (hang)"
  [ $rc -eq "$want" ] || fail "exit code $rc, expected $want"
  ! grep -q "not built" err || fail "says not built"
}
mkdir -p dev/ xrtdir/lib empty
touch dev/accel0 xrtdir/lib/libxrt_core.so.2 final.xclbin
# 1. This machine as it is: no /dev/accel (unless it has an NPU).
if ! ls /dev/accel/accel* >/dev/null 2>&1; then
  try 1 -u XILINX_XRT -- "$program" --device xrt:0 --random
  err_has "NPU|XRT"
  try 1 XILINX_XRT=/usr -- "$program" --device xrt:0 --random
  err_has "NPU|XRT"
  try 1 XILINX_XRT=/usr -- "$program" --device xrt --random --xclbin final.xclbin
  err_has "NPU|XRT"
fi
# 2. A device node but XRT would abort: refused before xrtDeviceOpen.
try 1 -u XILINX_XRT AIR_XRT_DEVICE_DIR=dev -- "$program" --device xrt:0 --random
err_has "XILINX_XRT is unset"
try 1 XILINX_XRT=/usr AIR_XRT_DEVICE_DIR=dev -- "$program" --device xrt:0 --random
err_has "has no lib/libxrt_core.so.2"
# 3. Debian's real libxrt_coreutil past the probe (XILINX_XRT/lib -> the multiarch
#    dir, the one setting that makes its error path return): a clean failure.
# Not under a sanitizer: XRT throws C++ exceptions internally (and catches them),
# which ASan's __cxa_throw interceptor cannot follow into a dlopen'd libstdc++ of
# a C program (it aborts with "real___cxa_throw != 0").
real=$(ls /usr/lib/*/libxrt_coreutil.so.2 2>/dev/null | head -1)
if [ -n "$real" ] && [ "$sanitized" = 1 ]; then
  echo "xrt.sh: sanitized build; step 3 (the real libxrt_coreutil) skipped"
elif [ -n "$real" ]; then
  mkdir -p realxrt && ln -s "$(dirname "$real")" realxrt/lib
  try 1 XILINX_XRT="$PWD/realxrt" AIR_XRT_DEVICE_DIR=dev -- "$program" --device xrt:0 --random
  err_has "XRT xrtDeviceOpen failed for NPU 0"
else
  echo "xrt.sh: no libxrt_coreutil.so.2 here (Debian libxrt1); step 3 skipped"
fi
# 4. The fake XRT: the whole path, and its user errors.
fk=(XILINX_XRT="$PWD/xrtdir" AIR_XRT_DEVICE_DIR=dev AIR_XRT_LIBRARY="$fake")
env "${fk[@]}" timeout 60 "$air_run" "$program" --device xrt:0 --random >out 2>err
rc=$?; no_signal $rc; [ $rc -eq 1 ] || fail "no --xclbin: exit $rc"
err_has "needs the xclbin"
env "${fk[@]}" timeout 60 "$air_run" "$program" --device xrt:0 --random --xclbin final.xclbin \
  --insts "$insts" >out 2>err
rc=$?; no_signal $rc; [ $rc -eq 0 ] || fail "fake run: exit $rc"
err_has "@copy on xrt:0 \(npu1 NPU"
env "${fk[@]}" timeout 60 "$air_run" "$program" --device xrt:0 --random --xclbin missing.xclbin \
  --insts "$insts" >out 2>err
rc=$?; no_signal $rc; [ $rc -eq 1 ] || fail "missing xclbin: exit $rc"
err_has "XRT xrtXclbinAllocFilename failed missing.xclbin"
# The stream compiled into an .airbin (airc compile --target npu1), no --insts.
"$airc" compile "$program" --target npu1 -o copy.airbin || fail "airc compile"
env "${fk[@]}" timeout 60 "$air_run" copy.airbin --device xrt:0 --random --xclbin final.xclbin \
  >out 2>err
rc=$?; no_signal $rc; [ $rc -eq 0 ] || fail "fake run of the .airbin: exit $rc"
echo "xrt.sh: ok"
