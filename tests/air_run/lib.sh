# lib.sh - what the air-run CLI scripts share (sourced). Each test runs in a fresh
# temporary directory; `run` keeps a command's stdout/stderr in out/err and checks
# its exit code, `fail` prints both and stops. Set `label` before sourcing to tag
# messages (e.g. the scenario name).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

fail() { echo "FAIL${label:+ [$label]}: $*"; for f in out err; do [ -f $f ] && { echo "--- $f"; head -c 3000 $f; }; done; exit 1; }
# run RC CMD...: runs CMD, keeps stdout/stderr in out/err, checks the exit code.
run() {
  local want=$1; shift
  "$@" >out 2>err
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "exit code $rc, expected $want: $*"
}
err_has() { grep -Eq -- "$1" err || fail "stderr has no line matching /$1/"; }
