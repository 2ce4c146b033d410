/* The covariance picture (--observe cov): the entries cov(v, w), v <= w, of
 * the covariance matrix over time, each with a band of +- one standard
 * error (no scan, or at the grid point of --grid); in a scan, the entries at
 * the last sample against the scanned parameter with error bars (one axis)
 * or as maps (two axes, one per entry).  --stat variance keeps the diagonal
 * (the variances), --var the entries of that variable. */
#include <stdlib.h>
#include <string.h>

#include "figure/attrs.h"
#include "figure/picture.h"

int sdk_pic_has_cov(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "cov/value");
}

/* The label of entry (v, w): var x, or cov(x, y). */
static void entry_label(sdk_label *b, const char *const *vars, int v, int w) {
  if (v == w) {
    sdk_lab_text(b, "var ");
    sdk_lab_sym(b, vars[v]);
    return;
  }
  sdk_lab_text(b, "cov(");
  sdk_lab_sym(b, vars[v]);
  sdk_lab_text(b, ", ");
  sdk_lab_sym(b, vars[w]);
  sdk_lab_text(b, ")");
}

/* The entries of vars (nv of them) drawn, as lines of pn. */
static sdekit_status cov_lines(sdk_plot *p, sdk_pic_fig *fig, sdk_pic_panel *pn,
                               const char *const *vars, int nv, int64_t ns, int over) {
  const sdk_plotfile *pf = p->pf;
  int nt;
  int64_t tail[SDEKIT_MAX_RANK];
  sdk_pic_line *first;
  CLI_CHECK(sdk_pic_add_line(p, fig, pn, "cov/value", "cov/error", &nt, tail, &first));
  if (nt != 3 || tail[0] != ns || tail[1] != nv || tail[2] != nv)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                     "'%s': /cov/value is not [grid..., %lld samples, %d, %d]", pf->path,
                     (long long)ns, nv, nv);
  pn->nl = 0; /* the first line only read the datasets: the entries follow */
  const double *val = first->v, *err = first->e;
  sdk_lab_free(&first->label);
  for (int v = 0; v < nv; v++)
    for (int w = v; w < nv; w++) {
      if (p->stat == SDK_PIC_STAT_VARIANCE && w != v) continue;
      if (p->var && strcmp(p->var, vars[v]) && strcmp(p->var, vars[w])) continue;
      sdk_pic_line *l = sdk_pic_panel_line(pn);
      if (!l) return SDEKIT_OK;
      l->v = val;
      l->e = err;
      l->gstride = ns * nv * nv;
      l->sstride = (int64_t)nv * nv;
      l->off = (int64_t)v * nv + w + (over ? 0 : (ns - 1) * l->sstride);
      entry_label(&l->label, vars, v, w);
    }
  return SDEKIT_OK;
}

sdekit_status sdk_pic_cov(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  const char **vars = NULL;
  long nv = cli_attr_strs(pf->r, "cov", "vars", &vars);
  if (nv < 1 || nv > 1000) {
    free(vars);
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /cov has no attribute vars", pf->path);
  }
  int over = sdk_pic_over_time(p), shared;
  int64_t ns;
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdekit_status e = SDEKIT_OK;
  sdk_pic_panel *pn = sdk_pic_fig_panel(&fig, over ? SDK_PANEL_TIME : SDK_PANEL_SCAN);
  pn->x = sdk_pic_fig_times(p, &fig, "cov/t", &shared, &ns);
  pn->xshared = shared;
  pn->nx = ns;
  if (!pn->x) e = SDEKIT_ERR_FORMAT;
  if (e == SDEKIT_OK && ns < 1)
    e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': the covariance has no samples", pf->path);
  if (e == SDEKIT_OK) e = cov_lines(p, &fig, pn, vars, (int)nv, ns, over);
  if (e == SDEKIT_OK && pn->nl == 0)
    e = CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "--var '%s': /cov holds no entry of it", p->var);
  if (e == SDEKIT_OK) {
    sdk_label note = {0};
    sdk_lab_text(&pn->ylab, p->stat == SDK_PIC_STAT_VARIANCE ? "variance" : "covariance");
    if (pn->nl == 1) {
      sdk_lab_free(&pn->ylab);
      sdk_lab_cat(&pn->ylab, &pn->l[0].label);
      pn->band = "± standard error";
    }
    if (!over) sdk_lab_text(&note, "values at the last sample");
    e = sdk_pic_fig_draw(p, &fig, sdk_pic_time_grid(p), &note);
    sdk_lab_free(&note);
  }
  sdk_pic_fig_free(&fig);
  free(vars);
  return e;
}
