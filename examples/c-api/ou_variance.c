/* The Ornstein-Uhlenbeck process dx = -k x dt + sqrt(2 D) dW, x(0) = 1 (the
 * built-in model "ou"), for four values of k, through the public C API of
 * libsdekit: the variance of x at t = 5 against the exact
 *
 *   Var x(t) = (D / k) (1 - exp(-2 k t)).
 *
 * Exits with status 1 when a value is more than 5 standard errors away
 * (for Gaussian x the variance estimated from n paths has the standard
 * error Var sqrt(2 / (n - 1))).  Build against an installed sdekit: the
 * Makefile (pkg-config) or CMakeLists.txt (find_package(sdekit)). */
#include <math.h>
#include <sdekit.h>
#include <stdio.h>

int main(void) {
  const double D = 0.5, t_end = 5;
  const int64_t paths = 100000;
  sdekit_config *c = NULL;
  sdekit_result *r = NULL;
  sdekit_dataset var, t;
  sdekit_error err;
  int bad = 0;
  if (sdekit_config_create(&c, &err) || sdekit_config_set_model(c, "ou", &err) ||
      sdekit_config_set_param(c, "D", D, &err) ||
      sdekit_config_add_scan(c, "k", 0.5, 2.0, 4, 0, &err) ||
      sdekit_config_set_paths(c, paths, &err) || sdekit_config_set_t_end(c, t_end, &err) ||
      sdekit_config_set_observe(c, "moments", &err) || sdekit_config_set_seed(c, 2010, &err) ||
      sdekit_run(c, &r, &err) || sdekit_result_dataset(r, "moments/var_x", &var, &err) ||
      sdekit_result_dataset(r, "moments/t", &t, &err)) {
    fprintf(stderr, "ou_variance: %s\n", err.message);
    sdekit_config_destroy(&c);
    return 1;
  }
  int64_t nk = 0;
  const double *k = sdekit_result_scan_values(r, 0, &nk);
  int64_t ns = var.dims[var.rank - 1]; /* [k, sample] */
  printf("sdekit %s: OU, D = %g, %lld paths, variance at t = %g\n", sdekit_version(), D,
         (long long)paths, t_end);
  printf("%8s %12s %12s %10s\n", "k", "variance", "exact", "error/se");
  for (int64_t i = 0; i < nk; i++) {
    double tl = ((const double *)t.data)[i * ns + ns - 1];
    double v = ((const double *)var.data)[i * ns + ns - 1];
    double exact = D / k[i] * (1 - exp(-2 * k[i] * tl));
    double z = (v - exact) / (exact * sqrt(2.0 / (double)(paths - 1)));
    printf("%8.3f %12.6f %12.6f %+10.2f\n", k[i], v, exact, z);
    bad |= !(fabs(z) <= 5);
  }
  sdekit_result_destroy(&r);
  sdekit_config_destroy(&c);
  return bad;
}
