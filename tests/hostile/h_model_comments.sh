#!/usr/bin/env bash
# A comment never changes a number (issue 25, item 3): a value continued on an
# indented line after a '#' comment kept its first line only (`x = 1  # c`
# then `    + 1` was a drift of 1), in every section.  Each case below is one
# model written three ways: on one line, split with a '#' comment and split
# with a ';' comment; the three runs (fixed seed) must give the same numbers,
# bit for bit.
. "$(dirname "$0")/lib.sh"

RUN="--paths 16 --seed 3"

# same NAME TEMPLATE ARGS...: "@@" in TEMPLATE is the split point
same() {
  local name=$1 tpl=$2
  shift 2
  local plain=${tpl//@@/ }
  local hash=${tpl//@@/   # a comment$'\n'    }
  local semi=${tpl//@@/ ; a comment$'\n'    }
  printf '%s\n' "$plain" >"$T/$name-plain.sde"
  printf '%s\n' "$hash" >"$T/$name-hash.sde"
  printf '%s\n' "$semi" >"$T/$name-semi.sde"
  local v ref=
  for v in plain hash semi; do
    run_sdk run "$T/$name-$v.sde" $RUN "$@" -o "$T/$name-$v.tsv"
    if [ "$rc" -ne 0 ]; then
      fail "$name ($v): exit $rc: $(head -c 300 "$ERRF")"
      return
    fi
    grep -v '^#' "$T/$name-$v.tsv" >"$T/$name-$v.dat"
  done
  check "$name: '#' comment, then a continuation line" cmp -s "$T/$name-plain.dat" "$T/$name-hash.dat"
  check "$name: ';' comment, then a continuation line" cmp -s "$T/$name-plain.dat" "$T/$name-semi.dat"
  [ -s "$T/$name-plain.dat" ] || fail "$name: no numbers"
}

HEAD='[model]
name = c
vars = x
[params]
k = 1'
OU="$HEAD
[drift]
x = -k*x
[noise]
x = 0.3
[init]
x = 0.2"
T0="--t-end 1 --dt 0.05"
T1="$T0 --observe moments"

same drift "$HEAD
[drift]
x = -k*x@@+ 1
[noise]
x = 0.3" $T1
same drift-twice "$HEAD
[drift]
x = -k*x@@+ 1@@- 0.25*x
[noise]
x = 0.3" $T1
same noise "$HEAD
[drift]
x = -k*x
[noise]
x = 0.3@@* 2" $T1
same init "$HEAD
[drift]
x = -k*x
[init]
x = 0.2@@+ 1" $T1
same init-uniform "$HEAD
[drift]
x = -k*x
[init]
x = uniform(0,@@1)" $T1
same params "$HEAD@@+ 1
[drift]
x = -k*x
[noise]
x = 0.3" $T1
same observe "$OU
[observe]
sq = x*x@@+ 1" $T0 --observe expr
same boundaries "[model]
name = c
vars = x
[drift]
x = 1
[boundaries]
over = absorb x >= 0.5@@+ 0.5" --t-end 3 --dt 0.01 --observe fpt
same period "[model]
name = c
vars = x
period = 2*pi@@/ omega
[params]
omega = 2
[drift]
x = cos(omega*t)" --periods 2 --spp 10 --observe moments
same periodic "[model]
name = c
vars = x
periodic = x : 1@@+ 1
[drift]
x = 0.5
[noise]
x = 1" $T0 --observe density --coarse-grain
same vars "[model]
name = c
vars = x,@@y
[drift]
x = -x
y = x
[noise]
x = 0.3" $T1
same jumps "$OU
[jumps]
x = 2@@* 2 : fixed(0.5)" $T1
same dichotomous "[model]
name = c
vars = x
[dichotomous]
eta = 1, -1,@@0.5, 0.5
[drift]
x = -x + eta" $T1
same correlation "[model]
name = c
vars = x, y
wiener = W1, W2
correlation = W1 W2 :@@0.5
[drift]
x = -x
y = -y
[noise]
x = dW1
y = dW2" $T1
same meanfield "[model]
name = c
vars = x
[particle]
w = normal(0,@@0.5)
[meanfield]
S = sin(x)@@* 2
[drift]
x = w + S*cos(x)
[noise]
x = 0.3" $T1 --particles 4

# a comment on its own line between a value and its continuation (worked)
printf '%s\n' "$HEAD" '[drift]' 'x = -k*x' '# a note' '    + 1' '[noise]' 'x = 0.3' >"$T/own-line.sde"
run_sdk run "$T/own-line.sde" $RUN $T1 -o "$T/own-line.tsv"
grep -v '^#' "$T/own-line.tsv" >"$T/own-line.dat" 2>/dev/null
check "a whole-line comment inside a continued value" cmp -s "$T/drift-plain.dat" "$T/own-line.dat"

# The drive of the josephson model on its own commented line: the built-in's
# numbers, bit for bit (it was <<v>> = -0.0015 instead of -0.0104 here).
awk '/^v = -gamma/ {
       sub(/ \+ a\*cos\(omega\*t\) \+ f$/, "   # the potential'"'"'s force\n    + a*cos(omega*t) + f   # the drive")
     } { print }' "$SRC/models/josephson.sde" >"$T/josephson-commented.sde"
grep -q '^    + a\*cos(omega\*t) + f   # the drive$' "$T/josephson-commented.sde" ||
  fail "josephson: the commented copy was not made"
J="--paths 256 --periods 20 --spp 100 --seed 1"
run_sdk run josephson $J -o "$T/j-builtin.tsv"
run_sdk run "$T/josephson-commented.sde" $J -o "$T/j-commented.tsv"
check "josephson with a commented drive line runs" [ "$rc" -eq 0 ]
check "josephson with a commented drive line: the same <<v>>, bitwise" \
  cmp -s <(grep -v '^#' "$T/j-builtin.tsv") <(grep -v '^#' "$T/j-commented.tsv")

# '#' is text, not a comment, in [model] name and description (free text)
mkdir -p "$T/mp"
printf '%s\n' '[model]' 'name = hashed' 'description = Model #3 of the series' 'vars = x' \
  '[drift]' 'x = 1' >"$T/mp/hashed.sde"
SDEKIT_MODEL_PATH=$T/mp run_sdk models
check "description keeps its '#'" grep -q '^  hashed  *Model #3 of the series$' "$OUTF"

# a model file's '#' comment in a value no longer reaches the expression
# parser; a stray '#' on the command line is still a comment there
run_sdk run "$T/drift-hash.sde" $RUN $T1 --observe-expr 'sq=x*x # squared' -o "$T/cl.tsv"
check "--observe-expr with a '#' comment" [ "$rc" -eq 0 ]
finish
