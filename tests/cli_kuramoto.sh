#!/usr/bin/env bash
# cli_kuramoto.sh: systems of interacting particles from the command line.
# Bad input gives exactly one line "sdekit: error: ..." on stderr, exit
# status 2, nothing on stdout and no output file; a good run writes the order
# parameter and the density of the periodic variable in TSV and HDF5.
#
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR, SDEKIT_CACHE_DIR.
set -u
BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_kuramoto: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_kuramoto.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
cd "$T" || exit 1
npass=0
nfail=0

# expect NAME PATTERN ARGS...: exit $RC (default 2), one error line matching PATTERN (ERE),
# no stdout, no out.*
expect() {
  local name=$1 pat=$2 want=${RC:-2}
  shift 2
  "$BIN" "$@" >stdout 2>stderr </dev/null
  local rc=$? problems=""
  [ "$rc" -eq "$want" ] || problems="$problems; exit status $rc"
  [ -s stdout ] && problems="$problems; stdout not empty"
  [ "$(wc -l <stderr)" -eq 1 ] || problems="$problems; stderr has $(wc -l <stderr) lines"
  grep -q '^sdekit: error: ' stderr || problems="$problems; no 'sdekit: error:'"
  grep -Eq -- "$pat" stderr || problems="$problems; message does not match /$pat/"
  ls out.* >/dev/null 2>&1 && problems="$problems; output file written" && rm -f out.*
  if [ -z "$problems" ]; then
    npass=$((npass + 1))
  else
    nfail=$((nfail + 1))
    echo "FAIL: $name:${problems#;}"
    echo "  command: sdekit $*"
    echo "  stderr: $(head -c 400 stderr)"
  fi
}
check() {
  local name=$1
  shift
  if "$@"; then npass=$((npass + 1)); else nfail=$((nfail + 1)); echo "FAIL: $name"; fi
}

# a model file from a [meanfield] and a [pair] line, and extra sections
model() { # NAME MEANFIELD PAIR DRIFT [EXTRA]
  printf '[model]\nname = %s\nvars = x\nperiodic = x : 2*pi\n[params]\nK = 4\n%s%s[drift]\nx = %s\n[noise]\nx = 1\n%s' \
    "$1" "$2" "$3" "$4" "${5:-}" >"$1.sde"
}
Q=(--paths 2 --t-end 0.05 --quiet -o out.h5)

expect "--particles 0" "--particles '0'.*>= 1" run kuramoto --particles 0 "${Q[@]}"
expect "--particles -3" "--particles '-3'" run kuramoto --particles -3 "${Q[@]}"
expect "--particles x" "--particles 'x'" run kuramoto --particles x "${Q[@]}"
expect "[pair] without --particles" "kuramoto.*\[pair\].*--particles N" run kuramoto "${Q[@]}"
expect "[meanfield] with --particles 1" "\[meanfield\].*--particles N with N >= 2" \
  run kuramoto-meanfield --particles 1 "${Q[@]}"
expect "srk2 with interacting particles" "--scheme srk2.*euler" run kuramoto --particles 8 --scheme srk2 "${Q[@]}"
expect "--observe order without a periodic variable" "order.*periodic.*'ou'" \
  run ou --observe order --particles 4 "${Q[@]}"
model badpair "" $'[pair]\nF = sin(yj - x)\n' "K*F"
expect "pair function with unknown yj" "badpair\.sde:[0-9]+: \[pair\] F: unknown name 'yj'.*of particle j: xj" \
  run ./badpair.sde --particles 4 "${Q[@]}"
model badmean $'[meanfield]\nS = sin(y)\n' "" "K*S"
expect "[meanfield] with an unknown name" "badmean\.sde:[0-9]+: \[meanfield\] S: unknown name 'y'.*variables x" \
  run ./badmean.sde --particles 4 "${Q[@]}"
model baddrift $'[meanfield]\nS = sin(x)\n' "" "K*Q"
expect "drift with an unknown mean-field name" "unknown name 'Q'.*\[meanfield\] S" \
  run ./baddrift.sde --particles 4 "${Q[@]}"
model clash $'[meanfield]\nK = sin(x)\n' "" "K"
expect "[meanfield] name clashes with a parameter" "'K' is already a parameter" \
  run ./clash.sde --particles 4 "${Q[@]}"
model meanpair $'[meanfield]\nS = F\n' $'[pair]\nF = sin(xj - x)\n' "K*S"
expect "[meanfield] cannot use a [pair] name" "\[meanfield\] S: unknown name 'F'" \
  run ./meanpair.sde --particles 4 "${Q[@]}"
model baddist "" "" "w" $'[particle]\nw = normal(0)\n'
expect "[particle] normal() with one argument" "\[particle\] w: normal\(\) takes two arguments" \
  run ./baddist.sde --particles 4 "${Q[@]}"
model badfn "" "" "w" $'[particle]\nw = gamma(1, 2)\n'
expect "[particle] unknown distribution" "\[particle\] w: unknown function 'gamma'" \
  run ./badfn.sde --particles 4 "${Q[@]}"
printf '[model]\nname = badper\nvars = x\nperiodic = y : 1\n[drift]\nx = 0\n' >badper.sde
expect "periodic names an unknown variable" "periodic names unknown variable 'y'" run ./badper.sde "${Q[@]}"
printf '[model]\nname = negper\nvars = x\nperiodic = x : -1\n[drift]\nx = 0\n' >negper.sde
expect "negative period with --observe order" "period of 'x' is -1" \
  run ./negper.sde --observe order --particles 2 "${Q[@]}"
printf '[model]\nname = xjclash\nvars = x, xj\n[pair]\nF = sin(xj - x)\n[drift]\nx = F\nxj = 0\n' >xjclash.sde
expect "variable xj in a model with [pair]" "'xj' cannot be used.*x of particle j" \
  run ./xjclash.sde --particles 4 "${Q[@]}"

# particles that blow up are caught (through r(t): no separate pass over the state)
printf '[model]\nname = blow\nvars = x\nperiodic = x : 2*pi\n[meanfield]\nS = sin(x)\n[drift]\nx = 1e30*x*x + S\n[init]\nx = 1\n' >blow.sde
RC=1 expect "systems blowing up" "NaN/Inf.*step" run ./blow.sde --particles 8 --observe order "${Q[@]}"

# the GPU tuning knobs come from the environment through the tool (src/cli/env.c):
# a system kernel it does not know, or a value out of range, is refused first
SDEKIT_SYS_KERNEL=fastest expect "SDEKIT_SYS_KERNEL=fastest" \
  "SDEKIT_SYS_KERNEL='fastest': expected launch, persist, resident or auto" \
  run kuramoto-meanfield --particles 64 "${Q[@]}"
SDEKIT_SYS_BPS=9 expect "SDEKIT_SYS_BPS=9" "SDEKIT_SYS_BPS='9': expected a whole number from 1 to 8" \
  run kuramoto-meanfield --particles 64 "${Q[@]}"
SDEKIT_SYS_PAIRS=both expect "SDEKIT_SYS_PAIRS=both" "SDEKIT_SYS_PAIRS='both': expected full, half or auto" \
  run kuramoto --particles 64 "${Q[@]}"
# each unordered pair once is refused, with the reason, where the generator cannot prove the
# pair functions odd or even (the CUDA source is generated without a GPU)
printf '[model]\nname = asym\nvars = x\n[pair]\nF = exp(xj - x)\n[drift]\nx = -F\n' >asym.sde
SDEKIT_SYS_PAIRS=half expect "SDEKIT_SYS_PAIRS=half, exp(xj - x)" \
  "SDEKIT_SYS_PAIRS=half: model 'asym' needs every pair evaluated both ways: \[pair\] F is not shown to be odd or even" \
  codegen ./asym.sde --backend cuda --particles 512
SDEKIT_SYS_PAIRS=half expect "SDEKIT_SYS_PAIRS=half, mean field" "SDEKIT_SYS_PAIRS=half: model 'kuramoto-meanfield' has no \[pair\] functions" \
  codegen kuramoto-meanfield --backend cuda --particles 512
SDEKIT_SYS_PAIRS=half "$BIN" codegen kuramoto --backend cuda --particles 512 >half.cu 2>stderr
check "SDEKIT_SYS_PAIRS=half, kuramoto: the half kernels generated" grep -q "sdk_sys_half(" half.cu

# a good run: order parameter and density in TSV and HDF5
"$BIN" run kuramoto-meanfield --particles 64 --paths 4 --t-end 1 --dt 0.01 --sample-every 50 \
  --observe order,density --bins 16 --quiet -o good.h5 -o good.tsv >stdout 2>stderr
check "good run: exit 0" test $? -eq 0
check "good run: order TSV has 3 samples x 4 columns" \
  test "$(awk '!/^#/ && NF == 4' good.order.tsv | wc -l)" -eq 3
check "good run: density TSV has 3 x 16 bins on [0, 2 pi)" \
  test "$(awk '!/^#/ && NF == 4 && $2 >= 0 && $3 <= 6.2832' good.density.tsv | wc -l)" -eq 48
check "good run: density integrates to 1" \
  awk '!/^#/ && NF == 4 && $1 == 1 { s += $4 * ($3 - $2) } END { exit !(s > 0.999999 && s < 1.000001) }' good.density.tsv
if command -v h5dump >/dev/null 2>&1; then
  check "good run: HDF5 order/r" h5dump -d /order/r good.h5 >/dev/null
  check "good run: HDF5 particles attribute" h5dump -a /particles good.h5 >/dev/null
fi

echo "cli_kuramoto: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
