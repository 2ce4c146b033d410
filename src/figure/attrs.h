/* Attributes of a result (sdekit_result_attr) as `sdekit info` and
 * `sdekit plot` use them: strings into buffers, numbers converted to the
 * type wanted.  Absent, or of another kind than asked (a number where a
 * string is wanted, a list of another length), is -1, never an error: the
 * commands show what a file holds and pass over what it does not. */
#ifndef SDK_CLI_ATTRS_H
#define SDK_CLI_ATTRS_H

#include <sdekit.h>
#include <stddef.h>
#include <stdint.h>

/* A string (or a list of one string) into buf, truncated to n - 1 bytes;
 * buf is "" unless it returns 0. */
int cli_attr_str(const sdekit_result *r, const char *obj, const char *name, char *buf, size_t n);
/* A string or a list of strings: the count (>= 0), with *out a malloc'd
 * array of that many pointers to the result's strings (free the array
 * alone); -1 with *out NULL when absent or not strings or out of memory. */
long cli_attr_strs(const sdekit_result *r, const char *obj, const char *name, const char ***out);
/* Exactly n numbers, converted to double (or int64_t, uint64_t: towards
 * zero, NaN as 0, saturated at the ends of the range), into x. */
int cli_attr_f64(const sdekit_result *r, const char *obj, const char *name, double *x, int64_t n);
int cli_attr_i64(const sdekit_result *r, const char *obj, const char *name, int64_t *x);
int cli_attr_u64(const sdekit_result *r, const char *obj, const char *name, uint64_t *x);
/* The number of values of a numeric attribute, -1 when absent or not numeric. */
int64_t cli_attr_count(const sdekit_result *r, const char *obj, const char *name);

/* Is name usable as the name of one dataset below a group (non-empty, no
 * '/', not ".", shorter than 200 bytes)?  Names read from a file are used
 * to make the names of other datasets only when this holds. */
int cli_name_ok(const char *name);

#endif
