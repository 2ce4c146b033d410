/* A run's state to and from a checkpoint (sim/checkpoint.h has the file):
 * the paths' state rows on the backend, the sample clock, and every
 * observable's sample count and sampled datasets (observe/observable.h: a
 * dataset belongs to the observable whose name is its first path element). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/checkpoint.h"
#include "sim/run_internal.h"

/* does dataset d belong to observable o (path "NAME/...")? */
static int owns(const sdk_obs *o, const sdk_dataset *d) {
  size_t n = strlen(o->type->name);
  return !strncmp(d->path, o->type->name, n) && d->path[n] == '/';
}

/* copy `ns` samples of every outer block between sample axes of length
 * dst_ns and src_ns (elements of 8 bytes, `inner` of them per sample) */
static void copy_samples(void *dst, int64_t dst_ns, const void *src, int64_t src_ns, int64_t ns,
                         int64_t outer, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    memcpy((char *)dst + (size_t)(o * dst_ns * inner) * 8,
           (const char *)src + (size_t)(o * src_ns * inner) * 8, (size_t)(ns * inner) * 8);
}

static int64_t outer_of(const int64_t *dims, int axis) {
  int64_t n = 1;
  for (int i = 0; i < axis; i++)
    n *= dims[i];
  return n;
}

/* the sampled datasets of the run's observables, their first samples */
static sdk_err save_datasets(const sdk_plan *p, sdk_ckpt *k, sdk_errbuf *eb) {
  const sdk_store *S = &p->run->r.store;
  k->ds = calloc((size_t)(S->n > 0 ? S->n : 1), sizeof *k->ds);
  if (!k->ds) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing a checkpoint");
  for (int i = 0; i < p->nobs; i++)
    for (int j = 0; j < S->n; j++) {
      const sdk_dataset *d = S->ds[j];
      if (d->sample_axis < 0 || !owns(&p->obs[i], d)) continue;
      sdk_ckpt_ds *c = &k->ds[k->nds++];
      int64_t ns = p->obs[i].nsamples, inner = sdk_ds_sample_stride(d);
      c->path = (char *)d->path;
      c->type = (int)d->type;
      c->rank = d->rank;
      memcpy(c->dims, d->dims, sizeof d->dims);
      c->dims[d->sample_axis] = ns;
      int64_t outer = outer_of(d->dims, d->sample_axis);
      c->data = malloc((size_t)(outer * ns * inner > 0 ? outer * ns * inner : 1) * 8);
      if (!c->data) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing a checkpoint");
      copy_samples(c->data, ns, d->data, d->dims[d->sample_axis], ns, outer, inner);
    }
  return SDK_OK;
}

/* The paths a checkpoint holds: all, or a window's (grid point by grid
 * point in path order, the same whatever the cut into shards and ranks). */
static int64_t ckpt_paths(const sdk_plan *p) {
  if (!p->c->window) return p->ngrid * p->ppg;
  int64_t n = 0;
  for (int64_t g = 0; g < p->ngrid; g++)
    n += p->c->window->count[g];
  return n;
}

/* Row `row` of the paths a checkpoint holds: read into rank 0's buf (write
 * = 0) or written from buf (write = 1). */
static sdk_err ckpt_rows(const sdk_plan *p, int row, double *buf, int write, sdk_errbuf *eb) {
  const sdk_path_window *w = p->c->window;
  int64_t at = 0;
  for (int64_t g = 0; g < (w ? p->ngrid : 1); g++) {
    int64_t first = w ? g * p->ppg + w->first[g] : 0, n = w ? w->count[g] : ckpt_paths(p);
    if (n == 0) continue;
    double *b = buf ? buf + at : NULL;
    SDK_CHECK(write ? sdk_paths_rows(&p->paths, row, first, n, b, 1, eb)
                    : sdk_paths_rows_root(&p->paths, row, first, n, b, eb));
    at += n;
  }
  return SDK_OK;
}

/* the paths' state: the variables, the drift mark, the compensated update's
 * rows; several ranks: gathered to rank 0 (`root`), which alone allocates
 * (and says whether it could before anything moves) */
static sdk_err save_state(const sdk_plan *p, sdk_ckpt *k, int root, sdk_errbuf *eb) {
  int64_t nv = k->nvars, np = ckpt_paths(p);
  k->ncomp = sdk_paths_carried_rows(&p->paths);
  int64_t ok = 1;
  if (root) {
    k->state = calloc((size_t)(nv + 1) * (size_t)np, sizeof(double));
    if (k->ncomp) k->comp = malloc((size_t)k->ncomp * (size_t)np * sizeof(double));
    ok = k->state && (!k->ncomp || k->comp);
  }
  SDK_CHECK(sdk_comm_bcast(p->c->comm, &ok, sizeof ok, 0, eb));
  if (!ok) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing a checkpoint");
  for (int v = 0; v < nv + (p->marked ? 1 : 0); v++)
    SDK_CHECK(ckpt_rows(p, v, root ? k->state + (size_t)v * (size_t)np : NULL, 0, eb));
  for (int v = 0; v < k->ncomp; v++)
    SDK_CHECK(ckpt_rows(p, (int)nv + 1 + v, root ? k->comp + (size_t)v * (size_t)np : NULL, 0, eb));
  return SDK_OK;
}

/* Collective over the ranks: the state gathered to rank 0, which writes the
 * one file (atomically, as ever) and tells every rank how that went. */
sdk_err sdk_ckpt_save_run(const sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  const sdk_model *m = p->run->model;
  int root = sdk_comm_rank(c->comm) == 0;
  sdk_ckpt k;
  memset(&k, 0, sizeof k);
  k.version = (char *)SDK_VERSION;
  k.abi = SDK_KERNEL_ABI;
  k.kernel_hash = (char *)p->bhash;
  k.argc = c->argc;
  k.argv = c->argv;
  k.model_text = m->text;
  k.model_path = m->path;
  k.step = p->step;
  k.nvars = m->nvars, k.ngrid = p->ngrid, k.ppg = p->ppg;
  if (c->window) k.ngrid = 1, k.ppg = ckpt_paths(p);
  k.nsamples = p->isample, k.has_mark = p->marked;
  k.sample_step = p->sample_step;
  k.sample_every = p->sampling && !p->sample_steps ? p->sample_every : 0;
  sdk_ckpt_obs obs[SDK_MAX_OBSERVABLES];
  for (int i = 0; i < p->nobs; i++)
    obs[i] = (sdk_ckpt_obs){(char *)p->obs[i].type->name, p->obs[i].nsamples};
  k.nobs = p->nobs;
  k.obs = obs;
  sdk_err err = save_state(p, &k, root, eb);
  /* a run in batches: the carried reductions so far and the driver's state */
  size_t ncarry = 0;
  if (err == SDK_OK && root && p->paths.carry)
    err = sdk_carry_pack(p->paths.carry, (unsigned char **)&k.carry, &ncarry, eb);
  k.ncarry = ncarry;
  k.target = (void *)c->target_state, k.ntarget = c->ntarget_state;
  if (err == SDK_OK && root) err = save_datasets(p, &k, eb);
  if (err == SDK_OK && root) err = sdk_ckpt_write(&k, c->checkpoint, eb);
  free(k.state);
  free(k.comp);
  free(k.carry);
  for (int i = 0; i < k.nds; i++)
    free(k.ds[i].data);
  free(k.ds);
  if (c->comm && sdk_comm_size(c->comm) > 1 && (err == SDK_OK || root)) {
    /* rank 0's outcome, with its message, on every rank */
    struct {
      int64_t e;
      char msg[sizeof eb->msg];
    } r = {err, ""};
    if (root && err != SDK_OK && eb) memcpy(r.msg, eb->msg, sizeof r.msg);
    SDK_CHECK(sdk_comm_bcast(c->comm, &r, sizeof r, 0, eb));
    err = (sdk_err)r.e;
    if (!root && err != SDK_OK && eb) {
      memcpy(eb->msg, r.msg, sizeof eb->msg);
      eb->msg[sizeof eb->msg - 1] = 0;
    }
  }
  return err;
}

#define MISMATCH(what)                                                                             \
  SDK_FAIL(eb, SDK_ERR_FORMAT, "the checkpoint does not match this run's layout%s", what)

/* does the checkpoint's layout fit this run? */
static sdk_err check_layout(const sdk_plan *p, const sdk_ckpt *k, sdk_errbuf *eb) {
  int mark = 0;
  for (int i = 0; i < p->nobs; i++)
    mark |= p->obs[i].type->transient_end != NULL;
  int64_t ngrid = p->c->window ? 1 : p->ngrid, ppg = p->c->window ? ckpt_paths(p) : p->ppg;
  if (k->nvars != p->run->model->nvars || k->ngrid != ngrid || k->ppg != ppg ||
      k->step > p->nsteps || k->nsamples > p->nsamples_max || (!p->sampling && k->nsamples > 0) ||
      (k->has_mark && !mark) || (k->has_mark && k->step < p->transient_steps) ||
      (!k->has_mark && mark && k->step > p->transient_steps) ||
      (k->nsamples > 0 && k->sample_step[k->nsamples - 1] > k->step) ||
      k->ncomp != sdk_paths_carried_rows(&p->paths) || k->nobs != p->nobs)
    return MISMATCH("");
  /* --sample-times: the samples taken are the first of this run's */
  for (int64_t s = 0; p->sample_steps && s < k->nsamples; s++)
    if (k->sample_step[s] != p->sample_steps[s]) return MISMATCH(" (sample times)");
  /* every --sample-every: the samples taken are this run's multiples of it
   * up to the checkpoint's step (the one at that step may be still to take),
   * else the run would miss some or sample at another pace from here on */
  if (p->sampling && !p->sample_steps) {
    /* (divisions, not products: an interval read from the file cannot overflow) */
    const int64_t se = p->sample_every, below = k->step / se + (k->step % se != 0);
    int ok = k->nsamples >= below && k->nsamples <= k->step / se + 1;
    for (int64_t s = 0; ok && s < k->nsamples; s++)
      ok = k->sample_step[s] % se == 0 && k->sample_step[s] / se == s;
    if (!ok) {
      const int64_t was = k->sample_every > 0 ? k->sample_every
                          : k->nsamples >= 2  ? k->sample_step[1] - k->sample_step[0]
                                              : 0;
      char hint[48] = "";
      if (was > 0) snprintf(hint, sizeof hint, ", --sample-every %lld", (long long)was);
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "the checkpoint's %lld samples (to step %lld) were not taken every %lld "
                      "steps, this run's sample interval: resume with the interval it was "
                      "sampled at%s (or with its own --t-end/--periods)",
                      (long long)k->nsamples, (long long)k->step, (long long)se, hint);
    }
  }
  return SDK_OK;
}

/* dataset d of the run from the checkpoint's copy with `ns` samples */
static sdk_err restore_dataset(sdk_dataset *d, const sdk_ckpt *k, int64_t ns, sdk_errbuf *eb) {
  const sdk_ckpt_ds *c = NULL;
  for (int i = 0; i < k->nds && !c; i++)
    if (!strcmp(k->ds[i].path, d->path)) c = &k->ds[i];
  if (!c) return ns == 0 ? SDK_OK : MISMATCH(" (missing observable data)");
  if (c->type != (int)d->type || c->rank != d->rank || c->dims[d->sample_axis] != ns ||
      ns > d->dims[d->sample_axis])
    return MISMATCH(" (observable data)");
  for (int i = 0; i < d->rank; i++)
    if (i != d->sample_axis && c->dims[i] != d->dims[i]) return MISMATCH(" (observable data)");
  /* sample steps (GROUP/step) must be steps that were taken, in order */
  size_t n = strlen(d->path);
  if (d->type == SDK_I64 && n >= 5 && !strcmp(d->path + n - 5, "/step") && d->rank == 1)
    for (int64_t s = 0; s < ns; s++) {
      int64_t v = ((const int64_t *)c->data)[s];
      if (v < 0 || v > k->step || (s > 0 && v <= ((const int64_t *)c->data)[s - 1]))
        return SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint is corrupt (sample steps of %s)", d->path);
    }
  copy_samples(d->data, d->dims[d->sample_axis], c->data, ns, ns, outer_of(d->dims, d->sample_axis),
               sdk_ds_sample_stride(d));
  return SDK_OK;
}

static sdk_err restore_observables(sdk_plan *p, const sdk_ckpt *k, sdk_errbuf *eb) {
  sdk_store *S = &p->run->r.store;
  for (int i = 0; i < p->nobs; i++) {
    sdk_obs *o = &p->obs[i];
    const sdk_ckpt_obs *c = NULL;
    for (int j = 0; j < k->nobs && !c; j++)
      if (!strcmp(k->obs[j].name, o->type->name)) c = &k->obs[j];
    if (!c || ((o->type->flags & SDK_OBS_SAMPLED) && c->nsamples != k->nsamples))
      return MISMATCH(" (observables)");
    for (int j = 0; j < S->n; j++)
      if (S->ds[j]->sample_axis >= 0 && owns(o, S->ds[j]))
        SDK_CHECK(restore_dataset(S->ds[j], k, c->nsamples, eb));
    o->nsamples = c->nsamples;
  }
  return SDK_OK;
}

sdk_err sdk_ckpt_restore_run(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_ckpt *k = p->c->resume;
  SDK_CHECK(check_layout(p, k, eb));
  int64_t nv = k->nvars, np = ckpt_paths(p);
  for (int v = 0; v < nv + (k->has_mark ? 1 : 0); v++)
    SDK_CHECK(ckpt_rows(p, v, k->state + (size_t)v * (size_t)np, 1, eb));
  for (int v = 0; v < k->ncomp; v++)
    SDK_CHECK(ckpt_rows(p, (int)nv + 1 + v, k->comp + (size_t)v * (size_t)np, 1, eb));
  SDK_CHECK(restore_observables(p, k, eb));
  p->step = k->step;
  p->marked = (int)k->has_mark;
  p->isample = k->nsamples;
  if (p->sampling) memcpy(p->sample_step, k->sample_step, (size_t)p->isample * sizeof(int64_t));
  return SDK_OK;
}
