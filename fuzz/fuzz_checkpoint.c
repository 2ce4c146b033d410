/* Fuzz target: checkpoint reader (what `sdekit resume` reads first).
 *
 * The first input byte selects the mode, the rest is the file:
 *   even: the file exactly as given (a real checkpoint, or garbage);
 *   odd:  the file followed by a correct "HASH" record over it, so the
 *         fuzzer also reaches everything the reader does after the checksum
 *         (the checksum is unkeyed: an attacker can always recompute it).
 * The file is read from the scratch file (fuzz_common.h). */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "fuzz_common.h"
#include "sim/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox();
  if (size < 1) return 0;
  int rehash = data[0] & 1;
  data++, size--;
  uint8_t *file = malloc(size + 44);
  if (!file) return 0;
  if (size) memcpy(file, data, size);
  size_t n = size;
  if (rehash) {
    char hash[33];
    uint64_t len = 32;
    sdk_hash_hex(file, n, hash);
    memcpy(file + n, "HASH", 4);
    memcpy(file + n + 4, &len, 8);
    memcpy(file + n + 12, hash, 32);
    n += 44;
  }
  const char *path = fuzz_file("run.ckpt", file, n);
  free(file);
  if (!path) return 0;
  sdk_errbuf eb = {0};
  sdk_ckpt *c = NULL;
  if (sdk_ckpt_read(path, &c, &eb) == SDK_OK) {
    /* touch every array the reader claims to hold, at its declared size */
    volatile double sink = 0;
    int64_t np = c->ngrid * c->ppg;
    for (int64_t i = 0; i < (c->nvars + 1) * np; i++)
      sink += c->state[i];
    for (int64_t i = 0; i < c->nsamples; i++)
      sink += (double)c->sample_step[i];
    for (int i = 0; i < c->argc; i++)
      sink += (double)strlen(c->argv[i]);
    sink += (double)strlen(c->model_text) + (double)strlen(c->model_path);
    for (int i = 0; i < c->nobs; i++)
      sink += (double)strlen(c->obs[i].name) + (double)c->obs[i].nsamples;
    for (int i = 0; i < c->nds; i++) {
      int64_t n = 1;
      for (int k = 0; k < c->ds[i].rank; k++)
        n *= c->ds[i].dims[k];
      for (int64_t k = 0; k < n; k++)
        sink += (double)((const unsigned char *)c->ds[i].data)[8 * k];
      sink += (double)strlen(c->ds[i].path);
    }
    (void)sink;
  }
  sdk_ckpt_destroy(&c);
  sdk_ckpt_destroy(&c);
  return 0;
}
