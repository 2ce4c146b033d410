/* The execute stage: advance the paths chunk by chunk, sample the
 * observables, check for paths that blew up, write checkpoints and stop when
 * asked (sim/run_internal.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "sim/checkpoint.h"
#include "sim/run_internal.h"

/* Chunks of steps are sized by time (sdk_execute): at most MAX_CHUNK steps,
 * about CHUNK_SECONDS of work, which bounds how soon a stop request (a
 * signal), progress and checkpoints are answered.  The steps where the
 * loop looks for blown-up paths, samples and ends the transient (check_at)
 * do not depend on the chunking: MAX_CHUNK steps after the last of them, or
 * the next sample or the end of the transient if sooner, as when chunks
 * were always MAX_CHUNK steps; a chunk ends at each of them.  Random
 * numbers are keyed by step, so results do not depend on the chunking
 * either. */
#define MAX_CHUNK 1000
#define CHUNK_SECONDS 0.25
#define FLOOR_STEPS 16 /* pace_next */
#define FLOOR_SECONDS 1.0

static int has_transient_end(const sdk_plan *p) {
  for (int i = 0; i < p->nobs; i++)
    if (p->obs[i].type->transient_end) return 1;
  return 0;
}

/* the paths the run integrates (a window's, or all) */
static double held_paths(const sdk_plan *p) {
  double n = 0;
  for (int s = 0; s < p->nshards; s++)
    n += (double)(p->shards[s].end - p->shards[s].begin);
  return n;
}

static sdk_err alloc_run(sdk_plan *p, sdk_errbuf *eb) {
  int64_t ng = p->ngrid, nv = p->run->model->nvars;
  p->mom = malloc((size_t)(ng * nv) * sizeof *p->mom);
  int nk = p->octx.model->nobs > 0 ? p->octx.model->nobs : 1;
  p->omom = malloc((size_t)(ng * nk) * sizeof *p->omom);
  p->nonfinite = malloc((size_t)ng * sizeof *p->nonfinite);
  p->bad = calloc((size_t)ng, sizeof *p->bad);
  p->bad_step = calloc((size_t)ng, sizeof *p->bad_step);
  p->sample_step = calloc((size_t)(p->nsamples_max > 0 ? p->nsamples_max : 1), sizeof(int64_t));
  if (!p->mom || !p->omom || !p->nonfinite || !p->bad || !p->bad_step || !p->sample_step)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the observables");
  p->octx.bad = p->bad;
  return SDK_OK;
}

/* Paths that became NaN/Inf: a grid point whose paths blow up is marked and
 * written as NaN at the end; the others go on (a scan keeps its healthy
 * points); when none is left the run stops at once. */
static sdk_err check_finite(sdk_plan *p, int sample_now, sdk_errbuf *eb) {
  int64_t ng = p->ngrid, nbad = 0;
  /* (systems with phase sums are checked through them instead, in their
   * observables: no pass over the state here) */
  p->octx.moments_now = NULL;
  p->octx.observe_now = NULL;
  /* a sample that reads the moments of the variables or of the user
   * observables: one pass gives them and the counts */
  int moments = 0, observe = 0;
  for (int i = 0; sample_now && i < p->nobs; i++) {
    moments |= (p->obs[i].type->flags & SDK_OBS_MOMENTS_NOW) != 0;
    observe |= (p->obs[i].type->flags & SDK_OBS_OBSERVE_NOW) != 0;
  }
  if (p->sys.on && p->sys.sums_var >= 0) observe = 0;
  if (observe) {
    SDK_CHECK(sdk_paths_observe(&p->paths, p->step, p->octx.model->nobs, p->omom, NULL,
                                moments ? NULL : p->nonfinite, eb));
    p->octx.observe_now = p->omom;
  }
  if (!(p->sys.on && p->sys.sums_var >= 0) && moments) {
    SDK_CHECK(sdk_paths_moments(&p->paths, p->mom, p->nonfinite, eb));
    p->octx.moments_now = p->mom;
  } else if (!(p->sys.on && p->sys.sums_var >= 0)) {
    if (!observe) SDK_CHECK(sdk_paths_nonfinite(&p->paths, p->nonfinite, eb));
  } else {
    memset(p->nonfinite, 0, (size_t)ng * sizeof *p->nonfinite);
  }
  for (int64_t g = 0; g < ng; g++) {
    if (p->nonfinite[g] > 0 && !p->bad[g]) p->bad_step[g] = p->step;
    if (p->nonfinite[g] > p->bad[g]) p->bad[g] = p->nonfinite[g];
    nbad += p->bad[g] > 0;
  }
  if (nbad < ng) return SDK_OK;
  char gp[300];
  sdk_grid_point_name(&p->run->r, 0, gp, sizeof gp);
  /* of the paths run there: a window's key (ppg) is a bound, not a count */
  int64_t *was = p->c->carry && p->c->window ? sdk_carry_bad(p->c->carry) : NULL;
  return SDK_FAIL(eb, SDK_ERR_NONFINITE,
                  "%lld of %lld paths became NaN/Inf at %s by step %lld (t = %g)%s; "
                  "%s may help",
                  (long long)(p->bad[0] + (was ? was[0] : 0)),
                  (long long)sdk_paths_used(&p->paths, 0), gp, (long long)p->bad_step[0],
                  (double)p->bad_step[0] * p->run->dt[0],
                  ng > 1 ? " and so did every other grid point" : "", sdk_plan_smaller_step(p));
}

static sdk_err sample_all(sdk_plan *p, sdk_errbuf *eb) {
  if (p->isample >= p->nsamples_max)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "the checkpoint does not match this run's layout (more samples than %lld)",
                    (long long)p->nsamples_max);
  p->sample_step[p->isample] = p->step;
  for (int i = 0; i < p->nobs; i++)
    if (p->obs[i].type->sample) {
      SDK_CHECK(p->obs[i].type->sample(&p->octx, p->obs[i].state, p->isample, p->step, eb));
      p->obs[i].nsamples = p->isample + 1;
    }
  p->isample++;
  return SDK_OK;
}

static sdk_err transient_over(sdk_plan *p, sdk_errbuf *eb) {
  for (int i = 0; i < p->nobs; i++)
    if (p->obs[i].type->transient_end)
      SDK_CHECK(p->obs[i].type->transient_end(&p->octx, p->obs[i].state, eb));
  p->marked = 1;
  return SDK_OK;
}

/* a checkpoint that cannot be written (disk full, directory gone) must not
 * cost the results: say so once and go on */
static sdk_err checkpoint(sdk_plan *p, int *failed, int64_t *saved, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  sdk_errbuf ceb = {0};
  sdk_err ce = sdk_ckpt_save_run(p, &ceb);
  if (ce == SDK_ERR_IO || ce == SDK_ERR_NOMEM) {
    if (!*failed && c->warn && sdk_comm_rank(c->comm) == 0) {
      char w[1200];
      snprintf(w, sizeof w, "%s; the run goes on without it", ceb.msg);
      c->warn(c->warn_user, w);
    }
    *failed = 1;
    return SDK_OK;
  }
  if (ce != SDK_OK) return SDK_FAIL(eb, ce, "%s", ceb.msg);
  *saved = p->step;
  return SDK_OK;
}

/* stopped by a signal: say where, and how to go on */
static sdk_err interrupted(const sdk_plan *p, int64_t saved, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  double t = (double)p->step * p->run->dt[0];
  long long step = (long long)p->step, n = (long long)p->nsteps;
  if (c->checkpoint && saved == p->step)
    return SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                    "interrupted at step %lld of %lld (t = %g); checkpoint saved to %s; "
                    "continue with: sdekit resume %s",
                    step, n, t, c->checkpoint, c->checkpoint);
  if (c->checkpoint && saved >= 0)
    return SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                    "interrupted at step %lld of %lld (t = %g); the last checkpoint that could "
                    "be written holds step %lld; continue with: sdekit resume %s",
                    step, n, t, (long long)saved, c->checkpoint);
  if (c->checkpoint && p->step == p->step_start)
    return SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                    "interrupted at step %lld of %lld (t = %g), before the first step: nothing "
                    "to save to %s; run the command again",
                    step, n, t, c->checkpoint);
  if (c->checkpoint)
    return SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                    "interrupted at step %lld of %lld (t = %g); no checkpoint could be saved to "
                    "%s, nothing was kept",
                    step, n, t, c->checkpoint);
  return SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                  "interrupted at step %lld of %lld (t = %g); nothing was saved: run with "
                  "--checkpoint FILE to make a run resumable",
                  step, n, t);
}

/* the next step to look at the paths after p->step: MAX_CHUNK steps on, a
 * sample, the end of the transient */
static int64_t next_check(const sdk_plan *p) {
  int64_t step = p->step, next = step + MAX_CHUNK;
  if (p->sample_steps) {
    if (p->isample < p->times.n && p->sample_steps[p->isample] > step &&
        p->sample_steps[p->isample] < next)
      next = p->sample_steps[p->isample];
  } else if (p->sampling) {
    int64_t nsmp = (step / p->sample_every + 1) * p->sample_every;
    if (nsmp < next) next = nsmp;
  }
  if (step < p->transient_steps && p->transient_steps < next) next = p->transient_steps;
  return next > p->nsteps ? p->nsteps : next;
}

static sdk_err advance(sdk_plan *p, int64_t n, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  if (p->sys.on) { /* (systems: one shard, or one per rank: sim/program.c) */
    int s = 0;
    while (s + 1 < p->nshards && !p->shards[s].ens)
      s++;
    return sdk_systems_advance(&p->sys, p->be, p->shards[s].ens, p->step, n, c->seed, p->nobs,
                               p->obs, &p->octx, eb);
  }
  for (int s = 0; s < p->nshards; s++)
    if (p->shards[s].ens) SDK_CHECK(p->be->advance(p->shards[s].ens, p->step, n, c->seed, eb));
  return SDK_OK;
}

/* The loop's state: its clock of checks, the pace of its chunks, its
 * checkpoints. */
typedef struct loop {
  int64_t check_at; /* the next step where the paths are looked at (next_check) */
  int64_t chunk;    /* steps of the next chunk, at most */
  int64_t last;     /* steps of the chunk just done (0: none yet) */
  double began;     /* when it began */
  double last_ckpt; /* when the last checkpoint was written */
  int ckpt_failed;
  int64_t saved; /* the step the checkpoint file holds (-1: none) */
} loop;

/* The next chunk's steps from the time the last one took, checks and
 * samples included: what fits CHUNK_SECONDS at its pace, at most twice its
 * steps (a first chunk of one step, then geometric growth while steps are
 * quick; a slowdown shrinks the next chunk at once).  A chunk that took
 * under CHUNK_SECONDS / 16 may grow eightfold: at its pace the next one
 * still takes under CHUNK_SECONDS / 2, and a short run is not cut into
 * many launches, each waited for (a run of 256 quick steps: 4 chunks, not
 * 9). */
static int64_t pace_next(const loop *L, double now) {
  if (L->last <= 0) return L->chunk;
  double el = now - L->began;
  double fit = el > 0 ? CHUNK_SECONDS * (double)L->last / el : (double)MAX_CHUNK;
  int64_t n = (el < CHUNK_SECONDS / 16 ? 8 : 2) * L->last;
  if (fit < (double)n) n = (int64_t)fit;
  /* A chunk of few steps over many paths spends its time on what a launch
   * costs besides the steps: the noise's Philox blocks, four values each,
   * drawn whole at the chunk's ends, a pass over the state, the look at the
   * paths after it (2^25 paths of gbm on 2 CPU cores: 1 step a chunk 9.3e7
   * steps/s, 8 steps 2.5e8).  So a chunk takes at least FLOOR_STEPS steps,
   * or the whole fours of them that fit in FLOOR_SECONDS at its pace: a stop
   * request then waits at most about that long, and a signal must end the
   * run, checkpoint included, within 2 s (issue 25: 2 s here let an all-pairs
   * system's chunk take 1.8 s and a SIGINT 2.13 s; tests/hostile/
   * h_signal_prompt.sh). */
  const double most = fit * (FLOOR_SECONDS / CHUNK_SECONDS);
  int64_t floor = most >= FLOOR_STEPS ? FLOOR_STEPS : (int64_t)(most / 4) * 4;
  if (n < floor) n = floor;
  if (n > MAX_CHUNK) n = MAX_CHUNK;
  return n < 1 ? 1 : n;
}

/* Where a chunk that would end at `want` ends: never past check_at, and
 * only there where the backend keeps its chunks fixed (backend.h). */
static int64_t chunk_end(const sdk_plan *p, int64_t want, int64_t check_at) {
  if (p->be->fixed_chunks && !p->sys.on) return check_at;
  return want < check_at ? want : check_at;
}

/* the paths at p->step: checks, samples and the end of the transient where
 * they are due (L->check_at); between them, only a wait for the chunk */
static sdk_err look(sdk_plan *p, loop *L, sdk_errbuf *eb) {
  if (p->step != L->check_at) {
    /* nothing is recorded here (the step a blow-up is reported at must not
     * depend on the chunking): the count only waits for the chunk's work,
     * which a GPU runs asynchronously, so that the chunk is timed and a stop
     * request answered once the work is done, not once it is queued
     * (systems with phase sums wait in their own advance) */
    if (p->sys.on && p->sys.sums_var >= 0) return SDK_OK;
    return sdk_paths_nonfinite(&p->paths, p->nonfinite, eb);
  }
  if (p->paths.carry) sdk_carry_step(p->paths.carry, p->step);
  int sample_now = p->sample_steps
                       ? p->isample < p->times.n && p->sample_steps[p->isample] == p->step
                       : p->sampling && p->step % p->sample_every == 0 &&
                             (p->isample == 0 || p->sample_step[p->isample - 1] < p->step);
  SDK_CHECK(check_finite(p, sample_now, eb));
  if (sample_now) SDK_CHECK(sample_all(p, eb));
  if (has_transient_end(p) && p->step == p->transient_steps && !p->marked)
    SDK_CHECK(transient_over(p, eb));
  L->check_at = next_check(p);
  return SDK_OK;
}

/* one pass of the loop at p->step: the paths, the pace, a stop request,
 * the checkpoint; *done at the end */
static sdk_err at_step(sdk_plan *p, loop *L, int *done, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  SDK_CHECK(look(p, L, eb));
  int64_t chunk = pace_next(L, sdk_now_s());
  int stop_now = c->cancel && c->cancel(c->cancel_user);
  int due = sdk_now_s() - L->last_ckpt >= c->checkpoint_every;
  if (c->comm) {
    /* every rank stops, checkpoints and cuts its chunks at the same steps:
     * a signal to any rank stops all; rank 0's clock times the
     * checkpoints; the slowest rank paces the chunks */
    int64_t f[3] = {stop_now, sdk_comm_rank(c->comm) == 0 && due, -chunk};
    SDK_CHECK(sdk_comm_allreduce(c->comm, f, 3, SDK_COMM_I64, SDK_COMM_MAX, eb));
    stop_now = (int)f[0], due = (int)f[1], chunk = -f[2];
  }
  L->chunk = chunk;
  if (c->checkpoint && p->step > p->step_start && (stop_now || p->step >= p->nsteps || due)) {
    SDK_CHECK(checkpoint(p, &L->ckpt_failed, &L->saved, eb));
    L->last_ckpt = sdk_now_s();
  }
  if (stop_now && p->step < p->nsteps) return interrupted(p, L->saved, eb);
  *done = p->step >= p->nsteps;
  return SDK_OK;
}

sdk_err sdk_execute(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  sdk_err err = alloc_run(p, eb);
  if (err == SDK_OK && c->resume) err = sdk_ckpt_restore_run(p, eb);
  /* (a checkpoint that does not fit fails every rank alike) */
  if (c->comm) err = sdk_comm_agree(c->comm, err, eb);
  SDK_CHECK(err);
  /* a new window looks its carried reductions up from the start (a resumed
   * one goes on where its checkpoint's carry was) */
  if (p->paths.carry && !c->resume) sdk_carry_begin(p->paths.carry);
  p->lockstep = 1;
  p->step_start = p->step;
  SDK_CHECK(sdk_systems_setup(&p->sys, p->ngrid, p->nsteps, p->octx.sums_every, MAX_CHUNK, eb));
  double t0 = sdk_now_s();
  /* resumed: the checkpoint file already holds this step */
  loop L = {
      .check_at = p->step, .chunk = 1, .last_ckpt = t0, .saved = c->resume ? c->resume->step : -1};
  /* the device's own time of the advances (--verbose's times: sim/run.c),
   * read once the look at the paths has waited for them; systems of
   * particles and the CPU: not timed (-1) */
  int s0 = 0;
  while (s0 < p->nshards && !p->shards[s0].ens)
    s0++;
  sdk_ensemble *timed =
      !p->sys.on && p->be->last_advance_ms && s0 < p->nshards ? p->shards[s0].ens : NULL;
  p->t_device = timed ? 0 : -1;
  for (;;) {
    int done = 0;
    SDK_CHECK(at_step(p, &L, &done, eb));
    if (timed && L.last > 0) {
      double ms = p->be->last_advance_ms(timed);
      if (ms >= 0 && p->t_device >= 0)
        p->t_device += ms * 1e-3;
      else
        p->t_device = -1, timed = NULL;
    }
    if (done) break;
    int64_t next = chunk_end(p, p->step + L.chunk, L.check_at);
    L.last = next - p->step;
    L.began = sdk_now_s();
    SDK_CHECK(advance(p, next - p->step, eb));
    p->step = next;
    if (c->progress) {
      double el = sdk_now_s() - t0, ps = held_paths(p);
      c->progress(c->progress_user, (double)p->step / (double)p->nsteps,
                  el > 0 ? (double)(p->step - p->step_start) * ps / el : 0);
    }
  }
  p->run->seconds = sdk_now_s() - t0;
  /* the steps integrated: absorbed paths stop (counted from their boundary
   * rows, after the timing) */
  if (p->paths.bound_row >= 0)
    return sdk_paths_steps_done(&p->paths, p->step_start, p->nsteps, &p->run->path_steps, eb);
  p->run->path_steps = (double)(p->nsteps - p->step_start) * held_paths(p);
  return SDK_OK;
}
