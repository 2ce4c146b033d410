/* [boundaries] NAME = absorb COND | reflect COND (model.h).
 *
 * COND is read with the expression grammar and must be one comparison of a
 * variable with an expression in the parameters: VAR >= E, VAR > E,
 * VAR <= E, VAR < E, or the same written the other way round (E <= VAR is
 * VAR >= E).  The generator emits the test and the mirror itself
 * (codegen/boundary.c), so nothing but this shape is accepted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/model_internal.h"
#include "rng/philox.h"

/* the comparison's operator seen from the variable's side: 1 upper, 0
 * lower, -1 not an ordering; *strict for > and < */
static int side_of(int op, int var_left, int *strict) {
  *strict = op == '<' || op == '>';
  int upper = op == '>' || op == 'G' ? 1 : op == '<' || op == 'L' ? 0 : -1;
  if (upper < 0) return -1;
  return var_left ? upper : !upper;
}

static int is_var(const sdk_expr *e) {
  return e->kind == SDK_E_SYM && e->sym == SDK_SYM_VAR;
}

/* Split the parsed comparison into the boundary b (var, side, level);
 * `what` starts the message of a wrong shape. */
static sdk_err shape(const sdk_model *m, sdk_expr *e, const char *where, const char *what,
                     sdk_boundary *b, sdk_errbuf *eb) {
  int strict = 0, side = -1, left = 0;
  if (e->kind == SDK_E_BINARY) {
    left = is_var(e->arg[0]);
    if (left || is_var(e->arg[1])) side = side_of(e->op, left, &strict);
  }
  if (side < 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: expected %sa comparison of one variable with an expression in the "
                    "parameters (VAR >= E, VAR > E, VAR <= E or VAR < E)",
                    where, what);
  sdk_expr *level = e->arg[left ? 1 : 0];
  if (sdk_expr_uses(level, SDK_SYM_VAR) || sdk_expr_uses(level, SDK_SYM_TIME))
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: the level of a boundary may use the parameters only (not a variable or t)",
                    where);
  b->var = e->arg[left ? 0 : 1]->index;
  b->upper = side;
  b->strict = strict;
  b->level = level;
  e->arg[left ? 1 : 0] = NULL; /* moved into b */
  (void)m;
  return SDK_OK;
}

sdk_err sdk_md_comparison(const sdk_model *m, const char *text, const char *where, const char *what,
                          sdk_boundary *b, sdk_errbuf *eb) {
  sdk_expr *e = NULL;
  SDK_CHECK(sdk_md_expr_at(m, text, where, SDK_MD_VARS | SDK_MD_TIME, &e, eb));
  sdk_err err = shape(m, e, where, what, b, eb);
  sdk_expr_destroy(&e);
  return err;
}

sdk_err sdk_md_entry(const sdk_model *m, const char *section, const char *name, int line, int count,
                     int max, const char *what, char *where, size_t wsize, sdk_errbuf *eb) {
  snprintf(where, wsize, "%s:%d: [%s] %.64s", m->path, line, section, name);
  if (count >= max)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: more than %d entries in [%s] (the limit)", where, max,
                    section);
  /* any identifier, floor and exp too: it never meets an expression */
  if (strlen(name) > SDK_MODEL_MAX_NAME || !sdk_name_valid(name))
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%.64s' cannot be the name of %s", where, name, what);
  return SDK_OK;
}

sdk_err sdk_md_add_boundary(sdk_model *m, const char *name, const char *text, int line,
                            sdk_errbuf *eb) {
  char where[256];
  SDK_CHECK(sdk_md_entry(m, "boundaries", name, line, m->nbound, SDK_MODEL_MAX_BOUNDARIES,
                         "a boundary", where, sizeof where, eb));
  /* the kind, then the comparison */
  while (*text == ' ' || *text == '\t')
    text++;
  sdk_boundary b = {.line = line};
  const char *rest;
  if (!strncmp(text, "absorb", 6) && (text[6] == ' ' || text[6] == '\t')) {
    b.kind = SDK_BOUND_ABSORB;
    rest = text + 6;
  } else if (!strncmp(text, "reflect", 7) && (text[7] == ' ' || text[7] == '\t')) {
    b.kind = SDK_BOUND_REFLECT;
    rest = text + 7;
  } else {
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: expected 'absorb' or 'reflect' and a comparison (e.g. absorb x >= L)",
                    where);
  }
  SDK_CHECK(sdk_md_comparison(m, rest, where, "'absorb' or 'reflect' and ", &b, eb));
  for (int i = 0; i < m->nbound; i++) {
    const sdk_boundary *o = &m->bound[i];
    if (o->var == b.var && o->upper == b.upper && o->kind != b.kind) {
      sdk_expr_destroy(&b.level);
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s: an absorbing and a reflecting boundary on the same side of '%s' (with "
                      "'%s' on line %d): which one a path meets first is undefined",
                      where, m->vars[b.var], o->name, o->line);
    }
  }
  sdk_boundary *nb = realloc(m->bound, (size_t)(m->nbound + 1) * sizeof *nb);
  if (nb) m->bound = nb;
  b.name = sdk_strdup(name);
  if (!nb || !b.name) {
    free(b.name);
    sdk_expr_destroy(&b.level);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  m->bound[m->nbound++] = b;
  return SDK_OK;
}

sdk_err sdk_md_check_boundaries(const sdk_model *m, sdk_errbuf *eb) {
  if (m->nbound > 0 && (m->interacting || m->npart > 0))
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: [boundaries] are not supported for systems of particles ([particle], "
                    "[meanfield], [pair]) yet",
                    m->path, m->bound[0].line);
  /* A stable jump crosses the whole gap between two walls at any dt, and
   * one mirror per wall cannot bring it back (codegen/boundary.c): there
   * is no step small enough for the scheme to be right. */
  for (int i = 0; i < m->nbound; i++)
    for (int k = 0; k < i; k++) {
      const sdk_boundary *b = &m->bound[i], *o = &m->bound[k];
      const sdk_levy *l = sdk_model_levy_of(m, b->var);
      if (b->kind != SDK_BOUND_REFLECT || o->kind != SDK_BOUND_REFLECT || o->var != b->var ||
          o->upper == b->upper || !l)
        continue;
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [boundaries] %s: '%s' has [levy] noise (line %d) and reflecting "
                      "boundaries on both sides (with '%s' on line %d): a stable jump can cross "
                      "both walls in one step at any dt, which mirroring at each wall once does "
                      "not undo; one reflecting wall, or absorbing ones, are supported",
                      m->path, b->line, b->name, m->vars[b->var], l->line, o->name, o->line);
    }
  return SDK_OK;
}

static const char *op_of(const sdk_boundary *b) {
  return b->upper ? (b->strict ? ">" : ">=") : (b->strict ? "<" : "<=");
}

int sdk_model_check_boundaries(const sdk_model *m, const double *pv, char *why, size_t nwhy) {
  for (int i = 0; i < m->nbound; i++) {
    const sdk_boundary *b = &m->bound[i];
    double e = sdk_model_eval_params(b->level, pv);
    /* a comparison with NaN is never true: nothing would ever be absorbed
     * or reflected (the sign of a NaN is noise in the message) */
    if (!isfinite(e))
      return snprintf(why, nwhy, "%s:%d: [boundaries] %s: the level of %s is %g (must be finite)",
                      m->path, b->line, b->name, m->vars[b->var], isnan(e) ? fabs(e) : e),
             -1;
  }
  /* Two reflecting boundaries of one variable must leave room between
   * them: else each mirrors the path past the other, further every step
   * (absorbing ones are well defined, and a start past one of them is
   * refused by sdk_model_check_init_bounds: the first in model order takes the
   * path at once). */
  for (int i = 0; i < m->nbound; i++)
    for (int k = 0; k < m->nbound; k++) {
      const sdk_boundary *lo = &m->bound[i], *hi = &m->bound[k];
      if (lo->kind != SDK_BOUND_REFLECT || hi->kind != SDK_BOUND_REFLECT || lo->var != hi->var ||
          lo->upper || !hi->upper)
        continue;
      double l = sdk_model_eval_params(lo->level, pv), u = sdk_model_eval_params(hi->level, pv);
      if (!(l < u)) { /* named at the later line, with the earlier one */
        const sdk_boundary *b = i > k ? lo : hi, *o = i > k ? hi : lo;
        return snprintf(why, nwhy,
                        "%s:%d: [boundaries] %s: reflect %s %s %g and %s (line %d): reflect %s %s "
                        "%g leave no room for %s between them (the lower level must be below the "
                        "upper)",
                        m->path, b->line, b->name, m->vars[b->var], op_of(b), b == lo ? l : u,
                        o->name, o->line, m->vars[o->var], op_of(o), o == lo ? l : u,
                        m->vars[b->var]),
               -1;
      }
    }
  return 0;
}

int sdk_model_check_init_bounds(const sdk_model *m, const double *pv, char *why, size_t nwhy) {
  for (int i = 0; i < m->nbound; i++) {
    const sdk_boundary *b = &m->bound[i];
    const sdk_init_spec *in = &m->init[b->var];
    /* past an absorbing level a normal start is a hit at t = 0 with the
     * start's own probability, as a data start there (--init-from) is: the
     * answer to the question asked */
    if (in->kind == SDK_INIT_NORMAL && b->kind == SDK_BOUND_ABSORB) continue;
    double level = sdk_model_eval_params(b->level, pv);
    /* the initial values' extreme on the wall's side: a constant (0 without
     * a line), the bound of a uniform one, or the farthest a normal one
     * reaches: Box-Muller's radius is largest at the smallest uniform,
     * sdk_u01_d(0) = 2^-33 (CUDA's fast-math uniform starts there too; the
     * CPU's float one at 2^-24), so |z| <= 6.764, widened by 2^-20 for the
     * fast-math radius's float rounding (6.76370573 against 6.76370564, a
     * review).  A reflecting wall within that mirrors some starts into the
     * domain at the first step: the start's law folded, silently */
    double x0 = in->a ? sdk_model_eval_params(in->a, pv) : 0;
    if (in->kind == SDK_INIT_UNIFORM) { /* (the bounds in either order) */
      double x1 = sdk_model_eval_params(in->b, pv);
      x0 = b->upper ? fmax(x0, x1) : fmin(x0, x1);
    } else if (in->kind == SDK_INIT_NORMAL) {
      double zmax = sqrt(-2 * log(sdk_u01_d(0))) * (1 + 0x1p-20);
      double s = fabs(sdk_model_eval_params(in->b, pv));
      x0 += b->upper ? zmax * s : -zmax * s;
    }
    /* strictly past an absorbing level: absorbed before the first step, a
     * hitting time 0 and a splitting probability 1 that look like results
     * (on the level itself that is the right answer: a scan of x0 over
     * [0, L] may end there) */
    if (!(b->upper ? x0 > level : x0 < level)) continue;
    const char *v = m->vars[b->var];
    int n = in->line > 0 ? snprintf(why, nwhy, "%s:%d: [init] %s", m->path, in->line, v)
                         : snprintf(why, nwhy, "%s: [init] %s (no line: 0)", m->path, v);
    if (n >= 0 && (size_t)n < nwhy)
      snprintf(why + n, nwhy - (size_t)n,
               b->kind == SDK_BOUND_ABSORB
                   ? " starts at %g, past the absorbing level of '%s' (%s %s %g, line %d): such a "
                     "path would count as hit at t = 0; start it on the level or before it"
               : in->kind == SDK_INIT_NORMAL
                   ? " starts normal(), which reaches %g (6.76 standard deviations, the "
                     "generator's farthest), beyond the reflecting wall '%s' (%s %s %g, line "
                     "%d): such starts would be mirrored into the domain at the first step, "
                     "folding the start's law; start it farther from the wall, narrower, or "
                     "uniform() between the walls"
                   : " starts at %g, beyond the reflecting wall '%s' (%s %s %g, line %d): a path "
                     "mirrored from there can land outside (or go NaN); start it between the "
                     "walls",
               x0, b->name, v, op_of(b), level, b->line);
    return -1;
  }
  return 0;
}
