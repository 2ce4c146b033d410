/* srk2: the stochastic Heun / 2nd-order stochastic Runge-Kutta method of
 * Januszewski & Kostur 2010, Alg. 2 (after Greiner, Strittmatter &
 * Honerkamp, J. Stat. Phys. 51, 95 (1988)):
 *   H_2 = X_n + dt a(X_n) + b sqrt(dt) psi,
 *   X_{n+1} = X_n + dt/2 (a(X_n) + a(H_2)) + b sqrt(dt) psi.
 * Weak order 2 for additive noise.  When b depends on X the update takes
 * the Heun average of the noise, (b(X_n, t_n) + b(H_2, t_n + dt)) / 2 in
 * place of b (srk.c, heun_stage): the stochastic Heun method, whose limit is
 * the Stratonovich solution (strong order 1 for diagonal noise b_v(x_v)); a
 * model in the Ito sense gets its drift corrected by -1/2 b db/dx
 * (codegen.c).  For additive noise nothing changes.
 *
 * Time-dependent additive noise b(t) (noise_average): b is the Heun
 * average  b_n = (b(t_n) + b(t_n + dt)) / 2,  not b(t_n).  Why: the weak
 * Ito-Taylor scheme of order 2 for additive noise (Kloeden & Platen 1992,
 * Sec. 14.2) has the noise terms  b dW + b_t (dt dW - dZ) + a' b dZ  with
 * dZ = int int dW ds; for weak order 2 dZ may be replaced by dt dW / 2, which
 * leaves  (b + b_t dt/2) dW = b(t_n + dt/2) dW + O(dt^2) dW.  b(t_n) alone
 * misses the b_t dt/2 term: for dx = b(t) dW the variance of one step is
 * b(t_n)^2 dt = int_{t_n}^{t_n+dt} b^2 ds - (b^2)' dt^2 / 2 + O(dt^3), an
 * O(dt^2) local error, i.e. Var x(T) only to first order in dt.  With the
 * average, writing m = t_n + dt/2,
 *   dt ((b(t_n) + b(t_n+dt))/2)^2 = dt (b(m)^2 + b(m) b''(m) dt^2/4) + O(dt^4)
 *   int b^2 ds                    = dt (b(m)^2 + (b'^2 + b b'') dt^2/12) + O(dt^5)
 * so each step errs by dt^3 (b b''/6 - b'^2/12) and Var x(T) by O(dt^2).
 * The drift's a' b dt dW / 2 comes from a(H_2) with b at t_n; the O(dt)
 * difference of b there enters the moments at O(dt^3) only.  The stage
 * times 0 and 1 are the scheme's own (values hoisted per stage time); noise
 * that does not depend on t is evaluated once, as before. */
#include "codegen/scheme.h"

const sdk_srk_table sdk_srk2_table = {
    .A = {{0, 0}, {1, 0}},
    .B = {0, 1},
    .c = {0, 1},
    .alpha = {0.5, 0.5},
    .noise_average = 1,
};

const sdk_scheme_type sdk_scheme_srk2 = {
    .name = "srk2",
    .description = "stochastic Heun, the paper's SRK2 (weak order 2 for additive noise; "
                   "Stratonovich for state-dependent noise)",
    .strong_order = 1,
    .weak_order = 2,
    .calculus = SDK_CALCULUS_STRATONOVICH,
    .noise_kinds = SDK_NOISE_ADDITIVE | SDK_NOISE_DIAGONAL,
    .features = SDK_FEATURE_TIME_NOISE | SDK_FEATURE_BOUNDARIES | SDK_FEATURE_DELAYS,
    .stages = 2,
    .srk = &sdk_srk2_table,
    .noise = &sdk_noise_gaussian,
    .emit_step = sdk_srk_emit_step,
    /* Heun - Euler = h/2 (a(H_2) - a(X_n)) = h/2 a' (a h + b dW) + ...: the
     * local error of Euler for additive noise, O(h^{3/2}) */
    .embedded = &sdk_scheme_euler,
    .est_noise = SDK_NOISE_ADDITIVE,
    .est_order = 1.5,
};
