/* sdekit: a team of in-process ranks, the threads of one process each
 * running one rank of a run (several GPUs from one process: --device all).
 *
 * The collective operations of core/comm.h over shared memory: every rank
 * posts its buffer, all meet at a barrier, each reads what it needs from the
 * others' buffers, and all meet again before any buffer may change.  Every
 * combination runs over the ranks in rank order, so a team gives bitwise what
 * MPI ranks and one process give.  A rank that fails alone breaks the team
 * (sdk_team_break): every rank waiting in, or later entering, a collective
 * operation returns an error instead of waiting for it. */
#ifndef SDK_COMM_TEAM_H
#define SDK_COMM_TEAM_H

#include "core/comm.h"

typedef struct sdk_team sdk_team;

sdk_err sdk_team_create(int size, sdk_team **out, sdk_errbuf *eb);
void sdk_team_destroy(sdk_team **t);

sdk_err sdk_team_allreduce(sdk_team *t, int rank, void *buf, int64_t n, sdk_comm_type type,
                           sdk_comm_op op, sdk_errbuf *eb);
sdk_err sdk_team_allgatherv(sdk_team *t, int rank, void *buf, const int64_t *bytes, sdk_errbuf *eb);
sdk_err sdk_team_bcast(sdk_team *t, int rank, void *buf, int64_t nbytes, int root, sdk_errbuf *eb);
sdk_err sdk_team_move(sdk_team *t, int rank, void *buf, int64_t nbytes, int from, int to,
                      sdk_errbuf *eb);
void sdk_team_break(sdk_team *t);
void sdk_team_lock(sdk_team *t);
void sdk_team_unlock(sdk_team *t);

#endif
