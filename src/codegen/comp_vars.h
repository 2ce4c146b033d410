/* sdekit: which variables the compensated state update covers (codegen.h,
 * "Compensated state update"; comp_vars.c has the rule). */
#ifndef SDK_CODEGEN_COMP_VARS_H
#define SDK_CODEGEN_COMP_VARS_H

#include <stddef.h>

#include "codegen/opts.h"
#include "model/model.h"

/* Why variable v is (or is not) compensated under the rule (--compensate
 * auto, the default): every reason but the last compensates it. */
typedef enum {
  SDK_CG_COMP_PERIODIC,     /* declared periodic: a phase, may wind without bound */
  SDK_CG_COMP_INTEGRATOR,   /* its drift does not depend on it: nothing pulls it back */
  SDK_CG_COMP_DELAYED,      /* a delayed value in its drift */
  SDK_CG_COMP_STATE_NOISE,  /* its noise depends on the state */
  SDK_CG_COMP_NOT_FIXED,    /* drift not c x + g with c (and dt) one number for every path */
  SDK_CG_COMP_SLOW,         /* c dt > -1/128: grows, or relaxes slower than 128 steps */
  SDK_CG_COMP_NOT_GAUSSIAN, /* its noise is not one Gaussian increment of its own */
  SDK_CG_COMP_UNBOUNDED,    /* no bound on |x| follows from its drift, noise and start */
  SDK_CG_COMP_SPACING,      /* its noise increments span < 256 float spacings at that bound */
  SDK_CG_COMP_PLAIN         /* relaxes within 128 steps, its rounding noise: updated plainly */
} sdk_cg_comp_why;

/* The rule for variable v of o->model at o's parameters and dt. */
sdk_cg_comp_why sdk_cg_comp_rule(const sdk_codegen_opts *o, int v);

/* Is variable v's update compensated in the source o asks for?  0 without
 * o->compensate; with it, every variable under o->comp_all, else the rule. */
int sdk_cg_comp_var(const sdk_codegen_opts *o, int v);

/* Does the CPU step loop get SDK_F2S_LOOP (kernels/opaque.h)?  Where some
 * variable is compensated, the model has at most 4 variables and the step
 * is the plain one (no --dt-check, --adaptive). */
int sdk_cg_comp_interleave(const sdk_codegen_opts *o);

/* One line for --verbose: "compensated x (periodic), plain v (c dt <= ...)"
 * under the rule, or "every variable" under o->comp_all; into buf[n]. */
void sdk_cg_comp_describe(const sdk_codegen_opts *o, char *buf, size_t n);

#endif
