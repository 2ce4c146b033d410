/* sdekit: HDF5 attribute readers shared by 'sdekit info' and 'sdekit plot'
 * (strict about types: a string is a string, a number a number). */
#include "io/h5attr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Read a 1-D string array attribute; *out gets n malloc'd strings (free with
 * sdk_h5_free_strs).  Returns the count, or -1 when missing or not strings. */
long sdk_h5_strs_attr(hid_t loc, const char *name, char ***out) {
  long count = -1;
  *out = NULL;
  if (H5Aexists(loc, name) <= 0) return -1;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0) return -1;
  hid_t ft = H5Aget_type(a), sp = H5Aget_space(a), mt = -1;
  if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_STRING) goto out;
  hssize_t n = H5Sget_simple_extent_npoints(sp);
  if (n < 0) goto out;
  char **res = calloc((size_t)n + 1, sizeof *res);
  if (!res) goto out;
  if (H5Tis_variable_str(ft) > 0) {
    char **raw = calloc((size_t)n + 1, sizeof *raw);
    mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(ft));
    if (raw && (n == 0 || H5Aread(a, mt, raw) >= 0)) {
      for (hssize_t i = 0; i < n; i++)
        res[i] = strdup(raw[i] ? raw[i] : "");
      count = (long)n;
    }
    for (hssize_t i = 0; raw && i < n; i++)
      if (raw[i]) H5free_memory(raw[i]);
    free(raw);
  } else {
    size_t sz = H5Tget_size(ft);
    char *tmp = calloc((size_t)n * (sz + 1) + 1, 1);
    mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, sz + 1);
    H5Tset_strpad(mt, H5T_STR_NULLTERM);
    if (tmp && (n == 0 || H5Aread(a, mt, tmp) >= 0)) {
      for (hssize_t i = 0; i < n; i++)
        res[i] = strdup(tmp + (size_t)i * (sz + 1));
      count = (long)n;
    }
    free(tmp);
  }
  for (long i = 0; i < count; i++)
    if (!res[i]) count = -1; /* strdup failed */
  if (count < 0) {
    for (hssize_t i = 0; i < n; i++)
      free(res[i]);
    free(res);
  } else {
    *out = res;
  }
out:
  if (mt >= 0) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  H5Aclose(a);
  return count;
}

void sdk_h5_free_strs(char **v, long n) {
  for (long i = 0; v && i < n; i++)
    free(v[i]);
  free(v);
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
