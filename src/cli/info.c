/* sdekit info: the summary of a result file (see info.h). */
#include "cli/info.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/numfmt.h"
#include "figure/attrs.h"
#include "figure/status.h"

#define INFO_HEAD 5 /* values tables: rows shown at each end of a long table */
#define INFO_MAX_SCAN SDEKIT_MAX_SCAN

/* Every string from the file (and its path) is printed through this: escaped
 * for the terminal (sdk_esc_term), so a name cannot send control sequences. */
static const char *esc(const char *s, char *buf, size_t n) {
  return sdk_esc_term_buf(s, buf, n);
}

typedef struct axis_info {
  const char *name;
  char ename[256]; /* name escaped for printing */
  const double *values;
  int64_t n;
  double start, stop; /* as the scan was asked for (its attributes), else the ends */
  int64_t log, list;  /* list: values given one by one (no range describes them) */
} axis_info;

/* What every part of the summary needs. */
typedef struct info {
  const sdekit_result *r;
  const char *path;
  FILE *out;
  int nax;
  axis_info ax[INFO_MAX_SCAN];
  int64_t ngrid;
  double *dt; /* [ngrid] */
} info;

/* A whole dataset as doubles (malloc'd, *n its count), or NULL when there
 * is none. */
static double *read_f64(const sdekit_result *r, const char *name, int64_t *n) {
  sdekit_dataset d;
  *n = -1;
  if (sdekit_result_dataset(r, name, &d, NULL) != SDEKIT_OK) return NULL;
  double *v = malloc(((size_t)d.count + 1) * sizeof *v);
  if (!v) return NULL;
  for (int64_t k = 0; k < d.count; k++)
    v[k] = d.type == SDEKIT_I64   ? (double)((const int64_t *)d.data)[k]
           : d.type == SDEKIT_U64 ? (double)((const uint64_t *)d.data)[k]
                                  : ((const double *)d.data)[k];
  *n = d.count;
  return v;
}

/* Scan axes and time steps: needed to make sense of everything else (the
 * reader checked that they exist and agree). */
static sdekit_status read_grid(info *in, sdekit_error *err) {
  in->nax = sdekit_result_nscan(in->r);
  if (in->nax > INFO_MAX_SCAN)
    return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': bad scan/axes attribute", in->path);
  in->ngrid = 1;
  for (int i = 0; i < in->nax; i++) {
    axis_info *ax = &in->ax[i];
    ax->name = sdekit_result_scan_name(in->r, i);
    ax->values = sdekit_result_scan_values(in->r, i, &ax->n);
    if (!ax->name || !ax->values || ax->n < 1)
      return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': scan axis %d is empty", in->path, i);
    esc(ax->name, ax->ename, sizeof ax->ename);
    char obj[300];
    snprintf(obj, sizeof obj, "scan/%s", ax->name);
    ax->start = ax->values[0];
    ax->stop = ax->values[ax->n - 1];
    cli_attr_f64(in->r, obj, "start", &ax->start, 1);
    cli_attr_f64(in->r, obj, "stop", &ax->stop, 1);
    cli_attr_i64(in->r, obj, "log", &ax->log);
    cli_attr_i64(in->r, obj, "list", &ax->list);
    in->ngrid *= ax->n;
  }
  int64_t ndt;
  in->dt = read_f64(in->r, "scan/dt", &ndt);
  if (!in->dt || ndt != in->ngrid)
    return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': /scan/dt does not match the scan axes in size",
                     in->path);
  return SDEKIT_OK;
}

/* "LABEL VALUE" for a string attribute of the root, "?" when there is none. */
static void print_str(const info *in, const char *label, const char *attr) {
  char buf[1024], eb[4096];
  if (cli_attr_str(in->r, "", attr, buf, sizeof buf) == 0)
    fprintf(in->out, "%-12s %s\n", label, esc(buf, eb, sizeof eb));
  else
    fprintf(in->out, "%-12s ?\n", label);
}

/* A run to a standard error (--target-se): the paths each grid point used
 * (their range over a scan) and the grid points that stopped at a bound. */
static void print_target(const info *in) {
  int64_t n, ns = 0;
  double *u = read_f64(in->r, "paths_used", &n);
  double *st = read_f64(in->r, "target/status", &ns);
  double lo = INFINITY, hi = -INFINITY, eps = 0;
  int64_t cnt[4] = {0};
  for (int64_t g = 0; u && g < n; g++)
    lo = u[g] < lo ? u[g] : lo, hi = u[g] > hi ? u[g] : hi;
  for (int64_t g = 0; st && g < ns; g++)
    if (st[g] >= 0 && st[g] < 4) cnt[(int)st[g]]++;
  if (u && n > 0 && lo == hi)
    fprintf(in->out, "%-12s %.0f per grid point\n", "paths used:", lo);
  else if (u && n > 0)
    fprintf(in->out, "%-12s %.0f to %.0f per grid point\n", "paths used:", lo, hi);
  int rel = cli_attr_f64(in->r, "target", "target_rse", &eps, 1) == 0;
  /* (the stops that happened alone: a bound never given is not named) */
  const char *why[4] = {"reached", "--max-paths", "--max-seconds", "NaN/Inf"};
  if (st && (rel || cli_attr_f64(in->r, "target", "target_se", &eps, 1) == 0)) {
    fprintf(in->out, "%-12s %s %g:", "target:", rel ? "--target-rse" : "--target-se", eps);
    for (int k = 0; k < 4; k++)
      if (cnt[k] > 0 || k == 0)
        fprintf(in->out, "%s %s at %lld grid point%s", k ? "," : "", why[k], (long long)cnt[k],
                cnt[k] == 1 ? "" : "s");
    fprintf(in->out, " (target/status)\n");
  }
  free(u), free(st);
}

/* --target-error and --mlmc (sim/mlmc.h): where each grid point stopped */
static void print_answer(const info *in) {
  const char *why[] = {"reached", "the bias still too large at the finest dt tried", "NaN/Inf",
                       "--max-paths", "--max-seconds"};
  double eps = 0;
  const char *group = cli_attr_f64(in->r, "target", "target_error", &eps, 1) == 0 ? "target"
                      : cli_attr_f64(in->r, "mlmc", "eps", &eps, 1) == 0          ? "mlmc"
                                                                                  : NULL;
  if (!group) return;
  if (!strcmp(group, "mlmc"))
    why[1] = "the bias estimate still above EPS/sqrt(2) after the most levels";
  char path[32];
  snprintf(path, sizeof path, "%s/status", group);
  int64_t ns = 0, cnt[5] = {0};
  double *st = read_f64(in->r, path, &ns);
  for (int64_t g = 0; st && g < ns; g++)
    if (st[g] >= 0 && st[g] < 5) cnt[(int)st[g]]++;
  if (st) {
    fprintf(in->out, "%-12s %s %g:", "target:", strcmp(group, "mlmc") ? "--target-error" : "--mlmc",
            eps);
    const char *sep = " ";
    for (int k = 0; k < 5; k++)
      if (cnt[k] > 0 || k == 0)
        fprintf(in->out, "%s%s at %lld grid point%s", sep, why[k], (long long)cnt[k],
                cnt[k] == 1 ? "" : "s"),
            sep = ", ";
    fprintf(in->out, " (%s)\n", path);
  }
  free(st);
}

/* Paths; for interacting particles also the systems they form.  Runs in
 * batches have their paths per grid point (paths_used, print_target) and
 * no other count to give. */
static void print_paths(const info *in) {
  int64_t paths = 0, particles = 0;
  sdekit_dataset used;
  print_target(in);
  print_answer(in);
  if (sdekit_result_dataset(in->r, "paths_used", &used, NULL) == SDEKIT_OK) return;
  if (cli_attr_i64(in->r, "", "paths", &paths) != 0) return;
  fprintf(in->out, "%-12s %lld per grid point", "paths:", (long long)paths);
  if (cli_attr_i64(in->r, "", "particles", &particles) == 0 && particles > 0 &&
      paths % particles == 0) {
    long long sys = (long long)(paths / particles);
    fprintf(in->out, " (%lld system%s of %lld particle%s)", sys, sys == 1 ? "" : "s",
            (long long)particles, particles == 1 ? "" : "s");
  }
  fputc('\n', in->out);
}

/* File, version, model, command, scheme, precision, backend, paths, seed. */
static void print_origin(const info *in) {
  char buf[1024], ebuf[4096];
  FILE *out = in->out;
  int64_t fv = 0;
  cli_attr_i64(in->r, "", "format_version", &fv);
  fprintf(out, "%-12s %s\n", "file:", esc(in->path, ebuf, sizeof ebuf));
  if (cli_attr_str(in->r, "", "version", buf, sizeof buf) != 0) snprintf(buf, sizeof buf, "?");
  fprintf(out, "%-12s sdekit %s (format %lld)\n", "written by:", esc(buf, ebuf, sizeof ebuf),
          (long long)fv);
  char name[256], mpath[512], e2[2048];
  if (cli_attr_str(in->r, "", "model_name", name, sizeof name) != 0)
    snprintf(name, sizeof name, "?");
  esc(name, ebuf, sizeof ebuf);
  if (cli_attr_str(in->r, "", "model_path", mpath, sizeof mpath) == 0 && mpath[0])
    fprintf(out, "%-12s %s (%s)\n", "model:", ebuf, esc(mpath, e2, sizeof e2));
  else
    fprintf(out, "%-12s %s\n", "model:", ebuf);
  print_str(in, "command:", "command_line");
  print_str(in, "scheme:", "scheme");
  char why[256], ew[1024];
  if (cli_attr_str(in->r, "", "scheme_default", why, sizeof why) == 0)
    fprintf(out, "%-12s the default for %s (not asked for)\n", "", esc(why, ew, sizeof ew));
  print_str(in, "precision:", "precision");
  char comp[1024], ec[4096];
  if (cli_attr_str(in->r, "", "compensation", comp, sizeof comp) == 0)
    fprintf(out, "%-12s %s\n", "compensated:", esc(comp, ec, sizeof ec));
  print_str(in, "backend:", "backend");
  print_paths(in);
  uint64_t seed = 0;
  if (cli_attr_u64(in->r, "", "seed", &seed) == 0)
    fprintf(out, "%-12s %llu\n", "seed:", (unsigned long long)seed);
}

/* --target-error: the range of target/steps, each grid point's steps at
 * its own dt; 1 when they differ (nsteps is then the finest dt's alone). */
static int steps_range(const info *in, int64_t *lo, int64_t *hi) {
  int64_t n;
  double *s = read_f64(in->r, "target/steps", &n);
  *lo = INT64_MAX, *hi = 0;
  for (int64_t g = 0; s && g < n; g++) {
    int64_t k = (int64_t)s[g];
    *lo = k < *lo ? k : *lo, *hi = k > *hi ? k : *hi;
  }
  free(s);
  return n > 0 && *lo < *hi;
}

/* Time step(s), steps, period. */
static void print_time(const info *in) {
  char b1[32], b2[32];
  FILE *out = in->out;
  int64_t nsteps = 0, trans = 0, every = 0, spp = 0;
  double period = 0;
  double dmin = in->dt[0], dmax = in->dt[0];
  for (int64_t k = 1; k < in->ngrid; k++) {
    if (in->dt[k] < dmin) dmin = in->dt[k];
    if (in->dt[k] > dmax) dmax = in->dt[k];
  }
  if (dmin == dmax)
    fprintf(out, "%-12s %s\n", "dt:", sdk_fmt_exact(b1, dmin));
  else
    fprintf(out, "%-12s %s .. %s (per grid point)\n", "dt:", sdk_fmt_exact(b1, dmin),
            sdk_fmt_exact(b2, dmax));
  int64_t slo, shi;
  if (steps_range(in, &slo, &shi)) {
    cli_attr_i64(in->r, "", "transient_steps", &trans);
    fprintf(out,
            "%-12s %lld to %lld (per grid point: target/steps, at target/dt; transient %lld, "
            "samples at t = 0 and t_end)\n",
            "steps:", (long long)slo, (long long)shi, (long long)trans);
  } else if (cli_attr_i64(in->r, "", "nsteps", &nsteps) == 0) {
    fprintf(out, "%-12s %lld", "steps:", (long long)nsteps);
    if (cli_attr_i64(in->r, "", "transient_steps", &trans) == 0)
      fprintf(out, " (transient %lld", (long long)trans);
    else
      fprintf(out, " (");
    char spacing[16];
    if (cli_attr_str(in->r, "", "sample_times", spacing, sizeof spacing) == 0)
      fprintf(out, ", sampled at the times given (--sample-times, %s)", spacing);
    else if (cli_attr_i64(in->r, "", "sample_every", &every) == 0)
      fprintf(out, ", sample every %lld", (long long)every);
    fprintf(out, ")\n");
  }
  /* where the time grid differs from what was asked (the root attributes
   * of results.h, present only then) */
  double asked = 0, tend = 0;
  if (cli_attr_f64(in->r, "", "dt_asked", &asked, 1) == 0)
    fprintf(out, "%-12s %s (the step is period/spp)\n", "dt asked:", sdk_fmt_exact(b1, asked));
  if (cli_attr_f64(in->r, "", "t_end", &tend, 1) == 0 &&
      cli_attr_f64(in->r, "", "t_end_asked", &asked, 1) == 0)
    fprintf(out, "%-12s %s (asked: %s; the nearest whole number of steps)\n",
            "t_end:", sdk_fmt_exact(b1, tend), sdk_fmt_exact(b2, asked));
  if (cli_attr_f64(in->r, "", "transient_asked", &asked, 1) == 0)
    fprintf(out, "%-12s %s (the transient is transient_steps)\n",
            "transient asked:", sdk_fmt_exact(b1, asked));
  if (cli_attr_f64(in->r, "", "period", &period, 1) == 0 && (period > 0 || isnan(period))) {
    cli_attr_i64(in->r, "", "spp", &spp);
    if (isnan(period)) /* (a scanned period) */
      fprintf(out, "%-12s per grid point (%lld steps per period: spp x dt)\n",
              "period:", (long long)spp);
    else
      fprintf(out, "%-12s %s (%lld steps per period)\n", "period:", sdk_fmt_exact(b1, period),
              (long long)spp);
  }
  /* --adaptive: its settings (/adaptive's attributes; dt above is dt-max) */
  double rtol, atol, first, smallest;
  if (cli_attr_f64(in->r, "adaptive", "rtol", &rtol, 1) == 0 &&
      cli_attr_f64(in->r, "adaptive", "atol", &atol, 1) == 0 &&
      cli_attr_f64(in->r, "adaptive", "dt_first", &first, 1) == 0 &&
      cli_attr_f64(in->r, "adaptive", "dt_min_allowed", &smallest, 1) == 0)
    fprintf(out,
            "%-12s rtol %g, atol %g; sub-steps from %s (first try) down to %s, dt above the "
            "largest (adaptive/ per grid point: the sub-steps taken)\n",
            "adaptive:", rtol, atol, sdk_fmt_exact(b1, first), sdk_fmt_exact(b2, smallest));
  /* (the spectrum's resolution and averaging: /psd's attributes) */
  int64_t seg = 0, nseg = 0;
  char win[16] = "?";
  if (cli_attr_i64(in->r, "psd", "segment", &seg) == 0) {
    cli_attr_str(in->r, "psd", "window", win, sizeof win);
    cli_attr_i64(in->r, "psd", "segments", &nseg);
    fprintf(out, "%-12s segments of %lld samples (--psd-segment), %s window, %lld per path\n",
            "spectrum:", (long long)seg, win, (long long)nseg);
  }
}

/* is name among list[0..n)? */
static int in_list(const char **list, long n, const char *name) {
  for (long k = 0; k < n; k++)
    if (!strcmp(list[k], name)) return 1;
  return 0;
}

/* The scan axis of parameter name, or NULL. */
static const axis_info *axis_of(const info *in, const char *name) {
  for (int i = 0; i < in->nax; i++)
    if (!strcmp(in->ax[i].name, name)) return &in->ax[i];
  return NULL;
}

/* Variables and parameters.  A scanned parameter shows its range: its value
 * in param_values is no value of the run (NaN, or in files of sdekit 0.2
 * and before the scan's start). */
static void print_names(const info *in) {
  char ebuf[4096], b1[32], b2[32];
  FILE *out = in->out;
  const char **vars = NULL, **pnames = NULL;
  double *pvals = NULL;
  long nvars = cli_attr_strs(in->r, "", "var_names", &vars);
  if (nvars >= 0) {
    fprintf(out, "%-12s", "variables:");
    for (long v = 0; v < nvars; v++)
      fprintf(out, " %s", esc(vars[v], ebuf, sizeof ebuf));
    fputc('\n', out);
  }
  /* values per path (--init-from, --path-params or arrays): from where */
  char from[1024];
  /* (a caller's arrays are named by the API's words: "init", "path_params") */
  if (cli_attr_str(in->r, "", "init_from", from, sizeof from) == 0)
    fprintf(out, "%-12s per path, from %s%s\n", "initial:", esc(from, ebuf, sizeof ebuf),
            strcmp(from, "init") ? "" : " (arrays given to the run)");
  const char **pp = NULL;
  long npp = cli_attr_strs(in->r, "", "path_params", &pp);
  if (npp > 0 && cli_attr_str(in->r, "", "path_params_from", from, sizeof from) == 0) {
    fprintf(out, "%-12s", "per path:");
    for (long k = 0; k < npp; k++)
      fprintf(out, "%s %s", k ? "," : "", esc(pp[k], ebuf, sizeof ebuf));
    fprintf(out, ", from %s%s\n", esc(from, ebuf, sizeof ebuf),
            strcmp(from, "path_params") ? "" : " (arrays given to the run)");
  }
  /* [boundaries] of a run with --observe fpt (their names, in model order) */
  char bnames[1024];
  if (cli_attr_str(in->r, "fpt", "boundaries", bnames, sizeof bnames) == 0)
    fprintf(out, "%-12s %s\n", "boundaries:", esc(bnames, ebuf, sizeof ebuf));
  long npn = cli_attr_strs(in->r, "", "param_names", &pnames);
  if (npn > 0 && cli_attr_count(in->r, "", "param_values") == npn &&
      (pvals = malloc((size_t)npn * sizeof *pvals)) != NULL &&
      cli_attr_f64(in->r, "", "param_values", pvals, npn) == 0) {
    fprintf(out, "%-12s", "parameters:");
    for (long p = 0; p < npn; p++) {
      const axis_info *ax = axis_of(in, pnames[p]);
      fprintf(out, " %s=", esc(pnames[p], ebuf, sizeof ebuf));
      char obj[300], with[256];
      snprintf(obj, sizeof obj, "scan/%s", pnames[p]);
      if (ax && ax->list)
        fprintf(out, "(scanned, %lld values)", (long long)ax->n);
      else if (ax)
        fprintf(out, "(scanned %s .. %s)", sdk_fmt_exact(b1, ax->start),
                sdk_fmt_exact(b2, ax->stop));
      else if (cli_attr_str(in->r, obj, "zipped_with", with, sizeof with) == 0)
        fprintf(out, "(scanned with %s)", esc(with, ebuf, sizeof ebuf));
      else if (in_list(pp, npp, pnames[p]))
        fputs("(per path)", out);
      else
        fputs(sdk_fmt_exact(b1, pvals[p]), out);
      if (p + 1 < npn) fputc(',', out);
    }
    fputc('\n', out);
  }
  free(vars);
  free(pnames);
  free(pvals);
  free(pp);
}

/* The scan axes: range, points, linear or log. */
static void print_scans(const info *in) {
  char b1[32], b2[32];
  if (in->nax == 0) fprintf(in->out, "%-12s none\n", "scans:");
  for (int i = 0; i < in->nax; i++) {
    const axis_info *ax = &in->ax[i];
    if (ax->list) {
      fprintf(in->out, "%-12s %s: n=%lld values given:", i == 0 ? "scans:" : "", ax->ename,
              (long long)ax->n);
      for (int64_t k = 0; k < ax->n && k < 16; k++)
        fprintf(in->out, "%s %s", k ? "," : "", sdk_fmt_exact(b1, ax->values[k]));
      fputs(ax->n > 16 ? ", ...\n" : "\n", in->out);
      continue;
    }
    fprintf(in->out, "%-12s %s: %s .. %s, n=%lld, %s\n", i == 0 ? "scans:" : "", ax->ename,
            sdk_fmt_exact(b1, ax->start), sdk_fmt_exact(b2, ax->stop), (long long)ax->n,
            ax->log ? "log" : "linear");
  }
  /* parameters zipped with an axis: scan/NAME with attribute zipped_with */
  for (int i = 0; i < sdekit_result_ndatasets(in->r); i++) {
    const char *name = sdekit_result_dataset_name(in->r, i);
    char with[256], en[512], ew[512];
    if (!name || strncmp(name, "scan/", 5) ||
        cli_attr_str(in->r, name, "zipped_with", with, sizeof with) != 0)
      continue;
    fprintf(in->out, "%-12s %s: moves with %s (zipped)\n", "", esc(name + 5, en, sizeof en),
            esc(with, ew, sizeof ew));
  }
}

/* Every dataset with its type and shape. */
static void print_datasets(const info *in) {
  char en[512];
  fprintf(in->out, "datasets:\n");
  for (int i = 0; i < sdekit_result_ndatasets(in->r); i++) {
    sdekit_dataset d;
    if (sdekit_result_dataset(in->r, sdekit_result_dataset_name(in->r, i), &d, NULL) != SDEKIT_OK)
      continue;
    const char *tn = d.type == SDEKIT_I64 ? "int64" : d.type == SDEKIT_U64 ? "uint64" : "float64";
    char shape[128] = "scalar";
    if (d.rank > 0) {
      size_t at = 0;
      shape[at++] = '[';
      for (int k = 0; k < d.rank && at < sizeof shape - 24; k++)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%lld", k ? " x " : "",
                               (long long)d.dims[k]);
      snprintf(shape + at, sizeof shape - at, "]");
    }
    fprintf(in->out, "  /%-28s %-8s %s\n", esc(d.name, en, sizeof en), tn, shape);
  }
}

/* Rows of a values table: all, or the first and last INFO_HEAD. */
static int row_shown(int64_t k, int64_t ngrid) {
  return ngrid <= 2 * INFO_HEAD + 2 || k < INFO_HEAD || k >= ngrid - INFO_HEAD;
}

static void fmt_num(char *buf, const char *fmt, double x) {
  if (isnan(x))
    snprintf(buf, 32, "nan");
  else
    snprintf(buf, 32, fmt, x);
}

/* One value and its standard error per grid point: a statistic's element
 * (at the last sample when it has a sample axis) of grid point k is
 * val[k * stride + off]. */
typedef struct vcol {
  char head[128], ehead[128]; /* escaped */
  double *val, *err;          /* the whole datasets (shared by a dataset's columns) */
  int64_t stride, off;
  int own; /* frees val and err */
} vcol;

#define INFO_MAX_COLS 64 /* columns of one observable shown (the rest: its datasets) */
#define INFO_COLS_PER_TABLE 4

/* the column header of statistic `short_name` of group g: "value" is the
 * group's own (drift), "NAME_value" is NAME (bias_value: bias) */
static void col_head(const char *g, const char *short_name, char *out, size_t n) {
  size_t len = strlen(short_name);
  if (!strcmp(short_name, "value"))
    snprintf(out, n, "%s", g);
  else if (len > 6 && !strcmp(short_name + len - 6, "_value"))
    snprintf(out, n, "%.*s", (int)(len - 6), short_name);
  else
    snprintf(out, n, "%s", short_name);
}

/* the label of index j of the dimensions after the grid and sample axes:
 * variable names for "var" dimensions, the boundaries of fpt, else j */
static void index_label(const info *in, const sdekit_dataset *d, int first, int64_t j, char *out,
                        size_t n) {
  const char **vars = NULL;
  long nv = cli_attr_strs(in->r, "", "var_names", &vars);
  char bn[1024] = "";
  cli_attr_str(in->r, "fpt", "boundaries", bn, sizeof bn);
  size_t at = 0;
  int64_t idx[SDEKIT_MAX_RANK], rem = j;
  for (int k = d->rank - 1; k >= first; k--)
    idx[k] = rem % d->dims[k], rem /= d->dims[k];
  for (int k = first; k < d->rank && at < n; k++) {
    char one[256] = "";
    if (d->dim_names[k] && !strcmp(d->dim_names[k], "var") && idx[k] < nv)
      snprintf(one, sizeof one, "%s", vars[idx[k]]);
    else if (!strncmp(d->name, "fpt/", 4) && bn[0]) { /* the k-th comma-separated name */
      const char *s = bn;
      for (int64_t i = 0; i < idx[k] && s; i++)
        s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL;
      if (s) snprintf(one, sizeof one, "%.*s", (int)strcspn(s, ","), s);
    }
    if (!one[0]) snprintf(one, sizeof one, "%lld", (long long)idx[k]);
    at += (size_t)snprintf(out + at, n - at, "%s%s", k > first ? "," : "[", one);
  }
  if (at < n) snprintf(out + at, n - at, "]");
  free(vars);
}

/* The columns of the statistics of group g (those with a standard error, on
 * the scan grid): *n of them into c[], *nsampled of those datasets series
 * over the samples; *step the last sample's step (-1 without). */
static void group_cols(const info *in, const char *g, vcol *c, int *n, int64_t *step,
                       int *nsampled) {
  size_t gl = strlen(g);
  *n = *nsampled = 0;
  *step = -1;
  for (int i = 0; i < sdekit_result_ndatasets(in->r) && *n < INFO_MAX_COLS; i++) {
    sdekit_dataset d, e;
    const char *name = sdekit_result_dataset_name(in->r, i);
    char alt[300];
    if (!name || strncmp(name, g, gl) || name[gl] != '/' ||
        sdekit_result_dataset(in->r, name, &d, NULL) != SDEKIT_OK)
      continue;
    /* (files that do not link a value to its error: G/value and G/error, as
     * the drift has always been written) */
    if (!d.std_error && !strcmp(name + gl + 1, "value")) {
      snprintf(alt, sizeof alt, "%s/error", g);
      d.std_error = alt;
    }
    if (!d.std_error || d.grid_rank != in->nax ||
        (d.sample_axis >= 0 && d.sample_axis != d.grid_rank) ||
        sdekit_result_dataset(in->r, d.std_error, &e, NULL) != SDEKIT_OK || e.count != d.count ||
        d.count % in->ngrid)
      continue;
    int64_t stride = d.count / in->ngrid, ns = d.sample_axis >= 0 ? d.dims[d.sample_axis] : 1;
    int rest = d.grid_rank + (d.sample_axis >= 0);
    if (ns < 1) continue;
    if (d.sample_axis >= 0) {
      ++*nsampled;
      int64_t nst;
      char sn[300];
      snprintf(sn, sizeof sn, "%s/step", g);
      double *st = read_f64(in->r, sn, &nst);
      if (st && nst >= ns) *step = (int64_t)st[ns - 1];
      free(st);
    }
    int64_t nv, ne, per = stride / ns;
    double *val = read_f64(in->r, name, &nv), *err = read_f64(in->r, d.std_error, &ne);
    char head[128], en[512], ix[256];
    col_head(g, name + gl + 1, head, sizeof head);
    for (int64_t j = 0; j < per && *n < INFO_MAX_COLS && val && err; j++) {
      vcol *v = &c[(*n)++];
      *v = (vcol){.val = val, .err = err, .stride = stride, .off = (ns - 1) * per + j, .own = !j};
      ix[0] = 0;
      if (per > 1) index_label(in, &d, rest, j, ix, sizeof ix);
      snprintf(en, sizeof en, "%s%s", head, ix);
      esc(en, v->head, sizeof v->head);
      /* (the error's column: "error" beside a group's own value) */
      col_head(g, d.std_error + gl + 1, en, sizeof en);
      snprintf(en + strlen(en), sizeof en - strlen(en), "%s", ix);
      esc(!strcmp(name + gl + 1, "value") ? "error" : en, v->ehead, sizeof v->ehead);
    }
    if (!val || !err || *n == 0 || c[*n - 1].val != val) free(val), free(err);
  }
}
/* Columns [c0, c1) of a values table, a row per grid point (long tables
 * cut short), the scan coordinates first. */
static void print_table(const info *in, const vcol *c, int c0, int c1) {
  FILE *out = in->out;
  char b[32];
  int w[INFO_MAX_SCAN];
  for (int i = 0; i < in->nax; i++) {
    w[i] = (int)strlen(in->ax[i].ename);
    for (int64_t k = 0; k < in->ax[i].n; k++) {
      int len = (int)strlen(sdk_fmt_exact(b, in->ax[i].values[k]));
      if (len > w[i]) w[i] = len;
    }
  }
  fputc(' ', out);
  for (int i = 0; i < in->nax; i++)
    fprintf(out, " %*s", w[i], in->ax[i].ename);
  for (int j = c0; j < c1; j++)
    fprintf(out, " %15s %10s", c[j].head, c[j].ehead);
  fputc('\n', out);
  for (int64_t k = 0; k < in->ngrid; k++) {
    if (!row_shown(k, in->ngrid)) {
      if (k == INFO_HEAD)
        fprintf(out, "  ... (%lld more)\n", (long long)(in->ngrid - 2 * INFO_HEAD));
      continue;
    }
    int64_t idx[INFO_MAX_SCAN] = {0}, rem = k;
    for (int i = in->nax - 1; i >= 0; i--) { /* row-major: the last axis fastest */
      idx[i] = rem % in->ax[i].n;
      rem /= in->ax[i].n;
    }
    fputc(' ', out);
    for (int i = 0; i < in->nax; i++)
      fprintf(out, " %*s", w[i], sdk_fmt_exact(b, in->ax[i].values[idx[i]]));
    for (int j = c0; j < c1; j++) {
      fmt_num(b, "%.8g", c[j].val[k * c[j].stride + c[j].off]);
      fprintf(out, " %*s", (int)(strlen(c[j].head) > 15 ? strlen(c[j].head) : 15), b);
      fmt_num(b, "%.3g", c[j].err[k * c[j].stride + c[j].off]);
      fprintf(out, " %*s", (int)(strlen(c[j].ehead) > 10 ? strlen(c[j].ehead) : 10), b);
    }
    fputc('\n', out);
  }
}

/* Whether --extrapolate replaced values of group g (attribute extrapolated). */
static int extrapolated(const info *in, const char *g) {
  size_t gl = strlen(g);
  for (int i = 0; i < sdekit_result_ndatasets(in->r); i++) {
    const char *name = sdekit_result_dataset_name(in->r, i);
    int64_t x = 0;
    if (name && !strncmp(name, g, gl) && name[gl] == '/' &&
        cli_attr_i64(in->r, name, "extrapolated", &x) == 0 && x == 1)
      return 1;
  }
  return 0;
}

/* The values of every observable with standard errors (drift, tavg, fpt,
 * diffusion's long-time value; moments, expr, cov, order, the survival and
 * D_eff at the last sample), a table per observable in the file's order. */
static void print_values(const info *in) {
  char seen[2048] = ",";
  for (int i = 0; i < sdekit_result_ndatasets(in->r); i++) {
    const char *name = sdekit_result_dataset_name(in->r, i);
    char g[256], key[260], vname[256], en[1024];
    size_t gl = name ? strcspn(name, "/") : 0;
    if (!name || !name[gl] || gl >= sizeof g || !strncmp(name, "scan/", 5)) continue;
    snprintf(g, sizeof g, "%.*s", (int)gl, name);
    snprintf(key, sizeof key, ",%s,", g);
    if (strstr(seen, key) || strlen(seen) + gl + 2 >= sizeof seen) continue;
    strcat(seen, key + 1);
    vcol c[INFO_MAX_COLS];
    int n, nsampled;
    int64_t step;
    group_cols(in, g, c, &n, &step, &nsampled);
    if (n == 0) continue;
    fprintf(in->out, "%s", esc(g, en, sizeof en));
    if (cli_attr_str(in->r, g, "var", vname, sizeof vname) == 0)
      fprintf(in->out, " of %s", esc(vname, en, sizeof en));
    int64_t slo, shi;
    if (step >= 0 && steps_range(in, &slo, &shi))
      fprintf(in->out, " at the last sample (t_end: step %lld to %lld per grid point)",
              (long long)slo, (long long)shi);
    else if (step >= 0 && nsampled < n)
      fprintf(in->out, " (the series at the last sample, step %lld)", (long long)step);
    else if (step >= 0)
      fprintf(in->out, " at the last sample (step %lld)", (long long)step);
    if (extrapolated(in, g))
      fprintf(in->out, ", extrapolated (--extrapolate: value - bias, errors err + bias_err)");
    fprintf(in->out, ":\n");
    for (int j = 0; j < n; j += INFO_COLS_PER_TABLE)
      print_table(in, c, j, j + INFO_COLS_PER_TABLE < n ? j + INFO_COLS_PER_TABLE : n);
    for (int j = 0; j < n; j++)
      if (c[j].own) free(c[j].val), free(c[j].err);
  }
}

sdekit_status cli_info_print(const sdekit_result *r, const char *path, FILE *out,
                             sdekit_error *err) {
  info in = {.r = r, .path = path, .out = out};
  sdekit_status e = read_grid(&in, err);
  if (e == SDEKIT_OK) {
    print_origin(&in);
    print_time(&in);
    print_names(&in);
    print_scans(&in);
    print_datasets(&in);
    print_values(&in);
    if (fflush(out) != 0 || ferror(out)) {
      int en = errno;
      e = CLI_RAISE(err, SDEKIT_ERR_IO, "cannot write the summary of '%s': %s", path,
                    en ? strerror(en) : "write error");
    }
  }
  free(in.dt);
  return e;
}

sdekit_status cli_info(const char *path, FILE *out, sdekit_error *err) {
  sdekit_result *r = NULL;
  sdekit_status e = sdekit_result_read(path, &r, err);
  if (e == SDEKIT_OK) e = cli_info_print(r, path, out, err);
  sdekit_result_destroy(&r);
  return e;
}
