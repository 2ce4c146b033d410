/* sdekit: one error enum for the whole library.
 *
 * Every fallible function returns sdk_err.  SDK_CHECK propagates an error
 * and records the first failing file:line in the context's error buffer,
 * so the CLI can print exactly one "sdekit: error: ..." line.
 * Library code never calls exit() or abort().
 */
#ifndef SDK_ERROR_H
#define SDK_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum sdk_err {
  SDK_OK = 0,
  SDK_ERR_USAGE,       /* bad command line or option value (exit 2) */
  SDK_ERR_MODEL,       /* malformed or inconsistent model file (exit 2) */
  SDK_ERR_COMPILE,     /* generated code did not compile (exit 2) */
  SDK_ERR_IO,          /* file could not be read or written */
  SDK_ERR_NOMEM,       /* allocation failed */
  SDK_ERR_BACKEND,     /* backend unavailable or failed (driver, dlopen) */
  SDK_ERR_NONFINITE,   /* paths became NaN/Inf during the run (exit 1) */
  SDK_ERR_FORMAT,      /* corrupt or incompatible data file */
  SDK_ERR_INTERRUPTED, /* stopped by a signal */
  SDK_ERR_INTERNAL
} sdk_err;

/* Error message sink: a fixed buffer owned by whoever runs the library
 * (the CLI, a test).  No global state: it is passed in where needed. */
typedef struct sdk_errbuf {
  char msg[1024];
  const char *file; /* where it was first raised (for debugging) */
  int line;
  /* several ranks (core/comm.h): 1 when this rank failed alone, while the
   * others may wait for it in a collective operation (the caller must
   * abort them); 0 when every rank returned this error together */
  int alone;
} sdk_errbuf;

const char *sdk_err_name(sdk_err e);

/* Record a message (printf-style) unless one is already recorded; returns e.
 * eb may be NULL (message dropped). */
sdk_err sdk_error_at(sdk_errbuf *eb, sdk_err e, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define SDK_FAIL(eb, e, ...) sdk_error_at((eb), (e), __FILE__, __LINE__, __VA_ARGS__)

/* Propagate: evaluate expr, return its error if not SDK_OK. */
#define SDK_CHECK(expr)                                                                            \
  do {                                                                                             \
    sdk_err sdk_check_e_ = (expr);                                                                 \
    if (sdk_check_e_ != SDK_OK) return sdk_check_e_;                                               \
  } while (0)

/* Propagate to a cleanup label: evaluate expr into variable err. */
#define SDK_TRY(err, expr, label)                                                                  \
  do {                                                                                             \
    (err) = (expr);                                                                                \
    if ((err) != SDK_OK) goto label;                                                               \
  } while (0)

/* Exit status the CLI uses for an error class: 2 for bad input, 1 for
 * failures while running. */
int sdk_err_exit_status(sdk_err e);

#endif
