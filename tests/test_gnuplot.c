/* sdk_gp_text (src/cli/gnuplot.c): known answers for every class of byte,
 * and sdk_plot_inspect on inputs that are not result files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/gnuplot.h"
#include "testutil.h"

static void kat(const char *in, const char *want) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_gp_text(&b, in);
  const char *got = b.s ? b.s : "";
  TU_CHECK(strcmp(got, want) == 0, "sdk_gp_text(\"%s\"): got [%s] want [%s]", in, got, want);
  TU_CHECK(!strchr(got, '`') && !strchr(got, '\n') && !strchr(got, '\r'),
           "a backquote or line break passed: [%s]", got);
  sdk_sb_free(&b);
}

int main(void) {
  kat("Josephson junction 2.0", "Josephson junction 2.0");
  kat("a,b:c;d=e+f-g*h/i(j)[k]<l>m!n?o#p%q'r|s$t", "a,b:c;d=e+f-g*h/i(j)[k]<l>m!n?o#p%q'r|s$t");
  kat("`touch PWNED`", "?touch PWNED?");
  kat("say \"hi\"", "say \\\"hi\\\"");
  kat("a\\b", "a\\\\\\\\b");
  kat("x_1^2 {y} @m &z ~w", "x\\\\_1\\\\^2 \\\\{y\\\\} \\\\@m \\\\&z \\\\~w");
  kat("a\nb\r\tc\x7f"
      "d\x1b[2J",
      "a?b??c?d?[2J");
  kat("\xce\xb1\xe2\x9f\xa8", "\xce\xb1\xe2\x9f\xa8"); /* alpha, U+27E8: kept */
  kat("\xc2\x9b"
      "x\xc0\xafy\xff\xed\xa0\x80",
      "??x??y????");               /* C1, overlong, bad, surrogate */
  kat("\xf4\x90\x80\x80", "????"); /* beyond U+10FFFF */

  /* sdk_plot_inspect: missing, not HDF5, a FIFO (refused without blocking) */
  char dir[4200], p[4400];
  snprintf(dir, sizeof dir, "%s/test_gnuplot.XXXXXX", tu_scratch());
  TU_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  sdekit_error err = {0};
  snprintf(p, sizeof p, "%s/none.h5", dir);
  TU_CHECK(sdk_plot_inspect(p, NULL, &err) != SDEKIT_OK && strstr(err.message, "none.h5"),
           "missing: %s", err.message);
  snprintf(p, sizeof p, "%s/text.h5", dir);
  FILE *f = fopen(p, "w");
  if (f) fputs("not hdf5\n", f), fclose(f);
  memset(&err, 0, sizeof err);
  TU_CHECK(sdk_plot_inspect(p, NULL, &err) == SDEKIT_ERR_FORMAT, "text: %s", err.message);
  unlink(p);
  snprintf(p, sizeof p, "%s/fifo.h5", dir);
  TU_CHECK(mkfifo(p, 0600) == 0, "mkfifo");
  memset(&err, 0, sizeof err);
  TU_CHECK(sdk_plot_inspect(p, stdout, &err) == SDEKIT_ERR_FORMAT &&
               strstr(err.message, "regular file"),
           "fifo: %s", err.message);
  unlink(p);
  rmdir(dir);
  return tu_finish("test_gnuplot");
}
