#!/usr/bin/env bash
# Checkpoints: a run interrupted by SIGINT and resumed writes byte-identical
# files to the same run done in one go; a finished run can be extended; bad
# checkpoints are refused; the progress bar stays off when stderr is no
# terminal.  Backend from $SDK_TEST_BACKEND (default cpu).
set -u
B=${SDK_BIN:?}
[ -x "$B" ] || exit 77
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BACKEND=${SDK_TEST_BACKEND:-cpu}
npass=0 nfail=0
pass() { npass=$((npass + 1)); }
failed() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }
check() { local name=$1; shift; if "$@"; then pass; else failed "$name"; fi; }

if [ "$BACKEND" = cuda ]; then
  [ "$("$B" devices --count 2>/dev/null || echo 0)" != 0 ] || { echo "no CUDA device: skipped"; exit 77; }
  PATHS=262144; PERIODS=3000
else
  PATHS=4096; PERIODS=1000
fi
ARGS=(run josephson --scan a=4:8:2 --paths $PATHS --periods $PERIODS --transient-periods 100
      --observe drift,moments,hist,density --coarse-grain=1 --save-paths 0,3 --sample-every 500
      --backend "$BACKEND" -o r.h5 -o r.tsv)

# one go
mkdir -p "$T/a" "$T/b"
(cd "$T/a" && "$B" "${ARGS[@]}" --quiet) || failed "uninterrupted run"

# interrupted as soon as the first checkpoint exists, then resumed
cd "$T/b"
"$B" "${ARGS[@]}" --checkpoint ck --checkpoint-every 0 2>err.txt &
pid=$!
for i in $(seq 400); do [ -f ck ] && break; sleep 0.02; done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
check "interrupted run exits 130 (got $rc)" test "$rc" = 130
check "interrupt message names the checkpoint" grep -q "checkpoint saved to ck; continue with: sdekit resume ck" err.txt
check "no output written by the interrupted run" test ! -e r.h5
step=$(grep -o 'interrupted at step [0-9]*' err.txt | grep -o '[0-9]*$')
echo "interrupted at step ${step:-?}"
"$B" resume ck --quiet || failed "resume"
for f in r.h5 r.drift.tsv r.moments.tsv r.hist.tsv r.density.tsv r.paths.tsv; do
  if cmp -s "$T/a/$f" "$T/b/$f"; then pass; else failed "resumed $f differs from the uninterrupted one"; fi
done

# extend the finished run (its final checkpoint) to more periods == a longer run in one go
mkdir -p "$T/c"
(cd "$T/c" && "$B" "${ARGS[@]/--periods/--periods}" --quiet >/dev/null 2>&1)
LONG=("${ARGS[@]}")
for i in "${!LONG[@]}"; do [ "${LONG[$i]}" = "$PERIODS" ] && [ "${LONG[$((i-1))]}" = --periods ] && LONG[$i]=$((PERIODS + 200)); done
(cd "$T/c" && "$B" "${LONG[@]}" --quiet) || failed "long run"
"$B" resume ck --periods $((PERIODS + 200)) --force --quiet || failed "extend by resume"
for f in r.drift.tsv r.moments.tsv r.hist.tsv r.density.tsv r.paths.tsv; do
  if cmp -s "$T/c/$f" "$T/b/$f"; then pass; else failed "extended $f differs from the longer run"; fi
done

# interrupt_resume LABEL ARGS...: in the current directory, run ARGS with a
# checkpoint after every chunk, interrupt it (SIGINT) as soon as the
# checkpoint exists (exit 130), and resume it
interrupt_resume() {
  local label=$1 rc step i pid
  shift
  "$B" "$@" --checkpoint ck --checkpoint-every 0 2>err.txt &
  pid=$!
  for i in $(seq 400); do [ -f ck ] && break; sleep 0.02; done
  kill -INT $pid 2>/dev/null
  wait $pid
  rc=$?
  check "interrupted $label run exits 130 (got $rc)" test "$rc" = 130
  step=$(grep -o 'interrupted at step [0-9]*' err.txt | grep -o '[0-9]*$')
  echo "$label: interrupted at step ${step:-?}"
  "$B" resume ck --quiet || failed "$label resume"
}

# first passage ([boundaries], --observe fpt): absorbed paths (their frozen
# state, boundary and hitting step) and --no-bridge-correction survive the
# checkpoint; interrupted and resumed == one go
if [ "$BACKEND" = cuda ]; then FP=1048576; else FP=16384; fi
printf '[model]\nname = bm\nvars = x\n[params]\nD = 0.1\nL = 1\n[drift]\nx = 0.1\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0.5\n[boundaries]\nleft = absorb x <= 0\nright = absorb x >= L\n' >"$T/bm.sde"
FARGS=(run "$T/bm.sde" --scan L=0.8:1.2:3 --paths $FP --dt 0.001 --t-end 3 --observe fpt,moments
       --sample-every 100 --backend "$BACKEND" -o r.h5 -o r.tsv)
for bridge in "" --no-bridge-correction; do
  rm -rf "$T/fa" "$T/fb"
  mkdir -p "$T/fa" "$T/fb"
  (cd "$T/fa" && "$B" "${FARGS[@]}" $bridge --quiet) || failed "uninterrupted fpt run $bridge"
  cd "$T/fb"
  interrupt_resume "fpt $bridge" "${FARGS[@]}" $bridge
  for f in r.h5 r.fpt.tsv r.moments.tsv; do
    if cmp -s "$T/fa/$f" "$T/fb/$f"; then pass; else failed "resumed fpt $f $bridge differs from the uninterrupted one"; fi
  done
  cd "$T"
done
cmp -s "$T/fa/r.fpt.tsv" /dev/null && failed "fpt: empty output"

# --sample-times (issue 28): log-spaced samples, dt chosen for them, stored
# in the checkpoint's arguments; interrupted and resumed == one go; the
# finished run extended past the last time == a longer run in one go
if [ "$BACKEND" = cuda ]; then SP=4194304; else SP=65536; fi
SARGS=(run ou --paths $SP --observe moments,range --observe-expr x2=x*x --save-paths 0,7
       --sample-times log:0.01:100:5 --backend "$BACKEND" -o r.h5 -o r.tsv)
mkdir -p "$T/sa" "$T/sb" "$T/sc"
(cd "$T/sa" && "$B" "${SARGS[@]}" --quiet) || failed "uninterrupted sample-times run"
cd "$T/sb"
interrupt_resume sample-times "${SARGS[@]}"
for f in r.h5 r.moments.tsv r.range.tsv r.expr.tsv r.paths.tsv; do
  if cmp -s "$T/sa/$f" "$T/sb/$f"; then pass; else failed "resumed sample-times $f differs from the uninterrupted one"; fi
done
(cd "$T/sc" && "$B" "${SARGS[@]}" --t-end 120 --quiet) || failed "long sample-times run"
"$B" resume ck --t-end 120 --force --quiet || failed "extend sample-times by resume"
for f in r.moments.tsv r.range.tsv r.expr.tsv r.paths.tsv; do
  if cmp -s "$T/sc/$f" "$T/sb/$f"; then pass; else failed "extended sample-times $f differs from the longer run"; fi
done

# systems of interacting particles with the order parameter: interrupted (at a
# chunk boundary, possibly an order sample) and resumed, then extended
if [ "$BACKEND" = cuda ]; then NP=262144; else NP=32768; fi
KARGS=(run kuramoto-meanfield --particles $NP --paths 2 --set sigma=0.5 --dt 0.01 --t-end 30
       --observe order,density,moments --sample-every 10 --backend "$BACKEND" -o r.h5 -o r.tsv)
mkdir -p "$T/ka" "$T/kb" "$T/kc"
(cd "$T/ka" && "$B" "${KARGS[@]}" --quiet) || failed "uninterrupted kuramoto run"
cd "$T/kb"
interrupt_resume kuramoto "${KARGS[@]}"
for f in r.h5 r.order.tsv r.density.tsv r.moments.tsv; do
  if cmp -s "$T/ka/$f" "$T/kb/$f"; then pass; else failed "resumed kuramoto $f differs from the uninterrupted one"; fi
done
KLONG=("${KARGS[@]}")
for i in "${!KLONG[@]}"; do [ "${KLONG[$i]}" = 30 ] && [ "${KLONG[$((i-1))]}" = --t-end ] && KLONG[$i]=40; done
(cd "$T/kc" && "$B" "${KLONG[@]}" --quiet) || failed "long kuramoto run"
"$B" resume ck --t-end 40 --force --quiet || failed "extend kuramoto by resume"
for f in r.order.tsv r.density.tsv r.moments.tsv; do
  if cmp -s "$T/kc/$f" "$T/kb/$f"; then pass; else failed "extended kuramoto $f differs from the longer run"; fi
done
cd "$T/b"

# bad checkpoints: one error line, exit 2
bad() {
  local name=$1 pat=$2; shift 2
  "$@" >out.txt 2>err2.txt
  local rc=$?
  if [ $rc = 2 ] && [ "$(wc -l <err2.txt)" = 1 ] && grep -q "^sdekit: error: .*$pat" err2.txt; then pass
  else failed "$name: rc=$rc $(cat err2.txt)"; fi
}
size=$(stat -c %s ck)
head -c $((size / 2)) ck >trunc.ckpt
bad "truncated checkpoint" "truncated or corrupt" "$B" resume trunc.ckpt
cp ck flip.ckpt
printf '\x55' | dd of=flip.ckpt bs=1 seek=$((size / 2)) conv=notrunc status=none
bad "corrupted checkpoint" "corrupt" "$B" resume flip.ckpt
echo "not a checkpoint" >junk.ckpt
bad "not a checkpoint" "not an sdekit checkpoint" "$B" resume junk.ckpt
bad "missing checkpoint" "cannot read checkpoint" "$B" resume nothere.ckpt
# from another version: patch the version record ("VERS", length, text)
python3 - ck ver.ckpt <<'PY' 2>/dev/null || cp ck ver.ckpt
import sys, struct
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.index(b'VERS') + 12
b[i] = ord('9')
open(sys.argv[2], 'wb').write(b)
PY
# an output that is the checkpoint (by another name too), with --force or not
bad "output is the checkpoint" "output 'same.h5' is the --checkpoint file" \
  "$B" run ou --paths 16 --t-end 0.1 -o same.h5 --checkpoint ./same.h5
bad "output is the checkpoint, --force" "is the --checkpoint file" \
  "$B" run ou --paths 16 --t-end 0.1 -o same.h5 --checkpoint same.h5 --force
# acf/psd with their defaults, extended: the kernel follows the run's length,
# and the message says so
"$B" run ou --paths 200 --observe acf,psd --sample-every 10 --t-end 5 --checkpoint lag.ckpt \
  -o lag.tsv --quiet || failed "acf/psd run"
bad "acf/psd extended: why it cannot be" "default --max-lag and --psd-segment follow the run's length" \
  "$B" resume lag.ckpt --t-end 20 -o lag2.tsv
bad "checkpoint of another version" "corrupt\|written by sdekit" "$B" resume ver.ckpt
# from another model: the model file changed since
mkdir -p "$T/d" && cd "$T/d"
cp "${SDK_SOURCE_DIR:?}/models/ou.sde" my.sde
"$B" run ./my.sde --paths 64 --t-end 1 --observe moments --checkpoint m.ckpt --quiet -o m.tsv || failed "ou run"
sed -i 's/k = 1.0/k = 2.0/' my.sde
bad "model file changed" "has changed since checkpoint" "$B" resume m.ckpt
"$B" resume m.ckpt --stored-model --force --quiet && pass || failed "--force resume"

# --adaptive extended by resume: the summary's accepted sub-steps are the
# whole run's (the controller's counts carry over), so no rate over this
# process's seconds
mkdir -p "$T/e" && cd "$T/e"
"$B" run gbm --adaptive --scheme milstein --t-end 1 --paths 200 --backend "$BACKEND" \
  --checkpoint a.ckpt -o a.tsv 2> a.err || failed "adaptive run"
check "adaptive summary with its rate" grep -q "accepted sub-steps ([0-9.e+-]*/s)" a.err
"$B" resume a.ckpt --t-end 2 -o b.tsv 2> b.err || failed "adaptive resume"
check "resumed adaptive summary: the whole run's count, no rate" \
  grep -q "accepted sub-steps since the run's start$" b.err
# a kernel compiled with other flags (or by another compiler) would mix two
# kernels' bits: refused (the checkpoint records the kernel as built)
if [ "$BACKEND" = cpu ]; then
  CFLAGS=-fno-tree-vectorize "$B" resume a.ckpt --t-end 3 -o c.tsv 2> c.err
  check "resume with other CFLAGS refused" grep -q "written for another kernel.*other flags" c.err
fi

# another --t-end from a checkpoint taken early (before the run's second
# sample, where the interval cannot be read off the samples): the resumed
# run keeps the interval it was sampled at (the checkpoint records it), so
# it equals the one-go run of that length with that --sample-every, shorter
# or longer, wherever the run stopped (it once took 1/100 of the new length
# and, shortened, silently lacked the samples it had passed)
mkdir -p "$T/f" && cd "$T/f"
"$B" run ou --paths 100000 --t-end 40 --observe moments --threads 1 --backend "$BACKEND" \
  --checkpoint s.ckpt --checkpoint-every 0 -o s.tsv 2> s.err &
pid=$!
for i in $(seq 400); do [ -f s.ckpt ] && break; sleep 0.005; done
kill -TERM $pid 2>/dev/null
wait $pid
echo "sampling: $(grep -o 'interrupted at step [0-9]* of [0-9]*' s.err)"
for len in 20 80; do
  cp s.ckpt s$len.ckpt
  "$B" resume s$len.ckpt --t-end $len -o r$len.tsv --quiet || failed "resume --t-end $len"
  "$B" run ou --paths 100000 --t-end $len --observe moments --threads 1 --backend "$BACKEND" \
    --sample-every 40 -o o$len.tsv --quiet || failed "one go --t-end $len"
  if cmp -s <(grep -v '^#' r$len.tsv) <(grep -v '^#' o$len.tsv); then pass; else
    failed "resumed with --t-end $len: not the one-go run sampled every 40 steps"
  fi
done

# progress: never on a non-terminal stderr; on a terminal it shows
"$B" run josephson --paths 256 --periods 50 -o p.tsv 2>p.err
check "no progress bar when stderr is not a terminal" test -z "$(grep -c $'\r' p.err | grep -v '^0$')"
if command -v script >/dev/null 2>&1; then
  script -qec "$B run josephson --paths 20000 --periods 200 -o p2.tsv" /dev/null >tty.txt 2>&1
  check "progress bar on a terminal" grep -q "steps/s.*left" tty.txt
fi

echo "cli_checkpoint: $npass passed, $nfail failed"
[ $nfail = 0 ]
