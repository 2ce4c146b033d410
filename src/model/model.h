/* sdekit: model files.
 *
 * A model file is INI text (parsed with libinih):
 *
 *   [model]   name, description, vars = x, v   (state variables, in order)
 *             calculus = ito | stratonovich  (optional, default ito: the sense
 *                             of b dW when b depends on the state; the run's
 *                             --calculus overrides it)
 *             period = EXPR  (optional; period of a time-periodic driving,
 *                             an expression in the parameters)
 *   [params]  NAME = NUMBER | EXPR  (defaults; overridden by --set, scanned by
 *                             --scan).  EXPR uses the parameters above NAME,
 *                             pi, e and the math functions (model/expr.h): a
 *                             derived parameter, e.g. omega = 2*pi*f.  Its value
 *                             follows the values in force: a run re-evaluates
 *                             it, in file order, from the --set and scanned
 *                             values (per grid point), unless NAME itself is
 *                             given by --set or --scan (sdk_model_derive).
 *   [drift]   VAR = EXPR     (deterministic part a(x,t) of dx = a dt + b dW)
 *   [noise]   VAR = EXPR     (coefficient b of VAR's own Wiener increment;
 *                             diagonal noise; absent means 0)
 *   [init]    VAR = NUMBER | uniform(A,B) | normal(M,S)
 *
 * Noises beyond one Wiener process per variable:
 *
 *   [model]   wiener = W1, W2          Wiener processes shared between
 *             variables: [noise] lines become sums such as
 *             x = s1*dW1 + eps*x*dW2 (linear in the increments dWk)
 *             correlation = W1 W2 : RHO [, W1 W3 : RHO2]   correlations of
 *             the increments (expressions in the parameters; a correlation
 *             matrix at every grid point, sampled by its Cholesky factor)
 *   [jumps]   VAR = RATE : fixed(a) | exp(mean) | uniform(a,b) | normal(m,s)
 *             [centered]   Poisson shot noise (RATE and the amplitude's
 *             arguments in the parameters; centered subtracts RATE E[z] dt)
 *   [dichotomous] NAME = A, B, RATE_AB, RATE_BA   telegraph noise: NAME is
 *             a variable switching between A and B (usable in [drift] and
 *             [noise]; its own moments are reported like any variable's)
 *   [colored] NAME = TAU, D   Ornstein-Uhlenbeck noise, a variable like a
 *             dichotomous noise (sdk_colored below)
 *   [levy]    VAR = ALPHA, BETA, SCALE   alpha-stable noise SCALE dL of VAR
 *             in place of a [noise] line (sdk_levy below)
 *
 * Interacting particles (paper Eq. 2; run with --particles N: every path is
 * then a system of N particles, particle i of system s having the global
 * index s*N + i):
 *
 *   [model]     periodic = VAR : EXPR [, VAR : EXPR]   (VAR is an angle of this
 *               period: enables --observe order and a density of VAR mod period)
 *   [particle]  NAME = NUMBER | normal(M,S) | uniform(A,B) | cauchy(LOC,SCALE)
 *               (per-particle parameters drawn once from Philox domain 2,
 *               keyed by the global particle index; usable in every
 *               expression of the particle below).  In a model without
 *               [meanfield] and [pair] run with one particle per path (no
 *               --particles N > 1) they are per-path values of independent
 *               paths, any scheme: the particle index is the path's global
 *               index, so the values are those systems of one particle
 *               would draw (codegen/codegen.h, sdk_cg_ppar_row)
 *   [meanfield] NAME = EXPR   the average of EXPR (in one particle's variables)
 *               over the N particles of the system, recomputed every step
 *   [pair]      NAME = EXPR   (1/N) sum over j of EXPR, where VARj (and NAMEj
 *               of a particle parameter) refer to particle j, plain names to
 *               particle i itself; computed all-pairs, O(N^2)
 *
 * The names of [meanfield] and [pair] are usable in [drift] and [noise].
 *
 *   [observe]   NAME = EXPR   a user observable (--observe expr): EXPR in the
 *               variables, the parameters and t, the grammar of [drift],
 *               averaged over the paths at every sample time.  NAME is an
 *               identifier that is no variable or parameter.  The command
 *               line adds more (sdk_model_add_observe).
 *
 *   [boundaries] NAME = absorb COND | reflect COND   (at most
 *               SDK_MODEL_MAX_BOUNDARIES): COND compares one variable with an
 *               expression E in the parameters (scanned ones too):
 *               VAR >= E, VAR > E (an upper boundary), VAR <= E, VAR < E (a
 *               lower one).  After every step of a path still alive, a
 *               reflecting boundary whose COND holds mirrors the variable
 *               (VAR -> 2E - VAR); an absorbing one whose COND holds (or,
 *               with the Brownian-bridge correction, that the path crossed
 *               inside the step) stops the path: its state is frozen and the
 *               boundary and step are recorded (codegen/boundary.c,
 *               --observe fpt).  An absorbing and a reflecting boundary may
 *               not sit on the same side of one variable.  Not for systems
 *               of particles (for now).
 *
 * Expressions are C expressions (see model/expr.h) in the variables, the
 * parameters, t and the C math library.  Noise that depends on the state
 * (multiplicative) means what the model's calculus says: every scheme
 * integrates it in that sense, natively or with the drift corrected by
 * +-1/2 b db/dx (codegen.c), or refuses.
 */
#ifndef SDK_MODEL_H
#define SDK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "model/expr.h"
#include "model/limits.h"

typedef enum { SDK_INIT_CONST, SDK_INIT_UNIFORM, SDK_INIT_NORMAL } sdk_init_kind;

typedef struct sdk_init_spec {
  sdk_init_kind kind;
  sdk_expr *a, *b; /* CONST: a; UNIFORM: a, b bounds; NORMAL: a mean, b std dev */
  int line;
} sdk_init_spec;

typedef enum { SDK_PDIST_CONST, SDK_PDIST_NORMAL, SDK_PDIST_UNIFORM, SDK_PDIST_CAUCHY } sdk_pdist;

/* A per-particle parameter: CONST: a; NORMAL: mean a, std dev b; UNIFORM:
 * bounds a, b; CAUCHY: location a, scale b.  a, b are in the parameters. */
typedef struct sdk_particle_spec {
  char *name;
  sdk_pdist kind;
  sdk_expr *a, *b;
  int line;
} sdk_particle_spec;

/* Names of the interacting-particle sections resolve to SDK_SYM_OTHER with
 * index SDK_OTHER(kind, i): */
enum {
  SDK_OTHER_PART = 1,   /* particle parameter i of this particle */
  SDK_OTHER_MEAN = 2,   /* [meanfield] entry i */
  SDK_OTHER_PAIR = 3,   /* [pair] entry i */
  SDK_OTHER_VARJ = 4,   /* variable i of particle j (pair functions) */
  SDK_OTHER_PARTJ = 5,  /* particle parameter i of particle j (pair functions) */
  SDK_OTHER_WIENER = 6, /* dWi, the increment of Wiener process i ([noise] with wiener) */
  /* locals of the generated step, never in a parsed model: the terms of the
   * drift correction over shared Wiener processes (codegen/correction.c) */
  SDK_OTHER_CG_COEF = 7,   /* b_jl, i = j * nwiener + l */
  SDK_OTHER_CG_CORR = 8,   /* C_kl (k > l), i = k * nwiener + l */
  SDK_OTHER_CG_SUM = 9,    /* the correction's sum of variable i */
  SDK_OTHER_CG_DERIV = 10, /* + v: db_vk/dx_j, i = k * nvars + j (v < SDK_MODEL_MAX_VARS) */
  /* delayed value i (model->delay[i]), past the kinds above */
  SDK_OTHER_DELAY = 0x7000
};
#define SDK_OTHER(kind, i) ((kind) << 16 | (i))
#define SDK_OTHER_KIND(idx) ((idx) >> 16)
#define SDK_OTHER_INDEX(idx) ((idx)&0xffff)

/* A [boundaries] entry: NAME = absorb|reflect VAR OP LEVEL. */
typedef enum { SDK_BOUND_ABSORB, SDK_BOUND_REFLECT } sdk_bound_kind;
typedef struct sdk_boundary {
  char *name;
  sdk_bound_kind kind;
  int var;         /* the variable compared */
  int upper;       /* 1: VAR >= LEVEL or VAR > LEVEL; 0: VAR <= LEVEL or VAR < LEVEL */
  int strict;      /* 1: > or < */
  sdk_expr *level; /* in the parameters only */
  int line;
} sdk_boundary;

/* [jumps] VAR = RATE : AMPLITUDE [centered]: Poisson shot noise added to VAR
 * after every step, the number of jumps in a step exactly Poisson(RATE dt),
 * each of size AMPLITUDE (codegen/events.c). */
typedef enum {
  SDK_JUMP_FIXED,   /* fixed(a) */
  SDK_JUMP_EXP,     /* exp(mean a) */
  SDK_JUMP_UNIFORM, /* uniform(a, b) */
  SDK_JUMP_NORMAL   /* normal(mean a, std dev b) */
} sdk_jump_kind;
typedef struct sdk_jump {
  int var;
  sdk_expr *rate; /* in the parameters */
  sdk_jump_kind kind;
  sdk_expr *a, *b; /* in the parameters; b NULL for fixed and exp */
  int centered;    /* subtract RATE E[z] dt every step */
  int line;
} sdk_jump;

/* [dichotomous] NAME = A, B, RATE_AB, RATE_BA: a two-state Markov (telegraph)
 * noise, a variable of the model (m->vars[var]) without drift or noise whose
 * value is A or B, switching after every step with the exact probabilities
 * of the step (codegen/events.c).  Its initial value is drawn from the
 * stationary distribution unless [init] gives A or B. */
typedef struct sdk_dichotomous {
  int var;
  sdk_expr *a, *b, *rab, *rba; /* in the parameters */
  int init_given;              /* [init] NAME = A or B; else stationary */
  int line;
} sdk_dichotomous;

/* [events] NAME = when COND : VAR = EXPR [, VAR = EXPR]: after a step in
 * which the path crosses into COND (one comparison of a variable with an
 * expression in the parameters, as [boundaries]; inside the step by the
 * Brownian-bridge probability too), the variables are set to the EXPRs (in
 * the variables, the parameters and t, at the step's end) and the event is
 * counted (codegen/resets.c, --observe events). */
typedef struct sdk_event {
  char *name;
  sdk_boundary cond; /* var, upper, strict, level (name and kind unused) */
  int nreset;
  int reset_var[SDK_MODEL_MAX_VARS];
  sdk_expr *reset[SDK_MODEL_MAX_VARS];
  int line;
} sdk_event;
/* [colored] NAME = TAU, D: Ornstein-Uhlenbeck (coloured) noise of
 * correlation time TAU and intensity D, a variable of the model (like a
 * dichotomous noise: no drift or noise line, held at its value of t_n over
 * step n) updated after every step by the exact transition of
 * d eta = -eta / TAU dt + sqrt(2 D) / TAU dW (codegen/colored_levy.c).  Its
 * initial value is drawn from the stationary N(0, D / TAU) unless [init]
 * gives it. */
typedef struct sdk_colored {
  int var;
  sdk_expr *tau, *d; /* in the parameters */
  int init_given;
  int line;
} sdk_colored;

/* [levy] VAR = ALPHA, BETA, SCALE: VAR's noise is SCALE dL, L the
 * alpha-stable Levy motion with L(t) ~ S_alpha(t^(1/alpha), beta, 0)
 * (Samorodnitsky-Taqqu S1); SCALE (the noise line, noise[var]) may use the
 * state (Ito sense, euler only: codegen/colored_levy.c). */
typedef struct sdk_levy {
  int var;
  double alpha, beta;
  sdk_expr *scale; /* until the model is finished; then noise[var] */
  int line;
} sdk_levy;

/* A delayed value VAR(t - TAU) in [drift] or [noise] (model/delay.c): a
 * symbol SDK_SYM_OTHER of index SDK_OTHER(SDK_OTHER_DELAY, k) for delays[k]
 * (one entry per variable and TAU tree); TAU is an expression in the
 * parameters.  [history] VAR = EXPR (in t and the parameters) gives VAR on
 * [-TAU, 0); without it the initial value (codegen/delay.c). */
typedef struct sdk_delay {
  int var;
  sdk_expr *tau;
  char *where; /* "FILE:LINE: [drift] x" of its first use, for messages */
} sdk_delay;

/* The calculus of a model's noise ([model] calculus) and of a scheme's limit
 * with state-dependent noise (codegen/scheme.h).  For diagonal noise
 * b_v(X, t) dW_v the two describe the same process when the Stratonovich
 * drift is the Ito drift minus 1/2 b_v db_v/dx_v. */
typedef enum { SDK_CALCULUS_ITO, SDK_CALCULUS_STRATONOVICH } sdk_calculus;

typedef struct sdk_model {
  char *name, *description;
  char *path; /* file it came from, as named in messages */
  char *file; /* that file's canonical absolute path; NULL for text not read from a file */
  char *text; /* full file text (stored with the results) */
  int nvars;
  char **vars;
  int nparams;
  char **params;
  double *pvalues;  /* defaults from the file (a derived one evaluated from those above) */
  sdk_expr **pexpr; /* [nparams]: the expression of a derived parameter, else NULL */
  int *param_line;
  sdk_expr **drift; /* [nvars] */
  sdk_expr **noise; /* [nvars], NULL where there is no noise */
  int *drift_line, *noise_line;
  sdk_init_spec *init; /* [nvars] */
  sdk_expr *period;    /* NULL when none */
  int period_line;
  int multiplicative; /* some noise coefficient depends on the state */
  sdk_calculus calculus;
  int calculus_line; /* 0: not given in the file (Ito) */
  int nnoise;        /* number of variables with noise */
  /* interacting particles (all counts 0 for a model of independent paths) */
  int npart;
  sdk_particle_spec *part; /* [npart] */
  int nmean;
  char **mean_names;
  sdk_expr **mean; /* [nmean] */
  int *mean_line;
  int npair;
  char **pair_names;
  sdk_expr **pair; /* [npair] */
  int *pair_line;
  int interacting;       /* nmean + npair > 0: needs --particles N >= 2 */
  sdk_expr **var_period; /* [nvars]: period of a variable declared periodic, else NULL */
  int periodic_line;
  /* user observables ([observe] and --observe-expr), in the order given */
  int nobs;
  char **obs_names;
  sdk_expr **obs; /* [nobs] */
  int *obs_line;  /* 0: from the command line */
  /* [boundaries], in file order */
  int nbound;
  sdk_boundary *bound; /* [nbound] */
  /* [model] wiener = W1, W2: Wiener processes shared between variables
   * (0: diagonal noise, one Wiener process per noisy variable).  Then a
   * [noise] line is a sum of terms COEF * dWk (linear in the dWk), and
   * wcoef[v * nwiener + k] is the coefficient of dWk in variable v's noise
   * (NULL where 0); noise[v] stays the whole line and nnoise = nwiener
   * (the noise channels are the Wiener processes). */
  int nwiener;
  char **wiener; /* [nwiener] names; the increments are d<name> */
  int wiener_line;
  sdk_expr **wcoef; /* [nvars * nwiener] */
  /* [model] correlation = Wk Wl : RHO, ...: corr[k * nwiener + l] (k > l)
   * is the correlation of dWk and dWl, an expression in the parameters
   * (NULL: 0); every grid point's matrix must be a correlation matrix
   * (sdk_model_correlation) */
  sdk_expr **corr;
  int corr_line;
  /* [jumps] and [dichotomous], in file order */
  int njump;
  sdk_jump *jump;
  int ndich;
  sdk_dichotomous *dich;
  /* [events], in file order */
  int nevent;
  sdk_event *event;
  /* [colored] and [levy], in file order */
  int ncolored;
  sdk_colored *colored;
  int nlevy;
  sdk_levy *levy;
  /* delayed values and [history] (sdk_delay above) */
  int ndelay;
  sdk_delay *delay;
  sdk_expr **history; /* [nvars] or NULL: [history] VAR = EXPR, else NULL */
  int *history_line;
} sdk_model;

/* The dichotomous noise that variable v is, or NULL. */
const sdk_dichotomous *sdk_model_dich_of(const sdk_model *m, int v);
/* The coloured noise that variable v is, the Levy noise variable v takes,
 * or NULL. */
const sdk_colored *sdk_model_colored_of(const sdk_model *m, int v);
const sdk_levy *sdk_model_levy_of(const sdk_model *m, int v);
/* Does e use a variable that is not a dichotomous or coloured noise (the
 * state, which changes within a step)? */
int sdk_md_uses_state(const sdk_model *m, const sdk_expr *e);

/* The correlation matrix of the Wiener processes at parameter values pv
 * (nwiener^2 doubles into c, row-major) and its Cholesky factor L (lower,
 * c = L L^T, into l; may be NULL): 0 when it is one (symmetric, unit
 * diagonal, every entry in [-1, 1], positive semi-definite), else -1 with
 * a reason in why (at least 160 bytes).  A semi-definite matrix (rho = +-1)
 * gets a factor with zero columns. */
/* A [colored] or [dichotomous] noise is held over a step: dt may be at most
 * 1/SDK_NOISE_HOLD_STEPS of its correlation time (model/colored_levy.c). */
#define SDK_NOISE_HOLD_STEPS 10
/* The values of [model] correlation, [jumps], [dichotomous] and [colored]
 * at parameter values pv, time step dt and a run of nsteps steps: 0 when
 * usable, else -1 with the reason ("FILE:LINE: ...") in why. */
int sdk_model_check_noises(const sdk_model *m, const double *pv, double dt, int64_t nsteps,
                           char *why, size_t nwhy);
/* [levy] at time step dt in single (1) or double (0) precision: -1 with the
 * reason in why where an increment's scale is no normal number there. */
int sdk_model_check_levy_dt(const sdk_model *m, double dt, int single, char *why, size_t nwhy);
int sdk_model_correlation(const sdk_model *m, const double *pv, double *c, double *l, char *why,
                          size_t nwhy);
/* The levels of [boundaries] at parameter values pv: 0 when each is finite
 * and every variable's reflecting boundaries leave room between them (the
 * lower level below the upper), else -1 with the reason ("FILE:LINE: ...")
 * in why. */
int sdk_model_check_boundaries(const sdk_model *m, const double *pv, char *why, size_t nwhy);
/* [init] at parameter values pv against the boundaries: -1 with the reason
 * in why where a constant initial value (or a uniform one's range) lies
 * beyond a reflecting wall (a mirrored path would not come back between
 * them) or past an absorbing level (absorbed at t = 0; on it is fine). */
int sdk_model_check_init_bounds(const sdk_model *m, const double *pv, char *why, size_t nwhy);
/* The levels of [events] at parameter values pv: 0 when each is finite and
 * no reset of an event's variable to a value in the parameters alone
 * leaves it inside COND (a reset that could never end), and a run of
 * nsteps < 2^44 steps (the rows' step numbers, the keying of the draws),
 * else -1 with the reason in why. */
int sdk_model_check_events(const sdk_model *m, const double *pv, int64_t nsteps, char *why,
                           size_t nwhy);

/* Load a model.  A path (anything with a '/' or ending in ".sde") is read
 * as given.  A bare name is looked up as NAME.sde in the directories of
 * search_path (':'-separated, in order, empty entries skipped; NULL or "":
 * none; the CLI passes $SDEKIT_MODEL_PATH), then in the built-in model
 * directories; never in the current directory.  Model files must be regular
 * files of at most SDK_MODEL_MAX_BYTES (model/limits.h); they are opened
 * without blocking, so a FIFO or device is refused at once. */
sdk_err sdk_model_load_from(const char *name_or_path, const char *search_path, sdk_model **out,
                            sdk_errbuf *eb);
/* The file a model name leads to, as sdk_model_load_from would read it
 * (a path: itself; a bare name: the first NAME.sde of the search path or
 * the built-ins), without opening it: 1 with the path in out, 0 when there
 * is none. */
int sdk_model_locate(const char *name_or_path, const char *search_path, char *out, size_t n);
/* Read a model file as untrusted input: a regular file only (anything else
 * is refused before it is opened), opened without blocking or taking a
 * terminal, at most SDK_MODEL_MAX_BYTES whatever it claims or grows to.
 * SDK_OK with *text (NUL-terminated, free it), *len and *resolved (its
 * realpath or NULL, free it); with missing != NULL a file that does not
 * exist sets *missing instead of failing. */
sdk_err sdk_model_read_file(const char *path, char **text, size_t *len, char **resolved,
                            int *missing, sdk_errbuf *eb);
/* The same with no search path: a path, or a built-in model. */
sdk_err sdk_model_load(const char *name_or_path, sdk_model **out, sdk_errbuf *eb);
/* Parse model text of `len` bytes (need not be NUL-terminated; any NUL byte
 * is an error); `name` is used in messages and as the model's path.  The
 * entry point for text from memory (checkpoints, fuzzers): it applies every
 * limit of model/limits.h. */
sdk_err sdk_model_parse_buffer(const char *data, size_t len, const char *name, sdk_model **out,
                               sdk_errbuf *eb);
/* The same for a NUL-terminated text; `path` is used in messages. */
sdk_err sdk_model_parse(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb);
void sdk_model_destroy(sdk_model **m);
/* Add the user observable NAME = EXPR (--observe-expr NAME=EXPR): the
 * checks of an [observe] entry, messages naming the option. */
sdk_err sdk_model_add_observe(sdk_model *m, const char *name, const char *expr, sdk_errbuf *eb);

int sdk_model_var_index(const sdk_model *m, const char *name);
int sdk_model_param_index(const sdk_model *m, const char *name);
/* whether variable v has reflecting boundaries on both sides (a path still
 * outside both after a step's mirrors is NaN: codegen/boundary.c) */
int sdk_model_reflect_both(const sdk_model *m, int v);
/* Re-evaluate the derived parameters ([params] NAME = EXPR) in file order
 * from the values pv[] in force, except those with given[i] set (a value
 * given by --set or --scan replaces the parameter's expression); given may
 * be NULL.  The others keep their values. */
void sdk_model_derive(const sdk_model *m, const unsigned char *given, double *pv);
/* The value of an expression in the parameters at parameter values pv
 * (anything else it uses is NaN). */
double sdk_model_eval_params(const sdk_expr *e, const double *pv);
/* Comma-separated list of names (for messages); caller frees. */
char *sdk_model_param_list(const sdk_model *m);
char *sdk_model_var_list(const sdk_model *m);
/* Index of the first variable declared periodic, -1 if none. */
int sdk_model_first_periodic(const sdk_model *m);

/* Where the built-in models are, found relative to the binary object that
 * holds the library (never through a path of the build machine): with DIR
 * the directory of libsdekit.so when the library is linked shared, of the
 * executable when linked statically, DIR/../share/sdekit/models (an
 * installed prefix, moved or not: PREFIX/lib, PREFIX/bin; a Python wheel:
 * PKG/lib), else DIR/share/sdekit/models (the build tree, where the build
 * makes it a link to the source models/).  Writes the first that exists,
 * or the first when neither does, into out; 0 when the binary cannot be
 * located or the path does not fit. */
int sdk_model_builtin_dir(char *out, size_t n);
/* Directories searched for a bare model name: search_path (as one string,
 * ':'-separated, when not NULL or empty), then the built-in one; for
 * messages and for `sdekit models`.  The list owns the built-in's name. */
typedef struct sdk_model_dirlist {
  int n;
  const char *dir[2];
  char builtin[4096];
} sdk_model_dirlist;
void sdk_model_dirs(const char *search_path, sdk_model_dirlist *out);
/* Names of the models a bare name can refer to with this search path,
 * sorted, comma-separated (for messages); caller frees; NULL when out of
 * memory. */
char *sdk_model_builtin_names(const char *search_path);

/* Parse a number strictly: the whole string must be a finite decimal. */
int sdk_parse_number(const char *s, double *out);

#endif
