/* Ranges of model expressions by interval arithmetic (expr.h
 * sdk_expr_range), for bounds the generator proves before it chooses code:
 * the largest |x| a relaxing variable can reach (codegen/comp_vars.c).
 * A range holds every value other than NaN that the expression can take
 * while its symbols stay in theirs (a NaN reaches the state, where the run
 * stops on it); where no bound follows, it is the whole line, never a
 * guess.  The values are those of a kernel in single precision: every
 * number and parameter rounded to float, fast-math functions, overflow to
 * inf beyond FLT_MAX; a symbol without a bound is any finite float.  What
 * plain interval arithmetic misses, and two reviews found (most through
 * fmin and fmax, which return their other argument where one is NaN, and
 * through comparisons, false with NaN):
 * - NaN (fmod by 0, 0 * inf, inf - inf, sin(inf), outside a function's
 *   domain): each range says whether a value may be NaN; fmin(1e4, fmod(3,
 *   k)) is 1e4 at k = 0, fmin(1e4, sin(exp(t))) is 1e4 once exp(t)
 *   overflows;
 * - overflow: an end beyond FLT_MAX becomes inf (p*p/(p*p) at p = 1e20 is
 *   inf/inf = NaN in float);
 * - signed zeros: atan2 and copysign tell -0 from 0, and a product's 0 may
 *   be either (atan2(0 * y, -1) is -pi for y < 0): their ranges are never
 *   a point's value;
 * - underflow: below FLT_MIN the kernel flushes to 0 or keeps a subnormal
 *   of few digits (p*p/(p*p) at p = 1e-30 is 0/0, log(exp(-200)) is -inf,
 *   log10(pow(1e-30, 1.5)) -44.85): such ends become 0 and FLT_MIN;
 * - rounding: the kernel's float values differ from the double ones here in
 *   their last places, which floor or a comparison turns into a whole unit
 *   (floor(pow(64, b)) reaches 64 at b = 1): every number is the hull of its
 *   double and float values, every computed end moves outwards by 2^-20 of
 *   itself (0 excepted), and sin and cos are [-1, 1] even at a point (cosf
 *   of 1.3e8 rounded to float is not cos of the double). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model/expr.h"

typedef struct {
  double lo, hi; /* the values other than NaN; an infinite end: inf may be one */
  int nan;       /* some value may be NaN */
} range;

static const range ALL = {-INFINITY, INFINITY, 1};

/* a NaN end (outside a function's domain) means no bound, and NaN */
static range mk(double a, double b) {
  if (isnan(a) || isnan(b)) return ALL;
  return a <= b ? (range){a, b, 0} : (range){b, a, 0};
}

static range hull(range a, range b) {
  return (range){fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.nan || b.nan};
}

/* r, NaN also where a or b may be */
static range with_nan(range r, range a, range b) {
  r.nan = r.nan || a.nan || b.nan;
  return r;
}

static int has_inf(range a) {
  return isinf(a.lo) || isinf(a.hi);
}

static double outwards(double x, int up) {
  if (x == 0 || !isfinite(x)) return x;
  x += (up ? 1 : -1) * ldexp(fabs(x), -20);
  return x > FLT_MAX ? INFINITY : x < -FLT_MAX ? -INFINITY : x; /* (float overflows) */
}

/* (a float below FLT_MIN is flushed to 0 by fast math, or is a subnormal
 * with few digits left: any value from 0 to FLT_MIN) */
static range underflow(range r) {
  if (r.lo > 0 && r.lo < FLT_MIN) r.lo = 0;
  if (r.hi < 0 && r.hi > -FLT_MIN) r.hi = 0;
  if (r.hi > 0 && r.hi < FLT_MIN) r.hi = FLT_MIN;
  if (r.lo < 0 && r.lo > -FLT_MIN) r.lo = -FLT_MIN;
  return r;
}

static range widen(range r) {
  return underflow((range){outwards(r.lo, 0), outwards(r.hi, 1), r.nan});
}

/* a number as the kernel has it: its double and float values */
static range number(double v) {
  float f = (float)v;
  if ((double)f == v && (v == 0 || fabs(v) >= FLT_MIN))
    return (range){v, v, 0}; /* (exact in both: 2 stays an integer power) */
  return widen((range){fmin(v, (double)f), fmax(v, (double)f), 0});
}

/* a symbol's range: finite floats, its ends rounded to float outwards */
static range symbol(double lo, double hi) {
  if (isnan(lo) || isnan(hi) || lo > hi) return ALL;
  lo = fmax(lo, -FLT_MAX), hi = fmin(hi, FLT_MAX);
  return underflow((range){fmin(lo, (double)(float)lo), fmax(hi, (double)(float)hi), 0});
}

static int point(range a) {
  return a.lo == a.hi && isfinite(a.lo) && !a.nan && signbit(a.lo) == signbit(a.hi);
}

static double maxabs(range a) {
  return fmax(fabs(a.lo), fabs(a.hi));
}

static int has_zero(range a) {
  return a.lo <= 0 && a.hi >= 0;
}

/* (an end at 0 is exact, so 0 times an infinite end is 0 as a bound; the
 * NaN of 0 times inf is flagged by mul) */
static double mul0(double a, double b) {
  return a == 0 || b == 0 ? 0 : a * b;
}

static range mul(range a, range b) {
  double p[4] = {mul0(a.lo, b.lo), mul0(a.lo, b.hi), mul0(a.hi, b.lo), mul0(a.hi, b.hi)};
  range r = {p[0], p[0], 0};
  for (int i = 1; i < 4; i++)
    r = hull(r, (range){p[i], p[i], 0});
  r.nan = (has_zero(a) && has_inf(b)) || (has_zero(b) && has_inf(a));
  return with_nan(r, a, b);
}

static range add(range a, range b) {
  double lo = a.lo + b.lo, hi = a.hi + b.hi;
  range r = {isnan(lo) ? -INFINITY : lo, isnan(hi) ? INFINITY : hi, 0};
  /* inf - inf */
  r.nan = (a.lo == -INFINITY && b.hi == INFINITY) || (a.hi == INFINITY && b.lo == -INFINITY);
  return with_nan(r, a, b);
}

static range neg(range a) {
  return (range){-a.hi, -a.lo, a.nan};
}

static range divide(range a, range b) {
  if (has_zero(b)) return ALL;
  range r = mul(a, (range){1 / b.hi, 1 / b.lo, b.nan});
  r.nan = r.nan || (has_inf(a) && has_inf(b));
  return r;
}

static range absr(range a) {
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return neg(a);
  return (range){0, fmax(-a.lo, a.hi), a.nan};
}

/* fmod(a, b) and a % b: the sign of a, below |b| and |a| in size; NaN
 * where b may be 0 or a inf */
static range fmodr(range a, range b) {
  if (has_zero(b)) return ALL;
  double m = fmin(maxabs(b), maxabs(a));
  range r = {a.lo < 0 ? -m : 0, a.hi > 0 ? m : 0, has_inf(a)};
  return with_nan(r, a, b);
}

/* fmin, fmax: where one argument is NaN, the other */
static range minmax(range a, range b, int max) {
  range r = max ? mk(fmax(a.lo, b.lo), fmax(a.hi, b.hi)) : mk(fmin(a.lo, b.lo), fmin(a.hi, b.hi));
  if (a.nan) r = hull(r, b);
  if (b.nan) r = hull(r, a);
  r.nan = a.nan && b.nan;
  return r;
}

/* a^n for an integer n, |n| <= 64 */
static range ipow(range a, int n) {
  if (n < 0) return divide((range){1, 1, 0}, ipow(a, -n));
  if (n == 0) return (range){1, 1, a.nan};
  if (n % 2) return with_nan(mk(pow(a.lo, n), pow(a.hi, n)), a, a);
  range m = absr(a);
  return with_nan(mk(pow(m.lo, n), pow(m.hi, n)), a, a);
}

static range call_values(const char *n, const range *a, int nargs) {
  if (!strcmp(n, "sin") || !strcmp(n, "cos")) return (range){-1, 1, has_inf(a[0])};
  if (!strcmp(n, "tan")) return ALL;
  static const char *const up[] = {"atan", "sinh",  "tanh",  "exp",   "log",  "log10",
                                   "log2", "sqrt",  "cbrt",  "floor", "ceil", "round",
                                   "erf",  "expm1", "log1p", "asin",  NULL};
  /* (the sign of a zero matters to these two, and a product's 0 may be -0) */
  if (!strcmp(n, "atan2")) return (range){-M_PI, M_PI, 0};
  if (!strcmp(n, "copysign")) return (range){-maxabs(a[0]), maxabs(a[0]), 0};
  int pt = 1;
  for (int i = 0; i < nargs; i++)
    pt = pt && point(a[i]);
  if (pt) {
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
  if (!strcmp(n, "fabs") || !strcmp(n, "abs")) return absr(a[0]);
  if (!strcmp(n, "cosh")) {
    range m = absr(a[0]);
    return mk(cosh(m.lo), cosh(m.hi));
  }
  if (!strcmp(n, "hypot")) return (range){0, hypot(maxabs(a[0]), maxabs(a[1])), 0};
  if (!strcmp(n, "fmod")) return fmodr(a[0], a[1]);
  if (!strcmp(n, "fma")) return add(mul(a[0], a[1]), a[2]);
  if (!strcmp(n, "pow")) {
    double e = a[1].lo;
    if (point(a[1]) && e == floor(e) && fabs(e) <= 64) return ipow(a[0], (int)e);
    if (a[0].lo > 0) { /* exp(b log a), both monotone */
      range l = mk(log(a[0].lo), log(a[0].hi));
      range p = mul(a[1], l);
      return mk(exp(p.lo), exp(p.hi));
    }
  }
  return ALL; /* tan, tgamma, lgamma, a negative base's real power */
}

static range call(const char *n, const range *a, int nargs) {
  if (!strcmp(n, "fmin") || !strcmp(n, "fmax")) return minmax(a[0], a[1], n[2] == 'a');
  range r = call_values(n, a, nargs);
  for (int i = 0; i < nargs; i++)
    r.nan = r.nan || a[i].nan;
  return r;
}

static range eval(const sdk_expr *e, sdk_range_fn fn, void *user) {
  range a[3] = {ALL, ALL, ALL};
  switch (e->kind) {
  case SDK_E_NUM: return number(e->num);
  case SDK_E_SYM: {
    if (e->sym == SDK_SYM_CONST) return number(e->num);
    double lo = -INFINITY, hi = INFINITY;
    fn(user, e->sym, e->index, &lo, &hi);
    return symbol(lo, hi);
  }
  case SDK_E_CALL:
    for (int i = 0; i < e->nargs && i < 3; i++)
      a[i] = eval(e->arg[i], fn, user);
    return widen(call(e->name, a, e->nargs));
  case SDK_E_UNARY:
    a[0] = eval(e->arg[0], fn, user);
    return e->op == '-' ? neg(a[0]) : e->op == '!' ? (range){0, 1, 0} : a[0];
  case SDK_E_COND: return hull(eval(e->arg[1], fn, user), eval(e->arg[2], fn, user));
  case SDK_E_BINARY:
    a[0] = eval(e->arg[0], fn, user);
    a[1] = eval(e->arg[1], fn, user);
    switch (e->op) {
    case '*': return widen(mul(a[0], a[1]));
    case '/': return widen(divide(a[0], a[1]));
    case '%': return fmodr(a[0], a[1]);
    case '+': return widen(add(a[0], a[1]));
    case '-': return widen(add(a[0], neg(a[1])));
    default: return (range){0, 1, 0}; /* comparisons (false with NaN), && and || */
    }
  }
  return ALL;
}

void sdk_expr_range(const sdk_expr *e, sdk_range_fn fn, void *user, double *lo, double *hi) {
  range r = eval(e, fn, user);
  *lo = r.lo;
  *hi = r.hi;
}
