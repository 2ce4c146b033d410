/* The pictures of `sdekit plot`: one per kind of observable, each in its own
 * file (picture_drift.c, picture_moments.c, ...), found through the table in
 * plot.c.  A picture reads what it needs from the result file
 * (cli/plotfile.h), writes its data as text files for gnuplot and appends
 * its part of the script (cli/gnuplot.h); this header holds the context they
 * share and the pieces several of them use.
 *
 * A new observable's picture is one new file with its two functions below
 * and one line in the table of plot.c. */
#ifndef SDK_CLI_PICTURE_H
#define SDK_CLI_PICTURE_H

#include <stdint.h>
#include <stdio.h>

#include "cli/gnuplot.h"
#include "cli/plotfile.h"
#include "cli/status.h"
#include "core/strbuf.h"

#define SDK_PIC_MAX_CURVES 8   /* more grid points than this: a heat map instead of curves */
#define SDK_PIC_MAX_PANELS 4   /* variables shown one above the other */
#define SDK_PIC_MAX_COLS 600   /* heat-map columns (samples over time) kept */
#define SDK_PIC_MAX_ROWS 600   /* heat-map rows (bins) kept */
#define SDK_PIC_LABEL_CELLS 25 /* drift heat maps this small get the values printed in */

/* One picture being drawn. */
typedef struct sdk_plot {
  const sdk_plotfile *pf;
  const char *dir; /* temporary directory (gnuplot runs there); NULL: data to /dev/null */
  sdk_strbuf gp;   /* the script */
  int ndata;       /* data files written so far */
  int64_t grid;    /* --grid (-1: not given) */
  const char *var; /* --var (NULL: all) */
  sdekit_error *err;
} sdk_plot;

/* A kind of picture: the observable it shows (as --observable names it), a
 * line for `sdekit plot --help`, whether a file holds it, and how to draw it
 * (the script after the preamble; SDEKIT_OK, or the error in p->err).  A picture
 * `on` another is drawn into that one when the file holds both, and alone
 * only when asked for by name (the saved paths on top of the density). */
typedef struct sdk_picture {
  const char *name;
  const char *help;
  int (*present)(const sdk_plotfile *pf);
  sdekit_status (*draw)(sdk_plot *p);
  const char *on;
} sdk_picture;

/* The pictures (picture_*.c). */
int sdk_pic_has_drift(const sdk_plotfile *pf);
sdekit_status sdk_pic_drift(sdk_plot *p);
int sdk_pic_has_moments(const sdk_plotfile *pf);
sdekit_status sdk_pic_moments(sdk_plot *p);
int sdk_pic_has_hist(const sdk_plotfile *pf);
sdekit_status sdk_pic_hist(sdk_plot *p);
int sdk_pic_has_density(const sdk_plotfile *pf);
sdekit_status sdk_pic_density(sdk_plot *p);
int sdk_pic_has_paths(const sdk_plotfile *pf);
sdekit_status sdk_pic_paths(sdk_plot *p);
int sdk_pic_has_order(const sdk_plotfile *pf);
sdekit_status sdk_pic_order(sdk_plot *p);

/* ---- data files (picture.c) ---- */

/* Open a new data file ("d0.dat", "d1.dat", ... in p->dir); name gets its
 * name relative to the directory.  NULL with the error in p->err. */
FILE *sdk_pic_data_open(sdk_plot *p, char name[32]);
/* Close it; SDEKIT_ERR_IO when anything written to it was lost. */
sdekit_status sdk_pic_data_close(sdk_plot *p, FILE *f, const char *name);
/* A number for gnuplot: %.9g, or NaN (the 'missing' value) when not finite. */
void sdk_pic_put_num(FILE *f, double x);
/* lo and hi of the finite values of v[n] (INFINITY, -INFINITY when none). */
void sdk_pic_minmax(const double *v, size_t n, double *lo, double *hi);

/* ---- heat maps (picture.c) ---- */

/* Cell edges e[n + 1] from cell centres c[n]: midpoints (geometric ones on a
 * log axis, lg), the outer edges mirrored.  A single centre gets a width of
 * 10 %. */
void sdk_pic_edges(const double *c, int64_t n, int lg, double *e);
/* Heat-map cells for 'pm3d corners2color c1': column i spans xe[i]..xe[i+1];
 * its rows span ye_i[j]..ye_i[j+1] with ye_i = ye + i * ye_stride (stride 0:
 * the same rows for every column); z[i * ny + j] colours cell (i, j).  Values
 * that are not finite or (with floor > 0) below floor are written as floor. */
void sdk_pic_cells(FILE *f, int64_t nx, const double *xe, int64_t ny, const double *ye,
                   int64_t ye_stride, const double *z, double floor);
/* Columns whose values col[i][j] sit in nb equal bins over lo[i]..hi[i] put
 * onto one grid of equal rows over min lo .. max hi (as fine as the finest
 * column, at most maxrows rows), so that the heat map is one surface without
 * seams.  A row takes the mean of the bins whose centres fall in it or, when
 * it is narrower than the bins, the bin under its centre; outside a column's
 * range the value is 0.  Returns z [nx][*ny] and sets *ye to the *ny + 1 row
 * edges (both malloc'd), or NULL when out of memory. */
double *sdk_pic_regrid(int64_t nx, int64_t nb, const double *lo, const double *hi,
                       const double *const *col, int64_t maxrows, int64_t *ny, double **ye);

/* ---- curves per grid point (picture.c) ---- */

/* The grid points drawn as curves (all, up to SDK_PIC_MAX_CURVES) and, when
 * there are more, the choice of a heat map over one scan axis: hx = that
 * axis, fixed = the grid index along the other axis (two-axis scans: from
 * --grid, else 0). */
typedef struct sdk_curves {
  int64_t n, g[SDK_PIC_MAX_CURVES];
  int heat; /* 1: heat map over axis hx */
  int hx;
  int64_t fixed;
} sdk_curves;
void sdk_pic_curves(const sdk_plot *p, sdk_curves *c);
/* Grid point of the k-th value along the heat axis (the other axis fixed). */
int64_t sdk_pic_heat_grid(const sdk_plotfile *pf, const sdk_curves *c, int64_t k);
/* Title and key (or heat-map settings) of a picture of curves per grid
 * point; returns the right edge of its panels. */
double sdk_pic_curves_begin(sdk_strbuf *b, const sdk_plotfile *pf, const sdk_curves *c,
                            int opaque_key);
/* The variables drawn: --var, or all (up to SDK_PIC_MAX_PANELS); their
 * indices into vi, their number returned. */
int sdk_pic_vars(const sdk_plot *p, int *vi);

/* ---- titles and labels (picture.c) ---- */

/* "set multiplot title" with the model, scheme, paths, dt, precision and,
 * smaller, the parameter values (the scanned ones at grid point g when
 * g >= 0) and `extra` (script text, may be NULL). */
void sdk_pic_multiplot_title(sdk_strbuf *b, const sdk_plotfile *pf, int64_t g, const char *extra);
/* "a = 4.2, b = 1" for grid point g (empty with no scan). */
void sdk_pic_grid_label(sdk_strbuf *b, const sdk_plotfile *pf, int64_t g);
/* The time axis label, quoted: t, or t / T in periods of the driving. */
void sdk_pic_time_label(sdk_strbuf *b, const sdk_plotfile *pf);

/* ---- saved paths (picture.c: the paths picture and the density draw them) ---- */

/* Write the saved paths of variable vn at grid point g into a new data file
 * dn as blocks (one per path) of "t x" lines.  *npaths gets the number of
 * paths, *tlo, *thi the time range, xr[2] (if not NULL) the range of the
 * values. */
sdekit_status sdk_pic_write_paths(sdk_plot *p, const char *vn, int64_t g, char dn[32],
                                  int64_t *npaths, double *tlo, double *thi, double *xr);

#endif
