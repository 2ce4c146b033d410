/* Which variables the compensated state update covers (issue 32).
 *
 * The plain update x += incr rounds to ulp(x)/2 every step (codegen.h,
 * "Compensated state update").  Where nothing pulls x back, those roundings
 * add up: a phase or a Brownian motion with drift run long loses digits in
 * proportion to the number of steps, and a slow relaxation whose increments
 * fall below half the float spacing does not move at all (x' = -1e-6 (x -
 * 2000) from 1000 at dt 0.01).  The rule (--compensate auto, the default;
 * --compensate all compensates every variable) updates a variable plainly
 * only where both of these hold:
 *
 * (1) Its error is forgotten.  Its drift is c x + g, g free of x, c a number
 *     of the run (parameters neither scanned nor given per path, not t, not
 *     the state; dt the same for every grid point) with c dt <= -1/128, no
 *     delayed value in its drift and x in it through no step (floor, %,
 *     a comparison, ...: their derivative 0 hides an offset), additive
 *     noise, not declared periodic.  An
 *     error e_n of each step then evolves as d_{n+1} = (1 + c dt) d_n + e_n,
 *     so |d| <= max|e| / (|c| dt) <= 128 ulp(x)/2 <= 2^-17 |x| at any time,
 *     however long the run.
 *
 * (2) Its rounding is noise far below its fluctuations.  (1) bounds the
 *     error against |x|, not against x's spread: about a large offset
 *     (x' = -(x - 1e4) + 0.01 xi) the increments are a few float spacings
 *     and the variance came out 16-40 times too large (a review;
 *     test_numerics).  So the variable must have a Gaussian increment of its
 *     own, s dW (the noise source continuous, noise.h; no jumps, Levy noise,
 *     event resets, reflecting walls or shared Wiener processes on it), with s sqrt(dt) >= 256
 *     q, q the float spacing at X, the largest |x| its drift, noise and
 *     start allow:
 *       X = 2 (max(X0, G / |c|) + 10 s_max / sqrt(|c|)),
 *     G = max |g| over the ranges of the parameters (scanned ones over the
 *     grid; t, the other variables and per-path values any finite float;
 *     sin, cos and the like bounded; a value
 *     fmin, fmax or a comparison may turn from NaN or inf into a number
 *     counted: model/expr_range.c), X0 the largest |start|
 *     ([init] uniform's ends, normal's mean + 10 standard deviations; data
 *     given as the start: unbounded), -1 <= c dt.  G / |c| bounds the
 *     recursion x' = c x + g without noise from a start inside it (Euler:
 *     exactly; the factor 2 covers the other schemes' amplification
 *     factors 1 + z + z^2/2 ... for -1 <= z < 0), s_max / sqrt(|c|) the
 *     noise-driven part's standard deviation (Euler's s^2 dt / (1 - (1 + c
 *     dt)^2) <= s^2 / |c|), 10 of them exceeded with probability 2e-23 a
 *     path and step.  Rounding fl(x + incr) onto a grid of spacing q <=
 *     q(X) when incr has a Gaussian part of standard deviation sigma >= 256
 *     q gives an error uniform on (-q/2, q/2) and independent of the past to
 *     within exp(-2 pi^2 (sigma/q)^2) (Widrow and Kollar, "Quantization
 *     noise", 2008, ch. 4-5: the characteristic function of the increment at
 *     2 pi / q): the rounding adds white noise of variance q^2/12 a step, which
 *     changes x's variance by the fraction (q / sigma)^2 / 12 <= 1.3e-6 and
 *     its mean not at all.  (Compensated, the drift sees x rounded to q/2
 *     too.)
 *
 * PROG1 (josephson): x compensated (periodic), v plain (gamma dt = 0.0115;
 * G = 2 pi + |a| + |f|, X = 2 (max(2, G / gamma) + 10 sqrt(2 D)): at the
 * paper's a = 4.2, D = 0.001 s sqrt(dt) = 0.0048 against 256 q = 4.9e-4).
 * Only the variable's own drift is read: an error of a plain variable
 * reaches the others through their drifts as any rounding of the drift's
 * evaluation does (as white noise of that variance).  The carried rows stay
 * those of every variable (codegen.h), so a checkpoint's layout does not
 * depend on the choice; a plain variable's rows stay 0. */
#include "codegen/comp_vars.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/noise.h"
#include "model/expr.h"
#include "model/model.h"

/* 1 / 128: a plain variable's rounding error stays below 2^-17 of it */
#define SDK_CG_COMP_RATE (1.0 / 128)
/* a plain variable's noise increment spans at least this many float spacings */
#define SDK_CG_COMP_SPAN 256.0
/* Gaussian values bounded at this many standard deviations */
#define SDK_CG_COMP_SIGMAS 10.0

static int uses_var(const sdk_expr *e, int v) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_VAR && e->index == v) return 1;
  for (int i = 0; i < 3; i++)
    if (uses_var(e->arg[i], v)) return 1;
  return 0;
}

/* Does x_v reach e through anything but arithmetic and analytic functions
 * (a step, a condition, fabs, fmin, atan2, fmod, a comparison, ...)?  Then
 * a constant derivative does not make the drift c x + g: -x + A
 * round(tanh(x)) has derivative -1 and sits at A, and so does -x - A
 * atan2(0, x) / pi below 0 (two reviews).  Analytic functions whose
 * derivative is constant are affine. */
static int steps_in_var(const sdk_expr *e, int v) {
  static const char *const analytic[] = {
      "sin",   "cos",  "tan",  "asin", "acos", "atan", "sinh",  "cosh",  "tanh", "exp", "log",
      "log10", "log2", "sqrt", "cbrt", "erf",  "erfc", "expm1", "log1p", "pow",  "fma", NULL};
  if (!e) return 0;
  int smooth = e->kind == SDK_E_NUM || e->kind == SDK_E_SYM ||
               (e->kind == SDK_E_UNARY && e->op != '!') ||
               (e->kind == SDK_E_BINARY && strchr("+-*/", e->op));
  for (int i = 0; e->kind == SDK_E_CALL && analytic[i]; i++)
    smooth = smooth || !strcmp(e->name, analytic[i]);
  if (!smooth && uses_var(e, v)) return 1;
  for (int i = 0; i < 3; i++)
    if (steps_in_var(e->arg[i], v)) return 1;
  return 0;
}

static int uses_delay(const sdk_expr *e) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_OTHER &&
      SDK_OTHER_KIND(e->index) == SDK_OTHER_DELAY)
    return 1;
  for (int i = 0; i < 3; i++)
    if (uses_delay(e->arg[i])) return 1;
  return 0;
}

/* a symbol's value where it is the same on every path of the run (a
 * parameter neither scanned nor given per path), else NaN (t, the state, a
 * noise: sdk_expr_eval then gives NaN, or a number where the symbol does
 * not matter, as in 0 * t) */
static double fixed_value(void *user, sdk_symkind kind, int index) {
  const sdk_codegen_opts *o = user;
  if (kind != SDK_SYM_PARAM || !sdk_cg_param_fixed(o, index)) return NAN;
  return o->pvalues[index];
}

/* c of a drift c x_v + g (g free of x_v), as a number of the run; NaN where
 * the drift is not of that form or c is not such a number */
static double self_rate(const sdk_codegen_opts *o, int v) {
  sdk_errbuf eb = {0};
  sdk_expr *d = NULL;
  if (sdk_expr_diff(o->model->drift[v], v, "", &d, &eb) != SDK_OK || !d) return NAN;
  double c = sdk_expr_eval(d, fixed_value, (void *)o);
  /* (a derivative in which a symbol other than a parameter survives, even
   * one multiplied by 0 at this run's values, is not a constant rate) */
  for (sdk_symkind k = SDK_SYM_VAR; k <= SDK_SYM_OTHER; k++)
    if (k != SDK_SYM_PARAM && k != SDK_SYM_CONST && sdk_expr_uses(d, k)) c = NAN;
  sdk_expr_destroy(&d);
  return c;
}

typedef struct {
  const sdk_codegen_opts *o;
  int v;
} range_ctx;

/* the range of a symbol over the run: x_v 0 (so that the drift's range is
 * g's), a fixed parameter its value, a scanned one its grid's extent, the
 * rest (t, the other variables, per-path values, noises) any finite float:
 * t too, so that the choice does not depend on the run's length (a
 * checkpoint extended to a longer --t-end keeps its kernel), and with a
 * periodic drive t is the absolute time outside the drive's sin and cos
 * (a review) */
static void run_range(void *user, sdk_symkind kind, int index, double *lo, double *hi) {
  const range_ctx *r = user;
  const sdk_codegen_opts *o = r->o;
  *lo = -INFINITY, *hi = INFINITY;
  if (kind == SDK_SYM_VAR && index == r->v) *lo = *hi = 0;
  if (kind != SDK_SYM_PARAM || (o->path_param && o->path_param[index] >= 0)) return;
  int col = o->scan_column[index];
  if (col < 0) {
    *lo = *hi = o->pvalues[index];
    return;
  }
  if (!o->sv || o->ngrid < 1) return;
  *lo = INFINITY, *hi = -INFINITY;
  for (int64_t g = 0; g < o->ngrid; g++) {
    double x = o->sv[g * o->nsv + col];
    *lo = fmin(*lo, x), *hi = fmax(*hi, x);
  }
}

/* the range of e over the run, with x_v at 0 (run_range) */
static void range_over_run(const sdk_codegen_opts *o, int v, const sdk_expr *e, double *lo,
                           double *hi) {
  range_ctx r = {o, v};
  sdk_expr_range(e, run_range, &r, lo, hi);
}

static double max_abs(const sdk_codegen_opts *o, int v, const sdk_expr *e) {
  if (!e) return 0;
  double lo, hi;
  range_over_run(o, v, e, &lo, &hi);
  return fmax(fabs(lo), fabs(hi));
}

/* the largest |start| of variable v; INFINITY where it is data */
static double start_bound(const sdk_codegen_opts *o, int v) {
  const sdk_init_spec *s = &o->model->init[v];
  if (o->init_given) return INFINITY;
  double a = max_abs(o, v, s->a), b = max_abs(o, v, s->b);
  return s->kind == SDK_INIT_CONST     ? a
         : s->kind == SDK_INIT_UNIFORM ? fmax(a, b)
                                       : a + SDK_CG_COMP_SIGMAS * b;
}

/* (2) of the rule above, for a variable that meets (1) with rate c */
static sdk_cg_comp_why spacing_rule(const sdk_codegen_opts *o, int v, double c) {
  const sdk_model *m = o->model;
  const sdk_noise_type *nz = o->noise ? o->noise : o->scheme ? o->scheme->noise : NULL;
  int own = nz && nz->continuous && m->nwiener == 0 && !sdk_model_levy_of(m, v);
  for (int i = 0; i < m->njump; i++)
    own = own && m->jump[i].var != v;
  /* (a reflecting wall moves x as a jump does: a start beyond it is
   * mirrored far from the bound below, a review) */
  for (int i = 0; i < m->nbound; i++)
    own = own && !(m->bound[i].var == v && m->bound[i].kind == SDK_BOUND_REFLECT);
  for (int i = 0; i < m->nevent; i++)
    for (int k = 0; k < m->event[i].nreset; k++)
      own = own && m->event[i].reset_var[k] != v;
  if (!own) return SDK_CG_COMP_NOT_GAUSSIAN;
  if (!m->noise[v]) return SDK_CG_COMP_SPACING;
  double lo, hi;
  range_over_run(o, v, m->noise[v], &lo, &hi);
  double smin = lo > 0 ? lo : hi < 0 ? -hi : 0, smax = fmax(fabs(lo), fabs(hi));
  double g = max_abs(o, v, m->drift[v]), k = -c;
  double X = 2 * (fmax(start_bound(o, v), g / k) + SDK_CG_COMP_SIGMAS * smax / sqrt(k));
  /* (--dt-check's coarse copy steps 2 dt: -1 <= c dt holds for it too) */
  if (!(X <= FLT_MAX) || k * o->dt * (o->dt_check ? 2 : 1) > 1) return SDK_CG_COMP_UNBOUNDED;
  int e;
  frexp(X, &e); /* X < 2^e: the float spacing there is at most 2^(e - 24), or 2^-126 (ftz) */
  double q = ldexp(1.0, e - 24 > -126 ? e - 24 : -126);
  return smin * sqrt(o->dt) >= SDK_CG_COMP_SPAN * q ? SDK_CG_COMP_PLAIN : SDK_CG_COMP_SPACING;
}

sdk_cg_comp_why sdk_cg_comp_rule(const sdk_codegen_opts *o, int v) {
  const sdk_model *m = o->model;
  if (m->var_period && m->var_period[v]) return SDK_CG_COMP_PERIODIC;
  if (!uses_var(m->drift[v], v)) return SDK_CG_COMP_INTEGRATOR;
  if (uses_delay(m->drift[v])) return SDK_CG_COMP_DELAYED;
  if (steps_in_var(m->drift[v], v)) return SDK_CG_COMP_NOT_FIXED;
  if (sdk_md_uses_state(m, m->noise[v])) return SDK_CG_COMP_STATE_NOISE;
  double c = self_rate(o, v);
  if (!isfinite(c) || o->dt_column >= 0) return SDK_CG_COMP_NOT_FIXED;
  return c * o->dt <= -SDK_CG_COMP_RATE ? spacing_rule(o, v, c) : SDK_CG_COMP_SLOW;
}

int sdk_cg_comp_var(const sdk_codegen_opts *o, int v) {
  if (!o->compensate) return 0;
  return o->comp_all || sdk_cg_comp_rule(o, v) != SDK_CG_COMP_PLAIN;
}

int sdk_cg_comp_interleave(const sdk_codegen_opts *o) {
  /* (a small body: 8 copies of a large one would crowd the instruction cache) */
  if (o->target != SDK_TARGET_CPU || o->model->nvars > 4 || o->dt_check || o->adaptive) return 0;
  for (int v = 0; v < o->model->nvars; v++)
    if (sdk_cg_comp_var(o, v)) return 1;
  return 0;
}

void sdk_cg_comp_describe(const sdk_codegen_opts *o, char *buf, size_t n) {
  static const char *why[] = {
      [SDK_CG_COMP_PERIODIC] = "periodic",
      [SDK_CG_COMP_INTEGRATOR] = "its drift does not depend on it",
      [SDK_CG_COMP_DELAYED] = "a delayed value in its drift",
      [SDK_CG_COMP_STATE_NOISE] = "its noise depends on the state",
      [SDK_CG_COMP_NOT_FIXED] = "its drift is not c x + terms without x with c and dt the same "
                                "on every path",
      [SDK_CG_COMP_SLOW] = "c dt > -1/128: it does not relax within 128 steps",
      [SDK_CG_COMP_NOT_GAUSSIAN] = "its noise is not a Gaussian increment of its own (jumps, "
                                   "Levy, resets, reflecting walls, shared Wiener processes, "
                                   "--noise three-point)",
      [SDK_CG_COMP_UNBOUNDED] = "no bound on |x| follows from its drift, noise and start",
      [SDK_CG_COMP_SPACING] = "its own Gaussian noise increments (none without noise) span fewer "
                              "than 256 float spacings at the "
                              "largest |x| its drift, noise and start allow",
      [SDK_CG_COMP_PLAIN] = "it relaxes within 128 steps, its noise increments spanning >= 256 "
                            "float spacings"};
  const sdk_model *m = o->model;
  size_t len = 0;
  buf[0] = 0;
  if (o->comp_all) {
    snprintf(buf, n, "every variable (--compensate all)");
    return;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int v = 0; v < m->nvars; v++) {
      sdk_cg_comp_why w = sdk_cg_comp_rule(o, v);
      if ((w == SDK_CG_COMP_PLAIN) != pass || len >= n) continue;
      len += (size_t)snprintf(buf + len, n - len, "%s%s %s (%s)", len ? ", " : "",
                              pass ? "plain" : "compensated", m->vars[v], why[w]);
    }
}
