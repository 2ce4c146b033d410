/* The notes of what a model makes of a run's statistics (said with the
 * plan's other notes, plan.c plan_notices): a [levy] model's heavy tails,
 * and a random start in the diffusion coefficient. */
#include <string.h>

#include "sim/run_internal.h"

/* the observables that report means, variances or correlations of the state
 * with standard errors (hist, range, fpt's order statistics need none) */
static const char *const moment_obs[] = {"moments", "drift", "tavg", "cov", "acf", "psd"};

static void levy_notes(const sdk_run_config *c, const sdk_run *r, const sdk_plan *p) {
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

/* diffusion without a transient measures var(x(t) - x(0)) / 2t from the
 * drift mark, which holds --drift's variable alone (obs_diffusion.c); for
 * another one it is var x(t) / 2t, which a start that differs from path to
 * path raises by var x(0) / 2t: said, since it looks like a value */
static void diffusion_note(const sdk_run_config *c, const sdk_run *r, const sdk_plan *p) {
  const sdk_model *m = r->model;
  int on = 0;
  for (int i = 0; i < p->nobs; i++)
    on |= !strcmp(p->obs[i].type->name, "diffusion");
  if (!on || p->transient_steps > 0) return;
  int dv = c->obs.drift_var ? sdk_model_var_index(m, c->obs.drift_var) : 0;
  int v = c->obs.diffusion_var ? sdk_model_var_index(m, c->obs.diffusion_var) : dv;
  if (v < 0 || v == dv) return;
  const char *how = sdk_init_given(c)                     ? "from data (--init-from)"
                    : m->init[v].kind == SDK_INIT_UNIFORM ? "from [init]'s uniform()"
                    : m->init[v].kind == SDK_INIT_NORMAL  ? "from [init]'s normal()"
                                                          : NULL;
  if (!how) return;
  sdk_log(c->logger, SDK_LOG_WARN,
          "sdekit: note: --observe diffusion of %s without a transient is var %s(t) / 2t, and %s "
          "starts %s: the start's spread adds var %s(0) / 2t; give --drift %s (the run keeps "
          "that variable's start) to measure var(%s(t) - %s(0)) / 2t\n",
          m->vars[v], m->vars[v], m->vars[v], how, m->vars[v], m->vars[v], m->vars[v], m->vars[v]);
}

void sdk_plan_model_notes(const sdk_run_config *c, const sdk_run *r, const sdk_plan *p) {
  levy_notes(c, r, p);
  diffusion_note(c, r, p);
}
