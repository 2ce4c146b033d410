/* sdekit: the processes of a run (MPI ranks), and the few collective
 * operations the library needs from them.
 *
 * A run spread over R ranks (docs/SCALING.md) holds on each rank some shards
 * of the global path indices (observe/paths.h).  Every rank runs the same
 * plan, the same observables and the same checkpoint logic in lockstep, and
 * the only data that cross between ranks are: per sample, the partial
 * results of the reductions (gathered to every rank and combined there in
 * the one fixed order, so every rank holds bitwise the totals of one
 * process); the rows a host-side observable or a checkpoint reads; and one
 * small agreement per chunk of steps (stop, checkpoint now).
 *
 * The ranks are MPI processes, or the threads of one process (an in-process
 * team: several GPUs from one process, sim/ranks.c), with the same operations
 * and bitwise the same results.
 *
 * A NULL communicator is one process: every function below is then the
 * identity (rank 0 of 1) and costs nothing.  Open MPI is optional at build
 * time (SDK_HAVE_MPI, CMake's FindMPI); without it sdk_comm_world fails with
 * a message saying so.  Library code never aborts: sdk_comm_abort is for the
 * caller (the CLI) when one rank failed alone and the others wait in a
 * collective operation.  Counts are in bytes or elements as int64; large
 * transfers go in pieces below MPI's int counts.
 */
#ifndef SDK_COMM_H
#define SDK_COMM_H

#include <stdint.h>

#include "core/error.h"

typedef struct sdk_comm sdk_comm;

typedef enum { SDK_COMM_I64, SDK_COMM_U64, SDK_COMM_F64 } sdk_comm_type;
typedef enum { SDK_COMM_SUM, SDK_COMM_MIN, SDK_COMM_MAX } sdk_comm_op;

/* 1 when this build has MPI. */
int sdk_comm_available(void);
/* The ranks of MPI_COMM_WORLD (a duplicate, so the library's messages never
 * meet the caller's); initialises MPI when nobody has (and then finalises
 * it in sdk_comm_destroy). */
sdk_err sdk_comm_world(sdk_comm **out, sdk_errbuf *eb);
void sdk_comm_destroy(sdk_comm **c);

int sdk_comm_rank(const sdk_comm *c);
int sdk_comm_size(const sdk_comm *c);
/* The rank among the ranks of this node (MPI_COMM_TYPE_SHARED), and their
 * number: a rank's GPU is its local rank modulo the node's GPUs. */
int sdk_comm_local_rank(const sdk_comm *c);
int sdk_comm_local_size(const sdk_comm *c);

/* buf[0..n) combined over the ranks, on every rank.  SUM of F64 is only
 * used where the order cannot matter (never for results: those gather). */
sdk_err sdk_comm_allreduce(const sdk_comm *c, void *buf, int64_t n, sdk_comm_type t, sdk_comm_op op,
                           sdk_errbuf *eb);
/* In place: buf holds the blocks of all ranks in rank order, bytes[r] bytes
 * of rank r; each rank has filled its own, and afterwards all have all. */
sdk_err sdk_comm_allgatherv(const sdk_comm *c, void *buf, const int64_t *bytes, sdk_errbuf *eb);
/* nbytes of root's buf to every rank. */
sdk_err sdk_comm_bcast(const sdk_comm *c, void *buf, int64_t nbytes, int root, sdk_errbuf *eb);
/* nbytes from rank `from`'s buf into rank `to`'s buf (the other ranks do
 * nothing; from == to: nothing). */
sdk_err sdk_comm_move(const sdk_comm *c, void *buf, int64_t nbytes, int from, int to,
                      sdk_errbuf *eb);
/* The error of the lowest rank that failed (its message prefixed "rank R: "
 * when the ranks did not all fail with the same message), on every rank:
 * all ranks return the same error together.  err: this rank's result. */
sdk_err sdk_comm_agree(const sdk_comm *c, sdk_err err, sdk_errbuf *eb);
/* Terminate every rank (MPI_Abort); for the caller, never the library.  In-process
 * ranks are not terminated: the team is broken (core/comm_team.h), so that every
 * rank waiting in a collective operation returns an error. */
void sdk_comm_abort(const sdk_comm *c, int code);

/* In-process ranks (core/comm_team.h): size communicators ranks[0..size) of one
 * team, rank r's to be used by one thread alone; each is its own node's rank r
 * of size.  sdk_comm_team_destroy frees them all (sdk_comm_destroy of one of
 * them does nothing). */
sdk_err sdk_comm_team_create(int size, sdk_comm ***ranks, sdk_errbuf *eb);
void sdk_comm_team_destroy(sdk_comm ***ranks);
/* 1 for a rank of an in-process team */
int sdk_comm_in_process(const sdk_comm *c);
/* Between lock and unlock no other in-process rank of c's team is between its
 * own: for a library that is not thread-safe (HDF5).  Nothing for MPI ranks and
 * one process. */
void sdk_comm_lock(const sdk_comm *c);
void sdk_comm_unlock(const sdk_comm *c);

#endif
