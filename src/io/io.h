/* sdekit: writing results (HDF5, gnuplot-ready TSV).
 *
 * HDF5 layout written by sdk_write_h5 (format_version 2; io/image.h holds it
 * as data).  "grid..." is the grid shape: no dimensions when nscan == 0, else
 * [n0, n1, ...] one per axis (row-major, axis 0 slowest, as in sdk_results).  Floating point is
 * IEEE f64 little-endian, integers i64/u64 little-endian, strings variable-length UTF-8.
 *
 *   /                          attributes: format ("sdekit"), format_version (2),
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
 *   /scan/<param>              [n] scan values; attributes start, stop, n, log;
 *                              a parameter zipped with an axis (moving with
 *                              it) also zipped_with: the axis's first parameter
 *   /scan/dt                   [grid...] time step per grid point
 *   /nonfinite                 [grid...] paths that became NaN/Inf (only when some did)
 *   /final/<var>               [ngrid][paths] ([paths] without a scan): every path's
 *                              final state (--save-final, sim/pathdata.c), chunked
 *                              and deflated; dims "grid_point", "path"
 *   /<observable>/...          each observable's datasets and attributes, as its
 *                              file in src/observe/obs_*.c lists them (drift,
 *                              moments, hist, density, paths, order): the result
 *                              store written as it is (observe/store.h), chunked
 *                              and deflated where the observable asks
 *
 * Every dataset has the attribute dims (format_version 2): a string array,
 * one name per dimension: the scan parameters' names for the grid
 * dimensions, "sample" for the sample axis (over the observable's step/t),
 * and the observable's name for any other ("path" in paths/VAR and
 * paths/index, "bin" in hist/VAR/density and density/VAR/P; "dim<k>" for a
 * dimension k nobody named).  A dataset with standard errors has the string
 * attribute standard_error naming the sibling dataset that holds them
 * (drift/value: "error"; order/r: "r_err").
 *
 * Format versions: 1 (sdekit 0.1, issues 1-11) is this layout without dims
 * and standard_error; 2 adds them.  Both read with sdk_read_h5 (image.h).
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

#define SDK_H5_FORMAT_VERSION 2

/* Write all results to an HDF5 file at path (atomically replaced). */
sdk_err sdk_write_h5(const sdk_results *r, const char *path, sdk_errbuf *eb);

/* Write one observable (by its name: drift, moments, hist, density, paths,
 * order, ...) as tab-separated text for gnuplot: a '#' header of the run's
 * settings, then the observable's own text (its write_tsv).  SDK_ERR_USAGE
 * for an unknown observable or one that was not computed; SDK_ERR_IO when
 * writing to f fails; nothing written when a header would name two columns
 * alike (observe/tsvfmt.h). */
sdk_err sdk_write_tsv(const sdk_results *r, const char *obs, FILE *f, sdk_errbuf *eb);

/* Same; name says what f is in messages ("cannot write NAME: ..."), where
 * sdk_write_tsv says "TSV output". */
sdk_err sdk_write_tsv_named(const sdk_results *r, const char *obs, FILE *f, const char *name,
                            sdk_errbuf *eb);

/* Same, to the file path (a temporary renamed into place on success). */
sdk_err sdk_write_tsv_file(const sdk_results *r, const char *obs, const char *path, sdk_errbuf *eb);

/* Whether sdk_write_tsv of obs would fail before writing anything (an
 * unknown or missing observable, a header naming two columns alike: every
 * write checks so first), without writing: to check several before writing
 * any. */
sdk_err sdk_check_tsv(const sdk_results *r, const char *obs, sdk_errbuf *eb);

#endif
