#include "observe/paths.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The layout a shard's ensemble was made with (its span of chunks and grid
 * points, backend.h). */
static sdk_layout shard_layout(const sdk_paths *p, const sdk_shard *sh) {
  sdk_layout l = {.nvars = p->nvars,
                  .ngrid = p->ngrid,
                  .ppg = p->ppg,
                  .path0 = sh->begin,
                  .npaths = sh->end - sh->begin};
  return l;
}

int sdk_paths_local(const sdk_paths *p, int s) {
  return !p->owner || p->owner[s] == sdk_comm_rank(p->comm);
}

/* Several ranks: the per-unit partials (`per` bytes a unit) of every rank's
 * shards to every rank.  u_of[s]: the units of shard s. */
static sdk_err share_units(const sdk_paths *p, const int64_t *u_of, void *buf, int64_t per,
                           sdk_errbuf *eb) {
  int R = sdk_comm_size(p->comm);
  if (R == 1 || !p->owner) return SDK_OK;
  int64_t *bytes = calloc((size_t)R, sizeof *bytes);
  if (!bytes) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int s = 0; s < p->nshards; s++)
    bytes[p->owner[s]] += u_of[s] * per;
  sdk_err e = sdk_comm_allgatherv(p->comm, buf, bytes, eb);
  free(bytes);
  return e;
}

/* The carried slot of the reduction being made (paths.h: sdk_carry). */
static sdk_err carried(const sdk_paths *p, size_t n, void **slot, int *fresh, sdk_errbuf *eb) {
  int f;
  SDK_CHECK(sdk_carry_slot(p->carry, n, slot, &f, eb));
  if (fresh) *fresh = f;
  return SDK_OK;
}

/* Per-unit moments of nvr values from every shard (backend.h: fold units),
 * merged per grid point in the order of the global chunk ids: the chunks of
 * each run of SDK_RED_FOLD chunks in order (a unit held whole comes folded,
 * the chunks of a run cut by a shard boundary one by one, folded here by the
 * same arithmetic), then the runs in order.  Whatever the cut into shards,
 * the same sums in the same order, so the same bits. */
enum { GATHER_MOMENTS, GATHER_DISPLACEMENT, GATHER_OBSERVE };

/* A grid point's paths with some non-finite value: the most over its
 * values' counts (count[g * nvr + v]). */
static void worst_of(const int64_t *count, int64_t ngrid, int nvr, int64_t *out) {
  for (int64_t g = 0; g < ngrid; g++) {
    int64_t worst = 0;
    for (int v = 0; v < nvr; v++)
      if (count[g * nvr + v] > worst) worst = count[g * nvr + v];
    out[g] = worst;
  }
}
static sdk_err gather_moments(const sdk_paths *p, int nvr, int mode, int var, double scale,
                              int64_t step, sdk_moments *out, int64_t *nonfinite,
                              int64_t *state_nonfinite, sdk_errbuf *eb) {
  int64_t nu = 0;
  int64_t *u_of = malloc((size_t)(p->nshards > 0 ? p->nshards : 1) * sizeof *u_of);
  if (!u_of) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int s = 0; s < p->nshards; s++) {
    sdk_layout l = shard_layout(p, &p->shard[s]);
    sdk_span sp = sdk_layout_span(&l);
    nu += u_of[s] = sdk_span_units(&sp, NULL);
  }
  sdk_moments *part = calloc((size_t)((nu ? nu : 1) * nvr), sizeof *part);
  int64_t *nf = calloc((size_t)((nu ? nu : 1) * nvr), sizeof *nf);
  sdk_unit *u = malloc((size_t)(nu ? nu : 1) * sizeof *u);
  sdk_moments *run = calloc((size_t)nvr, sizeof *run);
  int64_t *bad = calloc((size_t)(p->ngrid * nvr), sizeof *bad); /* [g][v] */
  /* the variables' NaN/Inf counts per grid point held, summed per grid point */
  int nv = p->nvars;
  int64_t *sbad = state_nonfinite ? calloc((size_t)(p->ngrid * nv), sizeof *sbad) : NULL;
  int64_t *spart = state_nonfinite ? malloc((size_t)(p->ngrid * nv) * sizeof *spart) : NULL;
  sdk_err e = !part || !nf || !u || !run || !bad || (state_nonfinite && (!sbad || !spart))
                  ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                  : SDK_OK;
  int64_t at = 0;
  for (int s = 0; s < p->nshards && e == SDK_OK; s++) {
    sdk_layout l = shard_layout(p, &p->shard[s]);
    sdk_span sp = sdk_layout_span(&l);
    sdk_ensemble *ens = p->shard[s].ens;
    int64_t n = sdk_span_units(&sp, u + at);
    if (!sdk_paths_local(p, s)) {
      at += n;
      continue;
    }
    if (mode == GATHER_DISPLACEMENT)
      e = p->be->displacement(ens, var, scale, part + at * nvr, eb);
    else if (mode == GATHER_OBSERVE)
      e = p->be->observe(ens, step, nvr, part + at * nvr, nf + at * nvr, spart, eb);
    else
      e = p->be->moments(ens, part + at * nvr, nf + at * nvr, eb);
    for (int64_t j = 0; spart && e == SDK_OK && j < (sp.g1 - sp.g0) * nv; j++)
      sbad[sp.g0 * nv + j] += spart[j];
    at += n;
  }
  if (e == SDK_OK) e = share_units(p, u_of, part, nvr * (int64_t)sizeof *part, eb);
  if (e == SDK_OK) e = share_units(p, u_of, nf, nvr * (int64_t)sizeof *nf, eb);
  if (e == SDK_OK && sbad)
    e = sdk_comm_allreduce(p->comm, sbad, p->ngrid * nv, SDK_COMM_I64, SDK_COMM_SUM, eb);
  /* with a carry: each grid point's fold goes on from the earlier windows' */
  sdk_moments *slot = NULL;
  if (e == SDK_OK && p->carry)
    e = carried(p, (size_t)(p->ngrid * nvr) * sizeof *slot, (void **)&slot, NULL, eb);
  for (int64_t i = 0; i < p->ngrid * nvr && e == SDK_OK; i++)
    out[i] = slot ? slot[i] : (sdk_moments){0, 0, 0};
  /* the units in global chunk order; a run's units are consecutive: fold
   * them into run[], then the run into its grid point's total */
  for (int64_t j = 0; j < nu && e == SDK_OK; j++) {
    for (int v = 0; v < nvr; v++) {
      sdk_moments_merge(&run[v], &part[j * nvr + v]);
      bad[u[j].g * nvr + v] += nf[j * nvr + v];
    }
    if (j + 1 < nu && u[j + 1].g == u[j].g && u[j + 1].run == u[j].run) continue;
    for (int v = 0; v < nvr; v++) {
      sdk_moments_merge(&out[u[j].g * nvr + v], &run[v]);
      run[v] = (sdk_moments){0, 0, 0};
    }
  }
  if (slot && e == SDK_OK) memcpy(slot, out, (size_t)(p->ngrid * nvr) * sizeof *slot);
  if (nonfinite && e == SDK_OK) worst_of(bad, p->ngrid, nvr, nonfinite);
  if (state_nonfinite && e == SDK_OK) worst_of(sbad, p->ngrid, nv, state_nonfinite);
  free(part), free(nf), free(u), free(run), free(bad), free(sbad), free(spart), free(u_of);
  return e;
}

sdk_err sdk_paths_moments(const sdk_paths *p, sdk_moments *out, int64_t *nonfinite,
                          sdk_errbuf *eb) {
  return gather_moments(p, p->nvars, GATHER_MOMENTS, 0, 1, 0, out, nonfinite, NULL, eb);
}

sdk_err sdk_paths_nonfinite(const sdk_paths *p, int64_t *nonfinite, sdk_errbuf *eb) {
  int nv = p->nvars;
  int64_t *sum = calloc((size_t)(p->ngrid * nv), sizeof *sum);
  int64_t *part = malloc((size_t)(p->ngrid * nv) * sizeof *part);
  sdk_err e = !sum || !part ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory") : SDK_OK;
  for (int s = 0; s < p->nshards && e == SDK_OK; s++) {
    sdk_layout l = shard_layout(p, &p->shard[s]);
    sdk_span sp = sdk_layout_span(&l);
    if (!sdk_paths_local(p, s)) continue;
    e = p->be->nonfinite(p->shard[s].ens, part, eb);
    for (int64_t j = 0; e == SDK_OK && j < (sp.g1 - sp.g0) * nv; j++)
      sum[sp.g0 * nv + j] += part[j];
  }
  if (e == SDK_OK)
    e = sdk_comm_allreduce(p->comm, sum, p->ngrid * nv, SDK_COMM_I64, SDK_COMM_SUM, eb);
  if (e == SDK_OK) worst_of(sum, p->ngrid, nv, nonfinite);
  free(sum), free(part);
  return e;
}

sdk_err sdk_paths_count_zero(const sdk_paths *p, int row, int64_t *count, int *done,
                             sdk_errbuf *eb) {
  *done = 0;
  if (!p->be->count_zero) return SDK_OK;
  int64_t ng = p->ngrid, *pc = malloc((size_t)(ng > 0 ? ng : 1) * sizeof *pc);
  if (!pc) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  memset(count, 0, (size_t)ng * sizeof *count);
  sdk_err e = SDK_OK;
  for (int s = 0; s < p->nshards && e == SDK_OK; s++) {
    sdk_layout l = shard_layout(p, &p->shard[s]);
    sdk_span sp = sdk_layout_span(&l);
    if (!sdk_paths_local(p, s)) continue;
    e = p->be->count_zero(p->shard[s].ens, row, pc, eb);
    for (int64_t g = sp.g0; g < sp.g1 && e == SDK_OK; g++)
      count[g] += pc[g - sp.g0];
  }
  free(pc);
  /* (integers: any order of the sums gives the same) */
  if (e == SDK_OK) e = sdk_comm_allreduce(p->comm, count, ng, SDK_COMM_I64, SDK_COMM_SUM, eb);
  if (e == SDK_OK) *done = 1;
  return e;
}

sdk_err sdk_paths_steps_done(const sdk_paths *p, int64_t from, int64_t to, double *out,
                             sdk_errbuf *eb) {
  /* (large blocks: each read is a copy from the device, whose latency a
   * small one pays per few paths) */
  enum { BLOCK = 65536 };
  double *buf = malloc(3 * BLOCK * sizeof *buf);
  if (!buf) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int64_t done = 0;
  sdk_err e = SDK_OK;
  for (int s = 0; s < p->nshards && e == SDK_OK; s++) {
    const sdk_shard *sh = &p->shard[s];
    if (!sdk_paths_local(p, s)) continue;
    for (int64_t a = 0; a < sh->end - sh->begin && e == SDK_OK; a += BLOCK) {
      int64_t n = sh->end - sh->begin - a < BLOCK ? sh->end - sh->begin - a : BLOCK;
      /* status (0 alive, b + 1 absorbed), hitting step mod 2^20, step >> 20 */
      for (int r = 0; r < 3 && e == SDK_OK; r++)
        e = p->be->rows(sh->ens, p->bound_row + r, a, n, buf + r * BLOCK, 0, eb);
      for (int64_t i = 0; i < n && e == SDK_OK; i++) {
        int64_t m =
            buf[i] == 0 ? to : (int64_t)buf[BLOCK + i] + ((int64_t)buf[2 * BLOCK + i] << 20);
        done += m > to ? to - from : m > from ? m - from : 0;
      }
    }
  }
  free(buf);
  SDK_CHECK(e);
  if (p->owner && sdk_comm_size(p->comm) > 1)
    SDK_CHECK(sdk_comm_allreduce(p->comm, &done, 1, SDK_COMM_I64, SDK_COMM_SUM, eb));
  *out = (double)done;
  return SDK_OK;
}

sdk_err sdk_paths_mark(const sdk_paths *p, int var, sdk_errbuf *eb) {
  for (int s = 0; s < p->nshards; s++)
    if (sdk_paths_local(p, s)) SDK_CHECK(p->be->mark(p->shard[s].ens, var, eb));
  return SDK_OK;
}

sdk_err sdk_paths_displacement(const sdk_paths *p, int var, double scale, sdk_moments *out,
                               sdk_errbuf *eb) {
  return gather_moments(p, 1, GATHER_DISPLACEMENT, var, scale, 0, out, NULL, NULL, eb);
}

sdk_err sdk_paths_observe(const sdk_paths *p, int64_t step, int nobs, sdk_moments *out,
                          int64_t *nonfinite, int64_t *state_nonfinite, sdk_errbuf *eb) {
  if (!p->be->observe)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "backend %s has no user observables", p->be->name);
  int all = p->nobs_eval;
  if (all <= nobs)
    return gather_moments(p, nobs, GATHER_OBSERVE, 0, 1, step, out, nonfinite, state_nonfinite, eb);
  /* the module evaluates more (the coupled differences): all of them, the
   * first nobs given (the same reductions, so the same bits) */
  sdk_moments *m = malloc((size_t)(p->ngrid * all) * sizeof *m);
  if (!m) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = gather_moments(p, all, GATHER_OBSERVE, 0, 1, step, m, nonfinite, state_nonfinite, eb);
  for (int64_t g = 0; g < p->ngrid && e == SDK_OK; g++)
    for (int k = 0; k < nobs; k++)
      out[g * nobs + k] = m[g * all + k];
  free(m);
  return e;
}

sdk_err sdk_paths_eval_observe(const sdk_paths *p, int64_t step, int nobs, sdk_errbuf *eb) {
  if (!p->be->eval_observe)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "backend %s has no user observables", p->be->name);
  for (int s = 0; s < p->nshards; s++)
    if (sdk_paths_local(p, s))
      SDK_CHECK(p->be->eval_observe(p->shard[s].ens, step,
                                    nobs > p->nobs_eval ? nobs : p->nobs_eval, eb));
  return SDK_OK;
}

sdk_err sdk_paths_minmax(const sdk_paths *p, int var, double *lo, double *hi, sdk_errbuf *eb) {
  double *plo = malloc((size_t)p->ngrid * sizeof *plo),
         *phi = malloc((size_t)p->ngrid * sizeof *phi);
  sdk_err e = !plo || !phi ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory") : SDK_OK;
  for (int64_t g = 0; g < p->ngrid; g++)
    lo[g] = INFINITY, hi[g] = -INFINITY;
  for (int s = 0; s < p->nshards && e == SDK_OK; s++) {
    sdk_layout l = shard_layout(p, &p->shard[s]);
    sdk_span sp = sdk_layout_span(&l);
    if (!sdk_paths_local(p, s)) continue;
    e = p->be->minmax(p->shard[s].ens, var, plo, phi, eb);
    for (int64_t g = sp.g0; g < sp.g1 && e == SDK_OK; g++) {
      if (plo[g - sp.g0] < lo[g]) lo[g] = plo[g - sp.g0];
      if (phi[g - sp.g0] > hi[g]) hi[g] = phi[g - sp.g0];
    }
  }
  /* (the extremes are exact whatever the order) */
  if (e == SDK_OK) e = sdk_comm_allreduce(p->comm, lo, p->ngrid, SDK_COMM_F64, SDK_COMM_MIN, eb);
  if (e == SDK_OK) e = sdk_comm_allreduce(p->comm, hi, p->ngrid, SDK_COMM_F64, SDK_COMM_MAX, eb);
  /* with a carry: the extremes of the earlier windows too */
  double *slot = NULL;
  int fresh = 0;
  if (e == SDK_OK && p->carry)
    e = carried(p, 2 * (size_t)p->ngrid * sizeof *slot, (void **)&slot, &fresh, eb);
  for (int64_t g = 0; slot && e == SDK_OK && g < p->ngrid; g++) {
    if (!fresh && slot[g] < lo[g]) lo[g] = slot[g];
    if (!fresh && slot[p->ngrid + g] > hi[g]) hi[g] = slot[p->ngrid + g];
    slot[g] = lo[g], slot[p->ngrid + g] = hi[g];
  }
  free(plo);
  free(phi);
  return e;
}

/* Counts of every shard added up (integers: any order gives the same). */
static sdk_err gather_counts(const sdk_paths *p, int var, int64_t bins, const double *lo,
                             const double *hi, double period, uint64_t *counts, uint64_t *under,
                             uint64_t *over, sdk_errbuf *eb) {
  int64_t ng = p->ngrid;
  uint64_t *pc = malloc((size_t)(ng * bins) * sizeof *pc), *pu = calloc((size_t)ng, sizeof *pu),
           *po = calloc((size_t)ng, sizeof *po);
  sdk_err e = !pc || !pu || !po ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory") : SDK_OK;
  if (e == SDK_OK) memset(counts, 0, (size_t)(ng * bins) * sizeof *counts);
  for (int64_t g = 0; g < ng && under; g++)
    under[g] = over[g] = 0;
  for (int s = 0; s < p->nshards && e == SDK_OK; s++) {
    sdk_layout l = shard_layout(p, &p->shard[s]);
    sdk_span sp = sdk_layout_span(&l);
    if (!sdk_paths_local(p, s)) continue;
    e = lo ? p->be->histogram(p->shard[s].ens, var, bins, lo + sp.g0, hi + sp.g0, pc, pu, po, eb)
           : p->be->histogram_mod(p->shard[s].ens, var, bins, period, pc, eb);
    for (int64_t g = sp.g0; g < sp.g1 && e == SDK_OK; g++) {
      for (int64_t b = 0; b < bins; b++)
        counts[g * bins + b] += pc[(g - sp.g0) * bins + b];
      if (under) under[g] += pu[g - sp.g0], over[g] += po[g - sp.g0];
    }
  }
  if (e == SDK_OK)
    e = sdk_comm_allreduce(p->comm, counts, ng * bins, SDK_COMM_U64, SDK_COMM_SUM, eb);
  if (e == SDK_OK && under)
    e = sdk_comm_allreduce(p->comm, under, ng, SDK_COMM_U64, SDK_COMM_SUM, eb);
  if (e == SDK_OK && under)
    e = sdk_comm_allreduce(p->comm, over, ng, SDK_COMM_U64, SDK_COMM_SUM, eb);
  /* with a carry: the counts of the earlier windows added (the bins must be
   * the same in every window: the observables refuse ranges from the data) */
  uint64_t *slot = NULL;
  if (e == SDK_OK && p->carry)
    e = carried(p, (size_t)(ng * bins + 2 * ng) * sizeof *slot, (void **)&slot, NULL, eb);
  for (int64_t i = 0; slot && e == SDK_OK && i < ng * bins; i++)
    slot[i] = counts[i] += slot[i];
  for (int64_t g = 0; slot && under && e == SDK_OK && g < ng; g++) {
    slot[ng * bins + g] = under[g] += slot[ng * bins + g];
    slot[ng * bins + ng + g] = over[g] += slot[ng * bins + ng + g];
  }
  free(pc);
  free(pu);
  free(po);
  return e;
}

sdk_err sdk_paths_histogram(const sdk_paths *p, int var, int64_t bins, const double *lo,
                            const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                            sdk_errbuf *eb) {
  return gather_counts(p, var, bins, lo, hi, 0, counts, under, over, eb);
}

sdk_err sdk_paths_histogram_mod(const sdk_paths *p, int var, int64_t bins, double period,
                                uint64_t *counts, sdk_errbuf *eb) {
  if (!p->be->histogram_mod)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "backend %s has no periodic histogram", p->be->name);
  return gather_counts(p, var, bins, NULL, NULL, period, counts, NULL, NULL, eb);
}

int sdk_paths_carried_rows(const sdk_paths *p) {
  return p->carried;
}

/* Rows of [first, first + n) shard by shard: read where held, then moved
 * from the holder to every rank (to = -1) or to rank `to`; written where
 * held. */
static sdk_err rows_at(const sdk_paths *p, int row, int64_t first, int64_t n, double *buf,
                       int write, int to, sdk_errbuf *eb) {
  int me = sdk_comm_rank(p->comm), one = !p->owner || sdk_comm_size(p->comm) == 1;
  for (int s = 0; s < p->nshards && n > 0; s++) {
    const sdk_shard *sh = &p->shard[s];
    if (first >= sh->end || first + n <= sh->begin) continue;
    int64_t a = first > sh->begin ? first : sh->begin;
    int64_t b = first + n < sh->end ? first + n : sh->end;
    double *at = buf ? buf + (a - first) : NULL;
    int held = sdk_paths_local(p, s);
    if (write || one) {
      if (held) SDK_CHECK(p->be->rows(sh->ens, row, a - sh->begin, b - a, at, write, eb));
      continue;
    }
    /* the holder reads (into a buffer of its own when it is not the
     * receiver), then sends */
    double *src = at, *tmp = NULL;
    if (held && !src && !(src = tmp = malloc((size_t)(b - a) * sizeof *tmp)))
      return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    sdk_err e = held ? p->be->rows(sh->ens, row, a - sh->begin, b - a, src, 0, eb) : SDK_OK;
    int64_t bytes = (b - a) * (int64_t)sizeof *buf;
    if (e == SDK_OK && to < 0)
      e = sdk_comm_bcast(p->comm, at, bytes, p->owner[s], eb);
    else if (e == SDK_OK)
      e = sdk_comm_move(p->comm, me == p->owner[s] ? src : at, bytes, p->owner[s], to, eb);
    free(tmp);
    SDK_CHECK(e);
  }
  return SDK_OK;
}

sdk_err sdk_paths_rows(const sdk_paths *p, int row, int64_t first, int64_t n, double *buf,
                       int write, sdk_errbuf *eb) {
  return rows_at(p, row, first, n, buf, write, -1, eb);
}

sdk_err sdk_paths_rows_root(const sdk_paths *p, int row, int64_t first, int64_t n, double *buf,
                            sdk_errbuf *eb) {
  return rows_at(p, row, first, n, buf, 0, 0, eb);
}

void sdk_rowcache_reset(sdk_rowcache *c) {
  for (int i = 0; i < c->n; i++)
    c->e[i].len = 0;
}

void sdk_rowcache_free(sdk_rowcache *c) {
  for (int i = 0; i < c->n; i++)
    free(c->e[i].buf);
  c->n = 0;
}

sdk_err sdk_paths_rows_cached(const sdk_paths *p, sdk_rowcache *c, int row, int64_t first,
                              int64_t n, double *buf, sdk_errbuf *eb) {
  int64_t total = p->nshards > 0 ? p->shard[p->nshards - 1].end : 0;
  int k = 0;
  while (k < c->n && c->e[k].row != row)
    k++;
  if (k == c->n) { /* a new row: its entry, or none left (read directly) */
    if (c->n == SDK_ROWCACHE_ROWS || n > SDK_ROWCACHE_BLOCK)
      return sdk_paths_rows(p, row, first, n, buf, 0, eb);
    double *b = malloc((size_t)SDK_ROWCACHE_BLOCK * sizeof *b);
    if (!b) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    c->e[c->n].row = row;
    c->e[c->n].buf = b;
    c->e[c->n].len = 0;
    c->n++;
  }
  if (first < c->e[k].first || first + n > c->e[k].first + c->e[k].len) {
    if (n > SDK_ROWCACHE_BLOCK) return sdk_paths_rows(p, row, first, n, buf, 0, eb);
    int64_t len = total - first < SDK_ROWCACHE_BLOCK ? total - first : SDK_ROWCACHE_BLOCK;
    if (len < n) len = n;
    c->e[k].len = 0;
    SDK_CHECK(sdk_paths_rows(p, row, first, len, c->e[k].buf, 0, eb));
    c->e[k].first = first;
    c->e[k].len = len;
  }
  memcpy(buf, c->e[k].buf + (first - c->e[k].first), (size_t)n * sizeof *buf);
  return SDK_OK;
}

/* ---- the carry (paths.h) ---- */

typedef struct carry_slot {
  int64_t step, seq;
  size_t n;
  unsigned char *data;
} carry_slot;

struct sdk_carry {
  int64_t step, seq; /* where the reductions are: the next one's key */
  int64_t nslots, cap, hint;
  carry_slot *slot;
  int64_t ngrid;
  int64_t *used, *bad, *bad_step;
};

sdk_carry *sdk_carry_create(void) {
  sdk_carry *c = calloc(1, sizeof *c);
  if (c) c->step = -1;
  return c;
}

void sdk_carry_destroy(sdk_carry **cp) {
  if (!cp || !*cp) return;
  sdk_carry *c = *cp;
  for (int64_t i = 0; i < c->nslots; i++)
    free(c->slot[i].data);
  free(c->slot), free(c->used), free(c->bad), free(c->bad_step);
  free(c);
  *cp = NULL;
}

void sdk_carry_begin(sdk_carry *c) {
  c->step = -1, c->seq = 0, c->hint = 0;
}

void sdk_carry_step(sdk_carry *c, int64_t step) {
  if (step != c->step) c->step = step, c->seq = 0;
}

sdk_err sdk_carry_slot(sdk_carry *c, size_t n, void **out, int *fresh, sdk_errbuf *eb) {
  int64_t seq = c->seq++;
  /* the slots come in the order they were made: the next one, mostly */
  for (int64_t j = 0; j < c->nslots; j++) {
    carry_slot *s = &c->slot[(c->hint + j) % c->nslots];
    if (s->step != c->step || s->seq != seq) continue;
    if (s->n != n)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                      "the carried reduction %lld at step %lld has another size: the windows "
                      "of paths run different programs",
                      (long long)seq, (long long)c->step);
    c->hint = (c->hint + j + 1) % c->nslots;
    *out = s->data, *fresh = 0;
    return SDK_OK;
  }
  if (c->nslots == c->cap) {
    int64_t cap = c->cap ? 2 * c->cap : 16;
    carry_slot *ns = realloc(c->slot, (size_t)cap * sizeof *ns);
    if (!ns) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    c->slot = ns, c->cap = cap;
  }
  carry_slot *s = &c->slot[c->nslots];
  if (!(s->data = calloc(n ? n : 1, 1))) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  s->step = c->step, s->seq = seq, s->n = n;
  c->nslots++;
  c->hint = c->nslots % c->nslots;
  *out = s->data, *fresh = 1;
  return SDK_OK;
}

sdk_err sdk_carry_size(sdk_carry *c, int64_t ngrid, sdk_errbuf *eb) {
  if (c->used) {
    if (c->ngrid != ngrid)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "the carry holds %lld grid points, the run %lld",
                      (long long)c->ngrid, (long long)ngrid);
    return SDK_OK;
  }
  c->used = calloc((size_t)(ngrid > 0 ? ngrid : 1), sizeof *c->used);
  c->bad = calloc((size_t)(ngrid > 0 ? ngrid : 1), sizeof *c->bad);
  c->bad_step = calloc((size_t)(ngrid > 0 ? ngrid : 1), sizeof *c->bad_step);
  if (!c->used || !c->bad || !c->bad_step) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  c->ngrid = ngrid;
  return SDK_OK;
}

int64_t *sdk_carry_used(sdk_carry *c) {
  return c->used;
}
int64_t *sdk_carry_bad(sdk_carry *c) {
  return c->bad;
}
int64_t *sdk_carry_bad_step(sdk_carry *c) {
  return c->bad_step;
}

/* bytes: "SDKCARY1", step, seq, ngrid, used, bad, bad_step [ngrid], nslots,
 * then per slot step, seq, n and its n bytes (i64 little-endian as in memory:
 * checkpoints are read on the machine kind that wrote them) */
static void put(unsigned char **at, const void *v, size_t n) {
  if (n) memcpy(*at, v, n);
  *at += n;
}

sdk_err sdk_carry_pack(const sdk_carry *c, unsigned char **buf, size_t *len, sdk_errbuf *eb) {
  size_t n = 8 + 24 + 24 * (size_t)c->ngrid + 8;
  for (int64_t i = 0; i < c->nslots; i++)
    n += 24 + c->slot[i].n;
  unsigned char *b = malloc(n), *at = b;
  if (!b) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int64_t head[4] = {c->step, c->seq, c->ngrid, c->nslots};
  put(&at, "SDKCARY1", 8);
  put(&at, head, 24);
  put(&at, c->used, 8 * (size_t)c->ngrid);
  put(&at, c->bad, 8 * (size_t)c->ngrid);
  put(&at, c->bad_step, 8 * (size_t)c->ngrid);
  put(&at, &head[3], 8);
  for (int64_t i = 0; i < c->nslots; i++) {
    int64_t h[3] = {c->slot[i].step, c->slot[i].seq, (int64_t)c->slot[i].n};
    put(&at, h, 24);
    put(&at, c->slot[i].data, c->slot[i].n);
  }
  *buf = b, *len = n;
  return SDK_OK;
}

static int take(const unsigned char **at, const unsigned char *end, void *v, size_t n) {
  if ((size_t)(end - *at) < n) return 0;
  if (n) memcpy(v, *at, n);
  *at += n;
  return 1;
}

sdk_err sdk_carry_unpack(sdk_carry *c, const unsigned char *buf, size_t len, sdk_errbuf *eb) {
  const unsigned char *at = buf, *end = buf + len;
  char magic[8];
  int64_t head[4], ns;
  if (!take(&at, end, magic, 8) || memcmp(magic, "SDKCARY1", 8) || !take(&at, end, head, 24) ||
      head[2] < 0 || (uint64_t)head[2] > len / 24)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint is corrupt (carried reductions)");
  SDK_CHECK(sdk_carry_size(c, head[2], eb));
  int ok = take(&at, end, c->used, 8 * (size_t)head[2]) &&
           take(&at, end, c->bad, 8 * (size_t)head[2]) &&
           take(&at, end, c->bad_step, 8 * (size_t)head[2]) && take(&at, end, &ns, 8) && ns >= 0 &&
           (uint64_t)ns <= len / 24;
  c->step = head[0], c->seq = head[1];
  for (int64_t i = 0; ok && i < ns; i++) {
    int64_t h[3];
    ok = take(&at, end, h, 24) && h[2] >= 0 && (uint64_t)h[2] <= (uint64_t)(end - at);
    void *slot;
    int fresh;
    int64_t step = c->step, seq = c->seq;
    if (!ok) break;
    c->step = h[0], c->seq = h[1];
    SDK_CHECK(sdk_carry_slot(c, (size_t)h[2], &slot, &fresh, eb));
    c->step = step, c->seq = seq;
    ok = fresh && take(&at, end, slot, (size_t)h[2]);
  }
  if (!ok || at != end)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint is corrupt (carried reductions)");
  return SDK_OK;
}

void sdk_paths_held(const sdk_paths *p, int64_t g, int64_t *first, int64_t *n) {
  *first = p->first ? p->first[g] : 0;
  *n = p->count ? p->count[g] : p->ppg;
}

int64_t sdk_paths_used(const sdk_paths *p, int64_t g) {
  int64_t first, n;
  sdk_paths_held(p, g, &first, &n);
  return n + (p->carry && p->carry->used ? p->carry->used[g] : 0);
}
