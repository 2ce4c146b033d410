/* sdekit: writing results (HDF5, gnuplot-ready TSV) and summarising result files.
 *
 * HDF5 layout written by sdk_write_h5 (format_version 1).  "grid..." is the
 * grid shape: no dimensions when nscan == 0, [n0] or [n0, n1] (axis 0 slowest,
 * as in sdk_results).  Floating point is IEEE f64 little-endian, integers
 * i64/u64 little-endian, strings variable-length UTF-8.
 *
 *   /                          attributes: format ("sdekit"), format_version (1),
 *                              version, model_name, model_path, model_text,
 *                              scheme, precision, backend, seed (u64), paths,
 *                              (particles,) period, spp, nsteps, transient_steps,
 *                              sample_every, command_line, var_names (string
 *                              array), param_names (string array),
 *                              param_values (f64 array, in param_names order:
 *                              the value in force for the run, after --set and
 *                              derived parameters; NaN for a parameter that
 *                              varies over the grid: a scanned one, whose
 *                              values are /scan/NAME, or one derived from a
 *                              scanned one, model/model.h)
 *   /scan/                     attribute axes: scanned parameter names in
 *                              dimension order (empty array when nscan == 0)
 *   /scan/<param>              [n] scan values; attributes start, stop, n, log
 *   /scan/dt                   [grid...] time step per grid point
 *   /nonfinite                 [grid...] paths that became NaN/Inf (only when some did)
 *   /<observable>/...          each observable's datasets and attributes, as its
 *                              file in src/observe/obs_*.c lists them (drift,
 *                              moments, hist, density, paths, order): the result
 *                              store written as it is (observe/store.h), chunked
 *                              and deflated where the observable asks
 *
 * Identical inputs give byte-identical files (no timestamps, fixed
 * library-version bounds).  Files are written to a temporary next to the
 * target and renamed into place only on success.
 */
#ifndef SDK_IO_H
#define SDK_IO_H

#include <stdio.h>

#include "core/error.h"
#include "core/numfmt.h"
#include "observe/results.h"

#define SDK_H5_FORMAT_VERSION 1

/* Write all results to an HDF5 file at path (atomically replaced). */
sdk_err sdk_write_h5(const sdk_results *r, const char *path, sdk_errbuf *eb);

/* Write one observable (by its name: drift, moments, hist, density, paths,
 * order, ...) as tab-separated text for gnuplot: a '#' header of the run's
 * settings, then the observable's own text (its write_tsv).  SDK_ERR_USAGE
 * for an unknown observable or one that was not computed; SDK_ERR_IO when
 * writing to f fails. */
sdk_err sdk_write_tsv(const sdk_results *r, const char *obs, FILE *f, sdk_errbuf *eb);

/* Same; name says what f is in messages ("cannot write NAME: ..."), where
 * sdk_write_tsv says "TSV output". */
sdk_err sdk_write_tsv_named(const sdk_results *r, const char *obs, FILE *f, const char *name,
                            sdk_errbuf *eb);

/* Same, to the file path (a temporary renamed into place on success). */
sdk_err sdk_write_tsv_file(const sdk_results *r, const char *obs, const char *path, sdk_errbuf *eb);

/* Print a human-readable summary of an sdekit HDF5 result file.
 * SDK_ERR_IO when it cannot be read, SDK_ERR_FORMAT when it is not HDF5 or
 * not an sdekit result file. */
sdk_err sdk_h5_info(const char *path, FILE *out, sdk_errbuf *eb);

#endif
