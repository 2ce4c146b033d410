/* Several GPUs from one process (--device all, --device 0,1,...): the run
 * as an in-process team of ranks (core/comm_team.h), one thread per GPU.
 *
 * Each thread runs exactly what one MPI rank runs (sdk_run_rank with its own
 * communicator), so the paths are cut into the ranks' shards as under mpirun
 * and every rank holds bitwise the results of one process (docs/SCALING.md);
 * rank 0 runs on the caller's thread and its results are the run's.  Only
 * rank 0 speaks: the other ranks get no logger, no progress and no cancel
 * hook (a stop request reaches them through the per-chunk agreement of
 * sim/execute.c), so the caller's callbacks are called from its own thread
 * alone, as in a run of one GPU. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/registry.h"
#include "sim/run_internal.h"

/* the backend whose devices --device all means */
static const sdk_backend *device_backend(const sdk_run_config *c) {
  if (strcmp(c->backend, "auto")) return sdk_find_backend(c->backend);
  for (int i = 0; sdk_registry_backends[i]; i++)
    if (sdk_registry_backends[i]->count_devices) return sdk_registry_backends[i];
  return NULL;
}

sdk_err sdk_run_team_size(const sdk_run_config *c, int *n, sdk_errbuf *eb) {
  *n = 1;
  if (c->comm) return SDK_OK; /* MPI ranks: one GPU each, by the local rank */
  if (c->ndevices == SDK_DEVICES_ALL) {
    const sdk_backend *be = device_backend(c);
    if (!be || !be->count_devices)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--device all: the %s backend runs on this machine's cores, not on devices "
                      "(give --backend cuda, or leave --device out)",
                      be ? be->name : c->backend);
    sdk_backend_opts bo = {.env = c->env, .logger = c->logger};
    sdk_errbuf why = {0};
    if (be->count_devices(&bo, n, &why) != SDK_OK)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "--device all: %s", why.msg);
    if (*n > SDK_MAX_DEVICES) *n = SDK_MAX_DEVICES;
    return SDK_OK;
  }
  *n = c->ndevices > 1 ? c->ndevices : c->ranks > 1 ? c->ranks : 1;
  if (c->ndevices > 1) {
    const sdk_backend *be = strcmp(c->backend, "auto") ? sdk_find_backend(c->backend) : NULL;
    if (be && !be->device)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--device %d,...: a list of GPUs, but the %s backend runs on this "
                      "machine's cores (give --backend cuda, or one device)",
                      c->devices[0], be->name);
  }
  return SDK_OK;
}

typedef struct team_rank {
  sdk_run_config c;
  sdk_run *run;
  sdk_err err;
  sdk_errbuf eb;
  struct team *team;
  int rank;
} team_rank;

typedef struct team {
  pthread_mutex_t mu;
  int first_failed; /* the first rank to fail: its error is the run's */
} team;

static void rank_run(team_rank *t) {
  t->err = sdk_run_rank(&t->c, &t->run, &t->eb);
  if (t->err == SDK_OK) return;
  pthread_mutex_lock(&t->team->mu);
  if (t->team->first_failed < 0) t->team->first_failed = t->rank;
  pthread_mutex_unlock(&t->team->mu);
  /* the others may wait for this rank in a collective operation: release them */
  sdk_comm_abort(t->c.comm, 1);
}

static void *rank_thread(void *arg) {
  rank_run(arg);
  return NULL;
}

/* rank 0's "cuda: device 0, NVIDIA H100 ...", and the other ranks' devices */
static void team_device(sdk_run *r0, const team_rank *t, int n) {
  char more[128] = "";
  size_t at = 0;
  const sdk_run_config *c = &t[0].c;
  for (int r = 1; c->ndevices > 1 && r < n && at < sizeof more; r++)
    at += (size_t)snprintf(more + at, sizeof more - at, "%s%d", r > 1 ? "," : " and device(s) ",
                           c->devices[r % c->ndevices]);
  char d[sizeof r0->device];
  snprintf(d, sizeof d, "%s%s (%d in-process ranks)", r0->device, more, n);
  memcpy(r0->device, d, sizeof d);
}

sdk_err sdk_run_team(const sdk_run_config *c, int n, sdk_run **out, sdk_errbuf *eb) {
  *out = NULL;
  sdk_comm **comms;
  SDK_CHECK(sdk_comm_team_create(n, &comms, eb));
  team tm = {.first_failed = -1};
  pthread_mutex_init(&tm.mu, NULL);
  team_rank *t = calloc((size_t)n, sizeof *t);
  pthread_t *th = calloc((size_t)n, sizeof *th);
  int *started = calloc((size_t)n, sizeof *started);
  sdk_err err = !t || !th || !started ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory") : SDK_OK;
  for (int r = 0; err == SDK_OK && r < n; r++) {
    t[r] = (team_rank){.c = *c, .team = &tm, .rank = r};
    t[r].c.comm = comms[r];
    if (c->ndevices == SDK_DEVICES_ALL) {
      t[r].c.ndevices = n;
      for (int d = 0; d < n; d++)
        t[r].c.devices[d] = d;
    }
    if (r > 0) {
      t[r].c.logger = NULL;
      t[r].c.progress = NULL;
      t[r].c.cancel = NULL;
    }
  }
  for (int r = 1; err == SDK_OK && r < n; r++) {
    started[r] = pthread_create(&th[r], NULL, rank_thread, &t[r]) == 0;
    if (!started[r]) {
      err = SDK_FAIL(eb, SDK_ERR_BACKEND, "could not start the thread of rank %d of %d", r, n);
      sdk_comm_abort(comms[0], 1);
    }
  }
  if (err == SDK_OK) rank_run(&t[0]);
  for (int r = 1; r < n; r++)
    if (started && started[r]) pthread_join(th[r], NULL);
  if (err == SDK_OK && tm.first_failed >= 0) {
    const team_rank *f = &t[tm.first_failed];
    err = f->err;
    if (eb) {
      *eb = f->eb;
      if (f->eb.alone)
        snprintf(eb->msg, sizeof eb->msg, "rank %d (of %d in this process): %s", f->rank, n,
                 f->eb.msg);
      eb->alone = 0; /* every rank has stopped */
    }
  }
  if (err == SDK_OK) {
    team_device(t[0].run, t, n);
    *out = t[0].run;
    t[0].run = NULL;
  }
  for (int r = 0; t && r < n; r++)
    sdk_run_destroy(&t[r].run);
  free(t);
  free(th);
  free(started);
  pthread_mutex_destroy(&tm.mu);
  sdk_comm_team_destroy(&comms);
  return err;
}
