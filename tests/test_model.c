/* Unit tests: expressions, model files (good and bad), scan specs and the
 * scheme tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/scheme.h"
#include "model/expr.h"
#include "model/model.h"
#include "sim/run.h"
#include "testutil.h"

static double val(void *u, sdk_symkind k, int i) {
  return k == SDK_SYM_PARAM ? 2.0 + i : 0.5;
}
static sdk_symkind res(void *u, const char *n, int *i) {
  if (!strcmp(n, "a")) return *i = 0, SDK_SYM_PARAM;
  if (!strcmp(n, "b")) return *i = 1, SDK_SYM_PARAM;
  if (!strcmp(n, "x")) return *i = 0, SDK_SYM_VAR;
  return SDK_SYM_UNRESOLVED;
}

static void emit_name(void *u, sdk_strbuf *out, const sdk_expr *e) {
  sdk_sb_puts(out, e->name);
}

static double ev(const char *text, sdk_err *err) {
  sdk_expr *e = NULL;
  sdk_errbuf eb = {0};
  *err = sdk_expr_parse(text, "test", &e, &eb);
  if (*err == SDK_OK) *err = sdk_expr_resolve(e, res, NULL, "test", "a, b, x", &eb);
  double v = *err == SDK_OK ? sdk_expr_eval(e, val, NULL) : NAN;
  sdk_expr_destroy(&e);
  return v;
}

static void test_expressions(void) {
  sdk_err e;
  TU_NEAR(ev("1/2", &e), 0.5, 0, "1/2 is real division");
  TU_NEAR(ev("a*b + x", &e), 6.5, 1e-15, "a*b+x");
  TU_NEAR(ev("-a - -b", &e), 1, 1e-15, "unary minus");
  TU_NEAR(ev("2*pi", &e), 2 * M_PI, 1e-15, "pi");
  TU_NEAR(ev("pow(a, 3) + sqrt(b*3)", &e), 11, 1e-12, "pow, sqrt");
  TU_NEAR(ev("x > 0 ? a : b", &e), 2, 0, "ternary");
  TU_NEAR(ev("7 % 4", &e), 3, 0, "% is fmod");
  TU_NEAR(ev("1 + 2 * 3 - 4 / 2", &e), 5, 0, "precedence");
  TU_NEAR(ev("a < b && b < 4 || 0", &e), 1, 0, "logic");
  TU_NEAR(ev("atan2(1, 1)*4", &e), M_PI, 1e-15, "atan2");
  TU_NEAR(ev("1e-3 * 2.5E2", &e), 0.25, 1e-15, "exponents");
  const char *bad[] = {"x^2",   "1 +",  "(a", "sin(a, b)", "foo(1)", "a b",
                       "y + 1", "0x10", "",   "pow(a)",    "1..2",   "a = 3"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ev(bad[i], &e);
    TU_CHECK(e == SDK_ERR_MODEL, "'%s' should be rejected", bad[i]);
  }
  /* error messages */
  sdk_expr *x = NULL;
  sdk_errbuf eb = {0};
  sdk_expr_parse("x^2", "m.sde:3", &x, &eb);
  TU_CHECK(strstr(eb.msg, "pow") && strstr(eb.msg, "m.sde:3"), "^ message: %s", eb.msg);
  /* emission: typed literals and float functions */
  sdk_expr_parse("sin(2*x)/3", "t", &x, &eb);
  sdk_expr_resolve(x, res, NULL, "t", "", &eb);
  sdk_strbuf sb;
  sdk_sb_init(&sb);
  sdk_expr_emit(x, 1, emit_name, NULL, &sb);
  TU_CHECK(sb.s && !strcmp(sb.s, "(sinf((2.0f * x)) / 3.0f)"), "single emission: %s", sb.s);
  sdk_sb_free(&sb);
  sdk_expr_emit(x, 0, emit_name, NULL, &sb);
  TU_CHECK(sb.s && !strcmp(sb.s, "(sin((2.0 * x)) / 3.0)"), "double emission: %s", sb.s);
  sdk_sb_free(&sb);
  sdk_expr_destroy(&x);
  TU_CHECK(sdk_name_reserved("sin") && sdk_name_reserved("t") && sdk_name_reserved("dt") &&
               sdk_name_reserved("pi") && !sdk_name_reserved("omega"),
           "reserved names");
  /* names of C and of the generated code are free: the generator prefixes them */
  const char *free_names[] = {"n",   "i",     "main", "exit", "NULL", "linux", "typeof", "real",
                              "int", "sdk_x", "_x",   "u_x",  "inf",  "nan",   NULL};
  for (int i = 0; free_names[i]; i++)
    TU_CHECK(!sdk_name_reserved(free_names[i]) && sdk_name_valid(free_names[i]), "'%s' is a name",
             free_names[i]);
}

static const char *OK_MODEL = "# comment\n"
                              "[model]\n"
                              "name = duffing\n"
                              "description = a test model\n"
                              "vars = x, v\n"
                              "period = 2*pi/w\n"
                              "[params]\n"
                              "g = 0.5 # friction\n"
                              "w = 2\n"
                              "D = 0.1\n"
                              "[drift]\n"
                              "x = v\n"
                              "v = -g*v + x - x*x*x\n"
                              "  + cos(w*t)\n"
                              "[noise]\n"
                              "v = sqrt(2*g*D)\n"
                              "x = 0\n"
                              "[init]\n"
                              "x = uniform(-1, 1)\n"
                              "v = normal(0, sqrt(D))\n";

static void test_model_ok(void) {
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_model_parse(OK_MODEL, "duffing.sde", &m, &eb);
  TU_CHECK(e == SDK_OK, "good model: %s", eb.msg);
  if (!m) return;
  TU_CHECK(!strcmp(m->name, "duffing") && m->nvars == 2 && m->nparams == 3, "structure");
  TU_CHECK(!strcmp(m->vars[1], "v") && !strcmp(m->params[2], "D"), "names");
  TU_NEAR(m->pvalues[0], 0.5, 0, "param with inline comment");
  TU_CHECK(m->noise[0] == NULL && m->noise[1] != NULL && m->nnoise == 1, "noise 0 is no noise");
  TU_CHECK(!m->multiplicative, "additive");
  TU_CHECK(m->init[0].kind == SDK_INIT_UNIFORM && m->init[1].kind == SDK_INIT_NORMAL, "init kinds");
  TU_CHECK(m->drift_line[1] == 13 && m->period_line == 6, "line numbers %d %d", m->drift_line[1],
           m->period_line);
  TU_CHECK(sdk_expr_uses(m->drift[1], SDK_SYM_TIME), "continuation line joined");
  sdk_model_destroy(&m);
  sdk_model_destroy(&m); /* NULL-safe */
  /* the built-in models all load */
  const char *names[] = {"ou", "josephson", "gbm"};
  for (int i = 0; i < 3; i++) {
    e = sdk_model_load(names[i], &m, &eb);
    TU_CHECK(e == SDK_OK, "built-in %s: %s", names[i], eb.msg);
    sdk_model_destroy(&m);
  }
  e = sdk_model_load("gbm", &m, &eb);
  TU_CHECK(e == SDK_OK && m->multiplicative, "gbm is multiplicative");
  sdk_model_destroy(&m);
}

typedef struct {
  const char *text;
  const char *expect; /* substring of the message */
} bad_case;

static void test_model_bad(void) {
  const bad_case cases[] = {
      {"[model]\nvars = x\n[drift]\nx = 1\n", "no 'name'"},
      {"[model]\nname = a\n[drift]\nx = 1\n", "no 'vars'"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = 1\n[foo]\ny = 2\n", "unknown section [foo]"},
      {"[model]\nname = a\nvars = x\nperiodd = 2\n[drift]\nx = 1\n", "unknown key 'periodd'"},
      {"[model]\nname = a\nvars = x\n[drift]\ny = 1\n", "unknown variable 'y'"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = -k*x\n",
       "bad.sde:5: [drift] x: unknown name 'k'"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = (1 + x\n", "bad.sde:5"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = x^2\n", "pow"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = foo(x)\n", "unknown function 'foo'"},
      {"[model]\nname = a\nvars = x, v\n[drift]\nx = v\n", "no equation for variable 'v'"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = 1\nx = 2\n", "given twice"},
      {"[model]\nname = a\nvars = x\n[params]\nk = abc\n[drift]\nx = 1\n", "not a number"},
      {"[model]\nname = a\nvars = sin\n[drift]\nsin = 1\n", "cannot be a variable name"},
      {"[model]\nname = a\nvars = x\n[params]\nx = 1\n[drift]\nx = 1\n",
       "both a variable and a parameter"},
      {"[model]\nname = a\nvars = x\nperiod = x\n[drift]\nx = 1\n", "unknown name 'x'"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = 1\n[init]\nx = uniform(1)\n", "two arguments"},
      {"[model]\nname = a\nvars = x\n[drift]\nx = 1\n[init]\nx = t\n", "t cannot be used here"},
      {"[model]\nname = a\nvars = x, x\n[drift]\nx = 1\n", "listed twice"},
      {"this is not ini\n", "malformed line"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sdk_model *m = NULL;
    sdk_errbuf eb = {0};
    sdk_err e = sdk_model_parse(cases[i].text, "bad.sde", &m, &eb);
    TU_CHECK(e == SDK_ERR_MODEL && m == NULL, "case %zu accepted", i);
    TU_CHECK(strstr(eb.msg, cases[i].expect) != NULL, "case %zu: message '%s' lacks '%s'", i,
             eb.msg, cases[i].expect);
  }
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_model_load("no-such-model", &m, &eb) == SDK_ERR_USAGE, "unknown model name");
  TU_CHECK(strstr(eb.msg, "sdekit models") != NULL, "hint: %s", eb.msg);
}

static void test_scan(void) {
  sdk_scan_axis ax;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("a=4.2:14.1:100", &ax, &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(ax.n == 100 && !ax.log && !strcmp(ax.name, "a"), "linear scan");
  TU_NEAR(ax.values[0], 4.2, 0, "first");
  TU_NEAR(ax.values[99], 14.1, 0, "last");
  TU_NEAR(ax.values[1], 4.3, 0, "second is exactly 4.3 (rounded to 15 digits)");
  sdk_scan_free(&ax);
  TU_CHECK(sdk_scan_parse("D=0.001:1:4:log", &ax, &eb) == SDK_OK, "%s", eb.msg);
  TU_NEAR(ax.values[1], 0.01, 1e-15, "log scan");
  sdk_scan_free(&ax);
  TU_CHECK(sdk_scan_parse("a=3:3:1", &ax, &eb) == SDK_OK && ax.values[0] == 3, "single point");
  sdk_scan_free(&ax);
  const char *bad[] = {"a=1:2",       "a=1:2:0",       "a=1:2:2.5", "a=x:2:3",
                       "a=1::3",      "=1:2:3",        "a",         "a=0:1:3:log",
                       "a=1:2:3:foo", "a=1:2:3:log:x", "a=1:2:-3",  "a=1:2:1e9"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    sdk_errbuf e2 = {0};
    TU_CHECK(sdk_scan_parse(bad[i], &ax, &e2) == SDK_ERR_USAGE, "scan '%s' accepted", bad[i]);
    sdk_scan_free(&ax);
  }
  double v;
  TU_CHECK(sdk_parse_number("1e-3", &v) && v == 1e-3, "number");
  TU_CHECK(!sdk_parse_number("1+1", &v) && !sdk_parse_number("sin(1)", &v) &&
               !sdk_parse_number("inf", &v) && !sdk_parse_number("nan", &v) &&
               !sdk_parse_number("0x1p3", &v) && !sdk_parse_number("", &v) &&
               !sdk_parse_number("1.5x", &v),
           "strict numbers");
}

/* Scheme coefficients are data: check them against their definitions. */
static void test_schemes(void) {
  const sdk_scheme *e = sdk_scheme_find("euler"), *h = sdk_scheme_find("srk2");
  TU_CHECK(e && h && !sdk_scheme_find("rk4"), "registry");
  if (!e || !h) return;
  for (int i = 0; sdk_schemes[i]; i++) {
    const sdk_scheme *s = sdk_schemes[i];
    double sa = 0, sac = 0;
    for (int j = 0; j < s->stages; j++) {
      sa += s->alpha[j];
      sac += s->alpha[j] * s->c[j];
      double row = 0;
      for (int k = 0; k < s->stages; k++) {
        TU_CHECK(k < j || s->A[j][k] == 0, "%s: A must be strictly lower triangular", s->name);
        row += s->A[j][k];
      }
      TU_NEAR(row, s->c[j], 1e-15, "row sum of A equals c (consistency)");
    }
    TU_NEAR(sa, 1, 1e-15, "weights sum to 1 (order 1)");
    if (s->weak_order >= 2) TU_NEAR(sac, 0.5, 1e-15, "sum alpha c = 1/2 (order 2)");
  }
  TU_CHECK(h->stages == 2 && h->A[1][0] == 1 && h->B[1] == 1 && h->alpha[0] == 0.5 &&
               h->alpha[1] == 0.5 && h->additive_only,
           "srk2 is the paper's Alg. 2 (Heun)");
  TU_CHECK(e->stages == 1 && e->alpha[0] == 1 && !e->additive_only, "euler");
}

int main(void) {
  test_expressions();
  test_model_ok();
  test_model_bad();
  test_scan();
  test_schemes();
  return tu_finish("test_model");
}
