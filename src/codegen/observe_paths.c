/* User observables ([observe], --observe-expr) in the module: every
 * expression evaluated for every path at the state after `step` steps, into
 * rows of `real` that the backend then reduces with the moments reduction
 * (so their means and variances come in the same chunk order, bitwise the
 * same for any thread count or launch shape).
 *
 *   CPU:  void sdk_observe(st, npad, sv, ppg, ngrid, path0, step, out, nthreads)
 *   CUDA: __global__ sdk_observe(st, npad, sv, ppg, ngrid, path0, step, out),
 *         one thread per path
 *
 * out[k * npad + p] is expression k of path p (the padding paths included:
 * they evaluate the last grid point's parameters and are never reduced).
 * Emitted only for models with user observables, so every other module is
 * unchanged.  t is the time of the state, step * dt (and the phase time
 * with a period, as in the drift). */
#include <stdio.h>

#include "codegen/codegen.h"
#include "codegen/common.h"
#include "codegen/drivers.h"
#include "codegen/expr_emit.h"

extern const char sdk_embedded_observe_units_cuh[];

/* What the expressions of path p see: grid point g's parameters, the
 * state, t at `step` */
static void emit_bindings(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_cg_params(em, o, "sv[g * SDK_NSV + %d]");
  sdk_em_line(em, "(void)sdk_sqdt;");
  for (int v = 0; v < m->nvars; v++) {
    sdk_em_start(em, "const real ");
    sdk_em_name(em, m->vars[v]);
    sdk_em_printf(em, " = st[(sdk_i64)%d * npad + p]; (void)", v);
    sdk_em_name(em, m->vars[v]);
    sdk_em_puts(em, ";\n");
  }
  sdk_cg_step_time(em, o, "step", "");
  sdk_cg_bind_time(em, o, "sdk_t0", "sdk_tp0");
}

/* --dt-check: value k >= nobs of the module (codegen.h, sdk_cg_nobs_eval)
 * into `dst` ("return " or "out[...] = "): the coupled difference
 * coarse - fine of user observable k - nobs, of variable v, or of variable
 * v's displacement since step dtc_mark; the fine state's names in scope */
static void emit_diff(sdk_emit *em, const sdk_codegen_opts *o, int k, const char *dst) {
  const sdk_model *m = o->model;
  int nobs = m->nobs, nv = m->nvars;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  sdk_em_block(em);
  if (k < 2 * nobs) {
    sdk_em_start(em, "const real sdk_f = (real)");
    sdk_cg_expr(em, o, m->obs[k - nobs], m->obs_line[k - nobs]);
    sdk_em_puts(em, ";\n");
    sdk_em_block(em);
    for (int v = 0; v < nv; v++) { /* the coarse path's state under the same names */
      sdk_em_start(em, "const real ");
      sdk_em_name(em, m->vars[v]);
      sdk_em_printf(em, " = st[(sdk_i64)%d * npad + p]; (void)", l.dtc + v);
      sdk_em_name(em, m->vars[v]);
      sdk_em_puts(em, ";\n");
    }
    sdk_em_start(em, "%s(real)((real)", dst);
    sdk_cg_expr(em, o, m->obs[k - nobs], m->obs_line[k - nobs]);
    sdk_em_puts(em, " - sdk_f);\n");
    sdk_em_close(em);
  } else {
    int v = (k - 2 * nobs) % nv, disp = k - 2 * nobs >= nv;
    sdk_em_start(em, "%s(real)(st[(sdk_i64)%d * npad + p] - st[(sdk_i64)%d * npad + p]", dst,
                 l.dtc + v, v);
    if (disp) sdk_em_printf(em, " - st[(sdk_i64)%d * npad + p]", l.dtc_d0 + v);
    sdk_em_puts(em, ");\n");
  }
  sdk_em_close(em);
}

int sdk_cg_nobs_eval(const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  if (o->sysmode) return 0;
  return o->dt_check ? 2 * m->nobs + 2 * m->nvars : m->nobs;
}

/* the body for path p: parameters, state, time, the expressions */
static void emit_path(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_em_text(em, "sdk_i64 g = (path0 + p) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
                  "(void)sv; (void)g;\n");
  emit_bindings(em, o);
  for (int k = 0; k < m->nobs; k++) {
    sdk_em_start(em, "out[(sdk_i64)%d * npad + p] = (real)", k);
    sdk_cg_expr(em, o, m->obs[k], m->obs_line[k]);
    sdk_em_puts(em, ";\n");
  }
  for (int k = m->nobs; k < sdk_cg_nobs_eval(o); k++) {
    char dst[64];
    snprintf(dst, sizeof dst, "out[(sdk_i64)%d * npad + p] = ", k);
    emit_diff(em, o, k, dst);
  }
}

void sdk_cg_tavg_add(sdk_emit *em, const sdk_codegen_opts *o, const char *x_fmt, const char *s_fmt,
                     const char *e_fmt, const char *n_after) {
  const sdk_model *m = o->model;
  char a[64], b[64], x[64];
  sdk_em_block(em);
  for (int v = 0; v < m->nvars; v++) {
    sdk_em_start(em, "const real ");
    sdk_em_name(em, m->vars[v]);
    sdk_em_puts(em, " = ");
    sdk_em_printf(em, x_fmt, v);
    sdk_em_puts(em, "; (void)");
    sdk_em_name(em, m->vars[v]);
    sdk_em_puts(em, ";\n");
  }
  sdk_cg_step_time(em, o, n_after, "_a");
  sdk_cg_bind_time(em, o, "sdk_t0_a", "sdk_tp0_a");
  for (int j = 0; j < m->nobs + m->nvars; j++) {
    snprintf(a, sizeof a, s_fmt, j);
    snprintf(b, sizeof b, e_fmt, j);
    /* (the value first: an expression brings #line directives, which may
     * not stand inside a macro's arguments) */
    sdk_em_start(em, "const real sdk_f%d = ", j);
    if (j < m->nobs) {
      sdk_em_puts(em, "(real)");
      sdk_cg_expr(em, o, m->obs[j], m->obs_line[j]);
    } else {
      snprintf(x, sizeof x, x_fmt, j - m->nobs);
      sdk_em_puts(em, x);
    }
    sdk_em_puts(em, ";\n");
    sdk_em_line(em, "SDK_TAVG_ADD(%s, %s, sdk_f%d);", a, b, j);
  }
  sdk_em_close(em);
}

/* CUDA: expression sdk_k of path p (the value sdk_observe stores,
 * (real)EXPR), which sdk_observe_units (kernels/observe_units.cuh, after the
 * module's reductions, whose device functions it uses) reduces where it is
 * evaluated, never storing it */
static void emit_value_fn(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_em_open(em, "static __device__ __forceinline__ double sdk_obs_value_(int sdk_k, "
                  "const real *__restrict__ st, sdk_i64 npad, const real *__restrict__ sv, "
                  "sdk_i64 g, sdk_i64 step, sdk_i64 p)");
  sdk_em_line(em, "(void)sv; (void)g; (void)npad;");
  emit_bindings(em, o);
  for (int k = 0; k < m->nobs; k++) {
    sdk_em_start(em, "if (sdk_k == %d) return (double)(real)", k);
    sdk_cg_expr(em, o, m->obs[k], m->obs_line[k]);
    sdk_em_puts(em, ";\n");
  }
  for (int k = m->nobs; k < sdk_cg_nobs_eval(o); k++) {
    sdk_em_line(em, "if (sdk_k == %d)", k);
    emit_diff(em, o, k, "return (double)");
  }
  sdk_em_line(em, "return 0.0;");
  sdk_em_close(em);
}

void sdk_cg_observe_units(sdk_emit *em, const sdk_codegen_opts *o) {
  if (o->target != SDK_TARGET_CUDA || sdk_cg_nobs_eval(o) == 0) return;
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "#define SDK_OBS_GROUP %d", SDK_OBS_GROUP);
  emit_value_fn(em, o);
  sdk_em_kernel(em, sdk_embedded_observe_units_cuh);
}

void sdk_cg_observe(sdk_emit *em, const sdk_codegen_opts *o) {
  if (sdk_cg_nobs_eval(o) == 0) return;
  sdk_em_puts(em, "\n");
  sdk_em_line(em, "#define SDK_NOBS %d", sdk_cg_nobs_eval(o));
  if (o->target == SDK_TARGET_CPU) {
    sdk_em_open(em, "void sdk_observe(const real *restrict st, sdk_i64 npad, "
                    "const real *restrict sv, sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, "
                    "sdk_i64 step, real *restrict out, int nthreads)");
    sdk_em_line(em, "#pragma omp parallel for schedule(static) num_threads(sdk_threads(nthreads))");
    sdk_em_open(em, "for (sdk_i64 p = 0; p < npad; p++)");
  } else {
    sdk_em_line(em, "extern \"C\" __global__ void __launch_bounds__(SDK_TPB)");
    sdk_em_open(em, "sdk_observe(const real *__restrict__ st, sdk_i64 npad, "
                    "const real *__restrict__ sv, sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, "
                    "sdk_i64 step, real *__restrict__ out)");
    sdk_em_line(em, "const sdk_i64 p = (sdk_i64)blockIdx.x * SDK_TPB + threadIdx.x;");
    sdk_em_open(em, "if (p < npad)");
  }
  emit_path(em, o);
  sdk_em_close(em);
  sdk_em_close(em);
}
