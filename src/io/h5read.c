/* sdekit: any sdekit result file into an image (io/image.h), read as a
 * stranger's file.
 *
 * Two passes over the file.  The first looks at every object without
 * reading data: names, types, shapes, where the data live (h5attr.h's
 * checks), and adds up the elements; only when the whole is within
 * SDK_H5_MAX_TOTAL and what the file's size can hold (SDK_H5_MAX_EXPANSION)
 * does the second pass allocate and read.  Then the
 * structure sdekit itself relies on (the scan axes, scan/dt) is checked and
 * every dataset gets its grid, sample axis and dimension names. */
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "io/h5attr.h"
#include "io/image.h"
#include "io/io.h"

/* an object found by the first pass */
typedef struct entry {
  char *name; /* its path below the root */
  int group;
  sdk_dtype type;
  int rank;
  int64_t dims[SDK_DS_MAX_RANK];
  unsigned flags;
} entry;

typedef struct reader {
  const char *path; /* the file, for messages */
  sdk_errbuf *eb;
  hid_t file;
  sdk_err err; /* the first failure inside a visit */
  entry *ent;
  int nent;
  int64_t total; /* elements of every dataset */
  sdk_store *img;
  int64_t fv; /* format_version */
  int nscan;
  const char *axes[SDK_MAX_SCAN]; /* (the image's strings) */
  int64_t axis_n[SDK_MAX_SCAN];
} reader;

/* "'FILE': /OBJECT what..." as SDK_ERR_FORMAT */
__attribute__((format(printf, 3, 4))) static sdk_err bad(reader *r, const char *obj,
                                                         const char *fmt, ...) {
  char what[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  H5Eclear2(H5E_DEFAULT);
  return SDK_FAIL(r->eb, SDK_ERR_FORMAT, "'%s': /%s %s", r->path, obj, what);
}

/* Every name along the path usable (h5attr.h), the path within the store's
 * limit. */
static int path_ok(const char *p) {
  if (strlen(p) >= SDK_H5_MAX_PATH) return 0;
  char buf[SDK_H5_MAX_PATH];
  snprintf(buf, sizeof buf, "%s", p);
  for (char *s = buf, *e; s; s = e ? e + 1 : NULL) {
    e = strchr(s, '/');
    if (e) *e = 0;
    if (!sdk_h5_link_name_ok(s)) return 0;
  }
  return 1;
}

/* The store type of a file type: IEEE f64, i64 or u64 of either byte order. */
static int dtype_of(hid_t ft, sdk_dtype *t) {
  if (H5Tequal(ft, H5T_IEEE_F64LE) > 0 || H5Tequal(ft, H5T_IEEE_F64BE) > 0)
    *t = SDK_F64;
  else if (H5Tequal(ft, H5T_STD_I64LE) > 0 || H5Tequal(ft, H5T_STD_I64BE) > 0)
    *t = SDK_I64;
  else if (H5Tequal(ft, H5T_STD_U64LE) > 0 || H5Tequal(ft, H5T_STD_U64BE) > 0)
    *t = SDK_U64;
  else
    return -1;
  return 0;
}

/* A chunked dataset must have every chunk written: a missing one reads as
 * fill values the file never held (h5attr.h compares the bytes stored with
 * the bytes declared, which a filter or a partial last chunk can hide).
 * Sets SDK_DS_COMPRESS for a filtered one. */
static const char *chunks_problem(hid_t d, hid_t dcpl, int rank, const hsize_t *dims,
                                  unsigned *flags) {
  if (H5Pget_layout(dcpl) != H5D_CHUNKED) return NULL;
  if (H5Pget_nfilters(dcpl) > 0) *flags |= SDK_DS_COMPRESS;
  hsize_t cd[H5S_MAX_RANK];
  if (H5Pget_chunk(dcpl, rank, cd) != rank) return "has a chunk shape that does not fit it";
  uint64_t want = 1;
  for (int i = 0; i < rank; i++) {
    if (cd[i] == 0) return "has a chunk shape that does not fit it";
    want *= (dims[i] + cd[i] - 1) / cd[i]; /* at most SDK_H5_MAX_ELEMENTS in all */
  }
  if (want == 0) return NULL;
  hsize_t have = 0;
  hid_t sp = H5Dget_space(d);
  herr_t st = sp >= 0 ? H5Dget_num_chunks(d, sp, &have) : -1;
  if (sp >= 0) H5Sclose(sp);
  if (st < 0) return "cannot be inspected";
  if (have < want) return "declares more data than the file holds (chunks never written)";
  return NULL;
}

/* First pass over one dataset: what it is and how large. */
static sdk_err look_at_dataset(reader *r, hid_t d, const char *name, entry *e) {
  int64_t np = 0;
  const char *why = sdk_h5_dset_problem(d, &np);
  if (why) return bad(r, name, "%s", why);
  hid_t ft = H5Dget_type(d), sp = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
  sdk_err err = SDK_OK;
  hsize_t dims[H5S_MAX_RANK];
  int rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
  if (ft < 0 || sp < 0 || dcpl < 0 || rank < 0) {
    err = bad(r, name, "cannot be inspected");
  } else if (sc != H5S_SIMPLE && sc != H5S_SCALAR) {
    err = bad(r, name, "has no data (an empty dataspace)");
  } else if (dtype_of(ft, &e->type) != 0) {
    err = bad(r, name, "is of a type sdekit does not read (it reads f64, i64 and u64 numbers)");
  } else if (rank > SDK_DS_MAX_RANK) {
    err = bad(r, name, "has %d dimensions; sdekit reads at most %d", rank, SDK_DS_MAX_RANK);
  } else if ((why = chunks_problem(d, dcpl, rank, dims, &e->flags)) != NULL) {
    err = bad(r, name, "%s", why);
  } else {
    e->rank = rank;
    for (int i = 0; i < rank; i++)
      e->dims[i] = (int64_t)dims[i];
    r->total += np; /* each at most 2^27, at most SDK_H5_MAX_OBJECTS of them */
  }
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  return err;
}

static sdk_err look_at(reader *r, hid_t loc, const char *name, const H5L_info_t *info) {
  if (info->type != H5L_TYPE_HARD) /* (sdk_h5_open_untrusted refused these already) */
    return bad(r, name, "is not a hard link; links to other places are not followed");
  if (r->nent >= SDK_H5_MAX_OBJECTS)
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                    "'%s' holds more than %d groups and datasets (SDK_H5_MAX_OBJECTS)", r->path,
                    SDK_H5_MAX_OBJECTS);
  if (!path_ok(name))
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                    "'%s': the name /%.200s is not usable (each name below a group non-empty, "
                    "not \".\", shorter than 200 bytes; the path shorter than %d)",
                    r->path, name, SDK_H5_MAX_PATH);
  entry *e = &r->ent[r->nent];
  memset(e, 0, sizeof *e);
  hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
  if (o < 0) return bad(r, name, "cannot be opened");
  sdk_err err = SDK_OK;
  H5I_type_t t = H5Iget_type(o);
  if (t == H5I_GROUP)
    e->group = 1;
  else if (t == H5I_DATASET)
    err = look_at_dataset(r, o, name, e);
  else
    err = bad(r, name,
              "is neither a group nor a dataset (a named datatype?); a result file "
              "holds only those");
  H5Oclose(o);
  if (err) return err;
  if (!(e->name = sdk_strdup(name))) return SDK_FAIL(r->eb, SDK_ERR_NOMEM, "out of memory");
  r->nent++;
  return SDK_OK;
}

static herr_t visit(hid_t loc, const char *name, const H5L_info_t *info, void *data) {
  reader *r = data;
  r->err = look_at(r, loc, name, info);
  return r->err ? 1 : 0; /* 1 stops the walk */
}

/* ---------------- attributes ---------------- */

/* Strings of a string attribute (n of them) into a->strs. */
static int read_strings(hid_t at, hid_t ft, hssize_t n, sdk_attr *a) {
  int ok = 0;
  hid_t mt = H5Tcopy(H5T_C_S1);
  if (mt < 0 || !(a->strs = calloc((size_t)n + 1, sizeof *a->strs))) goto out;
  if (H5Tis_variable_str(ft) > 0) {
    char **raw = calloc((size_t)n + 1, sizeof *raw);
    if (raw && H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Tset_cset(mt, H5Tget_cset(ft)) >= 0 &&
        (n == 0 || H5Aread(at, mt, raw) >= 0)) {
      ok = 1;
      for (hssize_t i = 0; i < n; i++)
        ok &= (a->strs[i] = sdk_strdup(raw[i] ? raw[i] : "")) != NULL;
    }
    for (hssize_t i = 0; raw && i < n; i++)
      if (raw[i]) H5free_memory(raw[i]);
    free(raw);
  } else {
    size_t sz = H5Tget_size(ft);
    char *tmp =
        sz > 0 && sz <= SDK_H5_MAX_ATTR_BYTES && (uint64_t)n * (sz + 1) <= SDK_H5_MAX_ATTR_BYTES
            ? calloc((size_t)n * (sz + 1) + 1, 1)
            : NULL;
    if (tmp && H5Tset_size(mt, sz + 1) >= 0 && H5Tset_strpad(mt, H5T_STR_NULLTERM) >= 0 &&
        (n == 0 || H5Aread(at, mt, tmp) >= 0)) {
      ok = 1;
      for (hssize_t i = 0; i < n; i++)
        ok &= (a->strs[i] = sdk_strdup(tmp + (size_t)i * (sz + 1))) != NULL;
    }
    free(tmp);
  }
out:
  a->nstr = a->strs ? n : 0; /* (what the caller frees) */
  if (mt >= 0) H5Tclose(mt);
  return ok;
}

static void attr_free(sdk_attr *a) {
  for (int64_t k = 0; k < a->nstr; k++)
    free(a->strs[k]);
  free(a->strs);
  free(a->fs);
}

/* One attribute into a (kind and value; the name is the caller's): a string
 * or string array, one number, or an array of floating-point numbers. */
static sdk_err read_attr(reader *r, hid_t loc, const char *obj, const char *name, sdk_attr *a) {
  hid_t at = H5Aopen(loc, name, H5P_DEFAULT);
  if (at < 0) return bad(r, obj, "has an attribute '%.100s' that cannot be opened", name);
  hid_t ft = H5Aget_type(at), sp = H5Aget_space(at);
  H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
  int rank = sc == H5S_SCALAR ? 0 : sc == H5S_SIMPLE ? H5Sget_simple_extent_ndims(sp) : -1;
  hssize_t n = rank >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  H5T_class_t c = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
  size_t sz = ft >= 0 ? H5Tget_size(ft) : 0;
  sdk_err err = SDK_OK;
  int ok = 0;
  if (ft < 0 || rank < 0 || rank > 1 || n < 0 || n > SDK_H5_MAX_ATTR_ELEMENTS) {
    err = bad(r, obj,
              "has an attribute '%.100s' of a shape sdekit does not read (one value or "
              "a list of at most %d)",
              name, SDK_H5_MAX_ATTR_ELEMENTS);
  } else if (c == H5T_STRING) {
    a->kind = rank == 0 ? SDK_ATTR_STR : SDK_ATTR_STRS;
    ok = read_strings(at, ft, n, a);
    if (ok && rank == 0) {
      a->s = a->strs[0];
      a->strs[0] = NULL;
      free(a->strs);
      a->strs = NULL, a->nstr = 0;
    }
  } else if (c == H5T_FLOAT && sz <= 8 && rank == 0) {
    a->kind = SDK_ATTR_F64;
    ok = H5Aread(at, H5T_NATIVE_DOUBLE, &a->f) >= 0;
  } else if (c == H5T_FLOAT && sz <= 8) {
    a->kind = SDK_ATTR_F64S;
    ok = (a->fs = malloc(((size_t)n + 1) * sizeof *a->fs)) != NULL &&
         (n == 0 || H5Aread(at, H5T_NATIVE_DOUBLE, a->fs) >= 0);
    a->nfs = n;
  } else if (c == H5T_INTEGER && sz <= 8 && rank == 0 && H5Tget_sign(ft) == H5T_SGN_NONE &&
             sz == 8) {
    a->kind = SDK_ATTR_U64;
    ok = H5Aread(at, H5T_NATIVE_UINT64, &a->u) >= 0;
  } else if (c == H5T_INTEGER && sz <= 8 && rank == 0) {
    a->kind = SDK_ATTR_I64;
    ok = H5Aread(at, H5T_NATIVE_INT64, &a->i) >= 0;
  } else {
    err = bad(r, obj,
              "has an attribute '%.100s' of a type sdekit does not read (strings, "
              "numbers, lists of strings or of floating-point numbers)",
              name);
  }
  if (!err && !ok) err = bad(r, obj, "has an attribute '%.100s' that cannot be read", name);
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  H5Aclose(at);
  return err;
}

typedef struct attr_walk {
  reader *r;
  const char *obj; /* the object's path, for messages */
  sdk_dataset *d;  /* a dataset's attributes go here, */
  const char *grp; /* else the group's */
  int n;
  sdk_err err;
} attr_walk;

static herr_t one_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  attr_walk *w = data;
  reader *r = w->r;
  if (++w->n > SDK_H5_MAX_ATTRS) {
    w->err = bad(r, w->obj, "has more than %d attributes (SDK_H5_MAX_ATTRS)", SDK_H5_MAX_ATTRS);
    return 1;
  }
  if (!name[0] || strlen(name) >= 256) {
    w->err = bad(r, w->obj, "has an attribute whose name is not usable");
    return 1;
  }
  sdk_attr a = {.name = (char *)name};
  w->err = read_attr(r, loc, w->obj, name, &a);
  if (!w->err)
    w->err =
        w->d ? sdk_ds_attr_set(w->d, &a, r->eb) : sdk_store_group_set(r->img, w->grp, &a, r->eb);
  attr_free(&a);
  free(a.s);
  return w->err ? 1 : 0;
}

static sdk_err read_attrs(reader *r, hid_t loc, const char *obj, sdk_dataset *d, const char *grp) {
  attr_walk w = {r, obj, d, grp, 0, SDK_OK};
  hsize_t idx = 0;
  herr_t st = H5Aiterate2(loc, H5_INDEX_NAME, H5_ITER_INC, &idx, one_attr, &w);
  if (w.err) return w.err;
  if (st < 0) return bad(r, obj, "has attributes that cannot be listed");
  return SDK_OK;
}

/* ---------------- the second pass: data ---------------- */

static hid_t mem_type(sdk_dtype t) {
  return t == SDK_I64 ? H5T_NATIVE_INT64 : t == SDK_U64 ? H5T_NATIVE_UINT64 : H5T_NATIVE_DOUBLE;
}

static sdk_err read_entry(reader *r, const entry *e) {
  if (e->group) {
    SDK_CHECK(sdk_store_group_add(r->img, e->name, r->eb));
    hid_t g = H5Gopen2(r->file, e->name, H5P_DEFAULT);
    if (g < 0) return bad(r, e->name, "cannot be opened");
    sdk_err err = read_attrs(r, g, e->name, NULL, e->name);
    H5Gclose(g);
    return err;
  }
  sdk_dataset *d;
  SDK_CHECK(sdk_store_add(r->img, e->name, e->type, e->rank, e->dims, 0, -1, e->flags, &d, r->eb));
  hid_t id = H5Dopen2(r->file, e->name, H5P_DEFAULT);
  if (id < 0) return bad(r, e->name, "cannot be opened");
  sdk_err err = SDK_OK;
  if (sdk_ds_count(d) > 0 &&
      H5Dread(id, mem_type(e->type), H5S_ALL, H5S_ALL, H5P_DEFAULT, d->data) < 0)
    err = bad(r, e->name, "cannot be read (damaged, or compressed with a filter not available)");
  if (!err) err = read_attrs(r, id, e->name, d, NULL);
  H5Dclose(id);
  return err;
}

/* ---------------- structure ---------------- */

static sdk_err identify(reader *r) {
  char buf[64];
  int64_t fv = 0;
  r->fv = 0;
  if (sdk_h5_str_attr(r->file, "format", buf, sizeof buf) != 0 || strcmp(buf, "sdekit") != 0)
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                    "'%s' is not an sdekit result file (no format = \"sdekit\" attribute)",
                    r->path);
  if (sdk_h5_num_attr(r->file, "format_version", H5T_NATIVE_INT64, &fv, 1) != 0 || fv < 1)
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                    "'%s' is not an sdekit result file (no valid format_version attribute)",
                    r->path);
  if (fv > SDK_H5_FORMAT_VERSION)
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                    "'%s' was written by a newer sdekit (format %lld; this one reads up to %d)",
                    r->path, (long long)fv, SDK_H5_FORMAT_VERSION);
  r->fv = fv;
  return SDK_OK;
}

/* The scan axes (scan's attribute axes, each a 1-D f64 scan/<param> of at
 * least one value) and scan/dt over their grid. */
static sdk_err read_scan(reader *r) {
  const sdk_group_attrs *g = sdk_store_group(r->img, "scan");
  const sdk_attr *a = g ? sdk_attr_find(g->attr, g->nattr, "axes") : NULL;
  if (!g)
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT, "'%s' is not an sdekit result file (no scan group)",
                    r->path);
  if (!a || a->kind != SDK_ATTR_STRS || a->nstr > SDK_MAX_SCAN)
    return bad(r, "scan", "has no attribute axes listing at most %d parameters", SDK_MAX_SCAN);
  r->nscan = (int)a->nstr;
  for (int i = 0; i < r->nscan; i++) {
    const char *name = a->strs[i];
    int twice = 0;
    for (int j = 0; j < i; j++)
      twice |= !strcmp(name, a->strs[j]);
    if (!sdk_h5_link_name_ok(name) || !strcmp(name, "dt") || twice)
      return bad(r, "scan", "lists an axis '%.200s' that is not a parameter's dataset name", name);
    const sdk_dataset *d = sdk_store_findf(r->img, "scan/%s", name);
    if (!d || d->type != SDK_F64 || d->rank != 1 || d->dims[0] < 1)
      return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                      "'%s': scan axis /scan/%s is missing or not a list of numbers", r->path,
                      name);
    r->axes[i] = name;
    r->axis_n[i] = d->dims[0];
  }
  const sdk_dataset *dt = sdk_store_find(r->img, "scan/dt");
  int ok = dt && dt->type == SDK_F64 && dt->rank == r->nscan;
  for (int i = 0; ok && i < r->nscan; i++)
    ok = dt->dims[i] == r->axis_n[i];
  if (!ok) return bad(r, "scan/dt", "is missing or does not match the scan axes");
  return SDK_OK;
}

/* The leading dimensions are the grid when they are the scan's, all of them. */
static int grid_of(const reader *r, const sdk_dataset *d, char *const *names) {
  if (d->rank < r->nscan) return 0;
  for (int i = 0; i < r->nscan; i++)
    if (d->dims[i] != r->axis_n[i] || (names && strcmp(names[i], r->axes[i]))) return 0;
  return r->nscan;
}

/* Grid, sample axis and dimension names: from the attribute dims
 * (format_version 2), else from the shapes (image.h). */
static sdk_err axes_of(reader *r, sdk_dataset *d) {
  const sdk_attr *dims = sdk_attr_find(d->attr, d->nattr, "dims");
  const char *leaf = strrchr(d->path, '/');
  leaf = leaf ? leaf + 1 : d->path;
  int in_scan = !strncmp(d->path, "scan/", 5);
  /* (final/ and final_params/: the states --save-final writes, a record of
   * the paths rather than a statistic: sim/pathdata.c) */
  if (in_scan || !strcmp(leaf, "t") || !strcmp(leaf, "step") || !strcmp(leaf, "index") ||
      !strcmp(d->path, "acf/lag") || !strcmp(d->path, "psd/f") || !strncmp(d->path, "final/", 6) ||
      !strncmp(d->path, "final_params/", 13))
    d->flags |= SDK_DS_COORD;
  char *names[SDK_DS_MAX_RANK] = {0}, dflt[SDK_DS_MAX_RANK][16];
  /* without dims (format 1, or a dataset another program added to a file
   * of format 2): from the shapes */
  if (dims) {
    if (dims->kind != SDK_ATTR_STRS || dims->nstr != d->rank)
      return bad(r, d->path, "has an attribute dims that does not name its %d dimensions", d->rank);
    for (int k = 0; k < d->rank; k++)
      names[k] = dims->strs[k];
    d->grid_rank = grid_of(r, d, names);
    for (int k = d->grid_rank; !in_scan && k < d->rank && d->sample_axis < 0; k++)
      if (!strcmp(names[k], "sample")) d->sample_axis = k;
  } else if (!strcmp(leaf, "step") && d->rank == 1 && !in_scan) {
    d->sample_axis = 0;
  } else {
    d->grid_rank = grid_of(r, d, NULL);
    char top[SDK_H5_MAX_PATH];
    snprintf(top, sizeof top, "%.*s", (int)strcspn(d->path, "/"), d->path);
    const sdk_dataset *st = in_scan ? NULL : sdk_store_findf(r->img, "%s/step", top);
    for (int k = d->grid_rank; st && st->rank == 1 && k < d->rank && d->sample_axis < 0; k++)
      if (d->dims[k] == st->dims[0]) d->sample_axis = k;
  }
  for (int k = 0; k < d->rank; k++) {
    snprintf(dflt[k], sizeof dflt[k], "dim%d", k);
    const char *n = names[k]              ? names[k]
                    : k < d->grid_rank    ? r->axes[k]
                    : k == d->sample_axis ? "sample"
                                          : dflt[k];
    SDK_CHECK(sdk_ds_dim_name(d, k, n, r->eb));
  }
  return SDK_OK;
}

/* A sample axis as long as the top-level group's step (where it has one). */
static sdk_err check_samples(reader *r, const sdk_dataset *d) {
  if (d->sample_axis < 0) return SDK_OK;
  char top[SDK_H5_MAX_PATH];
  snprintf(top, sizeof top, "%.*s", (int)strcspn(d->path, "/"), d->path);
  const sdk_dataset *st = sdk_store_findf(r->img, "%s/step", top);
  if (!st || st->rank != 1 || st->dims[0] == d->dims[d->sample_axis]) return SDK_OK;
  return bad(r, d->path, "has %lld samples where /%s/step has %lld",
             (long long)d->dims[d->sample_axis], top, (long long)st->dims[0]);
}

/* A standard_error attribute names a sibling dataset of the same shape. */
static sdk_err check_std_error(reader *r, const sdk_dataset *d) {
  const sdk_attr *a = sdk_attr_find(d->attr, d->nattr, "standard_error");
  if (!a) return SDK_OK;
  const sdk_dataset *s = NULL;
  if (a->kind == SDK_ATTR_STR && sdk_h5_link_name_ok(a->s)) {
    const char *slash = strrchr(d->path, '/');
    int dir = slash ? (int)(slash - d->path) + 1 : 0;
    s = sdk_store_findf(r->img, "%.*s%s", dir, d->path, a->s);
  }
  int ok = s && s != d && s->rank == d->rank && s->type == SDK_F64;
  for (int k = 0; ok && k < d->rank; k++)
    ok = s->dims[k] == d->dims[k];
  if (!ok)
    return bad(r, d->path,
               "has an attribute standard_error that does not name a dataset of its shape beside "
               "it");
  return SDK_OK;
}

static sdk_err read_all(reader *r) {
  SDK_CHECK(identify(r));
  if (!(r->ent = calloc(SDK_H5_MAX_OBJECTS, sizeof *r->ent)))
    return SDK_FAIL(r->eb, SDK_ERR_NOMEM, "out of memory");
  herr_t st = H5Lvisit(r->file, H5_INDEX_NAME, H5_ITER_INC, visit, r);
  if (r->err) return r->err;
  if (st < 0) return SDK_FAIL(r->eb, SDK_ERR_FORMAT, "cannot list the contents of '%s'", r->path);
  if (r->total > SDK_H5_MAX_TOTAL)
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                    "'%s' holds %lld values in all, more than sdekit reads (SDK_H5_MAX_TOTAL, "
                    "2^29)",
                    r->path, (long long)r->total);
  /* what the file's bytes may unpack to (every value 8 bytes): the second
   * pass allocates it all */
  hsize_t fsize = 0;
  if (H5Fget_filesize(r->file, &fsize) < 0) fsize = 0;
  uint64_t need = (uint64_t)r->total * 8, cap = SDK_H5_FREE_BYTES + SDK_H5_MAX_EXPANSION * fsize;
  if (need > cap)
    return SDK_FAIL(r->eb, SDK_ERR_FORMAT,
                    "'%s' unpacks to %llu MiB of values from %llu KiB of file, more than sdekit "
                    "reads (SDK_H5_MAX_EXPANSION: %d times the file's size plus %llu MiB)",
                    r->path, (unsigned long long)(need >> 20), (unsigned long long)(fsize >> 10),
                    SDK_H5_MAX_EXPANSION, (unsigned long long)(SDK_H5_FREE_BYTES >> 20));
  SDK_CHECK(sdk_store_group_add(r->img, "", r->eb));
  SDK_CHECK(read_attrs(r, r->file, "", NULL, ""));
  for (int i = 0; i < r->nent; i++)
    SDK_CHECK(read_entry(r, &r->ent[i]));
  SDK_CHECK(read_scan(r));
  for (int i = 0; i < r->img->n; i++)
    SDK_CHECK(axes_of(r, r->img->ds[i]));
  for (int i = 0; i < r->img->n; i++) {
    SDK_CHECK(check_samples(r, r->img->ds[i]));
    SDK_CHECK(check_std_error(r, r->img->ds[i]));
  }
  return SDK_OK;
}

sdk_err sdk_read_h5(const char *path, sdk_store *img, sdk_errbuf *eb) {
  sdk_store_init(img);
  reader r = {.path = path, .eb = eb, .file = -1, .img = img};
  sdk_err e = sdk_h5_open_untrusted(path, &r.file, eb);
  if (!e) e = read_all(&r);
  for (int i = 0; i < r.nent; i++)
    free(r.ent[i].name);
  free(r.ent);
  if (r.file >= 0) H5Fclose(r.file);
  H5Eclear2(H5E_DEFAULT);
  if (e) sdk_store_free(img);
  return e;
}
