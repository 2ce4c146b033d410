#!/usr/bin/env bash
# The CUDA driver's delays (codegen/delay_cuda.c) run on the host as C++
# (scripts/cuda-host/run.cpp): every path's final x against the CPU
# backend's, bit for bit (--no-fast-math: the same C math on both), in 1
# and in 3 launches, for delays of D = 1 .. 1000 steps (step by step, at a
# group's start, a group ahead, and two rings of several delays each),
# euler and srk2, single and double.  With REF (another build directory,
# e.g. main's) the kernels of both are also run and their outputs compared
# (with fast-math too: the host's own math, the same for both).  No GPU
# needed; the device's scheduling and math are not checked (test_delay).
# Against REF every row of the state is compared (ROWS=all: the rings as
# the backend's rows read them, also where the kernel keeps them as quads,
# codegen/delay_cuda.c: single precision, rings of 4 k slots, D > 8).
# Needs c++ and python3 with h5py.
#   [REF=BUILD_DIR] [ONLY=REGEX (of the cases' names)] scripts/cuda-host-delay.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build}/sdekit
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0 n=0
cat > "$T/two.sde" << 'EOF'
[model]
name = two
vars = x, y
[params]
a = 1
tau = 0.3
[drift]
x = -a*x(t - tau) + y
y = -y + 0.5*x(t - 2*tau) + 0.2*y(t - 3*tau)
[noise]
x = 0.5 + 0.1*x(t - tau)
y = 1
[history]
x = cos(t)
y = 0.5*sin(t)
EOF
# (the quads' reads start at every offset: D = 4 k .. 4 k - 3 of one ring,
# and a second ring; one noise: groups of 4 steps)
cat > "$T/four.sde" << 'EOF'
[model]
name = four
vars = x, y
[params]
a = 1
tau = 0.2
h = 0.01
[drift]
x = -a*x(t - tau) + 0.3*x(t - (tau - h)) - 0.2*x(t - (tau - 2*h)) + 0.1*x(t - (tau - 3*h)) + y
y = -y + 0.5*y(t - 2*tau)
[noise]
x = 0.5 + 0.1*x(t - (tau - h))
[history]
x = cos(t)
y = 0.5*sin(t)
EOF
kernel() { # BIN OUT MODEL ARGS...: the host program of BIN's kernel
  LD_LIBRARY_PATH=$(dirname "$1") "$1" codegen "$3" --backend cuda "${@:4}" > "$T/k.cu"
  c++ -std=c++17 -O1 -ffp-contract=off -w -DKERNEL="\"$T/k.cu\"" \
    -I"$src/scripts/cuda-host" "$src/scripts/cuda-host/run.cpp" -o "$2"
}
same() { # A B NAME
  n=$((n + 1))
  if cmp -s "$1" "$2"; then echo "same bits: $3"; else echo "DIFFERENT: $3" && fail=1; fi
}
cpu() { # NAME STEPS MODEL ARGS...: $T/run's final x against the CPU backend's
  local name=$1 steps=$2 model=$3
  shift 3
  "$bin" run "$model" --no-fast-math --paths 300 --seed 7 "$@" --save-final --observe none \
    --quiet -o "$T/cpu.h5" 2> /dev/null
  ${PYTHON:-/usr/bin/python3} -c "
import h5py
for v in h5py.File('$T/cpu.h5')['final']['x'][()].ravel(): print(float(v).hex())" \
    > "$T/cpu.txt"
  for l in 1 3; do
    "$T/run" 300 $l "$steps" 7 | ${PYTHON:-/usr/bin/python3} -c "
import sys
for s in sys.stdin: print(float.fromhex(s).hex())" > "$T/gpu$l.txt"
    same "$T/cpu.txt" "$T/gpu$l.txt" "$name, $l launch(es), against the CPU"
  done
}
one() { # NAME STEPS MODEL ARGS...
  local name=$1 steps=$2 model=$3
  shift 3
  [[ $name =~ ${ONLY:-.} ]] || return 0
  kernel "$bin" "$T/run" "$model" --no-fast-math "$@"
  # (in single precision the host-read source and the CPU backend differ on
  # main already: against REF only)
  [[ " $* " == *" --precision single "* ]] || cpu "$name" "$steps" "$model" "$@"
  [ -n "${REF:-}" ] || return 0
  for fm in --no-fast-math ""; do
    kernel "$REF/sdekit" "$T/ref" "$model" $fm "$@"
    [ -n "$fm" ] || kernel "$bin" "$T/run" "$model" "$@"
    for l in 1 3; do
      ROWS=all "$T/ref" 300 $l "$steps" 7 > "$T/r.txt"
      ROWS=all "$T/run" 300 $l "$steps" 7 > "$T/g.txt"
      same "$T/r.txt" "$T/g.txt" "$name, $l launch(es), ${fm:-fast-math}, all rows against REF's"
    done
  done
}
m=$src/models
for prec in double single; do
  for scheme in euler srk2; do
    for d in 1 2 3 4 5 7 8 9 12 13 16 17 20 33 36; do
      one "delay_ou $scheme $prec D=$d" 203 "$m/delay_ou.sde" --precision $prec --scheme $scheme \
        --dt 0.01 --t-end 2.03 --set tau=$(awk -v d=$d 'BEGIN { print d / 100 }') --set a=0.7
    done
    one "delay_ou $scheme $prec D=1000" 2203 "$m/delay_ou.sde" --precision $prec \
      --scheme $scheme --dt 0.01 --t-end 22.03 --set tau=10 --set a=0.1
    for d in 1 3 5 9 17; do
      one "two rings $scheme $prec D=$d, 2D, 3D" 137 "$T/two.sde" --precision $prec \
        --scheme $scheme --dt 0.01 --t-end 1.37 --set tau=$(awk -v d=$d 'BEGIN { print d / 100 }')
    done
    for d in 12 20; do
      one "four delays $scheme $prec D=$d .. $d - 3, 2D" 137 "$T/four.sde" --precision $prec \
        --scheme $scheme --dt 0.01 --t-end 1.37 --set tau=$(awk -v d=$d 'BEGIN { print d / 100 }')
    done
  done
done
echo "$n comparisons"
exit $fail
