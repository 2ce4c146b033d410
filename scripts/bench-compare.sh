#!/usr/bin/env bash
# Throughput of two builds of sdekit on the same machine, one after the other
# (issue 11's guard rail: a refactor keeps every workload within 3%).
#
#   scripts/bench-compare.sh OLD_BIN NEW_BIN cpu|cuda [ROUNDS]
#
# Each workload runs ROUNDS times (default 3), alternating old and new; the
# best of each is kept (other load only slows a run down).  Workloads:
#   PROG1  sdekit bench: josephson SRK2 single, steps/s (the kernel alone)
#   PROG3  sdekit bench --model kuramoto-meanfield --workload-only (cuda)
#   PROG2  sdekit bench --model kuramoto --workload-only (cuda)
#   OU     sdekit run ou --observe moments (default sampling): whole runs,
#          path-steps/s from the run's own summary line
# Prints one line per workload: old, new, new/old.
set -uo pipefail
OLD=$1 NEW=$2 BE=$3 ROUNDS=${4:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

prog1() { # BIN -> steps/s of ours
  if [ "$BE" = cuda ]; then
    "$1" bench --backend cuda --paths 4194304 --repeats 5 2>&1 |
      awk '$1 == 4194304 {print $2}'
  else
    "$1" bench --threads "${THREADS:-2}" 2>&1 | awk '/^cpu: / {print $NF; exit}'
  fi
}
sys() { # BIN MODEL -> the workload's rate
  "$1" bench --backend cuda --model "$2" --workload-only --repeats 3 2>&1 |
    awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+e[+-][0-9]+$/) {print $i; exit}}'
}
ou() { # BIN -> path-steps/s of a whole run with moments sampled 100 times
  local args=(run ou --scheme euler --observe moments -o "$T/ou.h5")
  if [ "$BE" = cuda ]; then
    args+=(--backend cuda --paths 1048576 --dt 0.001 --t-end 100)
  else
    args+=(--threads "${THREADS:-2}" --paths 1000000 --dt 0.001 --t-end 1)
  fi
  "$1" "${args[@]}" 2>&1 | sed -n 's/.*(\([0-9.e+]*\) steps\/s).*/\1/p'
}
sys_mf() { sys "$1" kuramoto-meanfield; }
sys_pair() { sys "$1" kuramoto; }
best() { sort -g | tail -1; }

run_all() { # NAME CMD...
  local name=$1
  shift
  : > "$T/old" && : > "$T/new"
  for r in $(seq "$ROUNDS"); do
    "$@" "$OLD" >> "$T/old"
    "$@" "$NEW" >> "$T/new"
  done
  local o n
  o=$(best < "$T/old") n=$(best < "$T/new")
  awk -v w="$name" -v o="$o" -v n="$n" 'BEGIN {
    if (o > 0 && n > 0) printf "%-8s %12.4e %12.4e %8.3f\n", w, o, n, n / o;
    else printf "%-8s %12s %12s %8s\n", w, o, n, "?" }'
}

printf "%-8s %12s %12s %8s\n" workload old new new/old
run_all PROG1 prog1
if [ "$BE" = cuda ]; then
  run_all PROG3 sys_mf
  run_all PROG2 sys_pair
fi
run_all OU ou
