"""Result.plot(): the pictures of `sdekit plot` (src/cli/picture_*.c) drawn
with matplotlib instead of gnuplot -- the same data, choices and layout:

  drift    <<v>> against the scanned parameter with error bars (no scan: the one
           value; two scan axes: a heat map, values printed in small grids)
  moments  mean and mean +- one standard deviation over time per variable (more
           than 8 grid points: the mean as a heat map over scan axis and time)
  hist     the final distribution per variable (more than 8 grid points: a heat
           map over scan axis and value, logarithmic colours)
  density  P(x, t) of one variable at one grid point as a heat map (logarithmic
           colours when it spans decades), the saved sample paths on top
  paths    the saved sample paths over time (drawn on the density when there is one)
  order    the order parameter r(t) and the mean phase psi(t)
  expr     each user observable over time with a band of +- one standard error;
           in a scan its last value against the parameter (error bars; two
           axes: a map)
  cov      the covariance entries over time with bands (stat="variance": the
           variances); in a scan their last values
  diffusion  D_eff(t) with its band; in a scan the long-time value
  fpt      first-passage time histograms per boundary, the survival S(t) with
           its band, splitting probabilities (in a scan: against the parameter,
           with the mean first-passage times)
  tavg     time averages with error bars against the scanned parameter

Moments also get a band of +- one standard error of the mean, and
stat="variance" draws the variance.  Text from the results (names, the model) is shown as text, never as mathtext.
"""
import math

import numpy as np

from . import _errors

MAX_CURVES = 8
MAX_PANELS = 4
MAX_COLS = 600
MAX_ROWS = 600
LABEL_CELLS = 25
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#7F7F7F"]
PALETTES = {
    "diverging": [(0, "#2166ac"), (0.25, "#92c5de"), (0.5, "#f7f7f7"), (0.75, "#f4a582"),
                  (1, "#b2182b")],
    "density": [(0, "#ffffff"), (0.12, "#fff3b0"), (0.35, "#fec44f"), (0.6, "#f46d43"),
                (0.82, "#c2185b"), (1, "#4a0a50")],
    "sequential": [(0, "#440154"), (0.25, "#3b528b"), (0.5, "#21918c"), (0.75, "#5ec962"),
                   (1, "#fde725")],
}
GREEK = dict(alpha="α", beta="β", gamma="γ", delta="δ", epsilon="ε", zeta="ζ", eta="η",
             theta="θ", kappa="κ", mu="μ", nu="ν", xi="ξ", rho="ρ", sigma="σ", tau="τ", phi="φ",
             chi="χ", psi="ψ", omega="ω", Gamma="Γ", Delta="Δ", Theta="Θ", Lambda="Λ",
             Sigma="Σ", Phi="Φ", Psi="Ψ", Omega="Ω")
GREEK["lambda"] = "λ"


def _text(x):
    return str(x).replace("$", r"\$")


def _sym(name):
    if name in GREEK:
        return GREEK[name]
    if len(name) == 1 and name.isascii() and name.isalpha():
        return "$%s$" % name
    return _text(name)


def _num(x):
    t = "%.4g" % x
    if "e" in t:
        m, e = t.split("e")
        t = "%se%d" % (m, int(e))
    return t


def _val_err(v, e):
    if np.isfinite(v) and np.isfinite(e) and e > 0 and abs(v) < 1e6:
        dec = max(0, 1 - int(math.floor(math.log10(e))))
        if dec <= 10:
            return "%.*f ± %.*f" % (dec, v, dec, e)
    return "%s ± %s" % (_num(v), _num(e))


def _count(n, what):
    k = 0
    while k < 62 and (1 << k) < n:
        k += 1
    if n >= 1024 and (1 << k) == n:
        return "$2^{%d}$ %ss" % (k, what)
    return "%d %s%s" % (n, what, "" if n == 1 else "s")


def _cmap(kind):
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("sdekit-" + kind, PALETTES[kind])


def _edges(c, log=False):
    """Cell edges from centres (geometric midpoints on a log axis)."""
    c = np.asarray(c, dtype=float)
    n = len(c)
    if n == 1:
        if log and c[0] > 0:
            return np.array([c[0] / 1.1, c[0] * 1.1])
        w = 0.1 * abs(c[0]) if c[0] != 0 else 0.5
        return np.array([c[0] - w / 2, c[0] + w / 2])
    e = np.empty(n + 1)
    for i in range(1, n):
        e[i] = (math.sqrt(c[i - 1] * c[i]) if log and c[i - 1] > 0 and c[i] > 0
                else 0.5 * (c[i - 1] + c[i]))
    if log and c[0] > 0 and c[1] > 0:
        e[0], e[n] = c[0] * c[0] / e[1], c[n - 1] * c[n - 1] / e[n - 1]
    else:
        e[0], e[n] = c[0] - (e[1] - c[0]), c[n - 1] + (c[n - 1] - e[n - 1])
    return e


def _regrid(lo, hi, cols, nb, maxrows=MAX_ROWS):
    """Columns of nb equal bins over lo[i]..hi[i] onto one grid of equal rows
    (as fine as the finest column), as sdk_pic_regrid: z [nx, ny], row edges."""
    nx = len(cols)
    ok = [i for i in range(nx) if np.isfinite(lo[i]) and np.isfinite(hi[i]) and hi[i] > lo[i]]
    if ok:
        y0 = min(lo[i] for i in ok)
        y1 = max(hi[i] for i in ok)
        w = min((hi[i] - lo[i]) / nb for i in ok)
    else:
        y0, y1, w = 0.0, 1.0, 1.0 / nb
    n = int(min(max(math.ceil((y1 - y0) / w - 1e-6), 1), maxrows))
    W = (y1 - y0) / n
    z = np.zeros((nx, n))
    e = y0 + np.arange(n + 1) * W
    for i in range(nx):
        bw = (hi[i] - lo[i]) / nb
        if not bw > 0 or not np.isfinite(lo[i]):
            continue
        col = np.asarray(cols[i], dtype=float)
        if W >= bw * (1 - 1e-9):
            r = np.floor((lo[i] + (np.arange(nb) + 0.5) * bw - y0) / W)
            r = np.clip(r, 0, n - 1).astype(int)
            good = np.isfinite(col)
            s = np.bincount(r[good], weights=col[good], minlength=n)
            c = np.bincount(r[good], minlength=n)
            z[i] = np.where(c > 0, s / np.maximum(c, 1), 0)
        else:
            yc = y0 + (np.arange(n) + 0.5) * W
            inside = (yc >= lo[i]) & (yc < hi[i])
            j = np.minimum(np.floor((yc - lo[i]) / bw).astype(int), nb - 1)
            z[i, inside] = col[j[inside]]
    return z, e


class _Ctx:
    """What every picture needs from the results (cli/plotfile.c)."""

    def __init__(self, r, var, grid, stat="mean"):
        a = r.attrs
        self.r = r
        self.var = var
        self.grid = grid
        self.stat = stat
        self.model = a.get("model_name", "?")
        self.scheme = a.get("scheme", "")
        self.precision = a.get("precision", "")
        self.paths = int(a.get("paths", 0) or 0)
        self.particles = int(a.get("particles", 0) or 0)
        self.nsteps = int(a.get("nsteps", 0) or 0)
        self.vars = list(a.get("var_names") or [])
        # what hist and density may be of: the variables, then the user observables
        self.qnames = list(self.vars)
        for grp, attr in (("expr", "names"), ("hist", "observables"), ("tavg", "names")):
            names = _group_attr(r, grp, attr) if any(n.startswith(grp + "/") for n in r) else None
            for n in ([names] if isinstance(names, str) else names or []):
                if n not in self.qnames and n and "/" not in n:
                    self.qnames.append(n)
        names = a.get("param_names") or []
        vals = np.atleast_1d(a.get("param_values", []))
        self.params = list(zip(names, vals)) if len(vals) == len(names) else []
        self.axname = list(r.scan.keys())
        self.ax = [np.asarray(v) for v in r.scan.values()]
        self.axn = [len(v) for v in self.ax]
        self.axlog = [bool(r.info("scan/" + n).attrs.get("log", 0)) for n in self.axname]
        self.nscan = len(self.axname)
        if self.nscan > 2:
            # a picture of more axes would pick or merge some: refused, not drawn wrong
            raise _errors.UsageError(
                "the result has %d scan axes (%s): plot draws at most 2; slice the arrays "
                "(r[name] has one dimension per axis, e.g. r['drift/value'][:, 0, :]) and draw "
                "them with matplotlib, or rerun with fewer scans"
                % (self.nscan, ", ".join(self.axname)))
        self.ngrid = int(np.prod(self.axn)) if self.axn else 1
        self.dt = np.ravel(r["scan/dt"]) if "scan/dt" in r else np.zeros(self.ngrid)
        period = float(a.get("period", 0) or 0)
        spp = float(a.get("spp", 0) or 0)
        self.tscale, self.in_periods = 1.0, False
        if period > 0 and spp > 0 and np.all(np.abs(self.dt * spp - period) <= 1e-9 * period):
            self.tscale, self.in_periods = 1.0 / period, True

    def block(self, name):
        """Dataset `name` as [grid point, ...] (one shared across the grid broadcast)."""
        a = np.asarray(self.r[name], dtype=float)
        gr = self.r.info(name).grid_rank
        tail = a.shape[gr:]
        if gr == 0:
            return np.broadcast_to(a, (self.ngrid,) + tail)
        return a.reshape((self.ngrid,) + tail)

    def grid_index(self, g):
        if self.nscan == 2:
            return g // self.axn[1], g % self.axn[1]
        return (g, 0) if self.nscan == 1 else (0, 0)

    def grid_label(self, g):
        idx = self.grid_index(g)
        return ", ".join("%s = %s" % (_sym(self.axname[i]), _num(self.ax[i][idx[i]]))
                         for i in range(self.nscan))

    def time_label(self, short=False):
        if self.in_periods:
            return "$t\\,/\\,T$" if short else "time $t\\,/\\,T$  (periods of the driving)"
        return "$t$" if short else "time $t$"

    def title(self, fig, g=-1, extra=None):
        parts = [_text(self.model)]
        if self.scheme:
            parts.append(_text(self.scheme))
        if self.particles > 1:
            t = _count(self.particles, "particle")
            sys_ = self.paths // self.particles
            parts.append(t + (" × " + _count(sys_, "system") if sys_ > 1 else ""))
        elif self.paths > 0:
            parts.append(_count(self.paths, "path"))
        dts = self.dt[[g]] if g >= 0 else self.dt
        lo, hi = float(np.min(dts)), float(np.max(dts))
        parts.append("$dt$ = " + _num(lo) + ("" if hi == lo else " … " + _num(hi)))
        if self.precision:
            parts.append(_text(self.precision))
        l2 = ["%s = %s" % (_sym(n), _num(v)) for n, v in self.params if n not in self.axname]
        if g >= 0 and self.nscan:
            l2.append(self.grid_label(g))
        line2 = ", ".join(l2)
        if extra:
            line2 = line2 + ("; " if line2 else "") + extra
        fig.text(0.5, 0.975, ", ".join(parts), ha="center", va="top", fontsize=14)
        if line2:
            fig.text(0.5, 0.925, line2, ha="center", va="top", fontsize=11)

    def curves(self):
        """(grid points drawn as curves, heat axis or None, fixed index of the other axis)."""
        if self.ngrid <= MAX_CURVES:
            return list(range(self.ngrid)), None, 0
        hx = 1 if self.nscan == 2 and self.axn[1] > self.axn[0] else 0
        fixed = 0
        if self.nscan == 2:
            fixed = self.grid_index(self.grid if self.grid is not None else 0)[1 - hx]
        return [], hx, fixed

    def heat_grid(self, hx, fixed, k):
        if self.nscan < 2:
            return k
        return k * self.axn[1] + fixed if hx == 0 else fixed * self.axn[1] + k

    def fixed_note(self, hx, fixed):
        if self.nscan < 2 or hx is None:
            return None
        o = 1 - hx
        return "%s = %s" % (_sym(self.axname[o]), _num(self.ax[o][fixed]))

    def vars_drawn(self, pattern=None, quantities=False):
        vs = [v for v in (self.qnames if quantities else self.vars)
              if self.var is None or v == self.var]
        if pattern:
            vs = [v for v in vs if pattern % v in self.r]
        return vs[:MAX_PANELS]


def _axes(fig, n, heat=False, key=False, hspace=0.08, sharex=True):
    right = 0.86 if heat else 0.77 if key else 0.96
    gs = fig.add_gridspec(n, 1, left=0.125, right=right, top=0.865, bottom=0.115, hspace=hspace)
    axs = [fig.add_subplot(gs[k, 0]) for k in range(n)]
    for k, ax in enumerate(axs):
        if not heat:  # heat maps have no grid lines (as gnuplot's pm3d maps)
            ax.grid(True, color="#d8d8d8", lw=0.7)
        ax.minorticks_on()
        if k > 0 and sharex:
            ax.sharex(axs[0])
    return axs


def _colorbar(fig, ax, m, label):
    cb = fig.colorbar(m, ax=ax, fraction=0.035, pad=0.03)
    cb.set_label(label)
    return cb


def _legend(fig, ax, n):
    if n > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(0.79, 0.865), bbox_transform=fig.transFigure,
                  fontsize=10, frameon=False)
    else:
        ax.legend(loc="upper right", fontsize=10)


# ---------------------------------------------------------------- pictures


def _drift(c, fig):
    from matplotlib.colors import Normalize

    r = c.r
    val = np.ravel(r["drift/value"])
    err = np.ravel(r["drift/error"]) if "drift/error" in r else np.zeros_like(val)
    var = (r.info("drift/value").attrs.get("var") or _group_attr(r, "drift", "var")
           or (c.vars[0] if c.vars else "x"))
    vlab = "⟨⟨$v$$_{%s}$⟩⟩" % _text(var) if var.isidentifier() else "⟨⟨v⟩⟩"
    c.title(fig)
    (ax,) = _axes(fig, 1, heat=c.nscan == 2)
    if c.nscan == 0:
        ax.errorbar([0], val[:1], yerr=err[:1], fmt="o", ms=8, lw=2, color=COLORS[0])
        ax.set_xlim(-1, 1)
        ax.set_xticks([])
        ax.set_ylabel(vlab)
        ax.text(0.5, 0.9, "%s = %s" % (vlab, _val_err(val[0], err[0])), transform=ax.transAxes,
                ha="center", fontsize=16)
        ax.margins(y=0.3)
    elif c.nscan == 1:
        x = c.ax[0]
        many = len(x) > 40
        ax.errorbar(x, val, yerr=err, fmt="o", ms=3 if many else 5, color=COLORS[0],
                    capsize=1 if many else 2)
        ax.plot(x, val, lw=1, color=COLORS[0])
        ax.axhline(0, color="black", lw=0.7)
        if c.axlog[0]:
            ax.set_xscale("log")
        ax.set_xlabel(_sym(c.axname[0]))
        ax.set_ylabel(vlab)
        ax.margins(x=0.03, y=0.05)
    else:
        n0, n1 = c.axn
        z = val.reshape(n0, n1)
        xe, ye = _edges(c.ax[0], c.axlog[0]), _edges(c.ax[1], c.axlog[1])
        fin = z[np.isfinite(z)]
        lo, hi = (fin.min(), fin.max()) if fin.size else (0.0, 0.0)
        if lo < 0 < hi:
            m = max(-lo, hi)
            norm, cmap = Normalize(-m, m), _cmap("diverging")
        else:
            norm = (Normalize(lo - 0.5 - abs(lo) * 0.1, hi + 0.5 + abs(hi) * 0.1) if hi == lo
                    else Normalize(lo, hi))
            cmap = _cmap("sequential")
        mesh = ax.pcolormesh(xe, ye, z.T, cmap=cmap, norm=norm, shading="flat")
        if c.axlog[0]:
            ax.set_xscale("log")
        if c.axlog[1]:
            ax.set_yscale("log")
        ax.set_xlabel(_sym(c.axname[0]))
        ax.set_ylabel(_sym(c.axname[1]))
        _colorbar(fig, ax, mesh, vlab)
        if c.ngrid <= LABEL_CELLS:
            e2 = err.reshape(n0, n1)
            big = max(abs(lo), abs(hi))
            for i in range(n0):
                for j in range(n1):
                    v = z[i, j]
                    dark = abs(v) > 0.6 * big if lo < 0 < hi else hi > lo and v < lo + 0.45 * (hi - lo)
                    t = _val_err(v, e2[i, j]).replace(" ± ", "\n± ")
                    ax.text(c.ax[0][i], c.ax[1][j], t, ha="center", va="center", fontsize=10,
                            color="white" if dark else "black")


def _moments(c, fig):
    r = c.r
    vs = c.vars_drawn("moments/mean_%s")
    t = c.block("moments/t") * c.tscale
    gs_, hx, fixed = c.curves()
    c.title(fig, extra=c.fixed_note(hx, fixed))
    axs = _axes(fig, len(vs), heat=hx is not None, key=len(gs_) > 1)
    for k, (v, ax) in enumerate(zip(vs, axs)):
        mean, var = c.block("moments/mean_" + v), c.block("moments/var_" + v)
        se = c.block("moments/mean_err_" + v) if "moments/mean_err_" + v in r else None
        if c.stat == "variance":
            mean, var, se = var, None, None
        last = k == len(vs) - 1
        if hx is None:
            for q, g in enumerate(gs_):
                col = COLORS[q % 8]
                if var is not None:
                    sd = np.sqrt(np.where(var[g] > 0, var[g], 0))
                    ax.fill_between(t[g], mean[g] - sd, mean[g] + sd, color=col, lw=0,
                                    alpha=0.12 if len(gs_) > 2 else 0.22,
                                    label="mean ± s.d." if len(gs_) == 1 else None)
                if se is not None:
                    ax.fill_between(t[g], mean[g] - se[g], mean[g] + se[g], color=col, lw=0,
                                    alpha=0.45, label="mean ± s.e." if len(gs_) == 1 else None)
                ax.plot(t[g], mean[g], lw=1.5, color=col,
                        label=("variance" if c.stat == "variance" else "mean") if len(gs_) == 1
                        else c.grid_label(g))
            ax.set_ylabel(("var " if c.stat == "variance" else "") + _sym(v))
            if k == 0 or len(gs_) == 1:
                _legend(fig, ax, len(gs_))
        else:
            nx = c.axn[hx]
            gi = [c.heat_grid(hx, fixed, i) for i in range(nx)]
            xe = _edges(c.ax[hx], c.axlog[hx])
            z = np.array([mean[g] for g in gi])
            for i, g in enumerate(gi):
                ye = _edges(t[g])
                ax.pcolormesh(xe[i:i + 2], ye, z[i:i + 1].T, cmap=_cmap("sequential"),
                              vmin=np.nanmin(z) - (1 if np.nanmin(z) == np.nanmax(z) else 0),
                              vmax=np.nanmax(z) + (1 if np.nanmin(z) == np.nanmax(z) else 0),
                              shading="flat")
            if c.axlog[hx]:
                ax.set_xscale("log")
            ax.set_xlim(xe[0], xe[-1])
            ax.set_ylabel(c.time_label(short=True))
            if last:
                ax.set_xlabel(_sym(c.axname[hx]))
            mesh = ax.collections[-1]
            _colorbar(fig, ax, mesh, ("variance of " if c.stat == "variance" else "mean of ")
                      + _sym(v))
            continue
        if last:
            ax.set_xlabel(c.time_label())
        else:
            ax.tick_params(labelbottom=False)


def _hist(c, fig):
    from matplotlib.colors import LogNorm

    vs = c.vars_drawn("hist/%s/density", quantities=True)
    if not vs:
        raise KeyError("no histogram of %s" % (c.var or "any variable"))
    gs_, hx, fixed = c.curves()
    c.title(fig, extra=c.fixed_note(hx, fixed))
    axs = _axes(fig, len(vs), heat=hx is not None, key=len(gs_) > 1, hspace=0.35, sharex=False)
    for k, (v, ax) in enumerate(zip(vs, axs)):
        dens = c.block("hist/%s/density" % v)
        lo, hi = c.block("hist/%s/lo" % v), c.block("hist/%s/hi" % v)
        nb = dens.shape[-1]
        ax.set_xlabel(_sym(v))
        if hx is None:
            for q, g in enumerate(gs_):
                col = COLORS[q % 8]
                w = (hi[g] - lo[g]) / nb
                edges = lo[g] + np.arange(nb + 1) * w
                if len(gs_) == 1:
                    ax.stairs(dens[g], edges, fill=True, color=col, alpha=0.22, lw=0)
                    lab = ("at $t$ = %s%s" % (_num(c.nsteps * c.dt[g] * c.tscale),
                                              " $T$" if c.in_periods else "")
                           if c.nsteps > 0 else "final distribution")
                else:
                    lab = c.grid_label(g)
                ax.stairs(dens[g], edges, color=col, lw=1.5, label=lab)
            ax.set_ylabel("$P$(%s)" % _sym(v))
            if k == 0 or len(gs_) == 1:
                _legend(fig, ax, len(gs_))
        else:
            nx = c.axn[hx]
            gi = [c.heat_grid(hx, fixed, i) for i in range(nx)]
            z, ye = _regrid([lo[g] for g in gi], [hi[g] for g in gi], [dens[g] for g in gi], nb)
            xe = _edges(c.ax[hx], c.axlog[hx])
            fin = z[np.isfinite(z)]
            zhi = fin.max() if fin.size and fin.max() > 0 else 1.0
            pos = fin[fin > 0]
            cbmin = max(pos.min() if pos.size else np.inf, zhi * 1e-5)
            if not cbmin < zhi:
                cbmin = zhi * 1e-3
            z = np.where(np.isfinite(z) & (z >= cbmin * 0.5), z, cbmin * 0.5)
            mesh = ax.pcolormesh(xe, ye, z.T, cmap=_cmap("density"),
                                 norm=LogNorm(cbmin, zhi, clip=True), shading="flat")
            if c.axlog[hx]:
                ax.set_xscale("log")
                ax.set_xlabel(_sym(c.axname[hx]))
            ax.set_ylabel(_sym(v))
            _colorbar(fig, ax, mesh, "$P$(%s)" % _sym(v))


def _paths_of(c, v, g):
    """(t, paths [np, ns]) of the saved paths of v at grid point g."""
    t = c.block("paths/t")[g] * c.tscale
    x = c.block("paths/" + v)[g]
    return t, x


def _density(c, fig):
    from matplotlib.colors import LogNorm, Normalize

    r = c.r
    vs = [v for v in c.qnames if (c.var is None or v == c.var) and "density/%s/P" % v in r]
    if not vs:
        raise KeyError("no density of %s" % (c.var or "any variable"))
    v = vs[0]
    g = c.grid if c.grid is not None else 0
    t = c.block("density/t")[g]
    P = c.block("density/%s/P" % v)[g]
    lo, hi = c.block("density/%s/lo" % v)[g], c.block("density/%s/hi" % v)[g]
    ns, nb = P.shape
    lo = np.broadcast_to(lo, (ns,))
    hi = np.broadcast_to(hi, (ns,))
    coarse = bool(r.info("density/%s/P" % v).attrs.get("coarse_grain", 0)) or bool(
        _group_attr(r, "density/" + v, "coarse_grain"))
    ck = (ns + MAX_COLS - 1) // MAX_COLS
    cols = list(range(0, ns, ck))
    tc = t[cols] * c.tscale
    z, ye = _regrid([lo[s] for s in cols], [hi[s] for s in cols], [P[s] for s in cols], nb)
    fin = z[np.isfinite(z)]
    zmax = fin.max() if fin.size and fin.max() > 0 else 1.0
    pos = fin[fin > 0]
    cbmin = max(pos.min() if pos.size else np.inf, zmax * 1e-6)
    if not cbmin < zmax:
        cbmin = zmax * 1e-3
    xe = _edges(tc)
    if len(tc) > 1 and xe[0] < 0 <= tc[0]:
        xe[0] = tc[0]
    c.title(fig, g, "coarse-grained: bins one period of the potential wide" if coarse else None)
    (ax,) = _axes(fig, 1, heat=True)
    logcb = zmax / cbmin > 100
    zz = np.where(np.isfinite(z) & (z >= cbmin * 0.5), z, cbmin * 0.5)
    norm = LogNorm(cbmin, zmax, clip=True) if logcb else Normalize(0, zmax)
    mesh = ax.pcolormesh(xe, ye, zz.T, cmap=_cmap("density"), norm=norm, shading="flat")
    pr = [np.inf, -np.inf]
    if "paths/" + v in r and "paths/t" in r:
        pt, px = _paths_of(c, v, g)
        for q in range(px.shape[0]):
            ax.plot(pt, px[q], color="black", lw=1.2, label="sample paths" if q == 0 else None)
        if px.size:
            pr = [np.nanmin(px), np.nanmax(px)]
        ax.legend(loc="upper left", fontsize=10)
    # the y range: where the density is visible, and the paths
    y = [ye[0], ye[-1]]
    vis = np.argwhere(z >= cbmin)
    if vis.size:
        oy = [min(pr[0], ye[vis[:, 1].min()]), max(pr[1], ye[vis[:, 1].max() + 1])]
        pad = 0.06 * (oy[1] - oy[0])
        y = [min(max(oy[0] - pad, y[0]), oy[0]), max(min(oy[1] + pad, y[1]), oy[1])]
        if pr[0] < y[0]:
            y[0] = pr[0] - pad
        if pr[1] > y[1]:
            y[1] = pr[1] + pad
    ax.set_ylim(*y)
    ax.set_xlim(xe[0], xe[-1])
    if abs(y[1] - y[0] - 2 * math.pi) < 1e-6 and (abs(y[0]) < 1e-9 or abs(y[0] + math.pi) < 1e-9):
        ticks = np.arange(5) * math.pi / 2 + y[0]
        names = (["0", "π/2", "π", "3π/2", "2π"] if y[0] > -1 else ["−π", "−π/2", "0", "π/2", "π"])
        ax.set_yticks(ticks, names)
    ax.set_xlabel(c.time_label())
    ax.set_ylabel(_sym(v))
    _colorbar(fig, ax, mesh, ("coarse-grained " if coarse else "") + "$P$(%s, $t$)" % _sym(v))


def _group_attr(r, obj, name):
    try:
        return r._attrs_of(obj).get(name)
    except Exception:
        return None


def _paths(c, fig):
    r = c.r
    vs = c.vars_drawn("paths/%s")
    if not vs:
        raise KeyError("no saved paths of %s" % (c.var or "any variable"))
    g = c.grid if c.grid is not None else 0
    idx = np.ravel(r["paths/index"]) if "paths/index" in r else None
    c.title(fig, g, "saved sample paths")
    np_ = c.block("paths/" + vs[0]).shape[1]
    axs = _axes(fig, len(vs), key=np_ <= 10)
    for k, (v, ax) in enumerate(zip(vs, axs)):
        t, x = _paths_of(c, v, g)
        for q in range(x.shape[0]):
            lab = "path %d" % (int(idx[q]) if idx is not None and q < len(idx) else q)
            ax.plot(t, x[q], lw=1.2, color=COLORS[q % 8], label=lab if x.shape[0] <= 10 else None)
        ax.set_ylabel(_sym(v))
        ax.set_xlim(t.min(), t.max() if t.max() > t.min() else t.min() + 1)
        if k == 0 and x.shape[0] <= 10:
            _legend(fig, ax, 2)
        if k == len(vs) - 1:
            ax.set_xlabel(c.time_label())
        else:
            ax.tick_params(labelbottom=False)


def _order(c, fig):
    r = c.r
    gs_, hx, _ = c.curves()
    if hx is not None:
        n = MAX_CURVES
        gs_ = [q * (c.ngrid - 1) // (n - 1) for q in range(n)]
    t = c.block("order/t") * c.tscale
    rr = c.block("order/r")
    psi = c.block("order/psi") if "order/psi" in r else None
    c.title(fig)
    axs = _axes(fig, 2 if psi is not None else 1, key=len(gs_) > 1)
    for q, g in enumerate(gs_):
        axs[0].plot(t[g], rr[g], lw=1.5, color=COLORS[q % 8],
                    label=c.grid_label(g) if len(gs_) > 1 else None)
        if psi is not None:
            p = np.array(psi[g], dtype=float)
            tt = np.array(t[g], dtype=float)
            # break the line where the phase wraps around
            jumps = np.nonzero(np.abs(np.diff(p)) > math.pi)[0] + 1
            p = np.insert(p, jumps, np.nan)
            tt = np.insert(tt, jumps, np.nan)
            axs[1].plot(tt, p, lw=1.5, color=COLORS[q % 8])
    axs[0].set_ylabel("order parameter $r$")
    axs[0].set_ylim(0, 1.05)
    if len(gs_) > 1:
        _legend(fig, axs[0], len(gs_))
    if psi is not None:
        axs[0].tick_params(labelbottom=False)
        axs[1].set_ylabel("mean phase $ψ$")
        axs[1].set_ylim(-math.pi, math.pi)
        axs[1].set_yticks(np.arange(-2, 3) * math.pi / 2, ["−π", "−π/2", "0", "π/2", "π"])
    axs[-1].set_xlabel(c.time_label())


# ------------------------------------------------ panels of lines (picture_panels.c)


def _no_variance(what, has):
    raise ValueError("stat='variance': the %s picture has no variance (it holds %s); the "
                     "variance is held by moments (var_VAR) and cov (the diagonal)" % (what, has))


def _over_time(c):
    return c.nscan == 0 or c.grid is not None


def _tgrid(c):
    return c.grid if c.grid is not None else 0


def _times(c, name):
    """Sample times as [grid point, sample] (times shared by the grid broadcast)."""
    a = np.asarray(c.r[name], dtype=float) * c.tscale
    if a.ndim == 1:
        return np.broadcast_to(a, (c.ngrid, a.size))
    return a.reshape(c.ngrid, -1)


def _err(c, name):
    """The standard errors of dataset name as a block, or None."""
    se = c.r.info(name).stderr
    return c.block(se) if se else None


def _panels(c, fig, panels, note=None):
    """Draw panels stacked: each a dict with kind "time" (lines over time at one
    grid point: x [grid, ns], values and errors [grid, ns]), "scan" (one value
    per grid point against the scan: [grid]; two axes: a map per line) or
    "hist" (x: bin edges [grid, bins + 1], values [grid, bins]); lines are (label, v, e or
    None)."""
    from matplotlib.colors import Normalize

    g = _tgrid(c)
    drawn = []
    for pn in panels:
        if pn["kind"] == "scan" and c.nscan == 2:
            drawn += [dict(pn, lines=[ln], map=True) for ln in pn["lines"]]
        else:
            drawn.append(pn)
    drawn = drawn[:MAX_PANELS]
    scan_only = all(pn["kind"] == "scan" for pn in panels)
    c.title(fig, -1 if scan_only or c.nscan == 0 else g, extra=note)
    maps = any(pn.get("map") for pn in drawn)
    axs = _axes(fig, len(drawn), heat=maps, hspace=0.45, sharex=False)
    for pn, ax in zip(drawn, axs):
        kind, lines = pn["kind"], pn["lines"]
        if pn.get("map"):
            label, v, _ = lines[0]
            n0, n1 = c.axn
            z = np.asarray(v, dtype=float).reshape(n0, n1)
            fin = z[np.isfinite(z)]
            lo, hi = (fin.min(), fin.max()) if fin.size else (0.0, 0.0)
            norm = Normalize(lo - 0.5, hi + 0.5) if hi == lo else Normalize(lo, hi)
            mesh = ax.pcolormesh(_edges(c.ax[0], c.axlog[0]), _edges(c.ax[1], c.axlog[1]), z.T,
                                 cmap=_cmap("sequential"), norm=norm, shading="flat")
            ax.set_xlabel(_sym(c.axname[0]))
            ax.set_ylabel(_sym(c.axname[1]))
            _colorbar(fig, ax, mesh, (pn["ylab"] + ": " if len(pn["lines"]) > 1 or
                                      pn.get("multi") else "") + label)
            continue
        for q, (label, v, e) in enumerate(lines):
            col = COLORS[q % 8]
            if kind == "time":
                x, y = pn["x"][g], np.asarray(v[g], dtype=float)
                if e is not None:
                    ax.fill_between(x, y - e[g], y + e[g], color=col, lw=0, alpha=0.25,
                                    label="± standard error" if len(lines) == 1 else None)
                ax.plot(x, y, lw=1.5, color=col, label=label)
            elif kind == "hist":
                ed = np.asarray(pn["x"][g], dtype=float)
                ax.bar(ed[:-1], np.asarray(v[g], dtype=float), width=np.diff(ed), align="edge",
                       color=col, alpha=0.35, edgecolor=col, label=label)
            elif c.nscan == 0:
                y = float(v[0])
                ee = float(e[0]) if e is not None else 0.0
                ax.errorbar([q + 1], [y], yerr=[ee], fmt="o", ms=8, color=col, capsize=3)
                ax.annotate(_val_err(y, ee), (q + 1, y + ee), textcoords="offset points",
                            xytext=(0, 8), ha="center", fontsize=10)
            else:
                x = c.ax[0]
                ax.errorbar(x, v, yerr=e, fmt="o", ms=4, color=col, capsize=2,
                            label=label if len(lines) > 1 else None)
                ax.plot(x, v, lw=1, color=col)
        if kind == "scan" and c.nscan == 0:
            ax.set_xlim(0.5, len(lines) + 0.5)
            ax.set_xticks(range(1, len(lines) + 1), [ln[0] for ln in lines])
            ax.margins(y=0.25)
        elif kind == "scan":
            if c.axlog[0]:
                ax.set_xscale("log")
            ax.set_xlabel(_sym(c.axname[0]))
        else:
            ax.set_xlabel(pn.get("xlab") or c.time_label())
        ax.set_ylabel(pn["ylab"])
        if (kind != "scan" or c.nscan == 1) and (
                len(lines) > 1 or (kind == "time" and lines[0][2] is not None)):
            ax.legend(loc="upper right", fontsize=9)


def _expr(c, fig):
    if c.stat == "variance":
        _no_variance("expr", "the mean of every user observable with its standard error")
    names = _group_attr(c.r, "expr", "names") or []
    if isinstance(names, str):
        names = [names]
    over = _over_time(c)
    t = _times(c, "expr/t")
    panels = []
    for n in names[:MAX_PANELS]:
        v, e = c.block("expr/mean_" + n), c.block("expr/err_" + n)
        lab = "⟨%s⟩" % _sym(n)
        if over:
            panels.append(dict(kind="time", x=t, lines=[(lab, v, e)], ylab=lab))
        else:
            panels.append(dict(kind="scan", lines=[(lab, v[:, -1], e[:, -1])], ylab=lab))
    _panels(c, fig, panels, None if over else "values at the last sample")


def _diffusion(c, fig):
    if c.stat == "variance":
        _no_variance("diffusion", "D_eff = variance / 2t with its standard error")
    var = _group_attr(c.r, "diffusion", "var")
    lab = "$D_{eff}$" + (" of " + _sym(var) if var else "")
    if _over_time(c):
        p = dict(kind="time", x=_times(c, "diffusion/t"),
                 lines=[(lab, c.block("diffusion/D"), c.block("diffusion/D_err"))], ylab=lab)
        _panels(c, fig, [p])
    else:
        p = dict(kind="scan", lines=[(lab, c.block("diffusion/value"),
                                      c.block("diffusion/error"))], ylab=lab)
        _panels(c, fig, [p], "long-time values (the last sample)")


def _cov(c, fig):
    vs = _group_attr(c.r, "cov", "vars") or c.vars
    if isinstance(vs, str):
        vs = [vs]
    val, err = c.block("cov/value"), c.block("cov/error")  # [grid, ns, v, w]
    over = _over_time(c)
    lines = []
    for i, v in enumerate(vs):
        for j in range(i, len(vs)):
            w = vs[j]
            if c.stat == "variance" and i != j:
                continue
            if c.var is not None and c.var not in (v, w):
                continue
            lab = "var " + _sym(v) if i == j else "cov(%s, %s)" % (_sym(v), _sym(w))
            a, b = val[:, :, i, j], err[:, :, i, j]
            lines.append((lab, a, b) if over else (lab, a[:, -1], b[:, -1]))
    if not lines:
        raise KeyError("var %r: cov holds no entry of it" % (c.var,))
    lines = lines[:MAX_CURVES]
    ylab = lines[0][0] if len(lines) == 1 else "variance" if c.stat == "variance" else "covariance"
    p = dict(kind="time" if over else "scan", x=_times(c, "cov/t") if over else None,
             lines=lines, ylab=ylab)
    _panels(c, fig, [p], None if over else "values at the last sample")


def _fpt(c, fig):
    if c.stat == "variance":
        _no_variance("fpt", "splitting probabilities, mean first-passage times with their "
                     "standard errors, histograms, S(t)")
    r = c.r
    names = str(_group_attr(r, "fpt", "boundaries") or "").split(",")
    split = c.block("fpt/split")
    nb = split.shape[-1]
    bl = [names[b] if b < len(names) and names[b] else "boundary %d" % b for b in range(nb)]

    def per_boundary(name, ylab):
        v, e = c.block(name), _err(c, name)
        return dict(kind="scan", ylab=ylab, multi=True,
                    lines=[(bl[b], v[:, b], e[:, b] if e is not None else None)
                           for b in range(min(nb, MAX_CURVES))])

    surv = None
    if "fpt/survival" in r:
        surv = dict(kind="time", x=_times(c, "fpt/t"), ylab="survival $S(t)$",
                    lines=[("$S(t)$", c.block("fpt/survival"), _err(c, "fpt/survival"))])
    panels = []
    if _over_time(c):
        if "fpt/hist" in r and "fpt/hist_edges" in r:
            h = c.block("fpt/hist")  # [grid, nb, bins]
            panels.append(dict(kind="hist", x=c.block("fpt/hist_edges"),  # [grid, bins + 1]
                               xlab="first-passage time $τ$", ylab="paths absorbed",
                               lines=[(bl[b], h[:, b, :], None) for b in range(min(nb, 8))]))
        if surv:
            panels.append(surv)
        if c.nscan < 2:
            panels.append(per_boundary("fpt/split", "splitting prob."))
    else:
        panels.append(per_boundary("fpt/split", "splitting prob."))
        if c.nscan == 1 and "fpt/mean" in r:
            panels.append(per_boundary("fpt/mean", "mean $τ$"))
        if c.nscan == 1 and surv:
            panels.append(surv)
    note = None
    if "fpt/censored" in r:
        n = float(np.sum(r["fpt/censored"]))
        if n > 0:
            note = "%.0f paths censored at $t_{end}$" % n
    _panels(c, fig, panels, note)


def _tavg(c, fig):
    if c.stat == "variance":
        _no_variance("tavg", "the mean of the time averages with its standard error")
    panels = []
    for name in c.r.datasets:
        if not name.startswith("tavg/mean_") or len(name) == len("tavg/mean_"):
            continue
        n = name[len("tavg/mean_"):]
        if c.var is not None and c.var != n:
            continue
        lab = "⟨⟨%s⟩⟩" % _sym(n)
        panels.append(dict(kind="scan", ylab=lab, lines=[(lab, c.block(name), _err(c, name))]))
    if not panels:
        raise KeyError("no time average of %s" % (c.var or "anything"))
    a = c.r._attrs_of("tavg")
    tr, te = a.get("transient"), a.get("t_end")
    _panels(c, fig, panels[:MAX_PANELS], "time averages over [%s, %s]" % (
        _num(tr) if tr is not None else "transient", _num(te) if te is not None else "$t_{end}$"))


PICTURES = [
    ("drift", lambda r: "drift/value" in r, _drift, None),
    ("moments", lambda r: "moments/t" in r, _moments, None),
    ("expr", lambda r: "expr/t" in r, _expr, None),
    ("cov", lambda r: "cov/value" in r, _cov, None),
    ("diffusion", lambda r: "diffusion/D" in r, _diffusion, None),
    ("fpt", lambda r: "fpt/split" in r, _fpt, None),
    ("tavg", lambda r: any(n.startswith("tavg/mean_") and len(n) > 10 for n in r), _tavg, None),
    ("hist", lambda r: any(n.startswith("hist/") and n.endswith("/density") for n in r), _hist,
     None),
    ("density", lambda r: any(n.startswith("density/") and n.endswith("/P") for n in r), _density,
     None),
    ("paths", lambda r: "paths/t" in r, _paths, "density"),
    ("order", lambda r: "order/r" in r, _order, None),
]


def pictures(r):
    """The pictures `sdekit plot` draws for these results, in order."""
    present = {name for name, has, _, _ in PICTURES if has(r)}
    return [name for name, _, _, on in PICTURES if name in present and on not in present]


def plot(r, what=None, var=None, grid=None, figsize=None, stat="mean"):
    """Draw the pictures of the results (what: one name, a list, or None for
    every picture `sdekit plot` would draw); one Figure, one picture per
    subfigure, stacked.  var: only this variable; grid: the grid point of
    pictures of one grid point (density, paths; expr, cov, diffusion, fpt
    over time) and the fixed axis of a two-axis scan; stat: "mean" or
    "variance" (moments and cov draw the variance; `sdekit plot --stat`)."""
    import matplotlib.pyplot as plt

    if stat not in ("mean", "variance"):
        raise ValueError("stat %r: expected 'mean' or 'variance'" % (stat,))

    names = pictures(r) if what is None else [what] if isinstance(what, str) else list(what)
    table = {name: draw for name, _, draw, _ in PICTURES}
    for n in names:
        if n not in table:
            raise ValueError("no picture %r (they are: %s)" % (n, ", ".join(table)))
    if not names:
        raise ValueError("the results hold nothing sdekit plot draws")
    if grid is not None and not 0 <= grid < max(1, int(np.prod([len(v) for v in r.scan.values()]))):
        raise ValueError("grid %d: the scan has %d grid points" % (
            grid, int(np.prod([len(v) for v in r.scan.values()]))))
    w, h = figsize or (10, 6.5)
    fig = plt.figure(figsize=(w, h * len(names)))
    subs = [fig] if len(names) == 1 else list(np.atleast_1d(fig.subfigures(len(names), 1)))
    ctx = _Ctx(r, var, grid, stat)
    for name, sub in zip(names, subs):
        table[name](ctx, sub)
    return fig
