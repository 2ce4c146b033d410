/* sdekit: answers to a requested accuracy by runs over windows of paths
 * (sim/run.h sdk_path_window, observe/paths.h sdk_carry) with the coupled
 * path at 2 dt (--dt-check, observe/bias.h).
 *
 * --mlmc EPS: Giles' multilevel Monte Carlo (Oper. Res. 56, 2008; the
 * adaptive algorithm of Acta Numerica 24, 2015, section 2.1) for the values
 * whose time-step bias --dt-check measures at t_end (moments, expr) and the
 * time averages (tavg, drift).  Level l runs at dt_l = dt_0 2^-l (dt_0 from
 * --dt or --spp); level 0 estimates E P_0 from plain paths, level l >= 1
 * E (P_l - P_(l-1)) from the coupled pairs of --dt-check (the fine path at
 * dt_l, the coarse at 2 dt_l driven by the sums of its increments), whose
 * mean is -(2^p - 1) bias_l and whose variance (2^p - 1)^2 bias_err_l^2 N_l.
 * The levels are independent: level l draws from the seed mixed with l.
 *
 *   start     levels 0, 1, 2 with one window unit (16384 paths, or --paths
 *             rounded up to units) each
 *   paths     N_l = ceil(4 EPS^-2 sqrt(V_l / C_l) sum_k sqrt(V_k C_k)) for
 *             every quantity, the most of them: the cheapest paths with
 *             the variance sum_l V_l / N_l = EPS^2 / 4; the paths missing
 *             run as one window per level (its carry continues the
 *             earlier windows' sums)
 *   levels    when no level needs more paths: the bias estimate
 *             max(|Y_L|, |Y_(L-1)| / 2^p) / (2^p - 1) (p the weak order) of
 *             every quantity at most EPS / sqrt(2), or a level L + 1 is added
 *             (at most SDK_MLMC_MAX_LEVELS levels: then status 1)
 *
 * What EPS promises: |estimate - exact| <= EPS in about 95% of runs.  The
 * bias bound EPS / sqrt(2) is the (Giles' split of EPS^2 between
 * bias^2 and variance), but Giles' variance EPS^2 / 2 would be a standard
 * error EPS / sqrt(2), which leaves 16% of the estimates outside EPS even
 * without bias; the variance EPS^2 / 4 (SE <= EPS / 2) puts the 2-sigma band
 * inside EPS where the bias is small (it is 2^-p of the bound one level
 * later), and the RMS error stays below sqrt(1/2 + 1/4) EPS = 0.87 EPS.
 *
 * The cost C_l of a path is its number of steps, times 1.5 on coupled levels
 * (the coarse path's half steps): a deterministic model, never wall time, so
 * every decision is a function of (seed, settings, EPS) and of results that
 * are bitwise those of one run: the same bits for any thread count.  Each
 * grid point of a scan has its own levels and paths (a window's count is 0
 * for grid points that need nothing).  The result is that of level 0 (its
 * paths) with the values at t_end replaced by the estimates (attribute
 * mlmc = 1) and their standard errors by the total RMS error sqrt(bias^2 +
 * sum_l V_l / N_l), and the group mlmc/ with, per quantity GROUP_NAME,
 * value_Q, rms_error_Q, bias_Q [grid...] and mean_Q, var_Q [grid..., level]
 * (E and Var of P_0, then of Y_l), and levels, status [grid...], paths,
 * cost, dt [grid..., level].
 *
 * --target-error EPS: from the start dt, dt is halved (a new run, its own
 * carry) until |bias| + 2 bias_err <= EPS / 2 for every value with a bias
 * (every grid point on its own), then paths are added at that dt in windows
 * until every standard error is at most EPS / 2: |error| <= |bias| + 2 SE
 * <= EPS with the bias measured.  The result holds each grid point's values
 * from its final dt, with target/dt [grid...] the dt chosen and target/status.
 */
#ifndef SDK_MLMC_H
#define SDK_MLMC_H

#include "sim/run.h"

#define SDK_MLMC_MAX_LEVELS 20
/* N_l for the variance EPS^2 / SDK_MLMC_VAR_SHARE (above) */
#define SDK_MLMC_VAR_SHARE 4.0

/* Run c (c->mlmc > 0 or c->target_error > 0) as above. */
sdk_err sdk_mlmc_execute(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb);

#endif
