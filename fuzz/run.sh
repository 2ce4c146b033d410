#!/usr/bin/env bash
# Run one fuzz target (called by `make fuzz`; see fuzz/README.md).
#   fuzz/run.sh BUILD_DIR TARGET SECONDS
# Everything it writes stays in BUILD_DIR: the growing corpus
# (fuzz-corpus/TARGET), crash inputs (fuzz-artifacts/TARGET), the log
# (fuzz-TARGET.log) and the targets' scratch files.  Exit status 1 when the
# target crashed, leaked, hung or hit undefined behaviour in our code.
#
# h5, h5table, table: libhdf5 is not instrumented and has memory-safety bugs of its
# own on corrupt files (fuzz/hdf5-bugs/).  Those targets run in libFuzzer's fork mode
# and keeps going after a crash; afterwards every crash input is replayed
# and fails the run unless the faulting frame is inside libhdf5.
set -eu
build=$1 t=$2 secs=$3
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/fuzz/fuzz_$t
corpus=$build/fuzz-corpus/$t arts=$build/fuzz-artifacts/$t log=$build/fuzz-$t.log
# (scratch per target: `make fuzz` runs targets side by side)
tmp=$build/fuzz-tmp/$t
mkdir -p "$corpus" "$arts" "$tmp"
export SDK_FUZZ_SCRATCH=$tmp TMPDIR=$tmp
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
export LSAN_OPTIONS=suppressions=$src/fuzz/lsan.supp
flags=(-max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
  -close_fd_mask=3 -artifact_prefix="$arts/")
[ -f "$src/fuzz/$t.dict" ] && flags+=(-dict="$src/fuzz/$t.dict")
hdf5=0
case $t in h5 | h5table | table) hdf5=1 ;; esac
if [ $hdf5 = 1 ]; then
  # libhdf5 has no frame pointers: unwind slowly so that lsan.supp can tell
  # its own leaks from ours
  ASAN_OPTIONS+=:fast_unwind_on_malloc=0
  flags+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  rm -rf "$arts"/* "$tmp"/*
fi
# fail_line INPUT SUMMARY FRAME: the input of up to 4 KiB in base64 on a line
# of its own (so that a failure seen only in a log can be replayed: base64 -d
# > fuzz/regress/...), then one line that says it all, both also appended to
# $build/fuzz-failures.txt, which `make fuzz` prints last.  The summary comes
# after the input: a CI log that shows only its last few KiB once cut the
# input's head and the summary with it (CI of 147a9f2).
fail_line() {
  { [ "$(stat -c %s "$1")" -le 4096 ] && echo "fuzz_$t input-base64: $(base64 -w0 "$1")"
    echo "fuzz_$t FAILED: $1 (${2:-no sanitizer summary}; first frame: ${3:-none})"; } |
    tee -a "$build/fuzz-failures.txt"
}
# first_frame OUTPUT [N]: the first stack frame outside the sanitizer runtime,
# libFuzzer, libc and the compression libraries of libhdf5's filters (libz,
# libsz, libaec): a crash in those is its caller's, libhdf5's or (libz)
# sdekit's .npz reader's
# (or the first N such frames)
first_frame() {
  printf '%s\n' "$1" | grep -E '^ +#[0-9]+ ' |
    grep -vE '__interceptor_|__asan|__sanitizer|libclang_rt|fuzzer::|libc\.so|sysdeps/| in (malloc|calloc|realloc|free|mem(move|cpy|set|cmp)|str[a-z]*|__mem[a-z_0-9]*) ' |
    grep -vE 'lib(z|sz|aec)\.so' | head -"${2:-1}" || true
}
# a replay's output that holds a sanitizer's or libFuzzer's report
reported() { printf '%s\n' "$1" | grep -qE 'ERROR: |runtime error|SUMMARY: '; }
rc=0
"$bin" "${flags[@]}" "$corpus" "$src/fuzz/corpus/$t" "$src/fuzz/regress/$t" >"$log" 2>&1 || rc=$?
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" |
  tr '\n' ' ' || true
grep -E '^#[0-9]+.*(DONE|exec/s)' "$log" | tail -1 || true
if [ $hdf5 = 0 ]; then
  if [ $rc -ne 0 ]; then
    tail -60 "$log"
    a=$(ls -t "$arts"/* 2>/dev/null | head -1)
    if [ -n "$a" ]; then
      fail_line "$a" "$(grep -m1 -E 'SUMMARY|runtime error' "$log" || true)" "exit $rc"
    else
      echo "fuzz_$t FAILED (exit $rc), no input saved" | tee -a "$build/fuzz-failures.txt"
    fi
    exit 1
  fi
  exit 0
fi
# h5, h5table, table: triage every crash input found in this run
bad=0 lib=0 unrep=0
for a in "$arts"/crash-* "$arts"/leak-* "$arts"/timeout-* "$arts"/oom-*; do
  [ -e "$a" ] || continue
  # a timeout that ends given 120 s is a slow input (libhdf5 reading a
  # dataset of many tiny chunks chunk by chunk), not a hang
  if [[ $a == */timeout-* ]] && s0=$SECONDS &&
    "$bin" -runs=1 -timeout=120 -rss_limit_mb=2048 -close_fd_mask=1 "$a" >/dev/null 2>&1; then
    echo "fuzz_$t: a slow input, not a hang (done in $((SECONDS - s0)) s): $a"
    continue
  fi
  # the replay of a crash unwinds the fatal error slowly and the mallocs
  # fast (a stack overflow deep in libhdf5's recursion otherwise shows no
  # frame: the slow malloc unwinder itself overflows), a leak's as above
  # (lsan.supp); an out-of-memory input runs under a malloc limit, so that
  # the one huge allocation shows who made it (a superblock size trusted by
  # libhdf5 asked for 1.8 GB: its own bug), and under twice the fuzzing's
  # memory limit: an object header's size trusted by libhdf5 (H5C_protect)
  # asked for 20 GB after its other reads had taken 2.2 GB, so that under
  # the fuzzing's limit the memory ran out first and named no caller
  # (libFuzzer's own thread: CI of 0c1e27e)
  opts=$ASAN_OPTIONS lim=() rss=2048
  [[ $a == */leak-* ]] || opts+=:fast_unwind_on_fatal=0:fast_unwind_on_malloc=1
  [[ $a == */oom-* ]] && lim=(-malloc_limit_mb=512) rss=4096
  out=$(ASAN_OPTIONS=$opts "$bin" -runs=1 -timeout=10 -rss_limit_mb=$rss "${lim[@]}" \
    -close_fd_mask=1 "$a" 2>&1 || true)
  # an input that crashed while fuzzing but not alone: once more with the
  # fuzzing's own options (libhdf5 keeps state between the inputs of one
  # process, so a crash may need the inputs before it)
  if [[ $a != */leak-* ]] && ! reported "$out"; then
    out=$("$bin" -runs=1 -timeout=10 -rss_limit_mb=$rss "${lim[@]}" -close_fd_mask=1 "$a" 2>&1 ||
      true)
  fi
  if [[ $a != */leak-* ]] && ! reported "$out"; then
    unrep=$((unrep + 1))
    echo "fuzz_$t: crashed while fuzzing but not when replayed alone, twice (an input that" \
      "needs libhdf5's state from the inputs before it; kept): $a"
    continue
  fi
  frame=$(first_frame "$out")
  # a stack overflow is the recursion's, not the top frame's: libhdf5's only
  # when its first 50 frames are all libhdf5's.  It may also show "<empty
  # stack>": the overflow hit where the unwinder cannot start (CI of 4bb88ce;
  # the same input unwinds 247 frames of libhdf5 on another machine).  Where
  # it overflows depends on the stack's size, so replay under other limits
  # until frames show; none shown counts as ours
  if printf '%s\n' "$out" | grep -q 'stack-overflow'; then
    for st in 0 4096 2048 16384; do
      if [ "$st" != 0 ]; then
        out=$(ulimit -s "$st" 2>/dev/null &&
          ASAN_OPTIONS=$opts "$bin" -runs=1 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=1 \
            "$a" 2>&1 || true)
      fi
      frame=$(first_frame "$out" 50 | grep -v libhdf5 | head -1 || true)
      [ -z "$frame" ] && [ -n "$(first_frame "$out")" ] &&
        frame="$(first_frame "$out") (a stack overflow: the first 50 frames in libhdf5)"
      [ -n "$frame" ] && break
    done
  fi
  # a leak input that leaks no more on replay was one fuzz/lsan.supp names
  case "$a" in *leak-*)
    if printf '%s\n' "$out" | grep -q 'LeakSanitizer'; then
      frame="(a leak: ours unless fuzz/lsan.supp names it)"
    else
      frame="(a leak inside libhdf5, named by fuzz/lsan.supp)"
    fi ;;
  esac
  if [[ $frame == *libhdf5* ]]; then
    lib=$((lib + 1))
    echo "fuzz_$t: libhdf5 bug (not ours), input $a: $frame"
  else
    bad=$((bad + 1))
    printf '%s\n' "$out" | tail -40
    fail_line "$a" "$(printf '%s\n' "$out" | grep -m1 -E 'SUMMARY|runtime error' || true)" "$frame"
  fi
done
if [ $lib -gt 0 ]; then
  echo "fuzz_$t: $lib input(s) crash or hang inside libhdf5 (see fuzz/hdf5-bugs/README.md)"
fi
if [ $unrep -gt 0 ]; then
  echo "fuzz_$t: $unrep input(s) crashed only after other inputs (not replayable alone)"
fi
if [ $rc -ne 0 ] && [ $bad -eq 0 ] && [ $lib -eq 0 ] && [ $unrep -eq 0 ]; then
  tail -40 "$log"
  echo "fuzz_$t FAILED (exit $rc)" | tee -a "$build/fuzz-failures.txt"
  bad=1
fi
rm -rf "$tmp"/*
[ $bad -eq 0 ]
