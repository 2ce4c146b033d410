/* Fuzz target: HDF5 result files (what `sdekit info` and `sdekit plot`
 * read, and sdk_read_h5, the library's reader: io/image.h).  The input is
 * the file; it is written to the scratch file (fuzz_common.h), read into an
 * image by sdk_read_h5 (and, when that succeeds, written back and read
 * again), then through sdk_plot_inspect: summarised as `sdekit info` does
 * it (to /dev/null) and every picture it holds prepared as `sdekit plot`
 * does it (the scripts in memory, the data to /dev/null); and given to
 * `sdekit plot` with an output directory that does not exist, so that its
 * options are checked against the file and it stops before drawing (PATH
 * and TMPDIR point nowhere as well, so no gnuplot can ever start here).
 *
 * The HDF5 library itself is not instrumented: a crash inside libhdf5 on a
 * corrupt file is its bug, not ours; see fuzz/README.md. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "fuzz_common.h"
#include "io/image.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *devnull;
  fuzz_sandbox();
  if (!devnull) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!(devnull = fopen("/dev/null", "w"))) return 0;
  }
  const char *path = fuzz_file("result.h5", data, size);
  if (!path) return 0;
  sdk_errbuf eb = {0};
  sdk_store img;
  if (sdk_read_h5(path, &img, &eb) == SDK_OK) {
    /* what it read is an image the writer takes, and reads back the same way */
    const char *again = fuzz_file("again.h5", (const uint8_t *)"", 0);
    sdk_store img2;
    if (again && sdk_write_h5_image(&img, again, &eb) == SDK_OK &&
        sdk_read_h5(again, &img2, &eb) == SDK_OK) {
      if (img2.n != img.n) abort();
      sdk_store_free(&img2);
    }
    sdk_store_free(&img);
  }
  sdekit_error err = {0};
  (void)sdk_plot_inspect(path, devnull, &err);
  char arg0[] = "plot", arg2[] = "-o", arg3[] = "/nonexistent-sdekit-fuzz/fig.png",
       arg4[] = "--quiet";
  char file[4200];
  snprintf(file, sizeof file, "%s", path);
  char *argv[] = {arg0, file, arg2, arg3, arg4, NULL};
  (void)sdk_cli_plot(5, argv);
  return 0;
}
