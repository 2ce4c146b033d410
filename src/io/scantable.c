/* sdekit: the --scan-file table reader (io/scantable.h), on the one parser
 * of headed tables of numbers (io/table_internal.h, sdk_tbl_tsv_row).
 * Strict: every doubt about the file is an error naming its line, since a
 * value read wrongly would be a grid point run with parameters nobody asked
 * for. */
#include "io/scantable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/table_internal.h"
#include "sim/run.h"

#define MAX_ROWS 10000000 /* the most values a --scan takes */

static int is_ident(const char *s) {
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return 0;
  return 1;
}

/* the header's names: identifiers, each once, at most max */
static sdk_err header(sdk_lines *L, sdk_scan_axis *col, int max, int *ncol, sdk_errbuf *eb) {
  char *f[SDK_TABLE_MAX_COLUMNS];
  int n;
  SDK_CHECK(
      sdk_tbl_tsv_header(L, f, max < SDK_TABLE_MAX_COLUMNS ? max : SDK_TABLE_MAX_COLUMNS, &n, eb));
  if (n == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s:%lld: no rows (a header of parameter names, then one row of numbers per "
                    "grid point)",
                    L->label, (long long)L->lineno);
  if (n < 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s:%lld: more than %d columns (parameters)", L->label,
                    (long long)L->lineno, max);
  for (int k = 0; k < n; k++) {
    if (strlen(f[k]) >= sizeof col->name || !is_ident(f[k]))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s:%lld: column %d of the header is not a parameter name (letters, digits "
                      "and _, not starting with a digit, at most %zu characters)",
                      L->label, (long long)L->lineno, k + 1, sizeof col->name - 1);
    for (int j = 0; j < k; j++)
      if (!strcmp(col[j].name, f[k]))
        return SDK_FAIL(eb, SDK_ERR_USAGE, "%s:%lld: parameter '%s' named twice in the header",
                        L->label, (long long)L->lineno, f[k]);
    sdk_scan_axis *c = &col[k];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", f[k]);
    snprintf(c->origin, sizeof c->origin, "%.120s:%lld: --scan-file column", L->label,
             (long long)L->lineno);
    c->zip = k > 0;
    *ncol = k + 1;
  }
  return SDK_OK;
}

/* the rows, one value of every column each (io/table_internal.h's parser) */
static sdk_err rows(sdk_lines *L, sdk_scan_axis *col, int ncol, int64_t *nrow, sdk_errbuf *eb) {
  const char *names[SDK_TABLE_MAX_COLUMNS];
  for (int k = 0; k < ncol; k++)
    names[k] = col[k].name;
  double v[SDK_TABLE_MAX_COLUMNS];
  int64_t cap = 0;
  for (int got = 1;;) {
    SDK_CHECK(sdk_tbl_tsv_row(L, ncol, names, v, &got, eb));
    if (!got) break;
    if (*nrow == MAX_ROWS)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "%s:%lld: more than %d rows (grid points)", L->label,
                      (long long)L->lineno, MAX_ROWS);
    if (*nrow == cap) {
      cap = cap ? 2 * cap : 64;
      for (int k = 0; k < ncol; k++) {
        double *nv = realloc(col[k].values, (size_t)cap * sizeof(double));
        if (!nv) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
        col[k].values = nv;
      }
    }
    for (int k = 0; k < ncol; k++)
      col[k].values[*nrow] = v[k];
    ++*nrow;
  }
  if (*nrow == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s:%lld: no rows (a header of parameter names, then one row of numbers per "
                    "grid point)",
                    L->label, (long long)L->lineno);
  return SDK_OK;
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
  sdk_bytes b = {.fd = fd, .len = (size_t)st.st_size};
  sdk_lines L;
  sdk_lines_init(&L, &b, path, 0, 0);
  int ncol = 0;
  int64_t nrow = 0;
  sdk_err e = header(&L, out, max, &ncol, eb);
  if (e == SDK_OK) e = rows(&L, out, ncol, &nrow, eb);
  sdk_lines_free(&L);
  close(fd);
  for (int k = 0; k < ncol; k++) {
    if (e != SDK_OK) {
      sdk_scan_free(&out[k]);
      continue;
    }
    out[k].n = nrow;
    out[k].start = out[k].values[0];
    out[k].stop = out[k].values[nrow - 1];
  }
  if (e == SDK_OK) *n = ncol;
  return e;
}
