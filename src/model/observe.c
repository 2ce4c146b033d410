/* User observables: [observe] NAME = EXPR and --observe-expr NAME=EXPR
 * (model.h).  Both go through the same checks, so a name or an expression
 * the model file would refuse is refused on the command line too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/model_internal.h"

sdk_err sdk_md_add_observe(sdk_model *m, const char *name, const char *text, int line,
                           sdk_errbuf *eb) {
  char where[256];
  if (line > 0)
    snprintf(where, sizeof where, "%s:%d: [observe] %.64s", m->path, line, name);
  else
    snprintf(where, sizeof where, "--observe-expr %.64s", name);
  if (m->nobs == SDK_MODEL_MAX_OBSERVE)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: more than %d user observables (the limit)", where,
                    SDK_MODEL_MAX_OBSERVE);
  if (strlen(name) > SDK_MODEL_MAX_NAME || !sdk_name_valid(name) || sdk_name_reserved(name))
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%.64s' cannot be the name of an observable%s", where,
                    name, sdk_name_valid(name) ? " (reserved)" : "");
  if (sdk_model_var_index(m, name) >= 0 || sdk_model_param_index(m, name) >= 0 ||
      sdk_md_name_index(m->obs_names, m->nobs, name) >= 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s: '%s' is already the name of a variable, parameter or observable", where,
                    name);
  sdk_expr *e = NULL;
  SDK_CHECK(sdk_md_expr_at(m, text, where, SDK_MD_VARS | SDK_MD_TIME, &e, eb));
  int n = m->nobs;
  char **nn = realloc(m->obs_names, (size_t)(n + 1) * sizeof *nn);
  if (nn) m->obs_names = nn;
  sdk_expr **ne = realloc(m->obs, (size_t)(n + 1) * sizeof *ne);
  if (ne) m->obs = ne;
  int *nl = realloc(m->obs_line, (size_t)(n + 1) * sizeof *nl);
  if (nl) m->obs_line = nl;
  char *copy = sdk_strdup(name);
  if (!nn || !ne || !nl || !copy) {
    free(copy);
    sdk_expr_destroy(&e);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  m->obs_names[n] = copy;
  m->obs[n] = e;
  m->obs_line[n] = line;
  m->nobs++;
  return SDK_OK;
}

sdk_err sdk_model_add_observe(sdk_model *m, const char *name, const char *expr, sdk_errbuf *eb) {
  return sdk_md_add_observe(m, name, expr, 0, eb);
}
