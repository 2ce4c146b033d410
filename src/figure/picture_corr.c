/* The pictures of time correlations and spectra (observe/obs_acf.c,
 * obs_psd.c), at one grid point (--grid, else 0), one line per variable with
 * its band of +- the standard error:
 *   acf  the autocovariance acf/cov_X against the lag acf/lag (in periods of
 *        the driving where the time axis is);
 *   psd  the spectrum psd/S_X against the frequency psd/f on log-log axes
 *        (the bin f = 0 left out; in cycles per period of the driving where
 *        the time axis is in periods). */
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

static int has(const sdk_plotfile *pf, const char *prefix) {
  int n = sdekit_result_ndatasets(pf->r);
  for (int i = 0; i < n; i++) {
    const char *name = sdekit_result_dataset_name(pf->r, i);
    if (name && !strncmp(name, prefix, strlen(prefix)) && name[strlen(prefix)]) return 1;
  }
  return 0;
}

int sdk_pic_has_acf(const sdk_plotfile *pf) {
  return has(pf, "acf/cov_");
}

int sdk_pic_has_psd(const sdk_plotfile *pf) {
  return has(pf, "psd/S_");
}

/* one panel of group's Y_NAME lines against X; psd: log-log, bin 0 left out */
static sdekit_status corr(sdk_plot *p, const char *group, const char *x, const char *y, int psd) {
  const sdk_plotfile *pf = p->pf;
  if (p->stat == SDK_PIC_STAT_VARIANCE)
    return sdk_pic_no_variance(p, group, "the estimate with its standard error");
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdk_pic_panel *pn = sdk_pic_fig_panel(&fig, SDK_PANEL_TIME);
  char xp[64], pre[64];
  snprintf(xp, sizeof xp, "%s/%s", group, x);
  snprintf(pre, sizeof pre, "%s/%s_", group, y);
  int nt = 1; /* [grid..., K]: one dimension after the scan's */
  int64_t tail[SDEKIT_MAX_RANK];
  double *xv = sdk_pic_fig_read(p, &fig, xp, &nt, tail);
  sdekit_status e = xv ? SDEKIT_OK : p->err->status;
  if (e == SDEKIT_OK && nt != 1)
    e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s is not one list per grid point", pf->path,
                  xp);
  int64_t nk = e == SDEKIT_OK ? tail[0] : 0, skip = psd ? 1 : 0, ng = pf->ngrid > 0 ? pf->ngrid : 1;
  if (e == SDEKIT_OK && nk <= skip)
    e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s is empty", pf->path, xp);
  double *xs = NULL;
  if (e == SDEKIT_OK) {
    /* the time axis multiplies by tscale: a frequency goes the other way */
    double sc = psd && pf->tscale > 0 ? 1 / (pf->tscale * pf->tscale) : 1;
    xs = sdk_pic_fig_hold(p, &fig, malloc((size_t)(ng * (nk - skip)) * sizeof *xs));
    for (int64_t g = 0; xs && g < ng; g++)
      for (int64_t k = skip; k < nk; k++)
        xs[g * (nk - skip) + k - skip] = xv[g * nk + k] * sc;
    if (!xs) e = p->err->status;
  }
  if (e == SDEKIT_OK) {
    pn->x = xs, pn->xshared = 0, pn->nx = nk - skip;
    sdk_lab_text(&pn->xlab, psd ? "frequency " : "lag ");
    sdk_lab_italic(&pn->xlab, psd ? "f" : "s");
    if (pf->in_periods) sdk_lab_text(&pn->xlab, psd ? " T" : " / T");
    sdk_lab_text(&pn->ylab, psd ? "power spectral density" : "autocovariance");
    pn->logy = psd;
    pn->logx = psd;
  }
  int n = sdekit_result_ndatasets(pf->r);
  for (int i = 0; i < n && e == SDEKIT_OK; i++) {
    const char *path = sdekit_result_dataset_name(pf->r, i);
    if (!path || strncmp(path, pre, strlen(pre)) || !path[strlen(pre)]) continue;
    const char *name = path + strlen(pre);
    if (p->var && strcmp(p->var, name)) continue;
    char ep[300];
    snprintf(ep, sizeof ep, "%s/err_%s", group, name);
    sdk_pic_line *l;
    nt = 1;
    e = sdk_pic_add_line(p, &fig, pn, path, ep, &nt, tail, &l);
    if (e != SDEKIT_OK || !l) break;
    if (nt != 1 || tail[0] != nk)
      e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s is not shaped as /%s", pf->path, path,
                    xp);
    l->off = skip;
    sdk_lab_sym(&l->label, name);
  }
  if (e == SDEKIT_OK && pn->nl == 0)
    e = CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "--var '%s': '%s' has no %s of it",
                  p->var ? p->var : "", pf->path, group);
  if (e == SDEKIT_OK) e = sdk_pic_fig_draw(p, &fig, sdk_pic_time_grid(p), NULL);
  sdk_pic_fig_free(&fig);
  return e;
}

sdekit_status sdk_pic_acf(sdk_plot *p) {
  return corr(p, "acf", "lag", "cov", 0);
}

sdekit_status sdk_pic_psd(sdk_plot *p) {
  return corr(p, "psd", "f", "S", 1);
}
