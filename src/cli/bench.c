#include <stdio.h>
#include "cli/cli.h"
int sdk_cli_bench(int argc, char **argv) {
  fprintf(stderr, "sdekit: error: not yet\n");
  return 1;
}
