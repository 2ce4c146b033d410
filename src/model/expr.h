/* sdekit: expressions of model files.
 *
 * Model expressions are the arithmetic subset of C: numbers, names,
 * calls of C math functions, unary - + !, binary * / % + - < <= > >= == !=
 * && ||, the conditional ?:, and parentheses.  They are parsed (so unknown
 * names and syntax errors are reported with the model file's line before any
 * compiler runs), evaluated on the host (period, checks), and re-emitted as
 * C/CUDA for the chosen precision: every literal becomes floating point of
 * the kernel's type (1/2 is 0.5, not C's integer 0) and every function its
 * single- or double-precision version (sinf or sin).  '%' is fmod and '^'
 * is rejected (C would read it as xor; write pow(a,b)).
 */
#ifndef SDK_EXPR_H
#define SDK_EXPR_H

#include "core/error.h"
#include "core/strbuf.h"

typedef enum { SDK_E_NUM, SDK_E_SYM, SDK_E_CALL, SDK_E_UNARY, SDK_E_BINARY, SDK_E_COND } sdk_ekind;

/* What a name refers to; filled in by the resolver. */
typedef enum {
  SDK_SYM_UNRESOLVED = 0,
  SDK_SYM_VAR,   /* state variable */
  SDK_SYM_PARAM, /* model parameter */
  SDK_SYM_TIME,  /* t */
  SDK_SYM_CONST, /* pi, e */
  SDK_SYM_OTHER  /* resolver-defined (e.g. mean-field averages) */
} sdk_symkind;

typedef struct sdk_expr {
  sdk_ekind kind;
  int op;     /* operator token for unary/binary ('+', 'L' for <=, ...) */
  double num; /* SDK_E_NUM value; SDK_SYM_CONST value */
  char *name; /* SDK_E_SYM / SDK_E_CALL name */
  sdk_symkind sym;
  int index; /* index of the var/param */
  int nargs;
  int depth;               /* 1 + depth of the deepest operand (set by the parser) */
  struct sdk_expr *arg[3]; /* operands / call arguments (at most 3) */
} sdk_expr;

/* Parse text.  On error: message "LOCATION: ..." where LOCATION is given by
 * the caller (e.g. "ou.sde:12 [drift] x"), SDK_ERR_MODEL. */
sdk_err sdk_expr_parse(const char *text, const char *where, sdk_expr **out, sdk_errbuf *eb);
/* The same where the n names may also be called as delayed values
 * NAME(ARG) (model/delay.c): a node SDK_E_CALL of op 'D' with one argument,
 * which the caller turns into a symbol before anything else reads the tree. */
sdk_err sdk_expr_parse_delays(const char *text, const char *where, char *const *names, int n,
                              sdk_expr **out, sdk_errbuf *eb);
void sdk_expr_destroy(sdk_expr **e);

/* Resolve every name with a callback returning the kind and index of a
 * name (SDK_SYM_UNRESOLVED if unknown).  Unknown names are reported with
 * the list of known names given by `known` (a human-readable string). */
typedef sdk_symkind (*sdk_resolve_fn)(void *user, const char *name, int *index);
sdk_err sdk_expr_resolve(sdk_expr *e, sdk_resolve_fn fn, void *user, const char *where,
                         const char *known, sdk_errbuf *eb);

/* Are two resolved expressions the same tree? */
int sdk_expr_equal(const sdk_expr *a, const sdk_expr *b);
/* Is b the tree a with each of a's symbols (other than t and the constants)
 * replaced by map(&kind, &index)?  (NULL: sdk_expr_equal.) */
typedef void (*sdk_sym_map_fn)(sdk_symkind *kind, int *index);
int sdk_expr_equal_mapped(const sdk_expr *a, const sdk_expr *b, sdk_sym_map_fn map);

/* Does the expression mention any symbol of this kind? */
int sdk_expr_uses(const sdk_expr *e, sdk_symkind kind);

/* Evaluate in double on the host; symbol values from a callback. */
typedef double (*sdk_value_fn)(void *user, sdk_symkind kind, int index);
double sdk_expr_eval(const sdk_expr *e, sdk_value_fn fn, void *user);
/* One of the functions of model expressions (by its name in the file) at
 * args; NaN for a name that is none of them. */
double sdk_expr_call(const char *name, const double *args);

/* A range [*lo, *hi] holding every value but NaN that e can take in a
 * single-precision kernel while each symbol stays within the range fn
 * gives it (interval arithmetic, expr_range.c: float rounding, overflow to
 * inf, and the NaN that fmin, fmax and comparisons turn into numbers
 * counted): a symbol without a bound is any finite float; -INFINITY or
 * INFINITY where no bound follows (a quotient by a range holding 0, tan,
 * a negative base's real power); bounded functions stay bounded whatever
 * their argument (sin, cos, tanh, erf, atan, ...). */
typedef void (*sdk_range_fn)(void *user, sdk_symkind kind, int index, double *lo, double *hi);
void sdk_expr_range(const sdk_expr *e, sdk_range_fn fn, void *user, double *lo, double *hi);

/* Emit as C/CUDA source.  single: use float functions/literals.  Names are
 * emitted through a callback (which appends the C spelling of a symbol). */
typedef void (*sdk_emit_sym_fn)(void *user, sdk_strbuf *out, const sdk_expr *sym);
void sdk_expr_emit(const sdk_expr *e, int single, sdk_emit_sym_fn fn, void *user, sdk_strbuf *out);
/* The same with a hook called first for every node: when it returns 1 it
 * has emitted that node (and its subtree) itself. */
typedef int (*sdk_emit_node_fn)(void *user, sdk_strbuf *out, const sdk_expr *node);
void sdk_expr_emit_hook(const sdk_expr *e, int single, sdk_emit_sym_fn fn, sdk_emit_node_fn node,
                        void *user, sdk_strbuf *out);

/* A deep copy (NULL: out of memory). */
sdk_expr *sdk_expr_copy(const sdk_expr *e);
/* Trees built by hand (model/diff.c): a number; a binary node of op
 * ('+', '-', '*', '/', or a comparison code as the parser's) taking
 * ownership of a and b, folded where both are numbers and simplified where
 * one is 0 or 1.  NULL when out of memory (a and b are then freed). */
sdk_expr *sdk_expr_number(double v);
/* A resolved name (no text) of that kind and index. */
sdk_expr *sdk_expr_symbol(sdk_symkind sym, int index);
sdk_expr *sdk_expr_binary(int op, sdk_expr *a, sdk_expr *b);

/* d e / d x_var of a resolved expression, x_var the state variable of index
 * var (model/diff.c): a new resolved tree, simplified (constants folded,
 * factors 1 and terms 0 dropped: the derivative of an expression without
 * x_var is the number 0).  Parameters, t, constants and resolver-defined
 * names (mean fields) count as constants.  At the points where a function
 * has no derivative (fabs at 0, floor, fmin at a tie, comparisons) the
 * derivative is the one-sided one of the branch taken.  SDK_ERR_MODEL,
 * prefixed by `where`, for tgamma and lgamma of an argument that depends on
 * x_var (their derivatives need digamma, which the grammar lacks). */
sdk_err sdk_expr_diff(const sdk_expr *e, int var, const char *where, sdk_expr **out,
                      sdk_errbuf *eb);
/* The same with respect to the symbol of kind sym and index `index` (e.g.
 * a Wiener increment dWk, SDK_SYM_OTHER). */
sdk_err sdk_expr_diff_sym(const sdk_expr *e, sdk_symkind sym, int index, const char *where,
                          sdk_expr **out, sdk_errbuf *eb);
/* Each of these creates at most SDK_EXPR_MAX_DIFF_NODES nodes (model/limits.h;
 * a longer derivative is SDK_ERR_MODEL).  This one takes the nodes from
 * *budget (shared by several derivatives) and, when that is spent, sets it
 * to -1 and returns SDK_ERR_MODEL without a message (the caller words it). */
sdk_err sdk_expr_diff_limited(const sdk_expr *e, sdk_symkind sym, int index, const char *where,
                              long *budget, sdk_expr **out, sdk_errbuf *eb);

/* Is `name` reserved (t, dt, the constants pi, e, M_PI, M_E, a math function)?
 * Any other identifier may name a variable, parameter or entry of a model. */
int sdk_name_reserved(const char *name);
/* Is it a valid identifier? */
int sdk_name_valid(const char *name);

#endif
