#!/usr/bin/env python3
"""Run a notebook's code cells as a script, where Jupyter is not installed.

    python run_notebook.py NOTEBOOK.ipynb [-p NAME=VALUE ...] [--figures DIR]
    python run_notebook.py NOTEBOOK.ipynb [-p NAME=VALUE ...] --write OUT.ipynb

The code cells run in order in one namespace with matplotlib's Agg backend
(headless); IPython magics and shell lines (%..., !...) are skipped.  -p sets a
parameter after the cell tagged "parameters" (as papermill does; VALUE is a
Python literal, else a string).  --figures saves every open figure after each
cell as DIR/cellN-K.png.  --write writes the notebook with the parameters
injected instead of running it (for `jupyter nbconvert --execute`).
Exit status 1 when a cell raises (the traceback names the cell).
"""
import argparse
import ast
import copy
import json
import os
import sys
import time
import traceback
import warnings

# run as `python python/run_notebook.py`: the notebook imports the installed
# sdekit, not the source directory beside this script
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _params(pairs):
    out = []
    for p in pairs:
        name, eq, value = p.partition("=")
        if not eq or not name.isidentifier():
            raise SystemExit("-p %r: expected NAME=VALUE" % p)
        try:
            ast.literal_eval(value)
            out.append("%s = %s" % (name, value))
        except (ValueError, SyntaxError):
            out.append("%s = %r" % (name, value))
    return "# injected parameters\n" + "\n".join(out) + "\n"


def _cells(nb, injected):
    """The code cells, with the injected parameters after the "parameters" cell."""
    cells = [c for c in nb["cells"] if c.get("cell_type") == "code"]
    if injected is None:
        return cells
    at = next((i for i, c in enumerate(cells)
               if "parameters" in c.get("metadata", {}).get("tags", [])), -1)
    return cells[:at + 1] + [_injected_cell(injected)] + cells[at + 1:]


def _injected_cell(source):
    return {"cell_type": "code", "id": "injected-parameters", "execution_count": None, "outputs": [],
            "metadata": {"tags": ["injected-parameters"]}, "source": source}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebook")
    ap.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--figures", metavar="DIR")
    ap.add_argument("--write", metavar="OUT")
    a = ap.parse_args()
    with open(a.notebook, encoding="utf-8") as f:
        nb = json.load(f)
    injected = _params(a.param) if a.param else None
    if a.write:
        out = copy.deepcopy(nb)
        cells = []
        for c in nb["cells"]:
            cells.append(c)
            if injected and "parameters" in c.get("metadata", {}).get("tags", []):
                cells.append(_injected_cell(injected))
        out["cells"] = cells
        with open(a.write, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
        return 0
    os.environ["MPLBACKEND"] = "Agg"
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")
    ns = {"__name__": "__main__"}
    for k, cell in enumerate(_cells(nb, injected)):
        lines = [ln for ln in _source(cell).splitlines()
                 if not ln.lstrip().startswith(("%", "!"))]
        src = "\n".join(lines)
        t0 = time.monotonic()
        try:
            exec(compile(src, "%s[cell %d]" % (a.notebook, k), "exec"), ns)
        except Exception:
            traceback.print_exc()
            print("run_notebook: cell %d of %s failed" % (k, a.notebook), file=sys.stderr)
            return 1
        print("run_notebook: cell %d done in %.1f s" % (k, time.monotonic() - t0), file=sys.stderr)
        if plt is not None:
            for i, num in enumerate(plt.get_fignums()):
                if a.figures:
                    os.makedirs(a.figures, exist_ok=True)
                    plt.figure(num).savefig(os.path.join(a.figures, "cell%d-%d.png" % (k, i)))
            plt.close("all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
