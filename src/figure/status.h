/* Errors in the command-line tool's own code (plot, info): the public
 * API's sdekit_status and sdekit_error (include/sdekit.h), filled the way
 * the library fills them, so that every command reports through one type. */
#ifndef SDK_CLI_STATUS_H
#define SDK_CLI_STATUS_H

#include <sdekit.h>

/* Record status s and a message (printf-style) in err unless it already
 * holds a message: the first failure is the most specific, and callers
 * further up only pass it on.  err may be NULL.  Returns s. */
sdekit_status cli_raise_at(sdekit_error *err, sdekit_status s, const char *file, int line,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define CLI_RAISE(err, s, ...) cli_raise_at((err), (s), __FILE__, __LINE__, __VA_ARGS__)

/* Propagate: evaluate expr, return its status unless SDEKIT_OK. */
#define CLI_CHECK(expr)                                                                            \
  do {                                                                                             \
    sdekit_status cli_check_s_ = (expr);                                                           \
    if (cli_check_s_ != SDEKIT_OK) return cli_check_s_;                                            \
  } while (0)

/* Propagate to a cleanup label: evaluate expr into the variable st. */
#define CLI_TRY(st, expr, label)                                                                   \
  do {                                                                                             \
    (st) = (expr);                                                                                 \
    if ((st) != SDEKIT_OK) goto label;                                                             \
  } while (0)

#endif
