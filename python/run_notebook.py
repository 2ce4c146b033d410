#!/usr/bin/env python3
"""Run a notebook's code cells without Jupyter (where nbconvert is not installed).

    python run_notebook.py NOTEBOOK.ipynb [-p NAME=VALUE ...] [--figures DIR]
    python run_notebook.py NOTEBOOK.ipynb [-p NAME=VALUE ...] --execute OUT.ipynb
    python run_notebook.py NOTEBOOK.ipynb [-p NAME=VALUE ...] --write OUT.ipynb

The code cells run in order in one namespace, in the notebook's directory (as
Jupyter runs them), with matplotlib's Agg backend; IPython magics and shell
lines (%..., !...) are skipped.  -p sets a parameter after the cell tagged
"parameters" (as papermill does; VALUE is a Python literal, else a string).

--figures DIR   save every figure shown as DIR/cellN-K.png.
--execute OUT   write the notebook with its outputs, as `jupyter nbconvert
                --execute --to notebook` would: what the cells print, the value
                of a cell's last expression, and every figure shown (plt.show(),
                or open at the end of the cell) inline as a PNG.
--write OUT     only write the notebook with the parameters injected (for
                `jupyter nbconvert --execute`).

Exit status 1 when a cell raises (the traceback names the cell).
"""
import argparse
import ast
import base64
import contextlib
import copy
import io
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


def _lines(text):
    """Text as a notebook stores it: a list of lines with their newlines."""
    return text.splitlines(keepends=True)


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


def _injected_cell(source):
    return {"cell_type": "code", "id": "injected-parameters", "execution_count": None,
            "outputs": [], "metadata": {"tags": ["injected-parameters"]},
            "source": _lines(source)}


def _with_parameters(nb, injected):
    """The notebook with the injected parameters after its "parameters" cell."""
    out = copy.deepcopy(nb)
    if injected is None:
        return out
    cells = []
    for c in out["cells"]:
        cells.append(c)
        if "parameters" in c.get("metadata", {}).get("tags", []):
            cells.append(_injected_cell(injected))
    out["cells"] = cells
    return out


def _terminal(text):
    """Text as a terminal leaves it: of a line rewritten with carriage returns
    (a progress bar) only its last state."""
    out = []
    for line in text.split("\n"):
        parts = [p for p in line.split("\r") if p]
        out.append(parts[-1] if parts else "")
    return "\n".join(out)


class _Outputs:
    """What one cell shows, in order: streams, figures, its value."""

    def __init__(self, plt, figures_dir, cell):
        self.plt = plt
        self.figures_dir = figures_dir
        self.cell = cell
        self.nfig = 0
        self.items = []
        self.out = io.StringIO()
        self.err = io.StringIO()

    def streams(self):
        for name, buf in (("stdout", self.out), ("stderr", self.err)):
            text = _terminal(buf.getvalue())
            buf.seek(0)
            buf.truncate()
            if not text:
                continue
            if self.items and self.items[-1].get("name") == name:
                self.items[-1]["text"] = _lines("".join(self.items[-1]["text"]) + text)
            else:
                self.items.append({"output_type": "stream", "name": name, "text": _lines(text)})

    def figures(self, *_args, **_kw):
        """plt.show() in the notebook: every open figure, inline."""
        self.streams()
        if self.plt is None:
            return
        for num in self.plt.get_fignums():
            fig = self.plt.figure(num)
            png = io.BytesIO()
            fig.savefig(png, format="png", bbox_inches="tight")
            if self.figures_dir:
                os.makedirs(self.figures_dir, exist_ok=True)
                with open(os.path.join(self.figures_dir, "cell%d-%d.png" % (self.cell, self.nfig)),
                          "wb") as f:
                    f.write(png.getvalue())
            self.nfig += 1
            w, h = fig.get_size_inches() * fig.dpi
            self.items.append({
                "output_type": "display_data",
                "data": {"image/png": base64.b64encode(png.getvalue()).decode("ascii"),
                         "text/plain": ["<Figure size %dx%d with %d Axes>"
                                        % (w, h, len(fig.axes))]},
                "metadata": {}})
        self.plt.close("all")

    def value(self, v, count):
        self.streams()
        self.items.append({"output_type": "execute_result", "execution_count": count,
                           "data": {"text/plain": _lines(repr(v))}, "metadata": {}})


def _run_cell(src, name, ns, outputs, count):
    """exec the cell; the value of its last expression (as IPython shows it)."""
    tree = ast.parse(src, name)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    with contextlib.redirect_stdout(outputs.out), contextlib.redirect_stderr(outputs.err):
        exec(compile(tree, name, "exec"), ns)
        v = eval(compile(last, name, "eval"), ns) if last is not None else None
    if v is not None:
        outputs.value(v, count)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebook")
    ap.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--figures", metavar="DIR")
    ap.add_argument("--execute", metavar="OUT")
    ap.add_argument("--write", metavar="OUT")
    a = ap.parse_args()
    with open(a.notebook, encoding="utf-8") as f:
        nb = _with_parameters(json.load(f), _params(a.param) if a.param else None)
    if a.write:
        with open(a.write, "w", encoding="utf-8") as f:
            json.dump(nb, f, indent=1, ensure_ascii=False)
            f.write("\n")
        return 0
    execute = os.path.abspath(a.execute) if a.execute else None
    figures = os.path.abspath(a.figures) if a.figures else None
    os.environ["MPLBACKEND"] = "Agg"
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.switch_backend("Agg")  # now: switching later would redefine plt.show
    except ImportError:
        plt = None
    current = []

    def show(*_args, **_kw):  # plt.show() in a cell: its figures, inline
        current[-1].figures()

    warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")
    os.chdir(os.path.dirname(os.path.abspath(a.notebook)))  # as Jupyter
    ns = {"__name__": "__main__"}
    count = 0
    for k, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        count += 1
        src = "\n".join(ln for ln in _source(cell).splitlines()
                        if not ln.lstrip().startswith(("%", "!")))
        outputs = _Outputs(plt, figures, k)
        current.append(outputs)
        if plt is not None:
            plt.show = show
        t0 = time.monotonic()
        try:
            _run_cell(src, "%s[cell %d]" % (a.notebook, k), ns, outputs, count)
        except Exception:
            sys.stdout.write(outputs.out.getvalue())
            sys.stderr.write(outputs.err.getvalue())
            traceback.print_exc()
            print("run_notebook: cell %d of %s failed" % (k, a.notebook), file=sys.stderr)
            return 1
        outputs.figures()  # the figures still open, as the inline backend shows them
        for o in outputs.items:  # echoed, for the log
            if o["output_type"] == "stream":
                (sys.stdout if o["name"] == "stdout" else sys.stderr).write("".join(o["text"]))
            elif o["output_type"] == "execute_result":
                print("".join(o["data"]["text/plain"]))
        print("run_notebook: cell %d done in %.1f s (%d outputs, %d figures)"
              % (k, time.monotonic() - t0, len(outputs.items), outputs.nfig), file=sys.stderr)
        cell["execution_count"] = count
        cell["outputs"] = outputs.items
    if execute:
        with open(execute, "w", encoding="utf-8") as f:
            json.dump(nb, f, indent=1, ensure_ascii=False)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
