/* Unit tests: expressions, model files (good and bad) and scan specs (the
 * scheme tables: test_schemes.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "model/expr.h"
#include "model/limits.h"
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
      {"[model]\nname = a\nvars = x\n[params]\nk = abc\n[drift]\nx = 1\n",
       "bad.sde:5: [params] k: unknown name 'abc'"},
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

/* ---- limits (issue 10, item 6): each refused with a message, never
 * truncated, dropped, approximated or a crash ---- */
static sdk_strbuf sb_new(void) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  return b;
}

/* `head`, then `n` entries printed with fmt (one %d), as continuation lines
 * of at most ~100 bytes when cont is nonzero (one entry per line otherwise) */
static char *many(const char *head, const char *fmt, int n, int cont, const char *tail) {
  sdk_strbuf b = sb_new();
  sdk_sb_puts(&b, head);
  size_t ls = b.len;
  for (int i = 0; i < n; i++) {
    if (cont && b.len - ls > 100) {
      sdk_sb_puts(&b, "\n  ");
      ls = b.len;
    }
    sdk_sb_printf(&b, fmt, i);
    if (!cont) sdk_sb_puts(&b, "\n");
  }
  sdk_sb_puts(&b, tail);
  return sdk_sb_take(&b);
}

static void expect_refused(const char *what, const char *text, size_t len, const char *msg) {
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_model_parse_buffer(text, len, "lim.sde", &m, &eb);
  TU_CHECK(e == SDK_ERR_MODEL && m == NULL, "%s: accepted (%s)", what, eb.msg);
  TU_CHECK(strstr(eb.msg, msg) && strstr(eb.msg, "lim.sde"), "%s: message '%s' lacks '%s'", what,
           eb.msg, msg);
  sdk_model_destroy(&m);
}

static void expect_accepted(const char *what, const char *text) {
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_model_parse(text, "lim.sde", &m, &eb) == SDK_OK, "%s: %s", what, eb.msg);
  sdk_model_destroy(&m);
}

static void test_model_limits(void) {
  const char *H = "[model]\nname = a\nvars = x\n";
  char buf[512];
  /* a literal that overflows would be emitted as "inf" and bind to a parameter of that name */
  snprintf(buf, sizeof buf, "%s[params]\ninf = 1\n[drift]\nx = -1e999 * x\n", H);
  expect_refused("1e999", buf, strlen(buf), "out of the range");
  snprintf(buf, sizeof buf, "%s[drift]\nx = 1e-999\n", H);
  expect_refused("1e-999", buf, strlen(buf), "out of the range");

  /* nesting: the old parser recursed once per level and overflowed the stack */
  char *t = many("[model]\nname = a\nvars = x\n[drift]\nx = ", "(", 300000, 1, "\n");
  expect_refused("300000 parentheses", t, strlen(t), "nested deeper than 100");
  free(t);
  sdk_expr *ex = NULL;
  sdk_errbuf eb = {0};
  size_t N = 2000000;
  char *deep = malloc(N + 2);
  TU_CHECK(deep != NULL, "malloc");
  if (deep) {
    memset(deep, '-', N);
    deep[N] = 'x', deep[N + 1] = 0;
    TU_CHECK(sdk_expr_parse(deep, "deep", &ex, &eb) == SDK_ERR_MODEL && !ex,
             "2e6 unary minus accepted");
    for (size_t i = 0; i < N; i++)
      deep[i] = i % 2 ? '+' : 'x';
    deep[N] = 'x';
    eb.msg[0] = 0;
    TU_CHECK(sdk_expr_parse(deep, "sum", &ex, &eb) == SDK_ERR_MODEL && !ex,
             "a sum of 1e6 terms (a tree 1e6 deep) accepted");
    TU_CHECK(strstr(eb.msg, "nested deeper than 100") != NULL, "%s", eb.msg);
    free(deep);
  }
  sdk_expr_destroy(&ex);
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = ", "sin(", 100, 1, "x");
  sdk_strbuf b = sb_new();
  sdk_sb_puts(&b, t);
  for (int i = 0; i < 100; i++)
    sdk_sb_puts(&b, i % 50 ? ")" : ")\n  ");
  sdk_sb_puts(&b, "\n");
  free(t);
  t = sdk_sb_take(&b);
  expect_accepted("100 nested calls (the limit)", t);
  free(t);
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = ", "sin(", 101, 1, "x");
  b = sb_new();
  sdk_sb_puts(&b, t);
  for (int i = 0; i < 101; i++)
    sdk_sb_puts(&b, i % 50 ? ")" : ")\n  ");
  sdk_sb_puts(&b, "\n");
  free(t);
  t = sdk_sb_take(&b);
  expect_refused("101 nested calls", t, strlen(t), "nested deeper than 100");
  free(t);

  /* counts */
  snprintf(buf, sizeof buf, "%d variables", SDK_MODEL_MAX_VARS + 1);
  t = many("[model]\nname = a\nvars = ", "v%d, ", SDK_MODEL_MAX_VARS + 1, 1, "\n");
  expect_refused(buf, t, strlen(t), "more than 1024 variables");
  free(t);
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = 1\n[params]\n", "p%d = 1",
           SDK_MODEL_MAX_PARAMS + 1, 0, "");
  expect_refused("1025 parameters", t, strlen(t), "more than 1024 parameters");
  free(t);
  /* the generator held 64 sums and silently dropped the rest */
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = m0\n[meanfield]\n", "m%d = sin(x)",
           SDK_MODEL_MAX_MEANFIELD + 1, 0, "");
  expect_refused("63 [meanfield]", t, strlen(t), "more than 62 entries in [meanfield]");
  free(t);
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = m0\n[meanfield]\n", "m%d = sin(x)",
           SDK_MODEL_MAX_MEANFIELD, 0, "");
  expect_accepted("62 [meanfield]", t);
  free(t);
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = q0\n[pair]\n", "q%d = sin(xj - x)",
           SDK_MODEL_MAX_PAIR + 1, 0, "");
  expect_refused("33 [pair]", t, strlen(t), "more than 32 entries in [pair]");
  free(t);
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = w0\n[particle]\n", "w%d = normal(0, 1)",
           SDK_MODEL_MAX_PARTICLE + 1, 0, "");
  expect_refused("33 [particle]", t, strlen(t), "more than 32 entries in [particle]");
  free(t);
  t = many("[model]\nname = a\nvars = x\n[drift]\nx = 1\n[noise]\n", "k%d = 1",
           SDK_MODEL_MAX_ENTRIES + 1, 0, "");
  expect_refused("8193 entries", t, strlen(t), "more than 8192 entries");
  free(t);
  char name[80];
  memset(name, 'v', 64);
  name[64] = 0;
  snprintf(buf, sizeof buf, "[model]\nname = a\nvars = %s\n[drift]\n%s = 1\n", name, name);
  expect_refused("64-character name", buf, strlen(buf), "longer than 63 characters");
  snprintf(buf, sizeof buf, "[model]\nname = a\nvars = %.63s\n[drift]\n%.63s = 1\n", name, name);
  expect_accepted("63-character name", buf);

  /* bytes and lines: a 199-byte comment line followed by text on the same
   * line, which libinih read as a new line (b = 7 became a parameter) */
  b = sb_new();
  sdk_sb_printf(&b, "%s[drift]\nx = 1\n[params]\n#", H);
  for (int i = 0; i < 198; i++)
    sdk_sb_puts(&b, "a");
  sdk_sb_puts(&b, "b = 7\n");
  t = sdk_sb_take(&b);
  expect_refused("long line", t, strlen(t), "longer than 198 bytes");
  free(t);
  static const char nul[] = "[model]\nname = a\nvars = x\n[drift]\nx = 1\0\n[params]\nb = 1\n";
  expect_refused("NUL byte", nul, sizeof nul - 1, "NUL byte");
  snprintf(buf, sizeof buf, "[model]\nname = caf\xe9\nvars = x\n[drift]\nx = 1\n");
  expect_refused("Latin-1 byte", buf, strlen(buf), "not UTF-8");
  snprintf(buf, sizeof buf, "[model]\nname = \xed\xa0\x80\nvars = x\n[drift]\nx = 1\n");
  expect_refused("UTF-16 surrogate", buf, strlen(buf), "not UTF-8");
  expect_accepted("UTF-8 name",
                  "[model]\nname = caf\xc3\xa9 \xe2\x88\x86\nvars = x\n[drift]\nx = 1\n");
  size_t big = SDK_MODEL_MAX_BYTES + 1;
  char *huge = malloc(big);
  if (huge) {
    memset(huge, '\n', big);
    memcpy(huge, H, strlen(H));
    expect_refused("1 MiB + 1", huge, big, "more than the 1048576 bytes");
    free(huge);
  }
  /* a byte order mark hid [model] from the duplicate-key check */
  expect_refused(
      "BOM, name twice", "\xef\xbb\xbf[model]\nname = a\nvars = x\nname = b\n[drift]\nx = 1\n",
      strlen("\xef\xbb\xbf[model]\nname = a\nvars = x\nname = b\n[drift]\nx = 1\n"), "given twice");
  /* CRLF line ends read as LF */
  sdk_model *m = NULL;
  TU_CHECK(sdk_model_parse("[model]\r\nname = a\r\nvars = x\r\n[params]\r\nk = 2.5\r\n[drift]\r\nx "
                           "= -k*x\r\n",
                           "crlf.sde", &m, &eb) == SDK_OK,
           "CRLF: %s", eb.msg);
  TU_CHECK(m && !strcmp(m->name, "a") && m->nparams == 1 && m->pvalues[0] == 2.5, "CRLF values");
  sdk_model_destroy(&m);
}

static void test_scan(void) {
  sdk_scan_axis ax;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("a=4.2:14.1:100", &ax, &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(ax.values == NULL, "parse leaves the values to sdk_scan_fill");
  TU_CHECK(sdk_scan_fill(&ax, &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(ax.n == 100 && !ax.log && !strcmp(ax.name, "a"), "linear scan");
  TU_NEAR(ax.values[0], 4.2, 0, "first");
  TU_NEAR(ax.values[99], 14.1, 0, "last");
  TU_NEAR(ax.values[1], 4.3, 0, "second is exactly 4.3 (rounded to 15 digits)");
  sdk_scan_free(&ax);
  TU_CHECK(sdk_scan_parse("D=0.001:1:4:log", &ax, &eb) == SDK_OK &&
               sdk_scan_fill(&ax, &eb) == SDK_OK,
           "%s", eb.msg);
  TU_NEAR(ax.values[1], 0.01, 1e-15, "log scan");
  sdk_scan_free(&ax);
  TU_CHECK(sdk_scan_parse("a=3:3:1", &ax, &eb) == SDK_OK && sdk_scan_fill(&ax, &eb) == SDK_OK &&
               ax.values[0] == 3,
           "single point");
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

/* [boundaries] (model/boundaries.c): what is read, and every refusal with
 * its file:line and message */
static void test_boundaries(void) {
  const char *head = "[model]\nname = b\nvars = x, y\n[params]\nL = 2\n[drift]\nx = 1\ny = 0\n"
                     "[boundaries]\n";
  char text[1024];
  snprintf(text, sizeof text,
           "%sright = absorb x >= 2*L\nfloor = reflect 0 >= y\nleft = absorb x < -L  # c\n", head);
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_model_parse(text, "b.sde", &m, &eb) == SDK_OK, "boundaries: %s", eb.msg);
  if (m) {
    TU_CHECK(m->nbound == 3, "%d boundaries", m->nbound);
    const sdk_boundary *b = m->bound;
    TU_CHECK(!strcmp(b[0].name, "right") && b[0].kind == SDK_BOUND_ABSORB && b[0].var == 0 &&
                 b[0].upper == 1 && b[0].strict == 0 && b[0].line == 10 &&
                 sdk_expr_eval(b[0].level, val, NULL) == 4,
             "right = absorb x >= 2*L");
    /* E >= VAR is VAR <= E: a lower boundary of y */
    TU_CHECK(!strcmp(b[1].name, "floor") && b[1].kind == SDK_BOUND_REFLECT && b[1].var == 1 &&
                 b[1].upper == 0 && b[1].strict == 0,
             "floor = reflect 0 >= y");
    TU_CHECK(b[2].upper == 0 && b[2].strict == 1 && sdk_expr_eval(b[2].level, val, NULL) == -2,
             "left = absorb x < -L");
  }
  sdk_model_destroy(&m);
  const struct {
    const char *entries, *expect;
  } bad[] = {
      {"a = absorb z >= 1\n", "b.sde:10: [boundaries] a: unknown name 'z'"},
      {"a = absorb x >= y\n",
       "b.sde:10: [boundaries] a: the level of a boundary may use the parameters only"},
      {"a = absorb x >= t\n",
       "b.sde:10: [boundaries] a: the level of a boundary may use the parameters only"},
      {"a = absorb x + 1 >= L\n", "b.sde:10: [boundaries] a: expected 'absorb' or 'reflect' and "
                                  "a comparison of one variable"},
      {"a = absorb x == L\n", "b.sde:10: [boundaries] a: expected 'absorb' or 'reflect' and a "
                              "comparison of one variable"},
      {"a = absorb x\n", "expected 'absorb' or 'reflect' and a comparison of one variable"},
      {"a = stop x >= L\n", "b.sde:10: [boundaries] a: expected 'absorb' or 'reflect' and a "
                            "comparison (e.g. absorb x >= L)"},
      {"a = absorb x >= L\na = absorb x <= 0\n", "given twice"},
      {"a = absorb x >= L\nb = reflect x > 1\n",
       "b.sde:11: [boundaries] b: an absorbing and a reflecting boundary on the same side of 'x' "
       "(with 'a' on line 10)"},
      {"1a = absorb x >= L\n", "cannot be the name of a boundary"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(text, sizeof text, "%s%s", head, bad[i].entries);
    sdk_errbuf eb2 = {0};
    sdk_err e = sdk_model_parse(text, "b.sde", &m, &eb2);
    TU_CHECK(e == SDK_ERR_MODEL && m == NULL, "boundaries case %zu accepted", i);
    TU_CHECK(strstr(eb2.msg, bad[i].expect) != NULL, "boundaries case %zu: '%s' lacks '%s'", i,
             eb2.msg, bad[i].expect);
    sdk_model_destroy(&m);
  }
  /* the limit, and systems of particles */
  sdk_strbuf b = sb_new();
  sdk_sb_puts(&b, head);
  for (int i = 0; i <= SDK_MODEL_MAX_BOUNDARIES; i++)
    sdk_sb_printf(&b, "b%d = absorb x >= %d\n", i, i + 1);
  char *t = sdk_sb_take(&b);
  if (t)
    expect_refused("9 boundaries", t, strlen(t), "more than 8 entries in [boundaries] (the limit)");
  free(t);
  expect_refused("boundaries of particles",
                 "[model]\nname = k\nvars = x\n[meanfield]\nc = cos(x)\n[drift]\nx = c\n"
                 "[boundaries]\nr = absorb x >= 1\n",
                 94, "lim.sde:9: [boundaries] are not supported for systems of particles");
}

/* A comment never ends a value (issue 25, item 3): each physical line loses
 * its '#' or ';' comment before an indented continuation line is joined to
 * it, in every section; the model equals the one written without comments. */
static void test_comments(void) {
  const char *plain = "[model]\nname = c #1\ndescription = d #2\nvars = x, y\nperiod = 2*pi / w\n"
                      "[params]\nw = 1 + 1\nL = 2\n[drift]\nx = -x + 1 - 0.5*x\ny = 1\n"
                      "[noise]\nx = 0.3 * 2\n[init]\nx = uniform(0, 1)\n[observe]\no = x*x + 1\n"
                      "[boundaries]\nb = absorb x >= L + 1\n";
  const char *commented =
      "[model]\nname = c #1\ndescription = d #2\nvars = x, # the position\n    y\n"
      "period = 2*pi   # the period of cos(w t)\n    / w\n"
      "[params]\nw = 1 ; a comment\n    + 1\nL = 2\n[drift]\nx = -x   # restoring\n"
      "    + 1   ; a constant force\n# a line of its own\n    - 0.5*x   # more\ny = 1\n"
      "[noise]\nx = 0.3#c\n  * 2\n[init]\nx = uniform(0, # from\n\t1)\n"
      "[observe]\no = x*x # c\n    + 1\n[boundaries]\nb = absorb x >= L # c\n    + 1\n";
  sdk_model *a = NULL, *b = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_model_parse(plain, "p.sde", &a, &eb) == SDK_OK, "comments, plain: %s", eb.msg);
  TU_CHECK(sdk_model_parse(commented, "c.sde", &b, &eb) == SDK_OK, "comments: %s", eb.msg);
  if (a && b) {
    TU_CHECK(b->nvars == 2 && b->nparams == 2 && b->pvalues[0] == 2, "vars, params");
    TU_CHECK(sdk_expr_equal(a->drift[0], b->drift[0]), "drift continued after comments");
    TU_CHECK(sdk_expr_equal(a->noise[0], b->noise[0]), "noise continued after a comment");
    TU_CHECK(sdk_expr_equal(a->init[0].b, b->init[0].b) && b->init[0].kind == SDK_INIT_UNIFORM,
             "init continued after a comment");
    TU_CHECK(sdk_expr_equal(a->period, b->period), "period continued after a comment");
    TU_CHECK(b->nobs == 1 && sdk_expr_equal(a->obs[0], b->obs[0]), "observe");
    TU_CHECK(b->nbound == 1 && sdk_expr_equal(a->bound[0].level, b->bound[0].level), "boundary");
    /* free text: '#' is a character there */
    TU_CHECK(!strcmp(b->name, "c #1") && !strcmp(b->description, "d #2"), "name '%s', '%s'",
             b->name, b->description);
    TU_CHECK(b->drift_line[0] == 13 && b->bound[0].line == 28, "lines %d, %d", b->drift_line[0],
             b->bound[0].line);
  }
  sdk_model_destroy(&a);
  sdk_model_destroy(&b);
}

/* The levels of [boundaries] at a grid point (issue 25, item 5). */
static void test_boundary_levels(void) {
  const char *text =
      "[model]\nname = b\nvars = x, y\n[params]\nlo = 0\nhi = 1\n[drift]\nx = 0\ny = 0\n"
      "[boundaries]\nlow = reflect x <= lo\nhigh = reflect x > hi\n"
      "out = absorb y >= hi/lo\n";
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_model_parse(text, "b.sde", &m, &eb) == SDK_OK, "levels: %s", eb.msg);
  if (!m) return;
  char why[400] = "";
  double ok[] = {1, 2}, none[] = {1, 1}, crossed[] = {2, 1}, nan0[] = {0, 0};
  TU_CHECK(sdk_model_check_boundaries(m, ok, why, sizeof why) == 0, "room: %s", why);
  TU_CHECK(sdk_model_check_boundaries(m, none, why, sizeof why) == -1 &&
               strstr(why, "b.sde:12: [boundaries] high: reflect x > 1 and low (line 11): reflect "
                           "x <= 1 leave no room for x between them"),
           "equal levels: '%s'", why);
  TU_CHECK(sdk_model_check_boundaries(m, crossed, why, sizeof why) == -1 &&
               strstr(why, "leave no room"),
           "crossed levels: '%s'", why);
  TU_CHECK(sdk_model_check_boundaries(m, nan0, why, sizeof why) == -1 &&
               strstr(why, "b.sde:13: [boundaries] out: the level of y is nan (must be finite)"),
           "NaN level: '%s'", why);
  sdk_model_destroy(&m);
}

int main(void) {
  test_expressions();
  test_model_ok();
  test_model_bad();
  test_model_limits();
  test_scan();
  test_boundaries();
  test_comments();
  test_boundary_levels();
  return tu_finish("test_model");
}
