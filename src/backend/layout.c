#include <string.h>

#include "backend/backend.h"

int64_t sdk_padded_paths(int64_t total) {
  const int64_t q = 512; /* CPU blocks (64), CUDA blocks of 256 threads x 2 paths */
  return (total + q - 1) / q * q;
}

int64_t sdk_chunks_per_grid(int64_t ppg) {
  return (ppg + SDK_RED_CHUNK - 1) / SDK_RED_CHUNK;
}

int64_t sdk_layout_npaths(const sdk_layout *lay) {
  return lay->npaths > 0 ? lay->npaths : lay->ngrid * lay->ppg - lay->path0;
}

/* the chunk id that path p (global) begins, or the one after the last */
static int64_t chunk_at(int64_t p, int64_t ppg, int64_t nch) {
  int64_t g = p / ppg, i = p - g * ppg;
  return g * nch + (i + SDK_RED_CHUNK - 1) / SDK_RED_CHUNK;
}

sdk_span sdk_layout_span(const sdk_layout *lay) {
  sdk_span s;
  int64_t end = lay->path0 + sdk_layout_npaths(lay);
  s.nch = sdk_chunks_per_grid(lay->ppg);
  s.c0 = chunk_at(lay->path0, lay->ppg, s.nch);
  s.c1 = chunk_at(end, lay->ppg, s.nch);
  s.g0 = lay->path0 / lay->ppg;
  s.g1 = end > lay->path0 ? (end - 1) / lay->ppg + 1 : s.g0;
  return s;
}

void sdk_layout_grid_paths(const sdk_layout *lay, int64_t g, int64_t *i0, int64_t *i1) {
  int64_t end = lay->path0 + sdk_layout_npaths(lay);
  int64_t a = g * lay->ppg, b = a + lay->ppg;
  if (a < lay->path0) a = lay->path0;
  if (b > end) b = end;
  *i0 = a - lay->path0;
  *i1 = b > a ? b - lay->path0 : *i0;
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
