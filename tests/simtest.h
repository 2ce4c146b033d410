/* Helpers for tests that run simulations through the library API. */
#ifndef SDK_SIMTEST_H
#define SDK_SIMTEST_H
#include "codegen/scheme.h"
#include "sim/registry.h"
#include "sim/run.h"

/* Backend named by $SDK_TEST_BACKEND (default "cpu"). */
const char *st_backend(void);
/* Write model text to a temporary .sde file; returns its path (static buffer per call index). */
const char *st_model_file(const char *text, int slot);
/* Run; on failure print the error and return NULL. */
sdk_run *st_run(const sdk_run_config *c);
/* Skip (exit 77) when the chosen backend cannot be opened. */
void st_require_backend(void);
/* One step of scheme s, from its explicit SRK table, on the linear equation
 * dx = -k x dt + b dW with additive noise: x' = a x + cw b sqrt(dt) psi
 * (psi the step's noise value).  Returns 0 (a and cw untouched) for a scheme
 * without an SRK table. */
int st_srk_linear(const sdk_scheme_type *s, double k, double dt, double *a, double *cw);
#endif
