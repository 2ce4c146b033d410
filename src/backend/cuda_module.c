/* CUDA backend, compilation: generated CUDA C++ compiled at run time by
 * NVRTC to a cubin for the device's own architecture, cached by a hash of
 * source, options, architecture and NVRTC version (backend/cache.h has the
 * rules), loaded through the driver API with its symbols checked; resources
 * (registers, stack, spills) read from the cubin for the compile report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"
#include "codegen/codegen.h"
#include "codegen/identity.h"
#include "core/strbuf.h"

/* From ptxas's verbose log (--ptxas-options=-v): the spill line of function
 * `fn`, as "S bytes spill stores, L bytes spill loads" (empty if absent). */
static void ptxas_spills(const char *log, const char *fn, char *out, size_t n) {
  out[0] = 0;
  if (!log) return;
  char key[128];
  snprintf(key, sizeof key, "Function properties for %s\n", fn);
  const char *p = strstr(log, key);
  if (!p) return;
  p += strlen(key);
  /* "ptxas         .     32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" */
  const char *eol = strchr(p, '\n');
  const char *q = strstr(p, "bytes stack frame");
  if (!q || (eol && q > eol)) return;
  while (q > p && q[-1] == ' ')
    q--;
  while (q > p && q[-1] >= '0' && q[-1] <= '9')
    q--;
  int stack, sst, sld;
  if (sscanf(q, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &stack, &sst,
             &sld) == 3)
    snprintf(out, n, "%d bytes spill stores, %d bytes spill loads", sst, sld);
}

/* Registers and stack frame of function `fn`, read from the cubin itself
 * (ELF64: the symbol's index, then the EIATTR_REGCOUNT (0x2f) and
 * EIATTR_FRAME_SIZE (0x11) records of section .nv.info), so that the report
 * needs neither a driver nor the compiler's log.  Returns 0 if not found. */
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) {
  return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}
static int cubin_resources(const char *bin, size_t len, const char *fn, int *regs, int *frame) {
  const unsigned char *d = (const unsigned char *)bin;
  *regs = *frame = -1;
  if (len < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2) return 0;
  uint64_t shoff = rd64(d + 0x28);
  unsigned shentsize = d[0x3a] | d[0x3b] << 8, shnum = d[0x3c] | d[0x3d] << 8,
           shstrndx = d[0x3e] | d[0x3f] << 8;
  if (shentsize < 64 || shstrndx >= shnum || shoff > len ||
      (uint64_t)shnum * shentsize > len - shoff)
    return 0;
#define SH(i) (d + shoff + (uint64_t)(i)*shentsize)
  uint64_t stroff = rd64(SH(shstrndx) + 24), strsize = rd64(SH(shstrndx) + 32);
  if (stroff > len || strsize > len - stroff) return 0;
  const unsigned char *sym = NULL, *names = NULL, *info = NULL;
  uint64_t nsym = 0, namesz = 0, infosz = 0;
  for (unsigned i = 0; i < shnum; i++) {
    const unsigned char *h = SH(i);
    uint32_t name = rd32(h), type = rd32(h + 4);
    uint64_t off = rd64(h + 24), size = rd64(h + 32);
    if (off > len || size > len - off) continue;
    if (type == 2 /* SHT_SYMTAB */) {
      uint32_t link = rd32(h + 40);
      if (link >= shnum) continue;
      uint64_t lo = rd64(SH(link) + 24), ls = rd64(SH(link) + 32);
      if (lo > len || ls > len - lo) continue;
      sym = d + off, nsym = size / 24, names = d + lo, namesz = ls;
    } else if (name < strsize && strsize - name >= 9 && !memcmp(d + stroff + name, ".nv.info", 9)) {
      info = d + off, infosz = size;
    }
  }
#undef SH
  if (!sym || !info) return 0;
  size_t fl = strlen(fn);
  uint32_t idx = 0;
  for (uint64_t i = 1; i < nsym && !idx; i++) {
    uint32_t nm = rd32(sym + 24 * i);
    if (nm < namesz && namesz - nm > fl && !memcmp(names + nm, fn, fl + 1)) idx = (uint32_t)i;
  }
  if (!idx) return 0;
  for (uint64_t p = 0; p + 4 <= infosz;) {
    unsigned fmt = info[p], attr = info[p + 1];
    if (fmt == 3) { /* 16-bit value */
      p += 4;
    } else if (fmt == 4) { /* sized value */
      unsigned sz = info[p + 2] | info[p + 3] << 8;
      if (p + 4 + sz > infosz) break;
      if (sz == 8 && rd32(info + p + 4) == idx) {
        if (attr == 0x2f) *regs = (int)rd32(info + p + 8);
        if (attr == 0x11) *frame = (int)rd32(info + p + 8);
      }
      p += 4 + sz;
    } else {
      break; /* unknown record format: stop rather than guess */
    }
  }
  return *regs >= 0;
}

/* "sdk_advance: 31 registers/thread, 0 bytes stack frame, 0 bytes spill stores, ..." */
static void resource_line(const char *bin, size_t len, const char *spills, char *out, size_t n) {
  int regs, frame;
  out[0] = 0;
  const char *fn = "sdk_advance";
  if (!cubin_resources(bin, len, fn, &regs, &frame) &&
      !cubin_resources(bin, len, fn = "sdk_sys_step", &regs, &frame))
    return;
  int k = snprintf(out, n, "%s: %d registers/thread, %d bytes stack frame%s%s", fn, regs,
                   frame < 0 ? 0 : frame, spills && *spills ? ", " : "", spills ? spills : "");
  int r2, f2; /* the persistent system kernel, where there is one */
  if (k > 0 && (size_t)k < n && cubin_resources(bin, len, "sdk_sys_run", &r2, &f2))
    snprintf(out + k, n - (size_t)k, "; sdk_sys_run: %d registers/thread, %d bytes stack frame", r2,
             f2 < 0 ? 0 : f2);
}

/* "sdekit: NVRTC 12.4 (libnvrtc.so.12): OPTIONS SOURCE" (--verbose) */
static void log_nvrtc(const sdk_logger *lg, const char *const *opts, int nopts,
                      const char *src_path) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_printf(&b, "sdekit: NVRTC %d.%d (%s):", sdk_nv.major, sdk_nv.minor, sdk_nv.path);
  for (int i = 0; i < nopts; i++)
    sdk_sb_printf(&b, " %s", opts[i]);
  sdk_sb_printf(&b, " %s\n", src_path);
  if (!b.oom) sdk_log(lg, SDK_LOG_DEBUG, "%s", b.s);
  sdk_sb_free(&b);
}

sdk_err sdk_cuda_nvrtc(sdk_bctx *c, const char *src, const char *model_path,
                       const char *const *opts, int nopts, const char *src_path, char **cubin,
                       size_t *cubin_len, char **log_out, sdk_errbuf *eb) {
  nvrtcProgram prog = NULL;
  nvrtcResult r = sdk_nv.CreateProgram(&prog, src, "sdekit_kernel.cu", 0, NULL, NULL);
  if (r != 0)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: nvrtcCreateProgram failed: %s",
                    sdk_nv.GetErrorString(r));
  if (sdk_log_on(c->o.logger, SDK_LOG_DEBUG)) log_nvrtc(c->o.logger, opts, nopts, src_path);
  nvrtcResult rc = sdk_nv.CompileProgram(prog, nopts, opts);
  size_t loglen = 0;
  char *log = NULL;
  if (sdk_nv.GetProgramLogSize(prog, &loglen) == 0 && loglen > 0 && (log = malloc(loglen + 1))) {
    if (sdk_nv.GetProgramLog(prog, log) != 0) log[0] = 0;
    log[loglen] = 0;
  }
  sdk_err err = SDK_OK;
  if (rc != 0) {
    static const char *const marks[] = {": error", ": catastrophic error", NULL};
    int named;
    err = sdk_cache_compile_error(log, marks, model_path, NULL, src_path, "NVRTC", &named, eb);
    goto out;
  }
  size_t n = 0;
  if ((r = sdk_nv.GetCUBINSize(prog, &n)) != 0 || n == 0) {
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: nvrtcGetCUBINSize failed: %s",
                   r ? sdk_nv.GetErrorString(r) : "empty cubin");
    goto out;
  }
  char *bin = malloc(n);
  if (!bin) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  if ((r = sdk_nv.GetCUBIN(prog, bin)) != 0) {
    free(bin);
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: nvrtcGetCUBIN failed: %s", sdk_nv.GetErrorString(r));
    goto out;
  }
  *cubin = bin;
  *cubin_len = n;
  *log_out = log;
  log = NULL;
out:
  free(log);
  sdk_nv.DestroyProgram(&prog);
  return err;
}

void sdk_cuda_module_free(sdk_module **mp) {
  if (!mp || !*mp) return;
  sdk_module *m = *mp;
  *mp = NULL;
  if (m->shelf && m->shelf->put(m->shelf->user, m->key, m, sdk_cuda_module_free)) return;
  /* (a session frees its modules on any thread: the module's context current) */
  if (m->mod && (!m->cx || sdk_cu.CtxSetCurrent(m->cx) == CUDA_SUCCESS))
    sdk_cu.ModuleUnload(m->mod);
  if (m->retained) sdk_cu.DevicePrimaryCtxRelease(m->dev);
  free(m);
}

/* The kernels of a module: sdk_advance or, in a module of systems of
 * particles, sdk_sys_step (with sdk_sys_info and, for mean-field models on a
 * device with cooperative launches, the persistent sdk_sys_run), the
 * reductions; sdk_red_hist_mod where present. */
static sdk_err module_functions(sdk_bctx *c, sdk_module *m, const char *path, sdk_errbuf *eb) {
  CUresult r;
  struct {
    CUfunction *f;
    const char *name;
  } fns[] = {{&m->init, "sdk_init"},
             {&m->advance, "sdk_advance"},
             {&m->red_units, "sdk_red_units"},
             {&m->red_nonfinite, "sdk_red_nonfinite"},
             {&m->red_minmax, "sdk_red_minmax"},
             {&m->red_hist, "sdk_red_hist"}};
  /* a module of systems of particles has sdk_sys_step instead of sdk_advance */
  if (sdk_cu.ModuleGetFunction(&m->sys_step, m->mod, "sdk_sys_step") != CUDA_SUCCESS)
    m->sys_step = NULL;
  if (!m->sys_step ||
      sdk_cu.ModuleGetFunction(&m->sys_sums, m->mod, "sdk_sys_sums") != CUDA_SUCCESS)
    m->sys_sums = NULL;
  if (!m->sys_step ||
      sdk_cu.ModuleGetFunction(&m->sys_half, m->mod, "sdk_sys_half") != CUDA_SUCCESS ||
      sdk_cu.ModuleGetFunction(&m->sys_edge, m->mod, "sdk_sys_edge") != CUDA_SUCCESS ||
      sdk_cu.ModuleGetFunction(&m->sys_step_half, m->mod, "sdk_sys_step_half") != CUDA_SUCCESS)
    m->sys_half = m->sys_edge = m->sys_step_half = NULL;
  if (sdk_cu.ModuleGetFunction(&m->red_hist_mod, m->mod, "sdk_red_hist_mod") != CUDA_SUCCESS)
    m->red_hist_mod = NULL;
  if (sdk_cu.ModuleGetFunction(&m->red_zero, m->mod, "sdk_red_zero") != CUDA_SUCCESS)
    m->red_zero = NULL;
  if (sdk_cu.ModuleGetFunction(&m->observe, m->mod, "sdk_observe") != CUDA_SUCCESS)
    m->observe = NULL;
  if (sdk_cu.ModuleGetFunction(&m->observe_units, m->mod, "sdk_observe_units") != CUDA_SUCCESS)
    m->observe_units = NULL;
  if (sdk_cu.ModuleGetFunction(&m->live, m->mod, "sdk_live_list") != CUDA_SUCCESS) m->live = NULL;
  if (m->sys_step) {
    CUdeviceptr ip = 0;
    size_t in = 0;
    if ((r = sdk_cu.ModuleGetGlobal(&ip, &in, m->mod, "sdk_sys_info")) != CUDA_SUCCESS ||
        in != sizeof m->sys_info || (r = sdk_cu.MemcpyDtoH(m->sys_info, ip, in)) != CUDA_SUCCESS)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' is not an sdekit kernel module (no sdk_sys_info)",
                      path);
  }
  /* the persistent system kernel (mean-field modules): its dynamic shared
   * memory may grow to the device's opt-in limit */
  if (m->sys_step && m->sys_info[7] && c->coop) {
    int stat = 0;
    if (sdk_cu.ModuleGetFunction(&m->sys_run, m->mod, "sdk_sys_run") != CUDA_SUCCESS ||
        sdk_cu.FuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, m->sys_run) !=
            CUDA_SUCCESS ||
        c->smem_optin <= stat ||
        sdk_cu.FuncSetAttribute(m->sys_run, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                c->smem_optin - stat) != CUDA_SUCCESS)
      m->sys_run = NULL;
    else
      m->sys_run_smem = c->smem_optin - stat;
  }
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!(m->sys_step && fns[i].f == &m->advance) &&
        (r = sdk_cu.ModuleGetFunction(fns[i].f, m->mod, fns[i].name)) != CUDA_SUCCESS)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' is not an sdekit kernel module (no %s)", path,
                      fns[i].name);
  return SDK_OK;
}

/* The module's constants: its kernel ABI (must match this build where it is
 * exported), the rows of its state (compensated update) and the paths per
 * thread of sdk_advance. */
static sdk_err module_globals(sdk_module *m, const char *path, sdk_errbuf *eb) {
  CUdeviceptr abi_p = 0;
  size_t abi_n = 0;
  int abi = -1;
  if (sdk_cu.ModuleGetGlobal(&abi_p, &abi_n, m->mod, "sdk_abi") == CUDA_SUCCESS &&
      abi_n == sizeof abi && sdk_cu.MemcpyDtoH(&abi, abi_p, sizeof abi) == CUDA_SUCCESS &&
      abi != SDK_KERNEL_ABI)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' has kernel ABI %d, this sdekit needs %d", path, abi,
                    SDK_KERNEL_ABI);
  /* more rows than the variables (compensated update, boundaries, time
   * averages): the module's state has sdk_state_rows rows (codegen.h) */
  CUdeviceptr rows_p = 0;
  size_t rows_n = 0;
  int rows = 0;
  m->comp = 0;
  if (sdk_cu.ModuleGetGlobal(&rows_p, &rows_n, m->mod, "sdk_state_rows") == CUDA_SUCCESS) {
    if (rows_n != sizeof rows || sdk_cu.MemcpyDtoH(&rows, rows_p, sizeof rows) != CUDA_SUCCESS ||
        rows < 2)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' has an unreadable sdk_state_rows", path);
    m->comp = rows;
  }
  /* the delays' rings as quads (abi.h, sdk_quad_at): only cuda_rows reads
   * them apart from the module */
  CUdeviceptr q_p = 0;
  size_t q_n = 0;
  m->quads[0] = m->quads[1] = 0;
  if (sdk_cu.ModuleGetGlobal(&q_p, &q_n, m->mod, "sdk_ring_quads") == CUDA_SUCCESS &&
      (q_n != sizeof m->quads ||
       sdk_cu.MemcpyDtoH(m->quads, q_p, sizeof m->quads) != CUDA_SUCCESS || m->quads[0] < 1 ||
       m->quads[1] <= m->quads[0] || (m->quads[1] - m->quads[0]) % 4 != 0 || m->quads[1] > m->comp))
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' has an unreadable sdk_ring_quads", path);
  return SDK_OK;
}

/* Time-only values of periodic models: fill the per-phase table once. */
static sdk_err module_fill_ttab(sdk_module *m, sdk_errbuf *eb) {
  CUfunction fill;
  CUdeviceptr tab = 0;
  size_t tab_n = 0;
  CUresult r;
  if (sdk_cu.ModuleGetFunction(&fill, m->mod, "sdk_ttab_fill") == CUDA_SUCCESS &&
      sdk_cu.ModuleGetGlobal(&tab, &tab_n, m->mod, "sdk_ttab") == CUDA_SUCCESS) {
    unsigned blocks = (unsigned)((tab_n / 4 + 255) / 256); /* >= one thread per phase */
    if ((r = sdk_cu.LaunchKernel(fill, blocks, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL)) !=
            CUDA_SUCCESS ||
        (r = sdk_cu.CtxSynchronize()) != CUDA_SUCCESS)
      return sdk_cu_fail(eb, "sdk_ttab_fill", r);
  }
  return SDK_OK;
}

/* Load a cubin on the device and check it is an sdekit module of this
 * build; res (optional) gets sdk_advance's registers from the driver. */
static sdk_err load_module(sdk_bctx *c, const char *cubin, const char *path, sdk_module **out,
                           char *res, size_t nres, sdk_errbuf *eb) {
  CU(eb, CtxSetCurrent(c->cx));
  sdk_module *m = calloc(1, sizeof *m);
  if (!m) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  m->cx = c->cx;
  CUresult r = sdk_cu.ModuleLoadData(&m->mod, cubin);
  sdk_err err = SDK_OK;
  if (r != CUDA_SUCCESS) {
    free(m);
    return sdk_cu_fail(eb, "cuModuleLoadData", r);
  }
  SDK_TRY(err, module_functions(c, m, path, eb), bad);
  SDK_TRY(err, module_globals(m, path, eb), bad);
  SDK_TRY(err, module_fill_ttab(m, eb), bad);
  int regs = 0, local = 0;
  if (res &&
      sdk_cu.FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, m->advance) == CUDA_SUCCESS &&
      sdk_cu.FuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, m->advance) ==
          CUDA_SUCCESS)
    snprintf(res, nres, "sdk_advance: %d registers/thread, %d bytes local memory/thread", regs,
             local);
  *out = m;
  return SDK_OK;
bad:
  sdk_cuda_module_free(&m);
  return err;
}

/* One module in the cache: cuda-HASH.cubin, its source cuda-HASH.cu and its
 * record cuda-HASH.txt.  The record names the cubin it describes (key, size,
 * hash of its bytes): a cubin planted, truncated or left by another build is
 * rebuilt. */
typedef struct cache_entry {
  const sdk_cache_dir *d; /* the opened cache: every access goes through d->fd */
  char hash[33], modkey[96];
  char nbin[48], nsrc[48], ninfo[48];    /* names in the cache */
  char bin[4200], src[4200], info[4200]; /* the same as paths, for messages */
} cache_entry;

/* NVRTC's options for the backend's modules; returns their number. */
static int module_options(const sdk_bctx *c, char *archopt, size_t narch, const char **opts) {
  int nopts = 0;
  snprintf(archopt, narch, "--gpu-architecture=%s", c->arch);
  opts[nopts++] = archopt;
  opts[nopts++] = "-default-device";
  /* no fast math: no contraction either, like the CPU's -ffp-contract=off */
  opts[nopts++] = c->o.fast_math ? "--use_fast_math" : "--fmad=false";
  opts[nopts++] = "-lineinfo";
  opts[nopts++] = "--ptxas-options=-v";
  return nopts;
}

/* The entry of this source: a hash of the build, NVRTC, the architecture,
 * the options and the source's identity (the hash of the normalised source:
 * comments, blanks and #line aside, codegen/identity.h). */
static sdk_err cache_entry_for(sdk_bctx *c, const char *ident, const char *const *opts, int nopts,
                               cache_entry *ce, sdk_errbuf *eb) {
  sdk_strbuf key;
  sdk_sb_init(&key);
  sdk_sb_printf(&key, "sdekit %s abi %d\nnvrtc %d.%d\n%s\n", SDK_VERSION, SDK_KERNEL_ABI,
                sdk_nv.major, sdk_nv.minor, c->arch);
  for (int i = 0; i < nopts; i++)
    sdk_sb_printf(&key, "%s\n", opts[i]);
  sdk_sb_printf(&key, "source %s\n", ident); /* the kernel's identity (codegen/identity.h) */
  if (key.oom) {
    sdk_sb_free(&key);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  sdk_hash_hex(key.s, key.len, ce->hash);
  sdk_sb_free(&key);
  snprintf(ce->nbin, sizeof ce->nbin, "cuda-%s.cubin", ce->hash);
  snprintf(ce->nsrc, sizeof ce->nsrc, "cuda-%s.cu", ce->hash);
  snprintf(ce->ninfo, sizeof ce->ninfo, "cuda-%s.txt", ce->hash);
  snprintf(ce->modkey, sizeof ce->modkey, "sdekit-module/1 cuda %s", ce->hash);
  return SDK_OK;
}

/* The cache directory of the entry, opened (and checked: docs/SECURITY.md)
 * only when the module is not kept by the session: a run that finds its
 * module on the shelf touches no file. */
static sdk_err cache_entry_open(sdk_bctx *c, cache_entry *ce, sdk_errbuf *eb) {
  SDK_CHECK(sdk_cache_place_dir(&c->cache, &ce->d, eb));
  snprintf(ce->bin, sizeof ce->bin, "%s/%s", ce->d->path, ce->nbin);
  snprintf(ce->src, sizeof ce->src, "%s/%s", ce->d->path, ce->nsrc);
  snprintf(ce->info, sizeof ce->info, "%s/%s", ce->d->path, ce->ninfo);
  return SDK_OK;
}

/* The cached cubin when its record matches it: 1 with *cubin, *len and *info
 * (ptxas's spill counts, kept after the record) set; else 0, with why the
 * files were refused (empty when there were none). */
static int cache_lookup(const cache_entry *ce, char **cubin, size_t *len, char **info, char *why,
                        size_t nwhy) {
  char *meta = sdk_cache_read(ce->d->fd, ce->ninfo, NULL);
  int cached = 0;
  *cubin = *info = NULL;
  *len = 0;
  if (meta) {
    size_t klen = strlen(ce->modkey);
    unsigned long long want_len = 0;
    char want_sum[33] = "", sum[33];
    int pos = 0;
    if (!strncmp(meta, ce->modkey, klen) &&
        sscanf(meta + klen, " size=%llu sum=%32[0-9a-f]%n", &want_len, want_sum, &pos) == 2 &&
        meta[klen + pos] == '\n') {
      *cubin = sdk_cache_read(ce->d->fd, ce->nbin, len);
      if (*cubin && *len == want_len && *len >= 4 && !memcmp(*cubin, "\177ELF", 4)) {
        sdk_hash_hex(*cubin, *len, sum);
        cached = !strcmp(sum, want_sum);
      }
      if (!cached)
        snprintf(why, nwhy, "%s",
                 *cubin ? "its size or contents do not match its record"
                        : (errno == ELOOP ? "a symbolic link" : strerror(errno)));
    } else {
      snprintf(why, nwhy, "its record is not for this source and build");
    }
    if (cached) *info = sdk_strdup(meta + klen + pos + 1);
  } else if (errno != ENOENT) {
    snprintf(why, nwhy, "record: %s", errno == ELOOP ? "a symbolic link" : strerror(errno));
  }
  free(meta);
  if (!cached) {
    free(*cubin);
    *cubin = NULL;
    *len = 0;
  }
  return cached;
}

static int stop_asked(const sdk_bctx *c) {
  return c->o.cancel && c->o.cancel(c->o.cancel_user);
}

/* Compile with NVRTC and install the cubin and its record in the cache
 * (source first, for the user to read when NVRTC fails). */
static sdk_err cache_build(sdk_bctx *c, const cache_entry *ce, const char *src,
                           const char *model_path, const char *const *opts, int nopts, char **cubin,
                           size_t *len, char **info, sdk_errbuf *eb) {
  /* NVRTC cannot be stopped inside its call: a stop request is looked at
   * before it and after (backend.h, cancel) */
  if (stop_asked(c)) return SDK_FAIL(eb, SDK_ERR_INTERRUPTED, "interrupted before NVRTC");
  if (sdk_cache_write(ce->d->fd, ce->nsrc, src, strlen(src)) != 0)
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", ce->src, strerror(errno));
  char *log = NULL;
  sdk_err e = sdk_cuda_nvrtc(c, src, model_path, opts, nopts, ce->src, cubin, len, &log, eb);
  if (e == SDK_ERR_COMPILE) sdk_cache_place_keep_sources(&c->cache); /* the message names it */
  if (e != SDK_OK) return e;
  char spills[256];
  ptxas_spills(log, "sdk_advance", spills, sizeof spills);
  if (!spills[0]) ptxas_spills(log, "sdk_sys_step", spills, sizeof spills);
  if (log) sdk_log(c->o.logger, SDK_LOG_DEBUG, "%s", log);
  free(log);
  *info = sdk_strdup(spills);
  char sum[33];
  sdk_hash_hex(*cubin, *len, sum);
  sdk_strbuf rec;
  sdk_sb_init(&rec);
  /* ptxas's spill counts after the record, so that a cache hit can report them too */
  sdk_sb_printf(&rec, "%s size=%llu sum=%s\n%s", ce->modkey, (unsigned long long)*len, sum, spills);
  /* the cubin first: a reader that sees the new record sees its cubin */
  int bad = rec.oom || sdk_cache_write(ce->d->fd, ce->nbin, *cubin, *len) != 0 ||
            sdk_cache_write(ce->d->fd, ce->ninfo, rec.s, rec.len) != 0;
  int werr = errno;
  sdk_sb_free(&rec);
  if (bad) {
    free(*cubin);
    free(*info);
    *cubin = *info = NULL;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot install '%s': %s", ce->bin, strerror(werr));
  }
  sdk_cache_prune(ce->d->fd, c->o.cache_max ? c->o.cache_max : SDK_CACHE_MAX_DEFAULT, ce->hash);
  if (stop_asked(c)) { /* (the module stays cached for the next run) */
    free(*cubin);
    free(*info);
    *cubin = *info = NULL;
    return SDK_FAIL(eb, SDK_ERR_INTERRUPTED, "interrupted while NVRTC compiled the kernel");
  }
  return SDK_OK;
}

static sdk_err make_current(sdk_bctx *c, sdk_errbuf *eb) {
  CU(eb, CtxSetCurrent(c->cx));
  return SDK_OK;
}

sdk_err sdk_cuda_build_hash(sdk_bctx *c, const char *ident, char hash[33], sdk_errbuf *eb) {
  char archopt[64];
  const char *opts[8];
  int nopts = module_options(c, archopt, sizeof archopt, opts);
  cache_entry *ce = malloc(sizeof *ce);
  if (!ce) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = cache_entry_for(c, ident, opts, nopts, ce, eb);
  if (err == SDK_OK) memcpy(hash, ce->hash, 33);
  free(ce);
  return err;
}

sdk_err sdk_cuda_compile(sdk_bctx *c, const char *src, const char *ident, const char *model_path,
                         sdk_module **out, char *report, size_t nreport, sdk_errbuf *eb) {
  *out = NULL;
  char archopt[64];
  const char *opts[8];
  int nopts = module_options(c, archopt, sizeof archopt, opts);
  char idbuf[33]; /* (no identity given: tests) */
  if (!ident) SDK_CHECK(sdk_cg_identity(src, idbuf, eb));
  ident = ident ? ident : idbuf;
  cache_entry *ce = malloc(sizeof *ce);
  if (!ce) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = cache_entry_for(c, ident, opts, nopts, ce, eb);
  size_t len = 0;
  char *cubin = NULL, *info = NULL, why[300] = "", key[128];
  /* kept by the session from an earlier run on this device: nothing to load */
  snprintf(key, sizeof key, "%d/%s", c->o.device, err == SDK_OK ? ce->nbin : "");
  sdk_module *kept =
      err == SDK_OK && c->has_device && c->o.shelf ? c->o.shelf->take(c->o.shelf->user, key) : NULL;
  if (kept) {
    if (report) snprintf(report, nreport, "kept from an earlier run of this session: %s", ce->nbin);
    free(ce);
    *out = kept;
    return make_current(c, eb);
  }
  if (err == SDK_OK) err = cache_entry_open(c, ce, eb);
  int cached = err == SDK_OK && cache_lookup(ce, &cubin, &len, &info, why, sizeof why);
  if (cached)
    sdk_log(c->o.logger, SDK_LOG_DEBUG, "sdekit: cached %s\n", ce->bin);
  else if (err == SDK_OK)
    err = cache_build(c, ce, src, model_path, opts, nopts, &cubin, &len, &info, eb);
  if (err != SDK_OK) {
    free(ce);
    return err;
  }
  char res[512] = "", line[768];
  if (c->has_device) err = load_module(c, cubin, ce->bin, out, res, sizeof res, eb);
  CUcontext held;
  if (err == SDK_OK && *out && c->o.shelf &&
      sdk_cu.DevicePrimaryCtxRetain(&held, c->dev) == CUDA_SUCCESS) {
    (*out)->shelf = c->o.shelf;
    (*out)->retained = 1;
    (*out)->dev = c->dev;
    snprintf((*out)->key, sizeof(*out)->key, "%s", key);
  }
  resource_line(cubin, len, info, line, sizeof line);
  if (!line[0]) snprintf(line, sizeof line, "%s", res); /* from the driver */
  if (err == SDK_OK && report)
    snprintf(report, nreport, "%s %s (%s%s%s)%s%s%s",
             cached   ? "cached"
             : why[0] ? "rebuilt"
                      : "compiled",
             ce->bin, c->arch, line[0] ? "; " : "", line,
             why[0] ? " (the cached file was refused: " : "", why, why[0] ? ")" : "");
  free(cubin);
  free(info);
  free(ce);
  return err;
}
