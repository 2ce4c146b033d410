/* Which variables the compensated state update covers (issue 32).
 *
 * The plain update x += incr rounds to ulp(x)/2 every step (codegen.h,
 * "Compensated state update").  Where nothing pulls x back, those roundings
 * add up: a phase or a Brownian motion with drift run long loses digits in
 * proportion to the number of steps, and a slow relaxation whose increments
 * fall below half the float spacing does not move at all (x' = -1e-6 (x -
 * 2000) from 1000 at dt 0.01).  Where the drift pulls x back fast enough,
 * an error is forgotten within a bounded number of steps: with
 * x' = c x + g, g free of x and c dt <= -1/128, an error e_n of each step
 * evolves as d_{n+1} = (1 + c dt) d_n + e_n, so |d| <= max|e| / (|c| dt)
 * <= 128 ulp(x)/2 <= 2^-17 |x| ~ 7.6e-6 |x| at any time, however long the run
 * (the stall of a relaxation near its fixed point included).  The rule of
 * --compensate auto (decided when the source is generated; the default is
 * every variable, --compensate all):
 *
 *   plain        a variable whose drift is linear in it, c x + g, with c a
 *                number of the run (parameters neither scanned nor given per
 *                path, not t, not the state) and c dt <= -1/128 (it relaxes
 *                within 128 steps), no delayed value in its drift and no
 *                state in its noise (multiplicative noise adds c's
 *                fluctuation; a delay feeds the error back later), the
 *                model not declaring it periodic, dt the same for every grid
 *                point;
 *   compensated  every other variable: a phase (declared periodic), a pure
 *                integrator (x' = v: nothing pulls it back), a growth, a
 *                slow or state-dependent relaxation, a scanned rate.
 *
 * PROG1 (josephson): x compensated (periodic), v plain (v' = -gamma v + ...,
 * gamma dt = 0.0115).  Only the variable's own drift is read: an error of a
 * plain variable reaches the others through their drifts as any rounding of
 * the drift's evaluation does, and the bound above is on the variable itself.
 * Why it is not the default: the bound is relative to |x|, not to the
 * fluctuations, so a relaxation about a large offset (x' = -(x - 1e4) +
 * 0.01 xi) loses them, its increments about its float spacing (variance 40
 * times too large: test_numerics; found by a review).
 * The carried rows stay those of every variable (codegen.h), so a
 * checkpoint's layout does not depend on the choice; a plain variable's rows
 * stay 0. */
#include "codegen/comp_vars.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"

/* 1 / 128: a plain variable's rounding error stays below 2^-17 of it */
#define SDK_CG_COMP_RATE (1.0 / 128)

static int uses_var(const sdk_expr *e, int v) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_VAR && e->index == v) return 1;
  for (int i = 0; i < 3; i++)
    if (uses_var(e->arg[i], v)) return 1;
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

sdk_cg_comp_why sdk_cg_comp_rule(const sdk_codegen_opts *o, int v) {
  const sdk_model *m = o->model;
  if (m->var_period && m->var_period[v]) return SDK_CG_COMP_PERIODIC;
  if (!uses_var(m->drift[v], v)) return SDK_CG_COMP_INTEGRATOR;
  if (uses_delay(m->drift[v])) return SDK_CG_COMP_DELAYED;
  if (sdk_md_uses_state(m, m->noise[v])) return SDK_CG_COMP_STATE_NOISE;
  double c = self_rate(o, v);
  if (!isfinite(c) || o->dt_column >= 0) return SDK_CG_COMP_NOT_FIXED;
  return c * o->dt <= -SDK_CG_COMP_RATE ? SDK_CG_COMP_PLAIN : SDK_CG_COMP_SLOW;
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
      [SDK_CG_COMP_PLAIN] = "c dt <= -1/128: it relaxes within 128 steps"};
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
