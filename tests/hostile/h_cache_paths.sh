#!/bin/bash
# Issue 10 item 5: no child process is started through a shell.  Quotes,
# $(...), backticks, spaces and newlines in SDEKIT_CACHE_DIR, in a model path
# and in the compiler flags are data: the run works (or errors cleanly) and
# no command hidden in them runs (no PWNED file appears anywhere).
. "$(dirname "$0")/lib.sh"

# every name carries a command that, run by a shell, creates PWNED in the
# directory it runs in or in $T
evil_names=(
  "q'uote\$(touch PWNED)"
  "back\`touch PWNED\`tick"
  "dq\"\$(touch $T/PWNED)\"x"
  "sp ace;touch PWNED"
  $'new\nline$(touch PWNED)'
)

no_pwned() {
  local found
  found=$(find "$T" "$SRC" /tmp -maxdepth 3 -name 'PWNED*' 2>/dev/null | head -3)
  [ -z "$found" ]
}

i=0
for name in "${evil_names[@]}"; do
  i=$((i + 1))
  d="$T/$name"
  mkdir -p "$d" || { fail "mkdir $i"; continue; }
  # the model at a hostile path, the cache in a hostile directory
  cp "$SRC/models/ou.sde" "$d/m$i.sde"
  SDEKIT_CACHE_DIR="$d/cache dir" run_sdk run "$d/m$i.sde" --paths 64 --t-end 0.1 -o "$T/out$i.tsv"
  if [ "$rc" -eq 0 ]; then
    pass "run with hostile paths $i"
    check "hostile paths $i: output written" test -s "$T/out$i.tsv"
    check "hostile paths $i: module in the hostile cache dir" \
      test -n "$(find "$d/cache dir" -name 'cpu-*.so' 2>/dev/null)"
  else # a clean error is acceptable (the path may not be usable as such)
    check "hostile paths $i: exit $rc is 1 or 2 with one error line ($(head -c 300 "$ERRF" | tr '\n' '|'))" \
      test "$rc" -le 2 -a "$(grep -c '^sdekit: error: ' "$ERRF")" -eq 1
  fi
  check "hostile paths $i: no PWNED" no_pwned
done
# the plain cases must run (only the newline may be refused)
check "hostile paths: quotes, \$(), backticks and spaces run" \
  test -s "$T/out1.tsv" -a -s "$T/out2.tsv" -a -s "$T/out3.tsv" -a -s "$T/out4.tsv"

# a flag word with shell syntax is one argument to the compiler, not a command
SDEKIT_CFLAGS='-std=gnu11 -O1 -fPIC -shared -fopenmp -DX=$(touch${IFS}PWNED) -DY=`touch${IFS}PWNED`' \
  run_sdk run ou --paths 64 --t-end 0.1 --set k=1.25 -o "$T/cf.tsv"
check "CFLAGS with shell syntax: run exits 0 ($(head -c 200 "$ERRF" | tr '\n' '|'))" test "$rc" -eq 0
check "CFLAGS with shell syntax: no PWNED" no_pwned

# a compiler "name" with shell syntax is looked up as one program name
SDEKIT_CC='cc;touch PWNED;:' expect_error "CC with a ';' is one program name" 1 \
  "cannot start the C compiler" run ou --paths 64 --t-end 0.1 --set k=1.5 -o "$T/cc.tsv"
check "CC with shell syntax: no PWNED" no_pwned

finish
