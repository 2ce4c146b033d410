/* sdekit: opening a stranger's HDF5 file, and the checks and attribute
 * readers of the result reader (h5read.c, io/image.h). */
#ifndef SDK_IO_H5ATTR_H
#define SDK_IO_H5ATTR_H

#include <hdf5.h>
#include <stdint.h>

#include "core/error.h"

/* The most elements sdekit reads from one dataset (2^27 doubles: 1 GiB).  A
 * file can declare any shape in a few bytes (an unwritten chunked dataset
 * reads as fill values), so every shape is checked against this before
 * anything is allocated.  Results this large are better read piecewise with
 * h5py or similar. */
#define SDK_H5_MAX_ELEMENTS ((int64_t)1 << 27)

/* Open an sdekit result file for reading, as a stranger's file: it must be a
 * regular file (a FIFO or device is refused before anything opens it), is
 * opened read-only, and every link in it must be a hard link (a soft,
 * external or user-defined link is refused, never followed: it could point
 * at another file, a FIFO or a device).  On success *file is open (close
 * with H5Fclose).  SDK_ERR_IO / SDK_ERR_FORMAT with a message naming path. */
sdk_err sdk_h5_open_untrusted(const char *path, hid_t *file, sdk_errbuf *eb);
/* The same for an HDF5 file's bytes in memory (a file image, copied; what
 * the fuzzers read), named `label` in messages. */
sdk_err sdk_h5_open_image(const void *buf, size_t len, const char *label, hid_t *file,
                          sdk_errbuf *eb);

/* Why dataset d may not be read, or NULL when it may: its data in external
 * files or another dataset (virtual), more than SDK_H5_MAX_ELEMENTS elements
 * (with an overflow-free product of its dimensions), or more elements than
 * the file stores for it.  *npoints gets the element count when it returns
 * NULL. */
const char *sdk_h5_dset_problem(hid_t d, int64_t *npoints);

/* Is name usable as one HDF5 link name below a group (non-empty, no '/', not
 * ".", shorter than 200 bytes)?  Names read from a file are used to build
 * paths inside it only when this holds. */
int sdk_h5_link_name_ok(const char *name);

/* A scalar string attribute (variable or fixed length) into buf (truncated
 * to n - 1 characters).  0, or -1 when missing or not a string. */
int sdk_h5_str_attr(hid_t loc, const char *name, char *buf, size_t n);
/* A numeric attribute of exactly n elements, converted to mtype (e.g.
 * H5T_NATIVE_DOUBLE) into buf.  0, or -1 when missing, not numeric, or of
 * another size. */
int sdk_h5_num_attr(hid_t loc, const char *name, hid_t mtype, void *buf, hssize_t n);

#endif
