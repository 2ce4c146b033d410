/* The gnuplot script writer: escaping, text, layout, colours, running
 * gnuplot.  See gnuplot.h for the rules and why. */
#include "cli/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/atomicfile.h"

/* ---------------- escaping ---------------- */

/* Length of the well-formed UTF-8 sequence at s for a code point >= U+00A0
 * (no overlong forms, no surrogates, at most U+10FFFF), else 0. */
/* Well-formed UTF-8 from U+00A0 up: its length (0: anything else). */
static int utf8_len(const unsigned char *s) {
  unsigned cp;
  int n = sdk_utf8_decode(s, &cp);
  return n > 0 && cp >= 0xA0 ? n : 0;
}

void sdk_gp_text(sdk_strbuf *b, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        (c && strchr(" .,:;=+-*/()[]<>!?#%'|$", (int)c))) {
      sdk_sb_putn(b, (const char *)p, 1);
      p++;
    } else if (c && strchr("_^@&~{}", (int)c)) {
      /* in the script "\\_" is the string \_, which enhanced text shows as _ */
      sdk_sb_printf(b, "\\\\%c", (int)c);
      p++;
    } else if (c == '\\') {
      /* the string \\, which enhanced text shows as one backslash */
      sdk_sb_puts(b, "\\\\\\\\");
      p++;
    } else if (c == '"') {
      sdk_sb_puts(b, "\\\"");
      p++;
    } else if (c >= 0x80 && utf8_len(p) > 0) {
      int n = utf8_len(p);
      sdk_sb_putn(b, (const char *)p, (size_t)n);
      p += n;
    } else {
      sdk_sb_puts(b, "?");
      p++;
    }
  }
}

/* ---------------- pieces of text ---------------- */

void sdk_gp_label(sdk_strbuf *b, const sdk_label *l) {
  for (int i = 0; i < l->n; i++) {
    int st = l->r[i].style;
    if (st & SDK_LAB_SUB) sdk_sb_puts(b, "_{");
    if (st & SDK_LAB_SUP) sdk_sb_puts(b, "^{");
    if (st & SDK_LAB_ITALIC) sdk_sb_puts(b, "{/:Italic ");
    sdk_gp_text(b, l->r[i].s);
    for (int k = 0; k < 3; k++)
      if (st & (1 << k)) sdk_sb_puts(b, "}");
  }
  if (l->oom) b->oom = 1;
}

/* ---------------- layout ---------------- */

/* The terminals, one per format, at the same size: 1000x650 pixels (a PDF
 * at 72 points an inch, as pngcairo sizes its fonts). */
static const char *const TERMINAL[] = {"pngcairo size 1000,650", "pdfcairo size 13.89in,9.03in",
                                       "svg size 1000,650"};

void sdk_gp_preamble_fmt(sdk_strbuf *b, const char *out, int fmt) {
  sdk_sb_printf(b,
                "set terminal %s enhanced font 'DejaVu Sans,14' linewidth 1.5\n"
                "set encoding utf8\n"
                "set output '%s'\n"
                "set datafile missing 'NaN'\n"
                "set style fill solid 1 noborder\n"
                "set grid lc rgb '#d8d8d8' lw 0.7\n"
                "set key noautotitle\n"
                "set title font ',15'\n"
                "set xlabel font ',15'\nset ylabel font ',15'\nset cblabel font ',15'\n"
                "set mxtics\nset mytics\n",
                TERMINAL[fmt], out);
}

void sdk_gp_margins(sdk_strbuf *b, double left, double right, double bottom, double top) {
  sdk_sb_printf(b,
                "set tmargin at screen %.4f\nset bmargin at screen %.4f\n"
                "set lmargin at screen %.4f\nset rmargin at screen %.4f\n",
                top, bottom, left, right);
}

const char *sdk_gp_color(int64_t i) {
  return sdk_fig_color(i);
}

void sdk_gp_palette(sdk_strbuf *b, int palette) {
  int n;
  const sdk_fig_stop *st = sdk_fig_palette(palette, &n);
  sdk_sb_puts(b, "set palette defined (");
  for (int k = 0; k < n; k++)
    sdk_sb_printf(b, "%s%g '%s'", k ? ", " : "", st[k].at, st[k].color);
  sdk_sb_puts(b, ")\n");
}

void sdk_gp_heatmap(sdk_strbuf *b) {
  sdk_sb_puts(b, "set view map\nset pm3d map corners2color c1 noborder clipcb\n"
                 "unset grid\nset tics front\nset style fill solid 1 noborder\n"
                 "set colorbox user origin graph 1.03, graph 0 size graph 0.035, graph 1\n");
}

void sdk_gp_cbrange_set(sdk_strbuf *b, int palette, int set, double lo, double hi) {
  if (palette < 0) return;
  sdk_gp_palette(b, palette);
  if (set) sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", lo, hi);
}

/* ---------------- running gnuplot ---------------- */

sdekit_status sdk_gp_run(const char *dir, const char *script, sdekit_error *err) {
  char log[PATH_MAX];
  snprintf(log, sizeof log, "%s/gnuplot.log", dir);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return CLI_RAISE(err, SDEKIT_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) {
      dup2(nul, 0);
      close(nul);
    }
    if (chdir(dir) != 0) _exit(126);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(errno == ENOENT ? 127 : 126);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      return CLI_RAISE(err, SDEKIT_ERR_IO, "waiting for gnuplot: %s", strerror(errno));
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return SDEKIT_OK;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
    return CLI_RAISE(err, SDEKIT_ERR_BACKEND,
                     "gnuplot is not installed (or not on PATH); on Debian: apt-get install "
                     "gnuplot-nox");
  /* the first line that looks like an error, else the last line */
  char line[512], first[512] = "", last[512] = "";
  FILE *lf = fopen(log, "r");
  while (lf && fgets(line, sizeof line, lf)) {
    line[strcspn(line, "\n")] = 0;
    if (!line[0] || strspn(line, " ^") == strlen(line)) continue;
    snprintf(last, sizeof last, "%s", line);
    if (!first[0] && (strstr(line, "rror") || strstr(line, "line ")))
      snprintf(first, sizeof first, "%s", line);
  }
  if (lf) fclose(lf);
  if (WIFSIGNALED(st))
    return CLI_RAISE(err, SDEKIT_ERR_BACKEND, "gnuplot was killed by signal %d", WTERMSIG(st));
  return CLI_RAISE(err, SDEKIT_ERR_BACKEND, "gnuplot failed (status %d): %s",
                   WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                   first[0]  ? first
                   : last[0] ? last
                             : "no message");
}

const char *sdk_gp_ext(int fmt) {
  static const char *const EXT[] = {"png", "pdf", "svg"};
  return EXT[fmt];
}

int sdk_gp_format(const char *name) {
  size_t n = strlen(name);
  for (int f = SDK_GP_PNG; f <= SDK_GP_SVG; f++)
    if (n >= 4 && name[n - 4] == '.' && !strcmp(name + n - 3, sdk_gp_ext(f))) return f;
  return -1;
}

sdekit_status sdk_gp_install(const char *src, const char *out, int fmt, sdekit_error *err) {
  static const char *const WHAT[] = {"PNG (is its pngcairo terminal there?)",
                                     "PDF (is its pdfcairo terminal there?)", "SVG"};
  size_t n = 0;
  char *data = sdk_read_file(src, &n);
  int ok = data && n >= 8 &&
           (fmt == SDK_GP_PNG   ? !memcmp(data, "\x89PNG", 4)
            : fmt == SDK_GP_PDF ? !memcmp(data, "%PDF", 4)
                                : strstr(data, "<svg") != NULL);
  if (!ok) {
    free(data);
    return CLI_RAISE(err, SDEKIT_ERR_BACKEND, "gnuplot wrote no %s", WHAT[fmt]);
  }
  /* (core/atomicfile.h reports in the library's own terms) */
  sdk_errbuf eb = {0};
  sdk_err e = sdk_atomic_write(out, data, n, 0, &eb);
  free(data);
  if (e == SDK_OK) return SDEKIT_OK;
  return CLI_RAISE(err, e == SDK_ERR_NOMEM ? SDEKIT_ERR_NOMEM : SDEKIT_ERR_IO, "%s", eb.msg);
}
