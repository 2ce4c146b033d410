/* Typical values of the holes of the C kernel files
 * (src/codegen/kernels/NAME.h; the generator defines them before each
 * file), so that every kernel file compiles on its own:
 * cc -fsyntax-only -include tests/kernels/prelude.h FILE. */
typedef double real;
typedef long long sdk_i64;
#define SDK_NV 2
#define SDK_NN 1
