/* Boundaries of a path ([boundaries], model.h): reflection, absorption and
 * the Brownian-bridge correction, emitted around the step by both drivers.
 *
 * After every step n -> n + 1 of a path that is alive (status 0):
 *   1. every reflecting boundary VAR OP E whose condition holds at the step
 *      end mirrors the variable: x -> 2E - x (with the compensated update
 *      x + c -> (2E - x) - c; deferred: h -> 2E - h, l -> -l); a variable
 *      with reflecting walls on both sides that is still strictly outside
 *      one of them after the mirrors becomes NaN (emit_still_out);
 *   2. the absorbing boundaries: the first (in model order) whose condition
 *      holds at the step end absorbs the path; else, with the bridge
 *      correction (on by default, --no-bridge-correction), each in model
 *      order absorbs it with the probability that it crossed the level
 *      inside the step.  The hitting step recorded is n + 1: the hitting time is the
 *      END of the step in which the crossing happened, (n + 1) dt.
 * An absorbed path is frozen: its state (at the step end, where it was
 * absorbed) never changes again.  The CPU driver computes the step for
 * every lane of its vector loop and puts a frozen lane's state back, and
 * skips the rest of a launch for a block whose paths are all absorbed; the
 * CUDA thread of a path leaves its loop when the path is absorbed, and the
 * backend launches sdk_advance over the list of the paths still alive
 * (cuda_paths.c, sdk_live_list), so that absorbed paths cost nothing.  A path that starts on the
 * absorbing side is absorbed at step 0.
 *
 * The bridge correction.  Between x_n and x_{n+1} the path is taken as a
 * Brownian bridge with the noise coefficient frozen at the step start:
 * with distances d0 = |E - x_n|, d1 = |E - x_{n+1}| from the level (both on
 * the alive side) and w = g sqrt(dt) the noise increment's standard
 * deviation (g the noise coefficient of the boundary's variable the scheme
 * uses, at (x_n, t_n); srk2 with a time-dependent g: its average over the
 * step), the probability that the bridge touched E is (the reflection
 * principle)
 *     p = exp(-2 d0 d1 / w^2)
 * (e.g. Glasserman 2004, Sec. 6.4; Gobet 2000).  Assumptions: diagonal
 * noise (the variable has its own Wiener increment), drift and noise
 * coefficient frozen over the step (the drift shifts the bridge's end
 * points, not its fluctuation); a variable driven only through other
 * variables (no noise of its own) has w = 0 and p = 0: discrete monitoring
 * only.  Multiplicative noise works with g frozen at the step start.  With
 * the correction the error of escape times and splitting probabilities is
 * O(dt) instead of the O(sqrt dt) of discrete monitoring (the path leaves
 * unseen between steps; the bias is about 0.5826 sqrt(D dt) of extra
 * distance, Broadie, Glasserman & Kou 1997).
 *
 * The uniform U compared with p: Philox (rng/philox.h) in a domain of its
 * own, domain 4 = domain 0 offset by block 2^62: absorbing boundary b at
 * step n of path P uses lane b & 3 of block 2^62 + 2 n + (b >> 2) of P's
 * stream, drawn with domain 0's counter (domain 0's noise blocks are
 * k >> 2 < 2^61, k = n * nnoise + j with n < 2^53 and nnoise <= 1024, so
 * they never reach 2^62; at most 8 boundaries take two blocks per step).
 * The coupled coarse path of --dt-check (codegen.h: it has boundary rows
 * of its own, dtc_bound) takes the same steps 1 and 2 after each of its
 * steps, at 2 dt (w = g sqrt(2 dt), x_n its state at the step start), with
 * its own uniforms: the coarse step that ends with fine step n (n odd)
 * uses lane b & 3 of block 2^61 + 2 n + (b >> 2), in [2^61, 2^61 + 2^55):
 * above every noise block (< 2^61), below the fine path's bridge (2^62..)
 * and events' ranges (codegen/events.c), so the two copies never share a
 * draw; its hitting step is in fine steps, n + 1 (the end of the coarse
 * step, an even step), so both copies' times read tau = m dt.  A coarse
 * path absorbed is frozen as the fine one, independently: a path whose
 * fine copy is absorbed goes on while its coarse copy is alive (the CPU
 * block and the CUDA thread stop when both are).
 * (philox.h is embedded in every kernel, so the contract is written here
 * rather than there, leaving every other kernel's source unchanged.)  It is
 * drawn only when 2 d0 d1 < 50 w^2 (p > e^-50): paths far from a boundary
 * draw nothing, and a draw depends on (seed, path, step) alone.  On the CPU
 * the vector loop over a block's paths only computes -ln p (sdk_bp<k>) and a
 * scalar pass after it draws for the few paths that need it (a draw inside
 * the vector loop would be paid by every lane: 6x slower on a model whose
 * paths were all far from the boundaries); on the GPU the draw is inline.
 */
#include "codegen/boundary.h"

#include <stdio.h>

#include "codegen/codegen.h"
#include "codegen/expr_emit.h"

int sdk_cg_bridge_var(const sdk_codegen_opts *o, int v) {
  const sdk_model *m = o->model;
  /* (a [levy] path jumps: no bridge; sim/plan.c says so) */
  if (!o->bridge || !m->noise[v] || sdk_model_levy_of(m, v)) return 0;
  for (int b = 0; b < m->nbound; b++)
    if (m->bound[b].kind == SDK_BOUND_ABSORB && m->bound[b].var == v) return 1;
  for (int k = 0; k < m->nevent; k++) /* (the crossings of [events]: resets.c) */
    if (m->event[k].cond.var == v) return 1;
  return 0;
}

/* "const real sdk_e = (LEVEL);" */
static void emit_level(sdk_emit *em, const sdk_codegen_opts *o, const sdk_boundary *b) {
  sdk_em_start(em, "const real sdk_e = ");
  sdk_cg_expr(em, o, b->level, b->line);
  sdk_em_puts(em, ";\n");
}

/* the condition of boundary b on sdk_x<var> against sdk_e */
static const char *cmp_of(const sdk_boundary *b) {
  return b->upper ? (b->strict ? ">" : ">=") : (b->strict ? "<" : "<=");
}

void sdk_cg_bound_pre(sdk_emit *em, const sdk_codegen_opts *o, int save) {
  const sdk_model *m = o->model;
  if (m->nbound == 0 || o->adaptive) return; /* (adaptive: at every sub-step, below) */
  for (int v = 0; v < m->nvars; v++)
    if (sdk_cg_bridge_var(o, v))
      sdk_em_line(em, "const real sdk_bx%d = sdk_x%d; real sdk_bw%d = 0;", v, v, v);
  for (int v = 0; save && v < m->nvars; v++) {
    sdk_em_line(em, "const real sdk_o%d = sdk_x%d;", v, v);
    if (o->compensate) sdk_em_line(em, "const real sdk_oc%d = sdk_c%d;", v, v);
  }
}

static void emit_reflect(sdk_emit *em, const sdk_codegen_opts *o, const sdk_boundary *b) {
  int v = b->var;
  sdk_em_block(em);
  emit_level(em, o, b);
  sdk_em_open(em, "if (sdk_x%d %s sdk_e)", v, cmp_of(b));
  if (o->compensate && o->comp_defer) {
    sdk_em_line(em, "sdk_hi%d = (real)2 * sdk_e - sdk_hi%d;", v, v);
    sdk_em_line(em, "sdk_c%d = -sdk_c%d;", v, v);
    sdk_em_line(em, "sdk_x%d = sdk_hi%d + sdk_c%d;", v, v, v);
  } else {
    sdk_em_line(em, "sdk_x%d = (real)2 * sdk_e - sdk_x%d;", v, v);
    if (o->compensate) sdk_em_line(em, "sdk_c%d = -sdk_c%d;", v, v);
  }
  sdk_em_close(em);
  sdk_em_close(em);
}

/* Between two walls one mirror per wall does not bring back a step wider
 * than the gap: the path would stay outside, unseen, for ever.  Such a
 * state becomes NaN, so that the run reports it as a path that blew up
 * (with its hint of a smaller dt) instead of giving numbers that look
 * right.  Strictly outside only: a path mirrored onto a wall is inside. */
static void emit_still_out(sdk_emit *em, const sdk_codegen_opts *o, const sdk_boundary *b) {
  int v = b->var;
  sdk_em_block(em);
  emit_level(em, o, b);
  sdk_em_open(em, "if (sdk_x%d %s sdk_e)", v, b->upper ? ">" : "<");
  if (o->compensate && o->comp_defer) sdk_em_line(em, "sdk_hi%d = (real)0 / (real)0;", v);
  if (o->compensate) sdk_em_line(em, "sdk_c%d = (real)0 / (real)0;", v);
  sdk_em_line(em, "sdk_x%d = (real)0 / (real)0;", v);
  sdk_em_close(em);
  sdk_em_close(em);
}

/* the step end: the first absorbing boundary (model order) whose condition holds */
static void emit_absorb_end(sdk_emit *em, const sdk_codegen_opts *o, int k) {
  const sdk_boundary *b = &o->model->bound[k];
  sdk_em_open(em, "if (sdk_hit == 0)");
  emit_level(em, o, b);
  sdk_em_line(em, "if (sdk_x%d %s sdk_e) sdk_hit = %d;", b->var, cmp_of(b), k + 1);
  sdk_em_close(em);
}

/* "real sdk_u[4] = the uniforms of absorbing boundary k at step n" and the
 * test against probability `p` */
static void emit_draw(sdk_emit *em, const sdk_codegen_opts *o, int k, const char *n,
                      const char *path, const char *seed, const char *p, const char *then) {
  sdk_em_line(em, "real sdk_u[4];");
  sdk_em_line(em,
              "sdk_uniform4_%s(%s, %s, ((sdk_u64)1 << %d) + (sdk_u64)(%s) * 2u + %du, 0u, sdk_u);",
              o->single ? "f" : "d", seed, path, o->coarse ? 61 : 62, n, k >> 2);
  sdk_em_line(em, "if (sdk_u[%d] < %s) %s", k & 3, p, then);
}

/* The level of boundary b, the distances d0, d1 of the start (x0, a format
 * of the variable: "sdk_bx%d", the step's; "sdk_y%d", a sub-step's) and of
 * sdk_x<v> from it, a = 2 d0 d1 and q = w^2 (boundary.c's head) */
static void emit_bridge_aq(sdk_emit *em, const sdk_codegen_opts *o, const sdk_boundary *b,
                           const char *x0) {
  int v = b->var;
  char start[32];
  snprintf(start, sizeof start, x0, v);
  emit_level(em, o, b);
  if (b->upper)
    sdk_em_line(em, "const real sdk_d0 = sdk_e - %s, sdk_d1 = sdk_e - sdk_x%d;", start, v);
  else
    sdk_em_line(em, "const real sdk_d0 = %s - sdk_e, sdk_d1 = sdk_x%d - sdk_e;", start, v);
  sdk_em_line(em, "const real sdk_a = (real)2 * sdk_d0 * sdk_d1, sdk_q = sdk_bw%d * sdk_bw%d;", v,
              v);
}

/* The bridge of absorbing boundary k, for a path not absorbed at the step
 * end: its crossing probability p when not negligible; draw = 1 draws and
 * absorbs at once, draw = 0 leaves -ln p in sdk_bp<k> (-1: no draw) for a
 * later scalar pass (CPU: the draw is a branch the vector loop would take for
 * every lane). */
static void emit_absorb_bridge(sdk_emit *em, const sdk_codegen_opts *o, int k, const char *n,
                               const char *path, const char *seed, int draw) {
  const sdk_boundary *b = &o->model->bound[k];
  int v = b->var;
  if (!sdk_cg_bridge_var(o, v)) return;
  sdk_em_open(em, "if (sdk_hit == 0)");
  emit_bridge_aq(em, o, b, "sdk_bx%d");
  const char *ex = o->single ? "expf" : "exp";
  if (draw) {
    char then[32];
    snprintf(then, sizeof then, "sdk_hit = %d;", k + 1);
    sdk_em_open(em, "if (sdk_a < (real)50 * sdk_q)");
    char p[64];
    snprintf(p, sizeof p, "%s(-sdk_a / sdk_q)", ex);
    emit_draw(em, o, k, n, path, seed, p, then);
    sdk_em_close(em);
  } else {
    /* (the exponential too is left to the scalar pass: a vector loop would
     * call the scalar expf for every lane) */
    sdk_em_line(em, "if (sdk_a < (real)50 * sdk_q) sdk_bp%d = sdk_a / sdk_q;", k);
  }
  sdk_em_close(em);
}

void sdk_cg_bound_post(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *path,
                       const char *seed, int restore) {
  const sdk_model *m = o->model;
  if (m->nbound == 0 || o->adaptive) return;
  if (restore) {
    /* every lane computed the step; a frozen one takes its state back */
    sdk_em_open(em, "if (sdk_bs != (real)0)");
    for (int v = 0; v < m->nvars; v++) {
      sdk_em_line(em, "sdk_x%d = sdk_o%d;", v, v);
      if (o->compensate) sdk_em_line(em, "sdk_c%d = sdk_oc%d;", v, v);
    }
    sdk_em_close(em);
    sdk_em_open(em, "else");
  } else {
    /* (the CUDA thread of an absorbed path leaves its loop at once: every
     * step it takes is a live path's, no test of sdk_bs needed) */
    sdk_em_block(em);
  }
  for (int k = 0; k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_REFLECT) emit_reflect(em, o, &m->bound[k]);
  for (int k = 0; k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_REFLECT && sdk_model_reflect_both(m, m->bound[k].var))
      emit_still_out(em, o, &m->bound[k]);
  sdk_em_line(em, "int sdk_hit = 0;");
  for (int k = 0; k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_ABSORB) emit_absorb_end(em, o, k);
  for (int k = 0; k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_ABSORB) emit_absorb_bridge(em, o, k, n, path, seed, !restore);
  sdk_em_open(em, "if (sdk_hit != 0)");
  sdk_em_line(em, "sdk_bs = (real)sdk_hit;");
  sdk_em_line(em, "sdk_bl = (real)((sdk_i64)((%s) + 1) & 0xfffff);", n);
  sdk_em_line(em, "sdk_bh = (real)((sdk_i64)((%s) + 1) >> 20);", n);
  sdk_em_close(em);
  sdk_em_close(em);
}

int sdk_cg_bound_deferred(const sdk_codegen_opts *o) {
  int n = 0;
  if (o->adaptive) return 0;
  for (int k = 0; k < o->model->nbound; k++)
    n +=
        o->model->bound[k].kind == SDK_BOUND_ABSORB && sdk_cg_bridge_var(o, o->model->bound[k].var);
  return n;
}

void sdk_cg_bound_lane_decls(sdk_emit *em, const sdk_codegen_opts *o) {
  for (int k = 0; k < o->model->nbound && !o->adaptive; k++)
    if (o->model->bound[k].kind == SDK_BOUND_ABSORB && sdk_cg_bridge_var(o, o->model->bound[k].var))
      sdk_em_line(em, "real sdk_bp%d = -1;", k);
}

void sdk_cg_bound_lane_out(sdk_emit *em, const sdk_codegen_opts *o, const char *arr) {
  for (int k = 0; k < o->model->nbound && !o->adaptive; k++)
    if (o->model->bound[k].kind == SDK_BOUND_ABSORB && sdk_cg_bridge_var(o, o->model->bound[k].var))
      sdk_em_line(em, "%s[%d][i] = sdk_bp%d; sdk_anyp |= sdk_bp%d >= (real)0;", arr, k, k, k);
}

void sdk_cg_bound_draws(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *path,
                        const char *seed, const char *arr, const char *st) {
  sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
  for (int k = 0; k < o->model->nbound; k++) {
    if (o->model->bound[k].kind != SDK_BOUND_ABSORB ||
        !sdk_cg_bridge_var(o, o->model->bound[k].var))
      continue;
    sdk_em_open(em, "if (%s[0][i] == (real)0 && %s[%d][i] >= (real)0)", st, arr, k);
    char p[64], then[256];
    snprintf(p, sizeof p, "%s(-%s[%d][i])", o->single ? "expf" : "exp", arr, k);
    snprintf(then, sizeof then,
             "%s[0][i] = (real)%d, %s[1][i] = (real)((sdk_i64)((%s) + 1) & 0xfffff), "
             "%s[2][i] = (real)((sdk_i64)((%s) + 1) >> 20);",
             st, k + 1, st, n, st, n);
    emit_draw(em, o, k, n, path, seed, p, then);
    sdk_em_close(em);
  }
  sdk_em_close(em);
}

void sdk_cg_bound_init(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  if (m->nbound == 0) return;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  sdk_em_block(em);
  sdk_em_line(em, "int sdk_hit = 0;");
  for (int k = 0; k < m->nbound; k++) {
    const sdk_boundary *b = &m->bound[k];
    if (b->kind != SDK_BOUND_ABSORB) continue;
    sdk_em_open(em, "if (sdk_hit == 0)");
    emit_level(em, o, b);
    sdk_em_line(em, "if (sdk_x%d %s sdk_e) sdk_hit = %d;", b->var, cmp_of(b), k + 1);
    sdk_em_close(em);
  }
  sdk_em_line(em, "st[%d * npad + p] = (real)sdk_hit;", l.bound);
  sdk_em_line(em, "st[%d * npad + p] = 0;", l.bound + 1);
  sdk_em_line(em, "st[%d * npad + p] = 0;", l.bound + 2);
  if (l.dtc_bound >= 0) /* the coarse path (--dt-check) starts as the fine one */
    for (int r = 0; r < SDK_CG_BOUND_ROWS; r++)
      sdk_em_line(em, "st[%d * npad + p] = st[%d * npad + p];", l.dtc_bound + r, l.bound + r);
  sdk_em_close(em);
}

/* --adaptive (codegen/adaptive.c, kernels/adapt_step.h): the boundaries at
 * every sub-step [s, s + h] of a path's step n instead of after the step.
 * From the sub-step's start sdk_y<v> and its tentative end sdk_x<v> (with
 * sdk_bw<v> = g sqrt(h) of the bridge's variables): the first absorbing boundary whose condition
 * holds at the end (sdk_hit), and for each absorbing boundary with the bridge the exponent
 * sdk_bq<k> = 2 d0 d1 / w^2 = -ln p of its crossing probability p = exp(-2
 * d0 d1 / (g^2 h)), h the sub-step's own length (-1 where p < e^-50).
 * sdk_cross is set where a boundary was reached at the end or p > e^-QCROSS
 * (SDK_ADAPT_QCROSS): the controller then takes the sub-step again, shorter
 * (adaptive.c, which refuses reflecting boundaries).  An accepted sub-step then draws
 * (sdk_cg_bound_sub_hit). */
void sdk_cg_bound_sub(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  if (m->nbound == 0) return;
  /* (reflecting boundaries: refused, adaptive.c says why) */
  sdk_em_line(em, "int sdk_hit = 0;");
  for (int k = 0; k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_ABSORB) emit_absorb_end(em, o, k);
  sdk_em_line(em, "sdk_cross |= sdk_hit != 0;");
  for (int k = 0; k < m->nbound; k++) {
    const sdk_boundary *b = &m->bound[k];
    if (b->kind != SDK_BOUND_ABSORB || !sdk_cg_bridge_var(o, b->var)) continue;
    sdk_em_line(em, "real sdk_bq%d = -1;", k);
    sdk_em_open(em, "if (sdk_hit == 0)");
    emit_bridge_aq(em, o, b, "sdk_y%d");
    sdk_em_line(em, "if (sdk_a < (real)50 * sdk_q) sdk_bq%d = sdk_a / sdk_q;", k);
    sdk_em_line(em, "sdk_cross |= sdk_bq%d >= (real)0 && sdk_bq%d < (real)SDK_ADAPT_QCROSS;", k, k);
    sdk_em_close(em);
  }
}

/* An accepted sub-step (after sdk_cg_bound_sub): where a level was reached
 * at its end, the first in model order absorbs the path; else each
 * absorbing boundary with the bridge in model order draws its uniform
 * against p.  The path absorbed, its hitting time within the sub-step,
 * theta h, is drawn from the bridge's first hitting time given both ends
 * (kernels/reset_draws.h, sdk_rs_cross, as [events] draw their crossing
 * times; theta = 1 without the bridge), so that the time is exact in law
 * for Brownian motion with constant drift and noise, whatever the length of
 * the sub-step: sdk_theta.  Random numbers (rng/philox.h): absorbing
 * boundary k at node m of step n of path P takes blocks
 *   2^61 + 2^57 + 2 (16 (n 2^25 + m) + k) and the next
 * of P's stream with domain 0's counter (sdk_rs_cross's words):
 * [2^61 + 2^57, 2^61 + 2^58) for n < 2^28 (sim/adaptive.c refuses more
 * steps), between the events' range and the Levy noise's; a sub-step is
 * accepted once, so each node's numbers are used at most once whatever was
 * rejected before it. */
void sdk_cg_bound_sub_hit(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *node,
                          const char *path, const char *seed) {
  const sdk_model *m = o->model;
  if (m->nbound == 0) return;
  sdk_em_line(em, "double sdk_theta = 1;");
  for (int k = 0; k < m->nbound; k++) {
    const sdk_boundary *b = &m->bound[k];
    if (b->kind != SDK_BOUND_ABSORB || !sdk_cg_bridge_var(o, b->var)) continue;
    int v = b->var;
    sdk_em_open(em, "if (sdk_hit == %d || (sdk_hit == 0 && sdk_bq%d >= (real)0))", k + 1, k);
    emit_level(em, o, b);
    if (b->upper)
      sdk_em_line(em, "const double sdk_d0 = sdk_e - sdk_y%d, sdk_d1 = sdk_e - sdk_x%d;", v, v);
    else
      sdk_em_line(em, "const double sdk_d0 = sdk_y%d - sdk_e, sdk_d1 = sdk_x%d - sdk_e;", v, v);
    sdk_em_line(em,
                "const sdk_u64 sdk_blk = ((sdk_u64)1 << 61) + ((sdk_u64)1 << 57) + "
                "(((((sdk_u64)(%s) << 25) + (sdk_u64)(%s)) * 16u + %du) << 1);",
                n, node, k);
    sdk_em_line(em,
                "if (sdk_rs_cross(%s, %s, sdk_blk, sdk_d0, sdk_d1, (double)sdk_bw%d, sdk_hit != 0, "
                "1, &sdk_theta)) sdk_hit = %d;",
                seed, path, v, k + 1);
    sdk_em_close(em);
  }
  sdk_em_open(em, "if (sdk_hit != 0)");
  sdk_em_line(em, "sdk_bs = (real)sdk_hit;");
  sdk_em_line(em, "sdk_bl = (real)((sdk_i64)((%s) + 1) & 0xfffff);", n);
  sdk_em_line(em, "sdk_bh = (real)((sdk_i64)((%s) + 1) >> 20);", n);
  sdk_em_close(em);
}
