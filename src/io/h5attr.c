/* sdekit: opening a stranger's HDF5 file and the checks and attribute
 * readers of the result reader (h5read.c), strict about types: a string is
 * a string, a number a number. */
#include "io/h5attr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read a scalar string attribute (variable or fixed length) into buf.
 * Returns 0, or -1 when missing or not a string. */
int sdk_h5_str_attr(hid_t loc, const char *name, char *buf, size_t n) {
  int ok = -1;
  buf[0] = 0;
  if (H5Aexists(loc, name) <= 0) return -1;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0) return -1;
  hid_t ft = H5Aget_type(a), sp = H5Aget_space(a), mt = -1;
  if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_STRING || H5Sget_simple_extent_npoints(sp) != 1)
    goto out;
  if (H5Tis_variable_str(ft) > 0) {
    char *s = NULL;
    mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(ft));
    if (H5Aread(a, mt, &s) >= 0) {
      snprintf(buf, n, "%s", s ? s : "");
      ok = 0;
    }
    if (s) H5free_memory(s);
  } else {
    size_t sz = H5Tget_size(ft);
    char *tmp = calloc(sz + 1, 1);
    mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, sz + 1);
    H5Tset_strpad(mt, H5T_STR_NULLTERM);
    if (tmp && H5Aread(a, mt, tmp) >= 0) {
      snprintf(buf, n, "%s", tmp);
      ok = 0;
    }
    free(tmp);
  }
out:
  if (mt >= 0) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  H5Aclose(a);
  return ok;
}

/* Read numeric attribute elements (converted to mtype); n = expected count. */
int sdk_h5_num_attr(hid_t loc, const char *name, hid_t mtype, void *buf, hssize_t n) {
  if (H5Aexists(loc, name) <= 0) return -1;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0) return -1;
  int ok = -1;
  hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
  H5T_class_t c = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
  if ((c == H5T_INTEGER || c == H5T_FLOAT) && sp >= 0 && H5Sget_simple_extent_npoints(sp) == n &&
      (n == 0 || H5Aread(a, mtype, buf) >= 0))
    ok = 0;
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  H5Aclose(a);
  return ok;
}

/* ---------------- reading a stranger's file ---------------- */

typedef struct link_scan {
  char bad[256];
  H5L_type_t type;
} link_scan;

static herr_t find_non_hard(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  (void)g;
  if (info->type == H5L_TYPE_HARD) return 0;
  link_scan *ls = data;
  snprintf(ls->bad, sizeof ls->bad, "%s", name);
  ls->type = info->type;
  return 1; /* stop: one is enough to refuse the file */
}

/* every link of open file f a hard link (else f closed and an error):
 * H5Lvisit recurses only into hard-linked groups; the callback sees every
 * link without traversing it */
static sdk_err refuse_links(hid_t f, const char *path, hid_t *file, sdk_errbuf *eb) {
  link_scan ls = {"", H5L_TYPE_HARD};
  herr_t r = H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, find_non_hard, &ls);
  if (r < 0 || ls.bad[0]) {
    H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    if (r < 0 && !ls.bad[0])
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "cannot list the contents of '%s'", path);
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "'%s': /%s is %s link; links to other places are not followed in a result "
                    "file",
                    path, ls.bad,
                    ls.type == H5L_TYPE_SOFT       ? "a soft"
                    : ls.type == H5L_TYPE_EXTERNAL ? "an external"
                                                   : "a user-defined");
  }
  *file = f;
  return SDK_OK;
}

sdk_err sdk_h5_open_untrusted(const char *path, hid_t *file, sdk_errbuf *eb) {
  *file = -1;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  struct stat st;
  if (stat(path, &st) != 0) {
    int err = errno;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot read '%s': %s", path, strerror(err));
  }
  if (S_ISDIR(st.st_mode)) return SDK_FAIL(eb, SDK_ERR_USAGE, "'%s' is a directory", path);
  if (!S_ISREG(st.st_mode))
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s' is not a regular file (a FIFO, socket or device)",
                    path);
  if (access(path, R_OK) != 0) {
    int err = errno;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot read '%s': %s", path, strerror(err));
  }
  if (H5Fis_hdf5(path) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s' is not an HDF5 file", path);
  }
  /* a file this process holds open already (h5py, in the same Python) can
   * be opened again only with the close degree it was opened with: h5py's is
   * weak (every identifier this library opens it closes itself; strong is
   * the safety net where the degree is ours to choose) */
  hid_t f = -1;
  const H5F_close_degree_t degree[] = {H5F_CLOSE_STRONG, H5F_CLOSE_WEAK, H5F_CLOSE_SEMI};
  for (int k = 0; k < 3 && f < 0; k++) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_fclose_degree(fapl, degree[k]) >= 0)
      f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (fapl >= 0) H5Pclose(fapl);
  }
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "cannot open '%s' as an HDF5 file", path);
  }
  return refuse_links(f, path, file, eb);
}

sdk_err sdk_h5_open_image(const void *buf, size_t len, const char *label, hid_t *file,
                          sdk_errbuf *eb) {
  *file = -1;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* the core driver over a copy of the bytes, nothing written back */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1;
  if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0 &&
      H5Pset_fapl_core(fapl, 1 << 16, 0) >= 0 && H5Pset_file_image(fapl, (void *)buf, len) >= 0)
    f = H5Fopen(label, H5F_ACC_RDONLY, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "cannot open '%s' as an HDF5 file", label);
  }
  return refuse_links(f, label, file, eb);
}

const char *sdk_h5_dset_problem(hid_t d, int64_t *npoints) {
  const char *why = NULL;
  hid_t dcpl = H5Dget_create_plist(d), sp = H5Dget_space(d), ft = H5Dget_type(d);
  if (dcpl < 0 || sp < 0 || ft < 0) {
    why = "cannot be inspected";
    goto out;
  }
  H5D_layout_t lay = H5Pget_layout(dcpl);
  if (lay == H5D_VIRTUAL) {
    why = "is a virtual dataset (its data lie in other datasets or files)";
    goto out;
  }
  if (H5Pget_external_count(dcpl) != 0) {
    why = "keeps its data in external raw files";
    goto out;
  }
  hsize_t dims[H5S_MAX_RANK];
  int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
  if (rank < 0) {
    why = "has no simple shape";
    goto out;
  }
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] > (hsize_t)SDK_H5_MAX_ELEMENTS ||
        (dims[i] > 0 && n > SDK_H5_MAX_ELEMENTS / (int64_t)dims[i])) {
      why = "is larger than sdekit reads (SDK_H5_MAX_ELEMENTS, 2^27 elements)";
      goto out;
    }
    n *= (int64_t)dims[i];
  }
  /* Without filters the file holds every element it declares; a smaller
   * allocation means fill values made up by the reader (or a truncated
   * file), not results. */
  size_t esz = H5Tget_size(ft);
  if (n > 0 && H5Pget_nfilters(dcpl) == 0 &&
      (H5Dget_storage_size(d) < (hsize_t)n * esz || esz == 0)) {
    why = "declares more data than the file holds";
    goto out;
  }
  *npoints = n;
out:
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  H5Eclear2(H5E_DEFAULT);
  return why;
}

int sdk_h5_link_name_ok(const char *name) {
  return name && name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strlen(name) < 200;
}
