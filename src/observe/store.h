/* sdekit: the results of a run as named datasets.
 *
 * Every observable keeps what it computes in datasets of this store, named by
 * their path in the result file ("moments/mean_x", "density/x/P") with their
 * type, shape and attributes; groups ("density/x") may carry attributes too.
 * The HDF5 writer writes the store as it is (src/io/h5.c knows no observable),
 * the checkpoint saves and restores its sampled datasets, the library's users
 * read any result by its path (sdk_store_find), and `sdekit plot` and `info`
 * read the same names back from the file.
 *
 * Shapes.  "grid..." are the scan dimensions (none, [n0] or [n0, n1]).  A
 * dataset with a sample axis (sample_axis >= 0) is allotted for the most
 * samples a run can take along that axis; the observable fills samples
 * 0, 1, ... and the store trims the axis to the samples taken
 * (sdk_store_trim) before anything reads it.  Data are C arrays in row-major
 * order.
 */
#ifndef SDK_STORE_H
#define SDK_STORE_H

#include <stdint.h>

#include "core/error.h"

#define SDK_DS_MAX_RANK 8 /* = SDEKIT_MAX_RANK of the public API */

typedef enum sdk_dtype { SDK_F64 = 0, SDK_I64 = 1, SDK_U64 = 2 } sdk_dtype;

/* an attribute: a string, a string array, one f64/i64/u64 number, or an
 * array of f64 (the root's param_values) */
typedef enum sdk_attr_kind {
  SDK_ATTR_STR,
  SDK_ATTR_STRS,
  SDK_ATTR_F64,
  SDK_ATTR_I64,
  SDK_ATTR_U64,
  SDK_ATTR_F64S
} sdk_attr_kind;

typedef struct sdk_attr {
  char *name;
  sdk_attr_kind kind;
  char *s;      /* STR */
  char **strs;  /* STRS */
  int64_t nstr; /* STRS */
  double f;     /* F64 */
  int64_t i;    /* I64 */
  uint64_t u;   /* U64 */
  double *fs;   /* F64S */
  int64_t nfs;  /* F64S */
} sdk_attr;

enum {
  SDK_DS_COMPRESS = 1, /* large: chunked and deflated in HDF5 (paths, densities) */
  SDK_DS_COORD = 2,    /* a coordinate (sample times), not a statistic: never set to NaN */
  SDK_DS_BORROWED = 4  /* data belong to someone else (an image of results): never freed */
};

typedef struct sdk_dataset {
  char *path;
  sdk_dtype type;
  int rank;
  int64_t dims[SDK_DS_MAX_RANK];
  int grid_rank;   /* the first grid_rank dimensions are the grid (0 for none) */
  int sample_axis; /* -1: none */
  unsigned flags;
  void *data; /* owned (unless SDK_DS_BORROWED); elements of `type` */
  int nattr;
  sdk_attr *attr;
  /* names of dimensions (owned; NULL: none given).  Observables name the
   * dimensions that are neither grid nor sample ("path", "bin"); an image
   * (io/image.h) names every one. */
  char *dim_name[SDK_DS_MAX_RANK];
} sdk_dataset;

typedef struct sdk_group_attrs {
  char *path;
  int nattr;
  sdk_attr *attr;
} sdk_group_attrs;

typedef struct sdk_store {
  int n;
  sdk_dataset **ds; /* in creation order */
  int ngroups;
  sdk_group_attrs *groups; /* groups that carry attributes (an image: every group) */
} sdk_store;

void sdk_store_init(sdk_store *s);
void sdk_store_free(sdk_store *s);

/* Add a zero-filled dataset of `rank` dimensions; returns it in *out (owned
 * by the store).  The path must be new; SDK_ERR_NOMEM when it cannot be held. */
sdk_err sdk_store_add(sdk_store *s, const char *path, sdk_dtype type, int rank, const int64_t *dims,
                      int grid_rank, int sample_axis, unsigned flags, sdk_dataset **out,
                      sdk_errbuf *eb);
/* Add a dataset whose data belong to the caller (SDK_DS_BORROWED: the store
 * never writes or frees them; they must outlive the store). */
sdk_err sdk_store_add_borrowed(sdk_store *s, const char *path, sdk_dtype type, int rank,
                               const int64_t *dims, int grid_rank, int sample_axis, unsigned flags,
                               const void *data, sdk_dataset **out, sdk_errbuf *eb);
/* The dataset at `path`, or NULL. */
sdk_dataset *sdk_store_find(const sdk_store *s, const char *path);
/* printf-style path */
sdk_dataset *sdk_store_findf(const sdk_store *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Name dimension `axis` of d (a copy is kept). */
sdk_err sdk_ds_dim_name(sdk_dataset *d, int axis, const char *name, sdk_errbuf *eb);
/* SDK_ERR_USAGE where a scan axis named `name` would share its name with
 * another dimension of the datasets ("sample", "bin", "path", ...: each
 * dataset's dims would name two axes alike, and a reader such as xarray
 * takes them for one) */
sdk_err sdk_store_axis_name_free(const char *name, sdk_errbuf *eb);

/* Attributes of a dataset or of a group (created on first use; setting one
 * that exists replaces it, in its place). */
sdk_err sdk_ds_attr_str(sdk_dataset *d, const char *name, const char *v, sdk_errbuf *eb);
sdk_err sdk_ds_attr_strs(sdk_dataset *d, const char *name, const char *const *v, int64_t n,
                         sdk_errbuf *eb);
sdk_err sdk_ds_attr_f64(sdk_dataset *d, const char *name, double v, sdk_errbuf *eb);
sdk_err sdk_ds_attr_i64(sdk_dataset *d, const char *name, int64_t v, sdk_errbuf *eb);
/* Remove attribute `name` of d (if it has one), keeping the others' order. */
void sdk_ds_attr_del(sdk_dataset *d, const char *name);
/* a copy of attribute a (its name, kind and value) */
sdk_err sdk_ds_attr_set(sdk_dataset *d, const sdk_attr *a, sdk_errbuf *eb);
sdk_err sdk_store_group_set(sdk_store *s, const char *group, const sdk_attr *a, sdk_errbuf *eb);
sdk_err sdk_store_group_str(sdk_store *s, const char *group, const char *name, const char *v,
                            sdk_errbuf *eb);
sdk_err sdk_store_group_strs(sdk_store *s, const char *group, const char *name,
                             const char *const *v, int64_t n, sdk_errbuf *eb);
sdk_err sdk_store_group_u64(sdk_store *s, const char *group, const char *name, uint64_t v,
                            sdk_errbuf *eb);
sdk_err sdk_store_group_f64s(sdk_store *s, const char *group, const char *name, const double *v,
                             int64_t n, sdk_errbuf *eb);
sdk_err sdk_store_group_f64(sdk_store *s, const char *group, const char *name, double v,
                            sdk_errbuf *eb);
sdk_err sdk_store_group_i64(sdk_store *s, const char *group, const char *name, int64_t v,
                            sdk_errbuf *eb);
const sdk_group_attrs *sdk_store_group(const sdk_store *s, const char *group);
/* A record for group `group` (with no attributes when new): an image lists
 * every group of its file. */
sdk_err sdk_store_group_add(sdk_store *s, const char *group, sdk_errbuf *eb);
/* Attribute `name` of n attributes, or NULL. */
const sdk_attr *sdk_attr_find(const sdk_attr *a, int n, const char *name);

/* Elements of a dataset, and the stride of its sample axis (elements between
 * consecutive samples; 0 without a sample axis). */
int64_t sdk_ds_count(const sdk_dataset *d);
int64_t sdk_ds_sample_stride(const sdk_dataset *d);
/* Typed views (NULL when the type differs). */
double *sdk_ds_f64(const sdk_dataset *d);
int64_t *sdk_ds_i64(const sdk_dataset *d);
uint64_t *sdk_ds_u64(const sdk_dataset *d);

/* Cut the sample axis of every dataset with one down to `nsamples` of the
 * datasets whose path starts with `prefix` ("" for all), moving the data. */
void sdk_store_trim(sdk_store *s, const char *prefix, int64_t nsamples);
/* Every floating-point statistic of grid point g becomes NaN (coordinates
 * and integer counts stay): a partial number would look right. */
void sdk_store_nan_grid_point(sdk_store *s, int64_t ngrid, int64_t g);

#endif
