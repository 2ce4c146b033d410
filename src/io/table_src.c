/* A user's table opened for reading in slices (io/table.h): the spec, the
 * file opened as an untrusted one, the one parser of headed tables of
 * numbers as text (TSV: also --scan-file's, io/scantable.c), and the
 * sources of each format that give the values of some paths without
 * holding the others (MPI ranks: each reads its own share, issue 28). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/h5attr.h"
#include "io/table_internal.h"
#include "model/model.h"

/* a TSV source remembers where every TSV_STEP-th row starts: a slice is
 * parsed from the nearest one before it */
#define TSV_STEP 4096
/* the longest line of a text table */
#define TSV_MAX_LINE ((size_t)1 << 26)

enum { SRC_NPY, SRC_NPZ, SRC_H5, SRC_TSV };

typedef struct tsv_mark {
  int64_t off, lineno; /* where row k * TSV_STEP starts, and its line's number */
} tsv_mark;

struct sdk_table_src {
  int kind;
  char label[4096]; /* the file (or the label of bytes in memory) */
  sdk_table t;      /* names and shape (values NULL) */
  int64_t grid;     /* grid=K (-1: none): column i is the file's K * count + i */
  int64_t ngrid;    /* the file's grid points (0: 1-D), before grid=K */
  sdk_bytes b;      /* SRC_NPY, SRC_TSV */
  sdk_npy *npy;
  sdk_npz npz;
  hid_t h5f;
  sdk_table_h5 h5;
  tsv_mark *mark; /* SRC_TSV: rows / TSV_STEP + 1 of them */
};

/* ------------------------------------------------------------ bytes */

sdk_err sdk_bytes_read(const sdk_bytes *b, size_t off, size_t n, void *out, const char *label,
                       sdk_errbuf *eb) {
  if (off > b->len || n > b->len - off)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: shorter than it was (changed while read?)", label);
  if (b->mem) {
    memcpy(out, b->mem + off, n);
    return SDK_OK;
  }
  for (size_t got = 0; got < n;) {
    ssize_t r = pread(b->fd, (char *)out + got, n - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return SDK_FAIL(eb, SDK_ERR_IO, "cannot read '%s': %s", label,
                      r ? strerror(errno) : "it shrank");
    got += (size_t)r;
  }
  return SDK_OK;
}

/* ------------------------------------------------------------ lines */

sdk_err sdk_lines_next(sdk_lines *L, int *got, sdk_errbuf *eb) {
  *got = 0;
  for (;;) {
    char *s = L->buf ? L->buf + L->lo : NULL, *nl = s ? memchr(s, '\n', L->hi - L->lo) : NULL;
    int last = L->base + L->hi == L->b.len;
    if (nl || last) {
      if (!nl && L->lo == L->hi) return SDK_OK; /* the end */
      size_t n = nl ? (size_t)(nl - s) : L->hi - L->lo;
      L->off = (int64_t)(L->base + L->lo);
      L->lo += n + (nl != NULL);
      L->lineno++;
      if (memchr(s, 0, n))
        return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: not a text file (a NUL byte at line %lld)",
                        L->label, (long long)L->lineno);
      if (n && s[n - 1] == '\r') n--;
      s[n] = 0; /* (the '\n', '\r', or the spare byte after the window) */
      L->line = s, L->n = n, *got = 1;
      return SDK_OK;
    }
    /* the window holds no whole line: move it on, larger when it is full */
    if (L->buf) memmove(L->buf, L->buf + L->lo, L->hi - L->lo); /* (none yet: nothing to move) */
    L->base += L->lo, L->hi -= L->lo, L->lo = 0;
    if (L->hi + 1 >= L->cap) {
      if (L->cap >= TSV_MAX_LINE)
        return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s:%lld: a line longer than %zu bytes", L->label,
                        (long long)L->lineno + 1, TSV_MAX_LINE);
      size_t cap = L->cap ? 2 * L->cap : 65536;
      char *nb = realloc(L->buf, cap);
      if (!nb) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      L->buf = nb, L->cap = cap;
    }
    size_t want = L->cap - 1 - L->hi, left = L->b.len - L->base - L->hi;
    if (want > left) want = left;
    SDK_CHECK(sdk_bytes_read(&L->b, L->base + L->hi, want, L->buf + L->hi, L->label, eb));
    L->hi += want;
  }
}

void sdk_lines_init(sdk_lines *L, const sdk_bytes *b, const char *label, int64_t off,
                    int64_t lineno) {
  memset(L, 0, sizeof *L);
  L->b = *b, L->label = label, L->base = (size_t)off, L->lineno = lineno;
}

void sdk_lines_free(sdk_lines *L) {
  free(L->buf);
  L->buf = NULL;
}

/* the fields of the current line, split on tabs and spaces in place; the
 * number of fields, or -1 when more than max */
static int split(char *s, char **f, int max) {
  int k = 0;
  while (*s) {
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

/* a line of nothing but tabs and spaces, or a '#' comment */
static int blank_or_comment(const char *l) {
  l += strspn(l, " \t");
  return !*l || *l == '#';
}

sdk_err sdk_tbl_tsv_header(sdk_lines *L, char **f, int max, int *n, sdk_errbuf *eb) {
  int got;
  *n = 0;
  do
    SDK_CHECK(sdk_lines_next(L, &got, eb));
  while (got && blank_or_comment(L->line));
  if (got) *n = split(L->line, f, max);
  return SDK_OK;
}

sdk_err sdk_tbl_tsv_row(sdk_lines *L, int nc, const char *const *names, double *v, int *got,
                        sdk_errbuf *eb) {
  do
    SDK_CHECK(sdk_lines_next(L, got, eb));
  while (*got && blank_or_comment(L->line));
  if (!*got) return SDK_OK;
  /* a '#' after the values starts a comment (no number has one) */
  char *hash = strchr(L->line, '#');
  if (hash) *hash = 0;
  char *g[SDK_TABLE_MAX_COLUMNS + 1];
  int k = split(L->line, g, nc + 1);
  if (k != nc)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s:%lld: %s%d values, the header names %d", L->label,
                    (long long)L->lineno, k < 0 ? "more than " : "", k < 0 ? nc + 1 : k, nc);
  for (int c = 0; c < nc; c++)
    if (!sdk_parse_number(g[c], &v[c]))
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s:%lld: '%.40s' (column '%s') is not a number",
                      L->label, (long long)L->lineno, g[c], names[c]);
  return SDK_OK;
}

/* ------------------------------------------------------------ TSV */

/* The header and every row checked once, the places of every TSV_STEP-th
 * row remembered: the values are parsed again where a slice asks. */
static sdk_err open_tsv(sdk_table_src *s, sdk_errbuf *eb) {
  sdk_lines L;
  sdk_lines_init(&L, &s->b, s->label, 0, 0);
  char *f[SDK_TABLE_MAX_COLUMNS];
  int nc;
  sdk_err e = sdk_tbl_tsv_header(&L, f, SDK_TABLE_MAX_COLUMNS, &nc, eb);
  if (e == SDK_OK && nc == 0)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: no header line of names", s->label);
  if (e == SDK_OK && nc < 0)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: more than %d columns", s->label, SDK_TABLE_MAX_COLUMNS);
  for (int k = 0; e == SDK_OK && k < nc; k++) {
    double x;
    if (sdk_parse_number(f[k], &x))
      e = SDK_FAIL(eb, SDK_ERR_FORMAT,
                   "%s:%lld: the header's column %d is the number '%.40s': expected a line of "
                   "names before the values",
                   s->label, (long long)L.lineno, k + 1, f[k]);
    else
      e = sdk_table_add(&s->t, s->label, f[k], 1, NULL, eb);
  }
  double v[SDK_TABLE_MAX_COLUMNS];
  int64_t rows = 0, nmark = 0, cap = 0;
  for (int got = 1; e == SDK_OK;) {
    int64_t off = (int64_t)(L.base + L.lo), lineno = L.lineno;
    e = sdk_tbl_tsv_row(&L, nc, (const char *const *)s->t.names, v, &got, eb);
    if (e != SDK_OK || !got) break;
    if (rows % TSV_STEP == 0) {
      if (nmark == cap) {
        cap = cap ? 2 * cap : 16;
        tsv_mark *m = realloc(s->mark, (size_t)cap * sizeof *m);
        if (!m) e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
        if (m) s->mark = m;
      }
      if (e == SDK_OK) s->mark[nmark++] = (tsv_mark){off, lineno};
    }
    if (++rows > SDK_TABLE_MAX_VALUES / nc)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: too many values", s->label);
  }
  if (e == SDK_OK && rows == 0)
    e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a header but no rows of values", s->label);
  sdk_lines_free(&L);
  s->t.count = rows;
  return e;
}

static sdk_err slice_tsv(const sdk_table_src *s, int k, int64_t first, int64_t n, double *out,
                         sdk_errbuf *eb) {
  const tsv_mark *m = &s->mark[first / TSV_STEP];
  sdk_lines L;
  sdk_lines_init(&L, &s->b, s->label, m->off, m->lineno);
  double v[SDK_TABLE_MAX_COLUMNS];
  sdk_err e = SDK_OK;
  for (int64_t r = first / TSV_STEP * TSV_STEP; e == SDK_OK && r < first + n; r++) {
    int got;
    e = sdk_tbl_tsv_row(&L, s->t.n, (const char *const *)s->t.names, v, &got, eb);
    if (e == SDK_OK && !got)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: shorter than it was (changed while read?)", s->label);
    if (e == SDK_OK && r >= first) out[r - first] = v[k];
  }
  sdk_lines_free(&L);
  return e;
}

/* ------------------------------------------------------------ sources */

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

/* a regular file opened (a FIFO, device or directory refused before
 * anything is read from it) into b */
static sdk_err open_file(const char *path, sdk_bytes *b, sdk_errbuf *eb) {
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
  if (e != SDK_OK) return close(fd), e;
  *b = (sdk_bytes){.fd = fd, .len = (size_t)st.st_size};
  return SDK_OK;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* the format of b from its first bytes, and its names and shape */
static sdk_err open_kind(sdk_table_src *s, const char *name, const char *group, sdk_errbuf *eb) {
  unsigned char head[8] = {0};
  size_t nh = s->b.len < 8 ? s->b.len : 8;
  SDK_CHECK(sdk_bytes_read(&s->b, 0, nh, head, s->label, eb));
  int npy = nh >= 6 && !memcmp(head, "\x93NUMPY", 6), npz = nh >= 4 && !memcmp(head, "PK\3\4", 4);
  int h5 = nh == 8 && !memcmp(head, "\x89HDF\r\n\x1a\n", 8);
  /* a binary format's name on other bytes (else read as text, whose
   * message would be about columns and rows) */
  const char *kind = ends_with(s->label, ".npy") && !npy   ? "a NumPy .npy file"
                     : ends_with(s->label, ".npz") && !npz ? "a NumPy .npz archive"
                     : (ends_with(s->label, ".h5") || ends_with(s->label, ".hdf5")) && !h5
                         ? "an HDF5 file"
                         : NULL;
  if (kind)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: not %s (its first bytes are not the format's mark)",
                    s->label, kind);
  if (group[0] && !h5) return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: group= is for HDF5 files", s->label);
  if (name[0] && !npy)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: NAME=FILE names the array of a plain .npy file only%s",
                    s->label, npz ? " (an .npz names its arrays)" : "");
  if (npy) {
    /* the header: at most 12 bytes and 1 MiB */
    size_t len = s->b.len < 12 + (1u << 20) ? s->b.len : 12 + (1u << 20);
    unsigned char *buf = malloc(len ? len : 1);
    s->npy = malloc(sizeof *s->npy);
    if (!buf || !s->npy) return free(buf), SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    sdk_err e = sdk_bytes_read(&s->b, 0, len, buf, s->label, eb);
    if (e == SDK_OK)
      e = sdk_npy_layout(buf, len, s->b.len, s->label, name[0] ? name : NULL, s->npy, eb);
    free(buf);
    SDK_CHECK(e);
    s->kind = SRC_NPY, s->t.ngrid = s->npy->ngrid, s->t.count = s->npy->count;
    int64_t total = (s->t.ngrid ? s->t.ngrid : 1) * s->t.count;
    for (int k = 0; k < (s->npy->nfield ? s->npy->nfield : 1); k++)
      SDK_CHECK(sdk_table_add(&s->t, s->label, s->npy->field[k], total, NULL, eb));
    return SDK_OK;
  }
  if (npz) {
    s->kind = SRC_NPZ;
    return sdk_npz_open(&s->b, s->label, &s->npz, &s->t, eb);
  }
  if (h5) {
    SDK_CHECK(s->b.mem ? sdk_h5_open_image(s->b.mem, s->b.len, s->label, &s->h5f, eb)
                       : sdk_h5_open_untrusted(s->label, &s->h5f, eb));
    s->kind = SRC_H5;
    return sdk_table_h5_open(s->h5f, s->label, group[0] ? group : NULL, &s->h5, &s->t, eb);
  }
  s->kind = SRC_TSV;
  return open_tsv(s, eb);
}

/* the file's columns cut to grid point s->grid */
static sdk_err take_grid(sdk_table_src *s, sdk_errbuf *eb) {
  s->ngrid = s->t.ngrid;
  if (s->grid < 0) return SDK_OK;
  if (!s->t.ngrid)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: grid=%lld asked, but the columns have one value per path, not one per "
                    "grid point and path",
                    s->label, (long long)s->grid);
  if (s->grid >= s->t.ngrid)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: grid=%lld asked, but the file has %lld grid points",
                    s->label, (long long)s->grid, (long long)s->t.ngrid);
  s->t.ngrid = 0;
  return SDK_OK;
}

/* Every value checked finite before anything runs (the same error on every
 * rank, which all open the file), a block at a time: nothing held.  (The
 * parser of TSV refuses what is not a finite number itself.) */
static sdk_err check_values(const sdk_table_src *s, sdk_errbuf *eb) {
  if (s->kind == SRC_TSV) return SDK_OK;
  int64_t total = (s->t.ngrid ? s->t.ngrid : 1) * s->t.count, block = (int64_t)1 << 16;
  double *v = malloc((size_t)(total < block ? total : block) * sizeof *v);
  if (!v) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = SDK_OK;
  for (int k = 0; k < s->t.n && e == SDK_OK; k++)
    for (int64_t a = 0; a < total && e == SDK_OK; a += block)
      e = sdk_table_slice(s, k, a, total - a < block ? total - a : block, v, eb);
  free(v);
  return e;
}

static sdk_err src_new(const char *label, sdk_table_src **out, sdk_errbuf *eb) {
  sdk_table_src *s = calloc(1, sizeof *s);
  if (!s) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  snprintf(s->label, sizeof s->label, "%s", label);
  s->grid = -1, s->h5f = -1, s->h5.loc = -1, s->b.fd = -1;
  *out = s;
  return SDK_OK;
}

sdk_err sdk_table_open(const char *spec, sdk_table_src **out, sdk_errbuf *eb) {
  char file[4096], name[201], group[201];
  int64_t grid;
  *out = NULL;
  SDK_CHECK(split_spec(spec, file, sizeof file, name, sizeof name, &grid, group, sizeof group, eb));
  sdk_table_src *s = NULL;
  SDK_CHECK(src_new(file, &s, eb));
  s->grid = grid;
  sdk_err e = open_file(file, &s->b, eb);
  if (e == SDK_OK) e = open_kind(s, name, group, eb);
  if (e == SDK_OK) e = sdk_table_check(&s->t, s->label, eb);
  if (e == SDK_OK) e = take_grid(s, eb);
  if (e == SDK_OK) e = check_values(s, eb);
  if (e != SDK_OK) return sdk_table_close(&s), e;
  *out = s;
  return SDK_OK;
}

sdk_err sdk_table_open_mem(const unsigned char *buf, size_t len, const char *label,
                           const char *name, sdk_table_src **out, sdk_errbuf *eb) {
  sdk_table_src *s = NULL;
  *out = NULL;
  SDK_CHECK(src_new(label, &s, eb));
  s->b = (sdk_bytes){.mem = buf, .len = len, .fd = -1};
  sdk_err e = open_kind(s, name ? name : "", "", eb);
  if (e == SDK_OK) e = sdk_table_check(&s->t, s->label, eb);
  if (e == SDK_OK) e = take_grid(s, eb);
  if (e == SDK_OK) e = check_values(s, eb);
  if (e != SDK_OK) return sdk_table_close(&s), e;
  *out = s;
  return SDK_OK;
}

const sdk_table *sdk_table_src_meta(const sdk_table_src *s) {
  return &s->t;
}

sdk_err sdk_table_slice(const sdk_table_src *s, int k, int64_t first, int64_t n, double *out,
                        sdk_errbuf *eb) {
  int64_t total = (s->t.ngrid ? s->t.ngrid : 1) * s->t.count;
  if (k < 0 || k >= s->t.n || first < 0 || n < 0 || first > total - n)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: values [%lld, +%lld) of column %d asked", s->label,
                    (long long)first, (long long)n, k);
  /* (the file's index of value i: grid=K takes the file's K * count + i) */
  int64_t at = first + (s->grid >= 0 ? s->grid * s->t.count : 0);
  sdk_table whole = s->t; /* (the file's shape, for the readers) */
  whole.ngrid = s->ngrid;
  sdk_err e = SDK_OK;
  if (s->kind == SRC_NPZ)
    e = sdk_npz_slice(&s->npz, k, at, n, out, s->label, eb);
  else if (s->kind == SRC_NPY)
    e = sdk_npy_slice(s->npy, &s->b, k, at, n, out, s->label, eb);
  else if (s->kind == SRC_H5)
    e = sdk_table_h5_slice(&s->h5, &whole, k, at, n, out, s->label, eb);
  else
    e = slice_tsv(s, k, at, n, out, eb);
  for (int64_t i = 0; e == SDK_OK && i < n; i++)
    if (!isfinite(out[i])) {
      int64_t j = at + i;
      if (s->ngrid)
        return SDK_FAIL(eb, SDK_ERR_FORMAT,
                        "%s: '%s' is %g at grid point %lld, path %lld: NaN and Inf are refused",
                        s->label, s->t.names[k], out[i], (long long)(j / s->t.count),
                        (long long)(j % s->t.count));
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: '%s' is %g at path %lld: NaN and Inf are refused",
                      s->label, s->t.names[k], out[i], (long long)j);
    }
  return e;
}

void sdk_table_close(sdk_table_src **sp) {
  sdk_table_src *s = *sp;
  if (!s) return;
  sdk_table_free(&s->t);
  sdk_table_h5_close(&s->h5);
  sdk_npz_free(&s->npz);
  if (s->h5f >= 0) H5Fclose(s->h5f), H5Eclear2(H5E_DEFAULT);
  if (s->b.fd >= 0) close(s->b.fd);
  free(s->npy), free(s->mark), free(s);
  *sp = NULL;
}

/* ------------------------------------------------------------ whole tables */

/* every value of source s into t (its own copy of the names and shape) */
static sdk_err read_whole(sdk_table_src *s, sdk_table *t, sdk_errbuf *eb) {
  const sdk_table *m = &s->t;
  int64_t total = (m->ngrid ? m->ngrid : 1) * m->count;
  memset(t, 0, sizeof *t);
  t->ngrid = m->ngrid, t->count = m->count, t->seed = m->seed, t->has_seed = m->has_seed;
  sdk_err e = SDK_OK;
  for (int k = 0; e == SDK_OK && k < m->n; k++) {
    double *v;
    e = sdk_table_add(t, s->label, m->names[k], total, &v, eb);
    if (e == SDK_OK) e = sdk_table_slice(s, k, 0, total, v, eb);
  }
  if (e != SDK_OK) sdk_table_free(t);
  return e;
}

sdk_err sdk_table_read(const char *spec, sdk_table *t, sdk_errbuf *eb) {
  sdk_table_src *s = NULL;
  memset(t, 0, sizeof *t);
  SDK_CHECK(sdk_table_open(spec, &s, eb));
  sdk_err e = read_whole(s, t, eb);
  sdk_table_close(&s);
  return e;
}

sdk_err sdk_table_parse(const unsigned char *buf, size_t len, const char *label, const char *name,
                        sdk_table *t, sdk_errbuf *eb) {
  sdk_table_src *s = NULL;
  memset(t, 0, sizeof *t);
  SDK_CHECK(sdk_table_open_mem(buf, len, label, name, &s, eb));
  sdk_err e = read_whole(s, t, eb);
  sdk_table_close(&s);
  return e;
}
