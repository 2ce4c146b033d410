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
static int utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  int n;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if (cp < 0xA0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
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

static const char *const GREEK[][2] = {
    {"alpha", "α"}, {"beta", "β"},  {"gamma", "γ"}, {"delta", "δ"},  {"epsilon", "ε"},
    {"zeta", "ζ"},  {"eta", "η"},   {"theta", "θ"}, {"kappa", "κ"},  {"lambda", "λ"},
    {"mu", "μ"},    {"nu", "ν"},    {"xi", "ξ"},    {"rho", "ρ"},    {"sigma", "σ"},
    {"tau", "τ"},   {"phi", "φ"},   {"chi", "χ"},   {"psi", "ψ"},    {"omega", "ω"},
    {"Gamma", "Γ"}, {"Delta", "Δ"}, {"Theta", "Θ"}, {"Lambda", "Λ"}, {"Sigma", "Σ"},
    {"Phi", "Φ"},   {"Psi", "Ψ"},   {"Omega", "Ω"}};

void sdk_gp_sym(sdk_strbuf *b, const char *name) {
  for (size_t i = 0; i < sizeof GREEK / sizeof GREEK[0]; i++)
    if (!strcmp(name, GREEK[i][0])) {
      sdk_sb_printf(b, "{/:Italic %s}", GREEK[i][1]);
      return;
    }
  if (strlen(name) == 1 &&
      ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'))) {
    sdk_sb_printf(b, "{/:Italic %c}", name[0]);
    return;
  }
  sdk_gp_text(b, name);
}

void sdk_gp_num(sdk_strbuf *b, double x) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.4g", x);
  /* 1e-05 -> 1e-5 */
  char *e = strchr(buf, 'e');
  if (e) {
    char *p = e + 1;
    if (*p == '+') memmove(p, p + 1, strlen(p));
    if (*p == '-') p++;
    while (p[0] == '0' && p[1])
      memmove(p, p + 1, strlen(p));
  }
  sdk_sb_puts(b, buf);
}

void sdk_gp_count(sdk_strbuf *b, int64_t n, const char *what) {
  int k = 0;
  while (k < 62 && ((int64_t)1 << k) < n)
    k++;
  if (n >= 1024 && ((int64_t)1 << k) == n)
    sdk_sb_printf(b, "2^{%d} %ss", k, what);
  else
    sdk_sb_printf(b, "%lld %s%s", (long long)n, what, n == 1 ? "" : "s");
}

void sdk_gp_val_err(sdk_strbuf *b, double v, double e) {
  if (isfinite(v) && isfinite(e) && e > 0 && fabs(v) < 1e6) {
    int dec = 1 - (int)floor(log10(e));
    if (dec < 0) dec = 0;
    if (dec <= 10) {
      sdk_sb_printf(b, "%.*f ± %.*f", dec, v, dec, e);
      return;
    }
  }
  sdk_gp_num(b, v);
  sdk_sb_puts(b, " ± ");
  sdk_gp_num(b, e);
}

/* ---------------- layout ---------------- */

void sdk_gp_preamble(sdk_strbuf *b, const char *png) {
  sdk_sb_printf(b,
                "set terminal pngcairo size 1000,650 enhanced font 'DejaVu Sans,14' linewidth 1.5\n"
                "set encoding utf8\n"
                "set output '%s'\n"
                "set datafile missing 'NaN'\n"
                "set style fill solid 1 noborder\n"
                "set grid lc rgb '#d8d8d8' lw 0.7\n"
                "set key noautotitle\n"
                "set title font ',15'\n"
                "set xlabel font ',15'\nset ylabel font ',15'\nset cblabel font ',15'\n"
                "set mxtics\nset mytics\n",
                png);
}

/* The plot area in screen fractions (right edges and gaps: gnuplot.h). */
#define AREA_TOP 0.865
#define AREA_BOTTOM 0.115
#define AREA_LEFT 0.125

void sdk_gp_panel(sdk_strbuf *b, int k, int n, double right, double gap) {
  double h = (AREA_TOP - AREA_BOTTOM + gap) / n, top = AREA_TOP - k * h;
  double bottom = top - h + gap;
  sdk_sb_printf(b,
                "set tmargin at screen %.4f\nset bmargin at screen %.4f\n"
                "set lmargin at screen %.4f\nset rmargin at screen %.4f\n",
                top, bottom, AREA_LEFT, right);
}

const char *sdk_gp_color(int64_t i) {
  static const char *const COLORS[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                       "#E69F00", "#56B4E9", "#000000", "#7F7F7F"};
  return COLORS[i % 8];
}

void sdk_gp_palette(sdk_strbuf *b, const char *kind) {
  if (!strcmp(kind, "diverging"))
    sdk_sb_puts(b, "set palette defined (-1 '#2166ac', -0.5 '#92c5de', 0 '#f7f7f7', 0.5 '#f4a582', "
                   "1 '#b2182b')\n");
  else if (!strcmp(kind, "density"))
    sdk_sb_puts(b, "set palette defined (0 '#ffffff', 0.12 '#fff3b0', 0.35 '#fec44f', 0.6 "
                   "'#f46d43', 0.82 '#c2185b', 1 '#4a0a50')\n");
  else
    sdk_sb_puts(b, "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 "
                   "'#5ec962', 1 '#fde725')\n");
}

void sdk_gp_heatmap(sdk_strbuf *b) {
  sdk_sb_puts(b, "set view map\nset pm3d map corners2color c1 noborder clipcb\n"
                 "unset grid\nset tics front\nset style fill solid 1 noborder\n"
                 "set colorbox user origin graph 1.03, graph 0 size graph 0.035, graph 1\n");
}

void sdk_gp_cbrange(sdk_strbuf *b, double lo, double hi) {
  if (!(lo <= hi)) return;
  if (lo < 0 && hi > 0) {
    double m = fmax(-lo, hi);
    sdk_gp_palette(b, "diverging");
    sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", -m, m);
  } else {
    sdk_gp_palette(b, "sequential");
    if (hi == lo)
      sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", lo - 0.5 - fabs(lo) * 0.1,
                    hi + 0.5 + fabs(hi) * 0.1);
  }
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

sdekit_status sdk_gp_install_png(const char *src, const char *out, sdekit_error *err) {
  size_t n = 0;
  char *data = sdk_read_file(src, &n);
  if (!data || n < 8 || memcmp(data, "\x89PNG", 4) != 0) {
    free(data);
    return CLI_RAISE(err, SDEKIT_ERR_BACKEND,
                     "gnuplot wrote no PNG (is its pngcairo terminal there?)");
  }
  /* (core/atomicfile.h reports in the library's own terms) */
  sdk_errbuf eb = {0};
  sdk_err e = sdk_atomic_write(out, data, n, 0, &eb);
  free(data);
  if (e == SDK_OK) return SDEKIT_OK;
  return CLI_RAISE(err, e == SDK_ERR_NOMEM ? SDEKIT_ERR_NOMEM : SDEKIT_ERR_IO, "%s", eb.msg);
}
