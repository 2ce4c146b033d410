/* Fuzz target: model files.  The input is the text of a model file; it is
 * parsed (sections, names, expressions, resolution, checks) and freed.
 * Nothing is generated or compiled. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox();
  char *text = fuzz_cstr(data, size);
  if (!text) return 0;
  sdk_errbuf eb = {0};
  sdk_model *m = NULL;
  if (sdk_model_parse(text, "fuzz.sde", &m, &eb) == SDK_OK) {
    /* the helpers the CLI calls on a parsed model */
    free(sdk_model_param_list(m));
    free(sdk_model_var_list(m));
    (void)sdk_model_first_periodic(m);
    for (int i = 0; i < m->nvars; i++)
      (void)sdk_model_var_index(m, m->vars[i]);
    for (int i = 0; i < m->nparams; i++)
      (void)sdk_model_param_index(m, m->params[i]);
  }
  sdk_model_destroy(&m);
  sdk_model_destroy(&m); /* NULL-safe */
  free(text);
  return 0;
}
