/* The public API: results, a run's or a file's, as named datasets with
 * attributes (the image of io/image.h), and writing them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "io/image.h"
#include "io/io.h"

/* HDF5 as Debian builds it is not thread-safe: one file at a time per
 * process (runs themselves do not use it). */
static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;

/* The image, made on first use for a run's results (it borrows their data). */
static const sdk_store *image(const sdekit_result *cr) {
  sdekit_result *r = (sdekit_result *)cr; /* the image is a cache */
  if (!r->have_img && r->run) {
    sdk_errbuf eb = {0};
    sdk_store_init(&r->img);
    if (sdk_image_of_results(sdk_run_results(r->run), &r->img, &eb) != SDK_OK) {
      sdk_store_free(&r->img);
      sdk_store_init(&r->img);
      return NULL;
    }
    r->have_img = 1;
  }
  return r->have_img ? &r->img : NULL;
}

SDEKIT_API sdekit_status sdekit_result_read(const char *path, sdekit_result **out,
                                            sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_result_read: no place for the result");
  *out = NULL;
  if (!path || !*path) return api_usage(err, "no result file");
  sdekit_result *r = calloc(1, sizeof *r);
  if (!r) return api_nomem(err);
  sdk_store_init(&r->img);
  sdk_errbuf eb = {0};
  pthread_mutex_lock(&h5_lock);
  sdk_err e = sdk_read_h5(path, &r->img, &eb);
  pthread_mutex_unlock(&h5_lock);
  if (e != SDK_OK) {
    sdk_store_free(&r->img);
    free(r);
    return api_fail(err, e, &eb);
  }
  r->have_img = 1;
  r->nobs = sdk_image_observables(&r->img, r->obs, SDK_MAX_OBSERVABLES);
  *out = r;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API void sdekit_result_destroy(sdekit_result **rp) {
  if (!rp || !*rp) return;
  sdekit_result *r = *rp;
  sdk_store_free(&r->img);
  sdk_run_destroy(&r->run);
  for (int i = 0; i < r->nnames; i++)
    free(r->names_storage[i]);
  free(r->names_storage);
  free(r);
  *rp = NULL;
}

/* ------------------------------------------------------------ about the run */

SDEKIT_API double sdekit_result_seconds(const sdekit_result *r) {
  return r && r->run ? sdk_run_seconds(r->run) : 0;
}
SDEKIT_API double sdekit_result_path_steps(const sdekit_result *r) {
  return r && r->run ? sdk_run_path_steps(r->run) : 0;
}
SDEKIT_API const char *sdekit_result_device(const sdekit_result *r) {
  return r && r->run ? sdk_run_device(r->run) : "";
}
SDEKIT_API const char *sdekit_result_problem(const sdekit_result *r) {
  return r && r->run ? sdk_run_problem(r->run) : NULL;
}

SDEKIT_API int sdekit_result_nobservables(const sdekit_result *r) {
  if (!r) return 0;
  return r->run ? sdk_run_results(r->run)->nobs : r->nobs;
}
SDEKIT_API const char *sdekit_result_observable(const sdekit_result *r, int i) {
  if (i < 0 || i >= sdekit_result_nobservables(r)) return NULL;
  return r->run ? sdk_run_results(r->run)->obs[i] : r->obs[i];
}

/* ------------------------------------------------------------ the scan */

/* The scan axes of a file: the "axes" attribute of group "scan". */
static const sdk_attr *file_axes(const sdekit_result *r) {
  const sdk_group_attrs *g = sdk_store_group(&r->img, "scan");
  for (int i = 0; g && i < g->nattr; i++)
    if (!strcmp(g->attr[i].name, "axes") && g->attr[i].kind == SDK_ATTR_STRS) return &g->attr[i];
  return NULL;
}

SDEKIT_API int sdekit_result_nscan(const sdekit_result *r) {
  if (!r) return 0;
  if (r->run) return sdk_run_results(r->run)->nscan;
  const sdk_attr *a = file_axes(r);
  return a ? (int)a->nstr : 0;
}

SDEKIT_API const char *sdekit_result_scan_name(const sdekit_result *r, int i) {
  if (i < 0 || i >= sdekit_result_nscan(r)) return NULL;
  if (r->run) return sdk_run_results(r->run)->scan[i].name;
  return file_axes(r)->strs[i];
}

SDEKIT_API const double *sdekit_result_scan_values(const sdekit_result *r, int i, int64_t *n) {
  if (n) *n = 0;
  const char *name = sdekit_result_scan_name(r, i);
  if (!name) return NULL;
  if (r->run) {
    const sdk_scan_axis *ax = &sdk_run_results(r->run)->scan[i];
    if (n) *n = ax->n;
    return ax->values;
  }
  const sdk_dataset *d = sdk_store_findf(&r->img, "scan/%s", name);
  if (!d || d->type != SDK_F64 || d->rank != 1) return NULL;
  if (n) *n = d->dims[0];
  return sdk_ds_f64(d);
}

/* ------------------------------------------------------------ datasets */

SDEKIT_API int sdekit_result_ndatasets(const sdekit_result *r) {
  const sdk_store *s = r ? image(r) : NULL;
  return s ? s->n : 0;
}

SDEKIT_API const char *sdekit_result_dataset_name(const sdekit_result *r, int i) {
  const sdk_store *s = r ? image(r) : NULL;
  return s && i >= 0 && i < s->n ? s->ds[i]->path : NULL;
}

static const sdk_attr *find_attr(const sdk_attr *a, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(a[i].name, name)) return &a[i];
  return NULL;
}

/* A string kept with the result (names made here), or NULL. */
static const char *keep(sdekit_result *r, char *s) {
  if (!s) return NULL;
  char **nv = realloc(r->names_storage, (size_t)(r->nnames + 1) * sizeof *nv);
  if (!nv) {
    free(s);
    return NULL;
  }
  r->names_storage = nv;
  r->names_storage[r->nnames++] = s;
  return s;
}

SDEKIT_API sdekit_status sdekit_result_dataset(const sdekit_result *cr, const char *name,
                                               sdekit_dataset *out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_result_dataset: no place for the dataset");
  memset(out, 0, sizeof *out);
  const sdk_store *s = cr ? image(cr) : NULL;
  if (!s) return api_usage(err, "no results");
  if (!name) return api_usage(err, "no dataset name");
  sdekit_result *r = (sdekit_result *)cr;
  if (name[0] == '/') name++;
  const sdk_dataset *d = sdk_store_find(s, name);
  if (!d) return api_usage(err, "no dataset '%s' in the results", name);
  if (d->rank > SDEKIT_MAX_RANK)
    return api_usage(err, "dataset '%s' has more than %d dimensions", name, SDEKIT_MAX_RANK);
  out->name = d->path;
  out->type = (sdekit_dtype)d->type;
  out->rank = d->rank;
  for (int k = 0; k < d->rank; k++)
    out->dims[k] = d->dims[k];
  out->grid_rank = d->grid_rank;
  out->sample_axis = d->sample_axis;
  out->count = sdk_ds_count(d);
  out->data = d->data;
  out->coordinate = (d->flags & SDK_DS_COORD) != 0;
  for (int k = 0; k < d->rank; k++)
    out->dim_names[k] = d->dim_name[k];
  const sdk_attr *se = find_attr(d->attr, d->nattr, "standard_error");
  if (se && se->kind == SDK_ATTR_STR && se->s) {
    /* a sibling's name: the group's path and it */
    const char *slash = strrchr(d->path, '/');
    size_t gl = slash ? (size_t)(slash - d->path) + 1 : 0;
    char *full = malloc(gl + strlen(se->s) + 1);
    if (full) sprintf(full, "%.*s%s", (int)gl, d->path, se->s);
    out->std_error = full && sdk_store_find(s, full) ? keep(r, full) : (free(full), NULL);
  }
  api_ok(err);
  return SDEKIT_OK;
}

/* ------------------------------------------------------------ attributes */

/* The attributes of object: the root ("" or "/"), a dataset or a group. */
static const sdk_attr *attrs_of(const sdekit_result *r, const char *object, int *n) {
  const sdk_store *s = image(r);
  *n = -1;
  if (!s || !object) return NULL;
  if (object[0] == '/') object++;
  const sdk_dataset *d = object[0] ? sdk_store_find(s, object) : NULL;
  if (d) {
    *n = d->nattr;
    return d->attr;
  }
  const sdk_group_attrs *g = sdk_store_group(s, object);
  if (g) {
    *n = g->nattr;
    return g->attr;
  }
  /* a group without attributes: some dataset lies below it */
  size_t len = strlen(object);
  for (int i = 0; i < s->n && len; i++)
    if (!strncmp(s->ds[i]->path, object, len) && s->ds[i]->path[len] == '/') {
      *n = 0;
      return NULL;
    }
  if (!object[0]) *n = 0;
  return NULL;
}

SDEKIT_API int sdekit_result_nattrs(const sdekit_result *r, const char *object) {
  int n = -1;
  if (r) attrs_of(r, object, &n);
  return n;
}

static void attr_out(const sdk_attr *a, sdekit_attr *out) {
  memset(out, 0, sizeof *out);
  out->name = a->name;
  out->count = 1;
  switch (a->kind) {
  case SDK_ATTR_STR:
    out->type = SDEKIT_ATTR_STRING;
    out->s = a->s ? a->s : "";
    break;
  case SDK_ATTR_STRS:
    out->type = SDEKIT_ATTR_STRINGS;
    out->count = a->nstr;
    out->strs = (const char *const *)a->strs;
    break;
  case SDK_ATTR_F64:
    out->type = SDEKIT_ATTR_F64;
    out->f64 = &a->f;
    break;
  case SDK_ATTR_I64:
    out->type = SDEKIT_ATTR_I64;
    out->i64 = &a->i;
    break;
  case SDK_ATTR_U64:
    out->type = SDEKIT_ATTR_U64;
    out->u64 = &a->u;
    break;
  case SDK_ATTR_F64S:
    out->type = SDEKIT_ATTR_F64;
    out->count = a->nfs;
    out->f64 = a->fs;
    break;
  }
}

SDEKIT_API sdekit_status sdekit_result_attr_at(const sdekit_result *r, const char *object, int i,
                                               sdekit_attr *out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_result_attr_at: no place for the attribute");
  int n = -1;
  const sdk_attr *a = r ? attrs_of(r, object, &n) : NULL;
  if (n < 0) return api_usage(err, "no object '%s' in the results", object ? object : "");
  if (i < 0 || i >= n) return api_usage(err, "'%s' has no attribute %d", object, i);
  attr_out(&a[i], out);
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_result_attr(const sdekit_result *r, const char *object,
                                            const char *name, sdekit_attr *out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out || !name) return api_usage(err, "sdekit_result_attr: no name or no place for it");
  int n = -1;
  const sdk_attr *a = r ? attrs_of(r, object, &n) : NULL;
  if (n < 0) return api_usage(err, "no object '%s' in the results", object ? object : "");
  const sdk_attr *f = find_attr(a, n, name);
  if (!f)
    return api_usage(err, "'%s' has no attribute '%s'", object && *object ? object : "/", name);
  attr_out(f, out);
  api_ok(err);
  return SDEKIT_OK;
}

/* ------------------------------------------------------------ writing */

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

SDEKIT_API sdekit_status sdekit_result_write_tsv(const sdekit_result *r, const char *observable,
                                                 FILE *f, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!r || !f) return api_usage(err, "sdekit_result_write_tsv: no results or no stream");
  if (!r->run) return api_usage(err, "TSV is written from the results of a run, not of a file");
  const sdk_results *R = sdk_run_results(r->run);
  sdk_errbuf eb = {0};
  sdk_err e = SDK_OK;
  /* all or nothing: a later observable's header must not fail the write
   * after an earlier one's text went out */
  for (int i = 0; i < R->nobs && e == SDK_OK; i++)
    if (!observable || !strcmp(observable, R->obs[i])) e = sdk_check_tsv(R, R->obs[i], &eb);
  for (int i = 0; i < R->nobs && e == SDK_OK; i++)
    if (!observable || !strcmp(observable, R->obs[i]))
      e = sdk_write_tsv_named(R, R->obs[i], f, "to standard output", &eb);
  if (e == SDK_OK && observable && !sdk_results_has(R, observable))
    return api_usage(err, "the results have no observable '%s'", observable);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_result_write(const sdekit_result *r, const char *path,
                                             sdekit_file_fn wrote, void *user, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!r || !path || !*path) return api_usage(err, "sdekit_result_write: no results or no path");
  sdk_errbuf eb = {0};
  sdk_err e = SDK_OK;
  if (has_suffix(path, ".h5") || has_suffix(path, ".hdf5")) {
    const sdk_store *img = image(r);
    if (!img) return api_nomem(err);
    pthread_mutex_lock(&h5_lock);
    e = sdk_write_h5_image(img, path, &eb);
    pthread_mutex_unlock(&h5_lock);
    if (e == SDK_OK && wrote) wrote(user, path);
  } else if (has_suffix(path, ".tsv") || has_suffix(path, ".txt") || has_suffix(path, ".dat")) {
    if (!r->run) return api_usage(err, "TSV is written from the results of a run, not of a file");
    const sdk_results *R = sdk_run_results(r->run);
    if (R->nobs == 1) {
      e = sdk_write_tsv_file(R, R->obs[0], path, &eb);
      if (e == SDK_OK && wrote) wrote(user, path);
    } else {
      /* several observables: BASE.OBS.tsv, none written when one's header
       * cannot be */
      size_t blen = strlen(path) - strlen(strrchr(path, '.'));
      for (int i = 0; i < R->nobs && e == SDK_OK; i++)
        e = sdk_check_tsv(R, R->obs[i], &eb);
      for (int i = 0; i < R->nobs && e == SDK_OK; i++) {
        char one[4200];
        snprintf(one, sizeof one, "%.*s.%s.tsv", (int)blen, path, R->obs[i]);
        e = sdk_write_tsv_file(R, R->obs[i], one, &eb);
        if (e == SDK_OK && wrote) wrote(user, one);
      }
    }
  } else {
    return api_usage(err, "-o '%s': expected a name ending in .h5 or .tsv, or - for stdout", path);
  }
  if (e != SDK_OK) return api_fail(err, e, &eb);
  api_ok(err);
  return SDEKIT_OK;
}
