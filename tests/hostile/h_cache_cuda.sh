#!/bin/bash
# Issue 10 item 4, CUDA module cache: a cached cubin is used only when its
# record (cuda-HASH.txt: key, size, hash of the bytes) matches; a truncated,
# planted or linked cubin is rebuilt by NVRTC, never loaded.  Needs NVRTC
# only (compile --arch, no GPU).
. "$(dirname "$0")/lib.sh"
said() { cat "$OUTF" "$ERRF" | grep -q "$1"; }

C=$T/cc
comp() { SDEKIT_CACHE_DIR=$C run_sdk compile "$1" --backend cuda --arch sm_90; }
comp ou
if [ "$rc" -ne 0 ]; then
  if grep -q NVRTC "$ERRF"; then
    echo "h_cache_cuda: skipped: $(head -c 200 "$ERRF")"
    exit 77
  fi
  fail "compile ou for sm_90 (stderr: $(head -c 300 "$ERRF" | tr '\n' '|'))"
  finish
  exit 1
fi
check "first compile builds" said "compiled .*cuda-.*\.cubin"
BIN_F=$(find "$C" -name 'cuda-*.cubin' | head -1)
REC_F=${BIN_F%.cubin}.txt
cp "$BIN_F" "$T/good.cubin"
comp ou
check "second compile is a cache hit" said "cached .*cuda-"

# truncated cubin
truncate -s 1000 "$BIN_F"
comp ou
check "truncated cubin: exit 0" test "$rc" -eq 0
check "truncated cubin: rebuilt" said "rebuilt .*cuda-"
check "truncated cubin: restored" cmp -s "$BIN_F" "$T/good.cubin"

# planted: another model's cubin and record under this name
SDEKIT_CACHE_DIR=$T/other run_sdk compile gbm --backend cuda --arch sm_90
OB=$(find "$T/other" -name 'cuda-*.cubin' | head -1)
cp "$OB" "$BIN_F"
comp ou
check "planted cubin: rebuilt" said "rebuilt .*cuda-"
cp "$OB" "$BIN_F"
cp "${OB%.cubin}.txt" "$REC_F"
comp ou
check "planted cubin and record: rebuilt" said "rebuilt .*cuda-"
check "planted cubin and record: replaced" cmp -s "$BIN_F" "$T/good.cubin"

# links in place of the cubin and of its record: replaced, not followed
cp "$OB" "$T/target.cubin"
rm -f "$BIN_F" && ln -s "$T/target.cubin" "$BIN_F"
comp ou
check "linked cubin: rebuilt" said "rebuilt .*cuda-"
check "linked cubin: now a regular file" test -f "$BIN_F" -a ! -L "$BIN_F"
check "linked cubin: target untouched" cmp -s "$T/target.cubin" "$OB"
echo precious >"$T/victim"
rm -f "$REC_F" && ln -s "$T/victim" "$REC_F"
comp ou
check "linked record: rebuilt" said "rebuilt .*cuda-"
check "linked record: target untouched" test "$(cat "$T/victim")" = precious
check "no temporaries left" test -z "$(find "$C" -name '*.tmp*')"
finish
