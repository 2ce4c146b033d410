/* sdekit: the --scan-file table reader (io/scantable.h).  Strict: every
 * doubt about the file is an error naming its line, since a value read
 * wrongly would be a grid point run with parameters nobody asked for. */
#include "io/scantable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "sim/run.h"

#define MAX_ROWS 10000000 /* the most values a --scan takes */

typedef struct table {
  const char *path;
  sdk_scan_axis *col;
  int ncol, max;
  int64_t nrow, cap;
  sdk_errbuf *eb;
} table;

static int is_ident(const char *s) {
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return 0;
  return 1;
}

/* The next field of line *s (fields split by tabs and spaces), NUL-ended in place. */
static char *field(char **s) {
  char *p = *s + strspn(*s, " \t\r");
  if (!*p) return NULL;
  char *e = p + strcspn(p, " \t\r");
  *s = *e ? e + 1 : e;
  *e = 0;
  return p;
}

static sdk_err header(table *t, char *line, int64_t ln) {
  for (char *f; (f = field(&line));) {
    if (t->ncol == t->max)
      return SDK_FAIL(t->eb, SDK_ERR_USAGE, "%s:%lld: more than %d columns (parameters)", t->path,
                      (long long)ln, t->max);
    if (strlen(f) >= sizeof t->col->name || !is_ident(f))
      return SDK_FAIL(t->eb, SDK_ERR_USAGE,
                      "%s:%lld: column %d of the header is not a parameter name (letters, digits "
                      "and _, not starting with a digit, at most %zu characters)",
                      t->path, (long long)ln, t->ncol + 1, sizeof t->col->name - 1);
    for (int k = 0; k < t->ncol; k++)
      if (!strcmp(t->col[k].name, f))
        return SDK_FAIL(t->eb, SDK_ERR_USAGE, "%s:%lld: parameter '%s' named twice in the header",
                        t->path, (long long)ln, f);
    sdk_scan_axis *c = &t->col[t->ncol++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", f);
    snprintf(c->origin, sizeof c->origin, "%.120s:%lld: --scan-file column", t->path,
             (long long)ln);
    c->zip = t->ncol > 1;
  }
  if (t->ncol == 0)
    return SDK_FAIL(t->eb, SDK_ERR_USAGE, "%s:%lld: the header names no parameter", t->path,
                    (long long)ln);
  return SDK_OK;
}

static sdk_err row(table *t, char *line, int64_t ln) {
  if (t->nrow == MAX_ROWS)
    return SDK_FAIL(t->eb, SDK_ERR_USAGE, "%s:%lld: more than %d rows (grid points)", t->path,
                    (long long)ln, MAX_ROWS);
  if (t->nrow == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    for (int k = 0; k < t->ncol; k++) {
      double *v = realloc(t->col[k].values, (size_t)t->cap * sizeof(double));
      if (!v) return SDK_FAIL(t->eb, SDK_ERR_NOMEM, "out of memory");
      t->col[k].values = v;
    }
  }
  int k = 0;
  for (char *f; (f = field(&line)); k++) {
    if (k == t->ncol)
      return SDK_FAIL(t->eb, SDK_ERR_USAGE, "%s:%lld: more than the %d fields of the header",
                      t->path, (long long)ln, t->ncol);
    if (!sdk_parse_number(f, &t->col[k].values[t->nrow]))
      return SDK_FAIL(t->eb, SDK_ERR_USAGE,
                      "%s:%lld: field %d (%s) is not a finite number: '%.40s'", t->path,
                      (long long)ln, k + 1, t->col[k].name, f);
  }
  if (k < t->ncol)
    return SDK_FAIL(t->eb, SDK_ERR_USAGE, "%s:%lld: %d fields, the header has %d", t->path,
                    (long long)ln, k, t->ncol);
  t->nrow++;
  return SDK_OK;
}

static sdk_err read_lines(table *t, FILE *f) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int64_t ln = 0;
  sdk_err e = SDK_OK;
  while (e == SDK_OK && (len = getline(&line, &cap, f)) >= 0) {
    ln++;
    if ((size_t)len != strlen(line))
      e = SDK_FAIL(t->eb, SDK_ERR_USAGE, "%s:%lld: a NUL byte (not a text file)", t->path,
                   (long long)ln);
    else if (line[strspn(line, " \t\r\n")] == 0 || line[strspn(line, " \t")] == '#')
      continue;
    else {
      line[strcspn(line, "\n")] = 0;
      e = t->ncol == 0 ? header(t, line, ln) : row(t, line, ln);
    }
  }
  if (e == SDK_OK && ferror(f))
    e = SDK_FAIL(t->eb, SDK_ERR_IO, "%s: read error: %s", t->path, strerror(errno));
  if (e == SDK_OK && t->nrow == 0)
    e = SDK_FAIL(t->eb, SDK_ERR_USAGE,
                 "%s:%lld: no rows (a header of parameter names, then one "
                 "row of numbers per grid point)",
                 t->path, (long long)ln);
  free(line);
  return e;
}

sdk_err sdk_scan_table_read(const char *path, sdk_scan_axis *out, int max, int *n, sdk_errbuf *eb) {
  *n = 0;
  /* (non-blocking: a FIFO or device is refused before anything waits on it) */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "--scan-file %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int dir = S_ISDIR(st.st_mode);
    close(fd);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--scan-file %s: %s, not a table", path,
                    dir ? "a directory" : "not a regular file (a FIFO or device)");
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    close(fd);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "--scan-file %s: %s", path, strerror(errno));
  }
  table t = {.path = path, .col = out, .max = max, .eb = eb};
  sdk_err e = read_lines(&t, f);
  fclose(f);
  for (int k = 0; k < t.ncol; k++) {
    if (e != SDK_OK) {
      sdk_scan_free(&out[k]);
      continue;
    }
    out[k].n = t.nrow;
    out[k].start = out[k].values[0];
    out[k].stop = out[k].values[t.nrow - 1];
  }
  if (e == SDK_OK) *n = t.ncol;
  return e;
}
