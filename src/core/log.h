/* sdekit: messages from the library.
 *
 * The library never prints: what it has to say that is not an error (the
 * compiler command in verbose mode, which kernel a system runs with, a
 * checkpoint that could not be written) goes to a log callback that whoever
 * runs it sets (the CLI prints to stderr; the Python package forwards to its
 * logger).  Without a callback, messages are dropped.  Errors are not logged:
 * they come back as sdk_err with the message in the sdk_errbuf.
 *
 * A message is the text to show, as it is to be shown: whole lines with
 * their newline ("sdekit: cached /path\n"), or a tool's output as it came
 * (a compiler's log).  The CLI's logger writes each one to stderr unchanged.
 */
#ifndef SDK_LOG_H
#define SDK_LOG_H

typedef enum sdk_log_level {
  SDK_LOG_DEBUG = 0, /* details for --verbose (compiler commands, kernel choices) */
  SDK_LOG_INFO = 1,  /* what a user may want to know */
  SDK_LOG_WARN = 2   /* something went wrong but the run goes on */
} sdk_log_level;

typedef struct sdk_logger {
  void (*fn)(void *user, sdk_log_level level, const char *msg);
  void *user;
  sdk_log_level min_level; /* messages below it are not even formatted */
} sdk_logger;

/* printf-style, any length; a NULL logger or one without fn drops the
 * message. */
void sdk_log(const sdk_logger *lg, sdk_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether a message of this level reaches a logger (to skip building one). */
int sdk_log_on(const sdk_logger *lg, sdk_log_level level);

#endif
