#!/usr/bin/env bash
# e2e.sh SCENARIO AIR_RUN NPY_HELPER SAMPLES_DIR - air-run end to end (TOOLS.md):
# .npy in and out, --random determinism, argument mismatches, deadlocks, timeouts
# and traces. Each scenario checks exit codes and messages, not just "it ran".
set -u
scenario=$1 air_run=$2 helper=$3 samples=$4 kernels=${5:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
label=$scenario
source "$here/lib.sh"
vadd=$samples/vector_add.mlir

case "$scenario" in
vector_add_io)
  "$helper" write a.npy '<f4' 4096 iota || fail "helper"
  "$helper" write b.npy '<f4' 4096 half || fail "helper"
  run 0 "$air_run" "$vadd" --input 0=a.npy --input 1=b.npy --output 2=c.npy --output 0=a_out.npy
  err_has "^air-run: @vector_add on cpu"
  "$helper" add a.npy b.npy c.npy >/dev/null || fail "c != a + b"
  "$helper" same a.npy a_out.npy >/dev/null || fail "input 0 changed by the run"
  [ "$("$helper" info c.npy)" = "<f4 (4096,)" ] || fail "c.npy: $("$helper" info c.npy)"
  # Options spelled with '=' and -i/-o, --quiet: same result, no summary.
  run 0 "$air_run" --quiet -i 0=a.npy --input=1=b.npy -o 2=c2.npy -- "$vadd"
  [ ! -s err ] || fail "--quiet printed something"
  "$helper" same c.npy c2.npy >/dev/null || fail "second run differs"
  ;;
random)
  run 0 "$air_run" "$vadd" --random=7 -o 0=x1.npy -o 1=y1.npy -o 2=z1.npy
  run 0 "$air_run" "$vadd" --random=7 -o 0=x2.npy -o 2=z2.npy
  "$helper" same x1.npy x2.npy >/dev/null || fail "same seed, different input"
  "$helper" same z1.npy z2.npy >/dev/null || fail "same seed, different output"
  "$helper" add x1.npy y1.npy z1.npy >/dev/null || fail "random run: c != a + b"
  run 0 "$air_run" "$vadd" --random=8 -o 0=x3.npy
  ! "$helper" same x1.npy x3.npy >/dev/null || fail "seeds 7 and 8 gave the same values"
  run 0 "$air_run" "$vadd" --random -o 0=d1.npy
  run 0 "$air_run" "$vadd" --random=0 -o 0=d2.npy
  "$helper" same d1.npy d2.npy >/dev/null || fail "--random is not --random=0"
  # --input wins over --random for its argument; the others stay seeded.
  "$helper" write a.npy '<f4' 4096 const=3 || fail "helper"
  run 0 "$air_run" "$vadd" --random=7 --input 0=a.npy -o 0=x4.npy -o 1=y4.npy -o 2=z4.npy
  "$helper" same a.npy x4.npy >/dev/null || fail "--random overwrote an --input"
  "$helper" same y1.npy y4.npy >/dev/null || fail "argument 1 depends on argument 0's source"
  "$helper" add x4.npy y4.npy z4.npy >/dev/null || fail "c != a + b"
  ;;
mismatch)
  "$helper" write a64.npy '<f8' 4096 iota || fail "helper"
  run 1 "$air_run" "$vadd" --input 0=a64.npy
  err_has "a64\\.npy: error: dtype mismatch"
  err_has "'<f8'"; err_has "'<f4'"; err_has "memref<4096xf32>"
  "$helper" write short.npy '<f4' 4095 iota || fail "helper"
  run 1 "$air_run" "$vadd" --input 1=short.npy
  err_has "short\\.npy: error: shape mismatch"; err_has "\\(4095,\\)"; err_has "\\(4096,\\)"
  "$helper" write both.npy '<i4' 64x64 iota || fail "helper"
  run 1 "$air_run" "$vadd" --input 2=both.npy
  err_has "dtype and shape mismatch"; err_has "'<i4' with shape \\(64, 64\\)"
  printf 'not numpy' >junk.npy
  run 1 "$air_run" "$vadd" --input 0=junk.npy
  err_has "junk\\.npy: error: not a \\.npy file"
  run 1 "$air_run" "$vadd" --input 0=missing.npy
  err_has "missing\\.npy: error: cannot open file"
  run 1 "$air_run" "$vadd" --input 3=a64.npy
  err_has "@vector_add has 3 arguments"
  run 1 "$air_run" "$vadd" --output r0=c.npy
  err_has "returns no memref"
  run 1 "$air_run" "$vadd" --entry nosuch
  err_has "no entry function @nosuch"
  # A misspelt device is bad usage, like an empty one (exit 2 for both).
  run 2 "$air_run" "$vadd" --device nosuch:0
  err_has "^air-run: error: unknown device driver 'nosuch'"
  run 2 "$air_run" "$vadd" --device ""
  err_has "^air-run: error: empty device URI"
  run 1 "$air_run" "$vadd" --random --output 2=/nonexistent-dir/c.npy
  err_has "/nonexistent-dir/c\\.npy: error: cannot create file"
  # Checked before the run: a run of hours with a bad output path or trace path
  # or a number its argument cannot hold ends at once (spin.mlir would count to
  # 4e12), each problem named.
  start=$(date +%s)
  run 1 "$air_run" "$here/spin.mlir" --input 0=4000000000000 --output 1=/nonexistent-dir/n.npy
  err_has "/nonexistent-dir/n\\.npy: error: cannot create file"
  run 1 "$air_run" "$here/spin.mlir" --input 0=4000000000000 --trace /nonexistent-dir/t.json
  err_has "/nonexistent-dir/t\\.json: error: cannot create file"
  run 1 "$air_run" "$here/spin.mlir" --input 0=-4 --output 1=n.npy
  err_has "spin\\.mlir: error: --input 0=-4: argument 0 of @spin does not take it: an index"
  [ $(( $(date +%s) - start )) -lt 10 ] || fail "the checks waited for a run"
  # Arguments filled with zeros nobody asked for are each warned about; one
  # named by --output (a result buffer) is not.
  run 0 "$air_run" "$vadd" --output 2=c.npy
  err_has "^air-run: warning: argument 0 of @vector_add \\(memref<4096xf32>\\) has no --input: it starts as zeros"
  err_has "^air-run: warning: argument 1 of @vector_add"
  ! grep -q "argument 2 of @vector_add" err || fail "warned about the output argument 2"
  run 0 "$air_run" "$here/spin.mlir" --output 1=n.npy
  err_has "^air-run: warning: argument 0 of @spin \\(index\\) has no --input: it is 0"
  ;;
pipeline)
  "$helper" write x.npy '<f4' 4096 iota || fail "helper"
  run 0 "$air_run" "$samples/pipeline.mlir" --device cpu:threads=2 --input 0=x.npy --output 1=y.npy
  "$helper" affine x.npy y.npy 2 1 >/dev/null || fail "y != 2x + 1"
  ;;
deadlock)
  # Must fail fast and name the channel; --timeout is only the safety net.
  start=$(date +%s)
  run 1 "$air_run" "$here/deadlock.mlir" --input 0=3 --timeout 20
  err_has "deadlock\.mlir: error: .*deadlock"
  err_has "^ +.*deadlock\\.mlir:22:[0-9]+: .*air\\.channel\\.get.*@starved"
  [ $(( $(date +%s) - start )) -lt 15 ] || fail "took the whole timeout"
  ;;
timeout)
  start=$(date +%s)
  run 1 "$air_run" "$here/spin.mlir" --input 0=4000000000000 --timeout 0.5
  err_has "spin\\.mlir: error: @spin did not finish within --timeout 0\\.5 s"
  [ $(( $(date +%s) - start )) -lt 10 ] || fail "--timeout 0.5 did not stop the run in time"
  # One op over the limit: the watchdog names it, with its location. The op is a
  # 17 GFLOP matmul (over 0.1 s at any kernel speed; minutes under ASan), the limit
  # 10 ms. A linalg op cannot be abandoned, but it stops between row panels once
  # the run fails, so the report comes at once rather than at the op's end: well
  # inside air-run's grace (3 s) at any load, and the run must not have finished.
  start=$(date +%s)
  run 1 "$air_run" "$here/slow_op.mlir" --timeout 0.01
  err_has "slow_op\\.mlir:12:[0-9]+: error: linalg\\.matmul ran longer than the watchdog"
  ! grep -q "still computing" err || fail "air-run gave up before the watchdog's report"
  [ $(( $(date +%s) - start )) -lt 10 ] || fail "the failing matmul ran on instead of stopping"
  # The reference loops (--no-compile) stop the same way.
  run 1 "$air_run" "$here/slow_op.mlir" --timeout 0.01 --no-compile
  err_has "slow_op\\.mlir:12:[0-9]+: error: linalg\\.matmul ran longer than the watchdog"
  # The same program with a small count finishes and writes n.
  run 0 "$air_run" "$here/spin.mlir" --input 0=1000 --output 1=n.npy --timeout 30
  "$helper" write want.npy '<f4' 1 const=1000 || fail "helper"
  "$helper" same want.npy n.npy >/dev/null || fail "spin 1000 did not count to 1000"
  ;;
trace)
  # The matmul: linalg ops on 16 PE tracks, channel transfers on channel tracks.
  run 0 "$air_run" "$samples/matmul_4x4.mlir" --random --trace t.json --verbose
  err_has "trace events"
  [ -s t.json ] || fail "no trace written"
  grep -q '"traceEvents"' t.json || fail "no traceEvents"
  grep -q '"processing elements"' t.json || fail "no PE process"
  grep -Eq '"thread_name".*herd|"name":"[^"]*herd' t.json || fail "no herd track"
  n=$(grep -c '"ph":"X"' t.json)
  [ "$n" -gt 0 ] || fail "no complete events"
  if command -v python3 >/dev/null 2>&1; then
    python3 - t.json <<'PY' || fail "trace JSON check"
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
pe = [p for p, n in procs.items() if n == "processing elements"]
assert pe, procs
tracks = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
pe_tracks = {t for t in tracks if t[0] == pe[0]}
assert len(pe_tracks) == 16, pe_tracks  # the 4x4 herd: one track per PE
chan = [p for p, n in procs.items() if n == "channels"]
assert chan and len({t for t in tracks if t[0] == chan[0]}) >= 3 * 16 + 3, "channel tracks"
xs = [e for e in ev if e["ph"] == "X"]
assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in xs)
assert any(e["pid"] == pe[0] for e in xs), "no events on PE tracks"
print("ok:", len(xs), "events,", len(pe_tracks), "PE tracks")
PY
    # Work without linalg (vector_add: loads, stores and arith in air.execute)
    # has PE tracks too: each of the 4 PEs shows its whole body as one span and
    # each air.execute as a span inside it.
    run 0 "$air_run" "$vadd" --random --trace v.json
    python3 - v.json <<'PY' || fail "vector_add trace: PE tracks"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
pe = [p for p, n in procs.items() if n == "processing elements"]
assert pe, procs
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
tracks = {}
for e in ev:
    if e["ph"] == "X" and e["pid"] == pe[0]:
        tracks.setdefault(names[(e["pid"], e["tid"])], []).append(e)
assert sorted(tracks) == ["herd @vadd_herd [%d, 0]" % x for x in range(4)], sorted(tracks)
for t, es in tracks.items():
    body = [e for e in es if e["name"] == "air.herd @vadd_herd"]
    work = [e for e in es if e["name"] == "air.execute"]
    assert len(body) == 1 and len(work) >= 4, (t, [e["name"] for e in es])
    b = body[0]
    for w in work:  # nested in the PE's span
        assert b["ts"] <= w["ts"] + 1e-3 and w["ts"] + w["dur"] <= b["ts"] + b["dur"] + 1e-3, (t, w, b)
print("ok: 4 PE tracks for vector_add")
PY
  fi
  ;;
python_npy)
  # .npy files written and read by Python's struct: an implementation independent
  # of tools/npy.c, so a bug shared by air-run's reader and writer shows here.
  command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
  python3 - <<'PY' || fail "writing inputs"
import struct
def save(path, fmt, values, shape):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (fmt, shape)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
save("a.npy", "<f4", [i * 0.5 for i in range(4096)], "(4096,)")
save("b.npy", "<f4", [1.0 - i for i in range(4096)], "(4096,)")
PY
  run 0 "$air_run" "$vadd" --input 0=a.npy --input 1=b.npy --output 2=c.npy
  python3 - <<'PY' || fail "checking the output"
import struct
data = open("c.npy", "rb").read()
assert data[:8] == b"\x93NUMPY\x01\x00", data[:8]
hlen = struct.unpack("<H", data[8:10])[0]
header = data[10:10 + hlen].decode()
assert "'descr': '<f4'" in header and "'shape': (4096,)" in header, header
assert (10 + hlen) % 64 == 0
c = struct.unpack("<4096f", data[10 + hlen:])
want = [i * 0.5 + (1.0 - i) for i in range(4096)]
bad = [i for i in range(4096) if c[i] != want[i]]
assert not bad, (bad[:5], [c[i] for i in bad[:5]])
print("ok: python-made inputs, python-checked output")
PY
  ;;
matmul)
  # Both matmul samples through air-run: bf16 inputs travel as <u2. Python checks
  # 64 sampled entries of C against dot products of the written inputs.
  command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
  run 0 "$air_run" "$samples/matmul_4x4.mlir" --random=3 -o 0=a.npy -o 1=b.npy -o 2=c.npy
  run 0 "$air_run" "$samples/matmul_4x4_bf16.mlir" --random=3 -o 0=ah.npy -o 1=bh.npy -o 2=ch.npy
  [ "$("$helper" info ah.npy)" = "<u2 (512, 512)" ] || fail "bf16 A: $("$helper" info ah.npy)"
  python3 - <<'PY' || fail "matmul results"
import random, struct
def load(path):
    d = open(path, "rb").read()
    hlen = struct.unpack("<H", d[8:10])[0]
    header = d[10:10 + hlen].decode()
    body = d[10 + hlen:]
    if "'<u2'" in header:  # bf16 bits -> float
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in struct.unpack("<%dH" % (len(body) // 2), body)]
    return list(struct.unpack("<%df" % (len(body) // 4), body))
for a_, b_, c_, tol in (("a", "b", "c", 1e-3), ("ah", "bh", "ch", 1e-3)):
    A, B, C = load(a_ + ".npy"), load(b_ + ".npy"), load(c_ + ".npy")
    assert len(A) == len(B) == len(C) == 512 * 512
    assert max(abs(x) for x in A) <= 1.0 and min(A) < -0.5 < 0.5 < max(A)
    rng = random.Random(1)
    worst = 0.0
    for _ in range(64):
        i, j = rng.randrange(512), rng.randrange(512)
        ref = sum(A[i * 512 + k] * B[k * 512 + j] for k in range(512))
        worst = max(worst, abs(C[i * 512 + j] - ref))
    assert worst <= tol, (c_, worst)
    print("ok:", c_, "max error on 64 samples", worst)
PY
  ;;
kernels)
  # External kernels from a kernel library: func.call @twice_plus_one resolves to
  # the C function the library registers; without the library the run names the
  # missing kernel; a file that is no kernel library is refused clearly.
  prog=$here/kernel_call.mlir
  "$helper" write x.npy '<f4' 1024 iota || fail "helper"
  run 0 "$air_run" "$prog" --kernels "$kernels" --input 0=x.npy --output 0=y.npy
  "$helper" affine x.npy y.npy 2 1 >/dev/null || fail "y != 2x + 1"
  run 1 "$air_run" "$prog" --input 0=x.npy
  err_has "kernel_call\.mlir:[0-9]+:[0-9]+: .*twice_plus_one"
  run 1 "$air_run" "$prog" --kernels /nonexistent/lib.so --input 0=x.npy
  err_has "cannot load kernel library"
  run 1 "$air_run" "$prog" --kernels "$air_run" --input 0=x.npy
  err_has "cannot load kernel library|not a kernel library"
  ;;
*)
  echo "e2e.sh: unknown scenario $scenario" >&2; exit 2 ;;
esac
echo "ok: $scenario"
