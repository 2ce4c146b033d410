/* weak2: the explicit weak order 2.0 scheme of Platen (Kloeden & Platen
 * 1992, Sec. 15.1, (15.1.1)), component by component for diagonal noise:
 *   P    = X_n + a dt + b dW                       (the predictor)
 *   R+-  = X_n + a dt +- b sqrt(dt)                (in the variable's own
 *                                                   component; the others
 *                                                   X_n + a dt)
 *   X_{n+1} = X_n + (a(P) + a) dt / 2
 *           + (b(R+) + b(R-) + 2 b) dW / 4
 *           + (b(R+) - b(R-)) (dW^2 - dt) / (4 sqrt(dt)),
 * a and b at (X_n, t_n), a(P), b(R+-) at t_n + dt.  Derivative-free, weak
 * order 2 for additive and multiplicative noise (Ito), as long as the noise
 * is commutative (with one Wiener process per variable: b_v independent of
 * the other noisy variables; the general scheme would need two-point
 * variables for the pairs, and the generator refuses such models).  For
 * additive noise it is the stochastic Heun method with the noise averaged
 * over the step (srk2's).  Weak order 2 needs only the moments of dW up to
 * the fifth, so three-point values (--noise three-point) keep it. */
#include "codegen/scheme.h"

const sdk_scheme_type sdk_scheme_weak2 = {
    .name = "weak2",
    .description = "Platen's explicit weak order 2 (additive and commutative multiplicative "
                   "noise; Ito)",
    .strong_order = 1,
    .weak_order = 2,
    .calculus = SDK_CALCULUS_ITO,
    .noise_kinds = SDK_NOISE_ADDITIVE | SDK_NOISE_DIAGONAL,
    .features = SDK_FEATURE_TIME_NOISE | SDK_FEATURE_BOUNDARIES,
    .stages = 2,
    .commutative = 1,
    .noise = &sdk_noise_gaussian,
    .emit_step = sdk_weak2_emit_step,
    /* for additive noise b(t): srk2's Heun form with b averaged over the step
     * (a(P) at t_n + dt; b(R+-) = b(t_n + dt), so the noise term is
     * (b(t_n) + b(t_n + dt)) / 2 dW and the last term vanishes) */
    .additive_srk = &sdk_srk2_table,
};
