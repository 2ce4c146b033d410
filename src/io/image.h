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
 * drift/value).  Reading sets grid_rank and sample_axis from "dims"; a
 * dataset without "dims" (every one of a format_version 1 file, or one that
 * another program such as h5py added to a file of version 2) gets them from
 * the shapes: leading dimensions equal to the scan axes are the grid, and a
 * dimension equal to the length of the group's "step" dataset is the sample
 * axis.
 *
 * Precisely, for both the image of results and a file read back:
 * - grid: the first nscan dimensions, when they have the scan axes' lengths
 *   (and, with "dims", their names) -- all of the scan's or none;
 * - sample axis: the first dimension after the grid called "sample" (without
 *   "dims": the first as long as the top-level group's "step"; a dataset
 *   called step is itself [sample]); none under scan/;
 * - every dataset's dim_name[] holds the names of its dimensions ("dims", or
 *   without it the scan parameters, "sample" and "dim<k>");
 * - SDK_DS_COORD: the datasets under scan/ and those called t, step or index
 *   (the file does not record it); SDK_DS_COMPRESS: chunked and filtered.
 * The shapes are ambiguous where a dimension that is not the grid's happens to
 * have the scan's length, or one that is not the sample axis the step's
 * (--save-paths of as many paths as there are samples): the first wins.
 *
 * Groups: the image has a record (store.h groups[]) for the root "" and for
 * every group of the file, with its attributes (possibly none).
 * Attributes: strings, lists of strings, single numbers (f64, i64, u64) and
 * lists of f64; a file's other integer types read as i64, f32 as f64.
 *
 * The image of a run's results borrows their data (SDK_DS_BORROWED): it must
 * not outlive them.  Images are built into a store the function initialises
 * (any content is not freed: pass an empty or fresh one); on failure it is
 * left empty.
 */
#ifndef SDK_IO_IMAGE_H
#define SDK_IO_IMAGE_H

#include "core/error.h"
#include "observe/results.h"
#include "observe/store.h"

/* What sdk_read_h5 reads at most, checked before anything is allocated (a
 * file declares any shape in a few bytes).  Every dataset at most
 * SDK_H5_MAX_ELEMENTS (io/h5attr.h: 2^27) elements and all of them together
 * at most SDK_H5_MAX_TOTAL (2^29 elements, 4 GiB), and at most
 * SDK_H5_MAX_EXPANSION times the file's size plus SDK_H5_FREE_BYTES (a
 * compressed dataset of zeros or of a constant takes a thousandth of its
 * size or less: 4 MB of file would otherwise be 4 GiB of memory); at most
 * SDK_H5_MAX_OBJECTS groups and datasets, SDK_H5_MAX_ATTRS attributes on
 * one, an attribute a list of at most SDK_H5_MAX_ATTR_ELEMENTS values
 * (fixed-length strings at most SDK_H5_MAX_ATTR_BYTES in all), a path
 * shorter than SDK_H5_MAX_PATH bytes. */
#define SDK_H5_MAX_TOTAL ((int64_t)1 << 29)
#define SDK_H5_MAX_EXPANSION 64
#define SDK_H5_FREE_BYTES ((uint64_t)256 << 20)
#define SDK_H5_MAX_OBJECTS 4096
#define SDK_H5_MAX_ATTRS 1024
#define SDK_H5_MAX_ATTR_ELEMENTS 65536
#define SDK_H5_MAX_ATTR_BYTES ((size_t)1 << 26)
#define SDK_H5_MAX_PATH 480

/* The image of a run's results: the root attributes, the scan group, the
 * time steps, the non-finite counts and every observable's datasets with
 * their attributes, in the order the file is written. */
sdk_err sdk_image_of_results(const sdk_results *R, sdk_store *img, sdk_errbuf *eb);

/* Write an image as an HDF5 file at path (atomically replaced; identical
 * images give byte-identical files). */
sdk_err sdk_write_h5_image(const sdk_store *img, const char *path, sdk_errbuf *eb);

/* Read an sdekit result file into an empty store, as a stranger's file:
 * every link a hard link, every object a group or a dataset, every dataset
 * f64, i64 or u64 (either byte order) of at most SDK_DS_MAX_RANK dimensions
 * and SDK_H5_MAX_ELEMENTS elements with all its data in the file (not
 * virtual, not in external files, every chunk written), the whole within
 * the limits above, every name usable (h5attr.h: sdk_h5_link_name_ok), the
 * root attribute "format" equal to "sdekit" and format_version 1 or 2, the
 * scan group's "axes" naming 1-D f64 datasets scan/<param>, scan/dt over
 * their grid, "dims" (where present) naming every dimension, a sample axis
 * as long as its group's "step", and "standard_error" (where present) a
 * sibling f64 dataset of the same shape.
 * Errors as sdk_h5_open_untrusted's (SDK_ERR_IO when the file cannot be
 * read, SDK_ERR_USAGE for a directory), SDK_ERR_NOMEM, else SDK_ERR_FORMAT
 * naming the file and the object ("'FILE': /scan/dt is a virtual
 * dataset ..."). */
sdk_err sdk_read_h5(const char *path, sdk_store *img, sdk_errbuf *eb);

/* The observables of an image: its top-level groups other than "scan", in
 * the order of the registry (unknown ones after, by name).  Returns how many
 * names went to out[] (at most max; the strings belong to the image). */
int sdk_image_observables(const sdk_store *img, const char **out, int max);

#endif
