/* The pieces shared by the system drivers (sys.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/common.h"
#include "codegen/expr_emit.h"
#include "codegen/sys.h"

static sdk_expr *mk(sdk_ekind k) {
  sdk_expr *e = calloc(1, sizeof *e);
  if (e) e->kind = k;
  return e;
}

/* fn(x_v) or fn(x_v * factor) */
static sdk_expr *trig_of(const char *fn, const sdk_model *m, int v, double factor) {
  sdk_expr *call = mk(SDK_E_CALL), *x = mk(SDK_E_SYM);
  if (!call || !x) {
    free(call), free(x);
    return NULL;
  }
  call->name = strdup(fn);
  x->name = strdup(m->vars[v]);
  x->sym = SDK_SYM_VAR;
  x->index = v;
  call->nargs = 1;
  if (factor == 1.0) {
    call->arg[0] = x;
  } else {
    sdk_expr *mul = mk(SDK_E_BINARY), *f = mk(SDK_E_NUM);
    if (!mul || !f) {
      free(mul), free(f);
      sdk_expr_destroy(&x);
      sdk_expr_destroy(&call);
      return NULL;
    }
    mul->op = '*', mul->nargs = 2, mul->arg[0] = x, mul->arg[1] = f;
    f->num = factor;
    call->arg[0] = mul;
  }
  if (!call->name || !x->name) sdk_expr_destroy(&call);
  return call;
}

int sdk_cg_red_build(sdk_cg_red *r, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  memset(r, 0, sizeof *r);
  r->ocos = r->osin = -1;
  r->e = malloc((size_t)(m->nmean + 2) * sizeof *r->e);
  r->line = malloc((size_t)(m->nmean + 2) * sizeof *r->line);
  if (!r->e || !r->line) goto oom;
  for (int k = 0; k < m->nmean; k++) {
    r->e[r->n] = m->mean[k];
    r->line[r->n++] = m->mean_line[k];
  }
  if (o->order_var < 0) return 0;
  r->own[0] = trig_of("cos", m, o->order_var, o->order_factor);
  r->own[1] = trig_of("sin", m, o->order_var, o->order_factor);
  if (!r->own[0] || !r->own[1]) goto oom;
  int *slot[2] = {&r->ocos, &r->osin};
  for (int q = 0; q < 2; q++) {
    for (int k = 0; k < m->nmean; k++)
      if (sdk_expr_equal(m->mean[k], r->own[q])) *slot[q] = k; /* e.g. Kuramoto's S and C */
    if (*slot[q] < 0) {
      *slot[q] = r->n;
      r->e[r->n] = r->own[q];
      r->line[r->n++] = 0;
    }
  }
  return 0;
oom:
  sdk_cg_red_free(r);
  return -1;
}

void sdk_cg_red_free(sdk_cg_red *r) {
  sdk_expr_destroy(&r->own[0]);
  sdk_expr_destroy(&r->own[1]);
  free(r->e);
  free(r->line);
  memset(r, 0, sizeof *r);
  r->ocos = r->osin = -1;
}

static double fixed_param(void *user, sdk_symkind k, int idx) {
  const sdk_codegen_opts *o = user;
  if (k != SDK_SYM_PARAM || o->scan_column[idx] >= 0) return NAN;
  return o->pvalues[idx];
}

int sdk_cg_part_const(const sdk_codegen_opts *o, int k) {
  const sdk_particle_spec *ps = &o->model->part[k];
  if (ps->kind == SDK_PDIST_CONST) return 1;
  if (ps->kind == SDK_PDIST_UNIFORM) return 0;
  double w = sdk_expr_eval(ps->b, fixed_param, (void *)o);
  return w == 0; /* NaN (a scanned parameter) is not 0 */
}

void sdk_cg_part_draw(sdk_emit *em, const sdk_codegen_opts *o, int k, const char *gpart,
                      const char *dst) {
  const sdk_particle_spec *ps = &o->model->part[k];
  sdk_em_block(em);
  if (ps->kind != SDK_PDIST_CONST) {
    sdk_em_line(em, "real sdk_r[4];");
    sdk_em_line(em, "%s(sdk_seed, (sdk_u64)(%s), %d, 2, sdk_r);",
                ps->kind == SDK_PDIST_NORMAL ? "sdk_gauss4" : "sdk_uniform4", gpart, k);
  }
  sdk_em_start(em, "%s = ", dst);
  switch (ps->kind) {
  case SDK_PDIST_CONST: sdk_cg_expr(em, o, ps->a, ps->line); break;
  case SDK_PDIST_NORMAL:
    sdk_cg_expr(em, o, ps->a, ps->line);
    sdk_em_puts(em, " + ");
    sdk_cg_expr(em, o, ps->b, ps->line);
    sdk_em_puts(em, " * sdk_r[0]");
    break;
  case SDK_PDIST_UNIFORM:
    sdk_cg_expr(em, o, ps->a, ps->line);
    sdk_em_puts(em, " + (");
    sdk_cg_expr(em, o, ps->b, ps->line);
    sdk_em_puts(em, " - ");
    sdk_cg_expr(em, o, ps->a, ps->line);
    sdk_em_puts(em, ") * sdk_r[0]");
    break;
  case SDK_PDIST_CAUCHY:
    /* location + scale tan(pi (u - 1/2)), u in the open interval (0, 1) */
    sdk_cg_expr(em, o, ps->a, ps->line);
    sdk_em_puts(em, " + ");
    sdk_cg_expr(em, o, ps->b, ps->line);
    sdk_em_printf(em, " * %s(%s * (sdk_r[0] - %s))", o->single ? "tanf" : "tan",
                  o->single ? "3.14159265358979323846f" : "3.14159265358979323846",
                  o->single ? "0.5f" : "0.5");
    break;
  }
  sdk_em_puts(em, ";\n");
  sdk_em_close(em);
}

static int uses_other(const sdk_expr *e, int kind, int k) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_OTHER && SDK_OTHER_KIND(e->index) == kind &&
      SDK_OTHER_INDEX(e->index) == k)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (uses_other(e->arg[i], kind, k)) return 1;
  return 0;
}

int sdk_cg_pair_uses(const sdk_model *m, int kind, int k) {
  for (int i = 0; i < m->npair; i++)
    if (uses_other(m->pair[i], kind, k)) return 1;
  return 0;
}

void sdk_cg_part_bind(sdk_emit *em, const sdk_codegen_opts *o, const char *fmt, int j) {
  const sdk_model *m = o->model;
  for (int k = 0; k < m->npart; k++) {
    if (j && !sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k)) continue;
    if (j) {
      sdk_em_start(em, "const real sdk_pj%d = ", k);
    } else {
      sdk_em_start(em, "const real ");
      sdk_em_name(em, m->part[k].name);
      sdk_em_puts(em, " = ");
    }
    if (sdk_cg_part_const(o, k))
      sdk_cg_expr(em, o, m->part[k].a, m->part[k].line);
    else
      sdk_em_printf(em, fmt, k);
    sdk_em_puts(em, ";\n");
    if (j) {
      sdk_em_line(em, "(void)sdk_pj%d;", k);
    } else {
      sdk_em_start(em, "(void)");
      sdk_em_name(em, m->part[k].name);
      sdk_em_puts(em, ";\n");
    }
  }
}

/* "const real NAME = <fmt with k>; (void)NAME;" */
static void bind(sdk_emit *em, const char *name, const char *fmt, int k) {
  sdk_em_start(em, "const real ");
  sdk_em_name(em, name);
  sdk_em_puts(em, " = ");
  sdk_em_printf(em, fmt, k);
  sdk_em_puts(em, "; (void)");
  sdk_em_name(em, name);
  sdk_em_puts(em, ";\n");
}

void sdk_cg_bind_vars(sdk_emit *em, const sdk_model *m, const char *fmt) {
  for (int v = 0; v < m->nvars; v++)
    bind(em, m->vars[v], fmt, v);
}

void sdk_cg_bind_coupling(sdk_emit *em, const sdk_model *m, int pair, const char *fmt) {
  int n = pair ? m->npair : m->nmean;
  for (int k = 0; k < n; k++)
    bind(em, pair ? m->pair_names[k] : m->mean_names[k], fmt, k);
}

void sdk_cg_sys_prologue(sdk_emit *em, const sdk_codegen_opts *o, int next) {
  sdk_cg_params(em, o, "sdk_sv[sdk_g * SDK_NSV + %d]");
  sdk_em_line(em, "(void)sdk_sqdt;");
  sdk_cg_step_time(em, o, "sdk_n", "");
  if (next) sdk_cg_step_time(em, o, "sdk_n + 1", "1");
}
