/* The sections of a model file into an sdk_model (model/model.h describes
 * them): pass 1 reads [model] and [params], then the names of [particle],
 * [meanfield] and [pair] are registered, and pass 2 parses every expression
 * with the names its section may use (resolve.c). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/limits.h"
#include "model/model_internal.h"

char *sdk_md_trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1]))
    s[--n] = 0;
  return s;
}

static sdk_err parse_vars(sdk_model *m, const char *value, int line, sdk_errbuf *eb) {
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = SDK_OK;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
    char *name = sdk_md_trim(tok);
    if (strlen(name) > SDK_MODEL_MAX_NAME) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL,
                     "%s:%d: variable name '%.20s...' is longer than %d characters (the limit)",
                     m->path, line, name, SDK_MODEL_MAX_NAME);
      break;
    }
    if (m->nvars == SDK_MODEL_MAX_VARS) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d variables (the limit)", m->path, line,
                     SDK_MODEL_MAX_VARS);
      break;
    }
    if (!sdk_name_valid(name) || sdk_name_reserved(name)) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' cannot be a variable name%s", m->path, line,
                     name, sdk_name_valid(name) ? " (reserved)" : "");
      break;
    }
    if (sdk_model_var_index(m, name) >= 0) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: variable '%s' listed twice", m->path, line, name);
      break;
    }
    char **v = realloc(m->vars, (size_t)(m->nvars + 1) * sizeof *v);
    if (!v || !(v[m->nvars] = sdk_strdup(name))) {
      if (v) m->vars = v;
      err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      break;
    }
    m->vars = v;
    m->nvars++;
  }
  free(copy);
  if (err == SDK_OK && m->nvars == 0)
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [model] vars lists no variables", m->path, line);
  return err;
}

/* Split "fn(A, B)" in place (s is the trimmed value, fn already recognised)
 * into A and B at the top-level comma; `where` prefixes the errors. */
static sdk_err split_call2(char *s, const char *where, const char *fn, char **a, char **b,
                           sdk_errbuf *eb) {
  char *open = strchr(s, '('), *close = strrchr(s, ')');
  if (!open || !close || close < open || *sdk_md_trim(close + 1))
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: expected %s(A, B)", where, fn);
  *close = 0;
  char *args = open + 1, *comma = NULL;
  int depth = 0;
  for (char *p = args; *p && !comma; p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    else if (*p == ',' && depth == 0)
      comma = p;
  }
  if (!comma) return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: %s() takes two arguments", where, fn);
  *comma = 0;
  *a = args, *b = comma + 1;
  return SDK_OK;
}

static sdk_err parse_init(sdk_model *m, int v, const char *value, int line, sdk_errbuf *eb) {
  sdk_init_spec *is = &m->init[v];
  is->line = line;
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *s = sdk_md_trim(copy);
  sdk_err err = SDK_OK;
  sdk_expr *e = NULL;
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [init] %s", m->path, line, m->vars[v]);
  int kind = SDK_INIT_CONST;
  if (!strncmp(s, "uniform", 7) && s[7 + strspn(s + 7, " ")] == '(') kind = SDK_INIT_UNIFORM;
  if (!strncmp(s, "normal", 6) && s[6 + strspn(s + 6, " ")] == '(') kind = SDK_INIT_NORMAL;
  if (kind == SDK_INIT_CONST) {
    SDK_TRY(err, sdk_md_expr(m, s, "init", m->vars[v], line, 0, &is->a, eb), out);
  } else {
    char *a, *b;
    SDK_TRY(err, split_call2(s, where, kind == SDK_INIT_UNIFORM ? "uniform" : "normal", &a, &b, eb),
            out);
    SDK_TRY(err, sdk_md_expr(m, a, "init", m->vars[v], line, 0, &is->a, eb), out);
    SDK_TRY(err, sdk_md_expr(m, b, "init", m->vars[v], line, 0, &is->b, eb), out);
  }
  is->kind = kind;
out:
  sdk_expr_destroy(&e);
  free(copy);
  return err;
}

/* [particle] NAME = NUMBER | normal(M,S) | uniform(A,B) | cauchy(LOC,SCALE) */
static sdk_err parse_particle(sdk_model *m, sdk_particle_spec *ps, const char *value, int line,
                              sdk_errbuf *eb) {
  static const struct {
    const char *fn;
    sdk_pdist kind;
  } dists[] = {
      {"normal", SDK_PDIST_NORMAL}, {"uniform", SDK_PDIST_UNIFORM}, {"cauchy", SDK_PDIST_CAUCHY}};
  ps->line = line;
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *s = sdk_md_trim(copy);
  sdk_err err = SDK_OK;
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [particle] %s", m->path, line, ps->name);
  ps->kind = SDK_PDIST_CONST;
  const char *fn = NULL;
  for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
    size_t n = strlen(dists[i].fn);
    if (!strncmp(s, dists[i].fn, n) && s[n + strspn(s + n, " ")] == '(')
      ps->kind = dists[i].kind, fn = dists[i].fn;
  }
  if (ps->kind == SDK_PDIST_CONST) {
    err = sdk_md_expr(m, s, "particle", ps->name, line, 0, &ps->a, eb);
    goto out;
  }
  char *a, *b;
  SDK_TRY(err, split_call2(s, where, fn, &a, &b, eb), out);
  SDK_TRY(err, sdk_md_expr(m, a, "particle", ps->name, line, 0, &ps->a, eb), out);
  SDK_TRY(err, sdk_md_expr(m, b, "particle", ps->name, line, 0, &ps->b, eb), out);
out:
  free(copy);
  return err;
}

/* [model] periodic = VAR : EXPR [, VAR : EXPR ...] */
static sdk_err parse_periodic(sdk_model *m, const char *value, int line, sdk_errbuf *eb) {
  m->periodic_line = line;
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = SDK_OK;
  char *item = copy;
  while (err == SDK_OK && item) {
    /* split at the next top-level comma */
    char *next = NULL;
    int depth = 0;
    for (char *p = item; *p; p++) {
      if (*p == '(')
        depth++;
      else if (*p == ')')
        depth--;
      else if (*p == ',' && depth == 0) {
        *p = 0;
        next = p + 1;
        break;
      }
    }
    char *colon = strchr(item, ':');
    if (!colon) {
      err = SDK_FAIL(
          eb, SDK_ERR_MODEL,
          "%s:%d: [model] periodic: expected VAR : PERIOD (e.g. periodic = x : 2*pi), got '%s'",
          m->path, line, sdk_md_trim(item));
      break;
    }
    *colon = 0;
    char *var = sdk_md_trim(item);
    int v = sdk_model_var_index(m, var);
    if (v < 0) {
      char *known = sdk_model_var_list(m);
      err = SDK_FAIL(eb, SDK_ERR_MODEL,
                     "%s:%d: [model] periodic names unknown variable '%s' (variables: %s)", m->path,
                     line, var, known ? known : "?");
      free(known);
      break;
    }
    if (m->var_period[v]) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [model] periodic lists '%s' twice", m->path, line,
                     var);
      break;
    }
    err = sdk_md_expr(m, colon + 1, "model", "periodic", line, 0, &m->var_period[v], eb);
    item = next;
  }
  free(copy);
  return err;
}

/* Register the name of a [particle], [meanfield] or [pair] entry. */
static sdk_err add_coupling_name(sdk_model *m, const char *section, const char *name, int line,
                                 sdk_errbuf *eb) {
  if (strlen(name) > SDK_MODEL_MAX_NAME)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: name '%.20s...' in [%s] is longer than %d characters (the limit)",
                    m->path, line, name, section, SDK_MODEL_MAX_NAME);
  int have = !strcmp(section, "particle")    ? m->npart
             : !strcmp(section, "meanfield") ? m->nmean
                                             : m->npair;
  int max = !strcmp(section, "particle")    ? SDK_MODEL_MAX_PARTICLE
            : !strcmp(section, "meanfield") ? SDK_MODEL_MAX_MEANFIELD
                                            : SDK_MODEL_MAX_PAIR;
  if (have == max)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d entries in [%s] (the limit)", m->path,
                    line, max, section);
  if (!sdk_name_valid(name) || sdk_name_reserved(name))
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' cannot be a name in [%s]%s", m->path, line,
                    name, section, sdk_name_valid(name) ? " (reserved)" : "");
  const char *clash = sdk_model_var_index(m, name) >= 0     ? "a variable"
                      : sdk_model_param_index(m, name) >= 0 ? "a parameter"
                      : sdk_md_part_index(m, name) >= 0     ? "a [particle] parameter"
                      : sdk_md_name_index(m->mean_names, m->nmean, name) >= 0 ? "a [meanfield] name"
                      : sdk_md_name_index(m->pair_names, m->npair, name) >= 0 ? "a [pair] name"
                                                                              : NULL;
  if (clash)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [%s] %s: '%s' is already %s", m->path, line, section,
                    name, name, clash);
  char *copy = sdk_strdup(name);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (!strcmp(section, "particle")) {
    sdk_particle_spec *np = realloc(m->part, (size_t)(m->npart + 1) * sizeof *np);
    if (!np) return free(copy), SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    m->part = np;
    memset(&np[m->npart], 0, sizeof *np);
    np[m->npart].name = copy;
    np[m->npart++].line = line;
    return SDK_OK;
  }
  int mean = !strcmp(section, "meanfield");
  char ***names = mean ? &m->mean_names : &m->pair_names;
  int **lines = mean ? &m->mean_line : &m->pair_line;
  int *n = mean ? &m->nmean : &m->npair;
  char **nn = realloc(*names, (size_t)(*n + 1) * sizeof *nn);
  if (nn) *names = nn;
  int *nl = realloc(*lines, (size_t)(*n + 1) * sizeof *nl);
  if (nl) *lines = nl;
  if (!nn || !nl) return free(copy), SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  nn[*n] = copy;
  nl[*n] = line;
  (*n)++;
  return SDK_OK;
}

static const char *const SECTIONS[] = {"model",    "params",      "drift",  "noise",   "init",
                                       "particle", "meanfield",   "pair",   "observe", "boundaries",
                                       "jumps",    "dichotomous", "events", "colored", "levy",
                                       "history",  NULL};

/* What the expressions of [drift], [noise] (and, with t, [meanfield]) see:
 * the path's variables, the particle's parameters, the coupling names, t. */
#define PATH_NAMES (SDK_MD_VARS | SDK_MD_PART | SDK_MD_COUPLING | SDK_MD_TIME)

/* [params] NAME = NUMBER, or NAME = EXPR (derived: its expression is read by
 * derive_params once every parameter is known) */
static sdk_err parse_param(sdk_model *m, const sdk_md_kv *it, sdk_errbuf *eb) {
  const char *path = m->path;
  double v;
  if (strlen(it->key) > SDK_MODEL_MAX_NAME)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: parameter name '%.20s...' is longer than %d characters (the limit)",
                    path, it->line, it->key, SDK_MODEL_MAX_NAME);
  if (m->nparams == SDK_MODEL_MAX_PARAMS)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d parameters (the limit)", path, it->line,
                    SDK_MODEL_MAX_PARAMS);
  if (!sdk_name_valid(it->key) || sdk_name_reserved(it->key))
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' cannot be a parameter name%s", path, it->line,
                    it->key, sdk_name_valid(it->key) ? " (reserved)" : "");
  char *vcopy = sdk_strdup(it->value);
  if (!vcopy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (!sdk_parse_number(vcopy, &v)) v = NAN; /* derived */
  free(vcopy);
  int n = m->nparams;
  char **np = realloc(m->params, (size_t)(n + 1) * sizeof *np);
  if (np) m->params = np;
  double *nv = realloc(m->pvalues, (size_t)(n + 1) * sizeof *nv);
  if (nv) m->pvalues = nv;
  int *nl = realloc(m->param_line, (size_t)(n + 1) * sizeof *nl);
  if (nl) m->param_line = nl;
  sdk_expr **ne = realloc(m->pexpr, (size_t)(n + 1) * sizeof *ne);
  if (ne) m->pexpr = ne;
  if (!np || !nv || !nl || !ne || !(m->params[n] = sdk_strdup(it->key)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->pexpr[n] = NULL;
  m->pvalues[n] = v;
  m->param_line[n] = it->line;
  m->nparams++;
  return SDK_OK;
}

/* [model] name, description, vars (period and periodic: in pass 2) */
static sdk_err parse_model_key(sdk_model *m, const sdk_md_kv *it, sdk_errbuf *eb) {
  if (!strcmp(it->key, "name")) {
    free(m->name);
    m->name = sdk_strdup(sdk_md_trim(it->value));
  } else if (!strcmp(it->key, "description")) {
    free(m->description);
    m->description = sdk_strdup(sdk_md_trim(it->value));
  } else if (!strcmp(it->key, "vars")) {
    SDK_CHECK(parse_vars(m, it->value, it->line, eb));
  } else if (!strcmp(it->key, "calculus")) {
    char *v = sdk_strdup(it->value);
    if (!v) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    const char *t = sdk_md_trim(v);
    int ito = !strcmp(t, "ito"), strat = !strcmp(t, "stratonovich");
    free(v);
    if (!ito && !strat)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [model] calculus must be ito or stratonovich, not '%.40s'", m->path,
                      it->line, it->value);
    m->calculus = strat ? SDK_CALCULUS_STRATONOVICH : SDK_CALCULUS_ITO;
    m->calculus_line = it->line;
  } else if (!strcmp(it->key, "wiener")) {
    SDK_CHECK(sdk_md_parse_wiener(m, it->value, it->line, eb));
  } else if (strcmp(it->key, "period") && strcmp(it->key, "periodic") &&
             strcmp(it->key, "correlation")) {
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: unknown key '%s' in [model] (keys: name, description, vars, calculus, "
                    "wiener, correlation, period, periodic)",
                    m->path, it->line, it->key);
  }
  return SDK_OK;
}

static double default_value(void *user, sdk_symkind k, int idx) {
  const double *pv = user;
  return k == SDK_SYM_PARAM ? pv[idx] : NAN;
}

/* The derived parameters' expressions, in file order, and their default
 * values from the defaults above them. */
static sdk_err derive_params(sdk_model *m, const sdk_md_entries *c, sdk_errbuf *eb) {
  for (int i = 0; i < c->n; i++) {
    const sdk_md_kv *it = &c->items[i];
    if (strcmp(it->section, "params")) continue;
    int k = sdk_model_param_index(m, it->key);
    if (!isnan(m->pvalues[k])) continue; /* a number */
    SDK_CHECK(sdk_md_param_expr(m, k, it->value, &m->pexpr[k], eb));
    double v = sdk_expr_eval(m->pexpr[k], default_value, m->pvalues);
    if (!isfinite(v))
      return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [params] %s evaluates to %g (must be finite)",
                      m->path, it->line, it->key, v);
    m->pvalues[k] = v;
  }
  return SDK_OK;
}

/* Pass 1: known sections only; [model] and [params]; then what [model]
 * must say. */
static sdk_err pass_header(sdk_model *m, const sdk_md_entries *c, sdk_errbuf *eb) {
  const char *path = m->path;
  for (int i = 0; i < c->n; i++) {
    sdk_md_kv *it = &c->items[i];
    int known = 0;
    for (int s = 0; SECTIONS[s]; s++)
      known |= !strcmp(SECTIONS[s], it->section);
    if (!known)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: unknown section [%s] (sections: model, params, drift, noise, init, "
                      "particle, meanfield, pair, observe, boundaries, jumps, dichotomous, events, "
                      "colored, levy, history)",
                      path, it->line, it->section);
    if (!strcmp(it->section, "model"))
      SDK_CHECK(parse_model_key(m, it, eb));
    else if (!strcmp(it->section, "params"))
      SDK_CHECK(parse_param(m, it, eb));
  }
  for (int i = 0; i < c->n; i++) /* (variables, after those of [model] vars) */
    if (!strcmp(c->items[i].section, "dichotomous"))
      SDK_CHECK(sdk_md_add_dich_name(m, c->items[i].key, c->items[i].line, eb));
    else if (!strcmp(c->items[i].section, "colored"))
      SDK_CHECK(sdk_md_add_colored_name(m, c->items[i].key, c->items[i].line, eb));
  if (!m->name) return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: [model] has no 'name'", path);
  if (!m->description) m->description = sdk_strdup("");
  if (m->nvars == 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: [model] has no 'vars' (e.g. vars = x, v)", path);
  for (int i = 0; i < m->nparams; i++)
    if (sdk_model_var_index(m, m->params[i]) >= 0)
      return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' is both a variable and a parameter", path,
                      m->param_line[i], m->params[i]);
  return derive_params(m, c, eb);
}

/* In a pair function NAMEj means NAME of particle j: no parameter, particle
 * parameter or variable of a model with [pair] may look like that. */
static sdk_err check_j_names(sdk_model *m, const sdk_md_entries *c, sdk_errbuf *eb) {
  const char *path = m->path;
  if (m->npair > 0) {
    for (int i = 0; i < c->n; i++) {
      sdk_md_kv *it = &c->items[i];
      size_t kl = strlen(it->key);
      if (strcmp(it->section, "params") && strcmp(it->section, "particle")) continue;
      if (kl < 2 || it->key[kl - 1] != 'j') continue;
      char base[64];
      snprintf(base, sizeof base, "%.*s", (int)(kl - 1), it->key);
      if (sdk_model_var_index(m, base) >= 0 || sdk_md_part_index(m, base) >= 0)
        return SDK_FAIL(eb, SDK_ERR_MODEL,
                        "%s:%d: '%s' cannot be a name in a model with [pair]: there it means %s "
                        "of particle j",
                        path, it->line, it->key, base);
    }
  }
  for (int v = 0; v < m->nvars; v++) {
    size_t kl = strlen(m->vars[v]);
    char base[64];
    snprintf(base, sizeof base, "%.*s", (int)(kl - 1), m->vars[v]);
    if (m->npair > 0 && kl > 1 && m->vars[v][kl - 1] == 'j' &&
        (sdk_model_var_index(m, base) >= 0 || sdk_md_part_index(m, base) >= 0))
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s: variable '%s' cannot be used in a model with [pair]: there it means %s "
                      "of particle j",
                      path, m->vars[v], base);
  }
  return SDK_OK;
}

/* The names of the interacting-particle sections, before any expression
 * uses them, and the arrays pass 2 fills. */
static sdk_err prepare_pass2(sdk_model *m, const sdk_md_entries *c, sdk_errbuf *eb) {
  for (int i = 0; i < c->n; i++) {
    sdk_md_kv *it = &c->items[i];
    if (!strcmp(it->section, "particle") || !strcmp(it->section, "meanfield") ||
        !strcmp(it->section, "pair"))
      SDK_CHECK(add_coupling_name(m, it->section, it->key, it->line, eb));
  }
  SDK_CHECK(check_j_names(m, c, eb));
  m->interacting = m->nmean + m->npair > 0;
  m->var_period = calloc((size_t)m->nvars, sizeof *m->var_period);
  m->mean = calloc((size_t)(m->nmean + 1), sizeof *m->mean);
  m->pair = calloc((size_t)(m->npair + 1), sizeof *m->pair);
  if (!m->var_period || !m->mean || !m->pair) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->drift = calloc((size_t)m->nvars, sizeof *m->drift);
  m->noise = calloc((size_t)m->nvars, sizeof *m->noise);
  m->drift_line = calloc((size_t)m->nvars, sizeof(int));
  m->noise_line = calloc((size_t)m->nvars, sizeof(int));
  m->init = calloc((size_t)m->nvars, sizeof *m->init);
  if (!m->drift || !m->noise || !m->drift_line || !m->noise_line || !m->init)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  return SDK_OK;
}

/* [drift], [noise], [init] VAR = ... */
static sdk_err parse_var_entry(sdk_model *m, const sdk_md_kv *it, sdk_errbuf *eb) {
  int v = sdk_model_var_index(m, it->key);
  if (v < 0) {
    char *known = sdk_model_var_list(m);
    sdk_err err =
        SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [%s] names unknown variable '%s' (variables: %s)",
                 m->path, it->line, it->section, it->key, known ? known : "?");
    free(known);
    return err;
  }
  char where[256]; /* (for the delayed values: delay.c) */
  snprintf(where, sizeof where, "%s:%d: [%s] %s", m->path, it->line, it->section, it->key);
  if (!strcmp(it->section, "drift")) {
    m->drift_line[v] = it->line;
    SDK_CHECK(sdk_md_expr(m, it->value, "drift", it->key, it->line, PATH_NAMES | SDK_MD_DELAY,
                          &m->drift[v], eb));
    return sdk_md_delays(m, m->drift[v], where, eb);
  }
  if (!strcmp(it->section, "noise")) {
    m->noise_line[v] = it->line;
    int flags = PATH_NAMES | SDK_MD_DELAY | (m->nwiener > 0 ? SDK_MD_WIENER : 0);
    SDK_CHECK(sdk_md_expr(m, it->value, "noise", it->key, it->line, flags, &m->noise[v], eb));
    SDK_CHECK(sdk_md_delays(m, m->noise[v], where, eb));
    /* a literal 0 is no noise at all: no random numbers are drawn for it */
    if (m->noise[v]->kind == SDK_E_NUM && m->noise[v]->num == 0) sdk_expr_destroy(&m->noise[v]);
    return SDK_OK;
  }
  return parse_init(m, v, it->value, it->line, eb);
}

/* Pass 2: one entry's expressions. */
static sdk_err parse_expressions(sdk_model *m, const sdk_md_kv *it, sdk_errbuf *eb) {
  if (!strcmp(it->section, "model") && !strcmp(it->key, "period")) {
    m->period_line = it->line;
    return sdk_md_expr(m, it->value, "model", "period", it->line, 0, &m->period, eb);
  }
  if (!strcmp(it->section, "model") && !strcmp(it->key, "periodic"))
    return parse_periodic(m, it->value, it->line, eb);
  if (!strcmp(it->section, "particle"))
    return parse_particle(m, &m->part[sdk_md_part_index(m, it->key)], it->value, it->line, eb);
  if (!strcmp(it->section, "meanfield")) {
    int k = sdk_md_name_index(m->mean_names, m->nmean, it->key);
    return sdk_md_expr(m, it->value, "meanfield", it->key, it->line,
                       SDK_MD_VARS | SDK_MD_PART | SDK_MD_TIME, &m->mean[k], eb);
  }
  if (!strcmp(it->section, "pair")) {
    int k = sdk_md_name_index(m->pair_names, m->npair, it->key);
    return sdk_md_expr(m, it->value, "pair", it->key, it->line,
                       SDK_MD_VARS | SDK_MD_PART | SDK_MD_TIME | SDK_MD_J, &m->pair[k], eb);
  }
  if (!strcmp(it->section, "model") && !strcmp(it->key, "correlation"))
    return sdk_md_parse_correlation(m, it->value, it->line, eb);
  if (!strcmp(it->section, "dichotomous"))
    return sdk_md_parse_dich(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "jumps")) return sdk_md_add_jump(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "colored"))
    return sdk_md_parse_colored(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "levy")) return sdk_md_add_levy(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "observe"))
    return sdk_md_add_observe(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "boundaries"))
    return sdk_md_add_boundary(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "events")) return sdk_md_add_event(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "history"))
    return sdk_md_add_history(m, it->key, it->value, it->line, eb);
  if (!strcmp(it->section, "drift") || !strcmp(it->section, "noise") ||
      !strcmp(it->section, "init"))
    return parse_var_entry(m, it, eb);
  return SDK_OK;
}

/* Every variable has a drift; the noise is counted and classified; a
 * missing initial condition is 0. */
static sdk_err finish(sdk_model *m, sdk_errbuf *eb) {
  SDK_CHECK(sdk_md_finish_noises(m, eb));
  for (int v = 0; v < m->nvars; v++) {
    if (!m->drift[v])
      return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: [drift] has no equation for variable '%s'", m->path,
                      m->vars[v]);
    if (m->noise[v]) {
      m->nnoise++;
      if (sdk_md_uses_state(m, m->noise[v])) m->multiplicative = 1;
    }
    if (!m->init[v].a) { /* default initial condition: 0 (a dichotomous noise's: codegen) */
      m->init[v].kind = SDK_INIT_CONST;
      m->init[v].a = calloc(1, sizeof(sdk_expr));
      if (!m->init[v].a) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      m->init[v].a->kind = SDK_E_NUM;
    }
  }
  if (m->nwiener > 0) m->nnoise = m->nwiener; /* (the channels are the Wiener processes) */
  m->nnoise += m->ncolored; /* (then one channel per coloured noise: codegen/colored_levy.c) */
  return SDK_OK;
}

sdk_err sdk_md_parse_text(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb) {
  sdk_md_entries c = {0};
  sdk_err err = SDK_OK;
  sdk_model *m = calloc(1, sizeof *m);
  if (!m) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->path = sdk_strdup(path);
  m->text = sdk_strdup(text);
  if (!m->path || !m->text) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto fail;
  }
  SDK_TRY(err, sdk_md_read_entries(text, path, &c, eb), fail);
  SDK_TRY(err, pass_header(m, &c, eb), fail);
  SDK_TRY(err, prepare_pass2(m, &c, eb), fail);
  for (int i = 0; i < c.n; i++)
    SDK_TRY(err, parse_expressions(m, &c.items[i], eb), fail);
  SDK_TRY(err, finish(m, eb), fail);
  SDK_TRY(err, sdk_md_check_boundaries(m, eb), fail);
  SDK_TRY(err, sdk_md_check_events(m, eb), fail);
  SDK_TRY(err, sdk_md_check_delays(m, eb), fail);
  sdk_md_entries_free(&c);
  *out = m;
  return SDK_OK;
fail:
  sdk_md_entries_free(&c);
  sdk_model_destroy(&m);
  return err;
}
