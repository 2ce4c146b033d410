/* Attributes of a result for info and plot (see attrs.h). */
#include "figure/attrs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The attribute, or 0 when absent. */
static int get(const sdekit_result *r, const char *obj, const char *name, sdekit_attr *a) {
  return sdekit_result_attr(r, obj, name, a, NULL) == SDEKIT_OK;
}

int cli_attr_str(const sdekit_result *r, const char *obj, const char *name, char *buf, size_t n) {
  sdekit_attr a;
  buf[0] = 0;
  if (!get(r, obj, name, &a)) return -1;
  const char *s = a.type == SDEKIT_ATTR_STRING                    ? a.s
                  : a.type == SDEKIT_ATTR_STRINGS && a.count == 1 ? a.strs[0]
                                                                  : NULL;
  if (!s) return -1;
  snprintf(buf, n, "%s", s);
  return 0;
}

long cli_attr_strs(const sdekit_result *r, const char *obj, const char *name, const char ***out) {
  sdekit_attr a;
  *out = NULL;
  if (!get(r, obj, name, &a) || (a.type != SDEKIT_ATTR_STRING && a.type != SDEKIT_ATTR_STRINGS))
    return -1;
  const char **v = malloc(((size_t)a.count + 1) * sizeof *v);
  if (!v) return -1;
  for (int64_t i = 0; i < a.count; i++)
    v[i] = a.type == SDEKIT_ATTR_STRING ? a.s : a.strs[i];
  *out = v;
  return (long)a.count;
}

/* Value i of a numeric attribute as a double. */
static double num(const sdekit_attr *a, int64_t i) {
  switch (a->type) {
  case SDEKIT_ATTR_F64: return a->f64[i];
  case SDEKIT_ATTR_I64: return (double)a->i64[i];
  case SDEKIT_ATTR_U64: return (double)a->u64[i];
  default: return 0;
  }
}

static int numeric(const sdekit_attr *a) {
  return a->type == SDEKIT_ATTR_F64 || a->type == SDEKIT_ATTR_I64 || a->type == SDEKIT_ATTR_U64;
}

int64_t cli_attr_count(const sdekit_result *r, const char *obj, const char *name) {
  sdekit_attr a;
  return get(r, obj, name, &a) && numeric(&a) ? a.count : -1;
}

int cli_attr_f64(const sdekit_result *r, const char *obj, const char *name, double *x, int64_t n) {
  sdekit_attr a;
  if (!get(r, obj, name, &a) || !numeric(&a) || a.count != n) return -1;
  for (int64_t i = 0; i < n; i++)
    x[i] = num(&a, i);
  return 0;
}

int cli_attr_i64(const sdekit_result *r, const char *obj, const char *name, int64_t *x) {
  sdekit_attr a;
  if (!get(r, obj, name, &a) || !numeric(&a) || a.count != 1) return -1;
  if (a.type == SDEKIT_ATTR_I64) {
    *x = a.i64[0];
  } else if (a.type == SDEKIT_ATTR_U64) {
    *x = a.u64[0] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)a.u64[0];
  } else {
    double v = a.f64[0];
    *x = isnan(v) ? 0 : v >= 0x1p63 ? INT64_MAX : v <= -0x1p63 ? INT64_MIN : (int64_t)v;
  }
  return 0;
}

int cli_attr_u64(const sdekit_result *r, const char *obj, const char *name, uint64_t *x) {
  sdekit_attr a;
  if (!get(r, obj, name, &a) || !numeric(&a) || a.count != 1) return -1;
  if (a.type == SDEKIT_ATTR_U64) {
    *x = a.u64[0];
  } else if (a.type == SDEKIT_ATTR_I64) {
    *x = a.i64[0] < 0 ? 0 : (uint64_t)a.i64[0];
  } else {
    double v = a.f64[0];
    *x = !(v > 0) ? 0 : v >= 0x1p64 ? UINT64_MAX : (uint64_t)v;
  }
  return 0;
}

int cli_name_ok(const char *name) {
  return name && name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strlen(name) < 200;
}
