/* Parameters of a run (issue 12's papercuts):
 *  - [params] values that are expressions of the parameters above them
 *    (derived parameters): their values, and the errors (a parameter below,
 *    itself, an unknown name, t, a value that is not finite) with file and line;
 *  - a derived parameter follows the values in force: written out it gives
 *    the same kernel source and the same bits; --set of the parameter it is
 *    defined from changes it, --set of the derived parameter replaces it;
 *    scanned through the parameter it is defined from, every grid point gives
 *    bitwise the results of the model with the derived value written out and
 *    scanned (one axis, two axes, a period that depends on it);
 *  - --set and --scan of one parameter are refused (SDK_ERR_USAGE);
 *  - the results' param_values (and the HDF5 attribute): the values in force,
 *    NaN where a parameter varies over the grid.
 * Runs on the backend named by $SDK_TEST_BACKEND. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"
#include "model/model.h"
#include "sim/registry.h"
#include "simtest.h"
#include "testutil.h"

/* f, and omega defined from it (and half from omega); the drift uses omega
 * and half, so a wrong value of either shows in the moments */
static const char DERIVED[] = "[model]\n"
                              "name = osc\n"
                              "vars = x\n"
                              "[params]\n"
                              "f = 0.5\n"
                              "omega = 2*pi*f   # the angular frequency\n"
                              "k = 1\n"
                              "half = omega/2 + k\n"
                              "D = 0.1\n"
                              "[drift]\n"
                              "x = -half*x + 0.3*cos(omega*t)\n"
                              "[noise]\n"
                              "x = sqrt(2*D)\n"
                              "[init]\n"
                              "x = 0\n";

/* the same with omega and half written out as parameters of their own
 * (printf: omega, half) */
static const char WRITTEN[] = "[model]\n"
                              "name = osc\n"
                              "vars = x\n"
                              "[params]\n"
                              "f = 0.5\n"
                              "omega = %.17g   # the angular frequency\n"
                              "k = 1\n"
                              "half = %.17g\n"
                              "D = 0.1\n"
                              "[drift]\n"
                              "x = -half*x + 0.3*cos(omega*t)\n"
                              "[noise]\n"
                              "x = sqrt(2*D)\n"
                              "[init]\n"
                              "x = 0\n";

static char written_buf[4][1024];
static const char *written(int slot, double omega, double half) {
  snprintf(written_buf[slot], sizeof written_buf[slot], WRITTEN, omega, half);
  return written_buf[slot];
}

static void config(sdk_run_config *c, const char *text, int single) {
  sdk_run_config_defaults(c);
  c->model = "osc.sde";
  c->model_text = text;
  c->model_path = "osc.sde"; /* the same in every kernel's #line */
  c->backend = st_backend();
  c->single = single;
  c->paths = 300;
  c->t_end = 0.5;
  c->dt = 0.01;
  c->observe = "moments,drift";
  c->seed = 11;
}

static int same_moments(const sdk_run *a, const sdk_run *b) {
  const sdk_results *ra = sdk_run_results(a), *rb = sdk_run_results(b);
  const st_view *va = st_view_of(ra), *vb = st_view_of(rb);
  if (!va || !vb || ra->ngrid != rb->ngrid || va->nsamples != vb->nsamples) return 0;
  size_t n = (size_t)(ra->ngrid * va->nsamples * ra->nvars);
  return !memcmp(va->mean, vb->mean, n * sizeof(double)) &&
         !memcmp(va->var, vb->var, n * sizeof(double)) &&
         !memcmp(va->drift, vb->drift, (size_t)ra->ngrid * sizeof(double));
}

/* ---- the model file ---- */

static void test_model(void) {
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_model_parse(DERIVED, "osc.sde", &m, &eb) == SDK_OK, "parse: %s", eb.msg);
  if (!m) return;
  TU_CHECK(m->nparams == 5, "5 parameters");
  TU_CHECK(m->pvalues[1] == 2 * M_PI * 0.5 && m->pexpr[1], "omega = %.17g", m->pvalues[1]);
  TU_CHECK(m->pvalues[3] == 2 * M_PI * 0.5 / 2 + 1 && m->pexpr[3], "half = %.17g", m->pvalues[3]);
  TU_CHECK(!m->pexpr[0] && !m->pexpr[2] && !m->pexpr[4], "numbers have no expression");
  double pv[5];
  memcpy(pv, m->pvalues, sizeof pv);
  pv[0] = 2;
  sdk_model_derive(m, NULL, pv);
  TU_CHECK(pv[1] == 2 * M_PI * 2 && pv[3] == 2 * M_PI * 2 / 2 + 1, "derived from f = 2: %g %g",
           pv[1], pv[3]);
  unsigned char given[5] = {0, 1, 0, 0, 0};
  pv[1] = 10;
  sdk_model_derive(m, given, pv);
  TU_CHECK(pv[1] == 10 && pv[3] == 6, "omega given: %g %g", pv[1], pv[3]);
  sdk_model_destroy(&m);

  static const struct {
    const char *params, *msg;
  } bad[] = {
      {"a = b*2\nb = 1\n",
       "bad.sde:5: [params] a: uses 'b', which is defined below it (line 6): a parameter may use "
       "only the parameters above it"},
      {"a = 1\nb = c + a\nc = b\n",
       "bad.sde:6: [params] b: uses 'c', which is defined below it (line 7)"},
      {"a = 2*a\n", "bad.sde:5: [params] a: a parameter cannot be defined from itself"},
      {"b = 1\na = 2*zz\n",
       "bad.sde:6: [params] a: unknown name 'zz' (known: the parameters above it: b; pi)"},
      {"a = x + 1\n", "bad.sde:5: [params] a: unknown name 'x' (known: pi)"},
      {"a = abc\n", "bad.sde:5: [params] a: unknown name 'abc'"},
      {"a = 2*t\n", "bad.sde:5: [params] a: t cannot be used here"},
      {"b = 0\na = 1/b\n", "bad.sde:6: [params] a evaluates to inf (must be finite)"},
      {"a = 1 +\n", "bad.sde:5"},
      {"a = 2^3\n", "pow"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char text[512];
    snprintf(text, sizeof text, "[model]\nname = m\nvars = x\n[params]\n%s[drift]\nx = -x\n",
             bad[i].params);
    sdk_errbuf e2 = {0};
    sdk_model *bm = NULL;
    TU_CHECK(sdk_model_parse(text, "bad.sde", &bm, &e2) == SDK_ERR_MODEL && !bm,
             "case %zu accepted", i);
    TU_CHECK(strstr(e2.msg, bad[i].msg) != NULL, "case %zu: '%s' lacks '%s'", i, e2.msg,
             bad[i].msg);
    sdk_model_destroy(&bm);
  }
}

/* ---- runs ---- */

/* kernel sources of two configurations are identical on both targets */
static int same_source(const sdk_run_config *a, const sdk_run_config *b) {
  int same = 1;
  for (int k = 0; sdk_registry_backends[k]; k++) {
    const sdk_backend *be = sdk_registry_backends[k];
    char *sa = NULL, *sb = NULL;
    sdk_errbuf eb = {0};
    sdk_err ea = sdk_run_codegen(a, be, &sa, &eb), e2 = sdk_run_codegen(b, be, &sb, &eb);
    same &= ea == SDK_OK && e2 == SDK_OK && !strcmp(sa, sb);
    free(sa);
    free(sb);
  }
  return same;
}

static void check_pair(const char *what, const sdk_run_config *a, const sdk_run_config *b,
                       int want_same_source) {
  if (want_same_source)
    TU_CHECK(same_source(a, b), "%s: the kernel source differs from the written-out model", what);
  sdk_run *ra = st_run(a), *rb = st_run(b);
  TU_CHECK(ra && rb, "%s: runs", what);
  if (ra && rb)
    TU_CHECK(same_moments(ra, rb), "%s: results differ from the written-out model", what);
  sdk_run_destroy(&ra);
  sdk_run_destroy(&rb);
}

static void test_fixed(int single) {
  sdk_run_config a, b;
  char what[128];
  const char *p = single ? "single" : "double";
  /* the defaults */
  config(&a, DERIVED, single);
  config(&b, written(0, 2 * M_PI * 0.5, 2 * M_PI * 0.5 / 2 + 1), single);
  snprintf(what, sizeof what, "%s, defaults", p);
  check_pair(what, &a, &b, 1);
  /* --set f=1.5 reaches omega and half */
  config(&a, DERIVED, single);
  a.nset = 1;
  a.set_name[0] = "f";
  a.set_value[0] = 1.5;
  config(&b, written(1, 2 * M_PI * 1.5, 2 * M_PI * 1.5 / 2 + 1), single);
  b.nset = 1;
  b.set_name[0] = "f";
  b.set_value[0] = 1.5;
  snprintf(what, sizeof what, "%s, --set f=1.5", p);
  check_pair(what, &a, &b, 1);
  /* --set omega=5 replaces its expression; half follows it */
  config(&a, DERIVED, single);
  a.nset = 2;
  a.set_name[0] = "omega";
  a.set_value[0] = 5;
  a.set_name[1] = "k";
  a.set_value[1] = 2;
  config(&b, written(2, 5, 5.0 / 2 + 2), single);
  b.nset = 1;
  b.set_name[0] = "k";
  b.set_value[0] = 2;
  snprintf(what, sizeof what, "%s, --set omega=5 --set k=2", p);
  check_pair(what, &a, &b, 1);
}

/* grid point g of two runs: the same bits */
static int same_point(const sdk_run *ra, const sdk_run *rb, int g) {
  const sdk_results *RA = sdk_run_results(ra), *RB = sdk_run_results(rb);
  const st_view *va = st_view_of(RA), *vb = st_view_of(RB);
  if (!va || !vb || va->nsamples != vb->nsamples || RA->ngrid != RB->ngrid) return 0;
  size_t n = (size_t)(va->nsamples * RA->nvars), at = (size_t)g * n;
  return !memcmp(va->mean + at, vb->mean + at, n * sizeof(double)) &&
         !memcmp(va->var + at, vb->var + at, n * sizeof(double)) &&
         !memcmp(&va->drift[g], &vb->drift[g], sizeof(double)) && RA->dt[g] == RB->dt[g];
}

static sdk_scan_axis axis(const char *name, double *v, int n) {
  sdk_scan_axis ax = {.start = v[0], .stop = v[n - 1], .n = n, .values = v};
  snprintf(ax.name, sizeof ax.name, "%s", name);
  return ax;
}

static double fv[3] = {0.5, 1.25, 2}, kv[2] = {1, 3}, om[3];

/* Scanned through f: omega and half vary with it.  The written-out model
 * scans omega over the same values and half over grid point g's value (a
 * second axis of one point), which gives grid point g the same global path
 * indices and the same values as the derived run. */
static void test_scanned(int single) {
  const char *p = single ? "single" : "double";
  for (int i = 0; i < 3; i++)
    om[i] = 2 * M_PI * fv[i];
  sdk_run_config a, b;
  config(&a, DERIVED, single);
  a.nscan = 1;
  a.scan[0] = axis("f", fv, 3);
  sdk_run *ra = st_run(&a);
  TU_CHECK(ra != NULL, "%s: scan of f", p);
  for (int g = 0; ra && g < 3; g++) {
    double hv[1] = {om[g] / 2 + 1};
    config(&b, written(3, 0, 0), single);
    b.nscan = 2;
    b.scan[0] = axis("omega", om, 3);
    b.scan[1] = axis("half", hv, 1);
    sdk_run *rb = st_run(&b);
    TU_CHECK(rb && same_point(ra, rb, g),
             "%s: grid point %d (f = %g): results differ from omega = %.17g, half = %.17g "
             "written out",
             p, g, fv[g], om[g], hv[0]);
    sdk_run_destroy(&rb);
  }
  if (ra) {
    const double *pv = sdk_run_results(ra)->param_values;
    TU_CHECK(isnan(pv[0]) && isnan(pv[1]) && pv[2] == 1 && isnan(pv[3]) && pv[4] == 0.1,
             "param_values of the scan of f: %g %g %g %g %g", pv[0], pv[1], pv[2], pv[3], pv[4]);
    /* the TSV header says which values vary */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sdk_errbuf eb = {0};
    TU_CHECK(f && sdk_write_tsv(sdk_run_results(ra), "moments", f, &eb) == SDK_OK, "TSV: %s",
             eb.msg);
    if (f) fclose(f);
    TU_CHECK(text &&
                 strstr(text, "\n# param omega: per grid point (defined from a scanned "
                              "parameter)\n# param k: 1\n# param half: per grid point") &&
                 !strstr(text, "# param f:") && strstr(text, "\n# scan f: 0.5 .. 2, n=3"),
             "TSV header:\n%s", text ? text : "");
    free(text);
  }
  sdk_run_destroy(&ra);
}

/* Two axes (f, k), omega following f; and a period that follows f through
 * omega (dt per grid point): against omega written out and scanned. */
static const char PERIODIC[] = "[model]\n"
                               "name = drive\n"
                               "vars = x\n"
                               "period = 2*pi/omega\n"
                               "[params]\n"
                               "f = 0.5\n"
                               "omega = 2*pi*f\n"
                               "k = 1\n"
                               "[drift]\n"
                               "x = -k*x + 0.3*cos(omega*t)\n"
                               "[noise]\n"
                               "x = 0.5\n";
static const char PERIODIC_W[] = "[model]\n"
                                 "name = drive\n"
                                 "vars = x\n"
                                 "period = 2*pi/omega\n"
                                 "[params]\n"
                                 "f = 0.5\n"
                                 "omega = 3.141592653589793\n"
                                 "k = 1\n"
                                 "[drift]\n"
                                 "x = -k*x + 0.3*cos(omega*t)\n"
                                 "[noise]\n"
                                 "x = 0.5\n";

/* Two axes (f, k): omega follows f, half both.  The written model scans
 * omega over the same values and half over the values it takes at one f,
 * so the grid points of that f compare. */
static void test_two_axes(int single) {
  const char *p = single ? "single" : "double";
  sdk_run_config a, b;
  config(&a, DERIVED, single);
  a.nscan = 2;
  a.scan[0] = axis("f", fv, 3);
  a.scan[1] = axis("k", kv, 2);
  sdk_run *ra = st_run(&a);
  TU_CHECK(ra != NULL, "%s: scan of f and k", p);
  for (int i = 0; ra && i < 3; i++) {
    double hv[2] = {om[i] / 2 + kv[0], om[i] / 2 + kv[1]};
    config(&b, written(3, 0, 0), single);
    b.nscan = 2;
    b.scan[0] = axis("omega", om, 3);
    b.scan[1] = axis("half", hv, 2);
    sdk_run *rb = st_run(&b);
    for (int j = 0; j < 2; j++)
      TU_CHECK(rb && same_point(ra, rb, 2 * i + j),
               "%s, scan of f and k: grid point %d (f = %g, k = %g) differs from omega, half "
               "written out",
               p, 2 * i + j, fv[i], kv[j]);
    sdk_run_destroy(&rb);
  }
  sdk_run_destroy(&ra);
}

/* A period that follows f through omega: dt differs per grid point. */
static void test_period(int single) {
  const char *p = single ? "single" : "double";
  sdk_run_config a, b;
  config(&a, PERIODIC, single);
  config(&b, PERIODIC_W, single);
  a.t_end = b.t_end = a.dt = b.dt = 0;
  a.spp = b.spp = 40;
  a.periods = b.periods = 3;
  a.nscan = b.nscan = 1;
  a.scan[0] = axis("f", fv, 3);
  b.scan[0] = axis("omega", om, 3);
  sdk_run *ra = st_run(&a), *rb = st_run(&b);
  TU_CHECK(ra && rb, "%s: periodic runs", p);
  for (int g = 0; ra && rb && g < 3; g++)
    TU_CHECK(same_point(ra, rb, g), "%s, period = 2*pi/omega: grid point %d differs", p, g);
  if (ra) {
    const sdk_results *R = sdk_run_results(ra);
    TU_CHECK(R->dt[0] == 2 * M_PI / om[0] / 40 && R->dt[2] == 2 * M_PI / om[2] / 40 &&
                 R->dt[0] != R->dt[2],
             "dt per grid point: %.17g %.17g", R->dt[0], R->dt[2]);
  }
  sdk_run_destroy(&ra);
  sdk_run_destroy(&rb);
}

/* --set and --scan of one parameter: refused, naming it */
static void test_set_and_scan(void) {
  sdk_run_config c;
  config(&c, DERIVED, 1);
  c.nset = 1;
  c.set_name[0] = "k";
  c.set_value[0] = 2;
  c.nscan = 1;
  c.scan[0] = axis("k", kv, 2);
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && !r, "--set k with --scan k: %s", sdk_err_name(e));
  TU_CHECK(!strcmp(eb.msg, "--set k and --scan k: parameter 'k' is either fixed or scanned, give "
                           "one of them"),
           "message: %s", eb.msg);
  sdk_run_destroy(&r);
}

/* the HDF5 root attribute param_values: values in force, NaN for the scanned */
static void test_param_values_attribute(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = "josephson"; /* parameters a, omega, gamma, D, f */
  c.backend = st_backend();
  c.paths = 16;
  c.periods = 2;
  c.nset = 2;
  c.set_name[0] = "gamma";
  c.set_value[0] = 0.75;
  c.set_name[1] = "f";
  c.set_value[1] = -0.25;
  static double av[2] = {4.5, 6.5};
  c.nscan = 1;
  c.scan[0] = axis("a", av, 2);
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "josephson run");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  double want[8];
  int n = R->nparams;
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(n <= 8 && sdk_model_load("josephson", &m, &eb) == SDK_OK, "josephson: %s", eb.msg);
  for (int i = 0; m && i < n; i++) {
    want[i] = m->pvalues[i];
    if (!strcmp(R->param_names[i], "gamma")) want[i] = 0.75;
    if (!strcmp(R->param_names[i], "f")) want[i] = -0.25;
    if (!strcmp(R->param_names[i], "a")) want[i] = NAN;
  }
  sdk_model_destroy(&m);
  char path[] = "test_params.XXXXXX";
  int fd = mkstemp(path); /* in the working directory: the build tree */
  TU_CHECK(fd >= 0, "temporary file");
  if (fd >= 0) close(fd);
  TU_CHECK(sdk_write_h5(R, path, &eb) == SDK_OK, "write: %s", eb.msg);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t at = f >= 0 ? H5Aopen(f, "param_values", H5P_DEFAULT) : -1;
  hid_t sp = at >= 0 ? H5Aget_space(at) : -1;
  double got[8] = {0};
  TU_CHECK(sp >= 0 && H5Sget_simple_extent_npoints(sp) == n &&
               H5Aread(at, H5T_NATIVE_DOUBLE, got) >= 0,
           "read param_values");
  int nnan = 0;
  for (int i = 0; i < n; i++) {
    TU_CHECK(isnan(want[i]) ? isnan(got[i]) : got[i] == want[i],
             "param_values[%d] (%s) = %g, want %g", i, R->param_names[i], got[i], want[i]);
    nnan += isnan(got[i]);
  }
  TU_CHECK(nnan == 1, "one NaN (a), got %d", nnan);
  if (sp >= 0) H5Sclose(sp);
  if (at >= 0) H5Aclose(at);
  if (f >= 0) H5Fclose(f);
  unlink(path);
  sdk_run_destroy(&r);
}

/* The points of --scan ranges: a log scan over decades hits the powers of 10
 * exactly (1e-3:1e3:7:log gave 9.99999999999999 for 10), a linear one the
 * decimal steps; an axis of more than 1e7 points is refused with its limit. */
static void test_scan_points(void) {
  sdk_scan_axis ax;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("D=1e-3:1e3:7:log", &ax, &eb) == SDK_OK, "log scan: %s", eb.msg);
  const double want[7] = {1e-3, 1e-2, 1e-1, 1, 10, 100, 1000};
  for (int i = 0; i < 7; i++)
    TU_CHECK(sdk_scan_point(&ax, i) == want[i], "log scan point %d: %.17g, not %g", i,
             sdk_scan_point(&ax, i), want[i]);
  TU_CHECK(sdk_scan_parse("D=2:2e6:4:log", &ax, &eb) == SDK_OK, "log scan: %s", eb.msg);
  TU_CHECK(sdk_scan_point(&ax, 1) == 200 && sdk_scan_point(&ax, 3) == 2e6, "2 .. 2e6: %.17g %.17g",
           sdk_scan_point(&ax, 1), sdk_scan_point(&ax, 3));
  TU_CHECK(sdk_scan_parse("a=4.2:14.1:100", &ax, &eb) == SDK_OK, "linear scan: %s", eb.msg);
  TU_CHECK(sdk_scan_point(&ax, 6) == 4.8, "4.2 + 6 (9.9/99): %.17g", sdk_scan_point(&ax, 6));
  sdk_errbuf eb2 = {0};
  TU_CHECK(sdk_scan_parse("k=0:1:100000000", &ax, &eb2) == SDK_ERR_USAGE &&
               strstr(eb2.msg, "100000000 points on one axis, more than its limit of 1e7"),
           "an axis of 1e8 points: '%s'", eb2.msg);
}

int main(void) {
  st_require_backend();
  test_scan_points();
  test_model();
  for (int single = 0; single < 2; single++) {
    test_fixed(single);
    test_scanned(single);
    test_two_axes(single);
    test_period(single);
  }
  test_set_and_scan();
  test_param_values_attribute();
  return tu_finish("test_params");
}
