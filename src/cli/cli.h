/* Sub-commands implemented outside main.c. */
#ifndef SDK_CLI_H
#define SDK_CLI_H
int sdk_cli_bench(int argc, char **argv);
int sdk_cli_compile(int argc, char **argv);
struct sdk_run_config;
int sdk_cli_compile_cfg(const struct sdk_run_config *c, const char *arch, int cuda);
int sdk_cli_devices(int argc, char **argv);
int sdk_cli_plot(int argc, char **argv);
#endif
