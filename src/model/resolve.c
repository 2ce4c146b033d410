/* The names an expression of a model may use, by section (see
 * model_internal.h): variables, parameters, per-particle parameters, the
 * [meanfield] and [pair] names, VARj / NAMEj in pair functions, and t. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/model_internal.h"

/* resolver for the expressions of a model: which names each section sees */
typedef struct {
  const sdk_model *m;
  int flags;
} resolve_ctx;

static sdk_symkind resolve(void *user, const char *name, int *index) {
  resolve_ctx *rc = user;
  const sdk_model *m = rc->m;
  int i;
  if ((rc->flags & SDK_MD_VARS) && (i = sdk_model_var_index(m, name)) >= 0) {
    *index = i;
    return SDK_SYM_VAR;
  }
  if ((i = sdk_model_param_index(m, name)) >= 0) {
    *index = i;
    return SDK_SYM_PARAM;
  }
  if ((rc->flags & SDK_MD_PART) && (i = sdk_md_part_index(m, name)) >= 0) {
    *index = SDK_OTHER(SDK_OTHER_PART, i);
    return SDK_SYM_OTHER;
  }
  if ((rc->flags & SDK_MD_COUPLING) &&
      (i = sdk_md_name_index(m->mean_names, m->nmean, name)) >= 0) {
    *index = SDK_OTHER(SDK_OTHER_MEAN, i);
    return SDK_SYM_OTHER;
  }
  if ((rc->flags & SDK_MD_COUPLING) &&
      (i = sdk_md_name_index(m->pair_names, m->npair, name)) >= 0) {
    *index = SDK_OTHER(SDK_OTHER_PAIR, i);
    return SDK_SYM_OTHER;
  }
  if ((rc->flags & SDK_MD_WIENER) && name[0] == 'd' &&
      (i = sdk_md_name_index(m->wiener, m->nwiener, name + 1)) >= 0) {
    *index = SDK_OTHER(SDK_OTHER_WIENER, i);
    return SDK_SYM_OTHER;
  }
  size_t n = strlen(name);
  if ((rc->flags & SDK_MD_J) && n > 1 && name[n - 1] == 'j') {
    char base[64];
    snprintf(base, sizeof base, "%.*s", (int)(n - 1), name);
    if ((i = sdk_model_var_index(m, base)) >= 0) {
      *index = SDK_OTHER(SDK_OTHER_VARJ, i);
      return SDK_SYM_OTHER;
    }
    if ((rc->flags & SDK_MD_PART) && (i = sdk_md_part_index(m, base)) >= 0) {
      *index = SDK_OTHER(SDK_OTHER_PARTJ, i);
      return SDK_SYM_OTHER;
    }
  }
  return SDK_SYM_UNRESOLVED;
}

static void list_names(sdk_strbuf *b, char **names, int n, const char *suffix) {
  for (int i = 0; i < n; i++)
    sdk_sb_printf(b, "%s%s%s", i ? ", " : "", names[i], suffix);
}

static char *known_names(const sdk_model *m, int flags) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  if (flags & SDK_MD_VARS) {
    sdk_sb_puts(&b, "variables ");
    char *s = sdk_model_var_list(m);
    sdk_sb_puts(&b, s ? s : "");
    free(s);
    sdk_sb_puts(&b, "; ");
  }
  if (flags & SDK_MD_J) {
    sdk_sb_puts(&b, "of particle j: ");
    list_names(&b, m->vars, m->nvars, "j");
    for (int i = 0; (flags & SDK_MD_PART) && i < m->npart; i++)
      sdk_sb_printf(&b, ", %sj", m->part[i].name);
    sdk_sb_puts(&b, "; ");
  }
  sdk_sb_puts(&b, "parameters ");
  char *s = sdk_model_param_list(m);
  sdk_sb_puts(&b, s ? s : "");
  free(s);
  if ((flags & SDK_MD_PART) && m->npart > 0) {
    sdk_sb_puts(&b, "; particle parameters ");
    for (int i = 0; i < m->npart; i++)
      sdk_sb_printf(&b, "%s%s", i ? ", " : "", m->part[i].name);
  }
  if ((flags & SDK_MD_COUPLING) && m->nmean > 0) {
    sdk_sb_puts(&b, "; [meanfield] ");
    list_names(&b, m->mean_names, m->nmean, "");
  }
  if ((flags & SDK_MD_COUPLING) && m->npair > 0) {
    sdk_sb_puts(&b, "; [pair] ");
    list_names(&b, m->pair_names, m->npair, "");
  }
  if ((flags & SDK_MD_WIENER) && m->nwiener > 0) {
    sdk_sb_puts(&b, "; increments ");
    for (int i = 0; i < m->nwiener; i++)
      sdk_sb_printf(&b, "%sd%s", i ? ", " : "", m->wiener[i]);
  }
  sdk_sb_puts(&b, (flags & SDK_MD_TIME) ? "; t, pi" : "; pi");
  return sdk_sb_take(&b);
}

sdk_err sdk_md_expr(const sdk_model *m, const char *text, const char *section, const char *key,
                    int line, int flags, sdk_expr **out, sdk_errbuf *eb) {
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [%s] %s", m->path, line, section, key);
  return sdk_md_expr_at(m, text, where, flags, out, eb);
}

sdk_err sdk_md_expr_at(const sdk_model *m, const char *text, const char *where, int flags,
                       sdk_expr **out, sdk_errbuf *eb) {
  int time = (flags & SDK_MD_TIME) != 0;
  /* '#' never occurs in an expression: a comment (a file's comments are cut
   * line by line already, entries.c; this one is --observe-expr's) */
  char *copy = sdk_strdup(text);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *hash = strchr(copy, '#');
  if (hash) *hash = 0;
  sdk_err err = (flags & SDK_MD_DELAY)
                    ? sdk_expr_parse_delays(copy, where, m->vars, m->nvars, out, eb)
                    : sdk_expr_parse(copy, where, out, eb);
  free(copy);
  SDK_CHECK(err);
  resolve_ctx rc = {m, flags};
  char *known = known_names(m, flags);
  err = sdk_expr_resolve(*out, resolve, &rc, where, known ? known : "?", eb);
  free(known);
  if (err == SDK_OK && !time && sdk_expr_uses(*out, SDK_SYM_TIME))
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: t cannot be used here", where);
  if (err != SDK_OK) sdk_expr_destroy(out);
  return err;
}

static sdk_symkind resolve_param(void *user, const char *name, int *index) {
  int i = sdk_model_param_index(user, name);
  if (i < 0) return SDK_SYM_UNRESOLVED;
  *index = i;
  return SDK_SYM_PARAM;
}

/* a parameter of index >= k that e uses, else -1 (the parser bounds the depth) */
static int param_from(const sdk_expr *e, int k) {
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM && e->index >= k) return e->index;
  for (int i = 0; i < e->nargs; i++) {
    int j = param_from(e->arg[i], k);
    if (j >= 0) return j;
  }
  return -1;
}

sdk_err sdk_md_param_expr(const sdk_model *m, int k, const char *text, sdk_expr **out,
                          sdk_errbuf *eb) {
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [params] %s", m->path, m->param_line[k], m->params[k]);
  SDK_CHECK(sdk_expr_parse(text, where, out, eb));
  sdk_strbuf b;
  sdk_sb_init(&b);
  if (k > 0) {
    sdk_sb_puts(&b, "the parameters above it: ");
    list_names(&b, m->params, k, "");
    sdk_sb_puts(&b, "; ");
  }
  sdk_sb_puts(&b, "pi");
  sdk_err err = sdk_expr_resolve(*out, resolve_param, (void *)m, where, b.s ? b.s : "?", eb);
  sdk_sb_free(&b);
  int j = err == SDK_OK ? param_from(*out, k) : -1;
  if (err == SDK_OK && sdk_expr_uses(*out, SDK_SYM_TIME))
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: t cannot be used here", where);
  else if (j == k)
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: a parameter cannot be defined from itself", where);
  else if (j > k)
    err = SDK_FAIL(eb, SDK_ERR_MODEL,
                   "%s: uses '%s', which is defined below it (line %d): a parameter may use only "
                   "the parameters above it",
                   where, m->params[j], m->param_line[j]);
  if (err != SDK_OK) sdk_expr_destroy(out);
  return err;
}
