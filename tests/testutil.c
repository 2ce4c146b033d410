#include "testutil.h"

#include <stdlib.h>

int tu_failures = 0;
int tu_checks = 0;

int tu_finish(const char *name) {
  printf("%s: %d passed, %d failed\n", name, tu_checks - tu_failures, tu_failures);
  return tu_failures > 100 ? 100 : tu_failures;
}

const char *tu_source_dir(void) {
  const char *s = getenv("SDK_SOURCE_DIR");
  return s ? s : SDK_SOURCE_DIR;
}
