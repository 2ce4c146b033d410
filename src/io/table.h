/* sdekit: a user's file of named columns of doubles (issue 28): initial
 * states (--init-from) and per-path parameters (--path-params).
 *
 * Formats, told apart by their first bytes:
 *   NumPy .npy   a structured array whose fields are the names, or a plain
 *                array named by the spec ("x=start.npy")
 *   NumPy .npz   an array per name (np.savez, np.savez_compressed: stored or
 *                deflated members)
 *   HDF5         an sdekit result with final states (final/<var>, written
 *                by --save-final); else a dataset per name at the root (or
 *                in the group the spec names, ":group=G"), or one compound
 *                dataset whose fields are the names
 *   TSV          text: '#' comments and blank lines, a header line of names,
 *                then one row of numbers per path (tabs or spaces between)
 * Shapes: 1-D [paths] (one value per path, the same for every grid point),
 * or 2-D [ngrid][paths] (per grid point); any integer or floating type is
 * converted to double once.  Refused, each with one message naming the file
 * and the problem: complex, string, boolean and object types, NaN and Inf, a
 * name missing or given twice, ragged rows, columns of different lengths,
 * an empty table, more than SDK_TABLE_MAX_VALUES values.  Paths are
 * untrusted: only regular files are read (a FIFO or device is refused before
 * anything reads it), HDF5 links are never followed (io/h5attr.h).
 *
 * The spec: [NAME=]FILE[:grid=K][:group=G].  grid=K takes grid point K of
 * 2-D columns (a result of a scan), giving 1-D ones.
 */
#ifndef SDK_IO_TABLE_H
#define SDK_IO_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* at most 2^27 values in all (1 GiB of doubles) */
#define SDK_TABLE_MAX_VALUES ((int64_t)1 << 27)
#define SDK_TABLE_MAX_COLUMNS 256

typedef struct sdk_table {
  int n;          /* columns */
  char **names;   /* [n] */
  double **value; /* [n][ngrid * count] */
  int64_t ngrid;  /* 0: 1-D columns; else the grid points of 2-D ones */
  int64_t count;  /* values per column per grid point */
  /* an sdekit result's: the seed of the run that wrote it (has_seed 1) */
  uint64_t seed;
  int has_seed;
} sdk_table;

/* A table opened for reading in slices, so that a reader holds the values
 * it asks for alone (each MPI rank its own paths'): sdk_table_open reads
 * and checks the names and the shape (of a TSV every row, whose places are
 * not fixed), meta's values stay NULL; sdk_table_slice gives values [first,
 * first + n) of column k in the order of sdk_table.value (after grid=K),
 * each checked finite.  A .npy is read at the slice's records, HDF5 as a
 * hyperslab, a TSV parsed again from the nearest of every 4096th row
 * (their places kept at the opening), an .npz's stored members (np.savez)
 * like a .npy; its deflated members (np.savez_compressed) are unpacked at
 * the opening and held.  Slices change nothing in the
 * source (several threads may ask at once, but for HDF5, whose library
 * serialises nothing unless built thread-safe). */
typedef struct sdk_table_src sdk_table_src;
sdk_err sdk_table_open(const char *spec, sdk_table_src **out, sdk_errbuf *eb);
/* the same from bytes in memory (borrowed until sdk_table_close) */
sdk_err sdk_table_open_mem(const unsigned char *buf, size_t len, const char *label,
                           const char *name, sdk_table_src **out, sdk_errbuf *eb);
const sdk_table *sdk_table_src_meta(const sdk_table_src *s);
sdk_err sdk_table_slice(const sdk_table_src *s, int k, int64_t first, int64_t n, double *out,
                        sdk_errbuf *eb);
void sdk_table_close(sdk_table_src **s);

/* Read the table of spec (above) into t (owned; sdk_table_free). */
sdk_err sdk_table_read(const char *spec, sdk_table *t, sdk_errbuf *eb);
/* The same from bytes in memory (what the fuzzers call); `label` names them
 * in messages; name: the column of a plain .npy array (or NULL); HDF5 as a
 * file image (io/h5attr.h, sdk_h5_open_image). */
sdk_err sdk_table_parse(const unsigned char *buf, size_t len, const char *label, const char *name,
                        sdk_table *t, sdk_errbuf *eb);
void sdk_table_free(sdk_table *t);
/* The column named `name`, or -1. */
int sdk_table_find(const sdk_table *t, const char *name);

#endif
