#include "model/model.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/strbuf.h"

int sdk_parse_number(const char *s, double *out) {
  if (!s) return 0;
  while (isspace((unsigned char)*s)) s++;
  if (!*s) return 0;
  /* decimal only: no hex, inf or nan, which strtod would accept */
  for (const char *p = s; *p; p++)
    if (!(isdigit((unsigned char)*p) || strchr("+-.eE \t", *p))) return 0;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE || !isfinite(v)) return 0;
  while (isspace((unsigned char)*end)) end++;
  if (*end) return 0;
  *out = v;
  return 1;
}

/* ---- raw key/value collection from libinih ---- */
typedef struct kv {
  char *section, *key, *value;
  int line;
} kv;

typedef struct collect {
  kv *items;
  int n, cap;
  int oom;
} collect;

static int on_ini_kv(void *user, const char *section, const char *name, const char *value) {
  collect *c = user;
  /* libinih calls again with the same key for an indented continuation
   * line: join it to the previous value */
  if (c->n > 0 && !strcmp(c->items[c->n - 1].section, section) &&
      !strcmp(c->items[c->n - 1].key, name)) {
    kv *last = &c->items[c->n - 1];
    size_t a = strlen(last->value), b = strlen(value);
    char *v = realloc(last->value, a + b + 2);
    if (!v) return c->oom = 1, 0;
    v[a] = ' ';
    memcpy(v + a + 1, value, b + 1);
    last->value = v;
    return 1;
  }
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 32;
    kv *it = realloc(c->items, (size_t)cap * sizeof *it);
    if (!it) return c->oom = 1, 0;
    c->items = it;
    c->cap = cap;
  }
  kv *it = &c->items[c->n];
  it->section = sdk_strdup(section);
  it->key = sdk_strdup(name);
  it->value = sdk_strdup(value);
  it->line = 0;
  if (!it->section || !it->key || !it->value) {
    free(it->section);
    free(it->key);
    free(it->value);
    return c->oom = 1, 0;
  }
  c->n++;
  return 1;
}

static void collect_free(collect *c) {
  for (int i = 0; i < c->n; i++) {
    free(c->items[i].section);
    free(c->items[i].key);
    free(c->items[i].value);
  }
  free(c->items);
}

/* libinih does not report line numbers to the handler; find each key's
 * first line by scanning section headers and "key =" starts ourselves, and
 * catch keys given twice (libinih would merge them). */
static sdk_err assign_lines(collect *c, const char *text, const char *path, sdk_errbuf *eb) {
  char section[128] = "";
  int line = 0;
  const char *p = text;
  while (*p) {
    line++;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const char *q = p;
    while (q < p + len && (*q == ' ' || *q == '\t')) q++;
    int indented = q > p;
    if (q < p + len && *q == '[') {
      const char *r = memchr(q, ']', (size_t)(p + len - q));
      if (r) {
        size_t n = (size_t)(r - q - 1);
        if (n >= sizeof section) n = sizeof section - 1;
        memcpy(section, q + 1, n);
        section[n] = 0;
        /* trim */
        char *s = section;
        while (*s == ' ') memmove(s, s + 1, strlen(s));
        for (size_t k = strlen(section); k > 0 && section[k - 1] == ' '; k--) section[k - 1] = 0;
      }
    } else if (!indented && q < p + len && *q != '#' && *q != ';') {
      const char *eq = q;
      while (eq < p + len && *eq != '=' && *eq != ':') eq++;
      size_t kl = (size_t)(eq - q);
      while (kl > 0 && isspace((unsigned char)q[kl - 1])) kl--;
      for (int i = 0; i < c->n; i++) {
        kv *it = &c->items[i];
        if (strlen(it->key) == kl && !strncmp(it->key, q, kl) && !strcmp(it->section, section)) {
          if (it->line)
            return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' given twice in [%s] (first on line %d)",
                            path, line, it->key, section, it->line);
          it->line = line;
          break;
        }
      }
    }
    p = e ? e + 1 : p + len;
  }
  return SDK_OK;
}

void sdk_model_destroy(sdk_model **mp) {
  if (!mp || !*mp) return;
  sdk_model *m = *mp;
  for (int i = 0; i < m->nvars; i++) {
    free(m->vars[i]);
    if (m->drift) sdk_expr_destroy(&m->drift[i]);
    if (m->noise) sdk_expr_destroy(&m->noise[i]);
    if (m->init) {
      sdk_expr_destroy(&m->init[i].a);
      sdk_expr_destroy(&m->init[i].b);
    }
  }
  for (int i = 0; i < m->nparams; i++) free(m->params[i]);
  free(m->vars);
  free(m->params);
  free(m->pvalues);
  free(m->param_line);
  free(m->drift);
  free(m->noise);
  free(m->drift_line);
  free(m->noise_line);
  free(m->init);
  sdk_expr_destroy(&m->period);
  free(m->name);
  free(m->description);
  free(m->path);
  free(m->text);
  free(m);
  *mp = NULL;
}

int sdk_model_var_index(const sdk_model *m, const char *name) {
  for (int i = 0; i < m->nvars; i++)
    if (!strcmp(m->vars[i], name)) return i;
  return -1;
}

int sdk_model_param_index(const sdk_model *m, const char *name) {
  for (int i = 0; i < m->nparams; i++)
    if (!strcmp(m->params[i], name)) return i;
  return -1;
}

static char *join(char **names, int n) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  for (int i = 0; i < n; i++) {
    if (i) sdk_sb_puts(&b, ", ");
    sdk_sb_puts(&b, names[i]);
  }
  if (n == 0) sdk_sb_puts(&b, "(none)");
  return sdk_sb_take(&b);
}

char *sdk_model_param_list(const sdk_model *m) { return join(m->params, m->nparams); }
char *sdk_model_var_list(const sdk_model *m) { return join(m->vars, m->nvars); }

/* resolver for the expressions of a model: which names each section sees */
typedef struct {
  const sdk_model *m;
  int allow_vars;
} resolve_ctx;

static sdk_symkind resolve(void *user, const char *name, int *index) {
  resolve_ctx *rc = user;
  int i;
  if (rc->allow_vars && (i = sdk_model_var_index(rc->m, name)) >= 0) {
    *index = i;
    return SDK_SYM_VAR;
  }
  if ((i = sdk_model_param_index(rc->m, name)) >= 0) {
    *index = i;
    return SDK_SYM_PARAM;
  }
  return SDK_SYM_UNRESOLVED;
}

static char *known_names(const sdk_model *m, int vars, int time) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  if (vars) {
    sdk_sb_puts(&b, "variables ");
    char *s = sdk_model_var_list(m);
    sdk_sb_puts(&b, s ? s : "");
    free(s);
    sdk_sb_puts(&b, "; ");
  }
  sdk_sb_puts(&b, "parameters ");
  char *s = sdk_model_param_list(m);
  sdk_sb_puts(&b, s ? s : "");
  free(s);
  sdk_sb_puts(&b, time ? "; t, pi" : "; pi");
  return sdk_sb_take(&b);
}

static sdk_err parse_expr_at(const sdk_model *m, const char *text, const char *section,
                             const char *key, int line, int vars, int time, sdk_expr **out,
                             sdk_errbuf *eb) {
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [%s] %s", m->path, line, section, key);
  /* '#' never occurs in an expression: treat it as the start of a comment */
  char *copy = sdk_strdup(text);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *hash = strchr(copy, '#');
  if (hash) *hash = 0;
  sdk_err err = sdk_expr_parse(copy, where, out, eb);
  free(copy);
  SDK_CHECK(err);
  resolve_ctx rc = {m, vars};
  char *known = known_names(m, vars, time);
  err = sdk_expr_resolve(*out, resolve, &rc, where, known ? known : "?", eb);
  free(known);
  if (err == SDK_OK && !time && sdk_expr_uses(*out, SDK_SYM_TIME))
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: t cannot be used here", where);
  if (err != SDK_OK) sdk_expr_destroy(out);
  return err;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

static sdk_err parse_vars(sdk_model *m, const char *value, int line, sdk_errbuf *eb) {
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = SDK_OK;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
    char *name = trim(tok);
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

static sdk_err parse_init(sdk_model *m, int v, const char *value, int line, sdk_errbuf *eb) {
  sdk_init_spec *is = &m->init[v];
  is->line = line;
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *hash = strchr(copy, '#');
  if (hash) *hash = 0;
  char *s = trim(copy);
  sdk_err err = SDK_OK;
  sdk_expr *e = NULL;
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [init] %s", m->path, line, m->vars[v]);
  int kind = SDK_INIT_CONST;
  if (!strncmp(s, "uniform", 7) && s[7 + strspn(s + 7, " ")] == '(') kind = SDK_INIT_UNIFORM;
  if (!strncmp(s, "normal", 6) && s[6 + strspn(s + 6, " ")] == '(') kind = SDK_INIT_NORMAL;
  if (kind == SDK_INIT_CONST) {
    SDK_TRY(err, parse_expr_at(m, s, "init", m->vars[v], line, 0, 0, &is->a, eb), out);
  } else {
    /* parse "fn(A, B)": split on the top-level comma */
    char *open = strchr(s, '('), *close = strrchr(s, ')');
    if (!close || close < open || *trim(close + 1)) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: expected %s(A, B)", where,
                     kind == SDK_INIT_UNIFORM ? "uniform" : "normal");
      goto out;
    }
    *close = 0;
    char *args = open + 1, *comma = NULL;
    int depth = 0;
    for (char *p = args; *p; p++) {
      if (*p == '(') depth++;
      else if (*p == ')') depth--;
      else if (*p == ',' && depth == 0 && !comma) comma = p;
    }
    if (!comma) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: %s() takes two arguments", where,
                     kind == SDK_INIT_UNIFORM ? "uniform" : "normal");
      goto out;
    }
    *comma = 0;
    SDK_TRY(err, parse_expr_at(m, args, "init", m->vars[v], line, 0, 0, &is->a, eb), out);
    SDK_TRY(err, parse_expr_at(m, comma + 1, "init", m->vars[v], line, 0, 0, &is->b, eb), out);
  }
  is->kind = kind;
out:
  sdk_expr_destroy(&e);
  free(copy);
  return err;
}

static const char *const SECTIONS[] = {"model", "params", "drift", "noise", "init", NULL};

sdk_err sdk_model_parse(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb) {
  *out = NULL;
  collect c = {0};
  sdk_err err = SDK_OK;
  sdk_model *m = calloc(1, sizeof *m);
  if (!m) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->path = sdk_strdup(path);
  m->text = sdk_strdup(text);
  if (!m->path || !m->text) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto fail;
  }
  int rc = ini_parse_string(text, on_ini_kv, &c);
  if (c.oom) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto fail;
  }
  if (rc != 0) {
    err = SDK_FAIL(eb, SDK_ERR_MODEL,
                   "%s:%d: malformed line (expected '[section]', 'name = value', a comment, "
                   "or a line over 200 characters: continue it on an indented line)",
                   path, rc);
    goto fail;
  }
  SDK_TRY(err, assign_lines(&c, text, path, eb), fail);

  /* pass 1: sections, [model], [params] */
  int vars_line = 0;
  for (int i = 0; i < c.n; i++) {
    kv *it = &c.items[i];
    int known = 0;
    for (int s = 0; SECTIONS[s]; s++) known |= !strcmp(SECTIONS[s], it->section);
    if (!known) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL,
                     "%s:%d: unknown section [%s] (sections: model, params, drift, noise, init)",
                     path, it->line, it->section);
      goto fail;
    }
    if (!strcmp(it->section, "model")) {
      if (!strcmp(it->key, "name")) {
        free(m->name);
        m->name = sdk_strdup(trim(it->value));
      } else if (!strcmp(it->key, "description")) {
        free(m->description);
        m->description = sdk_strdup(trim(it->value));
      } else if (!strcmp(it->key, "vars")) {
        vars_line = it->line;
        SDK_TRY(err, parse_vars(m, it->value, it->line, eb), fail);
      } else if (strcmp(it->key, "period")) {
        err = SDK_FAIL(eb, SDK_ERR_MODEL,
                       "%s:%d: unknown key '%s' in [model] (keys: name, description, vars, period)",
                       path, it->line, it->key);
        goto fail;
      }
    } else if (!strcmp(it->section, "params")) {
      double v;
      if (!sdk_name_valid(it->key) || sdk_name_reserved(it->key)) {
        err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' cannot be a parameter name%s", path,
                       it->line, it->key, sdk_name_valid(it->key) ? " (reserved)" : "");
        goto fail;
      }
      char *vcopy = sdk_strdup(it->value);
      if (!vcopy) {
        err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
        goto fail;
      }
      char *hash = strchr(vcopy, '#');
      if (hash) *hash = 0;
      int ok = sdk_parse_number(vcopy, &v);
      free(vcopy);
      if (!ok) {
        err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: parameter %s = '%s' is not a number", path,
                       it->line, it->key, it->value);
        goto fail;
      }
      int n = m->nparams;
      char **np = realloc(m->params, (size_t)(n + 1) * sizeof *np);
      if (np) m->params = np;
      double *nv = realloc(m->pvalues, (size_t)(n + 1) * sizeof *nv);
      if (nv) m->pvalues = nv;
      int *nl = realloc(m->param_line, (size_t)(n + 1) * sizeof *nl);
      if (nl) m->param_line = nl;
      if (!np || !nv || !nl || !(m->params[n] = sdk_strdup(it->key))) {
        err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
        goto fail;
      }
      m->pvalues[n] = v;
      m->param_line[n] = it->line;
      m->nparams++;
    }
  }
  if (!m->name) {
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: [model] has no 'name'", path);
    goto fail;
  }
  if (!m->description) m->description = sdk_strdup("");
  if (m->nvars == 0) {
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: [model] has no 'vars' (e.g. vars = x, v)", path);
    goto fail;
  }
  for (int i = 0; i < m->nparams; i++)
    if (sdk_model_var_index(m, m->params[i]) >= 0) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' is both a variable and a parameter", path,
                     m->param_line[i], m->params[i]);
      goto fail;
    }
  (void)vars_line;

  m->drift = calloc((size_t)m->nvars, sizeof *m->drift);
  m->noise = calloc((size_t)m->nvars, sizeof *m->noise);
  m->drift_line = calloc((size_t)m->nvars, sizeof(int));
  m->noise_line = calloc((size_t)m->nvars, sizeof(int));
  m->init = calloc((size_t)m->nvars, sizeof *m->init);
  if (!m->drift || !m->noise || !m->drift_line || !m->noise_line || !m->init) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto fail;
  }

  /* pass 2: expressions */
  for (int i = 0; i < c.n; i++) {
    kv *it = &c.items[i];
    int is_drift = !strcmp(it->section, "drift"), is_noise = !strcmp(it->section, "noise"),
        is_init = !strcmp(it->section, "init");
    if (!strcmp(it->section, "model") && !strcmp(it->key, "period")) {
      m->period_line = it->line;
      SDK_TRY(err, parse_expr_at(m, it->value, "model", "period", it->line, 0, 0, &m->period, eb),
              fail);
      continue;
    }
    if (!is_drift && !is_noise && !is_init) continue;
    int v = sdk_model_var_index(m, it->key);
    if (v < 0) {
      char *known = sdk_model_var_list(m);
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [%s] names unknown variable '%s' (variables: %s)",
                     path, it->line, it->section, it->key, known ? known : "?");
      free(known);
      goto fail;
    }
    if (is_drift) {
      m->drift_line[v] = it->line;
      SDK_TRY(err, parse_expr_at(m, it->value, "drift", it->key, it->line, 1, 1, &m->drift[v], eb),
              fail);
    } else if (is_noise) {
      m->noise_line[v] = it->line;
      SDK_TRY(err, parse_expr_at(m, it->value, "noise", it->key, it->line, 1, 1, &m->noise[v], eb),
              fail);
      /* a literal 0 is no noise at all: no random numbers are drawn for it */
      if (m->noise[v]->kind == SDK_E_NUM && m->noise[v]->num == 0) sdk_expr_destroy(&m->noise[v]);
    } else {
      SDK_TRY(err, parse_init(m, v, it->value, it->line, eb), fail);
    }
  }
  for (int v = 0; v < m->nvars; v++) {
    if (!m->drift[v]) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: [drift] has no equation for variable '%s'", path,
                     m->vars[v]);
      goto fail;
    }
    if (m->noise[v]) {
      m->nnoise++;
      if (sdk_expr_uses(m->noise[v], SDK_SYM_VAR)) m->multiplicative = 1;
    }
    if (!m->init[v].a) { /* default initial condition: 0 */
      m->init[v].kind = SDK_INIT_CONST;
      m->init[v].a = calloc(1, sizeof(sdk_expr));
      if (!m->init[v].a) {
        err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
        goto fail;
      }
      m->init[v].a->kind = SDK_E_NUM;
    }
  }
  collect_free(&c);
  *out = m;
  return SDK_OK;
fail:
  collect_free(&c);
  sdk_model_destroy(&m);
  return err;
}

int sdk_model_dirs(const char **dirs, int maxdirs) {
  int n = 0;
  const char *env = getenv("SDEKIT_MODEL_PATH");
  if (env && *env && n < maxdirs) dirs[n++] = env;
#ifdef SDK_INSTALL_MODELS
  if (n < maxdirs) dirs[n++] = SDK_INSTALL_MODELS;
#endif
  if (n < maxdirs) dirs[n++] = SDK_SOURCE_DIR "/models";
  return n;
}

sdk_err sdk_model_load(const char *name, sdk_model **out, sdk_errbuf *eb) {
  *out = NULL;
  char path[4096];
  struct stat st;
  int found = 0;
  if (strchr(name, '/') || strstr(name, ".sde") || stat(name, &st) == 0) {
    snprintf(path, sizeof path, "%s", name);
    found = stat(path, &st) == 0;
    if (!found)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", name, strerror(errno));
  } else {
    const char *dirs[8];
    int nd = sdk_model_dirs(dirs, 8);
    for (int i = 0; i < nd && !found; i++) {
      /* SDEKIT_MODEL_PATH may itself hold several ':'-separated dirs */
      const char *d = dirs[i];
      while (*d && !found) {
        size_t len = strcspn(d, ":");
        snprintf(path, sizeof path, "%.*s/%s.sde", (int)len, d, name);
        found = stat(path, &st) == 0;
        d += len + (d[len] == ':');
      }
    }
    if (!found)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "no model '%s': not a file and not a built-in model (see 'sdekit models')",
                      name);
  }
  if (S_ISDIR(st.st_mode))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': it is a directory", path);
  char *text = sdk_read_file(path, NULL);
  if (!text)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", path, strerror(errno));
  sdk_err err = sdk_model_parse(text, path, out, eb);
  free(text);
  return err;
}
