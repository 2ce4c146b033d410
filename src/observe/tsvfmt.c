#include "observe/tsvfmt.h"

void sdk_tsv_header_start(const sdk_results *R, FILE *f) {
  fputs("# ", f);
  for (int i = 0; i < R->nscan; i++)
    fprintf(f, "%s\t", R->scan[i].name);
}

void sdk_tsv_coords(const sdk_results *R, int64_t g, FILE *f) {
  char b[32];
  int64_t idx[SDK_MAX_SCAN] = {0};
  if (R->nscan == 2) {
    idx[0] = g / R->scan[1].n;
    idx[1] = g % R->scan[1].n;
  } else if (R->nscan == 1) {
    idx[0] = g;
  }
  for (int i = 0; i < R->nscan; i++) {
    fputs(sdk_fmt_exact(b, R->scan[i].values[idx[i]]), f);
    fputc('\t', f);
  }
}

double sdk_tsv_bin_edge(double lo, double hi, int64_t e, int64_t bins) {
  return e == bins ? hi : lo + (hi - lo) * ((double)e / (double)bins);
}
