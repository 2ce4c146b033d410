#!/usr/bin/env python3
# Count instructions and MUFU (special-function) operations in the loops of a
# disassembled cubin: nvdisasm -c FILE.cubin > f.sass; sass_loops.py f.sass
import re,sys,collections
lines=open(sys.argv[1]).read().splitlines()
fn=None; insts=[]; labels={}
for l in lines:
    m=re.match(r'\s*\.text\.(\w+):',l)
    if m: fn=m.group(1)
    m=re.match(r'^(\.L_x_\d+):',l.strip())
    if m: labels[(fn,m.group(1))]=len(insts); continue
    m=re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);',l)
    if m: insts.append((fn,int(m.group(1),16),m.group(2).strip()))
for i,(fn,addr,txt) in enumerate(insts):
    m=re.search(r'BRA\s.*`\((\.L_x_\d+)\)',txt)
    if m and (fn,m.group(1)) in labels and labels[(fn,m.group(1))]<=i:
        j=labels[(fn,m.group(1))]; body=[t for (_,_,t) in insts[j:i+1]]
        ops=collections.Counter(re.sub(r'^@!?U?P\w+\s+','',t).split()[0].split('.')[0] for t in body)
        mufu=collections.Counter(t.split()[0] if not t.startswith('@') else t.split()[1] for t in body if 'MUFU' in t)
        if len(body)>30: print(fn, 'loop', len(body),'instrs', dict(mufu), ops.most_common(14))
