#!/usr/bin/env bash
# Issue 31's delay goal (scripts/bench-delay.sh: delay_ou with D = 1000
# against ou, ratio >= 0.50) for this tree and for each variants/NAME.patch
# applied to a copy of it, in one run on the GPU machine: every tree built
# (its sdekit target only), then bench-delay.sh with each in turn, ROUNDS
# times interleaved (the machine's drift shows as the spread within a
# variant), and a table of the best of each (a variant A+B: both patches
# applied).  variants/main.patch takes the tree back to main's delay code
# (the baseline).  Also each tree's sdk_advance registers from NVRTC
# (sdekit compile).
#
#   [VARIANTS="main branch ahead2 ahead2+l2pf ..."] [ROUNDS=2] [REPEATS=3] [T_END=1000] \
#     scripts/bench-delay-variants.sh [RUN OPTIONS...]
#
# (default options: --backend cuda --paths 1048576).  The lead's line, through
# the device tool with .debs carried when the machine lacks inih/HDF5:
#   scripts/bench-delay-variants.sh
set -euo pipefail
src=$(pwd)
[ -d .debs ] && eval "$(scripts/device-deps.sh .debs)"
export PATH=/usr/local/cuda/bin:$PATH
W=${WORK:-/tmp/bench-delay-variants}
rm -rf "$W" && mkdir -p "$W"
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(--backend cuda --paths 1048576)
names=()
trees=()
all=$(cd "$src/variants" && ls *.patch | sed 's/\.patch$//' | grep -vx main || true)
for n in ${VARIANTS:-main branch $all}; do
  if [ "$n" = branch ]; then # (this tree as it is)
    names+=(branch)
    trees+=("$src")
    continue
  fi
  mkdir -p "$W/$n"
  tar -C "$src" --exclude='./build*' --exclude=./.git --exclude=./.deps --exclude=./.debs -cf - . |
    tar -C "$W/$n" -xf -
  for part in ${n//+/ }; do # (A+B: both patches)
    p=$src/variants/$part.patch
    (cd "$W/$n" && { git apply "$p" 2> /dev/null || patch -s -p1 < "$p"; }) ||
      { echo "$n: $part.patch does not apply" >&2 && exit 1; }
  done
  names+=("$n")
  trees+=("$W/$n")
done
for i in "${!names[@]}"; do
  t=${trees[$i]}
  { cmake -S "$t" -B "$t/build-bdv" -DCMAKE_BUILD_TYPE=Release ${SDK_CMAKE_ARGS:-} &&
    cmake --build "$t/build-bdv" --target sdekit -j "$(nproc)"; } > "$W/build-${names[$i]}.log" 2>&1 ||
    { tail -30 "$W/build-${names[$i]}.log" && exit 1; }
  SDEKIT_CACHE_DIR=$W/cache-${names[$i]} "$t/build-bdv/sdekit" compile "$src/models/delay_ou.sde" \
    --backend cuda --arch sm_90 --set tau=10 --set a=0.1 --scheme srk2 --dt 0.01 --observe none \
    2>&1 | grep -o 'sdk_advance: [0-9]* registers[^,]*, [^,]*, [0-9]* bytes spill stores' |
    sed "s/^/${names[$i]}: /" || echo "${names[$i]}: (no NVRTC)"
done
res=$W/results.tsv
: > "$res"
for r in $(seq "${ROUNDS:-2}"); do
  for i in "${!names[@]}"; do
    out=$(SDEKIT_CACHE_DIR=$W/cache-${names[$i]} SDEKIT=${trees[$i]}/build-bdv/sdekit \
      "$src/scripts/bench-delay.sh" "${opts[@]}")
    plain=$(echo "$out" | awk '/^ou /{print $3}')
    delay=$(echo "$out" | awk '/^delay_ou /{print $4}')
    printf '%s\t%s\t%s\t%s\n' "${names[$i]}" "$r" "$delay" "$plain" >> "$res"
    printf 'round %s %-10s delay %s plain %s\n' "$r" "${names[$i]}" "$delay" "$plain"
  done
done
echo "options: ${opts[*]}; the best of ${ROUNDS:-2} rounds of bench-delay.sh (each the best of ${REPEATS:-3})"
printf '%-10s %12s %12s %7s\n' variant delay plain ratio
for n in "${names[@]}"; do
  awk -F'\t' -v n="$n" '$1 == n { if ($3 > d) d = $3; if ($4 > p) p = $4 }
    END { printf "%-10s %12.4g %12.4g %7.3f\n", n, d, p, d / p }' "$res"
done
