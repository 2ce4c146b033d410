#include "cli/env.h"

#include <stdlib.h>

/* ---------------- model search path ---------------- */

const char *sdk_cli_env_model_path(void) {
  return getenv("SDEKIT_MODEL_PATH");
}

/* ---------------- the whole environment, for the library ---------------- */

extern char **environ;

const char *const *cli_environ(void) {
  return (const char *const *)environ;
}

/* ---------------- the CLI's own ---------------- */

const char *sdk_cli_env_tmpdir(void) {
  return getenv("TMPDIR");
}

const char *sdk_cli_env_cache_max(void) {
  return getenv("SDEKIT_CACHE_MAX");
}

const char *sdk_cli_env_mpi(void) {
  return getenv("SDEKIT_MPI");
}

/* the variables the launchers set in every rank they start */
int sdk_cli_env_mpi_launcher(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                                     NULL};
  for (int i = 0; vars[i]; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

/* the first of these variables that is set, as a number (dflt: none is) */
static int first_int(const char *const *vars, int dflt) {
  for (int i = 0; vars[i]; i++) {
    const char *v = getenv(vars[i]);
    if (v) return atoi(v);
  }
  return dflt;
}

int sdk_cli_env_mpi_size(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
  return first_int(vars, 1);
}

int sdk_cli_env_mpi_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", NULL};
  return first_int(vars, 0);
}
