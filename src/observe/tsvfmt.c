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

void sdk_tsv_series(const sdk_results *R, FILE *f, const char *sep, int64_t ns, const double *t,
                    int ncol, const char *const *names, const double *const *cols) {
  char b[32];
  sdk_tsv_header_start(R, f);
  fputs("t", f);
  for (int k = 0; k < ncol; k++)
    fprintf(f, "\t%s", names[k]);
  fputc('\n', f);
  for (int64_t g = 0; g < R->ngrid; g++) {
    if (g > 0) fputs(sep, f);
    for (int64_t s = 0; s < ns; s++) {
      sdk_tsv_coords(R, g, f);
      fputs(sdk_fmt_stat(b, t[g * ns + s]), f);
      for (int k = 0; k < ncol; k++)
        fprintf(f, "\t%s", sdk_fmt_stat(b, cols[k][g * ns + s]));
      fputc('\n', f);
    }
  }
}
