/* Fuzz target: the HDF5 reader of users' tables (io/table.h, io/table_h5.c:
 * --init-from and --path-params from HDF5: a dataset per name, one compound
 * dataset, an sdekit result's final states).  The input is the file, opened
 * from memory as a file image (io/h5attr.h, sdk_h5_open_image: the same
 * checks as a file on disk, links refused).  On success every column is
 * read in two cuts of slices (hyperslabs of whole and partial grid points,
 * as ranks read their shares), which must give the same bits.
 *
 * The HDF5 library itself is not instrumented: a crash inside libhdf5 on a
 * corrupt file is its bug, not ours; see fuzz/README.md. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "io/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox();
  if (size < 8 || memcmp(data, "\x89HDF\r\n\x1a\n", 8)) return 0;
  sdk_table_src *s = NULL;
  sdk_errbuf eb = {0};
  if (sdk_table_open_mem(data, size, "fuzz.h5", NULL, &s, &eb) != SDK_OK) return 0;
  const sdk_table *m = sdk_table_src_meta(s);
  int64_t total = (m->ngrid ? m->ngrid : 1) * m->count;
  double *all = malloc((size_t)total * sizeof *all), *part = malloc((size_t)total * sizeof *part);
  /* (pieces of at most 65536, as a run asks: a read of every value at
   * once is not what the library does, and costs libhdf5 memory per chunk) */
  for (int k = 0; all && part && k < m->n; k++) {
    int ok = 1;
    for (int64_t a = 0; ok && a < total; a += 65536)
      ok = sdk_table_slice(s, k, a, total - a < 65536 ? total - a : 65536, all + a, &eb) == SDK_OK;
    if (!ok) break;
    /* other pieces, of a size that cuts grid points anywhere */
    int64_t piece = total / 3 + 1 < 4099 ? total / 3 + 1 : 4099;
    /* (a cut that fails where the other read: libhdf5's answer on a corrupt
     * file can depend on the selection alone, e.g. a contiguous compound
     * dataset of 6 records whose whole read succeeds and whose records 3..5
     * alone fail, H5Dread itself (fuzz/hdf5-bugs/README.md); the reader's
     * duty there is its error, which it gave) */
    for (int64_t a = 0; ok && a < total; a += piece) {
      int64_t n = total - a < piece ? total - a : piece;
      ok = sdk_table_slice(s, k, a, n, part + a, &eb) == SDK_OK;
    }
    if (ok && memcmp(all, part, (size_t)total * sizeof *all)) abort();
  }
  free(all), free(part);
  sdk_table_close(&s);
  return 0;
}
