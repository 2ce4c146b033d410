#include "model/model.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "model/limits.h"

int sdk_parse_number(const char *s, double *out) {
  if (!s) return 0;
  while (isspace((unsigned char)*s))
    s++;
  if (!*s) return 0;
  /* decimal only: no hex, inf or nan, which strtod would accept */
  for (const char *p = s; *p; p++)
    if (!(isdigit((unsigned char)*p) || strchr("+-.eE \t", *p))) return 0;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE || !isfinite(v)) return 0;
  while (isspace((unsigned char)*end))
    end++;
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
  int toomany; /* line of the first entry past SDK_MODEL_MAX_ENTRIES */
} collect;

static int on_ini_kv(void *user, const char *section, const char *name, const char *value) {
  collect *c = user;
  if (c->oom || c->toomany) return 0;
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
  if (c->n == SDK_MODEL_MAX_ENTRIES) return c->toomany = 1, 0;
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

static int kv_order(const void *a, const void *b) {
  const kv *x = *(const kv *const *)a, *y = *(const kv *const *)b;
  int d = strcmp(x->section, y->section);
  return d ? d : strcmp(x->key, y->key);
}

/* A key given twice in one section, wherever the line scan of assign_lines
 * lost track of sections (a header after a carriage return, an indented
 * key): refuse it rather than keep one of the two silently. */
static sdk_err refuse_repeats(const collect *c, const char *path, sdk_errbuf *eb) {
  if (c->n < 2) return SDK_OK;
  kv **v = malloc((size_t)c->n * sizeof *v);
  if (!v) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int i = 0; i < c->n; i++)
    v[i] = &c->items[i];
  qsort(v, (size_t)c->n, sizeof *v, kv_order);
  sdk_err err = SDK_OK;
  for (int i = 1; i < c->n && err == SDK_OK; i++)
    if (!kv_order(&v[i - 1], &v[i]))
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%s' given twice in [%s]", path, v[i]->key,
                     v[i]->section);
  free(v);
  return err;
}

/* libinih does not report line numbers to the handler; find each key's
 * first line by scanning section headers and "key =" starts ourselves, and
 * catch keys given twice (libinih would merge them). */
static sdk_err assign_lines(collect *c, const char *text, const char *path, sdk_errbuf *eb) {
  char section[SDK_MODEL_MAX_LINE + 1] = "";
  int line = 0;
  const char *p = text;
  while (*p) {
    line++;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const char *q = p;
    while (q < p + len && (*q == ' ' || *q == '\t'))
      q++;
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
        while (*s == ' ')
          memmove(s, s + 1, strlen(s));
        for (size_t k = strlen(section); k > 0 && section[k - 1] == ' '; k--)
          section[k - 1] = 0;
      }
    } else if (!indented && q < p + len && *q != '#' && *q != ';') {
      const char *eq = q;
      while (eq < p + len && *eq != '=' && *eq != ':')
        eq++;
      size_t kl = (size_t)(eq - q);
      while (kl > 0 && isspace((unsigned char)q[kl - 1]))
        kl--;
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
  for (int i = 0; i < m->nparams; i++)
    free(m->params[i]);
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
  for (int i = 0; i < m->npart; i++) {
    free(m->part[i].name);
    sdk_expr_destroy(&m->part[i].a);
    sdk_expr_destroy(&m->part[i].b);
  }
  free(m->part);
  for (int i = 0; i < m->nmean; i++) {
    free(m->mean_names[i]);
    if (m->mean) sdk_expr_destroy(&m->mean[i]);
  }
  free(m->mean_names);
  free(m->mean);
  free(m->mean_line);
  for (int i = 0; i < m->npair; i++) {
    free(m->pair_names[i]);
    if (m->pair) sdk_expr_destroy(&m->pair[i]);
  }
  free(m->pair_names);
  free(m->pair);
  free(m->pair_line);
  if (m->var_period)
    for (int i = 0; i < m->nvars; i++)
      sdk_expr_destroy(&m->var_period[i]);
  free(m->var_period);
  free(m->name);
  free(m->description);
  free(m->path);
  free(m->file);
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

char *sdk_model_param_list(const sdk_model *m) {
  return join(m->params, m->nparams);
}
char *sdk_model_var_list(const sdk_model *m) {
  return join(m->vars, m->nvars);
}

int sdk_model_first_periodic(const sdk_model *m) {
  for (int v = 0; m->var_period && v < m->nvars; v++)
    if (m->var_period[v]) return v;
  return -1;
}

static int part_index(const sdk_model *m, const char *name) {
  for (int i = 0; i < m->npart; i++)
    if (!strcmp(m->part[i].name, name)) return i;
  return -1;
}
static int name_index(char **names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return i;
  return -1;
}

/* what an expression may refer to, besides the parameters and pi */
enum {
  F_VARS = 1,     /* this particle's (path's) variables */
  F_TIME = 2,     /* t */
  F_PART = 4,     /* per-particle parameters */
  F_COUPLING = 8, /* names of [meanfield] and [pair] */
  F_J = 16        /* VARj, NAMEj: particle j of a pair function */
};

/* resolver for the expressions of a model: which names each section sees */
typedef struct {
  const sdk_model *m;
  int flags;
} resolve_ctx;

static sdk_symkind resolve(void *user, const char *name, int *index) {
  resolve_ctx *rc = user;
  const sdk_model *m = rc->m;
  int i;
  if ((rc->flags & F_VARS) && (i = sdk_model_var_index(m, name)) >= 0) {
    *index = i;
    return SDK_SYM_VAR;
  }
  if ((i = sdk_model_param_index(m, name)) >= 0) {
    *index = i;
    return SDK_SYM_PARAM;
  }
  if ((rc->flags & F_PART) && (i = part_index(m, name)) >= 0) {
    *index = SDK_OTHER(SDK_OTHER_PART, i);
    return SDK_SYM_OTHER;
  }
  if ((rc->flags & F_COUPLING) && (i = name_index(m->mean_names, m->nmean, name)) >= 0) {
    *index = SDK_OTHER(SDK_OTHER_MEAN, i);
    return SDK_SYM_OTHER;
  }
  if ((rc->flags & F_COUPLING) && (i = name_index(m->pair_names, m->npair, name)) >= 0) {
    *index = SDK_OTHER(SDK_OTHER_PAIR, i);
    return SDK_SYM_OTHER;
  }
  size_t n = strlen(name);
  if ((rc->flags & F_J) && n > 1 && name[n - 1] == 'j') {
    char base[64];
    snprintf(base, sizeof base, "%.*s", (int)(n - 1), name);
    if ((i = sdk_model_var_index(m, base)) >= 0) {
      *index = SDK_OTHER(SDK_OTHER_VARJ, i);
      return SDK_SYM_OTHER;
    }
    if ((rc->flags & F_PART) && (i = part_index(m, base)) >= 0) {
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
  if (flags & F_VARS) {
    sdk_sb_puts(&b, "variables ");
    char *s = sdk_model_var_list(m);
    sdk_sb_puts(&b, s ? s : "");
    free(s);
    sdk_sb_puts(&b, "; ");
  }
  if (flags & F_J) {
    sdk_sb_puts(&b, "of particle j: ");
    list_names(&b, m->vars, m->nvars, "j");
    for (int i = 0; (flags & F_PART) && i < m->npart; i++)
      sdk_sb_printf(&b, ", %sj", m->part[i].name);
    sdk_sb_puts(&b, "; ");
  }
  sdk_sb_puts(&b, "parameters ");
  char *s = sdk_model_param_list(m);
  sdk_sb_puts(&b, s ? s : "");
  free(s);
  if ((flags & F_PART) && m->npart > 0) {
    sdk_sb_puts(&b, "; particle parameters ");
    for (int i = 0; i < m->npart; i++)
      sdk_sb_printf(&b, "%s%s", i ? ", " : "", m->part[i].name);
  }
  if ((flags & F_COUPLING) && m->nmean > 0) {
    sdk_sb_puts(&b, "; [meanfield] ");
    list_names(&b, m->mean_names, m->nmean, "");
  }
  if ((flags & F_COUPLING) && m->npair > 0) {
    sdk_sb_puts(&b, "; [pair] ");
    list_names(&b, m->pair_names, m->npair, "");
  }
  sdk_sb_puts(&b, (flags & F_TIME) ? "; t, pi" : "; pi");
  return sdk_sb_take(&b);
}

static sdk_err parse_expr_f(const sdk_model *m, const char *text, const char *section,
                            const char *key, int line, int flags, sdk_expr **out, sdk_errbuf *eb);

static sdk_err parse_expr_at(const sdk_model *m, const char *text, const char *section,
                             const char *key, int line, int vars, int time, sdk_expr **out,
                             sdk_errbuf *eb) {
  return parse_expr_f(m, text, section, key, line,
                      (vars ? F_VARS | F_PART | F_COUPLING : 0) | (time ? F_TIME : 0), out, eb);
}

static sdk_err parse_expr_f(const sdk_model *m, const char *text, const char *section,
                            const char *key, int line, int flags, sdk_expr **out, sdk_errbuf *eb) {
  int time = (flags & F_TIME) != 0;
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
  resolve_ctx rc = {m, flags};
  char *known = known_names(m, flags);
  err = sdk_expr_resolve(*out, resolve, &rc, where, known ? known : "?", eb);
  free(known);
  if (err == SDK_OK && !time && sdk_expr_uses(*out, SDK_SYM_TIME))
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: t cannot be used here", where);
  if (err != SDK_OK) sdk_expr_destroy(out);
  return err;
}

static char *trim(char *s) {
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
    char *name = trim(tok);
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
  if (!open || !close || close < open || *trim(close + 1))
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
    char *a, *b;
    SDK_TRY(err, split_call2(s, where, kind == SDK_INIT_UNIFORM ? "uniform" : "normal", &a, &b, eb),
            out);
    SDK_TRY(err, parse_expr_at(m, a, "init", m->vars[v], line, 0, 0, &is->a, eb), out);
    SDK_TRY(err, parse_expr_at(m, b, "init", m->vars[v], line, 0, 0, &is->b, eb), out);
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
  char *hash = strchr(copy, '#');
  if (hash) *hash = 0;
  char *s = trim(copy);
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
    err = parse_expr_f(m, s, "particle", ps->name, line, 0, &ps->a, eb);
    goto out;
  }
  char *a, *b;
  SDK_TRY(err, split_call2(s, where, fn, &a, &b, eb), out);
  SDK_TRY(err, parse_expr_f(m, a, "particle", ps->name, line, 0, &ps->a, eb), out);
  SDK_TRY(err, parse_expr_f(m, b, "particle", ps->name, line, 0, &ps->b, eb), out);
out:
  free(copy);
  return err;
}

/* [model] periodic = VAR : EXPR [, VAR : EXPR ...] */
static sdk_err parse_periodic(sdk_model *m, const char *value, int line, sdk_errbuf *eb) {
  m->periodic_line = line;
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *hash = strchr(copy, '#');
  if (hash) *hash = 0;
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
          m->path, line, trim(item));
      break;
    }
    *colon = 0;
    char *var = trim(item);
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
    err = parse_expr_f(m, colon + 1, "model", "periodic", line, 0, &m->var_period[v], eb);
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
  const char *clash = sdk_model_var_index(m, name) >= 0                ? "a variable"
                      : sdk_model_param_index(m, name) >= 0            ? "a parameter"
                      : part_index(m, name) >= 0                       ? "a [particle] parameter"
                      : name_index(m->mean_names, m->nmean, name) >= 0 ? "a [meanfield] name"
                      : name_index(m->pair_names, m->npair, name) >= 0 ? "a [pair] name"
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

static const char *const SECTIONS[] = {"model",    "params",    "drift", "noise", "init",
                                       "particle", "meanfield", "pair",  NULL};

static sdk_err parse_text(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb) {
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
  if (c.toomany) {
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d entries (the limit)", path, rc,
                   SDK_MODEL_MAX_ENTRIES);
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
  SDK_TRY(err, refuse_repeats(&c, path, eb), fail);

  /* pass 1: sections, [model], [params] */
  int vars_line = 0;
  for (int i = 0; i < c.n; i++) {
    kv *it = &c.items[i];
    int known = 0;
    for (int s = 0; SECTIONS[s]; s++)
      known |= !strcmp(SECTIONS[s], it->section);
    if (!known) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL,
                     "%s:%d: unknown section [%s] (sections: model, params, drift, noise, init, "
                     "particle, meanfield, pair)",
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
      } else if (strcmp(it->key, "period") && strcmp(it->key, "periodic")) {
        err = SDK_FAIL(eb, SDK_ERR_MODEL,
                       "%s:%d: unknown key '%s' in [model] (keys: name, description, vars, period, "
                       "periodic)",
                       path, it->line, it->key);
        goto fail;
      }
    } else if (!strcmp(it->section, "params")) {
      double v;
      if (strlen(it->key) > SDK_MODEL_MAX_NAME) {
        err = SDK_FAIL(eb, SDK_ERR_MODEL,
                       "%s:%d: parameter name '%.20s...' is longer than %d characters (the limit)",
                       path, it->line, it->key, SDK_MODEL_MAX_NAME);
        goto fail;
      }
      if (m->nparams == SDK_MODEL_MAX_PARAMS) {
        err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d parameters (the limit)", path,
                       it->line, SDK_MODEL_MAX_PARAMS);
        goto fail;
      }
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
  /* names of the interacting-particle sections, before any expression uses them */
  for (int i = 0; i < c.n; i++) {
    kv *it = &c.items[i];
    if (!strcmp(it->section, "particle") || !strcmp(it->section, "meanfield") ||
        !strcmp(it->section, "pair"))
      SDK_TRY(err, add_coupling_name(m, it->section, it->key, it->line, eb), fail);
  }
  if (m->npair > 0) {
    /* in a pair function NAMEj means NAME of particle j: no other name may look like that */
    for (int i = 0; i < c.n; i++) {
      kv *it = &c.items[i];
      size_t kl = strlen(it->key);
      if (strcmp(it->section, "params") && strcmp(it->section, "particle")) continue;
      if (kl < 2 || it->key[kl - 1] != 'j') continue;
      char base[64];
      snprintf(base, sizeof base, "%.*s", (int)(kl - 1), it->key);
      if (sdk_model_var_index(m, base) >= 0 || part_index(m, base) >= 0) {
        err = SDK_FAIL(eb, SDK_ERR_MODEL,
                       "%s:%d: '%s' cannot be a name in a model with [pair]: there it means %s of "
                       "particle j",
                       path, it->line, it->key, base);
        goto fail;
      }
    }
  }
  for (int v = 0; v < m->nvars; v++) {
    size_t kl = strlen(m->vars[v]);
    char base[64];
    snprintf(base, sizeof base, "%.*s", (int)(kl - 1), m->vars[v]);
    if (m->npair > 0 && kl > 1 && m->vars[v][kl - 1] == 'j' &&
        (sdk_model_var_index(m, base) >= 0 || part_index(m, base) >= 0)) {
      err =
          SDK_FAIL(eb, SDK_ERR_MODEL,
                   "%s: variable '%s' cannot be used in a model with [pair]: there it means %s of "
                   "particle j",
                   path, m->vars[v], base);
      goto fail;
    }
  }
  m->interacting = m->nmean + m->npair > 0;
  m->var_period = calloc((size_t)m->nvars, sizeof *m->var_period);
  m->mean = calloc((size_t)(m->nmean + 1), sizeof *m->mean);
  m->pair = calloc((size_t)(m->npair + 1), sizeof *m->pair);
  if (!m->var_period || !m->mean || !m->pair) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto fail;
  }

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
    if (!strcmp(it->section, "model") && !strcmp(it->key, "periodic")) {
      SDK_TRY(err, parse_periodic(m, it->value, it->line, eb), fail);
      continue;
    }
    if (!strcmp(it->section, "particle")) {
      SDK_TRY(err, parse_particle(m, &m->part[part_index(m, it->key)], it->value, it->line, eb),
              fail);
      continue;
    }
    if (!strcmp(it->section, "meanfield")) {
      int k = name_index(m->mean_names, m->nmean, it->key);
      SDK_TRY(err,
              parse_expr_f(m, it->value, "meanfield", it->key, it->line, F_VARS | F_PART | F_TIME,
                           &m->mean[k], eb),
              fail);
      continue;
    }
    if (!strcmp(it->section, "pair")) {
      int k = name_index(m->pair_names, m->npair, it->key);
      SDK_TRY(err,
              parse_expr_f(m, it->value, "pair", it->key, it->line, F_VARS | F_PART | F_TIME | F_J,
                           &m->pair[k], eb),
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

/* Length of the well-formed UTF-8 sequence at p (at most n bytes), 0 if
 * malformed (overlong forms, surrogates and code points past U+10FFFF
 * included). */
static size_t utf8_len(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  size_t k;
  unsigned min, cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    k = 2, min = 0x80, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    k = 3, min = 0x800, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    k = 4, min = 0x10000, cp = c & 0x07;
  else
    return 0;
  if (k > n) return 0;
  for (size_t i = 1; i < k; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (p[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return k;
}

sdk_err sdk_model_parse_buffer(const char *data, size_t len, const char *name, sdk_model **out,
                               sdk_errbuf *eb) {
  *out = NULL;
  if (!name) name = "(model text)";
  if (len > SDK_MODEL_MAX_BYTES)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: %zu bytes, more than the %d bytes a model may have",
                    name, len, SDK_MODEL_MAX_BYTES);
  const unsigned char *p = (const unsigned char *)data;
  /* libinih skips a UTF-8 byte order mark; so does everything after it */
  if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) p += 3, len -= 3;
  /* A NUL would end the text early for libinih, silently dropping the rest;
   * a line past libinih's buffer would be split into two lines; invalid
   * UTF-8 would reach HDF5 attributes declared UTF-8.  Refuse each. */
  int line = 1;
  size_t col = 0;
  for (size_t i = 0; i < len;) {
    if (p[i] == '\n') {
      line++, col = 0, i++;
      continue;
    }
    if (p[i] == 0)
      return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: NUL byte at column %zu (a model file is text)",
                      name, line, col + 1);
    size_t k = utf8_len(p + i, len - i);
    if (!k)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: byte 0x%02x at column %zu is not UTF-8 (a model file is UTF-8 text)",
                      name, line, p[i], col + 1);
    if ((col += k) > SDK_MODEL_MAX_LINE)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: line longer than %d bytes (the limit): continue a long value on "
                      "indented lines",
                      name, line, SDK_MODEL_MAX_LINE);
    i += k;
  }
  char *text = malloc(len + 1);
  if (!text) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  memcpy(text, p, len);
  text[len] = 0;
  sdk_err err = parse_text(text, name, out, eb);
  free(text);
  return err;
}

sdk_err sdk_model_parse(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb) {
  if (!text) return *out = NULL, SDK_FAIL(eb, SDK_ERR_MODEL, "%s: no model text", path);
  return sdk_model_parse_buffer(text, strlen(text), path, out, eb);
}

int sdk_model_dirs(const char *search_path, const char **dirs, int maxdirs) {
  int n = 0;
  if (search_path && *search_path && n < maxdirs) dirs[n++] = search_path;
#ifdef SDK_INSTALL_MODELS
  if (n < maxdirs) dirs[n++] = SDK_INSTALL_MODELS;
#endif
  if (n < maxdirs) dirs[n++] = SDK_SOURCE_DIR "/models";
  return n;
}

/* Calls fn(dir, len, user) for every directory searched for a bare model
 * name, in order: the entries of search_path (empty entries are skipped:
 * they do not mean the current directory), then the built-in directories.  Stops when fn returns
 * nonzero and returns that value. */
static int each_model_dir(const char *search_path,
                          int (*fn)(const char *dir, size_t len, void *user), void *user) {
  const char *dirs[8];
  int nd = sdk_model_dirs(search_path, dirs, 8), r = 0;
  for (int i = 0; i < nd && !r; i++)
    for (const char *d = dirs[i]; *d && !r;) {
      size_t len = strcspn(d, ":");
      if (len > 0) r = fn(d, len, user);
      d += len + (d[len] == ':');
    }
  return r;
}

typedef struct {
  char **names;
  int n, cap, oom;
} name_set;

static int collect_dir(const char *dir, size_t len, void *user) {
  name_set *ns = user;
  char path[PATH_MAX];
  if (len >= sizeof path) return 0;
  memcpy(path, dir, len);
  path[len] = 0;
  DIR *d = opendir(path);
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n <= 4 || strcmp(e->d_name + n - 4, ".sde") || e->d_name[0] == '.') continue;
    int dup = 0;
    for (int i = 0; i < ns->n && !dup; i++)
      dup = strlen(ns->names[i]) == n - 4 && !strncmp(ns->names[i], e->d_name, n - 4);
    if (dup) continue;
    if (ns->n == ns->cap) {
      int cap = ns->cap ? 2 * ns->cap : 16;
      char **nn = realloc(ns->names, (size_t)cap * sizeof *nn);
      if (!nn) {
        ns->oom = 1;
        break;
      }
      ns->names = nn, ns->cap = cap;
    }
    if (!(ns->names[ns->n] = sdk_strndup(e->d_name, n - 4))) {
      ns->oom = 1;
      break;
    }
    ns->n++;
  }
  closedir(d);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char *sdk_model_builtin_names(const char *search_path) {
  name_set ns = {0};
  each_model_dir(search_path, collect_dir, &ns);
  if (ns.n > 1) qsort(ns.names, (size_t)ns.n, sizeof *ns.names, cmp_str);
  char *s = ns.oom ? NULL : join(ns.names, ns.n);
  for (int i = 0; i < ns.n; i++)
    free(ns.names[i]);
  free(ns.names);
  return s;
}

/* Open a model file for reading: never blocks (a FIFO opens at once with
 * O_NONBLOCK and is then refused), never leaks into a child process.  Reads
 * at most SDK_MODEL_MAX_BYTES, whatever the file claims or grows to.
 * Returns SDK_OK with *text (NUL-terminated) and *len, or an error; with
 * missing != NULL a file that does not exist sets *missing instead. */
static sdk_err read_model_file(const char *path, char **text, size_t *len, char **resolved,
                               int *missing, sdk_errbuf *eb) {
  *text = NULL;
  *resolved = NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (missing && (errno == ENOENT || errno == ENOTDIR)) return *missing = 1, SDK_OK;
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", path, strerror(errno));
  }
  struct stat st;
  sdk_err err = SDK_OK;
  char *buf = NULL;
  size_t n = 0;
  if (fstat(fd, &st) != 0) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", path, strerror(errno));
    goto out;
  }
  if (!S_ISREG(st.st_mode)) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': it is %s, not a regular file",
                   path,
                   S_ISDIR(st.st_mode)    ? "a directory"
                   : S_ISFIFO(st.st_mode) ? "a FIFO"
                   : S_ISCHR(st.st_mode)  ? "a character device"
                   : S_ISBLK(st.st_mode)  ? "a block device"
                   : S_ISSOCK(st.st_mode) ? "a socket"
                                          : "a special file");
    goto out;
  }
  if (st.st_size > SDK_MODEL_MAX_BYTES) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "model file '%s' is %lld bytes, more than the %d bytes a model may have", path,
                   (long long)st.st_size, SDK_MODEL_MAX_BYTES);
    goto out;
  }
  /* one byte more than the limit: a file that grew since fstat is caught */
  buf = malloc((size_t)SDK_MODEL_MAX_BYTES + 2);
  if (!buf) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  while (n <= SDK_MODEL_MAX_BYTES) {
    ssize_t r = read(fd, buf + n, (size_t)SDK_MODEL_MAX_BYTES + 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", path, strerror(errno));
      goto out;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  if (n > SDK_MODEL_MAX_BYTES) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "model file '%s' is more than the %d bytes a model may have",
                   path, SDK_MODEL_MAX_BYTES);
    goto out;
  }
  buf[n] = 0;
  *resolved = realpath(path, NULL); /* NULL (unknown) is not an error */
out:
  close(fd);
  if (err != SDK_OK) {
    free(buf);
    return err;
  }
  *text = buf;
  *len = n;
  return SDK_OK;
}

typedef struct {
  const char *name;
  char *text, *resolved;
  size_t len;
  char path[PATH_MAX];
  sdk_errbuf *eb;
  sdk_err err;
} search;

static int try_dir(const char *dir, size_t len, void *user) {
  search *s = user;
  int n = snprintf(s->path, sizeof s->path, "%.*s/%s.sde", (int)len, dir, s->name);
  if (n < 0 || (size_t)n >= sizeof s->path) return 0;
  int missing = 0;
  s->err = read_model_file(s->path, &s->text, &s->len, &s->resolved, &missing, s->eb);
  return s->err != SDK_OK || !missing;
}

static int has_sde_suffix(const char *s) {
  size_t n = strlen(s);
  return n >= 4 && !strcmp(s + n - 4, ".sde");
}

sdk_err sdk_model_load_from(const char *name, const char *search_path, sdk_model **out,
                            sdk_errbuf *eb) {
  *out = NULL;
  if (!name || !*name) return SDK_FAIL(eb, SDK_ERR_USAGE, "empty model name");
  search s = {.name = name, .eb = eb};
  const char *path = name;
  if (strchr(name, '/') || has_sde_suffix(name)) {
    /* a path: read it, and only it */
    SDK_CHECK(read_model_file(name, &s.text, &s.len, &s.resolved, NULL, eb));
  } else {
    /* a bare name is a model of the search path or a built-in, never a
     * file of the current directory that happens to have that name */
    if (!each_model_dir(search_path, try_dir, &s)) {
      char *known = sdk_model_builtin_names(search_path);
      /* a file of that name (or NAME.sde) here is most likely what was meant */
      char sde[PATH_MAX];
      struct stat st;
      snprintf(sde, sizeof sde, "%s.sde", name);
      const char *here = stat(name, &st) == 0 ? "./" : stat(sde, &st) == 0 ? "" : NULL;
      sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE,
                           "unknown model '%s' (see 'sdekit models': %s); a model file needs a "
                           "'/' or the .sde suffix%s%s%s%s",
                           name, known ? known : "?", here ? " (for the file here, write " : "",
                           here ? here : "", here ? name : "", here ? (*here ? ")" : ".sde)") : "");
      free(known);
      return e;
    }
    SDK_CHECK(s.err);
    path = s.path;
  }
  sdk_err err = sdk_model_parse_buffer(s.text, s.len, path, out, eb);
  free(s.text);
  if (err == SDK_OK) {
    (*out)->file = s.resolved;
    s.resolved = NULL;
  }
  free(s.resolved);
  return err;
}

sdk_err sdk_model_load(const char *name, sdk_model **out, sdk_errbuf *eb) {
  return sdk_model_load_from(name, NULL, out, eb);
}
