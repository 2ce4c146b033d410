# tests/hostile/lib.sh: shared helpers of the hostile-input suite (sourced).
#
# Each tests/hostile/h_*.sh is one CTest test (label "hostile").  A case
# asserts the clean outcome of a hostile or unusual input: one
# "sdekit: error:" line naming the problem and the file, the documented exit
# status, no file created outside the output, no process spawned, nothing
# lost.  Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR, SDEKIT_CACHE_DIR.
set -u
BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "hostile: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
SRC=${SDK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/sdk_hostile.XXXXXX") || exit 1
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
W=$T/w
mkdir -p "$W" && cd "$W" || exit 1
npass=0
nfail=0

pass() { npass=$((npass + 1)); [ -n "${SDK_TEST_VERBOSE:-}" ] && echo "ok: $1"; return 0; }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; return 0; }
# check NAME CONDITION...: pass when the command succeeds
check() {
  local name=$1
  shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}

# sde_file NAME LINE...: the lines, one a line, as model file $W/NAME.sde;
# prints its path (for f=$(sde_file ...))
sde_file() {
  local f=$W/$1.sde
  shift
  printf '%s\n' "$@" >"$f"
  echo "$f"
}

# run_sdk ARGS...: run sdekit with stdin closed; sets rc, OUTF, ERRF
run_sdk() {
  "$BIN" "$@" >"$T/stdout" 2>"$T/stderr" </dev/null
  rc=$?
  OUTF=$T/stdout
  ERRF=$T/stderr
}

# expect_error NAME STATUS REGEX ARGS...: exit STATUS, exactly one stderr line
# "sdekit: error: ..." matching REGEX, and no new file under $W.
expect_error() {
  local name=$1 status=$2 re=$3
  shift 3
  local before after problems=()
  before=$(find "$W" | LC_ALL=C sort)
  run_sdk "$@"
  after=$(find "$W" | LC_ALL=C sort)
  [ "$rc" -eq "$status" ] || problems+=("exit $rc, expected $status")
  [ "$(wc -l <"$ERRF")" -eq 1 ] || problems+=("stderr has $(wc -l <"$ERRF") lines")
  grep -q '^sdekit: error: ' "$ERRF" || problems+=("no 'sdekit: error:' line")
  grep -Eq -- "$re" "$ERRF" || problems+=("message does not match /$re/")
  [ "$before" = "$after" ] || problems+=("files changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ' ')")
  if [ ${#problems[@]} -eq 0 ]; then
    pass "$name"
  else
    fail "$name: ${problems[*]} (stderr: $(head -c 300 "$ERRF" | tr '\n' '|'))"
  fi
}

# finish: the closing line CTest and CI read; exit 1 on any failure
finish() {
  echo "$(basename "$0" .sh): $npass passed, $nfail failed"
  [ "$nfail" -eq 0 ]
}
