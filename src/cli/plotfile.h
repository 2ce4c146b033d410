/* The reader of result files for `sdekit plot`.
 *
 * A result file (layout: src/io/io.h, plus the density, paths and order
 * groups) is a stranger's file: it is opened with sdk_h5_open_untrusted,
 * every name taken from it is checked before it is used to build a path, and
 * every dataset's type and shape is checked against the scan grid and
 * against SDK_H5_MAX_ELEMENTS before anything is allocated or read.  A
 * problem is an error naming the file and the dataset (SDK_ERR_FORMAT), never
 * a crash or a read out of bounds. */
#ifndef SDK_CLI_PLOTFILE_H
#define SDK_CLI_PLOTFILE_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* An open result file and what every picture needs from it. */
typedef struct sdk_plotfile {
  const char *path;
  hid_t f;
  char model[256], scheme[64], precision[64]; /* "?", "", "" when absent */
  int64_t paths, nsteps, particles;           /* 0 when absent */
  double period;                              /* of the driving; 0: none */
  long nvars, nparams;
  char **vars, **pnames; /* variable names are usable as link names */
  double *pvals;
  int nscan; /* scan axes: 0, 1 or 2 */
  char *axname[2];
  double *ax[2];
  int64_t axn[2];
  int axlog[2];
  int64_t ngrid; /* grid points: axn[0] * axn[1] (axis 0 slowest) */
  double *dt;    /* [ngrid] */
  double tscale; /* multiply times by this for the time axis (1/period or 1) */
  int in_periods;
} sdk_plotfile;

/* Open path and read its settings, variables, parameters, scan axes and time
 * steps.  A missing or unreadable file is SDK_ERR_USAGE, anything else wrong
 * SDK_ERR_FORMAT.  Close with sdk_pf_close whatever it returns. */
sdk_err sdk_pf_open(sdk_plotfile *pf, const char *path, sdk_errbuf *eb);
/* Free everything, close the file and clear HDF5's error stack. */
void sdk_pf_close(sdk_plotfile *pf);

/* Does the link path (a/b/c) exist?  Checks each component in turn. */
int sdk_pf_has(const sdk_plotfile *pf, const char *path);
int sdk_pf_has_f(const sdk_plotfile *pf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Does the dataset fmt % var exist for some variable (fmt holds one %s)? */
int sdk_pf_any_var(const sdk_plotfile *pf, const char *fmt);

/* A dataset of shape [grid..., tail...] as doubles, either whole (g < 0) or
 * only grid point g's block.  *ntail: the tail rank wanted, or < 0 for any
 * (set to the actual one); tail[] (H5S_MAX_RANK entries) gets the tail
 * dimensions.  A malloc'd array, or NULL with an error recorded when it is
 * missing or of the wrong type or shape. */
double *sdk_pf_block(const sdk_plotfile *pf, const char *path, int64_t g, int *ntail, hsize_t *tail,
                     sdk_errbuf *eb);
/* A 1-D dataset not indexed by the grid (scan values, step lists); *n gets
 * its length. */
double *sdk_pf_1d(const sdk_plotfile *pf, const char *path, int64_t *n, sdk_errbuf *eb);

/* The string attribute attr of group grp into buf (left as it is when the
 * group or the attribute is missing). */
void sdk_pf_group_str(const sdk_plotfile *pf, const char *grp, const char *attr, char *buf,
                      size_t n);
/* The numeric attribute attr of the object obj (group or dataset) into *x:
 * 0, or -1 when there is none. */
int sdk_pf_object_num(const sdk_plotfile *pf, const char *obj, const char *attr, double *x);

/* The scan indices of grid point g (axis 0 slowest; 0 for absent axes). */
void sdk_pf_grid_index(const sdk_plotfile *pf, int64_t g, int64_t idx[2]);
/* A count read from the file as a double: 0 unless finite, >= 0 and at
 * most 2^62 (a plain cast would be undefined beyond int64_t). */
int64_t sdk_pf_count(double x);

#endif
