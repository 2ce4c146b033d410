/* Named columns of doubles from a user's file (io/table.h): the spec, the
 * file read as an untrusted one, the NumPy .npy and TSV parsers, and the
 * checks every format shares (io/table_h5.c reads HDF5). */
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
  t->value[t->n] = malloc((size_t)nvalues * sizeof(double));
  t->n++;
  if (!t->names[t->n - 1] || !t->value[t->n - 1])
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  *out = t->value[t->n - 1];
  return SDK_OK;
}

/* Every value finite, and the table not empty. */
sdk_err sdk_table_check(const sdk_table *t, const char *label, sdk_errbuf *eb) {
  if (t->n == 0) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no columns of numbers", label);
  if (t->count < 1) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no values", label);
  int64_t rows = t->ngrid ? t->ngrid : 1;
  for (int k = 0; k < t->n; k++)
    for (int64_t i = 0; i < rows * t->count; i++)
      if (!isfinite(t->value[k][i])) {
        if (t->ngrid)
          return SDK_FAIL(eb, SDK_ERR_FORMAT,
                          "%s: '%s' is %g at grid point %lld, path %lld: NaN and Inf are refused",
                          label, t->names[k], t->value[k][i], (long long)(i / t->count),
                          (long long)(i % t->count));
        return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: '%s' is %g at path %lld: NaN and Inf are refused",
                        label, t->names[k], t->value[k][i], (long long)i);
      }
  return SDK_OK;
}

/* Grid point K of 2-D columns, as 1-D ones. */
static sdk_err take_grid(sdk_table *t, int64_t k, const char *label, sdk_errbuf *eb) {
  if (!t->ngrid)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: grid=%lld asked, but the columns have one value per path, not one per "
                    "grid point and path",
                    label, (long long)k);
  if (k >= t->ngrid)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: grid=%lld asked, but the file has %lld grid points",
                    label, (long long)k, (long long)t->ngrid);
  for (int c = 0; c < t->n; c++)
    memmove(t->value[c], t->value[c] + k * t->count, (size_t)t->count * sizeof(double));
  t->ngrid = 0;
  return SDK_OK;
}

/* ------------------------------------------------------------ .npy */

/* the header's dictionary, parsed strictly: {'descr': D, 'fortran_order':
 * B, 'shape': (N, ...), } in any order, each key once */
typedef struct npy_hdr {
  int nfield; /* 0: a plain array */
  char field[SDK_TABLE_MAX_COLUMNS][201];
  char type[SDK_TABLE_MAX_COLUMNS][8]; /* "<f8" etc.; [0] for a plain array */
  int fortran;
  int rank;
  int64_t shape[2];
} npy_hdr;

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

static int npy_descr(cur *c, npy_hdr *h) {
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

static int npy_shape(cur *c, npy_hdr *h) {
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

static sdk_err npy_header(const char *s, size_t n, npy_hdr *h, const char *label, sdk_errbuf *eb) {
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

sdk_err sdk_table_npy(const unsigned char *buf, size_t len, const char *label, const char *name,
                      sdk_table *t, sdk_errbuf *eb) {
  if (len < 10 || buf[6] < 1 || buf[6] > 3)
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
  npy_hdr *h = malloc(sizeof *h);
  if (!h) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = npy_header((const char *)buf + off, hl, h, label, eb);
  int nf = h->nfield ? h->nfield : 1, rec = 0, at[SDK_TABLE_MAX_COLUMNS];
  for (int k = 0; e == SDK_OK && k < nf; k++) {
    int sz = 0;
    char what[240];
    snprintf(what, sizeof what, "'%s'", h->nfield ? h->field[k] : name ? name : "the array");
    e = npy_type(h->type[k], what, label, &sz, eb);
    at[k] = rec, rec += sz;
  }
  if (e == SDK_OK && !h->nfield && !name)
    e = SDK_FAIL(eb, SDK_ERR_USAGE,
                 "%s: a plain array names no variable or parameter: give its name, NAME=%s, or "
                 "save a structured array with named fields",
                 label, label);
  int64_t n0 = h->shape[0], n1 = h->rank == 2 ? h->shape[1] : 1, total = 0;
  if (e == SDK_OK && (n0 < 1 || n1 < 1 || n0 > SDK_TABLE_MAX_VALUES / n1))
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: the shape has %s", label,
                 n0 < 1 || n1 < 1 ? "no values" : "too many values");
  if (e == SDK_OK) {
    total = n0 * n1;
    size_t need = (size_t)total * (size_t)rec, have = len - off - hl;
    if (have != need)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT,
                   "%s: the header declares %lld values (%zu bytes) but the file holds %zu bytes "
                   "of data",
                   label, (long long)total * nf, need, have);
  }
  t->ngrid = h->rank == 2 ? n0 : 0;
  t->count = h->rank == 2 ? n1 : n0;
  for (int k = 0; e == SDK_OK && k < nf; k++) {
    double *v;
    e = sdk_table_add(t, label, h->nfield ? h->field[k] : name, total, &v, eb);
    const unsigned char *d = buf + off + hl + at[k];
    for (int64_t i = 0; e == SDK_OK && i < total; i++) {
      /* Fortran order: element (a, b) at b * n0 + a */
      int64_t src = h->fortran && h->rank == 2 ? (i % n1) * n0 + i / n1 : i;
      v[i] = npy_value(d + (size_t)src * (size_t)rec, h->type[k]);
    }
  }
  free(h);
  return e;
}

/* ------------------------------------------------------------ TSV */

/* the next line of [*p, end): its start and length; *p moves past it */
static size_t next_line(const char **p, const char *end, const char **line) {
  *line = *p;
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
  *p = nl ? nl + 1 : end;
  if (n && (*line)[n - 1] == '\r') n--;
  return n;
}
static int blank_or_comment(const char *l, size_t n) {
  size_t i = 0;
  while (i < n && (l[i] == ' ' || l[i] == '\t'))
    i++;
  return i == n || l[i] == '#';
}
/* the fields of a line, split on tabs and spaces, into f[] (NUL-terminated
 * copies in tmp); the number of fields, or -1 when more than max */
static int split(const char *l, size_t n, char *tmp, char **f, int max) {
  memcpy(tmp, l, n);
  tmp[n] = 0;
  int k = 0;
  for (char *s = tmp; *s;) {
    while (*s == ' ' || *s == '\t')
      *s++ = 0;
    if (!*s) break;
    if (k == max) return -1;
    f[k++] = s;
    while (*s && *s != ' ' && *s != '\t')
      s++;
  }
  return k;
}

static sdk_err parse_tsv(const unsigned char *buf, size_t len, const char *label, sdk_table *t,
                         sdk_errbuf *eb) {
  const char *p = (const char *)buf, *end = p + len, *l;
  if (memchr(buf, 0, len))
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: not a text file (a NUL byte)", label);
  size_t n = 0;
  int64_t lineno = 0, rows = 0;
  do {
    if (p >= end) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no header line of names", label);
    n = next_line(&p, end, &l), lineno++;
  } while (blank_or_comment(l, n));
  char *tmp = malloc(n + 1), *f[SDK_TABLE_MAX_COLUMNS];
  if (!tmp) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int nc = split(l, n, tmp, f, SDK_TABLE_MAX_COLUMNS);
  sdk_err e = nc < 0 ? SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: more than %d columns", label,
                                SDK_TABLE_MAX_COLUMNS)
                     : SDK_OK;
  /* the rows, counted first: each column is allocated once */
  for (const char *q = p; e == SDK_OK && q < end;) {
    size_t m = next_line(&q, end, &l);
    rows += !blank_or_comment(l, m);
  }
  if (e == SDK_OK && rows == 0)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a header but no rows of values", label);
  if (e == SDK_OK && rows > SDK_TABLE_MAX_VALUES / nc)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: too many values", label);
  for (int k = 0; e == SDK_OK && k < nc; k++) {
    double *v;
    double x;
    if (sdk_parse_number(f[k], &x))
      e = SDK_FAIL(eb, SDK_ERR_FORMAT,
                   "%s:%lld: the header's column %d is the number '%.40s': expected a line of "
                   "names before the values",
                   label, (long long)lineno, k + 1, f[k]);
    else
      e = sdk_table_add(t, label, f[k], rows, &v, eb);
  }
  t->count = rows;
  char *row = NULL, *g[SDK_TABLE_MAX_COLUMNS + 1];
  int64_t r = 0;
  while (e == SDK_OK && p < end) {
    n = next_line(&p, end, &l), lineno++;
    if (blank_or_comment(l, n)) continue;
    char *nr = realloc(row, n + 1);
    if (!nr) {
      e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      break;
    }
    row = nr;
    int k = split(l, n, row, g, nc + 1);
    if (k != nc) {
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s:%lld: %s%d values, the header names %d", label,
                   (long long)lineno, k < 0 ? "more than " : "", k < 0 ? nc + 1 : k, nc);
      break;
    }
    for (int c = 0; c < nc && e == SDK_OK; c++)
      if (!sdk_parse_number(g[c], &t->value[c][r]))
        e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s:%lld: '%.40s' (column '%s') is not a number", label,
                     (long long)lineno, g[c], t->names[c]);
    r++;
  }
  free(row), free(tmp);
  return e;
}

/* ------------------------------------------------------------ reading */

sdk_err sdk_table_parse(const unsigned char *buf, size_t len, const char *label, const char *name,
                        sdk_table *t, sdk_errbuf *eb) {
  memset(t, 0, sizeof *t);
  sdk_err e;
  if (len >= 6 && !memcmp(buf, "\x93NUMPY", 6))
    e = sdk_table_npy(buf, len, label, name, t, eb);
  else if (len >= 4 && !memcmp(buf, "PK\x03\x04", 4))
    e = name ? SDK_FAIL(eb, SDK_ERR_USAGE,
                        "%s: NAME=FILE names the array of a plain .npy file only (an .npz names "
                        "its arrays)",
                        label)
             : sdk_table_npz(buf, len, label, t, eb);
  else if (len >= 8 && !memcmp(buf, "\x89HDF\r\n\x1a\n", 8))
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: HDF5 is read from a file only", label);
  else if (name)
    e = SDK_FAIL(eb, SDK_ERR_USAGE, "%s: NAME=FILE names the array of a plain .npy file only",
                 label);
  else
    e = parse_tsv(buf, len, label, t, eb);
  if (e == SDK_OK) e = sdk_table_check(t, label, eb);
  if (e != SDK_OK) sdk_table_free(t);
  return e;
}

/* the whole of a regular file (a FIFO, device or directory refused before
 * anything is read from it) */
static sdk_err read_all(const char *path, unsigned char **out, size_t *len, sdk_errbuf *eb) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot read '%s': %s", path, strerror(err));
  }
  struct stat st;
  sdk_err e = SDK_OK;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s' is not a regular file (a directory, FIFO or device)",
                 path);
  else if (st.st_size > ((off_t)1 << 34))
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s': larger than 16 GiB", path);
  unsigned char *b = e == SDK_OK ? malloc((size_t)st.st_size + 1) : NULL;
  if (e == SDK_OK && !b) e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading '%s'", path);
  size_t got = 0;
  while (e == SDK_OK && got < (size_t)st.st_size) {
    ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      e = SDK_FAIL(eb, SDK_ERR_IO, "cannot read '%s': %s", path, r ? strerror(errno) : "it shrank");
    else
      got += (size_t)r;
  }
  close(fd);
  if (e != SDK_OK) return free(b), e;
  *out = b, *len = got;
  return SDK_OK;
}

/* "[NAME=]FILE[:grid=K][:group=G]" into its parts (suffixes from the right) */
static sdk_err split_spec(const char *spec, char *file, size_t nf, char *name, size_t nn,
                          int64_t *grid, char *group, size_t ng, sdk_errbuf *eb) {
  *grid = -1, name[0] = group[0] = 0;
  if (strlen(spec) >= nf) return SDK_FAIL(eb, SDK_ERR_USAGE, "'%.100s...': too long", spec);
  snprintf(file, nf, "%s", spec);
  for (char *c; (c = strrchr(file, ':'));) {
    if (!strncmp(c, ":grid=", 6)) {
      double v;
      if (!sdk_parse_number(c + 6, &v) || v != floor(v) || v < 0 || v > 1e15)
        return SDK_FAIL(eb, SDK_ERR_USAGE, "'%s': grid=K needs a grid point index >= 0", spec);
      if (*grid >= 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "'%s': grid= given twice", spec);
      *grid = (int64_t)v;
    } else if (!strncmp(c, ":group=", 7)) {
      if (group[0] || !c[7] || strlen(c + 7) >= ng)
        return SDK_FAIL(eb, SDK_ERR_USAGE, "'%s': group= needs one group name", spec);
      snprintf(group, ng, "%s", c + 7);
    } else {
      break;
    }
    *c = 0;
  }
  char *eq = strchr(file, '=');
  if (eq && eq > file && (size_t)(eq - file) < nn && !memchr(file, '/', (size_t)(eq - file))) {
    memcpy(name, file, (size_t)(eq - file));
    name[eq - file] = 0;
    memmove(file, eq + 1, strlen(eq + 1) + 1);
  }
  if (!file[0]) return SDK_FAIL(eb, SDK_ERR_USAGE, "'%s': no file named", spec);
  return SDK_OK;
}

sdk_err sdk_table_read(const char *spec, sdk_table *t, sdk_errbuf *eb) {
  char file[4096], name[201], group[201];
  int64_t grid;
  memset(t, 0, sizeof *t);
  SDK_CHECK(split_spec(spec, file, sizeof file, name, sizeof name, &grid, group, sizeof group, eb));
  unsigned char *buf = NULL;
  size_t len = 0;
  SDK_CHECK(read_all(file, &buf, &len, eb));
  sdk_err e;
  if (len >= 8 && !memcmp(buf, "\x89HDF\r\n\x1a\n", 8)) {
    free(buf);
    if (name[0])
      return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: NAME=FILE names the array of a plain .npy file only",
                      file);
    e = sdk_table_h5(file, group[0] ? group : NULL, t, eb);
    if (e == SDK_OK) e = sdk_table_check(t, file, eb);
  } else {
    e = group[0] ? SDK_FAIL(eb, SDK_ERR_USAGE, "%s: group= is for HDF5 files", file)
                 : sdk_table_parse(buf, len, file, name[0] ? name : NULL, t, eb);
    free(buf);
  }
  if (e == SDK_OK && grid >= 0) e = take_grid(t, grid, file, eb);
  if (e != SDK_OK) sdk_table_free(t);
  return e;
}
