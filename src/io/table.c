/* Named columns of doubles from a user's file (io/table.h): the table, the
 * checks every format shares and the NumPy .npy parser (io/table_src.c
 * opens files and reads TSV, table_h5.c HDF5, table_npz.c .npz). */
#include "io/table.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/table_internal.h"
#include "model/model.h"

/* ------------------------------------------------------------ the table */

void sdk_table_free(sdk_table *t) {
  if (!t) return;
  for (int i = 0; i < t->n; i++) {
    free(t->names ? t->names[i] : NULL);
    free(t->value ? t->value[i] : NULL);
  }
  free(t->names), free(t->value);
  memset(t, 0, sizeof *t);
}

int sdk_table_find(const sdk_table *t, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->names[i], name)) return i;
  return -1;
}

sdk_err sdk_table_add(sdk_table *t, const char *label, const char *name, int64_t nvalues,
                      double **out, sdk_errbuf *eb) {
  if (!name[0] || strlen(name) > 200)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a column has %s name", label,
                    name[0] ? "too long a" : "an empty");
  if (sdk_table_find(t, name) >= 0)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: the name '%.200s' is given twice", label, name);
  if (t->n == SDK_TABLE_MAX_COLUMNS)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: more than %d columns", label, SDK_TABLE_MAX_COLUMNS);
  if (nvalues < 1 || nvalues > SDK_TABLE_MAX_VALUES)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: %lld values in '%.200s' (1 to %lld allowed)", label,
                    (long long)nvalues, name, (long long)SDK_TABLE_MAX_VALUES);
  char **nm = realloc(t->names, (size_t)(t->n + 1) * sizeof *nm);
  if (nm) t->names = nm;
  double **v = realloc(t->value, (size_t)(t->n + 1) * sizeof *v);
  if (v) t->value = v;
  if (!nm || !v) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  t->names[t->n] = strdup(name);
  t->value[t->n] = out ? malloc((size_t)nvalues * sizeof(double)) : NULL;
  t->n++;
  if (!t->names[t->n - 1] || (out && !t->value[t->n - 1]))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (out) *out = t->value[t->n - 1];
  return SDK_OK;
}

/* Columns present, and values in them (each value is checked finite where
 * it is read: sdk_table_slice). */
sdk_err sdk_table_check(const sdk_table *t, const char *label, sdk_errbuf *eb) {
  if (t->n == 0) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no columns of numbers", label);
  if (t->count < 1) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no values", label);
  return SDK_OK;
}

/* ------------------------------------------------------------ .npy */

/* (the header's dictionary, parsed strictly: {'descr': D, 'fortran_order':
 * B, 'shape': (N, ...), } in any order, each key once, into sdk_npy) */
typedef struct cur {
  const char *s, *end;
} cur;

static void skip_ws(cur *c) {
  while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n'))
    c->s++;
}
static int eat(cur *c, char ch) {
  skip_ws(c);
  if (c->s < c->end && *c->s == ch) return c->s++, 1;
  return 0;
}
/* a quoted Python string of printable characters (no escapes) */
static int quoted(cur *c, char *out, size_t n) {
  skip_ws(c);
  if (c->s >= c->end || (*c->s != '\'' && *c->s != '"')) return 0;
  char q = *c->s++;
  size_t k = 0;
  while (c->s < c->end && *c->s != q) {
    if (*c->s < 0x20 || *c->s > 0x7e || *c->s == '\\' || k + 1 >= n) return 0;
    out[k++] = *c->s++;
  }
  if (c->s >= c->end) return 0;
  c->s++;
  out[k] = 0;
  return 1;
}
static int word(cur *c, const char *w) {
  skip_ws(c);
  size_t n = strlen(w);
  if ((size_t)(c->end - c->s) < n || strncmp(c->s, w, n)) return 0;
  c->s += n;
  return 1;
}

static int npy_descr(cur *c, sdk_npy *h) {
  skip_ws(c);
  if (c->s < c->end && *c->s != '[') return quoted(c, h->type[0], sizeof h->type[0]);
  if (!eat(c, '[')) return 0;
  while (!eat(c, ']')) {
    if (h->nfield == SDK_TABLE_MAX_COLUMNS || !eat(c, '(')) return 0;
    if (!quoted(c, h->field[h->nfield], sizeof h->field[0]) || !eat(c, ',') ||
        !quoted(c, h->type[h->nfield], sizeof h->type[0]))
      return 0;
    /* a sub-array field ('x', '<f8', (2,)) is not a column: refused */
    if (!eat(c, ')')) return 0;
    h->nfield++;
    if (!eat(c, ',')) {
      if (!eat(c, ']')) return 0;
      break;
    }
  }
  return h->nfield > 0;
}

static int npy_shape(cur *c, sdk_npy *h) {
  if (!eat(c, '(')) return 0;
  h->rank = 0;
  while (!eat(c, ')')) {
    skip_ws(c);
    int64_t v = 0;
    int digits = 0;
    while (c->s < c->end && *c->s >= '0' && *c->s <= '9' && digits < 16)
      v = v * 10 + (*c->s++ - '0'), digits++;
    if (!digits || h->rank == 2) return h->rank == 2 ? -1 : 0;
    h->shape[h->rank++] = v;
    if (!eat(c, ',')) {
      if (!eat(c, ')')) return 0;
      break;
    }
  }
  return 1;
}

static sdk_err npy_header(const char *s, size_t n, sdk_npy *h, const char *label, sdk_errbuf *eb) {
  cur c = {s, s + n};
  int seen[3] = {0, 0, 0};
  memset(h, 0, sizeof *h);
  if (!eat(&c, '{')) goto bad;
  while (!eat(&c, '}')) {
    char key[32];
    if (!quoted(&c, key, sizeof key) || !eat(&c, ':')) goto bad;
    int k = !strcmp(key, "descr")           ? 0
            : !strcmp(key, "fortran_order") ? 1
            : !strcmp(key, "shape")         ? 2
                                            : -1;
    if (k < 0 || seen[k]++) goto bad;
    if (k == 0 && !npy_descr(&c, h)) goto bad;
    if (k == 1 && !(word(&c, "False") || (word(&c, "True") && (h->fortran = 1)))) goto bad;
    if (k == 2) {
      int r = npy_shape(&c, h);
      if (r < 0)
        return SDK_FAIL(eb, SDK_ERR_FORMAT,
                        "%s: more than 2 dimensions (expected [paths] or [grid points][paths])",
                        label);
      if (!r) goto bad;
    }
    if (!eat(&c, ',')) {
      if (!eat(&c, '}')) goto bad;
      break;
    }
  }
  skip_ws(&c);
  if (c.s != c.end || !seen[0] || !seen[1] || !seen[2]) goto bad;
  if (h->rank == 0)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: a single value (shape ()); expected [paths] or [grid points][paths]",
                    label);
  return SDK_OK;
bad:
  return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a malformed .npy header", label);
}

/* the size of type ty ("<f8") and whether it is a number sdekit reads */
static sdk_err npy_type(const char *ty, const char *what, const char *label, int *size,
                        sdk_errbuf *eb) {
  char kind = ty[0] ? ty[1] : 0;
  int ok = (ty[0] == '<' || ty[0] == '>' || ty[0] == '|' || ty[0] == '=') &&
           (kind == 'f' || kind == 'i' || kind == 'u') && ty[2] >= '1' && ty[2] <= '8' && !ty[3];
  int sz = ok ? ty[2] - '0' : 0;
  if (ok && kind == 'f' && sz != 4 && sz != 8) ok = 0;
  if (ok && kind != 'f' && sz != 1 && sz != 2 && sz != 4 && sz != 8) ok = 0;
  if (!ok)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: %s has the type '%s'; expected integers or floating point (complex, "
                    "strings, booleans and objects are refused)",
                    label, what, ty);
  *size = sz;
  return SDK_OK;
}

/* one element of type ty at p, as a double */
static double npy_value(const unsigned char *p, const char *ty) {
  int sz = ty[2] - '0', big = ty[0] == '>';
  unsigned char b[8];
  for (int i = 0; i < sz; i++)
    b[i] = p[big ? sz - 1 - i : i];
  uint64_t u = 0;
  for (int i = sz - 1; i >= 0; i--)
    u = u << 8 | b[i];
  if (ty[1] == 'f') {
    if (sz == 8) {
      double d;
      memcpy(&d, &u, 8);
      return d;
    }
    uint32_t u32 = (uint32_t)u;
    float f;
    memcpy(&f, &u32, 4);
    return f;
  }
  if (ty[1] == 'u') return (double)u;
  int64_t s = sz == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * sz)) >> (64 - 8 * sz);
  return (double)s;
}

sdk_err sdk_npy_layout(const unsigned char *buf, size_t len, size_t total, const char *label,
                       const char *name, sdk_npy *h, sdk_errbuf *eb) {
  if (total < 10 || len < 10 || buf[6] < 1 || buf[6] > 3)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a truncated or unknown .npy version", label);
  size_t hl, off;
  if (buf[6] == 1)
    hl = (size_t)buf[8] | (size_t)buf[9] << 8, off = 10;
  else if (len < 12)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a truncated .npy header", label);
  else
    hl = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24,
    off = 12;
  if (hl > 1 << 20 || hl > len - off)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a truncated .npy header", label);
  SDK_CHECK(npy_header((const char *)buf + off, hl, h, label, eb));
  int nf = h->nfield ? h->nfield : 1;
  h->rec = 0;
  for (int k = 0; k < nf; k++) {
    int sz = 0;
    char what[240];
    snprintf(what, sizeof what, "'%s'", h->nfield ? h->field[k] : name ? name : "the array");
    SDK_CHECK(npy_type(h->type[k], what, label, &sz, eb));
    h->at[k] = h->rec, h->rec += sz;
  }
  if (!h->nfield && !name)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: a plain array names no variable or parameter: give its name, NAME=%s, or "
                    "save a structured array with named fields",
                    label, label);
  if (!h->nfield) snprintf(h->field[0], sizeof h->field[0], "%s", name);
  int64_t n0 = h->shape[0], n1 = h->rank == 2 ? h->shape[1] : 1;
  if (n0 < 1 || n1 < 1 || n0 > SDK_TABLE_MAX_VALUES / n1)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: the shape has %s", label,
                    n0 < 1 || n1 < 1 ? "no values" : "too many values");
  int64_t all = n0 * n1;
  size_t need = (size_t)all * (size_t)h->rec, have = total - off - hl;
  if (have != need)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: the header declares %lld values (%zu bytes) but the file holds %zu bytes "
                    "of data",
                    label, (long long)all * nf, need, have);
  h->data = off + hl;
  h->ngrid = h->rank == 2 ? n0 : 0;
  h->count = h->rank == 2 ? n1 : n0;
  return SDK_OK;
}

/* Fortran order: element (a, b) of [n0][n1] is record b * n0 + a */
static int64_t npy_record(const sdk_npy *h, int64_t i) {
  if (!h->fortran || h->rank != 2) return i;
  return (i % h->shape[1]) * h->shape[0] + i / h->shape[1];
}

sdk_err sdk_npy_slice(const sdk_npy *h, const sdk_bytes *b, int k, int64_t first, int64_t n,
                      double *out, const char *label, sdk_errbuf *eb) {
  /* a window of whole records read at a time (the records of a Fortran
   * order array's column are strided; a window serves those nearby) */
  int64_t per = ((int64_t)1 << 20) / h->rec, lo = 0, hi = 0;
  unsigned char *w = malloc((size_t)(per * h->rec));
  if (!w) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int64_t records = (h->ngrid ? h->ngrid : 1) * h->count;
  sdk_err e = SDK_OK;
  for (int64_t j = 0; j < n && e == SDK_OK; j++) {
    int64_t r = npy_record(h, first + j);
    if (r < lo || r >= hi) {
      lo = r, hi = r + per < records ? r + per : records;
      e = sdk_bytes_read(b, h->data + (size_t)(lo * h->rec), (size_t)((hi - lo) * h->rec), w, label,
                         eb);
    }
    if (e == SDK_OK) out[j] = npy_value(w + (size_t)((r - lo) * h->rec + h->at[k]), h->type[k]);
  }
  free(w);
  return e;
}
