/* sdekit: model files.
 *
 * A model file is INI text (parsed with libinih):
 *
 *   [model]   name, description, vars = x, v   (state variables, in order)
 *             period = EXPR  (optional; period of a time-periodic driving,
 *                             an expression in the parameters)
 *   [params]  NAME = NUMBER  (defaults; overridden by --set, scanned by --scan)
 *   [drift]   VAR = EXPR     (deterministic part a(x,t) of dx = a dt + b dW)
 *   [noise]   VAR = EXPR     (coefficient b of VAR's own Wiener increment;
 *                             diagonal noise; absent means 0)
 *   [init]    VAR = NUMBER | uniform(A,B) | normal(M,S)
 *
 * Expressions are C expressions (see model/expr.h) in the variables, the
 * parameters, t and the C math library.  Noise that depends on the state
 * (multiplicative) is integrated in the Ito sense by Euler-Maruyama; schemes
 * that assume additive noise reject it.
 */
#ifndef SDK_MODEL_H
#define SDK_MODEL_H

#include "core/error.h"
#include "model/expr.h"

typedef enum { SDK_INIT_CONST, SDK_INIT_UNIFORM, SDK_INIT_NORMAL } sdk_init_kind;

typedef struct sdk_init_spec {
  sdk_init_kind kind;
  sdk_expr *a, *b; /* CONST: a; UNIFORM: a, b bounds; NORMAL: a mean, b std dev */
  int line;
} sdk_init_spec;

typedef struct sdk_model {
  char *name, *description;
  char *path; /* file it came from */
  char *text; /* full file text (stored with the results) */
  int nvars;
  char **vars;
  int nparams;
  char **params;
  double *pvalues; /* defaults from the file */
  int *param_line;
  sdk_expr **drift; /* [nvars] */
  sdk_expr **noise; /* [nvars], NULL where there is no noise */
  int *drift_line, *noise_line;
  sdk_init_spec *init; /* [nvars] */
  sdk_expr *period;    /* NULL when none */
  int period_line;
  int multiplicative;  /* some noise coefficient depends on the state */
  int nnoise;          /* number of variables with noise */
} sdk_model;

/* Load a model by path, or by built-in name (models/NAME.sde found via
 * $SDEKIT_MODEL_PATH, then the installed and source model directories). */
sdk_err sdk_model_load(const char *name_or_path, sdk_model **out, sdk_errbuf *eb);
/* Parse model text; `path` is used in messages. */
sdk_err sdk_model_parse(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb);
void sdk_model_destroy(sdk_model **m);

int sdk_model_var_index(const sdk_model *m, const char *name);
int sdk_model_param_index(const sdk_model *m, const char *name);
/* Comma-separated list of names (for messages); caller frees. */
char *sdk_model_param_list(const sdk_model *m);
char *sdk_model_var_list(const sdk_model *m);

/* Directories searched for built-in models, ':'-separated, as a string for
 * messages and for `sdekit models`.  Fills dirs[] (at most maxdirs). */
int sdk_model_dirs(const char **dirs, int maxdirs);

/* Parse a number strictly: the whole string must be a finite decimal. */
int sdk_parse_number(const char *s, double *out);

#endif
