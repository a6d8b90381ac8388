#!/usr/bin/env bash
# bad_inputs.sh [--big] AIRC AIR_RUN - runs every failing input (tests/bad_inputs,
# plus inputs made here) through every airc command and air-run. Each command must
# end within its time limit, exit 0 or 1 (air-run: exactly 1), write only
# diagnostics to stderr (diag_shape.sh: no line longer than DIAG_MAX_LINE, no
# sanitizer report) and, for airc, reject the input somewhere. Under ASan (CI:
# scripts/bad-inputs.sh) a leak or a bad access fails the command too.
# --big adds the large inputs of issue 15: 50 MB single tokens, 1.5 million
# unknown lines (words, and dialect.op operations: warnings capped), /dev/zero.
set -u
big=0
if [ "${1:-}" = "--big" ]; then
  big=1
  shift
fi
airc=$1 air_run=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Some inputs ask for absurd amounts of memory (a 4 TiB L1 buffer): malloc must
# say no, as it does without ASan, so the tool can report it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
source "$here/diag_shape.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# Made here: what git should not hold, or what needs this build's tools.
mkdir gen adir
cp "$here"/../bad_inputs/*.mlir gen/
"$airc" compile "$here/../../samples/vector_add.mlir" --target cpu -o va.airbin ||
  { echo "FAIL: cannot compile the sample"; exit 1; }
head -c 10 va.airbin >gen/ten_bytes.airbin
head -c 64 va.airbin >gen/elf_header_only.airbin
cp va.airbin gen/corrupt_program.airbin
printf '@@@@' | dd of=gen/corrupt_program.airbin bs=1 seek=600 conv=notrunc 2>/dev/null
cp va.airbin gen/corrupt_tables.airbin
# Overwrite the end of the file (section tables, the header table): the reader
# must catch every offset and size that now points nowhere.
size=$(wc -c <va.airbin)
head -c 256 /dev/urandom | dd of=gen/corrupt_tables.airbin bs=1 seek=$((size - 256)) \
  conv=notrunc 2>/dev/null
printf 'ab\0cd\1\2\3\377\376' >gen/binary.bin
printf '\177ELF' >gen/magic_only.airbin
: >gen/empty.mlir
printf 'func.func @f() {\n  %%0 = "\xff\xfe\x80" \x01\x02\n}\n' >gen/high_bytes.mlir
inputs=(gen/* adir)
if [ $big -eq 1 ]; then
  # One 50 MB word; the same as another dialect's op name (kept, warned about);
  # 1.5 million lines of unknown words, and of unknown dialect.op operations.
  head -c 50000000 /dev/zero | tr '\0' 'x' >gen_token.mlir
  { printf 'test.'; head -c 50000000 /dev/zero | tr '\0' 'x'; echo; } >gen_op_token.mlir
  awk 'BEGIN { for (i = 0; i < 1500000; ++i) print "frobnicate" i " {}" }' >gen_lines.mlir
  awk 'BEGIN { for (i = 0; i < 1500000; ++i) print "test.frob" i " {}" }' >gen_op_lines.mlir
  inputs+=(gen_token.mlir gen_op_token.mlir gen_lines.mlir gen_op_lines.mlir /dev/zero)
fi

fails=0 count=0
# check LIMIT ALLOWED_RCS CMD...: runs CMD with a time limit and checks its exit
# code is one of ALLOWED_RCS ("01" or "1") and its stderr. Sets $rc.
check() {
  local limit=$1 allowed=$2
  shift 2
  count=$((count + 1))
  timeout "$limit" "$@" >out 2>err </dev/null
  rc=$?
  local problems
  problems=$(diag_check err "$rc")
  if [[ $allowed != *"$rc"* ]] || [ -n "$problems" ]; then
    fails=$((fails + 1))
    echo "FAIL: exit $rc (allowed: $allowed): ${*#$tmp/}"
    [ "$rc" -eq 124 ] && echo "    timed out after $limit s"
    [ -n "$problems" ] && echo "$problems" | sed 's/^/    /'
    cut -c1-300 err | head -20 | sed 's/^/  | /'
  fi
}

for f in "${inputs[@]}"; do
  limit=60
  [ $big -eq 1 ] && limit=120
  rejected=0
  check $limit 01 "$airc" verify "$f"; [ "$rc" -ne 0 ] && rejected=1
  check $limit 01 "$airc" print "$f" -o printed.mlir
  case "$f" in
    gen_*|/dev/zero) ;; # the big ones: reading and parsing is what they test
    *)
      check $limit 01 "$airc" verify "$f" --target npu1; [ "$rc" -ne 0 ] && rejected=1
      check $limit 01 "$airc" compile "$f" --target cpu -o out.airbin
      check $limit 01 "$airc" report "$f" --target npu1 --emit resources
      check $limit 01 "$airc" report "$f" --target cpu --emit schedule
      check $limit 1 "$airc" pack "$f" ;;
  esac
  args=(--random)
  only_args=0 # a valid program given arguments that do not fit it
  if [ -f "$f" ] && head -c 4096 "$f" | grep -aq '^// air-run-args:'; then
    only_args=1
    read -r -a args <<<"$(head -c 4096 "$f" | grep -a '^// air-run-args:' | head -1 |
      sed 's|^// air-run-args:||')"
  fi
  check $limit 1 "$air_run" "$f" "${args[@]}"
  case "$f" in
    */empty.mlir | gen_op_*) ;; # valid modules (other dialects' ops are kept): nothing to run
    *) [ $only_args -eq 1 ] || [ $rejected -eq 1 ] ||
      { fails=$((fails + 1)); echo "FAIL: airc verify accepts $f"; } ;;
  esac
done

echo "${#inputs[@]} inputs, $count commands, $fails failed"
[ "$fails" -eq 0 ]
