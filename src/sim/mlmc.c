/* --mlmc and --target-error: runs over windows of paths (sim/mlmc.h). */
#include "sim/mlmc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sim/checkpoint.h"
#include "sim/mlmc_internal.h"
#include "sim/registry.h"

/* the independent random numbers of level l: the seed mixed with l
 * (splitmix64's finaliser; level 0 keeps the seed itself) */
static uint64_t level_seed(uint64_t seed, int l) {
  if (l == 0) return seed;
  uint64_t z = seed + (uint64_t)l * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void level_config(const drv *d, int l, sdk_run_config *c) {
  *c = d->base;
  if (d->spp0 > 0) {
    c->spp = d->spp0 << l;
    c->dt = 0;
  } else if (l > 0) {
    c->dt = ldexp(d->dt0, -l);
    c->spp = 0;
  }
  c->seed = level_seed(d->base.seed, l);
  c->dt_check = d->te || l > 0;
  c->extrapolate = 0;
  /* the values wanted are at t_end: sampled at t = 0 and t_end alone */
  c->sample_every = d->nsteps0 << l;
  c->paths = d->key;
  c->progress = NULL; /* (run_level: the rounds' progress) */
  c->resume = NULL;
  if (l > 0 || d->lev[0].run) c->logger = NULL; /* the plan's notes once */
}

/* a failed probe of the coupled levels: the message says which option */
static sdk_err wrap(const drv *d, sdk_err e, sdk_errbuf *eb) {
  if (!eb || e == SDK_OK) return e;
  char msg[sizeof eb->msg];
  snprintf(msg, sizeof msg, "%s", eb->msg);
  eb->msg[0] = 0;
  /* dtcheck.c's advice names the option it was given by: here d->opt */
  static const char tail[] = "run without --dt-check";
  size_t n = strlen(msg), k = sizeof tail - 1;
  if (n >= k && !strcmp(msg + n - k, tail))
    snprintf(msg + n - k, sizeof msg - (n - k), "run without %s", d->opt);
  return SDK_FAIL(eb, e, "%s runs %s: %s", d->opt,
                  d->te ? "the path at 2 dt of --dt-check"
                        : "levels of coupled paths at dt and 2 dt",
                  strncmp(msg, "--dt-check: ", 12) ? msg : msg + 12);
}

static int has_orders(const sdk_scheme_type *s) {
  return s->strong_order > 0 && s->weak_order >= 1;
}

/* Plan levels 0 and 1 without running them: the time grid, and every refusal
 * before any path is run. */
static sdk_err probe(drv *d, sdk_errbuf *eb) {
  for (int l = 0; l < 2; l++) {
    sdk_run_config c;
    level_config(d, l, &c);
    c.paths = d->base.paths, c.logger = NULL;
    /* (--target-error's first dt runs --dt-check's coarse path too: its
     * refusals, an odd number of steps, are its own) */
    if (l == 0)
      c.sample_every = 0, c.dt_check = d->te;
    else
      c.sample_every = 2 * d->nsteps0;
    sdk_run *r = calloc(1, sizeof *r);
    if (!r) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    sdk_plan p;
    sdk_err e = sdk_plan_make(&c, r, &p, eb);
    if (e == SDK_OK && l == 0) {
      d->nsteps0 = p.nsteps, d->spp0 = p.spp, d->dt0 = r->dt[0], d->ngrid = p.ngrid;
      d->p = p.scheme->weak_order;
      d->beta = 2 * p.scheme->strong_order;
      char use[256];
      if (!(p.scheme->strong_order > 0) || d->p < 1)
        e = SDK_FAIL(eb, SDK_ERR_USAGE,
                     "%s: scheme %s declares no strong and weak order: the paths per level come "
                     "from how fast the coupled difference shrinks; use %s",
                     d->opt, p.scheme->name,
                     sdk_registry_scheme_list(use, sizeof use, has_orders, ", ", " or "));
    }
    sdk_plan_free(&p);
    sdk_run_destroy(&r);
    if (e != SDK_OK)
      return l == 0 && (!eb || strncmp(eb->msg, "--dt-check: ", 12)) ? e : wrap(d, e, eb);
  }
  int64_t cap = ((int64_t)1 << 38) / d->ngrid / KEY_UNIT * KEY_UNIT;
  d->key = cap < ((int64_t)1 << 34) ? cap : ((int64_t)1 << 34);
  if (d->key < 64 * KEY_UNIT)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: %lld grid points are too many to key the paths of",
                    d->opt, (long long)d->ngrid);
  if ((d->nsteps0 << (SDK_MLMC_MAX_LEVELS - 1)) > SDK_MAX_STEPS)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: %lld steps at the first dt leave no room for %d levels of halved steps",
                    d->opt, (long long)d->nsteps0, SDK_MLMC_MAX_LEVELS);
  return SDK_OK;
}

static int any_add(const drv *d, int l) {
  int any = 0;
  for (int64_t g = 0; g < d->ngrid; g++)
    any |= d->lev[l].add[g] > 0;
  return any;
}

static sdk_err pack(drv *d, sdk_errbuf *eb);

/* Level l's next window (resume: the window the checkpoint holds, from its
 * step); its results replace the level's.  again = 1: a window of no paths,
 * which gives the results of the windows so far from the carry alone (a
 * resumed driver's levels before its checkpoint's). */
static sdk_err run_level(drv *d, int l, const sdk_ckpt *resume, int again, sdk_errbuf *eb) {
  level *v = &d->lev[l];
  if (!again && !any_add(d, l)) return SDK_OK;
  sdk_run_config c;
  level_config(d, l, &c);
  sdk_path_window w = {d->key, v->used, again ? d->none : v->add, 1};
  c.window = &w;
  c.carry = v->carry;
  c.resume = resume;
  if (again) c.checkpoint = NULL, c.cancel = NULL;
  d->cur = l;
  double work = 0;
  for (int64_t g = 0; !again && g < d->ngrid; g++)
    work += (double)v->add[g] * sdk_mlmc_level_cost(d, l);
  if (!again) sdk_window_progress_attach(&d->wp, &c), d->wp.cur = work;
  if (!again && c.checkpoint) {
    SDK_CHECK(pack(d, eb));
    c.target_state = d->packed, c.ntarget_state = d->npacked;
  }
  sdk_run *r = NULL;
  const double t0 = sdk_now_s();
  sdk_err e = sdk_run_execute(&c, &r, eb);
  const double wall = sdk_now_s() - t0;
  if (e == SDK_ERR_INTERRUPTED && eb) {
    char what[64];
    snprintf(what, sizeof what, "a window of level %d of %s", l, d->opt);
    int later = 0; /* (a window before this one has its checkpoint) */
    for (int k = 0; k < d->nlev; k++)
      later |= d->lev[k].ran;
    sdk_windows_interrupted(&c, later, what, eb);
  }
  if (e == SDK_ERR_NONFINITE && eb) { /* (its steps and paths are the level's) */
    char msg[sizeof eb->msg];
    char lev[32] = "";
    if (!d->te) snprintf(lev, sizeof lev, " level %d", l);
    snprintf(msg, sizeof msg, "%s%s at dt %g: %s", d->opt, lev, ldexp(d->dt0, -l), eb->msg);
    memcpy(eb->msg, msg, sizeof msg);
  }
  SDK_CHECK(e);
  d->wp.done += again ? 0 : work;
  d->seconds += r->seconds, d->path_steps += r->path_steps;
  /* (the wall clock's seconds: a run's own count is its steps' alone, a
   * third of a window's on the GPU) */
  int64_t ran = 0;
  for (int64_t g = 0; !again && g < d->ngrid; g++)
    ran += v->add[g], v->used[g] += v->add[g], v->add[g] = 0;
  if (!again && !v->opened)
    d->setup = fmax(d->setup, wall), v->opened = 1;
  else if (!again)
    v->secs += wall, v->timed += ran;
  v->ran = 1;
  sdk_run_destroy(&v->run);
  v->run = r;
  if (d->nq == 0 && c.dt_check) SDK_CHECK(sdk_mlmc_find_quantities(d, &r->r, eb));
  return SDK_OK;
}

static sdk_err add_level(drv *d, int l, sdk_errbuf *eb) {
  if (l < d->nlev) return SDK_OK;
  level *v = &d->lev[l];
  v->carry = sdk_carry_create();
  v->used = calloc((size_t)d->ngrid, sizeof *v->used);
  v->add = calloc((size_t)d->ngrid, sizeof *v->add);
  v->ran = 0;
  v->secs = 0, v->timed = 0, v->opened = 0;
  if (!v->carry || !v->used || !v->add) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  d->nlev = l + 1;
  return SDK_OK;
}

/* paths a times f (< 1), down to whole chunks: a round cut to a bound */
static int64_t cut(int64_t a, double f) {
  return (int64_t)((double)a * f / UNIT) * UNIT;
}

static int64_t units(double n) {
  if (!(n > 0)) return 0;
  if (n > 1e15) n = 1e15;
  return (int64_t)ceil(n / (double)UNIT) * UNIT;
}

double sdk_mlmc_level_cost(const drv *d, int l) {
  return (double)(d->nsteps0 << l) * (d->te || l == 0 ? 1.0 : 1.5);
}

/* Giles' paths per level at grid point g from the variances measured, the
 * most over the quantities (unrounded), for the standard error (EPS - b) / 2
 * of each quantity (b its bias estimate: |bias| + 2 SE <= EPS; sim/mlmc.h),
 * and the largest bias estimate; *deeper when a level more is needed (a bias
 * estimate above EPS / sqrt(2)) or cheaper: the paths still to run with it
 * (its variance and cost per path level L's times 2^-beta and 2, its bias
 * 2^-p, at least --paths of it) cost less than those without it; *ahead
 * (where not NULL) the cost of the paths still to run, with the level more
 * where it is needed (the progress's estimate).  0 when a statistic is not
 * finite (the grid point blew up). */
int sdk_mlmc_optimal(const drv *d, int64_t g, double *need, double *bias, int *deeper,
                     double *ahead) {
  int64_t L = d->L[g];
  const double bmax = d->eps / sqrt(2.0);
  double need1[SDK_MLMC_MAX_LEVELS + 1] = {0};
  *bias = 0, *deeper = 0;
  for (int l = 0; l <= L; l++)
    need[l] = 0;
  for (int q = 0; q < d->nq; q++) {
    double m[SDK_MLMC_MAX_LEVELS], V[SDK_MLMC_MAX_LEVELS + 1], sum = 0;
    for (int l = 0; l <= L; l++) {
      sdk_mlmc_stats(d, l, q, g, &m[l], &V[l]);
      if (!isfinite(m[l]) || !isfinite(V[l])) return 0;
      sum += sqrt(V[l] * sdk_mlmc_level_cost(d, l));
    }
    const double dec = d->q[q].decay;
    double b = fmax(fabs(m[L]), fabs(m[L - 1]) / dec) / (dec - 1);
    if (b > *bias) *bias = b;
    if (b > bmax) *deeper = 1;
    V[L + 1] = V[L] * pow(2.0, -d->beta);
    double se = (d->eps - fmin(b, bmax)) / 2, se1 = (d->eps - fmin(b, bmax) / dec) / 2;
    double sum1 = sum + sqrt(V[L + 1] * 2 * sdk_mlmc_level_cost(d, (int)L));
    for (int l = 0; l <= L + 1; l++) {
      double r =
          sqrt(V[l] / (l <= L ? sdk_mlmc_level_cost(d, l) : 2 * sdk_mlmc_level_cost(d, (int)L)));
      if (l <= L && r * sum / (se * se) > need[l]) need[l] = r * sum / (se * se);
      if (r * sum1 / (se1 * se1) > need1[l]) need1[l] = r * sum1 / (se1 * se1);
    }
  }
  double now = 0, next = fmax(need1[L + 1], (double)d->ninit) * 2 * sdk_mlmc_level_cost(d, (int)L);
  for (int l = 0; l <= L; l++) {
    double u = (double)d->lev[l].used[g];
    now += fmax(need[l] - u, 0) * sdk_mlmc_level_cost(d, l),
        next += fmax(need1[l] - u, 0) * sdk_mlmc_level_cost(d, l);
  }
  /* (a level more for a saving of 1% or more: never for nothing) */
  if (next < 0.99 * now) *deeper = 1;
  if (ahead) *ahead = *deeper ? next : now;
  return 1;
}

/* --mlmc at grid point g: a level more, or the paths each level lacks, or done */
static sdk_err mlmc_decide(drv *d, int64_t g, sdk_errbuf *eb) {
  int64_t L = d->L[g];
  double need[SDK_MLMC_MAX_LEVELS], bias, ahead;
  int deeper;
  if (!sdk_mlmc_optimal(d, g, need, &bias, &deeper, &ahead)) {
    d->status[g] = SDK_MLMC_ST_NAN, d->done[g] = 1;
    return SDK_OK;
  }
  d->ahead += ahead;
  if (deeper && L + 1 < SDK_MLMC_MAX_LEVELS) {
    SDK_CHECK(add_level(d, (int)L + 1, eb));
    d->L[g] = L + 1;
    d->lev[L + 1].add[g] = d->ninit;
    return SDK_OK;
  }
  if (bias > d->eps / sqrt(2.0)) {
    d->status[g] = SDK_MLMC_ST_LEVELS, d->done[g] = 1;
    return SDK_OK;
  }
  int more = 0;
  for (int l = 0; l <= L; l++) {
    int64_t n = units(need[l]);
    d->lev[l].add[g] = n > d->lev[l].used[g] ? n - d->lev[l].used[g] : 0;
    more |= d->lev[l].add[g] > 0;
  }
  d->done[g] = !more;
  return SDK_OK;
}

/* --target-error at grid point g: a finer dt, more paths, or done.
 *
 * Done when every value meets |b| + 2 SE(b) <= EPS/2 and SE <= EPS/2 (b the
 * bias as te_bias takes it), never at the first dt.  Otherwise:
 *   - a bias too large at this dt beyond doubt, |b| - 2 SE(b) >= EPS/2: the
 *     next dt;
 *   - a bias above EPS/2 only within its noise: more paths here (4 times,
 *     which resolve it: deciding on a noisy few-path estimate halved dt
 *     where nothing called for it, at every level, in the first rule),
 *     unless the next dt costs less: a bias at EPS/2 itself is never
 *     resolved, and its paths grew fourfold a round without end;
 *   - else the cheaper of two ways by the deterministic cost model (paths
 *     times steps, level_cost): more paths at this dt, enough for the
 *     per-path spreads s_b = SE(b) sqrt(n), s_v = SE sqrt(n) to meet both
 *     bounds given b; or the next dt, whose bias is b over the decay seen
 *     (2^p, or less: te_factor) and whose spreads are taken as these (no
 *     shrinking assumed: the coupled difference of chaotic paths does not
 *     shrink with dt), at twice the cost per path.
 * More paths at this dt: at least 1/16 more, at most 16 times (the spreads
 * come from those run). */
typedef struct te_need {
  double stay, finer; /* paths needed at this dt, at dt / 2 (HUGE_VAL: never) */
} te_need;

static te_need te_paths(const drv *d, int q, double b, double be, double se, double n, double f) {
  const double half = d->eps / 2, sb = be * sqrt(n), sv = se * sqrt(n);
  const double nv = (sv / half) * (sv / half), bf = fabs(b) / ((d->q[q].decay - 1) / f + 1);
  te_need t = {HUGE_VAL, HUGE_VAL};
  if (fabs(b) < half) t.stay = fmax(nv, pow(2 * sb / (half - fabs(b)), 2));
  if (bf < half) t.finer = fmax(nv, pow(2 * sb / (half - bf), 2));
  return t;
}

/* The factor (>= 1) on quantity q's Richardson estimate at grid point g's
 * dt: (2^p - 1) / (r - 1) when the coupled differences D of the two finest
 * dts run fell by a ratio r, at its one-sigma lower bound (|D_prev| -
 * SE) / (|D| + SE), of less than 2^p (floored at 2: weak order 1); 1 at the
 * first dt, when the previous difference is within its SE of zero (no decay
 * to see), or when the decay is of the scheme's order.  The estimate assumes
 * dt in the asymptotic regime, where the bias falls 2^p-fold per halving;
 * the Josephson junction's <<v>> under srk2 (p = 2) falls 2.3-fold between
 * 50 and 100 steps per period, where the plain estimate is a third of the
 * bias: the measured decay keeps the bound honest there. */
static double te_factor(const drv *d, int64_t g, int q) {
  int64_t k = d->L[g];
  if (k < 1) return 1;
  const sdk_results *R = &d->lev[k].run->r, *P = &d->lev[k - 1].run->r;
  double b = fabs(sdk_mlmc_at(R, d->q[q].bias, g)), be = sdk_mlmc_at(R, d->q[q].bias_err, g);
  double bp = fabs(sdk_mlmc_at(P, d->q[q].bias, g)), bep = sdk_mlmc_at(P, d->q[q].bias_err, g);
  if (!(bp - bep > 0) || !isfinite(b + be)) return 1;
  double r = (bp - bep) / (b + be), den = d->q[q].decay - 1;
  if (!(r - 1 < den)) return 1;
  return den / fmax(r - 1, fmin(1, den));
}

/* Quantity q's bias at grid point g's dt as the decision takes it: the
 * estimate times te_factor, and at least the previous dt's estimate over
 * 2^p, at its two-sigma lower bound (Giles' guard, as --mlmc's: a
 * difference near zero by chance right after a large one is not taken for a
 * small bias); *be its SE (times the factor), *factor the factor.  |*b| + 2 *be <= EPS / 2 is the
 * bound the run verifies. */
double sdk_mlmc_te_bias(const drv *d, int64_t g, int q, double *be, double *factor) {
  int64_t k = d->L[g];
  const sdk_results *R = &d->lev[k].run->r;
  double f = te_factor(d, g, q), b = fabs(sdk_mlmc_at(R, d->q[q].bias, g)) * f;
  *factor = f;
  *be = sdk_mlmc_at(R, d->q[q].bias_err, g) * f;
  if (k >= 1) {
    const sdk_results *P = &d->lev[k - 1].run->r;
    double bp = fabs(sdk_mlmc_at(P, d->q[q].bias, g)) - 2 * sdk_mlmc_at(P, d->q[q].bias_err, g);
    b = fmax(b, bp / d->q[q].decay);
  }
  return b;
}

static sdk_err te_decide(drv *d, int64_t g, sdk_errbuf *eb) {
  int64_t k = d->L[g];
  const sdk_results *R = &d->lev[k].run->r;
  const double half = d->eps / 2, n = (double)d->lev[k].used[g];
  te_need need = {0, 0};
  int met = 1, sure = 0, unsure = 0;
  for (int q = 0; q < d->nq; q++) {
    double be, f, b = sdk_mlmc_te_bias(d, g, q, &be, &f), se = sdk_mlmc_at(R, d->q[q].err, g);
    if (!isfinite(b) || !isfinite(be) || !isfinite(se)) {
      d->status[g] = SDK_MLMC_ST_NAN, d->done[g] = 1;
      return SDK_OK;
    }
    if (fabs(b) + 2 * be <= half && se <= half) continue;
    met = 0;
    sure |= fabs(b) - 2 * be >= half, unsure |= fabs(b) >= half;
    te_need t = te_paths(d, q, b, be, se, n, f);
    need.stay = fmax(need.stay, t.stay), need.finer = fmax(need.finer, t.finer);
  }
  /* (never done at the first dt: a bias is trusted once its decay over a
   * halving has been seen, te_factor and te_bias) */
  if (met && k > 0) {
    d->done[g] = 1;
    return SDK_OK;
  }
  const double least = fmax(n / 16, UNIT);
  double stay = (unsure ? 3 * n : fmax(need.stay - n, least)) * sdk_mlmc_level_cost(d, (int)k);
  double finer = fmax(need.finer, (double)d->ninit) * 2 * sdk_mlmc_level_cost(d, (int)k);
  if (met || sure || !(stay <= finer)) {
    if (k + 1 >= SDK_MLMC_MAX_LEVELS) {
      d->status[g] = SDK_MLMC_ST_LEVELS, d->done[g] = 1;
      return SDK_OK;
    }
    SDK_CHECK(add_level(d, (int)k + 1, eb));
    d->L[g] = k + 1;
    d->lev[k + 1].add[g] = d->ninit;
    return SDK_OK;
  }
  double want = unsure ? 4 * n : fmin(fmax(need.stay, n + least), 16 * n);
  d->lev[k].add[g] = units(want) - d->lev[k].used[g];
  if (d->lev[k].add[g] < UNIT) d->lev[k].add[g] = UNIT;
  return SDK_OK;
}

/* ---- checkpoints: the driver's state (record TGTS), the current level's
 * carry in record CARY (sim/checkpoint.h) ---- */

static const char MAGIC[8] = {'S', 'D', 'K', 'M', 'L', 'M', 'C', '1'};
enum { NHEAD = 8 };

/* "SDKMLMC1", i64 te, nlev, cur, ngrid, key, nsteps0, nq, 0, f64 path_steps,
 * seconds, i64 L, status, done [ngrid], then per level i64 ran, used, add
 * [ngrid], the carry's length (0: the current level's, in CARY, or a level
 * never run) and its bytes */
static sdk_err pack(drv *d, sdk_errbuf *eb) {
  size_t n = 8 + 8 * NHEAD + 16 + 24 * (size_t)d->ngrid, len[SDK_MLMC_MAX_LEVELS] = {0};
  unsigned char *carry[SDK_MLMC_MAX_LEVELS] = {0};
  sdk_err e = SDK_OK;
  for (int l = 0; l < d->nlev; l++) {
    if (e == SDK_OK && l != d->cur && d->lev[l].ran)
      e = sdk_carry_pack(d->lev[l].carry, &carry[l], &len[l], eb);
    n += 8 + 16 * (size_t)d->ngrid + 8 + len[l];
  }
  unsigned char *b = e == SDK_OK ? malloc(n) : NULL, *at = b;
  if (e == SDK_OK && !b) e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (e == SDK_OK) {
    int64_t head[NHEAD] = {d->te, d->nlev, d->cur, d->ngrid, d->key, d->nsteps0, d->nq, 0};
    double f[2] = {d->path_steps, d->seconds};
    size_t ng = 8 * (size_t)d->ngrid;
    memcpy(at, MAGIC, 8), at += 8;
    memcpy(at, head, sizeof head), at += sizeof head;
    memcpy(at, f, 16), at += 16;
    memcpy(at, d->L, ng), at += ng;
    memcpy(at, d->status, ng), at += ng;
    for (int64_t g = 0; g < d->ngrid; g++, at += 8) {
      int64_t x = d->done[g];
      memcpy(at, &x, 8);
    }
    for (int l = 0; l < d->nlev; l++) {
      int64_t ran = d->lev[l].ran, nc = (int64_t)len[l];
      memcpy(at, &ran, 8), at += 8;
      memcpy(at, d->lev[l].used, ng), at += ng;
      memcpy(at, d->lev[l].add, ng), at += ng;
      memcpy(at, &nc, 8), at += 8;
      if (len[l]) memcpy(at, carry[l], len[l]), at += len[l];
    }
    free(d->packed);
    d->packed = b, d->npacked = n;
  }
  for (int l = 0; l < d->nlev; l++)
    free(carry[l]);
  return e;
}

/* the bytes of `n` from *at, within end */
static int take(const unsigned char **at, const unsigned char *end, void *v, size_t n) {
  if ((size_t)(end - *at) < n) return 0;
  if (n) memcpy(v, *at, n);
  *at += n;
  return 1;
}

static int level_ok(const drv *d, const level *v) {
  for (int64_t g = 0; g < d->ngrid; g++)
    if (v->used[g] < 0 || v->add[g] < 0 || v->used[g] > d->key - v->add[g] || v->used[g] % UNIT ||
        v->add[g] % UNIT)
      return 0;
  return 1;
}

static sdk_err unpack(drv *d, const sdk_ckpt *k, sdk_errbuf *eb) {
  const unsigned char *at = k->target, *end = at ? at + k->ntarget : NULL;
  char magic[8];
  int64_t head[NHEAD];
  double f[2];
  if (!at || !k->carry || !take(&at, end, magic, 8) || memcmp(magic, MAGIC, 8) ||
      !take(&at, end, head, sizeof head) || head[0] != d->te)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "checkpoint '%s' holds no state of a run of %s, or another one's: finish it "
                    "with the command that wrote it",
                    d->base.checkpoint ? d->base.checkpoint : "?", d->opt);
  if (head[5] != d->nsteps0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s cannot be extended (--t-end, --periods): its levels' paths end at step "
                    "%lld of the first dt; start a new run",
                    d->opt, (long long)head[5]);
  size_t ng = 8 * (size_t)d->ngrid;
  int ok = head[1] >= 1 && head[1] <= SDK_MLMC_MAX_LEVELS && head[2] >= 0 && head[2] < head[1] &&
           head[3] == d->ngrid && head[4] == d->key && take(&at, end, f, 16) &&
           take(&at, end, d->L, ng) && take(&at, end, d->status, ng);
  for (int64_t g = 0; ok && g < d->ngrid; g++) {
    int64_t x = -1;
    ok = take(&at, end, &x, 8) && (x == 0 || x == 1) && d->L[g] >= 0 && d->L[g] < head[1] &&
         d->status[g] >= 0 && d->status[g] < SDK_MLMC_ST_COUNT;
    d->done[g] = (unsigned char)x;
  }
  for (int l = 0; ok && l < head[1]; l++) {
    SDK_CHECK(add_level(d, l, eb));
    level *v = &d->lev[l];
    int64_t ran = -1, nc = -1;
    ok = take(&at, end, &ran, 8) && (ran == 0 || ran == 1) && take(&at, end, v->used, ng) &&
         take(&at, end, v->add, ng) && level_ok(d, v) && take(&at, end, &nc, 8) && nc >= 0 &&
         nc <= end - at && (nc > 0) == (ran && l != head[2]);
    v->ran = (int)ran;
    if (ok && nc > 0) SDK_CHECK(sdk_carry_unpack(v->carry, at, (size_t)nc, eb));
    at += ok ? nc : 0;
  }
  if (!ok || at != end || !any_add(d, (int)head[2]))
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint is corrupt (state of %s)", d->opt);
  d->cur = (int)head[2];
  d->path_steps = f[0], d->seconds = f[1], d->before = f[1];
  return sdk_carry_unpack(d->lev[d->cur].carry, k->carry, k->ncarry, eb);
}

/* A resumed driver: the results of its levels that ran before the current
 * one (from their carries), the current window from the checkpoint, then
 * the rest of its round. */
static sdk_err resume_round(drv *d, const sdk_ckpt *k, sdk_errbuf *eb) {
  SDK_CHECK(unpack(d, k, eb));
  int cur = d->cur;
  for (int l = 0; l < d->nlev; l++)
    if (l != cur && d->lev[l].ran && (l < cur || !any_add(d, l)))
      SDK_CHECK(run_level(d, l, NULL, 1, eb));
  SDK_CHECK(run_level(d, cur, k, 0, eb));
  for (int l = cur + 1; l < d->nlev; l++)
    SDK_CHECK(run_level(d, l, NULL, 0, eb));
  return SDK_OK;
}

/* Level l's seconds per path: those its own windows took in this process,
 * or for a level not timed yet (new, or resumed) the seconds per unit of
 * the cost model (level_cost) of the levels timed, times its cost (of the
 * runs' steps where none is).  The one rate over all levels undercut a
 * round of many paths on level 0 fivefold (GBM at dt_0 = 1/4, 4 steps a
 * path: the fixed cost per path is not the steps'). */
static double level_rate(const drv *d, int l) {
  const level *v = &d->lev[l];
  if (v->timed > 0) return v->secs / (double)v->timed;
  double secs = 0, units = 0, done = 0;
  for (int k = 0; k < d->nlev; k++) {
    secs += d->lev[k].secs, units += (double)d->lev[k].timed * sdk_mlmc_level_cost(d, k);
    for (int64_t g = 0; g < d->ngrid; g++)
      done += (double)d->lev[k].used[g] * sdk_mlmc_level_cost(d, k);
  }
  if (units > 0) return secs / units * sdk_mlmc_level_cost(d, l);
  return d->seconds / fmax(done, 1) * sdk_mlmc_level_cost(d, l);
}

/* the seconds the round about to run would take */
static double round_seconds(const drv *d) {
  double t = 0;
  for (int l = 0; l < d->nlev; l++) {
    double add = 0;
    for (int64_t g = 0; g < d->ngrid; g++)
      add += (double)d->lev[l].add[g];
    if (add > 0) t += add * level_rate(d, l) + (d->lev[l].opened ? 0 : d->setup);
  }
  return t;
}

/* The round's windows.  Under --max-seconds each level's in pieces of about
 * a sixteenth of the bound (at its seconds per path), the clock read after
 * each, rank 0's for all: a piece that ends past the bound ends the round
 * (*late), its paths kept.  A round priced right still ran 19 s of a 6 s
 * bound where the machine slowed under other work (GBM: 4.3e8 paths of
 * level 0 in one window, beside two compilers). */
static sdk_err run_round(drv *d, int *late, sdk_errbuf *eb) {
  *late = 0;
  if (!(d->base.max_seconds > 0)) {
    for (int l = 0; l < d->nlev; l++)
      SDK_CHECK(run_level(d, l, NULL, 0, eb));
    return SDK_OK;
  }
  int64_t *rest = malloc((size_t)d->ngrid * sizeof *rest);
  if (!rest) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = SDK_OK;
  for (int l = 0; e == SDK_OK && !*late && l < d->nlev; l++) {
    level *v = &d->lev[l];
    for (;;) {
      double add = 0, rate = level_rate(d, l);
      for (int64_t g = 0; g < d->ngrid; g++)
        add += (double)v->add[g];
      if (add <= 0 || (e = sdk_comm_bcast(d->base.comm, &rate, sizeof rate, 0, eb)) != SDK_OK)
        break;
      const double f = fmin(1, d->base.max_seconds / 16 / fmax(rate, 1e-300) / add);
      int64_t piece = 0;
      for (int64_t g = 0; g < d->ngrid; g++) {
        int64_t a = v->add[g], p = f < 1 ? cut(a, f) : a;
        v->add[g] = p, rest[g] = a - p, piece += p;
      }
      for (int64_t g = 0; !piece && g < d->ngrid; g++) /* (at least a chunk a grid point) */
        v->add[g] = rest[g] < UNIT ? rest[g] : UNIT, rest[g] -= v->add[g];
      if ((e = run_level(d, l, NULL, 0, eb)) != SDK_OK) break;
      for (int64_t g = 0; g < d->ngrid; g++)
        v->add[g] = rest[g];
      double spent = d->before + sdk_now_s() - d->began;
      if ((e = sdk_comm_bcast(d->base.comm, &spent, sizeof spent, 0, eb)) != SDK_OK) break;
      if (spent > d->base.max_seconds) {
        *late = 1;
        break;
      }
    }
  }
  free(rest);
  return e;
}

/* Grid point g's finest level back to L0 where the level above it was just
 * added and neither ran nor will run a path. */
static void drop_unrun_level(drv *d, int64_t g, int64_t L0) {
  const int64_t l = d->L[g];
  if (l > L0 && d->lev[l].used[g] + d->lev[l].add[g] == 0) d->L[g] = L0;
}

/* Under --max-seconds a level's round runs at most 8 times the paths its
 * windows have been timed on: its seconds per path grow with a window's
 * size (memory: GBM's level 0 took 9.6e-9 s a path in a window of 1.6e7
 * paths and 1.5e-8 s in one of 2.8e8), so a round is priced near what was
 * measured and the next round prices it again. */
static void cap_growth(drv *d) {
  for (int l = 0; l < d->nlev; l++) {
    level *v = &d->lev[l];
    double add = 0;
    for (int64_t g = 0; g < d->ngrid; g++)
      add += (double)v->add[g];
    if (v->timed <= 0 || add <= 8.0 * (double)v->timed) continue;
    const double f = 8.0 * (double)v->timed / add;
    for (int64_t g = 0; g < d->ngrid; g++)
      v->add[g] = cut(v->add[g], f);
  }
}

/* A round that would end past --max-seconds: its paths times f (< 1), whole
 * chunks, a level just added that gets none dropped again; 0 when no paths
 * are left to run (the bound is reached). */
static int shrink_round(drv *d, const int64_t *L0, double f) {
  int any = 0;
  for (int64_t g = 0; g < d->ngrid; g++) {
    if (d->done[g]) continue;
    for (int l = 0; l <= d->L[g]; l++) {
      int64_t *a = &d->lev[l].add[g];
      *a = cut(*a, f);
      any |= *a > 0;
    }
    drop_unrun_level(d, g, L0[g]);
  }
  return any;
}

/* After grid point g's decision (its finest level was L0 before it): where
 * the paths it asks for would take its paths over all levels past
 * --max-paths, the round is cut to the paths that fit (each level's share
 * in proportion, whole chunks); where none fit, or the seconds are spent,
 * it stops with what it has (a level just added for it, not yet run, is
 * dropped), its status saying which bound.  --max-paths leaves every
 * decision a function of (seed, settings, EPS); --max-seconds does not
 * (target/timing_dependent, mlmc/timing_dependent). */
static void stop_at_bound(drv *d, int64_t g, int64_t L0, int out_of_time) {
  int64_t used = 0, add = 0;
  for (int l = 0; l <= d->L[g]; l++)
    used += d->lev[l].used[g], add += d->lev[l].add[g];
  int over = d->base.max_paths > 0 && used + add > d->base.max_paths;
  if (over && !out_of_time) {
    const double f = (double)(d->base.max_paths - used) / (double)add;
    int64_t left = 0;
    for (int l = 0; l <= d->L[g]; l++) {
      int64_t *a = &d->lev[l].add[g];
      *a = cut(*a, f);
      left += *a;
    }
    drop_unrun_level(d, g, L0);
    if (left > 0) return;
  }
  if (!out_of_time && !over) return;
  for (int l = 0; l <= d->L[g]; l++)
    d->lev[l].add[g] = 0;
  drop_unrun_level(d, g, L0);
  d->status[g] = over ? SDK_MLMC_ST_MAX_PATHS : SDK_MLMC_ST_MAX_SECONDS;
  d->done[g] = 1;
}

static sdk_err iterate(drv *d, sdk_errbuf *eb) {
  if (d->base.resume) {
    SDK_CHECK(resume_round(d, d->base.resume, eb));
  } else {
    for (int l = 0; l < (d->te ? 1 : 3); l++) {
      SDK_CHECK(add_level(d, l, eb));
      for (int64_t g = 0; g < d->ngrid; g++)
        d->lev[l].add[g] = d->ninit;
    }
    for (int64_t g = 0; g < d->ngrid; g++)
      d->L[g] = d->te ? 0 : 2;
    for (int l = 0; l < d->nlev; l++)
      SDK_CHECK(run_level(d, l, NULL, 0, eb));
  }
  int64_t *L0 = malloc((size_t)d->ngrid * sizeof *L0);
  if (!L0) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = SDK_OK;
  for (;;) {
    int left = 0;
    memcpy(L0, d->L, (size_t)d->ngrid * sizeof *L0);
    d->ahead = 0;
    for (int64_t g = 0; e == SDK_OK && g < d->ngrid; g++)
      if (!d->done[g]) e = d->te ? te_decide(d, g, eb) : mlmc_decide(d, g, eb);
    int out_of_time = 0;
    if (e == SDK_OK && d->base.max_seconds > 0) {
      /* the seconds spent (the wall clock's: compiling a level's kernels
       * counts) and those the round would take (round_seconds), rank 0's
       * clock deciding for all */
      cap_growth(d);
      double spent[2] = {d->before + sdk_now_s() - d->began, round_seconds(d)};
      e = sdk_comm_bcast(d->base.comm, spent, sizeof spent, 0, eb);
      const double rest = d->base.max_seconds - spent[0];
      out_of_time = rest <= 0 || (spent[1] > rest && !shrink_round(d, L0, rest / spent[1]));
    }
    for (int64_t g = 0; e == SDK_OK && g < d->ngrid; g++) {
      if (!d->done[g]) stop_at_bound(d, g, L0[g], out_of_time);
      left |= !d->done[g];
    }
    if (e != SDK_OK || !left) break;
    /* the whole run's work as the progress now sees it: the round as planned,
     * or (--mlmc) the cost Giles' rule now expects to the end, with the level
     * it adds (a later round may find more) */
    double round = 0;
    for (int l = 0; l < d->nlev; l++)
      for (int64_t g = 0; g < d->ngrid; g++)
        round += (double)d->lev[l].add[g] * sdk_mlmc_level_cost(d, l);
    d->wp.total = d->wp.done + (d->te ? round : fmax(round, d->ahead)), d->wp.on = 1;
    int late = 0;
    if ((e = run_round(d, &late, eb)) != SDK_OK) break;
    for (int64_t g = 0; late && g < d->ngrid; g++) /* (every grid point still going) */
      if (!d->done[g]) stop_at_bound(d, g, L0[g], 1);
    if (late) break;
  }
  free(L0);
  return e;
}

/* ---- what the caller may not combine with it ---- */

static sdk_err check_config(const drv *d, const sdk_run_config *c, sdk_errbuf *eb) {
  if (c->mlmc > 0 && c->target_error > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--mlmc and --target-error are two ways to the same error: give one");
  if (c->target_se != 0 || c->target_rse != 0 || c->target_on)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s chooses the paths itself: leave out --target-se, --target-rse and "
                    "--target-on (--max-paths and --max-seconds bound it)",
                    d->opt);
  if (c->window || c->carry)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s makes its own windows of paths", d->opt);
  if (c->extrapolate && d->te)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--target-error reports the values at the dt it chooses, their bias in "
                    "bias_* (it runs --dt-check, which may be given): leave out --extrapolate");
  if (!d->te && (c->extrapolate || c->dt_check))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--mlmc measures the time-step bias itself: leave out %s",
                    !c->extrapolate ? "--dt-check"
                    : c->dt_check   ? "--dt-check and --extrapolate"
                                    : "--extrapolate");
  if (c->obs.nsave > 0 || c->sample_times) /* (levels sample at t = 0 and t_end alone) */
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: --%s cannot be combined with it", d->opt,
                    c->obs.nsave > 0 ? "save-paths" : "sample-times");
  const sdk_obs_type *t[SDK_MAX_OBSERVABLES];
  int n = 0;
  SDK_CHECK(sdk_run_config_observables(c, t, &n, eb));
  for (int i = 0; i < n; i++)
    /* (fpt's values are exit times and ratios of the absorbed paths, not
     * expectations at t_end whose level differences add up: --target-error
     * takes them, --mlmc does not) */
    if (!(t[i]->flags & SDK_OBS_BIAS) || (!d->te && (t[i]->flags & SDK_OBS_BOUNDARIES)))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s estimates expectations at t_end and time averages (--observe moments, "
                      "expr, tavg, drift); --observe %s is not one: leave it out",
                      d->opt, t[i]->name);
  return SDK_OK;
}

sdk_err sdk_mlmc_execute(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb) {
  *out = NULL;
  drv *d = calloc(1, sizeof *d);
  if (!d) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  d->base = *c;
  d->began = sdk_now_s();
  d->te = !(c->mlmc > 0);
  d->eps = d->te ? c->target_error : c->mlmc;
  d->opt = d->te ? "--target-error" : "--mlmc";
  d->base.mlmc = d->base.target_error = 0;
  d->wp.fn = c->progress, d->wp.user = c->progress_user;
  sdk_err e = check_config(d, c, eb);
  if (e == SDK_OK) e = probe(d, eb);
  if (e == SDK_OK && units((double)c->paths) > d->key)
    e = SDK_FAIL(eb, SDK_ERR_USAGE,
                 "--paths %lld: %s runs at most %lld paths on each %s of a grid point (2^34, "
                 "and 2^38 over all grid points)",
                 (long long)c->paths, d->opt, (long long)d->key, d->te ? "dt" : "level");
  /* (the results record the interval used: sample_every) */
  if (e == SDK_OK && c->sample_every > 0 && c->sample_every != d->nsteps0 &&
      sdk_comm_rank(c->comm) == 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: %s samples at t = 0 and t_end alone: --sample-every %lld is not "
            "used\n",
            d->opt, (long long)c->sample_every);
  if (e == SDK_OK) {
    d->ninit = units((double)c->paths) > UNIT ? units((double)c->paths) : UNIT;
    d->L = calloc((size_t)d->ngrid, sizeof *d->L);
    d->status = calloc((size_t)d->ngrid, sizeof *d->status);
    d->done = calloc((size_t)d->ngrid, 1);
    d->none = calloc((size_t)d->ngrid, sizeof *d->none);
    if (!d->L || !d->status || !d->done || !d->none)
      e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  /* (the first round runs whatever the bounds: --paths on each of its levels) */
  const int64_t first = d->ninit * (d->te ? 1 : 3);
  if (e == SDK_OK && c->max_paths > 0 && c->max_paths < first && !c->resume)
    e = SDK_FAIL(eb, SDK_ERR_USAGE,
                 "%s: --max-paths %lld is below the paths of its first round (%lld: --paths "
                 "rounded up to whole chunks of %d%s)",
                 d->opt, (long long)c->max_paths, (long long)first, UNIT,
                 d->te ? "" : ", on each of levels 0, 1 and 2");
  if (e == SDK_OK) e = iterate(d, eb);
  if (e == SDK_OK) e = d->te ? sdk_mlmc_record_te(d, out, eb) : sdk_mlmc_record_mlmc(d, out, eb);
  if (e == SDK_OK) sdk_window_progress_end(&d->wp);
  for (int l = 0; l < d->nlev; l++) {
    sdk_carry_destroy(&d->lev[l].carry);
    sdk_run_destroy(&d->lev[l].run);
    free(d->lev[l].used), free(d->lev[l].add);
  }
  free(d->L), free(d->status), free(d->done), free(d->none), free(d->packed);
  free(d);
  return e;
}
