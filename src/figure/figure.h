/* The figure description of `sdekit plot` (issue 29, "pictures decided
 * once"): everything a picture decides (panels and where they sit, curves,
 * axes, labels, scales, error bands, titles, colours) as data, with the
 * numbers drawn.  The pictures build it (picture_panels.c), renderers only
 * draw it: gnuplot from this structure (figure_gp.c), anything else from its
 * JSON (`sdekit plot --spec FILE.h5`, sdk_fig_json).
 *
 * Labels are runs of plain UTF-8 text with a style each (text, italic,
 * subscript), never markup of a renderer: a string from a result file goes
 * into a run as it is, and each renderer escapes it for its own language
 * (gnuplot: sdk_gp_text only; JSON: sdk_fig_json's string writer). */
#ifndef SDK_CLI_FIGURE_H
#define SDK_CLI_FIGURE_H

#include <stdint.h>

#include "core/strbuf.h"

/* ---- labels ---- */

/* styles: flags (an italic subscript is SDK_LAB_ITALIC | SDK_LAB_SUB) */
enum { SDK_LAB_TEXT = 0, SDK_LAB_ITALIC = 1, SDK_LAB_SUB = 2, SDK_LAB_SUP = 4 };

typedef struct sdk_lab_run {
  int style;
  char *s;
} sdk_lab_run;

typedef struct sdk_label {
  sdk_lab_run *r;
  int n, cap;
  int oom;
} sdk_label;

void sdk_lab_add(sdk_label *l, int style, const char *s);
void sdk_lab_text(sdk_label *l, const char *s);
void sdk_lab_italic(sdk_label *l, const char *s);
void sdk_lab_sub(sdk_label *l, const char *s);
void sdk_lab_sup(sdk_label *l, const char *s);
/* A parameter or variable name as a symbol: Greek letters by name (alpha ->
 * italic α), single ASCII letters in italics, anything else as text. */
void sdk_lab_sym(sdk_label *l, const char *name);
/* The same with style added (SDK_LAB_SUB: as a subscript). */
void sdk_lab_sym_as(sdk_label *l, const char *name, int style);
/* x as %.4g with a short exponent (1e-5, not 1e-05). */
void sdk_lab_num(sdk_label *l, double x);
/* "2^19 paths" (19 a superscript) for powers of two from 1024 on, else
 * "1000 paths" ("1 path"): n and `what` in the singular. */
void sdk_lab_count(sdk_label *l, int64_t n, const char *what);
/* "v ± e" with the error to two significant digits and the value to match. */
void sdk_lab_val_err(sdk_label *l, double v, double e);
/* dst += src. */
void sdk_lab_cat(sdk_label *dst, const sdk_label *src);
int sdk_lab_empty(const sdk_label *l);
void sdk_lab_free(sdk_label *l);

/* The code point of the well-formed UTF-8 sequence at s into *cp and its
 * length, or 0 (a malformed, overlong or surrogate sequence). */
int sdk_utf8_decode(const unsigned char *s, unsigned *cp);

/* The same number formats as text (shared with the gnuplot writer). */
void sdk_fmt_num(sdk_strbuf *b, double x);
void sdk_fmt_val_err(sdk_strbuf *b, double v, double e);

/* ---- figures ---- */

/* The plot area is placed explicitly (screen fractions) so that stacked
 * panels, heat maps and curve plots line up.  Right edges: */
#define SDK_FIG_RIGHT_PLAIN 0.965
#define SDK_FIG_RIGHT_KEY 0.78  /* room for a key outside on the right */
#define SDK_FIG_RIGHT_HEAT 0.82 /* room for the colour box and its label */
/* Gaps between panels: */
#define SDK_FIG_GAP_SHARED 0.045  /* panels sharing the x axis */
#define SDK_FIG_GAP_OWN_AXIS 0.14 /* panels with x axes of their own */

#define SDK_FIG_MAX_PANELS 4
#define SDK_FIG_MAX_SERIES 16

/* Kinds of panel:
 *   LINES   curves y(x), each with a band lo..hi where it has one (and a
 *           second one inside it, lo2..hi2);
 *   POINTS  points with error bars y +- err, joined by a thin line when
 *           `joined`; on a category axis (`ncat` > 0) point k sits at x = k + 1
 *           named by cat[k], its value written above it (notes);
 *   BOXES   bars of width w centred at x (histograms);
 *   MAP     a heat map: cells xe[i]..xe[i+1] x ye[j]..ye[j+1] coloured by
 *           z[i * ny + j]. */
enum { SDK_FIG_LINES, SDK_FIG_POINTS, SDK_FIG_BOXES, SDK_FIG_MAP };
enum { SDK_PAL_SEQUENTIAL, SDK_PAL_DIVERGING, SDK_PAL_DENSITY };

typedef struct sdk_fig_series {
  sdk_label title; /* the key's entry (empty: none) */
  int color;       /* index of the curve colour */
  int64_t n;
  double *x, *y;     /* a point with x not finite: a gap in the curve */
  double *lo, *hi;   /* LINES: the band (NULL: none) */
  double *lo2, *hi2; /* LINES: a second band inside it (NULL: none) */
  double *err;       /* POINTS: error bar half-widths (0: none) */
  double *w;         /* BOXES: widths */
  int steps;         /* LINES: drawn as steps centred on x (histograms) */
  int thin;          /* LINES: a thinner line (many sample paths) */
  int fill;          /* LINES: the area under the curve filled */
} sdk_fig_series;

/* A text in the plot: on POINTS above the point (x, y), on a MAP in the
 * cell at (x, y), in two lines (text2 may be empty), white on dark cells. */
typedef struct sdk_fig_note {
  sdk_label text, text2;
  double x, y; /* data coordinates */
  int white;
} sdk_fig_note;

#define SDK_FIG_MAX_NOTES 32

typedef struct sdk_fig_panel {
  int kind;
  double left, right, bottom, top; /* the plot area in fractions of the figure */
  sdk_label xlabel, ylabel;
  int xtics;      /* x tick labels shown (stacked panels share the lowest's) */
  int xlog, ylog; /* logarithmic axes */
  int xset;       /* the x range xlo..xhi (else the data's) */
  double xlo, xhi;
  /* y ticks at ytv[k] named ytl[k] (a phase in units of pi), nyt of them */
  int nyt;
  double ytv[5];
  sdk_label ytl[5];
  int yset; /* the y range ylo..yhi (else the data's) */
  double ylo, yhi;
  /* y tick spacing (on a log axis: the factor between ticks); 0: the
   * renderer's own */
  double ystep;
  double xstep; /* x tick spacing (linear axes); 0: the renderer's own */
  /* a key, outside the plot area (never over the data): its top left
   * corner at keyx, keyy (figure fractions) */
  int key;
  double keyx, keyy;
  sdk_label band;                 /* the key's entry of the band of a single curve (empty: none) */
  sdk_label band2;                /* the same of the second band */
  double band_alpha, band2_alpha; /* the bands' opacities */
  double psize;                   /* POINTS: marker size (1 = the renderer's normal) */
  int joined;                     /* POINTS joined by lines */
  int small_bars;                 /* POINTS: error bars without caps (many points) */
  int xfit;                       /* x range fitted to the data, with a margin of 3 % (POINTS) */
  int ncat;                       /* POINTS on a category axis: the categories' names */
  sdk_label cat[SDK_FIG_MAX_SERIES];
  int nnote;
  sdk_fig_note note[SDK_FIG_MAX_NOTES];
  int nseries;
  sdk_fig_series s[SDK_FIG_MAX_SERIES];
  /* MAP */
  int64_t nx, ny;
  double *xe, *ye, *z;
  int64_t ye_stride; /* 0: the rows ye[0..ny] of every column; else column i's rows at
                      * ye + i * ye_stride */
  sdk_label cblabel;
  int palette;
  int cbset; /* the colour range cblo..cbhi (else the data's) */
  double cblo, cbhi;
  int cblog;     /* a logarithmic colour scale */
  double zfloor; /* > 0: values below it (or not finite) drawn as it */
} sdk_fig_panel;

typedef struct sdk_figure {
  const char *name; /* the picture (drift, fpt, ...) */
  sdk_label title, subtitle;
  int npanels;
  sdk_fig_panel p[SDK_FIG_MAX_PANELS];
  int oom;
} sdk_figure;

/* A panel added to f (NULL when it has SDK_FIG_MAX_PANELS). */
sdk_fig_panel *sdk_fig_panel_new(sdk_figure *f, int kind);
/* A series added to a panel, with n points and the arrays named in `what`
 * ("xy", "xylh", "xye", "xyw", "xylhLH": x y lo hi err w lo2 hi2) allocated; NULL when it
 * has SDK_FIG_MAX_SERIES or memory ran out (f->oom). */
sdk_fig_series *sdk_fig_series_new(sdk_figure *f, sdk_fig_panel *pn, int64_t n, const char *what);
void sdk_fig_free(sdk_figure *f);

/* The plot area of panel k of n (0 on top; screen fractions), right edge at
 * `right`, `gap` between panels. */
void sdk_fig_area(int k, int n, double right, double gap, double *left, double *rightp,
                  double *bottom, double *top);
/* The plot area of panel k of n panels with x axes of their own: stacked
 * for up to two, else in two columns (k row by row), with room for the tick
 * labels and axis labels between them. */
void sdk_fig_grid_area(int k, int n, double right, double *left, double *rightp, double *bottom,
                       double *top);

/* Colour of curve i: Okabe-Ito colours (yellow replaced by grey),
 * distinguishable, print well; they repeat after eight ("#0072B2"). */
const char *sdk_fig_color(int64_t i);
/* The stops of palette SDK_PAL_* (*n of them): diverging (blue-white-red
 * over -1..1, around zero), density (white to dark purple), sequential
 * (viridis-like), each from 0 to 1 but the diverging one. */
typedef struct sdk_fig_stop {
  double at;
  const char *color;
} sdk_fig_stop;
const sdk_fig_stop *sdk_fig_palette(int palette, int *n);

/* The colour range and palette of values lo..hi: diverging around zero
 * when they change sign, else sequential (a range around a single value);
 * palette -1 (none chosen) when there are no values. */
void sdk_fig_cbrange(double lo, double hi, int *palette, int *set, double *clo, double *chi);

/* The figure as JSON (one object, keys in a fixed order; numbers %.17g,
 * not finite ones null). */
void sdk_fig_json(sdk_strbuf *b, const sdk_figure *f);
/* A JSON string: '"' and '\\' escaped, control characters (C0, DEL, C1) as
 * \\u00XX, every byte that is not well-formed UTF-8 as U+FFFD: any string from
 * a result file gives valid JSON. */
void sdk_fig_json_str(sdk_strbuf *b, const char *s);

#endif
