/* The symbolic differentiator (model/diff.c) against finite differences:
 * every function of the grammar, inside a chain rule and with the variable
 * in each argument, every operator, the conditional; derivatives of
 * expressions without the variable are the number 0; tgamma and lgamma of
 * the variable are refused with the place named. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/expr.h"
#include "testutil.h"

static sdk_symkind resolve(void *user, const char *name, int *index) {
  (void)user;
  if (!strcmp(name, "x")) return *index = 0, SDK_SYM_VAR;
  if (!strcmp(name, "y")) return *index = 1, SDK_SYM_VAR;
  if (!strcmp(name, "a")) return *index = 0, SDK_SYM_PARAM;
  if (!strcmp(name, "t")) return *index = 0, SDK_SYM_TIME;
  return SDK_SYM_UNRESOLVED;
}

typedef struct {
  double x, y, a, t;
} point;

static double value(void *user, sdk_symkind kind, int index) {
  const point *p = user;
  if (kind == SDK_SYM_VAR) return index == 0 ? p->x : p->y;
  if (kind == SDK_SYM_PARAM) return p->a;
  return p->t;
}

static sdk_expr *parse(const char *text) {
  sdk_errbuf eb = {0};
  sdk_expr *e = NULL;
  if (sdk_expr_parse(text, "test", &e, &eb) != SDK_OK ||
      sdk_expr_resolve(e, resolve, NULL, "test", "x, y, a, t", &eb) != SDK_OK) {
    fprintf(stderr, "%s: %s\n", text, eb.msg);
    sdk_expr_destroy(&e);
  }
  return e;
}

/* d/dx of text at x = the values in xs (y, a, t fixed) against the
 * five-point central difference, relative error at most 1e-7 */
static void check(const char *text, int var, const double *xs, int n) {
  sdk_expr *e = parse(text), *de = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(e != NULL, "parse %s", text);
  if (!e) return;
  sdk_err r = sdk_expr_diff(e, var, "test", &de, &eb);
  TU_CHECK(r == SDK_OK && de, "d/d%s %s: %s", var ? "y" : "x", text, eb.msg);
  double worst = 0;
  for (int i = 0; r == SDK_OK && i < n; i++) {
    point p = {.x = 0.37, .y = -0.61, .a = 1.3, .t = 0.25};
    double *v = var ? &p.y : &p.x;
    *v = xs[i];
    double x0 = *v, h = 1e-3 * (1 + fabs(x0)), f[4];
    const double off[4] = {-2, -1, 1, 2};
    for (int k = 0; k < 4; k++) {
      *v = x0 + off[k] * h;
      f[k] = sdk_expr_eval(e, value, &p);
    }
    *v = x0;
    double fd = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h);
    /* (a second step size: the difference of the two estimates bounds the
     * truncation error, O(h^4)) */
    double h2 = h / 2;
    for (int k = 0; k < 4; k++) {
      *v = x0 + off[k] * h2;
      f[k] = sdk_expr_eval(e, value, &p);
    }
    *v = x0;
    double fd2 = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h2);
    double want = fd2 + (fd2 - fd) / 15; /* Richardson */
    double got = sdk_expr_eval(de, value, &p);
    double err = fabs(got - want) / fmax(1, fabs(want));
    if (!(err <= worst)) worst = err;
    if (!(err <= 1e-7))
      fprintf(stderr, "d/d%s %s at %g: %.15g, finite differences %.15g\n", var ? "y" : "x", text,
              x0, got, want);
  }
  if (r == SDK_OK)
    TU_CHECK(worst <= 1e-7, "d/d%s %s within 1e-7 of finite differences (worst %.2g)",
             var ? "y" : "x", text, worst);
  sdk_expr_destroy(&e);
  sdk_expr_destroy(&de);
}

/* d/dx of an expression without x is exactly the number 0 */
static void check_zero(const char *text) {
  sdk_expr *e = parse(text), *de = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(e && sdk_expr_diff(e, 0, "test", &de, &eb) == SDK_OK && de && de->kind == SDK_E_NUM &&
               de->num == 0,
           "d/dx %s is the number 0", text);
  sdk_expr_destroy(&e);
  sdk_expr_destroy(&de);
}

int main(void) {
  const double xs[] = {0.37, -0.61, 0.05, 0.71};
  const double pos[] = {0.37, 1.7, 0.05, 2.9};
  const double any[] = {0.37, -0.61, 1.9, -2.3};
  /* every function of one argument, the variable inside a chain */
  const char *one[] = {"sin(0.7*x + a)", "cos(0.7*x + a)", "tan(0.7*x)",   "asin(0.9*x)",
                       "acos(0.9*x)",    "atan(2*x + a)",  "sinh(1.3*x)",  "cosh(1.3*x)",
                       "tanh(1.3*x)",    "exp(-x*x)",      "expm1(0.5*x)", "erf(1.5*x)",
                       "erfc(1.5*x)",    "cbrt(2 + x)",    "abs(x - 0.2)", "fabs(x - 0.2)",
                       "x*floor(3*x)",   "x*ceil(3*x)",    "x*round(3*x)"};
  for (size_t i = 0; i < sizeof one / sizeof *one; i++)
    check(one[i], 0, xs, 4);
  const char *positive[] = {"log(x*x + x)", "log10(3*x)",  "log2(3*x)",
                            "log1p(x)",     "sqrt(x + a)", "pow(x, 2.5)",
                            "pow(x, x)",    "pow(a, x)",   "tgamma(a) * x"};
  for (size_t i = 0; i < sizeof positive / sizeof *positive; i++)
    check(positive[i], 0, pos, 4);
  /* two and three arguments, the variable in each and in both */
  const char *two[] = {"atan2(x, a)",    "atan2(a, x)",       "atan2(x*x + 1, x)", "hypot(x, a)",
                       "hypot(a, 2*x)",  "fmod(3*x + 7, a)",  "fmod(7.5, x + 3)",  "fmin(x, 0.1)",
                       "fmax(x*x, 0.2)", "copysign(x, a)",    "copysign(a, x)*x",  "fma(x, x, a*x)",
                       "fma(a, x, 1)",   "pow(x*x + 1, -0.5)"};
  for (size_t i = 0; i < sizeof two / sizeof *two; i++)
    check(two[i], 0, any, 4);
  /* operators, the conditional, several variables */
  const char *ops[] = {"x*y + a/x - (x - y)*(x + 2)",
                       "(x*x - a) / (x*x + 1)",
                       "-x*x*x",
                       "+x",
                       "x % 0.7 + (x + 3) % (0.5*x + 3)",
                       "x > 0 ? x*x : -x",
                       "(x < 0.5) * x + !(x > 1)",
                       "x*y*sin(x*y)",
                       "2*(x > 0) + (x < 1 && y < 0) * x"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    check(ops[i], 0, any, 4);
    check(ops[i], 1, any, 4);
  }
  /* the variable absent: exactly 0 */
  check_zero("a*t + sin(a)");
  check_zero("y*y + tgamma(a)");
  check_zero("lgamma(y)");
  /* tgamma and lgamma of the variable: refused, the place named */
  const char *bad[] = {"tgamma(x)", "x + lgamma(2*x)"};
  for (int i = 0; i < 2; i++) {
    sdk_expr *e = parse(bad[i]), *de = NULL;
    sdk_errbuf eb = {0};
    sdk_err r = e ? sdk_expr_diff(e, 0, "m.sde:7 [noise] x", &de, &eb) : SDK_ERR_MODEL;
    TU_CHECK(r == SDK_ERR_MODEL && !de && strstr(eb.msg, "m.sde:7 [noise] x") &&
                 strstr(eb.msg, "digamma"),
             "d/dx %s refused (%s)", bad[i], eb.msg);
    sdk_expr_destroy(&e);
  }
  /* a fold that would give a non-finite number keeps its node (no C literal
   * for it; the fuzzer's find): d/dx (1e-3*x / 0) = 1e-3 / 0, evaluating to inf */
  {
    sdk_expr *e0 = parse("1e-3*x /0e364"), *de = NULL;
    sdk_errbuf eb = {0};
    TU_CHECK(e0 && sdk_expr_diff(e0, 0, "test", &de, &eb) == SDK_OK && de &&
                 de->kind == SDK_E_BINARY && isinf(sdk_expr_eval(de, value, &(point){0})),
             "d/dx 1e-3*x/0: the division kept, not folded to inf");
    sdk_expr_destroy(&e0);
    sdk_expr_destroy(&de);
  }
  /* a steep function of a constant branch: 0 where the branch does not move,
   * not 0 * inf = NaN (a CIR noise truncated at 0 below 0 under Milstein ran
   * to "paths became NaN"); the finite-difference value elsewhere */
  {
    const char *flat[] = {"0.3*sqrt(fmax(x, 0))",   "cbrt(fmax(x, 0))",
                          "asin(fmin(x, 1))",       "log(fmax(x, 0))",
                          "pow(fmax(x, 0), 0.5)",   "pow(fmax(x, 0), x > 5)",
                          "pow(2*(x > 5), 1.5 - x)"};
    const double below[] = {-0.1, -2.5}, above[] = {0.37, 0.61};
    for (size_t i = 0; i < sizeof flat / sizeof *flat; i++) {
      sdk_expr *ef = parse(flat[i]), *de = NULL;
      sdk_errbuf eb = {0};
      int ok = ef && sdk_expr_diff(ef, 0, "test", &de, &eb) == SDK_OK && de;
      for (int k = 0; ok && k < 2; k++) {
        point p = {.x = below[k] + (i == 2 ? 3.6 : 0), .a = 1.3};
        ok = sdk_expr_eval(de, value, &p) == 0;
      }
      TU_CHECK(ok, "d/dx %s is 0 where its branch is constant (%s)", flat[i], eb.msg);
      sdk_expr_destroy(&ef);
      sdk_expr_destroy(&de);
      if (i < 4) check(flat[i], 0, above, 2);
    }
  }
  /* a copy is equal to the original */
  sdk_expr *e = parse("fma(x, sin(y), a) > 0 ? pow(x, 2) : -t"), *c = sdk_expr_copy(e);
  TU_CHECK(e && c && sdk_expr_equal(e, c), "sdk_expr_copy gives an equal tree");
  sdk_expr_destroy(&e);
  sdk_expr_destroy(&c);
  return tu_finish("test_diff");
}
