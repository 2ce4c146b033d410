/* Figures of panels of lines (see picture.h): values over time with bands of
 * +- one standard error, values against the scan with error bars (a map for
 * two scan axes), histograms.  The pictures of expr, diffusion, cov, fpt,
 * tavg and --show are built from them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

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
  return pn;
}

sdk_pic_line *sdk_pic_panel_line(sdk_pic_panel *pn) {
  if (pn->nl >= SDK_PIC_MAX_LINES) return NULL;
  sdk_pic_line *l = &pn->l[pn->nl++];
  memset(l, 0, sizeof *l);
  l->sstride = 1;
  return l;
}

void sdk_pic_fig_free(sdk_pic_fig *f) {
  for (int k = 0; k < f->npan; k++) {
    sdk_lab_free(&f->pan[k].xlab);
    sdk_lab_free(&f->pan[k].ylab);
    for (int i = 0; i < f->pan[k].nl; i++)
      sdk_lab_free(&f->pan[k].l[i].label);
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

/* ---------------- the description ---------------- */

static double val(const sdk_pic_line *l, const double *a, int64_t g, int64_t s) {
  return a ? a[g * l->gstride + l->off + s * l->sstride] : NAN;
}

/* y tics about `want` apart over the values (+- errors) drawn: short panels
 * get few labels (0: the renderer's own, when the values span nothing). */
double sdk_pic_ystep(const sdk_fig_panel *pn, int want) {
  double lo = INFINITY, hi = -INFINITY;
  int filled = pn->kind == SDK_FIG_BOXES;
  for (int q = 0; q < pn->nseries; q++) {
    const sdk_fig_series *s = &pn->s[q];
    filled |= s->fill;
    for (int64_t k = 0; k < s->n; k++) {
      double a = s->lo ? s->lo[k] : s->err ? s->y[k] - s->err[k] : s->y[k];
      double b = s->hi ? s->hi[k] : s->err ? s->y[k] + s->err[k] : s->y[k];
      if (isfinite(s->y[k])) lo = fmin(lo, a), hi = fmax(hi, b);
    }
  }
  if (filled) lo = fmin(lo, 0);
  return sdk_pic_nice_step(lo, hi, want);
}

double sdk_pic_xstep(const sdk_fig_panel *pn, int want) {
  double lo = INFINITY, hi = -INFINITY;
  for (int q = 0; q < pn->nseries; q++)
    for (int64_t k = 0; k < pn->s[q].n; k++)
      if (isfinite(pn->s[q].x[k])) lo = fmin(lo, pn->s[q].x[k]), hi = fmax(hi, pn->s[q].x[k]);
  return sdk_pic_nice_step(lo, hi, want);
}

double sdk_pic_nice_step(double lo, double hi, int want) {
  if (!(hi > lo) || !isfinite(hi - lo)) return 0;
  double raw = (hi - lo) / want, mag = pow(10, floor(log10(raw))), step = mag;
  if (raw > 5 * mag)
    step = 10 * mag;
  else if (raw > 2 * mag)
    step = 5 * mag;
  else if (raw > mag)
    step = 2 * mag;
  return step;
}

/* The x label: the panel's own, else time or the scan axis. */
static void xlabel(sdk_fig_panel *out, const sdk_pic_panel *pn, const sdk_plotfile *pf) {
  if (!sdk_lab_empty(&pn->xlab))
    sdk_lab_cat(&out->xlabel, &pn->xlab);
  else if (pn->kind == SDK_PANEL_SCAN && pf->nscan > 0)
    sdk_lab_sym(&out->xlabel, pf->axname[0]);
  else if (pn->kind != SDK_PANEL_SCAN)
    sdk_pic_time_lab(&out->xlabel, pf);
}

/* Over time at grid point g: per line its values with a band of +- its
 * error where it has one. */
static void time_desc(sdk_figure *fig, sdk_fig_panel *out, const sdk_pic_panel *pn,
                      const sdk_plotfile *pf, int64_t g) {
  int64_t ns = pn->nx;
  for (int q = 0; q < pn->nl; q++) {
    const sdk_pic_line *l = &pn->l[q];
    sdk_fig_series *s = sdk_fig_series_new(fig, out, ns, l->e ? "xylh" : "xy");
    if (!s) return;
    s->color = q;
    sdk_lab_cat(&s->title, &l->label);
    for (int64_t k = 0; k < ns; k++) {
      double v = val(l, l->v, g, k), e = val(l, l->e, g, k);
      int64_t tg = l->own_times ? l->xg : g;
      s->x[k] = pn->x[(pn->xshared ? 0 : tg * ns) + k] * pf->tscale;
      s->y[k] = v;
      if (s->lo) s->lo[k] = isfinite(e) ? v - e : v, s->hi[k] = isfinite(e) ? v + e : v;
    }
  }
}

/* Counts per bin at grid point g: boxes over the bins. */
static void hist_desc(sdk_figure *fig, sdk_fig_panel *out, const sdk_pic_panel *pn, int64_t g) {
  const double *x = pn->x + (pn->xshared ? 0 : g * (pn->nx + 1));
  for (int q = 0; q < pn->nl; q++) {
    const sdk_pic_line *l = &pn->l[q];
    sdk_fig_series *s = sdk_fig_series_new(fig, out, pn->nx, "xyw");
    if (!s) return;
    s->color = q;
    sdk_lab_cat(&s->title, &l->label);
    for (int64_t k = 0; k < pn->nx; k++) {
      s->x[k] = 0.5 * (x[k] + x[k + 1]);
      s->y[k] = val(l, l->v, g, k);
      s->w[k] = x[k + 1] - x[k];
    }
  }
}

/* Against the scan, no scan or one axis: points with error bars, on a
 * category axis (no scan: each line at its own named position, its value
 * written above it) or against the scanned parameter, joined. */
static void scan_desc(sdk_figure *fig, sdk_fig_panel *out, const sdk_pic_panel *pn,
                      const sdk_plotfile *pf) {
  int64_t n = pf->nscan == 1 ? pf->axn[0] : 1;
  out->psize = pf->nscan == 0 ? 1.8 : n > 40 ? 0.6 : 1.1;
  if (pf->nscan == 0) {
    for (int q = 0; q < pn->nl; q++) {
      const sdk_pic_line *l = &pn->l[q];
      sdk_lab_cat(&out->cat[out->ncat++], &l->label);
      double v = val(l, l->v, 0, 0), e = val(l, l->e, 0, 0);
      if (!isfinite(v)) continue;
      sdk_fig_note *nt = &out->note[out->nnote++];
      if (isfinite(e))
        sdk_lab_val_err(&nt->text, v, e);
      else
        sdk_lab_num(&nt->text, v);
      nt->x = q + 1;
      nt->y = v + (isfinite(e) ? e : 0);
    }
  } else {
    out->xlog = pf->axlog[0];
    out->small_bars = n > 40;
    out->xfit = 1;
    out->joined = 1;
  }
  for (int q = 0; q < pn->nl; q++) {
    const sdk_pic_line *l = &pn->l[q];
    sdk_fig_series *s = sdk_fig_series_new(fig, out, n, "xye");
    if (!s) return;
    s->color = q;
    if (pf->nscan && pn->nl > 1) sdk_lab_cat(&s->title, &l->label);
    for (int64_t k = 0; k < n; k++) {
      double e = val(l, l->e, k, 0);
      s->x[k] = pf->nscan ? pf->ax[0][k] : q + 1;
      s->y[k] = val(l, l->v, k, 0);
      s->err[k] = isfinite(e) ? e : 0;
    }
  }
}

/* Small maps: the values (with errors) written in the cells, white on the
 * darkest ones (lo..hi: the range of the values). */
static void cell_notes(sdk_fig_panel *out, const sdk_pic_line *l, const sdk_plotfile *pf, double lo,
                       double hi) {
  double m = fmax(fabs(lo), fabs(hi));
  for (int64_t i = 0; i < pf->axn[0]; i++)
    for (int64_t j = 0; j < pf->axn[1] && out->nnote < SDK_FIG_MAX_NOTES; j++) {
      int64_t g = i * pf->axn[1] + j;
      double v = val(l, l->v, g, 0), e = val(l, l->e, g, 0);
      if (!isfinite(v)) continue;
      sdk_fig_note *nt = &out->note[out->nnote++];
      nt->x = pf->ax[0][i];
      nt->y = pf->ax[1][j];
      sdk_lab_num(&nt->text, v);
      if (isfinite(e)) {
        sdk_strbuf t;
        sdk_sb_init(&t);
        sdk_fmt_val_err(&t, v, e);
        /* "v ± e" in two lines: v, then ± e */
        char *pm = t.s ? strstr(t.s, " ± ") : NULL;
        if (pm) {
          *pm = 0;
          sdk_lab_free(&nt->text);
          sdk_lab_text(&nt->text, t.s);
          sdk_lab_text(&nt->text2, pm + 1);
        }
        sdk_sb_free(&t);
      }
      nt->white = lo < 0 && hi > 0 ? fabs(v) > 0.6 * m : hi > lo && v < lo + 0.45 * (hi - lo);
    }
}

/* Two scan axes: line q of pn as a map over both. */
static void map_desc(sdk_figure *fig, sdk_fig_panel *out, const sdk_pic_panel *pn, int q,
                     const sdk_plotfile *pf) {
  const sdk_pic_line *l = &pn->l[q];
  int64_t n0 = pf->axn[0], n1 = pf->axn[1];
  out->nx = n0;
  out->ny = n1;
  out->xe = malloc((size_t)(n0 + 1) * sizeof *out->xe);
  out->ye = malloc((size_t)(n1 + 1) * sizeof *out->ye);
  out->z = malloc((size_t)pf->ngrid * sizeof *out->z);
  if (!out->xe || !out->ye || !out->z) {
    fig->oom = 1;
    return;
  }
  for (int64_t g = 0; g < pf->ngrid; g++)
    out->z[g] = val(l, l->v, g, 0);
  sdk_pic_edges(pf->ax[0], n0, pf->axlog[0], out->xe);
  sdk_pic_edges(pf->ax[1], n1, pf->axlog[1], out->ye);
  double lo, hi;
  sdk_pic_minmax(out->z, (size_t)pf->ngrid, &lo, &hi);
  sdk_fig_cbrange(lo, hi, &out->palette, &out->cbset, &out->cblo, &out->cbhi);
  sdk_lab_sym(&out->ylabel, pf->axname[1]);
  if (pn->nl > 1 && !sdk_lab_empty(&pn->ylab)) {
    sdk_lab_cat(&out->cblabel, &pn->ylab);
    sdk_lab_text(&out->cblabel, ": ");
  }
  sdk_lab_cat(&out->cblabel, &l->label);
  if (pf->ngrid <= SDK_PIC_LABEL_CELLS) cell_notes(out, l, pf, lo, hi);
  out->xlog = pf->axlog[0];
  out->ylog = pf->axlog[1];
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

/* The range of the positive values of the panel's curves (0, 0: none). */
static void positive_range(const sdk_fig_panel *o, double *lo, double *hi) {
  *lo = INFINITY;
  *hi = 0;
  for (int q = 0; q < o->nseries; q++)
    for (int64_t k = 0; k < o->s[q].n; k++) {
      double y = o->s[q].y[k];
      if (y > 0 && isfinite(y)) *lo = fmin(*lo, y), *hi = fmax(*hi, y);
    }
  if (!(*hi > 0)) *lo = *hi = 0;
}

/* Do the positive values of the panel span a decade or more? */
static int spans_decades(const sdk_fig_panel *o) {
  double lo, hi;
  positive_range(o, &lo, &hi);
  return hi > 0 && hi >= 10 * lo;
}

/* A log y axis: whole decades around the positive values (bands reaching
 * 0 do not stretch it), ticks a power of ten apart, about `want` of them. */
static void log_y(sdk_fig_panel *o, int want) {
  double lo, hi;
  positive_range(o, &lo, &hi);
  o->ylog = 1;
  o->ystep = 0;
  if (!(hi > 0)) return;
  double d0 = floor(log10(lo)), d1 = ceil(log10(hi));
  if (d1 <= d0) d1 = d0 + 1;
  o->yset = 1;
  o->ylo = pow(10, d0);
  o->yhi = pow(10, d1);
  o->ystep = pow(10, ceil((d1 - d0) / want));
}

/* Are the panel's sample times log-spaced (--sample-times log:A:B:N)?  All
 * positive, two decades or more, and the middle sample near the geometric
 * middle (within half a decade; evenly spaced times put it at the
 * arithmetic middle, a decade or more above). */
static int log_spaced(const sdk_fig_panel *o) {
  if (o->nseries < 1) return 0;
  for (int q = 0; q < o->nseries; q++) {
    const sdk_fig_series *s = &o->s[q];
    if (s->n < 3 || !(s->x[0] > 0) || !(s->x[s->n - 1] >= 100 * s->x[0])) return 0;
    if (!(s->x[s->n / 2] <= sqrt(10 * s->x[0] * s->x[s->n - 1]))) return 0;
  }
  return 1;
}

/* Every finite value of the panel's curves positive (a log axis shows them all)? */
static int all_positive(const sdk_fig_panel *o) {
  for (int q = 0; q < o->nseries; q++)
    for (int64_t k = 0; k < o->s[q].n; k++)
      if (!(o->s[q].y[k] > 0) && isfinite(o->s[q].y[k])) return 0;
  return 1;
}

void sdk_pic_scales(const sdk_plot *p, sdk_fig_panel *o, int logx, int logy, int time, int want) {
  /* the figure's choice unless --log: log time when the samples are, and
   * then a positive quantity spanning decades (a mean-square displacement)
   * on a log axis too */
  int lx = p->log ? (p->log & SDK_PIC_LOG_X) != 0 : logx || (time && log_spaced(o));
  int ly = p->log ? (p->log & SDK_PIC_LOG_Y) != 0
                  : (logy || (lx && all_positive(o))) && spans_decades(o);
  o->xlog = lx;
  if (ly)
    log_y(o, want);
  else
    o->ystep = sdk_pic_ystep(o, want);
}

/* In a figure against the scan, a panel at one grid point names it in
 * its curves' titles (the subtitle names only what is fixed). */
static void at_grid(sdk_fig_panel *o, const sdk_plotfile *pf, int64_t g) {
  for (int q = 0; q < o->nseries; q++) {
    sdk_lab_text(&o->s[q].title, " at ");
    sdk_pic_grid_lab(&o->s[q].title, pf, g);
  }
  o->key = 1;
}

/* Panel `at` of `total` from pn (its map m when nmap), at grid point g;
 * `mixed`: a figure against the scan with panels at one grid point. */
static void panel_desc(sdk_plot *p, sdk_figure *out, const sdk_pic_panel *pn, int64_t g, int nmap,
                       int m, int at, int total, double right, int time_only, int mixed) {
  const sdk_plotfile *pf = p->pf;
  static const int KIND[] = {SDK_FIG_LINES, SDK_FIG_POINTS, SDK_FIG_BOXES};
  sdk_fig_panel *o = sdk_fig_panel_new(out, nmap ? SDK_FIG_MAP : KIND[pn->kind]);
  sdk_fig_area(at, total, right, time_only ? SDK_FIG_GAP_SHARED : SDK_FIG_GAP_OWN_AXIS, &o->left,
               &o->right, &o->bottom, &o->top);
  o->xtics = !time_only || at == total - 1;
  if (o->xtics) xlabel(o, pn, pf);
  if (!nmap) sdk_lab_cat(&o->ylabel, &pn->ylab);
  o->key = pn->nl > 1 || pn->band;
  if (pn->band) sdk_lab_text(&o->band, pn->band);
  if (nmap)
    map_desc(out, o, pn, m, pf);
  else if (pn->kind == SDK_PANEL_TIME)
    time_desc(out, o, pn, pf, g);
  else if (pn->kind == SDK_PANEL_HIST)
    hist_desc(out, o, pn, g);
  else
    scan_desc(out, o, pn, pf);
  if (mixed && pn->kind != SDK_PANEL_SCAN) at_grid(o, pf, g);
  if (nmap) {
    o->key = 0;
    return;
  }
  int want = total >= 3 ? 3 : total == 2 ? 4 : 8;
  sdk_pic_scales(p, o, pn->logx, pn->logy, pn->kind == SDK_PANEL_TIME, want);
}

static int same_label(const sdk_label *a, const sdk_label *b) {
  if (a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++)
    if (a->r[i].style != b->r[i].style || strcmp(a->r[i].s, b->r[i].s)) return 0;
  return 1;
}

/* Does panel b's key say what a's says? */
static int same_key(const sdk_fig_panel *a, const sdk_fig_panel *b) {
  if (!a->key || a->nseries != b->nseries || !same_label(&a->band, &b->band)) return 0;
  for (int q = 0; q < a->nseries; q++)
    if (!same_label(&a->s[q].title, &b->s[q].title)) return 0;
  return 1;
}

/* Has the key of panel o an entry (a curve with a title, a band named)? */
static int key_entries(const sdk_fig_panel *o) {
  int n = 0;
  for (int q = 0; q < o->nseries; q++)
    n += !sdk_lab_empty(&o->s[q].title);
  if (o->nseries == 1 && o->kind == SDK_FIG_LINES)
    n += (o->s[0].lo && !sdk_lab_empty(&o->band)) + (o->s[0].lo2 && !sdk_lab_empty(&o->band2));
  return n;
}

void sdk_pic_place_keys(sdk_figure *out) {
  int any = 0;
  for (int k = 0; k < out->npanels; k++) {
    if (out->p[k].kind == SDK_FIG_MAP || !key_entries(&out->p[k])) out->p[k].key = 0;
    /* a key an earlier panel shows already: once */
    for (int j = 0; j < k && out->p[k].key; j++)
      if (same_key(&out->p[j], &out->p[k])) out->p[k].key = 0;
    any |= out->p[k].key;
  }
  /* the right column ends where the keys begin */
  double right = 0;
  for (int k = 0; k < out->npanels; k++)
    right = fmax(right, out->p[k].right);
  for (int k = 0; any && k < out->npanels; k++) {
    sdk_fig_panel *o = &out->p[k];
    if (o->right == right) o->right = SDK_FIG_RIGHT_KEY;
    o->keyx = SDK_FIG_RIGHT_KEY + 0.01;
    o->keyy = o->top;
  }
}

sdekit_status sdk_pic_emit(sdk_plot *p, sdk_figure *f) {
  if (f->oom || f->title.oom || f->subtitle.oom) {
    sdk_fig_free(f);
    return CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory");
  }
  const char *name = p->spec->name;
  *p->spec = *f; /* the description moves into *p->spec */
  p->spec->name = name;
  memset(f, 0, sizeof *f);
  return SDEKIT_OK;
}

sdekit_status sdk_pic_fig_describe(sdk_plot *p, const sdk_pic_fig *fig, int64_t g,
                                   const sdk_label *note, sdk_figure *out) {
  const sdk_plotfile *pf = p->pf;
  int maps, total = count_panels(fig, pf->nscan, &maps), at = 0, scan_only = 1, time_only = 1;
  int any_scan = 0;
  for (int k = 0; k < fig->npan; k++) {
    scan_only &= fig->pan[k].kind == SDK_PANEL_SCAN;
    time_only &= fig->pan[k].kind == SDK_PANEL_TIME;
    any_scan |= fig->pan[k].kind == SDK_PANEL_SCAN;
  }
  /* panels against the scan beside panels at one grid point */
  int mixed = pf->nscan > 0 && any_scan && !scan_only;
  if (total < 1 || g >= pf->ngrid)
    return CLI_RAISE(p->err, SDEKIT_ERR_INTERNAL, "a picture with nothing to draw");
  double right = maps ? SDK_FIG_RIGHT_HEAT : SDK_FIG_RIGHT_PLAIN;
  int named = !(scan_only || mixed || fig->per_grid || pf->nscan == 0);
  sdk_pic_title(&out->title, &out->subtitle, pf, named ? g : -1, note);
  for (int k = 0; k < fig->npan && at < total; k++) {
    const sdk_pic_panel *pn = &fig->pan[k];
    int nmap = pn->kind == SDK_PANEL_SCAN && pf->nscan == 2 ? pn->nl : 0;
    for (int m = 0; m < (nmap ? nmap : 1) && at < total; m++, at++)
      panel_desc(p, out, pn, g, nmap, m, at, total, right, time_only, mixed);
  }
  if (!maps) sdk_pic_place_keys(out);
  int oom = out->oom || out->title.oom || out->subtitle.oom;
  return oom ? CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory") : SDEKIT_OK;
}

sdekit_status sdk_pic_fig_draw(sdk_plot *p, sdk_pic_fig *fig, int64_t g, const sdk_label *note) {
  return sdk_pic_fig_describe(p, fig, g, note, p->spec);
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

sdekit_status sdk_pic_per_name(sdk_plot *p, sdk_pic_fig *fig, int kind, const char *vpath,
                               const char *epath, const sdk_pic_names *nm, const char *what,
                               const char *ylab, const char *ysym, int64_t *n) {
  sdk_pic_panel *pn = sdk_pic_fig_panel(fig, kind);
  if (!pn) return SDEKIT_OK;
  int nt;
  int64_t tail[SDEKIT_MAX_RANK];
  sdk_pic_line *first;
  CLI_CHECK(sdk_pic_add_line(p, fig, pn, vpath, epath, &nt, tail, &first));
  if (!first) return SDEKIT_OK; /* the panel is full */
  if (nt != 1 || tail[0] < 1)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s is not [grid..., %s values]",
                     p->pf->path, vpath, what);
  if (n) *n = tail[0];
  /* the line read whole becomes one line per item over the same data */
  pn->nl = 0;
  sdk_lab_free(&first->label);
  const double *v = first->v, *e = first->e;
  for (int64_t k = 0; k < tail[0]; k++) {
    sdk_pic_line *l = sdk_pic_panel_line(pn);
    if (!l) break;
    l->v = v;
    l->e = e;
    l->gstride = tail[0];
    l->off = k;
    sdk_pic_name_label(&l->label, nm, (int)k, what);
  }
  sdk_lab_text(&pn->ylab, ylab);
  if (ysym) sdk_lab_italic(&pn->ylab, ysym);
  return SDEKIT_OK;
}
