"""The pictures of `sdekit plot`, drawn with matplotlib.

The library decides every figure (sdekit_figure_describe, the JSON that
`sdekit plot --spec` prints): panels and where they sit, curves, bands,
error bars, maps, axes, labels, ranges, log scales, tick spacing, keys,
titles, colours.  This module only draws that description; it decides
nothing, so a picture here is the picture the command line draws.
"""

import ctypes
import json

import numpy as np

from . import _errors
from ._lib import b, lib, sdekit_error, sdekit_figure_options, take_string

_LOG = {None: 0, "x": 1, "y": 2, "xy": 3}


def describe(r, what=None, var=None, grid=None, stat="mean", show=None, log=None):
    """The figure descriptions of results r (a dict: {"file", "figures"}), as
    `sdekit plot --spec` prints them; the options are sdekit plot's."""
    if stat not in ("mean", "variance"):
        raise ValueError("stat %r: expected 'mean' or 'variance'" % (stat,))
    if log not in _LOG:
        raise ValueError("log %r: expected 'x', 'y' or 'xy'" % (log,))
    o = sdekit_figure_options(observable=b(what, "what") if what else None,
                              var=b(var, "var") if var else None,
                              show=b(show, "show") if show else None,
                              grid=-1 if grid is None else int(grid),
                              stat=1 if stat == "variance" else 0, log=_LOG[log])
    out, err = ctypes.c_void_p(), sdekit_error()
    _errors.check(lib.sdekit_figure_describe(r._h.p, b(getattr(r, "_source", None) or "results", "name"),
                                             ctypes.byref(o), ctypes.byref(out),
                                             ctypes.byref(err)), err)
    return json.loads(take_string(out.value))


def pictures(r):
    """The pictures `sdekit plot` draws for these results, in order."""
    return [f["figure"] for f in describe(r)["figures"]]


# characters mathtext sets as they are, and those it needs escaped; any other
# (backslash, caret, quotes, control characters) cannot be set literally in
# mathtext, so a run holding one is drawn as plain text
_MATH_AS_IS = set("!&'()*+,-./:;<=>?@[]|~")
_MATH_ESCAPED = {"_": r"\_", "{": r"\{", "}": r"\}", "$": r"\$", "%": r"\%", "#": r"\mathrm{\#}",
                 " ": r"\ "}


def _math(text):
    """text inside mathtext, every character shown as it is; None if it cannot be."""
    out = []
    for ch in text:
        if (ch.isalnum() and ord(ch) < 0x2000) or ch in _MATH_AS_IS:
            out.append(ch)
        elif ch in _MATH_ESCAPED:
            out.append(_MATH_ESCAPED[ch])
        else:
            return None
    return "".join(out)


def _label(runs):
    """A description's label (runs of [style, text]) as matplotlib text."""
    out = []
    for style, text in runs:
        words = style.split()
        m = _math(text)
        if not words or m is None:
            out.append(text.replace("$", r"\$"))
            continue
        # (mathtext sets letters in italics by itself)
        m = m if "italic" in words else r"\mathrm{%s}" % m
        if "sub" in words:
            m = "{}_{%s}" % m
        if "sup" in words:
            m = "{}^{%s}" % m
        out.append("$%s$" % m)
    return "".join(out)


def _arr(v):
    return np.array([np.nan if x is None else x for x in v], dtype=float)


def _lines(ax, p):
    one = len(p["series"]) == 1
    for s in p["series"]:
        x, y, c = _arr(s["x"]), _arr(s["y"]), s["color"]
        if s["fill"]:
            ax.fill_between(x, 0, y, step="mid", alpha=0.22, color=c, lw=0)
        for lo, hi, alpha, lab in (("lo", "hi", p["band_alpha"], p["band"]),
                                   ("lo2", "hi2", p["band2_alpha"], p["band2"])):
            if s.get(lo) is not None:
                ax.fill_between(x, _arr(s[lo]), _arr(s[hi]), alpha=alpha, color=c, lw=0,
                                label=_label(lab) if one and lab else None)
        ax.plot(x, y, color=c, lw=1.2 if s["thin"] else 1.5,
                drawstyle="steps-mid" if s["steps"] else "default",
                label=_label(s["title"]) or None)


def _points(ax, p):
    for s in p["series"]:
        x, y, c = _arr(s["x"]), _arr(s["y"]), s["color"]
        ax.errorbar(x, y, yerr=_arr(s["err"]), fmt="o", ms=4.5 * p["psize"], color=c,
                    capsize=0 if p["small_bars"] else 3, label=_label(s["title"]) or None)
        if p["joined"]:
            ax.plot(x, y, color=c, lw=1)
    if p["categories"]:
        n = len(p["categories"])
        ax.set_xticks(range(1, n + 1), [_label(k["text"]) for k in p["categories"]])
        ax.set_xlim(0.5, n + 0.5)
        ax.margins(y=0.35)
        for note in p["notes"]:
            ax.annotate(_label(note["text"]), (note["x"], note["y"]), xytext=(0, 12),
                        textcoords="offset points", ha="center")
    if p["xfit"]:
        ax.margins(x=0.03, y=0.05)


def _boxes(ax, p):
    for s in p["series"]:
        ax.bar(_arr(s["x"]), _arr(s["y"]), width=_arr(s["w"]), alpha=0.35, color=s["color"],
               edgecolor=s["color"], label=_label(s["title"]) or None)


def _cmap(stops):
    from matplotlib.colors import LinearSegmentedColormap

    lo, hi = stops[0][0], stops[-1][0]
    return LinearSegmentedColormap.from_list(
        "sdekit", [((a - lo) / (hi - lo), c) for a, c in stops])


def _map(fig, ax, p):
    from matplotlib.colors import LogNorm, Normalize

    nx, ny = p["nx"], p["ny"]
    z = _arr(p["z"]).reshape(nx, ny)
    if p["zfloor"]:
        z = np.where(np.isfinite(z) & (z >= p["zfloor"]), z, p["zfloor"])
    lo, hi = p["cbrange"] or (np.nanmin(z), np.nanmax(z))
    norm = LogNorm(lo, hi) if p["cblog"] else Normalize(lo, hi)
    xe, ye, step = _arr(p["xe"]), _arr(p["ye"]), p["ye_stride"]
    for i in range(nx) if step else [None]:
        cols = slice(None) if i is None else slice(i, i + 1)
        rows = ye if i is None else ye[i * step:i * step + ny + 1]
        m = ax.pcolormesh(xe[cols.start or 0:(cols.stop or nx) + 1], rows, z[cols].T,
                          cmap=_cmap(p["palette"]), norm=norm, shading="flat")
    for note in p["notes"]:
        ax.text(note["x"], note["y"], "\n".join(filter(None, (_label(note["text"]),
                                                             _label(note["text2"])))),
                ha="center", va="center", color="white" if note["white"] else "black")
    l, r, b_, t = p["box"]
    cax = fig.add_axes([r + 0.025 * (r - l) / 0.84, b_, 0.03, t - b_])
    fig.colorbar(m, cax=cax).set_label(_label(p["cblabel"]))
    ax.set_xlim(xe[0], xe[-1])
    ax.set_ylim(*(p["yrange"] or (ye[0], ye[-1])))


def _axes(fig, ax, p):
    from matplotlib.ticker import LogLocator, MultipleLocator, NullFormatter

    if p["xlog"]:
        ax.set_xscale("log")
    if p["ylog"]:
        ax.set_yscale("log")
    if p["xrange"]:
        ax.set_xlim(*p["xrange"])
    if p["yrange"] and p["kind"] != "map":
        ax.set_ylim(*p["yrange"])
    if p["xstep"] and not p["xlog"]:
        ax.xaxis.set_major_locator(MultipleLocator(p["xstep"]))
    if p["yticks"]:
        ax.set_yticks([t["at"] for t in p["yticks"]], [_label(t["text"]) for t in p["yticks"]])
    elif p["ystep"]:
        ax.yaxis.set_major_locator(LogLocator(base=p["ystep"]) if p["ylog"]
                                   else MultipleLocator(p["ystep"]))
    if p["xtics"]:
        ax.set_xlabel(_label(p["xlabel"]))
    else:
        ax.xaxis.set_major_formatter(NullFormatter())
    ax.set_ylabel(_label(p["ylabel"]))
    ax.grid(True, color="#d8d8d8", lw=0.7)
    if p["kind"] != "map":
        ax.axhline(0, color="black", lw=0.5)
    if p["key"]:
        ax.legend(loc="upper left", bbox_to_anchor=tuple(p["key"]),
                  bbox_transform=fig.transFigure, frameon=False, fontsize=8, borderaxespad=0)


def draw(fig, d):
    """Draw the figure description d (one of describe()'s "figures") on a
    matplotlib Figure or SubFigure."""
    fig.text(0.5, 0.985, _label(d["title"]), ha="center", va="top", fontsize=12)
    if d["subtitle"]:
        fig.text(0.5, 0.945, _label(d["subtitle"]), ha="center", va="top", fontsize=9)
    for p in d["panels"]:
        l, r, b_, t = p["box"]
        ax = fig.add_axes([l, b_, r - l, t - b_])
        {"lines": _lines, "points": _points, "boxes": _boxes}.get(
            p["kind"], lambda ax, p: _map(fig, ax, p))(ax, p)
        _axes(fig, ax, p)
    return fig


def plot(r, what=None, var=None, grid=None, figsize=None, stat="mean", show=None, log=None):
    """Draw the pictures of the results (what: one name, a list, or None for
    every picture `sdekit plot` would draw); one Figure, one picture per
    subfigure, stacked.  var, grid, stat, show, log: as sdekit plot's
    --var, --grid, --stat, --show, --log."""
    import matplotlib.pyplot as plt

    names = [None] if what is None else [what] if isinstance(what, str) else list(what)
    figs = [f for n in names for f in describe(r, n, var, grid, stat, show, log)["figures"]]
    w, h = figsize or (10, 6.5)
    fig = plt.figure(figsize=(w, h * len(figs)))
    subs = [fig] if len(figs) == 1 else list(np.atleast_1d(fig.subfigures(len(figs), 1)))
    for d, sub in zip(figs, subs):
        draw(sub, d)
    return fig
