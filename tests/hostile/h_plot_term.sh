#!/usr/bin/env bash
# Issue 10 item 7: strings from files reach the terminal escaped.  Terminal
# controls (ESC, BEL, CSI as "\e[2J" and as the C1 byte 0x9b, both raw and
# UTF-8 encoded, and an OSC window title) in a model's name and description
# and in the string attributes of a result file must not appear raw on
# stdout or stderr of 'sdekit run', 'sdekit info', 'sdekit plot',
# 'sdekit models' and 'sdekit compile'.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
EVIL=$'ev\e[2J\e]0;owned\a\x9b31m\xc2\x9b1;1H\x07il'
# model files must be UTF-8 (a raw 0x9b is refused by the model reader, below)
EVILM=$'ev\e[2J\e]0;owned\a\xc2\x9b1;1H\x07il'

# clean OUT ERR: no control byte other than newline, no C1 control (raw or
# UTF-8 encoded) in either stream
clean() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
for p in sys.argv[1:]:
    b = open(p, "rb").read()
    bad = [c for c in b if (c < 0x20 and c not in (0x0a,)) or c == 0x7f]
    t = b.decode("utf-8", "replace")
    bad += [ord(c) for c in t if 0x80 <= ord(c) <= 0x9f]
    bad += [0xfffd] if "\ufffd" in t else []
    if bad:
        print("%s: raw control bytes %s" % (p, sorted(set(bad))[:8]), file=sys.stderr)
        sys.exit(1)
PY
}

# a model file with the sequences in its name and description
sed -e "s/^name = ou/name = ou$EVIL/" "$SRC/models/ou.sde" >"$T/raw.sde"
run_sdk run "$T/raw.sde" --paths 16 --t-end 0.1 -o "$T/raw.h5"
check "a model file that is not UTF-8 is refused" test "$rc" -eq 2
check "that refusal: nothing raw on the terminal" clean "$OUTF" "$ERRF"
sed -e "s/^name = ou/name = ou$EVILM/" -e "s/^description = .*/description = d$EVILM/" \
  "$SRC/models/ou.sde" >"$T/evil.sde"
run_sdk run "$T/evil.sde" --paths 16 --t-end 0.1 -o "$T/e.h5"
check "run of a model with escapes in its name works" test "$rc" -eq 0
check "run: nothing raw on the terminal" clean "$OUTF" "$ERRF"
run_sdk info "$T/e.h5"
check "info of that result works" test "$rc" -eq 0
check "info: the name is shown escaped" grep -q 'ouev\\x1B\[2J' "$OUTF"
check "info (model file): nothing raw" clean "$OUTF" "$ERRF"
run_sdk compile "$T/evil.sde"
check "compile: nothing raw" clean "$OUTF" "$ERRF"
mkdir -p "$T/mp"
cp "$T/evil.sde" "$T/mp/evil.sde"
SDEKIT_MODEL_PATH=$T/mp run_sdk models
check "models: nothing raw" clean "$OUTF" "$ERRF"

# every string attribute of a result file, and the names used in its datasets
"$BIN" run ou --paths 16 --t-end 0.5 --observe moments,hist --scan k=1:2:2 -o "$T/r.h5" \
  --quiet || fail "base run"
/usr/bin/python3 - "$T/r.h5" "$EVIL" <<'PY'
import os, sys
import h5py
p, ev = sys.argv[1], os.fsencode(sys.argv[2])
vs = h5py.string_dtype()
with h5py.File(p, "r+") as f:
    for a in ("model_name", "model_path", "command_line", "scheme", "precision", "backend",
              "version"):
        f.attrs.create(a, ev, dtype=vs)
    f.attrs.create("param_names", [b"k" + ev, b"D" + ev], dtype=vs)
    f.attrs.create("var_names", [b"x" + ev], dtype=vs)
    for g, pre in (("moments", "mean_"), ("moments", "var_"), ("hist", "")):
        grp = f[g]
        grp.id.links.move((pre + "x").encode(), grp.id, pre.encode() + b"x" + ev)
    sg = f["scan"]
    sg.id.links.move(b"k", sg.id, b"k" + ev)
    sg.attrs.create("axes", [b"k" + ev], dtype=vs)
PY
run_sdk info "$T/r.h5"
check "info of a tainted file works" test "$rc" -eq 0
check "info (attributes): nothing raw" clean "$OUTF" "$ERRF"
run_sdk plot "$T/r.h5" -o "$T/p$EVIL.png"
check "plot of a tainted file works" test "$rc" -eq 0
check "plot: nothing raw" clean "$OUTF" "$ERRF"
run_sdk plot "$T/r.h5" --var "y$EVIL"
check "plot error naming a tainted --var: nothing raw" clean "$OUTF" "$ERRF"
finish
