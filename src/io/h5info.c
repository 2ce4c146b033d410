/* sdekit: human-readable summary of an HDF5 result file (sdekit info). */
#include "core/escape.h"
#include "io/h5attr.h"
#include "io/io.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INFO_HEAD 5 /* drift table: rows shown at each end of a long table */

/* Every string from the file (and its path) is printed through this: escaped
 * for the terminal (sdk_esc_term), so a name cannot send control sequences. */
static const char *esc(const char *s, char *buf, size_t n) {
  return sdk_esc_term_buf(s, buf, n);
}

static hssize_t attr_npoints(hid_t loc, const char *name) {
  if (H5Aexists(loc, name) <= 0) return -1;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0) return -1;
  hid_t sp = H5Aget_space(a);
  hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  if (sp >= 0) H5Sclose(sp);
  H5Aclose(a);
  return n;
}

/* Read a whole numeric dataset as doubles; *n gets the element count.
 * Returns a malloc'd array (possibly of 0 elements) or NULL with *why (when
 * why is not NULL) saying what is wrong. */
static double *read_dset_f64(hid_t loc, const char *name, hssize_t *n, const char **why) {
  const char *w = "is missing";
  *n = -1;
  double *buf = NULL;
  hid_t d = -1, ft = -1;
  int64_t np = 0;
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) goto out;
  w = "is not a dataset";
  if ((d = H5Dopen2(loc, name, H5P_DEFAULT)) < 0) goto out;
  if ((w = sdk_h5_dset_problem(d, &np)) != NULL) goto out;
  ft = H5Dget_type(d);
  H5T_class_t c = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
  w = "is not numeric";
  if (c != H5T_FLOAT && c != H5T_INTEGER) goto out;
  w = "out of memory";
  if (!(buf = malloc(((size_t)np + 1) * sizeof *buf))) goto out;
  w = "cannot be read";
  if (np > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    free(buf);
    buf = NULL;
    goto out;
  }
  w = NULL;
  *n = np;
out:
  if (ft >= 0) H5Tclose(ft);
  if (d >= 0) H5Dclose(d);
  H5Eclear2(H5E_DEFAULT);
  if (why) *why = w;
  return buf;
}

/* ---------------- dataset listing ---------------- */

typedef struct listing {
  FILE *out;
} listing;

static void type_name(hid_t t, char *buf, size_t n) {
  size_t sz = H5Tget_size(t);
  switch (H5Tget_class(t)) {
  case H5T_FLOAT: snprintf(buf, n, "float%zu", sz * 8); break;
  case H5T_INTEGER:
    snprintf(buf, n, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", sz * 8);
    break;
  case H5T_STRING: snprintf(buf, n, "string"); break;
  default: snprintf(buf, n, "other"); break;
  }
}

static herr_t list_one(hid_t loc, const char *name, const H5L_info_t *info, void *data) {
  listing *ls = data;
  char en[512];
  if (info->type != H5L_TYPE_HARD) return 0; /* refused on opening; never followed */
  hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
  if (o < 0) return 0;
  if (H5Iget_type(o) == H5I_DATASET) {
    hid_t sp = H5Dget_space(o), t = H5Dget_type(o);
    char tn[32] = "?", shape[128] = "?";
    if (t >= 0) type_name(t, tn, sizeof tn);
    if (sp >= 0) {
      hsize_t dims[H5S_MAX_RANK];
      int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
      if (rank == 0) {
        snprintf(shape, sizeof shape, "scalar");
      } else if (rank > 0) {
        size_t at = 0;
        shape[at++] = '[';
        for (int i = 0; i < rank && at < sizeof shape - 24; i++)
          at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%llu", i ? " x " : "",
                                 (unsigned long long)dims[i]);
        snprintf(shape + at, sizeof shape - at, "]");
      }
    }
    fprintf(ls->out, "  /%-28s %-8s %s\n", esc(name, en, sizeof en), tn, shape);
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
  }
  H5Oclose(o);
  return 0;
}

/* ---------------- summary ---------------- */

typedef struct axis_info {
  char *name;
  char ename[256]; /* name escaped for printing */
  double *values;
  hssize_t n;
} axis_info;

static sdk_err fail_format(sdk_errbuf *eb, const char *path, const char *why) {
  return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s' is not an sdekit result file (%s)", path, why);
}

static void print_str(FILE *out, hid_t root, const char *label, const char *attr) {
  char buf[1024], eb[4096];
  if (sdk_h5_str_attr(root, attr, buf, sizeof buf) == 0)
    fprintf(out, "%-12s %s\n", label, esc(buf, eb, sizeof eb));
  else
    fprintf(out, "%-12s ?\n", label);
}

/* Rows of the drift table: all, or the first and last INFO_HEAD. */
static int drift_row_shown(int64_t k, int64_t ngrid) {
  return ngrid <= 2 * INFO_HEAD + 2 || k < INFO_HEAD || k >= ngrid - INFO_HEAD;
}

static void fmt_num(char *buf, const char *fmt, double x) {
  if (isnan(x))
    snprintf(buf, 32, "nan");
  else
    snprintf(buf, 32, fmt, x);
}

static void print_drift(FILE *out, hid_t file, const axis_info *ax, int nax, int64_t ngrid) {
  hssize_t nv, ne;
  char vname[256] = "?", b[32], en[1024];
  double *val = read_dset_f64(file, "drift/value", &nv, NULL);
  double *err = read_dset_f64(file, "drift/error", &ne, NULL);
  hid_t g = H5Gopen2(file, "drift", H5P_DEFAULT);
  if (g >= 0) {
    sdk_h5_str_attr(g, "var", vname, sizeof vname);
    H5Gclose(g);
  }
  if (!val || !err || nv != ngrid || ne != ngrid) {
    fprintf(out, "drift: (unreadable or of the wrong size)\n");
    goto out;
  }
  /* column widths from the rows shown */
  int w[SDK_MAX_SCAN];
  for (int i = 0; i < nax; i++) {
    w[i] = (int)strlen(ax[i].ename);
    for (hssize_t k = 0; k < ax[i].n; k++) {
      int len = (int)strlen(sdk_fmt_exact(b, ax[i].values[k]));
      if (len > w[i]) w[i] = len;
    }
  }
  fprintf(out, "drift of %s:\n ", esc(vname, en, sizeof en));
  for (int i = 0; i < nax; i++)
    fprintf(out, " %*s", w[i], ax[i].ename);
  fprintf(out, " %15s %10s\n", "drift", "error");
  for (int64_t k = 0; k < ngrid; k++) {
    if (!drift_row_shown(k, ngrid)) {
      if (k == INFO_HEAD) fprintf(out, "  ... (%lld more)\n", (long long)(ngrid - 2 * INFO_HEAD));
      continue;
    }
    int64_t idx[SDK_MAX_SCAN] = {0};
    if (nax == 2) {
      idx[0] = k / ax[1].n;
      idx[1] = k % ax[1].n;
    } else if (nax == 1) {
      idx[0] = k;
    }
    fputc(' ', out);
    for (int i = 0; i < nax; i++)
      fprintf(out, " %*s", w[i], sdk_fmt_exact(b, ax[i].values[idx[i]]));
    fmt_num(b, "%.8g", val[k]);
    fprintf(out, " %15s", b);
    fmt_num(b, "%.3g", err[k]);
    fprintf(out, " %10s\n", b);
  }
out:
  free(val);
  free(err);
}

/* An open result file and what every part of the summary needs. */
typedef struct info {
  const char *path;
  hid_t file, sg; /* the file, its scan group */
  int64_t fv;     /* format_version */
  char **axes;
  long nax;
  axis_info ax[SDK_MAX_SCAN];
  int64_t ngrid;
  double *dt; /* [ngrid] */
} info;

/* Is it an sdekit result file of a format this sdekit reads? */
static sdk_err identify(info *in, sdk_errbuf *eb) {
  char buf[1024];
  if (sdk_h5_str_attr(in->file, "format", buf, sizeof buf) != 0 || strcmp(buf, "sdekit") != 0)
    return fail_format(eb, in->path, "no format = \"sdekit\" attribute");
  if (sdk_h5_num_attr(in->file, "format_version", H5T_NATIVE_INT64, &in->fv, 1) != 0 || in->fv < 1)
    return fail_format(eb, in->path, "no valid format_version attribute");
  if (in->fv > SDK_H5_FORMAT_VERSION)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "'%s' was written by a newer sdekit (format %lld; this one reads up to %d)",
                    in->path, (long long)in->fv, SDK_H5_FORMAT_VERSION);
  return SDK_OK;
}

/* Scan axes and time steps: needed to make sense of everything else. */
static sdk_err read_grid(info *in, sdk_errbuf *eb) {
  const char *path = in->path, *why = NULL;
  if (H5Lexists(in->file, "scan", H5P_DEFAULT) <= 0 ||
      (in->sg = H5Gopen2(in->file, "scan", H5P_DEFAULT)) < 0)
    return fail_format(eb, path, "no scan group");
  in->nax = sdk_h5_strs_attr(in->sg, "axes", &in->axes);
  if (in->nax < 0 || in->nax > SDK_MAX_SCAN)
    return fail_format(eb, path, "bad scan/axes attribute");
  in->ngrid = 1;
  for (long i = 0; i < in->nax; i++) {
    axis_info *ax = &in->ax[i];
    ax->name = in->axes[i];
    sdk_esc_term_buf(in->axes[i], ax->ename, sizeof ax->ename);
    if (!sdk_h5_link_name_ok(in->axes[i]) || !strcmp(in->axes[i], "dt"))
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': scan axis name '%s' is not a dataset name", path,
                      in->axes[i]);
    ax->values = read_dset_f64(in->sg, in->axes[i], &ax->n, &why);
    if (!ax->values || ax->n < 1)
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': scan axis /scan/%s %s", path, in->axes[i],
                      why ? why : "is empty");
    /* both factors are at most SDK_H5_MAX_ELEMENTS: no overflow */
    in->ngrid *= ax->n;
    if (in->ngrid > SDK_H5_MAX_ELEMENTS)
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': the scan grid has more than 2^27 points", path);
  }
  hssize_t ndt;
  in->dt = read_dset_f64(in->sg, "dt", &ndt, &why);
  if (!in->dt || ndt != in->ngrid)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': /scan/dt %s", path,
                    why ? why : "does not match the scan axes in size");
  return SDK_OK;
}

/* File, version, model, command, scheme, precision, backend, paths, seed. */
static void print_origin(FILE *out, const info *in) {
  char buf[1024], ebuf[4096];
  hid_t file = in->file;
  fprintf(out, "%-12s %s\n", "file:", esc(in->path, ebuf, sizeof ebuf));
  if (sdk_h5_str_attr(file, "version", buf, sizeof buf) != 0) snprintf(buf, sizeof buf, "?");
  fprintf(out, "%-12s sdekit %s (format %lld)\n", "written by:", esc(buf, ebuf, sizeof ebuf),
          (long long)in->fv);
  {
    char name[256], mpath[512], e2[2048];
    if (sdk_h5_str_attr(file, "model_name", name, sizeof name) != 0)
      snprintf(name, sizeof name, "?");
    esc(name, ebuf, sizeof ebuf);
    if (sdk_h5_str_attr(file, "model_path", mpath, sizeof mpath) == 0 && mpath[0])
      fprintf(out, "%-12s %s (%s)\n", "model:", ebuf, esc(mpath, e2, sizeof e2));
    else
      fprintf(out, "%-12s %s\n", "model:", ebuf);
  }
  print_str(out, file, "command:", "command_line");
  print_str(out, file, "scheme:", "scheme");
  print_str(out, file, "precision:", "precision");
  print_str(out, file, "backend:", "backend");
  int64_t i64 = 0;
  uint64_t seed = 0;
  if (sdk_h5_num_attr(file, "paths", H5T_NATIVE_INT64, &i64, 1) == 0)
    fprintf(out, "%-12s %lld per grid point\n", "paths:", (long long)i64);
  if (sdk_h5_num_attr(file, "seed", H5T_NATIVE_UINT64, &seed, 1) == 0)
    fprintf(out, "%-12s %llu\n", "seed:", (unsigned long long)seed);
}

/* Time step(s), steps, period. */
static void print_time(FILE *out, const info *in) {
  char b1[32], b2[32];
  hid_t file = in->file;
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
  if (sdk_h5_num_attr(file, "nsteps", H5T_NATIVE_INT64, &nsteps, 1) == 0) {
    fprintf(out, "%-12s %lld", "steps:", (long long)nsteps);
    if (sdk_h5_num_attr(file, "transient_steps", H5T_NATIVE_INT64, &trans, 1) == 0)
      fprintf(out, " (transient %lld", (long long)trans);
    else
      fprintf(out, " (");
    if (sdk_h5_num_attr(file, "sample_every", H5T_NATIVE_INT64, &every, 1) == 0)
      fprintf(out, ", sample every %lld", (long long)every);
    fprintf(out, ")\n");
  }
  if (sdk_h5_num_attr(file, "period", H5T_NATIVE_DOUBLE, &period, 1) == 0 && period > 0) {
    sdk_h5_num_attr(file, "spp", H5T_NATIVE_INT64, &spp, 1);
    fprintf(out, "%-12s %s (%lld steps per period)\n", "period:", sdk_fmt_exact(b1, period),
            (long long)spp);
  }
}

/* Variables and parameters (the scanned ones marked). */
static void print_names(FILE *out, const info *in) {
  char ebuf[4096], b1[32];
  char **vars = NULL, **pnames = NULL;
  double *pvals = NULL;
  long nvars = sdk_h5_strs_attr(in->file, "var_names", &vars);
  if (nvars >= 0) {
    fprintf(out, "%-12s", "variables:");
    for (long v = 0; v < nvars; v++)
      fprintf(out, " %s", esc(vars[v], ebuf, sizeof ebuf));
    fputc('\n', out);
  }
  long npn = sdk_h5_strs_attr(in->file, "param_names", &pnames);
  if (npn > 0 && attr_npoints(in->file, "param_values") == npn) {
    pvals = malloc((size_t)npn * sizeof *pvals);
    if (pvals && sdk_h5_num_attr(in->file, "param_values", H5T_NATIVE_DOUBLE, pvals, npn) == 0) {
      fprintf(out, "%-12s", "parameters:");
      for (long p = 0; p < npn; p++) {
        int scanned = 0;
        for (long i = 0; i < in->nax; i++)
          scanned |= strcmp(in->axes[i], pnames[p]) == 0;
        fprintf(out, " %s=%s%s", esc(pnames[p], ebuf, sizeof ebuf),
                scanned ? "(scanned)" : sdk_fmt_exact(b1, pvals[p]), p + 1 < npn ? "," : "");
      }
      fputc('\n', out);
    }
  }
  sdk_h5_free_strs(vars, nvars);
  sdk_h5_free_strs(pnames, npn);
  free(pvals);
}

/* The scan axes: range, points, linear or log. */
static void print_scans(FILE *out, const info *in) {
  char b1[32], b2[32];
  if (in->nax == 0) fprintf(out, "%-12s none\n", "scans:");
  for (long i = 0; i < in->nax; i++) {
    const axis_info *ax = &in->ax[i];
    hid_t d = H5Dopen2(in->sg, in->axes[i], H5P_DEFAULT);
    double start = ax->values[0], stop = ax->values[ax->n - 1];
    int64_t lg = 0;
    if (d >= 0) {
      sdk_h5_num_attr(d, "start", H5T_NATIVE_DOUBLE, &start, 1);
      sdk_h5_num_attr(d, "stop", H5T_NATIVE_DOUBLE, &stop, 1);
      sdk_h5_num_attr(d, "log", H5T_NATIVE_INT64, &lg, 1);
      H5Dclose(d);
    }
    fprintf(out, "%-12s %s: %s .. %s, n=%lld, %s\n", i == 0 ? "scans:" : "", ax->ename,
            sdk_fmt_exact(b1, start), sdk_fmt_exact(b2, stop), (long long)ax->n,
            lg ? "log" : "linear");
  }
}

sdk_err sdk_h5_info(const char *path, FILE *out, sdk_errbuf *eb) {
  info in = {.path = path, .file = -1, .sg = -1, .nax = -1};
  sdk_err e;
  SDK_TRY(e, sdk_h5_open_untrusted(path, &in.file, eb), out);
  SDK_TRY(e, identify(&in, eb), out);
  SDK_TRY(e, read_grid(&in, eb), out);
  print_origin(out, &in);
  print_time(out, &in);
  print_names(out, &in);
  print_scans(out, &in);
  /* Every dataset, with its shape. */
  fprintf(out, "datasets:\n");
  listing ls = {out};
  if (H5Lvisit(in.file, H5_INDEX_NAME, H5_ITER_INC, list_one, &ls) < 0) {
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "cannot list the contents of '%s'", path);
    goto out;
  }
  if (H5Lexists(in.file, "drift", H5P_DEFAULT) > 0)
    print_drift(out, in.file, in.ax, (int)in.nax, in.ngrid);
  if (fflush(out) != 0 || ferror(out)) {
    int err = errno;
    e = SDK_FAIL(eb, SDK_ERR_IO, "cannot write the summary of '%s': %s", path,
                 err ? strerror(err) : "write error");
  }
out:
  for (int i = 0; i < SDK_MAX_SCAN; i++)
    free(in.ax[i].values);
  sdk_h5_free_strs(in.axes, in.nax);
  free(in.dt);
  if (in.sg >= 0) H5Gclose(in.sg);
  if (in.file >= 0) H5Fclose(in.file);
  H5Eclear2(H5E_DEFAULT);
  return e;
}
