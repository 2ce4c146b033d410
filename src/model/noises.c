/* Noises beyond one Wiener process per variable (model.h): [model] wiener
 * and correlation, [jumps], [dichotomous].
 *
 * Wiener processes shared between variables: a [noise] line of a model
 * with [model] wiener must be linear in the increments dWk (a sum of terms
 * COEF * dWk, COEF * dWk / E, -dWk, COEF * (dW1 + dW2), where no COEF or E
 * contains an increment); the coefficient of dWk is then the line's
 * derivative with respect to dWk (model/diff.c), which is exact for such a
 * line.  Anything else (dW1 * dW2, sin(dW1), a term without an increment)
 * is refused: it is no Ito or Stratonovich SDE. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/limits.h"
#include "model/model_internal.h"

/* at most this many Wiener processes in [model] wiener */
#define MAX_WIENER 16

/* Split s in place at its top-level commas (outside parentheses) into at
 * most max pieces; the number of pieces, or -1 when there are more. */
int sdk_md_split_commas(char *s, char **piece, int max) {
  int n = 0, depth = 0;
  piece[n++] = s;
  for (char *p = s; *p; p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    else if (*p == ',' && depth == 0) {
      if (n == max) return -1;
      *p = 0;
      piece[n++] = p + 1;
    }
  }
  return n;
}

const sdk_dichotomous *sdk_model_dich_of(const sdk_model *m, int v) {
  for (int i = 0; i < m->ndich; i++)
    if (m->dich[i].var == v) return &m->dich[i];
  return NULL;
}

static int uses_state_(const sdk_model *m, const sdk_expr *e) {
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_VAR && !sdk_model_dich_of(m, e->index) &&
      !sdk_model_colored_of(m, e->index))
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (uses_state_(m, e->arg[i])) return 1;
  return 0;
}

int sdk_md_uses_state(const sdk_model *m, const sdk_expr *e) {
  return e && uses_state_(m, e);
}

/* ---- [model] wiener ---- */

sdk_err sdk_md_parse_wiener(sdk_model *m, const char *value, int line, sdk_errbuf *eb) {
  if (m->nwiener > 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [model] wiener given twice", m->path, line);
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = SDK_OK;
  char *save = NULL;
  m->wiener_line = line;
  for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
    if (m->nwiener == MAX_WIENER) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d Wiener processes (the limit)", m->path,
                     line, MAX_WIENER);
      break;
    }
    char inc[SDK_MODEL_MAX_NAME + 2];
    if (strlen(tok) >= SDK_MODEL_MAX_NAME || !sdk_name_valid(tok) || sdk_name_reserved(tok) ||
        (snprintf(inc, sizeof inc, "d%s", tok), sdk_name_reserved(inc))) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%.64s' cannot name a Wiener process", m->path,
                     line, tok);
      break;
    }
    if (sdk_md_name_index(m->wiener, m->nwiener, tok) >= 0) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: Wiener process '%s' listed twice", m->path, line,
                     tok);
      break;
    }
    char **w = realloc(m->wiener, (size_t)(m->nwiener + 1) * sizeof *w);
    if (w) m->wiener = w;
    if (!w || !(w[m->nwiener] = sdk_strdup(tok))) {
      err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      break;
    }
    m->nwiener++;
  }
  free(copy);
  if (err == SDK_OK && m->nwiener == 0)
    err =
        SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [model] wiener lists no Wiener process", m->path, line);
  return err;
}

/* ---- [model] correlation = Wk Wl : RHO, ... ---- */

sdk_err sdk_md_parse_correlation(sdk_model *m, const char *value, int line, sdk_errbuf *eb) {
  if (m->nwiener < 2)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: [model] correlation needs at least two Wiener processes in [model] "
                    "wiener",
                    m->path, line);
  int nw = m->nwiener;
  m->corr_line = line;
  if (!m->corr) {
    m->corr = calloc((size_t)(nw * nw), sizeof *m->corr);
    if (!m->corr) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *piece[MAX_WIENER * MAX_WIENER];
  int n = sdk_md_split_commas(copy, piece, MAX_WIENER * MAX_WIENER);
  sdk_err err = SDK_OK;
  if (n < 0)
    err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [model] correlation has too many entries", m->path,
                   line);
  for (int i = 0; err == SDK_OK && i < n; i++) {
    char *colon = strchr(piece[i], ':');
    char where[256];
    snprintf(where, sizeof where, "%s:%d: [model] correlation", m->path, line);
    if (!colon) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: expected 'W1 W2 : RHO', not '%.60s'", where,
                     sdk_md_trim(piece[i]));
      break;
    }
    *colon = 0;
    char *save = NULL, *a = strtok_r(piece[i], " \t", &save);
    char *b = a ? strtok_r(NULL, " \t", &save) : NULL;
    char *extra = b ? strtok_r(NULL, " \t", &save) : NULL;
    int k = a ? sdk_md_name_index(m->wiener, nw, a) : -1;
    int l = b ? sdk_md_name_index(m->wiener, nw, b) : -1;
    if (k < 0 || l < 0 || extra) {
      char *known = sdk_md_join(m->wiener, nw);
      err = SDK_FAIL(eb, SDK_ERR_MODEL,
                     "%s: expected two Wiener processes of [model] wiener (%s) before ':'", where,
                     known ? known : "?");
      free(known);
      break;
    }
    if (k == l) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL,
                     "%s: '%s %s': a Wiener process has correlation 1 with itself", where, a, b);
      break;
    }
    int hi = k > l ? k : l, lo = k > l ? l : k;
    if (m->corr[hi * nw + lo]) {
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: the pair %s %s is given twice", where, a, b);
      break;
    }
    err = sdk_md_expr_at(m, colon + 1, where, 0, &m->corr[hi * nw + lo], eb);
  }
  free(copy);
  return err;
}

int sdk_model_correlation(const sdk_model *m, const double *pv, double *c, double *l, char *why,
                          size_t nwhy) {
  int nw = m->nwiener;
  for (int k = 0; k < nw; k++)
    for (int j = 0; j <= k; j++) {
      double r = k == j ? 1 : 0;
      const sdk_expr *e = m->corr ? m->corr[k * nw + j] : NULL;
      if (k != j && e) r = sdk_model_eval_params(e, pv);
      if (!(r >= -1 && r <= 1)) {
        snprintf(why, nwhy,
                 "%s:%d: [model] correlation: that of %s and %s is %.17g (must be in [-1, 1])",
                 m->path, m->corr_line, m->wiener[k], m->wiener[j], r);
        return -1;
      }
      c[k * nw + j] = c[j * nw + k] = r;
    }
  /* (the factor is computed in any case: it is the check) */
  double *f = calloc((size_t)(nw * nw > 0 ? nw * nw : 1), sizeof *f);
  if (!f) {
    snprintf(why, nwhy, "out of memory");
    return -1;
  }
  int bad = 0;
  /* Cholesky, a zero pivot (a fully correlated pair) giving a zero column;
   * the codegen (codegen/srk.c) emits the same recursion */
  for (int j = 0; j < nw && !bad; j++) {
    double d = c[j * nw + j];
    for (int k = 0; k < j; k++)
      d -= f[j * nw + k] * f[j * nw + k];
    if (d < -1e-12) bad = 1;
    double ljj = d > 1e-12 ? sqrt(d) : 0;
    f[j * nw + j] = ljj;
    for (int i = j + 1; i < nw && !bad; i++) {
      double s = c[i * nw + j];
      for (int k = 0; k < j; k++)
        s -= f[i * nw + k] * f[j * nw + k];
      if (ljj > 0)
        f[i * nw + j] = s / ljj;
      else if (fabs(s) > 1e-9)
        bad = 1;
    }
  }
  if (bad)
    snprintf(why, nwhy,
             "%s:%d: [model] correlation: the correlations of the Wiener processes do not form a "
             "correlation matrix (it is not positive semi-definite)",
             m->path, m->corr_line);
  else if (l)
    memcpy(l, f, (size_t)(nw * nw) * sizeof *f);
  free(f);
  return bad ? -1 : 0;
}

/* ---- [dichotomous] NAME = A, B, RATE_AB, RATE_BA ---- */

sdk_err sdk_md_noise_var(sdk_model *m, const char *section, const char *name, int line,
                         sdk_errbuf *eb) {
  if (strlen(name) > SDK_MODEL_MAX_NAME || !sdk_name_valid(name) || sdk_name_reserved(name))
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%.64s' cannot be the name of a [%s] noise", m->path,
                    line, name, section);
  if (sdk_model_var_index(m, name) >= 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [%s] %s: '%s' is already a variable", m->path, line,
                    section, name, name);
  if (m->nvars == SDK_MODEL_MAX_VARS)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d variables (the limit)", m->path, line,
                    SDK_MODEL_MAX_VARS);
  char **v = realloc(m->vars, (size_t)(m->nvars + 1) * sizeof *v);
  if (v) m->vars = v;
  if (!v || !(v[m->nvars] = sdk_strdup(name))) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->nvars++;
  return SDK_OK;
}

sdk_err sdk_md_noise_entry(sdk_model *m, const char *section, const char *name, int line,
                           void **arr, int *count, size_t size, sdk_errbuf *eb) {
  char *a = realloc(*arr, (size_t)(*count + 1) * size);
  if (!a) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  *arr = a;
  SDK_CHECK(sdk_md_noise_var(m, section, name, line, eb));
  memset(a + (size_t)*count * size, 0, size);
  (*count)++;
  return SDK_OK;
}

sdk_err sdk_md_add_dich_name(sdk_model *m, const char *name, int line, sdk_errbuf *eb) {
  void *a = m->dich;
  sdk_err e = sdk_md_noise_entry(m, "dichotomous", name, line, &a, &m->ndich, sizeof *m->dich, eb);
  m->dich = a;
  SDK_CHECK(e);
  m->dich[m->ndich - 1].var = m->nvars - 1;
  m->dich[m->ndich - 1].line = line;
  return SDK_OK;
}

sdk_err sdk_md_noise_exprs(sdk_model *m, const char *section, const char *name, const char *value,
                           int line, int n, sdk_expr **const *dst, const char *expected,
                           sdk_errbuf *eb) {
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [%s] %s", m->path, line, section, name);
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *piece[4];
  int k = sdk_md_split_commas(copy, piece, 4);
  sdk_err err = SDK_OK;
  if (k != n || !dst[0]) err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: expected %s", where, expected);
  for (int i = 0; err == SDK_OK && i < n; i++)
    err = sdk_md_expr_at(m, piece[i], where, 0, dst[i], eb);
  free(copy);
  return err;
}

sdk_err sdk_md_parse_dich(sdk_model *m, const char *name, const char *value, int line,
                          sdk_errbuf *eb) {
  sdk_dichotomous *d = (sdk_dichotomous *)sdk_model_dich_of(m, sdk_model_var_index(m, name));
  sdk_expr **const dst[4] = {d ? &d->a : NULL, d ? &d->b : NULL, d ? &d->rab : NULL,
                             d ? &d->rba : NULL};
  return sdk_md_noise_exprs(m, "dichotomous", name, value, line, 4, dst,
                            "A, B, RATE_AB, RATE_BA (the two values and the rates of "
                            "switching from A to B and back)",
                            eb);
}

sdk_err sdk_md_plain_var(const sdk_model *m, const char *where, const char *var, int *v,
                         sdk_errbuf *eb) {
  *v = sdk_model_var_index(m, var);
  if (*v >= 0 && !sdk_model_dich_of(m, *v) && !sdk_model_colored_of(m, *v)) return SDK_OK;
  char *known = sdk_model_var_list(m);
  sdk_err err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%s' is no variable of the model (variables: %s)",
                         where, var, known ? known : "?");
  free(known);
  return err;
}

/* ---- [jumps] VAR = RATE : AMPLITUDE [centered] ---- */

/* "name(args)" at the start of s: the kind and its arguments' text */
static int amplitude_kind(char *s, char **args, int *nargs) {
  static const struct {
    const char *name;
    int kind, nargs;
  } kinds[] = {{"fixed", SDK_JUMP_FIXED, 1},
               {"exp", SDK_JUMP_EXP, 1},
               {"uniform", SDK_JUMP_UNIFORM, 2},
               {"normal", SDK_JUMP_NORMAL, 2}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    size_t n = strlen(kinds[i].name);
    if (strncmp(s, kinds[i].name, n)) continue;
    char *p = s + n;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p != '(') continue;
    *args = p + 1;
    *nargs = kinds[i].nargs;
    return kinds[i].kind;
  }
  return -1;
}

sdk_err sdk_md_add_jump(sdk_model *m, const char *var, const char *value, int line,
                        sdk_errbuf *eb) {
  char where[256];
  snprintf(where, sizeof where, "%s:%d: [jumps] %s", m->path, line, var);
  int v = -1;
  SDK_CHECK(sdk_md_plain_var(m, where, var, &v, eb));
  sdk_jump *nj = realloc(m->jump, (size_t)(m->njump + 1) * sizeof *nj);
  if (!nj) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->jump = nj;
  sdk_jump *j = &nj[m->njump];
  memset(j, 0, sizeof *j);
  j->var = v;
  j->line = line;
  char *copy = sdk_strdup(value);
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = SDK_OK;
  /* the last ':' outside parentheses ends RATE (which may hold a ?:) */
  char *colon = NULL;
  int depth = 0;
  for (char *p = copy; *p; p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    else if (*p == ':' && depth == 0)
      colon = p;
  }
  char *amp = colon ? sdk_md_trim(colon + 1) : NULL, *args = NULL;
  int nargs = 0, kind = amp ? amplitude_kind(amp, &args, &nargs) : -1;
  char *close = args ? strrchr(args, ')') : NULL;
  if (close) {
    *close = 0;
    char *rest = sdk_md_trim(close + 1);
    if (!strcmp(rest, "centered"))
      j->centered = 1;
    else if (*rest)
      close = NULL;
  }
  if (kind < 0 || !close) {
    err = SDK_FAIL(eb, SDK_ERR_MODEL,
                   "%s: expected RATE : AMPLITUDE [centered], AMPLITUDE one of fixed(a), "
                   "exp(mean), uniform(a, b), normal(m, s)",
                   where);
  } else {
    *colon = 0;
    j->kind = (sdk_jump_kind)kind;
    char *piece[2];
    int n = sdk_md_split_commas(args, piece, 2);
    if (n != nargs)
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: the amplitude takes %d argument%s", where, nargs,
                     nargs > 1 ? "s" : "");
    if (err == SDK_OK) err = sdk_md_expr_at(m, copy, where, 0, &j->rate, eb);
    if (err == SDK_OK) err = sdk_md_expr_at(m, piece[0], where, 0, &j->a, eb);
    if (err == SDK_OK && n > 1) err = sdk_md_expr_at(m, piece[1], where, 0, &j->b, eb);
  }
  free(copy);
  m->njump++; /* (destroyed with the model in any case) */
  return err;
}

/* ---- after every section ---- */

static int uses_wiener(const sdk_expr *e) {
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_OTHER &&
      SDK_OTHER_KIND(e->index) == SDK_OTHER_WIENER)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (uses_wiener(e->arg[i])) return 1;
  return 0;
}

/* Is e linear and homogeneous in the increments (see the head)? */
static int linear(const sdk_expr *e) {
  if (!uses_wiener(e)) return 0;
  if (e->kind == SDK_E_SYM) return 1;
  if (e->kind == SDK_E_UNARY && (e->op == '-' || e->op == '+')) return linear(e->arg[0]);
  if (e->kind != SDK_E_BINARY) return 0;
  const sdk_expr *a = e->arg[0], *b = e->arg[1];
  switch (e->op) {
  case '+':
  case '-': return linear(a) && linear(b);
  case '*': return (linear(a) && !uses_wiener(b)) || (!uses_wiener(a) && linear(b));
  case '/': return linear(a) && !uses_wiener(b);
  default: return 0;
  }
}

static sdk_err wiener_coefficients(sdk_model *m, sdk_errbuf *eb) {
  int nw = m->nwiener;
  m->wcoef = calloc((size_t)(m->nvars * nw), sizeof *m->wcoef);
  if (!m->wcoef) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int v = 0; v < m->nvars; v++) {
    if (!m->noise[v]) continue;
    char where[256];
    snprintf(where, sizeof where, "%s:%d: [noise] %s", m->path, m->noise_line[v], m->vars[v]);
    if (!linear(m->noise[v]))
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s: with [model] wiener a noise line is a sum of terms COEF * dW (linear in "
                      "the increments, every term with one; e.g. s1*dW1 + eps*x*dW2)",
                      where);
    for (int k = 0; k < nw; k++) {
      sdk_expr *c = NULL;
      SDK_CHECK(sdk_expr_diff_sym(m->noise[v], SDK_SYM_OTHER, SDK_OTHER(SDK_OTHER_WIENER, k), where,
                                  &c, eb));
      if (c->kind == SDK_E_NUM && c->num == 0)
        sdk_expr_destroy(&c);
      else
        m->wcoef[v * nw + k] = c;
    }
  }
  return SDK_OK;
}

/* the names the increments take must not be names of the model */
static sdk_err check_increment_names(const sdk_model *m, sdk_errbuf *eb) {
  for (int k = 0; k < m->nwiener; k++) {
    char inc[SDK_MODEL_MAX_NAME + 2];
    snprintf(inc, sizeof inc, "d%s", m->wiener[k]);
    const char *clash = sdk_model_var_index(m, inc) >= 0     ? "a variable"
                        : sdk_model_param_index(m, inc) >= 0 ? "a parameter"
                                                             : NULL;
    if (clash)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [model] wiener %s: its increment '%s' is already %s", m->path,
                      m->wiener_line, m->wiener[k], inc, clash);
  }
  return SDK_OK;
}

sdk_err sdk_md_finish_noises(sdk_model *m, sdk_errbuf *eb) {
  SDK_CHECK(sdk_md_finish_colored_levy(m, eb));
  int systems = m->interacting || m->npart > 0;
  int line = m->nwiener ? m->wiener_line
             : m->njump ? m->jump[0].line
             : m->ndich ? m->dich[0].line
                        : 0;
  if (line && systems)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: shared Wiener processes, [jumps] and [dichotomous] are not supported "
                    "for systems of particles ([particle], [meanfield], [pair]) yet",
                    m->path, line);
  if (line && m->nbound > 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: shared Wiener processes, [jumps] and [dichotomous] are not supported "
                    "together with [boundaries] yet",
                    m->path, line);
  for (int i = 0; i < m->njump; i++)
    for (int k = 0; k < i; k++)
      if (m->jump[k].var == m->jump[i].var)
        return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: [jumps] %s is given twice (also on line %d)",
                        m->path, m->jump[i].line, m->vars[m->jump[i].var], m->jump[k].line);
  for (int i = 0; i < m->ndich; i++) {
    int v = m->dich[i].var;
    const char *sec = m->drift[v] ? "drift" : m->noise[v] ? "noise" : NULL;
    if (sec)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [%s] %s: '%s' is a [dichotomous] noise (line %d), which has no %s",
                      m->path, sec[0] == 'd' ? m->drift_line[v] : m->noise_line[v], sec, m->vars[v],
                      m->vars[v], m->dich[i].line, sec);
    if (m->init[v].a && m->init[v].kind != SDK_INIT_CONST)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: [init] %s: a [dichotomous] noise starts at one of its values (or, "
                      "without [init], at a value drawn from its stationary distribution)",
                      m->path, m->init[v].line, m->vars[v]);
    m->dich[i].init_given = m->init[v].a != NULL;
    m->drift[v] = sdk_expr_number(0);
    if (!m->drift[v]) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    m->drift_line[v] = m->dich[i].line;
  }
  if (m->nwiener > 0) {
    SDK_CHECK(check_increment_names(m, eb));
    SDK_CHECK(wiener_coefficients(m, eb));
  }
  return SDK_OK;
}

/* ---- the values at a grid point ---- */

int sdk_model_check_noises(const sdk_model *m, const double *pv, double dt, int64_t nsteps,
                           char *why, size_t nwhy) {
  if (sdk_md_check_colored_levy(m, pv, dt, why, nwhy)) return -1;
  /* a noise coefficient in the parameters alone that is no number here
   * (sqrt(2*D) with D < 0) would make every path NaN, reported as paths
   * that blew up, with the advice of a smaller dt */
  for (int j = 0; j < m->nvars * (m->nwiener > 0 ? m->nwiener : 1); j++) {
    /* (shared Wiener processes: each coefficient of a dWk) */
    int v = m->nwiener > 0 ? j / m->nwiener : j;
    const sdk_expr *e = m->nwiener > 0 ? m->wcoef[j] : m->noise[v];
    if (!e || sdk_expr_uses(e, SDK_SYM_VAR) || sdk_expr_uses(e, SDK_SYM_TIME) ||
        sdk_expr_uses(e, SDK_SYM_OTHER))
      continue;
    double b = sdk_model_eval_params(e, pv);
    if (!isfinite(b))
      return snprintf(why, nwhy,
                      "%s:%d: [noise] %s%s%s is %g at these parameter values (must be finite)",
                      m->path, m->noise_line ? m->noise_line[v] : 0, m->vars[v],
                      m->nwiener > 0 ? ": the coefficient of d" : "",
                      m->nwiener > 0 ? m->wiener[j % m->nwiener] : "", isnan(b) ? fabs(b) : b),
             -1;
  }
  if (m->nwiener > 1) {
    double *c = malloc((size_t)(m->nwiener * m->nwiener) * sizeof *c);
    if (!c) return snprintf(why, nwhy, "out of memory"), -1;
    int bad = sdk_model_correlation(m, pv, c, NULL, why, nwhy);
    free(c);
    if (bad) return -1;
  }
  if (m->njump > 0 && (double)nsteps * m->njump >= 17592186044416.0) /* 2^44 (events.c) */
    return snprintf(
               why, nwhy,
               "%s: a run with [jumps] takes at most 2^44 / %d steps (the keying of its random "
               "numbers, codegen/events.c)",
               m->path, m->njump),
           -1;
  for (int i = 0; i < m->njump; i++) {
    const sdk_jump *j = &m->jump[i];
    double rate = sdk_model_eval_params(j->rate, pv);
    double a = sdk_model_eval_params(j->a, pv);
    double b = j->b ? sdk_model_eval_params(j->b, pv) : 0;
    const char *v = m->vars[j->var];
    if (!(rate >= 0 && isfinite(rate)))
      return snprintf(why, nwhy, "%s:%d: [jumps] %s: the rate is %g (must be finite and >= 0)",
                      m->path, j->line, v, rate),
             -1;
    if (!isfinite(a) || !isfinite(b))
      return snprintf(why, nwhy, "%s:%d: [jumps] %s: the amplitude's arguments must be finite",
                      m->path, j->line, v),
             -1;
    if (j->kind == SDK_JUMP_UNIFORM && !(a <= b))
      return snprintf(why, nwhy, "%s:%d: [jumps] %s: uniform(a, b) needs a <= b (%g, %g)", m->path,
                      j->line, v, a, b),
             -1;
    if (j->kind == SDK_JUMP_NORMAL && !(b >= 0))
      return snprintf(why, nwhy, "%s:%d: [jumps] %s: normal(m, s) needs s >= 0 (%g)", m->path,
                      j->line, v, b),
             -1;
    /* a sum of uniform amplitudes takes one random word per jump */
    if (j->kind == SDK_JUMP_UNIFORM && rate * dt > 1e5)
      return snprintf(why, nwhy,
                      "%s:%d: [jumps] %s: %g jumps per step on average: uniform amplitudes are "
                      "summed one by one, up to 1e5 jumps per step (use a smaller --dt)",
                      m->path, j->line, v, rate * dt),
             -1;
  }
  for (int i = 0; i < m->ndich; i++) {
    const sdk_dichotomous *d = &m->dich[i];
    double a = sdk_model_eval_params(d->a, pv);
    double b = sdk_model_eval_params(d->b, pv);
    double ra = sdk_model_eval_params(d->rab, pv);
    double rb = sdk_model_eval_params(d->rba, pv);
    const char *v = m->vars[d->var];
    if (!isfinite(a) || !isfinite(b) || a == b)
      return snprintf(why, nwhy,
                      "%s:%d: [dichotomous] %s: the values A = %g, B = %g must be "
                      "finite and differ",
                      m->path, d->line, v, a, b),
             -1;
    if (!(ra >= 0 && rb >= 0 && isfinite(ra) && isfinite(rb) && ra + rb > 0))
      return snprintf(why, nwhy,
                      "%s:%d: [dichotomous] %s: the rates %g, %g must be finite, >= 0 and not "
                      "both 0",
                      m->path, d->line, v, ra, rb),
             -1;
    /* held over a step as a [colored] noise is (colored_levy.c): its
     * correlation time 1 / (ra + rb) must be resolved (telegraph_ou, a = 1,
     * k = 1, g = 50, dt = 1/(2g): the variance of x 9% high) */
    if (dt > 1 / ((ra + rb) * SDK_NOISE_HOLD_STEPS) * (1 + 1e-12))
      return snprintf(why, nwhy,
                      "%s:%d: [dichotomous] %s: dt = %g is %.3g times its correlation time "
                      "1/(RATE_AB + RATE_BA) = %g: the noise is held over each step, which biases "
                      "what it drives by a fraction of dt (RATE_AB + RATE_BA); the step must be "
                      "at most a tenth of it, %g",
                      m->path, d->line, v, dt, dt * (ra + rb), 1 / (ra + rb),
                      1 / ((ra + rb) * SDK_NOISE_HOLD_STEPS)),
             -1;
    if (d->init_given) {
      double x0 = sdk_model_eval_params(m->init[d->var].a, pv);
      if (x0 != a && x0 != b)
        return snprintf(why, nwhy,
                        "%s:%d: [init] %s = %g: a [dichotomous] noise starts at A = %g or B = %g",
                        m->path, m->init[d->var].line, v, x0, a, b),
               -1;
    }
  }
  return 0;
}
