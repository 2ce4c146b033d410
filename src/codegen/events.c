/* Poisson shot noise ([jumps]) and dichotomous noise ([dichotomous]):
 * events applied to a path after each of its steps (model/model.h).
 *
 * Step n takes the state from t_n to t_{n+1} = t_n + dt by the scheme
 * (with a dichotomous noise's value of t_n in the drift and noise), then:
 *
 *   [jumps] x: N ~ Poisson(RATE dt) exactly, and x += z_1 + ... + z_N
 *     (minus RATE E[z] dt when centered): the jump-adapted splitting of
 *     dX = a dt + b dW + dJ, whose jumps are those of the compound Poisson
 *     process over the step, exactly in law for any RATE dt.  N is drawn by
 *     inversion (sequential search from a 53-bit uniform) for RATE dt < 10
 *     and by Hoermann's transformed rejection with squeeze (PTRS; W.
 *     Hoermann, Insurance Math. Econom. 12, 39-45, 1993) above.  The sum of
 *     N amplitudes: fixed(a): N a; normal(m, s): N m + s sqrt(N) Z; exp(mean):
 *     mean times a Gamma(N) variable, the sum of N exponentials for N <= 16
 *     and Marsaglia & Tsang's method above (ACM TOMS 26, 363-372, 2000);
 *     uniform(a, b): N a + (b - a) times the sum of N uniforms (the plan
 *     allows at most 1e5 jumps per step on average).  All in double, in
 *     either precision.
 *
 *   [dichotomous] eta: the two-state Markov chain A <-> B with rates
 *     k_AB, k_BA over one step: from A it moves to B with probability
 *     k_AB / k (1 - exp(-k dt)), from B to A with k_BA / k (1 - exp(-k dt)),
 *     k = k_AB + k_BA: the exact transition probabilities, so the values at
 *     the step times are exactly the telegraph process's.  The initial value
 *     is A with the stationary probability k_BA / k unless [init] gives it.
 *
 * Random numbers: Philox (rng/philox.h) with domain 0's counter, in block
 * ranges no other stream reaches (the noise of the steps uses blocks below
 * 2^61, the bridge of absorbing boundaries [2^62, 2^62 + 2^55)):
 *   dichotomous entry d at step n of path P: words 2 (d & 1) and 2 (d & 1) + 1
 *     of block 2^62 + 2^60 + n ceil(ND / 2) + (d >> 1), a 53-bit uniform;
 *   jump entry j at step n: the words of blocks 2^62 + 2^61 + (n NJ + j) 2^17
 *     + r, r = 0, 1, ..., in order (n NJ + j < 2^44: the plan bounds the
 *     steps; a step never needs 2^17 blocks: its rejection loops stop after
 *     2^14 rounds, which happens with probability below 10^-4000);
 *   the stationary initial value of dichotomous variable v: words 0 and 1
 *     of block 2^61 + v of domain 1 (whose initial conditions use blocks
 *     below 2^8).
 * So every value depends on (seed, path, step) alone: independent of the
 * backend, the launch and the thread count, and resume is byte-identical. */
#include "codegen/events.h"

#include "codegen/codegen.h"
#include "codegen/colored_levy.h"
#include "codegen/expr_emit.h"
#include "codegen/resets.h"
#include "codegen/scheme.h"

extern const char sdk_embedded_event_draws_h[], sdk_embedded_jump_draws_h[];

int sdk_cg_has_events(const sdk_model *m) {
  return m->njump + m->ndich + m->nevent + m->ncolored > 0;
}

void sdk_cg_events_defs(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  /* ([levy]: sdk_u53; --adaptive with [boundaries]: sdk_rs_cross, boundary.c) */
  if (m->njump + m->ndich + m->nevent + m->nlevy == 0 && !(o->adaptive && m->nbound > 0)) return;
  sdk_em_kernel(em, sdk_embedded_event_draws_h);
  if (m->njump > 0) sdk_em_kernel(em, sdk_embedded_jump_draws_h);
  sdk_cg_resets_defs(em, o);
}

/* "(double)(E)" of a parameter expression */
static void emit_dexpr(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line) {
  sdk_em_puts(em, "(double)(");
  sdk_cg_expr(em, o, e, line);
  sdk_em_puts(em, ")");
}

/* x_v += (real)sdk_J through the carried error when compensated */
static void add_jump(sdk_emit *em, const sdk_codegen_opts *o, int v) {
  sdk_cg_update_open(em, o, v);
  sdk_em_puts(em, " + (real)sdk_J");
  sdk_cg_update_close(em, o, v);
}

static void emit_jump(sdk_emit *em, const sdk_codegen_opts *o, int i, const char *step,
                      const char *path, const char *seed) {
  const sdk_model *m = o->model;
  const sdk_jump *j = &m->jump[i];
  sdk_em_block(em);
  sdk_em_start(em, "const double sdk_mu = ");
  emit_dexpr(em, o, j->rate, j->line);
  sdk_em_puts(em, " * (double)sdk_dt;\n");
  sdk_em_line(em, "sdk_jst sdk_js;");
  sdk_em_line(em,
              "sdk_jst_init(&sdk_js, %s, %s, 0x6000000000000000ull + (((sdk_u64)(%s) * %du + %du) "
              "<< 17));",
              seed, path, step, m->njump, i);
  sdk_em_line(em, "const double sdk_n = sdk_poisson(&sdk_js, sdk_mu, exp(-sdk_mu));");
  sdk_em_line(em, "double sdk_J = 0;");
  sdk_em_start(em, "const double sdk_a = ");
  emit_dexpr(em, o, j->a, j->line);
  sdk_em_puts(em, ";\n");
  if (j->b) {
    sdk_em_start(em, "const double sdk_b = ");
    emit_dexpr(em, o, j->b, j->line);
    sdk_em_puts(em, ";\n");
  }
  sdk_em_open(em, "if (sdk_n > 0)");
  switch (j->kind) {
  case SDK_JUMP_FIXED: sdk_em_line(em, "sdk_J = sdk_n * sdk_a;"); break;
  case SDK_JUMP_EXP: sdk_em_line(em, "sdk_J = sdk_a * sdk_jgamma(&sdk_js, sdk_n);"); break;
  case SDK_JUMP_NORMAL:
    sdk_em_line(em, "sdk_J = sdk_n * sdk_a + sdk_b * sqrt(sdk_n) * sdk_jgauss(&sdk_js);");
    break;
  case SDK_JUMP_UNIFORM:
    sdk_em_line(em, "double sdk_s = 0;");
    sdk_em_line(em, "for (double sdk_q = 0; sdk_q < sdk_n; sdk_q += 1) sdk_s += sdk_ju(&sdk_js);");
    sdk_em_line(em, "sdk_J = sdk_n * sdk_a + (sdk_b - sdk_a) * sdk_s;");
    break;
  }
  sdk_em_close(em);
  if (j->centered) {
    const char *mean = j->kind == SDK_JUMP_UNIFORM ? "0.5 * (sdk_a + sdk_b)" : "sdk_a";
    sdk_em_line(em, "sdk_J -= sdk_mu * %s;", mean);
  }
  add_jump(em, o, j->var);
  sdk_em_close(em);
}

/* "const double sdk_ka = RATE_AB, sdk_kb = RATE_BA;" */
static void emit_rates(sdk_emit *em, const sdk_codegen_opts *o, const sdk_dichotomous *d) {
  sdk_em_start(em, "const double sdk_ka = ");
  emit_dexpr(em, o, d->rab, d->line);
  sdk_em_puts(em, ", sdk_kb = ");
  emit_dexpr(em, o, d->rba, d->line);
  sdk_em_puts(em, ";\n");
}

void sdk_cg_event_set(sdk_emit *em, const sdk_codegen_opts *o, int v) {
  if (o->compensate && o->comp_defer) sdk_em_line(em, "sdk_hi%d = sdk_nv;", v);
  if (o->compensate) sdk_em_line(em, "sdk_c%d = 0;", v);
  sdk_em_line(em, "sdk_x%d = sdk_nv;", v);
}

static void emit_dich(sdk_emit *em, const sdk_codegen_opts *o, int i, const char *step,
                      const char *path, const char *seed) {
  const sdk_model *m = o->model;
  const sdk_dichotomous *d = &m->dich[i];
  int v = d->var;
  sdk_em_block(em);
  emit_rates(em, o, d);
  sdk_em_line(em, "const double sdk_e = -expm1(-(sdk_ka + sdk_kb) * (double)sdk_dt) / "
                  "(sdk_ka + sdk_kb);");
  sdk_em_start(em, "const real sdk_va = (real)");
  emit_dexpr(em, o, d->a, d->line);
  sdk_em_puts(em, ", sdk_vb = (real)");
  emit_dexpr(em, o, d->b, d->line);
  sdk_em_puts(em, ";\n");
  sdk_em_line(em, "sdk_u32 sdk_o[4];");
  sdk_em_line(em,
              "sdk_philox_block(%s, %s, 0x5000000000000000ull + (sdk_u64)(%s) * %du + %du, 0, "
              "sdk_o);",
              seed, path, step, (m->ndich + 1) / 2, i >> 1);
  sdk_em_line(em, "const double sdk_u = sdk_u53(sdk_o[%d], sdk_o[%d]);", 2 * (i & 1),
              2 * (i & 1) + 1);
  sdk_em_line(em, "const int sdk_ina = sdk_x%d == sdk_va;", v);
  sdk_em_open(em, "if (sdk_u < (sdk_ina ? sdk_ka : sdk_kb) * sdk_e)");
  sdk_em_line(em, "const real sdk_nv = sdk_ina ? sdk_vb : sdk_va;");
  sdk_cg_event_set(em, o, v);
  sdk_em_close(em);
  sdk_em_close(em);
}

void sdk_cg_events(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *path,
                   const char *seed) {
  const sdk_model *m = o->model;
  for (int i = 0; i < m->njump; i++)
    emit_jump(em, o, i, step, path, seed);
  for (int i = 0; i < m->ndich; i++)
    emit_dich(em, o, i, step, path, seed);
  sdk_cg_colored_events(em, o);
  sdk_cg_resets(em, o, step, path, seed);
}

void sdk_cg_dich_init(sdk_emit *em, const sdk_codegen_opts *o, int v) {
  const sdk_dichotomous *d = sdk_model_dich_of(o->model, v);
  sdk_em_line(em, "sdk_u32 sdk_o[4];");
  sdk_em_line(em, "sdk_philox_block(sdk_seed, sdk_gpath, 0x2000000000000000ull + %du, 1, sdk_o);",
              v);
  emit_rates(em, o, d);
  sdk_em_start(em, "sdk_x%d = sdk_u53(sdk_o[0], sdk_o[1]) < sdk_kb / (sdk_ka + sdk_kb) ? (real)",
               v);
  emit_dexpr(em, o, d->a, d->line);
  sdk_em_puts(em, " : (real)");
  emit_dexpr(em, o, d->b, d->line);
  sdk_em_puts(em, ";\n");
}
