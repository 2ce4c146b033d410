/* Figures of panels of lines (see picture.h): values over time with bands of
 * +- one standard error, values against the scan with error bars (a map for
 * two scan axes), histograms.  The pictures of expr, diffusion, cov, fpt,
 * tavg and --show are built from them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/picture.h"

int sdk_pic_over_time(const sdk_plot *p) {
  return p->pf->nscan == 0 || p->grid >= 0;
}

int64_t sdk_pic_time_grid(const sdk_plot *p) {
  return p->grid >= 0 ? p->grid : 0;
}

sdekit_status sdk_pic_no_variance(sdk_plot *p, const char *picture, const char *has) {
  return CLI_RAISE(p->err, SDEKIT_ERR_USAGE,
                   "--stat variance: the %s picture has no variance (it holds %s); the "
                   "variance is held by moments (var_VAR) and cov (the diagonal)",
                   picture, has);
}

sdk_pic_panel *sdk_pic_fig_panel(sdk_pic_fig *f, int kind) {
  if (f->npan >= SDK_PIC_MAX_PANELS) return NULL;
  sdk_pic_panel *pn = &f->pan[f->npan++];
  memset(pn, 0, sizeof *pn);
  pn->kind = kind;
  sdk_sb_init(&pn->xlab);
  sdk_sb_init(&pn->ylab);
  return pn;
}

sdk_pic_line *sdk_pic_panel_line(sdk_pic_panel *pn) {
  if (pn->nl >= SDK_PIC_MAX_LINES) return NULL;
  sdk_pic_line *l = &pn->l[pn->nl++];
  memset(l, 0, sizeof *l);
  sdk_sb_init(&l->label);
  l->sstride = 1;
  return l;
}

void sdk_pic_fig_free(sdk_pic_fig *f) {
  for (int k = 0; k < f->npan; k++) {
    sdk_sb_free(&f->pan[k].xlab);
    sdk_sb_free(&f->pan[k].ylab);
    for (int i = 0; i < f->pan[k].nl; i++)
      sdk_sb_free(&f->pan[k].l[i].label);
  }
  for (int i = 0; i < f->nhold; i++)
    free(f->hold[i]);
  memset(f, 0, sizeof *f);
}

static double *hold(sdk_plot *p, sdk_pic_fig *f, double *x) {
  if (!x) return NULL;
  if (f->nhold >= (int)(sizeof f->hold / sizeof f->hold[0])) {
    free(x);
    CLI_RAISE(p->err, SDEKIT_ERR_INTERNAL, "a picture read too many datasets");
    return NULL;
  }
  return f->hold[f->nhold++] = x;
}

double *sdk_pic_fig_read(sdk_plot *p, sdk_pic_fig *f, const char *path, int *ntail, int64_t *tail) {
  return hold(p, f, sdk_pf_block(p->pf, path, -1, ntail, tail, p->err));
}

double *sdk_pic_fig_1d(sdk_plot *p, sdk_pic_fig *f, const char *path, int64_t *n) {
  return hold(p, f, sdk_pf_1d(p->pf, path, n, p->err));
}

double *sdk_pic_fig_hold(sdk_plot *p, sdk_pic_fig *f, double *x) {
  if (!x) CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory");
  return hold(p, f, x);
}

double *sdk_pic_fig_times(sdk_plot *p, sdk_pic_fig *f, const char *path, int *shared, int64_t *ns) {
  const sdk_plotfile *pf = p->pf;
  sdekit_dataset d;
  *shared = 0;
  *ns = 0;
  if (!sdk_pf_has(pf, path) || sdekit_result_dataset(pf->r, path, &d, NULL) != SDEKIT_OK) {
    CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': dataset /%s is missing", pf->path, path);
    return NULL;
  }
  if (d.rank == pf->nscan + 1) {
    int nt = 1;
    int64_t tail[SDEKIT_MAX_RANK];
    double *t = sdk_pic_fig_read(p, f, path, &nt, tail);
    if (t) *ns = tail[0];
    return t;
  }
  if (d.rank == 1) {
    *shared = 1;
    return hold(p, f, sdk_pf_1d(pf, path, ns, p->err));
  }
  CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s is not a list of sample times (rank %d)",
            pf->path, path, d.rank);
  return NULL;
}

/* ---------------- drawing ---------------- */

static double val(const sdk_pic_line *l, const double *a, int64_t g, int64_t s) {
  return a ? a[g * l->gstride + l->off + s * l->sstride] : NAN;
}

/* y tics about `want` apart over the values (+- errors) of pn drawn at grid
 * point g (all grid points for SCAN panels): short panels get few labels. */
static void put_ytics(sdk_strbuf *b, const sdk_pic_panel *pn, const sdk_plotfile *pf, int64_t g,
                      int want) {
  double lo = INFINITY, hi = -INFINITY;
  int scan = pn->kind == SDK_PANEL_SCAN;
  int64_t g0 = scan ? 0 : g, g1 = scan ? pf->ngrid : g + 1, n = scan ? 1 : pn->nx;
  for (int q = 0; q < pn->nl; q++)
    for (int64_t k = g0; k < g1; k++)
      for (int64_t s = 0; s < n; s++) {
        double v = val(&pn->l[q], pn->l[q].v, k, s), e = val(&pn->l[q], pn->l[q].e, k, s);
        if (!isfinite(e)) e = 0;
        if (isfinite(v)) lo = fmin(lo, v - e), hi = fmax(hi, v + e);
      }
  if (pn->kind == SDK_PANEL_HIST) lo = fmin(lo, 0);
  if (!(hi > lo)) {
    sdk_sb_puts(b, "set ytics autofreq\n");
    return;
  }
  double raw = (hi - lo) / want, mag = pow(10, floor(log10(raw))), step = mag;
  if (raw > 5 * mag)
    step = 10 * mag;
  else if (raw > 2 * mag)
    step = 5 * mag;
  else if (raw > mag)
    step = 2 * mag;
  sdk_sb_printf(b, "set ytics %.9g\n", step);
}

/* Settings every panel starts from (a map panel before may have changed them). */
static void panel_reset(sdk_strbuf *b) {
  sdk_sb_puts(b, "unset logscale\nset autoscale\nset xtics autofreq\nunset label\n"
                 "set offsets 0, 0, 0, 0\nset format x '%g'\nset format y '%g'\n"
                 "set grid lc rgb '#d8d8d8' lw 0.7\nunset colorbox\nset xzeroaxis lt -1 lw 0.5\n");
}

static void put_xlab(sdk_strbuf *b, const sdk_pic_panel *pn, const sdk_plotfile *pf, int shown) {
  sdk_sb_puts(b, "set xlabel ");
  if (!shown) {
    sdk_sb_puts(b, "''\nset format x ''\n");
    return;
  }
  if (pn->xlab.s && pn->xlab.s[0]) {
    sdk_sb_printf(b, "\"%s\"", pn->xlab.s);
  } else if (pn->kind == SDK_PANEL_SCAN && pf->nscan > 0) {
    sdk_sb_puts(b, "\"");
    sdk_gp_sym(b, pf->axname[0]);
    sdk_sb_puts(b, "\"");
  } else if (pn->kind == SDK_PANEL_SCAN) {
    sdk_sb_puts(b, "''");
  } else {
    sdk_pic_time_label(b, pf);
  }
  sdk_sb_puts(b, "\n");
}

static void put_key(sdk_strbuf *b, const sdk_pic_panel *pn) {
  if (pn->nl > 1 || pn->band)
    sdk_sb_puts(b, "set key top right opaque font ',11' spacing 1.05 samplen 2\n");
  else
    sdk_sb_puts(b, "unset key\n");
}

/* Over time at grid point g: per line a block "t v v-e v+e". */
static void time_panel(sdk_plot *p, const sdk_pic_panel *pn, int64_t g, FILE *f, const char *dn) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  int64_t ns = pn->nx;
  sdk_sb_puts(b, "plot ");
  for (int q = 0; q < pn->nl; q++) {
    const sdk_pic_line *l = &pn->l[q];
    for (int64_t s = 0; s < ns; s++) {
      double t = pn->x[(pn->xshared ? 0 : g * ns) + s] * pf->tscale, v = val(l, l->v, g, s);
      double e = val(l, l->e, g, s);
      sdk_pic_put_num(f, t);
      fputc(' ', f);
      sdk_pic_put_num(f, v);
      fputc(' ', f);
      sdk_pic_put_num(f, isfinite(e) ? v - e : v);
      fputc(' ', f);
      sdk_pic_put_num(f, isfinite(e) ? v + e : v);
      fputc('\n', f);
    }
    fputs("\n\n", f);
    const char *col = sdk_gp_color(q);
    if (l->e) {
      sdk_sb_printf(b,
                    "%s'%s' index %d using 1:3:4 with filledcurves fs transparent solid 0.25 "
                    "noborder lc rgb '%s'",
                    q ? ", " : "", dn, q, col);
      if (pn->band && pn->nl == 1) sdk_sb_printf(b, " title \"%s\"", pn->band);
      sdk_sb_puts(b, ", ");
    } else if (q) {
      sdk_sb_puts(b, ", ");
    }
    sdk_sb_printf(b, "'%s' index %d using 1:2 with lines lw 1.5 lc rgb '%s' title \"%s\"", dn, q,
                  col, l->label.s ? l->label.s : "");
  }
  sdk_sb_puts(b, "\n");
}

/* Counts per bin at grid point g: per line a block "centre count width". */
static void hist_panel(sdk_plot *p, const sdk_pic_panel *pn, int64_t g, FILE *f, const char *dn) {
  sdk_strbuf *b = &p->gp;
  sdk_sb_puts(b, "plot ");
  const double *x = pn->x + (pn->xshared ? 0 : g * (pn->nx + 1));
  for (int q = 0; q < pn->nl; q++) {
    const sdk_pic_line *l = &pn->l[q];
    for (int64_t s = 0; s < pn->nx; s++) {
      sdk_pic_put_num(f, 0.5 * (x[s] + x[s + 1]));
      fputc(' ', f);
      sdk_pic_put_num(f, val(l, l->v, g, s));
      fputc(' ', f);
      sdk_pic_put_num(f, x[s + 1] - x[s]);
      fputc('\n', f);
    }
    fputs("\n\n", f);
    sdk_sb_printf(b,
                  "%s'%s' index %d using 1:2:3 with boxes fs transparent solid 0.35 border lc "
                  "rgb '%s' title \"%s\"",
                  q ? ", " : "", dn, q, sdk_gp_color(q), l->label.s ? l->label.s : "");
  }
  sdk_sb_puts(b, "\n");
}

/* Against the scan, no scan or one axis: per line a block "x v e". */
static void scan_panel(sdk_plot *p, const sdk_pic_panel *pn, FILE *f, const char *dn) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  int64_t n = pf->nscan == 1 ? pf->axn[0] : 1;
  if (pf->nscan == 0) {
    /* each line at its own labelled position, its value written above it */
    sdk_sb_printf(b, "set xrange [0.5:%d.5]\nset xtics (", pn->nl);
    for (int q = 0; q < pn->nl; q++)
      sdk_sb_printf(b, "%s\"%s\" %d", q ? ", " : "", pn->l[q].label.s ? pn->l[q].label.s : "",
                    q + 1);
    sdk_sb_puts(b, ")\nset offsets 0, 0, graph 0.45, graph 0.25\n");
    for (int q = 0; q < pn->nl; q++) {
      const sdk_pic_line *l = &pn->l[q];
      double v = val(l, l->v, 0, 0), e = val(l, l->e, 0, 0);
      if (!isfinite(v)) continue;
      sdk_sb_printf(b, "set label %d \"", q + 1);
      if (isfinite(e))
        sdk_gp_val_err(b, v, e);
      else
        sdk_gp_num(b, v);
      sdk_sb_printf(b, "\" at first %d, first %.9g center offset 0, 1.6 font ',12'\n", q + 1,
                    v + (isfinite(e) ? e : 0));
    }
  } else {
    if (pf->axlog[0]) sdk_sb_puts(b, "set logscale x\n");
    if (n > 40) sdk_sb_puts(b, "set bars small\n");
    sdk_sb_puts(b,
                "set autoscale xfix\nset offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
  }
  sdk_sb_puts(b, "plot ");
  for (int q = 0; q < pn->nl; q++) {
    const sdk_pic_line *l = &pn->l[q];
    for (int64_t k = 0; k < n; k++) {
      double e = val(l, l->e, k, 0);
      sdk_pic_put_num(f, pf->nscan ? pf->ax[0][k] : q + 1);
      fputc(' ', f);
      sdk_pic_put_num(f, val(l, l->v, k, 0));
      fputc(' ', f);
      sdk_pic_put_num(f, isfinite(e) ? e : 0);
      fputc('\n', f);
    }
    fputs("\n\n", f);
    const char *col = sdk_gp_color(q);
    sdk_sb_printf(b,
                  "%s'%s' index %d using 1:2:3 with yerrorbars pt 7 ps %s lc rgb '%s' title \"%s\"",
                  q ? ", " : "", dn, q,
                  pf->nscan == 0 ? "1.8"
                  : n > 40       ? "0.6"
                                 : "1.1",
                  col, pf->nscan && pn->nl > 1 && pn->l[q].label.s ? pn->l[q].label.s : "");
    if (pf->nscan) sdk_sb_printf(b, ", '' index %d using 1:2 with lines lw 1 lc rgb '%s'", q, col);
  }
  sdk_sb_puts(b, "\n");
}

/* Two scan axes: line q as a map over both. */
static sdekit_status map_panel(sdk_plot *p, const sdk_pic_panel *pn, int q, FILE *f,
                               const char *dn) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  const sdk_pic_line *l = &pn->l[q];
  int64_t n0 = pf->axn[0], n1 = pf->axn[1];
  double *xe = malloc((size_t)(n0 + 1) * sizeof *xe), *ye = malloc((size_t)(n1 + 1) * sizeof *ye);
  double *z = malloc((size_t)pf->ngrid * sizeof *z);
  if (!xe || !ye || !z) {
    free(xe), free(ye), free(z);
    return CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory");
  }
  for (int64_t g = 0; g < pf->ngrid; g++)
    z[g] = val(l, l->v, g, 0);
  sdk_pic_edges(pf->ax[0], n0, pf->axlog[0], xe);
  sdk_pic_edges(pf->ax[1], n1, pf->axlog[1], ye);
  sdk_pic_cells(f, n0, xe, n1, ye, 0, z, 0);
  fputs("\n\n", f);
  double lo, hi;
  sdk_pic_minmax(z, (size_t)pf->ngrid, &lo, &hi);
  sdk_gp_heatmap(b);
  sdk_sb_puts(b, "set cbrange [*:*]\n");
  sdk_gp_cbrange(b, lo, hi);
  sdk_sb_puts(b, "set ylabel \"");
  sdk_gp_sym(b, pf->axname[1]);
  sdk_sb_puts(b, "\"\nset cblabel \"");
  if (pn->nl > 1 && pn->ylab.s && pn->ylab.s[0]) sdk_sb_printf(b, "%s: ", pn->ylab.s);
  sdk_sb_printf(b, "%s\"\n", l->label.s ? l->label.s : "");
  if (pf->axlog[0]) sdk_sb_puts(b, "set logscale x\n");
  if (pf->axlog[1]) sdk_sb_puts(b, "set logscale y\n");
  sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[n0], ye[0],
                ye[n1]);
  sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d\nset yrange [*:*]\n", dn);
  free(xe), free(ye), free(z);
  return SDEKIT_OK;
}

/* The panels drawn: a SCAN panel of a two-axis scan is one map per line. */
static int count_panels(const sdk_pic_fig *fig, int nscan, int *maps) {
  int n = 0;
  *maps = 0;
  for (int k = 0; k < fig->npan; k++) {
    int m = fig->pan[k].kind == SDK_PANEL_SCAN && nscan == 2 ? fig->pan[k].nl : 1;
    if (m > 1 || (fig->pan[k].kind == SDK_PANEL_SCAN && nscan == 2)) *maps = 1;
    n += m;
  }
  return n < SDK_PIC_MAX_PANELS ? n : SDK_PIC_MAX_PANELS;
}

sdekit_status sdk_pic_fig_draw(sdk_plot *p, sdk_pic_fig *fig, int64_t g, const char *note) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  int maps, total = count_panels(fig, pf->nscan, &maps), at = 0, scan_only = 1, time_only = 1;
  for (int k = 0; k < fig->npan; k++) {
    scan_only &= fig->pan[k].kind == SDK_PANEL_SCAN;
    time_only &= fig->pan[k].kind == SDK_PANEL_TIME;
  }
  if (total < 1 || g >= pf->ngrid)
    return CLI_RAISE(p->err, SDEKIT_ERR_INTERNAL, "a picture with nothing to draw");
  double right = maps ? SDK_GP_RIGHT_HEAT : SDK_GP_RIGHT_PLAIN;
  double gap = time_only ? SDK_GP_GAP_SHARED : SDK_GP_GAP_OWN_AXIS;
  sdk_pic_multiplot_title(b, pf, scan_only || pf->nscan == 0 ? -1 : g, note);
  char dn[32];
  FILE *f = sdk_pic_data_open(p, dn);
  if (!f) return SDEKIT_ERR_IO;
  sdekit_status e = SDEKIT_OK;
  for (int k = 0; k < fig->npan && at < total && e == SDEKIT_OK; k++) {
    const sdk_pic_panel *pn = &fig->pan[k];
    int nmap = pn->kind == SDK_PANEL_SCAN && pf->nscan == 2 ? pn->nl : 0;
    for (int m = 0; m < (nmap ? nmap : 1) && at < total && e == SDEKIT_OK; m++, at++) {
      /* every panel reads its own data file: the indices count from 0 */
      if (at > 0) {
        e = sdk_pic_data_close(p, f, dn);
        f = e == SDEKIT_OK ? sdk_pic_data_open(p, dn) : NULL;
        if (!f) return e == SDEKIT_OK ? SDEKIT_ERR_IO : e;
      }
      panel_reset(b);
      sdk_gp_panel(b, at, total, right, gap);
      put_xlab(b, pn, pf, !time_only || at == total - 1);
      if (!nmap) sdk_sb_printf(b, "set ylabel \"%s\"\n", pn->ylab.s ? pn->ylab.s : "");
      put_key(b, pn);
      if (!nmap) put_ytics(b, pn, pf, g, total >= 3 ? 3 : total == 2 ? 4 : 8);
      if (nmap)
        e = map_panel(p, pn, m, f, dn);
      else if (pn->kind == SDK_PANEL_TIME)
        time_panel(p, pn, g, f, dn);
      else if (pn->kind == SDK_PANEL_HIST)
        hist_panel(p, pn, g, f, dn);
      else
        scan_panel(p, pn, f, dn);
    }
  }
  sdk_sb_puts(b, "unset multiplot\n");
  sdekit_status ec = sdk_pic_data_close(p, f, dn);
  return e != SDEKIT_OK ? e : ec;
}

sdekit_status sdk_pic_add_line(sdk_plot *p, sdk_pic_fig *f, sdk_pic_panel *pn, const char *vpath,
                               const char *epath, int *ntail, int64_t *tail, sdk_pic_line **out) {
  const sdk_plotfile *pf = p->pf;
  *out = NULL;
  if (pn->nl >= SDK_PIC_MAX_LINES) return SDEKIT_OK;
  int nt = -1, ne = -1;
  int64_t et[SDEKIT_MAX_RANK];
  double *v = sdk_pic_fig_read(p, f, vpath, &nt, tail), *e = NULL;
  if (!v) return p->err && p->err->status ? p->err->status : SDEKIT_ERR_FORMAT;
  if (epath && sdk_pf_has(pf, epath)) {
    e = sdk_pic_fig_read(p, f, epath, &ne, et);
    if (!e) return p->err && p->err->status ? p->err->status : SDEKIT_ERR_FORMAT;
    int same = ne == nt;
    for (int i = 0; same && i < nt; i++)
      same = et[i] == tail[i];
    if (!same)
      return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s and /%s differ in shape", pf->path,
                       vpath, epath);
  }
  int64_t block = 1;
  for (int i = 0; i < nt; i++)
    block *= tail[i];
  *ntail = nt;
  sdk_pic_line *l = sdk_pic_panel_line(pn);
  l->v = v;
  l->e = e;
  l->gstride = block;
  *out = l;
  return SDEKIT_OK;
}
