#!/usr/bin/env bash
# `sdekit models` says what a bare name loads (issue 25, item 14): a model of
# SDEKIT_MODEL_PATH was listed under "built-in models", and the built-in it
# shadows was still listed as if `sdekit run NAME` would load it.  Each
# directory now has its own heading, in the order run searches them, and a
# shadowed model names the file that is loaded instead.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/m1" "$T/m2"
printf '%s\n' '[model]' 'name = myou' 'description = my own ou' 'vars = x' '[drift]' 'x = -x' \
  >"$T/m1/ou.sde"
printf '%s\n' '[model]' 'name = mine' 'description = mine, first' 'vars = x' '[drift]' 'x = 1' \
  >"$T/m1/mine.sde"
printf '%s\n' '[model]' 'name = mine' 'description = mine, second' 'vars = x' '[drift]' 'x = 2' \
  >"$T/m2/mine.sde"
printf '%s\n' '[model]' 'name = other' 'description = only in m2' 'vars = y' '[drift]' 'y = 1' \
  >"$T/m2/other.sde"

# section HEADING: the lines under HEADING up to the next heading
section() {
  awk -v h="$1" '/^[^ ]/ { on = ($0 == h); next } on' "$OUTF"
}

SDEKIT_MODEL_PATH="$T/m1::$T/m2" run_sdk models
check "models exits 0" [ "$rc" -eq 0 ]
check "headings in search order" \
  [ "$(grep -v '^ ' "$OUTF" | tr '\n' '|')" = "models on SDEKIT_MODEL_PATH ($T/m1):|models on SDEKIT_MODEL_PATH ($T/m2):|built-in models:|" ]
m1=$(section "models on SDEKIT_MODEL_PATH ($T/m1):")
m2=$(section "models on SDEKIT_MODEL_PATH ($T/m2):")
bi=$(section "built-in models:")
check "search-path model under its directory" grep -Eq '^  ou +my own ou$' <<<"$m1"
check "its [model] name, where it is not the file's" grep -q 'vars: x; \[model\] name: myou$' <<<"$m1"
check "the first directory's mine is listed" grep -Eq '^  mine +mine, first$' <<<"$m1"
check "the second directory's mine is shadowed" \
  grep -Eq "^  mine +\(shadowed by $T/m1/mine\.sde: 'sdekit run mine' loads that one\)\$" <<<"$m2"
check "the second directory's other model is listed" grep -Eq '^  other +only in m2$' <<<"$m2"
check "no search-path model under built-in models" \
  bash -c '! grep -Eq "^  (mine|other) " <<<"$1"' _ "$bi"
check "the shadowed built-in is shown as such" \
  grep -Eq "^  ou +\(shadowed by $T/m1/ou\.sde: 'sdekit run ou' loads that one\)\$" <<<"$bi"
check "the shadowed built-in is not listed as available" \
  bash -c '! grep -Eq "^  ou +Ornstein-Uhlenbeck process$" <<<"$1"' _ "$bi"
check "other built-ins stay listed" grep -Eq '^  josephson +Josephson junction' <<<"$bi"

# what the listing says is what run loads
SDEKIT_MODEL_PATH="$T/m1::$T/m2" run_sdk run ou --paths 4 --t-end 0.1 -o "$T/ou.tsv"
check "run ou loads the search path's ou" grep -q "^# model: myou ($T/m1/ou\.sde)\$" "$T/ou.tsv"
SDEKIT_MODEL_PATH="$T/m1::$T/m2" run_sdk run mine --paths 4 --t-end 0.1 -o "$T/mine.tsv"
check "run mine loads the first directory's" grep -q "^# model: mine ($T/m1/mine\.sde)\$" "$T/mine.tsv"

# a search-path directory without models, and no search path at all
SDEKIT_MODEL_PATH="$T/none" run_sdk models
check "empty search-path directory" \
  [ "$(section "models on SDEKIT_MODEL_PATH ($T/none):")" = "  (none found)" ]
run_sdk models
check "without SDEKIT_MODEL_PATH: one heading" [ "$(grep -c -v '^ ' "$OUTF")" -eq 1 ]
check "without SDEKIT_MODEL_PATH: ou is the built-in" \
  grep -Eq '^  ou +Ornstein-Uhlenbeck process$' "$OUTF"
finish
