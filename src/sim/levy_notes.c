/* The notes of a run of a [levy] model (said with the plan's other notes,
 * plan.c plan_notices): what the heavy tails make of its statistics. */
#include <string.h>

#include "sim/run_internal.h"

/* the observables that report means, variances or correlations of the state
 * with standard errors (hist, range, fpt's order statistics need none) */
static const char *const moment_obs[] = {"moments", "drift", "tavg", "cov", "acf", "psd"};

void sdk_plan_levy_notes(const sdk_run_config *c, const sdk_run *r, const sdk_plan *p) {
  const sdk_model *m = r->model;
  for (int k = 0; !c->no_bridge_correction && k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_ABSORB && sdk_model_levy_of(m, m->bound[k].var)) {
      sdk_log(c->logger, SDK_LOG_WARN,
              "sdekit: note: [boundaries] %s: %s has [levy] noise, whose paths jump over a "
              "level: no Brownian-bridge correction there (discrete monitoring at the steps)\n",
              m->bound[k].name, m->vars[m->bound[k].var]);
      break;
    }
  /* A stable law of ALPHA < 2 has no variance, and none of ALPHA <= 1 a
   * mean: the estimates do not settle as paths grow (at ALPHA 0.7 mean_x
   * was 51.5 +- 20.8 at 2000 paths, 310 +- 87 at 200000), and a standard
   * error, from the sample variance, measures nothing. */
  char list[128] = "";
  for (int i = 0; i < p->nobs; i++)
    for (size_t j = 0; j < sizeof moment_obs / sizeof *moment_obs; j++)
      if (!strcmp(p->obs[i].type->name, moment_obs[j]) && strlen(list) < 96) {
        if (*list) strcat(list, ", ");
        strcat(list, moment_obs[j]);
      }
  for (int i = 0; *list && i < m->nlevy; i++) {
    const sdk_levy *l = &m->levy[i];
    if (l->alpha >= 2) continue;
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: [levy] %s: ALPHA = %g: a variable driven by it has no %s (unless "
            "the model bounds it): the %s that --observe %s reports do not exist, %s\n",
            m->vars[l->var], l->alpha, l->alpha <= 1 ? "mean and no variance" : "variance",
            l->alpha <= 1 ? "means, variances and correlations" : "variances and correlations",
            list,
            l->alpha <= 1 ? "nor do their standard errors"
                          : "and their standard errors, the means' too, do not hold");
  }
}
