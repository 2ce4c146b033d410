#!/usr/bin/env bash
# Issue 10 item 2: strings from a result file reach the gnuplot script only
# through sdk_gp_text (src/cli/gnuplot.h).  Every string attribute that
# 'sdekit plot' reads (model_name, scheme, precision, var_names,
# param_names, scan/axes, drift/var) holds in turn each hostile payload
# (backquotes, system(), quotes, newline + '!', @macro, enhanced-text markup,
# backslashes); each file is drawn as every picture it can give.  No payload
# may run a command; each plot must draw its PNGs (the names stay valid
# dataset names, so nothing is refused) and exit 0.  The figure description
# (--spec) of each is valid JSON holding the string as it is.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
q() { "$BIN" "$@" --quiet 2>"$T/err" >/dev/null || { fail "sdekit $*: $(head -c 300 "$T/err")"; return 1; }; }
q run josephson --scan a=4.2:14.1:2 --observe drift,moments,hist,density --save-paths 0,1 \
  --paths 64 --periods 5 -o "$T/b1.h5" || { finish; exit; }
q run josephson --scan a=4.2:14.1:2 --scan f=0:0.2:2 --observe drift,moments,hist --paths 32 \
  --periods 5 -o "$T/b2.h5" || { finish; exit; }
q run kuramoto-meanfield --particles 256 --paths 2 --t-end 1 --observe order --sample-every 10 \
  -o "$T/bk.h5" || { finish; exit; }


payloads=(
  '`touch PWNED`'
  'x`touch PWNED`y'
  'system("touch PWNED")'
  '"; system("touch PWNED"); print "'
  "'.system('touch PWNED').'"
  $'a\n!touch PWNED\n'
  $'a\n`touch PWNED`'
  $'a\r\n!touch PWNED'
  '@macro @x'
  '{/Symbol a}^{2}_{x} &{x} ~a{.8-}'
  'back\slash\"quote\\`touch PWNED`'
  'tail backslash\'
  $'esc\e]0;title\a and \xff\xfe bad utf8'
)
n=0
for f in b1 b2 bk; do
  for pay in "${payloads[@]}"; do
    n=$((n + 1))
    h=$T/t$n.h5
    /usr/bin/python3 "$SRC/tests/hostile/plot_taint.py" "$T/$f.h5" "$h" "$pay" || { fail "taint $f $n"; continue; }
    for obs in all paths; do
      [ $obs = paths ] && [ $f != b1 ] && continue
      args=()
      [ $obs = paths ] && args=(--observable paths)
      rm -f "$W"/*.png
      run_sdk plot "$h" -o "$W/fig$n.png" --keep "${args[@]}"
      pwned=$(find "$T" -name 'PWNED*' | head -1)
      check "$f payload $n ($obs): no command ran" test -z "$pwned"
      npng=$(find "$W" -name '*.png' | wc -l)
      if [ "$rc" -eq 0 ] && [ "$npng" -ge 1 ]; then
        pass "$f payload $n ($obs): drawn"
      else
        fail "$f payload $n ($obs): exit $rc, $npng PNGs: $(head -c 300 "$ERRF" | tr '\n' '|')"
      fi
      # the scripts hold no backquote at all
      if grep -lq '`' "$TMPDIR"/sdekit-plot.*/*.gp 2>/dev/null; then
        fail "$f payload $n ($obs): a backquote reached a gnuplot script"
      fi
      rm -rf "$TMPDIR"/sdekit-plot.*
      rm -f "$W"/PWNED*
    done
    # the figure description (--spec): valid JSON that holds the model name
    # as the file has it (each byte that is no UTF-8 as U+FFFD)
    [ $f = bk ] && continue
    "$BIN" plot --spec "$h" --observable drift >"$T/spec.json" 2>"$T/err"
    if PAY="$pay" /usr/bin/python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]), strict=True)
want = os.fsencode(os.environ["PAY"]).decode("utf-8", "replace")
sys.exit(d["figures"][0]["title"][0][1] != want)' "$T/spec.json"; then
      pass "$f payload $n: --spec is valid JSON with the name intact"
    else
      fail "$f payload $n: --spec: $(head -c 300 "$T/err") $(head -c 200 "$T/spec.json")"
    fi
  done
done
finish
