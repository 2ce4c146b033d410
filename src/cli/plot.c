/* sdekit plot: draw what a result file holds with gnuplot.
 *
 * The file is read by cli/plotfile.h.  Each kind of observable has its
 * picture (cli/picture.h, picture_*.c), found through the table below.  For
 * each picture the data go as text into a private temporary directory
 * together with a gnuplot script (cli/gnuplot.h); gnuplot runs there
 * (pngcairo terminal) and the PNG is then put in place atomically.
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/gnuplot.h"
#include "cli/info.h"
#include "cli/render.h"
#include "core/numfmt.h"
#include "core/strbuf.h"
#include "figure/figures.h"
#include "figure/picture.h"
#include "figure/plotfile.h"
#include "figure/status.h"

static void plot_help(void) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_puts(&b, "usage: sdekit plot FILE.h5 [options]\n"
                  "\n"
                  "Draw what a result file holds with gnuplot (1000x650: PNG, or PDF, SVG):\n");
  for (int k = 0; k < sdk_figs_count(); k++)
    sdk_sb_printf(&b, "  %-9s %s\n", sdk_figs_at(k)->name, sdk_figs_at(k)->help);
  sdk_sb_puts(&b,
              "\n"
              "options:\n"
              "  -o FIG.png             output (default: FILE with .png for .h5); with several\n"
              "                         observables in the file, one picture each: FIG.OBS.png;\n"
              "                         FIG.pdf or FIG.svg: vector output (pdfcairo, svg)\n"
              "  --observable NAME      draw only this one (");
  sdk_figs_names(&b, ", ");
  sdk_sb_puts(
      &b, ")\n"
          "  --var VAR              only this variable (moments, hist, paths, cov, tavg; density:\n"
          "                         which one); hist, density, tavg: a user observable too\n"
          "  --grid G               grid point (0-based, axis 0 slowest) for pictures of one grid\n"
          "                         point (density, paths; expr, cov, diffusion, fpt and --show\n"
          "                         over time) and for the fixed axis of two-axis scans\n"
          "  --show NAME            draw the dataset NAME (its HDF5 path, e.g. expr/mean_E,\n"
          "                         fpt/survival) by its shape, with its standard-error band\n"
          "  --stat mean|variance   the statistic drawn: variance draws the variance (moments,\n"
          "                         the diagonal of cov, --show GROUP/mean_X as GROUP/var_X)\n"
          "  --keep                 keep the gnuplot script and data (the directory is printed)\n"
          "  --log x|y|xy           logarithmic axes, only these (by default: the survival S(t)\n"
          "                         where it spans decades; time at log-spaced --sample-times,\n"
          "                         and then a positive quantity spanning decades, e.g. the\n"
          "                         mean-square displacement, on log-log axes)\n"
          "  --spec                 print the figure descriptions as JSON instead of drawing\n"
          "                         (what every renderer draws: panels, curves, axes, labels)\n"
          "  --quiet                do not report the files written\n"
          "\n"
          "Needs gnuplot with the pngcairo terminal (Debian: apt-get install gnuplot-nox).\n");
  if (b.s && !b.oom) fputs(b.s, stdout);
  sdk_sb_free(&b);
}

/* Picture k described and drawn as the script of one gnuplot run into
 * o->gp (after the preamble that writes png, of format fmt). */
static sdekit_status draw_script(const sdk_plotfile *pf, const sdekit_figure_options *fo, int k,
                                 sdk_gp_out *o, const char *png, int fmt) {
  sdk_figure fig;
  /* the picture decides the figure, the renderer draws it */
  sdekit_status e = sdk_figs_describe(pf, fo, k, &fig, o->err);
  sdk_sb_init(&o->gp);
  sdk_gp_preamble_fmt(&o->gp, png, fmt);
  if (e == SDEKIT_OK) e = sdk_pic_render(o, &fig);
  if (e == SDEKIT_OK && o->gp.oom) e = CLI_RAISE(o->err, SDEKIT_ERR_NOMEM, "out of memory");
  sdk_fig_free(&fig);
  return e;
}

/* Draw picture k into out (format fmt): script and data in dir, gnuplot
 * run there, the picture moved onto out; serial numbers the files in dir. */
static sdekit_status draw_one(const sdk_plotfile *pf, const sdekit_figure_options *fo, int fmt,
                              int k, int serial, const char *dir, const char *out,
                              sdekit_error *err) {
  sdk_gp_out o = {.dir = dir, .err = err};
  char png[64], script[64];
  snprintf(png, sizeof png, "%s-%d.%s", sdk_figs_at(k)->name, serial, sdk_gp_ext(fmt));
  snprintf(script, sizeof script, "%s-%d.gp", sdk_figs_at(k)->name, serial);
  sdekit_status e = draw_script(pf, fo, k, &o, png, fmt);
  if (e == SDEKIT_OK) {
    char sp[PATH_MAX];
    snprintf(sp, sizeof sp, "%s/%s", dir, script);
    FILE *f = fopen(sp, "w");
    if (!f || fputs(o.gp.s, f) < 0 || fclose(f) != 0)
      e = CLI_RAISE(err, SDEKIT_ERR_IO, "cannot write '%s': %s", sp, strerror(errno));
  }
  sdk_sb_free(&o.gp);
  if (e == SDEKIT_OK) e = sdk_gp_run(dir, script, err);
  if (e == SDEKIT_OK) {
    char src[PATH_MAX];
    snprintf(src, sizeof src, "%s/%s", dir, png);
    e = sdk_gp_install(src, out, fmt, err);
  }
  return e;
}

/* ---------------- reading without drawing (fuzzing) ---------------- */

sdekit_status sdk_plot_inspect(const char *path, FILE *info_out, sdekit_error *err) {
  sdekit_result *r = NULL;
  sdekit_status e = sdekit_result_read(path, &r, err);
  if (e == SDEKIT_OK && info_out) e = cli_info_print(r, path, info_out, err);
  sdk_plotfile pf;
  memset(&pf, 0, sizeof pf);
  if (e == SDEKIT_OK) e = sdk_pf_attach(&pf, path, r, err);
  const sdekit_figure_options fo = {.grid = -1};
  for (int k = 0; k < sdk_figs_count() && e == SDEKIT_OK; k++) {
    if (!sdk_figs_at(k)->present(&pf)) continue;
    sdk_gp_out o = {.dir = NULL, .err = err};
    e = draw_script(&pf, &fo, k, &o, "x.png", SDK_GP_PNG);
    /* what sdk_gp_text promises: no backquote ever reaches a script */
    if (e == SDEKIT_OK && o.gp.s && strchr(o.gp.s, '`'))
      e = CLI_RAISE(err, SDEKIT_ERR_INTERNAL, "a backquote reached the %s script",
                    sdk_figs_at(k)->name);
    sdk_sb_free(&o.gp);
  }
  sdk_pf_close(&pf);
  sdekit_result_destroy(&r);
  return e;
}

/* ---------------- the command ---------------- */

/* What `sdekit plot` was asked. */
typedef struct plot_args {
  const char *file, *out, *var, *show;
  int want; /* the picture of --observable, -1: all the file holds */
  int stat; /* --stat: SDK_PIC_STAT_* */
  int64_t grid;
  int keep, quiet, spec;
  int log; /* --log: SDK_PIC_LOG_* */
} plot_args;

static int plot_fail(sdekit_status e, const sdekit_error *err) {
  cli_error("%s", err->message[0] ? err->message : sdekit_status_name(e));
  return sdekit_status_exit_code(e);
}

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* One option (a, with its value val when it takes one) into *pa; -1 to go
 * on, else the exit status. */
static int parse_option(const char *a, const char *val, plot_args *pa, const char **obs) {
  if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
    plot_help();
    return 0;
  } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
    pa->out = val;
  } else if (!strcmp(a, "--observable")) {
    *obs = val;
  } else if (!strcmp(a, "--var")) {
    pa->var = val;
  } else if (!strcmp(a, "--show")) {
    pa->show = val;
  } else if (!strcmp(a, "--stat")) {
    if (!strcmp(val, "mean")) {
      pa->stat = SDK_PIC_STAT_MEAN;
    } else if (!strcmp(val, "variance")) {
      pa->stat = SDK_PIC_STAT_VARIANCE;
    } else {
      cli_error("--stat '%s': expected mean or variance\n", val);
      return 2;
    }
  } else if (!strcmp(a, "--grid")) {
    double g;
    if (!sdk_parse_decimal(val, &g) || g < 0 || g != floor(g) || g > 1e15) {
      cli_error("--grid '%s': expected a grid point index >= 0\n", val);
      return 2;
    }
    pa->grid = (int64_t)g;
  } else if (!strcmp(a, "--keep")) {
    pa->keep = 1;
  } else if (!strcmp(a, "--log")) {
    pa->log = !strcmp(val, "x")    ? SDK_PIC_LOG_X
              : !strcmp(val, "y")  ? SDK_PIC_LOG_Y
              : !strcmp(val, "xy") ? SDK_PIC_LOG_X | SDK_PIC_LOG_Y
                                   : -1;
    if (pa->log < 0) {
      cli_error("--log '%s': expected x, y or xy\n", val);
      return 2;
    }
  } else if (!strcmp(a, "--spec")) {
    pa->spec = 1;
  } else if (!strcmp(a, "--quiet")) {
    pa->quiet = 1;
  } else if (a[0] == '-' && a[1]) {
    cli_error("unknown option '%s' (see 'sdekit plot --help')\n", a);
    return 2;
  } else if (!pa->file) {
    pa->file = a;
  } else {
    cli_error("unexpected argument '%s' (usage: sdekit plot FILE.h5 [-o FIG.png])\n", a);
    return 2;
  }
  return -1;
}

/* The command line into *pa: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, plot_args *pa) {
  const char *obs = NULL, *seen[8];
  int nseen = 0;
  memset(pa, 0, sizeof *pa);
  pa->grid = -1;
  pa->want = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = NULL;
    int takes = !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--observable") ||
                !strcmp(a, "--var") || !strcmp(a, "--grid") || !strcmp(a, "--show") ||
                !strcmp(a, "--stat") || !strcmp(a, "--log");
    if (takes) {
      if (i + 1 >= argc) {
        cli_error("option '%s' needs a value\n", a);
        return 2;
      }
      val = argv[++i];
      /* the last value would win silently */
      const char *name = !strcmp(a, "--output") ? "-o" : a;
      for (int k = 0; k < nseen; k++)
        if (!strcmp(seen[k], name)) {
          cli_error("%s given twice: give it once\n", name);
          return 2;
        }
      seen[nseen++] = name;
    }
    int rc = parse_option(a, val, pa, &obs);
    if (rc >= 0) return rc;
  }
  if (!pa->file) {
    cli_error("missing FILE.h5 (usage: sdekit plot FILE.h5 [-o FIG.png])\n");
    return 2;
  }
  if (obs && (pa->want = sdk_figs_index(obs)) < 0) {
    sdk_strbuf names;
    sdk_sb_init(&names);
    sdk_figs_names(&names, " or ");
    cli_error("--observable '%s': expected %s\n", obs, names.s ? names.s : "");
    sdk_sb_free(&names);
    return 2;
  }
  if (obs && pa->show) {
    cli_error("--observable and --show: give one of them\n");
    return 2;
  }
  /* the TSV written beside a result is its text, not something to draw */
  if (has_suffix(pa->file, ".tsv") || has_suffix(pa->file, ".txt")) {
    cli_error("'%s' is a text table: plots are drawn from the .h5 result (sdekit run -o RESULT.h5 "
              "writes it; then sdekit plot RESULT.h5)\n",
              pa->file);
    return 2;
  }
  if (pa->out && sdk_gp_format(pa->out) < 0) {
    cli_error("-o '%s': expected a name ending in .png, .pdf or .svg\n", pa->out);
    return 2;
  }
  return -1;
}

/* The output names (FIG.png, or FIG.OBS.png for several pictures), each in
 * a directory that exists and is writable. */
static sdekit_status output_names(const plot_args *pa, const int *todo, int ntodo,
                                  char outs[][PATH_MAX], sdekit_error *err) {
  char base[PATH_MAX];
  const char *ext = sdk_gp_ext(pa->out ? sdk_gp_format(pa->out) : SDK_GP_PNG);
  if (pa->out) {
    snprintf(base, sizeof base, "%.*s", (int)(strlen(pa->out) - 4), pa->out);
  } else {
    size_t n = strlen(pa->file);
    if (has_suffix(pa->file, ".h5"))
      n -= 3;
    else if (has_suffix(pa->file, ".hdf5"))
      n -= 5;
    snprintf(base, sizeof base, "%.*s", (int)n, pa->file);
  }
  sdekit_status e = SDEKIT_OK;
  for (int k = 0; k < ntodo && e == SDEKIT_OK; k++) {
    if (ntodo == 1)
      snprintf(outs[k], PATH_MAX, "%s.%s", base, ext);
    else
      snprintf(outs[k], PATH_MAX, "%s.%s.%s", base, sdk_figs_at(todo[k])->name, ext);
    /* the directory must exist and be writable */
    char *copy = sdk_strdup(outs[k]);
    char *slash = copy ? strrchr(copy, '/') : NULL;
    const char *d = slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
    struct stat st;
    if (!copy)
      e = CLI_RAISE(err, SDEKIT_ERR_NOMEM, "out of memory");
    else if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
      e = CLI_RAISE(err, SDEKIT_ERR_USAGE, "cannot write '%s': the directory does not exist",
                    outs[k]);
    else if (access(d, W_OK) != 0)
      e = CLI_RAISE(err, SDEKIT_ERR_USAGE, "cannot write '%s': the directory is not writable",
                    outs[k]);
    free(copy);
  }
  return e;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

/* The descriptions of the pictures todo as JSON on stdout (--spec). */
static sdekit_status spec_all(const sdk_plotfile *pf, const sdekit_figure_options *fo,
                              const int *todo, int ntodo, sdekit_error *err) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdekit_status e = sdk_figs_json(pf, fo, todo, ntodo, &b, err);
  if (e == SDEKIT_OK && (fputs(b.s, stdout) < 0 || fflush(stdout) != 0))
    e = CLI_RAISE(err, SDEKIT_ERR_IO, "cannot write the description: %s", strerror(errno));
  sdk_sb_free(&b);
  return e;
}

/* Draw the pictures todo into outs, in a temporary directory that is
 * removed afterwards (kept, and named, with --keep). */
static sdekit_status draw_all(const sdk_plotfile *pf, const plot_args *pa,
                              const sdekit_figure_options *fo, const int *todo, int ntodo,
                              char outs[][PATH_MAX], sdekit_error *err) {
  const char *tmp = sdk_cli_env_tmpdir();
  char tmpl[PATH_MAX];
  snprintf(tmpl, sizeof tmpl, "%s/sdekit-plot.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  char *dir = mkdtemp(tmpl);
  if (!dir)
    return CLI_RAISE(err, SDEKIT_ERR_IO, "cannot create a temporary directory in %s: %s",
                     tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
  sdekit_status e = SDEKIT_OK;
  for (int k = 0; k < ntodo && e == SDEKIT_OK; k++) {
    int fmt = pa->out ? sdk_gp_format(pa->out) : SDK_GP_PNG;
    e = draw_one(pf, fo, fmt, todo[k], k, dir, outs[k], err);
    if (e == SDEKIT_OK && !pa->quiet) {
      fputs("sdekit: wrote ", stderr);
      cli_put_escaped(stderr, outs[k]);
      fputc('\n', stderr);
    }
  }
  if (pa->keep) {
    fputs("sdekit: gnuplot scripts and data kept in ", stderr);
    cli_put_escaped(stderr, dir);
    fputc('\n', stderr);
  } else
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return e;
}

int sdk_cli_plot(int argc, char **argv) {
  plot_args pa;
  int rc = parse_args(argc, argv, &pa);
  if (rc >= 0) return rc;
  sdekit_error err = {0};
  sdk_plotfile pf;
  int todo[SDK_FIGS_MAX + 1], ntodo = 0;
  char outs[SDK_FIGS_MAX + 1][PATH_MAX];
  sdekit_figure_options fo = {.observable = pa.want >= 0 ? sdk_figs_at(pa.want)->name : NULL,
                              .var = pa.var,
                              .show = pa.show,
                              .grid = pa.grid,
                              .stat = pa.stat,
                              .log = pa.log};
  sdekit_status e = sdk_pf_open(&pf, pa.file, &err);
  if (e == SDEKIT_OK) e = sdk_figs_check(&pf, &fo, &err);
  if (e == SDEKIT_OK) e = sdk_figs_choose(&pf, &fo, todo, &ntodo, &err);
  if (e == SDEKIT_OK && pa.spec) {
    e = spec_all(&pf, &fo, todo, ntodo, &err);
  } else {
    if (e == SDEKIT_OK) e = output_names(&pa, todo, ntodo, outs, &err);
    if (e == SDEKIT_OK) e = draw_all(&pf, &pa, &fo, todo, ntodo, outs, &err);
  }
  rc = e == SDEKIT_OK ? 0 : plot_fail(e, &err);
  sdk_pf_close(&pf);
  return rc;
}
