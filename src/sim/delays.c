/* Delayed values (codegen/delay.c): the memory of their ring buffers,
 * rows of every path's state, said before the paths are made and refused
 * on the CPU when the state would not fit in the machine's memory (the
 * CUDA backend's allocation names the device's memory when it fails).
 * Likewise the rows of acf and psd (observe/obs_corr.h) and, for psd
 * computed by the kernel on CUDA, its transform's local memory (said with
 * --verbose: they come with every acf or psd run). */
#include <stdio.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "codegen/delay.h"
#include "core/log.h"
#include "sim/run_internal.h"

sdk_err sdk_plan_delays(const sdk_plan *p, sdk_errbuf *eb) {
  const sdk_model *m = p->run->model;
  if (m->ndelay == 0 || p->sys.on) return SDK_OK;
  sdk_codegen_opts o;
  sdk_cg_row_layout l;
  sdk_plan_codegen_opts(p, p->be->target, &o);
  sdk_cg_rows(&o, &l);
  double paths = (double)p->ngrid * (double)p->ppg, word = p->c->single ? 4 : 8;
  double ring = paths * l.ndly * word, all = paths * l.total * word;
  char steps[160] = "";
  size_t at = 0;
  for (int k = 0; k < m->ndelay && at < sizeof steps; k++) {
    int w = snprintf(steps + at, sizeof steps - at, "%s%s: %lld", k ? ", " : "",
                     m->vars[m->delay[k].var], (long long)sdk_cg_delay_steps(&o, k));
    at += w > 0 ? (size_t)w : 0;
  }
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  double phys = pages > 0 && size > 0 ? (double)pages * (double)size : 0;
  if (p->be->target == SDK_TARGET_CPU && phys > 0 && all > phys)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: the ring buffers of the delays (%d rows per path: %s steps) need %.3g "
                    "GiB for %.6g paths, and this machine has %.3g GiB: run fewer paths or use "
                    "a larger dt",
                    m->delay[0].where, l.ndly, steps, all / 1073741824.0, paths,
                    phys / 1073741824.0);
  sdk_log(p->c->logger, SDK_LOG_INFO,
          "sdekit: delays of %s steps: ring buffers of %d rows per path, %.3g GiB for %.6g "
          "paths (the state %.3g GiB)\n",
          steps, l.ndly, ring / 1073741824.0, paths, all / 1073741824.0);
  return SDK_OK;
}

sdk_err sdk_plan_host_rows(const sdk_plan *p, sdk_errbuf *eb) {
  if (p->sys.on) return SDK_OK;
  sdk_codegen_opts o;
  sdk_cg_row_layout l;
  sdk_plan_codegen_opts(p, p->be->target, &o);
  if (o.host_rows <= 0) return SDK_OK;
  sdk_cg_rows(&o, &l);
  double paths = (double)p->ngrid * (double)p->ppg, word = p->c->single ? 4 : 8;
  double rows = paths * o.host_rows * word, all = paths * l.total * word;
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  double phys = pages > 0 && size > 0 ? (double)pages * (double)size : 0;
  if (p->be->target == SDK_TARGET_CPU && phys > 0 && all > phys)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe acf/psd: their rows (%d per path: rings of the last samples "
                    "and sums) need %.3g GiB for %.6g paths, and this machine has %.3g GiB: "
                    "run fewer paths, a smaller --max-lag or --psd-segment",
                    o.host_rows, all / 1073741824.0, paths, phys / 1073741824.0);
  sdk_log(p->c->logger, SDK_LOG_DEBUG,
          "sdekit: acf/psd: %d rows per path, %.3g GiB for %.6g paths (the state %.3g GiB)\n",
          o.host_rows, rows / 1073741824.0, paths, all / 1073741824.0);
  if (o.psd_m > 0 && p->be->target == SDK_TARGET_CUDA)
    sdk_log(p->c->logger, SDK_LOG_DEBUG,
            "sdekit: psd computed by the kernel: segments of %d samples, %d bytes of local "
            "memory per GPU thread for its transform (reserved for every thread the device "
            "holds at once: %.3g GiB on a 132-SM H200; --psd-on-host samples on the host "
            "instead)\n",
            o.psd_m, 8 * o.psd_m, 8.0 * o.psd_m * 2048 * 132 / 1073741824.0);
  return SDK_OK;
}
