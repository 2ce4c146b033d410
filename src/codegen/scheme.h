/* sdekit: integration schemes as data.
 *
 * A scheme is a const sdk_scheme_type: its name, its capabilities as data
 * (orders, calculus, which noise kinds and model features it integrates,
 * number of stages), the coefficient table of an explicit stochastic
 * Runge-Kutta method where it is one, the noise source its steps draw from,
 * and the emitter of one step.  Nothing compares scheme names: the
 * generator refuses a model by the capabilities (codegen.c), the tests
 * check every registered table against its declared orders
 * (tests/test_schemes.c), and the registry (sim/registry.c) is the only
 * place that looks a name up.  A new scheme is one file defining its
 * sdk_scheme_type plus one line of the registry.
 *
 * The step emitter writes one step over scalar locals.  In scope: sdk_x<v>
 * (the state, updated in place), sdk_z<j> (the noise value of the j-th
 * noisy variable, from the scheme's noise source, N(0,1) for Gaussian
 * noise), sdk_t0 (and sdk_tp0 with a period) the step's time, sdk_dt,
 * sdk_sqdt and the parameters; with opts.compensate also sdk_c<v> (the
 * carried rounding errors, codegen.h) and, with opts.comp_defer, sdk_hi<v>.
 *
 * Explicit stochastic Runge-Kutta schemes (srk.c) for
 *     dX = a(X, t) dt + b(X, t) dW      (diagonal noise)
 * with one noise value psi per noisy variable and step:
 *
 *   H_i     = X_n + dt * sum_{j<i} A[i][j] a(H_j, t_n + c_j dt) + B[i] * b * sqrt(dt) psi
 *   X_{n+1} = X_n + dt * sum_i alpha[i] a(H_i, t_n + c_i dt) + b * sqrt(dt) psi
 *
 * where b is evaluated at (X_n, t_n), or with noise_average at both ends of
 * the step (see sdk_srk_table).  For additive noise this form has weak
 * order 1 when sum alpha = 1 and c_i = sum_j A_ij, and weak order 2 when
 * also sum alpha c = 1/2 and sum alpha B = 1/2 (the a' b dZ term of the
 * weak Ito-Taylor scheme, Kloeden & Platen 1992, Sec. 14.2, with
 * dZ -> dt dW / 2), plus noise_average when b depends on t.
 *
 * Later schemes fit the same type: Milstein (strong order 1 for diagonal
 * multiplicative noise; its emitter needs db/dx, a model feature), a weak
 * order 2 scheme drawing three-point values (its own noise source),
 * correlated Wiener noise, Poisson jumps or dichotomous noise (noise kinds
 * the model declares and the scheme lists as supported).
 */
#ifndef SDK_SCHEME_H
#define SDK_SCHEME_H

#include "codegen/noise.h"
#include "model/model.h" /* sdk_calculus */

/* Most stages of a scheme (the hoisting of time-only values keeps one set
 * of values per stage time). */
#define SDK_MAX_STAGES 4

/* (the calculus a scheme's limit solves with state-dependent noise:
 * sdk_calculus, model/model.h) */

/* Noise kinds of a model that a scheme integrates (bits of noise_kinds). */
enum {
  SDK_NOISE_ADDITIVE = 1u << 0, /* b(t) independent of the state: dX_v = ... + b_v(t) dW_v */
  SDK_NOISE_DIAGONAL = 1u << 1, /* multiplicative, diagonal: b_v(X, t) dW_v */
};

/* Model features a scheme integrates (bits of features). */
enum {
  /* a noise amplitude that depends on t, at the scheme's weak order */
  SDK_FEATURE_TIME_NOISE = 1u << 0,
  /* systems of interacting particles ([meanfield], [pair], [particle];
   * the system drivers sys_cpu.c, sys_cuda.c) */
  SDK_FEATURE_SYSTEMS = 1u << 1,
  /* [boundaries]: the step leaves sdk_bw<v> = b sqrt(dt) (the noise it
   * used) for the bridge correction (codegen/boundary.c) */
  SDK_FEATURE_BOUNDARIES = 1u << 2,
  /* delayed values VAR(t - TAU) (delay.c): stages at t_n and t_n + dt
   * only, no derivatives of the noise */
  SDK_FEATURE_DELAYS = 1u << 3,
};

/* Coefficients of an explicit SRK scheme (the form above).  Entries past
 * the scheme's stages are 0. */
typedef struct sdk_srk_table {
  double A[SDK_MAX_STAGES][SDK_MAX_STAGES]; /* strictly lower triangular */
  double B[SDK_MAX_STAGES];                 /* noise weight in stage i */
  double c[SDK_MAX_STAGES];                 /* stage times (fractions of dt) */
  double alpha[SDK_MAX_STAGES];             /* drift weights of the update */
  /* 1: a noise amplitude b(t) that depends on t is the average
   * (b(t_n) + b(t_n + dt)) / 2, taken at a stage whose time is t_n + dt;
   * needed for weak order 2 with such noise (scheme_srk2.c explains why) */
  int noise_average;
  /* 1: the update adds the Milstein term 1/2 b db/dx (dW^2 - dt) of each
   * noisy variable (b and db/dx at X_n, t_n; the derivative of the noise
   * with respect to its own variable, sdk_codegen_opts.dnoise), which needs
   * commutative noise (codegen.c refuses other models) */
  int milstein;
} sdk_srk_table;

struct sdk_codegen_opts;
struct sdk_cg_hoist;
/* Emit one step (see above) at em's depth.  h (may be NULL) records the
 * time-only values the step refers to (expr_emit.h). */
typedef void (*sdk_step_emit_fn)(sdk_emit *em, const struct sdk_codegen_opts *o,
                                 struct sdk_cg_hoist *h);

typedef struct sdk_scheme_type {
  const char *name;
  const char *description;
  /* orders of convergence: strong over every noise kind it supports, weak
   * for additive noise (the paper's setting) */
  double strong_order;
  int weak_order;
  sdk_calculus calculus;
  unsigned noise_kinds;        /* SDK_NOISE_* */
  unsigned features;           /* SDK_FEATURE_* */
  int stages;                  /* drift evaluations per step, 1..SDK_MAX_STAGES */
  const sdk_srk_table *srk;    /* explicit SRK schemes; NULL for others */
  const sdk_noise_type *noise; /* the values sdk_z<j> are drawn from */
  sdk_step_emit_fn emit_step;
  /* 1: the scheme needs commutative noise (one Wiener process per variable:
   * b_v independent of the other noisy variables); codegen.c refuses other
   * models.  Set by the schemes with a Milstein term too (srk->milstein). */
  int commutative;
  /* A scheme that is no SRK one but equals an SRK form for additive noise
   * (weak2: the stochastic Heun method): that table, which the exact
   * recursions of the tests read (sdk_scheme_additive_form); else NULL. */
  const sdk_srk_table *additive_srk;
  /* Adaptive steps (--adaptive, codegen/adaptive.c): the lower-order scheme
   * of the embedded pair whose difference from this one estimates the local
   * error, the noise kinds (SDK_NOISE_*) for which that estimate is valid,
   * and its order q (estimate ~ h^q); NULL: no estimator. */
  const struct sdk_scheme_type *embedded;
  unsigned est_noise;
  double est_order;
} sdk_scheme_type;

/* Euler-Maruyama (scheme_euler.c), the lower member of the embedded pairs. */
extern const sdk_scheme_type sdk_scheme_euler;

/* The SRK table a scheme's step is for additive noise: its own, or
 * additive_srk; NULL when neither. */
static inline const sdk_srk_table *sdk_scheme_additive_form(const sdk_scheme_type *s) {
  return s->srk ? s->srk : s->additive_srk;
}

/* srk2's table (scheme_srk2.c), the additive-noise form of weak2 too. */
extern const sdk_srk_table sdk_srk2_table;

/* The step emitter of every explicit SRK scheme (srk.c): reads scheme->srk. */
void sdk_srk_emit_step(sdk_emit *em, const struct sdk_codegen_opts *o, struct sdk_cg_hoist *h);
/* The update of variable v, x_v = x_v + TERMS, where the caller emits
 * " + ..." terms between the two (srk.c): a Kahan sum into the carried
 * error when compensated (codegen.h), with deferred renormalisation
 * x_v = hi_v + c_v under comp_defer. */
void sdk_cg_update_open(sdk_emit *em, const struct sdk_codegen_opts *o, int v);
void sdk_cg_update_close(sdk_emit *em, const struct sdk_codegen_opts *o, int v);
/* Platen's weak order 2 step (srk.c, scheme_weak2.c). */
void sdk_weak2_emit_step(sdk_emit *em, const struct sdk_codegen_opts *o, struct sdk_cg_hoist *h);

#endif
