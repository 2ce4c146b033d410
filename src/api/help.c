/* The help text of `sdekit run`'s options (sdekit_config_help): the text,
 * with the registry's schemes, noises, observables and backends, and the
 * defaults its rows give, filled in. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "core/strbuf.h"
#include "sim/registry.h"

static const char RUN_HELP[] =
    "usage: sdekit run MODEL [options]\n"
    "\n"
    "MODEL is a path (it contains a '/' or ends in .sde: ./mymodel, mine.sde), or a bare\n"
    "name, looked up as NAME.sde in the directories of SDEKIT_MODEL_PATH (':'-separated,\n"
    "in order, before the built-ins) and then among the built-in models (see 'sdekit\n"
    "models'); never in the current directory.  Model files: regular files of UTF-8 text,\n"
    "at most 1 MiB (limits: README, 'Where a model comes from').\n"
    "\n"
    "parameters:\n"
    "  --set NAME=VALUE          set a parameter (repeatable, once per parameter; any other\n"
    "                            option but -o and --observe-expr is given at most once)\n"
    "  --scan NAME=START:STOP:N[:log|:lin]\n"
    "                            scan a parameter over N values, equally spaced (lin, the\n"
    "                            default) or in equal ratios (log: START, STOP > 0); each\n"
    "                            --scan is an axis of the grid (up to 5, the first outermost)\n"
    "  --scan NAME=V1,V2,...     scan a parameter over the values given\n"
    "  --scan A,B=RANGE_A,RANGE_B\n"
    "                            zipped: A and B move together along one axis (same N);\n"
    "                            --scan +B=... zips B with the --scan before it\n"
    "  --scan-file TABLE         zipped from a table: a header of parameter names, then one\n"
    "                            row of numbers per grid point (tabs or spaces; # comments)\n"
    "ensemble and time:\n"
    "  --paths N                 paths per grid point (default 1024; with --particles: 1 system)\n"
    "  --particles N             every path is a system of N particles (models with [meanfield]\n"
    "                            or [pair] need N >= 2; integrated with @SYSTEMS@)\n"
    "  --dt DT                   time step (models without a period: default 0.01; with one,\n"
    "                            period/N for the nearest whole N, said on stderr)\n"
    "  --spp N                   steps per period of the driving (periodic models; default 100)\n"
    "  --t-end T                 integrate up to time T (default 10, or 100 periods): a whole\n"
    "                            number of steps (with a period: the nearest step, said)\n"
    "  --periods N               integrate N periods (periodic models)\n"
    "  --transient T             start t_tr of the window of every time average (default 0):\n"
    "                            drift and tavg over [t_tr, t_end], diffusion's D_eff(t) over\n"
    "                            [t_tr, t] (var(x(t) - x(t_tr)) / 2(t - t_tr))\n"
    "  --transient-periods N     the same in periods\n"
    "  --scheme NAME             @DEFAULT_SCHEME@"
    "@SCHEMES@"
    "  --noise NAME              the values the scheme's steps draw (default: the scheme's own):\n"
    "@NOISES@"
    "  --calculus C              ito | stratonovich: the sense of noise that depends on the state\n"
    "                            (default: the model's [model] calculus, else ito); a scheme\n"
    "                            of the other calculus corrects the drift by +-1/2 b db/dx\n"
    "                            Noises a model declares (README, 'A model file'): [model]\n"
    "                            wiener = W1, W2 with [noise] lines such as s*dW1 + e*x*dW2\n"
    "                            and correlation = W1 W2 : RHO (Cholesky); [jumps] VAR = RATE\n"
    "                            : fixed(a) | exp(m) | uniform(a,b) | normal(m,s) [centered]\n"
    "                            (exact Poisson counts per step); [dichotomous] NAME = A, B,\n"
    "                            RATE_AB, RATE_BA (telegraph noise, a variable NAME)\n"
    "  --seed N                  random seed (default 1); same seed, same results\n"
    "where and how:\n"
    "  --backend NAME            @BACKENDS@\n"
    "  --precision P             single | double (default single)\n"
    "  --threads N               CPU threads (default: all cores)\n"
    "  --device N|A,B,...|all    GPU ordinal (default 0); a list, or all: one process on those\n"
    "                            GPUs (a thread each; the results bitwise those of one GPU);\n"
    "                            under MPI a list that the ranks of a node take by local rank\n"
    "                            (default: local rank modulo the node's GPUs)\n"
    "  --ranks N                 lay the run out as N ranks (threads of this process) on any\n"
    "                            backend, as mpirun -np N would: the results do not change\n"
    "  --no-fast-math            compile kernels without fast-math (IEEE-exact order)\n"
    "  --no-compensation         single precision: plain x += dx state update, without the\n"
    "                            compensated (Kahan) sum that keeps long drifting runs exact\n"
    "  --compensate WHICH        auto (default): every variable but those whose drift c x + ...\n"
    "                            pulls them back within 128 steps (c dt <= -1/128, c the same\n"
    "                            on every path) and whose own Gaussian noise increments span at\n"
    "                            least 256 float spacings at the largest |x| their drift, noise\n"
    "                            and start allow, so that their rounding is uniform noise far\n"
    "                            below their fluctuations (--verbose names each and why); all:\n"
    "                            every variable; none: as --no-compensation\n"
    "time-step bias:\n"
    "  --dt-check                every path also integrated at 2 dt with the same noise (the sum\n"
    "                            of its two steps'); the values with a standard error get\n"
    "                            GROUP/bias_NAME = (value(2 dt) - value(dt)) / (2^p - 1), p the\n"
    "                            scheme's weak order, and bias_err_NAME (moments, expr, drift,\n"
    "                            tavg; sample steps, transient and t-end even numbers of steps)\n"
    "  --extrapolate             with --dt-check: report value - bias as the value (Richardson)\n"
    "  --target-error EPS        halve dt from --dt/--spp until |bias| + 2 SE(bias) <= EPS/2 for\n"
    "                            every value, then add paths until SE <= EPS/2 (target/dt: the dt\n"
    "                            chosen); values sampled at t = 0 and t_end only\n"
    "  --mlmc EPS                multilevel Monte Carlo to within EPS (|bias| + 2 SE <= EPS)\n"
    "                            of the values at t_end and the time averages (moments, expr,\n"
    "                            tavg, drift): levels dt/2^l of coupled paths, the paths per\n"
    "                            level from their variances (--paths: the first of each level);\n"
    "                            the values become the estimates, mlmc/ has every level\n"
    "observables:\n"
    "  --observe LIST            comma-separated (default drift), or none:\n"
    "@OBSERVABLES@"
    "  --observe-expr NAME=EXPR  a user observable (repeatable), as [observe] NAME = EXPR in the\n"
    "                            model: EXPR in the variables, parameters and t; its mean and\n"
    "                            standard error at every sample time (switches expr on)\n"
    "  --drift VAR               variable whose drift <<v>> is measured (default: the first)\n"
    "  --sample-every N          steps between moment samples (default: one period, or 1/100 of "
    "the run)\n"
    "  --sample-times LIST       sample at exactly these times instead: T1,T2,... (increasing,\n"
    "                            >= 0), lin:A:B:N or log:A:B:N (N times from A to B; :round\n"
    "                            rounds each to the nearest step); each must be a step boundary;\n"
    "                            without --dt (--spp) dt is chosen to make them so; without\n"
    "                            --t-end the run ends at the last\n"
    "  --order-every N           steps between samples of the order parameter r(t) (default:\n"
    "                            --sample-every)\n"
    "  --bins N                  histogram bins (default 100)\n"
    "  --hist-range VAR=LO:HI    fixed histogram range for VAR, a variable or user observable\n"
    "                            (default: from the data)\n"
    "  --density-var VAR         variable or user observable of --observe density (default: the\n"
    "                            first variable)\n"
    "  --diffusion-var VAR       variable of --observe diffusion (default: that of --drift)\n"
    "  --corr-vars LIST          variables or user observables of --observe acf and psd,\n"
    "                            e.g. x,v,E (default: every variable)\n"
    "  --max-lag N               acf: lags 0..N sample intervals (default: 64, or half the\n"
    "                            samples after the transient if fewer); N <= 31: summed by\n"
    "                            the kernel at every sample step, else sampled by the host\n"
    "  --psd-segment M           psd: samples per Welch segment, a power of 2 (default: 256,\n"
    "                            or the largest power of 2 the samples allow), 50% overlap\n"
    "  --psd-window W            psd: hann (default) or rect\n"
    "                            psd is computed by the kernel at every sample step for\n"
    "                            M <= 8192 (bitwise the host's), else sampled by the host\n"
    "  --psd-on-host             psd: sampled by the host even where the kernel could\n"
    "                            compute it (the same bits; much slower on a GPU)\n"
    "  --no-bridge-correction    [boundaries]: absorb only where a step ends past the level, not\n"
    "                            with the Brownian-bridge probability of crossing inside a step\n"
    "                            (which makes escape times accurate to O(dt), not O(sqrt dt))\n"
    "  --coarse-grain[=WIDTH]    density bins exactly one period wide: WIDTH, or the period the\n"
    "                            model declares for the variable ([model] periodic = x : L)\n"
    "  --save-paths LIST         store these paths (indices per grid point, e.g. 0,1,2) at\n"
    "                            every sample\n"
    "  --save-final              store every path's final state (final/VAR in the HDF5 result,\n"
    "                            [grid point][path]; read back by --init-from RESULT.h5)\n"
    "your data (NumPy .npy, HDF5, TSV with a header line of names; README: Bringing your own\n"
    "data):\n"
    "  --init-from [VAR=]FILE[:grid=K]  the initial state of every path (every variable; the\n"
    "                            paths follow the file unless --paths is given); a result of\n"
    "                            --save-final, its grid point K\n"
    "  --path-params [NAME=]FILE[:grid=K]  values of parameters per path (or per grid point\n"
    "                            and path), named by the file's columns or NAME; the paths\n"
    "                            follow the file unless --paths is given\n"
    "accuracy (instead of --paths):\n"
    "  --target-se EPS           add paths in batches until the standard error of every value\n"
    "                            of the --target-on observables is <= EPS, per grid point\n"
    "  --target-rse EPS          the same relative to the value: SE <= EPS |value|\n"
    "  --target-on LIST          observables whose errors count (default: all with one)\n"
    "  --max-paths N             at most N paths per grid point (whole units of 16384; reaching\n"
    "                            it is recorded in target/status, said on stderr; exit 0); with\n"
    "                            --target-error or --mlmc the paths over all dts or levels\n"
    "  --max-seconds S           stop adding batches after S seconds (the result then depends\n"
    "                            on the machine's speed: recorded, and said on stderr); with\n"
    "                            --target-error or --mlmc a round that would end past S runs\n"
    "                            only the paths that fit (target/status, mlmc/status: 3, 4)\n"
    "adaptive steps (independent paths):\n"
    "  --adaptive                steps per path, controlled by the error estimate of the\n"
    "                            scheme's embedded pair (a scheme without one names those with\n"
    "                            one), on the path's Brownian tree; every step of the time grid\n"
    "                            (of --dt-max) is hit exactly; adaptive/ has the steps taken;\n"
    "                            absorbing [boundaries] shorten steps where a crossing is likely\n"
    "  --rtol R                  relative tolerance of the local error (default 1e-3)\n"
    "  --atol A                  absolute tolerance of the local error (default 1e-6)\n"
    "  --dt-max DT               the largest step, the time grid's (default --dt); --dt: the\n"
    "                            first try; a periodic model's is period/N (--spp N)\n"
    "  --dt-min DT               the smallest step (default and least: dt-max 2^-24)\n"
    "long runs:\n"
    "  --checkpoint FILE         save the complete state to FILE (atomically) every\n"
    "                            --checkpoint-every seconds (default 600), at the end, and on\n"
    "                            SIGINT/SIGTERM; continue with 'sdekit resume FILE' (a FILE\n"
    "                            that exists is the progress of a run: refused without --force)\n"
    "  --checkpoint-every S      seconds between checkpoints (0: after every chunk of steps)\n"
    "output:\n"
    "  -o FILE                   FILE.h5 (HDF5, everything), FILE.tsv (text for gnuplot; one file "
    "per\n"
    "                            observable, BASE.OBS.tsv, when there are several) or - (stdout);\n"
    "                            repeat -o to write several formats from one run\n"
    "  --force                   replace an existing --checkpoint FILE, or the model file\n"
    "                            itself with an output or the checkpoint (refused otherwise)\n"
    "  --quiet                   no progress or summary on stderr\n"
    "  --verbose                 show compiler commands and cache use\n"
    "\n"
    "environment:\n"
    "  SDEKIT_MODEL_PATH         ':'-separated directories searched for a bare MODEL name\n"
    "                            before the built-in models\n"
    "  SDEKIT_CACHE_DIR          the kernel cache (else $XDG_CACHE_HOME/sdekit, else\n"
    "                            $HOME/.cache/sdekit); SDEKIT_CACHE_MAX caps its size\n"
    "  SDEKIT_CC, CC             the C compiler of CPU kernels (default: clang if found, else "
    "cc);\n"
    "                            SDEKIT_CFLAGS replaces its flags, CFLAGS adds to them\n"
    "  CUDA_HOME, CUDA_PATH      where NVRTC is looked for (after the loader's search)\n"
    "  TMPDIR                    scratch space (private kernel caches, plot files)\n"
    "  SDEKIT_MPI                0: never join MPI ranks, 1: always (default: when started\n"
    "                            by mpirun or srun; docs/SCALING.md)\n"
    "  (the SDK_ names of earlier releases, SDK_CACHE_DIR and the GPU knobs, are taken until\n"
    "  the next release, with a note)\n"
    "\n"
    "Results with the same seed and settings are bitwise identical whatever the thread count,\n"
    "and, under mpirun -np R or srun, whatever the number of ranks (rank 0 writes them).\n";

/* "(default: srk2, or euler when ...)": the defaults sdk_default_scheme
 * picks from the schemes' rows */
static void help_default_scheme(sdk_strbuf *b) {
  const char *add = sdk_default_scheme(0, SDK_CALCULUS_ITO, 0)->name;
  const char *ito = sdk_default_scheme(1, SDK_CALCULUS_ITO, 0)->name;
  const char *sys = sdk_default_scheme(0, SDK_CALCULUS_ITO, 1)->name;
  if (!strcmp(ito, sys))
    sdk_sb_printf(b,
                  "(default: %s, or %s when the noise is multiplicative in\n"
                  "                            the Ito sense or for systems of particles)\n",
                  add, ito);
  else
    sdk_sb_printf(b,
                  "(default: %s, or %s when the noise is multiplicative in\n"
                  "                            the Ito sense, %s for systems of particles)\n",
                  add, ito, sys);
}

/* the text of placeholder `at` ("@NAME@...") from the registry's rows;
 * returns its length, 0 when it is none */
static size_t help_part(sdk_strbuf *b, const char *at) {
  char names[256];
  if (!strncmp(at, "@SCHEMES@", 9)) {
    for (int i = 0; sdk_registry_schemes[i]; i++)
      sdk_sb_printf(b, "%28s%-9s %s\n", "", sdk_registry_schemes[i]->name,
                    sdk_registry_schemes[i]->description);
    return 9;
  }
  if (!strncmp(at, "@NOISES@", 8)) {
    for (int i = 0; sdk_registry_noises[i]; i++)
      sdk_sb_printf(b, "%28s%-11s %s\n", "", sdk_registry_noises[i]->name,
                    sdk_registry_noises[i]->description);
    return 8;
  }
  if (!strncmp(at, "@OBSERVABLES@", 13)) {
    for (int i = 0; sdk_registry_observables[i]; i++)
      if (!(sdk_registry_observables[i]->flags & SDK_OBS_BY_OPTION))
        sdk_sb_printf(b, "%28s%-9s %s\n", "", sdk_registry_observables[i]->name,
                      sdk_registry_observables[i]->description);
    return 13;
  }
  if (!strncmp(at, "@BACKENDS@", 10)) {
    sdk_sb_printf(b, "%s (default %s)",
                  sdk_registry_backend_names(names, sizeof names, NULL, "auto", " | ", " | "),
                  sdk_registry_backends[0]->name);
    return 10;
  }
  if (!strncmp(at, "@SYSTEMS@", 9)) {
    sdk_sb_puts(
        b, sdk_registry_scheme_list(names, sizeof names, sdk_scheme_takes_systems, ", ", " or "));
    return 9;
  }
  if (!strncmp(at, "@DEFAULT_SCHEME@", 16)) {
    help_default_scheme(b);
    return 16;
  }
  return 0;
}

SDEKIT_API char *sdekit_config_help(void) {
  SDK_C_NUMERIC();
  sdk_strbuf b;
  sdk_sb_init(&b);
  const char *s = RUN_HELP;
  for (const char *at; (at = strchr(s, '@'));) {
    sdk_sb_putn(&b, s, (size_t)(at - s));
    size_t n = help_part(&b, at);
    if (!n) sdk_sb_puts(&b, "@");
    s = at + (n ? n : 1);
  }
  sdk_sb_puts(&b, s);
  if (b.oom) {
    sdk_sb_free(&b);
    return NULL;
  }
  return b.s;
}
