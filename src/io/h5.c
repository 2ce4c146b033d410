/* sdekit: HDF5 writer (layout in io.h). */
#include "io/io.h"

#include "core/atomicfile.h"

#include <errno.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct h5w {
  sdk_errbuf *eb;
  const char *path; /* final path, for messages */
  hid_t str_t;      /* variable-length UTF-8 string */
  hid_t gcpl, dcpl; /* creation properties without time tracking */
} h5w;

/* Most specific message on the HDF5 error stack (walked innermost first). */
static herr_t h5_first_msg(unsigned n, const H5E_error2_t *e, void *data) {
  char *out = data;
  if (n == 0 && e->desc && e->desc[0]) snprintf(out, 256, "%s", e->desc);
  return 0;
}

/* Report an HDF5 failure while doing `what` (printf-style) and return SDK_ERR_IO. */
__attribute__((format(printf, 2, 3))) static sdk_err h5_fail(h5w *w, const char *fmt, ...) {
  char what[512], detail[256] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_first_msg, detail);
  H5Eclear2(H5E_DEFAULT);
  if (detail[0])
    return SDK_FAIL(w->eb, SDK_ERR_IO, "cannot write '%s': HDF5 error %s: %s", w->path, what,
                    detail);
  return SDK_FAIL(w->eb, SDK_ERR_IO, "cannot write '%s': HDF5 error %s", w->path, what);
}

/* Dataspace of the given rank (rank 0: scalar). */
static hid_t make_space(int rank, const hsize_t *dims) {
  return rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
}

static sdk_err attr_write(h5w *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                          hsize_t n, const void *data) {
  hid_t sp = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
  if (sp < 0) return h5_fail(w, "creating dataspace for attribute '%s'", name);
  /* (any further HDF5 call clears the error stack: report first, then close) */
  sdk_err e = SDK_OK;
  hid_t a = H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0)
    e = h5_fail(w, "creating attribute '%s'", name);
  else if ((rank == 0 || n > 0) && H5Awrite(a, mtype, data) < 0)
    e = h5_fail(w, "writing attribute '%s'", name);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  return e;
}

static sdk_err attr_str(h5w *w, hid_t loc, const char *name, const char *s) {
  const char *v = s ? s : "";
  return attr_write(w, loc, name, w->str_t, w->str_t, 0, 1, &v);
}

static sdk_err attr_strs(h5w *w, hid_t loc, const char *name, const char *const *v, hsize_t n) {
  const char **tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!tmp) return SDK_FAIL(w->eb, SDK_ERR_NOMEM, "out of memory writing '%s'", w->path);
  for (hsize_t i = 0; i < n; i++)
    tmp[i] = (v && v[i]) ? v[i] : "";
  sdk_err e = attr_write(w, loc, name, w->str_t, w->str_t, 1, n, tmp);
  free(tmp);
  return e;
}

static sdk_err attr_f64(h5w *w, hid_t loc, const char *name, double x) {
  return attr_write(w, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, 1, &x);
}

static sdk_err attr_i64(h5w *w, hid_t loc, const char *name, int64_t x) {
  return attr_write(w, loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, 1, &x);
}

static sdk_err attr_u64(h5w *w, hid_t loc, const char *name, uint64_t x) {
  return attr_write(w, loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, 1, &x);
}

static hid_t group_create(h5w *w, hid_t loc, const char *name) {
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, w->gcpl, H5P_DEFAULT);
  if (g < 0) h5_fail(w, "creating group '%s'", name);
  return g;
}

/* Create and fill a dataset; returns its id (caller closes) or -1 with eb set. */
static hid_t dset_write(h5w *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                        const hsize_t *dims, const void *data) {
  hid_t sp = make_space(rank, dims);
  if (sp < 0) {
    h5_fail(w, "creating dataspace for '%s'", name);
    return -1;
  }
  hid_t d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, w->dcpl, H5P_DEFAULT);
  if (d < 0) {
    h5_fail(w, "creating dataset '%s'", name);
    H5Sclose(sp);
    return -1;
  }
  H5Sclose(sp);
  hsize_t nel = 1;
  for (int i = 0; i < rank; i++)
    nel *= dims[i];
  if (nel > 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    h5_fail(w, "writing dataset '%s'", name);
    H5Dclose(d);
    return -1;
  }
  return d;
}

static sdk_err dset_f64(h5w *w, hid_t loc, const char *name, int rank, const hsize_t *dims,
                        const double *data) {
  hid_t d = dset_write(w, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, rank, dims, data);
  if (d < 0) return SDK_ERR_IO;
  H5Dclose(d);
  return SDK_OK;
}

/* A chunked, deflate-compressed dataset of doubles (sample paths, densities). */
static sdk_err dset_f64_z(h5w *w, hid_t loc, const char *name, int rank, const hsize_t *dims,
                          const double *data) {
  hsize_t nel = 1, chunk[8];
  for (int i = 0; i < rank; i++)
    nel *= dims[i];
  if (nel == 0 || rank > 8) return dset_f64(w, loc, name, rank, dims, data);
  /* chunks of whole trailing rows, about 64k elements */
  hsize_t acc = 1;
  for (int i = rank - 1; i >= 0; i--) {
    hsize_t want = acc * dims[i] <= 65536 ? dims[i] : (65536 / acc > 0 ? 65536 / acc : 1);
    chunk[i] = want > 0 ? want : 1;
    acc *= chunk[i];
  }
  hid_t dcpl = H5Pcopy(w->dcpl);
  hid_t sp = make_space(rank, dims);
  sdk_err e = SDK_OK;
  if (dcpl < 0 || sp < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_deflate(dcpl, 4) < 0) {
    h5_fail(w, "setting up compression for '%s'", name);
    e = SDK_ERR_IO;
  } else {
    hid_t d = H5Dcreate2(loc, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
      h5_fail(w, "writing dataset '%s'", name);
      e = SDK_ERR_IO;
    }
    if (d >= 0) H5Dclose(d);
  }
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  return e;
}

/* A name that HDF5 takes literally as one link name. */
static int bad_link_name(const char *s) {
  return !s || !s[0] || strchr(s, '/') || strcmp(s, ".") == 0;
}

static sdk_err check_results(const sdk_results *r, const char *path, sdk_errbuf *eb) {
  if (r->nscan < 0 || r->nscan > SDK_MAX_SCAN)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': bad number of scan axes %d", path,
                    r->nscan);
  int64_t ng = 1;
  for (int i = 0; i < r->nscan; i++) {
    if (r->scan[i].n < 1 || !r->scan[i].values)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': scan axis %d has no values", path, i);
    if (bad_link_name(r->scan[i].name) || strcmp(r->scan[i].name, "dt") == 0)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                      "writing '%s': scan parameter name '%s' cannot be stored in scan/", path,
                      r->scan[i].name);
    ng *= r->scan[i].n;
  }
  if (r->nscan == 2 && strcmp(r->scan[0].name, r->scan[1].name) == 0)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': parameter '%s' scanned twice", path,
                    r->scan[0].name);
  if (ng != r->ngrid)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "writing '%s': ngrid %lld does not match the scan axes (%lld)", path,
                    (long long)r->ngrid, (long long)ng);
  if (!r->dt) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': no time steps", path);
  if (r->nvars < 1 || !r->var_names)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': no variables", path);
  for (int v = 0; v < r->nvars; v++)
    if (bad_link_name(r->var_names[v]))
      return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                      "writing '%s': variable name '%s' cannot be used as an HDF5 name", path,
                      r->var_names[v] ? r->var_names[v] : "(null)");
  if (r->nparams < 0 || (r->nparams > 0 && (!r->param_names || !r->param_values)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': bad parameter list", path);
  if (r->drift && (!r->drift_err || r->drift_var < 0 || r->drift_var >= r->nvars))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': incomplete drift results", path);
  if (r->mean && (!r->var || r->nsamples < 0 || (r->nsamples > 0 && !r->sample_step)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': incomplete moment results", path);
  if (r->density && (r->bins < 1 || !r->hist_lo || !r->hist_hi))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing '%s': incomplete histogram results", path);
  return SDK_OK;
}

static sdk_err write_root(h5w *w, const sdk_results *r, hid_t root) {
  sdk_err e;
  SDK_CHECK(attr_str(w, root, "format", "sdekit"));
  SDK_CHECK(attr_i64(w, root, "format_version", SDK_H5_FORMAT_VERSION));
  SDK_CHECK(attr_str(w, root, "version", r->version));
  SDK_CHECK(attr_str(w, root, "model_name", r->model_name));
  SDK_CHECK(attr_str(w, root, "model_path", r->model_path));
  SDK_CHECK(attr_str(w, root, "model_text", r->model_text));
  SDK_CHECK(attr_str(w, root, "scheme", r->scheme));
  SDK_CHECK(attr_str(w, root, "precision", r->precision));
  SDK_CHECK(attr_str(w, root, "backend", r->backend));
  SDK_CHECK(attr_u64(w, root, "seed", r->seed));
  SDK_CHECK(attr_i64(w, root, "paths", r->paths));
  if (r->particles > 1) SDK_CHECK(attr_i64(w, root, "particles", r->particles));
  SDK_CHECK(attr_f64(w, root, "period", r->period));
  SDK_CHECK(attr_i64(w, root, "spp", r->spp));
  SDK_CHECK(attr_i64(w, root, "nsteps", r->nsteps));
  SDK_CHECK(attr_i64(w, root, "transient_steps", r->transient_steps));
  SDK_CHECK(attr_i64(w, root, "sample_every", r->sample_every));
  SDK_CHECK(attr_str(w, root, "command_line", r->command_line));
  SDK_CHECK(attr_strs(w, root, "var_names", r->var_names, (hsize_t)r->nvars));
  SDK_CHECK(attr_strs(w, root, "param_names", r->param_names, (hsize_t)r->nparams));
  e = attr_write(w, root, "param_values", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, (hsize_t)r->nparams,
                 r->param_values);
  return e;
}

/* Link path from a format; fails (INTERNAL) on truncation.  Objects are
 * created by their full path from the root so that messages name them. */
__attribute__((format(printf, 4, 5))) static sdk_err link_path(h5w *w, char *buf, size_t n,
                                                               const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  if (len < 0 || (size_t)len >= n)
    return SDK_FAIL(w->eb, SDK_ERR_INTERNAL, "writing '%s': name too long: %.60s...", w->path, buf);
  return SDK_OK;
}

static sdk_err write_scan(h5w *w, const sdk_results *r, hid_t file, int rank,
                          const hsize_t *gdims) {
  sdk_err e = SDK_OK;
  char name[512];
  hid_t g = group_create(w, file, "scan");
  if (g < 0) return SDK_ERR_IO;
  const char *axes[SDK_MAX_SCAN];
  for (int i = 0; i < r->nscan; i++)
    axes[i] = r->scan[i].name;
  e = attr_strs(w, g, "axes", axes, (hsize_t)r->nscan);
  H5Gclose(g);
  if (e) return e;
  for (int i = 0; i < r->nscan; i++) {
    const sdk_scan_axis *a = &r->scan[i];
    hsize_t n = (hsize_t)a->n;
    SDK_CHECK(link_path(w, name, sizeof name, "scan/%s", a->name));
    hid_t d = dset_write(w, file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, a->values);
    if (d < 0) return SDK_ERR_IO;
    if ((e = attr_f64(w, d, "start", a->start)) == SDK_OK &&
        (e = attr_f64(w, d, "stop", a->stop)) == SDK_OK &&
        (e = attr_i64(w, d, "n", a->n)) == SDK_OK)
      e = attr_i64(w, d, "log", a->log ? 1 : 0);
    H5Dclose(d);
    if (e) return e;
  }
  return dset_f64(w, file, "scan/dt", rank, gdims, r->dt);
}

static sdk_err write_drift(h5w *w, const sdk_results *r, hid_t file, int rank,
                           const hsize_t *gdims) {
  sdk_err e = SDK_OK;
  const char *vname = r->var_names[r->drift_var];
  hid_t g = group_create(w, file, "drift");
  if (g < 0) return SDK_ERR_IO;
  e = attr_str(w, g, "var", vname);
  H5Gclose(g);
  if (e) return e;
  const char *names[2] = {"drift/value", "drift/error"};
  const double *data[2] = {r->drift, r->drift_err};
  for (int k = 0; k < 2; k++) {
    hid_t d =
        dset_write(w, file, names[k], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, rank, gdims, data[k]);
    if (d < 0) return SDK_ERR_IO;
    e = attr_str(w, d, "var", vname);
    H5Dclose(d);
    if (e) return e;
  }
  return SDK_OK;
}

static sdk_err write_moments(h5w *w, const sdk_results *r, hid_t file, int rank,
                             const hsize_t *gdims) {
  sdk_err e = SDK_OK;
  int64_t ng = r->ngrid, ns = r->nsamples, nv = r->nvars;
  hsize_t dims[SDK_MAX_SCAN + 1];
  for (int i = 0; i < rank; i++)
    dims[i] = gdims[i];
  dims[rank] = (hsize_t)ns;
  size_t cnt = (size_t)(ng * ns);
  char name[512];
  hid_t g = group_create(w, file, "moments");
  if (g < 0) return SDK_ERR_IO;
  H5Gclose(g);
  double *buf = malloc((cnt ? cnt : 1) * sizeof *buf);
  if (!buf) return SDK_FAIL(w->eb, SDK_ERR_NOMEM, "out of memory writing '%s'", w->path);
  hsize_t nsd = (hsize_t)ns;
  hid_t d =
      dset_write(w, file, "moments/step", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &nsd, r->sample_step);
  if (d < 0) {
    e = SDK_ERR_IO;
    goto out;
  }
  H5Dclose(d);
  for (int64_t gi = 0; gi < ng; gi++)
    for (int64_t s = 0; s < ns; s++)
      buf[gi * ns + s] = (double)r->sample_step[s] * r->dt[gi];
  SDK_TRY(e, dset_f64(w, file, "moments/t", rank + 1, dims, buf), out);
  for (int64_t v = 0; v < nv; v++) {
    for (int k = 0; k < 2; k++) {
      const double *src = k == 0 ? r->mean : r->var;
      for (int64_t gi = 0; gi < ng; gi++)
        for (int64_t s = 0; s < ns; s++)
          buf[gi * ns + s] = src[(gi * ns + s) * nv + v];
      SDK_TRY(e,
              link_path(w, name, sizeof name, "moments/%s_%s", k == 0 ? "mean" : "var",
                        r->var_names[v]),
              out);
      SDK_TRY(e, dset_f64(w, file, name, rank + 1, dims, buf), out);
    }
  }
out:
  free(buf);
  return e;
}

static sdk_err write_hist(h5w *w, const sdk_results *r, hid_t file, int rank,
                          const hsize_t *gdims) {
  sdk_err e = SDK_OK;
  int64_t ng = r->ngrid, nb = r->bins, nv = r->nvars;
  hsize_t dims[SDK_MAX_SCAN + 1];
  for (int i = 0; i < rank; i++)
    dims[i] = gdims[i];
  dims[rank] = (hsize_t)nb;
  char name[512];
  hid_t g = group_create(w, file, "hist");
  if (g < 0) return SDK_ERR_IO;
  H5Gclose(g);
  double *buf = malloc((size_t)(ng * nb) * sizeof *buf);
  uint64_t *ubuf = malloc((size_t)ng * sizeof *ubuf);
  if (!buf || !ubuf) {
    e = SDK_FAIL(w->eb, SDK_ERR_NOMEM, "out of memory writing '%s'", w->path);
    goto out;
  }
  for (int64_t v = 0; v < nv; v++) {
    const char *vn = r->var_names[v];
    SDK_TRY(e, link_path(w, name, sizeof name, "hist/%s", vn), out);
    if ((g = group_create(w, file, name)) < 0) {
      e = SDK_ERR_IO;
      goto out;
    }
    H5Gclose(g);
    for (int64_t gi = 0; gi < ng; gi++)
      memcpy(buf + gi * nb, r->density + (gi * nv + v) * nb, (size_t)nb * sizeof *buf);
    SDK_TRY(e, link_path(w, name, sizeof name, "hist/%s/density", vn), out);
    SDK_TRY(e, dset_f64(w, file, name, rank + 1, dims, buf), out);
    const double *edges[2] = {r->hist_lo, r->hist_hi};
    const char *enames[2] = {"lo", "hi"};
    for (int k = 0; k < 2; k++) {
      for (int64_t gi = 0; gi < ng; gi++)
        buf[gi] = edges[k][gi * nv + v];
      SDK_TRY(e, link_path(w, name, sizeof name, "hist/%s/%s", vn, enames[k]), out);
      SDK_TRY(e, dset_f64(w, file, name, rank, gdims, buf), out);
    }
    const uint64_t *flows[2] = {r->hist_under, r->hist_over};
    const char *fnames[2] = {"underflow", "overflow"};
    for (int k = 0; k < 2; k++) {
      if (!flows[k]) continue;
      for (int64_t gi = 0; gi < ng; gi++)
        ubuf[gi] = flows[k][gi * nv + v];
      SDK_TRY(e, link_path(w, name, sizeof name, "hist/%s/%s", vn, fnames[k]), out);
      hid_t d = dset_write(w, file, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, rank, gdims, ubuf);
      if (d < 0) {
        e = SDK_ERR_IO;
        goto out;
      }
      H5Dclose(d);
    }
  }
out:
  free(buf);
  free(ubuf);
  return e;
}

/* Sample times shared by moments, density and paths: <grp>/step and <grp>/t. */
static sdk_err write_times(h5w *w, const sdk_results *r, hid_t file, const char *grp, int rank,
                           const hsize_t *gdims) {
  int64_t ng = r->ngrid, ns = r->nsamples;
  char name[256];
  hsize_t nsd = (hsize_t)ns, dims[SDK_MAX_SCAN + 1];
  for (int i = 0; i < rank; i++)
    dims[i] = gdims[i];
  dims[rank] = (hsize_t)ns;
  snprintf(name, sizeof name, "%s/step", grp);
  hid_t d = dset_write(w, file, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &nsd, r->sample_step);
  if (d < 0) return SDK_ERR_IO;
  H5Dclose(d);
  double *buf = malloc((size_t)(ng * ns > 0 ? ng * ns : 1) * sizeof *buf);
  if (!buf) return SDK_FAIL(w->eb, SDK_ERR_NOMEM, "out of memory writing '%s'", w->path);
  for (int64_t g = 0; g < ng; g++)
    for (int64_t s = 0; s < ns; s++)
      buf[g * ns + s] = (double)r->sample_step[s] * r->dt[g];
  snprintf(name, sizeof name, "%s/t", grp);
  sdk_err e = dset_f64(w, file, name, rank + 1, dims, buf);
  free(buf);
  return e;
}

/* paths/index [nsaved], paths/step, paths/t, paths/<var> [grid..., nsaved, ns] */
static sdk_err write_paths(h5w *w, const sdk_results *r, hid_t file, int rank,
                           const hsize_t *gdims) {
  int64_t ng = r->ngrid, ns = r->nsamples, nk = r->nsaved, nv = r->nvars;
  hid_t g = group_create(w, file, "paths");
  if (g < 0) return SDK_ERR_IO;
  H5Gclose(g);
  SDK_CHECK(write_times(w, r, file, "paths", rank, gdims));
  hsize_t nkd = (hsize_t)nk;
  hid_t d =
      dset_write(w, file, "paths/index", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &nkd, r->saved_index);
  if (d < 0) return SDK_ERR_IO;
  H5Dclose(d);
  hsize_t dims[SDK_MAX_SCAN + 2];
  for (int i = 0; i < rank; i++)
    dims[i] = gdims[i];
  dims[rank] = (hsize_t)nk;
  dims[rank + 1] = (hsize_t)ns;
  size_t cnt = (size_t)(ng * nk * ns);
  double *buf = malloc((cnt ? cnt : 1) * sizeof *buf);
  if (!buf) return SDK_FAIL(w->eb, SDK_ERR_NOMEM, "out of memory writing '%s'", w->path);
  sdk_err e = SDK_OK;
  char name[512];
  for (int64_t v = 0; v < nv && e == SDK_OK; v++) {
    for (size_t i = 0; i < cnt; i++)
      buf[i] = r->saved[i * (size_t)nv + (size_t)v];
    if ((e = link_path(w, name, sizeof name, "paths/%s", r->var_names[v])) == SDK_OK)
      e = dset_f64_z(w, file, name, rank + 2, dims, buf);
  }
  free(buf);
  return e;
}

/* density/step, density/t, density/<var>/P [grid..., ns, bins], lo/hi/underflow/overflow [grid...,
 * ns] */
static sdk_err write_density(h5w *w, const sdk_results *r, hid_t file, int rank,
                             const hsize_t *gdims) {
  int64_t ng = r->ngrid, ns = r->nsamples, nb = r->dbins;
  hid_t g = group_create(w, file, "density");
  if (g < 0) return SDK_ERR_IO;
  H5Gclose(g);
  SDK_CHECK(write_times(w, r, file, "density", rank, gdims));
  char name[512];
  const char *vn = r->var_names[r->density_var];
  SDK_CHECK(link_path(w, name, sizeof name, "density/%s", vn));
  if ((g = group_create(w, file, name)) < 0) return SDK_ERR_IO;
  sdk_err e = attr_i64(w, g, "coarse_grain", r->coarse_width > 0);
  if (e == SDK_OK) e = attr_f64(w, g, "bin_width", r->coarse_width);
  if (e == SDK_OK) e = attr_str(w, g, "var", vn);
  H5Gclose(g);
  if (e != SDK_OK) return e;
  hsize_t dims[SDK_MAX_SCAN + 2];
  for (int i = 0; i < rank; i++)
    dims[i] = gdims[i];
  dims[rank] = (hsize_t)ns;
  dims[rank + 1] = (hsize_t)nb;
  SDK_CHECK(link_path(w, name, sizeof name, "density/%s/P", vn));
  SDK_CHECK(dset_f64_z(w, file, name, rank + 2, dims, r->dP));
  SDK_CHECK(link_path(w, name, sizeof name, "density/%s/lo", vn));
  SDK_CHECK(dset_f64(w, file, name, rank + 1, dims, r->dlo));
  SDK_CHECK(link_path(w, name, sizeof name, "density/%s/hi", vn));
  SDK_CHECK(dset_f64(w, file, name, rank + 1, dims, r->dhi));
  const uint64_t *u[2] = {r->dunder, r->dover};
  const char *un[2] = {"underflow", "overflow"};
  for (int k = 0; k < 2; k++) {
    SDK_CHECK(link_path(w, name, sizeof name, "density/%s/%s", vn, un[k]));
    hid_t d = dset_write(w, file, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, rank + 1, dims, u[k]);
    if (d < 0) return SDK_ERR_IO;
    H5Dclose(d);
  }
  (void)ng;
  return SDK_OK;
}

/* order/step [ns], order/t, order/r, order/r_err, order/psi [grid..., ns];
 * attributes var, period, particles, systems, every */
static sdk_err write_order(h5w *w, const sdk_results *r, hid_t file, int rank,
                           const hsize_t *gdims) {
  int64_t ng = r->ngrid, ns = r->order_nsamples;
  hid_t g = group_create(w, file, "order");
  if (g < 0) return SDK_ERR_IO;
  int64_t np = r->particles > 0 ? r->particles : 1;
  sdk_err e = attr_str(w, g, "var", r->var_names[r->order_var]);
  if (e == SDK_OK) e = attr_f64(w, g, "period", r->order_period);
  if (e == SDK_OK) e = attr_i64(w, g, "particles", np);
  if (e == SDK_OK) e = attr_i64(w, g, "systems", r->paths / np);
  if (e == SDK_OK) e = attr_i64(w, g, "every", r->order_every);
  H5Gclose(g);
  if (e != SDK_OK) return e;
  hsize_t nsd = (hsize_t)ns, dims[SDK_MAX_SCAN + 1];
  for (int i = 0; i < rank; i++)
    dims[i] = gdims[i];
  dims[rank] = (hsize_t)ns;
  hid_t d =
      dset_write(w, file, "order/step", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &nsd, r->order_step);
  if (d < 0) return SDK_ERR_IO;
  H5Dclose(d);
  double *buf = malloc((size_t)(ng * ns > 0 ? ng * ns : 1) * sizeof *buf);
  if (!buf) return SDK_FAIL(w->eb, SDK_ERR_NOMEM, "out of memory writing '%s'", w->path);
  for (int64_t q = 0; q < ng; q++)
    for (int64_t s = 0; s < ns; s++)
      buf[q * ns + s] = (double)r->order_step[s] * r->dt[q];
  e = dset_f64(w, file, "order/t", rank + 1, dims, buf);
  free(buf);
  if (e == SDK_OK) e = dset_f64(w, file, "order/r", rank + 1, dims, r->order_r);
  if (e == SDK_OK) e = dset_f64(w, file, "order/r_err", rank + 1, dims, r->order_r_err);
  if (e == SDK_OK) e = dset_f64(w, file, "order/psi", rank + 1, dims, r->order_psi);
  return e;
}

sdk_err sdk_write_h5(const sdk_results *r, const char *path, sdk_errbuf *eb) {
  SDK_CHECK(check_results(r, path, eb));
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

  h5w w = {.eb = eb, .path = path, .str_t = -1, .gcpl = -1, .dcpl = -1};
  hid_t fcpl = -1, fapl = -1, file = -1;
  sdk_err e = SDK_OK;
  sdk_atomic t;
  SDK_CHECK(sdk_atomic_open(&t, path, 0, eb));
  close(t.fd); /* HDF5 reopens it by name (O_TRUNC keeps the mode we set) */
  t.fd = -1;

  /* Reproducible output: no access/modification times on any object
   * (the file creation list covers the root group), and fixed format
   * versions: 1.8 objects, readable by any HDF5 >= 1.8, whichever
   * library version writes them. */
  if ((w.str_t = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(w.str_t, H5T_VARIABLE) < 0 ||
      H5Tset_cset(w.str_t, H5T_CSET_UTF8) < 0 || (w.gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 ||
      H5Pset_obj_track_times(w.gcpl, 0) < 0 || (w.dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
      H5Pset_obj_track_times(w.dcpl, 0) < 0 || (fcpl = H5Pcreate(H5P_FILE_CREATE)) < 0 ||
      H5Pset_obj_track_times(fcpl, 0) < 0 || (fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
      H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
      H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
    e = h5_fail(&w, "setting up properties");
    goto fail;
  }
  file = H5Fcreate(t.tmp, H5F_ACC_TRUNC, fcpl, fapl);
  if (file < 0) {
    e = h5_fail(&w, "creating the file");
    goto fail;
  }
  hid_t root = file; /* attributes on the file id go to the root group */
  hsize_t gdims[SDK_MAX_SCAN];
  int rank = r->nscan;
  for (int i = 0; i < rank; i++)
    gdims[i] = (hsize_t)r->scan[i].n;

  SDK_TRY(e, write_root(&w, r, root), fail);
  SDK_TRY(e, write_scan(&w, r, root, rank, gdims), fail);
  if (r->drift) SDK_TRY(e, write_drift(&w, r, root, rank, gdims), fail);
  if (r->nonfinite) {
    /* grid points whose paths blew up: their values are NaN, this says how many paths */
    hid_t d = dset_write(&w, root, "nonfinite", H5T_STD_I64LE, H5T_NATIVE_INT64, rank, gdims,
                         r->nonfinite);
    if (d < 0) {
      e = SDK_ERR_IO;
      goto fail;
    }
    H5Dclose(d);
  }
  if (r->mean) SDK_TRY(e, write_moments(&w, r, root, rank, gdims), fail);
  if (r->density) SDK_TRY(e, write_hist(&w, r, root, rank, gdims), fail);
  if (r->saved && r->sample_step) SDK_TRY(e, write_paths(&w, r, root, rank, gdims), fail);
  if (r->dP && r->sample_step) SDK_TRY(e, write_density(&w, r, root, rank, gdims), fail);
  if (r->order_r && r->order_step) SDK_TRY(e, write_order(&w, r, root, rank, gdims), fail);

  herr_t st = H5Fclose(file);
  file = -1;
  if (st < 0) {
    e = h5_fail(&w, "closing the file");
    goto fail;
  }
  H5Pclose(fapl);
  H5Pclose(fcpl);
  H5Pclose(w.dcpl);
  H5Pclose(w.gcpl);
  H5Tclose(w.str_t);
  return sdk_atomic_commit(&t, eb);

fail:
  if (file >= 0) H5Fclose(file); /* strong close: also closes any open objects */
  if (fapl >= 0) H5Pclose(fapl);
  if (fcpl >= 0) H5Pclose(fcpl);
  if (w.dcpl >= 0) H5Pclose(w.dcpl);
  if (w.gcpl >= 0) H5Pclose(w.gcpl);
  if (w.str_t >= 0) H5Tclose(w.str_t);
  H5Eclear2(H5E_DEFAULT);
  sdk_atomic_abort(&t);
  return e ? e : SDK_ERR_IO;
}
