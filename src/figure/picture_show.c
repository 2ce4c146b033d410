/* --show NAME: any dataset of the file, drawn by its shape.
 *   one value per grid point       with its error bar (no scan), against the
 *                                  scanned parameter (one axis), a map (two);
 *   a series over the sample axis  over time with a band (no scan, --grid),
 *                                  else its last sample against the scan;
 *   one more dimension (entries)   a line per entry (up to SDK_PIC_MAX_LINES),
 *                                  against the scan;
 *   two more dimensions            at one grid point: a line per row over the
 *                                  last dimension (by index, or over time);
 *   a list not indexed by the grid over its index.
 * Errors come from the dataset's standard_error attribute.  With --stat
 * variance, GROUP/mean_X is replaced by GROUP/var_X where the file has it. */
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

sdekit_status sdk_pic_show_check(const sdk_plotfile *pf, const char *name, sdekit_error *err) {
  sdekit_dataset d;
  if (name[0] == '/') name++;
  if (sdk_pf_has(pf, name) && sdekit_result_dataset(pf->r, name, &d, NULL) == SDEKIT_OK)
    return SDEKIT_OK;
  /* the datasets it has, as many as fit in the message */
  char list[700] = "";
  size_t used = 0;
  int n = sdekit_result_ndatasets(pf->r), shown = 0;
  for (int i = 0; i < n; i++) {
    const char *ds = sdekit_result_dataset_name(pf->r, i);
    size_t len = ds ? strlen(ds) : 0;
    if (!ds || used + len + 8 >= sizeof list) continue;
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", shown++ ? ", " : "", ds);
  }
  if (shown < n) snprintf(list + used, sizeof list - used, ", ...");
  return CLI_RAISE(err, SDEKIT_ERR_USAGE, "--show '%.200s': '%s' has no such dataset (it has: %s)",
                   name, pf->path, list);
}

/* GROUP/var_X for GROUP/mean_X under --stat variance. */
static sdekit_status variance_of(sdk_plot *p, const char *name, char *out, size_t n) {
  const char *slash = strrchr(name, '/');
  const char *leaf = slash ? slash + 1 : name;
  int dir = slash ? (int)(slash - name) + 1 : 0;
  if (!strncmp(leaf, "mean_", 5)) {
    snprintf(out, n, "%.*svar_%s", dir, name, leaf + 5);
    if (sdk_pf_has(p->pf, out)) return SDEKIT_OK;
  }
  return CLI_RAISE(p->err, SDEKIT_ERR_USAGE,
                   "--stat variance: /%s has no variance beside it (GROUP/var_X for "
                   "GROUP/mean_X); the variance is held by moments (var_VAR) and cov",
                   name);
}

/* Sample times of a series in group of name: GROUP/t, else NULL. */
static const double *times_of(sdk_plot *p, sdk_pic_fig *fig, const char *name, int *shared,
                              int64_t ns) {
  char tp[300];
  const char *slash = strrchr(name, '/');
  if (!slash) return NULL;
  snprintf(tp, sizeof tp, "%.*s/t", (int)(slash - name), name);
  if (!sdk_pf_has(p->pf, tp) || !strcmp(tp, name)) return NULL;
  int64_t n;
  const double *t = sdk_pic_fig_times(p, fig, tp, shared, &n);
  return t && n == ns ? t : NULL;
}

/* Files without the dimension names: a last dimension as long as GROUP/t
 * is over time. */
static int has_times(const sdk_plotfile *pf, const char *name, const sdekit_dataset *d) {
  char tp[300];
  const char *slash = strrchr(name, '/');
  sdekit_dataset t;
  if (!slash || d->rank < 1) return 0;
  snprintf(tp, sizeof tp, "%.*s/t", (int)(slash - name), name);
  if (!strcmp(tp, name) || !sdk_pf_has(pf, tp) ||
      sdekit_result_dataset(pf->r, tp, &t, NULL) != SDEKIT_OK || t.rank < 1)
    return 0;
  return t.dims[t.rank - 1] == d->dims[d->rank - 1] && (t.rank == 1 || t.rank == pf->nscan + 1);
}

/* x = 0, 1, ..., n - 1. */
static const double *indices(sdk_plot *p, sdk_pic_fig *fig, int64_t n) {
  double *x = malloc((size_t)(n + 1) * sizeof *x);
  for (int64_t i = 0; x && i < n; i++)
    x[i] = (double)i;
  return sdk_pic_fig_hold(p, fig, x);
}

/* "NAME[k]": entry k of a dataset. */
static void index_label(sdk_label *l, const char *name, int64_t k) {
  char buf[32];
  snprintf(buf, sizeof buf, "[%lld]", (long long)k);
  sdk_lab_text(l, name);
  sdk_lab_text(l, buf);
}

/* A series over time in a scan of one axis and few points: a curve per
 * grid point over its own times, each named by its grid point. */
static void per_grid_lines(sdk_plot *p, sdk_pic_fig *fig, sdk_pic_panel *pn, int64_t nx) {
  const sdk_pic_line first = pn->l[0];
  pn->nl = 0;
  for (int64_t g = 0; g < p->pf->ngrid; g++) {
    sdk_pic_line *l = sdk_pic_panel_line(pn);
    l->v = first.v;
    l->e = first.e;
    l->gstride = first.gstride;
    l->off = g * nx;
    l->own_times = 1;
    l->xg = g;
    sdk_pic_grid_lab(&l->label, p->pf, g);
  }
  /* the panel is drawn at grid point 0, its lines point into every one */
  fig->per_grid = 1;
  pn->band = NULL;
}

/* The panel of dataset name (errors epath, may be NULL) by its shape. */
static sdekit_status show_panel(sdk_plot *p, sdk_pic_fig *fig, const char *name, const char *epath,
                                const sdekit_dataset *d) {
  const sdk_plotfile *pf = p->pf;
  int over = sdk_pic_over_time(p), nt, shared = 1;
  int64_t tail[SDEKIT_MAX_RANK];
  int gridded = d->rank >= pf->nscan;
  for (int i = 0; gridded && i < pf->nscan; i++)
    gridded = d->dims[i] == pf->axn[i];
  int ntail = gridded ? d->rank - pf->nscan : -1;
  int series = ntail >= 1 && (d->sample_axis == d->rank - 1 || has_times(pf, name, d));
  if (ntail > 2 || (!gridded && d->rank != 1))
    return CLI_RAISE(p->err, SDEKIT_ERR_USAGE,
                     "--show '%s': cannot draw a dataset of %d dimensions besides the scan (at "
                     "most 2; its picture draws it: --observable)",
                     name, gridded ? ntail : d->rank);
  if (!gridded || (ntail >= 1 && (series || ntail == 2))) {
    /* over the last dimension: at one grid point, or a plain list; in a
     * scan, a curve per grid point (a few along one axis) or else the last
     * samples against the scan */
    int per_grid =
        series && ntail == 1 && !over && pf->nscan == 1 && pf->ngrid <= SDK_PIC_MAX_LINES;
    int scan_final = series && ntail == 1 && !over && !per_grid;
    sdk_pic_panel *pn = sdk_pic_fig_panel(fig, scan_final ? SDK_PANEL_SCAN : SDK_PANEL_TIME);
    sdk_pic_line *l;
    int64_t nx;
    if (gridded) {
      CLI_CHECK(sdk_pic_add_line(p, fig, pn, name, epath, &nt, tail, &l));
      nx = tail[nt - 1];
    } else {
      double *v = sdk_pic_fig_1d(p, fig, name, &nx);
      if (!v) return SDEKIT_ERR_FORMAT;
      l = sdk_pic_panel_line(pn);
      l->v = v;
      nt = 1;
    }
    sdk_lab_text(&l->label, name);
    if (scan_final) {
      l->off = nx - 1;
      fig->last_sample = 1;
      return SDEKIT_OK;
    }
    const double *x = series ? times_of(p, fig, name, &shared, nx) : NULL;
    if (!x) {
      x = indices(p, fig, nx);
      shared = 1;
      sdk_lab_text(&pn->xlab, "index");
    }
    if (!x) return SDEKIT_ERR_NOMEM;
    pn->x = x;
    pn->xshared = shared;
    pn->nx = nx;
    pn->band = l->e ? "± standard error" : NULL;
    if (per_grid) {
      per_grid_lines(p, fig, pn, nx);
      return SDEKIT_OK;
    }
    if (nt == 2) {
      /* a line per row */
      const double *v = l->v, *e = l->e;
      int64_t rows = tail[0];
      pn->nl = 0;
      sdk_lab_free(&l->label);
      for (int64_t r = 0; r < rows; r++) {
        sdk_pic_line *lr = sdk_pic_panel_line(pn);
        if (!lr) break;
        lr->v = v;
        lr->e = e;
        lr->gstride = rows * nx;
        lr->off = r * nx;
        index_label(&lr->label, name, r);
      }
    }
    return SDEKIT_OK;
  }
  /* one value, or a row of entries, per grid point: against the scan */
  sdk_pic_panel *pn = sdk_pic_fig_panel(fig, SDK_PANEL_SCAN);
  sdk_pic_line *l;
  CLI_CHECK(sdk_pic_add_line(p, fig, pn, name, epath, &nt, tail, &l));
  sdk_lab_text(&l->label, name);
  if (nt == 1) {
    const double *v = l->v, *e = l->e;
    pn->nl = 0;
    sdk_lab_free(&l->label);
    for (int64_t k = 0; k < tail[0]; k++) {
      sdk_pic_line *lk = sdk_pic_panel_line(pn);
      if (!lk) break;
      lk->v = v;
      lk->e = e;
      lk->gstride = tail[0];
      lk->off = k;
      index_label(&lk->label, name, k);
    }
  }
  return SDEKIT_OK;
}

sdekit_status sdk_pic_show(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  const char *name = p->show && p->show[0] == '/' ? p->show + 1 : p->show;
  char vname[600];
  if (!name) return CLI_RAISE(p->err, SDEKIT_ERR_INTERNAL, "--show without a name");
  CLI_CHECK(sdk_pic_show_check(pf, name, p->err));
  if (p->stat == SDK_PIC_STAT_VARIANCE) {
    CLI_CHECK(variance_of(p, name, vname, sizeof vname));
    name = vname;
  }
  sdekit_dataset d;
  if (sdekit_result_dataset(pf->r, name, &d, NULL) != SDEKIT_OK)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': cannot read /%s", pf->path, name);
  const char *epath = d.std_error && sdk_pf_has(pf, d.std_error) ? d.std_error : NULL;
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdekit_status e = show_panel(p, &fig, name, epath, &d);
  if (e == SDEKIT_OK) {
    sdk_pic_panel *pn = &fig.pan[0];
    sdk_label note = {0};
    sdk_lab_text(&pn->ylab, name);
    if (fig.last_sample) sdk_lab_text(&note, "values at the last sample");
    e = sdk_pic_fig_draw(p, &fig, sdk_pic_time_grid(p), &note);
    sdk_lab_free(&note);
  }
  sdk_pic_fig_free(&fig);
  return e;
}
