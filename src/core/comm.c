/* The ranks of a run (core/comm.h): MPI when built with it, else one
 * process. */
#include "core/comm.h"
#include "core/comm_team.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SDK_HAVE_MPI
#include <mpi.h>
#endif

struct sdk_comm {
  int rank, size, local_rank, local_size;
  int owns_init;  /* MPI_Init was ours: MPI_Finalize is too */
  sdk_team *team; /* in-process ranks (core/comm_team.c); NULL: MPI */
#ifdef SDK_HAVE_MPI
  MPI_Comm comm;
#endif
};

/* MPI counts are int: transfers go in pieces of at most this many bytes */
#define PIECE ((int64_t)1 << 30)

int sdk_comm_available(void) {
#ifdef SDK_HAVE_MPI
  return 1;
#else
  return 0;
#endif
}

int sdk_comm_rank(const sdk_comm *c) {
  return c ? c->rank : 0;
}
int sdk_comm_size(const sdk_comm *c) {
  return c ? c->size : 1;
}
int sdk_comm_local_rank(const sdk_comm *c) {
  return c ? c->local_rank : 0;
}
int sdk_comm_local_size(const sdk_comm *c) {
  return c ? c->local_size : 1;
}

#ifdef SDK_HAVE_MPI

sdk_err sdk_comm_world(sdk_comm **out, sdk_errbuf *eb) {
  *out = NULL;
  sdk_comm *c = calloc(1, sizeof *c);
  if (!c) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (fin) {
    free(c);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "MPI was finalised already");
  }
  if (!init) {
    /* OpenMP threads never call MPI: only the main thread does */
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      free(c);
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "MPI_Init_thread failed");
    }
    c->owns_init = 1;
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &c->comm);
  MPI_Comm_rank(c->comm, &c->rank);
  MPI_Comm_size(c->comm, &c->size);
  MPI_Comm node;
  MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &c->local_rank);
  MPI_Comm_size(node, &c->local_size);
  MPI_Comm_free(&node);
  *out = c;
  return SDK_OK;
}

void sdk_comm_destroy(sdk_comm **cp) {
  if (!cp || !*cp) return;
  sdk_comm *c = *cp;
  if (c->team) { /* the team's own: sdk_comm_team_destroy */
    *cp = NULL;
    return;
  }
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin) {
    MPI_Comm_free(&c->comm);
    if (c->owns_init) MPI_Finalize();
  }
  free(c);
  *cp = NULL;
}

static MPI_Datatype mpi_type(sdk_comm_type t) {
  return t == SDK_COMM_I64 ? MPI_INT64_T : t == SDK_COMM_U64 ? MPI_UINT64_T : MPI_DOUBLE;
}

static sdk_err mpi_allreduce(const sdk_comm *c, void *buf, int64_t n, sdk_comm_type t,
                             sdk_comm_op op, sdk_errbuf *eb) {
  if (!c || c->size == 1 || n <= 0) return SDK_OK;
  MPI_Op o = op == SDK_COMM_SUM ? MPI_SUM : op == SDK_COMM_MIN ? MPI_MIN : MPI_MAX;
  for (int64_t at = 0; at < n; at += PIECE / 8) {
    int k = (int)(n - at < PIECE / 8 ? n - at : PIECE / 8);
    if (MPI_Allreduce(MPI_IN_PLACE, (char *)buf + at * 8, k, mpi_type(t), o, c->comm) !=
        MPI_SUCCESS)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "MPI_Allreduce failed");
  }
  return SDK_OK;
}

static sdk_err mpi_allgatherv(const sdk_comm *c, void *buf, const int64_t *bytes, sdk_errbuf *eb) {
  if (!c || c->size == 1) return SDK_OK;
  int *cnt = malloc((size_t)c->size * sizeof *cnt), *off = malloc((size_t)c->size * sizeof *off);
  sdk_err e = !cnt || !off ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory") : SDK_OK;
  int64_t at = 0;
  for (int r = 0; r < c->size && e == SDK_OK; r++) {
    if (bytes[r] < 0 || at + bytes[r] > 0x7fffffff)
      e = SDK_FAIL(eb, SDK_ERR_USAGE, "too much data to gather (%lld bytes)",
                   (long long)(at + bytes[r]));
    else
      cnt[r] = (int)bytes[r], off[r] = (int)at, at += bytes[r];
  }
  if (e == SDK_OK &&
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, buf, cnt, off, MPI_BYTE, c->comm) != MPI_SUCCESS)
    e = SDK_FAIL(eb, SDK_ERR_BACKEND, "MPI_Allgatherv failed");
  free(cnt);
  free(off);
  return e;
}

static sdk_err mpi_bcast(const sdk_comm *c, void *buf, int64_t nbytes, int root, sdk_errbuf *eb) {
  if (!c || c->size == 1) return SDK_OK;
  for (int64_t at = 0; at < nbytes; at += PIECE) {
    int k = (int)(nbytes - at < PIECE ? nbytes - at : PIECE);
    if (MPI_Bcast((char *)buf + at, k, MPI_BYTE, root, c->comm) != MPI_SUCCESS)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "MPI_Bcast failed");
  }
  return SDK_OK;
}

static sdk_err mpi_move(const sdk_comm *c, void *buf, int64_t nbytes, int from, int to,
                        sdk_errbuf *eb) {
  if (!c || c->size == 1 || from == to || (c->rank != from && c->rank != to)) return SDK_OK;
  for (int64_t at = 0; at < nbytes; at += PIECE) {
    int k = (int)(nbytes - at < PIECE ? nbytes - at : PIECE), rc;
    if (c->rank == from)
      rc = MPI_Send((char *)buf + at, k, MPI_BYTE, to, 7, c->comm);
    else
      rc = MPI_Recv((char *)buf + at, k, MPI_BYTE, from, 7, c->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return SDK_FAIL(eb, SDK_ERR_BACKEND, "MPI point-to-point failed");
  }
  return SDK_OK;
}

static void mpi_abort(const sdk_comm *c, int code) {
  if (c) MPI_Abort(c->comm, code);
}

#else /* no MPI: one process */

sdk_err sdk_comm_world(sdk_comm **out, sdk_errbuf *eb) {
  *out = NULL;
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "this sdekit was built without MPI (install libopenmpi-dev and rebuild)");
}
void sdk_comm_destroy(sdk_comm **c) {
  if (c) *c = NULL;
}
static sdk_err mpi_allreduce(const sdk_comm *c, void *buf, int64_t n, sdk_comm_type t,
                             sdk_comm_op op, sdk_errbuf *eb) {
  (void)c, (void)buf, (void)n, (void)t, (void)op, (void)eb;
  return SDK_OK;
}
static sdk_err mpi_allgatherv(const sdk_comm *c, void *buf, const int64_t *bytes, sdk_errbuf *eb) {
  (void)c, (void)buf, (void)bytes, (void)eb;
  return SDK_OK;
}
static sdk_err mpi_bcast(const sdk_comm *c, void *buf, int64_t nbytes, int root, sdk_errbuf *eb) {
  (void)c, (void)buf, (void)nbytes, (void)root, (void)eb;
  return SDK_OK;
}
static sdk_err mpi_move(const sdk_comm *c, void *buf, int64_t nbytes, int from, int to,
                        sdk_errbuf *eb) {
  (void)c, (void)buf, (void)nbytes, (void)from, (void)to, (void)eb;
  return SDK_OK;
}
static void mpi_abort(const sdk_comm *c, int code) {
  (void)c, (void)code;
}

#endif

/* In-process ranks go through the team; MPI ranks through MPI. */
sdk_err sdk_comm_allreduce(const sdk_comm *c, void *buf, int64_t n, sdk_comm_type t, sdk_comm_op op,
                           sdk_errbuf *eb) {
  if (c && c->team) return sdk_team_allreduce(c->team, c->rank, buf, n, t, op, eb);
  return mpi_allreduce(c, buf, n, t, op, eb);
}
sdk_err sdk_comm_allgatherv(const sdk_comm *c, void *buf, const int64_t *bytes, sdk_errbuf *eb) {
  if (c && c->team) return sdk_team_allgatherv(c->team, c->rank, buf, bytes, eb);
  return mpi_allgatherv(c, buf, bytes, eb);
}
sdk_err sdk_comm_bcast(const sdk_comm *c, void *buf, int64_t nbytes, int root, sdk_errbuf *eb) {
  if (c && c->team) return sdk_team_bcast(c->team, c->rank, buf, nbytes, root, eb);
  return mpi_bcast(c, buf, nbytes, root, eb);
}
sdk_err sdk_comm_move(const sdk_comm *c, void *buf, int64_t nbytes, int from, int to,
                      sdk_errbuf *eb) {
  if (c && c->team) return sdk_team_move(c->team, c->rank, buf, nbytes, from, to, eb);
  return mpi_move(c, buf, nbytes, from, to, eb);
}
void sdk_comm_abort(const sdk_comm *c, int code) {
  if (c && c->team)
    sdk_team_break(c->team);
  else
    mpi_abort(c, code);
}

sdk_err sdk_comm_team_create(int size, sdk_comm ***ranks, sdk_errbuf *eb) {
  *ranks = NULL;
  sdk_team *t;
  SDK_CHECK(sdk_team_create(size, &t, eb));
  sdk_comm **r = calloc((size_t)size + 1, sizeof *r);
  sdk_comm *all = calloc((size_t)size, sizeof *all);
  if (!r || !all) {
    free(r), free(all);
    sdk_team_destroy(&t);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < size; i++) {
    all[i] = (sdk_comm){.rank = i, .size = size, .local_rank = i, .local_size = size, .team = t};
    r[i] = &all[i];
  }
  *ranks = r;
  return SDK_OK;
}

void sdk_comm_team_destroy(sdk_comm ***ranks) {
  if (!ranks || !*ranks) return;
  sdk_comm **r = *ranks;
  if (r[0]) {
    sdk_team_destroy(&r[0]->team);
    free(r[0]);
  }
  free(r);
  *ranks = NULL;
}

int sdk_comm_in_process(const sdk_comm *c) {
  return c && c->team;
}

void sdk_comm_lock(const sdk_comm *c) {
  if (c && c->team) sdk_team_lock(c->team);
}
void sdk_comm_unlock(const sdk_comm *c) {
  if (c && c->team) sdk_team_unlock(c->team);
}

/* every rank's (error, message), the lowest failing rank's returned */
sdk_err sdk_comm_agree(const sdk_comm *c, sdk_err err, sdk_errbuf *eb) {
  if (!c || c->size == 1) return err;
  enum { MSG = sizeof eb->msg };
  int64_t n = c->size;
  char *all = calloc((size_t)n, 8 + MSG);
  int64_t *bytes = calloc((size_t)n, sizeof *bytes);
  if (!all || !bytes) {
    free(all), free(bytes);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  char *mine = all + (size_t)c->rank * (8 + MSG);
  int64_t code = err;
  memcpy(mine, &code, 8);
  if (err != SDK_OK && eb) memcpy(mine + 8, eb->msg, MSG);
  mine[8 + MSG - 1] = 0;
  for (int64_t r = 0; r < n; r++)
    bytes[r] = 8 + MSG;
  sdk_errbuf local = {0};
  sdk_err e = sdk_comm_allgatherv(c, all, bytes, &local);
  int first = -1, same = 1;
  for (int64_t r = 0; e == SDK_OK && r < n; r++) {
    memcpy(&code, all + r * (8 + MSG), 8);
    if (code == SDK_OK) {
      same = 0;
      continue;
    }
    if (first < 0)
      first = (int)r;
    else if (strcmp(all + r * (8 + MSG) + 8, all + first * (8 + MSG) + 8))
      same = 0;
  }
  if (e != SDK_OK) {
    if (eb && !eb->msg[0]) *eb = local;
  } else if (first >= 0) {
    const char *msg = all + first * (8 + MSG) + 8;
    memcpy(&code, all + first * (8 + MSG), 8);
    e = (sdk_err)code;
    if (eb) {
      char m[MSG];
      snprintf(m, sizeof m, "%s", msg);
      if (same)
        snprintf(eb->msg, sizeof eb->msg, "%s", m);
      else
        snprintf(eb->msg, sizeof eb->msg, "rank %d: %s", first, m);
      eb->alone = 0;
    }
  }
  free(all);
  free(bytes);
  return e;
}
