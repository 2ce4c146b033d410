/* Minimal test harness: every check prints file:line on failure and the
 * program's exit status is the number of failed checks (capped). */
#ifndef SDK_TESTUTIL_H
#define SDK_TESTUTIL_H
#include <stdio.h>

extern int tu_failures;
extern int tu_checks;

#define TU_CHECK(cond, ...)                                                                        \
  do {                                                                                             \
    tu_checks++;                                                                                   \
    if (!(cond)) {                                                                                 \
      tu_failures++;                                                                               \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);                           \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

/* |got - want| <= tol, with a message naming the quantity. */
#define TU_NEAR(got, want, tol, what)                                                              \
  TU_CHECK(fabs((double)(got) - (double)(want)) <= (tol),                                          \
           "%s: got %.10g want %.10g (tol %.3g, diff %.3g)", (what), (double)(got),                \
           (double)(want), (double)(tol), fabs((double)(got) - (double)(want)))

/* Print a summary line and return the exit status. */
int tu_finish(const char *name);

/* Directory of the source tree (for models/), from $SDK_SOURCE_DIR. */
const char *tu_source_dir(void);

/* A directory private to this process for the test's files: made under
 * $TMPDIR (else /tmp) on the first call, removed with its contents at exit,
 * so a test leaves nothing behind (CTest points TMPDIR into the build tree
 * and checks that it ends empty: fixture tmp).  Exits the test when it
 * cannot be made. */
const char *tu_scratch(void);

#endif
