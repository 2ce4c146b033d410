/* Which variables the compensated state update covers (issue 32).
 *
 * The rounding bias of x += incr in single precision (codegen.h) grows with
 * |x| / |incr|: it matters for a variable that drifts far from where it
 * started while its increments stay the same size, and not for one whose
 * value the dynamics hold in a range (there a rounding error is forgotten
 * over the relaxation time 1/|df/dx|, and the increments are not small
 * against the value).  The rule, from the model alone (decided when the
 * source is generated; --compensate all and --no-compensation override it):
 *
 *   compensated  a variable declared periodic ([model] periodic = x : P):
 *                a phase, which may wind without bound whatever its drift;
 *                a variable whose drift does not contain it (a pure
 *                integrator: a position x' = v, a phase x' = omega + ...,
 *                Brownian motion with drift): its value is the running sum
 *                of its increments, nothing pulls it back;
 *   plain        every other variable: its own drift depends on it (damping,
 *                a restoring force, growth x' = r x), so the error of a
 *                step is carried into the next ones only for the relaxation
 *                time, and the increment of a growing one grows with it.
 *
 * The limit: a variable whose self-dependence is too weak to matter over
 * the run (x' = mu - 1e-9 x to t = 1e4) is an integrator in all but name and
 * needs --compensate all.  A dependence through a sub-expression of another
 * variable is not seen here (only the drift's own tree); that can only err
 * towards compensating.  The carried rows stay those of every variable
 * (codegen.h), so a checkpoint's layout does not depend on the choice; a
 * plain variable's rows stay 0. */
#include "codegen/comp_vars.h"

#include <stdio.h>
#include <string.h>

static int uses_var(const sdk_expr *e, int v) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_VAR && e->index == v) return 1;
  for (int i = 0; i < 3; i++)
    if (uses_var(e->arg[i], v)) return 1;
  return 0;
}

sdk_cg_comp_why sdk_cg_comp_rule(const sdk_model *m, int v) {
  if (m->var_period && m->var_period[v]) return SDK_CG_COMP_PERIODIC;
  return uses_var(m->drift[v], v) ? SDK_CG_COMP_PLAIN : SDK_CG_COMP_INTEGRATOR;
}

int sdk_cg_comp_var(const sdk_codegen_opts *o, int v) {
  if (!o->compensate) return 0;
  return o->comp_all || sdk_cg_comp_rule(o->model, v) != SDK_CG_COMP_PLAIN;
}

int sdk_cg_comp_interleave(const sdk_codegen_opts *o) {
  /* (a small body: 8 copies of a large one would crowd the instruction cache) */
  if (o->target != SDK_TARGET_CPU || o->model->nvars > 4 || o->dt_check || o->adaptive) return 0;
  for (int v = 0; v < o->model->nvars; v++)
    if (sdk_cg_comp_var(o, v)) return 1;
  return 0;
}

void sdk_cg_comp_describe(const sdk_model *m, int all, char *buf, size_t n) {
  static const char *why[] = {"periodic", "its drift does not depend on it",
                              "its drift depends on it"};
  size_t len = 0;
  buf[0] = 0;
  if (all) {
    snprintf(buf, n, "every variable (--compensate all)");
    return;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int v = 0; v < m->nvars; v++) {
      sdk_cg_comp_why w = sdk_cg_comp_rule(m, v);
      if ((w == SDK_CG_COMP_PLAIN) != pass || len >= n) continue;
      len += (size_t)snprintf(buf + len, n - len, "%s%s %s (%s)", len ? ", " : "",
                              pass ? "plain" : "compensated", m->vars[v], why[w]);
    }
}
