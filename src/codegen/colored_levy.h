/* sdekit: coloured (Ornstein-Uhlenbeck) noise ([colored]) and alpha-stable
 * Levy noise ([levy]); the maths and the keying of their random numbers are
 * in colored_levy.c. */
#ifndef SDK_CODEGEN_COLORED_LEVY_H
#define SDK_CODEGEN_COLORED_LEVY_H

#include "codegen/emit.h"
#include "codegen/opts.h"
#include "core/error.h"

/* Can the scheme and noise source integrate the model's [colored] and
 * [levy] noises?  SDK_OK, or the reason. */
sdk_err sdk_cg_colored_levy_check(const sdk_codegen_opts *o, sdk_errbuf *eb);
/* The coloured noises' exact updates after a step (in scope the state
 * sdk_x<v>, the noise values sdk_z<j>, the parameters and sdk_dt). */
void sdk_cg_colored_events(sdk_emit *em, const sdk_codegen_opts *o);
/* sdk_x<v> = the stationary initial value of coloured variable v, 1; 0
 * (nothing emitted) when v is no coloured noise or [init] gives its value
 * (in scope sdk_seed, sdk_gpath and the parameters). */
int sdk_cg_colored_init(sdk_emit *em, const sdk_codegen_opts *o, int v);
/* The Levy entry whose noise is channel j (sdk_z<j>), or -1. */
int sdk_cg_levy_channel(const sdk_model *m, int j);
/* "DST = the stable value of Levy entry l at step `step` of path `path`;",
 * scaled so that the scheme's increment b sqrt(dt) DST is SCALE dL (dt: a C
 * expression of the step, DST a real lvalue declared by the caller). */
void sdk_cg_levy_z(sdk_emit *em, const sdk_codegen_opts *o, int l, const char *step,
                   const char *path, const char *seed, const char *dt, const char *dst);
/* Do the Levy entries draw in pairs of steps (single precision, fixed
 * steps: one Philox block for steps 2k and 2k + 1)? */
int sdk_cg_levy_pairs(const sdk_codegen_opts *o);
/* The single-precision draw's fixed functions (kernels/levy_draw.h) where
 * sdk_cg_levy_pairs. */
void sdk_cg_levy_defs(sdk_emit *em, const sdk_codegen_opts *o);
/* "sdk_u32 NAME[4];" = the block of Levy entry l for the pair of steps
 * `pair` (k: steps 2k, 2k + 1), under seed or, where keys is not NULL, under
 * that sdk_philox_keys lvalue (seed's schedule: the same words) */
void sdk_cg_levy_block(sdk_emit *em, const sdk_codegen_opts *o, int l, const char *pair,
                       const char *path, const char *seed, const char *keys, const char *name);
/* "DST = ...;" as sdk_cg_levy_z in single precision, from the words WW (W)
 * and WV (V) of the step's half of its pair's block */
void sdk_cg_levy_z_words(sdk_emit *em, const sdk_codegen_opts *o, int l, const char *ww,
                         const char *wv, const char *dt, const char *dst);
/* Does the CPU step loop take the Levy values from its noise buffer zb,
 * drawn a sub-chunk at a time by sdk_cg_levy_cpu_draws (single precision,
 * dt fixed: each pair's block drawn once)?  sdk_cg_levy_all: and is every
 * noise channel a Levy one (no Gaussians to draw)? */
int sdk_cg_levy_predrawn(const sdk_codegen_opts *o);
int sdk_cg_levy_all(const sdk_codegen_opts *o);
/* The CPU's sub-chunk draw of the Levy values into zb (cpu_paths.c, after
 * its Gaussians; nothing unless sdk_cg_levy_predrawn). */
void sdk_cg_levy_cpu_draws(sdk_emit *em, const sdk_codegen_opts *o);

#endif
