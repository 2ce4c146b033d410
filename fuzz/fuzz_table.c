/* Fuzz target: the reader of users' tables (io/table.h: --init-from,
 * --path-params).  The first input byte selects the way in, the rest is the
 * file:
 *   bit 0 clear: the bytes parsed in memory (NumPy .npy and .npz, TSV,
 *                HDF5 as a file image), with a name
 *                for a plain .npy array when bit 1 is set;
 *   bit 0 set:   the bytes written to the scratch file and read by
 *                sdk_table_read (also HDF5: a dataset per name, a compound
 *                table, an sdekit result's final states), with ":grid=1"
 *                appended when bit 1 is set.
 * Every value the reader claims to hold is touched. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "io/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox();
  if (size < 1) return 0;
  int mode = data[0];
  data++, size--;
  sdk_table t;
  sdk_errbuf eb = {0};
  sdk_err e;
  if (!(mode & 1)) {
    e = sdk_table_parse(data, size, "fuzz", mode & 2 ? "x" : NULL, &t, &eb);
  } else {
    const char *path = fuzz_file("table.dat", data, size);
    if (!path) return 0;
    char spec[4200];
    snprintf(spec, sizeof spec, "%s%s", path, mode & 2 ? ":grid=1" : "");
    e = sdk_table_read(spec, &t, &eb);
  }
  if (e != SDK_OK) return 0;
  volatile double sink = 0;
  int64_t n = (t.ngrid ? t.ngrid : 1) * t.count;
  for (int k = 0; k < t.n; k++) {
    sink += (double)(t.names[k][0]);
    for (int64_t i = 0; i < n; i++)
      sink += t.value[k][i];
  }
  (void)sink;
  sdk_table_free(&t);
  return 0;
}
