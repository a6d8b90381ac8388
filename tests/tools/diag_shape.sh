# diag_shape.sh - the one shape every tool's stderr has on failure (sourced by the
# CLI scripts; TOOLS.md, tools/tool_util.h):
#   WHERE[:LINE:COL]: error|warning|note: MESSAGE
# where WHERE is a file (an .airbin section may follow it in brackets) or the tool's
# name ("airc compile", "air-run", "air-bench matmul"); lines indented under such a
# line are its details, and a usage error is followed by `usage:` lines.
# Informational lines of a successful step ("air-run: @f on cpu: ...") are not
# errors and are allowed too, as `TOOL: ` lines without a tag.

# The longest line a diagnostic may have: anything echoed from the input (a token,
# a field) is shortened, so a 50 MB token cannot come back whole.
DIAG_MAX_LINE=${DIAG_MAX_LINE:-1000}

diag_where='([^ :]+|airc( [a-z-]+)?|air-bench( [a-z-]+)?)(\[[^]]*\])?(:[0-9]+:[0-9]+)?'
diag_line_re="^${diag_where}: (error|warning|note): [^ ]"
diag_ok_re="^(usage: |[ 	]|(air-run|airc|air-bench)( [a-z-]+)?: [^ ])"

# diag_check FILE RC: prints one line per problem with FILE (stderr of a command
# that exited RC); returns 1 when there is any.
diag_check() {
  local file=$1 rc=$2 bad=0 n=0 line
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    # ASan's note that malloc said no (allocator_may_return_null=1): the tool's
    # own error about it follows, and is what is checked.
    [[ $line =~ ^==[0-9]+==WARNING:\ AddressSanitizer\ failed\ to\ allocate ]] && continue
    if [ ${#line} -gt "$DIAG_MAX_LINE" ]; then
      echo "line $n is ${#line} bytes long (limit $DIAG_MAX_LINE): ${line:0:120}..."
      bad=1
    elif ! [[ $line =~ $diag_line_re ]] && ! [[ $line =~ $diag_ok_re ]]; then
      echo "line $n is not a diagnostic: ${line:0:200}"
      bad=1
    elif [[ $line =~ :\ (error|warning|note):\ .*:\ (error|warning|note):\  ]]; then
      echo "line $n has two tags (a doubled prefix): ${line:0:200}"
      bad=1
    fi
  done <"$file"
  if [ "$rc" -ne 0 ] && ! grep -Eq "$diag_line_re" "$file" 2>/dev/null; then
    echo "exit $rc without an error line"
    bad=1
  fi
  if grep -v "WARNING: AddressSanitizer failed to allocate" "$file" |
    grep -Eq "Sanitizer|runtime error:|Segmentation fault|Aborted|core dumped"; then
    echo "a sanitizer report or a crash: $(grep -Em1 "Sanitizer|runtime error:" "$file")"
    bad=1
  fi
  return $bad
}
