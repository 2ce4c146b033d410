/* The step of an explicit stochastic Runge-Kutta scheme (scheme.h gives the
 * form), from the scheme's coefficient table. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/boundary.h"
#include "codegen/comp_vars.h"
#include "codegen/correction.h"
#include "codegen/delay.h"
#include "codegen/expr_emit.h"
#include "codegen/scheme.h"

/* Bind the model's variable names to the values of `fmt` (with the
 * variable's index) and t to the stage time t_n + c dt.  (The bindings sit
 * at the level of the braces of their block, as they always have: the
 * generated text is compared byte for byte.) */
static void bind_vars(sdk_emit *em, const sdk_codegen_opts *o, const char *fmt, double c) {
  const sdk_model *m = o->model;
  em->depth--;
  for (int v = 0; v < m->nvars; v++) {
    sdk_em_start(em, "const real ");
    sdk_em_name(em, m->vars[v]);
    sdk_em_puts(em, " = ");
    sdk_em_printf(em, fmt, v);
    sdk_em_puts(em, "; (void)");
    sdk_em_name(em, m->vars[v]);
    sdk_em_puts(em, ";\n");
  }
  sdk_cg_bind_time_at(em, o, c, SDK_CG_TIME_ABS | SDK_CG_TIME_PHASE);
  sdk_cg_delay_bind(em, o, c);
  em->depth++;
}

/* The stage whose time is t_n + dt when the scheme averages a time-dependent
 * noise amplitude over the step and noise expression e depends on t, else 0. */
static int average_stage(const sdk_scheme_type *s, const sdk_expr *e) {
  if (!s->srk->noise_average || !sdk_expr_uses(e, SDK_SYM_TIME)) return 0;
  for (int i = 1; i < s->stages; i++)
    if (s->srk->c[i] == 1) return i;
  return 0;
}

/* The stage where a scheme that averages its noise amplitude over the step
 * (noise_average) evaluates it a second time when the noise depends on the
 * state: the stage at t_n + dt, whose input H = X_n + dt a + b(X_n) dW is
 * the Euler predictor, so that the update's (b(X_n) + b(H)) / 2 dW is the
 * stochastic Heun method, whose limit is the Stratonovich solution
 * (Kloeden & Platen 1992, Sec. 11.1; Ruemelin 1982).  0: none. */
static int heun_stage(const sdk_codegen_opts *o) {
  const sdk_scheme_type *s = o->scheme;
  if (!o->model->multiplicative || !s->srk->noise_average) return 0;
  for (int i = 1; i < s->stages; i++)
    if (s->srk->c[i] == 1 && s->srk->B[i] == 1) return i;
  return 0;
}

/* Does variable v get the Milstein term (a scheme with it, and noise whose
 * derivative with respect to v is not 0)? */
static int milstein_var(const sdk_codegen_opts *o, int v) {
  const sdk_expr *d = o->dnoise ? o->dnoise[v] : NULL;
  return o->scheme->srk->milstein && d && !(d->kind == SDK_E_NUM && d->num == 0);
}

/* noise increments b(X_n, t_n) sqrt(dt) psi (b averaged over t_n and
 * t_n + dt with noise_average): sdk_w<v> = b sqrt(dt) and each use is
 * sdk_w<v> * sdk_z<j>, so that it fuses into an FMA (for additive noise
 * sdk_w is a compile-time constant) */
/* "real W; W = b sqrt(dt)" for the coefficient b of variable v's noise, W
 * the local named `w` (b averaged over the step where the scheme says so) */
/* the low parts of the split variables at X_n (stage 0's sdk_sl<v>, as
 * emit_stage defines them), for e evaluated there outside a stage (none
 * where e reads no variable) */
static void bind_low(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e) {
  if (!sdk_expr_uses(e, SDK_SYM_VAR)) return;
  for (int v = 0; v < o->model->nvars; v++)
    if (sdk_cg_split_var(o, v))
      sdk_em_line(em, "const real sdk_sl%d = sdk_c%d; (void)sdk_sl%d;", v, v, v);
}

/* does e occur in some drift (as a whole or a subexpression)? */
static int has_sub(const sdk_expr *t, const sdk_expr *e) {
  if (!t) return 0;
  if (sdk_expr_equal(t, e)) return 1;
  for (int i = 0; i < t->nargs; i++)
    if (has_sub(t->arg[i], e)) return 1;
  return 0;
}
static int drifts_have(const sdk_model *m, const sdk_expr *e) {
  for (int v = 0; v < m->nvars; v++)
    if (has_sub(m->drift[v], e)) return 1;
  return 0;
}

static void emit_w(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int v,
                   const sdk_expr *b, const char *w) {
  const sdk_model *m = o->model;
  const sdk_scheme_type *s = o->scheme;
  sdk_em_line(em, "real %s;", w);
  sdk_em_block(em);
  bind_vars(em, o, "sdk_x%d", 0);
  bind_low(em, o, b);
  sdk_em_start(em, "%s = ", w);
  /* (state-dependent noise: averaged at the Heun stage instead) */
  int se = heun_stage(o) > 0 ? 0 : average_stage(s, b);
  /* (c_0 = 0: the noise is evaluated at t_n, with the values of stage 0;
   * a product K x of a split x as the drift's, sqrt(dt) folded into K
   * (expr_emit.h) where nothing else needs K x itself: the Milstein factor,
   * the Heun stage and a drift corrected for the calculus (b b') do, and
   * there the fold measured more instructions (srk2 on gbm 33.50 -> 34.62
   * a step, euler on a Stratonovich gbm 24.50 -> 24.56)) */
  if (se == 0 && heun_stage(o) == 0 && !milstein_var(o, v) && sdk_cg_split_product(o, b) &&
      !drifts_have(m, b)) {
    sdk_cg_expr_split_scaled(em, o, b, m->noise_line[v], h, 0, s->srk->c[0], "sdk_sqdt");
    sdk_em_puts(em, ";\n");
  } else {
    sdk_cg_expr_split(em, o, b, m->noise_line[v], h, 0, s->srk->c[0]);
    sdk_em_puts(em, se > 0 ? ";\n" : " * sdk_sqdt;\n");
  }
  sdk_em_close(em);
  if (se > 0) {
    /* b(t) of additive noise averaged over the step (scheme_srk2.c: weak order 2) */
    sdk_em_block(em);
    bind_vars(em, o, "sdk_x%d", s->srk->c[se]);
    sdk_em_start(em, "%s = (real)0.5 * (%s + ", w, w);
    sdk_cg_expr_at(em, o, b, m->noise_line[v], h, se, s->srk->c[se]);
    sdk_em_puts(em, ") * sdk_sqdt;\n");
    sdk_em_close(em);
  }
}

static void emit_noise(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int v) {
  const sdk_model *m = o->model;
  const sdk_scheme_type *s = o->scheme;
  char w[32];
  snprintf(w, sizeof w, "sdk_w%d", v);
  emit_w(em, o, h, v, m->noise[v], w);
  /* the Milstein term's factor 1/2 b db/dx dt (at X_n, t_n), multiplying
   * psi^2 - 1 = (dW^2 - dt) / dt in the update */
  if (milstein_var(o, v)) {
    sdk_em_line(em, "real sdk_mc%d;", v);
    sdk_em_block(em);
    bind_vars(em, o, "sdk_x%d", 0);
    bind_low(em, o, m->noise[v]);
    sdk_em_start(em, "sdk_mc%d = (real)0.5 * (", v);
    sdk_cg_expr_split(em, o, m->noise[v], m->noise_line[v], h, 0, s->srk->c[0]);
    sdk_em_puts(em, ") * (");
    sdk_cg_expr_split(em, o, o->dnoise[v], m->noise_line[v], h, 0, s->srk->c[0]);
    sdk_em_puts(em, ") * sdk_dt;\n");
    sdk_em_close(em);
  }
  /* the noise increment's scale, for the bridge correction (boundary.c) */
  if (sdk_cg_bridge_var(o, v)) sdk_em_line(em, "sdk_bw%d = sdk_w%d;", v, v);
}

/* Shared Wiener processes ([model] wiener, model.h): the step's increments
 * sqrt(dt) sdk_y<k>, correlated standard values from the independent sdk_z<k>
 * by the Cholesky factor L of the correlation matrix (the recursion of
 * sdk_model_correlation, a zero pivot giving a zero column), and variable
 * v's noise sum_k b_vk sqrt(dt) sdk_y<k>: its terms sdk_w<v>_<k> =
 * b_vk sqrt(dt), at (X_n, t_n) or averaged as emit_noise does. */
static void emit_correlated(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nw = m->nwiener;
  if (!m->corr) {
    for (int k = 0; k < nw; k++)
      sdk_em_line(em, "const real sdk_y%d = sdk_z%d;", k, k);
    return;
  }
  for (int j = 0; j < nw; j++) {
    /* the pivot d_j = 1 - sum_k L_jk^2, then column j below it */
    sdk_em_start(em, "const real sdk_d%d = (real)1", j);
    for (int k = 0; k < j; k++)
      sdk_em_printf(em, " - sdk_L%d_%d * sdk_L%d_%d", j, k, j, k);
    sdk_em_puts(em, ";\n");
    sdk_em_line(em, "const real sdk_L%d_%d = sdk_d%d > (real)1e-12 ? %s(sdk_d%d) : (real)0;", j, j,
                j, o->single ? "sqrtf" : "sqrt", j);
    for (int i = j + 1; i < nw; i++) {
      const sdk_expr *c = m->corr[i * nw + j];
      sdk_em_start(em, "const real sdk_L%d_%d = sdk_L%d_%d > (real)0 ? ((", i, j, j, j);
      if (c)
        sdk_cg_expr(em, o, c, m->corr_line);
      else
        sdk_em_puts(em, "(real)0");
      sdk_em_puts(em, ")");
      for (int k = 0; k < j; k++)
        sdk_em_printf(em, " - sdk_L%d_%d * sdk_L%d_%d", i, k, j, k);
      sdk_em_printf(em, ") / sdk_L%d_%d : (real)0;\n", j, j);
    }
  }
  for (int k = 0; k < nw; k++) {
    sdk_em_start(em, "const real sdk_y%d = ", k);
    for (int l = 0; l <= k; l++)
      sdk_em_printf(em, "%ssdk_L%d_%d * sdk_z%d", l ? " + " : "", k, l, l);
    sdk_em_puts(em, ";\n");
  }
}

static void emit_noise_shared(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int v) {
  const sdk_model *m = o->model;
  int nw = m->nwiener;
  for (int k = 0; k < nw; k++) {
    if (!m->wcoef[v * nw + k]) continue;
    char w[48];
    snprintf(w, sizeof w, "sdk_w%d_%d", v, k);
    emit_w(em, o, h, v, m->wcoef[v * nw + k], w);
  }
}

/* variable v's noise increment: "sdk_w<v> * sdk_z<j>" (diagonal) or the sum
 * over its Wiener processes; heun: b averaged over X_n and the predictor */
static void emit_wz(sdk_emit *em, const sdk_codegen_opts *o, int v, const int *zidx, int heun) {
  const sdk_model *m = o->model;
  if (m->nwiener == 0) {
    if (heun)
      sdk_em_printf(em, "(real)0.5 * (sdk_w%d + sdk_wh%d) * sdk_z%d", v, v, zidx[v]);
    else
      sdk_em_printf(em, "sdk_w%d * sdk_z%d", v, zidx[v]);
    return;
  }
  int nw = m->nwiener, n = 0;
  for (int k = 0; k < nw; k++)
    n += m->wcoef[v * nw + k] != NULL;
  sdk_em_puts(em, heun ? "(real)0.5 * (" : n > 1 ? "(" : "");
  for (int k = 0, t = 0; k < nw; k++) {
    if (!m->wcoef[v * nw + k]) continue;
    if (heun)
      sdk_em_printf(em, "%s(sdk_w%d_%d + sdk_wh%d_%d) * sdk_y%d", t++ ? " + " : "", v, k, v, k, k);
    else
      sdk_em_printf(em, "%ssdk_w%d_%d * sdk_y%d", t++ ? " + " : "", v, k, k);
  }
  sdk_em_puts(em, heun || n > 1 ? ")" : "");
}

/* " + (sdk_dt * W) * sdk_k<i>_<v>": (dt * W) folds to one constant, one FMA per term */
static void emit_drift_term(sdk_emit *em, double w, int i, int v) {
  sdk_em_puts(em, " + (sdk_dt");
  if (w != 1) {
    sdk_em_puts(em, " * ");
    sdk_em_number(em, w);
  }
  sdk_em_printf(em, ") * sdk_k%d_%d", i, v);
}

/* stage i: its input H_i, then the drift there, sdk_k<i>_<v> */
static void emit_stage(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int i,
                       const int *zidx) {
  const sdk_model *m = o->model;
  const sdk_srk_table *t = o->scheme->srk;
  int nv = m->nvars;
  sdk_em_start(em, "real");
  for (int v = 0; v < nv; v++)
    sdk_em_printf(em, "%s sdk_k%d_%d", v ? "," : "", i, v);
  sdk_em_puts(em, ";\n");
  for (int v = 0; i > 0 && i == heun_stage(o) && v < nv; v++)
    for (int k = 0; m->noise[v] && k < (m->nwiener ? m->nwiener : 1); k++) {
      if (!m->nwiener)
        sdk_em_line(em, "real sdk_wh%d;", v);
      else if (m->wcoef[v * m->nwiener + k])
        sdk_em_line(em, "real sdk_wh%d_%d;", v, k);
    }
  sdk_em_block(em);
  /* H_i = x + terms, and of a split variable also its low part l + terms
   * (H_i = h + that: expr_emit.h, sdk_cg_expr_split; whichever the drift
   * does not read the compiler drops) */
  for (int v = 0; v < nv; v++)
    for (int lo = 0; lo < 1 + sdk_cg_split_var(o, v); lo++) {
      sdk_em_start(em, lo ? "const real sdk_sl%d = sdk_c%d" : "const real sdk_h%d = sdk_x%d", v, v);
      for (int j = 0; j < i; j++)
        if (t->A[i][j] != 0) emit_drift_term(em, t->A[i][j], j, v);
      if (m->noise[v] && t->B[i] != 0) {
        sdk_em_puts(em, " + ");
        if (t->B[i] != 1) {
          sdk_em_number(em, t->B[i]);
          sdk_em_puts(em, " * ");
        }
        emit_wz(em, o, v, zidx, 0);
      }
      sdk_em_puts(em, lo ? "; (void)sdk_sl" : ";\n");
      if (lo) sdk_em_printf(em, "%d;\n", v);
    }
  bind_vars(em, o, "sdk_h%d", t->c[i]);
  sdk_cg_corr_stage(em, o, h, i, t->c[i]); /* (the locals of a corrected drift) */
  for (int v = 0; v < nv; v++) {
    sdk_em_start(em, "sdk_k%d_%d = ", i, v);
    sdk_cg_expr_split(em, o, m->drift[v], m->drift_line[v], h, i, t->c[i]);
    sdk_em_puts(em, ";\n");
  }
  /* the Heun stage: b at the predictor, sdk_wh<v> = b(H, t_n + dt) sqrt(dt) */
  for (int v = 0; i > 0 && i == heun_stage(o) && v < nv; v++) {
    if (!m->noise[v]) continue;
    for (int k = 0; k < (m->nwiener ? m->nwiener : 1); k++) {
      const sdk_expr *b = m->nwiener ? m->wcoef[v * m->nwiener + k] : m->noise[v];
      if (!b) continue;
      if (m->nwiener)
        sdk_em_start(em, "sdk_wh%d_%d = ", v, k);
      else
        sdk_em_start(em, "sdk_wh%d = ", v);
      sdk_cg_expr_split(em, o, b, m->noise_line[v], h, i, t->c[i]);
      sdk_em_puts(em, " * sdk_sqdt;\n");
    }
  }
  sdk_em_close(em);
}

/* X_{n+1} of variable v, as "sdk_x = sdk_x <terms>" where the caller emits
 * the terms (" + ...") between sdk_cg_update_open and _close (scheme.h); compensated: a
 * Kahan sum of the increment into x (codegen.h), deferred: l += incr and
 * x = h + l (the kernel renormalises) */
void sdk_cg_update_open(sdk_emit *em, const sdk_codegen_opts *o, int v) {
  if (sdk_cg_comp_var(o, v)) {
    sdk_em_block(em);
    sdk_em_start(em, "const real sdk_y = SDK_F2S_OPQ(sdk_c%d", v);
  } else {
    sdk_em_start(em, "sdk_x%d = sdk_x%d", v, v);
  }
}

void sdk_cg_update_close(sdk_emit *em, const sdk_codegen_opts *o, int v) {
  if (!sdk_cg_comp_var(o, v)) {
    sdk_em_puts(em, ";\n");
    return;
  }
  sdk_em_puts(em, ");\n");
  if (o->comp_defer) {
    sdk_em_line(em, "sdk_c%d = sdk_y;", v);
    sdk_em_line(em, "sdk_x%d = SDK_OPQ(sdk_hi%d + sdk_y);", v, v);
  } else {
    sdk_em_block(em); /* (SDK_F2S_BEGIN: kernels/opaque.h) */
    sdk_em_line(em, "SDK_F2S_BEGIN");
    sdk_em_line(em, "const real sdk_s = SDK_F2S_OPQ(sdk_x%d + sdk_y);", v);
    sdk_em_line(em, "sdk_c%d = sdk_y - SDK_F2S_OPQ(sdk_s - sdk_x%d);", v, v);
    sdk_em_line(em, "sdk_x%d = sdk_s;", v);
    sdk_em_close(em);
  }
  sdk_em_close(em);
}

static void emit_update(sdk_emit *em, const sdk_codegen_opts *o, int v, const int *zidx) {
  const sdk_srk_table *t = o->scheme->srk;
  sdk_cg_update_open(em, o, v);
  for (int i = 0; i < o->scheme->stages; i++)
    if (t->alpha[i] != 0) emit_drift_term(em, t->alpha[i], i, v);
  if (o->model->noise[v]) {
    sdk_em_puts(em, " + ");
    emit_wz(em, o, v, zidx, heun_stage(o) > 0);
  }
  if (milstein_var(o, v))
    sdk_em_printf(em, " + sdk_mc%d * (sdk_z%d * sdk_z%d - (real)1)", v, zidx[v], zidx[v]);
  sdk_cg_update_close(em, o, v);
}

void sdk_srk_emit_step(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h) {
  const sdk_model *m = o->model;
  int nv = m->nvars;
  /* zidx[v]: which noise value (sdk_z<j>) drives noisy variable v */
  int *zidx = malloc((size_t)(nv > 0 ? nv : 1) * sizeof *zidx);
  if (!zidx) {
    em->b->oom = 1; /* reported by whoever takes the text */
    return;
  }
  sdk_em_block(em);
  if (m->nwiener > 0) emit_correlated(em, o);
  sdk_cg_corr_params(em, o);
  for (int v = 0, j = 0; v < nv; v++) {
    if (!m->noise[v]) continue;
    zidx[v] = j++;
    if (m->nwiener > 0)
      emit_noise_shared(em, o, h, v);
    else
      emit_noise(em, o, h, v);
  }
  for (int i = 0; i < o->scheme->stages; i++)
    emit_stage(em, o, h, i, zidx);
  for (int v = 0; v < nv; v++)
    emit_update(em, o, v, zidx);
  sdk_em_close(em);
  free(zidx);
}

/* The drifts of every variable at the values of `fmt` and stage time c,
 * into sdk_k<i>_<v> (declared here) */
static void emit_drifts(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int i,
                        const char *fmt, double c) {
  const sdk_model *m = o->model;
  sdk_em_start(em, "real");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_printf(em, "%s sdk_k%d_%d", v ? "," : "", i, v);
  sdk_em_puts(em, ";\n");
  sdk_em_block(em);
  bind_vars(em, o, fmt, c);
  for (int v = 0; v < m->nvars; v++) {
    sdk_em_start(em, "sdk_k%d_%d = ", i, v);
    sdk_cg_expr_at(em, o, m->drift[v], m->drift_line[v], h, i, c);
    sdk_em_puts(em, ";\n");
  }
  sdk_em_close(em);
}

void sdk_weak2_emit_step(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h) {
  const sdk_model *m = o->model;
  int nv = m->nvars;
  if (m->nwiener > 0) {
    /* shared Wiener processes: additive noise only (codegen.c refuses the
     * rest), for which this scheme is srk2's form (scheme_weak2.c) */
    sdk_scheme_type s2 = *o->scheme;
    s2.srk = &sdk_srk2_table;
    sdk_codegen_opts o2 = *o;
    o2.scheme = &s2;
    sdk_srk_emit_step(em, &o2, h);
    return;
  }
  int *zidx = malloc((size_t)(nv > 0 ? nv : 1) * sizeof *zidx);
  if (!zidx) {
    em->b->oom = 1;
    return;
  }
  sdk_em_block(em);
  /* a and b sqrt(dt) at (X_n, t_n) */
  emit_drifts(em, o, h, 0, "sdk_x%d", 0);
  for (int v = 0, j = 0; v < nv; v++) {
    if (!m->noise[v]) continue;
    zidx[v] = j++;
    sdk_em_line(em, "real sdk_w%d;", v);
    sdk_em_block(em);
    bind_vars(em, o, "sdk_x%d", 0);
    sdk_em_start(em, "sdk_w%d = ", v);
    sdk_cg_expr_at(em, o, m->noise[v], m->noise_line[v], h, 0, 0);
    sdk_em_puts(em, " * sdk_sqdt;\n");
    sdk_em_close(em);
    if (sdk_cg_bridge_var(o, v)) sdk_em_line(em, "sdk_bw%d = sdk_w%d;", v, v);
  }
  /* the predictor X_n + a dt + b dW, a there at t_n + dt */
  for (int v = 0; v < nv; v++) {
    sdk_em_start(em, "const real sdk_p%d = sdk_x%d + sdk_dt * sdk_k0_%d", v, v, v);
    if (m->noise[v]) sdk_em_printf(em, " + sdk_w%d * sdk_z%d", v, zidx[v]);
    sdk_em_puts(em, ";\n");
  }
  emit_drifts(em, o, h, 1, "sdk_p%d", 1);
  /* b sqrt(dt) at the supporting values X_n + a dt +- b sqrt(dt) (component
   * v only) and t_n + dt: sdk_bp<v>, sdk_bm<v>; for noise that does not
   * depend on the state both are b(t_n + dt) sqrt(dt) */
  for (int v = 0; v < nv; v++) {
    if (!m->noise[v]) continue;
    int state = sdk_expr_uses(m->noise[v], SDK_SYM_VAR);
    sdk_em_line(em, "real sdk_bp%d, sdk_bm%d;", v, v);
    for (int sgn = 0; sgn < (state ? 2 : 1); sgn++) {
      sdk_em_block(em);
      for (int w = 0; w < nv; w++) {
        sdk_em_start(em, "const real sdk_r%d = sdk_x%d + sdk_dt * sdk_k0_%d", w, w, w);
        if (w == v && state) sdk_em_printf(em, " %c sdk_w%d", sgn ? '-' : '+', v);
        sdk_em_puts(em, ";\n");
      }
      bind_vars(em, o, "sdk_r%d", 1);
      sdk_em_start(em, "sdk_b%c%d = ", sgn ? 'm' : 'p', v);
      sdk_cg_expr_at(em, o, m->noise[v], m->noise_line[v], h, 1, 1);
      sdk_em_puts(em, " * sdk_sqdt;\n");
      if (!state) sdk_em_line(em, "sdk_bm%d = sdk_bp%d;", v, v);
      sdk_em_close(em);
    }
  }
  /* the update (Kloeden & Platen 1992, (15.1.1) per component) */
  for (int v = 0; v < nv; v++) {
    char incr[512];
    int n =
        snprintf(incr, sizeof incr, "(sdk_dt * 0.5%s) * sdk_k0_%d + (sdk_dt * 0.5%s) * sdk_k1_%d",
                 o->single ? "f" : "", v, o->single ? "f" : "", v);
    if (m->noise[v] && n > 0 && (size_t)n < sizeof incr)
      snprintf(incr + n, sizeof incr - (size_t)n,
               " + (real)0.25 * (sdk_bp%d + sdk_bm%d + (real)2 * sdk_w%d) * sdk_z%d"
               " + (real)0.25 * (sdk_bp%d - sdk_bm%d) * (sdk_z%d * sdk_z%d - (real)1)",
               v, v, v, zidx[v], v, v, zidx[v], zidx[v]);
    sdk_cg_update_open(em, o, v);
    sdk_em_printf(em, " + %s", incr);
    sdk_cg_update_close(em, o, v);
  }
  sdk_em_close(em);
  free(zidx);
}
