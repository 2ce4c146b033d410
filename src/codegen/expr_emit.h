/* sdekit: model expressions in the generated source (the expression layer).
 *
 * Names.  Every name a model file declares reaches the source only as
 * u_NAME (emit.h, sdk_em_name); the generator's own names start with sdk_ /
 * SDK_ or are short locals of the drivers (i, j, g, p, n, ...), so a model
 * may use any identifier the model grammar accepts (n, i, main, exit, NULL,
 * linux, typeof, ...) without changing or breaking the generated code.
 *
 * Time (time_rule.c).  t in an expression is always the absolute time of
 * the stage, t_n + c_i dt with t_n = n dt computed in double from the
 * integer step index n and rounded once to `real` (sdk_t, sdk_t0 in the
 * source).  When the model declares a period P (spp steps per period) the
 * generator also has the phase time (n mod spp) dt + c_i dt (sdk_tp,
 * sdk_tp0), which stays small and exact in single precision over any number
 * of periods (the paper's float-time fix).  It is used only where it gives
 * the same value as the absolute time: in the argument of sin, cos or tan
 * when that argument is a sum whose terms with t are each COEFF * t with
 * COEFF * P a non-zero integer multiple of 2 pi, proven symbolically: the
 * factors of COEFF and of the period expression cancel pairwise (as
 * identical subexpressions) and the numbers left multiply to 2 pi k (e.g.
 * a*cos(omega*t + phi) with period = 2*pi/omega, or sin(2*pi*f*t) with
 * period = 1/f).  This holds whatever values a scan gives the parameters.
 * Everywhere else (a ramp c*t, exp(-t/tau), cos(omega*t) with an unrelated
 * period, ...) t is the absolute time.
 *
 * Hoisting (expr_emit.c).  A subexpression of the drift or noise that
 * depends on t but on no state variable and no scanned parameter (e.g.
 * a*cos(omega*t) with a fixed) has the same value for every path at a given
 * step.  The drivers compute it once per step and stage time instead of once
 * per path (on the paper's Josephson model this removes two of the cosines
 * of every SRK2 step).
 *
 * #line.  Every expression is preceded by a #line pointing at its line of
 * the model file (compiler messages name the file) and followed by one
 * pointing back at the generated text.
 */
#ifndef SDK_CODEGEN_EXPR_EMIT_H
#define SDK_CODEGEN_EXPR_EMIT_H

#include "codegen/emit.h"
#include "codegen/opts.h"

/* ---- time (time_rule.c) ---- */

/* Which times an expression needs: */
#define SDK_CG_TIME_ABS 1   /* sdk_t, the absolute time */
#define SDK_CG_TIME_PHASE 2 /* sdk_tp, the time modulo the period */
int sdk_cg_time_uses(const sdk_codegen_opts *o, const sdk_expr *e);
/* Is e a sin/cos/tan call that may be evaluated at the phase time? */
int sdk_cg_phase_call(const sdk_codegen_opts *o, const sdk_expr *e);
/* Flatten a chain of + and - (and unary -) into at most max signed terms;
 * the number of terms, -1 when there are more. */
int sdk_cg_flatten_sum(const sdk_expr *e, int sign, const sdk_expr **t, int *sg, int n, int max);

/* "const real sdk_t0<suffix> = <time of step N>" and, with a period,
 * sdk_tp0<suffix> (the phase time); N is a C expression of type sdk_i64;
 * needs sdk_dt in scope. */
void sdk_cg_step_time(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *suffix);
/* Bind the names expressions use for t: sdk_t = T and, with a period,
 * sdk_tp = TP (C expressions). */
void sdk_cg_bind_time(sdk_emit *em, const sdk_codegen_opts *o, const char *t, const char *tp);
/* Bind sdk_t (and sdk_tp with a period) to the time t_n + c dt of a stage;
 * needs sdk_t0 / sdk_tp0 and sdk_dt in scope.  uses: which of them
 * (SDK_CG_TIME_* bits). */
void sdk_cg_bind_time_at(sdk_emit *em, const sdk_codegen_opts *o, double c, int uses);

/* ---- expressions (expr_emit.c) ---- */

/* An expression (in parentheses, between its #line directives), with the
 * names of the scope: u_NAME of the model's names, sdk_xj<v> / sdk_pj<k>
 * for particle j of a pair function, sdk_t / sdk_tp for the time. */
void sdk_cg_expr(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line);
/* The expression alone: no parentheses around it, no #line (for trees the
 * generator built from its own names, correction.h). */
void sdk_cg_expr_plain(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e);

/* Time-only subexpressions hoisted out of the per-path code.  The bounds
 * are those of an optimisation: past them a subexpression is simply
 * computed per path (never refused, never truncated).  In the CUDA kernel a
 * sum's drive terms F * H (F a scanned or per-path parameter's expression,
 * H time-only: a cos(omega t) with a scanned) join its invariant part by one
 * spelled-out FMA each, fma(a, T, f) + ..., instead of an FMA and an add. */
#define SDK_CG_MAX_HOIST 32 /* values (bits of used[]) */
#define SDK_CG_MAX_TERMS 8  /* time-only and constant terms of one hoisted sum */
typedef struct sdk_cg_hoist {
  const sdk_codegen_opts *o;
  int enabled;
  int n;
  const sdk_expr *e[SDK_CG_MAX_HOIST]; /* root of the hoisted expression */
  /* a hoisted value is the signed sum of terms (one term for a plain subexpression,
   * several for the time-only and constant terms of a longer sum) */
  int nterms[SDK_CG_MAX_HOIST];
  const sdk_expr *term[SDK_CG_MAX_HOIST][SDK_CG_MAX_TERMS];
  int sign[SDK_CG_MAX_HOIST][SDK_CG_MAX_TERMS];
  int phase[SDK_CG_MAX_HOIST];   /* value k is inside a phase-time call */
  unsigned used[SDK_MAX_STAGES]; /* bit k: value k needed at stage time i */
  double c[SDK_MAX_STAGES];      /* stage time i is t_n + c[i] dt */
  int stage;
  int phase_only; /* values are tabulated by phase: none may use the absolute time */
} sdk_cg_hoist;
void sdk_cg_hoist_init(sdk_cg_hoist *h, const sdk_codegen_opts *o, int enabled);
/* An expression evaluated at stage `stage` of the step, time t_n + c dt,
 * referring to hoisted values as sdk_T<stage>_<k> (recorded in h; h NULL:
 * no hoisting). */
void sdk_cg_expr_at(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line,
                    sdk_cg_hoist *h, int stage, double c);
/* The same, where the stage's values of the CUDA kernel's deferred-compensated
 * variables (codegen.h) are also in scope as sdk_hi<v> + sdk_sl<v>: a product
 * K * x of such an x and a K with no state or time in it is emitted as
 * fma(K, sdk_sl<v>, K * sdk_hi<v>) (srk.c defines sdk_sl<v>).  K * sdk_hi<v> is
 * the same for the steps between two renormalisations, so the compiler
 * computes it once for them, and x = fl(h + l), which nothing else then
 * reads, is not computed every step: one add a step less (issue 32).  The
 * value differs from K * fl(h + l) by roundings of size ulp(K h), h within
 * R increments of x. */
void sdk_cg_expr_split(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line,
                       sdk_cg_hoist *h, int stage, double c);
/* Is x_v so split: compensated with the CUDA kernel's deferred renormalisation? */
int sdk_cg_split_var(const sdk_codegen_opts *o, int v);
/* Is e itself such a product K * x of a split x? */
int sdk_cg_split_product(const sdk_codegen_opts *o, const sdk_expr *e);
/* e * scale for such an e, as fma(K * scale, sdk_sl<v>, (K * scale) * sdk_hi<v>):
 * K * scale is the same for every step, so the scaling costs no multiply a
 * step (a noise amplitude times sqrt(dt): srk.c); the value differs from
 * fl(K x) * scale by roundings of the same size as the split's own */
void sdk_cg_expr_split_scaled(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line,
                              sdk_cg_hoist *h, int stage, double c, const char *scale);
/* Declarations of the recorded hoisted values; need sdk_t0 (and sdk_tp0),
 * sdk_dt and the fixed parameters in scope. */
void sdk_cg_hoist_decls(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_hoist *h);

#endif
