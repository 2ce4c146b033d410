/* Runs to a requested standard error (--target-se, --target-rse): the paths
 * of every grid point are added in batches, each batch a run over a window of
 * the paths with one carry (run.h sdk_path_window, observe/paths.h sdk_carry),
 * so that after every batch the results are those of one run over all the
 * paths so far.  After each batch the standard error of every targeted value
 * (a dataset with a `standard_error` attribute, of the observables
 * --target-on names, but --dt-check's bias_*; a NaN value with a NaN error,
 * where no path contributes, is no target) at every sample is compared with
 * its tolerance, grid point by grid point: a grid point whose values all
 * meet it is done and
 * takes no part in later batches (count 0: it costs nothing).
 *
 * The stopping rule, the same for every machine: the first check comes after
 * MIN_BATCHES batches of one unit (SDK_PATH_WINDOW_UNIT = 16384 paths) each,
 * checks only at batch boundaries, and the next batch of a grid point is what
 * the errors so far predict it needs (SE falls as 1/sqrt(n): n r^2 in all, r
 * its largest SE / tolerance), at least one unit and at most the paths it has
 * (at most doubling), at least an equal share of the first batch's paths when
 * few grid points remain (a GPU stays busy), and never past --max-paths.
 * Every size is a function of (seed, settings, EPS, the results so far),
 * which are the same bits for any threads, shards, ranks and resumes: so is
 * the whole run.  --max-seconds is the one bound that depends on time.
 *
 * Checkpoints: the current batch's run writes them, with the carry and this
 * driver's state (records CARY and TGTS); a resumed run restores both, ends
 * the batch from its checkpoint and goes on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/strbuf.h"
#include "sim/checkpoint.h"
#include "sim/run_internal.h"
#include "sim/window_progress.h"

#define MIN_BATCHES 2
#define UNIT SDK_PATH_WINDOW_UNIT

enum { ACTIVE = -1, REACHED = 0, MAX_PATHS = 1, MAX_SECONDS = 2, BLEW_UP = 3 };

/* The driver's state (what a checkpoint keeps of it, record TGTS). */
typedef struct tstate {
  int64_t batch; /* batches begun */
  int64_t ngrid, key;
  int64_t nsteps;                  /* of every batch (a resume may not change it) */
  int64_t *first, *count, *status; /* the current window; per grid point ACTIVE or the end */
  double seconds;                  /* spent in the batches before this process's first */
} tstate;

/* A targeted value: the value dataset and its standard error's. */
typedef struct target {
  char value[256], error[256];
} target;

typedef struct driver {
  const sdk_run_config *c;
  double eps;
  int rel;
  tstate t;
  int ntargets;
  target *tg;
  sdk_carry *carry;
  unsigned char *packed; /* t as bytes, for the batch's checkpoints */
  size_t npacked;
  double began; /* this process's clock at the start */
  int said;     /* a batch has run with the caller's logger */
  double seconds, path_steps;
  /* the caller's progress hook over the batches, in paths (every batch takes
   * the same steps): the paths so far and those the errors predict */
  sdk_window_progress wp;
} driver;

static const char MAGIC[8] = {'S', 'D', 'K', 'T', 'G', 'T', '0', '1'};

static sdk_err pack(driver *d, sdk_errbuf *eb) {
  const tstate *t = &d->t;
  size_t n = 8 + 8 * 5 + 24 * (size_t)t->ngrid;
  unsigned char *b = malloc(n), *at = b;
  if (!b) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int64_t head[4] = {t->batch, t->ngrid, t->key, t->nsteps};
  double sec = t->seconds + (sdk_now_s() - d->began);
  memcpy(at, MAGIC, 8), at += 8;
  memcpy(at, head, 32), at += 32;
  memcpy(at, &sec, 8), at += 8;
  memcpy(at, t->first, 8 * (size_t)t->ngrid), at += 8 * t->ngrid;
  memcpy(at, t->count, 8 * (size_t)t->ngrid), at += 8 * t->ngrid;
  memcpy(at, t->status, 8 * (size_t)t->ngrid);
  free(d->packed);
  d->packed = b, d->npacked = n;
  return SDK_OK;
}

static sdk_err unpack(driver *d, const sdk_ckpt *k, sdk_errbuf *eb) {
  tstate *t = &d->t;
  const unsigned char *b = k->target;
  int64_t head[4];
  if (!k->target || !k->carry || k->ntarget != 8 + 8 * 5 + 24 * (size_t)t->ngrid ||
      memcmp(b, MAGIC, 8))
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "checkpoint '%s' holds no state of a run to a standard error, or another "
                    "one's: finish it with the command that wrote it",
                    d->c->checkpoint ? d->c->checkpoint : "?");
  memcpy(head, b + 8, 32);
  memcpy(&t->seconds, b + 40, 8);
  memcpy(t->first, b + 48, 8 * (size_t)t->ngrid);
  memcpy(t->count, b + 48 + 8 * t->ngrid, 8 * (size_t)t->ngrid);
  memcpy(t->status, b + 48 + 16 * t->ngrid, 8 * (size_t)t->ngrid);
  /* the earlier batches' paths end where they ended: not extended */
  if (head[3] != t->nsteps)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "a run to a standard error cannot be extended (--t-end, --periods): the "
                    "paths of its earlier batches end at step %lld; start a new run",
                    (long long)head[3]);
  int ok = head[0] >= 1 && head[1] == t->ngrid && head[2] == t->key;
  for (int64_t g = 0; ok && g < t->ngrid; g++)
    ok = t->first[g] >= 0 && t->count[g] >= 0 && t->first[g] <= t->key - t->count[g] &&
         t->status[g] >= ACTIVE && t->status[g] <= BLEW_UP;
  if (!ok) return SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint is corrupt (state of the batches)");
  t->batch = head[0];
  return sdk_carry_unpack(d->carry, k->carry, k->ncarry, eb);
}

/* The options together, and the key: --max-paths rounded down to whole
 * units, or the most paths a grid point may have in this grid. */
static sdk_err check_options(driver *d, sdk_errbuf *eb) {
  const sdk_run_config *c = d->c;
  if (c->target_se > 0 && c->target_rse > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--target-se and --target-rse: give one of them (an absolute or a relative "
                    "standard error)");
  if (!(c->target_se > 0 || c->target_rse > 0) || !isfinite(c->target_se + c->target_rse))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--target-se/--target-rse: expected a number > 0");
  if (c->window) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "a window of paths and --target-se");
  d->rel = c->target_rse > 0;
  d->eps = d->rel ? c->target_rse : c->target_se;
  int64_t ngrid = 1;
  for (int a = 0; a < c->nscan && a < SDK_MAX_SCAN_PARAMS; a++)
    if (!c->scan[a].zip && c->scan[a].n > 0 && ngrid <= SDK_MAX_GRID) ngrid *= c->scan[a].n;
  int64_t most = ((int64_t)1 << 38) / ngrid / UNIT * UNIT;
  if (most < UNIT)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--target-se: %lld grid points are too many for batches of %lld paths",
                    (long long)ngrid, (long long)UNIT);
  if (c->max_paths > 0 && c->max_paths < UNIT)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--max-paths %lld: at least %lld (the paths are added in units of %lld)",
                    (long long)c->max_paths, (long long)UNIT, (long long)UNIT);
  d->t.key = c->max_paths > 0 ? c->max_paths / UNIT * UNIT : most;
  if (d->t.key > most) d->t.key = most;
  d->t.ngrid = ngrid;
  tstate *t = &d->t;
  t->first = calloc((size_t)ngrid, sizeof *t->first);
  t->count = calloc((size_t)ngrid, sizeof *t->count);
  t->status = calloc((size_t)ngrid, sizeof *t->status);
  if (!t->first || !t->count || !t->status || !(d->carry = sdk_carry_create()))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  return SDK_OK;
}

/* is observable `name` in the comma-separated list? */
static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *s = list; s && *s;) {
    size_t k = strcspn(s, ",");
    if (k == n && !strncmp(s, name, n)) return 1;
    s += k + (s[k] == ',');
  }
  return 0;
}

/* The targeted values of a run's store: every dataset with a standard_error
 * of the observables --target-on names (all by default); the names of the
 * list checked against the run's observables and their errors. */
static sdk_err find_targets(driver *d, const sdk_results *R, sdk_errbuf *eb) {
  const sdk_store *S = &R->store;
  const char *on = d->c->target_on;
  if (!(d->tg = calloc((size_t)(S->n > 0 ? S->n : 1), sizeof *d->tg)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int i = 0; i < S->n; i++) {
    const sdk_dataset *v = S->ds[i];
    const sdk_attr *a = sdk_attr_find(v->attr, v->nattr, "standard_error");
    const char *slash = strchr(v->path, '/');
    if (!a || a->kind != SDK_ATTR_STR || !slash || v->type != SDK_F64) continue;
    /* --dt-check's bias_* carry an error too, but they are not the values
     * asked for: their errors are --target-error's business */
    if (!strncmp(slash + 1, "bias_", 5)) continue;
    char group[128];
    snprintf(group, sizeof group, "%.*s", (int)(slash - v->path), v->path);
    if (on && !listed(on, group)) continue;
    target *t = &d->tg[d->ntargets];
    snprintf(t->value, sizeof t->value, "%s", v->path);
    snprintf(t->error, sizeof t->error, "%s/%s", group, a->s);
    const sdk_dataset *e = sdk_store_find(S, t->error);
    if (e && e->type == SDK_F64 && sdk_ds_count(e) == sdk_ds_count(v)) d->ntargets++;
  }
  for (const char *s = on; s && *s;) {
    size_t k = strcspn(s, ",");
    int found = 0, observed = 0;
    for (int i = 0; i < d->ntargets; i++)
      found |= !strncmp(d->tg[i].value, s, k) && d->tg[i].value[k] == '/';
    for (int i = 0; i < R->nobs; i++)
      observed |= strlen(R->obs[i]) == k && !strncmp(R->obs[i], s, k);
    if (!found)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      observed ? "--target-on %.*s: --observe %.*s reports no standard error "
                                 "(those that do: drift, moments, expr, tavg, fpt)"
                               : "--target-on %.*s: the run does not observe it (add it to "
                                 "--observe, or name one of the run's observables)",
                      (int)k, s, (int)k, s);
    s += k + (s[k] == ',');
  }
  if (d->ntargets == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--target-se: none of the run's observables reports a standard error; "
                    "observe one that does (drift, moments, expr, tavg, fpt)");
  return SDK_OK;
}

/* The run's set-up alone (no kernel, no paths) with the first window: its
 * refusals (systems, observables that take no windows) before any work, and
 * the datasets to target. */
static sdk_err dry_plan(driver *d, sdk_errbuf *eb) {
  sdk_run_config cc = *d->c;
  sdk_path_window w = {d->t.key, d->t.first, d->t.count, 0};
  cc.window = &w, cc.carry = NULL, cc.target_se = cc.target_rse = 0;
  cc.logger = NULL; /* (its notes are the first batch's) */
  for (int64_t g = 0; g < d->t.ngrid; g++)
    d->t.count[g] = UNIT;
  sdk_run *r = calloc(1, sizeof *r);
  if (!r) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_plan p;
  sdk_err e = sdk_plan_make(&cc, r, &p, eb);
  if (e == SDK_OK && p.ngrid != d->t.ngrid)
    e = SDK_FAIL(eb, SDK_ERR_INTERNAL, "the grid has %lld points, not %lld", (long long)p.ngrid,
                 (long long)d->t.ngrid);
  if (e == SDK_OK) e = sdk_plan_observables(&p, eb);
  if (e == SDK_OK) e = find_targets(d, &r->r, eb);
  d->t.nsteps = p.nsteps;
  sdk_plan_free(&p);
  sdk_run_destroy(&r);
  return e;
}

/* The largest SE / tolerance of grid point g's targeted values (0 when all
 * are exact; infinite where a tolerance is 0 and its SE not). */
static double worst_ratio(const driver *d, const sdk_results *R, int64_t g) {
  double worst = 0;
  for (int i = 0; i < d->ntargets; i++) {
    const sdk_dataset *v = sdk_store_find(&R->store, d->tg[i].value);
    const sdk_dataset *e = sdk_store_find(&R->store, d->tg[i].error);
    if (!v || !e) return INFINITY;
    int64_t per = sdk_ds_count(v) / R->ngrid;
    for (int64_t k = g * per; k < (g + 1) * per; k++) {
      double se = sdk_ds_f64(e)[k], tol = d->rel ? d->eps * fabs(sdk_ds_f64(v)[k]) : d->eps;
      /* a value with no paths behind it (the mean exit time at a boundary
       * none reached, or one that reflects) has no error to meet; a value
       * whose error is not known yet (one hit) is not met */
      if (isnan(se) && isnan(sdk_ds_f64(v)[k])) continue;
      if (isnan(se)) return INFINITY;
      double r = se <= tol ? se / (tol > 0 ? tol : 1) : tol > 0 ? se / tol : INFINITY;
      if (r > worst) worst = r;
    }
  }
  return worst;
}

/* Grid point g's next batch after a check that found it at ratio r with n
 * paths (the rule at the head of this file, but the share of the GPU). */
static int64_t next_count(const driver *d, int64_t n, double r) {
  double need = (double)n * r * r - (double)n;
  int64_t k = need < (double)UNIT ? UNIT : need >= (double)d->t.key ? d->t.key : (int64_t)need;
  k = (k + UNIT - 1) / UNIT * UNIT;
  if (k > n) k = n / UNIT * UNIT;
  return k < UNIT ? UNIT : k;
}

/* After a batch: which grid points are done, and the next window. */
static sdk_err decide(driver *d, const sdk_run *run, sdk_errbuf *eb) {
  tstate *t = &d->t;
  const sdk_results *R = &run->r;
  const sdk_dataset *used = sdk_store_find(&R->store, "paths_used");
  if (!used) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "a batch of paths without paths_used");
  /* the time bound: rank 0's clock decides for all */
  double spent = t->seconds + (sdk_now_s() - d->began);
  SDK_CHECK(sdk_comm_bcast(d->c->comm, &spent, sizeof spent, 0, eb));
  int out_of_time = d->c->max_seconds > 0 && spent >= d->c->max_seconds;
  int64_t nactive = 0;
  double need = 0; /* the paths still to run that the errors predict */
  for (int64_t g = 0; g < t->ngrid; g++) {
    int64_t n = sdk_ds_i64(used)[g];
    t->first[g] = n;
    if (t->status[g] != ACTIVE) {
      t->count[g] = 0;
      continue;
    }
    double r = t->batch < MIN_BATCHES ? INFINITY : worst_ratio(d, R, g);
    if (R->nonfinite && R->nonfinite[g] > 0)
      t->status[g] = BLEW_UP;
    else if (r <= 1)
      t->status[g] = REACHED;
    else if (n >= t->key)
      t->status[g] = MAX_PATHS;
    else if (out_of_time)
      t->status[g] = MAX_SECONDS;
    t->count[g] = t->status[g] != ACTIVE ? 0 : t->batch < MIN_BATCHES ? UNIT : next_count(d, n, r);
    nactive += t->status[g] == ACTIVE;
    /* (a grid point done at this check needs nothing: not less) */
    if (t->status[g] == ACTIVE)
      need += fmin(fmax((double)n * r * r - (double)n, 0), (double)(t->key - n));
  }
  /* few grid points left: each at least an equal share of the first batch */
  int64_t share = nactive ? (t->ngrid * UNIT / nactive + UNIT - 1) / UNIT * UNIT : 0;
  for (int64_t g = 0; g < t->ngrid; g++) {
    if (t->status[g] != ACTIVE) continue;
    if (t->count[g] < share) t->count[g] = share < t->first[g] ? share : t->first[g];
    if (t->count[g] > t->key - t->first[g]) t->count[g] = t->key - t->first[g];
  }
  /* the whole run as the progress now sees it (none before the first check):
   * the paths so far, and at least the next batch, the window batch() runs */
  d->wp.done = d->wp.cur = 0;
  for (int64_t g = 0; g < t->ngrid; g++)
    d->wp.done += (double)t->first[g], d->wp.cur += (double)t->count[g];
  d->wp.total = d->wp.done + fmax(need, d->wp.cur);
  d->wp.on = t->batch >= MIN_BATCHES;
  return SDK_OK;
}

/* One batch: a run over the window with the carry (resume: the batch the
 * checkpoint holds, from its step). */
static sdk_err batch(driver *d, const sdk_ckpt *resume, sdk_run **out, sdk_errbuf *eb) {
  sdk_run_config cc = *d->c;
  sdk_path_window w = {d->t.key, d->t.first, d->t.count, 0};
  cc.window = &w, cc.carry = d->carry, cc.target_se = cc.target_rse = 0;
  cc.resume = resume;
  /* the plan's notes and the kernel's messages once, by this process's
   * first batch */
  if (d->said) cc.logger = NULL;
  d->said = 1;
  if (!resume) d->t.batch++;
  sdk_window_progress_attach(&d->wp, &cc); /* (its window's work: decide) */
  SDK_CHECK(pack(d, eb));
  cc.target_state = d->packed, cc.ntarget_state = d->npacked;
  sdk_err e = sdk_run_execute(&cc, out, eb);
  if (e == SDK_OK) d->seconds += (*out)->seconds, d->path_steps += (*out)->path_steps;
  if (e != SDK_ERR_INTERRUPTED || !eb) return e;
  char what[64];
  snprintf(what, sizeof what, "batch %lld of the paths", (long long)d->t.batch);
  sdk_windows_interrupted(d->c, d->t.batch > 1, what, eb);
  return e;
}

void sdk_windows_interrupted(const sdk_run_config *c, int later, const char *what, sdk_errbuf *eb) {
  /* a stop says which window; one before a later window's first step finds
   * the checkpoint of the window before (written at its end) */
  char msg[sizeof eb->msg];
  if (later && c->checkpoint && strstr(eb->msg, "before the first step"))
    snprintf(msg, sizeof msg,
             "interrupted before %s; the checkpoint %s holds the one before; continue with: "
             "sdekit resume %s",
             what, c->checkpoint, c->checkpoint);
  else
    snprintf(msg, sizeof msg, "%s: %s", what, eb->msg);
  memcpy(eb->msg, msg, sizeof msg);
}

/* The records of the run: target/status, the settings, and a notice where a
 * bound was reached. */
static sdk_err record(driver *d, sdk_run *run, sdk_errbuf *eb) {
  const sdk_run_config *c = d->c;
  sdk_results *R = &run->r;
  sdk_obs_ctx oc = {.R = R, .store = &R->store};
  sdk_dataset *st;
  SDK_CHECK(sdk_obs_dataset(&oc, "target/status", SDK_I64, 0, NULL, -1, 0, &st, eb));
  int64_t hit[4] = {0};
  for (int64_t g = 0; g < d->t.ngrid; g++)
    hit[sdk_ds_i64(st)[g] = d->t.status[g]]++;
  SDK_CHECK(
      sdk_ds_attr_str(st, "meaning", "0 reached, 1 --max-paths, 2 --max-seconds, 3 NaN/Inf", eb));
  SDK_CHECK(
      sdk_store_group_f64(&R->store, "target", d->rel ? "target_rse" : "target_se", d->eps, eb));
  SDK_CHECK(sdk_store_group_str(&R->store, "target", "on", c->target_on ? c->target_on : "", eb));
  SDK_CHECK(sdk_store_group_i64(&R->store, "target", "max_paths", d->t.key, eb));
  SDK_CHECK(sdk_store_group_f64(&R->store, "target", "max_seconds", c->max_seconds, eb));
  SDK_CHECK(sdk_store_group_i64(&R->store, "target", "batches", d->t.batch, eb));
  SDK_CHECK(sdk_store_group_i64(&R->store, "target", "min_batches", MIN_BATCHES, eb));
  SDK_CHECK(sdk_store_group_i64(&R->store, "target", "unit", UNIT, eb));
  /* reaching --max-seconds makes the result depend on the machine's speed */
  SDK_CHECK(sdk_store_group_i64(&R->store, "target", "timing_dependent", hit[MAX_SECONDS] > 0, eb));
  run->seconds = d->seconds, run->path_steps = d->path_steps;
  if (!c->warn || sdk_comm_rank(c->comm) != 0 || hit[MAX_PATHS] + hit[MAX_SECONDS] == 0)
    return SDK_OK;
  /* the bounds that stopped a grid point alone, with the value given (and
   * the key where that is not the value given) */
  char at[300] = "", why[160] = "";
  if (c->max_paths > 0 && d->t.key == c->max_paths / UNIT * UNIT && d->t.key != c->max_paths)
    snprintf(why, sizeof why, " (rounded down to %lld: whole units of %lld paths)",
             (long long)d->t.key, (long long)UNIT);
  else if (c->max_paths > 0 && d->t.key != c->max_paths)
    snprintf(why, sizeof why, " (cut to %lld: at most 2^38 paths over the grid points)",
             (long long)d->t.key);
  if (hit[MAX_PATHS] && c->max_paths > 0)
    snprintf(at, sizeof at, "%lld at --max-paths %lld%s", (long long)hit[MAX_PATHS],
             (long long)c->max_paths, why);
  else if (hit[MAX_PATHS])
    snprintf(at, sizeof at,
             "%lld at the most paths a grid point may have, %lld (2^38 over the grid points; "
             "no --max-paths given)",
             (long long)hit[MAX_PATHS], (long long)d->t.key);
  if (hit[MAX_SECONDS])
    snprintf(at + strlen(at), sizeof at - strlen(at), "%s%lld at --max-seconds %g", *at ? ", " : "",
             (long long)hit[MAX_SECONDS], c->max_seconds);
  char msg[600];
  snprintf(msg, sizeof msg,
           "the standard error %s %g was not reached at %lld of %lld grid points: stopped %s%s "
           "(target/status in the results)",
           d->rel ? "--target-rse" : "--target-se", d->eps,
           (long long)(hit[MAX_PATHS] + hit[MAX_SECONDS]), (long long)d->t.ngrid, at,
           hit[MAX_SECONDS] ? "; the paths used there depend on the machine's speed" : "");
  c->warn(c->warn_user, msg);
  return SDK_OK;
}

static void driver_free(driver *d) {
  free(d->t.first), free(d->t.count), free(d->t.status);
  free(d->tg), free(d->packed);
  sdk_carry_destroy(&d->carry);
}

sdk_err sdk_target_run(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb) {
  *out = NULL;
  driver d = {.c = c, .began = sdk_now_s()};
  d.wp.fn = c->progress, d.wp.user = c->progress_user;
  sdk_err e = check_options(&d, eb);
  if (e == SDK_OK) e = dry_plan(&d, eb);
  const sdk_ckpt *resume = c->resume;
  if (e == SDK_OK && resume) e = unpack(&d, resume, eb);
  for (int64_t g = 0; e == SDK_OK && !resume && g < d.t.ngrid; g++)
    d.t.first[g] = 0, d.t.count[g] = UNIT, d.t.status[g] = ACTIVE;
  sdk_run *run = NULL;
  while (e == SDK_OK) {
    sdk_run_destroy(&run);
    e = batch(&d, resume, &run, eb);
    resume = NULL;
    if (e == SDK_OK) e = decide(&d, run, eb);
    int more = 0;
    for (int64_t g = 0; e == SDK_OK && g < d.t.ngrid; g++)
      more |= d.t.status[g] == ACTIVE;
    if (!more) break;
  }
  if (e == SDK_OK) e = record(&d, run, eb);
  if (e == SDK_OK) sdk_window_progress_end(&d.wp);
  driver_free(&d);
  if (e != SDK_OK) sdk_run_destroy(&run);
  *out = run;
  return e;
}
