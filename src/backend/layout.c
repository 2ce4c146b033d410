#include <math.h>
#include <string.h>

#include "backend/backend.h"

#include <stdlib.h>

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

int64_t *sdk_layout_rank_bytes(const sdk_layout *lay, int64_t per, int64_t *first) {
  int R = sdk_comm_size(lay->comm), me = sdk_comm_rank(lay->comm);
  int64_t *bytes = malloc((size_t)R * sizeof *bytes);
  *first = 0;
  for (int r = 0; bytes && r < R; r++) {
    if (r < me) *first += lay->xchunks[r];
    bytes[r] = lay->xchunks[r] * per;
  }
  return bytes;
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

double sdk_se_mean(double n, double m2) {
  return n > 1 ? sqrt(m2 / (n - 1) / n) : NAN;
}

int64_t sdk_span_units(const sdk_span *sp, sdk_unit *u) {
  int64_t nu = 0;
  for (int64_t g = sp->g0; g < sp->g1; g++) {
    /* the chunks of g held, [a, b) within the grid point */
    int64_t a = sp->c0 - g * sp->nch, b = sp->c1 - g * sp->nch;
    if (a < 0) a = 0;
    if (b > sp->nch) b = sp->nch;
    for (int64_t r0 = a / SDK_RED_FOLD * SDK_RED_FOLD; r0 < b; r0 += SDK_RED_FOLD) {
      int64_t r1 = r0 + SDK_RED_FOLD < sp->nch ? r0 + SDK_RED_FOLD : sp->nch;
      int whole = a <= r0 && r1 <= b;
      int64_t lo = r0 > a ? r0 : a, hi = r1 < b ? r1 : b;
      for (int64_t c = lo; c < hi; c += whole ? hi - lo : 1) {
        if (u)
          u[nu] = (sdk_unit){.k = g * sp->nch + c - sp->c0,
                             .n = whole ? hi - lo : 1,
                             .g = g,
                             .run = r0 / SDK_RED_FOLD};
        nu++;
      }
    }
  }
  return nu;
}

void sdk_fold_units(const sdk_unit *u, int64_t nu, int nvr, const sdk_moments *chunk,
                    const int64_t *nfc, sdk_moments *out, int64_t *nfo) {
  for (int64_t j = 0; j < nu; j++)
    for (int v = 0; v < nvr; v++) {
      sdk_moments t = {0, 0, 0};
      int64_t bad = 0;
      for (int64_t c = u[j].k; c < u[j].k + u[j].n; c++) {
        sdk_moments_merge(&t, &chunk[c * nvr + v]);
        if (nfc) bad += nfc[c * nvr + v];
      }
      out[j * nvr + v] = t;
      if (nfo) nfo[j * nvr + v] = bad;
    }
}
