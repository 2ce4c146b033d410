/* In-process ranks (core/comm_team.h): collective operations over shared
 * memory, two barriers each. */
#include "core/comm_team.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct sdk_team {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_mutex_t serial; /* sdk_team_lock */
  int size, arrived, broken;
  unsigned long generation;
  void **slot; /* each rank's buffer during the operation in progress */
};

sdk_err sdk_team_create(int size, sdk_team **out, sdk_errbuf *eb) {
  *out = NULL;
  if (size < 1) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "a team of %d ranks", size);
  sdk_team *t = calloc(1, sizeof *t);
  void **slot = calloc((size_t)size, sizeof *slot);
  if (!t || !slot) {
    free(t), free(slot);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->cv, NULL);
  pthread_mutex_init(&t->serial, NULL);
  t->size = size;
  t->slot = slot;
  *out = t;
  return SDK_OK;
}

void sdk_team_destroy(sdk_team **tp) {
  if (!tp || !*tp) return;
  sdk_team *t = *tp;
  pthread_mutex_destroy(&t->mu);
  pthread_cond_destroy(&t->cv);
  pthread_mutex_destroy(&t->serial);
  free(t->slot);
  free(t);
  *tp = NULL;
}

static sdk_err broken(sdk_errbuf *eb) {
  return SDK_FAIL(eb, SDK_ERR_BACKEND, "another rank of this run failed");
}

/* Every rank arrives before any leaves; a broken team lets all leave with
 * an error (a rank that failed alone will never arrive). */
static sdk_err barrier(sdk_team *t, sdk_errbuf *eb) {
  pthread_mutex_lock(&t->mu);
  int ok = !t->broken;
  if (ok) {
    unsigned long gen = t->generation;
    if (++t->arrived == t->size) {
      t->arrived = 0;
      t->generation++;
      pthread_cond_broadcast(&t->cv);
    } else {
      while (gen == t->generation && !t->broken)
        pthread_cond_wait(&t->cv, &t->mu);
      ok = gen != t->generation;
    }
  }
  pthread_mutex_unlock(&t->mu);
  return ok ? SDK_OK : broken(eb);
}

void sdk_team_break(sdk_team *t) {
  pthread_mutex_lock(&t->mu);
  t->broken = 1;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
}

void sdk_team_lock(sdk_team *t) {
  pthread_mutex_lock(&t->serial);
}
void sdk_team_unlock(sdk_team *t) {
  pthread_mutex_unlock(&t->serial);
}

/* post this rank's buffer and wait for every other rank's */
static sdk_err post(sdk_team *t, int rank, void *buf, sdk_errbuf *eb) {
  t->slot[rank] = buf;
  return barrier(t, eb);
}

static void combine(void *acc, const void *x, int64_t n, sdk_comm_type type, sdk_comm_op op) {
  for (int64_t i = 0; i < n; i++) {
    if (type == SDK_COMM_F64) {
      double *a = (double *)acc + i, v = ((const double *)x)[i];
      *a = op == SDK_COMM_SUM ? *a + v : op == SDK_COMM_MIN ? (v < *a ? v : *a) : (v > *a ? v : *a);
    } else if (type == SDK_COMM_I64) {
      int64_t *a = (int64_t *)acc + i, v = ((const int64_t *)x)[i];
      *a = op == SDK_COMM_SUM ? *a + v : op == SDK_COMM_MIN ? (v < *a ? v : *a) : (v > *a ? v : *a);
    } else {
      uint64_t *a = (uint64_t *)acc + i, v = ((const uint64_t *)x)[i];
      *a = op == SDK_COMM_SUM ? *a + v : op == SDK_COMM_MIN ? (v < *a ? v : *a) : (v > *a ? v : *a);
    }
  }
}

sdk_err sdk_team_allreduce(sdk_team *t, int rank, void *buf, int64_t n, sdk_comm_type type,
                           sdk_comm_op op, sdk_errbuf *eb) {
  if (t->size == 1 || n <= 0) return SDK_OK;
  /* every element is 8 bytes; ranks combined in rank order on every rank */
  void *acc = malloc((size_t)n * 8);
  sdk_err e = post(t, rank, buf, eb);
  if (e == SDK_OK && acc) {
    memcpy(acc, t->slot[0], (size_t)n * 8);
    for (int r = 1; r < t->size; r++)
      combine(acc, t->slot[r], n, type, op);
  }
  /* (nobody writes its buffer before every rank has read them all) */
  sdk_err e2 = barrier(t, eb);
  if (e == SDK_OK) e = e2;
  if (e == SDK_OK && !acc) e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (e == SDK_OK) memcpy(buf, acc, (size_t)n * 8);
  free(acc);
  return e;
}

sdk_err sdk_team_allgatherv(sdk_team *t, int rank, void *buf, const int64_t *bytes,
                            sdk_errbuf *eb) {
  if (t->size == 1) return SDK_OK;
  sdk_err e = post(t, rank, buf, eb);
  int64_t at = 0;
  for (int r = 0; e == SDK_OK && r < t->size; r++) {
    if (r != rank && bytes[r] > 0)
      memcpy((char *)buf + at, (const char *)t->slot[r] + at, (size_t)bytes[r]);
    at += bytes[r];
  }
  sdk_err e2 = barrier(t, eb);
  return e != SDK_OK ? e : e2;
}

sdk_err sdk_team_bcast(sdk_team *t, int rank, void *buf, int64_t nbytes, int root, sdk_errbuf *eb) {
  if (t->size == 1) return SDK_OK;
  sdk_err e = post(t, rank, buf, eb);
  if (e == SDK_OK && rank != root && nbytes > 0) memcpy(buf, t->slot[root], (size_t)nbytes);
  sdk_err e2 = barrier(t, eb);
  return e != SDK_OK ? e : e2;
}

/* Unlike MPI's point-to-point, every rank takes part (each calls it in the
 * same order: observe/paths.c), so that the two barriers are met. */
sdk_err sdk_team_move(sdk_team *t, int rank, void *buf, int64_t nbytes, int from, int to,
                      sdk_errbuf *eb) {
  if (t->size == 1 || from == to) return SDK_OK;
  sdk_err e = post(t, rank, buf, eb);
  if (e == SDK_OK && rank == to && nbytes > 0) memcpy(buf, t->slot[from], (size_t)nbytes);
  sdk_err e2 = barrier(t, eb);
  return e != SDK_OK ? e : e2;
}
