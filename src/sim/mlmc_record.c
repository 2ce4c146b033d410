/* The results of --mlmc and --target-error (sim/mlmc.h; the driver is
 * sim/mlmc.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "sim/mlmc_internal.h"

/* a dataset [grid..., (level)] of the mlmc/ or target/ group */
static sdk_err grid_ds(const drv *d, sdk_run *r, const char *path, sdk_dtype type, int levels,
                       sdk_dataset **out, sdk_errbuf *eb) {
  int64_t dims[SDK_MAX_SCAN + 1];
  int rank = 0;
  for (int i = 0; i < r->r.nscan; i++)
    dims[rank++] = r->r.scan[i].n;
  int grid_rank = rank;
  if (levels) dims[rank++] = d->nlev;
  SDK_CHECK(sdk_store_add(&r->r.store, path, type, rank, dims, grid_rank, -1, 0, out, eb));
  if (levels) SDK_CHECK(sdk_ds_dim_name(*out, rank - 1, "level", eb));
  return SDK_OK;
}

/* the estimate of quantity q at grid point g: value, RMS error, bias,
 * and E, Var per path of every level (NaN above the grid point's) */
static void estimate(const drv *d, int q, int64_t g, double *value, double *rms, double *bias,
                     double *mean, double *var) {
  int64_t L = d->L[g];
  double v = 0, s2 = 0;
  for (int l = 0; l < d->nlev; l++) {
    mean[l] = var[l] = NAN;
    if (l > L) continue;
    sdk_mlmc_stats(d, l, q, g, &mean[l], &var[l]);
    v += mean[l];
    s2 += var[l] / (double)sdk_mlmc_used_of(&d->lev[l].run->r, &d->lev[l], g);
  }
  const double dec = d->q[q].decay;
  *bias = fmax(fabs(mean[L]), fabs(mean[L - 1]) / dec) / (dec - 1);
  *value = v;
  *rms = sqrt(*bias * *bias + s2);
}

static sdk_err record_quantity(const drv *d, sdk_run *r, int q, sdk_errbuf *eb) {
  char path[200], err[200];
  sdk_dataset *dv, *de, *db, *dm, *dvar;
  const quantity *Q = &d->q[q];
  snprintf(err, sizeof err, "rms_error_%s", Q->name);
  snprintf(path, sizeof path, "mlmc/value_%s", Q->name);
  SDK_CHECK(grid_ds(d, r, path, SDK_F64, 0, &dv, eb));
  SDK_CHECK(sdk_ds_attr_str(dv, "standard_error", err, eb));
  SDK_CHECK(sdk_ds_attr_str(dv, "of", Q->value, eb));
  snprintf(path, sizeof path, "mlmc/%s", err);
  SDK_CHECK(grid_ds(d, r, path, SDK_F64, 0, &de, eb));
  snprintf(path, sizeof path, "mlmc/bias_%s", Q->name);
  SDK_CHECK(grid_ds(d, r, path, SDK_F64, 0, &db, eb));
  snprintf(path, sizeof path, "mlmc/mean_%s", Q->name);
  SDK_CHECK(grid_ds(d, r, path, SDK_F64, 1, &dm, eb));
  snprintf(path, sizeof path, "mlmc/var_%s", Q->name);
  SDK_CHECK(grid_ds(d, r, path, SDK_F64, 1, &dvar, eb));
  sdk_dataset *V = sdk_store_find(&r->r.store, Q->value), *E = sdk_store_find(&r->r.store, Q->err);
  if (!V || !E || !sdk_mlmc_scalar_shape(V) || !sdk_mlmc_scalar_shape(E))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: no dataset %s at level 0", d->opt, Q->value);
  SDK_CHECK(sdk_ds_attr_i64(V, "mlmc", 1, eb));
  int64_t ns = V->sample_axis >= 0 ? V->dims[V->sample_axis] : 1;
  for (int64_t g = 0; g < d->ngrid; g++) {
    double *m = sdk_ds_f64(dm) + g * d->nlev, *s = sdk_ds_f64(dvar) + g * d->nlev;
    double *val = sdk_ds_f64(dv) + g, *rms = sdk_ds_f64(de) + g, *bias = sdk_ds_f64(db) + g;
    estimate(d, q, g, val, rms, bias, m, s);
    if (d->status[g] == SDK_MLMC_ST_NAN) *val = *rms = *bias = NAN;
    /* the observable's value at t_end is the estimate, its error the RMS */
    sdk_ds_f64(V)[g * ns + ns - 1] = *val;
    sdk_ds_f64(E)[g * ns + ns - 1] = *rms;
  }
  return SDK_OK;
}

static sdk_err record_levels(const drv *d, sdk_run *r, sdk_errbuf *eb) {
  sdk_dataset *dl, *ds, *dp, *dc, *dd, *dopt;
  SDK_CHECK(grid_ds(d, r, "mlmc/cost_optimal", SDK_F64, 0, &dopt, eb));
  SDK_CHECK(sdk_ds_attr_str(dopt, "description",
                            "sum over the levels of Giles' unrounded optimal paths times the "
                            "cost of a path (mlmc/cost has the paths run: whole chunks of "
                            "256, at least --paths per level)",
                            eb));
  SDK_CHECK(grid_ds(d, r, "mlmc/levels", SDK_I64, 0, &dl, eb));
  SDK_CHECK(grid_ds(d, r, "mlmc/status", SDK_I64, 0, &ds, eb));
  SDK_CHECK(grid_ds(d, r, "mlmc/paths", SDK_I64, 1, &dp, eb));
  SDK_CHECK(grid_ds(d, r, "mlmc/cost", SDK_F64, 1, &dc, eb));
  SDK_CHECK(grid_ds(d, r, "mlmc/dt", SDK_F64, 1, &dd, eb));
  for (int64_t g = 0; g < d->ngrid; g++) {
    sdk_ds_i64(dl)[g] = d->L[g] + 1;
    sdk_ds_i64(ds)[g] = d->status[g];
    double need[SDK_MLMC_MAX_LEVELS], bias, opt = 0;
    int deeper, ok = sdk_mlmc_optimal(d, g, need, &bias, &deeper, NULL);
    for (int l = 0; l <= d->L[g]; l++)
      opt += need[l] * sdk_mlmc_level_cost(d, l);
    sdk_ds_f64(dopt)[g] = ok ? opt : NAN;
    for (int l = 0; l < d->nlev; l++) {
      int64_t n = l <= d->L[g] ? d->lev[l].used[g] : 0;
      sdk_ds_i64(dp)[g * d->nlev + l] = n;
      sdk_ds_f64(dc)[g * d->nlev + l] = (double)n * sdk_mlmc_level_cost(d, l);
      sdk_ds_f64(dd)[g * d->nlev + l] = ldexp(r->dt[g], -l);
    }
  }
  const char *names[MAX_Q];
  for (int q = 0; q < d->nq; q++)
    names[q] = d->q[q].name;
  SDK_CHECK(sdk_store_group_strs(&r->r.store, "mlmc", "quantities", names, d->nq, eb));
  SDK_CHECK(sdk_store_group_f64(&r->r.store, "mlmc", "eps", d->eps, eb));
  SDK_CHECK(sdk_store_group_i64(&r->r.store, "mlmc", "weak_order", d->p, eb));
  return sdk_store_group_str(&r->r.store, "mlmc", "cost_model",
                             "steps per path, x1.5 on coupled levels", eb);
}

/* The status dataset's meaning, the bounds given (0: none) and whether the
 * result depends on the machine's speed, in group `group`; a warning where
 * a grid point stopped at a bound. */
static sdk_err record_bounds(const drv *d, sdk_run *r, const char *group, sdk_errbuf *eb) {
  char path[64];
  snprintf(path, sizeof path, "%s/status", group);
  sdk_dataset *st = sdk_store_find(&r->r.store, path);
  if (!st) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: no dataset %s", d->opt, path);
  char meaning[160];
  snprintf(meaning, sizeof meaning, SDK_MLMC_ST_MEANING,
           d->te ? SDK_MLMC_ST_LEVELS_TE : SDK_MLMC_ST_LEVELS_MLMC);
  SDK_CHECK(sdk_ds_attr_str(st, "meaning", meaning, eb));
  int64_t hit[SDK_MLMC_ST_COUNT] = {0};
  for (int64_t g = 0; g < d->ngrid; g++)
    hit[d->status[g]]++;
  SDK_CHECK(sdk_store_group_i64(&r->r.store, group, "max_paths", d->base.max_paths, eb));
  SDK_CHECK(sdk_store_group_f64(&r->r.store, group, "max_seconds", d->base.max_seconds, eb));
  SDK_CHECK(sdk_store_group_i64(&r->r.store, group, "timing_dependent",
                                hit[SDK_MLMC_ST_MAX_SECONDS] > 0, eb));
  const int64_t n = hit[SDK_MLMC_ST_MAX_PATHS] + hit[SDK_MLMC_ST_MAX_SECONDS];
  if (n == 0 || sdk_comm_rank(d->base.comm) != 0 || !sdk_log_on(d->base.logger, SDK_LOG_WARN))
    return SDK_OK;
  char at[160] = "";
  if (hit[SDK_MLMC_ST_MAX_PATHS])
    snprintf(at, sizeof at, "%lld at --max-paths %lld", (long long)hit[SDK_MLMC_ST_MAX_PATHS],
             (long long)d->base.max_paths);
  if (hit[SDK_MLMC_ST_MAX_SECONDS])
    snprintf(at + strlen(at), sizeof at - strlen(at), "%s%lld at --max-seconds %g", *at ? ", " : "",
             (long long)hit[SDK_MLMC_ST_MAX_SECONDS], d->base.max_seconds);
  sdk_log(d->base.logger, SDK_LOG_WARN,
          "sdekit: warning: %s %g was not reached at %lld of %lld grid points: stopped %s "
          "(%s/status; %s)%s\n",
          d->opt, d->eps, (long long)n, (long long)d->ngrid, at, group,
          d->te ? "their values are those of the dt run there with the smallest |bias| + 2 "
                  "SE(bias) + 2 SE, target/bias_bound its bias bound"
                : "their values and RMS errors are those of the levels and paths run",
          hit[SDK_MLMC_ST_MAX_SECONDS] ? "; where it stopped depends on the machine's speed" : "");
  return SDK_OK;
}

/* The variances of --observe moments at t_end: level 0's, at dt_0, beside
 * means the levels corrected (GBM, sigma 0.3, dt_0 1/4: var_S 0.1018 beside
 * E S to 4e-4, exact variance 0.1041).  A variance is no expectation whose
 * level differences add up: NaN there, as a number that looks right but is
 * not would be; E X^2 is an --observe-expr quantity. */
static sdk_err drop_variances(const drv *d, sdk_run *r, sdk_errbuf *eb) {
  int any = 0;
  for (int i = 0; i < r->r.store.n; i++) {
    sdk_dataset *v = r->r.store.ds[i];
    if (strncmp(v->path, "moments/var_", 12) || !sdk_mlmc_scalar_shape(v)) continue;
    int64_t ns = v->sample_axis >= 0 ? v->dims[v->sample_axis] : 1;
    for (int64_t g = 0; g < d->ngrid; g++)
      sdk_ds_f64(v)[g * ns + ns - 1] = NAN;
    SDK_CHECK(sdk_ds_attr_str(v, "note",
                              "NaN at t_end: --mlmc corrects expectations, a variance is not "
                              "one (E X^2: --observe-expr)",
                              eb));
    any = 1;
  }
  if (any && sdk_comm_rank(d->base.comm) == 0 && sdk_log_on(d->base.logger, SDK_LOG_WARN))
    sdk_log(d->base.logger, SDK_LOG_WARN,
            "sdekit: note: --mlmc: moments/var_* at t_end are NaN: the levels correct "
            "expectations, and a variance is not one (for E X^2 give --observe-expr X2=X*X)\n");
  return SDK_OK;
}

/* paths_used of level 0's run counted its own paths: every grid point's
 * over all its levels instead, as --max-paths counts them (mlmc/paths has
 * them per level).  After the estimates, which read each level's own. */
static sdk_err paths_over_levels(const drv *d, sdk_run *r, sdk_errbuf *eb) {
  sdk_dataset *pu = sdk_store_find(&r->r.store, "paths_used");
  if (!pu) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "--mlmc: no paths_used at level 0");
  SDK_CHECK(sdk_ds_attr_str(pu, "description",
                            "the paths of all levels (mlmc/paths per level), as --max-paths "
                            "counts them",
                            eb));
  r->r.paths = 0;
  for (int64_t g = 0; g < d->ngrid; g++) {
    int64_t n = 0;
    for (int l = 0; l <= d->L[g]; l++)
      n += d->lev[l].used[g];
    sdk_ds_i64(pu)[g] = n;
    if (n > r->r.paths) r->r.paths = n;
  }
  return SDK_OK;
}

/* The compensation attribute (run.c, comp_note) of every level whose
 * choice differs from level 0's: the rule reads dt, which halves per level */
static sdk_err level_compensation(drv *d, sdk_run *r, sdk_errbuf *eb) {
  if (!r->compensation) return SDK_OK;
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_printf(&b, "level 0: %s", r->compensation);
  int differ = 0;
  for (int l = 1; l < d->nlev; l++) {
    const char *c = d->lev[l].run ? d->lev[l].run->compensation : NULL;
    if (!c) continue;
    differ |= strcmp(c, r->compensation) != 0;
    sdk_sb_printf(&b, "; level %d: %s", l, c);
  }
  char *s = differ ? sdk_sb_take(&b) : NULL;
  sdk_sb_free(&b);
  if (!differ) return SDK_OK;
  if (!s) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  free(r->compensation);
  r->compensation = s;
  r->r.compensation = s;
  return SDK_OK;
}

sdk_err sdk_mlmc_record_mlmc(drv *d, sdk_run **out, sdk_errbuf *eb) {
  sdk_run *r = d->lev[0].run;
  /* (the levels first: the quantities replace level 0's values and errors) */
  SDK_CHECK(record_levels(d, r, eb));
  for (int q = 0; q < d->nq; q++)
    SDK_CHECK(record_quantity(d, r, q, eb));
  SDK_CHECK(record_bounds(d, r, "mlmc", eb));
  SDK_CHECK(drop_variances(d, r, eb));
  SDK_CHECK(paths_over_levels(d, r, eb));
  r->seconds = d->seconds, r->path_steps = d->path_steps;
  SDK_CHECK(level_compensation(d, r, eb));
  d->lev[0].run = NULL;
  for (int64_t g = 0; g < d->ngrid; g++)
    if (d->status[g] == SDK_MLMC_ST_LEVELS && sdk_comm_rank(d->base.comm) == 0 &&
        sdk_log_on(d->base.logger, SDK_LOG_WARN)) {
      sdk_log(d->base.logger, SDK_LOG_WARN,
              "sdekit: warning: --mlmc: at grid point %lld the bias estimate is still above "
              "EPS/sqrt(2) after %d levels (mlmc/status 1)\n",
              (long long)g, SDK_MLMC_MAX_LEVELS);
      break;
    }
  *out = r;
  return SDK_OK;
}

/* grid point g's part of every dataset of `from` into the same-shaped one of r */
static void copy_grid_point(sdk_run *r, const sdk_run *from, int64_t g, int64_t ngrid) {
  for (int i = 0; i < r->r.store.n; i++) {
    sdk_dataset *a = r->r.store.ds[i];
    const sdk_dataset *b = sdk_store_find(&from->r.store, a->path);
    if (!b || a->type != b->type || memcmp(a->dims, b->dims, sizeof a->dims) ||
        (a->grid_rank == 0 && ngrid > 1) || (a->flags & SDK_DS_COORD))
      continue;
    int64_t per = sdk_ds_count(a) / ngrid;
    memcpy((char *)a->data + g * per * 8, (const char *)b->data + g * per * 8, (size_t)per * 8);
  }
  r->dt[g] = from->dt[g];
}

/* grid point g's samples of a value dataset (as `at` reads them) times f */
static void scale_at(sdk_dataset *v, int64_t g, double f) {
  if (!v || !sdk_mlmc_scalar_shape(v)) return;
  int64_t ns = v->sample_axis >= 0 ? v->dims[v->sample_axis] : 1;
  for (int64_t i = 0; i < ns; i++)
    sdk_ds_f64(v)[g * ns + i] *= f;
}

/* A grid point that stopped at a bound keeps, of the dts it ran, the one
 * whose error bound max_q |bias| + 2 SE(bias) + 2 SE is the smallest (the
 * bias as the decisions take it, trusted from the second dt on; the first
 * dt only when it is the one run): the last dt may hold only the few paths a
 * new dt starts with. */
static void best_dt(drv *d, int64_t g) {
  if (d->status[g] != SDK_MLMC_ST_MAX_PATHS && d->status[g] != SDK_MLMC_ST_MAX_SECONDS) return;
  const int64_t L = d->L[g];
  int64_t best = L;
  double least = INFINITY;
  for (int64_t k = 1; k <= L; k++) {
    if (d->lev[k].used[g] == 0 || !d->lev[k].run) continue;
    d->L[g] = k;
    double worst = 0;
    for (int q = 0; q < d->nq; q++) {
      double be, f, b = sdk_mlmc_te_bias(d, g, q, &be, &f);
      double v = fabs(b) + 2 * be + 2 * sdk_mlmc_at(&d->lev[k].run->r, d->q[q].err, g);
      if (!(v <= worst)) worst = v; /* (NaN: never the best) */
    }
    if (worst < least) least = worst, best = k;
  }
  d->L[g] = best;
}

/* A grid point whose paths blew up at a dt other than the result's (level
 * k, the finest any grid point kept) brings its count of non-finite paths
 * and its run's message: without them a scan exited 0 with a NaN row and
 * not a word (--mlmc and --target-se report it, and exit 1). */
static sdk_err keep_blowups(drv *d, sdk_run *r, int k, sdk_errbuf *eb) {
  for (int64_t g = 0; g < d->ngrid; g++) {
    const sdk_run *f = d->lev[d->L[g]].run;
    if (d->L[g] == k || !f || !f->r.nonfinite || f->r.nonfinite[g] <= 0) continue;
    if (!r->r.nonfinite && !(r->r.nonfinite = calloc((size_t)d->ngrid, sizeof *r->r.nonfinite)))
      return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    r->r.nonfinite[g] = f->r.nonfinite[g];
    if (!r->problem[0]) snprintf(r->problem, sizeof r->problem, "%s", f->problem);
  }
  return SDK_OK;
}

/* The steps of every grid point's dt (its samples: t = 0 and t_end).  The
 * root's nsteps and sample_every and every GROUP/step are those of r, the
 * finest dt kept: where the grid points' dts differ, GROUP/step says whose
 * steps it counts (its one sample axis cannot hold each grid point's). */
static sdk_err steps_per_point(const drv *d, sdk_run *r, sdk_errbuf *eb) {
  sdk_dataset *ds;
  SDK_CHECK(grid_ds(d, r, "target/steps", SDK_I64, 0, &ds, eb));
  SDK_CHECK(sdk_ds_attr_str(ds, "description",
                            "the steps of each grid point's dt (target/dt), sampled at t = 0 and "
                            "t_end alone; nsteps and sample_every are the finest dt's",
                            eb));
  int same = 1;
  for (int64_t g = 0; g < d->ngrid; g++) {
    sdk_ds_i64(ds)[g] = d->nsteps0 << d->L[g];
    same &= sdk_ds_i64(ds)[g] == r->r.nsteps;
  }
  for (int i = 0; !same && i < r->r.store.n; i++) {
    sdk_dataset *s = r->r.store.ds[i];
    const char *leaf = strrchr(s->path, '/');
    if (leaf && !strcmp(leaf, "/step") && (s->flags & SDK_DS_COORD))
      SDK_CHECK(sdk_ds_attr_str(s, "meaning",
                                "steps of the finest dt run (nsteps); a grid point at a coarser "
                                "dt took target/steps, its last sample being t_end as well "
                                "(GROUP/t holds every grid point's times)",
                                eb));
  }
  return SDK_OK;
}

sdk_err sdk_mlmc_record_te(drv *d, sdk_run **out, sdk_errbuf *eb) {
  for (int64_t g = 0; g < d->ngrid; g++)
    best_dt(d, g);
  int k = 0;
  for (int64_t g = 0; g < d->ngrid; g++)
    if (d->L[g] > k) k = (int)d->L[g];
  sdk_run *r = d->lev[k].run;
  for (int64_t g = 0; g < d->ngrid; g++)
    if (d->L[g] != k) copy_grid_point(r, d->lev[d->L[g]].run, g, d->ngrid);
  SDK_CHECK(keep_blowups(d, r, k, eb));
  /* (the paths of the dt each grid point kept: the most of them) */
  const sdk_dataset *pu = sdk_store_find(&r->r.store, "paths_used");
  for (int64_t g = 0; pu && g < d->ngrid; g++)
    r->r.paths = g == 0 || sdk_ds_i64(pu)[g] > r->r.paths ? sdk_ds_i64(pu)[g] : r->r.paths;
  sdk_dataset *dt, *ds, *df, *dbb;
  SDK_CHECK(grid_ds(d, r, "target/dt", SDK_F64, 0, &dt, eb));
  SDK_CHECK(grid_ds(d, r, "target/status", SDK_I64, 0, &ds, eb));
  SDK_CHECK(grid_ds(d, r, "target/bias_factor", SDK_F64, 0, &df, eb));
  SDK_CHECK(grid_ds(d, r, "target/bias_bound", SDK_F64, 0, &dbb, eb));
  SDK_CHECK(steps_per_point(d, r, eb));
  double fmax0 = 1;
  for (int64_t g = 0; g < d->ngrid; g++) {
    sdk_ds_f64(dt)[g] = r->dt[g];
    sdk_ds_i64(ds)[g] = d->status[g];
    sdk_ds_f64(df)[g] = 1, sdk_ds_f64(dbb)[g] = 0;
  }
  /* (the factors read the levels' own runs; r's values are level L[g]'s) */
  for (int q = 0; q < d->nq; q++)
    for (int64_t g = 0; g < d->ngrid; g++) {
      double f, sb, bb = sdk_mlmc_te_bias(d, g, q, &sb, &f) + 2 * sb;
      if (bb > sdk_ds_f64(dbb)[g] || isnan(bb)) sdk_ds_f64(dbb)[g] = bb;
      sdk_dataset *b = (sdk_dataset *)sdk_store_find(&r->r.store, d->q[q].bias);
      sdk_dataset *be = (sdk_dataset *)sdk_store_find(&r->r.store, d->q[q].bias_err);
      if (f > sdk_ds_f64(df)[g]) sdk_ds_f64(df)[g] = f;
      if (g == 0 && f > fmax0) fmax0 = f;
      if (f > 1) scale_at(b, g, f), scale_at(be, g, f);
    }
  SDK_CHECK(sdk_store_group_f64(&r->r.store, "target", "target_error", d->eps, eb));
  /* (r ran with dt k's own seed, sim/mlmc.c level_seed: the file records the
   * seed that reproduces it) */
  r->r.seed = d->base.seed;
  SDK_CHECK(record_bounds(d, r, "target", eb));
  if (sdk_comm_rank(d->base.comm) == 0 && sdk_log_on(d->base.logger, SDK_LOG_WARN))
    sdk_log(d->base.logger, SDK_LOG_WARN,
            "sdekit: note: --target-error %.6g: dt %.15g (%lld paths) at grid point 0%s%s%s\n",
            d->eps, r->dt[0], (long long)d->lev[d->L[0]].used[0],
            d->ngrid > 1 ? "; target/dt has every grid point's" : "",
            fmax0 > 1 ? "; the bias fell slower than the scheme's weak order says over the "
                        "last halving of dt: its estimate is scaled by the decay seen "
                        "(target/bias_factor)"
                      : "",
            d->status[0] == SDK_MLMC_ST_LEVELS
                ? "; the bias was still too large at the finest dt tried"
                : "");
  r->seconds = d->seconds, r->path_steps = d->path_steps;
  d->lev[k].run = NULL;
  *out = r;
  return SDK_OK;
}
