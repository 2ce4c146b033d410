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
 *   start     levels 0, 1, 2 with --paths (rounded up to whole reduction
 *             chunks of 256) each
 *   levels    b = max(|Y_L|, |Y_(L-1)| / 2^p) / (2^p - 1) (p the weak
 *             order), the bias estimate of each quantity: a level L + 1 is
 *             added while b > EPS / sqrt(2) for some quantity (the issue's
 *             rule; at most SDK_MLMC_MAX_LEVELS levels: then status 1), or
 *             while the paths still to run with it (its V and C level L's
 *             times 2^-beta and 2, beta twice the strong order, its b 2^-p,
 *             at least --paths of it) cost less than those without it
 *   paths     N_l = ceil(sqrt(V_l / C_l) sum_k sqrt(V_k C_k) / SE^2) with
 *             SE = (EPS - b) / 2, for every quantity, the most of them: the
 *             cheapest paths with the standard error SE; the paths missing
 *             run as one window per level (its carry continues the earlier
 *             windows' sums)
 *
 * What EPS promises: |estimate - exact| <= EPS in about 95% of runs, as
 * |b| + 2 SE <= EPS.  The bias bound EPS / sqrt(2) alone is Giles' split of
 * EPS^2 between bias^2 and a variance EPS^2 / 2, an RMS error EPS; but its
 * standard error EPS / sqrt(2) leaves 16% of the estimates outside EPS even
 * without bias, and more with a bias near its bound (euler's E S(1)^2 of GBM:
 * 16 of 20 seeds within EPS with SE EPS / 2).  The RMS error sqrt(b^2 + SE^2)
 * is at most 0.73 EPS (b = EPS / sqrt(2), SE = 0.15 EPS).
 *
 * Windows are whole reduction chunks (run.h sdk_path_window.chunks), not
 * whole fold units of 16384 paths: the levels' folds are then not bitwise
 * those of one run over their paths, which MLMC does not need, but the same
 * bits for any threads, shards and ranks; a floor of 16384 paths per level
 * would hide the cost's growth EPS^-2 (log EPS)^2 (euler), EPS^-2
 * (milstein) at the larger EPS.
 *
 * Checkpoints (--checkpoint, sdekit resume): the window running writes them
 * (sim/checkpoint.h), its level's carry in record CARY and this driver's
 * state in TGTS (the levels, their paths run and to run, the other levels'
 * carries, which level runs); a resumed driver gets the results of the
 * other levels from their carries (a window of no paths), ends the window
 * from its checkpoint and goes on: the same bits as a run never stopped.
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
 * --target-error EPS: runs at dt, dt/2, dt/4, ... (each a run of its own
 * carry, coupled to 2 dt by --dt-check) until, at a dt past the first,
 * |bias| + 2 bias_err <= EPS / 2 for every value with a bias (every grid
 * point on its own) and every standard error is at most EPS / 2: |error| <=
 * |bias| + 2 SE <= EPS with the bias measured.  Between rounds each grid
 * point takes the cheaper way on by the cost model below: more paths at its
 * dt, or the next dt (mlmc.c te_decide).  The bias a decision takes is the
 * Richardson estimate scaled up when the last halving showed a slower decay
 * than the scheme's order (te_factor: pre-asymptotic dt) and at least the
 * previous dt's over 2^p (te_bias: Giles' guard); it is never trusted at the
 * first dt, before any decay was seen.  The result holds each grid point's
 * values from its final dt, with target/dt [grid...] the dt chosen,
 * target/status, target/bias_factor (the scaling, 1 when the decay was the
 * scheme's) and target/bias_bound (|bias| + 2 SE(bias) as verified).
 *
 * Bounds (both drivers): --max-paths N, the paths of a grid point over all
 * its levels, and --max-seconds S, the seconds since the run began (a
 * resumed run: and its runs' before the checkpoint).  After
 * each round's decisions a grid point whose next round would take it past N
 * runs the paths that fit (each level's share cut in proportion, whole
 * chunks) and stops with what it has when none fit (status 3); under S a
 * level's round is at most 8 times the paths it was timed on, a round
 * predicted to end past S (each level at its own seconds per path) runs its
 * paths scaled down to fit, in pieces of about S/16 with the clock read
 * after each (a piece that ends past S ends the round), and when none are
 * left every grid point still going stops (status 4; the result then
 * depends on the machine's speed: GROUP/timing_dependent).  A level added in the decision that no
 * path runs on is dropped again; --target-error's result at a grid point stopped so is that of the
 * dt it ran with the smallest |bias| + 2 SE(bias) + 2 SE (mlmc_record.c best_dt).  Statuses:
 * SDK_MLMC_ST_* (mlmc_internal.h).
 */
#ifndef SDK_MLMC_H
#define SDK_MLMC_H

#include "sim/run.h"

#define SDK_MLMC_MAX_LEVELS 20

/* Run c (c->mlmc > 0 or c->target_error > 0) as above. */
sdk_err sdk_mlmc_execute(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb);

#endif
