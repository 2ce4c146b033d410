#include <string.h>

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
