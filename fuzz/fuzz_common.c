#include "fuzz_common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *fuzz_cstr(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return NULL;
  if (size) memcpy(s, data, size);
  s[size] = 0;
  return s;
}

static char scratch[4096], file[4200];

static void scratch_remove(void) {
  if (file[0]) unlink(file);
  if (scratch[0]) rmdir(scratch);
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t size) {
  if (!scratch[0]) {
    const char *base = getenv("SDK_FUZZ_SCRATCH"); /* set by fuzz_sandbox */
    if (!base || !base[0]) base = "/tmp";
    snprintf(scratch, sizeof scratch, "%s/sdekit-fuzz.XXXXXX", base);
    if (!mkdtemp(scratch)) {
      fprintf(stderr, "fuzz: cannot create a scratch directory in %s\n", base);
      abort();
    }
    atexit(scratch_remove);
  }
  snprintf(file, sizeof file, "%s/%s", scratch, name);
  int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return NULL;
  size_t off = 0;
  while (off < size) {
    ssize_t w = write(fd, data + off, size - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  if (close(fd) != 0 || off != size) return NULL;
  return file;
}

void fuzz_sandbox(void) {
  static int done;
  if (done) return;
  done = 1;
  /* the scratch directory goes where the caller's TMPDIR said */
  const char *tmp = getenv("TMPDIR");
  if (!getenv("SDK_FUZZ_SCRATCH")) setenv("SDK_FUZZ_SCRATCH", tmp && tmp[0] ? tmp : "/tmp", 1);
  setenv("PATH", "/nonexistent-sdekit-fuzz", 1);
  setenv("TMPDIR", "/nonexistent-sdekit-fuzz", 1);
  unsetenv("SDEKIT_MODEL_PATH");
}
