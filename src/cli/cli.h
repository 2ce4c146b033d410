/* Sub-commands implemented outside main.c. */
#ifndef SDK_CLI_H
#define SDK_CLI_H
#include <stdint.h>
#include <stdio.h>

#include <sdekit.h>
/* sdekit run, sdekit resume (run.c). */
int sdk_cli_run(int argc, char **argv);
int sdk_cli_resume(int argc, char **argv);
int sdk_cli_bench(int argc, char **argv);
/* sdekit bench --published: starts the Python driver (bench_published.c). */
int sdk_cli_bench_published(int argc, char **argv);
int sdk_cli_compile(int argc, char **argv);
int sdk_cli_devices(int argc, char **argv);
int sdk_cli_plot(int argc, char **argv);
int sdk_cli_cache(int argc, char **argv);
/* Read a result file the way 'sdekit info' and 'sdekit plot' do, without
 * running gnuplot or writing anything: the summary goes to info_out (skipped
 * when NULL), then every picture the file holds is prepared (data to
 * /dev/null, the script in memory and checked to hold no backquote).  For
 * fuzzing the HDF5 reader (any path: a regular file is required).  SDEKIT_OK,
 * or the error 'sdekit info' / 'sdekit plot' would report (in err). */
sdekit_status sdk_plot_inspect(const char *path, FILE *info_out, sdekit_error *err);
/* The one way the CLI reports an error: "sdekit: error: MESSAGE" on stderr,
 * the message formatted, a trailing newline dropped, and the rest escaped
 * for the terminal (sdk_esc_term), so no string from a file or the command
 * line can send control sequences to it.  One line, always. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_error from any rank (a rank failing alone: mpi.c). */
void cli_error_rank(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* MPI (mpi.c): started by mpirun/srun, run and resume join the ranks
 * (cli_mpi_start: 0, or the exit status of a failure); cli_comm is NULL
 * otherwise.  Only rank 0 prints (cli_error is silent elsewhere). */
int cli_mpi_start(void);
void cli_mpi_stop(void);
const sdekit_comm *cli_comm(void);
int cli_rank(void);
/* A run's error: printed once (cli_fail) or, when this rank failed alone,
 * with the rank, and then every rank is stopped.  Returns the exit status. */
int cli_run_failed(const sdekit_error *err);
/* Where the library's messages go: stderr, as they come (the library's log
 * callback; --verbose lowers the level to the details: compiler commands,
 * cache use, kernel choices). */
void cli_log(void *user, sdekit_log_level level, const char *msg);
/* The registry's backends in its order, for help texts: "cpu | cuda"
 * (sep " | ", last " | "), "cpu|cuda" or "cpu or cuda" (sep ", ", last
 * " or "); buf, truncated to n. */
const char *cli_backend_names(char *buf, size_t n, const char *sep, const char *last);
/* Print text from data (names, descriptions, paths) escaped to a stream. */
void cli_put_escaped(FILE *f, const char *s);
#endif
