/* The time-average picture: every tavg/mean_NAME (the ensemble mean of the
 * per-path time averages over [transient, t_end]) with its standard error
 * tavg/err_NAME: without a scan all in one panel, each a named point with
 * its error bar and value; in a scan each in a panel of its own (up to
 * SDK_PIC_MAX_PANELS) against the scanned parameter (one axis) or as a map
 * (two axes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

#define PREFIX "tavg/mean_"

int sdk_pic_has_tavg(const sdk_plotfile *pf) {
  int n = sdekit_result_ndatasets(pf->r);
  for (int i = 0; i < n; i++) {
    const char *name = sdekit_result_dataset_name(pf->r, i);
    if (name && !strncmp(name, PREFIX, strlen(PREFIX)) && name[strlen(PREFIX)]) return 1;
  }
  return 0;
}

sdekit_status sdk_pic_tavg(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  if (p->stat == SDK_PIC_STAT_VARIANCE)
    return sdk_pic_no_variance(p, "tavg", "the mean of the time averages with its standard error");
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdekit_status e = SDEKIT_OK;
  int n = sdekit_result_ndatasets(pf->r);
  for (int i = 0; i < n && e == SDEKIT_OK; i++) {
    const char *path = sdekit_result_dataset_name(pf->r, i);
    if (!path || strncmp(path, PREFIX, strlen(PREFIX)) || !path[strlen(PREFIX)]) continue;
    const char *name = path + strlen(PREFIX);
    if (p->var && strcmp(p->var, name)) continue;
    /* no scan: one panel, a named point per average; else a panel each */
    sdk_pic_panel *pn =
        pf->nscan == 0 && fig.npan ? &fig.pan[0] : sdk_pic_fig_panel(&fig, SDK_PANEL_SCAN);
    if (!pn) break;
    char ep[300];
    snprintf(ep, sizeof ep, "tavg/err_%s", name);
    int nt;
    int64_t tail[SDEKIT_MAX_RANK];
    sdk_pic_line *l;
    e = sdk_pic_add_line(p, &fig, pn, path, ep, &nt, tail, &l);
    if (e == SDEKIT_OK && !l) break; /* SDK_PIC_MAX_LINES averages drawn */
    if (e == SDEKIT_OK && nt != 0)
      e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /%s is not one value per grid point",
                    pf->path, path);
    if (e != SDEKIT_OK) break;
    sdk_lab_text(&l->label, "⟨⟨");
    sdk_lab_sym(&l->label, name);
    sdk_lab_text(&l->label, "⟩⟩");
    sdk_lab_free(&pn->ylab);
    if (pn->nl == 1)
      sdk_lab_cat(&pn->ylab, &l->label);
    else
      sdk_lab_text(&pn->ylab, "time average");
  }
  if (e == SDEKIT_OK && fig.npan == 0)
    e = CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "--var '%s': '%s' has no time average of it",
                  p->var ? p->var : "", pf->path);
  if (e == SDEKIT_OK) {
    sdk_label note = {0};
    double tr;
    sdk_lab_text(&note, "time averages over [");
    /* (NaN: a scanned period, the window's times differ between grid points) */
    if (sdk_pf_object_num(pf, "tavg", "transient", &tr) == 0 && isfinite(tr))
      sdk_lab_num(&note, tr);
    else
      sdk_lab_text(&note, "transient");
    sdk_lab_text(&note, ", ");
    if (sdk_pf_object_num(pf, "tavg", "t_end", &tr) == 0 && isfinite(tr)) {
      sdk_lab_num(&note, tr);
    } else {
      sdk_lab_italic(&note, "t");
      sdk_lab_sub(&note, "end");
    }
    sdk_lab_text(&note, "]");
    e = sdk_pic_fig_draw(p, &fig, 0, &note);
    sdk_lab_free(&note);
  }
  sdk_pic_fig_free(&fig);
  return e;
}
