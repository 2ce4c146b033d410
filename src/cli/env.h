/* sdekit: the environment variables the CLI reads.  This is the only place
 * that calls getenv(): the library takes the environment as data
 * (sdekit_config_set_environment), and every variable is documented in
 * `sdekit run --help`, the README and the man page. */
#ifndef SDK_CLI_ENV_H
#define SDK_CLI_ENV_H

/* SDEKIT_MODEL_PATH: ':'-separated directories searched for bare model names
 * before the built-in ones (NULL when unset). */
const char *sdk_cli_env_model_path(void);

/* The environment as the library takes it (sdekit_config_set_environment). */
const char *const *cli_environ(void);

/* TMPDIR (where `sdekit plot` makes its scratch directory) and
 * SDEKIT_CACHE_MAX (the kernel cache's cap): NULL when unset. */
const char *sdk_cli_env_tmpdir(void);
const char *sdk_cli_env_cache_max(void);

/* MPI: SDEKIT_MPI (0: never join ranks, 1: always; NULL when unset);
 * whether an MPI launcher (mpirun, srun) started this process, and how many
 * ranks it says it started (1 when it says nothing). */
const char *sdk_cli_env_mpi(void);
int sdk_cli_env_mpi_launcher(void);
int sdk_cli_env_mpi_size(void);
/* the rank the launcher gave this process (0 when it says nothing) */
int sdk_cli_env_mpi_rank(void);

#endif
