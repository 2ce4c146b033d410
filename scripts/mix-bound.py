#!/usr/bin/env python3
"""The issue ceiling of an instruction mix, measured (docs/BENCHMARKS.md, issue 14).

The issue bound of a kernel (4 warp instructions per clock per SM, scripts/sass-loop.py)
assumes that any mix of instructions can issue one per clock on each scheduler.  This
writes a CUDA program whose kernels issue a given mix of instruction kinds, per loop
iteration, on independent chains (no dependence a scheduler must wait on beyond CHAINS
chains per thread), so that the fraction of issue slots a mix can fill on the machine
is measured rather than assumed:

    python3 scripts/mix-bound.py SPEC... > mix.cu
    nvcc -arch=sm_90 -O3 mix.cu -o mix && ./mix
    ncu --kernel-name NAME --launch-skip 1 --launch-count 1 \\
        --metrics smsp__issue_active.avg.pct_of_peak_sustained_active ./mix NAME

SPEC is NAME:ORDER:CHAINS:KIND=N,KIND=N,...  ORDER is `even` (each kind spread evenly
through the loop) or `burst` (the integer kinds first, then the floating point, as a
Philox block followed by the steps that use it).  The kinds and the SASS they become
on sm_90 (check with `cuobjdump -sass mix | scripts/sass-loop.py NAME 1`):

    ffma    FFMA             fmul   FMUL            fadd   FADD
    cos     FMUL.RZ + MUFU.COS (the fast-math cosf)
    imadw   IMAD.WIDE.U32 + LOP3 (one Philox multiply and its xor with a key)
    lop3uu  LOP3 with two uniform operands (+ a MOV of one of them)
    setsel  ISETP + FSEL (one threshold of the three-point conversion)
    uadd    UIADD3           uni    UIMAD           uxs    USHF + ULOP3
    ldg     LDG (a table entry at a uniform index, added to a chain)

The program times each kernel (CUDA events, median of 5, 2^22 threads in blocks of
256, like sdk_advance for PROG1) and prints warp-iterations per second; the issue
fraction comes from Nsight Compute (above).
"""
import sys

KINDS = ["imadw", "lop3uu", "setsel", "uni", "uadd", "uxs", "ldg", "ffma", "fmul", "fadd", "cos"]


def kernel(name, order, chains, counts):
    nxt = {"f": 0, "u": 0, "ua": 0}

    def chain(c):
        nxt[c] += 1
        return nxt[c] % chains

    def emit(kind, pos):
        if kind == "ffma":
            i = chain("f")
            return 'asm volatile("fma.rn.f32 %%0, %%0, %%1, %%2;" : "+f"(f[%d]) : "f"(ca), "f"(f[%d]));' % (
                i, (i + 3) % chains)
        if kind == "fmul":
            return 'asm volatile("mul.rn.f32 %%0, %%0, %%1;" : "+f"(f[%d]) : "f"(ca));' % chain("f")
        if kind == "fadd":
            return 'asm volatile("add.rn.f32 %%0, %%0, %%1;" : "+f"(f[%d]) : "f"(cb));' % chain("f")
        if kind == "cos":
            return 'asm volatile("cos.approx.ftz.f32 %%0, %%0;" : "+f"(f[%d]));' % chain("f")
        if kind == "imadw":
            i = chain("u")
            return ('{ unsigned long long w; asm volatile("mul.wide.u32 %%0, %%1, %%2;" : "=l"(w) : '
                    '"r"(u[%d]), "r"(0xD2511F53u)); asm volatile("lop3.b32 %%0, %%1, %%2, %%3, 0x96;" : '
                    '"=r"(u[%d]) : "r"((unsigned)w), "r"((unsigned)(w >> 32)), "r"(ku)); }' % (i, i))
        if kind == "lop3uu":
            return 'asm volatile("lop3.b32 %%0, %%0, %%1, %%2, 0x96;" : "+r"(u[%d]) : "r"(kw), "r"(ku));' % chain("u")
        if kind == "setsel":
            i, k = chain("u"), chain("f")
            return ('asm volatile("{ .reg .pred p; setp.lt.u32 p, %%1, 715827883; selp.f32 %%0, %%2, %%0, p; }" : '
                    '"+f"(f[%d]) : "r"(u[%d]), "f"(cb));' % (k, i))
        if kind == "uadd":  # two registers added in turn (Fibonacci): nothing to fold
            nxt["ua"] += 1
            a, b = ("ku", "kw") if nxt["ua"] % 2 else ("kw", "ku")
            return 'asm volatile("add.u32 %%0, %%0, %%1;" : "+r"(%s) : "r"(%s));' % (a, b)
        if kind == "uni":
            return 'asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(ku) : "r"(kp), "r"(kq));'
        if kind == "uxs":
            return 'asm volatile("{ .reg .b32 t; shr.u32 t, %0, 3; xor.b32 %0, %0, t; }" : "+r"(kw));'
        if kind == "ldg":
            return "f[%d] += tab[(it + %d) & 63];" % (chain("f"), pos % 7)
        raise AssertionError(kind)

    kinds = [k for k in KINDS if counts.get(k)]
    total = sum(counts[k] for k in kinds)
    seq = []
    if order == "even":  # largest remainder: kind k at about every total/counts[k]-th place
        placed = dict.fromkeys(kinds, 0)
        for n in range(total):
            k = max(kinds, key=lambda k: (counts[k] * (n + 1) / total - placed[k], counts[k]))
            placed[k] += 1
            seq.append(k)
    elif order == "burst":
        seq = [k for k in kinds for _ in range(counts[k])]
    else:
        sys.exit("mix-bound.py: order must be even or burst, not '%s'" % order)
    out = ['extern "C" __global__ void __launch_bounds__(256)',
           "%s(float *out, const float *__restrict__ tab, int iters, float ca, float cb, unsigned kp, unsigned kq) {"
           % name,
           "  const int t = blockIdx.x * blockDim.x + threadIdx.x;",
           "  float f[%d];" % chains, "  unsigned u[%d];" % chains,
           "#pragma unroll",
           "  for (int i = 0; i < %d; i++) f[i] = t * (i + 1.5f) * 1e-9f, u[i] = t * (2u * i + 3u) + 1u;" % chains,
           "  unsigned ku = kp, kw = kq;",
           "  for (int it = 0; it < iters; it++) {"]
    out += ["    " + emit(k, n) for n, k in enumerate(seq)]
    out += ["  }", "  float s = 0;", "  unsigned v = ku ^ kw;",
            "#pragma unroll",
            "  for (int i = 0; i < %d; i++) s += f[i], v ^= u[i];" % chains,
            "  if (s == 1.2345f || v == 0x12345u) out[t] = s + (float)v; /* keeps every chain live */",
            "}", ""]
    return "\n".join(out)


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    names, src = [], ["// generated by scripts/mix-bound.py " + " ".join(sys.argv[1:]),
                      "#include <algorithm>", "#include <cstdio>", "#include <cstring>", "#include <vector>", ""]
    for spec in sys.argv[1:]:
        try:
            name, order, chains, mix = spec.split(":")
            counts = {k: int(v) for k, v in (kv.split("=") for kv in mix.split(","))}
            chains = int(chains)
        except ValueError:
            sys.exit("mix-bound.py: bad SPEC '%s' (NAME:ORDER:CHAINS:KIND=N,...)" % spec)
        for k in counts:
            if k not in KINDS:
                sys.exit("mix-bound.py: unknown kind '%s' in '%s'" % (k, spec))
        if not name.isidentifier() or not 1 <= chains <= 64:
            sys.exit("mix-bound.py: bad name or chain count in '%s'" % spec)
        names.append(name)
        src.append(kernel(name, order, chains, counts))
    src.append("""typedef void (*kfn)(float *, const float *, int, float, float, unsigned, unsigned);
int main(int argc, char **argv) {
  struct { const char *name; kfn f; } ks[] = {%s};
  const int blocks = 16384, iters = 200, reps = argc > 1 ? 1 : 5;
  float *out, *tab;
  cudaMalloc(&out, sizeof(float) * blocks * 256);
  cudaMalloc(&tab, 64 * sizeof(float));
  cudaMemset(tab, 0, 64 * sizeof(float));
  for (auto &k : ks) {
    if (argc > 1 && strcmp(argv[1], k.name)) continue;
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    k.f<<<blocks, 256>>>(out, tab, 10, 0.999f, 1e-3f, 2654435761u, 12345u); /* warm-up */
    std::vector<float> ms;
    for (int r = 0; r < reps; r++) {
      float t;
      cudaEventRecord(a);
      k.f<<<blocks, 256>>>(out, tab, iters, 0.999f, 1e-3f, 2654435761u, 12345u);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      cudaEventElapsedTime(&t, a, b);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    cudaError_t e = cudaGetLastError();
    printf("%%-12s %%8.3f ms  %%.4e warp-iterations/s  %%s\\n", k.name, ms[reps / 2],
           (double)blocks * 8 * iters / (ms[reps / 2] * 1e-3), e == cudaSuccess ? "ok" : cudaGetErrorString(e));
  }
  return 0;
}
""" % ", ".join('{"%s", %s}' % (n, n) for n in names))
    sys.stdout.write("\n".join(src))


main()
