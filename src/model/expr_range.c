/* Ranges of model expressions by interval arithmetic (expr.h
 * sdk_expr_range), for bounds the generator proves before it chooses code:
 * the largest |x| a relaxing variable can reach (codegen/comp_vars.c).
 * Every range holds every value the expression can take while its symbols
 * stay in theirs; where no bound follows, it is the whole line, never a
 * guess.  The bounds themselves are rounded to nearest, not outwards: the
 * callers use them with margins of factors, never of ulps. */
#include <math.h>
#include <string.h>

#include "model/expr.h"

typedef struct {
  double lo, hi;
} range;

static const range ALL = {-INFINITY, INFINITY};

/* a NaN bound (outside a function's domain, inf - inf) means no bound */
static range mk(double a, double b) {
  if (isnan(a) || isnan(b)) return ALL;
  return a <= b ? (range){a, b} : (range){b, a};
}

static range hull(range a, range b) {
  return (range){fmin(a.lo, b.lo), fmax(a.hi, b.hi)};
}

static double maxabs(range a) {
  return fmax(fabs(a.lo), fabs(a.hi));
}

/* (an end at 0 is exact, so 0 times an unbounded end is 0, not NaN) */
static double mul0(double a, double b) {
  return a == 0 || b == 0 ? 0 : a * b;
}

static range mul(range a, range b) {
  double p[4] = {mul0(a.lo, b.lo), mul0(a.lo, b.hi), mul0(a.hi, b.lo), mul0(a.hi, b.hi)};
  range r = {p[0], p[0]};
  for (int i = 1; i < 4; i++)
    r = hull(r, (range){p[i], p[i]});
  return r;
}

static range add(range a, range b) {
  return mk(a.lo + b.lo, a.hi + b.hi);
}

static range neg(range a) {
  return (range){-a.hi, -a.lo};
}

static range divide(range a, range b) {
  if (b.lo <= 0 && b.hi >= 0) return ALL;
  return mul(a, (range){1 / b.hi, 1 / b.lo});
}

static range absr(range a) {
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return neg(a);
  return (range){0, fmax(-a.lo, a.hi)};
}

/* fmod(a, b) and a % b: the sign of a, below |b| and |a| in size */
static range fmodr(range a, range b) {
  double m = fmin(maxabs(b), maxabs(a));
  return (range){a.lo < 0 ? -m : 0, a.hi > 0 ? m : 0};
}

/* a^n for an integer n, |n| <= 64 */
static range ipow(range a, int n) {
  if (n < 0) return divide((range){1, 1}, ipow(a, -n));
  if (n == 0) return (range){1, 1};
  if (n % 2) return mk(pow(a.lo, n), pow(a.hi, n));
  range m = absr(a);
  return mk(pow(m.lo, n), pow(m.hi, n));
}

static range call(const char *n, const range *a, int nargs) {
  static const char *const up[] = {"atan", "sinh",  "tanh",  "exp",   "log",  "log10",
                                   "log2", "sqrt",  "cbrt",  "floor", "ceil", "round",
                                   "erf",  "expm1", "log1p", "asin",  NULL};
  int point = 1;
  for (int i = 0; i < nargs; i++)
    point = point && a[i].lo == a[i].hi && isfinite(a[i].lo);
  if (point) {
    double x[3] = {0, 0, 0};
    for (int i = 0; i < nargs; i++)
      x[i] = a[i].lo;
    double v = sdk_expr_call(n, x);
    return mk(v, v);
  }
  for (int i = 0; up[i]; i++)
    if (!strcmp(n, up[i])) {
      double x0[3] = {a[0].lo}, x1[3] = {a[0].hi};
      return mk(sdk_expr_call(n, x0), sdk_expr_call(n, x1));
    }
  if (!strcmp(n, "erfc")) return mk(erfc(a[0].hi), erfc(a[0].lo));
  if (!strcmp(n, "acos")) return mk(acos(a[0].hi), acos(a[0].lo));
  if (!strcmp(n, "sin") || !strcmp(n, "cos")) return (range){-1, 1};
  if (!strcmp(n, "fabs") || !strcmp(n, "abs")) return absr(a[0]);
  if (!strcmp(n, "cosh")) {
    range m = absr(a[0]);
    return mk(cosh(m.lo), cosh(m.hi));
  }
  if (!strcmp(n, "atan2")) return (range){-M_PI, M_PI};
  if (!strcmp(n, "fmin")) return mk(fmin(a[0].lo, a[1].lo), fmin(a[0].hi, a[1].hi));
  if (!strcmp(n, "fmax")) return mk(fmax(a[0].lo, a[1].lo), fmax(a[0].hi, a[1].hi));
  if (!strcmp(n, "copysign")) return (range){-maxabs(a[0]), maxabs(a[0])};
  if (!strcmp(n, "hypot")) return (range){0, hypot(maxabs(a[0]), maxabs(a[1]))};
  if (!strcmp(n, "fmod")) return fmodr(a[0], a[1]);
  if (!strcmp(n, "fma")) return add(mul(a[0], a[1]), a[2]);
  if (!strcmp(n, "pow")) {
    double e = a[1].lo;
    if (a[1].lo == a[1].hi && e == floor(e) && fabs(e) <= 64) return ipow(a[0], (int)e);
    if (a[0].lo > 0) { /* exp(b log a), both monotone */
      range l = mk(log(a[0].lo), log(a[0].hi));
      range p = mul(a[1], l);
      return mk(exp(p.lo), exp(p.hi));
    }
  }
  return ALL; /* tan, tgamma, lgamma, a negative base's real power */
}

static range eval(const sdk_expr *e, sdk_range_fn fn, void *user) {
  range a[3] = {ALL, ALL, ALL};
  switch (e->kind) {
  case SDK_E_NUM: return mk(e->num, e->num);
  case SDK_E_SYM: {
    if (e->sym == SDK_SYM_CONST) return mk(e->num, e->num);
    range r = ALL;
    fn(user, e->sym, e->index, &r.lo, &r.hi);
    return mk(r.lo, r.hi);
  }
  case SDK_E_CALL:
    for (int i = 0; i < e->nargs && i < 3; i++)
      a[i] = eval(e->arg[i], fn, user);
    return call(e->name, a, e->nargs);
  case SDK_E_UNARY:
    a[0] = eval(e->arg[0], fn, user);
    return e->op == '-' ? neg(a[0]) : e->op == '!' ? (range){0, 1} : a[0];
  case SDK_E_COND: return hull(eval(e->arg[1], fn, user), eval(e->arg[2], fn, user));
  case SDK_E_BINARY:
    a[0] = eval(e->arg[0], fn, user);
    a[1] = eval(e->arg[1], fn, user);
    switch (e->op) {
    case '*': return mul(a[0], a[1]);
    case '/': return divide(a[0], a[1]);
    case '%': return fmodr(a[0], a[1]);
    case '+': return add(a[0], a[1]);
    case '-': return add(a[0], neg(a[1]));
    default: return (range){0, 1}; /* comparisons, && and || */
    }
  }
  return ALL;
}

void sdk_expr_range(const sdk_expr *e, sdk_range_fn fn, void *user, double *lo, double *hi) {
  range r = eval(e, fn, user);
  *lo = r.lo;
  *hi = r.hi;
}
