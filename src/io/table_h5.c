/* Named columns from an HDF5 file (io/table.h): an sdekit result's final
 * states, a dataset per name, or one compound dataset.  The file is opened
 * as a stranger's (io/h5attr.h: regular file, no links followed), and every
 * dataset is checked before anything is allocated for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5attr.h"
#include "io/table_internal.h"

typedef struct h5_names {
  int n;
  char name[SDK_TABLE_MAX_COLUMNS][201];
  int over; /* more than fit, or a name too long */
} h5_names;

static herr_t collect(hid_t loc, const char *name, const H5L_info_t *info, void *data) {
  h5_names *ns = data;
  if (info->type != H5L_TYPE_HARD) return ns->over = 1, 1; /* (refused at the opening) */
  hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
  if (o < 0) return -1;
  H5I_type_t t = H5Iget_type(o);
  H5Oclose(o);
  if (t != H5I_DATASET) return 0; /* groups, named types: not columns */
  if (ns->n == SDK_TABLE_MAX_COLUMNS || !sdk_h5_link_name_ok(name)) return ns->over = 1, 1;
  snprintf(ns->name[ns->n++], sizeof ns->name[0], "%s", name);
  return 0;
}

/* dataset d's shape as a table's: rank 1 [paths] or 2 [grid][paths] */
static sdk_err shape_of(hid_t d, const char *label, const char *what, int64_t *ngrid,
                        int64_t *count, sdk_errbuf *eb) {
  int64_t np;
  const char *why = sdk_h5_dset_problem(d, &np);
  if (why) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: %s %s", label, what, why);
  hid_t sp = H5Dget_space(d);
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  hsize_t dims[2] = {0, 0};
  if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0) H5Sclose(sp);
  if (rank < 1 || rank > 2)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: %s has %d dimensions; expected [paths] or [grid points][paths]", label,
                    what, rank);
  *ngrid = rank == 2 ? (int64_t)dims[0] : 0;
  *count = rank == 2 ? (int64_t)dims[1] : (int64_t)dims[0];
  if (np < 1) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: %s holds no values", label, what);
  return SDK_OK;
}

static int number_class(H5T_class_t c) {
  return c == H5T_FLOAT || c == H5T_INTEGER;
}

/* Why numbers of type ty cannot be read exactly (NULL: they can): a float
 * other than IEEE 754 single or double, or an integer with bits that are
 * not its value, whose conversion HDF5 makes from the bits it has and the
 * destination's (a file can declare any layout of bits: found by fuzzing,
 * reads of different extents then gave different values) */
static const char *type_problem(hid_t ty) {
  if (H5Tget_class(ty) == H5T_FLOAT) {
    const hid_t ieee[] = {H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};
    for (int i = 0; i < 4; i++)
      if (H5Tequal(ty, ieee[i]) > 0) return NULL;
    return "a floating-point type other than IEEE 754 single or double precision";
  }
  size_t size = H5Tget_size(ty);
  if ((size == 1 || size == 2 || size == 4 || size == 8) && H5Tget_precision(ty) == 8 * size &&
      H5Tget_offset(ty) == 0)
    return NULL;
  return "an integer type with padding bits or of an odd size";
}

/* the fields of compound dataset d as columns (names and shape: the values
 * are read by sdk_table_h5_slice) */
static sdk_err read_compound(hid_t d, hid_t ty, const char *label, sdk_table *t, sdk_errbuf *eb) {
  int nm = H5Tget_nmembers(ty);
  sdk_err e = shape_of(d, label, "the compound dataset", &t->ngrid, &t->count, eb);
  int64_t total = (t->ngrid ? t->ngrid : 1) * t->count;
  for (int k = 0; e == SDK_OK && k < nm; k++) {
    char *name = H5Tget_member_name(ty, (unsigned)k);
    H5T_class_t c = H5Tget_member_class(ty, (unsigned)k);
    if (!name)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a field of the compound dataset has no name", label);
    else if (!number_class(c))
      e = SDK_FAIL(eb, SDK_ERR_FORMAT,
                   "%s: field '%.200s' is not a number (integers or floating point only)", label,
                   name);
    hid_t mt = e == SDK_OK && number_class(c) ? H5Tget_member_type(ty, (unsigned)k) : -1;
    const char *why = mt >= 0 ? type_problem(mt) : NULL;
    if (mt >= 0) H5Tclose(mt);
    if (why)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: field '%.200s' has %s", label, name, why);
    else if (e == SDK_OK && number_class(c))
      e = sdk_table_add(t, label, name, total, NULL, eb);
    if (name) H5free_memory(name);
  }
  return e;
}

/* dataset `name` of loc as a column (its name and shape) */
static sdk_err read_column(hid_t d, const char *name, const char *label, sdk_table *t,
                           sdk_errbuf *eb) {
  char what[260];
  snprintf(what, sizeof what, "dataset '%s'", name);
  hid_t ty = H5Dget_type(d);
  H5T_class_t c = ty >= 0 ? H5Tget_class(ty) : H5T_NO_CLASS;
  const char *why = number_class(c) ? type_problem(ty) : NULL;
  if (ty >= 0) H5Tclose(ty);
  if (!number_class(c))
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: %s is not numbers (integers or floating point only; complex, strings "
                    "and compounds among other datasets are refused)",
                    label, what);
  if (why) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: %s has %s", label, what, why);
  int64_t ng, cnt;
  SDK_CHECK(shape_of(d, label, what, &ng, &cnt, eb));
  if (t->n == 0)
    t->ngrid = ng, t->count = cnt;
  else if (ng != t->ngrid || cnt != t->count)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: %s has a shape other than '%s's ([%lld][%lld] against [%lld][%lld]; "
                    "[0]: one dimension)",
                    label, what, t->names[0], (long long)ng, (long long)cnt, (long long)t->ngrid,
                    (long long)t->count);
  return sdk_table_add(t, label, name, (ng ? ng : 1) * cnt, NULL, eb);
}

static sdk_err read_loc(hid_t loc, const char *label, const char *where, sdk_table *t,
                        char *compound, sdk_errbuf *eb) {
  h5_names *ns = calloc(1, sizeof *ns);
  if (!ns) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = SDK_OK;
  if (H5Literate(loc, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, collect, ns) < 0)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: cannot list %s", label, where);
  else if (ns->over)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: %s has more than %d datasets or a name too long", label,
                 where, SDK_TABLE_MAX_COLUMNS);
  else if (ns->n == 0)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no datasets in %s", label, where);
  for (int k = 0; e == SDK_OK && k < ns->n; k++) {
    hid_t d = H5Dopen2(loc, ns->name[k], H5P_DEFAULT);
    if (d < 0) {
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: dataset '%s' cannot be opened", label, ns->name[k]);
      break;
    }
    hid_t ty = H5Dget_type(d);
    int is_compound = ty >= 0 && H5Tget_class(ty) == H5T_COMPOUND;
    if (is_compound && ns->n == 1) {
      e = read_compound(d, ty, label, t, eb);
      snprintf(compound, 201, "%s", ns->name[k]);
    } else
      e = read_column(d, ns->name[k], label, t, eb);
    if (ty >= 0) H5Tclose(ty);
    H5Dclose(d);
  }
  free(ns);
  return e;
}

sdk_err sdk_table_h5_open(hid_t f, const char *label, const char *group, sdk_table_h5 *h,
                          sdk_table *t, sdk_errbuf *eb) {
  h->loc = -1, h->compound[0] = 0, h->group = 0;
  char fmt[32] = "";
  int result = sdk_h5_str_attr(f, "format", fmt, sizeof fmt) == 0 && !strcmp(fmt, "sdekit");
  const char *g = group ? group : result ? "final" : NULL;
  sdk_err e = SDK_OK;
  if (g && (!sdk_h5_link_name_ok(g) || H5Lexists(f, g, H5P_DEFAULT) <= 0)) {
    if (result && !group)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT,
                   "%s: an sdekit result without final states (run it with --save-final)", label);
    else
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no group '%.200s'", label, g);
  }
  hid_t loc = e == SDK_OK && g ? H5Gopen2(f, g, H5P_DEFAULT) : f;
  if (e == SDK_OK && loc < 0)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: '%.200s' is not a group", label, g);
  if (e == SDK_OK) h->loc = loc, h->group = g != NULL;
  char where[260];
  snprintf(where, sizeof where, g ? "group '%s'" : "the root group", g ? g : "");
  if (e == SDK_OK) e = read_loc(loc, label, where, t, h->compound, eb);
  /* (whose paths' noise a continuation must not repeat: api/pathdata.c) */
  unsigned long long seed;
  if (e == SDK_OK && result && sdk_h5_num_attr(f, "seed", H5T_NATIVE_ULLONG, &seed, 1) == 0)
    t->seed = seed, t->has_seed = 1;
  H5Eclear2(H5E_DEFAULT);
  return e;
}

void sdk_table_h5_close(sdk_table_h5 *h) {
  if (h->group && h->loc >= 0) H5Gclose(h->loc);
  h->loc = -1, h->group = 0;
}

sdk_err sdk_table_h5_slice(const sdk_table_h5 *h, const sdk_table *t, int k, int64_t first,
                           int64_t n, double *out, const char *label, sdk_errbuf *eb) {
  const char *dname = h->compound[0] ? h->compound : t->names[k];
  hid_t d = H5Dopen2(h->loc, dname, H5P_DEFAULT), mt = H5T_NATIVE_DOUBLE;
  sdk_err e = d < 0
                  ? SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: dataset '%s' cannot be opened", label, dname)
                  : SDK_OK;
  /* a compound's field by name: one double member of that name, which HDF5
   * converts from the field */
  if (e == SDK_OK && h->compound[0]) {
    mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
    if (mt < 0 || H5Tinsert(mt, t->names[k], 0, H5T_NATIVE_DOUBLE) < 0)
      e = SDK_FAIL(eb, SDK_ERR_NOMEM, "%s: field '%.200s' cannot be read", label, t->names[k]);
  }
  /* the slice of the flattened [ngrid][count]: the rest of a grid point's
   * row, the whole rows after it as one block, the start of the last row */
  hid_t fs = e == SDK_OK ? H5Dget_space(d) : -1;
  for (int64_t j = 0; e == SDK_OK && j < n;) {
    int64_t i = first + j, g = i / t->count, p = i % t->count, rows = 1, m;
    if (p == 0 && n - j >= t->count)
      rows = (n - j) / t->count, m = rows * t->count;
    else
      m = t->count - p < n - j ? t->count - p : n - j;
    hsize_t start[2] = {(hsize_t)g, (hsize_t)p}, cnt[2] = {(hsize_t)rows, (hsize_t)(m / rows)},
            mdim = (hsize_t)m;
    int two = t->ngrid > 0;
    hid_t ms = H5Screate_simple(1, &mdim, NULL);
    if (fs < 0 || ms < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, two ? start : start + 1, NULL, two ? cnt : cnt + 1,
                            NULL) < 0 ||
        H5Dread(d, mt, ms, fs, H5P_DEFAULT, out + j) < 0)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: '%.200s' cannot be read", label, t->names[k]);
    if (ms >= 0) H5Sclose(ms);
    j += m;
  }
  if (fs >= 0) H5Sclose(fs);
  if (h->compound[0] && mt >= 0) H5Tclose(mt);
  if (d >= 0) H5Dclose(d);
  H5Eclear2(H5E_DEFAULT);
  return e;
}
