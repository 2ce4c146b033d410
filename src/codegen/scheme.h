/* sdekit: integration schemes as data.
 *
 * Every scheme is an explicit stochastic Runge-Kutta method for
 *     dX = a(X, t) dt + b(X, t) dW      (diagonal noise)
 * with one Gaussian psi ~ N(0,1) per noisy variable and step:
 *
 *   H_i     = X_n + dt * sum_{j<i} A[i][j] a(H_j, t_n + c_j dt) + B[i] * b * sqrt(dt) psi
 *   X_{n+1} = X_n + dt * sum_i alpha[i] a(H_i, t_n + c_i dt) + b * sqrt(dt) psi
 *
 * where b is evaluated at (X_n, t_n).  This covers:
 *
 *  - euler: Euler-Maruyama, 1 stage (Kloeden & Platen 1992, Sec. 10.2).
 *    Strong order 1/2, weak order 1.  With state-dependent noise b(X) it
 *    converges to the Ito solution.
 *  - srk2: the stochastic Heun / 2nd-order stochastic Runge-Kutta method of
 *    Januszewski & Kostur 2010, Alg. 2 (after Greiner, Strittmatter &
 *    Honerkamp, J. Stat. Phys. 51, 95 (1988)): H_2 = X_n + dt a(X_n) +
 *    b sqrt(dt) psi, X_{n+1} = X_n + dt/2 (a(X_n) + a(H_2)) + b sqrt(dt) psi.
 *    Weak order 2 for additive noise; it assumes b does not depend on X
 *    (with multiplicative noise it would converge to Stratonovich), so
 *    sdekit rejects state-dependent noise for it.
 *
 * Time-dependent additive noise b(t) in srk2 (heun_noise): b is the Heun
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
 * that does not depend on t is evaluated once, as before.
 */
#ifndef SDK_SCHEME_H
#define SDK_SCHEME_H

#define SDK_MAX_STAGES 4

typedef struct sdk_scheme {
  const char *name;
  const char *description;
  int stages;
  double A[SDK_MAX_STAGES][SDK_MAX_STAGES]; /* strictly lower triangular */
  double B[SDK_MAX_STAGES];                 /* noise weight in stage i */
  double c[SDK_MAX_STAGES];                 /* stage times (fraction of dt) */
  double alpha[SDK_MAX_STAGES];             /* drift weights of the update */
  int weak_order;                           /* for additive noise */
  int additive_only;                        /* rejects state-dependent noise */
  int heun_noise;                           /* b(t) averaged over t_n and t_n + dt (see above) */
} sdk_scheme;

/* NULL-terminated registry; find by name (NULL if unknown). */
extern const sdk_scheme *const sdk_schemes[];
const sdk_scheme *sdk_scheme_find(const char *name);

#endif
