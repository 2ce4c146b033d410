#include "observe/paths.h"

/* One shard holding every path: the backend's own per-grid-point reductions.
 * (Several shards combine the backends' per-chunk partial results: see
 * sdk_paths_* once the backends return them.) */
static sdk_err one_shard(const sdk_paths *p, sdk_errbuf *eb) {
  if (p->nshards != 1 || p->shard[0].begin != 0 || p->shard[0].end != p->ngrid * p->ppg)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "paths cut into %d shards: not supported here",
                    p->nshards);
  return SDK_OK;
}

sdk_err sdk_paths_moments(const sdk_paths *p, sdk_moments *out, int64_t *nonfinite,
                          sdk_errbuf *eb) {
  SDK_CHECK(one_shard(p, eb));
  return p->be->moments(p->shard[0].ens, out, nonfinite, eb);
}

sdk_err sdk_paths_mark(const sdk_paths *p, int var, sdk_errbuf *eb) {
  for (int s = 0; s < p->nshards; s++)
    SDK_CHECK(p->be->mark(p->shard[s].ens, var, eb));
  return SDK_OK;
}

sdk_err sdk_paths_displacement(const sdk_paths *p, int var, double scale, sdk_moments *out,
                               sdk_errbuf *eb) {
  SDK_CHECK(one_shard(p, eb));
  return p->be->displacement(p->shard[0].ens, var, scale, out, eb);
}

sdk_err sdk_paths_minmax(const sdk_paths *p, int var, double *lo, double *hi, sdk_errbuf *eb) {
  SDK_CHECK(one_shard(p, eb));
  return p->be->minmax(p->shard[0].ens, var, lo, hi, eb);
}

sdk_err sdk_paths_histogram(const sdk_paths *p, int var, int64_t bins, const double *lo,
                            const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                            sdk_errbuf *eb) {
  SDK_CHECK(one_shard(p, eb));
  return p->be->histogram(p->shard[0].ens, var, bins, lo, hi, counts, under, over, eb);
}

sdk_err sdk_paths_histogram_mod(const sdk_paths *p, int var, int64_t bins, double period,
                                uint64_t *counts, sdk_errbuf *eb) {
  SDK_CHECK(one_shard(p, eb));
  if (!p->be->histogram_mod)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "backend %s has no periodic histogram", p->be->name);
  return p->be->histogram_mod(p->shard[0].ens, var, bins, period, counts, eb);
}

sdk_err sdk_paths_rows(const sdk_paths *p, int row, int64_t first, int64_t n, double *buf,
                       int write, sdk_errbuf *eb) {
  for (int s = 0; s < p->nshards && n > 0; s++) {
    const sdk_shard *sh = &p->shard[s];
    if (first >= sh->end || first + n <= sh->begin) continue;
    int64_t a = first > sh->begin ? first : sh->begin;
    int64_t b = first + n < sh->end ? first + n : sh->end;
    SDK_CHECK(p->be->rows(sh->ens, row, a - sh->begin, b - a, buf + (a - first), write, eb));
  }
  return SDK_OK;
}
