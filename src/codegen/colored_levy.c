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
 *     scheme's b sqrt(dt) z is SCALE times the increment.
 *     Double precision: W = -ln(1 - Q), Q a 53-bit uniform of two words
 *     (W down to 2^-54; emit_exp1, without log1p), V from a third.
 *     Single precision (kernels/levy_draw.h): one word each, U = (o + 1/2)
 *     2^-32.  W = -ln U in [1.2e-10, 22.9] with full relative
 *     precision at both ends (W -> 0 from 1 - U = (~o + 1/2) 2^-32: the tail
 *     for a < 1 is W^((a - 1)/a) as W -> 0).  Against the two-word form of
 *     before (W continuous in [1.2e-10, 16.6], P(W > 16.6) = 6e-8 held at
 *     16.6), W near 0 lies on a grid of 2^-32: the law of W is exact at the
 *     grid's points, so P(|X| > x) is off by at most one cell, a relative
 *     1 / k where it is k 2^-32 (2e-4 at 1e-6), and the largest |X| is the
 *     same.  V = pi (U - 1/2) as its sign and d = 1/2 - |U - 1/2| from o or
 *     ~o: cos V = sin(pi d), whose log is log2(pi d) plus a polynomial, so
 *     cos V keeps its relative precision down to pi 2^-33 (the tail for
 *     a > 1 is cos(V)^(-1/a); before, V had 23 bits and cos V a fast-math
 *     cosine's absolute error of 2^-21, wrong in sign or NaN within 1e-6 of
 *     +-pi/2); a = 1's tan V = cot(pi d) likewise.  X is then 2^E of one sum
 *     E of logs: on the GPU with log2 W by two MUFU.LG2 (no MUFU.RCP), on
 *     the CPU with one log of cos(..)/W (a division costs less than a
 *     vector log there); one exp2.  Both are exact formulas: they differ in
 *     the last bits only.
 *
 * Random numbers: Philox (rng/philox.h).  A coloured noise's Gaussian of
 * step n is a channel of the step's own noise (model.h: the channels of the
 * variables' noise, then one per coloured noise), so it costs a quarter of a
 * Philox block; its stationary initial value is g[0] of the Gaussians of
 * block 2^61 + 2^40 + v of domain 1 (v its variable).  Levy entry l of NL at
 * step n of path P, domain 0: in double precision block 2^62 + 2^58 + n NL
 * + l, words 0, 1 (W) and 2 (V); in single precision block 2^62 + 2^58 +
 * (n >> 1) NL + l, words 2 (n & 1) (W) and 2 (n & 1) + 1 (V): steps 2k and
 * 2k + 1 share a block (the GPU's whole groups draw it once for both,
 * cuda_paths.c; a single step of a launch starting or ending mid-pair draws
 * it for its half).  Below the dichotomous noise's blocks (2^62 + 2^60) for
 * n NL < 3 2^58.  Every value depends on (seed, path, step) alone. */
#include "codegen/colored_levy.h"

#include <math.h>
#include <stdio.h>

#include "codegen/expr_emit.h"
#include "codegen/scheme.h"

extern const char sdk_embedded_levy_draw_h[];

#define SDK_PI 3.14159265358979323846

/* Is e the same for every path (parameters neither scanned nor per path)? */
static int fixed_expr(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (!e) return 1;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM && !sdk_cg_param_fixed(o, e->index)) return 0;
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
  /* --noise replaces the Gaussian values of the channels: a model without
   * one (its noise all [levy], or only [jumps]) would ignore it while the
   * results record it */
  int gauss = 0;
  for (int j = 0; j < m->nnoise; j++)
    gauss += sdk_cg_levy_channel(m, j) < 0;
  if (o->noise && gauss == 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--noise %s replaces Gaussian noise values, and model '%s' has none (its "
                    "noise, if any, is [levy], [jumps] or [dichotomous]): leave --noise out",
                    o->noise->name, m->name);
  char why[400];
  if (o->dt_column < 0 && sdk_model_check_levy_dt(m, o->dt, o->single, why, sizeof why))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s", why); /* (no literal of it exists) */
  for (int i = 0; i < m->nlevy; i++) {
    const sdk_levy *l = &m->levy[i];
    const char *v = m->vars[l->var];
    /* (a scale in the state: euler alone, below; name only what accepts it) */
    int state = sdk_md_uses_state(m, m->noise[l->var]);
    if (!s->srk || s->srk->milstein)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s:%d: [levy] %s: scheme %s needs more of the noise than its increments "
                      "(%s), which alpha-stable noise does not have; use %s",
                      m->path, l->line, v, s->name,
                      s->srk ? "the Milstein term's dW^2 - dt" : "the moments of Gaussian values",
                      state ? "--scheme euler (a scale that depends on the state: Ito only)"
                            : "euler or srk2");
    if (state && (s->calculus != SDK_CALCULUS_ITO || m->calculus != SDK_CALCULUS_ITO))
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

/* "sdk_W = W ~ Exp(1)" (double precision) from words 0, 1 of sdk_o: W =
 * -ln(1 - Q), Q a 53-bit uniform (full relative precision near 0: small W
 * makes the heavy tail for a < 1), without a libm call: clang 14 cannot
 * vectorise log1p (libmvec has it, clang's table of it not: the CPU step
 * loop stayed scalar, 4% of the Gaussian speed).  W = k ln 2 + 2 atanh(s),
 * by the series s (1 + s^2/3 + s^4/5 + ...) to the term below the
 * rounding (s <= 1/3: 17 terms):
 *   Q <= 1/2: k = 0, s = Q / (2 - Q) (2 - Q rounded once: s to an ulp);
 *   Q > 1/2:  1 - Q = m 2^-k exactly (Sterbenz; m in [1/2, 1) from its
 *             bits), s = (1 - m) / (1 + m) (1 - m exact).
 * Both are computed and one is selected (a vector loop's select); relative
 * error within 4 units of 2^-53 of -log1p(-Q) over 2e7 Q from 1e-12 to 1
 * (measured with this text's arithmetic). */
static void emit_exp1(sdk_emit *em) {
  sdk_em_line(em, "const double sdk_q = sdk_u53(sdk_o[0], sdk_o[1]);");
  sdk_em_line(em, "union { double f; sdk_u64 i; } sdk_b;");
  sdk_em_line(em, "sdk_b.f = (double)1 - sdk_q;");
  sdk_em_line(em, "const int sdk_k = 1022 - (int)((sdk_b.i >> 52) & 0x7ffu);");
  sdk_em_line(em, "sdk_b.i = (sdk_b.i & 0x800fffffffffffffull) | 0x3fe0000000000000ull;");
  sdk_em_line(em, "const int sdk_lo = sdk_q <= (double)0.5;");
  sdk_em_line(em, "const double sdk_s = sdk_lo ? sdk_q / ((double)2 - sdk_q) : ((double)1 - "
                  "sdk_b.f) / ((double)1 + sdk_b.f), sdk_s2 = sdk_s * sdk_s;");
  int n = 17;
  sdk_em_start(em, "const double sdk_at = ");
  for (int k = 0; k < n - 1; k++) {
    sdk_em_puts(em, "(double)");
    sdk_em_double(em, 1.0 / (2 * k + 1));
    sdk_em_puts(em, " + sdk_s2 * (");
  }
  sdk_em_puts(em, "(double)");
  sdk_em_double(em, 1.0 / (2 * n - 1));
  for (int k = 0; k < n - 1; k++)
    sdk_em_puts(em, ")");
  sdk_em_puts(em, ";\n");
  sdk_em_start(em, "const double sdk_W = (double)(sdk_lo ? 0 : sdk_k) * (double)");
  sdk_em_double(em, 0.69314718055994530942);
  sdk_em_puts(em, " + (double)2 * sdk_s * sdk_at;\n");
}

int sdk_cg_levy_pairs(const sdk_codegen_opts *o) {
  return o->single && o->model->nlevy > 0 && !o->adaptive;
}

void sdk_cg_levy_defs(sdk_emit *em, const sdk_codegen_opts *o) {
  if (sdk_cg_levy_pairs(o)) sdk_em_kernel(em, sdk_embedded_levy_draw_h);
}

void sdk_cg_levy_block(sdk_emit *em, const sdk_codegen_opts *o, int l, const char *pair,
                       const char *path, const char *seed, const char *keys, const char *name) {
  sdk_em_line(em, "sdk_u32 %s[4];", name);
  sdk_em_line(em,
              "sdk_philox_block%s(%s%s, %s, 0x4400000000000000ull + (sdk_u64)(%s) * %du + %du, 0, "
              "%s);",
              keys ? "_k" : "", keys ? "&" : "", keys ? keys : seed, path, pair, o->model->nlevy, l,
              name);
}

/* " * sdk_sf + C": pi (U - 1/2) k + c of levy_draw.h's s (an FMA) */
static void emit_varg(sdk_emit *em, double k, double c) {
  sdk_em_number(em, k * SDK_PI * 0x1p-32);
  sdk_em_puts(em, " * sdk_sf + ");
  sdk_em_number(em, k * SDK_PI * 0x1p-33 + c);
}

/* "const real sdk_X = X;" (0) or "DST = X scaled;" (1) in single
 * precision from the words sdk_ow (W) and sdk_ov (V) by levy_draw.h (the
 * head: W or log2(./W), V as s and d, log2 cos V): one
 * exp2, cos V of full relative precision */
static int emit_x_single(sdk_emit *em, const sdk_codegen_opts *o, double a, double b,
                         const char *dt, const char *dst) {
  if (a == 2 || (a == 1 && b != 0)) sdk_em_line(em, "const real sdk_W = sdk_levy_w_f(sdk_ow);");
  sdk_em_line(em, "const real sdk_sf = sdk_levy_s_f(sdk_ov);");
  if (a == 2) { /* 2 sqrt(W) sin V */
    sdk_em_start(em, "const real sdk_X = 2.0f * sqrtf(sdk_W) * sinf(");
    emit_varg(em, 1, 0);
    sdk_em_puts(em, ");\n");
    return 0;
  }
  sdk_em_line(em, "const real sdk_d = sdk_levy_d_f(sdk_ov);");
  if (a == 1) { /* tan V = sign(V) cot(pi d), cot(pi d) = cos(pi d) / (d sin(pi d) / d) */
    sdk_em_line(em, "const real sdk_t = cosf(3.14159265f * sdk_d) / (sdk_d * "
                    "sdk_levy_psin_f(sdk_d));");
    sdk_em_line(em, "const real sdk_tv = sdk_sf < 0.0f ? -sdk_t : sdk_t;");
    if (b == 0) {
      sdk_em_line(em, "const real sdk_X = sdk_tv;");
      return 0;
    }
    /* p = pi/2 + b V = (pi/2)(1 + b sign V) - b sign(V) pi d: no cancellation */
    sdk_em_start(em, "const real sdk_p = sdk_sf < 0.0f ? ");
    sdk_em_number(em, SDK_PI / 2 * (1 - b));
    sdk_em_puts(em, " + ");
    sdk_em_number(em, b * SDK_PI);
    sdk_em_puts(em, " * sdk_d : ");
    sdk_em_number(em, SDK_PI / 2 * (1 + b));
    sdk_em_puts(em, " - ");
    sdk_em_number(em, b * SDK_PI);
    sdk_em_puts(em, " * sdk_d;\n");
    /* (2/pi) (p tan V - b ln((pi/2) W cos V / p)) */
    sdk_em_start(em, "const real sdk_X = ");
    sdk_em_number(em, 2 / SDK_PI);
    sdk_em_puts(em, " * (sdk_p * sdk_tv - ");
    sdk_em_number(em, b * log(2.0));
    sdk_em_puts(em, " * (");
    sdk_em_number(em, log2(SDK_PI / 2));
    sdk_em_puts(em, " + SDK_LG2F(sdk_W) + sdk_levy_lcos_f(sdk_d) - SDK_LG2F(sdk_p)));\n");
    return 0;
  }
  double t = tan(SDK_PI * a / 2), B = atan(b * t) / a, S = pow(1 + b * b * t * t, 1 / (2 * a));
  /* X = S sin(a (V + B)) 2^E, E = -(1/a) log2 cos V + ((1 - a)/a) (log2 cos(V - a (V + B)) -
   * log2 W), and DST = X k, k = dt^(1/a - 1/2) (emit_scaled): log2(S k) a term of E where k is
   * a literal (two FMAs make E).  The second cosine is > 0 in exact arithmetic, kept from
   * below where its argument, of absolute value up to |1 - a| pi/2 + |a B|, comes within 1e-3
   * of pi/2; it is even: its argument's factor of s made positive (an FMA, not a negation). */
  double k = S, c = -a * B, am = 1 - a;
  if (o->dt_column < 0) k *= pow(o->dt, 1 / a - 0.5);
  if (am < 0) am = -am, c = -c;
  int guard = fabs(1 - a) * SDK_PI / 2 + fabs(a * B) > SDK_PI / 2 - 1e-3;
  sdk_em_start(em, "%s = sinf(", dst);
  emit_varg(em, a, a * B);
  sdk_em_puts(em, ") * SDK_EX2F(SDK_FMAF(");
  sdk_em_number(em, (1 - a) / a);
  sdk_em_printf(em, ", sdk_levy_lq_f(%scosf(", guard ? "fmaxf(" : "");
  emit_varg(em, am, c);
  sdk_em_printf(em, ")%s, sdk_ow), SDK_FMAF(", guard ? ", 1e-37f)" : "");
  sdk_em_number(em, -1 / a);
  sdk_em_puts(em, ", sdk_levy_lcos_f(sdk_d), ");
  sdk_em_number(em, log2(k));
  sdk_em_puts(em, ")))");
  if (o->dt_column >= 0) emit_dt_factor(em, o, 1 / a - 0.5, dt);
  sdk_em_puts(em, ";\n");
  return 1;
}

/* "const real sdk_X = X;" in double precision from sdk_o (words 0, 1: W;
 * 2: V) */
static void emit_x_double(sdk_emit *em, double a, double b) {
  emit_exp1(em);
  sdk_em_start(em, "const real sdk_v = ");
  sdk_em_number(em, SDK_PI);
  sdk_em_puts(em, " * (sdk_u01_d(sdk_o[2]) - ");
  sdk_em_number(em, 0.5);
  sdk_em_puts(em, ");\n");
  if (a == 2) {
    sdk_em_line(em, "const real sdk_X = (real)2 * sqrt((real)sdk_W) * sin(sdk_v);");
  } else if (a == 1) {
    sdk_em_start(em, "const real sdk_p = ");
    sdk_em_number(em, SDK_PI / 2);
    sdk_em_puts(em, " + ");
    sdk_em_number(em, b);
    sdk_em_puts(em, " * sdk_v;\n");
    sdk_em_start(em, "const real sdk_X = ");
    sdk_em_number(em, 2 / SDK_PI);
    sdk_em_puts(em, " * (sdk_p * tan(sdk_v) - ");
    sdk_em_number(em, b);
    sdk_em_puts(em, " * log(");
    sdk_em_number(em, SDK_PI / 2);
    sdk_em_puts(em, " * (real)sdk_W * cos(sdk_v) / sdk_p));\n");
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
    sdk_em_puts(em, " * sin(sdk_av) * exp(");
    sdk_em_number(em, -1 / a);
    sdk_em_puts(em, " * log(cos(sdk_v)) + ");
    sdk_em_number(em, (1 - a) / a);
    sdk_em_puts(em, " * log(fmax(cos(sdk_v - sdk_av) / (real)sdk_W, ");
    sdk_em_number(em, 1e-300);
    sdk_em_puts(em, ")));\n");
  }
}

/* "DST = X scaled;" (X in sdk_X) */
static void emit_scaled(sdk_emit *em, const sdk_codegen_opts *o, double a, double b, const char *dt,
                        const char *dst) {
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
}

void sdk_cg_levy_z_words(sdk_emit *em, const sdk_codegen_opts *o, int l, const char *ww,
                         const char *wv, const char *dt, const char *dst) {
  const sdk_levy *lv = &o->model->levy[l];
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_u32 sdk_ow = %s, sdk_ov = %s;", ww, wv);
  if (!emit_x_single(em, o, lv->alpha, lv->beta, dt, dst))
    emit_scaled(em, o, lv->alpha, lv->beta, dt, dst);
  sdk_em_close(em);
}

void sdk_cg_levy_z(sdk_emit *em, const sdk_codegen_opts *o, int l, const char *step,
                   const char *path, const char *seed, const char *dt, const char *dst) {
  const sdk_model *m = o->model;
  const sdk_levy *lv = &m->levy[l];
  sdk_em_block(em);
  if (o->single) { /* the block of the step's pair, the step's half of it */
    char pair[96];
    snprintf(pair, sizeof pair, "(%s) >> 1", step);
    sdk_cg_levy_block(em, o, l, pair, path, seed, NULL, "sdk_o");
    sdk_em_line(em, "const int sdk_h = (int)((%s) & 1);", step);
    sdk_cg_levy_z_words(em, o, l, "sdk_h ? sdk_o[2] : sdk_o[0]", "sdk_h ? sdk_o[3] : sdk_o[1]", dt,
                        dst);
    sdk_em_close(em);
    return;
  }
  sdk_em_line(em, "sdk_u32 sdk_o[4];");
  sdk_em_line(em,
              "sdk_philox_block(%s, %s, 0x4400000000000000ull + (sdk_u64)(%s) * %du + %du, 0, "
              "sdk_o);",
              seed, path, step, m->nlevy, l);
  emit_x_double(em, lv->alpha, lv->beta);
  emit_scaled(em, o, lv->alpha, lv->beta, dt, dst);
  sdk_em_close(em);
}

int sdk_cg_levy_predrawn(const sdk_codegen_opts *o) {
  return sdk_cg_levy_pairs(o) && o->dt_column < 0 && o->target == SDK_TARGET_CPU && !o->sysmode;
}

int sdk_cg_levy_all(const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int j = 0; j < m->nnoise; j++)
    if (sdk_cg_levy_channel(m, j) < 0) return 0;
  return sdk_cg_levy_predrawn(o);
}

void sdk_cg_levy_cpu_draws(sdk_emit *em, const sdk_codegen_opts *o) {
  if (!sdk_cg_levy_predrawn(o)) return;
  const sdk_model *m = o->model;
  for (int j = 0; j < m->nnoise; j++) {
    int l = sdk_cg_levy_channel(m, j);
    if (l < 0) continue;
    /* the pairs that steps [n0, n1) touch; a half outside them is drawn, not stored */
    sdk_em_open(em, "for (sdk_i64 pk = (step0 + s) >> 1; 2 * pk < step0 + s + ns; pk++)");
    sdk_em_line(em, "const int h0 = 2 * pk >= step0 + s, h1 = 2 * pk + 1 < step0 + s + ns;");
    sdk_em_line(em, "#pragma omp simd");
    sdk_em_line(em, "SDK_LV_LOOP");
    sdk_em_open(em, "for (int i = 0; i < SDK_BLK; i++)");
    sdk_cg_levy_block(em, o, l, "pk", "(sdk_u64)(path0 + p0 + i)", "sdk_seed", NULL, "sdk_o");
    sdk_em_line(em, "real sdk_z0, sdk_z1;");
    sdk_cg_levy_z_words(em, o, l, "sdk_o[0]", "sdk_o[1]", "sdk_dt", "sdk_z0");
    sdk_cg_levy_z_words(em, o, l, "sdk_o[2]", "sdk_o[3]", "sdk_dt", "sdk_z1");
    sdk_em_line(em, "if (h0) zb[2 * pk * SDK_NN + %d - b0 * 4][i] = sdk_z0;", j);
    sdk_em_line(em, "if (h1) zb[(2 * pk + 1) * SDK_NN + %d - b0 * 4][i] = sdk_z1;", j);
    sdk_em_close(em);
    sdk_em_close(em);
  }
}
