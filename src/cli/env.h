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

#endif
