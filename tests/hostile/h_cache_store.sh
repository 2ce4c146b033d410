#!/bin/bash
# Issue 10 item 4: the kernel cache is untrusted data.  Concurrent compiles of
# one new model, a planted module, symbolic links, a truncated module, an
# unsafe directory and a missing HOME each end in a correct run or a clear
# refusal, never in foreign code, a crash or a shared /tmp path.
. "$(dirname "$0")/lib.sh"

RUN=(--paths 256 --t-end 0.5 --observe moments)
# runs in cache $1 with the remaining arguments; sets rc, OUTF, ERRF
in_cache() {
  local c=$1
  shift
  SDEKIT_CACHE_DIR=$c run_sdk "$@"
}
not() { ! "$@"; }
modfile() { find "$1" -maxdepth 1 -name "cpu-*.$2" | head -1; }
leftovers() { find "$1" -mindepth 1 \( -name 'build-*' -o -name '*.tmp*' \) | head -3; }

# --- 8 processes compile the same never-seen model at once, empty cache ----
# A large model (about 0.8 MB of C) keeps the compiler reading its source for
# a while; starts staggered by 0.06 s make every run write the source while
# another's compiler reads it (the old code truncated it under the compiler,
# which crashed with SIGBUS).
big_model() { # N variables, M terms each; a salt makes it never seen before
  awk -v n="$1" -v m="$2" -v salt="$3" 'BEGIN {
    print "[model]\nname = big\ndescription = many coupled variables"
    printf "vars = x0\n"
    for (i = 1; i < n; i++) printf "  , x%d\n", i
    print "[params]\nk = 1.0\nD = 0.5\n[drift]"
    for (i = 0; i < n; i++) {
      printf "x%d = -k*x%d + %s\n", i, i, salt
      for (j = 1; j < m; j++) printf "  + 0.001*sin(x%d + %d.%d)\n", (i + j) % n, j, (i * 7 + j) % 10
    }
    print "[noise]"
    for (i = 0; i < n; i++) printf "x%d = sqrt(2*D)\n", i
    print "[init]"
    for (i = 0; i < n; i++) printf "x%d = 0.5\n", i
  }'
}
big_model 100 20 "0.000$$$RANDOM" >"$T/fresh.sde"
C8=$T/c8
pids=()
for i in 1 2 3 4 5 6 7 8; do
  (
    sleep "$(printf "0.%02d" $((i * 6)))"
    exec env SDEKIT_CACHE_DIR="$C8" "$BIN" run "$T/fresh.sde" --paths 64 --t-end 0.05 \
      --observe moments -o "$T/p$i.tsv" </dev/null >"$T/p$i.out" 2>"$T/p$i.err"
  ) &
  pids+=($!)
done
for i in 1 2 3 4 5 6 7 8; do
  wait "${pids[$((i - 1))]}"
  r=$?
  check "concurrent compile $i exits 0 ($(head -c 200 "$T/p$i.err" | tr '\n' '|'))" test "$r" -eq 0
  [ "$i" -gt 1 ] && check "concurrent result $i identical to 1" cmp -s "$T/p1.tsv" "$T/p$i.tsv"
done
check "concurrent: exactly one module in the cache" \
  test "$(find "$C8" -name 'cpu-*.so' | wc -l)" -eq 1
check "concurrent: no build directory or temporary left ($(leftovers "$C8"))" \
  test -z "$(leftovers "$C8")"

# --- reference runs of two models in one cache ------------------------------
C=$T/c
in_cache "$C" run ou "${RUN[@]}" -o "$T/ou1.tsv"
check "ou reference run" test "$rc" -eq 0
A_SO=$(modfile "$C" so)
A_C=$(modfile "$C" c)
in_cache "$T/cg" run gbm "${RUN[@]}" -o "$T/gbm1.tsv"
check "gbm reference run" test "$rc" -eq 0
B_SO=$(modfile "$T/cg" so)
cp "$B_SO" "$T/other.so"
check "cache directory is mode 700" test "$(stat -c %a "$C")" = 700

# --- a planted module: the right name, built from other source -------------
cp "$T/other.so" "$A_SO"
in_cache "$C" run ou "${RUN[@]}" --verbose -o "$T/ou2.tsv"
check "planted module: run exits 0" test "$rc" -eq 0
check "planted module: results are ou's, not the planted code's" cmp -s "$T/ou1.tsv" "$T/ou2.tsv"
check "planted module: rebuilt ($(grep -m1 'cpu-' "$ERRF"))" grep -q "rebuilt .*cpu-" "$ERRF"
check "planted module: replaced in the cache" not cmp -s "$A_SO" "$T/other.so"

# --- a symbolic link in place of the module: replaced, never followed ------
cp "$T/other.so" "$T/target.so"
rm -f "$A_SO" && ln -s "$T/target.so" "$A_SO"
in_cache "$C" run ou "${RUN[@]}" --verbose -o "$T/ou3.tsv"
check "linked module: run exits 0" test "$rc" -eq 0
check "linked module: results are ou's" cmp -s "$T/ou1.tsv" "$T/ou3.tsv"
check "linked module: the link is replaced by a regular file" test -f "$A_SO" -a ! -L "$A_SO"
check "linked module: its target is untouched" cmp -s "$T/target.so" "$T/other.so"

# --- a symbolic link in place of the source: never written through ---------
echo precious >"$T/victim"
rm -f "$A_SO" "$A_C" && ln -s "$T/victim" "$A_C"
in_cache "$C" run ou "${RUN[@]}" -o "$T/ou4.tsv"
check "linked source: run exits 0" test "$rc" -eq 0
check "linked source: results are ou's" cmp -s "$T/ou1.tsv" "$T/ou4.tsv"
check "linked source: the file it pointed to is untouched" test "$(cat "$T/victim")" = precious

# --- a truncated module: rebuilt, no SIGBUS ---------------------------------
sz=$(stat -c %s "$A_SO")
truncate -s $((sz / 2)) "$A_SO"
in_cache "$C" run ou "${RUN[@]}" --verbose -o "$T/ou5.tsv"
check "truncated module: run exits 0 (exit $rc)" test "$rc" -eq 0
check "truncated module: results are ou's" cmp -s "$T/ou1.tsv" "$T/ou5.tsv"
check "truncated module: rebuilt" grep -q "rebuilt .*cpu-" "$ERRF"
check "truncated module: full size again" test "$(stat -c %s "$A_SO")" -eq "$sz"
check "no build directory or temporary left ($(leftovers "$C"))" test -z "$(leftovers "$C")"

# --- unsafe cache directories are refused -----------------------------------
mkdir -p "$T/ww" "$T/gw" "$T/real"
chmod 0777 "$T/ww"
chmod 0770 "$T/gw"
SDEKIT_CACHE_DIR=$T/ww expect_error "world-writable cache dir refused" 1 \
  "cache directory '.*/ww' is writable by others" run ou --paths 64 --t-end 0.1 -o "$T/x.tsv"
SDEKIT_CACHE_DIR=$T/gw expect_error "group-writable cache dir refused" 1 \
  "cache directory '.*/gw' is writable by its group" run ou --paths 64 --t-end 0.1 -o "$T/x.tsv"
ln -s "$T/real" "$T/linkdir"
SDEKIT_CACHE_DIR=$T/linkdir expect_error "cache dir that is a symbolic link refused" 1 \
  "cache directory '.*/linkdir' is a symbolic link" run ou --paths 64 --t-end 0.1 -o "$T/x.tsv"
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
  mkdir -p "$T/foreign"
  chmod 0700 "$T/foreign"
  chown nobody "$T/foreign"
  SDEKIT_CACHE_DIR=$T/foreign expect_error "foreign-owned cache dir refused" 1 \
    "cache directory '.*/foreign' is owned by uid [0-9]+, not by this user" \
    run ou --paths 64 --t-end 0.1 -o "$T/x.tsv"
  check "foreign dir: nothing written into it" test -z "$(ls -A "$T/foreign")"
  chown root "$T/foreign"
else
  echo "h_cache_store: foreign-owner case skipped (needs root)"
fi
check "refused dirs: nothing written into them" test -z "$(find "$T/ww" "$T/gw" "$T/real" -mindepth 1)"

# --- no HOME, XDG_CACHE_HOME or SDEKIT_CACHE_DIR: a private directory ----------
mkdir -p "$T/tmpd"
(
  unset HOME XDG_CACHE_HOME SDEKIT_CACHE_DIR
  TMPDIR=$T/tmpd "$BIN" run ou --paths 64 --t-end 0.1 --verbose -o "$T/nohome.tsv" \
    </dev/null >"$T/nh.out" 2>"$T/nh.err"
)
check "no HOME: run exits 0 ($(head -c 200 "$T/nh.err" | tr '\n' '|'))" test -s "$T/nohome.tsv"
check "no HOME: module built in a private directory under TMPDIR" \
  grep -Eq "compiled $T/tmpd/sdekit-run-[A-Za-z0-9]{6}/cpu-" "$T/nh.err"
check "no HOME: no shared /tmp path used" not grep -q "/tmp/sdekit-cache" "$T/nh.err"
check "no HOME: private directory removed at exit" test -z "$(ls -A "$T/tmpd")"

# --- sdekit cache list|clean and the size cap --------------------------------
in_cache "$C" cache list
check "cache list exits 0" test "$rc" -eq 0
check "cache list shows the module with size and age" \
  grep -Eq "cpu-[0-9a-f]{32}\.so +[0-9.]+ [KM]?i?B +[0-9]+ (s|min|h|days) old" "$OUTF"
echo mine >"$C/notes.txt"
ln -s "$T/victim" "$C/cpu-0123456789abcdef0123456789abcdef.so"
in_cache "$C" cache clean
check "cache clean exits 0" test "$rc" -eq 0
check "cache clean removed our entries" test -z "$(find "$C" -name 'cpu-*')"
check "cache clean left other files" test -f "$C/notes.txt"
check "cache clean did not follow a link" test "$(cat "$T/victim")" = precious
SDEKIT_CACHE_MAX=nonsense expect_error "bad SDEKIT_CACHE_MAX" 2 "SDEKIT_CACHE_MAX" \
  run ou --paths 64 --t-end 0.1 -o "$T/x.tsv"
SDEKIT_CACHE_MAX=1 in_cache "$C" run ou --paths 64 --t-end 0.1 -o "$T/cap1.tsv"
SDEKIT_CACHE_MAX=1 in_cache "$C" run gbm --paths 64 --t-end 0.1 -o "$T/cap2.tsv"
check "size cap: the older model's files are pruned" \
  test "$(find "$C" -name 'cpu-*' | wc -l)" -eq 2 -a -z "$(find "$C" -name "$(basename "$A_SO")")"

finish
