/* The reader of result files for `sdekit plot` (see plotfile.h). */
#include "cli/plotfile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5attr.h"
#include "io/io.h"

int64_t sdk_pf_count(double x) {
  return isfinite(x) && x >= 0 && x <= 4611686018427387904.0 ? (int64_t)x : 0;
}

int sdk_pf_has(const sdk_plotfile *pf, const char *path) {
  char buf[1024];
  size_t n = strlen(path);
  if (n >= sizeof buf) return 0;
  for (size_t i = 0; i <= n; i++) {
    if (path[i] == '/' || path[i] == 0) {
      memcpy(buf, path, i);
      buf[i] = 0;
      if (i && H5Lexists(pf->f, buf, H5P_DEFAULT) <= 0) return 0;
    }
  }
  return 1;
}

int sdk_pf_has_f(const sdk_plotfile *pf, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return sdk_pf_has(pf, buf);
}

int sdk_pf_any_var(const sdk_plotfile *pf, const char *fmt) {
  for (long v = 0; v < pf->nvars; v++)
    if (sdk_pf_has_f(pf, fmt, pf->vars[v])) return 1;
  return 0;
}

/* Open the dataset path for reading: -1 with the error recorded when it is
 * missing, not a dataset, or may not be read (sdk_h5_dset_problem); else
 * *npoints gets its element count. */
static hid_t open_dset(const sdk_plotfile *pf, const char *path, int64_t *npoints, sdk_errbuf *eb) {
  if (!sdk_pf_has(pf, path)) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': dataset /%s is missing", pf->path, path);
    return -1;
  }
  hid_t d = H5Dopen2(pf->f, path, H5P_DEFAULT);
  if (d < 0) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /%s is not a dataset", pf->path, path);
    return -1;
  }
  const char *why = sdk_h5_dset_problem(d, npoints);
  if (why) {
    SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /%s %s", pf->path, path, why);
    H5Dclose(d);
    return -1;
  }
  return d;
}

double *sdk_pf_block(const sdk_plotfile *pf, const char *path, int64_t g, int *ntail, hsize_t *tail,
                     sdk_errbuf *eb) {
  double *buf = NULL;
  int64_t npoints = 0;
  hid_t d = open_dset(pf, path, &npoints, eb);
  if (d < 0) return NULL;
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

double *sdk_pf_1d(const sdk_plotfile *pf, const char *path, int64_t *n, sdk_errbuf *eb) {
  *n = 0;
  int64_t np = -1;
  hid_t d = open_dset(pf, path, &np, eb);
  if (d < 0) return NULL;
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

void sdk_pf_group_str(const sdk_plotfile *pf, const char *grp, const char *attr, char *buf,
                      size_t n) {
  hid_t g = H5Gopen2(pf->f, grp, H5P_DEFAULT);
  if (g >= 0) {
    sdk_h5_str_attr(g, attr, buf, n);
    H5Gclose(g);
  }
}

int sdk_pf_object_num(const sdk_plotfile *pf, const char *obj, const char *attr, double *x) {
  int r = -1;
  hid_t o = H5Oopen(pf->f, obj, H5P_DEFAULT);
  if (o >= 0) {
    r = sdk_h5_num_attr(o, attr, H5T_NATIVE_DOUBLE, x, 1);
    H5Oclose(o);
  }
  return r;
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
  H5Eclear2(H5E_DEFAULT);
}

/* The root's attributes: identity, settings, variables and parameters. */
static sdk_err read_settings(sdk_plotfile *pf, sdk_errbuf *eb) {
  const char *path = pf->path;
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
  if (sdk_h5_num_attr(pf->f, "paths", H5T_NATIVE_DOUBLE, &x, 1) == 0) pf->paths = sdk_pf_count(x);
  if (sdk_h5_num_attr(pf->f, "nsteps", H5T_NATIVE_DOUBLE, &x, 1) == 0) pf->nsteps = sdk_pf_count(x);
  if (sdk_h5_num_attr(pf->f, "particles", H5T_NATIVE_DOUBLE, &x, 1) == 0)
    pf->particles = sdk_pf_count(x);
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
  return SDK_OK;
}

/* The scan axes (names, values, log flags) and the grid they span. */
static sdk_err read_axes(sdk_plotfile *pf, sdk_errbuf *eb) {
  const char *path = pf->path;
  double x;
  hid_t sg = sdk_pf_has(pf, "scan") ? H5Gopen2(pf->f, "scan", H5P_DEFAULT) : -1;
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
    pf->ax[i] = sdk_pf_1d(pf, p, &pf->axn[i], eb);
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
  return SDK_OK;
}

/* Time in periods of the driving when the period is the same everywhere. */
static void time_scale(sdk_plotfile *pf) {
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
}

sdk_err sdk_pf_open(sdk_plotfile *pf, const char *path, sdk_errbuf *eb) {
  memset(pf, 0, sizeof *pf);
  pf->f = -1;
  pf->path = path;
  pf->nvars = pf->nparams = 0;
  sdk_err oe = sdk_h5_open_untrusted(path, &pf->f, eb);
  /* a missing or unreadable file is a usage error here, as it always was */
  if (oe != SDK_OK) return oe == SDK_ERR_IO ? SDK_ERR_USAGE : oe;

  SDK_CHECK(read_settings(pf, eb));
  SDK_CHECK(read_axes(pf, eb));
  int nt = 0;
  hsize_t tail[H5S_MAX_RANK];
  pf->dt = sdk_pf_block(pf, "scan/dt", -1, &nt, tail, eb);
  if (!pf->dt) return SDK_ERR_FORMAT;
  time_scale(pf);
  return SDK_OK;
}
