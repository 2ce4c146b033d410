/* sdekit: pieces of the gnuplot-ready TSV layout that every observable's
 * text uses (observe/obs_*.c write_tsv; the common '#' header is io/tsv.c's).
 *
 * Layout: a '#' line naming the columns, then one line per value with the
 * scan coordinates of its grid point first.  Blocks (one per grid point of a
 * time series, per variable of a histogram, ...) are separated by exactly
 * two blank lines, so that gnuplot's `index` picks one; a single blank line
 * only separates the scan lines of a surface inside one block (splot: the
 * rows of a two-parameter scan of one value per grid point, the sample
 * times of a density). */
#ifndef SDK_TSVFMT_H
#define SDK_TSVFMT_H

#include <stdint.h>
#include <stdio.h>

#include "core/numfmt.h"
#include "core/strbuf.h"
#include "observe/observable.h"
#include "observe/results.h"

/* A header line: "# ", the scan names, then the columns printf'd from fmt
 * (tab-separated, no newline).  SDK_ERR_USAGE, nothing written, when two of
 * these names are equal (a scanned parameter named like a column; variables
 * a_b, c and a, b_c both giving cov_a_b_c): the message names both and the
 * observable `obs`. */
sdk_err sdk_tsv_header(const sdk_results *R, FILE *f, const char *obs, sdk_errbuf *eb,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Every header observable t's text would have for the results R, checked
 * as sdk_tsv_header does, without formatting any data: t's writer runs on a
 * view of R with no grid points (every row of its text is a grid point's:
 * observable.h, write_tsv) into a scratch stream.  The run's plan calls it
 * when the results go to TSV, so that a clash is refused before the run
 * (the datasets exist then, sized for it); a drift's header is checked with
 * its nonfinite column, which only paths that blow up would add. */
sdk_err sdk_tsv_check_headers(const sdk_results *R, const sdk_obs_type *t, sdk_errbuf *eb);
/* The scan coordinates of grid point g, each followed by a tab. */
void sdk_tsv_coords(const sdk_results *R, int64_t g, FILE *f);
/* Time series: the header line (scan names, "t", the column names), then per
 * grid point (blocks separated by `sep`: "\n" for splot surfaces, "\n\n" for
 * gnuplot's index) one line per sample: coordinates, t, the columns.  t and
 * every column are [grid][nsamples] arrays; the header as sdk_tsv_header.
 * A column NAME whose bias OBS/bias_NAME exists (--dt-check, observe/bias.h)
 * adds the columns bias_NAME and bias_err_NAME after the others. */
/* The bias datasets GROUP/bias_NAME and GROUP/bias_err_NAME of a value
 * GROUP/NAME (observe/bias.h): 1 when both exist. */
int sdk_tsv_bias_cols(const sdk_results *R, const char *group, const char *name,
                      const double **bias, const double **err);
sdk_err sdk_tsv_series(const sdk_results *R, FILE *f, const char *obs, const char *sep, int64_t ns,
                       const double *t, int ncol, const char *const *names,
                       const double *const *cols, sdk_errbuf *eb);
/* The same for two statistics of every variable VAR, the datasets
 * GROUP/A_VAR and GROUP/B_VAR (columns in that order, one block per grid
 * point, blocks separated by two blank lines), with GROUP/t;
 * SDK_ERR_INTERNAL when one is missing. */
sdk_err sdk_tsv_var_pairs(const sdk_results *R, FILE *f, const char *group, const char *a,
                          const char *b, sdk_errbuf *eb);
/* The same with a third statistic GROUP/C_VAR of every variable (c: NULL
 * for none), its columns after all the pairs (the pairs' columns keep their
 * places); left out when the results have no GROUP/C_VAR (older files). */
sdk_err sdk_tsv_var_cols(const sdk_results *R, FILE *f, const char *group, const char *a,
                         const char *b, const char *c, sdk_errbuf *eb);
/* Before the row of grid point g in a table of one row per grid point: a
 * two-axis scan, a blank line where axis 0 changes (gnuplot's splot); more
 * axes, a block per combination of all but the last axis, headed by a line
 * "# block: NAME=VALUE ..." and apart from the one before by two blank lines
 * (gnuplot's index). */
void sdk_tsv_grid_break(const sdk_results *R, int64_t g, FILE *f);
/* A table of one row per grid point: the header (as sdk_tsv_header) of the
 * ncol names, then per grid point (sdk_tsv_grid_break before it) its
 * coordinates and the values of the columns, each a [grid] array. */
sdk_err sdk_tsv_grid_rows(const sdk_results *R, FILE *f, const char *obs, int ncol,
                          const char *const *names, const double *const *cols, sdk_errbuf *eb);
/* Edge e (0..bins) of the histogram [lo, hi]: the last one is hi exactly. */
double sdk_tsv_bin_edge(double lo, double hi, int64_t e, int64_t bins);
/* Histograms of times, one per grid point and named item (fpt's
 * boundaries, events' events): the header (as sdk_tsv_header) "LABEL t_lo
 * t_hi count", then per grid point and item a block (blocks separated by two
 * blank lines) of a line per bin: the coordinates, the item's name, the
 * bin's edges and its count; hist the [grid][n][bins] counts (SDK_U64),
 * edges the [grid][bins + 1] bin edges. */
sdk_err sdk_tsv_time_hists(const sdk_results *R, FILE *f, const char *obs, const char *label,
                           char names[][64], int n, const sdk_dataset *hist, const double *edges,
                           sdk_errbuf *eb);

#endif
