/* sdekit: events after each step of a path: Poisson jumps ([jumps]) and
 * dichotomous noise ([dichotomous]); the maths and the keying of their
 * random numbers are in events.c. */
#ifndef SDK_CODEGEN_EVENTS_H
#define SDK_CODEGEN_EVENTS_H

#include "codegen/emit.h"
#include "codegen/opts.h"

/* Does the model have events (jumps, dichotomous noises, [events])? */
int sdk_cg_has_events(const sdk_model *m);
/* Their samplers, once per module after the prelude's Philox. */
void sdk_cg_events_defs(sdk_emit *em, const sdk_codegen_opts *o);
/* The events after step `step` of path `path` (C expressions; seed the
 * seed's): in scope the state sdk_x<v> (sdk_c<v>, sdk_hi<v> when
 * compensated), the parameters and sdk_dt. */
void sdk_cg_events(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *path,
                   const char *seed);
/* x_v = the value sdk_nv (exactly: no carried error); in scope sdk_x<v>
 * (sdk_c<v>, sdk_hi<v> when compensated). */
void sdk_cg_event_set(sdk_emit *em, const sdk_codegen_opts *o, int v);
/* sdk_x<v> = the stationary initial value of dichotomous variable v (in
 * scope sdk_seed, sdk_gpath and the parameters). */
void sdk_cg_dich_init(sdk_emit *em, const sdk_codegen_opts *o, int v);

#endif
