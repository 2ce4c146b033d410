/* sdekit: the parts of the table reader (io/table.h) its files share. */
#ifndef SDK_IO_TABLE_INTERNAL_H
#define SDK_IO_TABLE_INTERNAL_H

#include "io/table.h"

/* A new column `name` of nvalues doubles (*out, uninitialised); refused:
 * an empty or repeated name, too many columns or values. */
sdk_err sdk_table_add(sdk_table *t, const char *label, const char *name, int64_t nvalues,
                      double **out, sdk_errbuf *eb);
/* Columns present, values present, every value finite. */
sdk_err sdk_table_check(const sdk_table *t, const char *label, sdk_errbuf *eb);
/* A NumPy .npy in memory (table.c), its columns added to t (a plain array
 * as column `name`; t's shape set to the array's); an .npz (table_npz.c):
 * each member NAME.npy so, all of one shape. */
sdk_err sdk_table_npy(const unsigned char *buf, size_t len, const char *label, const char *name,
                      sdk_table *t, sdk_errbuf *eb);
sdk_err sdk_table_npz(const unsigned char *buf, size_t len, const char *label, sdk_table *t,
                      sdk_errbuf *eb);
/* The columns of an HDF5 file (table_h5.c): an sdekit result's final/<var>,
 * or a dataset per name in `group` (NULL: the root), or one compound
 * dataset there. */
sdk_err sdk_table_h5(const char *path, const char *group, sdk_table *t, sdk_errbuf *eb);

#endif
