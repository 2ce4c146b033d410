/* --observe psd computed by the kernel (codegen/psd.h, kernels/psd_seg.h,
 * for segments up to SDK_CORR_KERNEL_SEGMENT) against the host's sampling
 * of the same run (obs_psd.c with the option psd_host), on
 * $SDK_TEST_BACKEND:
 *  - the OU model of test_corr_kernel with its user observable q = x^2:
 *    S and err of x and q at the M/2 + 1 bins (M = 16, Hann and rect),
 *    sampled every step and every 3 steps from a transient that is not a
 *    multiple of 3, and from the initial state without a transient (sample
 *    0: no step makes it); bitwise the host's in both precisions: the same
 *    samples, the same transform (kernels/psd_fft.h) and the same sums'
 *    rows and operations;
 *  - the same over a scan of k (two grid points) in double;
 *  - bitwise the same over 3 shards, 3 in-process ranks, 1 thread against
 *    2, and stopped half way and resumed (single precision, every 3 steps);
 *  - test_corr's exact check of the Euler-sampled OU spectrum runs through
 *    the kernel path too (its M = 64 is within the kernel's segments). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/run.h"
#include "simtest.h"
#include "testutil.h"

static const char MODEL[] = "[model]\nname = ouq\nvars = x\n[params]\nk = 1\nD = 0.5\n"
                            "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n"
                            "[observe]\nq = x*x\n";

static int g_single, g_every, g_rect, g_scan;
static double g_transient = 5; /* 100 steps: with every 3, the first sample is step 102 */

static void config(sdk_run_config *c) {
  st_config_text(c, "ouq.sde", MODEL, 256, 0.05, 20);
  c->scheme = "euler";
  c->transient = g_transient;
  c->sample_every = g_every;
  c->single = g_single;
  c->seed = 777;
  c->observe = "psd";
  c->obs.corr_vars = "x,q";
  c->obs.psd_segment = 16;
  c->obs.psd_window = g_rect;
  if (g_scan) { /* two grid points: k = 0.5, 2 */
    sdk_errbuf eb = {0};
    TU_CHECK(sdk_scan_parse("k=0.5:2:2", &c->scan[0], &eb) == SDK_OK, "%s", eb.msg);
    c->nscan = 1;
  }
}

static void compare(int single, int every, int rect) {
  g_single = single, g_every = every, g_rect = rect;
  sdk_run_config c;
  config(&c);
  sdk_run *rk = st_run(&c);
  c.obs.psd_host = 1;
  sdk_run *rh = st_run(&c);
  TU_CHECK(rk && rh, "OU runs with psd in the kernel and on the host");
  if (!rk || !rh) {
    sdk_run_destroy(&rk);
    sdk_run_destroy(&rh);
    return;
  }
  const sdk_results *K = sdk_run_results(rk), *H = sdk_run_results(rh);
  static const char *const names[] = {"f", "S_x", "err_x", "S_q", "err_q"};
  double worst = 0;
  int same = 1, n = 0;
  for (int d = 0; d < 5; d++) {
    char path[32];
    snprintf(path, sizeof path, "psd/%s", names[d]);
    const double *a = st_f64(K, path), *b = st_f64(H, path);
    for (int l = 0; a && b && l < 9 * (g_scan ? 2 : 1); l++) {
      if (getenv("PSD_DEBUG") && memcmp(&a[l], &b[l], sizeof a[l]))
        printf("  %s[%d]: %.17g %.17g\n", path, l, a[l], b[l]);
      same &= memcmp(&a[l], &b[l], sizeof a[l]) == 0;
      worst = fmax(worst, fabs(a[l] - b[l]) / fmax(fabs(b[l]), 1e-300));
      n += isfinite(a[l]) && isfinite(b[l]) && a[l] != 0;
    }
    TU_CHECK(a && b, "%s in both runs", path);
  }
  TU_CHECK(n == (5 * 9 - 1) * (g_scan ? 2 : 1), "every value finite and not 0 in both (%d)",
           n); /* (f_0 = 0) */
  TU_CHECK(same, "%s, every %d, %s: kernel bitwise the host's (largest difference %.3g)",
           single ? "single" : "double", every, rect ? "rect" : "hann", worst);
  printf("psd in the kernel against the host (%s, every %d step%s, transient %g, %s%s): largest "
         "relative difference %.3g%s\n",
         single ? "single" : "double", every, every > 1 ? "s" : "", g_transient,
         rect ? "rect" : "hann", g_scan ? ", scan of k" : "", worst, same ? " (bitwise)" : "");
  if (g_scan) sdk_scan_free(&c.scan[0]);
  sdk_run_destroy(&rk);
  sdk_run_destroy(&rh);
}

static void layouts(sdk_run_config *c) {
  g_single = 1, g_every = 3, g_rect = 0;
  config(c);
  c->paths = 128;
}

int main(void) {
  st_require_backend();
  compare(0, 1, 0);
  compare(0, 3, 1);
  compare(1, 1, 1);
  compare(1, 3, 0);
  g_transient = 0;
  compare(0, 1, 0);
  compare(1, 3, 1);
  g_transient = 5;
  g_scan = 1;
  compare(0, 1, 0);
  g_scan = 0;
  st_same_over_threads(layouts, "psd in the kernel");
  st_same_over_layouts(layouts, "psd in the kernel (single, every 3 steps)");
  return tu_finish("test_psd_kernel");
}
