/* Pieces of the model reader shared by its files:
 *   model.c     the model object (lookup of names, lists, destroy) and the
 *               checks of model text before it is parsed (size, UTF-8, NUL,
 *               line length)
 *   entries.c   the entries of the INI text (libinih) with their line numbers
 *   sections.c  the sections: [model], [params], [drift], [noise], [init],
 *               [particle], [meanfield], [pair] into an sdk_model
 *   resolve.c   the names an expression of each section may use
 *   lookup.c    where a model name leads: model files, the search path, the
 *               built-in models */
#ifndef SDK_MODEL_INTERNAL_H
#define SDK_MODEL_INTERNAL_H

#include "core/error.h"
#include "model/expr.h"
#include "model/model.h"

/* ---- entries.c ---- */

/* One `key = value` entry of section [section], first given on line `line`
 * (a value continued on indented lines is joined with spaces, each line's
 * '#' comment removed first: entries.c). */
typedef struct sdk_md_kv {
  char *section, *key, *value;
  int line;
} sdk_md_kv;

typedef struct sdk_md_entries {
  sdk_md_kv *items;
  int n, cap;
  int oom;
  int toomany; /* line of the first entry past SDK_MODEL_MAX_ENTRIES */
} sdk_md_entries;

/* The entries of text (path names it in messages), in the order given: a
 * malformed line, more than SDK_MODEL_MAX_ENTRIES entries or a key given
 * twice in a section is an error.  Free c with sdk_md_entries_free in any
 * case. */
sdk_err sdk_md_read_entries(const char *text, const char *path, sdk_md_entries *c, sdk_errbuf *eb);
void sdk_md_entries_free(sdk_md_entries *c);

/* ---- resolve.c ---- */

/* What an expression may refer to, besides the parameters and pi. */
enum {
  SDK_MD_VARS = 1,     /* this particle's (path's) variables */
  SDK_MD_TIME = 2,     /* t */
  SDK_MD_PART = 4,     /* per-particle parameters */
  SDK_MD_COUPLING = 8, /* names of [meanfield] and [pair] */
  SDK_MD_J = 16,       /* VARj, NAMEj: particle j of a pair function */
  SDK_MD_WIENER = 32,  /* dW<name> of the Wiener processes of [model] wiener */
  SDK_MD_DELAY = 64    /* VAR(t - TAU), delayed values (delay.c) */
};

/* Parse text as the expression of [section] key on
 * `line` and resolve its names against m with the flags above; an unknown
 * name is an error that lists the names that are known there. */
sdk_err sdk_md_expr(const sdk_model *m, const char *text, const char *section, const char *key,
                    int line, int flags, sdk_expr **out, sdk_errbuf *eb);

/* Parse text as the value of parameter k, a derived
 * parameter: it may use the parameters above it (index < k), pi and the
 * math functions; a parameter below it or itself is refused (so there are
 * no cycles), as is an unknown name, with the file and line. */
/* The same with the place named by `where` in messages. */
sdk_err sdk_md_expr_at(const sdk_model *m, const char *text, const char *where, int flags,
                       sdk_expr **out, sdk_errbuf *eb);
sdk_err sdk_md_param_expr(const sdk_model *m, int k, const char *text, sdk_expr **out,
                          sdk_errbuf *eb);

/* ---- model.c ---- */

/* Index of a [particle] parameter, of name among names[n]; -1 if none. */
int sdk_md_part_index(const sdk_model *m, const char *name);
int sdk_md_name_index(char **names, int n, const char *name);
/* "a, b, c" ("(none)" for n == 0); caller frees; NULL when out of memory. */
char *sdk_md_join(char **names, int n);

/* ---- observe.c ---- */
/* [observe] NAME = text on `line` (0: --observe-expr NAME=text). */
sdk_err sdk_md_add_observe(sdk_model *m, const char *name, const char *text, int line,
                           sdk_errbuf *eb);
/* ---- boundaries.c ---- */
/* [boundaries] NAME = text on `line`. */
sdk_err sdk_md_add_boundary(sdk_model *m, const char *name, const char *text, int line,
                            sdk_errbuf *eb);
/* After every section: boundaries are refused in models of particles. */
sdk_err sdk_md_check_boundaries(const sdk_model *m, sdk_errbuf *eb);
/* The start of a named entry of a section ([boundaries], [events]): where
 * gets "FILE:LINE: [SECTION] NAME" for the messages; refused: a count at
 * the limit `max` and a name that is no identifier (`what`: "a boundary").
 * The name is a label (results, TSV columns), never a name in an
 * expression or in the source. */
sdk_err sdk_md_entry(const sdk_model *m, const char *section, const char *name, int line, int count,
                     int max, const char *what, char *where, size_t wsize, sdk_errbuf *eb);
/* COND (text) as one comparison of a variable with an expression in the
 * parameters into b's var, upper, strict and level (shared with [events]);
 * `what` starts the message of a wrong shape ("" or e.g. "'absorb' or
 * 'reflect' and "). */
sdk_err sdk_md_comparison(const sdk_model *m, const char *text, const char *where, const char *what,
                          sdk_boundary *b, sdk_errbuf *eb);
/* ---- events_model.c ---- */
/* [events] NAME = when COND : VAR = EXPR [, VAR = EXPR] on `line`. */
sdk_err sdk_md_add_event(sdk_model *m, const char *name, const char *text, int line,
                         sdk_errbuf *eb);
/* After every section: what [events] exclude (systems, [boundaries], ...). */
sdk_err sdk_md_check_events(const sdk_model *m, sdk_errbuf *eb);

/* ---- sections.c (shared by the readers of entries) ---- */
/* s without leading and trailing white space (in place). */
char *sdk_md_trim(char *s);

/* ---- noises.c ---- */
/* [model] wiener (pass 1, before any expression) */
sdk_err sdk_md_parse_wiener(sdk_model *m, const char *value, int line, sdk_errbuf *eb);
/* A new variable NAME declared by a noise section [section] (pass 1). */
sdk_err sdk_md_noise_var(sdk_model *m, const char *section, const char *name, int line,
                         sdk_errbuf *eb);
/* *v = the index of variable `var`, which must be no dichotomous or
 * coloured noise, else an error "WHERE: 'var' is no variable ...". */
sdk_err sdk_md_plain_var(const sdk_model *m, const char *where, const char *var, int *v,
                         sdk_errbuf *eb);
/* A new entry of *count entries of `size` bytes at *arr (realloc'd, zeroed)
 * for the noise variable NAME of [section] (sdk_md_noise_var). */
sdk_err sdk_md_noise_entry(sdk_model *m, const char *section, const char *name, int line,
                           void **arr, int *count, size_t size, sdk_errbuf *eb);
/* The n (<= 4) comma-separated expressions in the parameters of the entry
 * [section] NAME = value on `line` into *dst[i] (dst[0] NULL: no such
 * noise), else "FILE:LINE: [section] NAME: expected EXPECTED". */
sdk_err sdk_md_noise_exprs(sdk_model *m, const char *section, const char *name, const char *value,
                           int line, int n, sdk_expr **const *dst, const char *expected,
                           sdk_errbuf *eb);
/* [dichotomous] NAME: registers NAME as a variable (pass 1) */
sdk_err sdk_md_add_dich_name(sdk_model *m, const char *name, int line, sdk_errbuf *eb);
/* pass 2: [model] correlation, [dichotomous] NAME = ..., [jumps] VAR = ... */
sdk_err sdk_md_parse_correlation(sdk_model *m, const char *value, int line, sdk_errbuf *eb);
sdk_err sdk_md_parse_dich(sdk_model *m, const char *name, const char *value, int line,
                          sdk_errbuf *eb);
sdk_err sdk_md_add_jump(sdk_model *m, const char *var, const char *value, int line, sdk_errbuf *eb);
/* After every section: the Wiener coefficients of each noise line, the
 * dichotomous variables' drift (none), and what these noises exclude. */
sdk_err sdk_md_finish_noises(sdk_model *m, sdk_errbuf *eb);
/* Split s in place at its top-level commas (outside parentheses) into at
 * most max pieces; the number of pieces, or -1 when there are more. */
int sdk_md_split_commas(char *s, char **piece, int max);
/* ---- colored_levy.c ---- */
/* [colored] NAME: registers NAME as a variable (pass 1) */
sdk_err sdk_md_add_colored_name(sdk_model *m, const char *name, int line, sdk_errbuf *eb);
/* pass 2: [colored] NAME = TAU, D and [levy] VAR = ALPHA, BETA, SCALE */
sdk_err sdk_md_parse_colored(sdk_model *m, const char *name, const char *value, int line,
                             sdk_errbuf *eb);
sdk_err sdk_md_add_levy(sdk_model *m, const char *var, const char *value, int line, sdk_errbuf *eb);
/* After every section (from sdk_md_finish_noises): their variables' drift
 * and noise lines, and what they exclude. */
sdk_err sdk_md_finish_colored_levy(sdk_model *m, sdk_errbuf *eb);
/* Their values at parameter values pv (sdk_model_check_noises). */
int sdk_md_check_colored_levy(const sdk_model *m, const double *pv, double dt, char *why,
                              size_t nwhy);

/* ---- sections.c ---- */

/* Parse model text (checked by sdk_model_parse_buffer, NUL-terminated);
 * path is used in messages and as the model's path. */
sdk_err sdk_md_parse_text(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb);

/* ---- delay.c ---- */
/* The delayed values VAR(t - TAU) of e (parsed with SDK_MD_DELAY, its names
 * resolved) into symbols of m's delays (added where new). */
sdk_err sdk_md_delays(sdk_model *m, sdk_expr *e, const char *where, sdk_errbuf *eb);
/* [history] VAR = EXPR on `line` */
sdk_err sdk_md_add_history(sdk_model *m, const char *var, const char *value, int line,
                           sdk_errbuf *eb);
/* After every section: each [history] of a delayed variable; no delays in
 * systems of particles. */
sdk_err sdk_md_check_delays(const sdk_model *m, sdk_errbuf *eb);

#endif
