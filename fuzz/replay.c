/* Replays inputs through a fuzz target without libFuzzer (built with the
 * normal compiler for `make check`, label fuzz-regress): every file named on
 * the command line, or every file in every directory named, goes once
 * through LLVMFuzzerTestOneInput.  A crash fails the test; under `make asan`
 * the sanitizers catch what the fuzzer caught. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  size_t cap = 4096, n = 0;
  unsigned char *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      unsigned char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  int bad = ferror(f) || !buf;
  fclose(f);
  if (bad) {
    free(buf);
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 1;
  }
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

static int cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int fails = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
      fails++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      fails += replay_file(argv[i]);
      count++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) {
      fails++;
      continue;
    }
    char **names = NULL;
    size_t nn = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.') continue;
      char **nb = realloc(names, (nn + 1) * sizeof *names);
      if (!nb) break;
      names = nb;
      size_t l = strlen(argv[i]) + strlen(de->d_name) + 2;
      if (!(names[nn] = malloc(l))) break;
      snprintf(names[nn++], l, "%s/%s", argv[i], de->d_name);
    }
    closedir(d);
    if (nn) qsort(names, nn, sizeof *names, cmp); /* names is NULL for an empty folder */
    for (size_t k = 0; k < nn; k++) {
      fails += replay_file(names[k]);
      count++;
      free(names[k]);
    }
    free(names);
  }
  printf("replayed %d inputs, %d unreadable\n", count, fails);
  return fails ? 1 : 0;
}
