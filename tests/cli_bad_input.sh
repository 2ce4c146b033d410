#!/usr/bin/env bash
# cli_bad_input.sh: every bad input to sdekit gives exactly one line
# "sdekit: error: ..." on stderr, the documented exit status (2 for bad
# input, 1 for a failure at run time), nothing on stdout, and leaves no file
# behind (neither the -o target nor a *.tmp.* temporary).
#
# Environment (set by CTest): SDK_BIN (the sdekit binary), SDK_SOURCE_DIR,
# SDEKIT_CACHE_DIR (kernel cache; a private one is used when unset).
set -u

BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_bad_input: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_bad_input.XXXXXX") || exit 1
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
W=$T/w # the working directory: everything in it is a file this script made
mkdir "$W" && cd "$W" || exit 1

npass=0
nfail=0

# expect STATUS NAME NPAT PAT1 .. PATn ARGS...
# Runs "sdekit ARGS..." in $W and checks: exit status STATUS; stdout empty;
# stderr exactly one newline-terminated line starting "sdekit: error: " that
# matches every extended regexp PATi; the tree under $W unchanged (no output
# file, no temporary).
expect() {
  local status=$1 name=$2 npat=$3
  shift 3
  local pats=("${@:1:npat}")
  shift "$npat"
  local before after rc lines wlines p
  local problems=()
  before=$(find . | LC_ALL=C sort)
  "$BIN" "$@" >"$T/stdout" 2>"$T/stderr" </dev/null
  rc=$?
  after=$(find . | LC_ALL=C sort)
  [ "$rc" -eq "$status" ] || problems+=("exit status $rc, expected $status")
  [ -s "$T/stdout" ] && problems+=("stdout not empty: $(head -c 200 "$T/stdout" | tr '\n' '|')")
  lines=$(awk 'END { print NR }' "$T/stderr")
  wlines=$(wc -l <"$T/stderr")
  if [ "$lines" -ne 1 ] || [ "$wlines" -ne 1 ]; then
    problems+=("stderr has $lines lines, expected exactly 1")
  fi
  head -n 1 "$T/stderr" | grep -q '^sdekit: error: [^ ]' ||
    problems+=("stderr does not start with 'sdekit: error: <message>'")
  for p in "${pats[@]}"; do
    grep -Eq -- "$p" "$T/stderr" || problems+=("message does not match /$p/")
  done
  if [ "$before" != "$after" ]; then
    problems+=("files changed under the work dir: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ' ')")
    # clean up so that later cases start from the same tree
    comm -13 <(echo "$before") <(echo "$after") | sort -r | while read -r f; do rm -rf "$f"; done
  fi
  [ -n "${SDK_TEST_VERBOSE:-}" ] && echo "[$name] rc=$rc: $(cat "$T/stderr")"
  if [ ${#problems[@]} -eq 0 ]; then
    npass=$((npass + 1))
  else
    nfail=$((nfail + 1))
    echo "FAIL: $name"
    echo "  command: sdekit $*"
    local q
    for q in "${problems[@]}"; do echo "  - $q"; done
    echo "  stderr: $(head -c 600 "$T/stderr" | sed 's/^/    /')"
  fi
}

# check NAME COMMAND...: a plain assertion (counts as one check).
check() {
  local name=$1
  shift
  if "$@"; then
    npass=$((npass + 1))
  else
    nfail=$((nfail + 1))
    echo "FAIL: $name"
  fi
}

J=josephson
JQ=(--paths 8 --periods 2 --quiet)   # tiny josephson run
OQ=(--paths 8 --t-end 0.1 --quiet)   # tiny ou run

# ---------------- the command line ----------------
expect 2 "unknown command" 1 "frobnicate" frobnicate
expect 2 "unknown option" 1 "--bogus" run ou --bogus -o out.h5
# a mistyped name: the one it probably meant (issue 29)
expect 2 "unknown option: the nearest" 1 "unknown option '--tend' \(did you mean '--t-end'\?" \
  run ou --tend 5 -o out.h5
expect 2 "unknown option=VALUE: the nearest" 1 "'--pathz=8' \(did you mean '--paths'\?" \
  run ou --pathz=8 -o out.h5
expect 2 "resume: unknown option: the nearest" 1 "'--tend' \(did you mean '--t-end'\?" \
  resume x.ckpt --tend 5
expect 2 "unknown command: the nearest" 1 "unknown command 'rnu' \(did you mean 'run'\?" rnu ou
# `sdekit devices` answers, GPU or not: exit 0, the table or why there is none
devices_answers() {
  "$BIN" devices >"$T/stdout" 2>"$T/stderr" </dev/null || return 1
  [ ! -s "$T/stderr" ] && grep -Eq '^(device +name|no usable CUDA GPU here \(.+\); runs use --backend cpu$)' "$T/stdout"
}
check "devices exits 0 and says what it found" devices_answers
expect 2 "missing option value (last argument)" 1 "--paths" run ou -o out.h5 --paths
expect 2 "missing -o value" 1 "-o" run ou --quiet -o
expect 2 "missing MODEL" 1 "MODEL|model" run --paths 8 -o out.h5
expect 2 "bench --workload-only without --model" 2 "--workload-only" "--model" bench --workload-only
expect 2 "bench --model without interactions" 1 "no \[meanfield\] or \[pair\]" bench --model ou
expect 2 "bench --paths in hex" 2 "--paths '0x10'" "whole number" bench --paths 0x10
expect 2 "bench --steps=-3" 2 "--steps '-3'" "whole number" bench --steps=-3
expect 2 "two models" 1 "ou|unexpected" run ou josephson -o out.h5
expect 2 "unknown model name" 1 "nosuchmodel" run nosuchmodel -o out.h5
expect 2 "nonexistent model file" 1 "nothere\.sde" run ./nothere.sde -o out.h5
expect 2 "nonexistent model file (bare .sde name)" 1 "nothere\.sde" run nothere.sde -o out.h5
# a directory is not a model file: bad input (2), not an I/O failure
mkdir adir.sde
expect 2 "model file is a directory" 1 "adir\.sde" run ./adir.sde --paths 8 --t-end 0.1 --quiet -o out.h5
rmdir adir.sde
: >empty.sde
expect 2 "empty model file" 1 "empty\.sde" run ./empty.sde --paths 8 --t-end 0.1 --quiet -o out.h5
printf 'this is not a model\n' >prose.sde
expect 2 "model file of prose" 1 "prose\.sde:1" run ./prose.sde --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f empty.sde prose.sde

# ---------------- --set ----------------
# the message lists the known parameters of josephson
expect 2 "--set unknown parameter" 6 "zz" "\ba\b" "gamma" "omega" "\bD\b" "\bf\b" \
  run $J --set zz=1 "${JQ[@]}" -o out.h5
# values are numbers, never code
expect 2 "--set a=1+1" 1 "1\+1" run $J --set a=1+1 "${JQ[@]}" -o out.h5
expect 2 "--set a=sin(1)" 1 "sin\(1\)" run $J --set 'a=sin(1)' "${JQ[@]}" -o out.h5
expect 2 "--set a=" 1 "a=" run $J --set a= "${JQ[@]}" -o out.h5
expect 2 "--set a=pi" 1 "pi" run $J --set a=pi "${JQ[@]}" -o out.h5
expect 2 "--set a=nan" 1 "nan" run $J --set a=nan "${JQ[@]}" -o out.h5
expect 2 "--set a=inf" 1 "inf" run $J --set a=inf "${JQ[@]}" -o out.h5
expect 2 "--set a=0x10" 1 "0x10" run $J --set a=0x10 "${JQ[@]}" -o out.h5
expect 2 "--set a=1e999 (overflows)" 1 "1e999" run $J --set a=1e999 "${JQ[@]}" -o out.h5
expect 2 "--set code injection" 0 \
  run $J --set 'a=1);system("touch pwned");(' "${JQ[@]}" -o out.h5
expect 2 "--set without =" 1 "--set" run $J --set a "${JQ[@]}" -o out.h5
expect 2 "--set =1 (no name)" 1 "--set" run $J --set =1 "${JQ[@]}" -o out.h5

# ---------------- [boundaries], --observe fpt ----------------
expect 2 "--observe fpt without [boundaries]" 2 "--observe fpt needs a model with \[boundaries\]" \
  "model 'josephson' has none" run $J --observe fpt "${JQ[@]}" -o out.h5
printf '[model]\nname = b\nvars = x\n[drift]\nx = 1\n[boundaries]\nr = absorb x*x >= 1\n' >bnd.sde
expect 2 "[boundaries] not a comparison of one variable" 2 "bnd\.sde:7: \[boundaries\] r:" \
  "a comparison of one variable" run ./bnd.sde --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f bnd.sde

# ---------------- --drift, --hist-range ----------------
expect 2 "--drift unknown variable" 3 "\by\b" "\bx\b" "\bv\b" run $J --drift y "${JQ[@]}" -o out.h5
expect 2 "--hist-range unknown variable" 3 "\by\b" "\bx\b" "\bv\b" \
  run $J --observe hist --hist-range y=0:1 "${JQ[@]}" -o out.h5
expect 2 "--hist-range malformed" 1 "--hist-range" run $J --observe hist --hist-range x=0 "${JQ[@]}" -o out.h5
expect 2 "--hist-range HI <= LO" 1 "--hist-range|HI" run $J --observe hist --hist-range x=1:0 "${JQ[@]}" -o out.h5

# ---------------- --scan ----------------
expect 2 "--scan missing N" 1 "a=1:2" run $J --scan a=1:2 "${JQ[@]}" -o out.h5
expect 2 "--scan N=0" 1 "a=1:2:0" run $J --scan a=1:2:0 "${JQ[@]}" -o out.h5
expect 2 "--scan N=2.5" 1 "a=1:2:2\.5" run $J --scan a=1:2:2.5 "${JQ[@]}" -o out.h5
expect 2 "--scan N=-3" 1 "a=1:2:-3" run $J --scan a=1:2:-3 "${JQ[@]}" -o out.h5
expect 2 "--scan non-numeric START" 1 "a=x:2:3" run $J --scan a=x:2:3 "${JQ[@]}" -o out.h5
expect 2 "--scan empty field" 1 "a=1::3" run $J --scan a=1::3 "${JQ[@]}" -o out.h5
expect 2 "--scan empty trailing field" 1 "a=1:2:3:" run $J --scan a=1:2:3: "${JQ[@]}" -o out.h5
expect 2 "--scan bad fourth field" 1 "a=1:2:3:bogus" run $J --scan a=1:2:3:bogus "${JQ[@]}" -o out.h5
expect 2 "--scan too many fields" 1 "a=1:2:3:log:5" run $J --scan a=1:2:3:log:5 "${JQ[@]}" -o out.h5
expect 2 "--scan log with START=0" 1 "log" run $J --scan a=0:2:3:log "${JQ[@]}" -o out.h5
expect 2 "--scan log with START<0" 1 "log" run $J --scan a=-1:2:3:log "${JQ[@]}" -o out.h5
expect 2 "--scan no name" 1 "--scan" run $J --scan =1:2:3 "${JQ[@]}" -o out.h5
expect 2 "--scan no =" 1 "--scan" run $J --scan a "${JQ[@]}" -o out.h5
expect 2 "--scan unknown name" 3 "zz" "gamma" "omega" run $J --scan zz=1:2:2 "${JQ[@]}" -o out.h5
expect 2 "--scan same parameter twice" 1 "\ba\b" run $J --scan a=1:2:2 --scan a=3:4:2 "${JQ[@]}" -o out.h5
# --set and --scan of one parameter: refused naming it (the scan used to win silently)
expect 2 "--set and --scan of one parameter" 1 "^sdekit: error: --set a and --scan a: parameter 'a' is either fixed or scanned, give one of them$" \
  run $J --set a=5 --scan a=1:2:2 "${JQ[@]}" -o out.h5
expect 2 "--scan and --set of one parameter, other order" 1 "--set D and --scan D: parameter 'D'" \
  run $J --scan a=1:2:2 --scan D=0.1:0.2:2 --set D=0.5 "${JQ[@]}" -o out.h5
# any number of axes up to SDK_MAX_SCAN (5); the grid's size is the real limit,
# refused with its points and memory before anything is allocated (issue 28)
cat >six.sde <<'EOF'
[model]
name = six
vars = x
[params]
p1 = 1
p2 = 1
p3 = 1
p4 = 1
p5 = 1
p6 = 1
[drift]
x = -p1*x + p2 + p3 + p4 + p5 + p6
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "six --scan axes" 2 "--scan p6: at most 5 scan axes" "zip" \
  run ./six.sde --scan p1=1:2:2 --scan p2=1:2:2 --scan p3=1:2:2 --scan p4=1:2:2 --scan p5=1:2:2 \
  --scan p6=1:2:2 --paths 8 --t-end 0.1 --quiet -o out.h5
expect 2 "grid too large" 3 "1e\+12 grid points \(10000 x 10000 x 10000\)" "GiB" "maximum of 134217728" \
  run $J --scan a=1:2:10000 --scan f=0:1:10000 --scan D=0.1:0.2:10000 "${JQ[@]}" -o out.h5
expect 2 "zipped --scan, N differ" 2 "same N" "a has 3 points, f has 4" \
  run $J --scan a,f=1:2:3,0:1:4 "${JQ[@]}" -o out.h5
expect 2 "zipped --scan, fewer ranges than names" 1 "2 names but 1 ranges" \
  run $J --scan a,f=1:2:3 "${JQ[@]}" -o out.h5
expect 2 "--scan +NAME, N differ" 2 "same N" "a has 3 points, f has 2" \
  run $J --scan a=1:2:3 --scan +f=0:1:2 "${JQ[@]}" -o out.h5
expect 2 "--scan +NAME with no --scan before" 1 "there is none" \
  run $J --scan +f=0:1:2 "${JQ[@]}" -o out.h5
expect 2 "zipped --scan names a parameter twice" 1 "\ba\b.*twice" \
  run $J --scan a,a=1:2:3,0:1:3 "${JQ[@]}" -o out.h5
printf 'a\tf\n1\t0\n2\tnan\n' >nan.tsv
expect 2 "--scan-file NaN" 2 "nan\.tsv:3" "is not a number" run $J --scan-file nan.tsv "${JQ[@]}" -o out.h5
printf 'a\tf\n1\t0\n2\n' >ragged.tsv
expect 2 "--scan-file ragged row" 2 "ragged\.tsv:3" "1 values, the header names 2" \
  run $J --scan-file ragged.tsv "${JQ[@]}" -o out.h5
printf 'a\tzz\n1\t0\n' >unknown.tsv
expect 2 "--scan-file unknown name" 2 "unknown\.tsv:1: --scan-file column zz" "has no parameter" run $J --scan-file unknown.tsv "${JQ[@]}" -o out.h5
printf 'a\ta\n1\t0\n' >dup.tsv
printf 'f\ta\n1\t0\n' >good.tsv
expect 2 "--scan-file duplicate name" 2 "dup\.tsv:1" "'a' named twice" \
  run $J --scan-file dup.tsv "${JQ[@]}" -o out.h5
expect 2 "--scan-file missing" 1 "no-such\.tsv" run $J --scan-file no-such.tsv "${JQ[@]}" -o out.h5
expect 2 "--scan-file and --scan of one parameter" 1 "\ba\b.*twice" \
  run $J --scan a=1:2:2 --scan-file good.tsv "${JQ[@]}" -o out.h5
rm -f six.sde nan.tsv ragged.tsv unknown.tsv dup.tsv good.tsv
expect 2 "--scan value never becomes code" 0 run $J --scan 'a=sin(1):2:2' "${JQ[@]}" -o out.h5

# ---------------- time stepping and ensemble ----------------
expect 2 "--dt 0" 1 "--dt" run ou --dt 0 "${OQ[@]}" -o out.h5
expect 2 "--dt -1" 1 "--dt" run ou --dt -1 "${OQ[@]}" -o out.h5
expect 2 "--dt abc" 1 "--dt" run ou --dt abc "${OQ[@]}" -o out.h5
expect 2 "--dt nan" 1 "--dt" run ou --dt nan "${OQ[@]}" -o out.h5
expect 2 "--paths 0" 1 "--paths" run ou --paths 0 --t-end 0.1 --quiet -o out.h5
expect 2 "--paths -5" 1 "--paths" run ou --paths -5 --t-end 0.1 --quiet -o out.h5
expect 2 "--paths 1.5" 1 "--paths" run ou --paths 1.5 --t-end 0.1 --quiet -o out.h5
expect 2 "--paths abc" 1 "--paths" run ou --paths abc --t-end 0.1 --quiet -o out.h5
expect 2 "--t-end 0" 1 "--t-end" run ou --t-end 0 --paths 8 --quiet -o out.h5
expect 2 "--t-end -1" 1 "--t-end" run ou --t-end -1 --paths 8 --quiet -o out.h5
expect 2 "--t-end shorter than one step" 1 "--t-end|step" run ou --t-end 0.001 --dt 0.01 --paths 8 --quiet -o out.h5
expect 2 "--spp on a model without period" 2 "period" "--spp" run ou --spp 10 "${OQ[@]}" -o out.h5
expect 2 "--periods on a model without period" 2 "period" "--periods" run ou --periods 10 --paths 8 --quiet -o out.h5
expect 2 "--transient-periods on a model without period" 2 "period" "--transient-periods" \
  run ou --transient-periods 1 "${OQ[@]}" -o out.h5
expect 2 "--spp 0" 1 "--spp" run $J --spp 0 "${JQ[@]}" -o out.h5
expect 2 "--dt together with --spp" 2 "--dt" "--spp" run $J --dt 0.01 --spp 50 "${JQ[@]}" -o out.h5
expect 2 "--t-end together with --periods" 2 "--t-end" "--periods" \
  run $J --t-end 5 --periods 3 --paths 8 --quiet -o out.h5
expect 2 "--transient together with --transient-periods" 2 "--transient" "--transient-periods" \
  run $J --transient 1 --transient-periods 1 "${JQ[@]}" -o out.h5
expect 2 "--transient longer than the run" 1 "transient" run ou --transient 2 --t-end 1 --paths 8 --quiet -o out.h5
expect 2 "--transient equal to the run" 1 "transient" run ou --transient 1 --t-end 1 --paths 8 --quiet -o out.h5
expect 2 "--transient-periods longer than the run" 1 "transient" \
  run $J --transient-periods 5 --periods 3 --paths 8 --quiet -o out.h5
expect 2 "--transient -1" 1 "--transient" run ou --transient -1 "${OQ[@]}" -o out.h5
expect 2 "--seed -1" 1 "--seed" run ou --seed -1 "${OQ[@]}" -o out.h5
expect 2 "--seed abc" 1 "--seed" run ou --seed abc "${OQ[@]}" -o out.h5
expect 2 "--threads 0" 1 "--threads" run ou --threads 0 "${OQ[@]}" -o out.h5
# several GPUs from one process (issue 32): --ranks, --device lists and all
expect 2 "--ranks 0" 1 "--ranks '0'" run ou --ranks 0 "${OQ[@]}" -o out.h5
expect 2 "--ranks 65" 1 "from 1 to 64" run ou --ranks 65 "${OQ[@]}" -o out.h5
expect 2 "--device 0,,1" 1 "--device '0,,1'" run ou --device 0,,1 "${OQ[@]}" -o out.h5
expect 2 "--device all on the CPU" 2 "--device all" "cpu backend" run ou --device all --backend cpu "${OQ[@]}" -o out.h5
expect 2 "--device 0,1 on the CPU" 2 "--device 0" "cpu backend" run ou --device 0,1 --backend cpu "${OQ[@]}" -o out.h5
expect 2 "--bins 0" 1 "--bins" run ou --observe hist --bins 0 "${OQ[@]}" -o out.h5
# an option of acf/psd in a run of neither would change nothing and say nothing
expect 2 "--max-lag without acf" 2 "--max-lag applies to --observe acf and psd" "computes neither" \
  run ou --observe moments --max-lag 4 "${OQ[@]}" -o out.h5
expect 2 "--psd-segment without psd" 1 "--psd-segment applies to --observe acf and psd" \
  run ou --observe hist --psd-segment 8 "${OQ[@]}" -o out.h5
expect 2 "--psd-window rect without psd" 1 "--psd-window rect applies" \
  run ou --observe moments --psd-window rect "${OQ[@]}" -o out.h5
expect 2 "--psd-on-host without psd" 1 "--psd-on-host applies" run ou --psd-on-host "${OQ[@]}" -o out.h5
expect 2 "--corr-vars without acf or psd" 1 "--corr-vars applies" \
  run ou --observe hist --corr-vars x "${OQ[@]}" -o out.h5
expect 2 "--sample-every 0" 1 "--sample-every" run ou --observe moments --sample-every 0 "${OQ[@]}" -o out.h5
# --sample-times (issue 28): syntax, order, the step boundaries, the end
ST=(run ou --observe moments --paths 8 --quiet -o out.h5)
expect 2 "--sample-times not a step boundary" 4 "time 2, t = 0.125, is not a step boundary" \
  "--dt" "t = 0.12 \(step 12\)" "t = 0.13 \(step 13\)" "${ST[@]}" --dt 0.01 --sample-times 0.1,0.125
expect 2 "--sample-times decreasing" 2 "must increase" "0.05" "${ST[@]}" --sample-times 0.1,0.05
expect 2 "--sample-times equal" 1 "must increase" "${ST[@]}" --sample-times 0.1,0.1
expect 2 "--sample-times beyond t_end" 2 "after the end of the run" "t_end = 1" \
  "${ST[@]}" --t-end 1 --sample-times 0.5,2
expect 2 "--sample-times negative" 1 "negative" "${ST[@]}" --sample-times -1,2
expect 2 "--sample-times not a number" 2 "'abc' is not a number" "lin:A:B:N" \
  "${ST[@]}" --sample-times 0.1,abc
expect 2 "--sample-times empty field" 1 "is not a number" "${ST[@]}" --sample-times 0.1,
expect 2 "--sample-times lin missing N" 1 "expected increasing times" "${ST[@]}" --sample-times lin:0:1
expect 2 "--sample-times lin N=1" 1 "expected increasing times" "${ST[@]}" --sample-times lin:0:1:1
expect 2 "--sample-times bad suffix" 1 "expected increasing times" "${ST[@]}" --sample-times lin:0:1:5:rnd
expect 2 "--sample-times log from 0" 1 "0 < A < B" "${ST[@]}" --sample-times log:0:1:5
expect 2 "--sample-times log incommensurate" 3 "no time step" "--dt" ":round" \
  "${ST[@]}" --sample-times log:0.01:1:7
expect 2 "--sample-times round to the same step" 1 "round to the same step" \
  "${ST[@]}" --dt 0.1 --sample-times log:0.1:1:9:round
expect 2 "--sample-times round to 0" 1 "rounds to t = 0" "${ST[@]}" --dt 0.1 --sample-times log:0.01:1:3:round
expect 2 "--sample-times and --sample-every" 1 "not both" "${ST[@]}" --sample-times 1,2 --sample-every 3
expect 2 "--sample-times with nothing sampled" 1 "none of the observables" \
  run ou --paths 8 --quiet -o out.h5 --sample-times 1,2
expect 2 "--sample-times with --mlmc" 1 "--sample-times cannot be combined" \
  "${ST[@]}" --sample-times 1,2 --mlmc 0.1
expect 2 "--sample-times odd step with --dt-check" 2 "odd number of steps" "even" \
  "${ST[@]}" --dt 0.01 --dt-check --sample-times 0.02,0.03
expect 2 "--sample-times with a scanned period" 1 "differs between grid points" \
  run $J --scan omega=4:5:2 --observe moments --paths 8 --quiet -o out.h5 --sample-times 1,2
expect 2 "period depends on scan and --t-end" 1 "period|dt" \
  run $J --scan omega=4:5:2 --t-end 5 --paths 8 --quiet -o out.h5

# ---------------- scheme, precision, backend, observables ----------------
expect 2 "--scheme bogus" 3 "bogus" "euler" "srk2" run ou --scheme bogus "${OQ[@]}" -o out.h5
expect 2 "--noise bogus" 3 "unknown noise 'bogus'" "gaussian" "three-point" \
  run ou --noise bogus --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = b\nvars = x\n[drift]\nx = 1\n[noise]\nx = 1\n[init]\nx = 0\n[boundaries]\nr = absorb x >= 1\n' >bnd3.sde
expect 2 "--noise three-point with [boundaries]" 2 "--noise three-point" "Brownian" \
  run ./bnd3.sde --noise three-point --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f bnd3.sde
expect 2 "--calculus bogus" 3 "bogus" "ito" "stratonovich" \
  run gbm --calculus bogus --paths 8 --t-end 0.1 --quiet -o out.h5
expect 2 "--compensate bogus" 3 "bogus" "all" "auto" \
  run gbm --compensate bogus --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = g\nvars = S\ncalculus = stratonovich\n[drift]\nS = S\n[noise]\nS = tgamma(S)\n[init]\nS = 1\n' >cal.sde
expect 2 "stratonovich noise without derivative, --scheme euler" 3 "cal\.sde:8 \[noise\] S: tgamma" \
  "digamma" "--scheme srk2 integrates it" run ./cal.sde --scheme euler --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = g\nvars = S\ncalculus = Ito\n[drift]\nS = S\n' >cal.sde
expect 2 "[model] calculus = Ito" 2 "cal\.sde:4: \[model\] calculus must be ito or stratonovich" \
  "'Ito'" run ./cal.sde --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f cal.sde
# the noises a model declares: [model] wiener / correlation, [jumps], [dichotomous]
printf '[model]\nname = w\nvars = x\nwiener = W1, W2\n[drift]\nx = 0\n[noise]\nx = dW1*dW2\n' >nz.sde
expect 2 "noise line not linear in the increments" 2 "nz\.sde:8: \[noise\] x" "linear in the increments" \
  run ./nz.sde --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = w\nvars = x\nwiener = W1, W2\ncorrelation = W1 W3 : 0.5\n[drift]\nx = 0\n[noise]\nx = dW1 + dW2\n' >nz.sde
expect 2 "correlation of an unknown Wiener process" 2 "nz\.sde:5: \[model\] correlation" "W1, W2" \
  run ./nz.sde --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = w\nvars = x\nwiener = W1, W2\ncorrelation = W1 W2 : r\n[params]\nr = 0.5\n[drift]\nx = 0\n[noise]\nx = dW1 + dW2\n' >nz.sde
expect 2 "correlation out of [-1, 1] at a scanned grid point" 3 "nz\.sde" "must be in \[-1, 1\]" "r=1\.5" \
  run ./nz.sde --scan r=0.5,1.5 --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = w\nvars = x\nwiener = A, B\n[drift]\nx = 0\n[noise]\nx = x*dA + dB\n' >nz.sde
expect 2 "milstein with state-dependent shared noise" 3 "Levy areas" "--scheme" "euler" \
  run ./nz.sde --scheme milstein --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = j\nvars = x\n[params]\nlam = 1\n[drift]\nx = 0\n[jumps]\nx = lam : gamma(2)\n' >nz.sde
expect 2 "[jumps] unknown amplitude" 2 "nz\.sde:9: \[jumps\] x" "fixed\(a\), exp\(mean\)" \
  run ./nz.sde --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = j\nvars = x\n[params]\nlam = 1\n[drift]\nx = 0\n[jumps]\nx = lam : exp(1)\n' >nz.sde
expect 2 "[jumps] negative rate from --set" 2 "nz\.sde:9: \[jumps\] x" "the rate is -1" \
  run ./nz.sde --set lam=-1 --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = d\nvars = x\n[dichotomous]\neta = 1, -1, 2\n[drift]\nx = eta\n' >nz.sde
expect 2 "[dichotomous] with three values" 2 "nz\.sde:5: \[dichotomous\] eta" "RATE_AB, RATE_BA" \
  run ./nz.sde --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = d\nvars = x\n[dichotomous]\neta = 1, -1, 2, 2\n[drift]\nx = eta\n[init]\neta = 0\n' >nz.sde
expect 2 "[dichotomous] starting at neither value" 2 "\[init\] eta = 0" "A = 1 or B = -1" \
  run ./nz.sde --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = d\nvars = x\n[dichotomous]\neta = 1, -1, 2, 2\n[drift]\nx = eta\n[boundaries]\nr = absorb x >= 1\n' >nz.sde
expect 2 "[dichotomous] with [boundaries]" 2 "nz\.sde:5" "together with \[boundaries\]" \
  run ./nz.sde --paths 8 --t-end 0.1 --quiet -o out.h5
# a noise held over a step must have its correlation time resolved: dt at
# most a tenth of it (a scanned rate at its grid point; a tenth exactly runs)
printf '[model]\nname = d\nvars = x\n[params]\ng = 2\n[dichotomous]\neta = 1, -1, g, g\n[drift]\nx = -x + eta\n' >nz.sde
expect 2 "[dichotomous] switching faster than dt resolves" 3 "nz\.sde:7: \[dichotomous\] eta" \
  "dt = 0\.01 is 1 times its correlation time" "at most a tenth of it, 0\.001 \(at grid point 1 \(g=50\)\)" \
  run ./nz.sde --scan g=2,50 --dt 0.01 --paths 8 --t-end 0.1 --quiet -o out.h5
check "[dichotomous] at dt a tenth of its correlation time runs" \
  "$BIN" run ./nz.sde --set g=5 --dt 0.01 --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f out.h5
printf '[model]\nname = c\nvars = x\n[params]\ntau = 0.001\n[colored]\neta = tau, 0.3\n[drift]\nx = -x + eta\n' >nz.sde
expect 2 "[colored] TAU below 10 dt" 3 "nz\.sde:7: \[colored\] eta" "dt = 0\.01 is 10 times TAU = 0\.001" \
  "at most TAU/10 = 0\.0001" run ./nz.sde --dt 0.01 --paths 8 --t-end 0.1 --quiet -o out.h5
check "[colored] at dt = TAU/10 runs" \
  "$BIN" run ./nz.sde --set tau=0.1 --dt 0.01 --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f out.h5
# a start beyond a reflecting wall (at the grid point that puts it there),
# a noise coefficient that is no number at a grid point: each said before
# the run, not as paths that blew up with the advice of a smaller dt
printf '[model]\nname = r\nvars = x\n[params]\nb = 1\n[drift]\nx = 0\n[noise]\nx = 1\n[init]\nx = 0.5\n[boundaries]\nlo = reflect x <= 0\nhi = reflect x >= b\n' >nz.sde
expect 2 "[init] beyond a reflecting wall" 3 "nz\.sde:11: \[init\] x starts at 0\.5, beyond the reflecting wall 'hi'" \
  "x >= 0\.25, line 14" "grid point 1 \(b=0\.25\)" \
  run ./nz.sde --scan b=2,0.25 --paths 8 --t-end 0.1 --quiet -o out.h5
# a normal() start reaches 6.76 standard deviations (the generator's
# farthest deviate): a reflecting wall within that would fold the start's law
printf '[model]\nname = r\nvars = x\n[params]\ns = 1\n[drift]\nx = 0\n[noise]\nx = 1\n[init]\nx = normal(0, s)\n[boundaries]\nlo = reflect x <= -3\n' >nz.sde
expect 2 "[init] normal() reaching a reflecting wall" 3 "nz\.sde:11: \[init\] x starts normal\(\), which reaches -4\.734[0-9]* \(6\.76 standard deviations" \
  "beyond the reflecting wall 'lo' \(x <= -3, line 13\)" "grid point 1 \(s=0\.7\)" \
  run ./nz.sde --scan s=0.4,0.7 --paths 8 --t-end 0.1 --quiet -o out.h5
check "[init] normal() farther than 6.76 sd from a reflecting wall runs" \
  "$BIN" run ./nz.sde --set s=0.4 --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f out.h5
printf '[model]\nname = p\nvars = x\n[params]\na = 0.5\n[drift]\nx = 0\n[noise]\nx = 1\n[init]\nx = 0\n[boundaries]\nhi = absorb x >= a\nlo = absorb x <= -a\n' >nz.sde
expect 2 "[init] inside an absorbing condition" 2 "nz\.sde:11: \[init\] x starts at 0, past the absorbing level of 'hi' \(x >= -0\.5, line 13\)" \
  "grid point 0 \(a=-0\.5\)" run ./nz.sde --observe fpt --scan a=-0.5,0.5 --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = o\nvars = x\n[params]\nD = 1\n[drift]\nx = -x\n[noise]\nx = sqrt(2*D)\n' >nz.sde
expect 2 "[noise] NaN at a grid point" 2 "nz\.sde:9: \[noise\] x is nan at these parameter values" \
  "grid point 0 \(D=-1\)" run ./nz.sde --scan D=-1,1 --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f nz.sde
# a binary format's name on other bytes: that, not a table's columns
printf 'garbage\n' >g.npy
expect 2 "--init-from x=FILE.npy that is text" 1 "g\.npy: not a NumPy \.npy file" \
  run ou --init-from x=g.npy --paths 8 --t-end 0.1 --quiet -o out.h5
printf 'garbage\n' >g.h5
expect 2 "--init-from FILE.h5 that is text" 1 "g\.h5: not an HDF5 file" \
  run ou --init-from g.h5 --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f g.npy g.h5
# --noise replaces Gaussian values: a model without any is refused, not
# recorded with a noise it never drew
printf '[model]\nname = l\nvars = x\n[levy]\nx = 2, 0, 1\n[drift]\nx = -x\n' >nz.sde
expect 2 "--noise three-point, [levy] noise only" 2 "--noise three-point replaces Gaussian" \
  "model 'l' has none" run ./nz.sde --noise three-point --paths 8 --t-end 0.1 --quiet -o out.h5
printf '[model]\nname = j\nvars = x\n[drift]\nx = -x\n[jumps]\nx = 1 : exp(1)\n' >nz.sde
expect 2 "--noise three-point, [jumps] only" 1 "model 'j' has none" \
  run ./nz.sde --noise three-point --paths 8 --t-end 0.1 --quiet -o out.h5
rm -f nz.sde
expect 2 "--precision quad" 1 "quad" run ou --precision quad "${OQ[@]}" -o out.h5
# a single-precision kernel holds parameters as floats: one not 0 below
# FLT_MIN would be 0 there (a variance of 0), one beyond FLT_MAX Inf
printf '[model]\nname = tiny\nvars = x\n[params]\nD = 1e-46\nL = 1e-23\nF = 1\n[drift]\nx = F\n[noise]\nx = sqrt(2*D)/L\n[init]\nx = 0\n' >tiny.sde
expect 2 "single precision: a parameter below float's range" 2 "tiny\.sde:5: \[params\] D is 1e-46, outside single precision" \
  "--precision double" run ./tiny.sde "${OQ[@]}" -o out.h5
expect 2 "single precision: a scanned value beyond float's range" 2 "\[params\] F is 1e\+39 at grid point 1" \
  "outside single precision" run ./tiny.sde --set D=1 --set L=1 --scan F=1,1e39 "${OQ[@]}" -o out.h5
rm -f tiny.sde
# a scanned parameter named like another axis of the results: two axes of one
# name in a dataset's dims, which xarray took for one (a review)
printf '[model]\nname = s\nvars = x\n[params]\nsample = 1\n[drift]\nx = -sample*x\n[noise]\nx = 0\n[init]\nx = 1\n' >samp.sde
expect 2 "--scan of a parameter named sample" 2 "--scan sample: 'sample' also names an axis" \
  "rename the parameter" run ./samp.sde --scan sample=1,2,3 "${OQ[@]}" -o out.h5
rm -f samp.sde
expect 2 "--backend bogus" 2 "bogus" "cpu" run ou --backend bogus "${OQ[@]}" -o out.h5
expect 2 "--observe bogus" 2 "bogus" "drift" run ou --observe bogus "${OQ[@]}" -o out.h5
expect 2 "--observe drift,bogus" 1 "bogus" run ou --observe drift,bogus "${OQ[@]}" -o out.h5
expect 2 "--observe empty" 1 "--observe" run ou --observe , "${OQ[@]}" -o out.h5

# ---------------- output ----------------
expect 2 "-o into a nonexistent directory" 1 "nodir" run ou "${OQ[@]}" -o nodir/out.h5
expect 2 "-o tsv into a nonexistent directory" 1 "nodir" run ou "${OQ[@]}" -o nodir/out.tsv
if [ "$(id -u)" -ne 0 ]; then
  mkdir ro && chmod a-w ro
  expect 2 "-o into a read-only directory" 1 "ro/out\.h5" run ou "${OQ[@]}" -o ro/out.h5
  expect 2 "-o tsv into a read-only directory" 1 "ro/out\.tsv" run ou "${OQ[@]}" -o ro/out.tsv
  chmod u+w ro && rmdir ro
else
  echo "note: running as root, skipping the read-only directory cases"
fi
mkdir isdir.h5
expect 2 "-o onto a directory" 1 "isdir\.h5" run ou "${OQ[@]}" -o isdir.h5
rmdir isdir.h5
expect 2 "-o with a bad extension" 1 "out\.csv" run ou "${OQ[@]}" -o out.csv
expect 2 "-o with no extension" 1 "outfile" run ou "${OQ[@]}" -o outfile
expect 2 "-o - with two observables" 1 "observ|stdout" run ou --observe drift,moments "${OQ[@]}" -o -
expect 2 "no -o (stdout) with two observables" 1 "observ|stdout" run ou --observe drift,moments "${OQ[@]}"
expect 2 "-o with --precision bad still leaves nothing" 1 "quad" run ou --precision quad "${OQ[@]}" -o out.tsv

# ---------------- info ----------------
printf 'this is not an HDF5 file\n' >noth5.h5
expect 2 "info on a non-HDF5 file" 1 "noth5\.h5" info noth5.h5
# A file that cannot be read is an I/O failure: SDK_ERR_IO, exit status 1
# (src/io/io.h documents sdk_h5_info returning SDK_ERR_IO for it).
expect 2 "info on a missing file" 1 "missing\.h5" info missing.h5
expect 2 "info without a file" 0 info
mkdir adir.h5
expect 2 "info on a directory" 1 "adir\.h5" info adir.h5
rmdir adir.h5
rm -f noth5.h5
# a valid result file, then damaged copies of it
if "$BIN" run ou "${OQ[@]}" -o good.h5 2>"$T/stderr" && [ -s good.h5 ]; then
  size=$(wc -c <good.h5)
  for n in 100 1000 $((size / 2)) $((size - 30)); do
    head -c "$n" good.h5 >"trunc$n.h5"
    expect 2 "info on a file truncated to $n of $size bytes" 1 "trunc$n\.h5" info "trunc$n.h5"
    rm -f "trunc$n.h5"
  done
  rm -f good.h5
else
  nfail=$((nfail + 1))
  echo "FAIL: sdekit run ou ${OQ[*]} -o good.h5: $(cat "$T/stderr")"
fi
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  /usr/bin/python3 -c 'import h5py, sys
with h5py.File(sys.argv[1], "w") as f:
    f["x"] = [1, 2, 3]' plain.h5
  expect 2 "info on an HDF5 file that is not an sdekit file" 2 "plain\.h5" "sdekit" info plain.h5
  rm -f plain.h5
fi

# ---------------- malformed model files ----------------
# mk NAME: write stdin to NAME.sde
mk() { cat >"$1.sde"; }
# lineof FILE PATTERN: the line number of the first line matching PATTERN
lineof() { grep -n -m1 -- "$2" "$1" | cut -d: -f1; }

good_body() {
  cat <<'EOF'
[params]
k = 1.0
[drift]
x = -k*x
[noise]
x = 1
[init]
x = 0
EOF
}

{ printf '[model]\nvars = x\n'; good_body; } | mk noname
expect 2 "model without name" 2 "noname\.sde" "name" run ./noname.sde "${OQ[@]}" -o out.h5

{ printf '[model]\nname = m\n'; good_body; } | mk novars
expect 2 "model without vars" 2 "novars\.sde" "vars" run ./novars.sde "${OQ[@]}" -o out.h5

{ printf '[model]\nname = m\nvars =\n'; good_body; } | mk emptyvars
expect 2 "model with empty vars" 2 "emptyvars\.sde" "vars" run ./emptyvars.sde "${OQ[@]}" -o out.h5

{ printf '[model]\nname = m\nvars = x\n'; good_body; printf '[colours]\nred = 1\n'; } | mk badsect
expect 2 "unknown section" 2 "badsect\.sde" "colours" run ./badsect.sde "${OQ[@]}" -o out.h5

{ printf '[model]\nname = m\nvars = x\ncolour = red\n'; good_body; } | mk badkey
expect 2 "unknown key in [model]" 3 "badkey\.sde:4" "colour" "model" run ./badkey.sde "${OQ[@]}" -o out.h5


mk driftunk <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*x
y = 1
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "drift for an unknown variable" 3 "driftunk\.sde:8" "'?y'?" "\bx\b" run ./driftunk.sde "${OQ[@]}" -o out.h5

mk unkname <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*x + qq
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "expression with an unknown name" 4 "unkname\.sde:7" "qq" "\bk\b" "\bx\b" \
  run ./unkname.sde "${OQ[@]}" -o out.h5

mk syntax <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*(x
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "syntax error in an expression" 1 "syntax\.sde:7" run ./syntax.sde "${OQ[@]}" -o out.h5

mk syntax2 <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*x
[noise]
x = 1 +
[init]
x = 0
EOF
expect 2 "syntax error in a noise expression" 1 "syntax2\.sde:9" run ./syntax2.sde "${OQ[@]}" -o out.h5

mk caret <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*x^2
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "x^2 suggests pow" 2 "caret\.sde:7" "pow" run ./caret.sde "${OQ[@]}" -o out.h5

mk unkfunc <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*frob(x)
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "unknown function" 2 "unkfunc\.sde:7" "frob" run ./unkfunc.sde "${OQ[@]}" -o out.h5

mk nargs <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*sin(x, 2)
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "too many function arguments" 3 "nargs\.sde:7" "sin" "argument" run ./nargs.sde "${OQ[@]}" -o out.h5

mk nargs2 <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*pow(x)
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "too few function arguments" 3 "nargs2\.sde:7" "pow" "argument" run ./nargs2.sde "${OQ[@]}" -o out.h5

mk nodrift <<'EOF'
[model]
name = m
vars = x, y
[params]
k = 1.0
[drift]
x = -k*x
[noise]
x = 1
[init]
x = 0
y = 0
EOF
expect 2 "missing drift for a variable" 3 "nodrift\.sde" "drift" "'?y'?" run ./nodrift.sde "${OQ[@]}" -o out.h5

mk dupkey <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
k = 2.0
[drift]
x = -k*x
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "duplicate key" 3 "dupkey\.sde:6" "\bk\b" "twice" run ./dupkey.sde "${OQ[@]}" -o out.h5

mk dupdrift <<'EOF'
[model]
name = m
vars = x
[params]
k = 1.0
[drift]
x = -k*x
x = -2*k*x
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "duplicate drift equation" 2 "dupdrift\.sde:8" "twice" run ./dupdrift.sde "${OQ[@]}" -o out.h5

mk pnan <<'EOF'
[model]
name = m
vars = x
[params]
k = abc
[drift]
x = -k*x
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "parameter value not a number" 3 "pnan\.sde:5" "\bk\b" "abc" run ./pnan.sde "${OQ[@]}" -o out.h5

# a parameter may be an expression of the parameters above it (k = 1+1 is
# fine now), never of one below it
mk pexpr <<'EOF'
[model]
name = m
vars = x
[params]
k = 1+j
j = 1
[drift]
x = -k*x
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "parameter value an expression of one below it" 3 "pexpr\.sde:5" "\[params\] k" "uses 'j', which is defined below it \(line 6\)" run ./pexpr.sde "${OQ[@]}" -o out.h5

for rw in sin t pi exp; do
  mk "var_$rw" <<EOF
[model]
name = m
vars = $rw
[params]
k = 1.0
[drift]
$rw = -k*$rw
[noise]
$rw = 1
[init]
$rw = 0
EOF
  expect 2 "variable named '$rw' (reserved)" 2 "var_$rw\.sde:3" "\b$rw\b" run "./var_$rw.sde" "${OQ[@]}" -o out.h5
done

mk param_sin <<'EOF'
[model]
name = m
vars = x
[params]
sin = 1.0
[drift]
x = -x
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "parameter named 'sin' (reserved)" 2 "param_sin\.sde:5" "sin" run ./param_sin.sde "${OQ[@]}" -o out.h5

mk varparam <<'EOF'
[model]
name = m
vars = x
[params]
x = 1.0
[drift]
x = -x
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "name both a variable and a parameter" 2 "varparam\.sde" "\bx\b" run ./varparam.sde "${OQ[@]}" -o out.h5

mk badperiod <<'EOF'
[model]
name = m
vars = x
period = 2*pi/omega
[params]
omega = 1.0
[drift]
x = -x + cos(omega*t)
[noise]
x = 1
[init]
x = 0
EOF
expect 2 "period < 0 at the chosen parameters" 2 "badperiod\.sde:4" "period" \
  run ./badperiod.sde --set omega=-1 --paths 8 --periods 2 --quiet -o out.h5
expect 2 "period infinite at the chosen parameters" 2 "badperiod\.sde:4" "period" \
  run ./badperiod.sde --set omega=0 --paths 8 --periods 2 --quiet -o out.h5
expect 2 "period <= 0 at one scan point" 2 "badperiod\.sde:4" "period" \
  run ./badperiod.sde --scan omega=1:-1:3 --paths 8 --periods 2 --quiet -o out.h5

# ---------------- failures at run time: exit status 1 ----------------
mk blowup <<'EOF'
[model]
name = blowup
vars = x
[params]
k = 10
[drift]
x = k*x*x
[noise]
x = 0.1
[init]
x = 1
EOF
expect 1 "paths blow up (h5)" 2 "grid point" "NaN|Inf|nan|inf" \
  run ./blowup.sde --scheme euler --paths 16 --t-end 5 --quiet -o out.h5
expect 1 "paths blow up (tsv)" 2 "grid point" "NaN|Inf|nan|inf" \
  run ./blowup.sde --scheme euler --paths 16 --t-end 5 --quiet -o out.tsv
expect 1 "paths blow up (several tsv)" 2 "grid point" "NaN|Inf|nan|inf" \
  run ./blowup.sde --scheme euler --observe drift,moments,hist --paths 16 --t-end 5 --quiet -o out.tsv
expect 1 "paths blow up (stdout)" 2 "grid point" "NaN|Inf|nan|inf" \
  run ./blowup.sde --paths 16 --t-end 5 --quiet -o -
# a failed run leaves an existing target as it was
for f in keep.h5 keep.tsv keep.drift.tsv keep.moments.tsv; do echo "old $f" >"$f"; done
expect 1 "paths blow up: existing .h5 target kept" 1 "NaN|Inf" \
  run ./blowup.sde --scheme euler --paths 16 --t-end 5 --quiet -o keep.h5
expect 1 "paths blow up: existing .tsv target kept" 1 "NaN|Inf" \
  run ./blowup.sde --scheme euler --paths 16 --t-end 5 --quiet -o keep.tsv
expect 1 "paths blow up: existing BASE.OBS.tsv targets kept" 1 "NaN|Inf" \
  run ./blowup.sde --scheme euler --observe drift,moments --paths 16 --t-end 5 --quiet -o keep.tsv
expect 2 "bad input: existing target kept" 1 "quad" run ou --precision quad "${OQ[@]}" -o keep.h5

# MPI (issue 15): --device lists and SDEKIT_MPI (no launcher here: one process)
expect 2 "device list with an empty entry" 2 "--device '0,,1'" "GPU ordinal" \
  run ou --device 0,,1 --quiet -o out.h5
expect 2 "device list with a word" 2 "--device '0,gpu1'" "GPU ordinal" \
  run ou --device 0,gpu1 --quiet -o out.h5
expect 2 "device list of 17" 1 "up to 16" run ou --device 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 \
  --quiet -o out.h5
SDEKIT_MPI=yes expect 2 "SDEKIT_MPI neither 0 nor 1" 2 "SDEKIT_MPI='yes'" "expected 0" \
  run ou --quiet -o out.h5
for f in keep.h5 keep.tsv keep.drift.tsv keep.moments.tsv; do
  check "$f unchanged after the failed runs" test "$(cat "$f")" = "old $f"
done
rm -f keep.h5 keep.tsv keep.drift.tsv keep.moments.tsv
# scanned: only k=5 and k=10 blow up; the message names the first such grid
# point, and the healthy point is written (issue 10 item 9: NaN for the others)
blown() {
  local name=$1 pat=$2
  shift 2
  "$BIN" "$@" >"$T/stdout" 2>"$T/stderr" </dev/null
  local rc=$?
  if [ $rc = 1 ] && [ "$(wc -l <"$T/stderr")" = 1 ] && grep -Eq "$pat" "$T/stderr" &&
     [ -s out.h5 ]; then
    npass=$((npass + 1))
  else
    nfail=$((nfail + 1))
    echo "FAIL: $name: rc=$rc $(head -c 300 "$T/stderr")" >&2
  fi
  rm -f out.h5
}
blown "paths blow up at a scan point" "^sdekit: error: .*grid point 1\b.*k=5.*NaN/Inf.*grid point 2 .*k=10" \
  run ./blowup.sde --scan k=0:10:3 --paths 16 --t-end 5 --quiet -o out.h5
# one step per period: unstable for the stiff gamma=100, fine for gamma=1
blown "josephson with far too large a time step" "^sdekit: error: 16 of 16 paths became NaN/Inf at grid point 1 \(gamma=100\)" \
  run $J --scan gamma=1:100:2 --spp 1 --paths 16 --periods 2000 --quiet -o out.h5

# --adaptive (issue 30): bad tolerances and bounds, one error each
A="run gbm --adaptive --scheme milstein --precision double --paths 8 --t-end 1 --quiet -o out.h5"
expect 2 "adaptive: rtol 0" 1 "--rtol '0': expected a relative tolerance > 0" $A --rtol 0
expect 2 "adaptive: rtol < 0" 1 "--rtol '-1e-3'" $A --rtol -1e-3
expect 2 "adaptive: atol 0" 1 "--atol '0': expected an absolute tolerance > 0" $A --atol 0
expect 2 "adaptive: dt-min > dt-max" 1 "--dt-min 0.5 is larger than the largest step, --dt-max 0.1" \
  $A --dt-max 0.1 --dt-min 0.5
expect 2 "adaptive: dt-min > the default dt-max" 1 "--dt-min 0.5 is larger than the largest step, dt-max \\(--dt-max, else --dt\\) 0.1" \
  $A --dt 0.1 --dt-min 0.5
expect 2 "adaptive: rtol below single precision" 1 "--rtol 1e-10 is below what single precision resolves" \
  run gbm --adaptive --scheme milstein --paths 8 --t-end 1 --quiet -o out.h5 --rtol 1e-10
expect 2 "adaptive: no bridge at absorbing levels" 1 "leave out --no-bridge-correction" \
  run "${SDK_SOURCE_DIR:-../..}/examples/double-well.sde" --adaptive --scheme srk2 --no-bridge-correction --paths 8 --quiet -o out.h5
expect 2 "adaptive: dt-min below the tree" 1 "--dt-min 1e-12 is below the Brownian tree's finest step" \
  $A --dt-max 0.1 --dt-min 1e-12
expect 2 "adaptive: sample times off the grid of dt-max" 1 "--dt-max 0.25: the --sample-times are not whole steps of it" \
  $A --dt-max 0.25 --sample-times 0.3,1 --observe moments
expect 2 "adaptive: rtol without --adaptive" 1 "need --adaptive" run gbm --rtol 1e-3 --quiet -o out.h5
expect 2 "adaptive: a scheme without an estimator" 1 "scheme euler has no error estimator.*use --scheme milstein" \
  run gbm --adaptive --scheme euler --precision double --paths 8 --quiet -o out.h5
# --adaptive with [boundaries] and periodic models (issue 30)
printf '[model]\nname = wall\nvars = x\n[drift]\nx = 0\n[noise]\nx = 1\n[init]\nx = 0.5\n[boundaries]\nwall = reflect x < 0\nend = absorb x >= 1\n' >"$T/wall.sde"
expect 2 "adaptive: a reflecting boundary" 1 "--adaptive: a reflecting boundary mirrors the end of a sub-step" \
  run "$T/wall.sde" --adaptive --scheme srk2 --paths 8 --quiet -o out.h5
expect 2 "adaptive: boundaries past the bridge draws' keys" 1 "exceed the bridge draws' random numbers \\(at most 2\\^28 steps\\)" \
  run "${SDK_SOURCE_DIR:-../..}/examples/double-well.sde" --adaptive --scheme srk2 --dt-max 1e-7 --t-end 30 --paths 8 --quiet -o out.h5
expect 2 "adaptive: --dt-max on a periodic model" 1 "its largest step is period / N, given as --spp N, not --dt-max" \
  run josephson --adaptive --scheme srk2 --dt-max 0.01 --paths 8 --quiet -o out.h5
expect 2 "adaptive: a period that varies over the grid" 1 "--adaptive: the step differs between grid points" \
  run josephson --adaptive --scheme srk2 --scan omega=4:5:2 --periods 2 --paths 8 --quiet -o out.h5

# everything above left the work dir as it was (no files, no temporaries)
left=$(find . -mindepth 1 -name '*.tmp.*' | head -5)
check "no temporaries left in the work dir" test -z "$left"

echo "cli_bad_input: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
