/* sdekit: a result file as data (the "image"): what sdk_write_h5 writes and
 * what sdk_read_h5 reads back, in one sdk_store (observe/store.h).
 *
 * The image holds every dataset of the file under its path ("scan/a",
 * "scan/dt", "nonfinite", "drift/value", "density/x/P") and every attribute:
 * the root's as the attributes of group "" (model_name, seed, param_values,
 * ...), a group's as the group's ("scan" axes, "density/x" var), a dataset's
 * as the dataset's.  The layout is io.h's.
 *
 * Every dataset carries the attribute "dims" (format_version 2): the names
 * of its dimensions, the scan parameters for its grid dimensions, "sample"
 * for its sample axis, and what the observable calls the others ("path",
 * "bin"); a dataset that has standard errors names the dataset holding them
 * in its attribute "standard_error" (a sibling's name: "error" for
 * drift/value).  Reading sets grid_rank and sample_axis from "dims"; a file
 * of format_version 1 (without "dims") gets them from the shapes: leading
 * dimensions equal to the scan axes are the grid, and a dimension equal to
 * the length of the group's "step" dataset is the sample axis.
 *
 * The image of a run's results borrows their data (SDK_DS_BORROWED): it must
 * not outlive them.
 */
#ifndef SDK_IO_IMAGE_H
#define SDK_IO_IMAGE_H

#include "core/error.h"
#include "observe/results.h"
#include "observe/store.h"

/* The image of a run's results: the root attributes, the scan group, the
 * time steps, the non-finite counts and every observable's datasets with
 * their attributes, in the order the file is written. */
sdk_err sdk_image_of_results(const sdk_results *R, sdk_store *img, sdk_errbuf *eb);

/* Write an image as an HDF5 file at path (atomically replaced; identical
 * images give byte-identical files). */
sdk_err sdk_write_h5_image(const sdk_store *img, const char *path, sdk_errbuf *eb);

/* Read an sdekit result file into an empty store, as a stranger's file:
 * every link a hard link, every dataset f64, i64 or u64 of at most
 * SDK_H5_MAX_ELEMENTS elements with its data in the file, the whole at
 * most SDK_H5_MAX_TOTAL elements, every name usable, the root attribute
 * "format" equal to "sdekit".  SDK_ERR_USAGE when the file cannot be read,
 * SDK_ERR_FORMAT naming the file and the object for anything else. */
sdk_err sdk_read_h5(const char *path, sdk_store *img, sdk_errbuf *eb);

/* The observables of an image: its top-level groups other than "scan", in
 * the order of the registry (unknown ones after, by name).  Returns how many
 * names went to out[] (at most max; the strings belong to the image). */
int sdk_image_observables(const sdk_store *img, const char **out, int max);

#endif
