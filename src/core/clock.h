/* sdekit: the one clock of run times and stage times (monotonic seconds). */
#ifndef SDK_CLOCK_H
#define SDK_CLOCK_H

#include <time.h>

static inline double sdk_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
