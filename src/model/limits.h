/* sdekit: the limits of a model file.
 *
 * A model file is code the user chose to run, but it may still be handed
 * over by someone else, or be the output of a script gone wrong.  Every size
 * that a model file controls has a named maximum here; input past a limit is
 * refused with a message naming the file (and line), never truncated,
 * dropped or written out of bounds.  The README's "Model files" section lists
 * them; keep the two in step.
 */
#ifndef SDK_MODEL_LIMITS_H
#define SDK_MODEL_LIMITS_H

/* Size of a model file (and of model text from a checkpoint), in bytes: the
 * built-in models are a few kilobytes; this is far beyond any hand-written
 * model and keeps the quadratic checks of the parser fast. */
#define SDK_MODEL_MAX_BYTES (1 << 20)

/* Length of one line, in bytes without its newline.  libinih reads lines
 * through a 200-byte buffer (newline and NUL included) and splits longer ones,
 * which would silently start a new "line" in the middle of a comment; longer
 * text continues on indented lines. */
#define SDK_MODEL_MAX_LINE 198

/* Number of `name = value` entries in the whole file (continuation lines
 * are part of their entry). */
#define SDK_MODEL_MAX_ENTRIES 8192

/* Length of a name (variable, parameter, [particle]/[meanfield]/[pair] name). */
#define SDK_MODEL_MAX_NAME 63

/* Number of state variables, and of parameters. */
#define SDK_MODEL_MAX_VARS 1024
#define SDK_MODEL_MAX_PARAMS 1024

/* Interacting particles: per-particle parameters and [pair] functions (their
 * values live in per-block GPU shared memory), and [meanfield] averages (the
 * GPU system kernels keep every system sum, these and the order parameter's
 * cos and sin, in shared memory per warp; the generator itself allocates
 * them and has no bound of its own). */
#define SDK_MODEL_MAX_PARTICLE 32
#define SDK_MODEL_MAX_PAIR 32
#define SDK_MODEL_MAX_MEANFIELD 62

/* Depth of an expression: nested parentheses, operators and calls.  It bounds
 * the recursion of the parser and of everything that walks an expression, and
 * keeps the parentheses of the generated C below the 256 levels that clang
 * and NVRTC accept (each level emits at most two). */
#define SDK_MODEL_MAX_OBSERVE 64 /* user observables ([observe] + --observe-expr) */
/* [boundaries] entries: each costs three state rows per path and a test per step */
#define SDK_MODEL_MAX_BOUNDARIES 8
/* delayed values VAR(t - TAU) of distinct (VAR, TAU): each a read of the
 * variable's ring buffer per step (codegen/delay.c) */
#define SDK_MODEL_MAX_DELAYS 32
#define SDK_EXPR_MAX_DEPTH 100

/* What the code generator makes of a model (issue 25 item 12).  A model
 * within every limit above can still ask for a kernel of any size: the
 * Ito-Stratonovich drift correction over shared Wiener processes
 * ([model] wiener) sums C_kl b_jl db_ik/dx_j over four indices, and a
 * derivative can be much larger than its expression.  These bound the work
 * and the memory of generating a kernel; past one, the model is refused
 * with a message naming its size, never half-generated.
 *
 * Nodes that symbolic differentiation may create (visits and copies) for
 * one derivative, and for all the derivatives of one drift correction
 * together: the built-in models need a few hundred. */
#define SDK_EXPR_MAX_DIFF_NODES (1 << 21)
/* Products C_kl b_jl db_ik/dx_j of one drift correction over shared Wiener
 * processes (each one term of the generated sum per variable and stage):
 * 16 variables on 16 fully correlated processes, every coefficient
 * depending on every variable, have 65536. */
#define SDK_CODEGEN_MAX_CORR_TERMS (1 << 17)
/* Size of the generated kernel source, in bytes (checked as it is written,
 * core/strbuf.h): the built-in models generate 20 to 200 kB. */
#define SDK_CODEGEN_MAX_BYTES (16 << 20)

#endif
