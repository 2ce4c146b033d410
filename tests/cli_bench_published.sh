#!/usr/bin/env bash
# sdekit bench --published (issue 32): the list, a bad name (one error with the list,
# exit 2), every workload at its small size producing its figure line with its checks
# passing (linear: E u and E u^2 against the exact moments of the Euler recursion; cle:
# E(sigma - A1) = 0 at stationarity), and the JAX column skipped cleanly without JAX
# (a `jax` that fails to import, first on PYTHONPATH).  Backend from $SDK_TEST_BACKEND.
set -u
B=${SDK_BIN:?}
[ -x "$B" ] || exit 77
# (the Python the CLI starts: configured, -DSDEKIT_PYTHON)
"${SDK_PYTHON:-/usr/bin/python3}" -c 'import numpy' 2>/dev/null || { echo "NumPy missing: skipped"; exit 77; }
# (an ASan build: the Python child cannot load an instrumented library unless the
# sanitizer's runtime comes first, which the interpreter's does not)
if ldd "$B" 2>/dev/null | grep -q 'libasan'; then echo "ASan build: skipped"; exit 77; fi
BACKEND=${SDK_TEST_BACKEND:-cpu}
if [ "$BACKEND" = cuda ]; then [ "$("$B" devices --count 2>/dev/null || echo 0)" != 0 ] || { echo "no CUDA device: skipped"; exit 77; }; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nfail=0
failed() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }

out=$("$B" bench --published list) || failed "list: exit $?"
for n in linear cle prog1 prog2 prog3 switching; do
  grep -q "^$n " <<<"$out" || failed "list lacks $n"
done

"$B" bench --published $'no\033[31mpe' >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 2 ] || failed "bad name: exit $rc, not 2"
[ ! -s "$T/out" ] || failed "bad name: wrote to stdout"
[ "$(wc -l <"$T/err")" = 1 ] || failed "bad name: not one line: $(cat "$T/err")"
grep -q "unknown published workload 'no\\\\x1b\[31mpe' (one of: list, all, linear, cle, prog1, prog2, prog3, switching)" "$T/err" ||
  failed "bad name: message: $(cat "$T/err")"

mkdir -p "$T/nojax/jax"
echo 'raise ImportError("no JAX here (test)")' >"$T/nojax/jax/__init__.py"
PYTHONPATH="$T/nojax" "$B" bench --published all --size small --repeats 1 --backend "$BACKEND" \
  >"$T/all" 2>"$T/allerr"
rc=$?
cat "$T/all"
[ $rc = 0 ] || failed "all --size small: exit $rc: $(cat "$T/allerr")"
for n in linear cle prog1 prog2 prog3 switching; do
  grep -q "^== $n (small size, backend $BACKEND)" "$T/all" || failed "$n: no header"
done
[ "$(grep -c '^  published: ' "$T/all")" = 6 ] || failed "not 6 published lines"
[ "$(grep -c '^  ours: .* per call (median of 1 whole calls after the first)' "$T/all")" = 6 ] ||
  failed "not 6 figure lines"
[ "$(grep -c '^  jax: JAX is not installed: the JAX column is skipped$' "$T/all")" = 6 ] ||
  failed "JAX not skipped cleanly"
[ "$(grep -c '^  check: E u1(1).*(ok within 4 SE)' "$T/all")" = 2 ] ||
  failed "linear: exact checks"
grep -q '^  check: E(sigma - A1), tau <= t/100 (final states, the same seed) = .*(ok within 4 SE)' "$T/all" || failed "cle: check"
grep -q 'FAILS' "$T/all" && failed "a check fails"
[ $nfail = 0 ] || exit 1
echo "bench --published: all passed"
