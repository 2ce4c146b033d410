/* sdekit fuzzing: what every target shares (see fuzz/README.md).
 *
 * The targets only parse and validate: they never compile or load a kernel
 * and never start a process.  Readers that take a path get the input as one
 * file in a private scratch directory (mode 0700), made once per process
 * in $SDK_FUZZ_SCRATCH (`make fuzz` and the replay tests point it into the
 * build directory), else $TMPDIR, else /tmp, and removed at exit.  (An
 * anonymous memfd would be tidier, but HDF5 resolves the path of the file
 * it opens and /proc/self/fd/N resolves to nothing.) */
#ifndef SDK_FUZZ_COMMON_H
#define SDK_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (cut at its first NUL); caller frees. */
char *fuzz_cstr(const uint8_t *data, size_t size);

/* Replace the contents of the target's scratch file by data and return its
 * path, or NULL when it cannot be written.  name: its base name. */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

/* Once per process: make sure no code path a target reaches can start a
 * program or create a temporary file (PATH and TMPDIR point nowhere). */
void fuzz_sandbox(void);

#endif
