/* sdekit: which variables the compensated state update covers (codegen.h,
 * "Compensated state update"; comp_vars.c has the rule). */
#ifndef SDK_CODEGEN_COMP_VARS_H
#define SDK_CODEGEN_COMP_VARS_H

#include <stddef.h>

#include "codegen/opts.h"
#include "model/model.h"

/* Why variable v of m is (or is not) compensated under the automatic rule. */
typedef enum {
  SDK_CG_COMP_PERIODIC,   /* declared periodic: a phase, may wind without bound */
  SDK_CG_COMP_INTEGRATOR, /* its drift does not depend on it: nothing pulls it back */
  SDK_CG_COMP_PLAIN       /* its drift depends on it (restoring or self-coupled) */
} sdk_cg_comp_why;

sdk_cg_comp_why sdk_cg_comp_rule(const sdk_model *m, int v);

/* Is variable v's update compensated in the source o asks for?  0 without
 * o->compensate; with it, every variable under o->comp_all, else the rule. */
int sdk_cg_comp_var(const sdk_codegen_opts *o, int v);

/* Does the CPU step loop get SDK_F2S_LOOP (kernels/opaque.h)?  Where some
 * variable is compensated, the model has at most 4 variables and the step
 * is the plain one (no --dt-check, --adaptive). */
int sdk_cg_comp_interleave(const sdk_codegen_opts *o);

/* One line for --verbose: "compensated x (periodic), plain v (depends on
 * itself)" under the rule, or "all variables" (all != 0); into buf[n]. */
void sdk_cg_comp_describe(const sdk_model *m, int all, char *buf, size_t n);

#endif
