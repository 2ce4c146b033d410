/* The result file as `sdekit plot` sees it, over the public API.
 *
 * The file is read by sdekit_result_read, which checks it as a stranger's
 * file (every name, type and shape, the limits of what is read) and refuses
 * it with a message naming the file and the object.  This layer takes from
 * the result what every picture needs (settings, variables, parameters, scan
 * axes, time steps) and hands out datasets as doubles, checking each shape
 * against the scan grid and what the picture expects: a problem is an error
 * naming the file and the dataset (SDEKIT_ERR_FORMAT), never a read out of
 * bounds.  Names from the file are used to make dataset names only when
 * cli_name_ok holds for them. */
#ifndef SDK_CLI_PLOTFILE_H
#define SDK_CLI_PLOTFILE_H

#include <sdekit.h>
#include <stddef.h>
#include <stdint.h>

/* A result file and what every picture needs from it. */
typedef struct sdk_plotfile {
  const char *path;
  const sdekit_result *r;
  sdekit_result *owned;                       /* r, when sdk_pf_open read it */
  char model[256], scheme[64], precision[64]; /* "?", "", "" when absent */
  int64_t paths, nsteps, particles;           /* 0 when absent */
  double period;                              /* of the driving; 0: none */
  long nvars, nparams;
  const char **vars, **pnames; /* the result's strings; variable names pass cli_name_ok */
  /* what hist and density may be of: the variables, then the user observables
   * (/expr names, /hist observables, /tavg names) that pass cli_name_ok */
  long nq;
  const char **qnames;
  double *pvals;
  int nscan; /* scan axes: 0, 1 or 2 */
  const char *axname[2];
  const double *ax[2];
  int64_t axn[2];
  int axlog[2];
  int64_t ngrid; /* grid points: axn[0] * axn[1] (axis 0 slowest) */
  double *dt;    /* [ngrid] */
  double tscale; /* multiply times by this for the time axis (1/period or 1) */
  int in_periods;
  /* sampled at log-spaced times (--sample-times log:...: root attribute
   * sample_times "log", every time > 0): the curves over time on a log axis */
  int tlog;
} sdk_plotfile;

/* Read path (sdekit_result_read) and take its settings, variables,
 * parameters, scan axes and time steps.  A missing or unreadable file is
 * SDEKIT_ERR_USAGE, anything else wrong SDEKIT_ERR_FORMAT.  Close with
 * sdk_pf_close whatever it returns. */
sdekit_status sdk_pf_open(sdk_plotfile *pf, const char *path, sdekit_error *err);
/* The same for a result read already (r stays the caller's and must
 * outlive pf); path names it in messages. */
sdekit_status sdk_pf_attach(sdk_plotfile *pf, const char *path, const sdekit_result *r,
                            sdekit_error *err);
/* Free everything (and the result, when sdk_pf_open read it). */
void sdk_pf_close(sdk_plotfile *pf);

/* Is there a dataset or group called path (a/b/c)? */
int sdk_pf_has(const sdk_plotfile *pf, const char *path);
int sdk_pf_has_f(const sdk_plotfile *pf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Does the dataset fmt % name exist for some variable or user observable
 * (qnames; fmt holds one %s)? */
int sdk_pf_any_var(const sdk_plotfile *pf, const char *fmt);

/* A dataset of shape [grid..., tail...] as doubles, either whole (g < 0) or
 * only grid point g's block.  *ntail: the tail rank wanted, or < 0 for any
 * (set to the actual one); tail[] (SDEKIT_MAX_RANK entries) gets the tail
 * dimensions.  A malloc'd array, or NULL with an error recorded when it is
 * missing or of the wrong shape. */
double *sdk_pf_block(const sdk_plotfile *pf, const char *path, int64_t g, int *ntail, int64_t *tail,
                     sdekit_error *err);
/* A dataset of at most one dimension not indexed by the grid (scan values,
 * step lists); *n gets its length. */
double *sdk_pf_1d(const sdk_plotfile *pf, const char *path, int64_t *n, sdekit_error *err);

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
