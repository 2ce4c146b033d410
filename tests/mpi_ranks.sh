#!/usr/bin/env bash
# Runs over MPI ranks (issue 15, docs/SCALING.md): every output file of
# `mpirun -np R sdekit run ...` is byte-identical to the single-process run
# for R = 1..4 (R that does not divide the work, R with ranks that hold no
# paths); a checkpoint written by R ranks resumes with another R, also after
# one rank was killed (-9) mid-run, which takes the job down without a hang;
# mean-field systems spanning ranks are bitwise those of one process;
# errors come once, from rank 0; --init-from and --path-params (.npy, TSV,
# HDF5), each rank reading its own share, bitwise; runs to a standard error (issue 26) are
# bitwise across ranks and across a stop on 3 ranks resumed by 2.  Backend from $SDK_TEST_BACKEND (default
# cpu); MPIEXEC is CMake's mpiexec.
#
# SDK_TEST_LAUNCH=team runs the same cases as in-process ranks of one process
# (issue 32, sim/ranks.c): `--ranks R` on the CPU, `--device A,B,...` on the
# GPU (R GPUs where the machine has them, else GPUs named again: two ranks
# sharing one); the cases of separate processes (a killed rank, MPMD) are MPI's.
set -u
B=${SDK_BIN:?}
MPIEXEC=${MPIEXEC:-mpirun}
LAUNCH=${SDK_TEST_LAUNCH:-mpi}
[ -x "$B" ] || exit 77
if [ "$LAUNCH" = mpi ]; then
  command -v "$MPIEXEC" >/dev/null || { echo "no $MPIEXEC: skipped"; exit 77; }
fi
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

NGPU=1
if [ "$BACKEND" = cuda ] && [ "$LAUNCH" = team ]; then
  NGPU=$("$B" devices --count 2>/dev/null || echo 1)
  [ "$NGPU" -ge 1 ] || NGPU=1
fi
# the options that lay a team of NP in-process ranks out
team_opts() {
  if [ "$BACKEND" = cuda ]; then
    local l="" i
    for i in $(seq 0 $(($1 - 1))); do l="$l${l:+,}$((i % NGPU))"; done
    echo "--device $l"
  else
    echo "--ranks $1"
  fi
}
# cmd_for NP ARGS...: CMD=(sdekit ARGS on NP ranks), to run as "${CMD[@]}"
# (under timeout, or with & so that the job is sdekit or mpirun itself)
cmd_for() {
  local np=$1; shift
  if [ "$LAUNCH" = team ]; then
    # shellcheck disable=SC2207
    CMD=("$B" "$@" $(team_opts "$np"))
  else
    CMD=("${MPI[@]}" -np "$np" "$B" "$@")
  fi
}

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
    (cd "$T/$name/np$np" && cmd_for "$np" "$@" --backend "$BACKEND" --quiet && timeout 300 "${CMD[@]}") ||
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
# [events] (issue 31): the per-path event rows read over the ranks
scase events run reset_bm --paths $((3000 * SCALE)) --t-end 20 --observe events --threads 1 \
  -o r.h5 -o r.tsv
# fewer reduction chunks than ranks: some ranks hold nothing
scase few run ou --paths 100 --t-end 1 --observe moments --save-paths 99 --threads 1 -o r.h5
# --device all: every GPU of the machine, one process
if [ "$LAUNCH" = team ] && [ "$BACKEND" = cuda ]; then
  mkdir -p "$T/prog1/all"
  (cd "$T/prog1/all" && timeout 300 "$B" run josephson --scan a=4:8:7 --paths $((1500 * SCALE)) \
    --periods 60 --transient-periods 20 --observe drift,moments,density -o r.h5 -o r.tsv \
    --backend cuda --device all 2>err.txt) || failed "--device all"
  same "--device all ($NGPU GPUs)" "$T/prog1/one" "$T/prog1/all"
  grep -q "in-process ranks" "$T/prog1/all/err.txt" || [ "$NGPU" = 1 ] ||
    failed "--device all: the summary names the ranks ($(tail -1 "$T/prog1/all/err.txt"))"
fi
# initial states from data (issue 28): every rank uploads its share, the
# final states come to rank 0 shard by shard
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 -c "import numpy as np; np.save('$T/x0.npy', np.random.default_rng(1).normal(size=(3, 5000)))"
  scase initfrom run ou --scan k=0.5:2:3 --t-end 1 --observe moments --init-from "x=$T/x0.npy" \
    --save-final --threads 1 -o r.h5
  # each rank reads its own share of the file (.npy records, .npz stored
  # members, HDF5 hyperslabs, TSV rows; deflated .npz members unpacked):
  # --init-from and --path-params from each format
  /usr/bin/python3 - "$T" <<'PY'
import sys, numpy as np
t = sys.argv[1]
g = np.random.default_rng(2)
x, k = g.normal(size=(3, 5000)), g.uniform(0.5, 2, size=5000)
np.save(f"{t}/k.npy", k)
np.savez(f"{t}/x0.npz", x=x)
np.savez_compressed(f"{t}/k.npz", k=k)
np.savetxt(f"{t}/x0.tsv", x[1], header="x", comments="", fmt="%.17g")
np.savetxt(f"{t}/k.tsv", k, header="k", comments="", fmt="%.17g")
try:
    import h5py
    with h5py.File(f"{t}/x0.h5", "w") as f: f["x"] = x
    with h5py.File(f"{t}/k.h5", "w") as f: f["k"] = k
except ImportError:
    pass
PY
  scase share_npy run ou --set D=0.3 --t-end 1 --observe moments --init-from "x=$T/x0.npy:grid=2" \
    --path-params "k=$T/k.npy" --save-final --threads 1 -o r.h5
  scase share_npz run ou --scan D=0.1:0.3:3 --t-end 1 --observe moments --init-from "$T/x0.npz" \
    --path-params "$T/k.npz" --save-final --threads 1 -o r.h5
  scase share_tsv run ou --scan D=0.1:0.3:3 --t-end 1 --observe moments --init-from "$T/x0.tsv" \
    --path-params "$T/k.tsv" --save-final --threads 1 -o r.h5
  if [ -f "$T/x0.h5" ]; then
    scase share_h5 run ou --scan D=0.1:0.3:3 --t-end 1 --observe moments --init-from "$T/x0.h5" \
      --path-params "$T/k.h5" --save-final --threads 1 -o r.h5
  fi
  # the values a rank's reader is asked for: its own shards' alone, every
  # value once over the ranks (tests/test_pathdata.c, shares)
  TP=$(dirname "$B")/tests/test_pathdata
  if [ -x "$TP" ] && [ "$LAUNCH" = mpi ]; then
    for np in 2 3; do
      out=$(timeout 300 "${MPI[@]}" -np $np "$TP" mpi 2>&1)
      check "test_pathdata mpi -np $np ($(echo "$out" | grep -c FAIL) failed)" \
        test "$(echo "$out" | grep -c 'test_pathdata mpi: .* 0 failed')" = $np
      echo "$out" | grep '^rank' | sort
    done
  fi
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
cmd_for 3 run kuramoto-meanfield --particles $N1 --set sigma=0.5 \
  --dt 0.01 --t-end 2 --observe order,density,moments --sample-every 20 --threads 1 \
  --backend "$BACKEND" --checkpoint ck -o r.h5 -o r.tsv --quiet
timeout 300 "${CMD[@]}" || failed "meanfield: checkpointed run"
cmd_for 2 resume ck --t-end 4 --force --quiet
timeout 300 "${CMD[@]}" >/dev/null 2>&1 ||
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
  if [ "$LAUNCH" = team ]; then
    "$B" run ou --paths 1000 --backend cuda --device 0,63 >out.txt 2>err.txt
  else
    "${MPI[@]}" -np 2 "$B" run ou --paths 1000 --backend cuda --device 0,63 >out.txt 2>err.txt
  fi
  rc=$?
  check "one rank's failure: exit 1 (got $rc)" test "$rc" = 1
  check "one rank's failure: one line naming rank 1 ($(cat err.txt))" \
    test "$(grep -c '^sdekit: error: rank 1: .*no CUDA device 63' err.txt)" = 1
fi

# first passage with absorbing boundaries (host-side observable over rows)
printf '[model]\nname = bm\nvars = x\n[params]\nD = 0.1\nL = 1\n[drift]\nx = 0.1\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0.5\n[boundaries]\nleft = absorb x <= 0\nright = absorb x >= L\n' >"$T/bm.sde"
scase fpt run "$T/bm.sde" --scan L=0.8:1.2:3 --paths $((4000 * SCALE)) --dt 0.001 --t-end 2 \
  --observe fpt,moments --sample-every 100 --threads 1 -o r.h5 -o r.tsv

# coloured and alpha-stable Levy noise (issue 31: their own Philox blocks and a carried row)
printf '[model]\nname = lc\nvars = x, y\n[colored]\neta = 0.2, 0.4\n[drift]\nx = -x + eta\ny = -y\n[levy]\ny = 1.2, 0.3, 0.5\n' >"$T/lc.sde"
scase levy_colored run "$T/lc.sde" --paths $((3000 * SCALE)) --dt 0.01 --t-end 1 \
  --observe moments,hist --sample-every 20 --threads 1 -o r.h5 -o r.tsv

# checkpoints: written by 3 ranks (SIGINT to mpirun: every rank stops at the
# same step), resumed by 2, then by 4 after one rank is killed
CARGS=(run josephson --scan a=4:8:3 --paths $((2048 * SCALE)) --periods 2000 --transient-periods 20
       --observe drift,moments,hist --save-paths 0,5 --sample-every 500
       --backend "$BACKEND" -o r.h5 -o r.tsv)
mkdir -p "$T/ck/one" "$T/ck/int" "$T/ck/kill"
(cd "$T/ck/one" && "$B" "${CARGS[@]}" --threads 2 --quiet) || failed "checkpoint: one process"
cd "$T/ck/int"
cmd_for 3 "${CARGS[@]}" --threads 1 --checkpoint ck --checkpoint-every 0
"${CMD[@]}" 2>err.txt &
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
cmd_for 2 resume ck --quiet
timeout 300 "${CMD[@]}" || failed "resume with 2 ranks"
same "resumed by 2 ranks" "$T/ck/one" "$T/ck/int"

# a run to a standard error stopped by SIGINT in a later batch on 3 ranks,
# resumed by 2: the single process's file (issue 26)
TARGS=(run ou --scheme euler --dt 0.0005 --t-end 10 --observe moments,drift
       --target-se $(awk "BEGIN { print 0.002 / sqrt($SCALE) }") --threads 1
       --backend "$BACKEND" -o r.h5)
mkdir -p "$T/tck/one" "$T/tck/int"
(cd "$T/tck/one" && "$B" "${TARGS[@]}" --quiet) || failed "target: one process"
cd "$T/tck/int"
cmd_for 3 "${TARGS[@]}" --checkpoint ck --checkpoint-every 0.1
"${CMD[@]}" 2>err.txt &
pid=$!
# (a second after the first checkpoint: a later batch on most machines; a run
# that ended first resumes from its end, the same file)
for i in $(seq 1000); do [ -f ck ] && break; sleep 0.02; done
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
echo "target: $(tail -1 err.txt)"
cmd_for 2 resume ck --quiet --force
timeout 300 "${CMD[@]}" || failed "target: resume with 2 ranks"
same "target: stopped on 3 ranks, resumed by 2" "$T/tck/one" "$T/tck/int"

# kill -9 one rank: the job ends (no hang), the last checkpoint resumes
# (separate processes: MPI's alone)
if [ "$LAUNCH" = mpi ]; then
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
fi
cd "$T"

# errors: one line, from rank 0, the exit status of one process
cmd_for 3 run nosuchmodel
"${CMD[@]}" >out.txt 2>err.txt
rc=$?
check "bad model under mpirun: exit 2 (got $rc)" test "$rc" = 2
check "bad model under mpirun: one error line ($(cat err.txt))" test "$(grep -c '^sdekit: error:' err.txt)" = 1
# ranks given different runs (an MPMD launch) are refused together, not left waiting
if [ "$LAUNCH" = mpi ]; then
"${MPI[@]}" -np 1 "$B" run ou --paths 1000 --backend "$BACKEND" -o r.h5 : \
  -np 1 "$B" run ou --paths 2000 --backend "$BACKEND" -o r.h5 >out.txt 2>err.txt
rc=$?
check "different runs per rank: exit 2 (got $rc)" test "$rc" = 2
check "different runs per rank: one line ($(cat err.txt))" \
  test "$(grep -c '^sdekit: error: the MPI ranks were given different runs' err.txt)" = 1
check "different runs per rank: nothing written" test ! -e r.h5
# a file each rank opens itself (node-local: here one directory per rank)
# bad on one rank alone: every rank learns it at once, no rank waits for it
mkdir -p wa wb
printf 'k\n1\n2\n3\n4\n' >wa/pp.tsv
printf 'k\n1\n2\nfoo\n4\n' >wb/pp.tsv
timeout 60 "${MPI[@]}" -np 1 -wdir "$T/wa" "$B" run ou --backend "$BACKEND" --path-params pp.tsv \
  -o "$T/r.h5" : -np 1 -wdir "$T/wb" "$B" run ou --backend "$BACKEND" --path-params pp.tsv \
  -o "$T/r.h5" >out.txt 2>err.txt
rc=$?
check "a bad file on rank 1 alone: exit 2, no hang (got $rc)" test "$rc" = 2
check "a bad file on rank 1 alone: its error ($(head -1 err.txt))" \
  grep -q "^sdekit: error: rank 1: pp.tsv:4: 'foo'" err.txt
check "a bad file on rank 1 alone: nothing written" test ! -e r.h5
rm -rf wa wb
fi
cmd_for 2 run kuramoto --particles 1024 --backend "$BACKEND"
"${CMD[@]}" >out.txt 2>err.txt
rc=$?
check "all-pairs systems over ranks: refused, exit 2 (got $rc)" test "$rc" = 2
check "all-pairs systems over ranks: the reason ($(cat err.txt))" grep -q "do not span MPI ranks" err.txt
check "all-pairs systems over ranks: one line" test "$(grep -c '^sdekit: error:' err.txt)" = 1

echo "mpi_ranks ($LAUNCH): $npass passed, $nfail failed"
[ "$nfail" = 0 ]
