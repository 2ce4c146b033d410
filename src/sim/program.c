/* The program stage: the kernel source for the plan, the backend, the
 * compiled module and the paths' state (sim/run_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "core/strbuf.h"
#include "sim/checkpoint.h"
#include "sim/registry.h"
#include "sim/run_internal.h"

static sdk_backend_opts backend_opts(const sdk_run_config *c) {
  sdk_backend_opts bo = {.threads = c->threads,
                         .device = c->device,
                         .fast_math = c->fast_math,
                         .cache_max = c->cache_max,
                         .env = c->env,
                         .tuning = c->tuning,
                         .logger = c->logger};
  return bo;
}

/* the backend asked for; "auto": the GPU where one is usable, else the CPU */
static sdk_err open_backend(const sdk_run_config *c, sdk_plan *p, sdk_errbuf *eb) {
  sdk_backend_opts bo = backend_opts(c);
  if (!strcmp(c->backend, "auto")) {
    p->be = &sdk_backend_cuda;
    if (p->be->open(&bo, &p->ctx, NULL) == SDK_OK) return SDK_OK;
    p->ctx = NULL;
    p->be = &sdk_backend_cpu;
  } else if (!(p->be = sdk_find_backend(c->backend))) {
    return SDK_FAIL(eb, SDK_ERR_USAGE, "unknown backend '%s' (known: cpu, cuda, auto)", c->backend);
  }
  return p->be->open(&bo, &p->ctx, eb);
}

/* the kernel source; it stands for the model, the settings and the build's
 * code generator: a checkpoint continues only the kernel that wrote it */
static sdk_err make_source(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  sdk_codegen_opts o;
  sdk_plan_codegen_opts(p, !strcmp(p->be->name, "cuda") ? SDK_TARGET_CUDA : SDK_TARGET_CPU, &o);
  SDK_CHECK(sdk_codegen(&o, &p->src, eb));
  sdk_hash_hex(p->src, strlen(p->src), p->khash);
  if (c->resume && strcmp(c->resume->kernel_hash, p->khash) != 0)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "checkpoint '%s' was written for another kernel (another build of sdekit, "
                    "model text or backend): finish it with the sdekit and backend that wrote it",
                    c->checkpoint ? c->checkpoint : "?");
  return SDK_OK;
}

/* The shards: c->shards (at least 1) nearly equal runs of whole reduction
 * chunks (observe/paths.h); systems of particles in one. */
static sdk_err cut_shards(sdk_plan *p, sdk_errbuf *eb) {
  int64_t nch = sdk_chunks_per_grid(p->ppg), nk = p->ngrid * nch;
  int64_t n = p->c->shards > 1 && !p->sys.on ? p->c->shards : 1;
  if (n > nk) n = nk;
  if (!(p->shards = calloc((size_t)n, sizeof *p->shards)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  p->nshards = (int)n;
  for (int64_t s = 0; s <= n; s++) {
    int64_t k = nk * s / n, g = k / nch, c = k - g * nch;
    int64_t path = k == nk ? p->ngrid * p->ppg : g * p->ppg + c * SDK_RED_CHUNK;
    if (s < n) p->shards[s].begin = path;
    if (s > 0) p->shards[s - 1].end = path;
  }
  return SDK_OK;
}

/* the paths of the run on the backend, initialised, shard by shard */
static sdk_err make_paths(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  SDK_CHECK(cut_shards(p, eb));
  for (int s = 0; s < p->nshards; s++) {
    sdk_shard *sh = &p->shards[s];
    sdk_layout lay = {.nvars = p->run->model->nvars,
                      .single = c->single,
                      .ngrid = p->ngrid,
                      .ppg = p->ppg,
                      .path0 = sh->begin,
                      .npaths = sh->end - sh->begin,
                      .nsv = p->nsv,
                      .sv = p->sv};
    lay.particles = p->sys.on ? p->sys.particles : 0;
    SDK_CHECK(p->be->alloc(p->ctx, p->mod, &lay, &sh->ens, eb));
    SDK_CHECK(p->be->init(sh->ens, c->seed, eb));
  }
  p->paths = (sdk_paths){.be = p->be,
                         .nshards = p->nshards,
                         .shard = p->shards,
                         .ngrid = p->ngrid,
                         .ppg = p->ppg,
                         .nvars = p->run->model->nvars};
  sdk_codegen_opts o;
  sdk_cg_row_layout rows;
  sdk_plan_codegen_opts(p, !strcmp(p->be->name, "cuda") ? SDK_TARGET_CUDA : SDK_TARGET_CPU, &o);
  sdk_cg_rows(&o, &rows);
  /* (sdk_paths_rows counts the drift mark as row nvars) */
  p->paths.bound_row = rows.bound >= 0 ? rows.bound + 1 : -1;
  return SDK_OK;
}

sdk_err sdk_program_make(sdk_plan *p, sdk_errbuf *eb) {
  sdk_run *r = p->run;
  SDK_CHECK(open_backend(p->c, p, eb));
  p->be->describe(p->ctx, r->device, sizeof r->device);
  r->r.backend = p->be->name;
  SDK_CHECK(make_source(p, eb));
  char report[4400] = "";
  SDK_CHECK(p->be->compile(p->ctx, p->src, r->model->path, &p->mod, report, sizeof report, eb));
  sdk_log(p->c->logger, SDK_LOG_DEBUG, "sdekit: %s\n", report);
  return make_paths(p, eb);
}
