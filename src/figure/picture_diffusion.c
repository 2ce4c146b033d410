/* The diffusion picture (--observe diffusion): D_eff(t) with a band of +-
 * one standard error (no scan, or at the grid point of --grid); in a scan,
 * the long-time value (the last sample) against the scanned parameter with
 * error bars (one axis) or as a map (two axes). */
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_diffusion(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "diffusion/D");
}

sdekit_status sdk_pic_diffusion(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  if (p->stat == SDK_PIC_STAT_VARIANCE)
    return sdk_pic_no_variance(p, "diffusion", "D_eff = variance / 2t with its standard error");
  char var[256] = "";
  sdk_pf_group_str(pf, "diffusion", "var", var, sizeof var);
  int over = sdk_pic_over_time(p), nt, shared = 0;
  int64_t tail[SDEKIT_MAX_RANK], ns = 0;
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdekit_status e = SDEKIT_OK;
  sdk_pic_panel *pn = sdk_pic_fig_panel(&fig, over ? SDK_PANEL_TIME : SDK_PANEL_SCAN);
  sdk_pic_line *l = NULL;
  if (over) {
    pn->x = sdk_pic_fig_times(p, &fig, "diffusion/t", &shared, &ns);
    if (!pn->x) e = SDEKIT_ERR_FORMAT;
    if (e == SDEKIT_OK)
      e = sdk_pic_add_line(p, &fig, pn, "diffusion/D", "diffusion/D_err", &nt, tail, &l);
    if (e == SDEKIT_OK && (nt != 1 || tail[0] != ns))
      e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                    "'%s': /diffusion/D and /diffusion/t differ in length", pf->path);
    pn->xshared = shared;
    pn->nx = ns;
    pn->band = "± standard error";
  } else {
    e = sdk_pic_add_line(p, &fig, pn, "diffusion/value", "diffusion/error", &nt, tail, &l);
    if (e == SDEKIT_OK && nt != 0)
      e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /diffusion/value has an unexpected shape",
                    pf->path);
  }
  if (e == SDEKIT_OK) {
    sdk_label note = {0};
    sdk_lab_italic(&pn->ylab, "D");
    sdk_lab_sub(&pn->ylab, "eff");
    if (var[0]) {
      sdk_lab_text(&pn->ylab, " of ");
      sdk_lab_sym(&pn->ylab, var);
    }
    sdk_lab_cat(&l->label, &pn->ylab);
    if (!over) sdk_lab_text(&note, "long-time values (the last sample)");
    e = sdk_pic_fig_draw(p, &fig, sdk_pic_time_grid(p), &note);
    sdk_lab_free(&note);
  }
  sdk_pic_fig_free(&fig);
  return e;
}
