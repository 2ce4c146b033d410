/* The result file as `sdekit plot` sees it (see plotfile.h). */
#include "figure/plotfile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure/attrs.h"
#include "figure/status.h"

int64_t sdk_pf_count(double x) {
  return isfinite(x) && x >= 0 && x <= 4611686018427387904.0 ? (int64_t)x : 0;
}

int sdk_pf_has(const sdk_plotfile *pf, const char *path) {
  return path[0] && sdekit_result_nattrs(pf->r, path) >= 0;
}

int sdk_pf_has_f(const sdk_plotfile *pf, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return n >= 0 && (size_t)n < sizeof buf && sdk_pf_has(pf, buf);
}

int sdk_pf_any_var(const sdk_plotfile *pf, const char *fmt) {
  for (long v = 0; v < pf->nq; v++)
    if (sdk_pf_has_f(pf, fmt, pf->qnames[v])) return 1;
  return 0;
}

/* The dataset path into *d: 0 with the error recorded when it is missing or
 * not a dataset. */
static int get_dset(const sdk_plotfile *pf, const char *path, sdekit_dataset *d,
                    sdekit_error *err) {
  if (!sdk_pf_has(pf, path)) {
    CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': dataset /%s is missing", pf->path, path);
    return 0;
  }
  if (sdekit_result_dataset(pf->r, path, d, NULL) != SDEKIT_OK) {
    CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': /%s is not a dataset", pf->path, path);
    return 0;
  }
  return 1;
}

/* count values of d from element off on, as doubles, into a malloc'd array
 * (one more element, so that none is of size 0). */
static double *as_doubles(const sdekit_dataset *d, int64_t off, int64_t count) {
  double *buf = malloc(((size_t)count + 1) * sizeof *buf);
  if (!buf) return NULL;
  for (int64_t i = 0; i < count; i++) {
    int64_t k = off + i;
    buf[i] = d->type == SDEKIT_I64   ? (double)((const int64_t *)d->data)[k]
             : d->type == SDEKIT_U64 ? (double)((const uint64_t *)d->data)[k]
                                     : ((const double *)d->data)[k];
  }
  return buf;
}

double *sdk_pf_block(const sdk_plotfile *pf, const char *path, int64_t g, int *ntail, int64_t *tail,
                     sdekit_error *err) {
  sdekit_dataset d;
  if (!get_dset(pf, path, &d, err)) return NULL;
  /* the reader checked every dataset: each product of dimensions is at most
   * its count, at most 2^27 */
  int ok = d.rank >= pf->nscan;
  for (int i = 0; ok && i < pf->nscan; i++)
    ok = d.dims[i] == pf->axn[i];
  if (ok && *ntail >= 0) ok = d.rank == pf->nscan + *ntail;
  if (!ok) {
    CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': /%s has an unexpected type or shape (rank %d)",
              pf->path, path, d.rank);
    return NULL;
  }
  *ntail = d.rank - pf->nscan;
  int64_t block = 1;
  for (int i = pf->nscan; i < d.rank; i++) {
    tail[i - pf->nscan] = d.dims[i];
    block *= d.dims[i];
  }
  if (g >= pf->ngrid) {
    CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': cannot read /%s", pf->path, path);
    return NULL;
  }
  int whole = g < 0 || pf->nscan == 0;
  double *buf = as_doubles(&d, whole ? 0 : g * block, whole ? block * pf->ngrid : block);
  if (!buf) CLI_RAISE(err, SDEKIT_ERR_NOMEM, "out of memory reading /%s", path);
  return buf;
}

double *sdk_pf_1d(const sdk_plotfile *pf, const char *path, int64_t *n, sdekit_error *err) {
  *n = 0;
  sdekit_dataset d;
  if (!get_dset(pf, path, &d, err)) return NULL;
  double *buf = d.rank <= 1 ? as_doubles(&d, 0, d.count) : NULL;
  if (buf)
    *n = d.count;
  else
    CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': cannot read /%s as a list of numbers", pf->path, path);
  return buf;
}

void sdk_pf_group_str(const sdk_plotfile *pf, const char *grp, const char *attr, char *buf,
                      size_t n) {
  if (sdk_pf_has(pf, grp)) cli_attr_str(pf->r, grp, attr, buf, n);
}

int sdk_pf_object_num(const sdk_plotfile *pf, const char *obj, const char *attr, double *x) {
  return sdk_pf_has(pf, obj) ? cli_attr_f64(pf->r, obj, attr, x, 1) : -1;
}

void sdk_pf_grid_index(const sdk_plotfile *pf, int64_t g, int64_t idx[2]) {
  idx[0] = idx[1] = 0;
  if (pf->nscan == 2) {
    idx[0] = g / pf->axn[1];
    idx[1] = g % pf->axn[1];
  } else if (pf->nscan == 1) {
    idx[0] = g;
  }
}

void sdk_pf_close(sdk_plotfile *pf) {
  free(pf->qnames);
  free(pf->vars);
  free(pf->pnames);
  free(pf->pvals);
  free(pf->dt);
  sdekit_result_destroy(&pf->owned);
  memset(pf, 0, sizeof *pf);
}

/* The root's attributes: identity, settings, variables and parameters. */
static sdekit_status read_settings(sdk_plotfile *pf, sdekit_error *err) {
  const sdekit_result *r = pf->r;
  const char *path = pf->path;
  if (cli_attr_str(r, "", "model_name", pf->model, sizeof pf->model) != 0)
    snprintf(pf->model, sizeof pf->model, "?");
  cli_attr_str(r, "", "scheme", pf->scheme, sizeof pf->scheme);
  cli_attr_str(r, "", "precision", pf->precision, sizeof pf->precision);
  double x;
  if (cli_attr_f64(r, "", "paths", &x, 1) == 0) pf->paths = sdk_pf_count(x);
  if (cli_attr_f64(r, "", "nsteps", &x, 1) == 0) pf->nsteps = sdk_pf_count(x);
  if (cli_attr_f64(r, "", "particles", &x, 1) == 0) pf->particles = sdk_pf_count(x);
  if (cli_attr_f64(r, "", "period", &x, 1) == 0 && isfinite(x) && x > 0) pf->period = x;
  long n = cli_attr_strs(r, "", "var_names", &pf->vars);
  if (n < 1) return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': no var_names attribute", path);
  pf->nvars = n;
  for (long v = 0; v < n; v++)
    if (!cli_name_ok(pf->vars[v]))
      return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': variable name '%s' is not a dataset name",
                       path, pf->vars[v]);
  n = cli_attr_strs(r, "", "param_names", &pf->pnames);
  if (n > 0) {
    pf->nparams = n;
    pf->pvals = malloc((size_t)n * sizeof *pf->pvals);
    if (!pf->pvals || cli_attr_f64(r, "", "param_values", pf->pvals, n) != 0) {
      free(pf->pnames);
      free(pf->pvals);
      pf->pnames = NULL;
      pf->pvals = NULL;
      pf->nparams = 0;
    }
  }
  return SDEKIT_OK;
}

/* qnames: the variables, then the user observables named by the groups
 * that list them, each once. */
static sdekit_status read_quantities(sdk_plotfile *pf, sdekit_error *err) {
  static const char *const LISTS[][2] = {
      {"expr", "names"}, {"hist", "observables"}, {"tavg", "names"}};
  const char **l[3] = {NULL, NULL, NULL};
  long n[3], total = pf->nvars;
  for (int i = 0; i < 3; i++) {
    n[i] = sdk_pf_has(pf, LISTS[i][0]) ? cli_attr_strs(pf->r, LISTS[i][0], LISTS[i][1], &l[i]) : -1;
    if (n[i] > 0) total += n[i];
  }
  pf->qnames = malloc((size_t)total * sizeof *pf->qnames);
  if (!pf->qnames) {
    free(l[0]), free(l[1]), free(l[2]);
    return CLI_RAISE(err, SDEKIT_ERR_NOMEM, "out of memory");
  }
  for (long v = 0; v < pf->nvars; v++)
    pf->qnames[pf->nq++] = pf->vars[v];
  for (int i = 0; i < 3; i++) {
    for (long k = 0; k < n[i]; k++) {
      int seen = !cli_name_ok(l[i][k]);
      for (long q = 0; q < pf->nq && !seen; q++)
        seen = !strcmp(pf->qnames[q], l[i][k]);
      if (!seen) pf->qnames[pf->nq++] = l[i][k];
    }
    free(l[i]);
  }
  return SDEKIT_OK;
}

/* The scan axes (names, values, log flags) and the grid they span. */
static sdekit_status read_axes(sdk_plotfile *pf, sdekit_error *err) {
  const char *path = pf->path;
  int nax = sdekit_result_nscan(pf->r);
  if (nax < 0 || nax > SDEKIT_MAX_SCAN)
    return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': bad scan/axes attribute", path);
  /* a picture of more axes would have to pick or merge some: refused rather
   * than drawn over a grid it does not show */
  if (nax > 2) {
    char names[256] = "";
    size_t len = 0;
    for (int i = 0; i < nax && len < sizeof names; i++)
      len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                              sdekit_result_scan_name(pf->r, i));
    return CLI_RAISE(err, SDEKIT_ERR_USAGE,
                     "'%s' has %d scan axes (%s): sdekit plot draws at most 2.  Plot the TSV "
                     "output's blocks (one per combination of all but the last axis: gnuplot's "
                     "index), or the arrays of sdekit.load() (one dimension per axis) in Python, "
                     "or rerun with fewer --scan",
                     path, nax, names);
  }
  pf->nscan = nax;
  pf->ngrid = 1;
  for (int i = 0; i < pf->nscan; i++) {
    const char *name = pf->axname[i] = sdekit_result_scan_name(pf->r, i);
    if (!cli_name_ok(name) || !strcmp(name, "dt"))
      return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': scan axis name '%s' is not a dataset name",
                       path, name ? name : "");
    pf->ax[i] = sdekit_result_scan_values(pf->r, i, &pf->axn[i]);
    if (!pf->ax[i] || pf->axn[i] < 1)
      return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': scan axis /scan/%s is empty", path, name);
    char p[300];
    double x;
    snprintf(p, sizeof p, "scan/%s", name);
    if (cli_attr_f64(pf->r, p, "log", &x, 1) == 0) pf->axlog[i] = x != 0;
    /* a map's cells and a curve's points follow the axis in its order: one
     * out of order lost cells and drew zigzags (a review), so refused */
    int up = 1, down = 1;
    for (int64_t k = 1; k < pf->axn[i]; k++)
      up &= pf->ax[i][k] > pf->ax[i][k - 1], down &= pf->ax[i][k] < pf->ax[i][k - 1];
    if (!up && !down)
      return CLI_RAISE(err, SDEKIT_ERR_USAGE,
                       "'%s': the values of scan axis %s are not in order (nor all different): "
                       "sdekit plot draws an axis in order; the TSV and HDF5 output hold every "
                       "grid point, or rerun with the values sorted",
                       path, name);
    /* both factors are at most 2^27 (the reader's limit): no overflow */
    pf->ngrid *= pf->axn[i];
    if (pf->ngrid > ((int64_t)1 << 27))
      return CLI_RAISE(err, SDEKIT_ERR_FORMAT, "'%s': the scan grid has more than 2^27 points",
                       path);
  }
  return SDEKIT_OK;
}

/* Time in periods of the driving when the period is the same everywhere. */
static void time_scale(sdk_plotfile *pf) {
  char spacing[8];
  pf->tlog = cli_attr_str(pf->r, "", "sample_times", spacing, sizeof spacing) == 0 &&
             !strcmp(spacing, "log");
  pf->tscale = 1;
  pf->in_periods = 0;
  if (pf->period > 0) {
    double spp = 0;
    int same = cli_attr_f64(pf->r, "", "spp", &spp, 1) == 0 && spp > 0;
    for (int64_t g = 0; same && g < pf->ngrid; g++)
      same = fabs(pf->dt[g] * spp - pf->period) <= 1e-9 * pf->period;
    if (same) {
      pf->tscale = 1 / pf->period;
      pf->in_periods = 1;
    }
  }
}

sdekit_status sdk_pf_attach(sdk_plotfile *pf, const char *path, const sdekit_result *r,
                            sdekit_error *err) {
  memset(pf, 0, sizeof *pf);
  pf->path = path;
  pf->r = r;
  CLI_CHECK(read_settings(pf, err));
  CLI_CHECK(read_quantities(pf, err));
  CLI_CHECK(read_axes(pf, err));
  int nt = 0;
  int64_t tail[SDEKIT_MAX_RANK];
  pf->dt = sdk_pf_block(pf, "scan/dt", -1, &nt, tail, err);
  if (!pf->dt) return SDEKIT_ERR_FORMAT;
  time_scale(pf);
  return SDEKIT_OK;
}

sdekit_status sdk_pf_open(sdk_plotfile *pf, const char *path, sdekit_error *err) {
  memset(pf, 0, sizeof *pf);
  sdekit_result *r = NULL;
  sdekit_status s = sdekit_result_read(path, &r, err);
  if (s != SDEKIT_OK) {
    /* a missing or unreadable file is a usage error here, as it always was */
    if (s == SDEKIT_ERR_IO) s = SDEKIT_ERR_USAGE;
    if (err) err->status = s;
    return s;
  }
  s = sdk_pf_attach(pf, path, r, err);
  pf->owned = r;
  return s;
}
