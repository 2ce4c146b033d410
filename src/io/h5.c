/* sdekit: the HDF5 writer of an image (io/image.h): every dataset and
 * attribute as the image holds it (the layout is io.h's, made by
 * sdk_image_of_results in image.c; this file knows no observable). */
#include "io/image.h"
#include "io/io.h"

#include "core/atomicfile.h"

#include <errno.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static sdk_err attr_f64s(h5w *w, hid_t loc, const char *name, const double *x, int64_t n) {
  static const double none = 0;
  return attr_write(w, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, (hsize_t)n, x ? x : &none);
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

/* A path that HDF5 takes literally: names separated by single '/', none
 * of them empty or "." ("" is the root group, for attributes only). */
static int bad_path(const char *p) {
  if (!p[0] || p[0] == '/') return 1;
  for (const char *s = p; *s;) {
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 0 || (n == 1 && s[0] == '.')) return 1;
    s += n + (e ? 1 : 0);
    if (e && !*s) return 1; /* a trailing '/' */
  }
  return 0;
}

/* ---------------- the image (observe/store.h) ---------------- */

/* the file's and the memory's type of a store type */
static hid_t file_type(sdk_dtype t, hid_t *mem) {
  switch (t) {
  case SDK_I64: *mem = H5T_NATIVE_INT64; return H5T_STD_I64LE;
  case SDK_U64: *mem = H5T_NATIVE_UINT64; return H5T_STD_U64LE;
  default: *mem = H5T_NATIVE_DOUBLE; return H5T_IEEE_F64LE;
  }
}

/* the groups along `path` (every element but the last), made once each */
static sdk_err make_groups(h5w *w, hid_t file, const char *path) {
  char buf[512];
  size_t n = strlen(path);
  if (n >= sizeof buf)
    return SDK_FAIL(w->eb, SDK_ERR_INTERNAL, "writing '%s': name too long: %.60s...", w->path,
                    path);
  memcpy(buf, path, n + 1);
  for (char *s = strchr(buf, '/'); s; s = strchr(s + 1, '/')) {
    *s = 0;
    htri_t have = H5Lexists(file, buf, H5P_DEFAULT);
    if (have < 0) return h5_fail(w, "looking up group '%s'", buf);
    if (!have) {
      hid_t g = group_create(w, file, buf);
      if (g < 0) return SDK_ERR_IO;
      H5Gclose(g);
    }
    *s = '/';
  }
  return SDK_OK;
}

static sdk_err write_attrs(h5w *w, hid_t loc, const sdk_attr *a, int n) {
  for (int i = 0; i < n; i++) {
    switch (a[i].kind) {
    case SDK_ATTR_STR: SDK_CHECK(attr_str(w, loc, a[i].name, a[i].s)); break;
    case SDK_ATTR_STRS:
      SDK_CHECK(attr_strs(w, loc, a[i].name, (const char *const *)a[i].strs, (hsize_t)a[i].nstr));
      break;
    case SDK_ATTR_F64: SDK_CHECK(attr_f64(w, loc, a[i].name, a[i].f)); break;
    case SDK_ATTR_I64: SDK_CHECK(attr_i64(w, loc, a[i].name, a[i].i)); break;
    case SDK_ATTR_U64: SDK_CHECK(attr_u64(w, loc, a[i].name, a[i].u)); break;
    case SDK_ATTR_F64S: SDK_CHECK(attr_f64s(w, loc, a[i].name, a[i].fs, a[i].nfs)); break;
    }
  }
  return SDK_OK;
}

static sdk_err write_dataset(h5w *w, hid_t file, const sdk_dataset *d) {
  if (bad_path(d->path))
    return SDK_FAIL(w->eb, SDK_ERR_INTERNAL, "writing '%s': '%s' cannot be used as an HDF5 name",
                    w->path, d->path);
  hsize_t dims[SDK_DS_MAX_RANK];
  for (int i = 0; i < d->rank; i++)
    dims[i] = (hsize_t)d->dims[i];
  SDK_CHECK(make_groups(w, file, d->path));
  hid_t mem, ft = file_type(d->type, &mem);
  if ((d->flags & SDK_DS_COMPRESS) && d->type == SDK_F64)
    SDK_CHECK(dset_f64_z(w, file, d->path, d->rank, dims, d->data));
  else {
    hid_t id = dset_write(w, file, d->path, ft, mem, d->rank, dims, d->data);
    if (id < 0) return SDK_ERR_IO;
    H5Dclose(id);
  }
  if (!d->nattr) return SDK_OK;
  hid_t id = H5Dopen2(file, d->path, H5P_DEFAULT);
  if (id < 0) return h5_fail(w, "opening dataset '%s'", d->path);
  sdk_err e = write_attrs(w, id, d->attr, d->nattr);
  H5Dclose(id);
  return e;
}

/* The root's attributes first, then every dataset, then the groups'
 * attributes (a group without datasets is made here). */
static sdk_err write_store(h5w *w, const sdk_store *s, hid_t file) {
  const sdk_group_attrs *root = sdk_store_group(s, "");
  if (root) SDK_CHECK(write_attrs(w, file, root->attr, root->nattr));
  for (int i = 0; i < s->n; i++)
    SDK_CHECK(write_dataset(w, file, s->ds[i]));
  for (int i = 0; i < s->ngroups; i++) {
    if (!s->groups[i].path[0]) continue; /* the root */
    if (bad_path(s->groups[i].path))
      return SDK_FAIL(w->eb, SDK_ERR_INTERNAL,
                      "writing '%s': group '%s' cannot be used as an HDF5 name", w->path,
                      s->groups[i].path);
    char probe[520];
    snprintf(probe, sizeof probe, "%s/", s->groups[i].path);
    SDK_CHECK(make_groups(w, file, probe));
    hid_t g = H5Gopen2(file, s->groups[i].path, H5P_DEFAULT);
    if (g < 0) return h5_fail(w, "opening group '%s'", s->groups[i].path);
    sdk_err e = write_attrs(w, g, s->groups[i].attr, s->groups[i].nattr);
    H5Gclose(g);
    if (e) return e;
  }
  return SDK_OK;
}

/* The file is built in memory (the core driver, no backing store) and
 * written by the atomic writer: HDF5 itself never writes to disk.  A failed
 * write inside HDF5 (disk full, EFBIG) makes its H5Fclose fail, and
 * libhdf5 1.10 then frees the file but leaves its id registered (HDF5's
 * HDFFV-11052, CVE-2020-10812, mended upstream in 2023): the library's exit
 * handler closes it again and the process dies with SIGSEGV after the error
 * was reported (from Python: the interpreter at its exit).  In
 * memory nothing fails but an allocation, and every error of the disk is
 * ours to report, the temporary removed.
 *
 * The bytes are the driver's own buffer, taken when the file is closed (its
 * superblock then final): H5Fget_file_image's copy clears the superblock's
 * "open for writing" flag without updating its checksum in 1.10, so no
 * reader opens it; and taking the buffer costs no second copy of the file. */
typedef struct h5_mem {
  void *taken; /* the driver's buffer at close */
} h5_mem;

static void *mem_malloc(size_t n, H5FD_file_image_op_t op, void *u) {
  (void)op, (void)u;
  return malloc(n);
}
static void *mem_memcpy(void *d, const void *s, size_t n, H5FD_file_image_op_t op, void *u) {
  (void)op, (void)u;
  return memcpy(d, s, n);
}
static void *mem_realloc(void *p, size_t n, H5FD_file_image_op_t op, void *u) {
  (void)op, (void)u;
  return realloc(p, n);
}
static herr_t mem_free(void *p, H5FD_file_image_op_t op, void *u) {
  h5_mem *m = u;
  if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && m && !m->taken)
    m->taken = p;
  else
    free(p);
  return 0;
}
/* (the property lists' copies all point at the one h5_mem of the writer) */
static void *mem_udata_copy(void *u) {
  return u;
}
static herr_t mem_udata_free(void *u) {
  (void)u;
  return 0;
}

/* The file's length as its superblock (version 2, the writer's: 1.8
 * format) states it after the close: the end-of-file address, little-endian,
 * after the base and extension addresses.  0 when the image is not such a
 * file of at most n bytes. */
static size_t superblock_eof(const unsigned char *b, size_t n) {
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  if (n < 48 || memcmp(b, sig, 8) != 0 || b[8] != 2 || b[9] != 8) return 0;
  uint64_t eof = 0;
  for (int i = 7; i >= 0; i--)
    eof = eof << 8 | b[28 + i];
  return eof >= 48 && eof <= n ? (size_t)eof : 0;
}

/* The file of img in memory, named `label` (HDF5 opens a file of that
 * name, if there is one, to see whether it has it open already: the
 * writer's own new, empty temporary). */
static sdk_err h5_build(h5w *w, const sdk_store *img, const char *label, void **buf, size_t *len) {
  hid_t fcpl = -1, fapl = -1, file = -1;
  sdk_err e = SDK_OK;
  h5_mem mem = {NULL};
  H5FD_file_image_callbacks_t cb = {mem_malloc,     mem_memcpy,     mem_realloc, mem_free,
                                    mem_udata_copy, mem_udata_free, &mem};
  ssize_t n = -1;
  *buf = NULL;
  *len = 0;
  /* Reproducible output: no access/modification times on any object
   * (the file creation list covers the root group), and fixed format
   * versions: 1.8 objects, readable by any HDF5 >= 1.8, whichever
   * library version writes them. */
  if ((w->str_t = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(w->str_t, H5T_VARIABLE) < 0 ||
      H5Tset_cset(w->str_t, H5T_CSET_UTF8) < 0 || (w->gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 ||
      H5Pset_obj_track_times(w->gcpl, 0) < 0 || (w->dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
      H5Pset_obj_track_times(w->dcpl, 0) < 0 || (fcpl = H5Pcreate(H5P_FILE_CREATE)) < 0 ||
      H5Pset_obj_track_times(fcpl, 0) < 0 || (fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
      H5Pset_fapl_core(fapl, (size_t)1 << 20, 0) < 0 ||
      H5Pset_file_image_callbacks(fapl, &cb) < 0 ||
      H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
      H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
    e = h5_fail(w, "setting up properties");
    goto out;
  }
  file = H5Fcreate(label, H5F_ACC_TRUNC, fcpl, fapl);
  if (file < 0) {
    e = h5_fail(w, "creating the file");
    goto out;
  }
  /* (attributes on the file id go to the root group) */
  SDK_TRY(e, write_store(w, img, file), out);
  /* (an upper bound on the length: the close releases what the allocators
   * held at the end) */
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0 || (n = H5Fget_file_image(file, NULL, 0)) <= 0)
    e = h5_fail(w, "flushing the file");
out:
  /* strong close: also closes any object an error path left open */
  if (file >= 0 && H5Fclose(file) < 0 && !e) e = h5_fail(w, "closing the file");
  if (fapl >= 0) H5Pclose(fapl);
  if (fcpl >= 0) H5Pclose(fcpl);
  if (w->dcpl >= 0) H5Pclose(w->dcpl);
  if (w->gcpl >= 0) H5Pclose(w->gcpl);
  if (w->str_t >= 0) H5Tclose(w->str_t);
  H5Eclear2(H5E_DEFAULT);
  if (!e && !mem.taken)
    e = SDK_FAIL(w->eb, SDK_ERR_INTERNAL, "writing '%s': no file image", w->path);
  if (e) {
    free(mem.taken);
    return e;
  }
  *buf = mem.taken;
  *len = superblock_eof(mem.taken, (size_t)n);
  if (!*len) {
    free(mem.taken);
    *buf = NULL;
    return SDK_FAIL(w->eb, SDK_ERR_INTERNAL, "writing '%s': no superblock in the file image",
                    w->path);
  }
  return SDK_OK;
}

sdk_err sdk_write_h5_image(const sdk_store *img, const char *path, sdk_errbuf *eb) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  h5w w = {.eb = eb, .path = path, .str_t = -1, .gcpl = -1, .dcpl = -1};
  sdk_atomic t;
  SDK_CHECK(sdk_atomic_open(&t, path, 0, eb));
  void *buf = NULL;
  size_t len = 0;
  sdk_err e = h5_build(&w, img, t.tmp, &buf, &len);
  if (e == SDK_OK) e = sdk_atomic_put(&t, buf, len, eb);
  free(buf);
  if (e != SDK_OK) {
    sdk_atomic_abort(&t);
    return e;
  }
  return sdk_atomic_commit(&t, eb);
}
