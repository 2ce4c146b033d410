/* adaptive: what the adaptive steps did (--adaptive, codegen/adaptive.c),
 * on whenever that option is given: per grid point the sub-steps accepted
 * and rejected per path (mean and largest over its paths) and the smallest
 * step any of them took, from the step controller's carried rows
 * (codegen.h, SDK_CG_ADAPT_ROWS), read in the global path order.
 *
 *   adaptive/accepted_mean, accepted_max   [grid...]
 *   adaptive/rejected_mean, rejected_max   [grid...]
 *   adaptive/dt_min                        [grid...]  dt-max 2^-(deepest level); NaN
 *                                                     where no sub-step was taken
 *   adaptive/lane_util                     [grid...]
 *
 * lane_util: how busy the lanes of a GPU warp would be were every lane
 * free to go on until its path is done: the sub-steps tried (accepted +
 * rejected) by all paths over, summed over the warps, the warp's lanes
 * times its busiest path's tries (a warp runs as many iterations as its
 * busiest lane).  Warps are paths 32k .. 32k + 31 of the grid point (the
 * last one may have fewer); the CUDA driver's warps are those when the
 * paths per grid point are a multiple of 32.  Computed from the per-path
 * counts alone, so the same on every backend, thread count and rank
 * layout; 1 when all take the same number.  The CUDA kernel
 * (kernels/adapt_step.h SDK_ADAPT_SLICES) lets each lane go on to its next
 * step of dt-max within a launch, so a warp waits only at the launches'
 * ends (every sample time, at least): its utilisation is this figure when
 * the run is one launch, and at most this figure otherwise.
 */
#include <math.h>
#include <stdlib.h>

#include "core/numfmt.h"
#include "observe/observable.h"
#include "observe/tsvfmt.h"

static const char *const NAMES[] = {"accepted_mean", "accepted_max", "rejected_mean",
                                    "rejected_max",  "dt_min",       "lane_util"};
#define NOUT 6
/* the lanes of a CUDA warp (the paths that loop together) */
#define WARP 32

typedef struct {
  double *out[NOUT]; /* [g] */
  double *buf;       /* 5 rows of a chunk of paths */
} state;

static void adaptive_free(void *p) {
  state *st = p;
  if (st) free(st->buf);
  free(st);
}

static sdk_err adaptive_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st || !(st->buf = malloc(5 * SDK_RED_CHUNK * sizeof *st->buf)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the adaptive steps' counts");
  for (int k = 0; k < NOUT; k++) {
    char path[64];
    sdk_dataset *d;
    snprintf(path, sizeof path, "adaptive/%s", NAMES[k]);
    SDK_CHECK(sdk_obs_dataset(c, path, SDK_F64, 0, NULL, -1, 0, &d, eb));
    st->out[k] = sdk_ds_f64(d);
  }
  return SDK_OK;
}

static sdk_err adaptive_finish(const sdk_obs_ctx *c, void *p, sdk_errbuf *eb) {
  state *st = p;
  const sdk_paths *P = c->paths;
  if (P->adapt_row < 0) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "adaptive: no controller rows");
  for (int64_t g = 0; g < c->R->ngrid; g++) {
    int64_t first, held;
    sdk_paths_held(P, g, &first, &held);
    double sum[2] = {0, 0}, max[2] = {0, 0}, deep = 0;
    /* the lanes: the warp of the path at hand, its busiest path's tries,
     * and the sum over the warps before it of lanes x busiest */
    int64_t warp = -1, lanes = 0;
    double wmax = 0, busy = 0;
    for (int64_t k = first; k < first + held; k += SDK_RED_CHUNK) {
      int64_t len = first + held - k < SDK_RED_CHUNK ? first + held - k : SDK_RED_CHUNK;
      /* rows 1..5: accepted mod 2^20 and >> 20, rejected likewise, the
       * deepest level (codegen.h) */
      for (int r = 0; r < 5; r++)
        SDK_CHECK(sdk_paths_rows(P, P->adapt_row + 1 + r, g * c->ppg + k, len,
                                 st->buf + r * SDK_RED_CHUNK, 0, eb));
      for (int64_t i = 0; i < len; i++) {
        double tries = 0;
        for (int r = 0; r < 2; r++) {
          const double *lo = st->buf + 2 * r * SDK_RED_CHUNK, *hi = lo + SDK_RED_CHUNK;
          double x = lo[i] + 1048576.0 * hi[i];
          sum[r] += x;
          max[r] = x > max[r] ? x : max[r];
          tries += x;
        }
        if ((k + i) / WARP != warp) /* (a new warp) */
          busy += (double)lanes * wmax, warp = (k + i) / WARP, lanes = 0, wmax = 0;
        lanes++;
        wmax = tries > wmax ? tries : wmax;
        double l = st->buf[4 * SDK_RED_CHUNK + i];
        deep = l > deep ? l : deep;
      }
    }
    const double n = held > 0 ? (double)held : NAN;
    st->out[0][g] = sum[0] / n, st->out[1][g] = max[0];
    st->out[2][g] = sum[1] / n, st->out[3][g] = max[1];
    /* (no sub-step taken, t_end 0 or no paths here: no smallest step) */
    st->out[4][g] = sum[0] + sum[1] > 0 ? ldexp(c->R->dt[g], -(int)deep) : NAN;
    busy += (double)lanes * wmax;
    st->out[5][g] = busy > 0 ? (sum[0] + sum[1]) / busy : NAN;
  }
  return SDK_OK;
}

/* the settings (sim/adaptive.c: /adaptive's attributes), then the rows */
static sdk_err adaptive_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  static const char *const SET[] = {"rtol", "atol", "dt_max", "dt_first", "dt_min_allowed"};
  const sdk_group_attrs *ga = sdk_store_group(&R->store, "adaptive");
  for (int k = 0; ga && k < 5; k++) {
    const sdk_attr *a = sdk_attr_find(ga->attr, ga->nattr, SET[k]);
    char b[32];
    if (a && a->kind == SDK_ATTR_F64)
      fprintf(f, "# adaptive_%s: %s\n", SET[k], sdk_fmt_exact(b, a->f));
  }
  const double *v[NOUT];
  for (int k = 0; k < NOUT; k++) {
    char path[64];
    snprintf(path, sizeof path, "adaptive/%s", NAMES[k]);
    if (!(v[k] = sdk_results_f64(R, path)))
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "adaptive: incomplete results");
  }
  return sdk_tsv_grid_rows(R, f, "adaptive", NOUT, NAMES, v, eb);
}

const sdk_obs_type sdk_obs_adaptive = {
    .name = "adaptive",
    .description = "with --adaptive: accepted and rejected sub-steps per path (mean, max), "
                   "the smallest step and the GPU lane utilisation, per grid point",
    .flags = SDK_OBS_BY_OPTION,
    .setup = adaptive_setup,
    .finish = adaptive_finish,
    .free = adaptive_free,
    .write_tsv = adaptive_tsv,
};
