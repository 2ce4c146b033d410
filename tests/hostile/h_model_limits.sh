#!/usr/bin/env bash
# Sizes a model file controls (issue 10, item 6): each works or is refused
# with a message naming the file, the line and the limit (src/model/limits.h).
. "$(dirname "$0")/lib.sh"

# 300 noisy variables: the generator kept their noise indices in int[256]
# (the old code read past it and failed to compile, or worse)
n=300
{
  printf '[model]\nname = many\nvars = x0'
  for ((i = 1; i < n; i++)); do
    if ((i % 20 == 0)); then printf ',\n  x%d' $i; else printf ', x%d' $i; fi
  done
  printf '\n[drift]\n'
  for ((i = 0; i < n; i++)); do printf 'x%d = 0.5\n' $i; done
  printf '[noise]\n'
  for ((i = 0; i < n; i++)); do printf 'x%d = 1\n' $i; done
} >"$T/many.sde"
run_sdk run "$T/many.sde" --drift x299 --t-end 10 --paths 1000 --seed 3 -o "$T/many.tsv"
check many-noisy-runs [ "$rc" -eq 0 ]
# <<v>> of x299 is 0.5; within 5 standard errors
check many-noisy-drift awk -F'\t' '!/^#/ && NF == 2 { d = $1 - 0.5; if (d < 0) d = -d; ok = (d < 5 * $2 && $2 > 0 && $2 < 0.05) } END { exit !ok }' "$T/many.tsv"

# more than 62 [meanfield] sums: the old generator silently dropped those past 64
{
  printf '[model]\nname = mf\nvars = x\n[drift]\nx = m0\n[meanfield]\n'
  for ((i = 0; i < 63; i++)); do printf 'm%d = sin(x)\n' $i; done
} >"$T/mf.sde"
expect_error meanfield-63 2 "mf\.sde:69: more than 62 entries in \[meanfield\] \(the limit\)" run "$T/mf.sde" --particles 4

# 1e999 was inf, emitted as the name "inf", here a parameter
printf '[model]\nname = inf\nvars = x\n[params]\ninf = 1\n[drift]\nx = 1e999\n' >"$T/inf.sde"
expect_error literal-1e999 2 "inf\.sde:7: \[drift\] x: number out of the range of double" run "$T/inf.sde"

# 200000 nested parentheses (continued over indented lines) overflowed the
# parser's stack
{
  printf '[model]\nname = deep\nvars = x\n[drift]\nx = '
  for ((i = 0; i < 2000; i++)); do printf '%0100d\n  ' 0 | tr 0 '('; done
  printf 'x\n'
} >"$T/deep.sde"
expect_error deep-parens 2 "deep\.sde:5: \[drift\] x: expression nested deeper than 100 levels" run "$T/deep.sde"

# the longest names pass; one more character is refused by name
v=$(printf 'v%.0s' $(seq 63))
printf '[model]\nname = ln\nvars = %s\n[drift]\n%s = 1\n' "$v" "$v" >"$T/ok63.sde"
run_sdk run "$T/ok63.sde" --t-end 1 --paths 4 -o "$T/ok63.tsv"
check name-63-ok [ "$rc" -eq 0 ]
printf '[model]\nname = ln\nvars = %sv\n[drift]\n%sv = 1\n' "$v" "$v" >"$T/long64.sde"
expect_error name-64 2 "long64\.sde:3: variable name 'v+\.\.\.' is longer than 63 characters" run "$T/long64.sde"
finish
