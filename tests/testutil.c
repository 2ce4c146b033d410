#include "testutil.h"

#include <ftw.h>
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

static char scratch[4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  remove(path);
  return 0;
}

static void scratch_remove(void) {
  if (scratch[0]) nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tu_scratch(void) {
  if (scratch[0]) return scratch;
  const char *t = getenv("TMPDIR");
  snprintf(scratch, sizeof scratch, "%s/sdk-test.XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(scratch)) {
    perror("tu_scratch: mkdtemp");
    exit(1);
  }
  atexit(scratch_remove);
  return scratch;
}
