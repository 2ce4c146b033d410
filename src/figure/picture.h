/* The pictures of `sdekit plot`: one per kind of observable, each in its own
 * file (picture_drift.c, picture_moments.c, ...), found through the table in
 * plot.c.  A picture reads what it needs from the result file
 * (cli/plotfile.h) and decides its figure as a description (cli/figure.h):
 * panels, curves, axes, labels, scales, keys; sdk_pic_emit hands it to the
 * gnuplot renderer (figure_gp.c) or, with --spec, out as JSON.  This header
 * holds the context they share and the pieces several of them use.
 *
 * A new observable's picture is one new file with its two functions below
 * and one line in the table of plot.c. */
#ifndef SDK_CLI_PICTURE_H
#define SDK_CLI_PICTURE_H

#include <stdint.h>
#include <stdio.h>

#include "core/strbuf.h"
#include "figure/figure.h"
#include "figure/plotfile.h"
#include "figure/status.h"

#define SDK_PIC_MAX_CURVES 8   /* more grid points than this: a heat map instead of curves */
#define SDK_PIC_MAX_PANELS 4   /* variables shown one above the other */
#define SDK_PIC_MAX_COLS 600   /* heat-map columns (samples over time) kept */
#define SDK_PIC_MAX_ROWS 600   /* heat-map rows (bins) kept */
#define SDK_PIC_LABEL_CELLS 25 /* drift heat maps this small get the values printed in */

/* One picture being described: the results, the options, the figure. */
typedef struct sdk_plot {
  const sdk_plotfile *pf;
  int64_t grid;     /* --grid (-1: not given) */
  const char *var;  /* --var (NULL: all) */
  int stat;         /* --stat: SDK_PIC_STAT_MEAN or SDK_PIC_STAT_VARIANCE */
  const char *show; /* --show: the dataset drawn by the show picture */
  sdk_figure *spec; /* the figure the picture describes */
  int log;          /* --log: SDK_PIC_LOG_X | SDK_PIC_LOG_Y (0: the figure's choice) */
  sdekit_error *err;
} sdk_plot;

#define SDK_PIC_LOG_X 1
#define SDK_PIC_LOG_Y 2

#define SDK_PIC_STAT_MEAN 0
#define SDK_PIC_STAT_VARIANCE 1

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
  int variance; /* draws a variance with --stat variance */
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
int sdk_pic_has_expr(const sdk_plotfile *pf);
sdekit_status sdk_pic_expr(sdk_plot *p);
int sdk_pic_has_diffusion(const sdk_plotfile *pf);
sdekit_status sdk_pic_diffusion(sdk_plot *p);
int sdk_pic_has_cov(const sdk_plotfile *pf);
sdekit_status sdk_pic_cov(sdk_plot *p);
int sdk_pic_has_fpt(const sdk_plotfile *pf);
sdekit_status sdk_pic_fpt(sdk_plot *p);
int sdk_pic_has_tavg(const sdk_plotfile *pf);
sdekit_status sdk_pic_tavg(sdk_plot *p);
int sdk_pic_has_acf(const sdk_plotfile *pf);
sdekit_status sdk_pic_acf(sdk_plot *p);
int sdk_pic_has_psd(const sdk_plotfile *pf);
sdekit_status sdk_pic_psd(sdk_plot *p);
int sdk_pic_has_events(const sdk_plotfile *pf);
sdekit_status sdk_pic_events(sdk_plot *p);
/* --show NAME: any dataset by its shape (picture_show.c); the name must be
 * a dataset of the file (sdk_pic_show_check says which there are). */
sdekit_status sdk_pic_show_check(const sdk_plotfile *pf, const char *name, sdekit_error *err);
sdekit_status sdk_pic_show(sdk_plot *p);
/* --stat variance asked of a picture that has none: the error naming what
 * it has (`has`, e.g. "the mean with its standard error"). */
sdekit_status sdk_pic_no_variance(sdk_plot *p, const char *picture, const char *has);

/* ---- values (picture.c) ---- */

/* lo and hi of the finite values of v[n] (INFINITY, -INFINITY when none). */
void sdk_pic_minmax(const double *v, size_t n, double *lo, double *hi);

/* ---- heat maps (picture.c) ---- */

/* Cell edges e[n + 1] from cell centres c[n]: midpoints (geometric ones on a
 * log axis, lg), the outer edges mirrored.  A single centre gets a width of
 * 10 %. */
void sdk_pic_edges(const double *c, int64_t n, int lg, double *e);
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
/* A new figure of curves per grid point (c), its title made: the fixed axis
 * of a heat map over one axis of a two-axis scan in the subtitle. */
void sdk_pic_curves_figure(sdk_figure *f, const sdk_plotfile *pf, const sdk_curves *c);
/* The variables drawn: --var, or all (up to SDK_PIC_MAX_PANELS); their
 * indices into vi, their number returned. */
int sdk_pic_vars(const sdk_plot *p, int *vi);

/* ---- titles and labels (picture.c) ---- */

/* "a = 4.2, b = 1" for grid point g (empty with no scan). */
void sdk_pic_grid_lab(sdk_label *l, const sdk_plotfile *pf, int64_t g);
/* The title of a figure: "model, scheme, N paths, dt = ..., precision"
 * (dt-max = ... for an --adaptive run) and
 * the subtitle: the parameter values (the scanned ones at grid point g when
 * g >= 0) and `note` (may be NULL), after "; ". */
void sdk_pic_title(sdk_label *title, sdk_label *sub, const sdk_plotfile *pf, int64_t g,
                   const sdk_label *note);
/* The time axis label: time t, or t / T in periods of the driving. */
void sdk_pic_time_lab(sdk_label *l, const sdk_plotfile *pf);

/* ---- figures of panels of lines (picture_panels.c) ----
 *
 * Most pictures of named quantities are built from panels stacked one above
 * the other, each with up to SDK_PIC_MAX_LINES lines of one kind:
 *   SDK_PANEL_TIME  values over time at one grid point, each line with a band
 *                   of +- its standard error where it has one;
 *   SDK_PANEL_SCAN  one value per grid point against the scan: with error
 *                   bars at each labelled x position (no scan), against the
 *                   scanned parameter (one axis), or as a map over both axes
 *                   (two axes: one map panel per line);
 *   SDK_PANEL_HIST  counts per bin at one grid point (boxes), one colour per
 *                   line.
 * Line values are read through strides, so that a picture points into the
 * datasets as read: element (g, s) of a line (grid point g, sample or bin s)
 * is v[g * gstride + off + s * sstride], its error the same in e. */
#define SDK_PIC_MAX_LINES 8
enum { SDK_PANEL_TIME, SDK_PANEL_SCAN, SDK_PANEL_HIST };

typedef struct sdk_pic_line {
  sdk_label label;
  const double *v, *e; /* e: NULL for no error */
  int64_t gstride, sstride, off;
  int own_times; /* TIME: its times are those of grid point xg, not the panel's */
  int64_t xg;
} sdk_pic_line;

typedef struct sdk_pic_panel {
  int kind;
  /* TIME: the sample times ([grid][nx], or [nx] when xshared); HIST: the
   * bin edges ([grid][nx + 1], or [nx + 1] when xshared) */
  const double *x;
  int xshared;
  int64_t nx;
  int nl;
  sdk_pic_line l[SDK_PIC_MAX_LINES];
  sdk_label xlab, ylab; /* an empty xlab: time or the scan axis */
  const char *band;     /* key title of the band of a single line (NULL: none) */
  int logy;             /* positive values that may span decades: a log y axis when they do */
  int logx;             /* a log x axis (positive x: spectra) */
} sdk_pic_panel;

typedef struct sdk_pic_fig {
  sdk_pic_panel pan[SDK_PIC_MAX_PANELS];
  int npan;
  double *hold[64]; /* the datasets read (sdk_pic_fig_read) */
  int per_grid;     /* the lines are the grid points: the title names none */
  int last_sample;  /* values at the last sample against the scan */
  int nhold;
} sdk_pic_fig;

/* Over time (no scan, or --grid given) rather than against the scan. */
int sdk_pic_over_time(const sdk_plot *p);
/* The grid point of pictures over time: --grid, else 0. */
int64_t sdk_pic_time_grid(const sdk_plot *p);
/* The next panel of kind (NULL when there are SDK_PIC_MAX_PANELS already). */
sdk_pic_panel *sdk_pic_fig_panel(sdk_pic_fig *f, int kind);
/* The next line of a panel (NULL when it has SDK_PIC_MAX_LINES). */
sdk_pic_line *sdk_pic_panel_line(sdk_pic_panel *pn);
/* A dataset [grid..., tail...] as doubles, held by the figure (freed with
 * it); *ntail as for sdk_pf_block.  NULL with the error in p->err. */
double *sdk_pic_fig_read(sdk_plot *p, sdk_pic_fig *f, const char *path, int *ntail, int64_t *tail);
/* A list of numbers (sdk_pf_1d), held by the figure. */
double *sdk_pic_fig_1d(sdk_plot *p, sdk_pic_fig *f, const char *path, int64_t *n);
/* x (malloc'd; NULL: out of memory, recorded) held by the figure. */
double *sdk_pic_fig_hold(sdk_plot *p, sdk_pic_fig *f, double *x);
/* Sample times: path is [grid..., ns] (*shared = 0) or [ns] (*shared = 1). */
double *sdk_pic_fig_times(sdk_plot *p, sdk_pic_fig *f, const char *path, int *shared, int64_t *ns);
/* The figure's description (title, panels; TIME and HIST panels at grid
 * point g, named in the title in a scan) into *out; `note` (or NULL) goes
 * into the subtitle. */
sdekit_status sdk_pic_fig_describe(sdk_plot *p, const sdk_pic_fig *f, int64_t g,
                                   const sdk_label *note, sdk_figure *out);
/* Describe the figure into p->spec. */
sdekit_status sdk_pic_fig_draw(sdk_plot *p, sdk_pic_fig *f, int64_t g, const sdk_label *note);
/* Keys outside the plot areas, right of each panel at its top (the right
 * column of panels makes room), a key the panel above has already shown
 * once; maps have none. */
void sdk_pic_place_keys(sdk_figure *f);
/* Tick spacing: 1, 2 or 5 times a power of ten, about `want` ticks over
 * lo..hi (0: none fits); over the values (+- errors, from 0 when filled) or
 * the x values of a panel. */
double sdk_pic_nice_step(double lo, double hi, int want);
double sdk_pic_ystep(const sdk_fig_panel *pn, int want);
/* The scales of panel o (its curves made) and its y ticks (about `want`):
 * --log's, else log x where `logx` (a frequency), log y where `logy` (a
 * quantity that may span decades) and the values do; a panel over `time`
 * sampled at log-spaced times gets a log time axis; over a log x axis a
 * positive quantity that spans decades gets log y. */
void sdk_pic_scales(const sdk_plot *p, sdk_fig_panel *o, int logx, int logy, int time, int want);
double sdk_pic_xstep(const sdk_fig_panel *pn, int want);
/* A figure described: moved into *p->spec (f is emptied). */
sdekit_status sdk_pic_emit(sdk_plot *p, sdk_figure *f);
/* The saved paths of variable vn at grid point g as the curves of panel o
 * (up to SDK_FIG_MAX_SERIES, named in a key when there are at most 10), its
 * x range the time range, its y label vn; *npaths: how many there are
 * (picture_paths.c). */
sdekit_status sdk_pic_paths_panel(sdk_plot *p, sdk_figure *fig, sdk_fig_panel *o, const char *vn,
                                  int64_t g, int64_t *npaths);
/* "saved sample paths", or "the first 16 of 40 ..." when not all are drawn. */
void sdk_pic_paths_note(sdk_label *l, int64_t npaths);
/* A phase (a y range of 2 pi from 0 or -pi): y ticks in units of pi
 * (nothing for another range). */
void sdk_pic_phase_tics(sdk_fig_panel *o, double ylo, double yhi);
void sdk_pic_fig_free(sdk_pic_fig *f);
/* A new line of pn from the dataset vpath [grid..., tail...] and its errors
 * epath (NULL, or absent: none; else of the same shape), both read whole:
 * gstride is the tail's size, sstride 1, off 0 (the caller picks the part
 * drawn).  *ntail, tail[] get the tail's rank and dimensions; *out is NULL
 * (and SDEKIT_OK) when the panel has SDK_PIC_MAX_LINES already. */
sdekit_status sdk_pic_add_line(sdk_plot *p, sdk_pic_fig *f, sdk_pic_panel *pn, const char *vpath,
                               const char *epath, int *ntail, int64_t *tail, sdk_pic_line **out);

/* The names of a comma-separated string attribute of a group (fpt's
 * boundaries, events' events) as line labels: name k, or "WHAT k". */
typedef struct sdk_pic_names {
  char buf[1024];
  const char *name[SDK_PIC_MAX_LINES];
} sdk_pic_names;
void sdk_pic_read_names(const sdk_plotfile *pf, const char *group, const char *attr,
                        sdk_pic_names *nm);
void sdk_pic_name_label(sdk_label *out, const sdk_pic_names *nm, int k, const char *what);
/* A panel of kind with a line per named item (fpt's boundaries, events'
 * events) from vpath [grid..., items] with errors epath: line k is item k,
 * labelled by nm (or "WHAT k"); the y label is ylab, then ysym in italics
 * (NULL: none).  *n gets the number of items (NULL: not wanted). */
sdekit_status sdk_pic_per_name(sdk_plot *p, sdk_pic_fig *fig, int kind, const char *vpath,
                               const char *epath, const sdk_pic_names *nm, const char *what,
                               const char *ylab, const char *ysym, int64_t *n);

#endif
