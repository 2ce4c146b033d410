#!/usr/bin/env bash
# The size of the generated kernel (issue 25, item 12).  The drift
# correction between the Ito and Stratonovich calculus over shared Wiener
# processes copied the coefficient b_jl and the derivative db_ik/dx_j into
# each of its terms: V^3 W^2 subtrees.  A 19.5 kB model within every
# documented limit (16 variables on 16 fully correlated processes, each
# coefficient depending on every variable) generated 23 MB of C in 40 s; a
# 276 kB one (64 variables) grew to 8 GB and crashed.  Now the coefficients
# and derivatives are locals of the step, and the generator refuses, quickly
# and by name, a correction of too many terms (SDK_CODEGEN_MAX_CORR_TERMS), a
# derivative too large (SDK_EXPR_MAX_DIFF_NODES) and a kernel too large
# (SDK_CODEGEN_MAX_BYTES, checked while it is written): src/model/limits.h.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "h_codegen_size: python3 needed" >&2; exit 77; }

# gen.py V W F [CALCULUS]: V variables on W Wiener processes, every pair
# correlated (rho = 0.5), noise x_i = sum_k s * f_1 * ... * f_F * dW_k with
# f_q = sin or cos of the sum of every variable (so that each db_ik/dx_j is
# not 0); lines wrapped after '+' or '*' (continued on indented lines)
cat >"$T/gen.py" <<'EOF'
import sys
V, W, F = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
cal = sys.argv[4] if len(sys.argv) > 4 else "stratonovich"
def wrap(key, text, breaks="+*,"):
    out, cur = [], key + " = "
    for ch in text:
        cur += ch
        if ch in breaks and len(cur) > 120:
            out.append(cur)
            cur = "    "
    out.append(cur)
    return out
L = ["[model]", "name = big", "calculus = " + cal]
L += wrap("vars", ", ".join("x%d" % i for i in range(V)))
L += wrap("wiener", ", ".join("W%d" % k for k in range(W)))
L += wrap("correlation", ", ".join("W%d W%d : r" % (k, l) for k in range(W) for l in range(k)))
L += ["[params]", "r = 0.5", "s = 0.1", "[drift]"] + ["x%d = -x%d" % (i, i) for i in range(V)]
L += ["[noise]"]
for i in range(V):
    terms = []
    for k in range(W):
        f = "*".join("%s(%s)" % ("sin" if q % 2 == 0 else "cos",
                                 "+".join("x%d" % ((i + k + q + j) % V) for j in range(V)))
                     for q in range(F))
        terms.append("s*%s*dW%d" % (f, k))
    L += wrap("x%d" % i, " + ".join(terms))
print("\n".join(L))
EOF
# a wrapper: at most 2 GB of address space and 30 s (the unfixed generator
# took 8 GB)
REAL=$BIN
# (not under ASan, whose shadow memory needs terabytes of address space:
# there the time limit alone)
VLIMIT="ulimit -v 2000000"
[ "${SANITIZED:-0}" = 1 ] && VLIMIT=":"
cat >"$T/limited" <<EOF
#!/usr/bin/env bash
$VLIMIT
exec timeout 30 "$REAL" "\$@"
EOF
chmod +x "$T/limited"
BIN=$T/limited
ms() { echo $(($(date +%s%N) / 1000000)); }

# 16 variables, 16 processes, Stratonovich integrated by euler (Ito): the
# correction in full, 65536 terms.  Was 23 MB in 40 s (more under load).
python3 "$T/gen.py" 16 16 1 >"$T/big.sde"
check model-16x16-is-small [ "$(wc -c <"$T/big.sde")" -lt 21000 ]
t0=$(ms)
run_sdk codegen "$T/big.sde" --scheme euler
t1=$(ms)
size=$(wc -c <"$OUTF")
check corr-16x16-generates [ "$rc" -eq 0 ]
check corr-16x16-fast [ $((t1 - t0)) -lt 10000 ]
check corr-16x16-size [ "$size" -gt 1000000 ]
check corr-16x16-bounded [ "$size" -lt 8000000 ]
# each noise coefficient and derivative is a local computed once per stage
check corr-16x16-locals [ "$(grep -c 'const real sdk_Cd3_5_7 = ' "$OUTF")" -eq 1 ]
# the same model in the Ito sense by srk2 (Stratonovich): two stages
t0=$(ms)
run_sdk codegen "$T/big.sde" --scheme srk2 --calculus ito --backend cuda
t1=$(ms)
check corr-16x16-srk2-generates [ "$rc" -eq 0 ]
check corr-16x16-srk2-fast [ $((t1 - t0)) -lt 10000 ]
check corr-16x16-srk2-bounded [ "$(wc -c <"$OUTF")" -lt 16000000 ]

# 64 variables (the 276 kB model): 1048576 terms, refused before any
# derivative is taken
python3 "$T/gen.py" 64 16 1 >"$T/big.sde"
t0=$(ms)
expect_error corr-64x16-refused 2 "big\.sde:[0-9]+: model 'big' \(64 variables, 16 Wiener processes\): its drift correction between the Ito and Stratonovich calculus would sum over [0-9]+ terms \(the limit is 131072\); integrate the model in its own calculus \(--scheme srk2\)" codegen "$T/big.sde" --scheme euler
check corr-64x16-quick [ $(($(ms) - t0)) -lt 10000 ]
# ... and in its own calculus it needs no correction
run_sdk codegen "$T/big.sde" --scheme srk2
check corr-64x16-own-calculus [ "$rc" -eq 0 ]

# coefficients of three factors, Ito by srk2: 65536 terms, but the kernel
# (two stages of locals) passes 16 MB while it is written
python3 "$T/gen.py" 16 16 3 ito >"$T/big.sde"
t0=$(ms)
expect_error kernel-16mb 2 "big\.sde: model 'big' \(16 variables, 16 Wiener processes\): the generated kernel would exceed 16 MB \(the limit.*\); integrate it in its own calculus \(--scheme euler\) or make its expressions shorter" codegen "$T/big.sde" --scheme srk2
check kernel-16mb-quick [ $(($(ms) - t0)) -lt 15000 ]

# four factors: the derivatives of the correction together pass 2^21 nodes
python3 "$T/gen.py" 16 16 4 >"$T/big.sde"
t0=$(ms)
expect_error corr-derivatives 2 "big\.sde:[0-9]+ \[noise\] x[0-9]+: model 'big' \(16 variables, 16 Wiener processes\): the derivatives of its drift correction between the Ito and Stratonovich calculus grow past 2097152 expression nodes \(the limit\)" codegen "$T/big.sde" --scheme euler
check corr-derivatives-quick [ $(($(ms) - t0)) -lt 15000 ]

# one derivative: d/dx of a product of 80 sums of 512 terms holds 80^2/2
# copies of them (milstein's db/dx; the unfixed generator wrote 14 MB)
python3 - >"$T/deriv.sde" <<'EOF'
def bal(d):
    return "x" if d == 0 else "(%s+%s)" % (bal(d - 1), bal(d - 1))
text = "s*" + "*".join(bal(9) for _ in range(80))
print("[model]\nname = deriv\nvars = x\n[params]\ns = 0.1\n[drift]\nx = -x\n[noise]")
print("\n".join(("    " if i else "x = ") + text[i:i + 120] for i in range(0, len(text), 120)))
EOF
t0=$(ms)
expect_error derivative-nodes 2 "deriv\.sde:9 \[noise\] x: its derivative grows past 2097152 expression nodes \(the limit\)" codegen "$T/deriv.sde" --scheme milstein
check derivative-nodes-quick [ $(($(ms) - t0)) -lt 15000 ]
finish
