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
    /* Milstein - Euler = 1/2 b db/dx (dW^2 - h): Euler's local error, O(h)
     * (zero for additive noise, where the two are the same scheme) */
    .embedded = &sdk_scheme_euler,
    .est_noise = SDK_NOISE_DIAGONAL,
    .est_order = 1,
};
