/* The time of expressions: the phase-time rule and the bindings of t
 * (expr_emit.h explains the rule). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/expr_emit.h"

/* A product of factors: num * prod f[i]^ex[i] (ex = +1 or -1).  Past 32
 * factors the term is not proven periodic: t stays the absolute time. */
typedef struct {
  double num;
  int n, ok;
  const sdk_expr *f[32];
  int ex[32];
} cg_prod;

static void prod_add(cg_prod *p, const sdk_expr *e, int ex) {
  if (e->kind == SDK_E_BINARY && (e->op == '*' || e->op == '/')) {
    prod_add(p, e->arg[0], ex);
    prod_add(p, e->arg[1], e->op == '/' ? -ex : ex);
  } else if (e->kind == SDK_E_UNARY && (e->op == '-' || e->op == '+')) {
    if (e->op == '-') p->num = -p->num;
    prod_add(p, e->arg[0], ex);
  } else if (e->kind == SDK_E_NUM || (e->kind == SDK_E_SYM && e->sym == SDK_SYM_CONST)) {
    p->num = ex > 0 ? p->num * e->num : p->num / e->num;
  } else if (p->n < 32) {
    p->f[p->n] = e, p->ex[p->n++] = ex;
  } else {
    p->ok = 0;
  }
}

static int is_time(const sdk_expr *e) {
  return e->kind == SDK_E_SYM && e->sym == SDK_SYM_TIME;
}

/* term = COEFF * t with COEFF * period = 2 pi k, k a non-zero integer */
static int periodic_term(const sdk_codegen_opts *o, const sdk_expr *term) {
  cg_prod p = {.num = 1, .ok = 1};
  prod_add(&p, term, 1);
  prod_add(&p, o->model->period, 1);
  int nt = 0;
  for (int i = 0; i < p.n; i++) {
    if (is_time(p.f[i])) {
      if (p.ex[i] != 1) return 0;
      p.f[i] = NULL, nt++;
    } else if (sdk_expr_uses(p.f[i], SDK_SYM_TIME)) {
      return 0;
    }
  }
  if (!p.ok || nt != 1) return 0;
  for (int i = 0; i < p.n; i++) {
    if (!p.f[i]) continue;
    int j = i + 1;
    while (j < p.n && !(p.f[j] && p.ex[j] == -p.ex[i] && sdk_expr_equal(p.f[i], p.f[j])))
      j++;
    if (j == p.n) return 0; /* a factor that does not cancel */
    p.f[i] = p.f[j] = NULL;
  }
  double k = p.num / (2 * M_PI);
  double r = floor(k + 0.5);
  return r != 0 && fabs(k - r) <= 4e-15 * fabs(k);
}

int sdk_cg_flatten_sum(const sdk_expr *e, int sign, const sdk_expr **t, int *sg, int n, int max) {
  if (e->kind == SDK_E_BINARY && (e->op == '+' || e->op == '-')) {
    n = sdk_cg_flatten_sum(e->arg[0], sign, t, sg, n, max);
    return n < 0 ? n : sdk_cg_flatten_sum(e->arg[1], e->op == '-' ? -sign : sign, t, sg, n, max);
  }
  if (e->kind == SDK_E_UNARY && e->op == '-')
    return sdk_cg_flatten_sum(e->arg[0], -sign, t, sg, n, max);
  if (n == max) return -1;
  t[n] = e, sg[n] = sign;
  return n + 1;
}

/* Past 16 terms of the argument, t stays the absolute time. */
int sdk_cg_phase_call(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (o->spp <= 0 || !o->model->period || e->kind != SDK_E_CALL || e->nargs != 1) return 0;
  if (strcmp(e->name, "sin") && strcmp(e->name, "cos") && strcmp(e->name, "tan")) return 0;
  if (!sdk_expr_uses(e->arg[0], SDK_SYM_TIME)) return 0;
  const sdk_expr *t[16];
  int sg[16];
  int n = sdk_cg_flatten_sum(e->arg[0], 1, t, sg, 0, 16);
  if (n < 1) return 0;
  for (int i = 0; i < n; i++)
    if (sdk_expr_uses(t[i], SDK_SYM_TIME) && !periodic_term(o, t[i])) return 0;
  return 1;
}

int sdk_cg_time_uses(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (!e) return 0;
  if (sdk_cg_phase_call(o, e)) return SDK_CG_TIME_PHASE;
  if (is_time(e)) return SDK_CG_TIME_ABS;
  int u = 0;
  for (int i = 0; i < e->nargs; i++)
    u |= sdk_cg_time_uses(o, e->arg[i]);
  return u;
}

/* t0 + c dt as a C expression: the step's time t0 ("sdk_t0" or "sdk_tp0") */
static void stage_time(double c, const char *t0, char *tval, size_t n) {
  if (c == 0)
    snprintf(tval, n, "%s", t0);
  else if (c == 1)
    snprintf(tval, n, "%s + sdk_dt", t0);
  else
    snprintf(tval, n, "%s + (real)%.17g * sdk_dt", t0, c);
}

void sdk_cg_bind_time_at(sdk_emit *em, const sdk_codegen_opts *o, double c, int uses) {
  char tval[96];
  if (uses & SDK_CG_TIME_ABS) {
    stage_time(c, "sdk_t0", tval, sizeof tval);
    sdk_em_line(em, "const real sdk_t = %s; (void)sdk_t;", tval);
  }
  if ((uses & SDK_CG_TIME_PHASE) && o->spp > 0) {
    stage_time(c, "sdk_tp0", tval, sizeof tval);
    sdk_em_line(em, "const real sdk_tp = %s; (void)sdk_tp;", tval);
  }
}

void sdk_cg_bind_time(sdk_emit *em, const sdk_codegen_opts *o, const char *t, const char *tp) {
  sdk_em_line(em, "const real sdk_t = %s; (void)sdk_t;", t);
  if (o->spp > 0) sdk_em_line(em, "const real sdk_tp = %s; (void)sdk_tp;", tp);
}

void sdk_cg_step_time(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *suffix) {
  sdk_em_start(em, "const real sdk_t0%s = (real)((double)(%s) * ", suffix, n);
  if (o->dt_column >= 0)
    sdk_em_puts(em, "(double)sdk_dt");
  else
    sdk_em_double(em, o->dt);
  sdk_em_printf(em, "); (void)sdk_t0%s;\n", suffix);
  if (o->spp > 0)
    sdk_em_line(em, "const real sdk_tp0%s = (real)((%s) %% %lldLL) * sdk_dt; (void)sdk_tp0%s;",
                suffix, n, (long long)o->spp, suffix);
}
