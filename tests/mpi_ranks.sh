#!/usr/bin/env bash
# Runs over MPI ranks (issue 15, docs/SCALING.md): every output file of
# `mpirun -np R sdekit run ...` is byte-identical to the single-process run
# for R = 1..4 (R that does not divide the work, R with ranks that hold no
# paths); a checkpoint written by R ranks resumes with another R, also after
# one rank was killed (-9) mid-run, which takes the job down without a hang;
# mean-field systems spanning ranks are bitwise those of one process;
# errors come once, from rank 0; runs to a standard error (issue 26) are
# bitwise across ranks and across a stop on 3 ranks resumed by 2.  Backend from $SDK_TEST_BACKEND (default
# cpu); MPIEXEC is CMake's mpiexec.
set -u
B=${SDK_BIN:?}
MPIEXEC=${MPIEXEC:-mpirun}
[ -x "$B" ] || exit 77
command -v "$MPIEXEC" >/dev/null || { echo "no $MPIEXEC: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BACKEND=${SDK_TEST_BACKEND:-cpu}
NPMAX=${SDK_TEST_NPMAX:-4}
# Open MPI as root (CI containers) and on 2 cores
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPI=("$MPIEXEC" --oversubscribe)
npass=0 nfail=0
pass() { npass=$((npass + 1)); }
failed() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }
check() { local name=$1; shift; if "$@"; then pass; else failed "$name"; fi; }
if [ "$BACKEND" = cuda ]; then
  [ "$("$B" devices --count 2>/dev/null || echo 0)" != 0 ] || { echo "no CUDA device: skipped"; exit 77; }
  SCALE=16
else
  SCALE=1
fi

# same(NAME DIR_A DIR_B): every file of DIR_A byte-identical in DIR_B
same() {
  local name=$1 a=$2 b=$3 n=0
  for f in "$a"/*; do
    n=$((n + 1))
    if cmp -s "$f" "$b/${f##*/}"; then pass; else failed "$name: ${f##*/} differs"; fi
  done
  [ $n -gt 0 ] || failed "$name: no output"
}

# case NAME ARGS...: one process, then mpirun -np 1..NPMAX, every file equal
scase() {
  local name=$1; shift
  mkdir -p "$T/$name/one"
  (cd "$T/$name/one" && "$B" "$@" --backend "$BACKEND" --quiet) || failed "$name: one process"
  for np in $(seq 1 "$NPMAX"); do
    mkdir -p "$T/$name/np$np"
    (cd "$T/$name/np$np" && timeout 300 "${MPI[@]}" -np "$np" "$B" "$@" --backend "$BACKEND" --quiet) ||
      failed "$name: mpirun -np $np"
    same "$name -np $np" "$T/$name/one" "$T/$name/np$np"
  done
  echo "$name: $(ls "$T/$name/one" | tr '\n' ' ')equal for -np 1..$NPMAX"
}

# PROG1: a scan of the Josephson junction's drift velocity
scase prog1 run josephson --scan a=4:8:7 --paths $((1500 * SCALE)) --periods 60 \
  --transient-periods 20 --observe drift,moments,density --threads 1 -o r.h5 -o r.tsv
# OU: moments, histograms, covariances, ranges, user observables and sample paths
scase ou run ou --scan k=0.5:2:3 --paths $((3000 * SCALE)) --t-end 2 --sample-every 25 \
  --observe moments,hist,cov,diffusion,expr --observe-expr x2='x*x' --save-paths 0,7,2999 \
  --threads 1 -o r.h5 -o r.tsv
# fewer reduction chunks than ranks: some ranks hold nothing
scase few run ou --paths 100 --t-end 1 --observe moments --save-paths 99 --threads 1 -o r.h5
# initial states from data (issue 28): every rank uploads its share, the
# final states come to rank 0 shard by shard
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 -c "import numpy as np; np.save('$T/x0.npy', np.random.default_rng(1).normal(size=(3, 5000)))"
  scase initfrom run ou --scan k=0.5:2:3 --t-end 1 --observe moments --init-from "x=$T/x0.npy" \
    --save-final --threads 1 -o r.h5
fi
# runs to a standard error (issue 26): the batches (windows of the paths cut
# over the ranks), the carry and the stopping rule give the same bits on any
# number of ranks
scase target run ou --scan k=0.5:2:3 --t-end 1 --observe moments,expr --observe-expr x2='x*x' \
  --target-se $(awk "BEGIN { print 0.004 / sqrt($SCALE) }") --max-paths $((65536 * SCALE)) \
  --threads 1 -o r.h5 -o r.tsv

# --mlmc (issue 26): its levels' windows of whole chunks cut over the ranks,
# the carries and the allocation give the same bits on any number of ranks
scase mlmc run gbm --set mu=0.05 --set sigma=0.2 --t-end 1 --dt 0.25 --scheme milstein \
  --observe moments,expr --observe-expr S2='S*S' --mlmc $(awk "BEGIN { print 0.002 / sqrt($SCALE) }") \
  --threads 1 -o r.h5 -o r.tsv

# mean-field systems spanning ranks: one system of 20000 particles (not a
# multiple of the units: the cut finds the places where it may), three of 1000
# (on the GPU, one of 2^20 and three of 2^18)
if [ "$BACKEND" = cpu ]; then N1=20000 N3=1000; else N1=1048576 N3=262144; fi
scase meanfield1 run kuramoto-meanfield --particles $N1 --set sigma=0.5 --dt 0.01 --t-end 4 \
  --observe order,density,moments --sample-every 20 --threads 1 -o r.h5 -o r.tsv
scase meanfield3 run kuramoto-meanfield --particles $N3 --paths 3 --set sigma=0.5 --dt 0.01 \
  --t-end 4 --observe order,density,moments --sample-every 20 --threads 1 -o r.h5 -o r.tsv
# a system's checkpoint from 3 ranks at t = 2, extended to t = 4 by 2 ranks
mkdir -p "$T/mfck" && cd "$T/mfck"
timeout 300 "${MPI[@]}" -np 3 "$B" run kuramoto-meanfield --particles $N1 --set sigma=0.5 \
  --dt 0.01 --t-end 2 --observe order,density,moments --sample-every 20 --threads 1 \
  --backend "$BACKEND" --checkpoint ck -o r.h5 -o r.tsv --quiet || failed "meanfield: checkpointed run"
timeout 300 "${MPI[@]}" -np 2 "$B" resume ck --t-end 4 --force --quiet >/dev/null 2>&1 ||
  failed "meanfield: resume with 2 ranks"
# (r.h5 records the command line, whose --t-end differs: the text files)
for f in r.order.tsv r.density.tsv r.moments.tsv; do
  if cmp -s "$T/meanfield1/one/$f" "$T/mfck/$f"; then pass
  else failed "meanfield checkpoint of 3 ranks extended by 2: $f differs"; fi
done
cd "$T"
if [ "$BACKEND" != cpu ]; then
  # one rank's own failure in the set-up (a GPU that is not there): every rank
  # stops, rank 0 reports it once with the rank that failed
  "${MPI[@]}" -np 2 "$B" run ou --paths 1000 --backend cuda --device 0,63 >out.txt 2>err.txt
  rc=$?
  check "one rank's failure: exit 1 (got $rc)" test "$rc" = 1
  check "one rank's failure: one line naming rank 1 ($(cat err.txt))" \
    test "$(grep -c '^sdekit: error: rank 1: .*no CUDA device 63' err.txt)" = 1
fi

# first passage with absorbing boundaries (host-side observable over rows)
printf '[model]\nname = bm\nvars = x\n[params]\nD = 0.1\nL = 1\n[drift]\nx = 0.1\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0.5\n[boundaries]\nleft = absorb x <= 0\nright = absorb x >= L\n' >"$T/bm.sde"
scase fpt run "$T/bm.sde" --scan L=0.8:1.2:3 --paths $((4000 * SCALE)) --dt 0.001 --t-end 2 \
  --observe fpt,moments --sample-every 100 --threads 1 -o r.h5 -o r.tsv

# checkpoints: written by 3 ranks (SIGINT to mpirun: every rank stops at the
# same step), resumed by 2, then by 4 after one rank is killed
CARGS=(run josephson --scan a=4:8:3 --paths $((2048 * SCALE)) --periods 2000 --transient-periods 20
       --observe drift,moments,hist --save-paths 0,5 --sample-every 500
       --backend "$BACKEND" -o r.h5 -o r.tsv)
mkdir -p "$T/ck/one" "$T/ck/int" "$T/ck/kill"
(cd "$T/ck/one" && "$B" "${CARGS[@]}" --threads 2 --quiet) || failed "checkpoint: one process"
cd "$T/ck/int"
"${MPI[@]}" -np 3 "$B" "${CARGS[@]}" --threads 1 --checkpoint ck --checkpoint-every 0 2>err.txt &
pid=$!
for i in $(seq 1000); do [ -f ck ] && break; sleep 0.02; done
sleep 0.3
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
# (mpirun's own status after a forwarded SIGINT is 1 in Open MPI 4; each rank exits 130)
check "interrupted mpirun -np 3 fails (got $rc; $(tail -2 err.txt))" test "$rc" != 0
check "one interrupt message (rank 0)" test "$(grep -c 'interrupted at step' err.txt)" = 1
step=$(grep -o 'interrupted at step [0-9]*' err.txt | grep -o '[0-9]*$')
echo "checkpoint: 3 ranks interrupted at step ${step:-?}; resumed by 2"
timeout 300 "${MPI[@]}" -np 2 "$B" resume ck --quiet || failed "resume with 2 ranks"
same "resumed by 2 ranks" "$T/ck/one" "$T/ck/int"

# a run to a standard error stopped by SIGINT in a later batch on 3 ranks,
# resumed by 2: the single process's file (issue 26)
TARGS=(run ou --scheme euler --dt 0.0005 --t-end 10 --observe moments,drift
       --target-se $(awk "BEGIN { print 0.002 / sqrt($SCALE) }") --threads 1
       --backend "$BACKEND" -o r.h5)
mkdir -p "$T/tck/one" "$T/tck/int"
(cd "$T/tck/one" && "$B" "${TARGS[@]}" --quiet) || failed "target: one process"
cd "$T/tck/int"
"${MPI[@]}" -np 3 "$B" "${TARGS[@]}" --checkpoint ck --checkpoint-every 0.1 2>err.txt &
pid=$!
# (a second after the first checkpoint: a later batch on most machines; a run
# that ended first resumes from its end, the same file)
for i in $(seq 1000); do [ -f ck ] && break; sleep 0.02; done
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
echo "target: $(tail -1 err.txt)"
timeout 300 "${MPI[@]}" -np 2 "$B" resume ck --quiet --force || failed "target: resume with 2 ranks"
same "target: stopped on 3 ranks, resumed by 2" "$T/tck/one" "$T/tck/int"

# kill -9 one rank: the job ends (no hang), the last checkpoint resumes
cd "$T/ck/kill"
"${MPI[@]}" -np 3 "$B" "${CARGS[@]}" --threads 1 --checkpoint ck --checkpoint-every 0 >out.txt 2>err.txt &
pid=$!
for i in $(seq 1000); do [ -f ck ] && break; sleep 0.02; done
sleep 0.3
victim=$(pgrep -P $pid -f "sdekit" | sed -n 2p)
t0=$(date +%s)
if [ -n "$victim" ]; then kill -9 "$victim"; else failed "kill: no rank found"; fi
# (bounded wait: a hang fails the test instead of blocking it)
for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then failed "killed rank: mpirun still running after 60 s (hang)"; kill -9 $pid; fi
wait $pid
rc=$?
check "mpirun with a killed rank fails (rc $rc)" test "$rc" != 0
echo "kill: rank pid $victim killed, mpirun ended in $(($(date +%s) - t0)) s with $rc"
check "killed run wrote no results" test ! -e r.h5
timeout 300 "${MPI[@]}" -np 4 "$B" resume ck --quiet || failed "resume with 4 ranks after the kill"
same "resumed by 4 ranks after a kill" "$T/ck/one" "$T/ck/kill"
cd "$T"

# errors: one line, from rank 0, the exit status of one process
"${MPI[@]}" -np 3 "$B" run nosuchmodel >out.txt 2>err.txt
rc=$?
check "bad model under mpirun: exit 2 (got $rc)" test "$rc" = 2
check "bad model under mpirun: one error line ($(cat err.txt))" test "$(grep -c '^sdekit: error:' err.txt)" = 1
# ranks given different runs (an MPMD launch) are refused together, not left waiting
"${MPI[@]}" -np 1 "$B" run ou --paths 1000 --backend "$BACKEND" -o r.h5 : \
  -np 1 "$B" run ou --paths 2000 --backend "$BACKEND" -o r.h5 >out.txt 2>err.txt
rc=$?
check "different runs per rank: exit 2 (got $rc)" test "$rc" = 2
check "different runs per rank: one line ($(cat err.txt))" \
  test "$(grep -c '^sdekit: error: the MPI ranks were given different runs' err.txt)" = 1
check "different runs per rank: nothing written" test ! -e r.h5
"${MPI[@]}" -np 2 "$B" run kuramoto --particles 1024 --backend "$BACKEND" >out.txt 2>err.txt
rc=$?
check "all-pairs systems over ranks: refused, exit 2 (got $rc)" test "$rc" = 2
check "all-pairs systems over ranks: the reason ($(cat err.txt))" grep -q "do not span MPI ranks" err.txt
check "all-pairs systems over ranks: one line" test "$(grep -c '^sdekit: error:' err.txt)" = 1

echo "mpi_ranks: $npass passed, $nfail failed"
[ "$nfail" = 0 ]
