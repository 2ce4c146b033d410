/* sdekit: the code of [boundaries] (model.h) around a path's step, shared by
 * the CPU and CUDA drivers (boundary.c has the maths and the conventions).
 *
 * In scope where these are emitted: sdk_x<v> (and sdk_c<v>, sdk_hi<v> of
 * the compensated update), the parameters, sdk_dt, and three reals of the
 * path's boundary rows: sdk_bs (status: 0 alive, b + 1 absorbed at boundary
 * b), sdk_bl and sdk_bh (the hitting step n + 1 as (n + 1) mod 2^20 and
 * (n + 1) >> 20, exact in single precision).  The rows themselves are
 * placed by sdk_cg_rows (codegen.h). */
#ifndef SDK_CODEGEN_BOUNDARY_H
#define SDK_CODEGEN_BOUNDARY_H

#include "codegen/emit.h"
#include "codegen/opts.h"

/* Does the step record sdk_bw<v> = b sqrt(dt) of variable v for the bridge
 * correction (an absorbing boundary or an [events] condition on a noisy v,
 * the correction on)? */
int sdk_cg_bridge_var(const sdk_codegen_opts *o, int v);
/* Before the step: sdk_bx<v> = x_n of the bridge's variables, real sdk_bw<v>,
 * and with save (CPU) sdk_o<v> / sdk_oc<v>, the state the step starts from. */
void sdk_cg_bound_pre(sdk_emit *em, const sdk_codegen_opts *o, int save);
/* After the step of step index `n` (a C expression) of path `path`, key
 * `seed`: reflections, then absorptions; with restore (CPU, all lanes
 * compute) a path absorbed before the step gets its saved state back, and
 * the bridge draws are left to sdk_cg_bound_draws (sdk_bp<k>). */
void sdk_cg_bound_post(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *path,
                       const char *seed, int restore);
/* CPU: the number of absorbing boundaries whose bridge draws are deferred
 * to a scalar pass after the vector loop; the lane's sdk_bp<k> = -ln p, -1
 * for no draw (declared before the step), copied out to arr[k][i] with
 * sdk_anyp |= (some draw) (after sdk_cg_bound_post); and the scalar pass
 * over the block (i over SDK_BLK) drawing where arr[k][i] >= 0 for paths
 * still alive by status row st[0][i], recording the hit in st[0..2][i]. */
int sdk_cg_bound_deferred(const sdk_codegen_opts *o);
void sdk_cg_bound_lane_decls(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_bound_lane_out(sdk_emit *em, const sdk_codegen_opts *o, const char *arr);
void sdk_cg_bound_draws(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *path,
                        const char *seed, const char *arr, const char *st);
/* In sdk_init, after the state is written at st[.. * npad + p]: the
 * boundary rows, a path that starts absorbed marked at step 0. */
void sdk_cg_bound_init(sdk_emit *em, const sdk_codegen_opts *o);

/* --adaptive (boundary.c has the rule): at a sub-step, with its start in
 * sdk_y<v>, its tentative end in sdk_x<v>, sdk_bs/bl/bh and int sdk_cross
 * in scope, the reflections, sdk_hit and the bridge's exponents, setting
 * sdk_cross where the sub-step should be shorter; and once it is accepted
 * the bridge draws keyed by its node `node` of step `n`, and the status. */
void sdk_cg_bound_sub(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_bound_sub_hit(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *node,
                          const char *path, const char *seed);

#endif
