/* The first-passage picture (--observe fpt; datasets: the shared design of
 * issue 13).  At one grid point (no scan, or --grid): the histogram of the
 * hitting times per boundary, the survival probability S(t) with a band of
 * +- one standard error and the splitting probabilities (the fraction of
 * paths absorbed at each boundary) with error bars.  In a scan: the
 * splitting probability and the mean first-passage time per boundary
 * against the scanned parameter with error bars, and S(t) at grid point 0
 * (one axis), or the splitting probabilities as maps (two axes). */
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_fpt(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "fpt/split");
}

/* The histograms of the hitting times per boundary: fpt/hist [grid..., nb,
 * bins] over the edges fpt/hist_edges [bins + 1] or [grid..., bins + 1]. */
static sdekit_status hist_panel(sdk_plot *p, sdk_pic_fig *fig, const sdk_pic_names *bn) {
  const sdk_plotfile *pf = p->pf;
  int64_t ne;
  int shared;
  /* the edges [bins + 1], or [grid..., bins + 1] (t_end per grid point) */
  double *edges = sdk_pic_fig_times(p, fig, "fpt/hist_edges", &shared, &ne);
  if (!edges) return SDEKIT_ERR_FORMAT;
  sdk_pic_panel *pn = sdk_pic_fig_panel(fig, SDK_PANEL_HIST);
  if (!pn) return SDEKIT_OK;
  int nt;
  int64_t tail[SDEKIT_MAX_RANK];
  sdk_pic_line *first;
  CLI_CHECK(sdk_pic_add_line(p, fig, pn, "fpt/hist", NULL, &nt, tail, &first));
  if (nt != 2 || tail[1] + 1 != ne)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                     "'%s': /fpt/hist is not [grid..., boundaries, bins] over /fpt/hist_edges",
                     pf->path);
  pn->nl = 0;
  sdk_lab_free(&first->label);
  const double *v = first->v;
  for (int64_t b = 0; b < tail[0]; b++) {
    sdk_pic_line *l = sdk_pic_panel_line(pn);
    if (!l) break;
    l->v = v;
    l->gstride = tail[0] * tail[1];
    l->off = b * tail[1];
    sdk_pic_name_label(&l->label, bn, (int)b, "boundary");
  }
  pn->x = edges;
  pn->xshared = shared;
  pn->nx = tail[1];
  sdk_lab_text(&pn->xlab, "first-passage time ");
  sdk_lab_italic(&pn->xlab, "τ");
  sdk_lab_text(&pn->ylab, "paths absorbed");
  return SDEKIT_OK;
}

/* S(t) with its band at one grid point. */
static sdekit_status survival_panel(sdk_plot *p, sdk_pic_fig *fig) {
  int shared, nt;
  int64_t ns, tail[SDEKIT_MAX_RANK];
  const double *t = sdk_pic_fig_times(p, fig, "fpt/t", &shared, &ns);
  if (!t) return SDEKIT_ERR_FORMAT;
  sdk_pic_panel *pn = sdk_pic_fig_panel(fig, SDK_PANEL_TIME);
  if (!pn) return SDEKIT_OK;
  sdk_pic_line *l;
  CLI_CHECK(sdk_pic_add_line(p, fig, pn, "fpt/survival", "fpt/survival_err", &nt, tail, &l));
  if (nt != 1 || tail[0] != ns)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /fpt/survival and /fpt/t differ in length",
                     p->pf->path);
  pn->x = t;
  pn->xshared = shared;
  pn->nx = ns;
  pn->band = "± standard error";
  pn->logy = 1; /* a probability falling over decades */
  sdk_lab_italic(&l->label, "S");
  sdk_lab_text(&l->label, "(");
  sdk_lab_italic(&l->label, "t");
  sdk_lab_text(&l->label, ")");
  sdk_lab_text(&pn->ylab, "survival ");
  sdk_lab_cat(&pn->ylab, &l->label);
  return SDEKIT_OK;
}

sdekit_status sdk_pic_fpt(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  if (p->stat == SDK_PIC_STAT_VARIANCE)
    return sdk_pic_no_variance(p, "fpt",
                               "splitting probabilities, mean first-passage times with their "
                               "standard errors, histograms, S(t)");
  sdk_pic_names bn;
  sdk_pic_read_names(pf, "fpt", "boundaries", &bn);
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdekit_status e = SDEKIT_OK;
  int over = sdk_pic_over_time(p);
  /* with one boundary every absorbed path ends there: its splitting
   * probability is 1 and says nothing */
  sdekit_dataset sd;
  int split = !(sdekit_result_dataset(pf->r, "fpt/split", &sd, NULL) == SDEKIT_OK && sd.rank > 0 &&
                sd.dims[sd.rank - 1] == 1);
  if (over) {
    if (sdk_pf_has(pf, "fpt/hist") && sdk_pf_has(pf, "fpt/hist_edges"))
      e = hist_panel(p, &fig, &bn);
    if (e == SDEKIT_OK && sdk_pf_has(pf, "fpt/survival")) e = survival_panel(p, &fig);
    if (e == SDEKIT_OK && pf->nscan < 2 && split)
      e = sdk_pic_per_name(p, &fig, SDK_PANEL_SCAN, "fpt/split", "fpt/split_err", &bn, "boundary",
                           "splitting prob.", NULL, NULL);
  } else {
    if (split)
      e = sdk_pic_per_name(p, &fig, SDK_PANEL_SCAN, "fpt/split", "fpt/split_err", &bn, "boundary",
                           "splitting prob.", NULL, NULL);
    /* the mean against one axis, or as the map of one boundary */
    if (e == SDEKIT_OK && (pf->nscan == 1 || !split) && sdk_pf_has(pf, "fpt/mean"))
      e = sdk_pic_per_name(p, &fig, SDK_PANEL_SCAN, "fpt/mean", "fpt/mean_err", &bn, "boundary",
                           "mean ", "τ", NULL);
    if (e == SDEKIT_OK && pf->nscan == 1 && sdk_pf_has(pf, "fpt/survival"))
      e = survival_panel(p, &fig);
  }
  if (e == SDEKIT_OK) {
    sdk_label note = {0};
    /* paths not absorbed by t_end: the mean first-passage time is a lower bound */
    int nt = 0;
    int64_t tail[SDEKIT_MAX_RANK];
    double *cens = sdk_pf_has(pf, "fpt/censored")
                       ? sdk_pf_block(pf, "fpt/censored", -1, &nt, tail, p->err)
                       : NULL;
    double total = 0;
    for (int64_t g = 0; cens && g < pf->ngrid; g++)
      total += cens[g];
    free(cens);
    if (total > 0) {
      char buf[64];
      snprintf(buf, sizeof buf, "%.0f paths censored at ", total);
      sdk_lab_text(&note, buf);
      sdk_lab_italic(&note, "t");
      sdk_lab_sub(&note, "end");
    }
    e = sdk_pic_fig_draw(p, &fig, sdk_pic_time_grid(p), &note);
    sdk_lab_free(&note);
  }
  sdk_pic_fig_free(&fig);
  return e;
}
