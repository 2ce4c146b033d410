/* [events] NAME = when COND : VAR = EXPR [, VAR = EXPR] (model/model.h):
 * resets of a path when it crosses a level, emitted after the step (and
 * after [jumps] and [dichotomous]) by both path drivers (events.c calls
 * sdk_cg_resets from sdk_cg_events).
 *
 * What is detected.  COND is VAR OP E as in [boundaries] (E in the
 * parameters).  Event k fires in step n -> n + 1 when the variable was
 * outside COND at the step start (x_n) and either (a) is inside COND at the
 * step end (x_{n+1}), or (b) with the Brownian-bridge correction (on by
 * default, --no-bridge-correction) the Brownian bridge between x_n and
 * x_{n+1} touched E, with probability p = exp(-2 d0 d1 / w^2) (d0, d1 the
 * distances of x_n, x_{n+1} from E, w = g sqrt(dt) the noise's standard
 * deviation over the step with g frozen at the step start: the same
 * probability, assumptions and sdk_bw<v> of the step as the absorbing
 * boundaries', codegen/boundary.c).  Only a crossing counts: a path that
 * starts a step inside COND (a reset that left it there, or an initial
 * value there) fires again only after it has left COND and crossed back,
 * so an event fires at most once per step and never loops; a reset that
 * leaves the variable inside COND is counted (row 8) and reported by
 * --observe events, and one whose value is in the parameters alone is
 * refused before the run (model/events_model.c).
 *
 * When it crossed.  The crossing time is t_n + theta dt: theta = 1 (the step
 * end) without the bridge correction; with it, theta is drawn from the law
 * of the bridge's first hitting time of E given x_n and x_{n+1}: with s the
 * hitting time in a step h and the substitution s = h x / (1 + x), the
 * density of x is proportional to x^(-3/2) exp(-(d0^2 / x + d1^2 x) / (2
 * w^2)), the inverse Gaussian law of mean d0 / |d1| and shape d0^2 / w^2
 * (from the first-passage density of Brownian motion times the transition
 * density from E to x_{n+1}); for Brownian motion with constant drift and
 * noise both the crossing step and this time are exact, so the intervals
 * are exact in law (kernels/reset_draws.h draws it).  A variable without
 * noise of its own: linear interpolation, theta = d0 / (d0 + |d1|).
 *
 * The reset.  All reset expressions of the events that fired are evaluated
 * at the state at the step end (before any reset; t = t_{n+1}), then
 * assigned in model order (a later event wins for a variable both reset),
 * exactly (the compensated update's carried error set to 0).  The reset
 * takes effect at the step end t_{n+1}: the path is not integrated between
 * the crossing and t_{n+1}, a dead time of (1 - theta) dt per event.
 *
 * The record (rows: resets.h, SDK_CG_RESET_ROWS per event, after the time
 * averages; codegen.h).  The count (mod 2^20 and >> 20) and the step of the
 * last reset m = n + 1 (likewise), exact in single precision; from the
 * second event of a path on, the interval u = (n + theta) - m_prev in
 * steps (the crossing time since the previous reset, the time from the
 * start to the first event is no interval) into the sums of u and u^2 (a
 * value and its remainder in `real`, added in double) and into bin 0 for u
 * < 1, else bin 1 + floor(2 log2 u), the last bin open (two bins per
 * octave of steps, SDK_CG_RESET_BINS of them: the bins do not depend on
 * the run, so a resumed or longer run continues them).  All are carried
 * rows: checkpoints resume them bitwise.
 *
 * Random numbers: Philox (rng/philox.h) with domain 0's counter, event k at
 * step n of path P: blocks 2^61 + 2^56 + 2 (n NEV + k) and the next one
 * (NEV the events of the model; kernels/reset_draws.h says which words),
 * in [2^61 + 2^56, 2^61 + 2^57) while n NEV < 2^55 (steps below 2^44, NEV <= 8): above the coarse
 * path's bridge ([2^61, 2^61 + 2^55)), below the boundaries' and the other events' ranges (>=
 * 2^62); drawn only where needed, so every value depends on (seed, path, step) alone. */
#include "codegen/resets.h"

#include <stdio.h>

#include "codegen/boundary.h"
#include "codegen/codegen.h"
#include "codegen/common.h"
#include "codegen/events.h"
#include "codegen/expr_emit.h"

extern const char sdk_embedded_reset_draws_h[];

void sdk_cg_resets_defs(sdk_emit *em, const sdk_codegen_opts *o) {
  /* (--adaptive with [boundaries]: sdk_rs_cross, boundary.c) */
  if (o->model->nevent == 0 && !(o->adaptive && o->model->nbound > 0)) return;
  sdk_em_line(em, "#define SDK_RS_BINS %d", SDK_CG_RESET_BINS);
  sdk_em_kernel(em, sdk_embedded_reset_draws_h);
}

/* is v the variable of an event before event k (already handled)? */
static int seen(const sdk_model *m, int k, int v) {
  for (int i = 0; i < k; i++)
    if (m->event[i].cond.var == v) return 1;
  return 0;
}

void sdk_cg_resets_pre(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int k = 0; k < m->nevent; k++) {
    int v = m->event[k].cond.var;
    if (seen(m, k, v)) continue;
    sdk_em_line(em, "const real sdk_ex%d = sdk_x%d;", v, v);
    if (sdk_cg_bridge_var(o, v)) sdk_em_line(em, "real sdk_bw%d = 0;", v);
  }
}

static const char *op_of(const sdk_boundary *b) {
  return b->upper ? (b->strict ? ">" : ">=") : (b->strict ? "<" : "<=");
}

/* sdk_f<k> (fired) and sdk_th<k> (theta) of event k */
static void emit_detect(sdk_emit *em, const sdk_codegen_opts *o, int k, const char *step,
                        const char *path, const char *seed) {
  const sdk_model *m = o->model;
  const sdk_boundary *b = &m->event[k].cond;
  int v = b->var;
  sdk_em_block(em);
  sdk_em_start(em, "const real sdk_e = ");
  sdk_cg_expr(em, o, b->level, m->event[k].line);
  sdk_em_puts(em, ";\n");
  sdk_em_open(em, "if (!(sdk_ex%d %s sdk_e))", v, op_of(b));
  char x0[32], x1[32];
  snprintf(x0, sizeof x0, "sdk_ex%d", v);
  snprintf(x1, sizeof x1, "sdk_x%d", v);
  /* distances from the level, positive outside COND */
  sdk_em_line(em, "const double sdk_d0 = (double)%s - (double)%s;", b->upper ? "sdk_e" : x0,
              b->upper ? x0 : "sdk_e");
  sdk_em_line(em, "const double sdk_d1 = (double)%s - (double)%s;", b->upper ? "sdk_e" : x1,
              b->upper ? x1 : "sdk_e");
  char w[32];
  snprintf(w, sizeof w, "(double)sdk_bw%d", v);
  sdk_em_line(em,
              "sdk_f%d = sdk_rs_cross(%s, %s, 0x2100000000000000ull + ((sdk_u64)(%s) * %du + %du) "
              "* 2u, sdk_d0, sdk_d1, %s, sdk_x%d %s sdk_e, %d, &sdk_th%d);",
              k, seed, path, step, m->nevent, k, sdk_cg_bridge_var(o, v) ? w : "0.0", v, op_of(b),
              o->bridge, k);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* CPU, in the vector loop: x_n and w of each event's variable into the
 * block's arrays sdk_evx / sdk_evw (by event) and whether some event may
 * have fired (sdk_rs_cross's own tests: inside at the step end, or a bridge
 * probability above e^-50) into sdk_evc[i] and sdk_anye; the rest is the
 * scalar pass's (a draw or a record in the vector loop would make every lane
 * pay it: 20x slower, like boundary.c's bridge draws). */
static void emit_lane(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_em_line(em, "int sdk_c = 0;");
  for (int k = 0; k < m->nevent; k++) {
    const sdk_boundary *b = &m->event[k].cond;
    int v = b->var, bv = sdk_cg_bridge_var(o, v);
    char w[32];
    snprintf(w, sizeof w, bv ? "sdk_bw%d" : "0", v);
    sdk_em_line(em, "sdk_evx[%d][i] = sdk_ex%d; sdk_evw[%d][i] = %s;", k, v, k, w);
    sdk_em_block(em);
    sdk_em_start(em, "const real sdk_e = ");
    sdk_cg_expr(em, o, b->level, m->event[k].line);
    sdk_em_puts(em, ";\n");
    char x0[32], x1[32];
    snprintf(x0, sizeof x0, "sdk_ex%d", v);
    snprintf(x1, sizeof x1, "sdk_x%d", v);
    sdk_em_line(em, "const double sdk_d0 = (double)%s - (double)%s;", b->upper ? "sdk_e" : x0,
                b->upper ? x0 : "sdk_e");
    sdk_em_line(em, "const double sdk_d1 = (double)%s - (double)%s;", b->upper ? "sdk_e" : x1,
                b->upper ? x1 : "sdk_e");
    sdk_em_line(em, "const double sdk_w = (double)sdk_evw[%d][i], sdk_a = 2 * sdk_d0 * sdk_d1;", k);
    sdk_em_line(em,
                "sdk_c |= !(sdk_ex%d %s sdk_e) && ((sdk_x%d %s sdk_e) || (%d && sdk_w * sdk_w > 0 "
                "&& sdk_a < 50 * (sdk_w * sdk_w)));",
                v, op_of(b), v, op_of(b), o->bridge && bv);
    sdk_em_close(em);
  }
  sdk_em_line(em, "sdk_evc[i] = sdk_c;");
  sdk_em_line(em, "sdk_anye |= sdk_c;");
}

static void emit_full(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *path,
                      const char *seed);

void sdk_cg_resets(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *path,
                   const char *seed) {
  if (o->model->nevent == 0) return;
  if (o->target == SDK_TARGET_CPU)
    emit_lane(em, o);
  else
    emit_full(em, o, step, path, seed);
}

void sdk_cg_resets_lane_decls(sdk_emit *em, const sdk_codegen_opts *o) {
  int ne = o->model->nevent;
  sdk_em_line(em, "real sdk_evx[%d][SDK_BLK], sdk_evw[%d][SDK_BLK];", ne, ne);
  sdk_em_line(em, "int sdk_evc[SDK_BLK];");
  sdk_em_line(em, "int sdk_anye = 0;");
}

void sdk_cg_resets_scalar(sdk_emit *em, const sdk_codegen_opts *o, const char *step,
                          const char *path, const char *seed) {
  const sdk_model *m = o->model;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  sdk_em_open(em, "if (sdk_anye)");
  sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
  sdk_em_line(em, "if (!sdk_evc[i]) continue;");
  sdk_cg_params(em, o, "spv[%d][i]");
  sdk_cg_ppar_bind(em, o, "pps[%d][i]");
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "real sdk_x%d = xs[%d][i];", v, v);
  for (int v = 0; o->compensate && v < m->nvars; v++)
    sdk_em_line(em, "real sdk_c%d = cs[%d][i];", v, v);
  for (int k = 0; k < m->nevent; k++) {
    int v = m->event[k].cond.var;
    if (seen(m, k, v)) continue;
    sdk_em_line(em, "const real sdk_ex%d = sdk_evx[%d][i], sdk_bw%d = sdk_evw[%d][i];", v, k, v, k);
    sdk_em_line(em, "(void)sdk_bw%d;", v);
  }
  sdk_em_line(em, "real *const sdk_er = st + (sdk_i64)%d * npad + p0 + i;", l.evt);
  sdk_em_line(em, "const sdk_i64 sdk_ern = npad;");
  emit_full(em, o, step, path, seed);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "xs[%d][i] = sdk_x%d;", v, v);
  for (int v = 0; o->compensate && v < m->nvars; v++)
    sdk_em_line(em, "cs[%d][i] = sdk_c%d;", v, v);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* the detection, the resets and the records (CUDA: in the step; CPU: in
 * the scalar pass) */
static void emit_full(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *path,
                      const char *seed) {
  const sdk_model *m = o->model;
  sdk_em_block(em);
  for (int k = 0; k < m->nevent; k++)
    sdk_em_line(em, "int sdk_f%d = 0; double sdk_th%d = 1;", k, k);
  for (int k = 0; k < m->nevent; k++)
    emit_detect(em, o, k, step, path, seed);
  sdk_em_start(em, "if (sdk_f0");
  for (int k = 1; k < m->nevent; k++)
    sdk_em_printf(em, " | sdk_f%d", k);
  sdk_em_puts(em, ") {\n");
  em->depth++;
  /* the resets' values at the step end, before any is assigned */
  for (int v = 0; v < m->nvars; v++) {
    sdk_em_start(em, "const real ");
    sdk_em_name(em, m->vars[v]);
    sdk_em_printf(em, " = sdk_x%d; (void)", v);
    sdk_em_name(em, m->vars[v]);
    sdk_em_puts(em, ";\n");
  }
  char n1[96];
  snprintf(n1, sizeof n1, "(sdk_i64)(%s) + 1", step);
  sdk_cg_step_time(em, o, n1, "_ev");
  sdk_cg_bind_time(em, o, "sdk_t0_ev", "sdk_tp0_ev");
  sdk_em_line(em, "(void)sdk_t;");
  for (int k = 0; k < m->nevent; k++)
    for (int j = 0; j < m->event[k].nreset; j++) {
      sdk_em_line(em, "real sdk_r%d_%d = 0;", k, j);
      sdk_em_start(em, "if (sdk_f%d) sdk_r%d_%d = ", k, k, j);
      sdk_cg_expr(em, o, m->event[k].reset[j], m->event[k].line);
      sdk_em_puts(em, ";\n");
    }
  for (int k = 0; k < m->nevent; k++) {
    const sdk_event *ev = &m->event[k];
    sdk_em_open(em, "if (sdk_f%d)", k);
    for (int j = 0; j < ev->nreset; j++) {
      sdk_em_block(em);
      sdk_em_line(em, "const real sdk_nv = sdk_r%d_%d;", k, j);
      sdk_cg_event_set(em, o, ev->reset_var[j]);
      sdk_em_close(em);
    }
    sdk_em_line(em,
                "sdk_rs_record(sdk_er + (sdk_i64)%d * sdk_ern, sdk_ern, (sdk_i64)(%s), sdk_th%d);",
                k * SDK_CG_RESET_ROWS, step, k);
    sdk_em_close(em);
  }
  /* resets that left the variable inside COND (counted, reported) */
  for (int k = 0; k < m->nevent; k++) {
    const sdk_boundary *b = &m->event[k].cond;
    sdk_em_open(em, "if (sdk_f%d)", k);
    sdk_em_start(em, "const real sdk_e = ");
    sdk_cg_expr(em, o, b->level, m->event[k].line);
    sdk_em_puts(em, ";\n");
    sdk_em_line(em, "if (sdk_x%d %s sdk_e) sdk_er[(sdk_i64)%d * sdk_ern] += 1;", b->var, op_of(b),
                k * SDK_CG_RESET_ROWS + 8);
    sdk_em_close(em);
  }
  em->depth--;
  sdk_em_line(em, "}");
  sdk_em_close(em);
}

void sdk_cg_resets_init(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  if (l.evt < 0) return;
  sdk_em_line(em, "for (int j = 0; j < %d; j++) st[(sdk_i64)(%d + j) * npad + p] = 0;", l.nevt,
              l.evt);
}
