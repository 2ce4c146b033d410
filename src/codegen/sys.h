/* sdekit: code generation for systems of interacting particles, the pieces
 * shared by the CPU (sys_cpu.c) and CUDA (sys_cuda.c) system drivers.
 *
 * A system is N consecutive particles (global particle index = system * N +
 * i, grid point g holds ppg = paths * N particles, so no system straddles two
 * grid points).  Every step n of a system:
 *   1. the [meanfield] expressions (and cos/sin of the order parameter) are
 *      summed over the system's particles at x_n, in a fixed order;
 *   2. the [pair] functions F_i = (1/N) sum_j f(x_i, x_j) are summed, all pairs;
 *   3. every particle takes one step of the scheme (it needs the capability
 *      SDK_FEATURE_SYSTEMS: Euler-Maruyama) with its own noise (Philox domain
 *      3: one counter block per four consecutive particles of a system and
 *      step, rng/philox.h) using the averages of 1. and 2.
 * Per-particle parameters come from Philox domain 2 (block k for parameter
 * k, lane 0), so they never depend on how the work is cut. */
#ifndef SDK_CODEGEN_SYS_H
#define SDK_CODEGEN_SYS_H

#include <stddef.h>

#include "codegen/emit.h"
#include "codegen/opts.h"

/* The expressions averaged over each system every step: the [meanfield]
 * entries first (entry k is value k), then the order parameter's
 * cos(factor x) and sin(factor x) unless a [meanfield] entry is already the
 * same expression. */
typedef struct sdk_cg_red {
  int n;
  const sdk_expr **e; /* [n] */
  int *line;          /* [n]: model file line (0: built here) */
  int ocos, osin;     /* indices of the order parameter's sums, -1 without */
  sdk_expr *own[2];   /* built here */
} sdk_cg_red;
/* 0, or -1 when out of memory (then r holds nothing to free). */
int sdk_cg_red_build(sdk_cg_red *r, const sdk_codegen_opts *o);
void sdk_cg_red_free(sdk_cg_red *r);

/* Is particle parameter k the same for every particle (a constant, or a
 * distribution of zero width with fixed parameters)? */
int sdk_cg_part_const(const sdk_codegen_opts *o, int k);
/* Draw particle parameter k of global particle `gpart` (a C expression) into
 * the lvalue `dst`; needs the parameters and sdk_seed in scope. */
void sdk_cg_part_draw(sdk_emit *em, const sdk_codegen_opts *o, int k, const char *gpart,
                      const char *dst);
/* "const real NAME = ..." for every particle parameter: the constant ones
 * from their value, the others from `fmt` (printf with k, e.g.
 * "pp[%d * npad + p]"); j != 0: the particle-j names sdk_pj<k> (only those
 * the pair functions use). */
void sdk_cg_part_bind(sdk_emit *em, const sdk_codegen_opts *o, const char *fmt, int j);
/* Does any pair function use symbol k of this kind (SDK_OTHER_PARTJ, ...)? */
int sdk_cg_pair_uses(const sdk_model *m, int kind, int k);
/* "const real NAME = <fmt with v>; (void)NAME;" for every state variable. */
void sdk_cg_bind_vars(sdk_emit *em, const sdk_model *m, const char *fmt);
/* The same for the [meanfield] (pair = 0) or [pair] (pair = 1) names. */
void sdk_cg_bind_coupling(sdk_emit *em, const sdk_model *m, int pair, const char *fmt);

/* The start of a function of one system's particles at step sdk_n (grid
 * point sdk_g): the parameters, then the step's times sdk_t0 (and with next,
 * those of step n + 1, sdk_t01). */
void sdk_cg_sys_prologue(sdk_emit *em, const sdk_codegen_opts *o, int next);

/* Pair functions evaluated once per unordered pair (pair_sym.c; the CUDA
 * half all-pairs kernel, sys_cuda_pairs.c).  The parity of a pair function
 * under exchanging the particles i and j, as the generated code computes it
 * (bit for bit, not only as mathematics): 1 even, f(x_j, x_i) = f(x_i, x_j);
 * -1 odd, f(x_j, x_i) = -f(x_i, x_j); 0 neither shown. */
int sdk_cg_pair_parity(const sdk_expr *e);
/* Can the model's pairs be evaluated once per unordered pair?  1 yes; 0 no,
 * with the reason in why (every [pair] function odd or even, no per-particle
 * parameters in them, at most SDK_PAIR_HALF_MAXREG variables plus functions:
 * the half kernel holds 12 of each per thread). */
#define SDK_PAIR_HALF_MAXREG 6
int sdk_cg_pair_half_ok(const sdk_codegen_opts *o, char *why, size_t n);

#endif
