#!/usr/bin/env python3
"""The instructions of one path through a loop of a kernel, from `nvdisasm -g -c`.

    nvdisasm -g -c K.cubin | awk '/\\.text\\.sdk_advance/,0' > K.adv
    SKEL=1 python3 scripts/sass-path.py K.adv START END
    python3 scripts/sass-path.py K.adv START END ADDR=t|n ...

START and END are instruction addresses (hex, e.g. the loop's head and its
backward branch: scripts/sass-loop.py with LOOPS=1 lists the loops).  SKEL=1
lists the branches between them with the source line each belongs to (-g);
then every conditional branch met on the way takes the decision given for
its address (t: taken, n: falls through) and the path's instructions are
counted by class (MUFU by function), LIST=1 lists them.  An adaptive run's
accept path at dt-max (issue 30): decide each branch as a whole step accepted
at level 0 takes it (the source lines say which test each is).  The count per
step is the issue model's input (4 warp instructions per clock per SM:
scripts/sass-loop.py).
"""
import os
import re
import sys

f, start, end = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
dec = {}
for a in sys.argv[4:]:
    k, v = a.split("=")
    dec[int(k, 16)] = v
ins, labels, line = [], {}, ""
for s in open(f):
    m = re.match(r'\s*//## File "(.*?)", line (\d+)', s)
    if m:
        line = "%s:%s" % (os.path.basename(m.group(1)), m.group(2))
        continue
    m = re.match(r"(\.L_x_\d+):", s.strip())
    if m:
        labels[m.group(1)] = len(ins)
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", s)
    if m:
        ins.append((int(m.group(1), 16), m.group(2), line))
addr = {a: i for i, (a, _, _) in enumerate(ins)}
labels = {k: (ins[v][0] if v < len(ins) else None) for k, v in labels.items()}
if os.environ.get("SKEL"):
    for a, op, ln in ins:
        if start <= a <= end and ("BRA" in op or "CALL" in op or "EXIT" in op):
            print("%04x %-60s %s" % (a, op, ln))
    sys.exit()
i, path = addr[start], []
while True:
    a, op, ln = ins[i]
    path.append((a, op, ln))
    if len(path) > 20000:
        sys.exit("no end: a loop without a decision that leaves it?")
    if a == end:
        break
    m = re.search(r"BRA\s+`\((\.L_x_\d+)\)", op)
    if m:
        tgt = labels[m.group(1)]
        if not re.match(r"@!?U?P", op):
            i = addr[tgt]
            continue
        d = dec.get(a)
        if d is None:
            sys.exit("need a decision at %04x: %s  (%s)" % (a, op, ln))
        if d == "t":
            i = addr[tgt]
            continue
    i += 1
body = [p for p in path if not p[1].startswith("NOP")]
cls = {}
for a, op, ln in body:
    name = re.sub(r"^@!?U?P[T0-9]+\s+", "", op).split()[0]
    k = name if name.startswith("MUFU") else name.split(".")[0]
    cls[k] = cls.get(k, 0) + 1
print("%d instructions" % len(body))
print(", ".join("%s %d" % kv for kv in sorted(cls.items(), key=lambda kv: -kv[1])))
if os.environ.get("LIST"):
    for a, op, ln in body:
        print("%04x %-70s %s" % (a, op, ln))
