/* sdekit info: a summary of a result file (the run's settings, variables,
 * parameters, scan axes, every dataset with its shape, a table of the values
 * with standard errors of every observable: the series at their last sample),
 * from the public API's view of the file (sdekit_result_read). */
#ifndef SDK_CLI_INFO_H
#define SDK_CLI_INFO_H

#include <sdekit.h>
#include <stdio.h>

/* Print the summary of r (read from path, which names it) to out.  Every
 * string from the file is escaped for the terminal.  SDEKIT_ERR_IO when
 * writing to out fails. */
sdekit_status cli_info_print(const sdekit_result *r, const char *path, FILE *out,
                             sdekit_error *err);
/* Read path and print its summary: the reader's errors (SDEKIT_ERR_IO when
 * the file cannot be read, SDEKIT_ERR_USAGE for a directory,
 * SDEKIT_ERR_FORMAT naming the file and the problem), or those above. */
sdekit_status cli_info(const char *path, FILE *out, sdekit_error *err);

#endif
