/* sdekit plot: draw what a result file holds with gnuplot.
 *
 * The file is read with libhdf5 (layout: src/io/io.h, plus the density,
 * paths and order groups).  For each picture the data go as text into a
 * private temporary directory together with a gnuplot script; gnuplot runs
 * there (pngcairo terminal) and the PNG is then put in place atomically.
 *
 * Pictures: drift against the scanned parameter (a heat map for two scan
 * axes), moments over time (mean with a +-sd band), histograms, the density
 * over time as a heat map with the saved sample paths on top, saved paths
 * alone, and the order parameter r(t), psi(t).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/gnuplot.h"
#include "core/atomicfile.h"
#include "core/escape.h"
#include "core/strbuf.h"
#include "io/h5attr.h"
#include "io/io.h"
#include "model/model.h"

#define MAX_CURVES 8   /* more grid points than this: a heat map instead of curves */
#define MAX_PANELS 4   /* variables shown one above the other */
#define MAX_COLS 600   /* heat-map columns (samples over time) kept */
#define MAX_ROWS 600   /* heat-map rows (bins) kept */
#define LABEL_CELLS 25 /* drift heat maps this small get the values printed in */

static const char PLOT_HELP[] =
    "usage: sdekit plot FILE.h5 [options]\n"
    "\n"
    "Draw what a result file holds with gnuplot (pngcairo, 1000x650):\n"
    "  drift    <<v>> against the scanned parameter (a heat map for two scan axes)\n"
    "  moments  mean and mean +- standard deviation over time, per variable\n"
    "  hist     the final distribution, per variable\n"
    "  density  P(x, t) as a heat map (log colour scale), saved sample paths on top\n"
    "  paths    the saved sample paths over time\n"
    "  order    the order parameter r(t) and the mean phase psi(t)\n"
    "\n"
    "options:\n"
    "  -o FIG.png             output (default: FILE with .png for .h5); with several\n"
    "                         observables in the file, one picture each: FIG.OBS.png\n"
    "  --observable NAME      draw only this one (drift, moments, hist, density, paths, order)\n"
    "  --var VAR              only this variable (moments, hist, paths; density: which one)\n"
    "  --grid G               grid point (0-based, axis 0 slowest) for pictures of one grid\n"
    "                         point (density, paths) and for the fixed axis of two-axis scans\n"
    "  --keep                 keep the gnuplot script and data (the directory is printed)\n"
    "  --quiet                do not report the files written\n"
    "\n"
    "Needs gnuplot with the pngcairo terminal (Debian: apt-get install gnuplot-nox).\n";

/* Okabe-Ito colours (yellow replaced by grey): distinguishable, print well. */
static const char *COLORS[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                               "#E69F00", "#56B4E9", "#000000", "#7F7F7F"};
#define NCOLORS 8

enum { OBS_DRIFT, OBS_MOMENTS, OBS_HIST, OBS_DENSITY, OBS_PATHS, OBS_ORDER, NOBS };
static const char *OBS[NOBS] = {"drift", "moments", "hist", "density", "paths", "order"};

/* ---------------- reading the file ---------------- */

typedef struct pfile {
  const char *path;
  hid_t f;
  char model[256], scheme[64], precision[64];
  int64_t paths, nsteps, particles;
  double period;
  long nvars, nparams;
  char **vars, **pnames;
  double *pvals;
  int nscan;
  char *axname[2];
  double *ax[2];
  int64_t axn[2];
  int axlog[2];
  int64_t ngrid;
  double *dt;    /* [ngrid] */
  double tscale; /* multiply times by this for the time axis (1/period or 1) */
  int in_periods;
} pfile;

/* A count read from the file as a double: 0 unless finite, >= 0 and at
 * most 2^62 (a plain cast would be undefined beyond int64_t). */
static int64_t count_of(double x) {
  return isfinite(x) && x >= 0 && x <= 4611686018427387904.0 ? (int64_t)x : 0;
}

/* Does the link path (a/b/c) exist?  Checks each component in turn. */
static int has(hid_t f, const char *path) {
  char buf[1024];
  size_t n = strlen(path);
  if (n >= sizeof buf) return 0;
  for (size_t i = 0; i <= n; i++) {
    if (path[i] == '/' || path[i] == 0) {
      memcpy(buf, path, i);
      buf[i] = 0;
      if (i && H5Lexists(f, buf, H5P_DEFAULT) <= 0) return 0;
    }
  }
  return 1;
}

static int has_f(hid_t f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int has_f(hid_t f, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return has(f, buf);
}

/* A dataset of shape [grid..., tail...] as doubles, either whole (g < 0) or
 * only grid point g's block.  *ntail: the tail rank wanted, or < 0 for any
 * (set to the actual one); tail[] gets the tail dimensions.  NULL with an
 * error recorded when it is missing or of the wrong shape. */
static double *read_block(const pfile *pf, const char *path, int64_t g, int *ntail, hsize_t *tail,
                          sdk_errbuf *eb) {
  double *buf = NULL;
  if (!has(pf->f, path)) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': dataset /%s is missing", pf->path, path);
    return NULL;
  }
  hid_t d = H5Dopen2(pf->f, path, H5P_DEFAULT);
  if (d < 0) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /%s is not a dataset", pf->path, path);
    return NULL;
  }
  int64_t npoints = 0;
  const char *why = sdk_h5_dset_problem(d, &npoints);
  if (why) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /%s %s", pf->path, path, why);
    H5Dclose(d);
    return NULL;
  }
  /* from here every product of dimensions is at most SDK_H5_MAX_ELEMENTS */
  hid_t sp = H5Dget_space(d), ft = H5Dget_type(d), ms = -1;
  H5T_class_t c = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
  hsize_t dims[H5S_MAX_RANK];
  int rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  int ok = (c == H5T_FLOAT || c == H5T_INTEGER) && rank >= pf->nscan;
  for (int i = 0; ok && i < pf->nscan; i++)
    ok = dims[i] == (hsize_t)pf->axn[i];
  if (ok && *ntail >= 0) ok = rank == pf->nscan + *ntail;
  if (!ok) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /%s has an unexpected type or shape (rank %d)", pf->path,
             path, rank);
    goto out;
  }
  *ntail = rank - pf->nscan;
  size_t block = 1;
  for (int i = pf->nscan; i < rank; i++) {
    tail[i - pf->nscan] = dims[i];
    block *= dims[i];
  }
  size_t count = g < 0 ? block * (size_t)pf->ngrid : block;
  buf = malloc((count + 1) * sizeof *buf);
  if (!buf) {
    SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading /%s", path);
    goto out;
  }
  herr_t r = 0;
  if (count == 0) {
    r = 0;
  } else if (g < 0 || pf->nscan == 0) {
    r = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  } else {
    hsize_t start[H5S_MAX_RANK] = {0}, cnt[H5S_MAX_RANK], mdim = count;
    memcpy(cnt, dims, sizeof cnt);
    if (pf->nscan == 2) {
      start[0] = (hsize_t)(g / pf->axn[1]);
      start[1] = (hsize_t)(g % pf->axn[1]);
    } else {
      start[0] = (hsize_t)g;
    }
    for (int i = 0; i < pf->nscan; i++)
      cnt[i] = 1;
    ms = H5Screate_simple(1, &mdim, NULL);
    r = ms < 0 || H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0
            ? -1
            : H5Dread(d, H5T_NATIVE_DOUBLE, ms, sp, H5P_DEFAULT, buf);
  }
  if (r < 0) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': cannot read /%s", pf->path, path);
    free(buf);
    buf = NULL;
  }
out:
  if (ms >= 0) H5Sclose(ms);
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return buf;
}

/* A 1-D dataset not indexed by the grid (scan values, step lists). */
static double *read_1d(const pfile *pf, const char *path, int64_t *n, sdk_errbuf *eb) {
  *n = 0;
  if (!has(pf->f, path)) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': dataset /%s is missing", pf->path, path);
    return NULL;
  }
  hid_t d = H5Dopen2(pf->f, path, H5P_DEFAULT);
  if (d < 0) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /%s is not a dataset", pf->path, path);
    return NULL;
  }
  int64_t np = -1;
  const char *why = sdk_h5_dset_problem(d, &np);
  if (why) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /%s %s", pf->path, path, why);
    H5Dclose(d);
    return NULL;
  }
  hid_t sp = H5Dget_space(d), ft = H5Dget_type(d);
  H5T_class_t c = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  double *buf = NULL;
  if ((c == H5T_FLOAT || c == H5T_INTEGER) && np >= 0 && rank <= 1) {
    buf = malloc(((size_t)np + 1) * sizeof *buf);
    if (buf && np > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
      free(buf);
      buf = NULL;
    }
  }
  if (buf)
    *n = np;
  else
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': cannot read /%s as a list of numbers", pf->path, path);
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return buf;
}

static void pfile_close(pfile *pf) {
  sdk_h5_free_strs(pf->vars, pf->nvars);
  sdk_h5_free_strs(pf->pnames, pf->nparams);
  free(pf->pvals);
  for (int i = 0; i < 2; i++) {
    free(pf->axname[i]);
    free(pf->ax[i]);
  }
  free(pf->dt);
  if (pf->f >= 0) H5Fclose(pf->f);
  pf->f = -1;
}

static sdk_err pfile_open(pfile *pf, const char *path, sdk_errbuf *eb) {
  memset(pf, 0, sizeof *pf);
  pf->f = -1;
  pf->path = path;
  pf->nvars = pf->nparams = 0;
  sdk_err oe = sdk_h5_open_untrusted(path, &pf->f, eb);
  /* a missing or unreadable file is a usage error here, as it always was */
  if (oe != SDK_OK) return oe == SDK_ERR_IO ? SDK_ERR_USAGE : oe;

  char buf[256];
  double fv = 0;
  if (sdk_h5_str_attr(pf->f, "format", buf, sizeof buf) != 0 || strcmp(buf, "sdekit") != 0)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s' is not an sdekit result file", path);
  if (sdk_h5_num_attr(pf->f, "format_version", H5T_NATIVE_DOUBLE, &fv, 1) == 0 &&
      fv > SDK_H5_FORMAT_VERSION)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "'%s' was written by a newer sdekit (format %g; this one reads up to %d)", path,
                    fv, SDK_H5_FORMAT_VERSION);
  if (sdk_h5_str_attr(pf->f, "model_name", pf->model, sizeof pf->model) != 0)
    snprintf(pf->model, sizeof pf->model, "?");
  if (sdk_h5_str_attr(pf->f, "scheme", pf->scheme, sizeof pf->scheme) != 0) pf->scheme[0] = 0;
  if (sdk_h5_str_attr(pf->f, "precision", pf->precision, sizeof pf->precision) != 0)
    pf->precision[0] = 0;
  double x;
  if (sdk_h5_num_attr(pf->f, "paths", H5T_NATIVE_DOUBLE, &x, 1) == 0) pf->paths = count_of(x);
  if (sdk_h5_num_attr(pf->f, "nsteps", H5T_NATIVE_DOUBLE, &x, 1) == 0) pf->nsteps = count_of(x);
  if (sdk_h5_num_attr(pf->f, "particles", H5T_NATIVE_DOUBLE, &x, 1) == 0)
    pf->particles = count_of(x);
  if (sdk_h5_num_attr(pf->f, "period", H5T_NATIVE_DOUBLE, &x, 1) == 0 && isfinite(x) && x > 0)
    pf->period = x;
  long n = sdk_h5_strs_attr(pf->f, "var_names", &pf->vars);
  if (n < 1) return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': no var_names attribute", path);
  pf->nvars = n;
  for (long v = 0; v < n; v++)
    if (!sdk_h5_link_name_ok(pf->vars[v]))
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': variable name '%s' is not a dataset name", path,
                      pf->vars[v]);
  n = sdk_h5_strs_attr(pf->f, "param_names", &pf->pnames);
  if (n > 0) {
    pf->nparams = n;
    pf->pvals = malloc((size_t)n * sizeof *pf->pvals);
    if (!pf->pvals ||
        sdk_h5_num_attr(pf->f, "param_values", H5T_NATIVE_DOUBLE, pf->pvals, n) != 0) {
      sdk_h5_free_strs(pf->pnames, pf->nparams);
      free(pf->pvals);
      pf->pnames = NULL;
      pf->pvals = NULL;
      pf->nparams = 0;
    }
  }

  /* scan axes */
  hid_t sg = has(pf->f, "scan") ? H5Gopen2(pf->f, "scan", H5P_DEFAULT) : -1;
  if (sg < 0) return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s' has no scan group", path);
  char **axes = NULL;
  long nax = sdk_h5_strs_attr(sg, "axes", &axes);
  H5Gclose(sg);
  if (nax < 0 || nax > 2) {
    sdk_h5_free_strs(axes, nax);
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': bad scan/axes attribute", path);
  }
  pf->nscan = (int)nax;
  pf->ngrid = 1;
  for (int i = 0; i < pf->nscan; i++) {
    pf->axname[i] = axes[i];
    axes[i] = NULL;
    if (!sdk_h5_link_name_ok(pf->axname[i]) || !strcmp(pf->axname[i], "dt")) {
      sdk_h5_free_strs(axes, nax);
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': scan axis name '%s' is not a dataset name", path,
                      pf->axname[i]);
    }
    char p[300];
    snprintf(p, sizeof p, "scan/%s", pf->axname[i]);
    pf->ax[i] = read_1d(pf, p, &pf->axn[i], eb);
    if (!pf->ax[i] || pf->axn[i] < 1) {
      sdk_h5_free_strs(axes, nax);
      return pf->ax[i] ? SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': scan axis /%s is empty", path, p)
                       : SDK_ERR_FORMAT;
    }
    hid_t d = H5Dopen2(pf->f, p, H5P_DEFAULT);
    if (d >= 0) {
      if (sdk_h5_num_attr(d, "log", H5T_NATIVE_DOUBLE, &x, 1) == 0) pf->axlog[i] = x != 0;
      H5Dclose(d);
    }
    /* both factors are at most SDK_H5_MAX_ELEMENTS: no overflow */
    pf->ngrid *= pf->axn[i];
    if (pf->ngrid > SDK_H5_MAX_ELEMENTS) {
      sdk_h5_free_strs(axes, nax);
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': the scan grid has more than 2^27 points", path);
    }
  }
  sdk_h5_free_strs(axes, nax);
  int nt = 0;
  hsize_t tail[H5S_MAX_RANK];
  pf->dt = read_block(pf, "scan/dt", -1, &nt, tail, eb);
  if (!pf->dt) return SDK_ERR_FORMAT;
  /* Time in periods of the driving when the period is the same everywhere. */
  pf->tscale = 1;
  pf->in_periods = 0;
  if (pf->period > 0) {
    double spp = 0;
    int same = sdk_h5_num_attr(pf->f, "spp", H5T_NATIVE_DOUBLE, &spp, 1) == 0 && spp > 0;
    for (int64_t g = 0; same && g < pf->ngrid; g++)
      same = fabs(pf->dt[g] * spp - pf->period) <= 1e-9 * pf->period;
    if (same) {
      pf->tscale = 1 / pf->period;
      pf->in_periods = 1;
    }
  }
  return SDK_OK;
}

static void grid_index(const pfile *pf, int64_t g, int64_t idx[2]) {
  idx[0] = idx[1] = 0;
  if (pf->nscan == 2) {
    idx[0] = g / pf->axn[1];
    idx[1] = g % pf->axn[1];
  } else if (pf->nscan == 1) {
    idx[0] = g;
  }
}

/* ---------------- text for gnuplot (enhanced mode, double quotes) ----------------
 * Every string from the file goes into the script through sdk_gp_text
 * (src/cli/gnuplot.h), directly or through put_sym; everything else written
 * here is markup of our own, numbers, or generated file names. */

static const char *const GREEK[][2] = {
    {"alpha", "α"}, {"beta", "β"},  {"gamma", "γ"}, {"delta", "δ"},  {"epsilon", "ε"},
    {"zeta", "ζ"},  {"eta", "η"},   {"theta", "θ"}, {"kappa", "κ"},  {"lambda", "λ"},
    {"mu", "μ"},    {"nu", "ν"},    {"xi", "ξ"},    {"rho", "ρ"},    {"sigma", "σ"},
    {"tau", "τ"},   {"phi", "φ"},   {"chi", "χ"},   {"psi", "ψ"},    {"omega", "ω"},
    {"Gamma", "Γ"}, {"Delta", "Δ"}, {"Theta", "Θ"}, {"Lambda", "Λ"}, {"Sigma", "Σ"},
    {"Phi", "Φ"},   {"Psi", "Ψ"},   {"Omega", "Ω"}};

/* A parameter or variable name as a symbol: Greek letters by name, single
 * letters in italics, anything else as it is. */
static void put_sym(sdk_strbuf *b, const char *name) {
  for (size_t i = 0; i < sizeof GREEK / sizeof GREEK[0]; i++)
    if (!strcmp(name, GREEK[i][0])) {
      sdk_sb_printf(b, "{/:Italic %s}", GREEK[i][1]);
      return;
    }
  if (strlen(name) == 1 &&
      ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'))) {
    sdk_sb_printf(b, "{/:Italic %c}", name[0]);
    return;
  }
  sdk_gp_text(b, name);
}

static void put_num(sdk_strbuf *b, double x) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.4g", x);
  /* 1e-05 -> 1e-5 */
  char *e = strchr(buf, 'e');
  if (e) {
    char *p = e + 1;
    if (*p == '+') memmove(p, p + 1, strlen(p));
    if (*p == '-') p++;
    while (p[0] == '0' && p[1])
      memmove(p, p + 1, strlen(p));
  }
  sdk_sb_puts(b, buf);
}

/* "a = 4.2, b = 1" for grid point g (empty with no scan). */
static void put_grid_label(sdk_strbuf *b, const pfile *pf, int64_t g) {
  int64_t idx[2];
  grid_index(pf, g, idx);
  for (int i = 0; i < pf->nscan; i++) {
    if (i) sdk_sb_puts(b, ", ");
    put_sym(b, pf->axname[i]);
    sdk_sb_puts(b, " = ");
    put_num(b, pf->ax[i][idx[i]]);
  }
}

static int is_scanned(const pfile *pf, const char *name) {
  for (int i = 0; i < pf->nscan; i++)
    if (!strcmp(pf->axname[i], name)) return 1;
  return 0;
}

/* "2^{19} paths" for powers of two from 1024 on, else "1000 paths". */
static void put_count(sdk_strbuf *b, int64_t n, const char *what) {
  int k = 0;
  while (k < 62 && ((int64_t)1 << k) < n)
    k++;
  if (n >= 1024 && ((int64_t)1 << k) == n)
    sdk_sb_printf(b, "2^{%d} %ss", k, what);
  else
    sdk_sb_printf(b, "%lld %s%s", (long long)n, what, n == 1 ? "" : "s");
}

/* Title: "model, scheme, N paths, dt = ..., precision" and, smaller, the
 * parameter values (with the scanned ones at grid point g when g >= 0). */
static void put_title(sdk_strbuf *b, const pfile *pf, int64_t g, const char *extra) {
  sdk_sb_puts(b, "\"");
  sdk_gp_text(b, pf->model);
  if (pf->scheme[0]) {
    sdk_sb_puts(b, ", ");
    sdk_gp_text(b, pf->scheme);
  }
  if (pf->particles > 1) {
    /* interacting systems: paths = particles x systems */
    sdk_sb_puts(b, ", ");
    put_count(b, pf->particles, "particle");
    int64_t sys = pf->paths / pf->particles;
    if (sys > 1) {
      sdk_sb_puts(b, " × ");
      put_count(b, sys, "system");
    }
  } else if (pf->paths > 0) {
    sdk_sb_puts(b, ", ");
    put_count(b, pf->paths, "path");
  }
  double lo = pf->dt[0], hi = pf->dt[0];
  if (g >= 0) {
    lo = hi = pf->dt[g];
  } else {
    for (int64_t k = 1; k < pf->ngrid; k++) {
      if (pf->dt[k] < lo) lo = pf->dt[k];
      if (pf->dt[k] > hi) hi = pf->dt[k];
    }
  }
  sdk_sb_puts(b, ", {/:Italic dt} = ");
  put_num(b, lo);
  if (hi != lo) {
    sdk_sb_puts(b, " … ");
    put_num(b, hi);
  }
  if (pf->precision[0]) {
    sdk_sb_puts(b, ", ");
    sdk_gp_text(b, pf->precision);
  }
  /* second line: parameters */
  sdk_strbuf l2;
  sdk_sb_init(&l2);
  int n = 0;
  for (long p = 0; p < pf->nparams; p++) {
    if (is_scanned(pf, pf->pnames[p])) continue;
    if (n++) sdk_sb_puts(&l2, ", ");
    put_sym(&l2, pf->pnames[p]);
    sdk_sb_puts(&l2, " = ");
    put_num(&l2, pf->pvals[p]);
  }
  if (g >= 0 && pf->nscan) {
    if (n++) sdk_sb_puts(&l2, ", ");
    put_grid_label(&l2, pf, g);
  }
  if (extra && extra[0]) {
    if (n++) sdk_sb_puts(&l2, "; ");
    sdk_sb_puts(&l2, extra);
  }
  if (n && l2.s) sdk_sb_printf(b, "\\n{/*0.8 %s}", l2.s);
  sdk_sb_free(&l2);
  sdk_sb_puts(b, "\"");
}

/* Time-axis label. */
static void put_time_label(sdk_strbuf *b, const pfile *pf) {
  if (pf->in_periods)
    sdk_sb_puts(b, "\"time {/:Italic t} / {/:Italic T}  (periods of the driving)\"");
  else
    sdk_sb_puts(b, "\"time {/:Italic t}\"");
}

/* "v ± e" with the error to two significant digits and the value to match. */
static void put_val_err(sdk_strbuf *b, double v, double e) {
  if (isfinite(v) && isfinite(e) && e > 0 && fabs(v) < 1e6) {
    int dec = 1 - (int)floor(log10(e));
    if (dec < 0) dec = 0;
    if (dec <= 10) {
      sdk_sb_printf(b, "%.*f ± %.*f", dec, v, dec, e);
      return;
    }
  }
  put_num(b, v);
  sdk_sb_puts(b, " ± ");
  put_num(b, e);
}

/* Plot area placed explicitly (screen fractions) so that stacked panels,
 * heat maps and curve plots line up: panel k of n, right edge at right. */
#define AREA_TOP 0.865
#define AREA_BOTTOM 0.115
#define AREA_LEFT 0.125
#define RIGHT_PLAIN 0.965
#define RIGHT_KEY 0.78    /* room for a key outside on the right */
#define RIGHT_HEAT 0.82   /* room for the colour box and its label */
#define GAP_SHARED 0.045  /* between panels sharing the x axis */
#define GAP_OWN_AXIS 0.14 /* between panels with x axes of their own */

static void put_panel(sdk_strbuf *b, int k, int n, double right, double gap) {
  double h = (AREA_TOP - AREA_BOTTOM + gap) / n, top = AREA_TOP - k * h;
  double bottom = top - h + gap;
  sdk_sb_printf(b,
                "set tmargin at screen %.4f\nset bmargin at screen %.4f\n"
                "set lmargin at screen %.4f\nset rmargin at screen %.4f\n",
                top, bottom, AREA_LEFT, right);
}

/* ---------------- one picture ---------------- */

typedef struct plot {
  const pfile *pf;
  const char *dir; /* temporary directory (gnuplot runs there) */
  sdk_strbuf gp;   /* the script */
  int ndata;
  int64_t grid;    /* --grid (-1: not given) */
  const char *var; /* --var (NULL: all) */
  sdk_errbuf *eb;
} plot;

/* Open a new data file in the temporary directory; name gets its name
 * relative to it. */
static FILE *data_open(plot *p, char name[32]) {
  snprintf(name, 32, "d%d.dat", p->ndata++);
  char path[PATH_MAX];
  /* no directory: only the script is wanted (sdk_plot_inspect) */
  snprintf(path, sizeof path, "%s/%s", p->dir ? p->dir : "/dev", p->dir ? name : "null");
  FILE *f = fopen(path, "w");
  if (!f) SDK_FAIL(p->eb, SDK_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return f;
}

static sdk_err data_close(plot *p, FILE *f, const char *name) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad)
    return SDK_FAIL(p->eb, SDK_ERR_IO, "cannot write the temporary data file %s in %s", name,
                    p->dir);
  return SDK_OK;
}

static void put_num_data(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.9g", x);
  else
    fputs("NaN", f);
}

static void preamble(plot *p, const char *png) {
  sdk_strbuf *b = &p->gp;
  sdk_sb_printf(b,
                "set terminal pngcairo size 1000,650 enhanced font 'DejaVu Sans,14' linewidth 1.5\n"
                "set encoding utf8\n"
                "set output '%s'\n"
                "set datafile missing 'NaN'\n"
                "set style fill solid 1 noborder\n"
                "set grid lc rgb '#d8d8d8' lw 0.7\n"
                "set key noautotitle\n"
                "set title font ',15'\n"
                "set xlabel font ',15'\nset ylabel font ',15'\nset cblabel font ',15'\n"
                "set mxtics\nset mytics\n",
                png);
}

static void put_palette(sdk_strbuf *b, const char *kind) {
  if (!strcmp(kind, "diverging"))
    sdk_sb_puts(b, "set palette defined (-1 '#2166ac', -0.5 '#92c5de', 0 '#f7f7f7', 0.5 '#f4a582', "
                   "1 '#b2182b')\n");
  else if (!strcmp(kind, "density"))
    sdk_sb_puts(b, "set palette defined (0 '#ffffff', 0.12 '#fff3b0', 0.35 '#fec44f', 0.6 "
                   "'#f46d43', 0.82 '#c2185b', 1 '#4a0a50')\n");
  else
    sdk_sb_puts(b, "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 "
                   "'#5ec962', 1 '#fde725')\n");
}

/* Cell edges from cell centres: midpoints (geometric ones on a log axis),
 * the outer edges mirrored.  A single centre gets a width of 10 %. */
static void edges_from_centres(const double *c, int64_t n, int lg, double *e) {
  if (n == 1) {
    double w = c[0] != 0 ? 0.1 * fabs(c[0]) : 0.5;
    if (lg && c[0] > 0) {
      e[0] = c[0] / 1.1;
      e[1] = c[0] * 1.1;
    } else {
      e[0] = c[0] - w / 2;
      e[1] = c[0] + w / 2;
    }
    return;
  }
  for (int64_t i = 1; i < n; i++)
    e[i] = lg && c[i - 1] > 0 && c[i] > 0 ? sqrt(c[i - 1] * c[i]) : 0.5 * (c[i - 1] + c[i]);
  if (lg && c[0] > 0 && c[1] > 0) {
    e[0] = c[0] * c[0] / e[1];
    e[n] = c[n - 1] * c[n - 1] / e[n - 1];
  } else {
    e[0] = c[0] - (e[1] - c[0]);
    e[n] = c[n - 1] + (c[n - 1] - e[n - 1]);
  }
}

/* Heat-map cells for 'pm3d corners2color c1': column i spans xe[i]..xe[i+1];
 * its rows span ye_i[j]..ye_i[j+1] with ye_i = ye + i * ye_stride (stride 0:
 * the same rows for every column); z[i * ny + j] colours cell (i, j).  Values
 * that are not finite or (with floor > 0) below floor are written as floor. */
static void write_cells(FILE *f, int64_t nx, const double *xe, int64_t ny, const double *ye,
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
        put_num_data(f, xe[i]);
        fputc(' ', f);
        put_num_data(f, ye[j]);
        fputc(' ', f);
        put_num_data(f, v);
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
        put_num_data(f, x);
        fputc(' ', f);
        put_num_data(f, y[j]);
        fputc(' ', f);
        put_num_data(f, v);
        fputc('\n', f);
      }
      fputc('\n', f);
    }
    fputc('\n', f);
  }
}

static void minmax(const double *v, size_t n, double *lo, double *hi) {
  *lo = INFINITY;
  *hi = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i])) {
      if (v[i] < *lo) *lo = v[i];
      if (v[i] > *hi) *hi = v[i];
    }
}

/* Columns whose values col[i][j] sit in nb equal bins over lo[i]..hi[i] put
 * onto one grid of equal rows over min lo .. max hi (as fine as the finest
 * column, at most maxrows rows), so that the heat map is one surface without
 * seams.  A row takes the mean of the bins whose centres fall in it or, when
 * it is narrower than the bins, the bin under its centre; outside a column's
 * range the value is 0.  Returns z [nx][*ny] and sets *ye to the *ny + 1 row
 * edges (both malloc'd), or NULL when out of memory. */
static double *regrid(int64_t nx, int64_t nb, const double *lo, const double *hi,
                      const double *const *col, int64_t maxrows, int64_t *ny, double **ye) {
  double y0 = INFINITY, y1 = -INFINITY, w = INFINITY;
  for (int64_t i = 0; i < nx; i++)
    if (isfinite(lo[i]) && isfinite(hi[i]) && hi[i] > lo[i]) {
      y0 = fmin(y0, lo[i]);
      y1 = fmax(y1, hi[i]);
      w = fmin(w, (hi[i] - lo[i]) / (double)nb);
    }
  if (!(y1 > y0)) {
    y0 = 0;
    y1 = 1;
    w = 1.0 / (double)nb;
  }
  double nr = ceil((y1 - y0) / w - 1e-6);
  int64_t n = nr < 1 ? 1 : nr > (double)maxrows ? maxrows : (int64_t)nr;
  double W = (y1 - y0) / (double)n;
  double *z = calloc((size_t)(nx * n), sizeof *z), *e = malloc((size_t)(n + 1) * sizeof *e);
  int64_t *cnt = malloc((size_t)n * sizeof *cnt);
  if (!z || !e || !cnt) {
    free(z);
    free(e);
    free(cnt);
    return NULL;
  }
  for (int64_t r = 0; r <= n; r++)
    e[r] = y0 + (double)r * W;
  for (int64_t i = 0; i < nx; i++) {
    double bw = (hi[i] - lo[i]) / (double)nb, *zi = z + i * n;
    if (!(bw > 0) || !isfinite(lo[i])) continue;
    if (W >= bw * (1 - 1e-9)) {
      memset(cnt, 0, (size_t)n * sizeof *cnt);
      for (int64_t j = 0; j < nb; j++) {
        double r = floor((lo[i] + ((double)j + 0.5) * bw - y0) / W);
        int64_t ri = r < 0 ? 0 : r >= (double)n ? n - 1 : (int64_t)r;
        if (isfinite(col[i][j])) {
          zi[ri] += col[i][j];
          cnt[ri]++;
        }
      }
      for (int64_t r = 0; r < n; r++)
        if (cnt[r]) zi[r] /= (double)cnt[r];
    } else {
      for (int64_t r = 0; r < n; r++) {
        double yc = y0 + ((double)r + 0.5) * W;
        if (yc < lo[i] || yc >= hi[i]) continue;
        int64_t j = (int64_t)floor((yc - lo[i]) / bw);
        zi[r] = col[i][j < nb ? j : nb - 1];
      }
    }
  }
  free(cnt);
  *ny = n;
  *ye = e;
  return z;
}

/* Heat-map settings common to all (pm3d map, cells coloured by corner 1). */
static void heatmap_setup(sdk_strbuf *b) {
  sdk_sb_puts(b, "set view map\nset pm3d map corners2color c1 noborder clipcb\n"
                 "unset grid\nset tics front\nset style fill solid 1 noborder\n"
                 "set colorbox user origin graph 1.03, graph 0 size graph 0.035, graph 1\n");
}

/* Colour range: diverging around zero when the values change sign. */
static void put_cbrange(sdk_strbuf *b, double lo, double hi) {
  if (!(lo <= hi)) return;
  if (lo < 0 && hi > 0) {
    double m = fmax(-lo, hi);
    put_palette(b, "diverging");
    sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", -m, m);
  } else {
    put_palette(b, "sequential");
    if (hi == lo)
      sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", lo - 0.5 - fabs(lo) * 0.1,
                    hi + 0.5 + fabs(hi) * 0.1);
  }
}

/* The grid points drawn as curves (all, up to MAX_CURVES) and, when there
 * are more, the choice of a heat map over one scan axis: hx = that axis,
 * fixed = the grid index along the other axis (two-axis scans). */
typedef struct curves {
  int64_t n, g[MAX_CURVES];
  int heat; /* 1: heat map over axis hx */
  int hx;
  int64_t fixed;
} curves;

static void choose_curves(const plot *p, curves *c) {
  const pfile *pf = p->pf;
  memset(c, 0, sizeof *c);
  if (pf->ngrid <= MAX_CURVES) {
    c->n = pf->ngrid;
    for (int64_t g = 0; g < pf->ngrid; g++)
      c->g[g] = g;
    return;
  }
  c->heat = 1;
  c->hx = pf->nscan == 2 && pf->axn[1] > pf->axn[0] ? 1 : 0;
  if (pf->nscan == 2) {
    int64_t idx[2];
    grid_index(pf, p->grid >= 0 ? p->grid : 0, idx);
    c->fixed = idx[1 - c->hx];
  }
}

/* Grid point of the k-th value along heat axis hx (the other axis fixed). */
static int64_t heat_grid(const pfile *pf, const curves *c, int64_t k) {
  if (pf->nscan < 2) return k;
  return c->hx == 0 ? k * pf->axn[1] + c->fixed : c->fixed * pf->axn[1] + k;
}

/* Note for the title of a heat map over one axis of a two-axis scan. */
static void put_fixed_note(sdk_strbuf *b, const pfile *pf, const curves *c) {
  if (pf->nscan < 2 || !c->heat) return;
  int o = 1 - c->hx;
  put_sym(b, pf->axname[o]);
  sdk_sb_puts(b, " = ");
  put_num(b, pf->ax[o][c->fixed]);
}

/* "set multiplot title" for grid point g (-1: the file as a whole) */
static void put_multiplot_title(sdk_strbuf *b, const pfile *pf, int64_t g, const char *extra) {
  sdk_sb_puts(b, "set multiplot title ");
  put_title(b, pf, g, extra);
  sdk_sb_puts(b, " font ',15'\n");
}

/* Title and key (or heat map) of a picture of curves per grid point; returns
 * the right margin of its panels. */
static double curves_begin(sdk_strbuf *b, const pfile *pf, const curves *c, int opaque_key) {
  sdk_strbuf note;
  sdk_sb_init(&note);
  put_fixed_note(&note, pf, c);
  put_multiplot_title(b, pf, -1, note.s);
  sdk_sb_free(&note);
  if (c->heat)
    heatmap_setup(b);
  else
    sdk_sb_printf(b, "set key %s font ',12' spacing 1.1\n",
                  c->n > 1     ? "at screen 0.79, screen 0.865 left top vertical Left reverse"
                  : opaque_key ? "top right opaque"
                               : "top right");
  return c->heat ? RIGHT_HEAT : c->n > 1 ? RIGHT_KEY : RIGHT_PLAIN;
}

/* Variables drawn: --var or all (up to MAX_PANELS). */
static int choose_vars(const plot *p, int *vi) {
  const pfile *pf = p->pf;
  int n = 0;
  for (long v = 0; v < pf->nvars && n < MAX_PANELS; v++)
    if (!p->var || !strcmp(p->var, pf->vars[v])) vi[n++] = (int)v;
  return n;
}

/* ---- drift ---- */

static sdk_err draw_drift(plot *p) {
  const pfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdk_err e = SDK_OK;
  int nt = 0;
  hsize_t tail[H5S_MAX_RANK];
  double *val = read_block(pf, "drift/value", -1, &nt, tail, p->eb);
  nt = 0;
  double *err = val ? read_block(pf, "drift/error", -1, &nt, tail, p->eb) : NULL;
  double *xe = NULL, *ye = NULL;
  if (!val || !err) {
    e = SDK_ERR_FORMAT;
    goto out;
  }
  char var[256] = "";
  hid_t g = H5Gopen2(pf->f, "drift", H5P_DEFAULT);
  if (g >= 0) {
    sdk_h5_str_attr(g, "var", var, sizeof var);
    H5Gclose(g);
  }
  if (!var[0]) snprintf(var, sizeof var, "%s", pf->vars[0]);
  sdk_strbuf vl;
  sdk_sb_init(&vl);
  sdk_sb_puts(&vl, "⟨⟨{/:Italic v}_{");
  put_sym(&vl, var);
  sdk_sb_puts(&vl, "}⟩⟩");
  const char *vlab = vl.s ? vl.s : "<<v>>";

  char dn[32];
  FILE *f = data_open(p, dn);
  if (!f) {
    sdk_sb_free(&vl);
    e = SDK_ERR_IO;
    goto out;
  }
  put_panel(b, 0, 1, pf->nscan == 2 ? RIGHT_HEAT : RIGHT_PLAIN, GAP_SHARED);
  put_multiplot_title(b, pf, -1, NULL);
  if (pf->nscan == 0) {
    put_num_data(f, val[0]);
    fputc(' ', f);
    put_num_data(f, err[0]);
    fputc('\n', f);
    sdk_sb_printf(b, "set xrange [-1:1]\nunset xtics\nunset mxtics\nset ylabel \"%s\"\n", vlab);
    sdk_sb_printf(b, "set label 1 \"%s = ", vlab);
    put_val_err(b, val[0], err[0]);
    sdk_sb_puts(b, "\" at graph 0.5, graph 0.9 center font ',18'\n");
    sdk_sb_puts(b, "set offsets 0, 0, graph 0.3, graph 0.3\n");
    sdk_sb_printf(b, "plot '%s' using (0):1:2 with yerrorbars pt 7 ps 2 lw 2 lc rgb '%s'\n", dn,
                  COLORS[0]);
  } else if (pf->nscan == 1) {
    for (int64_t k = 0; k < pf->axn[0]; k++) {
      put_num_data(f, pf->ax[0][k]);
      fputc(' ', f);
      put_num_data(f, val[k]);
      fputc(' ', f);
      put_num_data(f, err[k]);
      fputc('\n', f);
    }
    sdk_sb_puts(b, "set xlabel \"");
    put_sym(b, pf->axname[0]);
    sdk_sb_printf(b, "\"\nset ylabel \"%s\"\n", vlab);
    if (pf->axlog[0]) sdk_sb_puts(b, "set logscale x\n");
    if (pf->axn[0] > 40) sdk_sb_puts(b, "set bars small\n");
    sdk_sb_puts(b, "set xzeroaxis lt -1 lw 0.7\nset autoscale xfix\n"
                   "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
    sdk_sb_printf(b,
                  "plot '%s' using 1:2:3 with yerrorbars pt 7 ps %s lc rgb '%s', "
                  "'' using 1:2 with lines lw 1 lc rgb '%s'\n",
                  dn, pf->axn[0] > 40 ? "0.6" : "1.1", COLORS[0], COLORS[0]);
  } else {
    /* two axes: cells coloured by <<v>> */
    int64_t n0 = pf->axn[0], n1 = pf->axn[1];
    xe = malloc((size_t)(n0 + 1) * sizeof *xe);
    ye = malloc((size_t)(n1 + 1) * sizeof *ye);
    if (!xe || !ye) {
      fclose(f);
      sdk_sb_free(&vl);
      e = SDK_FAIL(p->eb, SDK_ERR_NOMEM, "out of memory");
      goto out;
    }
    edges_from_centres(pf->ax[0], n0, pf->axlog[0], xe);
    edges_from_centres(pf->ax[1], n1, pf->axlog[1], ye);
    write_cells(f, n0, xe, n1, ye, 0, val, 0);
    double lo, hi;
    minmax(val, (size_t)pf->ngrid, &lo, &hi);
    heatmap_setup(b);
    put_cbrange(b, lo, hi);
    sdk_sb_puts(b, "set xlabel \"");
    put_sym(b, pf->axname[0]);
    sdk_sb_puts(b, "\"\nset ylabel \"");
    put_sym(b, pf->axname[1]);
    sdk_sb_printf(b, "\"\nset cblabel \"%s\"\n", vlab);
    if (pf->axlog[0]) sdk_sb_puts(b, "set logscale x\n");
    if (pf->axlog[1]) sdk_sb_puts(b, "set logscale y\n");
    sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[n0], ye[0],
                  ye[n1]);
    sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d", dn);
    if (pf->ngrid <= LABEL_CELLS) {
      /* small grids: the values (with errors) printed in the cells */
      char ln[32];
      FILE *lf = data_open(p, ln);
      if (!lf) {
        fclose(f);
        sdk_sb_free(&vl);
        e = SDK_ERR_IO;
        goto out;
      }
      double m = fmax(fabs(lo), fabs(hi));
      for (int64_t i = 0; i < n0; i++)
        for (int64_t j = 0; j < n1; j++) {
          int64_t k = i * n1 + j;
          /* value and error as text; white on the darkest cells */
          sdk_strbuf vt;
          sdk_sb_init(&vt);
          put_val_err(&vt, val[k], err[k]);
          char *pm = vt.s ? strstr(vt.s, " ± ") : NULL;
          if (pm) *pm = 0;
          int dark =
              lo < 0 && hi > 0 ? fabs(val[k]) > 0.6 * m : hi > lo && val[k] < lo + 0.45 * (hi - lo);
          fprintf(lf, "%.9g %.9g %s %s %d\n", pf->ax[0][i], pf->ax[1][j], vt.s ? vt.s : "nan",
                  pm ? pm + strlen(" ± ") : "nan", dark ? 0xffffff : 0);
          sdk_sb_free(&vt);
        }
      if ((e = data_close(p, lf, ln)) != SDK_OK) {
        fclose(f);
        sdk_sb_free(&vl);
        goto out;
      }
      sdk_sb_printf(b,
                    ", '%s' using 1:2:(0):(strcol(3).\"\\n± \".strcol(4)):5 with labels "
                    "font ',13' tc rgb variable",
                    ln);
    }
    sdk_sb_puts(b, "\n");
  }
  sdk_sb_puts(b, "unset multiplot\n");
  sdk_sb_free(&vl);
  e = data_close(p, f, dn);
out:
  free(val);
  free(err);
  free(xe);
  free(ye);
  return e;
}

/* ---- moments ---- */

static sdk_err draw_moments(plot *p) {
  const pfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdk_err e = SDK_OK;
  int vi[MAX_PANELS], nv = choose_vars(p, vi);
  curves c;
  choose_curves(p, &c);
  int nt = 1;
  hsize_t tail[H5S_MAX_RANK];
  double *t = read_block(pf, "moments/t", -1, &nt, tail, p->eb);
  double *mean = NULL, *var = NULL, *xe = NULL, *ye = NULL, *z = NULL;
  if (!t) return SDK_ERR_FORMAT;
  int64_t ns = (int64_t)tail[0];
  if (ns < 1) {
    free(t);
    return SDK_FAIL(p->eb, SDK_ERR_FORMAT, "'%s': the moments have no samples", pf->path);
  }
  double right = curves_begin(b, pf, &c, 1);
  for (int k = 0; k < nv && e == SDK_OK; k++) {
    const char *vn = pf->vars[vi[k]];
    char path[300];
    snprintf(path, sizeof path, "moments/mean_%s", vn);
    nt = 1;
    free(mean);
    free(var);
    var = NULL;
    mean = read_block(pf, path, -1, &nt, tail, p->eb);
    hsize_t mean_ns = mean ? tail[0] : 0;
    snprintf(path, sizeof path, "moments/var_%s", vn);
    nt = 1;
    if (mean) var = read_block(pf, path, -1, &nt, tail, p->eb);
    if (!mean || !var) {
      e = SDK_ERR_FORMAT;
      break;
    }
    if ((int64_t)mean_ns != ns || (int64_t)tail[0] != ns) {
      e = SDK_FAIL(p->eb, SDK_ERR_FORMAT,
                   "'%s': /moments/mean_%s or var_%s and /moments/t differ in length", pf->path, vn,
                   vn);
      break;
    }
    char dn[32];
    FILE *f = data_open(p, dn);
    if (!f) {
      e = SDK_ERR_IO;
      break;
    }
    put_panel(b, k, nv, right, GAP_SHARED);
    sdk_sb_puts(b, "set xlabel ");
    if (k == nv - 1)
      put_time_label(b, pf);
    else
      sdk_sb_puts(b, "''");
    sdk_sb_puts(b, "\nset ylabel \"");
    put_sym(b, vn);
    sdk_sb_puts(b, "\"\n");
    if (k == nv - 1)
      sdk_sb_puts(b, "set format x '%g'\n");
    else
      sdk_sb_puts(b, "set format x ''\n");
    if (!c.heat) {
      sdk_sb_puts(b, "plot ");
      for (int64_t q = 0; q < c.n; q++) {
        int64_t g = c.g[q];
        for (int64_t s = 0; s < ns; s++) {
          double m = mean[g * ns + s], v = var[g * ns + s];
          put_num_data(f, t[g * ns + s] * pf->tscale);
          fputc(' ', f);
          put_num_data(f, m);
          fputc(' ', f);
          put_num_data(f, v > 0 ? m - sqrt(v) : m);
          fputc(' ', f);
          put_num_data(f, v > 0 ? m + sqrt(v) : m);
          fputc('\n', f);
        }
        fputs("\n\n", f);
        const char *col = COLORS[q % NCOLORS];
        sdk_sb_printf(b,
                      "%s'%s' index %lld using 1:3:4 with filledcurves fs transparent solid %s "
                      "noborder lc rgb '%s'%s, ",
                      q ? ", " : "", dn, (long long)q, c.n > 2 ? "0.12" : "0.22", col,
                      c.n == 1 ? " title 'mean ± s.d.'" : "");
        sdk_sb_printf(b, "'%s' index %lld using 1:2 with lines lw 1.5 lc rgb '%s' title \"", dn,
                      (long long)q, col);
        if (c.n == 1)
          sdk_sb_puts(b, "mean");
        else
          put_grid_label(b, pf, g);
        sdk_sb_puts(b, "\"");
      }
      sdk_sb_puts(b, "\n");
      if (k == 0 && c.n > 1) sdk_sb_puts(b, "unset key\n");
    } else {
      /* heat map of the mean over (scan axis, t) */
      int64_t nx = pf->axn[c.hx];
      free(xe);
      free(ye);
      free(z);
      xe = malloc((size_t)(nx + 1) * sizeof *xe);
      ye = malloc((size_t)nx * (size_t)(ns + 1) * sizeof *ye);
      z = malloc((size_t)nx * (size_t)ns * sizeof *z);
      if (!xe || !ye || !z) {
        fclose(f);
        e = SDK_FAIL(p->eb, SDK_ERR_NOMEM, "out of memory");
        break;
      }
      edges_from_centres(pf->ax[c.hx], nx, pf->axlog[c.hx], xe);
      double tlo = INFINITY, thi = -INFINITY;
      for (int64_t i = 0; i < nx; i++) {
        int64_t g = heat_grid(pf, &c, i);
        double tc[2];
        for (int64_t s = 0; s < ns; s++)
          z[i * ns + s] = mean[g * ns + s];
        /* row edges around the sample times */
        double *y = ye + i * (ns + 1);
        for (int64_t s = 1; s < ns; s++)
          y[s] = 0.5 * (t[g * ns + s - 1] + t[g * ns + s]) * pf->tscale;
        tc[0] = t[g * ns] * pf->tscale;
        tc[1] = t[g * ns + ns - 1] * pf->tscale;
        y[0] = ns > 1 ? tc[0] - (y[1] - tc[0]) : tc[0] - 0.5;
        y[ns] = ns > 1 ? tc[1] + (tc[1] - y[ns - 1]) : tc[1] + 0.5;
        if (y[0] < tlo) tlo = y[0];
        if (y[ns] > thi) thi = y[ns];
      }
      write_cells(f, nx, xe, ns, ye, ns + 1, z, 0);
      double lo, hi;
      minmax(z, (size_t)(nx * ns), &lo, &hi);
      put_palette(b, "sequential");
      sdk_sb_puts(b, "unset logscale cb\nset format cb '%g'\nset cbrange [*:*]\n");
      if (hi == lo) sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", lo - 1, hi + 1);
      /* x: the scan axis; y: time; colour: the mean */
      sdk_sb_puts(b, "set xlabel ");
      if (k == nv - 1) {
        sdk_sb_puts(b, "\"");
        put_sym(b, pf->axname[c.hx]);
        sdk_sb_puts(b, "\"");
      } else {
        sdk_sb_puts(b, "''");
      }
      sdk_sb_puts(b, pf->in_periods ? "\nset ylabel \"{/:Italic t} / {/:Italic T}\""
                                    : "\nset ylabel \"{/:Italic t}\"");
      sdk_sb_puts(b, "\nset cblabel \"mean of ");
      put_sym(b, vn);
      sdk_sb_puts(b, "\"\n");
      if (pf->axlog[c.hx]) sdk_sb_puts(b, "set logscale x\n");
      sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[nx], tlo, thi);
      sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d\n", dn);
    }
    e = data_close(p, f, dn);
  }
  sdk_sb_puts(b, "unset multiplot\n");
  free(t);
  free(mean);
  free(var);
  free(xe);
  free(ye);
  free(z);
  return e;
}

/* ---- hist ---- */

static sdk_err draw_hist(plot *p) {
  const pfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdk_err e = SDK_OK;
  int vi[MAX_PANELS], nv = 0;
  for (int k = 0, m = choose_vars(p, vi); k < m; k++)
    if (has_f(pf->f, "hist/%s/density", pf->vars[vi[k]])) vi[nv++] = vi[k];
  if (nv == 0)
    return SDK_FAIL(p->eb, SDK_ERR_USAGE, "'%s' has no histogram of %s", pf->path,
                    p->var ? p->var : "any variable");
  curves c;
  choose_curves(p, &c);
  double *dens = NULL, *lo = NULL, *hi = NULL, *xe = NULL, *ye = NULL;
  double right = curves_begin(b, pf, &c, 0);
  for (int k = 0; k < nv && e == SDK_OK; k++) {
    const char *vn = pf->vars[vi[k]];
    char path[300];
    int nt = 1;
    hsize_t tail[H5S_MAX_RANK];
    free(dens);
    free(lo);
    free(hi);
    lo = hi = NULL;
    snprintf(path, sizeof path, "hist/%s/density", vn);
    dens = read_block(pf, path, -1, &nt, tail, p->eb);
    int64_t nb = dens ? (int64_t)tail[0] : 0;
    nt = 0;
    snprintf(path, sizeof path, "hist/%s/lo", vn);
    if (dens) lo = read_block(pf, path, -1, &nt, tail, p->eb);
    nt = 0;
    snprintf(path, sizeof path, "hist/%s/hi", vn);
    if (lo) hi = read_block(pf, path, -1, &nt, tail, p->eb);
    if (!hi) {
      e = SDK_ERR_FORMAT;
      break;
    }
    if (nb < 1) {
      e = SDK_FAIL(p->eb, SDK_ERR_FORMAT, "'%s': histogram of %s has no bins", pf->path, vn);
      break;
    }
    char dn[32];
    FILE *f = data_open(p, dn);
    if (!f) {
      e = SDK_ERR_IO;
      break;
    }
    put_panel(b, k, nv, right, GAP_OWN_AXIS);
    sdk_sb_puts(b, "set xlabel \"");
    put_sym(b, vn);
    sdk_sb_puts(b, "\"\n");
    if (!c.heat) {
      sdk_sb_puts(b, "set ylabel \"{/:Italic P}(");
      put_sym(b, vn);
      sdk_sb_puts(b, ")\"\nplot ");
      for (int64_t q = 0; q < c.n; q++) {
        int64_t g = c.g[q];
        double w = (hi[g] - lo[g]) / (double)nb;
        for (int64_t j = 0; j < nb; j++) {
          put_num_data(f, lo[g] + (j + 0.5) * w);
          fputc(' ', f);
          put_num_data(f, dens[g * nb + j]);
          fputc('\n', f);
        }
        fputs("\n\n", f);
        const char *col = COLORS[q % NCOLORS];
        if (c.n == 1)
          sdk_sb_printf(
              b,
              "'%s' index 0 using 1:2 with boxes fs transparent solid 0.22 noborder lc rgb '%s', ",
              dn, col);
        sdk_sb_printf(b, "%s'%s' index %lld using 1:2 with histeps lw 1.5 lc rgb '%s' title \"",
                      q ? ", " : "", dn, (long long)q, col);
        if (c.n == 1 && pf->nsteps > 0) {
          sdk_sb_puts(b, "at {/:Italic t} = ");
          put_num(b, (double)pf->nsteps * pf->dt[g] * pf->tscale);
          if (pf->in_periods) sdk_sb_puts(b, " {/:Italic T}");
        } else if (c.n == 1) {
          sdk_sb_puts(b, "final distribution");
        } else {
          put_grid_label(b, pf, g);
        }
        sdk_sb_puts(b, "\"");
      }
      sdk_sb_puts(b, "\n");
      if (k == 0 && c.n > 1) sdk_sb_puts(b, "unset key\n");
    } else {
      int64_t nx = pf->axn[c.hx], ny = 0;
      free(xe);
      free(ye);
      ye = NULL;
      xe = malloc((size_t)(nx + 1) * sizeof *xe);
      double *cl = malloc((size_t)nx * sizeof *cl), *ch = malloc((size_t)nx * sizeof *ch),
             *z = NULL;
      const double **cols = malloc((size_t)nx * sizeof *cols);
      if (xe && cl && ch && cols) {
        for (int64_t i = 0; i < nx; i++) {
          int64_t g = heat_grid(pf, &c, i);
          cl[i] = lo[g];
          ch[i] = hi[g];
          cols[i] = dens + g * nb;
        }
        z = regrid(nx, nb, cl, ch, cols, MAX_ROWS, &ny, &ye);
      }
      free(cl);
      free(ch);
      free(cols);
      if (!z) {
        fclose(f);
        e = SDK_FAIL(p->eb, SDK_ERR_NOMEM, "out of memory");
        break;
      }
      edges_from_centres(pf->ax[c.hx], nx, pf->axlog[c.hx], xe);
      double ylo = ye[0], yhi = ye[ny];
      /* log colour scale: distributions at different parameters differ a lot */
      double zlo, zhi, zminpos = INFINITY;
      minmax(z, (size_t)(nx * ny), &zlo, &zhi);
      for (int64_t q = 0; q < nx * ny; q++)
        if (z[q] > 0 && z[q] < zminpos) zminpos = z[q];
      if (!(zhi > 0)) zhi = 1;
      double cbmin = fmax(zminpos, zhi * 1e-5);
      if (!(cbmin < zhi)) cbmin = zhi * 1e-3;
      write_cells(f, nx, xe, ny, ye, 0, z, cbmin * 0.5);
      free(z);
      put_palette(b, "density");
      sdk_sb_printf(
          b, "set logscale cb\nset format cb '10^{%%L}'\nunset mcbtics\nset cbrange [%.6g:%.6g]\n",
          cbmin, zhi);
      sdk_sb_puts(b, "set xlabel \"");
      put_sym(b, pf->axname[c.hx]);
      sdk_sb_puts(b, "\"\nset ylabel \"");
      put_sym(b, vn);
      sdk_sb_puts(b, "\"\nset cblabel \"{/:Italic P}(");
      put_sym(b, vn);
      sdk_sb_puts(b, ")\"\n");
      if (pf->axlog[c.hx]) sdk_sb_puts(b, "set logscale x\n");
      sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[nx], ylo, yhi);
      sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d\n", dn);
    }
    e = data_close(p, f, dn);
  }
  sdk_sb_puts(b, "unset multiplot\n");
  free(dens);
  free(lo);
  free(hi);
  free(xe);
  free(ye);
  return e;
}

/* ---- saved paths (alone, or on top of the density) ---- */

/* Write the saved paths of variable vn at grid point g as blocks (one per
 * path) of "t x" lines.  *npaths gets the number of paths, xr[2] (if not
 * NULL) the range of the values. */
static sdk_err write_paths(plot *p, const char *vn, int64_t g, char dn[32], int64_t *npaths,
                           double *tlo, double *thi, double *xr) {
  const pfile *pf = p->pf;
  char path[300];
  int nt = 1;
  hsize_t tail[H5S_MAX_RANK];
  *npaths = 0;
  double *t = read_block(pf, "paths/t", g, &nt, tail, p->eb);
  if (!t) return SDK_ERR_FORMAT;
  int64_t ns = (int64_t)tail[0];
  snprintf(path, sizeof path, "paths/%s", vn);
  nt = 2;
  double *x = read_block(pf, path, g, &nt, tail, p->eb);
  if (!x) {
    free(t);
    return SDK_ERR_FORMAT;
  }
  if ((int64_t)tail[1] != ns) {
    free(t);
    free(x);
    return SDK_FAIL(p->eb, SDK_ERR_FORMAT,
                    "'%s': /%s and /paths/t disagree in the number of samples", pf->path, path);
  }
  int64_t np = (int64_t)tail[0];
  FILE *f = data_open(p, dn);
  if (!f) {
    free(t);
    free(x);
    return SDK_ERR_IO;
  }
  *tlo = INFINITY;
  *thi = -INFINITY;
  if (xr) minmax(x, (size_t)(np * ns), &xr[0], &xr[1]);
  for (int64_t k = 0; k < np; k++) {
    for (int64_t s = 0; s < ns; s++) {
      double ts = t[s] * pf->tscale;
      if (ts < *tlo) *tlo = ts;
      if (ts > *thi) *thi = ts;
      put_num_data(f, ts);
      fputc(' ', f);
      put_num_data(f, x[k * ns + s]);
      fputc('\n', f);
    }
    fputs("\n\n", f);
  }
  *npaths = np;
  free(t);
  free(x);
  return data_close(p, f, dn);
}

static sdk_err draw_paths(plot *p) {
  const pfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdk_err e = SDK_OK;
  int vi[MAX_PANELS], nv = 0;
  for (int k = 0, m = choose_vars(p, vi); k < m; k++)
    if (has_f(pf->f, "paths/%s", pf->vars[vi[k]])) vi[nv++] = vi[k];
  if (nv == 0)
    return SDK_FAIL(p->eb, SDK_ERR_USAGE, "'%s' has no saved paths of %s", pf->path,
                    p->var ? p->var : "any variable");
  int64_t g = p->grid >= 0 ? p->grid : 0;
  double *idx = NULL;
  int64_t nidx = 0;
  if (has(pf->f, "paths/index")) idx = read_1d(pf, "paths/index", &nidx, p->eb);
  put_multiplot_title(b, pf, g, "saved sample paths");
  for (int k = 0; k < nv && e == SDK_OK; k++) {
    const char *vn = pf->vars[vi[k]];
    char dn[32];
    int64_t np;
    double tlo, thi;
    if ((e = write_paths(p, vn, g, dn, &np, &tlo, &thi, NULL)) != SDK_OK) break;
    put_panel(b, k, nv, np <= 10 ? RIGHT_KEY : RIGHT_PLAIN, GAP_SHARED);
    sdk_sb_puts(b, "set xlabel ");
    if (k == nv - 1)
      put_time_label(b, pf);
    else
      sdk_sb_puts(b, "''");
    sdk_sb_printf(b, "\nset format x %s\nset ylabel \"", k == nv - 1 ? "'%g'" : "''");
    put_sym(b, vn);
    sdk_sb_printf(b, "\"\nset xrange [%.9g:%.9g]\n", tlo, thi > tlo ? thi : tlo + 1);
    if (np <= 10)
      sdk_sb_puts(
          b,
          k == 0
              ? "set key at screen 0.79, screen 0.865 left top vertical Left reverse font ',12'\n"
              : "unset key\n");
    else
      sdk_sb_puts(b, "unset key\n");
    sdk_sb_puts(b, "plot ");
    for (int64_t q = 0; q < np; q++) {
      sdk_sb_printf(b, "%s'%s' index %lld using 1:2 with lines lw 1.2 lc rgb '%s'", q ? ", " : "",
                    dn, (long long)q, COLORS[q % NCOLORS]);
      if (np <= 10)
        sdk_sb_printf(b, " title 'path %lld'", (long long)(idx && q < nidx ? count_of(idx[q]) : q));
    }
    sdk_sb_puts(b, "\n");
  }
  sdk_sb_puts(b, "unset multiplot\n");
  free(idx);
  return e;
}

/* ---- density over time ---- */

static sdk_err draw_density(plot *p) {
  const pfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdk_err e = SDK_OK;
  const char *vn = NULL;
  for (long v = 0; v < pf->nvars && !vn; v++)
    if ((!p->var || !strcmp(p->var, pf->vars[v])) && has_f(pf->f, "density/%s/P", pf->vars[v]))
      vn = pf->vars[v];
  if (!vn)
    return SDK_FAIL(p->eb, SDK_ERR_USAGE, "'%s' has no density of %s", pf->path,
                    p->var ? p->var : "any variable");
  int64_t g = p->grid >= 0 ? p->grid : 0;
  char path[300];
  int nt = 1, ntl = -1, nth = -1;
  hsize_t tail[H5S_MAX_RANK], tl[H5S_MAX_RANK], th[H5S_MAX_RANK];
  double *t = read_block(pf, "density/t", g, &nt, tail, p->eb);
  double *P = NULL, *lo = NULL, *hi = NULL, *xe = NULL, *ye = NULL, *z = NULL;
  if (!t) return SDK_ERR_FORMAT;
  int64_t ns = (int64_t)tail[0];
  nt = 2;
  snprintf(path, sizeof path, "density/%s/P", vn);
  P = read_block(pf, path, g, &nt, tail, p->eb);
  snprintf(path, sizeof path, "density/%s/lo", vn);
  if (P) lo = read_block(pf, path, g, &ntl, tl, p->eb);
  snprintf(path, sizeof path, "density/%s/hi", vn);
  if (lo) hi = read_block(pf, path, g, &nth, th, p->eb);
  if (!hi) {
    e = SDK_ERR_FORMAT;
    goto out;
  }
  int64_t nb = (int64_t)tail[1];
  /* lo/hi: one range per grid point, or one per sample */
  int per_sample = ntl == 1;
  if ((int64_t)tail[0] != ns || nb < 1 || ntl != nth || ntl > 1 ||
      (per_sample && ((int64_t)tl[0] != ns || (int64_t)th[0] != ns))) {
    e = SDK_FAIL(p->eb, SDK_ERR_FORMAT, "'%s': the density of %s has inconsistent shapes", pf->path,
                 vn);
    goto out;
  }
  if (ns < 1) {
    e = SDK_FAIL(p->eb, SDK_ERR_FORMAT, "'%s': the density has no samples", pf->path);
    goto out;
  }
  int coarse = 0;
  snprintf(path, sizeof path, "density/%s", vn);
  hid_t grp = H5Oopen(pf->f, path, H5P_DEFAULT);
  if (grp >= 0) {
    double cg = 0;
    if (sdk_h5_num_attr(grp, "coarse_grain", H5T_NATIVE_DOUBLE, &cg, 1) == 0) coarse = cg != 0;
    H5Oclose(grp);
  }

  /* columns: every ck-th sample (at most MAX_COLS); rows: one grid for
   * all (at most MAX_ROWS) */
  int64_t ck = (ns + MAX_COLS - 1) / MAX_COLS;
  int64_t nx = (ns + ck - 1) / ck, ny = 0;
  xe = malloc((size_t)(nx + 1) * sizeof *xe);
  double *tc = malloc((size_t)nx * sizeof *tc), *cl = malloc((size_t)nx * sizeof *cl),
         *ch = malloc((size_t)nx * sizeof *ch);
  const double **cols = malloc((size_t)nx * sizeof *cols);
  if (xe && tc && cl && ch && cols) {
    for (int64_t i = 0; i < nx; i++) {
      int64_t s = i * ck;
      tc[i] = t[s] * pf->tscale;
      cl[i] = per_sample ? lo[s] : lo[0];
      ch[i] = per_sample ? hi[s] : hi[0];
      cols[i] = P + s * nb;
    }
    z = regrid(nx, nb, cl, ch, cols, MAX_ROWS, &ny, &ye);
  }
  free(cl);
  free(ch);
  free(cols);
  if (!z) {
    free(tc);
    e = SDK_FAIL(p->eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  double zmax = 0, zminpos = INFINITY, ylo = ye[0], yhi = ye[ny];
  for (int64_t q = 0; q < nx * ny; q++)
    if (isfinite(z[q])) {
      if (z[q] > zmax) zmax = z[q];
      if (z[q] > 0 && z[q] < zminpos) zminpos = z[q];
    }
  edges_from_centres(tc, nx, 0, xe);
  if (nx > 1 && xe[0] < 0 && tc[0] >= 0) xe[0] = tc[0]; /* do not start before t = 0 */
  free(tc);
  if (!(zmax > 0)) zmax = 1;
  double cbmin = fmax(zminpos, zmax * 1e-6);
  if (!(cbmin < zmax)) cbmin = zmax * 1e-3;
  char dn[32];
  FILE *f = data_open(p, dn);
  if (!f) {
    e = SDK_ERR_IO;
    goto out;
  }
  write_cells(f, nx, xe, ny, ye, 0, z, cbmin * 0.5);
  if ((e = data_close(p, f, dn)) != SDK_OK) goto out;

  /* sample paths on top */
  char pn[32] = "";
  int64_t np = 0;
  double pr[2] = {INFINITY, -INFINITY};
  if (has_f(pf->f, "paths/%s", vn) && has(pf->f, "paths/t")) {
    double a, c;
    if ((e = write_paths(p, vn, g, pn, &np, &a, &c, pr)) != SDK_OK) goto out;
  }
  /* y range: where the density is visible, and the paths */
  double oy[2] = {pr[0], pr[1]};
  for (int64_t i = 0; i < nx; i++)
    for (int64_t j = 0; j < ny; j++)
      if (z[i * ny + j] >= cbmin) {
        if (ye[j] < oy[0]) oy[0] = ye[j];
        if (ye[j + 1] > oy[1]) oy[1] = ye[j + 1];
      }
  if (oy[0] < oy[1]) {
    /* a margin where the density does not reach the edge of the bins */
    double pad = 0.06 * (oy[1] - oy[0]), full[2] = {ylo, yhi};
    ylo = fmin(fmax(oy[0] - pad, full[0]), oy[0]);
    yhi = fmax(fmin(oy[1] + pad, full[1]), oy[1]);
    if (pr[0] < ylo) ylo = pr[0] - pad;
    if (pr[1] > yhi) yhi = pr[1] + pad;
  }
  /* log colour scale when the density spans decades, else linear */
  int logcb = zmax / cbmin > 100;

  put_panel(b, 0, 1, RIGHT_HEAT, GAP_SHARED);
  put_multiplot_title(b, pf, g,
                      coarse ? "coarse-grained: bins one period of the potential wide" : NULL);
  heatmap_setup(b);
  put_palette(b, "density");
  if (logcb) {
    sdk_sb_puts(b, "set logscale cb\nset format cb '10^{%L}'\nunset mcbtics\n");
    sdk_sb_printf(b, "set cbrange [%.6g:%.6g]\n", cbmin, zmax);
  } else {
    sdk_sb_printf(b, "set cbrange [0:%.6g]\n", zmax);
  }
  /* a phase: tics in units of pi */
  if (fabs(yhi - ylo - 2 * M_PI) < 1e-6 && (fabs(ylo) < 1e-9 || fabs(ylo + M_PI) < 1e-9))
    sdk_sb_printf(b, "set ytics (%s)\nset mytics 2\n",
                  ylo > -1 ? "'0' 0, 'π/2' pi/2, 'π' pi, '3π/2' 3*pi/2, '2π' 2*pi"
                           : "'−π' -pi, '−π/2' -pi/2, '0' 0, 'π/2' pi/2, 'π' pi");
  sdk_sb_puts(b, "set xlabel ");
  put_time_label(b, pf);
  sdk_sb_puts(b, "\nset ylabel \"");
  put_sym(b, vn);
  sdk_sb_puts(b, "\"\nset cblabel \"");
  sdk_sb_puts(b, coarse ? "coarse-grained " : "");
  sdk_sb_puts(b, "{/:Italic P}(");
  put_sym(b, vn);
  sdk_sb_puts(b, ", {/:Italic t})\"\n");
  sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[nx], ylo, yhi);
  if (np > 0) sdk_sb_puts(b, "set key top left opaque box font ',12'\n");
  sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d", dn);
  for (int64_t q = 0; q < np; q++)
    sdk_sb_printf(b, ", '%s' index %lld using 1:2:(0) with lines lw 1.2 lc rgb 'black'%s", pn,
                  (long long)q, q == 0 ? " title 'sample paths'" : "");
  sdk_sb_puts(b, "\nunset multiplot\n");
out:
  free(t);
  free(P);
  free(lo);
  free(hi);
  free(xe);
  free(ye);
  free(z);
  return e;
}

/* ---- order parameter ---- */

static sdk_err draw_order(plot *p) {
  const pfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdk_err e = SDK_OK;
  curves c;
  choose_curves(p, &c);
  if (c.heat) {
    /* many grid points: a handful spread over the grid */
    c.heat = 0;
    c.n = MAX_CURVES;
    for (int64_t q = 0; q < c.n; q++)
      c.g[q] = q * (pf->ngrid - 1) / (c.n - 1);
  }
  int nt = 1;
  hsize_t tail[H5S_MAX_RANK];
  double *t = read_block(pf, "order/t", -1, &nt, tail, p->eb);
  if (!t) return SDK_ERR_FORMAT;
  int64_t ns = (int64_t)tail[0];
  nt = 1;
  double *r = read_block(pf, "order/r", -1, &nt, tail, p->eb);
  double *psi = NULL;
  if (r && (int64_t)tail[0] != ns) {
    e = SDK_FAIL(p->eb, SDK_ERR_FORMAT, "'%s': /order/r and /order/t differ in length", pf->path);
    goto out;
  }
  if (!r) {
    e = SDK_ERR_FORMAT;
    goto out;
  }
  if (has(pf->f, "order/psi")) {
    nt = 1;
    psi = read_block(pf, "order/psi", -1, &nt, tail, p->eb);
    if (!psi || (int64_t)tail[0] != ns) {
      e = psi ? SDK_FAIL(p->eb, SDK_ERR_FORMAT, "'%s': /order/psi and /order/t differ in length",
                         pf->path)
              : SDK_ERR_FORMAT;
      goto out;
    }
  }
  char dn[32];
  FILE *f = data_open(p, dn);
  if (!f) {
    e = SDK_ERR_IO;
    goto out;
  }
  for (int64_t q = 0; q < c.n; q++) {
    int64_t g = c.g[q];
    for (int64_t s = 0; s < ns; s++) {
      double ps = psi ? psi[g * ns + s] : NAN;
      /* break the psi line where it wraps around */
      if (psi && s > 0 && fabs(ps - psi[g * ns + s - 1]) > M_PI) fputc('\n', f);
      put_num_data(f, t[g * ns + s] * pf->tscale);
      fputc(' ', f);
      put_num_data(f, r[g * ns + s]);
      fputc(' ', f);
      put_num_data(f, ps);
      fputc('\n', f);
    }
    fputs("\n\n", f);
  }
  if ((e = data_close(p, f, dn)) != SDK_OK) goto out;
  put_multiplot_title(b, pf, -1, NULL);
  if (c.n > 1)
    sdk_sb_puts(b,
                "set key at screen 0.79, screen 0.865 left top vertical Left reverse font ',12'\n");
  else
    sdk_sb_puts(b, "unset key\n");
  for (int panel = 0; panel < (psi ? 2 : 1); panel++) {
    int last = panel == (psi ? 1 : 0);
    put_panel(b, panel, psi ? 2 : 1, c.n > 1 ? RIGHT_KEY : RIGHT_PLAIN, GAP_SHARED);
    sdk_sb_puts(b, "set xlabel ");
    if (last)
      put_time_label(b, pf);
    else
      sdk_sb_puts(b, "''");
    sdk_sb_printf(b, "\nset format x %s\n", last ? "'%g'" : "''");
    if (panel == 0)
      sdk_sb_puts(b, "set ylabel \"order parameter {/:Italic r}\"\nset yrange [0:1.05]\n");
    else
      sdk_sb_puts(b, "set ylabel \"mean phase {/:Italic ψ}\"\nset yrange [-pi:pi]\n"
                     "set ytics ('−π' -pi, '−π/2' -pi/2, '0' 0, 'π/2' pi/2, 'π' pi)\n"
                     "unset key\n");
    sdk_sb_puts(b, "plot ");
    for (int64_t q = 0; q < c.n; q++) {
      sdk_sb_printf(b, "%s'%s' index %lld using 1:%d with lines lw 1.5 lc rgb '%s'", q ? ", " : "",
                    dn, (long long)q, panel == 0 ? 2 : 3, COLORS[q % NCOLORS]);
      if (c.n > 1 && panel == 0) {
        sdk_sb_puts(b, " title \"");
        put_grid_label(b, pf, c.g[q]);
        sdk_sb_puts(b, "\"");
      }
    }
    sdk_sb_puts(b, "\n");
  }
  sdk_sb_puts(b, "unset multiplot\n");
out:
  free(t);
  free(r);
  free(psi);
  return e;
}

/* ---------------- running gnuplot ---------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

/* Run gnuplot on script (in dir); SDK_ERR_BACKEND with its first error line
 * when it fails. */
static sdk_err run_gnuplot(const char *dir, const char *script, sdk_errbuf *eb) {
  char log[PATH_MAX];
  snprintf(log, sizeof log, "%s/gnuplot.log", dir);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return SDK_FAIL(eb, SDK_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) {
      dup2(nul, 0);
      close(nul);
    }
    if (chdir(dir) != 0) _exit(126);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(errno == ENOENT ? 127 : 126);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return SDK_FAIL(eb, SDK_ERR_IO, "waiting for gnuplot: %s", strerror(errno));
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return SDK_OK;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
    return SDK_FAIL(eb, SDK_ERR_BACKEND,
                    "gnuplot is not installed (or not on PATH); on Debian: apt-get install "
                    "gnuplot-nox");
  /* the first line that looks like an error, else the last line */
  char line[512], first[512] = "", last[512] = "";
  FILE *lf = fopen(log, "r");
  while (lf && fgets(line, sizeof line, lf)) {
    line[strcspn(line, "\n")] = 0;
    if (!line[0] || strspn(line, " ^") == strlen(line)) continue;
    snprintf(last, sizeof last, "%s", line);
    if (!first[0] && (strstr(line, "rror") || strstr(line, "line ")))
      snprintf(first, sizeof first, "%s", line);
  }
  if (lf) fclose(lf);
  if (WIFSIGNALED(st))
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "gnuplot was killed by signal %d", WTERMSIG(st));
  return SDK_FAIL(eb, SDK_ERR_BACKEND, "gnuplot failed (status %d): %s",
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                  first[0]  ? first
                  : last[0] ? last
                            : "no message");
}

/* Copy the PNG from the temporary directory onto out (atomically). */
static sdk_err install_png(const char *src, const char *out, sdk_errbuf *eb) {
  size_t n = 0;
  char *data = sdk_read_file(src, &n);
  if (!data || n < 8 || memcmp(data, "\x89PNG", 4) != 0) {
    free(data);
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "gnuplot wrote no PNG (is its pngcairo terminal there?)");
  }
  sdk_err e = sdk_atomic_write(out, data, n, 0, eb);
  free(data);
  return e;
}

static sdk_err draw_one(const pfile *pf, int obs, const char *dir, const char *out, int64_t grid,
                        const char *var, sdk_errbuf *eb) {
  plot p = {.pf = pf, .dir = dir, .grid = grid, .var = var, .eb = eb};
  static int serial = 0;
  char png[64], script[64];
  snprintf(png, sizeof png, "%s-%d.png", OBS[obs], serial);
  snprintf(script, sizeof script, "%s-%d.gp", OBS[obs], serial++);
  sdk_sb_init(&p.gp);
  preamble(&p, png);
  sdk_err e;
  switch (obs) {
  case OBS_DRIFT: e = draw_drift(&p); break;
  case OBS_MOMENTS: e = draw_moments(&p); break;
  case OBS_HIST: e = draw_hist(&p); break;
  case OBS_DENSITY: e = draw_density(&p); break;
  case OBS_PATHS: e = draw_paths(&p); break;
  default: e = draw_order(&p); break;
  }
  if (e == SDK_OK && p.gp.oom) e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (e == SDK_OK) {
    char sp[PATH_MAX];
    snprintf(sp, sizeof sp, "%s/%s", dir, script);
    FILE *f = fopen(sp, "w");
    if (!f || fputs(p.gp.s, f) < 0 || fclose(f) != 0)
      e = SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", sp, strerror(errno));
  }
  sdk_sb_free(&p.gp);
  if (e == SDK_OK) e = run_gnuplot(dir, script, eb);
  if (e == SDK_OK) {
    char src[PATH_MAX];
    snprintf(src, sizeof src, "%s/%s", dir, png);
    e = install_png(src, out, eb);
  }
  return e;
}

/* ---------------- reading without drawing (fuzzing) ---------------- */

static int present(const pfile *pf, int obs);

sdk_err sdk_plot_inspect(const char *path, FILE *info_out, sdk_errbuf *eb) {
  if (info_out) {
    sdk_err ie = sdk_h5_info(path, info_out, eb);
    if (ie != SDK_OK) return ie;
  }
  pfile pf;
  sdk_err e = pfile_open(&pf, path, eb);
  for (int obs = 0; obs < NOBS && e == SDK_OK; obs++) {
    if (!present(&pf, obs)) continue;
    plot p = {.pf = &pf, .dir = NULL, .grid = -1, .var = NULL, .eb = eb};
    sdk_sb_init(&p.gp);
    preamble(&p, "x.png");
    switch (obs) {
    case OBS_DRIFT: e = draw_drift(&p); break;
    case OBS_MOMENTS: e = draw_moments(&p); break;
    case OBS_HIST: e = draw_hist(&p); break;
    case OBS_DENSITY: e = draw_density(&p); break;
    case OBS_PATHS: e = draw_paths(&p); break;
    default: e = draw_order(&p); break;
    }
    if (e == SDK_OK && p.gp.oom) e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    /* what sdk_gp_text promises: no backquote ever reaches a script */
    if (e == SDK_OK && p.gp.s && strchr(p.gp.s, '`'))
      e = SDK_FAIL(eb, SDK_ERR_INTERNAL, "a backquote reached the %s script", OBS[obs]);
    sdk_sb_free(&p.gp);
  }
  pfile_close(&pf);
  H5Eclear2(H5E_DEFAULT);
  return e;
}

/* ---------------- the command ---------------- */

static int plot_fail(sdk_err e, const sdk_errbuf *eb) {
  cli_error("%s", eb->msg[0] ? eb->msg : sdk_err_name(e));
  return sdk_err_exit_status(e);
}

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* Which observables the file holds. */
static int present(const pfile *pf, int obs) {
  switch (obs) {
  case OBS_DRIFT: return has(pf->f, "drift/value");
  case OBS_MOMENTS: return has(pf->f, "moments/t");
  case OBS_HIST:
  case OBS_DENSITY:
  case OBS_PATHS:
    for (long v = 0; v < pf->nvars; v++)
      if (has_f(pf->f,
                obs == OBS_HIST      ? "hist/%s/density"
                : obs == OBS_DENSITY ? "density/%s/P"
                                     : "paths/%s",
                pf->vars[v]))
        return 1;
    return 0;
  default: return has(pf->f, "order/r");
  }
}

int sdk_cli_plot(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *obs_name = NULL, *var = NULL;
  int64_t grid = -1;
  int keep = 0, quiet = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    int takes = !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--observable") ||
                !strcmp(a, "--var") || !strcmp(a, "--grid");
    if (takes) {
      if (i + 1 >= argc) {
        cli_error("option '%s' needs a value\n", a);
        return 2;
      }
      val = argv[++i];
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(PLOT_HELP, stdout);
      return 0;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      out = val;
    } else if (!strcmp(a, "--observable")) {
      obs_name = val;
    } else if (!strcmp(a, "--var")) {
      var = val;
    } else if (!strcmp(a, "--grid")) {
      double g;
      if (!sdk_parse_number(val, &g) || g < 0 || g != floor(g) || g > 1e15) {
        cli_error("--grid '%s': expected a grid point index >= 0\n", val);
        return 2;
      }
      grid = (int64_t)g;
    } else if (!strcmp(a, "--keep")) {
      keep = 1;
    } else if (!strcmp(a, "--quiet")) {
      quiet = 1;
    } else if (a[0] == '-' && a[1]) {
      cli_error("unknown option '%s' (see 'sdekit plot --help')\n", a);
      return 2;
    } else if (!file) {
      file = a;
    } else {
      cli_error("unexpected argument '%s' (usage: sdekit plot FILE.h5 [-o FIG.png])\n", a);
      return 2;
    }
  }
  if (!file) {
    cli_error("missing FILE.h5 (usage: sdekit plot FILE.h5 [-o FIG.png])\n");
    return 2;
  }
  int want = -1;
  if (obs_name) {
    for (int k = 0; k < NOBS; k++)
      if (!strcmp(obs_name, OBS[k])) want = k;
    if (want < 0) {
      cli_error("--observable '%s': expected drift, moments, hist, density, paths or "
                "order\n",
                obs_name);
      return 2;
    }
  }
  if (out && !has_suffix(out, ".png")) {
    cli_error("-o '%s': expected a name ending in .png\n", out);
    return 2;
  }

  sdk_errbuf eb = {0};
  pfile pf;
  sdk_err e = pfile_open(&pf, file, &eb);
  if (e != SDK_OK) {
    pfile_close(&pf);
    H5Eclear2(H5E_DEFAULT);
    return plot_fail(e, &eb);
  }
  int rc = 0;
  char *dir = NULL;
  if (var) {
    int found = 0;
    for (long v = 0; v < pf.nvars; v++)
      found |= !strcmp(var, pf.vars[v]);
    if (!found) {
      e = SDK_FAIL(&eb, SDK_ERR_USAGE, "--var '%s': '%s' has no such variable", var, file);
      goto done;
    }
  }
  if (grid >= pf.ngrid) {
    e = SDK_FAIL(&eb, SDK_ERR_USAGE, "--grid %lld: '%s' has %lld grid point%s (0 .. %lld)",
                 (long long)grid, file, (long long)pf.ngrid, pf.ngrid == 1 ? "" : "s",
                 (long long)(pf.ngrid - 1));
    goto done;
  }
  /* what to draw */
  int todo[NOBS], ntodo = 0;
  char held[128] = "";
  for (int k = 0; k < NOBS; k++)
    if (present(&pf, k)) {
      snprintf(held + strlen(held), sizeof held - strlen(held), "%s%s", held[0] ? ", " : "",
               OBS[k]);
      /* saved paths go on top of the density when there is one */
      if (want < 0 && k == OBS_PATHS && present(&pf, OBS_DENSITY)) continue;
      if (want < 0 || want == k) todo[ntodo++] = k;
    }
  if (ntodo == 0) {
    if (want >= 0)
      e = SDK_FAIL(&eb, SDK_ERR_USAGE, "'%s' has no %s results (it holds: %s)", file, OBS[want],
                   held[0] ? held : "nothing to plot");
    else
      e = SDK_FAIL(&eb, SDK_ERR_USAGE, "'%s' holds no results to plot", file);
    goto done;
  }
  /* output names */
  char base[PATH_MAX];
  if (out) {
    snprintf(base, sizeof base, "%.*s", (int)(strlen(out) - 4), out);
  } else {
    size_t n = strlen(file);
    if (has_suffix(file, ".h5"))
      n -= 3;
    else if (has_suffix(file, ".hdf5"))
      n -= 5;
    snprintf(base, sizeof base, "%.*s", (int)n, file);
  }
  char outs[NOBS][PATH_MAX];
  for (int k = 0; k < ntodo; k++) {
    if (ntodo == 1)
      snprintf(outs[k], PATH_MAX, "%s.png", base);
    else
      snprintf(outs[k], PATH_MAX, "%s.%s.png", base, OBS[todo[k]]);
    /* the directory must exist and be writable */
    char *copy = sdk_strdup(outs[k]);
    char *slash = copy ? strrchr(copy, '/') : NULL;
    const char *d = slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
    struct stat st;
    if (!copy) {
      e = SDK_FAIL(&eb, SDK_ERR_NOMEM, "out of memory");
    } else if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
      e = SDK_FAIL(&eb, SDK_ERR_USAGE, "cannot write '%s': the directory does not exist", outs[k]);
    } else if (access(d, W_OK) != 0) {
      e = SDK_FAIL(&eb, SDK_ERR_USAGE, "cannot write '%s': the directory is not writable", outs[k]);
    }
    free(copy);
    if (e != SDK_OK) goto done;
  }
  const char *tmp = getenv("TMPDIR");
  char tmpl[PATH_MAX];
  snprintf(tmpl, sizeof tmpl, "%s/sdekit-plot.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!(dir = mkdtemp(tmpl))) {
    e = SDK_FAIL(&eb, SDK_ERR_IO, "cannot create a temporary directory in %s: %s",
                 tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
    goto done;
  }
  for (int k = 0; k < ntodo && e == SDK_OK; k++) {
    e = draw_one(&pf, todo[k], dir, outs[k], grid, var, &eb);
    if (e == SDK_OK && !quiet) {
      fputs("sdekit: wrote ", stderr);
      cli_put_escaped(stderr, outs[k]);
      fputc('\n', stderr);
    }
  }
  if (keep) {
    fputs("sdekit: gnuplot scripts and data kept in ", stderr);
    cli_put_escaped(stderr, dir);
    fputc('\n', stderr);
  } else
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
done:
  if (e != SDK_OK) rc = plot_fail(e, &eb);
  pfile_close(&pf);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}
