/* sdekit: the time-step bias of the observables' values (--dt-check).
 *
 * With --dt-check every path also carries a coarse copy integrated at 2 dt
 * with the same Brownian increments (codegen/codegen.h, the coupled coarse
 * path).  For a value V(dt) (the mean of f over the paths) of a scheme of
 * weak order p, V(dt) = V(0) + C dt^p + O(dt^(p+1)), so the Richardson
 * estimate of its bias V(dt) - V(0) is
 *   bias = (V(2 dt) - V(dt)) / (2^p - 1),
 * the mean of the per-path coupled difference D = f(coarse) - f(fine) over
 * 2^p - 1.  Its standard error is that of D's mean over 2^p - 1: far below
 * the value's own, since the two paths share their noise and D is of the
 * order of the scheme's strong error.  The moments of D come from the
 * module's user-observable reduction (codegen.h, sdk_cg_nobs_eval: the
 * differences after the user observables), folded on the host like any
 * other moments (observe/paths.c), so whatever continues that fold
 * continues them.
 *
 * Every value dataset GROUP/NAME with a standard_error attribute of a
 * supported observable gets
 *   GROUP/bias_NAME      (its standard_error attribute names bias_err_NAME)
 *   GROUP/bias_err_NAME
 * shaped like the value.  --extrapolate reports V(dt) - bias as the value
 * (attribute extrapolated = 1 on it) and as its standard error err +
 * bias_err: an upper bound of the standard error of the difference whatever
 * the correlation of the two (sd(X - Y) <= sd(X) + sd(Y)), honest where the
 * exact one would need a third reduction; bias_err is the smaller by far. */
#ifndef SDK_OBSERVE_BIAS_H
#define SDK_OBSERVE_BIAS_H

#include "observe/observable.h"

typedef struct sdk_bias {
  double *bias, *err; /* NULL without --dt-check */
  double order;       /* the p of 2^p - 1 */
} sdk_bias;

/* With --dt-check: GROUP/bias_NAME and GROUP/bias_err_NAME shaped as
 * sdk_obs_dataset's arguments say (those of the value dataset `value`,
 * which gets extrapolated = 1 with --extrapolate).  Without: b cleared. */
sdk_err sdk_bias_setup(const sdk_obs_ctx *c, const char *group, const char *name,
                       sdk_dataset *value, int nextra, const int64_t *extra, int sample_axis,
                       sdk_bias *b, sdk_errbuf *eb);
/* The same with the order p given (attribute order): the values whose
 * order is not the scheme's weak order (first passage, obs_fpt.c). */
sdk_err sdk_bias_setup_order(const sdk_obs_ctx *c, const char *group, const char *name,
                             sdk_dataset *value, int nextra, const int64_t *extra, int sample_axis,
                             double p, sdk_bias *b, sdk_errbuf *eb);
/* Entry i of the bias datasets from the moments d of the coupled
 * difference times `scale` (that of the value); with --extrapolate the value
 * *v and its standard error *err become the extrapolated ones (above). */
void sdk_bias_set(const sdk_obs_ctx *c, const sdk_bias *b, int64_t i, const sdk_moments *d,
                  double scale, double *v, double *err);
/* The moments of everything the module evaluates at the state after `step`
 * steps (the user observables, then the coupled differences:
 * codegen.h sdk_cg_nobs_eval), out[g * c->nobs_eval + k]: malloc'ed into
 * *out. */
sdk_err sdk_bias_moments(const sdk_obs_ctx *c, int64_t step, sdk_moments **out, sdk_errbuf *eb);
#endif
