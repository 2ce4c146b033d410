/* euler: Euler-Maruyama, one stage (Kloeden & Platen 1992, Sec. 10.2):
 *   X_{n+1} = X_n + a(X_n, t_n) dt + b(X_n, t_n) sqrt(dt) psi.
 * Strong order 1/2, weak order 1.  With state-dependent noise b(X) it
 * converges to the Ito solution; it is the scheme of systems of interacting
 * particles (the paper's PROG2/PROG3). */
#include "codegen/scheme.h"

static const sdk_srk_table euler_table = {
    .A = {{0}},
    .B = {0},
    .c = {0},
    .alpha = {1},
};

const sdk_scheme_type sdk_scheme_euler = {
    .name = "euler",
    .description = "Euler-Maruyama (weak order 1; Ito for multiplicative noise)",
    .strong_order = 0.5,
    .weak_order = 1,
    .calculus = SDK_CALCULUS_ITO,
    .noise_kinds = SDK_NOISE_ADDITIVE | SDK_NOISE_DIAGONAL,
    .features =
        SDK_FEATURE_TIME_NOISE | SDK_FEATURE_SYSTEMS | SDK_FEATURE_BOUNDARIES | SDK_FEATURE_DELAYS,
    .stages = 1,
    .srk = &euler_table,
    .noise = &sdk_noise_gaussian,
    .emit_step = sdk_srk_emit_step,
};
