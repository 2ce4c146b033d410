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
/* What delays exclude (schemes, --adaptive, --dt-check, scans of TAU or dt,
 * TAU not a whole number of at least one step), one message each. */
sdk_err sdk_cg_delay_check(const sdk_codegen_opts *o, sdk_errbuf *eb);
/* In sdk_init, after the variables' initial values sdk_x<v>: each ring
 * filled with the history (st, npad, p, sdk_dt in scope). */
void sdk_cg_delay_init(sdk_emit *em, const sdk_codegen_opts *o);
/* Before the step n = `step`: the delayed values at the stages' times from
 * the rings (`ring`: a real * to the path's row 0, `stride` the distance
 * between rows), x_n into its slot between them. */
void sdk_cg_delay_pre(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *ring,
                      const char *stride);
/* In a stage's bindings of the names (srk.c): sdk_dl<k>, the delayed values
 * at the stage time t_n + c dt (c = 0 or 1). */
void sdk_cg_delay_bind(sdk_emit *em, const sdk_codegen_opts *o, double c);

#endif
