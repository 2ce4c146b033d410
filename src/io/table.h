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

/* Read the table of spec (above) into t (owned; sdk_table_free). */
sdk_err sdk_table_read(const char *spec, sdk_table *t, sdk_errbuf *eb);
/* The same from bytes in memory (what the fuzzers call); `label` names them
 * in messages; name: the column of a plain .npy array (or NULL). HDF5 is
 * not read from memory. */
sdk_err sdk_table_parse(const unsigned char *buf, size_t len, const char *label, const char *name,
                        sdk_table *t, sdk_errbuf *eb);
void sdk_table_free(sdk_table *t);
/* The column named `name`, or -1. */
int sdk_table_find(const sdk_table *t, const char *name);

#endif
