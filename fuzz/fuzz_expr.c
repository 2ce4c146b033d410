/* Fuzz target: model expressions.  The input is one expression; it is
 * parsed, resolved against a fixed symbol table, evaluated on the host and
 * emitted as C in double and single precision; so is its derivative.
 *
 * Besides crashes it checks the rule of docs/SECURITY.md: expressions reach
 * the compiler only through the grammar's allowlist.  The emitted C may hold
 * only numbers, operators, parentheses, the math functions of the grammar,
 * the type name `real` and the symbols this target emits itself (prefix
 * fz_); anything else in it aborts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "fuzz_common.h"
#include "model/expr.h"

static const char *const VARS[] = {"x", "v", NULL};
static const char *const PARAMS[] = {"a", "b", "omega", "gamma", NULL};
static const char *const OTHERS[] = {"mean_x", NULL};

static int find(const char *const *list, const char *name) {
  for (int i = 0; list[i]; i++)
    if (!strcmp(list[i], name)) return i;
  return -1;
}

static sdk_symkind resolve(void *user, const char *name, int *index) {
  (void)user;
  if ((*index = find(VARS, name)) >= 0) return SDK_SYM_VAR;
  if ((*index = find(PARAMS, name)) >= 0) return SDK_SYM_PARAM;
  if ((*index = find(OTHERS, name)) >= 0) return SDK_SYM_OTHER;
  return SDK_SYM_UNRESOLVED;
}

static double value(void *user, sdk_symkind kind, int index) {
  (void)user;
  switch (kind) {
  case SDK_SYM_VAR: return 0.5 + index;
  case SDK_SYM_PARAM: return -1.25 * (index + 1);
  case SDK_SYM_TIME: return 3.0;
  default: return 0.125;
  }
}

static void emit_sym(void *user, sdk_strbuf *out, const sdk_expr *sym) {
  (void)user;
  switch (sym->sym) {
  case SDK_SYM_VAR: sdk_sb_printf(out, "fz_x%d", sym->index); break;
  case SDK_SYM_PARAM: sdk_sb_printf(out, "fz_p%d", sym->index); break;
  case SDK_SYM_TIME: sdk_sb_puts(out, "fz_t"); break;
  default: sdk_sb_printf(out, "fz_o%d", sym->index); break;
  }
}

static const char *const MATH[] = {"sin",    "cos",    "tan",   "asin",     "acos",  "atan", "sinh",
                                   "cosh",   "tanh",   "exp",   "log",      "log10", "log2", "sqrt",
                                   "cbrt",   "fabs",   "floor", "ceil",     "round", "erf",  "erfc",
                                   "tgamma", "lgamma", "expm1", "log1p",    "atan2", "pow",  "fmod",
                                   "hypot",  "fmin",   "fmax",  "copysign", "fma",   NULL};

static int allowed_ident(const char *s, size_t n, int single) {
  char id[64];
  if (n >= sizeof id) return 0;
  memcpy(id, s, n);
  id[n] = 0;
  if (!strcmp(id, "real")) return 1;
  if (!strncmp(id, "fz_", 3)) return 1;
  if (single) {
    if (n < 2 || id[n - 1] != 'f') return 0;
    id[n - 1] = 0;
  }
  return find(MATH, id) >= 0;
}

/* Abort unless every token of the emitted C is on the allowlist. */
static void check_emitted(const char *c, int single) {
  const char *p = c;
  while (*p) {
    if (isalpha((unsigned char)*p) || *p == '_') {
      const char *s = p;
      while (isalnum((unsigned char)*p) || *p == '_')
        p++;
      if (!allowed_ident(s, (size_t)(p - s), single)) {
        fprintf(stderr, "fuzz_expr: identifier '%.*s' not on the allowlist in: %s\n", (int)(p - s),
                s, c);
        abort();
      }
    } else if (isdigit((unsigned char)*p) || *p == '.') {
      /* a literal: digits, point, exponent, float suffix */
      while (isdigit((unsigned char)*p) || *p == '.')
        p++;
      if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) {
          fprintf(stderr, "fuzz_expr: malformed literal in: %s\n", c);
          abort();
        }
        while (isdigit((unsigned char)*p))
          p++;
      }
      if (*p == 'f') p++;
      if (isalnum((unsigned char)*p) || *p == '_') {
        fprintf(stderr, "fuzz_expr: malformed literal in: %s\n", c);
        abort();
      }
    } else if (strchr(" ()+-*/<>=!&|?:,", *p)) {
      p++;
    } else {
      fprintf(stderr, "fuzz_expr: character 0x%02x not allowed in: %s\n", (unsigned char)*p, c);
      abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox();
  char *text = fuzz_cstr(data, size);
  if (!text) return 0;
  (void)sdk_name_valid(text);
  (void)sdk_name_reserved(text);
  sdk_errbuf eb = {0};
  sdk_expr *e = NULL;
  if (sdk_expr_parse(text, "fuzz:1 [drift] x", &e, &eb) == SDK_OK &&
      sdk_expr_resolve(e, resolve, NULL, "fuzz:1 [drift] x", "x, v, a, b, omega, gamma", &eb) ==
          SDK_OK) {
    (void)sdk_expr_uses(e, SDK_SYM_VAR);
    (void)sdk_expr_uses(e, SDK_SYM_TIME);
    if (!sdk_expr_equal(e, e)) abort();
    (void)sdk_expr_eval(e, value, NULL);
    for (int single = 0; single < 2; single++) {
      sdk_strbuf out;
      sdk_sb_init(&out);
      sdk_expr_emit(e, single, emit_sym, NULL, &out);
      if (!out.oom && out.s) check_emitted(out.s, single);
      sdk_sb_free(&out);
    }
    /* its derivative (model/diff.c): a tree the same walks take, whose
     * emitted C obeys the same allowlist; a copy equal to the original */
    sdk_expr *c = sdk_expr_copy(e), *de = NULL;
    if (c && !sdk_expr_equal(c, e)) abort();
    sdk_expr_destroy(&c);
    if (sdk_expr_diff(e, 0, "fuzz:1 [noise] x", &de, &eb) == SDK_OK) {
      (void)sdk_expr_eval(de, value, NULL);
      sdk_strbuf out;
      sdk_sb_init(&out);
      sdk_expr_emit(de, 0, emit_sym, NULL, &out);
      if (!out.oom && out.s) check_emitted(out.s, 0);
      sdk_sb_free(&out);
      sdk_expr_destroy(&de);
    }
  }
  sdk_expr_destroy(&e);
  sdk_expr_destroy(&e);
  free(text);
  return 0;
}
