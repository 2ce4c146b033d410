/* The gnuplot renderer of figure descriptions (cli/figure.h): the script
 * into p->gp, each panel's data into a file of its own.  It decides nothing
 * about the figure: every label, range, scale, tick spacing and position
 * comes from the description; this file only says them in gnuplot's terms
 * (text through sdk_gp_label alone). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render.h"

/* ---------------- data files ---------------- */

FILE *sdk_pic_data_open(sdk_gp_out *p, char name[32]) {
  snprintf(name, 32, "d%d.dat", p->ndata++);
  char path[PATH_MAX];
  /* no directory: only the script is wanted (sdk_plot_inspect) */
  snprintf(path, sizeof path, "%s/%s", p->dir ? p->dir : "/dev", p->dir ? name : "null");
  FILE *f = fopen(path, "w");
  if (!f) CLI_RAISE(p->err, SDEKIT_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return f;
}

sdekit_status sdk_pic_data_close(sdk_gp_out *p, FILE *f, const char *name) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad)
    return CLI_RAISE(p->err, SDEKIT_ERR_IO, "cannot write the temporary data file %s in %s", name,
                     p->dir);
  return SDEKIT_OK;
}

void sdk_pic_put_num(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.9g", x);
  else
    fputs("NaN", f);
}

void sdk_pic_cells(FILE *f, int64_t nx, const double *xe, int64_t ny, const double *ye,
                   int64_t ye_stride, const double *z, double floor) {
  /* the same rows in every column: one surface (no seams between columns) */
  int same = 1;
  for (int64_t i = 1; ye_stride && same && i < nx; i++)
    same = memcmp(ye, ye + i * ye_stride, (size_t)(ny + 1) * sizeof *ye) == 0;
  if (same) ye_stride = 0;
  if (ye_stride == 0) {
    /* one grid of corners; corner (i, j) carries cell (i, j), the last row
     * and column only close the cells before them */
    for (int64_t i = 0; i <= nx; i++) {
      int64_t ci = i < nx ? i : nx - 1;
      for (int64_t j = 0; j <= ny; j++) {
        int64_t cj = j < ny ? j : ny - 1;
        double v = z[ci * ny + cj];
        if (floor > 0 && !(v >= floor)) v = floor;
        sdk_pic_put_num(f, xe[i]);
        fputc(' ', f);
        sdk_pic_put_num(f, ye[j]);
        fputc(' ', f);
        sdk_pic_put_num(f, v);
        fputc('\n', f);
      }
      fputc('\n', f);
    }
    return;
  }
  /* rows differ between columns: every column its own two-scan surface,
   * reaching a little into the next one so that no seam shows */
  for (int64_t i = 0; i < nx; i++) {
    const double *y = ye + i * ye_stride;
    for (int s = 0; s < 2; s++) {
      double x = xe[i + s];
      if (s == 1 && i + 1 < nx) x += 0.01 * (xe[i + 2] - xe[i + 1]);
      for (int64_t j = 0; j <= ny; j++) {
        double v = z[i * ny + (j < ny ? j : ny - 1)];
        if (floor > 0 && !(v >= floor)) v = floor;
        sdk_pic_put_num(f, x);
        fputc(' ', f);
        sdk_pic_put_num(f, y[j]);
        fputc(' ', f);
        sdk_pic_put_num(f, v);
        fputc('\n', f);
      }
      fputc('\n', f);
    }
    fputc('\n', f);
  }
}

/* ---------------- the script ---------------- */

/* Settings every panel starts from (a map panel before may have changed them). */
static void panel_reset(sdk_strbuf *b) {
  sdk_sb_puts(b, "unset logscale\nset autoscale\nset xtics autofreq\nunset label\n"
                 "set offsets 0, 0, 0, 0\nset format x '%g'\nset format y '%g'\n"
                 "set grid lc rgb '#d8d8d8' lw 0.7\nunset colorbox\nset xzeroaxis lt -1 lw 0.5\n"
                 "set format cb '%g'\n");
}

/* A quoted label, '' when empty. */
static void quoted(sdk_strbuf *b, const sdk_label *l) {
  if (sdk_lab_empty(l)) {
    sdk_sb_puts(b, "''");
    return;
  }
  sdk_sb_puts(b, "\"");
  sdk_gp_label(b, l);
  sdk_sb_puts(b, "\"");
}

static void put_title(sdk_strbuf *b, const sdk_figure *f) {
  sdk_sb_puts(b, "set multiplot title \"");
  sdk_gp_label(b, &f->title);
  if (!sdk_lab_empty(&f->subtitle)) {
    sdk_sb_puts(b, "\\n{/*0.8 ");
    sdk_gp_label(b, &f->subtitle);
    sdk_sb_puts(b, "}");
  }
  sdk_sb_puts(b, "\" font ',15'\n");
}

/* y ticks named (a phase in units of pi). */
static void named_ytics(sdk_strbuf *b, const sdk_fig_panel *pn) {
  sdk_sb_puts(b, "set ytics (");
  for (int k = 0; k < pn->nyt; k++) {
    sdk_sb_puts(b, k ? ", \"" : "\"");
    sdk_gp_label(b, &pn->ytl[k]);
    sdk_sb_printf(b, "\" %.17g", pn->ytv[k]);
  }
  sdk_sb_puts(b, ")\nset mytics 2\n");
}

static void put_axes(sdk_strbuf *b, const sdk_fig_panel *pn) {
  sdk_gp_margins(b, pn->left, pn->right, pn->bottom, pn->top);
  sdk_sb_puts(b, "set xlabel ");
  if (!pn->xtics)
    sdk_sb_puts(b, "''\nset format x ''\n");
  else {
    quoted(b, &pn->xlabel);
    sdk_sb_puts(b, "\n");
  }
  if (pn->kind != SDK_FIG_MAP) {
    sdk_sb_puts(b, "set ylabel \"");
    sdk_gp_label(b, &pn->ylabel);
    sdk_sb_puts(b, "\"\n");
  }
  if (pn->key)
    sdk_sb_printf(b,
                  "set key at screen %.4f, screen %.4f left top vertical Left reverse font ',11' "
                  "spacing 1.05 samplen 2\n",
                  pn->keyx, pn->keyy);
  else
    sdk_sb_puts(b, "unset key\n");
  if (pn->kind == SDK_FIG_MAP) return;
  if (pn->kind != SDK_FIG_POINTS && pn->xlog) sdk_sb_puts(b, "set logscale x\n");
  if (pn->ylog) sdk_sb_puts(b, "set logscale y\nset format y '10^{%L}'\n");
  if (pn->xstep > 0 && !pn->xlog) sdk_sb_printf(b, "set xtics %.9g\n", pn->xstep);
  if (pn->xset) sdk_sb_printf(b, "set xrange [%.9g:%.9g]\n", pn->xlo, pn->xhi);
  if (pn->yset) sdk_sb_printf(b, "set yrange [%.9g:%.9g]\n", pn->ylo, pn->yhi);
  if (pn->nyt > 0)
    named_ytics(b, pn);
  else if (pn->ystep > 0)
    sdk_sb_printf(b, "set ytics %.9g\n", pn->ystep);
  else
    sdk_sb_puts(b, "set ytics autofreq\n");
}

static void put_row(FILE *f, const double *v, int n) {
  for (int i = 0; i < n; i++) {
    if (i) fputc(' ', f);
    sdk_pic_put_num(f, v[i]);
  }
  fputc('\n', f);
}

/* Curves with bands: per series a block "x y lo hi". */
static void lines(sdk_strbuf *b, const sdk_fig_panel *pn, FILE *f, const char *dn) {
  sdk_sb_puts(b, "plot ");
  for (int q = 0; q < pn->nseries; q++) {
    const sdk_fig_series *s = &pn->s[q];
    for (int64_t k = 0; k < s->n; k++) {
      if (!isfinite(s->x[k])) { /* a gap in the curve */
        fputc('\n', f);
        continue;
      }
      double row[6] = {s->x[k],
                       s->y[k],
                       s->lo ? s->lo[k] : s->y[k],
                       s->hi ? s->hi[k] : s->y[k],
                       s->lo2 ? s->lo2[k] : s->y[k],
                       s->hi2 ? s->hi2[k] : s->y[k]};
      put_row(f, row, s->lo2 ? 6 : 4);
    }
    fputs("\n\n", f);
    const char *col = sdk_gp_color(s->color);
    if (q) sdk_sb_puts(b, ", ");
    if (s->fill)
      sdk_sb_printf(b,
                    "'%s' index %d using 1:2 with boxes fs transparent solid 0.22 noborder lc "
                    "rgb '%s', ",
                    dn, q, col);
    for (int k = 0; k < 2; k++) {
      if (!(k ? s->lo2 : s->lo)) continue;
      sdk_sb_printf(b,
                    "'%s' index %d using 1:%d:%d with filledcurves fs transparent solid %.2f "
                    "noborder lc rgb '%s'",
                    dn, q, k ? 5 : 3, k ? 6 : 4, k ? pn->band2_alpha : pn->band_alpha, col);
      const sdk_label *bt = k ? &pn->band2 : &pn->band;
      if (!sdk_lab_empty(bt) && pn->nseries == 1) {
        sdk_sb_puts(b, " title \"");
        sdk_gp_label(b, bt);
        sdk_sb_puts(b, "\"");
      }
      sdk_sb_puts(b, ", ");
    }
    sdk_sb_printf(b, "'%s' index %d using 1:2 with %s lw %s lc rgb '%s' title \"", dn, q,
                  s->steps ? "histeps" : "lines", s->thin ? "1.2" : "1.5", col);
    sdk_gp_label(b, &s->title);
    sdk_sb_puts(b, "\"");
  }
  sdk_sb_puts(b, "\n");
}

/* Bars: per series a block "centre count width". */
static void boxes(sdk_strbuf *b, const sdk_fig_panel *pn, FILE *f, const char *dn) {
  sdk_sb_puts(b, "plot ");
  for (int q = 0; q < pn->nseries; q++) {
    const sdk_fig_series *s = &pn->s[q];
    for (int64_t k = 0; k < s->n; k++) {
      double row[3] = {s->x[k], s->y[k], s->w[k]};
      put_row(f, row, 3);
    }
    fputs("\n\n", f);
    sdk_sb_printf(b,
                  "%s'%s' index %d using 1:2:3 with boxes fs transparent solid 0.35 border lc "
                  "rgb '%s' title \"",
                  q ? ", " : "", dn, q, sdk_gp_color(s->color));
    sdk_gp_label(b, &s->title);
    sdk_sb_puts(b, "\"");
  }
  sdk_sb_puts(b, "\n");
}

/* Points with error bars: per series a block "x y err". */
static void points(sdk_strbuf *b, const sdk_fig_panel *pn, FILE *f, const char *dn) {
  if (pn->ncat > 0) {
    sdk_sb_printf(b, "set xrange [0.5:%d.5]\nset xtics (", pn->ncat);
    for (int q = 0; q < pn->ncat; q++) {
      sdk_sb_puts(b, q ? ", \"" : "\"");
      sdk_gp_label(b, &pn->cat[q]);
      sdk_sb_printf(b, "\" %d", q + 1);
    }
    sdk_sb_puts(b, ")\nset offsets 0, 0, graph 0.45, graph 0.25\n");
    for (int q = 0; q < pn->nnote; q++) {
      /* numbered by their x, the category's position */
      sdk_sb_printf(b, "set label %d \"", (int)pn->note[q].x);
      sdk_gp_label(b, &pn->note[q].text);
      sdk_sb_printf(b, "\" at first %d, first %.9g center offset 0, 1.6 font ',12'\n",
                    (int)pn->note[q].x, pn->note[q].y);
    }
  }
  if (pn->xlog) sdk_sb_puts(b, "set logscale x\n");
  if (pn->small_bars) sdk_sb_puts(b, "set bars small\n");
  if (pn->xfit)
    sdk_sb_puts(b,
                "set autoscale xfix\nset offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
  sdk_sb_puts(b, "plot ");
  for (int q = 0; q < pn->nseries; q++) {
    const sdk_fig_series *s = &pn->s[q];
    for (int64_t k = 0; k < s->n; k++) {
      double row[3] = {s->x[k], s->y[k], s->err[k]};
      put_row(f, row, 3);
    }
    fputs("\n\n", f);
    const char *col = sdk_gp_color(s->color);
    sdk_sb_printf(b, "%s'%s' index %d using 1:2:3 with yerrorbars pt 7 ps %g lc rgb '%s' title \"",
                  q ? ", " : "", dn, q, pn->psize, col);
    sdk_gp_label(b, &s->title);
    sdk_sb_puts(b, "\"");
    if (pn->joined) sdk_sb_printf(b, ", '' index %d using 1:2 with lines lw 1 lc rgb '%s'", q, col);
  }
  sdk_sb_puts(b, "\n");
}

/* A heat map: the cells into the data file, the notes into the cells. */
static void map(sdk_strbuf *b, const sdk_fig_panel *pn, FILE *f, const char *dn) {
  for (int k = 0; k < pn->nnote; k++) {
    const sdk_fig_note *nt = &pn->note[k];
    sdk_sb_printf(b, "set label %d \"", k + 1);
    sdk_gp_label(b, &nt->text);
    if (!sdk_lab_empty(&nt->text2)) {
      sdk_sb_puts(b, "\\n");
      sdk_gp_label(b, &nt->text2);
    }
    sdk_sb_printf(b, "\" at first %.9g, first %.9g, first 0 center front font ',13' tc rgb '%s'\n",
                  nt->x, nt->y, nt->white ? "#ffffff" : "#000000");
  }
  sdk_pic_cells(f, pn->nx, pn->xe, pn->ny, pn->ye, pn->ye_stride, pn->z, pn->zfloor);
  fputs("\n\n", f);
  sdk_gp_heatmap(b);
  sdk_sb_puts(b, "unset xzeroaxis\n");
  sdk_sb_puts(b, "set cbrange [*:*]\n");
  if (pn->cblog) sdk_sb_puts(b, "set logscale cb\nset format cb '10^{%L}'\nunset mcbtics\n");
  if (pn->palette == SDK_PAL_DENSITY) {
    sdk_gp_palette(b, SDK_PAL_DENSITY);
    if (pn->cbset) sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", pn->cblo, pn->cbhi);
  } else {
    sdk_gp_cbrange_set(b, pn->palette, pn->cbset, pn->cblo, pn->cbhi);
  }
  sdk_sb_puts(b, "set ylabel \"");
  sdk_gp_label(b, &pn->ylabel);
  sdk_sb_puts(b, "\"\nset cblabel \"");
  sdk_gp_label(b, &pn->cblabel);
  sdk_sb_puts(b, "\"\n");
  if (pn->xlog) sdk_sb_puts(b, "set logscale x\n");
  if (pn->ylog) sdk_sb_puts(b, "set logscale y\n");
  sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", pn->xe[0], pn->xe[pn->nx],
                pn->yset ? pn->ylo : pn->ye[0], pn->yset ? pn->yhi : pn->ye[pn->ny]);
  if (pn->nyt > 0) named_ytics(b, pn);
  sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d\nset yrange [*:*]\n", dn);
}

sdekit_status sdk_pic_render(sdk_gp_out *p, const sdk_figure *fig) {
  sdk_strbuf *b = &p->gp;
  put_title(b, fig);
  char dn[32];
  FILE *f = sdk_pic_data_open(p, dn);
  if (!f) return SDEKIT_ERR_IO;
  for (int k = 0; k < fig->npanels; k++) {
    const sdk_fig_panel *pn = &fig->p[k];
    /* every panel reads its own data file: the indices count from 0 */
    if (k > 0) {
      sdekit_status e = sdk_pic_data_close(p, f, dn);
      f = e == SDEKIT_OK ? sdk_pic_data_open(p, dn) : NULL;
      if (!f) return e == SDEKIT_OK ? SDEKIT_ERR_IO : e;
    }
    panel_reset(b);
    put_axes(b, pn);
    if (pn->kind == SDK_FIG_MAP)
      map(b, pn, f, dn);
    else if (pn->kind == SDK_FIG_LINES)
      lines(b, pn, f, dn);
    else if (pn->kind == SDK_FIG_BOXES)
      boxes(b, pn, f, dn);
    else
      points(b, pn, f, dn);
  }
  sdk_sb_puts(b, "unset multiplot\n");
  return sdk_pic_data_close(p, f, dn);
}
