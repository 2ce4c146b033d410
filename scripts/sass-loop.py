#!/usr/bin/env python3
"""The instruction mix of the hottest loop of a kernel, from `cuobjdump -sass`.

    cuobjdump -sass K.cubin | python3 scripts/sass-loop.py FUNCTION STEPS_PER_ITERATION

Finds FUNCTION's largest innermost loop (a backward branch and the
instructions from its target to it; LOOPS=1 lists them all), counts its instructions (NOPs excluded) and their
classes, and prints them per step (the loop body's instructions divided by
the steps one iteration takes: sdk_advance's unrolled group loop takes
G * unroll steps, codegen/cuda_paths.c).  The issue bound that follows is
4 warp instructions per clock per SM; the MUFU bound 16 per clock per SM
(sm_90): with CLOCK_GHZ and SMS in the environment it prints both in steps/s.
"""
import os
import re
import sys

fn, per = sys.argv[1], float(sys.argv[2])
text = sys.stdin.read()
m = re.search(r"Function : " + re.escape(fn) + r"\n(.*?)(?=\n\s*Function : |\Z)", text, re.S)
if not m:
    sys.exit("function %s not found" % fn)
ins = []
for line in m.group(1).splitlines():
    mm = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
    if mm:
        ins.append((int(mm.group(1), 16), mm.group(2).strip()))
addr = {a: i for i, (a, _) in enumerate(ins)}
best = None
for i, (a, op) in enumerate(ins):
    b = re.search(r"\bBRA\b.*?\(?0x([0-9a-f]+)\)?", op)
    if b:
        t = int(b.group(1), 16)
        if t <= a and t in addr:
            n = i - addr[t] + 1
            if not best or n > best[1] - best[0] + 1:
                best = (addr[t], i)
if not best:
    sys.exit("no loop in %s" % fn)
loops = []
for i, (a, op) in enumerate(ins):
    b = re.search(r"\bBRA\b.*?\(?0x([0-9a-f]+)\)?", op)
    if b and int(b.group(1), 16) <= a and int(b.group(1), 16) in addr:
        j = addr[int(b.group(1), 16)]
        body_ = [o for _, o in ins[j:i + 1] if not o.startswith("NOP")]
        loops.append((j, i, len(body_), sum(o.split()[0].startswith("MUFU") or " MUFU" in o for o in body_)))
# the hot loop: the largest that holds no other (the unrolled group loop,
# not the pass loop around it and its remainder)
inner = [L for L in loops
         if not any(M is not L and L[0] <= M[0] and M[1] <= L[1] for M in loops)]
if inner:
    j, i, _, _ = max(inner, key=lambda L: L[2])
    best = (j, i)
if os.environ.get("LOOPS"):
    for j, i, n_, mu_ in loops:
        print("  loop %#06x..%#06x: %d instructions, %d MUFU" % (ins[j][0], ins[i][0], n_, mu_))
if os.environ.get("LOOP"):  # the loop that starts at this address
    a0 = int(os.environ["LOOP"], 16)
    for j, i, n_, mu_ in loops:
        if ins[j][0] == a0:
            best = (j, i)
body = [op for _, op in ins[best[0]:best[1] + 1] if not op.startswith("NOP")]
classes = {}
for op in body:
    name = re.sub(r"^@!?U?P[T0-9]+\s+", "", op).split()[0]
    key = name.split(".")[0]
    classes[key] = classes.get(key, 0) + 1
n = len(body)
mufu = classes.get("MUFU", 0)
print("%s: loop of %d instructions, %.2f per step (%g steps per iteration), %.2f MUFU per step"
      % (fn, n, n / per, per, mufu / per))
print("  " + ", ".join("%s %d" % kv for kv in sorted(classes.items(), key=lambda kv: -kv[1])))
ghz, sms = os.environ.get("CLOCK_GHZ"), os.environ.get("SMS")
if ghz and sms:
    f, s = float(ghz) * 1e9, int(sms)
    issue = 128 * s * f / (n / per)
    mu = 16 * s * f / (mufu / per) if mufu else float("inf")
    print("  bounds at %s GHz x %s SMs: issue %.3e steps/s, MUFU %.3e steps/s" % (ghz, sms, issue, mu))
