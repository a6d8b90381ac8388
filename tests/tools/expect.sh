#!/usr/bin/env bash
# expect.sh - runs one command and checks its exit code and output; the CLI tests
# in tests/tools.cmake are made of these, since ctest alone checks only one.
#
# usage: expect.sh [--rc N] [--stdin FILE] [--stdout RE] [--stderr RE]
#                  [--no-stdout RE] [--no-stderr RE] [--stderr-count RE N] -- CMD ARGS...
# RE is an extended regular expression (grep -E) matched against any line.
set -u
rc_want=0 stdin=/dev/null
checks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rc) rc_want=$2; shift 2 ;;
    --stdin) stdin=$2; shift 2 ;;
    --stdout|--stderr|--no-stdout|--no-stderr) checks+=("$1" "$2" ""); shift 2 ;;
    --stderr-count) checks+=("$1" "$2" "$3"); shift 3 ;;
    --) shift; break ;;
    *) echo "expect.sh: bad argument: $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "expect.sh: no command" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$@" <"$stdin" >"$tmp/out" 2>"$tmp/err"
rc=$?

fail=0
note() { echo "FAIL: $*"; fail=1; }
[ "$rc" -eq "$rc_want" ] || note "exit code $rc, expected $rc_want"
i=0
while [ $i -lt ${#checks[@]} ]; do
  kind=${checks[$i]} re=${checks[$((i + 1))]} n=${checks[$((i + 2))]}
  i=$((i + 3))
  case "$kind" in
    --stdout) grep -Eq -- "$re" "$tmp/out" || note "stdout has no line matching /$re/" ;;
    --stderr) grep -Eq -- "$re" "$tmp/err" || note "stderr has no line matching /$re/" ;;
    --no-stdout) ! grep -Eq -- "$re" "$tmp/out" || note "stdout has a line matching /$re/" ;;
    --no-stderr) ! grep -Eq -- "$re" "$tmp/err" || note "stderr has a line matching /$re/" ;;
    --stderr-count)
      got=$(grep -Ec -- "$re" "$tmp/err")
      [ "$got" -eq "$n" ] || note "stderr has $got lines matching /$re/, expected $n" ;;
  esac
done
if [ $fail -ne 0 ]; then
  echo "command: $*"
  echo "--- stdout"; head -c 4000 "$tmp/out"
  echo "--- stderr"; head -c 4000 "$tmp/err"
  exit 1
fi
echo "ok: $*"
