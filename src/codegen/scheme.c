#include "codegen/scheme.h"

#include <string.h>

static const sdk_scheme euler = {
    .name = "euler",
    .description = "Euler-Maruyama (weak order 1; Ito for multiplicative noise)",
    .stages = 1,
    .A = {{0}},
    .B = {0},
    .c = {0},
    .alpha = {1},
    .weak_order = 1,
    .additive_only = 0,
};

static const sdk_scheme srk2 = {
    .name = "srk2",
    .description =
        "stochastic Heun / SRK2 of Januszewski & Kostur Alg. 2 (weak order 2, additive noise)",
    .stages = 2,
    .A = {{0, 0}, {1, 0}},
    .B = {0, 1},
    .c = {0, 1},
    .alpha = {0.5, 0.5},
    .weak_order = 2,
    .additive_only = 1,
    .heun_noise = 1,
};

const sdk_scheme *const sdk_schemes[] = {&euler, &srk2, NULL};

const sdk_scheme *sdk_scheme_find(const char *name) {
  for (int i = 0; sdk_schemes[i]; i++)
    if (!strcmp(sdk_schemes[i]->name, name)) return sdk_schemes[i];
  return NULL;
}
