/* Coloured noise ([colored]) and alpha-stable Levy noise ([levy]),
 * model/model.h.
 *
 *   [colored] eta = TAU, D: the Ornstein-Uhlenbeck process
 *     d eta = -eta / TAU dt + sqrt(2 D) / TAU dW, stationary N(0, D / TAU),
 *     autocorrelation (D / TAU) exp(-|s| / TAU).  eta is a variable with
 *     drift 0 for the scheme, so step n uses its value of t_n (like a
 *     dichotomous noise); after the step it moves by the exact transition
 *       eta' = r eta + sqrt(D / TAU (1 - r^2)) z,  r = exp(-dt / TAU),
 *     so its values at the step times are exactly the process's whatever
 *     dt.  A variable driven by it, dx = a dt + eta dt, then has an error
 *     of order dt (the integral of eta over a step is taken as eta(t_n) dt):
 *     with [colored] every scheme is of order 1 (docs/MODEL.md).  r and the
 *     factor are computed in double, as literals when TAU, D and dt are the
 *     same for every path.
 *
 *   [levy] x = ALPHA, BETA, SCALE: x's noise is SCALE dL, L the alpha-stable
 *     Levy motion with L(t) ~ S_ALPHA(t^(1/ALPHA), BETA, 0) in the
 *     parametrisation S1 of Samorodnitsky & Taqqu (1994): E exp(i k L(t)) =
 *     exp(-t |k|^a (1 - i b sign(k) tan(pi a / 2))) for a != 1 and
 *     exp(-t |k| (1 + i b (2 / pi) sign(k) ln|k|)) for a = 1.  For a = 2 it
 *     is sqrt(2) W (variance 2 t).  Its increment over a step is
 *       a != 1: dt^(1/a) X,   a = 1: dt (X + (2 / pi) b ln dt),
 *     X ~ S_a(1, b, 0) by Chambers, Mallows & Stuck (J. Amer. Statist.
 *     Assoc. 71, 340-344, 1976; in the form of R. Weron, Statist. Probab.
 *     Lett. 28, 165-171, 1996): V uniform in (-pi/2, pi/2), W ~ Exp(1),
 *       a != 1: X = S sin(a (V + B)) / cos(V)^(1/a)
 *                   (cos(V - a (V + B)) / W)^((1 - a) / a),
 *               B = atan(b tan(pi a / 2)) / a,
 *               S = (1 + b^2 tan^2(pi a / 2))^(1 / (2 a));
 *       a = 1:  X = (2 / pi) ((pi/2 + b V) tan V
 *                   - b ln((pi/2) W cos V / (pi/2 + b V)));
 *       a = 2:  X = 2 sqrt(W) sin V (the same law, exactly Gaussian).
 *     (for a = 1, c X ~ S_1(c, b, -(2/pi) b c ln c): Samorodnitsky & Taqqu,
 *     Property 1.2.3).  So a = 1 with b != 0 makes SCALE L(t) ~ S_1(SCALE t,
 *     b, -(2/pi) b SCALE t ln SCALE).
 *     The drivers put X scaled by dt^(1/a - 1/2) (a = 1: sqrt(dt) (X + (2/pi)
 *     b ln dt)) in the place of the channel's Gaussian value, so that the
 *     scheme's b sqrt(dt) z is SCALE times the increment.  W = -ln(1 - Q),
 *     Q uniform from two words with full relative precision near 0 (small W
 *     makes the heavy tail for a < 1; emit_exp1, without log1p): in double a 53-bit uniform (W down
 * to 2^-54), in single a float of the two words (W down to 1e-10, Q below 1 - 2^-24: W up to 16.6,
 * P(W > 16.6) = 6e-8); V from word 2 in the run's precision.
 *
 * Random numbers: Philox (rng/philox.h).  A coloured noise's Gaussian of
 * step n is a channel of the step's own noise (model.h: the channels of the
 * variables' noise, then one per coloured noise), so it costs a quarter of a
 * Philox block; its stationary initial value is g[0] of the Gaussians of
 * block 2^61 + 2^40 + v of domain 1 (v its variable).  Levy entry l of NL at
 * step n of path P: block 2^62 + 2^58 + n NL + l of domain 0, words 0, 1 (a
 * 53-bit uniform for W) and 2 (V); below the dichotomous noise's blocks
 * (2^62 + 2^60) for n NL < 3 2^58.  Every value depends on (seed, path,
 * step) alone. */
#include "codegen/colored_levy.h"

#include <math.h>
#include <stdio.h>

#include "codegen/expr_emit.h"
#include "codegen/scheme.h"

#define SDK_PI 3.14159265358979323846

/* Is e the same for every path (parameters neither scanned nor per path)? */
static int fixed_expr(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (!e) return 1;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM &&
      (o->scan_column[e->index] >= 0 || (o->path_param && o->path_param[e->index] >= 0)))
    return 0;
  if (e->kind == SDK_E_SYM && e->sym != SDK_SYM_PARAM && e->sym != SDK_SYM_CONST) return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!fixed_expr(o, e->arg[i])) return 0;
  return 1;
}

sdk_err sdk_cg_colored_levy_check(const sdk_codegen_opts *o, sdk_errbuf *eb) {
  const sdk_model *m = o->model;
  const sdk_scheme_type *s = o->scheme;
  if (m->ncolored > 0 && sdk_cg_noise(o) != &sdk_noise_gaussian)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s:%d: [colored]: its exact update needs Gaussian values, not --noise %s",
                    m->path, m->colored[0].line, sdk_cg_noise(o)->name);
  for (int i = 0; i < m->nlevy; i++) {
    const sdk_levy *l = &m->levy[i];
    const char *v = m->vars[l->var];
    if (!s->srk || s->srk->milstein)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s:%d: [levy] %s: scheme %s needs more of the noise than its increments "
                      "(%s), which alpha-stable noise does not have; use euler or srk2",
                      m->path, l->line, v, s->name,
                      s->srk ? "the Milstein term's dW^2 - dt" : "the moments of Gaussian values");
    if (sdk_md_uses_state(m, m->noise[l->var]) &&
        (s->calculus != SDK_CALCULUS_ITO || m->calculus != SDK_CALCULUS_ITO))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s:%d: [levy] %s: a scale that depends on the state is integrated in the "
                      "Ito sense only (the Stratonovich limit and the drift correction between "
                      "the calculi hold for Wiener noise); use --scheme euler with calculus ito",
                      m->path, l->line, v);
  }
  return SDK_OK;
}

/* "const double NAME = (double)(E);" */
static void emit_dvalue(sdk_emit *em, const sdk_codegen_opts *o, const char *name,
                        const sdk_expr *e, int line) {
  sdk_em_start(em, "const double %s = (double)(", name);
  sdk_cg_expr(em, o, e, line);
  sdk_em_puts(em, ");\n");
}

void sdk_cg_colored_events(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int i = 0; i < m->ncolored; i++) {
    const sdk_colored *c = &m->colored[i];
    int v = c->var, j = m->nnoise - m->ncolored + i;
    sdk_em_block(em);
    if (o->dt_column < 0 && fixed_expr(o, c->tau) && fixed_expr(o, c->d)) {
      double tau = sdk_model_eval_params(c->tau, o->pvalues);
      double d = sdk_model_eval_params(c->d, o->pvalues);
      sdk_em_start(em, "const real sdk_r = ");
      sdk_em_number(em, exp(-o->dt / tau));
      sdk_em_puts(em, ", sdk_s = ");
      sdk_em_number(em, sqrt(d / tau * -expm1(-2 * o->dt / tau)));
      sdk_em_puts(em, ";\n");
    } else {
      emit_dvalue(em, o, "sdk_tau", c->tau, c->line);
      emit_dvalue(em, o, "sdk_D", c->d, c->line);
      sdk_em_line(em, "const real sdk_r = (real)exp(-(double)sdk_dt / sdk_tau);");
      sdk_em_line(em, "const real sdk_s = (real)sqrt(sdk_D / sdk_tau * "
                      "-expm1(-2.0 * (double)sdk_dt / sdk_tau));");
    }
    sdk_em_line(em, "const real sdk_nv = sdk_r * sdk_x%d + sdk_s * sdk_z%d;", v, j);
    /* (exactly the new value: no carried error) */
    if (o->compensate && o->comp_defer) sdk_em_line(em, "sdk_hi%d = sdk_nv;", v);
    if (o->compensate) sdk_em_line(em, "sdk_c%d = 0;", v);
    sdk_em_line(em, "sdk_x%d = sdk_nv;", v);
    sdk_em_close(em);
  }
}

int sdk_cg_colored_init(sdk_emit *em, const sdk_codegen_opts *o, int v) {
  const sdk_colored *c = sdk_model_colored_of(o->model, v);
  if (!c || c->init_given) return 0;
  sdk_em_line(em, "real sdk_r[4];");
  sdk_em_line(em, "sdk_gauss4(sdk_seed, sdk_gpath, 0x2000010000000000ull + %du, 1, sdk_r);", v);
  emit_dvalue(em, o, "sdk_tau", c->tau, c->line);
  emit_dvalue(em, o, "sdk_D", c->d, c->line);
  sdk_em_line(em, "sdk_x%d = (real)sqrt(sdk_D / sdk_tau) * sdk_r[0];", v);
  return 1;
}

int sdk_cg_levy_channel(const sdk_model *m, int j) {
  if (m->nlevy == 0) return -1;
  for (int v = 0, k = 0; v < m->nvars; v++) {
    if (!m->noise[v]) continue;
    if (k++ != j) continue;
    for (int l = 0; l < m->nlevy; l++)
      if (m->levy[l].var == v) return l;
    return -1;
  }
  return -1;
}

/* " * (real)(LITERAL)" or " * (real)(RUNTIME pow)": dt^p, p = 1/a - 1/2 */
static void emit_dt_factor(sdk_emit *em, const sdk_codegen_opts *o, double p, const char *dt) {
  if (p == 0) return;
  sdk_em_puts(em, " * ");
  if (o->dt_column < 0) {
    sdk_em_number(em, pow(o->dt, p));
    return;
  }
  sdk_em_printf(em, "(real)pow((double)(%s), ", dt);
  sdk_em_double(em, p);
  sdk_em_puts(em, ")");
}

/* "sdk_W = W ~ Exp(1)" from words 0, 1 of sdk_o: W = -ln(1 - Q), Q uniform
 * of full relative precision near 0 (the head), without a libm call: clang
 * 14 cannot vectorise log1p (libmvec has it, clang's table of it not: the
 * CPU step loop stayed scalar, 4% of the Gaussian speed).  W = k ln 2 +
 * 2 atanh(s), by the series s (1 + s^2/3 + s^4/5 + ...) to the term below
 * the precision's rounding (s <= 1/3: 8 terms in single, 17 in double):
 *   Q <= 1/2: k = 0, s = Q / (2 - Q) (2 - Q rounded once: s to an ulp);
 *   Q > 1/2:  1 - Q = m 2^-k exactly (Sterbenz; m in [1/2, 1) from its
 *             bits), s = (1 - m) / (1 + m) (1 - m exact).
 * Both are computed and one is selected (a vector loop's select); relative
 * error within 4 units of 2^-24 (single) or 2^-53 (double) of -log1p(-Q)
 * over 2e7 Q from 1e-12 to 1 (measured with this text's arithmetic). */
static void emit_exp1(sdk_emit *em, const sdk_codegen_opts *o) {
  int sg = o->single;
  const char *t = sg ? "real" : "double";
  if (sg)
    sdk_em_line(em, "const real sdk_q = fminf(((float)sdk_o[0] + (float)sdk_o[1] * 2.3283064e-10f "
                    "+ 0.5f) * 2.3283064e-10f, 0.99999994f);");
  else
    sdk_em_line(em, "const double sdk_q = sdk_u53(sdk_o[0], sdk_o[1]);");
  sdk_em_line(em, "union { %s f; %s i; } sdk_b;", sg ? "float" : "double",
              sg ? "sdk_u32" : "sdk_u64");
  sdk_em_line(em, "sdk_b.f = (%s)1 - sdk_q;", t);
  if (sg) {
    sdk_em_line(em, "const int sdk_k = 126 - (int)((sdk_b.i >> 23) & 0xffu);");
    sdk_em_line(em, "sdk_b.i = (sdk_b.i & 0x807fffffu) | 0x3f000000u;");
  } else {
    sdk_em_line(em, "const int sdk_k = 1022 - (int)((sdk_b.i >> 52) & 0x7ffu);");
    sdk_em_line(em, "sdk_b.i = (sdk_b.i & 0x800fffffffffffffull) | 0x3fe0000000000000ull;");
  }
  sdk_em_line(em, "const int sdk_lo = sdk_q <= (%s)0.5;", t);
  sdk_em_line(em,
              "const %s sdk_s = sdk_lo ? sdk_q / ((%s)2 - sdk_q) : ((%s)1 - sdk_b.f) / "
              "((%s)1 + sdk_b.f), sdk_s2 = sdk_s * sdk_s;",
              t, t, t, t);
  int n = sg ? 8 : 17;
  sdk_em_start(em, "const %s sdk_at = ", t);
  for (int k = 0; k < n - 1; k++) {
    sdk_em_printf(em, "(%s)", t);
    sdk_em_double(em, 1.0 / (2 * k + 1));
    sdk_em_puts(em, " + sdk_s2 * (");
  }
  sdk_em_printf(em, "(%s)", t);
  sdk_em_double(em, 1.0 / (2 * n - 1));
  for (int k = 0; k < n - 1; k++)
    sdk_em_puts(em, ")");
  sdk_em_puts(em, ";\n");
  sdk_em_start(em, "const %s sdk_W = (%s)(sdk_lo ? 0 : sdk_k) * (%s)", t, t, t);
  sdk_em_double(em, 0.69314718055994530942);
  sdk_em_printf(em, " + (%s)2 * sdk_s * sdk_at;\n", t);
}

void sdk_cg_levy_z(sdk_emit *em, const sdk_codegen_opts *o, int l, const char *step,
                   const char *path, const char *seed, const char *dt, const char *dst) {
  const sdk_model *m = o->model;
  const sdk_levy *lv = &m->levy[l];
  double a = lv->alpha, b = lv->beta;
  const char *f = o->single ? "f" : "";
  sdk_em_block(em);
  sdk_em_line(em, "sdk_u32 sdk_o[4];");
  sdk_em_line(em,
              "sdk_philox_block(%s, %s, 0x4400000000000000ull + (sdk_u64)(%s) * %du + %du, 0, "
              "sdk_o);",
              seed, path, step, m->nlevy, l);
  emit_exp1(em, o);
  sdk_em_start(em, "const real sdk_v = ");
  sdk_em_number(em, SDK_PI);
  sdk_em_puts(em, " * (sdk_u01_");
  sdk_em_puts(em, o->single ? "f" : "d");
  sdk_em_puts(em, "(sdk_o[2]) - ");
  sdk_em_number(em, 0.5);
  sdk_em_puts(em, ");\n");
  if (a == 2) {
    sdk_em_line(em, "const real sdk_X = (real)2 * sqrt%s((real)sdk_W) * sin%s(sdk_v);", f, f);
  } else if (a == 1) {
    sdk_em_start(em, "const real sdk_p = ");
    sdk_em_number(em, SDK_PI / 2);
    sdk_em_puts(em, " + ");
    sdk_em_number(em, b);
    sdk_em_puts(em, " * sdk_v;\n");
    sdk_em_start(em, "const real sdk_X = ");
    sdk_em_number(em, 2 / SDK_PI);
    sdk_em_printf(em, " * (sdk_p * tan%s(sdk_v) - ", f);
    sdk_em_number(em, b);
    sdk_em_printf(em, " * log%s(", f);
    sdk_em_number(em, SDK_PI / 2);
    sdk_em_printf(em, " * (real)sdk_W * cos%s(sdk_v) / sdk_p));\n", f);
  } else {
    double t = tan(SDK_PI * a / 2), B = atan(b * t) / a, S = pow(1 + b * b * t * t, 1 / (2 * a));
    sdk_em_start(em, "const real sdk_av = ");
    sdk_em_number(em, a);
    sdk_em_puts(em, " * (sdk_v + ");
    sdk_em_number(em, B);
    sdk_em_puts(em, ");\n");
    /* (cos(V - a (V + B)) / W > 0 in exact arithmetic: rounding kept from
     * below; one log of the quotient where ln cos - ln W took two) */
    sdk_em_start(em, "const real sdk_X = ");
    sdk_em_number(em, S);
    sdk_em_printf(em, " * sin%s(sdk_av) * exp%s(", f, f);
    sdk_em_number(em, -1 / a);
    sdk_em_printf(em, " * log%s(cos%s(sdk_v)) + ", f, f);
    sdk_em_number(em, (1 - a) / a);
    sdk_em_printf(em, " * log%s(fmax%s(cos%s(sdk_v - sdk_av) / (real)sdk_W, ", f, f, f);
    sdk_em_number(em, o->single ? 1e-37 : 1e-300);
    sdk_em_puts(em, ")));\n");
  }
  if (a == 1) {
    /* dt (X + (2/pi) b ln dt) = sqrt(dt) z */
    sdk_em_start(em, "%s = (sdk_X", dst);
    if (b != 0) {
      sdk_em_puts(em, " + ");
      sdk_em_number(em, 2 / SDK_PI * b);
      if (o->dt_column < 0) {
        sdk_em_puts(em, " * ");
        sdk_em_number(em, log(o->dt));
      } else {
        sdk_em_printf(em, " * (real)log((double)(%s))", dt);
      }
    }
    sdk_em_puts(em, ")");
    emit_dt_factor(em, o, 0.5, dt);
  } else {
    sdk_em_start(em, "%s = sdk_X", dst);
    emit_dt_factor(em, o, 1 / a - 0.5, dt);
  }
  sdk_em_puts(em, ";\n");
  sdk_em_close(em);
}
