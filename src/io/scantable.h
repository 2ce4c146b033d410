/* sdekit: a table of scan points (--scan-file): a header line naming
 * parameters, then one row of numbers per grid point.  The columns move
 * together: one zipped axis of the grid. */
#ifndef SDK_SCANTABLE_H
#define SDK_SCANTABLE_H

#include "core/error.h"
#include "observe/results.h"

/* Read the table at path into out[0..*n-1] (at most max columns): each a
 * parameter with its values (owned: sdk_scan_free), out[k].zip = k > 0.
 * Fields are separated by tabs or spaces; lines starting with '#' and blank
 * lines are skipped.  The file is untrusted: a name that is not an
 * identifier or appears twice, a field that is not a finite number, a row of
 * another length, no rows, too many columns or rows: SDK_ERR_USAGE naming
 * the file and line, and nothing kept. */
sdk_err sdk_scan_table_read(const char *path, sdk_scan_axis *out, int max, int *n, sdk_errbuf *eb);

#endif
