/* Tests of src/io: HDF5 writer (layout, reproducibility, atomic replace),
 * TSV writer (parsed back), and the info summary. */
#include "cli/cli.h"
#include "cli/info.h"
#include "io/io.h"

#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ---------------- synthetic results: 2-D scan 3 x 2, 2 variables ---------------- */

enum { N0 = 3, N1 = 2, NG = N0 * N1, NV = 2, NS = 4, NB = 5, NP = 3 };

typedef struct fixture {
  sdk_results r;
  double a_vals[N0], b_vals[N1], dt[NG];
  double drift[NG], drift_err[NG];
  int64_t step[NS];
  double mean[NG * NS * NV], var[NG * NS * NV];
  double lo[NG * NV], hi[NG * NV], density[NG * NV * NB];
  uint64_t under[NG * NV], over[NG * NV];
  double pvals[NP];
} fixture;

static const char *const VARS[NV] = {"x", "v"};
static const char *const PNAMES[NP] = {"a", "gamma", "b"};
static const char MODEL_TEXT[] = "[model]\nname = washboard\n[vars]\nx = 0\nv = 0\n";

enum { FX_DRIFT = 1, FX_MOMENTS = 2, FX_HIST = 4 };

static sdk_dataset *fx_ds(fixture *fx, const char *path, sdk_dtype t, int nextra,
                          const int64_t *extra) {
  sdk_results *r = &fx->r;
  int64_t dims[4];
  int rank = 0;
  for (int i = 0; i < r->nscan; i++)
    dims[rank++] = r->scan[i].n;
  for (int i = 0; i < nextra; i++)
    dims[rank++] = extra[i];
  sdk_dataset *d = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_store_add(&r->store, path, t, rank, dims, r->nscan, -1, 0, &d, &eb) == SDK_OK, "%s",
           eb.msg);
  return d;
}

/* The observables' datasets as the run would store them (observe/obs_*.c),
 * from the fixture's arrays (the first ngrid grid points). */
static void fixture_store(fixture *fx, unsigned what) {
  sdk_results *r = &fx->r;
  sdk_store_init(&r->store);
  r->nobs = 0;
  int64_t ng = r->ngrid, ns = NS, nb = NB;
  if (what & FX_DRIFT) {
    r->obs[r->nobs++] = "drift";
    sdk_dataset *v = fx_ds(fx, "drift/value", SDK_F64, 0, NULL);
    sdk_dataset *e = fx_ds(fx, "drift/error", SDK_F64, 0, NULL);
    memcpy(v->data, fx->drift, (size_t)ng * sizeof(double));
    memcpy(e->data, fx->drift_err, (size_t)ng * sizeof(double));
    sdk_ds_attr_str(v, "var", VARS[1], NULL);
    sdk_ds_attr_str(e, "var", VARS[1], NULL);
    sdk_store_group_str(&r->store, "drift", "var", VARS[1], NULL);
  }
  if (what & FX_MOMENTS) {
    r->obs[r->nobs++] = "moments";
    sdk_dataset *st = NULL;
    sdk_store_add(&r->store, "moments/step", SDK_I64, 1, &ns, 0, 0, 0, &st, NULL);
    memcpy(st->data, fx->step, sizeof fx->step);
    double *t = sdk_ds_f64(fx_ds(fx, "moments/t", SDK_F64, 1, &ns));
    for (int64_t g = 0; g < ng; g++)
      for (int64_t k = 0; k < ns; k++)
        t[g * ns + k] = (double)fx->step[k] * fx->dt[g];
    for (int v = 0; v < NV; v++)
      for (int q = 0; q < 2; q++) {
        char p[64];
        snprintf(p, sizeof p, "moments/%s_%s", q ? "var" : "mean", VARS[v]);
        double *x = sdk_ds_f64(fx_ds(fx, p, SDK_F64, 1, &ns));
        for (int64_t g = 0; g < ng; g++)
          for (int64_t k = 0; k < ns; k++)
            x[g * ns + k] = (q ? fx->var : fx->mean)[(g * NS + k) * NV + v];
      }
  }
  if (what & FX_HIST) {
    r->obs[r->nobs++] = "hist";
    for (int v = 0; v < NV; v++) {
      char p[64];
      snprintf(p, sizeof p, "hist/%s/density", VARS[v]);
      double *d = sdk_ds_f64(fx_ds(fx, p, SDK_F64, 1, &nb));
      snprintf(p, sizeof p, "hist/%s/lo", VARS[v]);
      double *lo = sdk_ds_f64(fx_ds(fx, p, SDK_F64, 0, NULL));
      snprintf(p, sizeof p, "hist/%s/hi", VARS[v]);
      double *hi = sdk_ds_f64(fx_ds(fx, p, SDK_F64, 0, NULL));
      snprintf(p, sizeof p, "hist/%s/underflow", VARS[v]);
      uint64_t *un = sdk_ds_u64(fx_ds(fx, p, SDK_U64, 0, NULL));
      snprintf(p, sizeof p, "hist/%s/overflow", VARS[v]);
      uint64_t *ov = sdk_ds_u64(fx_ds(fx, p, SDK_U64, 0, NULL));
      for (int64_t g = 0; g < ng; g++) {
        lo[g] = fx->lo[g * NV + v], hi[g] = fx->hi[g * NV + v];
        un[g] = fx->under[g * NV + v], ov[g] = fx->over[g * NV + v];
        memcpy(d + g * nb, fx->density + (g * NV + v) * NB, (size_t)nb * sizeof(double));
      }
    }
  }
}

static void make_fixture(fixture *fx) {
  memset(fx, 0, sizeof *fx);
  sdk_results *r = &fx->r;
  /* the points of --scan a=0.1:0.5:3 (15 digits: 0.3, not 0.1 + 0.2; a list
   * of other values is described as one, not as a range) */
  for (int i = 0; i < N0; i++)
    fx->a_vals[i] = (const double[]){0.1, 0.3, 0.5}[i];
  fx->b_vals[0] = 1;
  fx->b_vals[1] = 10;
  for (int g = 0; g < NG; g++) {
    fx->dt[g] = 0.01 / (1 + g % 2); /* differs per grid point */
    fx->drift[g] = sin(1.0 + g) / 3.0;
    fx->drift_err[g] = 1e-3 * (1 + g) / 7.0;
  }
  fx->drift_err[5] = -NAN; /* must come out as "nan" */
  for (int s = 0; s < NS; s++)
    fx->step[s] = 10 * s;
  for (int g = 0; g < NG; g++)
    for (int s = 0; s < NS; s++)
      for (int v = 0; v < NV; v++) {
        int k = (g * NS + s) * NV + v;
        fx->mean[k] = cos(0.37 * k) * (v ? 1e5 : 1e-5);
        fx->var[k] = 1.0 / (3.0 + k);
      }
  for (int g = 0; g < NG; g++)
    for (int v = 0; v < NV; v++) {
      fx->lo[g * NV + v] = -1.0 - 0.1 * g - v;
      fx->hi[g * NV + v] = 2.0 + 0.3 * g + v;
      fx->under[g * NV + v] = (uint64_t)(g + v);
      fx->over[g * NV + v] = (uint64_t)(2 * g + 1) + 0x100000000ull * v;
      for (int b = 0; b < NB; b++)
        fx->density[(g * NV + v) * NB + b] = (b + 1) / (7.0 + g + v);
    }
  fx->pvals[0] = fx->a_vals[0];
  fx->pvals[1] = 0.25;
  fx->pvals[2] = fx->b_vals[0];

  r->version = "0.1.0";
  r->model_name = "washboard";
  r->model_path = "models/washboard.ini";
  r->model_text = MODEL_TEXT;
  r->nvars = NV;
  r->var_names = VARS;
  r->nparams = NP;
  r->param_names = PNAMES;
  r->param_values = fx->pvals;
  r->nscan = 2;
  snprintf(r->scan[0].name, sizeof r->scan[0].name, "a");
  r->scan[0].start = 0.1;
  r->scan[0].stop = 0.5;
  r->scan[0].n = N0;
  r->scan[0].log = 0;
  r->scan[0].values = fx->a_vals;
  snprintf(r->scan[1].name, sizeof r->scan[1].name, "b");
  r->scan[1].start = 1;
  r->scan[1].stop = 10;
  r->scan[1].n = N1;
  r->scan[1].log = 1;
  r->scan[1].values = fx->b_vals;
  r->scan[1].axis = 1; /* (each axis's own index: results.h) */
  r->ngrid = NG;
  r->paths = 1024;
  r->seed = 0xFEDCBA9876543210ull; /* above INT64_MAX: must stay unsigned */
  r->scheme = "srk2";
  r->precision = "double";
  r->backend = "cpu";
  r->command_line = "sdekit run models/washboard.ini --scan a=0.1:0.5:3";
  r->period = 6.25;
  r->spp = 625;
  r->dt = fx->dt;
  r->nsteps = 30;
  r->transient_steps = 10;
  r->sample_every = 10;
  fixture_store(fx, FX_DRIFT | FX_MOMENTS | FX_HIST);
}

static void fixture_free(fixture *fx) {
  sdk_store_free(&fx->r.store);
}

/* ---------------- small helpers ---------------- */

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, (cap *= 2) + 1);
  }
  fclose(f);
  if (buf) buf[n] = 0;
  if (len) *len = n;
  return buf;
}

static int same_bytes(const char *p1, const char *p2) {
  size_t n1, n2;
  char *a = slurp(p1, &n1), *b = slurp(p2, &n2);
  int same = a && b && n1 == n2 && memcmp(a, b, n1) == 0;
  free(a);
  free(b);
  return same;
}

static int exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* Entries in dir whose name contains s. */
static int count_entries(const char *dir, const char *s) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *de;
  if (!d) return -1;
  while ((de = readdir(d)))
    if (strstr(de->d_name, s)) n++;
  closedir(d);
  return n;
}

static int rel_close(double got, double want) {
  if (isnan(want)) return isnan(got);
  return fabs(got - want) <= 1e-9 * fabs(want) + 1e-300;
}

/* ---------------- HDF5 read-back helpers (independent of h5info.c) ---------------- */

static int get_dims(hid_t d, hsize_t *dims) {
  hid_t sp = H5Dget_space(d);
  int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
  H5Sclose(sp);
  return rank;
}

/* Read a whole dataset as doubles and check its shape. */
static double *read_f64(hid_t f, const char *name, int rank, const hsize_t *want_dims) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  TU_CHECK(d >= 0, "dataset %s missing", name);
  if (d < 0) return NULL;
  hsize_t dims[8];
  int got = get_dims(d, dims);
  size_t n = 1;
  TU_CHECK(got == rank, "%s: rank %d want %d", name, got, rank);
  for (int i = 0; i < rank && i < got; i++) {
    TU_CHECK(dims[i] == want_dims[i], "%s: dim %d = %llu want %llu", name, i,
             (unsigned long long)dims[i], (unsigned long long)want_dims[i]);
    n *= dims[i];
  }
  double *buf = calloc(n, sizeof *buf);
  TU_CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read %s", name);
  H5Dclose(d);
  return buf;
}

static void check_str_attr(hid_t loc, const char *name, const char *want) {
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  TU_CHECK(a >= 0, "attribute %s missing", name);
  if (a < 0) return;
  hid_t t = H5Aget_type(a);
  TU_CHECK(H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0, "%s: not a vlen string",
           name);
  hid_t mt = H5Tcopy(H5T_C_S1);
  H5Tset_size(mt, H5T_VARIABLE);
  H5Tset_cset(mt, H5T_CSET_UTF8);
  char *s = NULL;
  TU_CHECK(H5Aread(a, mt, &s) >= 0, "read %s", name);
  TU_CHECK(s && strcmp(s, want) == 0, "%s = '%s' want '%s'", name, s ? s : "(null)", want);
  if (s) H5free_memory(s);
  H5Tclose(mt);
  H5Tclose(t);
  H5Aclose(a);
}

static void check_strs_attr(hid_t loc, const char *name, const char *const *want, int n) {
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  TU_CHECK(a >= 0, "attribute %s missing", name);
  if (a < 0) return;
  hid_t sp = H5Aget_space(a);
  TU_CHECK(H5Sget_simple_extent_npoints(sp) == n, "%s: %lld elements want %d", name,
           (long long)H5Sget_simple_extent_npoints(sp), n);
  hid_t mt = H5Tcopy(H5T_C_S1);
  H5Tset_size(mt, H5T_VARIABLE);
  H5Tset_cset(mt, H5T_CSET_UTF8);
  char *s[8] = {0};
  if (n > 0 && n <= 8) {
    TU_CHECK(H5Aread(a, mt, s) >= 0, "read %s", name);
    for (int i = 0; i < n; i++) {
      TU_CHECK(s[i] && strcmp(s[i], want[i]) == 0, "%s[%d] = '%s' want '%s'", name, i,
               s[i] ? s[i] : "(null)", want[i]);
      if (s[i]) H5free_memory(s[i]);
    }
  }
  H5Tclose(mt);
  H5Sclose(sp);
  H5Aclose(a);
}

/* Scalar numeric attribute: check the stored type class/size/sign, return its value. */
static double num_attr(hid_t loc, const char *name, H5T_class_t cls, H5T_sign_t sign) {
  double x = NAN;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  TU_CHECK(a >= 0, "attribute %s missing", name);
  if (a < 0) return x;
  hid_t t = H5Aget_type(a);
  TU_CHECK(H5Tget_class(t) == cls && H5Tget_size(t) == 8, "%s: wrong type", name);
  if (cls == H5T_INTEGER) TU_CHECK(H5Tget_sign(t) == sign, "%s: wrong signedness", name);
  TU_CHECK(H5Aread(a, H5T_NATIVE_DOUBLE, &x) >= 0, "read %s", name);
  H5Tclose(t);
  H5Aclose(a);
  return x;
}

static void check_h5_contents(const char *path, const fixture *fx) {
  const sdk_results *r = &fx->r;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  TU_CHECK(f >= 0, "open %s", path);
  if (f < 0) return;

  /* root attributes */
  check_str_attr(f, "format", "sdekit");
  TU_CHECK(num_attr(f, "format_version", H5T_INTEGER, H5T_SGN_2) == SDK_H5_FORMAT_VERSION &&
               SDK_H5_FORMAT_VERSION == 2,
           "format_version");
  check_str_attr(f, "version", "0.1.0");
  check_str_attr(f, "model_name", "washboard");
  check_str_attr(f, "model_path", "models/washboard.ini");
  check_str_attr(f, "model_text", MODEL_TEXT);
  check_str_attr(f, "scheme", "srk2");
  check_str_attr(f, "precision", "double");
  check_str_attr(f, "backend", "cpu");
  check_str_attr(f, "command_line", r->command_line);
  {
    uint64_t seed = 0;
    hid_t a = H5Aopen(f, "seed", H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    TU_CHECK(H5Tget_class(t) == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_NONE &&
                 H5Tget_size(t) == 8,
             "seed must be uint64");
    TU_CHECK(H5Aread(a, H5T_NATIVE_UINT64, &seed) >= 0 && seed == r->seed, "seed %llx",
             (unsigned long long)seed);
    H5Tclose(t);
    H5Aclose(a);
  }
  TU_CHECK(num_attr(f, "paths", H5T_INTEGER, H5T_SGN_2) == 1024, "paths");
  TU_CHECK(num_attr(f, "period", H5T_FLOAT, H5T_SGN_ERROR) == 6.25, "period");
  TU_CHECK(num_attr(f, "spp", H5T_INTEGER, H5T_SGN_2) == 625, "spp");
  TU_CHECK(num_attr(f, "nsteps", H5T_INTEGER, H5T_SGN_2) == 30, "nsteps");
  TU_CHECK(num_attr(f, "transient_steps", H5T_INTEGER, H5T_SGN_2) == 10, "transient_steps");
  TU_CHECK(num_attr(f, "sample_every", H5T_INTEGER, H5T_SGN_2) == 10, "sample_every");
  check_strs_attr(f, "var_names", VARS, NV);
  check_strs_attr(f, "param_names", PNAMES, NP);
  {
    double pv[NP] = {0};
    hid_t a = H5Aopen(f, "param_values", H5P_DEFAULT);
    TU_CHECK(H5Aread(a, H5T_NATIVE_DOUBLE, pv) >= 0, "read param_values");
    for (int i = 0; i < NP; i++)
      TU_CHECK(pv[i] == fx->pvals[i], "param_values[%d]", i);
    H5Aclose(a);
  }

  /* scan */
  hsize_t gd[3] = {N0, N1, 0};
  {
    hid_t sg = H5Gopen2(f, "scan", H5P_DEFAULT);
    TU_CHECK(sg >= 0, "scan group");
    const char *axes[2] = {"a", "b"};
    check_strs_attr(sg, "axes", axes, 2);
    H5Gclose(sg);
    for (int i = 0; i < 2; i++) {
      char name[80];
      hsize_t n = (hsize_t)r->scan[i].n;
      snprintf(name, sizeof name, "scan/%s", r->scan[i].name);
      double *v = read_f64(f, name, 1, &n);
      for (hsize_t k = 0; v && k < n; k++)
        TU_CHECK(v[k] == r->scan[i].values[k], "%s[%d]", name, (int)k);
      free(v);
      hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
      TU_CHECK(num_attr(d, "start", H5T_FLOAT, H5T_SGN_ERROR) == r->scan[i].start, "start");
      TU_CHECK(num_attr(d, "stop", H5T_FLOAT, H5T_SGN_ERROR) == r->scan[i].stop, "stop");
      TU_CHECK(num_attr(d, "n", H5T_INTEGER, H5T_SGN_2) == r->scan[i].n, "n");
      TU_CHECK(num_attr(d, "log", H5T_INTEGER, H5T_SGN_2) == r->scan[i].log, "log");
      H5Dclose(d);
    }
    double *dt = read_f64(f, "scan/dt", 2, gd);
    for (int g = 0; dt && g < NG; g++)
      TU_CHECK(dt[g] == fx->dt[g], "dt[%d]", g);
    free(dt);
  }

  /* drift */
  {
    double *v = read_f64(f, "drift/value", 2, gd), *e = read_f64(f, "drift/error", 2, gd);
    for (int g = 0; v && e && g < NG; g++) {
      TU_CHECK(v[g] == fx->drift[g], "drift[%d]", g);
      TU_CHECK(e[g] == fx->drift_err[g] || (isnan(e[g]) && isnan(fx->drift_err[g])),
               "drift_err[%d]", g);
    }
    free(v);
    free(e);
    hid_t d = H5Dopen2(f, "drift/value", H5P_DEFAULT);
    check_str_attr(d, "var", "v");
    H5Dclose(d);
    d = H5Dopen2(f, "drift/error", H5P_DEFAULT);
    check_str_attr(d, "var", "v");
    H5Dclose(d);
  }

  /* moments */
  {
    hsize_t md[3] = {N0, N1, NS}, ns = NS;
    double *st = read_f64(f, "moments/step", 1, &ns);
    for (int s = 0; st && s < NS; s++)
      TU_CHECK(st[s] == fx->step[s], "step[%d]", s);
    free(st);
    double *t = read_f64(f, "moments/t", 3, md);
    for (int g = 0; t && g < NG; g++)
      for (int s = 0; s < NS; s++)
        TU_CHECK(t[g * NS + s] == fx->step[s] * fx->dt[g], "t[%d][%d]", g, s);
    free(t);
    for (int v = 0; v < NV; v++)
      for (int k = 0; k < 2; k++) {
        char name[64];
        snprintf(name, sizeof name, "moments/%s_%s", k ? "var" : "mean", VARS[v]);
        double *m = read_f64(f, name, 3, md);
        const double *src = k ? fx->var : fx->mean;
        for (int g = 0; m && g < NG; g++)
          for (int s = 0; s < NS; s++)
            TU_CHECK(m[g * NS + s] == src[(g * NS + s) * NV + v], "%s[%d][%d]", name, g, s);
        free(m);
      }
  }

  /* hist */
  for (int v = 0; v < NV; v++) {
    char name[64];
    hsize_t hd[3] = {N0, N1, NB};
    snprintf(name, sizeof name, "hist/%s/density", VARS[v]);
    double *dens = read_f64(f, name, 3, hd);
    for (int g = 0; dens && g < NG; g++)
      for (int b = 0; b < NB; b++)
        TU_CHECK(dens[g * NB + b] == fx->density[(g * NV + v) * NB + b], "%s", name);
    free(dens);
    snprintf(name, sizeof name, "hist/%s/lo", VARS[v]);
    double *lo = read_f64(f, name, 2, gd);
    snprintf(name, sizeof name, "hist/%s/hi", VARS[v]);
    double *hi = read_f64(f, name, 2, gd);
    for (int g = 0; lo && hi && g < NG; g++) {
      TU_CHECK(lo[g] == fx->lo[g * NV + v], "lo");
      TU_CHECK(hi[g] == fx->hi[g * NV + v], "hi");
    }
    free(lo);
    free(hi);
    for (int k = 0; k < 2; k++) {
      snprintf(name, sizeof name, "hist/%s/%s", VARS[v], k ? "overflow" : "underflow");
      hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
      TU_CHECK(d >= 0, "%s missing", name);
      if (d < 0) continue;
      hsize_t dims[3];
      TU_CHECK(get_dims(d, dims) == 2 && dims[0] == N0 && dims[1] == N1, "%s shape", name);
      uint64_t u[NG];
      TU_CHECK(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, u) >= 0, "read");
      for (int g = 0; g < NG; g++)
        TU_CHECK(u[g] == (k ? fx->over : fx->under)[g * NV + v], "%s[%d]", name, g);
      H5Dclose(d);
    }
  }
  H5Fclose(f);
}

/* ---------------- TSV parsing ---------------- */

typedef struct cursor {
  char *text; /* modified in place (lines split) */
  char *at;
  int lineno;
} cursor;

/* Next line (without newline) or NULL at the end. */
static char *next_line(cursor *c) {
  if (!c->at || !*c->at) return NULL;
  char *l = c->at, *nl = strchr(l, '\n');
  if (nl) {
    *nl = 0;
    c->at = nl + 1;
  } else {
    c->at = NULL;
  }
  c->lineno++;
  return l;
}

/* Skip comment lines; the last one is the header, which must equal want.
 * Collect every comment line into comments (for later checks). */
static char *expect_header(cursor *c, const char *want, char *comments, size_t csize) {
  char *last = NULL;
  while (c->at && c->at[0] == '#') {
    last = next_line(c);
    if (comments) {
      strncat(comments, last, csize - strlen(comments) - 2);
      strcat(comments, "\n");
    }
  }
  TU_CHECK(last && strcmp(last, want) == 0, "header line %d: '%s' want '%s'", c->lineno,
           last ? last : "(none)", want);
  return last;
}

static void expect_blank(cursor *c) {
  char *l = next_line(c);
  TU_CHECK(l && l[0] == 0, "line %d: want a blank line, got '%s'", c->lineno, l ? l : "(eof)");
}

/* A data row: nexact exact coordinates (scan values), then numbers printed
 * with %.10g (statistics, t, bin edges).
 * NaN expects the literal "nan". */
static void expect_row(cursor *c, const double *want, int n, int nexact) {
  char *l = next_line(c);
  TU_CHECK(l != NULL, "line %d: unexpected end", c->lineno);
  if (!l) return;
  TU_CHECK(l[0] != '#' && l[0] != 0, "line %d: want data, got '%s'", c->lineno, l);
  char *save = NULL, *tok = strtok_r(l, "\t", &save);
  int i = 0;
  for (; tok && i < n; i++, tok = strtok_r(NULL, "\t", &save)) {
    char *end;
    double x = strtod(tok, &end);
    TU_CHECK(*end == 0, "line %d col %d: '%s' is not a number", c->lineno, i, tok);
    if (isnan(want[i]))
      TU_CHECK(strcmp(tok, "nan") == 0, "line %d col %d: '%s' want nan", c->lineno, i, tok);
    else if (i < nexact)
      TU_CHECK(x == want[i], "line %d col %d: %s != %.17g", c->lineno, i, tok, want[i]);
    else
      TU_CHECK(rel_close(x, want[i]), "line %d col %d: %s vs %.17g", c->lineno, i, tok, want[i]);
  }
  TU_CHECK(i == n && tok == NULL, "line %d: %d columns, want %d", c->lineno, i + (tok != NULL), n);
}

static void expect_end(cursor *c) {
  char *l = next_line(c);
  TU_CHECK(l == NULL, "line %d: trailing '%s'", c->lineno, l ? l : "");
}

static char *tsv_to_string(const sdk_results *r, const char *obs, sdk_err *e, sdk_errbuf *eb) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  *e = sdk_write_tsv(r, obs, f, eb);
  fclose(f);
  return buf;
}

static void test_tsv(const fixture *fx, const char *dir) {
  const sdk_results *r = &fx->r;
  sdk_errbuf eb = {0};
  sdk_err e;
  char comments[8192];

  /* drift */
  char *text = tsv_to_string(r, "drift", &e, &eb);
  TU_CHECK(e == SDK_OK, "tsv drift: %s", eb.msg);
  /* the same through a file: identical bytes */
  char path[512];
  snprintf(path, sizeof path, "%s/drift.tsv", dir);
  memset(&eb, 0, sizeof eb);
  TU_CHECK(sdk_write_tsv_file(r, "drift", path, &eb) == SDK_OK, "tsv file: %s", eb.msg);
  char *ftext = slurp(path, NULL);
  TU_CHECK(ftext && text && strcmp(ftext, text) == 0, "TSV file differs from stream output");
  free(ftext);
  cursor c = {text, text, 0};
  comments[0] = 0;
  expect_header(&c, "# a\tb\tdrift_v\tdrift_v_err", comments, sizeof comments);
  const char *want_comments[] = {"# sdekit: 0.1.0\n",
                                 "# observable: drift\n",
                                 "# model: washboard (models/washboard.ini)\n",
                                 "# scheme: srk2\n",
                                 "# precision: double\n",
                                 "# backend: cpu\n",
                                 "# paths: 1024\n",
                                 "# seed: 18364758544493064720\n",
                                 "# dt: per grid point\n",
                                 "# steps: 30\n",
                                 "# param gamma: 0.25\n",
                                 "# scan a: 0.1 .. 0.5, n=3, linear\n",
                                 "# scan b: 1 .. 10, n=2, log\n",
                                 "# drift of: v\n"};
  for (size_t i = 0; i < sizeof want_comments / sizeof *want_comments; i++)
    TU_CHECK(strstr(comments, want_comments[i]), "drift comments lack '%s'", want_comments[i]);
  TU_CHECK(!strstr(comments, "# param a:") && !strstr(comments, "# param b:"),
           "scanned parameters listed as fixed");
  for (int i0 = 0; i0 < N0; i0++) {
    if (i0 > 0) expect_blank(&c);
    for (int i1 = 0; i1 < N1; i1++) {
      int g = i0 * N1 + i1;
      double row[4] = {fx->a_vals[i0], fx->b_vals[i1], fx->drift[g], fx->drift_err[g]};
      expect_row(&c, row, 4, 2);
    }
  }
  expect_end(&c);

  free(text);

  /* moments */
  text = tsv_to_string(r, "moments", &e, &eb);
  TU_CHECK(e == SDK_OK, "tsv moments: %s", eb.msg);
  c = (cursor){text, text, 0};
  expect_header(&c, "# a\tb\tt\tmean_x\tvar_x\tmean_v\tvar_v", NULL, 0);
  for (int g = 0; g < NG; g++) {
    if (g > 0) { /* a gnuplot index block per grid point: two blank lines */
      expect_blank(&c);
      expect_blank(&c);
    }
    for (int s = 0; s < NS; s++) {
      int k = (g * NS + s) * NV;
      double row[7] = {fx->a_vals[g / N1], fx->b_vals[g % N1], fx->step[s] * fx->dt[g], fx->mean[k],
                       fx->var[k],         fx->mean[k + 1],    fx->var[k + 1]};
      expect_row(&c, row, 7, 2);
    }
  }
  expect_end(&c);
  free(text);

  /* hist: gnuplot index blocks per variable and grid point */
  text = tsv_to_string(r, "hist", &e, &eb);
  TU_CHECK(e == SDK_OK, "tsv hist: %s", eb.msg);
  c = (cursor){text, text, 0};
  for (int v = 0; v < NV; v++) {
    char hdr[64];
    if (v > 0) {
      expect_blank(&c);
      expect_blank(&c);
    }
    snprintf(hdr, sizeof hdr, "# a\tb\t%s_lo\t%s_hi\tdensity", VARS[v], VARS[v]);
    comments[0] = 0;
    expect_header(&c, hdr, comments, sizeof comments);
    TU_CHECK(v == 0 || !strstr(comments, "# sdekit:"), "settings repeated in block %d", v);
    for (int g = 0; g < NG; g++) {
      if (g > 0) { /* and one per grid point within it */
        expect_blank(&c);
        expect_blank(&c);
      }
      double lo = fx->lo[g * NV + v], hi = fx->hi[g * NV + v], w = (hi - lo) / NB;
      for (int b = 0; b < NB; b++) {
        double row[5] = {fx->a_vals[g / N1], fx->b_vals[g % N1], lo + b * w,
                         b + 1 == NB ? hi : lo + (b + 1) * w, fx->density[(g * NV + v) * NB + b]};
        expect_row(&c, row, 5, 2);
      }
    }
  }
  expect_end(&c);
  free(text);

  /* errors */
  memset(&eb, 0, sizeof eb);
  text = tsv_to_string(r, "nonsense", &e, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, "nonsense"), "unknown observable: %d %s", e,
           eb.msg);
  free(text);
  fixture fx2 = *fx;
  fixture_store(&fx2, FX_MOMENTS | FX_HIST);
  memset(&eb, 0, sizeof eb);
  snprintf(path, sizeof path, "%s/nodrift.tsv", dir);
  e = sdk_write_tsv_file(&fx2.r, "drift", path, &eb);
  TU_CHECK(e == SDK_ERR_USAGE, "drift not computed: %d %s", e, eb.msg);
  TU_CHECK(!exists(path), "file left behind after failure");
  fixture_free(&fx2);
  memset(&eb, 0, sizeof eb);
  snprintf(path, sizeof path, "%s/no/such/dir.tsv", dir);
  e = sdk_write_tsv_file(r, "drift", path, &eb);
  TU_CHECK(e == SDK_ERR_IO && strstr(eb.msg, path) && strstr(eb.msg, "No such file or directory"),
           "TSV to missing dir: %d %s", e, eb.msg);

  /* 1-D scan: drift rows without blank lines; moments with none between samples */
  fixture f1 = *fx;
  f1.r.nscan = 1;
  f1.r.ngrid = N0;
  text = tsv_to_string(&f1.r, "drift", &e, &eb);
  TU_CHECK(e == SDK_OK, "1-D drift");
  c = (cursor){text, text, 0};
  expect_header(&c, "# a\tdrift_v\tdrift_v_err", NULL, 0);
  for (int g = 0; g < N0; g++) {
    double row[3] = {fx->a_vals[g], fx->drift[g], fx->drift_err[g]};
    expect_row(&c, row, 3, 1);
  }
  expect_end(&c);
  free(text);
}

/* ---------------- main ---------------- */

static int write_one(const char *path) {
  fixture fx;
  sdk_errbuf eb = {0};
  make_fixture(&fx);
  sdk_err e = sdk_write_h5(&fx.r, path, &eb);
  if (e) fprintf(stderr, "child: %s\n", eb.msg);
  fixture_free(&fx);
  return e == SDK_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-h5") == 0) return write_one(argv[2]);

  static fixture fx;
  make_fixture(&fx);
  sdk_errbuf eb = {0};
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/test_io.XXXXXX", tu_scratch());
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char p1[4400], p2[4400], p3[4400], sub[4300], path[4400];
  snprintf(p1, sizeof p1, "%s/a.h5", dir);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  mkdir(sub, 0777);
  snprintf(p2, sizeof p2, "%s/other-name.h5", sub);
  snprintf(p3, sizeof p3, "%s/child.h5", dir);

  /* --- HDF5: write twice (a second apart, other name) and compare bytes --- */
  sdk_err e = sdk_write_h5(&fx.r, p1, &eb);
  TU_CHECK(e == SDK_OK, "write h5: %s", eb.msg);
  sleep(1); /* a timestamp anywhere would now differ */
  e = sdk_write_h5(&fx.r, p2, &eb);
  TU_CHECK(e == SDK_OK, "write h5 again: %s", eb.msg);
  TU_CHECK(same_bytes(p1, p2), "two writes of the same results differ");
  /* and from a fresh process */
  char cmd[9000];
  if (strchr(argv[0], '/'))
    snprintf(cmd, sizeof cmd, "'%s' --write-h5 '%s'", argv[0], p3);
  else
    snprintf(cmd, sizeof cmd, "'/proc/%d/exe' --write-h5 '%s'", (int)getpid(), p3);
  TU_CHECK(system(cmd) == 0, "child writer failed");
  TU_CHECK(same_bytes(p1, p3), "a write from another process differs");
  TU_CHECK(count_entries(dir, ".tmp.") == 0 && count_entries(sub, ".tmp.") == 0,
           "temporary files left behind");
  {
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    TU_CHECK(stat(p1, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask), "mode %o want %o",
             (unsigned)(st.st_mode & 0777), (unsigned)(0666 & ~mask));
  }
  check_h5_contents(p1, &fx);
  {
    /* the reader info and plot share (the fuzzing entry point) takes it whole */
    sdekit_error ierr = {0};
    FILE *dn = fopen("/dev/null", "w");
    sdekit_status ie = sdk_plot_inspect(p1, dn, &ierr);
    TU_CHECK(ie == SDEKIT_OK, "sdk_plot_inspect of a written file: %d %s", ie, ierr.message);
    if (dn) fclose(dn);
  }

  /* --- unwritable path: SDK_ERR_IO, clear message, nothing left --- */
  memset(&eb, 0, sizeof eb);
  snprintf(path, sizeof path, "%s/missing/y.h5", dir);
  e = sdk_write_h5(&fx.r, path, &eb);
  char want[4500];
  snprintf(want, sizeof want, "cannot write '%s': No such file or directory", path);
  TU_CHECK(e == SDK_ERR_IO, "unwritable: got %s", sdk_err_name(e));
  TU_CHECK(strcmp(eb.msg, want) == 0, "message '%s' want '%s'", eb.msg, want);
  TU_CHECK(!exists(path), "file created at an unwritable path");

  /* --- failure half-way (HDF5 refuses a dataset where a group of that name
   *     exists): no temporary left, an existing file at the target untouched --- */
  snprintf(path, sizeof path, "%s/keep.h5", dir);
  memset(&eb, 0, sizeof eb);
  TU_CHECK(sdk_write_h5(&fx.r, path, &eb) == SDK_OK, "write keep.h5: %s", eb.msg);
  {
    fixture bad = fx;
    fixture_store(&bad, FX_DRIFT | FX_MOMENTS | FX_HIST);
    fx_ds(&bad, "moments", SDK_F64, 0, NULL); /* "moments/..." makes a group "moments" */
    memset(&eb, 0, sizeof eb);
    e = sdk_write_h5(&bad.r, path, &eb);
    fixture_free(&bad);
    TU_CHECK(e != SDK_OK && strstr(eb.msg, path), "duplicate names: %s '%s'", sdk_err_name(e),
             eb.msg);
    printf("  (half-way failure message: %s)\n", eb.msg);
    TU_CHECK(count_entries(dir, ".tmp.") == 0, "temporary left after a failed write");
    TU_CHECK(same_bytes(path, p1), "existing file changed by a failed write");
    /* a path that is a directory */
    memset(&eb, 0, sizeof eb);
    e = sdk_write_h5(&fx.r, sub, &eb);
    TU_CHECK(e == SDK_ERR_IO && strstr(eb.msg, "Is a directory"), "dir target: %s", eb.msg);
    TU_CHECK(count_entries(dir, ".tmp.") == 0, "temporary left after rename failure");
  }

  /* --- a large model text (attribute > 64 KiB needs dense storage) --- */
  {
    fixture big = fx;
    size_t n = 200000;
    char *txt = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
      txt[i] = (i % 61 == 60) ? '\n' : (char)('a' + i % 26);
    txt[n] = 0;
    big.r.model_text = txt;
    snprintf(path, sizeof path, "%s/big.h5", dir);
    memset(&eb, 0, sizeof eb);
    TU_CHECK(sdk_write_h5(&big.r, path, &eb) == SDK_OK, "big model text: %s", eb.msg);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    TU_CHECK(f >= 0, "open big");
    if (f >= 0) {
      check_str_attr(f, "model_text", txt);
      H5Fclose(f);
    }
    free(txt);
  }

  /* --- no scan, drift only: scalar datasets, no other groups --- */
  {
    fixture z = fx;
    z.r.nscan = 0;
    z.r.ngrid = 1;
    fixture_store(&z, FX_DRIFT);
    snprintf(path, sizeof path, "%s/noscan.h5", dir);
    memset(&eb, 0, sizeof eb);
    TU_CHECK(sdk_write_h5(&z.r, path, &eb) == SDK_OK, "noscan: %s", eb.msg);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    TU_CHECK(f >= 0, "open noscan");
    if (f >= 0) {
      double *v = read_f64(f, "drift/value", 0, NULL);
      TU_CHECK(v && v[0] == fx.drift[0], "scalar drift");
      free(v);
      double *dt = read_f64(f, "scan/dt", 0, NULL);
      TU_CHECK(dt && dt[0] == fx.dt[0], "scalar dt");
      free(dt);
      TU_CHECK(H5Lexists(f, "moments", H5P_DEFAULT) == 0, "moments written though NULL");
      TU_CHECK(H5Lexists(f, "hist", H5P_DEFAULT) == 0, "hist written though NULL");
      H5Fclose(f);
    }
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    sdekit_error ierr = {0};
    TU_CHECK(cli_info(path, o, &ierr) == SDEKIT_OK, "info noscan: %s", ierr.message);
    fclose(o);
    TU_CHECK(out && strstr(out, "scans:       none"), "noscan info:\n%s", out);
    free(out);
    fixture_free(&z);
  }

  /* --- TSV --- */
  test_tsv(&fx, dir);

  /* --- info --- */
  {
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    sdekit_error ierr = {0};
    sdekit_status ie = cli_info(p1, o, &ierr);
    fclose(o);
    TU_CHECK(ie == SDEKIT_OK, "info: %s", ierr.message);
    const char *want_info[] = {"washboard (models/washboard.ini)",
                               "srk2",
                               "seed:        18364758544493064720",
                               "dt:          0.005 .. 0.01 (per grid point)",
                               "a: 0.1 .. 0.5, n=3, linear",
                               "b: 1 .. 10, n=2, log",
                               "/hist/x/density",
                               "[3 x 2 x 5]",
                               "/moments/mean_v",
                               "drift of v:",
                               "nan"};
    for (size_t i = 0; i < sizeof want_info / sizeof *want_info; i++)
      TU_CHECK(out && strstr(out, want_info[i]), "info lacks '%s'", want_info[i]);
    if (getenv("TEST_IO_VERBOSE")) fputs(out, stdout);
    free(out);

    snprintf(path, sizeof path, "%s/drift.tsv", dir); /* not HDF5 */
    memset(&ierr, 0, sizeof ierr);
    ie = cli_info(path, stdout, &ierr);
    TU_CHECK(ie == SDEKIT_ERR_FORMAT && strstr(ierr.message, "not an HDF5 file"),
             "info on TSV: %s %s", sdekit_status_name(ie), ierr.message);
    snprintf(path, sizeof path, "%s/plain.h5", dir); /* HDF5, not sdekit */
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    memset(&ierr, 0, sizeof ierr);
    ie = cli_info(path, stdout, &ierr);
    TU_CHECK(ie == SDEKIT_ERR_FORMAT && strstr(ierr.message, "not an sdekit result file"),
             "info on plain HDF5: %s %s", sdekit_status_name(ie), ierr.message);
    snprintf(path, sizeof path, "%s/absent.h5", dir);
    memset(&ierr, 0, sizeof ierr);
    ie = cli_info(path, stdout, &ierr);
    TU_CHECK(ie == SDEKIT_ERR_IO && strstr(ierr.message, "No such file"), "info on missing: %s %s",
             sdekit_status_name(ie), ierr.message);
  }

  if (getenv("TEST_IO_KEEP")) {
    printf("  files kept in %s\n", dir);
  } else {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  }
  fixture_free(&fx);
  return tu_finish("test_io");
}
