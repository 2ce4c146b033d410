/* The picture of the user observables (--observe expr): each observable in
 * a panel of its own (up to SDK_PIC_MAX_PANELS), its mean over time with a
 * band of +- one standard error (no scan, or at the grid point of --grid);
 * in a scan, the mean at the last sample against the scanned parameter with
 * error bars (one axis) or as a map (two axes). */
#include <stdlib.h>
#include <string.h>

#include "figure/attrs.h"
#include "figure/picture.h"

int sdk_pic_has_expr(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "expr/t");
}

/* Panel of observable name: its mean (and errors) over time or, in a scan,
 * at the last of ns samples. */
static sdekit_status expr_panel(sdk_plot *p, sdk_pic_fig *fig, const char *name, const double *t,
                                int shared, int64_t ns) {
  const sdk_plotfile *pf = p->pf;
  int over = sdk_pic_over_time(p);
  sdk_pic_panel *pn = sdk_pic_fig_panel(fig, over ? SDK_PANEL_TIME : SDK_PANEL_SCAN);
  if (!pn) return SDEKIT_OK;
  char vp[300], ep[300];
  snprintf(vp, sizeof vp, "expr/mean_%s", name);
  snprintf(ep, sizeof ep, "expr/err_%s", name);
  int nt;
  int64_t tail[SDEKIT_MAX_RANK];
  sdk_pic_line *l;
  CLI_CHECK(sdk_pic_add_line(p, fig, pn, vp, ep, &nt, tail, &l));
  if (nt != 1 || tail[0] != ns)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s and /expr/t differ in length", pf->path,
                     vp);
  pn->x = t;
  pn->xshared = shared;
  pn->nx = ns;
  pn->band = "± standard error";
  if (!over) l->off = ns - 1; /* the last sample */
  sdk_lab_text(&pn->ylab, "⟨");
  sdk_lab_sym(&pn->ylab, name);
  sdk_lab_text(&pn->ylab, "⟩");
  sdk_lab_cat(&l->label, &pn->ylab);
  return SDEKIT_OK;
}

sdekit_status sdk_pic_expr(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  if (p->stat == SDK_PIC_STAT_VARIANCE)
    return sdk_pic_no_variance(p, "expr",
                               "the mean of every user observable with its standard error");
  const char **names = NULL;
  long n = cli_attr_strs(pf->r, "expr", "names", &names);
  if (n < 1) {
    free(names);
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /expr has no attribute names", pf->path);
  }
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  int shared;
  int64_t ns;
  sdekit_status e = SDEKIT_OK;
  double *t = sdk_pic_fig_times(p, &fig, "expr/t", &shared, &ns);
  if (!t) e = SDEKIT_ERR_FORMAT;
  if (e == SDEKIT_OK && ns < 1)
    e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': the user observables have no samples",
                  pf->path);
  for (long k = 0; k < n && e == SDEKIT_OK; k++) {
    if (!cli_name_ok(names[k]))
      e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                    "'%s': user observable name '%s' is not a dataset name", pf->path, names[k]);
    else
      e = expr_panel(p, &fig, names[k], t, shared, ns);
  }
  if (e == SDEKIT_OK) {
    sdk_label note = {0};
    if (!sdk_pic_over_time(p)) sdk_lab_text(&note, "values at the last sample");
    e = sdk_pic_fig_draw(p, &fig, sdk_pic_time_grid(p), &note);
    sdk_lab_free(&note);
  }
  sdk_pic_fig_free(&fig);
  free(names);
  return e;
}
