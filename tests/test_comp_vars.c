/* The rule that picks the variables of the compensated update (issue 32,
 * codegen/comp_vars.c): every reason it has, each from a model that gives
 * it, at the boundary c dt = -1/128 from both sides, with a parameter
 * scanned or given per path, and --compensate all overriding it.  The
 * accuracy the rule keeps is test_numerics' (a slow relaxation it must
 * compensate, a fast one it may leave plain). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/comp_vars.h"
#include "model/model.h"
#include "testutil.h"

typedef struct {
  const char *what, *drift_noise; /* the model's [drift] and [noise] (model_of) */
  double dt;
  int var;
  sdk_cg_comp_why want;
} rule_case;

/* a model of x and y with parameters k = 2, g = 0.5 and these sections; x
 * declared periodic if the text has "# periodic" */
static sdk_model *model_of(const char *body) {
  char text[1024];
  snprintf(text, sizeof text,
           "[model]\nname = rule\nvars = x, y\n%s\n[params]\nk = 2\ng = 0.5\n%s\n[init]\nx = 1\n"
           "y = 0\n",
           strstr(body, "# periodic") ? "periodic = x : 1" : "", body);
  sdk_errbuf eb = {0};
  sdk_model *m = NULL;
  if (sdk_model_parse(text, "rule.sde", &m, &eb) != SDK_OK) {
    fprintf(stderr, "%s\n%s\n", text, eb.msg);
    return NULL;
  }
  return m;
}

static void opts_for(sdk_codegen_opts *o, const sdk_model *m, const int *scan, double dt) {
  memset(o, 0, sizeof *o);
  o->model = m;
  o->pvalues = m->pvalues;
  o->scan_column = scan;
  o->dt_column = -1;
  o->dt = dt;
  o->single = 1;
  o->compensate = 1;
}

static void check_case(const rule_case *c) {
  sdk_model *m = model_of(c->drift_noise);
  TU_CHECK(m != NULL, "%s: model", c->what);
  if (!m) return;
  int scan[2] = {-1, -1};
  sdk_codegen_opts o;
  opts_for(&o, m, scan, c->dt);
  sdk_cg_comp_why w = sdk_cg_comp_rule(&o, c->var);
  TU_CHECK(w == c->want, "%s: reason %d, expected %d", c->what, (int)w, (int)c->want);
  TU_CHECK(sdk_cg_comp_var(&o, c->var) == (c->want != SDK_CG_COMP_PLAIN),
           "%s: compensated iff the reason is not plain", c->what);
  o.comp_all = 1;
  TU_CHECK(sdk_cg_comp_var(&o, c->var), "%s: --compensate all compensates it", c->what);
  o.comp_all = 0;
  o.compensate = 0;
  TU_CHECK(!sdk_cg_comp_var(&o, c->var), "%s: --no-compensation leaves it plain", c->what);
  sdk_model_destroy(&m);
}

/* the rate k of x' = -k x + y is scanned, given per path, or the step
 * differs between grid points: not one number of the run, compensated */
static void check_varying(void) {
  sdk_model *m = model_of("[drift]\nx = -k*x + y\ny = -1e-3*y\n[noise]\nx = 1\n");
  TU_CHECK(m != NULL, "model");
  if (!m) return;
  int fixed[2] = {-1, -1}, scanned_k[2] = {0, -1}, scanned_g[2] = {-1, 0}, per_path[2] = {0, -1};
  sdk_codegen_opts o;
  opts_for(&o, m, fixed, 0.01);
  TU_CHECK(sdk_cg_comp_rule(&o, 0) == SDK_CG_COMP_PLAIN, "k = 2 fixed, dt 0.01: plain");
  o.scan_column = scanned_k;
  TU_CHECK(sdk_cg_comp_rule(&o, 0) == SDK_CG_COMP_NOT_FIXED, "k scanned: compensated");
  o.scan_column = scanned_g;
  TU_CHECK(sdk_cg_comp_rule(&o, 0) == SDK_CG_COMP_PLAIN, "g scanned (not in the rate): plain");
  o.scan_column = fixed;
  o.path_param = per_path;
  TU_CHECK(sdk_cg_comp_rule(&o, 0) == SDK_CG_COMP_NOT_FIXED, "k per path: compensated");
  o.path_param = NULL;
  o.dt_column = 0;
  TU_CHECK(sdk_cg_comp_rule(&o, 0) == SDK_CG_COMP_NOT_FIXED, "dt per grid point: compensated");
  /* the --verbose line names each variable with its reason */
  o.dt_column = -1;
  char line[512];
  sdk_cg_comp_describe(&o, line, sizeof line);
  TU_CHECK(!strcmp(line, "compensated y (c dt > -1/128: it does not relax within 128 steps), "
                         "plain x (c dt <= -1/128: it relaxes within 128 steps)"),
           "describe: '%s'", line);
  o.comp_all = 1;
  sdk_cg_comp_describe(&o, line, sizeof line);
  TU_CHECK(!strcmp(line, "every variable (--compensate all)"), "describe all: '%s'", line);
  sdk_model_destroy(&m);
}

int main(void) {
  /* k = 2: k dt = 1/128 at dt = 1/256 */
  const rule_case cases[] = {
      {"relaxation k dt = 0.02", "[drift]\nx = -k*x + sin(y)\ny = 0\n[noise]\nx = g\n", 0.01, 0,
       SDK_CG_COMP_PLAIN},
      {"k dt = 1/128 exactly", "[drift]\nx = -k*x\ny = 0\n", 1.0 / 256, 0, SDK_CG_COMP_PLAIN},
      {"k dt just above -1/128", "[drift]\nx = -k*x\ny = 0\n", 1.0 / 257, 0, SDK_CG_COMP_SLOW},
      {"slow relaxation k = 1e-6", "[drift]\nx = -1e-6*(x - 2000)\ny = 0\n", 0.01, 0,
       SDK_CG_COMP_SLOW},
      {"growth x' = k x", "[drift]\nx = k*x\ny = 0\n", 0.01, 0, SDK_CG_COMP_SLOW},
      {"relaxation written 2 x - 3 k x", "[drift]\nx = 2*x - 3*k*x + y\ny = 0\n", 0.01, 0,
       SDK_CG_COMP_PLAIN},
      {"declared periodic", "[drift]\nx = -k*x\ny = 0\n# periodic\n", 0.01, 0,
       SDK_CG_COMP_PERIODIC},
      {"integrator x' = y", "[drift]\nx = y\ny = -k*y\n", 0.01, 0, SDK_CG_COMP_INTEGRATOR},
      {"its partner relaxes", "[drift]\nx = y\ny = -k*y\n", 0.01, 1, SDK_CG_COMP_PLAIN},
      {"nonlinear x' = -x^3", "[drift]\nx = -k*x*x*x\ny = 0\n", 0.01, 0, SDK_CG_COMP_NOT_FIXED},
      {"rate in another variable", "[drift]\nx = -k*(1 + y*y)*x\ny = 0\n", 0.01, 0,
       SDK_CG_COMP_NOT_FIXED},
      {"rate in t", "[drift]\nx = -k*(2 + sin(t))*x\ny = 0\n", 0.01, 0, SDK_CG_COMP_NOT_FIXED},
      {"multiplicative noise", "[drift]\nx = -k*x\ny = 0\n[noise]\nx = g*x\n", 0.01, 0,
       SDK_CG_COMP_STATE_NOISE},
      {"noise in another variable", "[drift]\nx = -k*x\ny = 0\n[noise]\nx = g*y\n", 0.01, 0,
       SDK_CG_COMP_STATE_NOISE},
      {"delayed value of itself", "[drift]\nx = -k*x + 0.5*x(t - 1)\ny = 0\n", 0.01, 0,
       SDK_CG_COMP_DELAYED},
      {"delayed value of another", "[drift]\nx = -k*x + y(t - 1)\ny = -y\n", 0.01, 0,
       SDK_CG_COMP_DELAYED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    check_case(&cases[i]);
  check_varying();
  return tu_finish("test_comp_vars");
}
