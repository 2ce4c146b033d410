#!/bin/sh
# check.sh CC CXX SRC: every kernel file of SRC/src/codegen/kernels/ (listed
# now, so that a new file is covered) compiles on its own, given the holes
# of tests/kernels/prelude.h (kernels/README.md):
#   - line 1 of each file is `#line 2 "kernels/NAME"`;
#   - the library writes each (sdk_embedded_<NAME> is used in src/codegen);
#   - each NAME.h:   CC -x c -std=gnu11 -fopenmp -fsyntax-only -Wall -Wextra
#                    -Werror -include prelude.h (-fopenmp: the CPU backend
#                    compiles with it, so the #pragma omp lines are checked);
#   - each NAME.cuh: CXX -x c++ -fsyntax-only -Wall -Wextra -Werror
#                    -Wno-unknown-pragmas (CUDA's #pragma unroll) with the
#                    host shim host_cuda.h and prelude.cuh (syntax, names and
#                    types; NVRTC itself: test_kernel_nvrtc, label gpu).
# Unused functions are allowed (a file is a library of functions the
# generated code calls).  Each compile defines SDK_KERNEL_FILE_<NAME> (the
# name as in sdk_embedded_<NAME>): the prelude leaves out what that file
# itself defines.
set -u
CC=$1
CXX=$2
SRC=$3
K=$SRC/src/codegen/kernels
P=$SRC/tests/kernels
nfail=0
nfile=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
for f in "$K"/*.h "$K"/*.cuh; do
  [ -e "$f" ] || continue
  nfile=$((nfile + 1))
  name=$(basename "$f")
  first=$(head -n 1 "$f")
  [ "$first" = "#line 2 \"kernels/$name\"" ] ||
    fail "$name: line 1 is '$first', not '#line 2 \"kernels/$name\"'"
  id=$(printf '%s' "$name" | tr -c 'A-Za-z0-9\n' '_')
  grep -q "sdk_embedded_$id" "$SRC"/src/codegen/*.c ||
    fail "$name: sdk_embedded_$id is used nowhere in src/codegen"
  case $name in
  *.h) out=$("$CC" -x c -std=gnu11 -fopenmp -fsyntax-only -Wall -Wextra -Werror \
    -Wno-unused-function -DSDK_KERNEL_FILE_$id -include "$P/prelude.h" "$f" 2>&1) ;;
  *.cuh)
    if [ -z "$CXX" ]; then
      echo "$name: no C++ compiler: not read as host C++"
      continue
    fi
    out=$("$CXX" -x c++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -Wno-unknown-pragmas \
      -Wno-unused-function -DSDK_KERNEL_FILE_$id -include "$P/host_cuda.h" \
      -include "$P/prelude.cuh" "$f" 2>&1)
    ;;
  esac
  [ $? -eq 0 ] || fail "$name does not compile on its own:
$out"
done
echo "kernel files: $nfile checked, $nfail failed"
[ "$nfile" -gt 0 ] && [ "$nfail" -eq 0 ]
