/* Parameters of a run (issue 12's papercuts):
 *  - --set and --scan of one parameter are refused (SDK_ERR_USAGE);
 *  - the results' param_values (and the HDF5 attribute): the values in force,
 *    NaN where a parameter varies over the grid (a scanned one).
 * Runs on the backend named by $SDK_TEST_BACKEND. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"
#include "model/model.h"
#include "simtest.h"
#include "testutil.h"

static sdk_scan_axis axis(const char *name, double *v, int n) {
  sdk_scan_axis ax = {.start = v[0], .stop = v[n - 1], .n = n, .values = v};
  snprintf(ax.name, sizeof ax.name, "%s", name);
  return ax;
}

/* --set and --scan of one parameter: refused, naming it */
static void test_set_and_scan(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = "ou";
  c.backend = st_backend();
  static double kv[2] = {1, 3};
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

int main(void) {
  st_require_backend();
  test_set_and_scan();
  test_param_values_attribute();
  return tu_finish("test_params");
}
