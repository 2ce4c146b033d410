#include "observe/store.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

static size_t type_size(sdk_dtype t) {
  (void)t;
  return 8; /* f64, i64 and u64 alike */
}

void sdk_store_init(sdk_store *s) {
  memset(s, 0, sizeof *s);
}

/* Free an attribute's value (not its name); it is left empty. */
static void attr_clear(sdk_attr *a) {
  free(a->s);
  for (int64_t k = 0; k < a->nstr; k++)
    free(a->strs[k]);
  free(a->strs);
  free(a->fs);
  a->s = NULL, a->strs = NULL, a->nstr = 0, a->fs = NULL, a->nfs = 0;
  a->f = 0, a->i = 0, a->u = 0;
}

static void attrs_free(sdk_attr *a, int n) {
  for (int i = 0; i < n; i++) {
    free(a[i].name);
    attr_clear(&a[i]);
  }
  free(a);
}

void sdk_store_free(sdk_store *s) {
  if (!s) return;
  for (int i = 0; i < s->n; i++) {
    sdk_dataset *d = s->ds[i];
    free(d->path);
    if (!(d->flags & SDK_DS_BORROWED)) free(d->data);
    attrs_free(d->attr, d->nattr);
    for (int k = 0; k < SDK_DS_MAX_RANK; k++)
      free(d->dim_name[k]);
    free(d);
  }
  free(s->ds);
  for (int i = 0; i < s->ngroups; i++) {
    free(s->groups[i].path);
    attrs_free(s->groups[i].attr, s->groups[i].nattr);
  }
  free(s->groups);
  memset(s, 0, sizeof *s);
}

int64_t sdk_ds_count(const sdk_dataset *d) {
  int64_t n = 1;
  for (int i = 0; i < d->rank; i++)
    n *= d->dims[i];
  return n;
}

int64_t sdk_ds_sample_stride(const sdk_dataset *d) {
  if (d->sample_axis < 0) return 0;
  int64_t n = 1;
  for (int i = d->sample_axis + 1; i < d->rank; i++)
    n *= d->dims[i];
  return n;
}

double *sdk_ds_f64(const sdk_dataset *d) {
  return d && d->type == SDK_F64 ? d->data : NULL;
}
int64_t *sdk_ds_i64(const sdk_dataset *d) {
  return d && d->type == SDK_I64 ? d->data : NULL;
}
uint64_t *sdk_ds_u64(const sdk_dataset *d) {
  return d && d->type == SDK_U64 ? d->data : NULL;
}

sdk_dataset *sdk_store_find(const sdk_store *s, const char *path) {
  for (int i = 0; s && path && i < s->n; i++)
    if (!strcmp(s->ds[i]->path, path)) return s->ds[i];
  return NULL;
}

sdk_dataset *sdk_store_findf(const sdk_store *s, const char *fmt, ...) {
  char path[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(path, sizeof path, fmt, ap);
  va_end(ap);
  return n < 0 || (size_t)n >= sizeof path ? NULL : sdk_store_find(s, path);
}

/* A dataset: zero-filled and owned, or (SDK_DS_BORROWED) on `data` */
static sdk_err store_add(sdk_store *s, const char *path, sdk_dtype type, int rank,
                         const int64_t *dims, int grid_rank, int sample_axis, unsigned flags,
                         const void *data, sdk_dataset **out, sdk_errbuf *eb) {
  static const double no_data = 0; /* a borrowed dataset of no elements may come without data */
  *out = NULL;
  if (rank < 0 || rank > SDK_DS_MAX_RANK || grid_rank > rank || sample_axis >= rank)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "dataset '%s': bad shape", path);
  if (sdk_store_find(s, path))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "dataset '%s' made twice", path);
  /* sizes were checked against SDK_MAX_SAMPLE_VALUES when the run was planned;
   * this guards the multiplication itself */
  uint64_t count = 1;
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0 || __builtin_mul_overflow(count, (uint64_t)dims[i], &count))
      return SDK_FAIL(eb, SDK_ERR_NOMEM, "dataset '%s' is too large", path);
  if ((flags & SDK_DS_BORROWED) && !data && count > 0)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "dataset '%s': no data to borrow", path);
  sdk_dataset *d = calloc(1, sizeof *d);
  sdk_dataset **grown = realloc(s->ds, (size_t)(s->n + 1) * sizeof *grown);
  if (grown) s->ds = grown;
  if (d) {
    d->path = sdk_strdup(path);
    if (!(flags & SDK_DS_BORROWED))
      d->data = calloc(count ? (size_t)count : 1, type_size(type));
    else
      d->data = data ? (void *)data : (void *)&no_data;
  }
  if (!d || !grown || !d->path || !d->data) {
    if (d) {
      free(d->path);
      if (!(flags & SDK_DS_BORROWED)) free(d->data);
    }
    free(d);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for '%s' (%llu values)", path,
                    (unsigned long long)count);
  }
  d->type = type;
  d->rank = rank;
  memcpy(d->dims, dims, (size_t)rank * sizeof *dims);
  d->grid_rank = grid_rank;
  d->sample_axis = sample_axis;
  d->flags = flags;
  s->ds[s->n++] = d;
  *out = d;
  return SDK_OK;
}

sdk_err sdk_store_add(sdk_store *s, const char *path, sdk_dtype type, int rank, const int64_t *dims,
                      int grid_rank, int sample_axis, unsigned flags, sdk_dataset **out,
                      sdk_errbuf *eb) {
  return store_add(s, path, type, rank, dims, grid_rank, sample_axis, flags & ~SDK_DS_BORROWED,
                   NULL, out, eb);
}

sdk_err sdk_store_add_borrowed(sdk_store *s, const char *path, sdk_dtype type, int rank,
                               const int64_t *dims, int grid_rank, int sample_axis, unsigned flags,
                               const void *data, sdk_dataset **out, sdk_errbuf *eb) {
  return store_add(s, path, type, rank, dims, grid_rank, sample_axis, flags | SDK_DS_BORROWED, data,
                   out, eb);
}

sdk_err sdk_store_axis_name_free(const char *name, sdk_errbuf *eb) {
  /* (every name the observables give a dimension: grep sdk_ds_dim_name;
   * "dim<k>" where none is given, io/image.c) */
  static const char *const taken[] = {"sample",   "bin",   "path", "lag",       "frequency",
                                      "boundary", "event", "var",  "grid_point"};
  int dimk = !strncmp(name, "dim", 3) && name[3] >= '0' && name[3] <= '9';
  for (size_t i = 0; i < sizeof taken / sizeof *taken && !dimk; i++)
    dimk = !strcmp(name, taken[i]);
  if (!dimk) return SDK_OK;
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "--scan %s: '%s' also names an axis of the results (sample, bin, path, lag, "
                  "frequency, boundary, event, var, grid_point, dim<k>), and a dataset would "
                  "have two axes of that name: rename the parameter in the model",
                  name, name);
}

sdk_err sdk_ds_dim_name(sdk_dataset *d, int axis, const char *name, sdk_errbuf *eb) {
  if (axis < 0 || axis >= d->rank)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "dataset '%s' has no dimension %d", d->path, axis);
  char *c = sdk_strdup(name ? name : "");
  if (!c) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  free(d->dim_name[axis]);
  d->dim_name[axis] = c;
  return SDK_OK;
}

/* ---------------- attributes ---------------- */

static sdk_attr *attr_slot(sdk_attr **a, int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp((*a)[i].name, name)) return &(*a)[i];
  sdk_attr *g = realloc(*a, (size_t)(*n + 1) * sizeof *g);
  if (!g) return NULL;
  *a = g;
  sdk_attr *x = &g[*n];
  memset(x, 0, sizeof *x);
  if (!(x->name = sdk_strdup(name))) return NULL;
  (*n)++;
  return x;
}

static sdk_group_attrs *group_slot(sdk_store *s, const char *group) {
  for (int i = 0; i < s->ngroups; i++)
    if (!strcmp(s->groups[i].path, group)) return &s->groups[i];
  sdk_group_attrs *g = realloc(s->groups, (size_t)(s->ngroups + 1) * sizeof *g);
  if (!g) return NULL;
  s->groups = g;
  sdk_group_attrs *x = &g[s->ngroups];
  memset(x, 0, sizeof *x);
  if (!(x->path = sdk_strdup(group))) return NULL;
  s->ngroups++;
  return x;
}

sdk_err sdk_store_group_add(sdk_store *s, const char *group, sdk_errbuf *eb) {
  return group_slot(s, group) ? SDK_OK : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
}

const sdk_group_attrs *sdk_store_group(const sdk_store *s, const char *group) {
  for (int i = 0; i < s->ngroups; i++)
    if (!strcmp(s->groups[i].path, group)) return &s->groups[i];
  return NULL;
}

const sdk_attr *sdk_attr_find(const sdk_attr *a, int n, const char *name) {
  for (int i = 0; name && i < n; i++)
    if (!strcmp(a[i].name, name)) return &a[i];
  return NULL;
}

/* Copy src's kind and value into dst (its name stays); dst is left empty on failure. */
static sdk_err attr_assign(sdk_attr *dst, const sdk_attr *src, sdk_errbuf *eb) {
  if (!dst) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  attr_clear(dst);
  dst->kind = src->kind;
  int ok = 1;
  switch (src->kind) {
  case SDK_ATTR_STR: ok = (dst->s = sdk_strdup(src->s ? src->s : "")) != NULL; break;
  case SDK_ATTR_STRS:
    if (src->nstr < 0) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "bad string array");
    ok = (dst->strs = calloc((size_t)src->nstr + 1, sizeof *dst->strs)) != NULL;
    for (int64_t k = 0; ok && k < src->nstr; k++) {
      ok = (dst->strs[k] = sdk_strdup(src->strs && src->strs[k] ? src->strs[k] : "")) != NULL;
      dst->nstr = k + 1; /* (what attr_clear frees) */
    }
    break;
  case SDK_ATTR_F64: dst->f = src->f; break;
  case SDK_ATTR_I64: dst->i = src->i; break;
  case SDK_ATTR_U64: dst->u = src->u; break;
  case SDK_ATTR_F64S:
    if (src->nfs < 0 || (src->nfs > 0 && !src->fs))
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "bad number array");
    ok = (dst->fs = malloc(((size_t)src->nfs + 1) * sizeof *dst->fs)) != NULL;
    if (ok && src->nfs > 0) memcpy(dst->fs, src->fs, (size_t)src->nfs * sizeof *dst->fs);
    if (ok) dst->nfs = src->nfs;
    break;
  }
  if (ok) return SDK_OK;
  attr_clear(dst);
  return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
}

void sdk_ds_attr_del(sdk_dataset *d, const char *name) {
  for (int i = 0; i < d->nattr; i++)
    if (!strcmp(d->attr[i].name, name)) {
      free(d->attr[i].name);
      attr_clear(&d->attr[i]);
      memmove(&d->attr[i], &d->attr[i + 1], (size_t)(d->nattr - i - 1) * sizeof *d->attr);
      d->nattr--;
      return;
    }
}

sdk_err sdk_ds_attr_set(sdk_dataset *d, const sdk_attr *a, sdk_errbuf *eb) {
  return attr_assign(attr_slot(&d->attr, &d->nattr, a->name), a, eb);
}

sdk_err sdk_ds_attr_str(sdk_dataset *d, const char *name, const char *v, sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_STR, .s = (char *)v};
  return sdk_ds_attr_set(d, &a, eb);
}

sdk_err sdk_ds_attr_strs(sdk_dataset *d, const char *name, const char *const *v, int64_t n,
                         sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_STRS, .strs = (char **)v, .nstr = n};
  return sdk_ds_attr_set(d, &a, eb);
}

sdk_err sdk_ds_attr_f64(sdk_dataset *d, const char *name, double v, sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_F64, .f = v};
  return sdk_ds_attr_set(d, &a, eb);
}

sdk_err sdk_ds_attr_i64(sdk_dataset *d, const char *name, int64_t v, sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_I64, .i = v};
  return sdk_ds_attr_set(d, &a, eb);
}

static sdk_attr *group_attr(sdk_store *s, const char *group, const char *name) {
  sdk_group_attrs *g = group_slot(s, group);
  return g ? attr_slot(&g->attr, &g->nattr, name) : NULL;
}

sdk_err sdk_store_group_set(sdk_store *s, const char *group, const sdk_attr *a, sdk_errbuf *eb) {
  return attr_assign(group_attr(s, group, a->name), a, eb);
}

sdk_err sdk_store_group_str(sdk_store *s, const char *group, const char *name, const char *v,
                            sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_STR, .s = (char *)v};
  return sdk_store_group_set(s, group, &a, eb);
}

sdk_err sdk_store_group_strs(sdk_store *s, const char *group, const char *name,
                             const char *const *v, int64_t n, sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_STRS, .strs = (char **)v, .nstr = n};
  return sdk_store_group_set(s, group, &a, eb);
}

sdk_err sdk_store_group_f64(sdk_store *s, const char *group, const char *name, double v,
                            sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_F64, .f = v};
  return sdk_store_group_set(s, group, &a, eb);
}

sdk_err sdk_store_group_i64(sdk_store *s, const char *group, const char *name, int64_t v,
                            sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_I64, .i = v};
  return sdk_store_group_set(s, group, &a, eb);
}

sdk_err sdk_store_group_u64(sdk_store *s, const char *group, const char *name, uint64_t v,
                            sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_U64, .u = v};
  return sdk_store_group_set(s, group, &a, eb);
}

sdk_err sdk_store_group_f64s(sdk_store *s, const char *group, const char *name, const double *v,
                             int64_t n, sdk_errbuf *eb) {
  sdk_attr a = {.name = (char *)name, .kind = SDK_ATTR_F64S, .fs = (double *)v, .nfs = n};
  return sdk_store_group_set(s, group, &a, eb);
}

/* ---------------- trimming and NaN ---------------- */

static void trim_one(sdk_dataset *d, int64_t ns) {
  int64_t have = d->dims[d->sample_axis];
  if (ns >= have) return;
  int64_t outer = 1, inner = sdk_ds_sample_stride(d);
  for (int i = 0; i < d->sample_axis; i++)
    outer *= d->dims[i];
  char *p = d->data;
  size_t es = type_size(d->type);
  /* blocks move towards the front only: memmove in increasing order is safe */
  for (int64_t o = 0; o < outer; o++)
    memmove(p + (size_t)(o * ns * inner) * es, p + (size_t)(o * have * inner) * es,
            (size_t)(ns * inner) * es);
  d->dims[d->sample_axis] = ns;
}

void sdk_store_trim(sdk_store *s, const char *prefix, int64_t nsamples) {
  size_t k = strlen(prefix);
  for (int i = 0; i < s->n; i++)
    if (s->ds[i]->sample_axis >= 0 && !strncmp(s->ds[i]->path, prefix, k))
      trim_one(s->ds[i], nsamples);
}

void sdk_store_nan_grid_point(sdk_store *s, int64_t ngrid, int64_t g) {
  for (int i = 0; i < s->n; i++) {
    sdk_dataset *d = s->ds[i];
    if (d->type != SDK_F64 || (d->flags & SDK_DS_COORD)) continue;
    if (d->grid_rank == 0 && ngrid > 1) continue; /* not per grid point */
    int64_t per = sdk_ds_count(d) / (d->grid_rank ? ngrid : 1);
    int64_t first = d->grid_rank ? g * per : 0;
    double *x = d->data;
    for (int64_t k = 0; k < per; k++)
      x[first + k] = NAN;
  }
}
