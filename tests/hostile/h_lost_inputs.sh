#!/usr/bin/env bash
# Lost inputs and progress (issue 25 item 13): an output or the checkpoint
# that is the model file would replace the model; a checkpoint that exists
# is the progress of a run (re-running `sdekit run ... --checkpoint F` made
# step 109000 become 28000 without a word).  Both are refused unless
# --force, compared by identity (another spelling of the path, a link, the
# file a bare model name leads to), from the CLI and from Python; --force is
# the configuration's, never stored in a checkpoint.
. "$(dirname "$0")/lib.sh"

cp "$SRC/models/ou.sde" "$W/m.sde"
cp "$W/m.sde" "$T/m.orig"
RUN=(run --paths 64 --t-end 1 --observe drift --quiet)
# (each case starts from the model as it was: a failure does not cascade)
model_intact() {
  local ok=0
  cmp -s "$W/m.sde" "$T/m.orig" || ok=1
  cp "$T/m.orig" "$W/m.sde"
  return $ok
}

expect_error "checkpoint is the model" 2 "checkpoint 'm.sde' is the model file" \
  run ./m.sde --paths 64 --t-end 1 --checkpoint m.sde
check "checkpoint is the model: model intact" model_intact
expect_error "checkpoint is the model, another spelling" 2 "is the model file" \
  run ./m.sde --paths 64 --t-end 1 --checkpoint "$W/./m.sde"
check "another spelling: model intact" model_intact
mkdir -p "$W/sub"
expect_error "checkpoint is the model, through .." 2 "is the model file" \
  run ./m.sde --paths 64 --t-end 1 --checkpoint sub/../m.sde
check "through ..: model intact" model_intact
ln -s m.sde "$W/link.sde"
expect_error "checkpoint is the file the model's link leads to" 2 "is the model file" \
  run ./link.sde --paths 64 --t-end 1 --checkpoint m.sde
check "link: model intact" model_intact
# a bare name found in SDEKIT_MODEL_PATH
mkdir -p "$W/models" && cp "$W/m.sde" "$W/models/mine.sde"
SDEKIT_MODEL_PATH=$W/models expect_error "checkpoint is the search path's model" 2 \
  "is the model file" run mine --paths 64 --t-end 1 --checkpoint models/mine.sde
check "search path model intact" cmp -s "$W/models/mine.sde" "$T/m.orig"
# outputs: the file itself, and one of BASE.OBS.tsv
cp "$W/m.sde" "$W/m.tsv"
expect_error "output is the model" 2 "output 'm.tsv' is the model file" \
  run ./m.tsv --paths 64 --t-end 1 -o m.tsv
check "output is the model: model intact" cmp -s "$W/m.tsv" "$T/m.orig"
cp "$W/m.sde" "$W/r.moments.tsv"
expect_error "an observable's output is the model" 2 "output 'r.moments.tsv' is the model file" \
  run ./r.moments.tsv --paths 64 --t-end 1 --observe drift,moments -o r.tsv
check "observable's output: model intact" cmp -s "$W/r.moments.tsv" "$T/m.orig"
rm -f "$W/m.tsv" "$W/r.moments.tsv"

# the progress of an interrupted run
CK=(run ou --paths 20000 --t-end 50 --observe drift --checkpoint ck --checkpoint-every 0)
"$BIN" "${CK[@]}" >/dev/null 2>"$T/err1" </dev/null &
pid=$!
for _ in $(seq 500); do [ -f "$W/ck" ] && break; sleep 0.02; done
kill -INT $pid 2>/dev/null
wait $pid
check "interrupted run saved its progress" test -f "$W/ck"
cp "$W/ck" "$T/ck.saved"
expect_error "run over an unfinished run's checkpoint" 2 \
  "checkpoint 'ck' exists .*'sdekit resume ck' continues it.*--force" "${CK[@]}"
check "unfinished checkpoint intact" cmp -s "$W/ck" "$T/ck.saved"
# (any checkpoint: a finished run's can be extended with resume --t-end)
"$BIN" "${RUN[@]}" ou --checkpoint fin.ck >/dev/null 2>&1
cp "$W/fin.ck" "$T/fin.saved"
expect_error "run over a finished run's checkpoint" 2 "checkpoint 'fin.ck' exists" \
  "${RUN[@]}" ou --checkpoint fin.ck
check "finished checkpoint intact" cmp -s "$W/fin.ck" "$T/fin.saved"
# --force replaces it; resume still saves to its own checkpoint
run_sdk "${RUN[@]}" ou --seed 7 --checkpoint fin.ck --force
check "--force replaces the checkpoint (rc=$rc: $(head -c 200 "$ERRF"))" test "$rc" = 0
check "--force: a new checkpoint" test -s "$W/fin.ck" -a "$(cmp -s "$W/fin.ck" "$T/fin.saved"; echo $?)" = 1
run_sdk resume fin.ck --t-end 2 --quiet
check "resume saves to its own checkpoint (rc=$rc: $(head -c 200 "$ERRF"))" test "$rc" = 0
# --force is not stored: the resume of a forced run still keeps its outputs
run_sdk "${RUN[@]}" ou --checkpoint f2.ck -o r.tsv --force
check "forced run with an output (rc=$rc: $(head -c 200 "$ERRF"))" test "$rc" = 0
expect_error "a forced run's checkpoint resumes without --force" 2 "r.tsv' exists: give --force" \
  resume f2.ck
run_sdk resume f2.ck --force --quiet
check "resume --force replaces its outputs (rc=$rc)" test "$rc" = 0

# Python: the same rules through run(); force=True as --force
PY=/usr/bin/python3
LIB=$(dirname "$BIN")/libsdekit.so.0
# (not under ASan: Python would have to preload its runtime; the regular
# build runs these cases)
if [ "${SANITIZED:-0}" = 1 ]; then
  echo "the library is sanitized: the Python cases run in the regular build only"
elif [ -f "$LIB" ] && "$PY" -c 'import numpy' 2>/dev/null; then
  cat >"$T/lost.py" <<'PY'
import sdekit
def attempt(label, **kw):
    try:
        sdekit.run(kw.pop("model", "./m.sde"), paths=64, t_end=1, progress=False, **kw)
        print(label, "ran")
    except sdekit.UsageError as e:
        print(label, "refused:", e)
attempt("ckpt-model", checkpoint="m.sde")
attempt("out-model", model="./p.tsv", output="p.tsv")
attempt("ckpt-exists", checkpoint="ck")
attempt("ckpt-force", checkpoint="py.ck")
attempt("ckpt-force", checkpoint="py.ck", force=True)
PY
  cp "$W/m.sde" "$W/p.tsv"
  (cd "$W" && SDEKIT_LIBRARY=$LIB PYTHONPATH=$SRC/python "$PY" "$T/lost.py" >"$T/py.out" 2>&1)
  check "python: checkpoint = model refused" grep -q "^ckpt-model refused: checkpoint 'm.sde' is the model file" "$T/py.out"
  check "python: output = model refused" grep -q "^out-model refused: output 'p.tsv' is the model file" "$T/py.out"
  check "python: existing checkpoint refused" grep -q "^ckpt-exists refused: checkpoint 'ck' exists" "$T/py.out"
  check "python: force=True replaces" test "$(grep -c '^ckpt-force ran' "$T/py.out")" = 2
  check "python: models intact" model_intact
  check "python: output model intact" cmp -s "$W/p.tsv" "$T/m.orig"
  check "python: unfinished checkpoint intact" cmp -s "$W/ck" "$T/ck.saved"
else
  echo "python3 with numpy or $LIB missing: the Python cases skipped"
fi

finish
