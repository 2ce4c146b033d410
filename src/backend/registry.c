#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"

const sdk_backend *const sdk_backends[] = {&sdk_backend_cpu, &sdk_backend_cuda, NULL};

const sdk_backend *sdk_backend_find(const char *name) {
  for (int i = 0; sdk_backends[i]; i++)
    if (!strcmp(sdk_backends[i]->name, name)) return sdk_backends[i];
  return NULL;
}

int64_t sdk_padded_paths(int64_t total) {
  const int64_t q = 512; /* CPU blocks (64), CUDA blocks of 256 threads x 2 paths */
  return (total + q - 1) / q * q;
}

static int mkdir_p(const char *path) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
  return 0;
}

sdk_err sdk_cache_dir(char *out, size_t n, sdk_errbuf *eb) {
  const char *d = getenv("SDK_CACHE_DIR");
  const char *x = getenv("XDG_CACHE_HOME");
  const char *h = getenv("HOME");
  if (d && *d)
    snprintf(out, n, "%s", d);
  else if (x && *x)
    snprintf(out, n, "%s/sdekit", x);
  else if (h && *h)
    snprintf(out, n, "%s/.cache/sdekit", h);
  else
    snprintf(out, n, "/tmp/sdekit-cache");
  if (mkdir_p(out) != 0)
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot create cache directory '%s': %s", out, strerror(errno));
  return SDK_OK;
}

void sdk_moments_merge(sdk_moments *a, const sdk_moments *b) {
  if (b->n == 0) return;
  if (a->n == 0) {
    *a = *b;
    return;
  }
  double n = a->n + b->n, d = b->mean - a->mean;
  a->mean += d * b->n / n;
  a->m2 += b->m2 + d * d * a->n * b->n / n;
  a->n = n;
}
