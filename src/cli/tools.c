/* sdekit compile / devices. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int sdk_cli_devices(int argc, char **argv) {
  fprintf(stderr, "sdekit: error: the cuda backend is not built yet\n");
  return 1;
}

int sdk_cli_compile(int argc, char **argv) {
  fprintf(stderr, "sdekit: error: not yet\n");
  return 1;
}
