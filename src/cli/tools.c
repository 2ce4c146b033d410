/* sdekit devices. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/runopts.h"
#include "core/escape.h"

int sdk_cli_devices(int argc, char **argv) {
  int count = 0;
  if (argc > 1) {
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
      printf("usage: sdekit devices [--count]\n\nList the CUDA devices (ordinal, name, compute "
             "capability, multiprocessors,\nmemory); without a usable GPU, say why.  Exit status "
             "0 either way.\n\n  --count    print only the number of usable CUDA devices (0 "
             "without)\n");
      return 0;
    }
    if (strcmp(argv[1], "--count") || argc > 2) {
      cli_error("unexpected argument '%s' (usage: sdekit devices [--count])\n",
                argv[strcmp(argv[1], "--count") ? 1 : 2]);
      return 2;
    }
    count = 1;
  }
  sdekit_error err;
  sdekit_config *c = NULL;
  sdekit_cuda_info info;
  int rc = 0;
  if (sdekit_config_create(&c, &err) != SDEKIT_OK ||
      sdekit_config_set_environment(c, cli_environ(), &err) != SDEKIT_OK) { /* where NVRTC is */
    sdekit_config_destroy(&c);
    return cli_fail(&err);
  }
  if (sdekit_cuda_info_get(c, &info, &err) != SDEKIT_OK) {
    sdekit_config_destroy(&c);
    if (err.status != SDEKIT_ERR_BACKEND) return cli_fail(&err);
    /* no driver, no device, or a driver that cannot start: an answer, not
     * a failure of this command */
    if (count) {
      printf("0\n");
      return 0;
    }
    char why[1024];
    printf("no usable CUDA GPU here (%s); runs use --backend cpu\n",
           sdk_esc_term_buf(err.message, why, sizeof why));
    return 0;
  }
  if (count) {
    printf("%d\n", info.ndevices);
    sdekit_config_destroy(&c);
    return 0;
  }
  printf("CUDA driver %d.%d; NVRTC %s\n", info.driver_version / 1000,
         (info.driver_version % 1000) / 10,
         info.nvrtc_major ? "found" : "not found (needed to run kernels)");
  if (info.nvrtc_major)
    printf("NVRTC %d.%d: %s\n", info.nvrtc_major, info.nvrtc_minor, info.nvrtc_path);
  printf("%-7s %-32s %-8s %5s %10s\n", "device", "name", "arch", "SMs", "memory");
  for (int i = 0; i < info.ndevices && !rc; i++) {
    sdekit_device_info d;
    if (sdekit_cuda_device(c, i, &d, &err) != SDEKIT_OK) {
      rc = cli_fail(&err);
      break;
    }
    printf("%-7d %-32s %-8s %5d %6.1f GiB\n", i, d.name, d.arch, d.multiprocessors,
           d.memory_bytes / 1073741824.0);
  }
  sdekit_config_destroy(&c);
  return rc;
}
