/* sdekit: [events] (model.h), resets of a path's variables when it crosses
 * a level, and their per-path records; the maths, rows and random numbers
 * are in resets.c. */
#ifndef SDK_CODEGEN_RESETS_H
#define SDK_CODEGEN_RESETS_H

#include "codegen/emit.h"
#include "codegen/opts.h"

/* Bins of the intervals between events (kernels/reset_draws.h) and the rows
 * of one event: count mod 2^20, count >> 20, last reset step mod 2^20, >>
 * 20, sum of intervals S and its remainder E, sum of squares S and E, resets
 * that left the condition true, then the bins. */
#define SDK_CG_RESET_BINS 44
#define SDK_CG_RESET_ROWS (9 + SDK_CG_RESET_BINS)

/* The definitions (after events.h's samplers). */
void sdk_cg_resets_defs(sdk_emit *em, const sdk_codegen_opts *o);
/* Before the step: sdk_ex<v> = x_n of every event's variable and, for the
 * bridge correction, real sdk_bw<v> (boundary.h) that the step sets. */
void sdk_cg_resets_pre(sdk_emit *em, const sdk_codegen_opts *o);
/* After the step n = `step` of path `path` (in scope the state, the
 * parameters, sdk_dt, and sdk_er / sdk_ern: a pointer to the path's first
 * event row and the distance between rows). */
void sdk_cg_resets(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *path,
                   const char *seed);
/* CPU: sdk_cg_resets leaves in the vector loop only whether an event may
 * have fired (and x_n, w) in the block's arrays these declare (before the
 * loop); the scalar pass after it (i over SDK_BLK, the state in xs / cs)
 * does the rest for those paths. */
void sdk_cg_resets_lane_decls(sdk_emit *em, const sdk_codegen_opts *o);
void sdk_cg_resets_scalar(sdk_emit *em, const sdk_codegen_opts *o, const char *step,
                          const char *path, const char *seed);
/* In sdk_init: the event rows at 0. */
void sdk_cg_resets_init(sdk_emit *em, const sdk_codegen_opts *o);

#endif
