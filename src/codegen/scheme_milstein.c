/* milstein: the Milstein scheme for diagonal noise (Kloeden & Platen 1992,
 * Sec. 10.3), Euler-Maruyama plus the Ito correction of the noise term:
 *   X_{n+1} = X_n + a dt + b dW + 1/2 b db/dx (dW^2 - dt),  dW = sqrt(dt) psi,
 * all at (X_n, t_n), for each variable with its own Wiener increment.
 * Strong order 1 when the noise is commutative: with one Wiener process per
 * variable, when b_v depends on no other variable that has noise (else the
 * scheme would need the Levy areas of pairs of Wiener processes, and the
 * generator refuses the model: codegen.c).  Weak order 1.  db/dx comes from
 * the symbolic differentiator (model/diff.c); a model in the Stratonovich
 * sense is integrated with its drift corrected by +1/2 b db/dx (codegen.c),
 * which with this scheme gives Stratonovich's Milstein scheme
 * X_{n+1} = X_n + a dt + b dW + 1/2 b db/dx dW^2.  For additive noise it is
 * Euler-Maruyama, to the bit. */
#include "codegen/scheme.h"

/* The embedded partner of --adaptive (codegen/adaptive.c): Euler-Maruyama's
 * noise with the trapezoidal (Heun) drift,
 *   E = X_n + h/2 (a(X_n, t_n) + a(P, t_n + h)) + b dW,  P = X_n + a h + b dW,
 * so that
 *   X_{n+1} - E = 1/2 b db/dx (dW^2 - h) - h/2 (a(P, t_n + h) - a(X_n, t_n)).
 * The first term is Euler's noise error, O(h), which Milstein corrects; the
 * second is the local error of the Euler drift that Milstein keeps,
 * h/2 (a' b dW + a_t h + ...) = O(h^{3/2}), whose mean h^2/2 (a a' + b^2 a''/2
 * + a_t) is the drift's weak local error.  Milstein - Euler alone had no
 * drift term: the tolerances never saw the drift's error (geometric Brownian
 * motion, mu 0.5, sigma 0.1, dt-max 1/4, rtol 1e-3: E S(1) 1.615 +- 0.001
 * against e^0.5 = 1.6487).  Noise at t_n only (no noise_average): the partner
 * is Ito, as the kept step is.  Its stage times 0 and 1 are srk2's, and stage
 * 0 is the kept step's: the hoisted time-only values of both steps are kept
 * per stage index (adaptive.c checks that the stage times agree). */
static const sdk_srk_table partner_table = {
    .A = {{0, 0}, {1, 0}},
    .B = {0, 1},
    .c = {0, 1},
    .alpha = {0.5, 0.5},
};

static const sdk_scheme_type milstein_partner = {
    .name = "euler-trapezoid",
    .description = "Euler-Maruyama noise with the trapezoidal drift (milstein's embedded pair)",
    .strong_order = 0.5,
    .weak_order = 1,
    .calculus = SDK_CALCULUS_ITO,
    .noise_kinds = SDK_NOISE_ADDITIVE | SDK_NOISE_DIAGONAL,
    .features = SDK_FEATURE_TIME_NOISE | SDK_FEATURE_BOUNDARIES,
    .stages = 2,
    .srk = &partner_table,
    .noise = &sdk_noise_gaussian,
    .emit_step = sdk_srk_emit_step,
};

static const sdk_srk_table milstein_table = {
    .A = {{0}},
    .B = {0},
    .c = {0},
    .alpha = {1},
    .milstein = 1,
};

const sdk_scheme_type sdk_scheme_milstein = {
    .name = "milstein",
    .description = "Milstein (strong order 1 for diagonal, commutative noise; Ito)",
    .strong_order = 1,
    .weak_order = 1,
    .calculus = SDK_CALCULUS_ITO,
    .noise_kinds = SDK_NOISE_ADDITIVE | SDK_NOISE_DIAGONAL,
    .features = SDK_FEATURE_TIME_NOISE | SDK_FEATURE_BOUNDARIES,
    .stages = 1,
    .srk = &milstein_table,
    .noise = &sdk_noise_gaussian,
    .emit_step = sdk_srk_emit_step,
    .commutative = 1,
    /* the difference from its partner (above): Euler's noise error, O(h),
     * plus the drift's own local error */
    .embedded = &milstein_partner,
    .est_noise = SDK_NOISE_DIAGONAL,
    .est_order = 1,
};
