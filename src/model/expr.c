#include "model/expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"
#include "model/limits.h"

/* ---- the math functions a model may call ---- */
typedef struct {
  const char *name;
  int nargs;
  const char *fname; /* float version */
  const char *dname; /* double version */
} fn_info;

static const fn_info FUNCS[] = {
    {"sin", 1, "sinf", "sin"},
    {"cos", 1, "cosf", "cos"},
    {"tan", 1, "tanf", "tan"},
    {"asin", 1, "asinf", "asin"},
    {"acos", 1, "acosf", "acos"},
    {"atan", 1, "atanf", "atan"},
    {"sinh", 1, "sinhf", "sinh"},
    {"cosh", 1, "coshf", "cosh"},
    {"tanh", 1, "tanhf", "tanh"},
    {"exp", 1, "expf", "exp"},
    {"log", 1, "logf", "log"},
    {"log10", 1, "log10f", "log10"},
    {"log2", 1, "log2f", "log2"},
    {"sqrt", 1, "sqrtf", "sqrt"},
    {"cbrt", 1, "cbrtf", "cbrt"},
    {"fabs", 1, "fabsf", "fabs"},
    {"abs", 1, "fabsf", "fabs"},
    {"floor", 1, "floorf", "floor"},
    {"ceil", 1, "ceilf", "ceil"},
    {"round", 1, "roundf", "round"},
    {"erf", 1, "erff", "erf"},
    {"erfc", 1, "erfcf", "erfc"},
    {"tgamma", 1, "tgammaf", "tgamma"},
    {"lgamma", 1, "lgammaf", "lgamma"},
    {"expm1", 1, "expm1f", "expm1"},
    {"log1p", 1, "log1pf", "log1p"},
    {"atan2", 2, "atan2f", "atan2"},
    {"pow", 2, "powf", "pow"},
    {"fmod", 2, "fmodf", "fmod"},
    {"hypot", 2, "hypotf", "hypot"},
    {"fmin", 2, "fminf", "fmin"},
    {"fmax", 2, "fmaxf", "fmax"},
    {"copysign", 2, "copysignf", "copysign"},
    {"fma", 3, "fmaf", "fma"},
};
#define NFUNCS (sizeof FUNCS / sizeof FUNCS[0])

static const fn_info *find_fn(const char *name) {
  for (size_t i = 0; i < NFUNCS; i++)
    if (!strcmp(FUNCS[i].name, name)) return &FUNCS[i];
  return NULL;
}

/* Names a model may not declare because the grammar or the tool gives them a
 * meaning: the time t, the constants pi, e, M_PI, M_E, and dt (the time step:
 * --dt on the command line, scan/dt in result files); and the function names
 * above.  Nothing else: every other identifier, C keywords and names of the C
 * library or of the generated code included, is a valid name, because the
 * generator maps each name to its own prefixed identifier (codegen.c). */
static const char *const RESERVED[] = {"t", "pi", "e", "M_PI", "M_E", "dt", NULL};

int sdk_name_valid(const char *n) {
  if (!n || !(isalpha((unsigned char)n[0]) || n[0] == '_')) return 0;
  for (const char *p = n; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_')) return 0;
  return strlen(n) <= SDK_MODEL_MAX_NAME;
}

int sdk_name_reserved(const char *n) {
  for (int i = 0; RESERVED[i]; i++)
    if (!strcmp(RESERVED[i], n)) return 1;
  return find_fn(n) != NULL;
}

/* ---- parser: precedence climbing over a hand tokenizer ---- */
typedef struct {
  const char *s, *p;
  const char *where;
  sdk_errbuf *eb;
  sdk_err err;
  int nest; /* primaries being parsed, one inside the other */
  /* names that may be called as delayed values NAME(t - TAU) (the
   * variables, sdk_expr_parse_delays); NULL: none */
  char *const *dnames;
  int ndnames;
} parser;

static void skip_ws(parser *ps) {
  while (isspace((unsigned char)*ps->p))
    ps->p++;
}

static sdk_err perr(parser *ps, const char *msg) {
  if (ps->err == SDK_OK) {
    int col = (int)(ps->p - ps->s) + 1;
    ps->err =
        SDK_FAIL(ps->eb, SDK_ERR_MODEL, "%s: %s at column %d of '%s'", ps->where, msg, col, ps->s);
  }
  return ps->err;
}

static sdk_expr *node(sdk_ekind k) {
  sdk_expr *e = calloc(1, sizeof *e);
  if (e) e->kind = k;
  return e;
}

void sdk_expr_destroy(sdk_expr **ep) {
  if (!ep || !*ep) return;
  sdk_expr *e = *ep;
  for (int i = 0; i < 3; i++)
    sdk_expr_destroy(&e->arg[i]);
  free(e->name);
  free(e);
  *ep = NULL;
}

static sdk_expr *parse_expr(parser *ps);

/* Give e its depth (one more than its deepest operand); refuse it past
 * SDK_EXPR_MAX_DEPTH so that no later walk of the tree recurses deeper.
 * Consumes e on failure. */
static sdk_expr *deep_ok(parser *ps, sdk_expr *e) {
  if (!e) return NULL;
  int d = 0;
  for (int i = 0; i < e->nargs; i++)
    if (e->arg[i] && e->arg[i]->depth > d) d = e->arg[i]->depth;
  e->depth = d + 1;
  if (e->depth > SDK_EXPR_MAX_DEPTH) {
    char msg[120];
    snprintf(msg, sizeof msg, "expression nested deeper than %d levels (the limit)",
             SDK_EXPR_MAX_DEPTH);
    perr(ps, msg);
    sdk_expr_destroy(&e);
  }
  return e;
}

static sdk_expr *parse_primary_(parser *ps);

/* Every cycle of the recursive descent passes through here: counting the
 * nesting bounds the C stack the parser uses, whatever the input. */
static sdk_expr *parse_primary(parser *ps) {
  if (ps->nest > SDK_EXPR_MAX_DEPTH) { /* the leaf inside 100 levels is the 101st */
    char msg[120];
    snprintf(msg, sizeof msg, "expression nested deeper than %d levels (the limit)",
             SDK_EXPR_MAX_DEPTH);
    perr(ps, msg);
    return NULL;
  }
  ps->nest++;
  sdk_expr *e = parse_primary_(ps);
  ps->nest--;
  return e;
}

/* A decimal number literal at c (a C float suffix allowed). */
static sdk_expr *parse_number_lit(parser *ps, const char *c) {
  char *end;
  errno = 0;
  double v = strtod(c, &end);
  /* strtod accepts hex floats and "inf"; we want plain decimals only */
  if (end == c || (c[0] == '0' && (c[1] == 'x' || c[1] == 'X'))) {
    perr(ps, "malformed number");
    return NULL;
  }
  /* 1e999 would become inf (and be emitted as the name "inf"), 1e-999
   * would become 0: refuse rather than approximate */
  if (errno == ERANGE || !isfinite(v)) {
    perr(ps, "number out of the range of double precision (about 2.2e-308 to 1.8e308)");
    return NULL;
  }
  if (*end == 'f' || *end == 'F' || *end == 'l' || *end == 'L') end++; /* C suffix */
  if (isalnum((unsigned char)*end) || *end == '_') {
    ps->p = end;
    perr(ps, "malformed number");
    return NULL;
  }
  sdk_expr *e = node(SDK_E_NUM);
  if (!e) return NULL;
  e->num = v;
  ps->p = end;
  return e;
}

/* The arguments of call e up to (not including) the closing ')': at most 3. */
static int parse_args(parser *ps, sdk_expr *e) {
  skip_ws(ps);
  if (*ps->p == ')') return 1;
  for (;;) {
    if (e->nargs == 3) {
      perr(ps, "too many arguments");
      return 0;
    }
    e->arg[e->nargs] = parse_expr(ps);
    if (!e->arg[e->nargs]) return 0;
    e->nargs++;
    skip_ws(ps);
    if (*ps->p != ',') return 1;
    ps->p++;
  }
}

/* A call of the function `name` (taken over), its '(' just read; s is where
 * the name starts (for messages). */
static sdk_expr *parse_delay(parser *ps, const char *s, char *name);

static sdk_expr *parse_call(parser *ps, const char *s, char *name) {
  const fn_info *fi = find_fn(name);
  for (int i = 0; !fi && i < ps->ndnames; i++)
    if (!strcmp(ps->dnames[i], name)) return parse_delay(ps, s, name);
  if (!fi) {
    char msg[200];
    snprintf(msg, sizeof msg, "unknown function '%s'", name);
    ps->p = s;
    free(name);
    perr(ps, msg);
    return NULL;
  }
  sdk_expr *e = node(SDK_E_CALL);
  if (!e) {
    free(name);
    return NULL;
  }
  e->name = name;
  if (!parse_args(ps, e)) {
    sdk_expr_destroy(&e);
    return NULL;
  }
  if (*ps->p != ')') {
    perr(ps, "expected ')' after function arguments");
    sdk_expr_destroy(&e);
    return NULL;
  }
  ps->p++;
  if (!(e = deep_ok(ps, e))) return NULL;
  if (e->nargs != fi->nargs) {
    char msg[200];
    snprintf(msg, sizeof msg, "%s() takes %d argument%s, not %d", fi->name, fi->nargs,
             fi->nargs == 1 ? "" : "s", e->nargs);
    ps->p = s;
    perr(ps, msg);
    sdk_expr_destroy(&e);
    return NULL;
  }
  return e;
}

/* A delayed value NAME(ARG) of a variable (its '(' just read): a call node
 * of op 'D' and one argument, which model/delay.c checks (t - TAU) and
 * turns into a symbol. */
static sdk_expr *parse_delay(parser *ps, const char *s, char *name) {
  sdk_expr *e = node(SDK_E_CALL);
  if (!e) {
    free(name);
    return NULL;
  }
  e->name = name;
  e->op = 'D';
  if (!parse_args(ps, e)) {
    sdk_expr_destroy(&e);
    return NULL;
  }
  if (*ps->p != ')' || e->nargs != 1) {
    ps->p = s;
    perr(ps, "a delayed variable is written VAR(t - TAU), one argument");
    sdk_expr_destroy(&e);
    return NULL;
  }
  ps->p++;
  return deep_ok(ps, e);
}

/* A name at c: a symbol, or a call when '(' follows. */
static sdk_expr *parse_name(parser *ps, const char *c) {
  const char *s = c;
  while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
    ps->p++;
  char *name = sdk_strndup(s, (size_t)(ps->p - s));
  if (!name) return NULL;
  skip_ws(ps);
  if (*ps->p == '(') {
    ps->p++;
    return parse_call(ps, s, name);
  }
  sdk_expr *e = node(SDK_E_SYM);
  if (!e) {
    free(name);
    return NULL;
  }
  e->name = name;
  return e;
}

static sdk_expr *parse_primary_(parser *ps) {
  skip_ws(ps);
  const char *c = ps->p;
  if (isdigit((unsigned char)*c) || (*c == '.' && isdigit((unsigned char)c[1])))
    return parse_number_lit(ps, c);
  if (isalpha((unsigned char)*c) || *c == '_') return parse_name(ps, c);
  if (*c == '(') {
    ps->p++;
    sdk_expr *e = parse_expr(ps);
    if (!e) return NULL;
    skip_ws(ps);
    if (*ps->p != ')') {
      perr(ps, "expected ')'");
      sdk_expr_destroy(&e);
      return NULL;
    }
    ps->p++;
    return e;
  }
  if (*c == '-' || *c == '+' || *c == '!') {
    ps->p++;
    sdk_expr *a = parse_primary(ps);
    if (!a) return NULL;
    sdk_expr *e = node(SDK_E_UNARY);
    if (!e) {
      sdk_expr_destroy(&a);
      return NULL;
    }
    e->op = *c;
    e->arg[0] = a;
    e->nargs = 1;
    return deep_ok(ps, e);
  }
  if (*c == 0)
    perr(ps, "unexpected end of expression");
  else if (*c == '^')
    perr(ps, "'^' is not a power in C; write pow(a, b)");
  else
    perr(ps, "unexpected character");
  return NULL;
}

/* binary operators: token, code, precedence (higher binds tighter) */
static int binop(parser *ps, int *code, int *len) {
  const char *p = ps->p;
  *len = 1;
  switch (p[0]) {
  case '*': *code = '*'; return 10;
  case '/': *code = '/'; return 10;
  case '%': *code = '%'; return 10;
  case '+': *code = '+'; return 9;
  case '-': *code = '-'; return 9;
  case '<':
    if (p[1] == '=') {
      *len = 2;
      *code = 'L';
    } else
      *code = '<';
    return 7;
  case '>':
    if (p[1] == '=') {
      *len = 2;
      *code = 'G';
    } else
      *code = '>';
    return 7;
  case '=':
    if (p[1] == '=') {
      *len = 2;
      *code = 'E';
      return 6;
    }
    return 0;
  case '!':
    if (p[1] == '=') {
      *len = 2;
      *code = 'N';
      return 6;
    }
    return 0;
  case '&':
    if (p[1] == '&') {
      *len = 2;
      *code = 'A';
      return 3;
    }
    return 0;
  case '|':
    if (p[1] == '|') {
      *len = 2;
      *code = 'O';
      return 2;
    }
    return 0;
  }
  return 0;
}

static sdk_expr *parse_binary(parser *ps, int minprec) {
  sdk_expr *lhs = parse_primary(ps);
  while (lhs) {
    skip_ws(ps);
    int code, len, prec = binop(ps, &code, &len);
    if (!prec || prec < minprec) break;
    ps->p += len;
    sdk_expr *rhs = parse_binary(ps, prec + 1);
    if (!rhs) {
      sdk_expr_destroy(&lhs);
      return NULL;
    }
    sdk_expr *e = node(SDK_E_BINARY);
    if (!e) {
      sdk_expr_destroy(&lhs);
      sdk_expr_destroy(&rhs);
      return NULL;
    }
    e->op = code;
    e->arg[0] = lhs;
    e->arg[1] = rhs;
    e->nargs = 2;
    lhs = deep_ok(ps, e);
  }
  return lhs;
}

static sdk_expr *parse_expr(parser *ps) {
  sdk_expr *c = parse_binary(ps, 1);
  if (!c) return NULL;
  skip_ws(ps);
  if (*ps->p != '?') return c;
  ps->p++;
  sdk_expr *a = parse_expr(ps), *b = NULL;
  if (a) {
    skip_ws(ps);
    if (*ps->p != ':')
      perr(ps, "expected ':' in a ? b : c");
    else {
      ps->p++;
      b = parse_expr(ps);
    }
  }
  sdk_expr *e = (a && b) ? node(SDK_E_COND) : NULL;
  if (!e) {
    sdk_expr_destroy(&c);
    sdk_expr_destroy(&a);
    sdk_expr_destroy(&b);
    return NULL;
  }
  e->arg[0] = c;
  e->arg[1] = a;
  e->arg[2] = b;
  e->nargs = 3;
  return deep_ok(ps, e);
}

sdk_err sdk_expr_parse(const char *text, const char *where, sdk_expr **out, sdk_errbuf *eb) {
  return sdk_expr_parse_delays(text, where, NULL, 0, out, eb);
}

sdk_err sdk_expr_parse_delays(const char *text, const char *where, char *const *names, int n,
                              sdk_expr **out, sdk_errbuf *eb) {
  parser ps = {text, text, where, eb, SDK_OK, 0, names, n};
  *out = NULL;
  skip_ws(&ps);
  if (!*ps.p) return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: empty expression", where);
  sdk_expr *e = parse_expr(&ps);
  if (e) {
    skip_ws(&ps);
    if (*ps.p) {
      if (*ps.p == '^')
        perr(&ps, "'^' is not a power in C; write pow(a, b)");
      else
        perr(&ps, "unexpected text after the expression");
      sdk_expr_destroy(&e);
    }
  }
  if (!e) {
    if (ps.err == SDK_OK) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory parsing %s", where);
    return ps.err;
  }
  *out = e;
  return SDK_OK;
}

sdk_err sdk_expr_resolve(sdk_expr *e, sdk_resolve_fn fn, void *user, const char *where,
                         const char *known, sdk_errbuf *eb) {
  if (!e) return SDK_OK;
  if (e->kind == SDK_E_SYM) {
    if (!strcmp(e->name, "pi") || !strcmp(e->name, "M_PI")) {
      e->sym = SDK_SYM_CONST;
      e->num = M_PI;
    } else if (!strcmp(e->name, "M_E")) {
      e->sym = SDK_SYM_CONST;
      e->num = M_E;
    } else if (!strcmp(e->name, "t")) {
      e->sym = SDK_SYM_TIME;
    } else {
      int idx = -1;
      sdk_symkind k = fn(user, e->name, &idx);
      if (k == SDK_SYM_UNRESOLVED)
        return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: unknown name '%s' (known: %s)", where, e->name,
                        known);
      e->sym = k;
      e->index = idx;
    }
  }
  for (int i = 0; i < e->nargs; i++)
    SDK_CHECK(sdk_expr_resolve(e->arg[i], fn, user, where, known, eb));
  return SDK_OK;
}

int sdk_expr_equal(const sdk_expr *a, const sdk_expr *b) {
  return sdk_expr_equal_mapped(a, b, NULL);
}

int sdk_expr_equal_mapped(const sdk_expr *a, const sdk_expr *b, sdk_sym_map_fn map) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->nargs != b->nargs) return 0;
  switch (a->kind) {
  case SDK_E_NUM: return a->num == b->num;
  case SDK_E_SYM: {
    if (a->sym == SDK_SYM_CONST) return b->sym == SDK_SYM_CONST && a->num == b->num;
    if (a->sym == SDK_SYM_TIME) return b->sym == SDK_SYM_TIME;
    sdk_symkind s = a->sym;
    int i = a->index;
    if (map) map(&s, &i);
    return b->sym == s && b->index == i;
  }
  case SDK_E_CALL:
    if (strcmp(a->name, b->name)) return 0;
    break;
  case SDK_E_UNARY:
  case SDK_E_BINARY:
    if (a->op != b->op) return 0;
    break;
  case SDK_E_COND: break;
  }
  for (int i = 0; i < a->nargs; i++)
    if (!sdk_expr_equal_mapped(a->arg[i], b->arg[i], map)) return 0;
  return 1;
}

int sdk_expr_uses(const sdk_expr *e, sdk_symkind kind) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == kind) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (sdk_expr_uses(e->arg[i], kind)) return 1;
  return 0;
}

double sdk_expr_call(const char *n, const double *a) {
  if (!strcmp(n, "sin")) return sin(a[0]);
  if (!strcmp(n, "cos")) return cos(a[0]);
  if (!strcmp(n, "tan")) return tan(a[0]);
  if (!strcmp(n, "asin")) return asin(a[0]);
  if (!strcmp(n, "acos")) return acos(a[0]);
  if (!strcmp(n, "atan")) return atan(a[0]);
  if (!strcmp(n, "sinh")) return sinh(a[0]);
  if (!strcmp(n, "cosh")) return cosh(a[0]);
  if (!strcmp(n, "tanh")) return tanh(a[0]);
  if (!strcmp(n, "exp")) return exp(a[0]);
  if (!strcmp(n, "log")) return log(a[0]);
  if (!strcmp(n, "log10")) return log10(a[0]);
  if (!strcmp(n, "log2")) return log2(a[0]);
  if (!strcmp(n, "sqrt")) return sqrt(a[0]);
  if (!strcmp(n, "cbrt")) return cbrt(a[0]);
  if (!strcmp(n, "fabs") || !strcmp(n, "abs")) return fabs(a[0]);
  if (!strcmp(n, "floor")) return floor(a[0]);
  if (!strcmp(n, "ceil")) return ceil(a[0]);
  if (!strcmp(n, "round")) return round(a[0]);
  if (!strcmp(n, "erf")) return erf(a[0]);
  if (!strcmp(n, "erfc")) return erfc(a[0]);
  if (!strcmp(n, "tgamma")) return tgamma(a[0]);
  if (!strcmp(n, "lgamma")) return lgamma(a[0]);
  if (!strcmp(n, "expm1")) return expm1(a[0]);
  if (!strcmp(n, "log1p")) return log1p(a[0]);
  if (!strcmp(n, "atan2")) return atan2(a[0], a[1]);
  if (!strcmp(n, "pow")) return pow(a[0], a[1]);
  if (!strcmp(n, "fmod")) return fmod(a[0], a[1]);
  if (!strcmp(n, "hypot")) return hypot(a[0], a[1]);
  if (!strcmp(n, "fmin")) return fmin(a[0], a[1]);
  if (!strcmp(n, "fmax")) return fmax(a[0], a[1]);
  if (!strcmp(n, "copysign")) return copysign(a[0], a[1]);
  if (!strcmp(n, "fma")) return fma(a[0], a[1], a[2]);
  return NAN;
}

double sdk_expr_eval(const sdk_expr *e, sdk_value_fn fn, void *user) {
  double a[3] = {0, 0, 0};
  switch (e->kind) {
  case SDK_E_NUM: return e->num;
  case SDK_E_SYM: return e->sym == SDK_SYM_CONST ? e->num : fn(user, e->sym, e->index);
  case SDK_E_CALL:
    for (int i = 0; i < e->nargs; i++)
      a[i] = sdk_expr_eval(e->arg[i], fn, user);
    return sdk_expr_call(e->name, a);
  case SDK_E_UNARY:
    a[0] = sdk_expr_eval(e->arg[0], fn, user);
    return e->op == '-' ? -a[0] : e->op == '!' ? (double)(a[0] == 0) : a[0];
  case SDK_E_COND:
    return sdk_expr_eval(e->arg[0], fn, user) != 0 ? sdk_expr_eval(e->arg[1], fn, user)
                                                   : sdk_expr_eval(e->arg[2], fn, user);
  case SDK_E_BINARY: {
    double x = sdk_expr_eval(e->arg[0], fn, user);
    if (e->op == 'A') return x != 0 && sdk_expr_eval(e->arg[1], fn, user) != 0;
    if (e->op == 'O') return x != 0 || sdk_expr_eval(e->arg[1], fn, user) != 0;
    double y = sdk_expr_eval(e->arg[1], fn, user);
    switch (e->op) {
    case '*': return x * y;
    case '/': return x / y;
    case '%': return fmod(x, y);
    case '+': return x + y;
    case '-': return x - y;
    case '<': return x < y;
    case '>': return x > y;
    case 'L': return x <= y;
    case 'G': return x >= y;
    case 'E': return x == y;
    case 'N': return x != y;
    }
  }
  }
  return NAN;
}

static void emit_num(double v, int single, sdk_strbuf *out) {
  char buf[64];
  sdk_sb_puts(out, sdk_fmt_literal(buf, v, single));
}

static void emit_rec(const sdk_expr *e, int single, sdk_emit_sym_fn fn, sdk_emit_node_fn node,
                     void *user, sdk_strbuf *out);

void sdk_expr_emit(const sdk_expr *e, int single, sdk_emit_sym_fn fn, void *user, sdk_strbuf *out) {
  emit_rec(e, single, fn, NULL, user, out);
}

void sdk_expr_emit_hook(const sdk_expr *e, int single, sdk_emit_sym_fn fn, sdk_emit_node_fn node,
                        void *user, sdk_strbuf *out) {
  emit_rec(e, single, fn, node, user, out);
}

static void emit_rec(const sdk_expr *e, int single, sdk_emit_sym_fn fn, sdk_emit_node_fn node,
                     void *user, sdk_strbuf *out) {
  if (node && node(user, out, e)) return;
  switch (e->kind) {
  case SDK_E_NUM: emit_num(e->num, single, out); return;
  case SDK_E_SYM:
    if (e->sym == SDK_SYM_CONST)
      emit_num(e->num, single, out);
    else
      fn(user, out, e);
    return;
  case SDK_E_CALL: {
    const fn_info *fi = find_fn(e->name);
    sdk_sb_puts(out, single ? fi->fname : fi->dname);
    sdk_sb_puts(out, "(");
    for (int i = 0; i < e->nargs; i++) {
      if (i) sdk_sb_puts(out, ", ");
      emit_rec(e->arg[i], single, fn, node, user, out);
    }
    sdk_sb_puts(out, ")");
    return;
  }
  case SDK_E_UNARY:
    if (e->op == '!') {
      sdk_sb_puts(out, single ? "(real)(!(" : "(real)(!(");
      emit_rec(e->arg[0], single, fn, node, user, out);
      sdk_sb_puts(out, "))");
      return;
    }
    sdk_sb_printf(out, "(%c", e->op);
    emit_rec(e->arg[0], single, fn, node, user, out);
    sdk_sb_puts(out, ")");
    return;
  case SDK_E_COND:
    sdk_sb_puts(out, "((");
    emit_rec(e->arg[0], single, fn, node, user, out);
    sdk_sb_puts(out, ") != 0 ? (");
    emit_rec(e->arg[1], single, fn, node, user, out);
    sdk_sb_puts(out, ") : (");
    emit_rec(e->arg[2], single, fn, node, user, out);
    sdk_sb_puts(out, "))");
    return;
  case SDK_E_BINARY: {
    if (e->op == '%') {
      sdk_sb_puts(out, single ? "fmodf(" : "fmod(");
      emit_rec(e->arg[0], single, fn, node, user, out);
      sdk_sb_puts(out, ", ");
      emit_rec(e->arg[1], single, fn, node, user, out);
      sdk_sb_puts(out, ")");
      return;
    }
    const char *op = "?";
    int logical = 0;
    switch (e->op) {
    case '*': op = "*"; break;
    case '/': op = "/"; break;
    case '+': op = "+"; break;
    case '-': op = "-"; break;
    case '<':
      op = "<";
      logical = 1;
      break;
    case '>':
      op = ">";
      logical = 1;
      break;
    case 'L':
      op = "<=";
      logical = 1;
      break;
    case 'G':
      op = ">=";
      logical = 1;
      break;
    case 'E':
      op = "==";
      logical = 1;
      break;
    case 'N':
      op = "!=";
      logical = 1;
      break;
    case 'A':
      op = "!= 0 &&";
      logical = 1;
      break;
    case 'O':
      op = "!= 0 ||";
      logical = 1;
      break;
    }
    /* comparisons yield int in C; convert back so that 2*(x>0) stays real */
    sdk_sb_puts(out, logical ? "(real)((" : "(");
    emit_rec(e->arg[0], single, fn, node, user, out);
    if (e->op == 'A' || e->op == 'O') {
      sdk_sb_printf(out, ") %s (", op);
      emit_rec(e->arg[1], single, fn, node, user, out);
      sdk_sb_puts(out, ") != 0)");
      return;
    }
    sdk_sb_printf(out, logical ? ") %s (" : " %s ", op);
    emit_rec(e->arg[1], single, fn, node, user, out);
    sdk_sb_puts(out, logical ? "))" : ")");
    return;
  }
  }
}
