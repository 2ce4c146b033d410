/* Code generation for systems of interacting particles: pieces shared by the
 * CPU (sys_cpu.c) and CUDA (sys_cuda.c) drivers.
 *
 * A system is N consecutive particles (global particle index = system * N +
 * i, grid point g holds ppg = paths * N particles, so no system straddles two
 * grid points).  Every step n of a system:
 *   1. the [meanfield] expressions (and cos/sin of the order parameter) are
 *      summed over the system's particles at x_n, in a fixed order;
 *   2. the [pair] functions F_i = (1/N) sum_j f(x_i, x_j) are summed, all pairs;
 *   3. every particle takes one Euler step with its own Gaussians (Philox
 *      domain 3: one counter block per four consecutive particles of a
 *      system and step, rng/philox.h) using the averages of 1. and 2.
 * Per-particle parameters come from Philox domain 2 (block k for parameter
 * k, lane 0), so they never depend on how the work is cut. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_internal.h"

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
    if (mul) mul->op = '*', mul->nargs = 2, mul->arg[0] = x, mul->arg[1] = f;
    if (f) f->num = factor;
    call->arg[0] = mul;
    if (!mul || !f) {
      sdk_expr_destroy(&call);
      return NULL;
    }
  }
  if (!call->name || !x->name) sdk_expr_destroy(&call);
  return call;
}

void sdk_cg_red_build(sdk_cg_red *r, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  memset(r, 0, sizeof *r);
  r->ocos = r->osin = -1;
  for (int k = 0; k < m->nmean && r->n < SDK_CG_MAX_RED; k++) {
    r->e[r->n] = m->mean[k];
    r->line[r->n++] = m->mean_line[k];
  }
  if (o->order_var < 0) return;
  r->own[0] = trig_of("cos", m, o->order_var, o->order_factor);
  r->own[1] = trig_of("sin", m, o->order_var, o->order_factor);
  int *slot[2] = {&r->ocos, &r->osin};
  for (int q = 0; q < 2; q++) {
    for (int k = 0; k < m->nmean; k++)
      if (sdk_expr_equal(m->mean[k], r->own[q])) *slot[q] = k; /* e.g. Kuramoto's S and C */
    if (*slot[q] < 0 && r->n < SDK_CG_MAX_RED) {
      *slot[q] = r->n;
      r->e[r->n] = r->own[q];
      r->line[r->n++] = 0;
    }
  }
}

void sdk_cg_red_free(sdk_cg_red *r) {
  sdk_expr_destroy(&r->own[0]);
  sdk_expr_destroy(&r->own[1]);
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

void sdk_cg_part_draw(sdk_strbuf *b, const sdk_codegen_opts *o, int k, const char *gpart,
                      const char *dst, const char *ind) {
  const sdk_particle_spec *ps = &o->model->part[k];
  sdk_sb_printf(b, "%s{\n", ind);
  if (ps->kind != SDK_PDIST_CONST)
    sdk_sb_printf(b, "%s  real sdk_r[4];\n%s  %s(sdk_seed, (sdk_u64)(%s), %d, 2, sdk_r);\n", ind,
                  ind, ps->kind == SDK_PDIST_NORMAL ? "sdk_gauss4" : "sdk_uniform4", gpart, k);
  sdk_sb_printf(b, "%s  %s = ", ind, dst);
  switch (ps->kind) {
  case SDK_PDIST_CONST: sdk_cg_emit_expr(b, o, ps->a, ps->line); break;
  case SDK_PDIST_NORMAL:
    sdk_cg_emit_expr(b, o, ps->a, ps->line);
    sdk_sb_puts(b, " + ");
    sdk_cg_emit_expr(b, o, ps->b, ps->line);
    sdk_sb_puts(b, " * sdk_r[0]");
    break;
  case SDK_PDIST_UNIFORM:
    sdk_cg_emit_expr(b, o, ps->a, ps->line);
    sdk_sb_puts(b, " + (");
    sdk_cg_emit_expr(b, o, ps->b, ps->line);
    sdk_sb_puts(b, " - ");
    sdk_cg_emit_expr(b, o, ps->a, ps->line);
    sdk_sb_puts(b, ") * sdk_r[0]");
    break;
  case SDK_PDIST_CAUCHY:
    /* location + scale tan(pi (u - 1/2)), u in the open interval (0, 1) */
    sdk_cg_emit_expr(b, o, ps->a, ps->line);
    sdk_sb_puts(b, " + ");
    sdk_cg_emit_expr(b, o, ps->b, ps->line);
    sdk_sb_printf(b, " * %s(%s * (sdk_r[0] - %s))", o->single ? "tanf" : "tan",
                  o->single ? "3.14159265358979323846f" : "3.14159265358979323846",
                  o->single ? "0.5f" : "0.5");
    break;
  }
  sdk_sb_printf(b, ";\n%s}\n", ind);
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

void sdk_cg_part_bind(sdk_strbuf *b, const sdk_codegen_opts *o, const char *fmt, int j,
                      const char *ind) {
  const sdk_model *m = o->model;
  for (int k = 0; k < m->npart; k++) {
    if (j && !sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k)) continue;
    if (j) {
      sdk_sb_printf(b, "%sconst real sdk_pj%d = ", ind, k);
    } else {
      sdk_sb_printf(b, "%sconst real ", ind);
      sdk_cg_name(b, m->part[k].name);
      sdk_sb_puts(b, " = ");
    }
    if (sdk_cg_part_const(o, k)) {
      sdk_cg_emit_expr(b, o, m->part[k].a, m->part[k].line);
    } else {
      sdk_sb_printf(b, fmt, k);
    }
    if (j) {
      sdk_sb_printf(b, ";\n%s(void)sdk_pj%d;\n", ind, k);
    } else {
      sdk_sb_printf(b, ";\n%s(void)", ind);
      sdk_cg_name(b, m->part[k].name);
      sdk_sb_puts(b, ";\n");
    }
  }
}
