/* The drift picture: the drift <<v>> against the scanned parameter.  No
 * scan: the one value with its error bar (and written out); one scan axis: a
 * curve with error bars; two axes: a heat map, with the values printed in
 * the cells of small grids.  A figure of one panel of the scan
 * (picture_panels.c), like the other values per grid point. */
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_drift(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "drift/value");
}

sdekit_status sdk_pic_drift(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  char var[256] = "";
  sdk_pf_group_str(pf, "drift", "var", var, sizeof var);
  if (!var[0]) snprintf(var, sizeof var, "%s", pf->nvars > 0 ? pf->vars[0] : "x");
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdk_pic_panel *pn = sdk_pic_fig_panel(&fig, SDK_PANEL_SCAN);
  int nt;
  int64_t tail[SDEKIT_MAX_RANK];
  sdk_pic_line *l;
  sdekit_status e = sdk_pic_add_line(p, &fig, pn, "drift/value", "drift/error", &nt, tail, &l);
  if (e == SDEKIT_OK && nt != 0)
    e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /drift/value is not one value per grid point",
                  pf->path);
  if (e == SDEKIT_OK) {
    /* <<v_x>>: the drift velocity of x */
    sdk_lab_text(&pn->ylab, "⟨⟨");
    sdk_lab_italic(&pn->ylab, "v");
    sdk_lab_sym_as(&pn->ylab, var, SDK_LAB_SUB);
    sdk_lab_text(&pn->ylab, "⟩⟩");
    sdk_lab_cat(&l->label, &pn->ylab);
    e = sdk_pic_fig_draw(p, &fig, 0, NULL);
  }
  sdk_pic_fig_free(&fig);
  return e;
}
