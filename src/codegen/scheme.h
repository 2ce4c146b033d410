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
} sdk_scheme;

/* NULL-terminated registry; find by name (NULL if unknown). */
extern const sdk_scheme *const sdk_schemes[];
const sdk_scheme *sdk_scheme_find(const char *name);

#endif
