#!/usr/bin/env python3
"""The structural rules of docs/ARCHITECTURE.md, checked on the source tree.

1. Layers: a file in src/D includes headers of D itself and of layers below
   it only (cli -> figure -> api -> io, bench -> sim -> observe -> backend ->
   codegen -> model -> rng, core).
2. The library (every layer below cli) never reads the environment
   (getenv) and never prints (stdout, stderr, printf, puts, perror).
3. No header include cycles.
4. Sizes: no file in src/ over 900 lines, no function over 120 lines.
5. The command-line tool and the figures use the public API alone: a file in
   src/cli includes "cli/..." and "figure/..." headers, one in src/figure
   "figure/..." headers, and both <sdekit.h>, the small core utilities
   "core/strbuf.h", "core/escape.h", "core/numfmt.h", "core/atomicfile.h",
   "core/nearest.h", and system headers, never a library's internals or the libraries the
   library wraps (<hdf5.h>, <ini.h>, CUDA, OpenMP).

Usage: scripts/check-layers.py [--max-file N] [--max-func N]   (exit 1 on a violation)
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
RANK = {"core": 0, "rng": 0, "model": 1, "codegen": 2, "backend": 3, "observe": 4,
        "sim": 5, "io": 6, "bench": 6, "api": 7, "figure": 8, "cli": 9}
LIBRARY = {d for d, r in RANK.items() if r <= 8}
# the layers on the public API alone (rule 5): their own headers, <sdekit.h>,
# the core utilities; the command-line tool also the figures'
PUBLIC_ONLY = {"cli": ("cli/", "figure/"), "figure": ("figure/",)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([A-Za-z0-9_./]+)"')
QUOTED = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ANGLED = re.compile(r'^\s*#\s*include\s+<([^>]+)>')
CLI_CORE = {"core/strbuf.h", "core/escape.h", "core/numfmt.h", "core/atomicfile.h", "core/nearest.h"}
WRAPPED = re.compile(r'^(hdf5.*|H5.*|ini|cuda.*|nvrtc.*|omp)\.h$')
# src/cli files not yet on the public API alone (issue 12: `sdekit bench` and
# the environment); remove each once it is converted
CLI_PENDING = set()
PRINTS = re.compile(r'\b(stdout|stderr|printf|puts|perror|putchar)\b\s*[(,)]?')


def strip_strings_and_comments(line, in_comment):
    out, i = [], 0
    while i < len(line):
        if in_comment:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out), True
            i, in_comment = j + 2, False
        elif line.startswith("/*", i):
            in_comment, i = True, i + 2
        elif line.startswith("//", i):
            break
        elif line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_comment


def cli_include_problem(line, d="cli"):
    """Why an include line breaks rule 5 in src/cli or src/figure, or None."""
    m = QUOTED.match(line)
    if m and not (m.group(1).startswith(PUBLIC_ONLY[d]) or m.group(1) in CLI_CORE):
        return "includes \"%s\"" % m.group(1)
    m = ANGLED.match(line)
    if m and WRAPPED.match(m.group(1)):
        return "includes <%s>" % m.group(1)
    return None


def main(argv):
    max_file = 900
    max_func = 120
    if "--max-file" in argv:
        max_file = int(argv[argv.index("--max-file") + 1])
    if "--max-func" in argv:
        max_func = int(argv[argv.index("--max-func") + 1])
    bad = []
    pending = []
    graph = {}
    for d in sorted(os.listdir(ROOT)):
        if d not in RANK:
            bad.append("src/%s: a directory that is not a layer of docs/ARCHITECTURE.md" % d)
            continue
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if not f.endswith((".c", ".h")):
                continue
            rel = "%s/%s" % (d, f)
            lines = open(os.path.join(ROOT, d, f), encoding="utf-8").read().split("\n")
            if len(lines) > max_file:
                bad.append("src/%s: %d lines (at most %d)" % (rel, len(lines), max_file))
            graph.setdefault(rel, set())
            in_comment = False
            func, start, sig = None, 0, None
            for n, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if m:
                    dep = m.group(1)
                    if dep in RANK and RANK[dep] > RANK[d]:
                        bad.append("src/%s:%d: includes %s/%s from a higher layer" %
                                   (rel, n, dep, m.group(2)))
                    if f.endswith(".h"):
                        graph[rel].add("%s/%s" % (dep, m.group(2)))
                why = cli_include_problem(line, d) if d in PUBLIC_ONLY else None
                if why:
                    msg = ("src/%s:%d: %s (%s uses <sdekit.h>, %s and core/strbuf, escape, "
                           "numfmt, atomicfile, nearest only)" % (rel, n, why, d, ", ".join(PUBLIC_ONLY[d])))
                    (pending if rel in CLI_PENDING else bad).append(msg)
                code, in_comment = strip_strings_and_comments(line, in_comment)
                if d in LIBRARY:
                    if re.search(r"(?<![A-Za-z0-9_])(secure_)?getenv\s*\(", code):
                        bad.append("src/%s:%d: getenv in the library (src/cli/env.c reads the "
                                   "environment)" % (rel, n))
                    if (PRINTS.search(code) and "snprintf" not in code
                            and "format(printf" not in code):
                        bad.append("src/%s:%d: the library prints (use the log callback, "
                                   "core/log.h): %s" % (rel, n, line.strip()[:70]))
                # a function: a definition that starts at column 0 (its
                # signature may go on over several lines) and ends at "}"
                if func is None and sig is None and re.match(r"^[A-Za-z_]", line) and \
                        not line.startswith(("typedef", "struct", "enum", "union", "extern")):
                    sig = n
                if sig is not None and func is None:
                    if line.rstrip().endswith("{") and "(" in "".join(lines[sig - 1:n]):
                        func, start = lines[sig - 1].split("(")[0].split()[-1].lstrip("*"), sig
                        sig = None
                    elif line.rstrip().endswith((";", "}")) or not line.strip():
                        sig = None
                elif func and line.startswith("}"):
                    if n - start + 1 > max_func:
                        bad.append("src/%s:%d: function %s is %d lines (at most %d)" %
                                   (rel, start, func, n - start + 1, max_func))
                    func = None
    # header include cycles
    state = {}

    def visit(h, stack):
        state[h] = 1
        for dep in graph.get(h, ()):
            if state.get(dep) == 1:
                bad.append("include cycle: %s" % " -> ".join(stack[stack.index(dep):] + [dep]))
            elif dep not in state:
                visit(dep, stack + [dep])
        state[h] = 2

    for h in sorted(graph):
        if h.endswith(".h") and h not in state:
            visit(h, [h])
    for b in bad:
        print(b)
    for p in pending:
        print("pending: " + p)
    print("check-layers: %d problems" % len(bad) +
          (" (%d pending in %d CLI files being converted)" %
           (len(pending), len({p.split(":")[0] for p in pending})) if pending else ""))
    return 1 if bad else 0


sys.exit(main(sys.argv[1:]))
