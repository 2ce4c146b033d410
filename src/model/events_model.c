/* [events] NAME = when COND : VAR = EXPR [, VAR = EXPR] (model.h).
 *
 * COND is one comparison of a variable with an expression in the parameters,
 * read by the parser of [boundaries] (boundaries.c, sdk_md_comparison); each
 * VAR is a variable of the model (not a dichotomous noise), at most once per
 * event; EXPR is an expression in the variables, the parameters and t, the
 * grammar of [drift].  What the kernels do with them: codegen/resets.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/model_internal.h"

/* the first c at parenthesis depth 0 of s (for ':' one that closes no '?'),
 * or NULL */
static char *top_level(char *s, char c) {
  int depth = 0, pending = 0;
  for (char *p = s; *p; p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    else if (depth == 0 && *p == '?')
      pending++;
    else if (depth == 0 && *p == c && c == ':' && pending > 0)
      pending--;
    else if (depth == 0 && *p == c)
      return p;
  }
  return NULL;
}

/* one "VAR = EXPR" of the reset list into ev */
static sdk_err add_reset(sdk_model *m, sdk_event *ev, char *item, const char *where,
                         sdk_errbuf *eb) {
  char *eq = strchr(item, '=');
  if (!eq)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: expected VAR = EXPR after ':' (got '%.64s')", where,
                    sdk_md_trim(item));
  *eq = '\0';
  const char *name = sdk_md_trim(item);
  int v = sdk_model_var_index(m, name);
  if (v < 0 || sdk_model_dich_of(m, v)) {
    char *known = sdk_model_var_list(m);
    sdk_err err = SDK_FAIL(eb, SDK_ERR_MODEL,
                           "%s: only a variable can be reset; '%.64s' is none (variables: %s)",
                           where, name, known ? known : "?");
    free(known);
    return err;
  }
  for (int k = 0; k < ev->nreset; k++)
    if (ev->reset_var[k] == v)
      return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%s' is reset twice", where, m->vars[v]);
  sdk_expr *e = NULL;
  SDK_CHECK(sdk_md_expr_at(m, eq + 1, where, SDK_MD_VARS | SDK_MD_TIME, &e, eb));
  ev->reset_var[ev->nreset] = v;
  ev->reset[ev->nreset++] = e;
  return SDK_OK;
}

static void free_event(sdk_event *ev) {
  free(ev->name);
  sdk_expr_destroy(&ev->cond.level);
  for (int k = 0; k < ev->nreset; k++)
    sdk_expr_destroy(&ev->reset[k]);
}

static sdk_err parse_event(sdk_model *m, sdk_event *ev, char *copy, const char *where,
                           sdk_errbuf *eb) {
  char *s = sdk_md_trim(copy);
  if (strncmp(s, "when", 4) || (s[4] != ' ' && s[4] != '\t'))
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: expected 'when COND : VAR = EXPR' (e.g. when v >= 1 "
                    ": v = 0)",
                    where);
  s += 4;
  char *colon = top_level(s, ':');
  if (!colon)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: no ':' after the condition (when COND : VAR = EXPR [, VAR = EXPR])",
                    where);
  *colon = '\0';
  SDK_CHECK(sdk_md_comparison(m, s, where, "", &ev->cond, eb));
  char *list = colon + 1;
  for (;;) {
    char *comma = top_level(list, ',');
    if (comma) *comma = '\0';
    SDK_CHECK(add_reset(m, ev, list, where, eb));
    if (!comma) break;
    list = comma + 1;
  }
  return SDK_OK;
}

sdk_err sdk_md_add_event(sdk_model *m, const char *name, const char *text, int line,
                         sdk_errbuf *eb) {
  char where[256];
  SDK_CHECK(sdk_md_entry(m, "events", name, line, m->nevent, SDK_MODEL_MAX_BOUNDARIES, "an event",
                         where, sizeof where, eb));
  for (int i = 0; i < m->nevent; i++)
    if (!strcmp(m->event[i].name, name))
      return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: a second event '%s' (line %d)", where, name,
                      m->event[i].line);
  sdk_event *ne = realloc(m->event, (size_t)(m->nevent + 1) * sizeof *ne);
  if (!ne) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->event = ne;
  sdk_event ev;
  memset(&ev, 0, sizeof ev);
  ev.line = line;
  ev.name = sdk_strdup(name);
  char *copy = sdk_strdup(text);
  sdk_err err = !ev.name || !copy ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                                  : parse_event(m, &ev, copy, where, eb);
  free(copy);
  if (err != SDK_OK) {
    free_event(&ev);
    return err;
  }
  m->event[m->nevent++] = ev;
  return SDK_OK;
}

sdk_err sdk_md_check_events(const sdk_model *m, sdk_errbuf *eb) {
  if (m->nevent == 0) return SDK_OK;
  const sdk_event *ev = &m->event[0];
  const char *no = NULL;
  if (m->interacting || m->npart > 0)
    no = "systems of particles ([particle], [meanfield], [pair])";
  else if (m->nbound > 0)
    no = "[boundaries] in the same model (which of an absorption and a reset comes first "
         "inside a step is not defined yet)";
  else if (m->nwiener > 0)
    no = "shared Wiener processes ([model] wiener: the bridge correction needs a variable's own "
         "noise)";
  else if (m->nlevy > 0)
    no = "[levy] noise (a stable path jumps over a level: the events' Brownian bridge does not "
         "apply)";
  else if (m->ncolored > 0)
    no = "[colored] noise (the order of its update after a step and a reset is not defined yet)";
  if (no)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [events] are not supported with %s", m->path,
                    ev->line, no);
  for (int i = 0; i < m->nevent; i++)
    for (int j = 0; j < m->njump; j++)
      if (m->jump[j].var == m->event[i].cond.var)
        return SDK_FAIL(eb, SDK_ERR_MODEL,
                        "%s:%d: [events] %s: '%s' has [jumps] (line %d): a jump crosses the level "
                        "without a crossing time, which the events' Brownian bridge assumes",
                        m->path, m->event[i].line, m->event[i].name, m->vars[m->jump[j].var],
                        m->jump[j].line);
  return SDK_OK;
}

/* does x satisfy the event's condition against level e? */
static int inside(const sdk_boundary *b, double x, double e) {
  return b->upper ? (b->strict ? x > e : x >= e) : (b->strict ? x < e : x <= e);
}

int sdk_model_check_events(const sdk_model *m, const double *pv, int64_t nsteps, char *why,
                           size_t nwhy) {
  if (m->nevent > 0 && nsteps >= (int64_t)1 << 44)
    return snprintf(why, nwhy,
                    "%s:%d: [events]: a run with events takes fewer than 2^44 steps (their records "
                    "and random numbers; %lld asked)",
                    m->path, m->event[0].line, (long long)nsteps),
           -1;
  for (int i = 0; i < m->nevent; i++) {
    const sdk_event *ev = &m->event[i];
    const sdk_boundary *b = &ev->cond;
    double e = sdk_model_eval_params(b->level, pv);
    if (!isfinite(e))
      return snprintf(why, nwhy, "%s:%d: [events] %s: the level of %s is %g (must be finite)",
                      m->path, ev->line, ev->name, m->vars[b->var], isnan(e) ? fabs(e) : e),
             -1;
    for (int k = 0; k < ev->nreset; k++) {
      if (ev->reset_var[k] != b->var || sdk_expr_uses(ev->reset[k], SDK_SYM_VAR) ||
          sdk_expr_uses(ev->reset[k], SDK_SYM_TIME))
        continue;
      double r = sdk_model_eval_params(ev->reset[k], pv);
      if (!isfinite(r) || inside(b, r, e))
        return snprintf(why, nwhy,
                        "%s:%d: [events] %s: the reset %s = %g leaves the condition true (level "
                        "%g): the event would fire again and again; reset to the other side",
                        m->path, ev->line, ev->name, m->vars[b->var], r, e),
               -1;
    }
  }
  return 0;
}
