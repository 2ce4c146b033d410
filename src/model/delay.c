/* Delayed values VAR(t - TAU) and [history] (model.h, sdk_delay).
 *
 * The parser reads NAME(ARG) of a variable NAME in [drift] and [noise] as a
 * call node of op 'D' (expr.h, sdk_expr_parse_delays); here, once its names
 * are resolved, ARG must be t - TAU with TAU in the parameters alone (so
 * that the delay is the same at every step: its number of steps TAU/dt is
 * decided by the generator, codegen/delay.c), and the node becomes the
 * symbol of the model's delay (VAR, TAU), one entry per distinct pair.
 * [history] VAR = EXPR, in t and the parameters, gives VAR before t = 0;
 * only a delayed variable may have one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/model_internal.h"

/* does e use anything but numbers, constants and parameters? */
static int not_constant(const sdk_expr *e) {
  if (e->kind == SDK_E_CALL && e->op == 'D') return 1;
  if (e->kind == SDK_E_SYM && e->sym != SDK_SYM_PARAM && e->sym != SDK_SYM_CONST) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (not_constant(e->arg[i])) return 1;
  return 0;
}

/* the delay of variable v by tau (taken over), found or added: its index */
static sdk_err add_delay(sdk_model *m, int v, sdk_expr *tau, const char *where, int *k,
                         sdk_errbuf *eb) {
  for (int i = 0; i < m->ndelay; i++)
    if (m->delay[i].var == v && sdk_expr_equal(m->delay[i].tau, tau)) {
      sdk_expr_destroy(&tau);
      *k = i;
      return SDK_OK;
    }
  if (m->ndelay >= SDK_MODEL_MAX_DELAYS) {
    sdk_expr_destroy(&tau);
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: more than %d delayed values (the limit)", where,
                    SDK_MODEL_MAX_DELAYS);
  }
  sdk_delay *d = realloc(m->delay, (size_t)(m->ndelay + 1) * sizeof *d);
  char *w = sdk_strdup(where);
  if (d) m->delay = d;
  if (!d || !w) {
    free(w);
    sdk_expr_destroy(&tau);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  m->delay[m->ndelay] = (sdk_delay){v, tau, w};
  *k = m->ndelay++;
  return SDK_OK;
}

sdk_err sdk_md_delays(sdk_model *m, sdk_expr *e, const char *where, sdk_errbuf *eb) {
  if (!e) return SDK_OK;
  if (!(e->kind == SDK_E_CALL && e->op == 'D')) {
    for (int i = 0; i < e->nargs; i++)
      SDK_CHECK(sdk_md_delays(m, e->arg[i], where, eb));
    return SDK_OK;
  }
  const sdk_expr *a = e->arg[0];
  int v = sdk_model_var_index(m, e->name);
  if (v < 0 || !a || a->kind != SDK_E_BINARY || a->op != '-' || a->arg[0]->kind != SDK_E_SYM ||
      a->arg[0]->sym != SDK_SYM_TIME || not_constant(a->arg[1]))
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: a delayed value is written %s(t - TAU), TAU an expression in the "
                    "parameters alone",
                    where, e->name);
  int k = -1;
  SDK_CHECK(add_delay(m, v, e->arg[0]->arg[1], where, &k, eb));
  e->arg[0]->arg[1] = NULL; /* (taken over) */
  sdk_expr_destroy(&e->arg[0]);
  free(e->name);
  e->name = NULL;
  e->kind = SDK_E_SYM;
  e->op = 0;
  e->nargs = 0;
  e->sym = SDK_SYM_OTHER;
  e->index = SDK_OTHER(SDK_OTHER_DELAY, k);
  e->depth = 1;
  return SDK_OK;
}

sdk_err sdk_md_add_history(sdk_model *m, const char *var, const char *value, int line,
                           sdk_errbuf *eb) {
  int v = sdk_model_var_index(m, var);
  if (v < 0) {
    char *known = sdk_model_var_list(m);
    sdk_err err =
        SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [history] names unknown variable '%s' (variables: %s)",
                 m->path, line, var, known ? known : "?");
    free(known);
    return err;
  }
  if (!m->history) {
    m->history = calloc((size_t)m->nvars, sizeof *m->history);
    m->history_line = calloc((size_t)m->nvars, sizeof *m->history_line);
    if (!m->history || !m->history_line) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  m->history_line[v] = line;
  return sdk_md_expr(m, value, "history", var, line, SDK_MD_TIME, &m->history[v], eb);
}

sdk_err sdk_md_check_delays(const sdk_model *m, sdk_errbuf *eb) {
  for (int v = 0; m->history && v < m->nvars; v++) {
    int used = 0;
    for (int k = 0; k < m->ndelay; k++)
      used |= m->delay[k].var == v;
    if (m->history[v] && !used)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [history] %s: '%s' is not delayed anywhere (no %s(t - TAU) in "
                      "[drift] or [noise]): its history would never be used",
                      m->path, m->history_line[v], m->vars[v], m->vars[v], m->vars[v]);
  }
  if (m->ndelay > 0 && m->interacting)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: delayed values are not supported for systems of particles "
                    "([meanfield], [pair]) yet",
                    m->delay[0].where);
  return SDK_OK;
}
