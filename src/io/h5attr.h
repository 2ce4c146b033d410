/* sdekit: HDF5 attribute readers shared by 'sdekit info' and 'sdekit plot'. */
#ifndef SDK_IO_H5ATTR_H
#define SDK_IO_H5ATTR_H

#include <hdf5.h>

/* A scalar string attribute (variable or fixed length) into buf (truncated
 * to n - 1 characters).  0, or -1 when missing or not a string. */
int sdk_h5_str_attr(hid_t loc, const char *name, char *buf, size_t n);
/* A 1-D string array attribute: the count (>= 0) with *out holding that many
 * malloc'd strings (free with sdk_h5_free_strs), or -1 when missing, not
 * strings, or out of memory. */
long sdk_h5_strs_attr(hid_t loc, const char *name, char ***out);
void sdk_h5_free_strs(char **v, long n);
/* A numeric attribute of exactly n elements, converted to mtype (e.g.
 * H5T_NATIVE_DOUBLE) into buf.  0, or -1 when missing, not numeric, or of
 * another size. */
int sdk_h5_num_attr(hid_t loc, const char *name, hid_t mtype, void *buf, hssize_t n);

#endif
