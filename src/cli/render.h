/* The gnuplot renderer of figure descriptions (figure_gp.c): a figure
 * decided by the pictures (figure/picture.h) drawn as a gnuplot script and
 * its data files.  It decides nothing about the figure. */
#ifndef SDK_CLI_RENDER_H
#define SDK_CLI_RENDER_H

#include <stdio.h>

#include "cli/gnuplot.h"
#include "figure/picture.h"

/* Where a figure is drawn to: the script and the data files. */
typedef struct sdk_gp_out {
  const char *dir; /* temporary directory (gnuplot runs there); NULL: data to /dev/null */
  sdk_strbuf gp;   /* the script */
  int ndata;       /* data files written so far */
  sdekit_error *err;
} sdk_gp_out;

/* Draw a figure description: the script into p->gp, the data into files of
 * p->dir (figure_gp.c). */
sdekit_status sdk_pic_render(sdk_gp_out *p, const sdk_figure *f);

/* ---- data files ---- */

/* Open a new data file ("d0.dat", "d1.dat", ... in p->dir); name gets its
 * name relative to the directory.  NULL with the error in p->err. */
FILE *sdk_pic_data_open(sdk_gp_out *p, char name[32]);
/* Close it; SDEKIT_ERR_IO when anything written to it was lost. */
sdekit_status sdk_pic_data_close(sdk_gp_out *p, FILE *f, const char *name);
/* A number for gnuplot: %.9g, or NaN (the 'missing' value) when not finite. */
void sdk_pic_put_num(FILE *f, double x);
/* Heat-map cells for 'pm3d corners2color c1': column i spans xe[i]..xe[i+1];
 * its rows span ye_i[j]..ye_i[j+1] with ye_i = ye + i * ye_stride (stride 0:
 * the same rows for every column); z[i * ny + j] colours cell (i, j).  Values
 * that are not finite or (with floor > 0) below floor are written as floor. */
void sdk_pic_cells(FILE *f, int64_t nx, const double *xe, int64_t ny, const double *ye,
                   int64_t ye_stride, const double *z, double floor);
#endif
