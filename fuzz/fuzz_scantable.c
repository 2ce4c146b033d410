/* Fuzz target: the --scan-file table reader (io/scantable.h), whose input is
 * any file a user names.  The input is the file; on success every value the
 * reader claims is touched, and every name must be an identifier of at most
 * 63 characters (what keeps names out of generated source). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "io/scantable.h"
#include "sim/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox();
  const char *path = fuzz_file("table.tsv", data, size);
  if (!path) return 0;
  sdk_scan_axis ax[SDK_MAX_SCAN_PARAMS];
  int n = 0;
  sdk_errbuf eb = {0};
  if (sdk_scan_table_read(path, ax, SDK_MAX_SCAN_PARAMS, &n, &eb) != SDK_OK) return 0;
  volatile double sink = 0;
  for (int k = 0; k < n; k++) {
    size_t len = strlen(ax[k].name);
    if (len == 0 || len >= sizeof ax[k].name ||
        strspn(ax[k].name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                           "OPQRSTUVWXYZ0123456789_") != len)
      abort();
    if (ax[k].n != ax[0].n || ax[k].zip != (k > 0)) abort();
    for (int64_t i = 0; i < ax[k].n; i++)
      sink += ax[k].values[i];
    sdk_scan_free(&ax[k]);
  }
  (void)sink;
  return 0;
}
