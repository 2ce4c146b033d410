/* sdekit run/resume under mpirun or srun: the ranks (include/sdekit.h, MPI),
 * and who speaks.  Only rank 0 prints progress, messages and results; an
 * error every rank returned together is printed once, by rank 0; an error of
 * one rank alone is printed by that rank with its number, and then every
 * rank is stopped (MPI_Abort), so that none waits forever for it. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/runopts.h"

static sdekit_comm *g_comm;
static int g_rank;

/* Started by an MPI launcher?  Open MPI's mpirun, PMIx (srun --mpi=pmix),
 * PMI-1/2 (srun, MPICH's hydra); SDEKIT_MPI=0 says never, 1 always. */
static int launched(void) {
  const char *force = sdk_cli_env_mpi();
  if (force && !strcmp(force, "0")) return 0;
  if (force && !strcmp(force, "1")) return 1;
  return force && *force ? -1 : sdk_cli_env_mpi_launcher();
}

int cli_mpi_start(void) {
  int how = launched();
  if (how < 0) {
    if (sdk_cli_env_mpi_rank() == 0)
      cli_error("SDEKIT_MPI='%s': expected 0 (never join MPI ranks) or 1 (always)",
                sdk_cli_env_mpi());
    return 2;
  }
  if (!how) return 0;
  if (!sdekit_mpi_available()) {
    if (sdk_cli_env_mpi_size() > 1) {
      /* (no MPI to agree with: the launcher's rank 0 says it) */
      if (sdk_cli_env_mpi_rank() == 0)
        cli_error("started by an MPI launcher with %d ranks, but this sdekit was built without MPI "
                  "(every rank would do the whole run): install libopenmpi-dev and rebuild, or "
                  "run one process",
                  sdk_cli_env_mpi_size());
      return 2;
    }
    return 0;
  }
  sdekit_error err;
  if (sdekit_comm_world(&g_comm, &err) != SDEKIT_OK) return cli_fail(&err);
  g_rank = sdekit_comm_rank(g_comm);
  return 0;
}

void cli_mpi_stop(void) {
  sdekit_comm_destroy(&g_comm);
}

const sdekit_comm *cli_comm(void) {
  return g_comm;
}

int cli_rank(void) {
  return g_rank;
}

int cli_run_failed(const sdekit_error *err) {
  int code = sdekit_status_exit_code(err->status);
  if (!err->alone || !g_comm) return cli_fail(err);
  cli_error_rank("rank %d: %s", g_rank, err->message);
  sdekit_comm_abort(g_comm, code ? code : 1);
  return code;
}
