/* sdekit: the parts of the table reader (io/table.h) its files share. */
#ifndef SDK_IO_TABLE_INTERNAL_H
#define SDK_IO_TABLE_INTERNAL_H

#include <hdf5.h>

#include "io/table.h"

/* A new column `name` of nvalues doubles (*out, uninitialised; out NULL:
 * the name alone, its values left where they are); refused:
 * an empty or repeated name, too many columns or values. */
sdk_err sdk_table_add(sdk_table *t, const char *label, const char *name, int64_t nvalues,
                      double **out, sdk_errbuf *eb);
/* Columns present, and values in them. */
sdk_err sdk_table_check(const sdk_table *t, const char *label, sdk_errbuf *eb);
/* Bytes to read: in memory (mem, len), or a regular file (fd, len bytes);
 * n bytes at off into out, an error naming label when they are not there. */
typedef struct sdk_bytes {
  const unsigned char *mem;
  size_t len;
  int fd;
} sdk_bytes;
sdk_err sdk_bytes_read(const sdk_bytes *b, size_t off, size_t n, void *out, const char *label,
                       sdk_errbuf *eb);

/* The layout of a NumPy .npy (table.c): its columns (field[], the fields of
 * a structured array, or the one `name` of a plain one), their types and
 * places in a record, the shape as a table's, the offset of the data. */
typedef struct sdk_npy {
  int nfield; /* 0: a plain array (one column, field[0]) */
  char field[SDK_TABLE_MAX_COLUMNS][201];
  char type[SDK_TABLE_MAX_COLUMNS][8]; /* "<f8" etc. */
  int at[SDK_TABLE_MAX_COLUMNS];       /* byte offset in a record */
  int rec;                             /* bytes per record */
  int fortran, rank;
  int64_t shape[2];
  int64_t ngrid, count;
  size_t data;
} sdk_npy;
/* The header of a .npy whose first len bytes are buf and whose size is
 * total, checked against that size, into h. */
sdk_err sdk_npy_layout(const unsigned char *buf, size_t len, size_t total, const char *label,
                       const char *name, sdk_npy *h, sdk_errbuf *eb);
/* Values [first, first + n) of column k (the order of sdk_table.value) as
 * doubles, read from b a window of records at a time. */
sdk_err sdk_npy_slice(const sdk_npy *h, const sdk_bytes *b, int k, int64_t first, int64_t n,
                      double *out, const char *label, sdk_errbuf *eb);
/* A NumPy .npz (table_npz.c): its members' layouts (a stored member's
 * values in b's file, a deflated one's unpacked into own), the columns'
 * names and shape into t (values NULL); column k is field col_field[k] of
 * member col_member[k]. */
typedef struct sdk_npz_member {
  sdk_npy *h;
  sdk_bytes b;
  unsigned char *own;
} sdk_npz_member;
typedef struct sdk_npz {
  int n;
  sdk_npz_member *m;
  int col_member[SDK_TABLE_MAX_COLUMNS], col_field[SDK_TABLE_MAX_COLUMNS];
} sdk_npz;
sdk_err sdk_npz_open(const sdk_bytes *b, const char *label, sdk_npz *z, sdk_table *t,
                     sdk_errbuf *eb);
sdk_err sdk_npz_slice(const sdk_npz *z, int k, int64_t first, int64_t n, double *out,
                      const char *label, sdk_errbuf *eb);
void sdk_npz_free(sdk_npz *z);
/* The columns of an open HDF5 file f (table_h5.c): an sdekit result's
 * final/<var>, or a dataset per name in `group` (NULL: the root), or one
 * compound dataset there; their names and shape into t (values NULL), where
 * they are into h (sdk_table_h5_close).  Slices are read as hyperslabs. */
typedef struct sdk_table_h5 {
  hid_t loc;
  int group;          /* loc is a group of the file (closed by _close) */
  char compound[201]; /* "": a dataset per column; else the compound's */
} sdk_table_h5;
sdk_err sdk_table_h5_open(hid_t f, const char *label, const char *group, sdk_table_h5 *h,
                          sdk_table *t, sdk_errbuf *eb);
sdk_err sdk_table_h5_slice(const sdk_table_h5 *h, const sdk_table *t, int k, int64_t first,
                           int64_t n, double *out, const char *label, sdk_errbuf *eb);
void sdk_table_h5_close(sdk_table_h5 *h);

/* The lines of a text (table_src.c), read a window at a time: `line` (its
 * n bytes NUL-ended, a trailing '\r' dropped; valid until the next call)
 * starts at byte off, line number lineno; *got 0 at the end.  A NUL byte
 * is an error naming the line. */
typedef struct sdk_lines {
  sdk_bytes b;
  const char *label;
  size_t base, lo, hi, cap; /* the window: bytes [base, base + hi) in buf */
  char *buf;
  char *line;
  size_t n;
  int64_t off, lineno;
} sdk_lines;
/* from byte off, the line before it numbered lineno */
void sdk_lines_init(sdk_lines *L, const sdk_bytes *b, const char *label, int64_t off,
                    int64_t lineno);
sdk_err sdk_lines_next(sdk_lines *L, int *got, sdk_errbuf *eb);
void sdk_lines_free(sdk_lines *L);
/* The one parser of headed tables of numbers as text (TSV: --init-from,
 * --path-params and --scan-file): '#' comment lines and blank lines
 * skipped, fields split on tabs and spaces.  The header, the first other
 * line, into f[0..*n) (pointing into the line; *n 0: no such line, -1:
 * more than max fields); then row by row, nc numbers into v (*got 0 at the
 * end), a row of another length or a field that is no finite number an
 * error naming the line and the column. */
sdk_err sdk_tbl_tsv_header(sdk_lines *L, char **f, int max, int *n, sdk_errbuf *eb);
sdk_err sdk_tbl_tsv_row(sdk_lines *L, int nc, const char *const *names, double *v, int *got,
                        sdk_errbuf *eb);

#endif
