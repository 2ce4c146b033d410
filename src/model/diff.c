/* Symbolic derivatives of model expressions (expr.h: sdk_expr_diff).
 *
 * d/dx of a resolved tree by the rules of calculus, node by node, into a new
 * resolved tree that the emitters and sdk_expr_eval take like any other.
 * The chain rule multiplies f'(u) by u' and a term whose factor is the
 * constant 0 is dropped, so d/dx of an expression without x is the number 0
 * and the derivatives the schemes need (db/dx of a noise coefficient) stay
 * short.  Where a function is not differentiable (fabs at 0, floor, fmin at
 * a tie, comparisons) the rule gives the one-sided value the function takes
 * (copysign(1, u), 0, the branch taken): the derivative almost everywhere,
 * which is what Ito-Stratonovich corrections and Milstein terms integrate.
 * tgamma and lgamma are refused: their derivatives need the digamma
 * function, which the C math library (and so the grammar) lacks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/expr.h"
#include "model/limits.h"

static sdk_expr *mk(sdk_ekind k) {
  sdk_expr *e = calloc(1, sizeof *e);
  if (e) e->kind = k;
  return e;
}

static void set_depth(sdk_expr *e) {
  int d = 0;
  for (int i = 0; i < e->nargs; i++)
    if (e->arg[i] && e->arg[i]->depth > d) d = e->arg[i]->depth;
  e->depth = d + 1;
}

sdk_expr *sdk_expr_copy(const sdk_expr *e) {
  if (!e) return NULL;
  sdk_expr *c = mk(e->kind);
  if (!c) return NULL;
  *c = *e;
  c->name = NULL;
  for (int i = 0; i < 3; i++)
    c->arg[i] = NULL;
  if (e->name && !(c->name = sdk_strdup(e->name))) goto oom;
  for (int i = 0; i < e->nargs; i++)
    if (e->arg[i] && !(c->arg[i] = sdk_expr_copy(e->arg[i]))) goto oom;
  return c;
oom:
  sdk_expr_destroy(&c);
  return NULL;
}

/* ---- constructors; each takes ownership of its operands (NULL: out of
 * memory, propagated) and folds what is constant ---- */

static sdk_expr *num(double v) {
  sdk_expr *e = mk(SDK_E_NUM);
  if (e) e->num = v, e->depth = 1;
  return e;
}

static int is_num(const sdk_expr *e, double v) {
  return e && e->kind == SDK_E_NUM && e->num == v;
}

static sdk_expr *node2(sdk_ekind k, int op, sdk_expr *a, sdk_expr *b) {
  sdk_expr *e = a && b ? mk(k) : NULL;
  if (!e) {
    sdk_expr_destroy(&a);
    sdk_expr_destroy(&b);
    return NULL;
  }
  e->op = op;
  e->arg[0] = a;
  e->arg[1] = b;
  e->nargs = 2;
  set_depth(e);
  return e;
}

static sdk_expr *neg(sdk_expr *a) {
  if (!a) return NULL;
  if (a->kind == SDK_E_NUM) {
    a->num = -a->num;
    return a;
  }
  if (a->kind == SDK_E_UNARY && a->op == '-') { /* --u = u */
    sdk_expr *u = a->arg[0];
    a->arg[0] = NULL;
    sdk_expr_destroy(&a);
    return u;
  }
  sdk_expr *e = mk(SDK_E_UNARY);
  if (!e) {
    sdk_expr_destroy(&a);
    return NULL;
  }
  e->op = '-';
  e->arg[0] = a;
  e->nargs = 1;
  set_depth(e);
  return e;
}

static sdk_expr *drop_keep(sdk_expr *drop, sdk_expr *keep) {
  sdk_expr_destroy(&drop);
  return keep;
}

static sdk_expr *bin(int op, sdk_expr *a, sdk_expr *b) {
  if (!a || !b) return drop_keep(a, drop_keep(b, NULL));
  if (a->kind == SDK_E_NUM && b->kind == SDK_E_NUM && strchr("+-*/", op)) {
    double x = a->num, y = b->num;
    double v = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
    /* (a non-finite value has no C literal: the node stays, as the parser's
     * tree of 1/0 does) */
    if (isfinite(v)) {
      sdk_expr_destroy(&b);
      a->num = v;
      return a;
    }
  }
  switch (op) {
  case '+':
    if (is_num(a, 0)) return drop_keep(a, b);
    if (is_num(b, 0)) return drop_keep(b, a);
    if (b->kind == SDK_E_UNARY && b->op == '-') { /* a + -u = a - u */
      sdk_expr *u = b->arg[0];
      b->arg[0] = NULL;
      sdk_expr_destroy(&b);
      return bin('-', a, u);
    }
    break;
  case '-':
    if (is_num(b, 0)) return drop_keep(b, a);
    if (is_num(a, 0)) return drop_keep(a, neg(b));
    break;
  case '*':
    if (is_num(a, 0)) return drop_keep(b, a);
    if (is_num(b, 0)) return drop_keep(a, b);
    if (is_num(a, 1)) return drop_keep(a, b);
    if (is_num(b, 1)) return drop_keep(b, a);
    if (is_num(a, -1)) return drop_keep(a, neg(b));
    if (is_num(b, -1)) return drop_keep(b, neg(a));
    break;
  case '/':
    if (is_num(a, 0)) return drop_keep(b, a);
    if (is_num(b, 1)) return drop_keep(b, a);
    break;
  }
  return node2(SDK_E_BINARY, op, a, b);
}

static sdk_expr *call(const char *name, int nargs, sdk_expr *a, sdk_expr *b) {
  sdk_expr *e = a && (nargs < 2 || b) ? mk(SDK_E_CALL) : NULL;
  if (e && !(e->name = sdk_strdup(name))) sdk_expr_destroy(&e);
  if (!e) return drop_keep(a, drop_keep(b, NULL));
  e->arg[0] = a;
  e->arg[1] = b;
  e->nargs = nargs;
  set_depth(e);
  return e;
}

static sdk_expr *cond(sdk_expr *c, sdk_expr *a, sdk_expr *b) {
  if (!c || !a || !b) return drop_keep(c, drop_keep(a, drop_keep(b, NULL)));
  if (a->kind == SDK_E_NUM && b->kind == SDK_E_NUM && a->num == b->num)
    return drop_keep(c, drop_keep(b, a));
  sdk_expr *e = mk(SDK_E_COND);
  if (!e) return drop_keep(c, drop_keep(a, drop_keep(b, NULL)));
  e->arg[0] = c;
  e->arg[1] = a;
  e->arg[2] = b;
  e->nargs = 3;
  set_depth(e);
  return e;
}

typedef struct {
  sdk_symkind sym;
  int var;
  const char *where;
  sdk_errbuf *eb;
  sdk_err err;
  long *budget; /* nodes left to create (sdk_expr_diff_limited) */
} dctx;

/* Spend n of the budget: 0 when it is spent (the error is then set, with no
 * message: the caller words it) */
static int spend(dctx *c, long n) {
  if (c->err != SDK_OK) return 0;
  if (*c->budget < n) {
    *c->budget = -1;
    c->err = SDK_ERR_MODEL;
    return 0;
  }
  *c->budget -= n;
  return 1;
}

/* nodes of e, counting up to at most `most` + 1 */
static long count_nodes(const sdk_expr *e, long most) {
  long n = 1;
  for (int i = 0; i < e->nargs && n <= most; i++)
    if (e->arg[i]) n += count_nodes(e->arg[i], most - n);
  return n;
}

/* A copy of a subexpression, paid for from the budget: the copies are what
 * makes a derivative grow (d(u v) holds u and v again, d(f(u)) holds u) */
static sdk_expr *cp(dctx *c, const sdk_expr *e) {
  if (c->err != SDK_OK || !spend(c, count_nodes(e, *c->budget))) return NULL;
  return sdk_expr_copy(e);
}

#define C(x) cp(c, (x))

static sdk_expr *d(dctx *c, const sdk_expr *e);

/* f'(u) for a function of one argument u (which it copies) */
static sdk_expr *d1(dctx *c, const char *f, const sdk_expr *u) {
  if (!strcmp(f, "sin")) return call("cos", 1, C(u), NULL);
  if (!strcmp(f, "cos")) return neg(call("sin", 1, C(u), NULL));
  if (!strcmp(f, "tan")) /* 1 / cos^2 */
    return bin('/', num(1), bin('*', call("cos", 1, C(u), NULL), call("cos", 1, C(u), NULL)));
  if (!strcmp(f, "asin") || !strcmp(f, "acos")) {
    sdk_expr *r = bin('/', num(1), call("sqrt", 1, bin('-', num(1), bin('*', C(u), C(u))), NULL));
    return f[1] == 'c' ? neg(r) : r;
  }
  if (!strcmp(f, "atan")) return bin('/', num(1), bin('+', num(1), bin('*', C(u), C(u))));
  if (!strcmp(f, "sinh")) return call("cosh", 1, C(u), NULL);
  if (!strcmp(f, "cosh")) return call("sinh", 1, C(u), NULL);
  if (!strcmp(f, "tanh")) /* 1 - tanh^2 */
    return bin('-', num(1), bin('*', call("tanh", 1, C(u), NULL), call("tanh", 1, C(u), NULL)));
  if (!strcmp(f, "exp") || !strcmp(f, "expm1")) return call("exp", 1, C(u), NULL);
  if (!strcmp(f, "log")) return bin('/', num(1), C(u));
  if (!strcmp(f, "log10")) return bin('/', num(1), bin('*', C(u), num(log(10.0))));
  if (!strcmp(f, "log2")) return bin('/', num(1), bin('*', C(u), num(log(2.0))));
  if (!strcmp(f, "log1p")) return bin('/', num(1), bin('+', num(1), C(u)));
  if (!strcmp(f, "sqrt")) return bin('/', num(0.5), call("sqrt", 1, C(u), NULL));
  if (!strcmp(f, "cbrt")) { /* 1 / (3 cbrt(u)^2) */
    return bin('/', num(1.0 / 3.0),
               bin('*', call("cbrt", 1, C(u), NULL), call("cbrt", 1, C(u), NULL)));
  }
  if (!strcmp(f, "fabs") || !strcmp(f, "abs")) return call("copysign", 2, num(1), C(u));
  if (!strcmp(f, "floor") || !strcmp(f, "ceil") || !strcmp(f, "round")) return num(0);
  if (!strcmp(f, "erf") || !strcmp(f, "erfc")) { /* +-2/sqrt(pi) exp(-u^2) */
    sdk_expr *r = bin('*', num(2.0 / sqrt(3.14159265358979323846)),
                      call("exp", 1, neg(bin('*', C(u), C(u))), NULL));
    return f[3] == 'c' ? neg(r) : r;
  }
  c->err = SDK_FAIL(c->eb, SDK_ERR_MODEL,
                    "%s: %s() has no derivative in the expression grammar (it needs the digamma "
                    "function, which C lacks)",
                    c->where, f);
  return NULL;
}

/* fu du, a factor of the chain rule whose fu may be infinite where du is 0
 * (sqrt or cbrt at 0, asin at 1, log at 0, pow(0, b < 1)): 0 there, not
 * 0 * inf = NaN, as the rule's one-sided value of a function that does not
 * move (b = s sqrt(fmax(x, 0)) below 0: b' = 0.5 / sqrt(0) * 0); a du that
 * is a number other than 0 needs no test */
static sdk_expr *times_du(dctx *c, sdk_expr *fu, sdk_expr *du) {
  if (!fu || !du || du->kind == SDK_E_NUM) return bin('*', fu, du);
  return cond(bin('N', C(du), num(0)), bin('*', fu, du), num(0));
}

/* the functions whose derivative is infinite at a finite argument */
static int steep(const char *f) {
  static const char *const names[] = {"sqrt", "cbrt",  "asin", "acos", "atanh",
                                      "log",  "log10", "log2", "log1p"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(f, names[i])) return 1;
  return 0;
}

/* d/dx of a call: the chain rule over its arguments */
static sdk_expr *dcall(dctx *c, const sdk_expr *e) {
  const char *f = e->name;
  const sdk_expr *a = e->arg[0], *b = e->nargs > 1 ? e->arg[1] : NULL;
  if (e->nargs == 1) {
    sdk_expr *du = d(c, a);
    if (!du || is_num(du, 0)) return du;
    return steep(f) ? times_du(c, d1(c, f, a), du) : bin('*', d1(c, f, a), du);
  }
  sdk_expr *da = d(c, a), *db = b ? d(c, b) : NULL;
  if (!da || (b && !db)) return drop_keep(da, drop_keep(db, NULL));
  if (e->nargs == 3) { /* fma(a, b, c) = a b + c */
    sdk_expr *dc = d(c, e->arg[2]);
    return bin('+', bin('+', bin('*', da, C(b)), bin('*', C(a), db)), dc);
  }
  int za = is_num(da, 0), zb = is_num(db, 0);
  if (za && zb) return drop_keep(db, da);
  if (!strcmp(f, "atan2")) /* atan2(a, b): (b a' - a b') / (a^2 + b^2) */
    return bin('/', bin('-', bin('*', C(b), da), bin('*', C(a), db)),
               bin('+', bin('*', C(a), C(a)), bin('*', C(b), C(b))));
  if (!strcmp(f, "hypot")) /* (a a' + b b') / hypot(a, b) */
    return bin('/', bin('+', bin('*', C(a), da), bin('*', C(b), db)), C(e));
  if (!strcmp(f, "pow")) {
    if (zb) { /* b pow(a, b - 1) a' : no log of a negative base */
      sdk_expr_destroy(&db);
      return times_du(c, bin('*', C(b), call("pow", 2, C(a), bin('-', C(b), num(1)))), da);
    }
    /* pow(a, b) b' log a + b pow(a, b) / a a' (each 0 where its x-derivative
     * is, and the first where a is 0: log 0 and 1 / 0 are infinite) */
    sdk_expr *t = times_du(
        c, cond(bin('N', C(a), num(0)), bin('*', C(e), call("log", 1, C(a), NULL)), num(0)), db);
    if (!za)
      t = bin('+', t, times_du(c, bin('/', bin('*', C(b), C(e)), C(a)), da));
    else
      sdk_expr_destroy(&da);
    return t;
  }
  if (!strcmp(f, "fmod")) /* a - trunc(a / b) b: a' - (a - fmod(a, b)) / b b' */
    return bin('-', da, bin('*', bin('/', bin('-', C(a), C(e)), C(b)), db));
  if (!strcmp(f, "fmin")) return cond(bin('L', C(a), C(b)), da, db);
  if (!strcmp(f, "fmax")) return cond(bin('G', C(a), C(b)), da, db);
  if (!strcmp(f, "copysign")) { /* |a| sign(b): sign(a) sign(b) a' */
    sdk_expr_destroy(&db);
    return bin('*', bin('*', call("copysign", 2, num(1), C(a)), call("copysign", 2, num(1), C(b))),
               da);
  }
  sdk_expr_destroy(&da);
  sdk_expr_destroy(&db);
  c->err = SDK_FAIL(c->eb, SDK_ERR_MODEL, "%s: no derivative rule for %s()", c->where, f);
  return NULL;
}

static sdk_expr *d(dctx *c, const sdk_expr *e) {
  if (!spend(c, 1)) return NULL; /* (each visit creates a node or a few) */
  switch (e->kind) {
  case SDK_E_NUM: return num(0);
  case SDK_E_SYM: return num(e->sym == c->sym && e->index == c->var ? 1 : 0);
  case SDK_E_CALL: return dcall(c, e);
  case SDK_E_UNARY:
    if (e->op == '!') return num(0);
    return e->op == '-' ? neg(d(c, e->arg[0])) : d(c, e->arg[0]);
  case SDK_E_COND: return cond(C(e->arg[0]), d(c, e->arg[1]), d(c, e->arg[2]));
  case SDK_E_BINARY: {
    const sdk_expr *a = e->arg[0], *b = e->arg[1];
    switch (e->op) {
    case '+': return bin('+', d(c, a), d(c, b));
    case '-': return bin('-', d(c, a), d(c, b));
    case '*': {
      sdk_expr *da = d(c, a), *db = d(c, b);
      return bin('+', bin('*', da, C(b)), bin('*', C(a), db));
    }
    case '/': { /* (a' b - a b') / b^2, or a' / b when b' = 0 */
      sdk_expr *da = d(c, a), *db = d(c, b);
      if (is_num(db, 0)) return drop_keep(db, bin('/', da, C(b)));
      return bin('/', bin('-', bin('*', da, C(b)), bin('*', C(a), db)), bin('*', C(b), C(b)));
    }
    case '%': { /* as fmod */
      sdk_expr *da = d(c, a), *db = d(c, b);
      if (is_num(db, 0)) return drop_keep(db, da);
      return bin('-', da, bin('*', bin('/', bin('-', C(a), C(e)), C(b)), db));
    }
    default: return num(0); /* comparisons and logic: piecewise constant */
    }
  }
  }
  return num(0);
}

sdk_expr *sdk_expr_number(double v) {
  return num(v);
}

sdk_expr *sdk_expr_symbol(sdk_symkind sym, int index) {
  sdk_expr *e = mk(SDK_E_SYM);
  if (e) e->sym = sym, e->index = index, e->depth = 1;
  return e;
}

sdk_expr *sdk_expr_binary(int op, sdk_expr *a, sdk_expr *b) {
  return bin(op, a, b);
}

sdk_err sdk_expr_diff(const sdk_expr *e, int var, const char *where, sdk_expr **out,
                      sdk_errbuf *eb) {
  return sdk_expr_diff_sym(e, SDK_SYM_VAR, var, where, out, eb);
}

sdk_err sdk_expr_diff_sym(const sdk_expr *e, sdk_symkind sym, int index, const char *where,
                          sdk_expr **out, sdk_errbuf *eb) {
  long budget = SDK_EXPR_MAX_DIFF_NODES;
  sdk_err err = sdk_expr_diff_limited(e, sym, index, where, &budget, out, eb);
  if (err != SDK_OK && budget < 0)
    return SDK_FAIL(eb, err, "%s: its derivative grows past %d expression nodes (the limit)", where,
                    SDK_EXPR_MAX_DIFF_NODES);
  return err;
}

sdk_err sdk_expr_diff_limited(const sdk_expr *e, sdk_symkind sym, int index, const char *where,
                              long *budget, sdk_expr **out, sdk_errbuf *eb) {
  dctx c = {.sym = sym, .var = index, .where = where, .eb = eb, .err = SDK_OK, .budget = budget};
  *out = d(&c, e);
  if (c.err != SDK_OK) {
    sdk_expr_destroy(out);
    return c.err;
  }
  if (!*out) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory differentiating %s", where);
  /* (every walk of a tree recurses; keep derivatives within a bound that the
   * parser's limit on the original makes generous) */
  if ((*out)->depth > 4 * SDK_EXPR_MAX_DEPTH) {
    sdk_expr_destroy(out);
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: its derivative is nested deeper than %d levels", where,
                    4 * SDK_EXPR_MAX_DEPTH);
  }
  return SDK_OK;
}
