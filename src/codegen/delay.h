/* sdekit: delayed values VAR(t - TAU) (model.h, sdk_delay): the ring buffers
 * of the delayed variables' past states, rows of the path's state; the
 * maths and the layout are in delay.c. */
#ifndef SDK_CODEGEN_DELAY_H
#define SDK_CODEGEN_DELAY_H

#include "codegen/emit.h"
#include "codegen/opts.h"
#include "core/error.h"

/* The delay in steps of the model's delay k, TAU/dt at the run's values
 * (1 where it is no whole number of at least one step: refused by
 * sdk_cg_delay_check). */
int64_t sdk_cg_delay_steps(const sdk_codegen_opts *o, int k);
/* The rows of the ring buffers (the block [dly, dly + n) of codegen.h):
 * variable v's ring, of *len slots, starts at the block's row returned
 * (-1 where v is not delayed). */
int64_t sdk_cg_delay_ring(const sdk_codegen_opts *o, int v, int64_t *len);
int64_t sdk_cg_delay_rows(const sdk_codegen_opts *o);
/* The state row of the rings' block (codegen.h, dly); whether the scheme
 * has a stage at t_n + dt (then a step reads x_{n + 1 - D} too). */
int sdk_cg_delay_block_row(const sdk_codegen_opts *o);
int sdk_cg_delay_end_stage(const sdk_codegen_opts *o);
/* What delays exclude (schemes, --adaptive, --dt-check, scans of TAU or dt,
 * TAU not a whole number of at least one step), one message each. */
sdk_err sdk_cg_delay_check(const sdk_codegen_opts *o, sdk_errbuf *eb);
/* In sdk_init, after the variables' initial values sdk_x<v>: each ring
 * filled with the history (st, npad, p, sdk_dt in scope). */
void sdk_cg_delay_init(sdk_emit *em, const sdk_codegen_opts *o);
/* The CPU driver's, before the step n = `step`: the delayed values at the
 * stages' times from the rings (`ring`: a real * to the path's row 0,
 * `stride` the distance between rows), x_n into its slot between them. */
void sdk_cg_delay_pre(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *ring,
                      const char *stride);
/* Whether the CUDA module keeps the rings as quads of slots (delay_cuda.c):
 * then the block's rows [dly, dly + n) hold 4 slots per path in every 4
 * rows, sdk_cuda_quad_at (abi.h). */
int sdk_cg_delay_quads(const sdk_codegen_opts *o);
/* The CUDA driver's side (delay_cuda.c): the step function takes the
 * delayed values x_{n - D} (sdk_dq<k>_0) and, with a stage at t_n + dt,
 * x_{n + 1 - D} (sdk_dq<k>_1) as arguments; the driver keeps the slots and
 * the value x_{n + 1 - D} of step n (x_{(n + 1) - D} of step n + 1) in
 * registers.  _params: the step function's parameters (decl) or the
 * call's arguments; _start: before the first step of a launch (n, st, p0,
 * npad in scope); _step: before step n of the pass, inside the path's guard
 * (r: its place in a group of g steps whose values _group read, -1 outside
 * the groups); _after: after that step's call; _group / _group_end: at the
 * start and the end of a group of g steps; _ahead: before the loop of the
 * groups. */
void sdk_cg_delay_cuda_params(sdk_emit *em, const sdk_codegen_opts *o, int decl);
void sdk_cg_delay_cuda_start(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_delay_cuda_step(sdk_emit *em, const sdk_codegen_opts *o, int r, int g);
void sdk_cg_delay_cuda_after(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_delay_cuda_ahead(sdk_emit *em, const sdk_codegen_opts *o, int g);
void sdk_cg_delay_cuda_group(sdk_emit *em, const sdk_codegen_opts *o, int g);
void sdk_cg_delay_cuda_group_end(sdk_emit *em, const sdk_codegen_opts *o, int g);
/* In a stage's bindings of the names (srk.c): sdk_dl<k>, the delayed values
 * at the stage time t_n + c dt (c = 0 or 1). */
void sdk_cg_delay_bind(sdk_emit *em, const sdk_codegen_opts *o, double c);

#endif
