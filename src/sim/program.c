/* The program stage: the kernel source for the plan, the backend, the
 * compiled module and the paths' state (sim/run_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/identity.h"
#include "core/clock.h"
#include "core/strbuf.h"
#include "sim/checkpoint.h"
#include "sim/registry.h"
#include "sim/run_internal.h"
#include "sim/session.h"

static sdk_backend_opts backend_opts(const sdk_run_config *c) {
  int lr = sdk_comm_local_rank(c->comm);
  sdk_backend_opts bo = {.threads = c->threads,
                         .device = c->ndevices > 0 ? c->devices[lr % c->ndevices] : c->device,
                         .by_rank = c->ndevices <= 0 && sdk_comm_local_size(c->comm) > 1,
                         .local_rank = lr,
                         .fast_math = c->fast_math,
                         .cache_max = c->cache_max,
                         .env = c->env,
                         .tuning = c->tuning,
                         .logger = c->logger,
                         .cancel = c->cancel,
                         .cancel_user = c->cancel_user,
                         .shelf = sdk_session_shelf(c->session)};
  return bo;
}

/* the backend asked for; "auto": the backends of auto_rank > 0 from the
 * highest rank down (ties in registry order: the GPU where one is usable,
 * else the CPU), the first that opens, the last one's error the run's */
static sdk_err open_backend(const sdk_run_config *c, sdk_plan *p, sdk_errbuf *eb) {
  sdk_backend_opts bo = backend_opts(c);
  p->be = NULL;
  if (!strcmp(c->backend, "auto")) {
    const sdk_backend *order[SDK_REGISTRY_MAX];
    int n = 0;
    for (int i = 0; sdk_registry_backends[i] && n < SDK_REGISTRY_MAX; i++) {
      const sdk_backend *b = sdk_registry_backends[i];
      int k = b->auto_rank > 0 ? n++ : -1;
      for (; k > 0 && order[k - 1]->auto_rank < b->auto_rank; k--)
        order[k] = order[k - 1];
      if (k >= 0) order[k] = b;
    }
    for (int k = 0; k + 1 < n; k++) {
      p->be = order[k];
      if (p->be->open(&bo, &p->ctx, NULL) == SDK_OK) goto opened;
      p->ctx = NULL;
    }
    if (n > 0) p->be = order[n - 1];
  } else {
    p->be = sdk_find_backend(c->backend);
  }
  if (!p->be) {
    char known[256];
    return SDK_FAIL(eb, SDK_ERR_USAGE, "unknown backend '%s' (known: %s)", c->backend,
                    sdk_registry_backend_names(known, sizeof known, NULL, "auto", ", ", ", "));
  }
  SDK_CHECK(p->be->open(&bo, &p->ctx, eb));
opened:
  /* (a device taken by local rank: one per process) */
  sdk_session_hold(c->session, p->be, &bo, bo.by_rank ? -1 : bo.device);
  return SDK_OK;
}

void sdk_backend_hold(const sdk_run_config *c, const sdk_backend **be, sdk_bctx **ctx) {
  sdk_plan p = {0};
  *be = NULL, *ctx = NULL;
  if (open_backend(c, &p, NULL) == SDK_OK) *be = p.be, *ctx = p.ctx;
}

/* the kernel source; it stands for the model, the settings and the build's
 * code generator: a checkpoint continues only the kernel that wrote it (its
 * identity: the hash of the normalised source, codegen/identity.h) */
static sdk_err make_source(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  sdk_codegen_opts o;
  sdk_plan_codegen_opts(p, p->be->target, &o);
  SDK_CHECK(sdk_codegen(&o, &p->src, eb));
  /* (codegen/identity.h; a session remembers the identities of the sources
   * of its runs, compared whole: sim/session.h) */
  if (!sdk_session_identity(c->session, p->src, p->khash)) {
    SDK_CHECK(sdk_cg_identity(p->src, p->khash, eb));
    sdk_session_identity_put(c->session, p->src, p->khash);
  }
  SDK_CHECK(p->be->build_hash(p->ctx, p->khash, p->bhash, eb));
  if (c->resume && strcmp(c->resume->kernel_hash, p->bhash) != 0) {
    /* (the defaults of --max-lag and --psd-segment follow the run's length,
     * and so does the kernel of a run that has acf or psd) */
    int lag = 0;
    for (int i = 0; i < p->nobs; i++)
      lag |= (!strcmp(p->obs[i].type->name, "acf") && c->obs.max_lag == 0) ||
             (!strcmp(p->obs[i].type->name, "psd") && c->obs.psd_segment == 0);
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "checkpoint '%s' was written for another kernel (another build of sdekit, "
                    "model text or backend, or the kernel compiled by another compiler, with "
                    "other flags or for another processor or GPU): finish it where and as it "
                    "was started%s",
                    c->checkpoint ? c->checkpoint : "?",
                    lag ? "; with acf or psd the default --max-lag and --psd-segment follow the "
                          "run's length, so --t-end/--periods can extend such a run only when "
                          "they were given when it started"
                        : "");
  }
  return SDK_OK;
}

/* The system driver's unit (`unit` particles of a system from its start,
 * backend.h sys_unit) that begins at global particle b, or -1 when none does. */
static int64_t sys_chunk_at(const sdk_plan *p, int64_t unit, int64_t b) {
  int64_t N = p->sys.particles, nch = (N + unit - 1) / unit;
  if (b >= p->ngrid * p->ppg) return p->ngrid * p->ppg / N * nch;
  return (b % N) % unit ? -1 : b / N * nch + (b % N) / unit;
}

/* Systems over R ranks (mean field): one shard per rank, each cut where a
 * reduction chunk and a unit of the system driver begin together, as near
 * to equal as that allows; xchunks: the driver's units per rank. */
static sdk_err cut_systems(sdk_plan *p, int R, sdk_errbuf *eb) {
  const sdk_model *m = p->run->model;
  if (m->npair > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "systems with [pair] terms (all pairs) do not span MPI ranks: every step "
                    "would need every particle on every rank; run them with one rank (%d were "
                    "started), or write the coupling as [meanfield]",
                    R);
  int64_t unit = p->be->sys_unit ? p->be->sys_unit(p->ctx, p->mod, p->sys.particles) : 0;
  if (unit < 1)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "these systems cannot span MPI ranks on the %s backend; run them with one "
                    "rank (%d were started)",
                    p->be->name, R);
  int64_t nch = sdk_chunks_per_grid(p->ppg), nk = p->ngrid * nch, total = p->ngrid * p->ppg;
  p->nshards = R;
  p->shards = calloc((size_t)R, sizeof *p->shards);
  p->owner = calloc((size_t)R, sizeof *p->owner);
  p->xchunks = calloc((size_t)R, sizeof *p->xchunks);
  if (!p->shards || !p->owner || !p->xchunks) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  /* the places a shard may begin, in order: the candidates */
  int64_t nc = 0, *cand = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *cand);
  if (!cand) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int64_t k = 1; k < nk; k++) {
    int64_t g = k / nch, b = g * p->ppg + (k - g * nch) * SDK_RED_CHUNK;
    if (sys_chunk_at(p, unit, b) >= 0) cand[nc++] = b;
  }
  /* rank r ends at the candidate nearest to (r + 1) total / R, leaving one
   * for each rank after it */
  int64_t at = 0;
  sdk_err e = SDK_OK;
  for (int r = 0; r < R && e == SDK_OK; r++) {
    p->owner[r] = r;
    p->shards[r].begin = r == 0 ? 0 : p->shards[r - 1].end;
    int64_t target = total / R * (r + 1) + (total % R) * (r + 1) / R, end = total;
    if (r < R - 1) {
      int64_t last = nc - (R - 1 - r); /* the latest candidate this rank may end at */
      if (at > last) {
        e = SDK_FAIL(eb, SDK_ERR_USAGE,
                     "%lld particles of systems of %lld cannot be cut into %d shards on whole "
                     "units of %lld: use fewer ranks, or more particles",
                     (long long)total, (long long)p->sys.particles, R, (long long)unit);
        break;
      }
      while (at < last && llabs(cand[at + 1] - target) <= llabs(cand[at] - target))
        at++;
      end = cand[at++];
    }
    p->shards[r].end = end;
    p->xchunks[r] = sys_chunk_at(p, unit, end) - sys_chunk_at(p, unit, p->shards[r].begin);
  }
  free(cand);
  return e;
}

/* A window of the paths (run.h): the chunks it holds, of the active grid
 * points in order, cut into n nearly equal runs like the whole run's (each
 * run of chunks then cut again where a grid point's part ends), run k on
 * rank k R / n: shards [g * key_ppg + first[g], + count[g]) and their pieces. */
static sdk_err cut_window(sdk_plan *p, int R, sdk_errbuf *eb) {
  const sdk_path_window *w = p->c->window;
  int64_t nk = 0, ng = p->ngrid, nact = 0;
  for (int64_t g = 0; g < ng; g++)
    nk += w->count[g] / SDK_RED_CHUNK, nact += w->count[g] > 0;
  int64_t n = p->c->shards > R ? p->c->shards : R;
  if (n > nk) n = nk;
  int64_t most = n + nact;
  if (!(p->shards = calloc((size_t)(most > 0 ? most : 1), sizeof *p->shards)) ||
      !(p->owner = calloc((size_t)(most > 0 ? most : 1), sizeof *p->owner)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int64_t g = 0, at = 0; /* the window's chunk `at` is chunk `at - base` of grid point g's part */
  int64_t base = 0, ns = 0;
  for (int64_t r = 0; r < n; r++) {
    int64_t end = nk * (r + 1) / n;
    while (at < end) {
      while (w->count[g] / SDK_RED_CHUNK <= at - base)
        base += w->count[g] / SDK_RED_CHUNK, g++;
      int64_t part_end = base + w->count[g] / SDK_RED_CHUNK, stop = end < part_end ? end : part_end;
      int64_t b = g * w->key_ppg + w->first[g] + (at - base) * SDK_RED_CHUNK;
      p->shards[ns].begin = b;
      p->shards[ns].end = b + (stop - at) * SDK_RED_CHUNK;
      p->owner[ns++] = (int)(r * R / n);
      at = stop;
    }
  }
  p->nshards = (int)ns;
  return SDK_OK;
}

/* The shards: nearly equal runs of whole reduction chunks (observe/paths.h),
 * c->shards of them or one per rank if more, the ranks' in rank order;
 * systems of particles in one, or one per rank (cut_systems). */
static sdk_err cut_shards(sdk_plan *p, sdk_errbuf *eb) {
  int64_t nch = sdk_chunks_per_grid(p->ppg), nk = p->ngrid * nch;
  int R = sdk_comm_size(p->c->comm);
  if (p->sys.on && R > 1) return cut_systems(p, R, eb);
  if (p->c->window) return cut_window(p, R, eb);
  int64_t n = p->sys.on ? 1 : p->c->shards > R ? p->c->shards : R;
  if (n > nk) n = nk;
  if (!(p->shards = calloc((size_t)n, sizeof *p->shards)) ||
      !(p->owner = calloc((size_t)n, sizeof *p->owner)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  p->nshards = (int)n;
  for (int64_t s = 0; s <= n; s++) {
    int64_t k = nk * s / n, g = k / nch, c = k - g * nch;
    int64_t path = k == nk ? p->ngrid * p->ppg : g * p->ppg + c * SDK_RED_CHUNK;
    if (s < n) p->shards[s].begin = path;
    if (s > 0) p->shards[s - 1].end = path;
    /* rank r holds the shards [ceil(r n / R), ceil((r + 1) n / R)) */
    if (s < n) p->owner[s] = (int)((s * R) / n);
  }
  return SDK_OK;
}

/* the paths of the run on the backend, initialised, shard by shard */
static sdk_err make_paths(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  SDK_CHECK(cut_shards(p, eb));
  SDK_CHECK(sdk_plan_delays(p, eb));
  SDK_CHECK(sdk_plan_host_rows(p, eb));
  int me = sdk_comm_rank(c->comm), carried = -1;
  for (int s = 0; s < p->nshards; s++) {
    sdk_shard *sh = &p->shards[s];
    if (p->owner[s] != me) continue;
    sdk_layout lay = {.nvars = p->run->model->nvars,
                      .single = c->single,
                      .ngrid = p->ngrid,
                      .ppg = p->ppg,
                      .path0 = sh->begin,
                      .npaths = sh->end - sh->begin,
                      .nsv = p->nsv,
                      .sv = p->sv};
    lay.particles = p->sys.on ? p->sys.particles : 0;
    if (p->xchunks) lay.comm = c->comm, lay.xchunks = p->xchunks;
    lay.zero = sdk_init_given(c);
    SDK_CHECK(p->be->alloc(p->ctx, p->mod, &lay, &sh->ens, eb));
    SDK_CHECK(sdk_program_upload_init(p, sh, eb));
    SDK_CHECK(p->be->init(sh->ens, c->seed, eb));
    SDK_CHECK(sdk_path_params_write(p, sh, eb));
    carried = p->be->carried_rows(sh->ens);
  }

  p->paths = (sdk_paths){.be = p->be,
                         .nshards = p->nshards,
                         .shard = p->shards,
                         .ngrid = p->ngrid,
                         .ppg = p->ppg,
                         .nvars = p->run->model->nvars,
                         .carried = carried,
                         .comm = c->comm,
                         .owner = p->owner};
  if (c->window) {
    p->paths.first = c->window->first, p->paths.count = c->window->count;
    if (c->carry) SDK_CHECK(sdk_carry_size(c->carry, p->ngrid, eb));
    p->paths.carry = c->carry;
  }
  sdk_codegen_opts o;
  sdk_cg_row_layout rows;
  sdk_plan_codegen_opts(p, p->be->target, &o);
  sdk_cg_rows(&o, &rows);
  /* (sdk_paths_rows counts the drift mark as row nvars) */
  p->paths.bound_row = rows.bound >= 0 ? rows.bound + 1 : -1;
  p->octx.host_row = rows.nhost > 0 ? rows.host + 1 : -1;
  p->octx.tavg_row = rows.ntavg > 0 ? rows.tavg + 1 : -1;
  p->paths.adapt_row = rows.adapt >= 0 ? rows.adapt + 1 : -1;
  p->paths.event_row = rows.evt >= 0 ? rows.evt + 1 : -1;
  sdk_plan_dt_check_rows(p, &o);
  return SDK_OK;
}

/* A stop request before the first step (sdk_run_config.cancel): nothing
 * exists yet that a checkpoint could hold. */
static int stop_asked(const sdk_run_config *c) {
  return c->cancel && c->cancel(c->cancel_user);
}
static sdk_err stopped(const sdk_plan *p, const char *when, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  if (c->resume && c->checkpoint)
    return SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                    "interrupted %s, before the first step; the checkpoint %s is unchanged; "
                    "continue with: sdekit resume %s",
                    when, c->checkpoint, c->checkpoint);
  return SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                  "interrupted %s, before the first step: nothing to save; run the command again",
                  when);
}

/* The end of a stage before the first step: its error (seb), or the stop
 * message where it was stopped (its own word for it is replaced) or a stop
 * was asked meanwhile. */
static sdk_err stage_end(const sdk_plan *p, sdk_err err, const sdk_errbuf *seb, const char *when,
                         sdk_errbuf *eb) {
  if (err == SDK_ERR_INTERRUPTED || (err == SDK_OK && stop_asked(p->c)))
    return stopped(p, when, eb);
  if (err != SDK_OK && eb) *eb = *seb;
  return err;
}

sdk_err sdk_program_make(sdk_plan *p, sdk_errbuf *eb) {
  sdk_run *r = p->run;
  if (stop_asked(p->c)) return stopped(p, "while preparing the run", eb);
  double t0 = sdk_now_s();
  SDK_CHECK(open_backend(p->c, p, eb));
  p->t_open = sdk_now_s() - t0;
  p->be->describe(p->ctx, r->device, sizeof r->device);
  r->r.backend = p->be->name;
  sdk_errbuf seb = {0};
  double ts = sdk_now_s();
  SDK_CHECK(stage_end(p, make_source(p, &seb), &seb, "while generating the kernel", eb));
  p->t_source = sdk_now_s() - ts;
  char report[4400] = "";
  sdk_errbuf ceb = {0};
  /* in-process ranks (sim/ranks.c) compile one at a time: the first compiles,
   * the others find its kernel in the cache; NVRTC and the compiler see one
   * caller */
  double t1 = sdk_now_s();
  sdk_comm_lock(p->c->comm);
  sdk_err ce = p->be->compile(p->ctx, p->src, p->khash, r->model->path, &p->mod, report,
                              sizeof report, &ceb);
  sdk_comm_unlock(p->c->comm);
  SDK_CHECK(stage_end(p, ce, &ceb, "while compiling the kernel", eb));
  sdk_log(p->c->logger, SDK_LOG_DEBUG, "sdekit: %s\n", report);
  double t2 = sdk_now_s();
  p->t_compile = t2 - t1;
  sdk_err e = make_paths(p, eb);
  p->t_paths = sdk_now_s() - t2;
  return e;
}

/* What must be the same on every rank for their collective steps to match:
 * the kernel (model, scheme, parameters, precision), the sizes, the clock of
 * samples, the seed, the observables, where a resumed run starts; hashed
 * (0 when out of memory: the ranks then refuse rather than risk a mismatch). */
static uint64_t run_fingerprint(const sdk_plan *p) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_printf(&b, "%s %lld %lld %lld %lld %lld %lld %llu %lld", p->khash, (long long)p->ngrid,
                (long long)p->ppg, (long long)p->nsteps, (long long)p->transient_steps,
                (long long)p->sample_every, (long long)p->nsamples_max,
                (unsigned long long)p->c->seed,
                (long long)(p->c->resume ? p->c->resume->step : -1));
  for (int i = 0; i < p->nobs; i++)
    sdk_sb_printf(&b, " %s", p->obs[i].type->name);
  char hex[33] = "0";
  if (!b.oom && b.s) sdk_hash_hex(b.s, strlen(b.s), hex);
  sdk_sb_free(&b);
  return strtoull(hex + 16, NULL, 16); /* the second 64-bit lane */
}

sdk_err sdk_program_share(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_comm *comm = p->c->comm;
  /* the carried rows, from a rank that holds a shard (one may hold none) */
  int64_t cr = p->paths.carried;
  SDK_CHECK(sdk_comm_allreduce(comm, &cr, 1, SDK_COMM_I64, SDK_COMM_MAX, eb));
  p->paths.carried = cr > 0 ? (int)cr : 0;
  /* ranks given different runs (MPMD launches, per-rank scripts) would
   * meet in different collective operations: refuse them, all together */
  uint64_t f = run_fingerprint(p), lo = f, hi = f;
  SDK_CHECK(sdk_comm_allreduce(comm, &lo, 1, SDK_COMM_U64, SDK_COMM_MIN, eb));
  SDK_CHECK(sdk_comm_allreduce(comm, &hi, 1, SDK_COMM_U64, SDK_COMM_MAX, eb));
  if (lo != hi)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "the MPI ranks were given different runs (model, options, sizes or "
                    "checkpoint differ): every rank must run the same command");
  return SDK_OK;
}
