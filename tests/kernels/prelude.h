/* The holes of the C kernel files (src/codegen/kernels/NAME.h) with typical
 * values, for compiling each file on its own (cc -fsyntax-only -include
 * this); the generator defines them before the files (common.c,
 * cpu_paths.c). */
#include <math.h>
#include <omp.h>
typedef double real;
typedef long long sdk_i64;
typedef unsigned long long sdk_u64;
#define SDK_NV 2
#define SDK_NN 1
#define SDK_NSV 1
#define SDK_BLK 64
#define SDK_SUB 16
#define SDK_ZROWS 8
