/* [colored] and [levy]: coloured (Ornstein-Uhlenbeck) noise and
 * alpha-stable Levy noise (model.h; the draws are codegen/colored_levy.c).
 *
 * A coloured noise is a variable of the model, like a dichotomous one: no
 * [drift] or [noise] line (its drift is 0 for the scheme, which holds it at
 * its value of t_n over step n), updated after every step.  A Levy noise is
 * the noise of an existing variable in place of its [noise] line: SCALE
 * becomes the variable's noise coefficient, and the drivers replace its
 * Gaussian value by the scaled stable one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/model_internal.h"

const sdk_colored *sdk_model_colored_of(const sdk_model *m, int v) {
  for (int i = 0; i < m->ncolored; i++)
    if (m->colored[i].var == v) return &m->colored[i];
  return NULL;
}

const sdk_levy *sdk_model_levy_of(const sdk_model *m, int v) {
  for (int i = 0; i < m->nlevy; i++)
    if (m->levy[i].var == v) return &m->levy[i];
  return NULL;
}

/* ---- [colored] NAME = TAU, D ---- */

sdk_err sdk_md_add_colored_name(sdk_model *m, const char *name, int line, sdk_errbuf *eb) {
  void *a = m->colored;
  sdk_err e =
      sdk_md_noise_entry(m, "colored", name, line, &a, &m->ncolored, sizeof *m->colored, eb);
  m->colored = a;
  SDK_CHECK(e);
  m->colored[m->ncolored - 1].var = m->nvars - 1;
  m->colored[m->ncolored - 1].line = line;
  return SDK_OK;
}

sdk_err sdk_md_parse_colored(sdk_model *m, const char *name, const char *value, int line,
                             sdk_errbuf *eb) {
  sdk_colored *c = (sdk_colored *)sdk_model_colored_of(m, sdk_model_var_index(m, name));
  sdk_expr **const dst[2] = {c ? &c->tau : NULL, c ? &c->d : NULL};
  return sdk_md_noise_exprs(m, "colored", name, value, line, 2, dst,
                            "TAU, D (the correlation time and the intensity: "
                            "d eta = -eta/TAU dt + sqrt(2 D)/TAU dW)",
                            eb);
}

/* ---- [levy] VAR = ALPHA, BETA, SCALE ---- */

/* piece as a number in [lo, hi] (lo excluded when open), else an error */
static sdk_err number_in(const char *where, const char *what, char *piece, double lo, int open,
                         double hi, double *out, sdk_errbuf *eb) {
  char *s = sdk_md_trim(piece);
  if (!sdk_parse_number(s, out) || *out < lo || (open && *out == lo) || *out > hi)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: %s = '%.40s' must be a number in %c%g, %g]", where,
                    what, s, open ? '(' : '[', lo, hi);
  return SDK_OK;
}

sdk_err sdk_md_add_levy(sdk_model *m, const char *var, const char *value, int line,
                        sdk_errbuf *eb) {
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [levy] %s", m->path, line, var);
  int v = -1;
  SDK_CHECK(sdk_md_plain_var(m, where, var, &v, eb));
  sdk_levy *nl = realloc(m->levy, (size_t)(m->nlevy + 1) * sizeof *nl);
  if (!nl) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->levy = nl;
  sdk_levy *l = &nl[m->nlevy++]; /* (destroyed with the model in any case) */
  memset(l, 0, sizeof *l);
  l->var = v;
  l->line = line;
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *piece[3];
  sdk_err err = SDK_OK;
  if (sdk_md_split_commas(copy, piece, 3) != 3)
    err = SDK_FAIL(eb, SDK_ERR_MODEL,
                   "%s: expected ALPHA, BETA, SCALE (the stability index 0 < ALPHA <= 2, the "
                   "skewness -1 <= BETA <= 1, the scale: an expression)",
                   where);
  if (err == SDK_OK) err = number_in(where, "ALPHA", piece[0], 0, 1, 2, &l->alpha, eb);
  if (err == SDK_OK) err = number_in(where, "BETA", piece[1], -1, 0, 1, &l->beta, eb);
  if (err == SDK_OK)
    err = sdk_md_expr(m, piece[2], "levy", var, line, SDK_MD_VARS | SDK_MD_PART | SDK_MD_TIME,
                      &l->scale, eb);
  free(copy);
  return err;
}

/* ---- after every section ---- */

sdk_err sdk_md_finish_colored_levy(sdk_model *m, sdk_errbuf *eb) {
  int line = m->ncolored ? m->colored[0].line : m->nlevy ? m->levy[0].line : 0;
  if (line && (m->interacting || m->npart > 0))
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: [colored] and [levy] are not supported for systems of particles "
                    "([particle], [meanfield], [pair]) yet",
                    m->path, line);
  if (m->ncolored && m->nbound > 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: [colored] is not supported together with [boundaries] yet", m->path,
                    m->colored[0].line);
  if (m->nlevy && m->nwiener > 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: [levy] is not supported with [model] wiener (a [levy] noise is one "
                    "variable's own)",
                    m->path, m->levy[0].line);
  for (int i = 0; i < m->ncolored; i++) {
    int v = m->colored[i].var;
    const char *sec = m->drift[v] ? "drift" : m->noise[v] ? "noise" : NULL;
    if (sec)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [%s] %s: '%s' is a [colored] noise (line %d), which has no %s",
                      m->path, sec[0] == 'd' ? m->drift_line[v] : m->noise_line[v], sec, m->vars[v],
                      m->vars[v], m->colored[i].line, sec);
    m->colored[i].init_given = m->init[v].a != NULL;
    m->drift[v] = sdk_expr_number(0);
    if (!m->drift[v]) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    m->drift_line[v] = m->colored[i].line;
  }
  for (int i = 0; i < m->nlevy; i++) {
    sdk_levy *l = &m->levy[i];
    for (int k = 0; k < i; k++)
      if (m->levy[k].var == l->var)
        return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [levy] %s is given twice (also on line %d)",
                        m->path, l->line, m->vars[l->var], m->levy[k].line);
    if (m->noise[l->var])
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [levy] %s: %s has a [noise] line (line %d); a variable's noise is "
                      "Gaussian ([noise]) or alpha-stable ([levy]), not both",
                      m->path, l->line, m->vars[l->var], m->vars[l->var], m->noise_line[l->var]);
    m->noise[l->var] = l->scale; /* (the model owns it there now) */
    m->noise_line[l->var] = l->line;
    l->scale = NULL;
  }
  return SDK_OK;
}

/* ---- the values at a grid point ---- */

/* The noise is held over a step (codegen/colored_levy.c): a variable it
 * drives is biased by a fraction of dt / TAU, not of dt alone (x' = -x +
 * eta, TAU = 0.001, D = 0.3, double precision, 20000 paths: the stationary
 * variance +5.7% at dt = TAU, 5x at dt = 10 TAU, +0.9 +- 1% at TAU / 10;
 * the same with euler and srk2), and --dt-check cannot measure it.  So the
 * step must resolve the correlation time: dt <= TAU / 10 (model.h,
 * SDK_NOISE_HOLD_STEPS). */
int sdk_md_check_colored_levy(const sdk_model *m, const double *pv, double dt, char *why,
                              size_t nwhy) {
  for (int i = 0; i < m->ncolored; i++) {
    const sdk_colored *c = &m->colored[i];
    double tau = sdk_model_eval_params(c->tau, pv), d = sdk_model_eval_params(c->d, pv);
    if (!(tau > 0 && isfinite(tau) && d >= 0 && isfinite(d)))
      return snprintf(why, nwhy,
                      "%s:%d: [colored] %s: TAU = %g, D = %g (the correlation time must be finite "
                      "and > 0, the intensity finite and >= 0)",
                      m->path, c->line, m->vars[c->var], tau, d),
             -1;
    if (dt > tau / SDK_NOISE_HOLD_STEPS * (1 + 1e-12)) /* (dt = TAU/10 typed as such passes) */
      return snprintf(why, nwhy,
                      "%s:%d: [colored] %s: dt = %g is %.3g times TAU = %g: the noise is held "
                      "over each step, which biases what it drives by a fraction of dt/TAU "
                      "(+6%% at dt = TAU); the step must be at most TAU/%d = %g",
                      m->path, c->line, m->vars[c->var], dt, dt / tau, tau, SDK_NOISE_HOLD_STEPS,
                      tau / SDK_NOISE_HOLD_STEPS),
             -1;
  }
  return 0;
}

/* The kernel multiplies X ~ S_a(1, b, 0) by k = S dt^(1/a - 1/2) (S the
 * scale of codegen/colored_levy.c's X, 1 for b = 0), as a literal or its
 * log2; for a small ALPHA the power is large (dt = 0.01, a = 0.003:
 * 10^-665), and a k that is no normal number of the precision would make
 * every increment 0, Inf or NaN.  Taken in logs: k itself may not exist. */
int sdk_model_check_levy_dt(const sdk_model *m, double dt, int single, char *why, size_t nwhy) {
  const double pi = 3.14159265358979323846;
  int lo = single ? -126 : -1022, hi = single ? 128 : 1024;
  for (int i = 0; i < m->nlevy; i++) {
    const sdk_levy *l = &m->levy[i];
    double a = l->alpha, b = l->beta, t = tan(pi * a / 2);
    double p = a == 1 ? 0.5 : 1 / a - 0.5;
    double l2 = p * log2(dt) + (a == 1 ? 0 : log2(1 + b * b * t * t) / (2 * a));
    if (l2 >= lo && l2 < hi) continue;
    return snprintf(why, nwhy,
                    "%s:%d: [levy] %s: ALPHA = %g at dt = %g: the increments' scale "
                    "dt^(1/ALPHA - 1/2) = 2^%.4g %s %s precision (its normal numbers are 2^%d to "
                    "2^%d), so every increment would be 0, Inf or NaN; choose a dt closer to 1 "
                    "or a larger ALPHA%s",
                    m->path, l->line, m->vars[l->var], a, dt, l2,
                    l2 < lo ? "underflows" : "overflows", single ? "single" : "double", lo, hi,
                    single && l2 >= -1022 && l2 < 1024 ? " (or --precision double)" : ""),
           -1;
  }
  return 0;
}
