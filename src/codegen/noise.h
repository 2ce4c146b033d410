/* sdekit: noise sources.
 *
 * A noise source turns the random bits of the counter-based stream of
 * rng/philox.h into the values a step consumes (sdk_z<j> in the step code,
 * one per noise channel and step).  Every driver (CPU and GPU, independent
 * paths and systems of particles) draws its noise through this one
 * interface, and the code it emits only calls functions of rng/philox.h,
 * which is embedded into every kernel: no random-number arithmetic is
 * written anywhere else.
 *
 * Where the values of a step lie in the stream is the drivers' part and the
 * same for every source (rng/philox.h, "Stream definition"): value k of a
 * path (k = n * SDK_NN + j for channel j of step n) is lane k & 3 of Philox
 * block k >> 2, so a source gives values_per_block = 4 values per block.
 *
 * A source is one row: its name, description, the values of one block, and
 * one emitting function, emit, which every driver calls (through the
 * sdk_noise_* wrappers below) for the shape of draw it needs:
 *   SDK_DRAW_BLOCK  the values of a block by its stream position (the
 *                   source calls rng/philox.h for the whole block);
 *   SDK_DRAW_HALF   values 2 half and 2 half + 1 of such a block, bit for
 *                   bit those of the whole block (sources with halves: a
 *                   launch starting or ending inside a block draws half);
 *   SDK_DRAW_WORDS  the values of the four Philox words of a block that the
 *                   driver computed itself (sdk_philox_counter and
 *                   sdk_philox_blocks: the GPU system kernels);
 *   SDK_DRAW_LANE   one value of such words, by a lane computed at run time;
 *   SDK_DRAW_DEFS   definitions the draws rely on, once per module.
 * A source states its arithmetic (words -> values) once, in one helper that
 * each shape calls; the words of a block by position come from
 * sdk_noise_fetch (noise.c), the same for every source.
 *
 * Sources today: gaussian (Box-Muller, noise_gauss.c), the default of every
 * scheme, and three-point (noise_threepoint.c), which --noise puts in its
 * place for weak schemes (sdk_codegen_opts.noise).  A new one is one file
 * defining its sdk_noise_type sdk_noise_NAME and one line of the registry
 * (sim/registry.c); a scheme names the source its steps need (declaring it
 * extern where it is not declared below).
 */
#ifndef SDK_CODEGEN_NOISE_H
#define SDK_CODEGEN_NOISE_H

#include <stddef.h>

#include "codegen/emit.h"

typedef enum {
  SDK_DRAW_BLOCK,
  SDK_DRAW_HALF,
  SDK_DRAW_WORDS,
  SDK_DRAW_LANE,
  SDK_DRAW_DEFS,
} sdk_draw_shape;

/* One draw; the strings are C expressions or lvalues of the generated code. */
typedef struct sdk_noise_draw {
  sdk_draw_shape shape;
  /* BLOCK, HALF: the stream block (rng/philox.h) */
  const char *seed, *path, *block;
  /* BLOCK, HALF: when set, an sdk_philox_keys lvalue holding seed's key
   * schedule (rng/philox.h), drawn from in seed's place: the same values */
  const char *keys;
  int domain;
  const char *half; /* HALF: 0 or 1 */
  /* BLOCK: an array of real of values_per_block; HALF: an array of two;
   * LANE: a real lvalue */
  const char *dst;
  const char *const *w;    /* WORDS, LANE: the four words (sdk_u32 lvalues) */
  const char *const *dsts; /* WORDS: value k into dsts[k] (real lvalues) */
  const char *lane;        /* LANE: 0..3 */
  int words;               /* DEFS: WORDS or LANE draws will be made */
} sdk_noise_draw;

typedef struct sdk_noise_type {
  const char *name;
  const char *description;
  int values_per_block; /* values of one Philox block (4 words) */
  int halves;           /* 1: it draws SDK_DRAW_HALF (values 0, 1 and 2, 3 independent) */
  /* 1: values of a continuous law (Gaussian), so that an increment spanning
   * many float spacings rounds by uniform noise (codegen/comp_vars.c); 0:
   * values on a lattice (three-point), whose rounding is not random */
  int continuous;
  void (*emit)(sdk_emit *em, const sdk_noise_draw *d);
} sdk_noise_type;

/* "sdk_u32 VAR[4];" and the Philox words of the draw's block into it. */
void sdk_noise_fetch(sdk_emit *em, const sdk_noise_draw *d, const char *var);

/* The drivers' calls, one per shape: a block by its stream position
 * (half: NULL for the whole block, else which half, SDK_DRAW_HALF) ... */
static inline void sdk_noise_at(sdk_emit *em, const sdk_noise_type *nz, const char *seed,
                                const char *path, const char *block, int domain, const char *half,
                                const char *dst) {
  sdk_noise_draw d = {.shape = half ? SDK_DRAW_HALF : SDK_DRAW_BLOCK,
                      .seed = seed,
                      .path = path,
                      .block = block,
                      .domain = domain,
                      .half = half,
                      .dst = dst};
  nz->emit(em, &d);
}
static inline void sdk_noise_block(sdk_emit *em, const sdk_noise_type *nz, const char *seed,
                                   const char *path, const char *block, int domain,
                                   const char *dst) {
  sdk_noise_at(em, nz, seed, path, block, domain, NULL, dst);
}
/* ... a whole block under a key schedule (keys, see sdk_noise_draw) ... */
static inline void sdk_noise_block_k(sdk_emit *em, const sdk_noise_type *nz, const char *keys,
                                     const char *path, const char *block, int domain,
                                     const char *dst) {
  sdk_noise_draw d = {.shape = SDK_DRAW_BLOCK,
                      .keys = keys,
                      .path = path,
                      .block = block,
                      .domain = domain,
                      .dst = dst};
  nz->emit(em, &d);
}
/* ... words a driver computed, one lane of them, the definitions */
static inline void sdk_noise_words(sdk_emit *em, const sdk_noise_type *nz, const char *const w[4],
                                   const char *const dst[4]) {
  sdk_noise_draw d = {.shape = SDK_DRAW_WORDS, .w = w, .dsts = dst};
  nz->emit(em, &d);
}
static inline void sdk_noise_lane(sdk_emit *em, const sdk_noise_type *nz, const char *const w[4],
                                  const char *lane, const char *dst) {
  sdk_noise_draw d = {.shape = SDK_DRAW_LANE, .w = w, .lane = lane, .dst = dst};
  nz->emit(em, &d);
}
static inline void sdk_noise_defs(sdk_emit *em, const sdk_noise_type *nz, int words) {
  sdk_noise_draw d = {.shape = SDK_DRAW_DEFS, .words = words};
  nz->emit(em, &d);
}

/* Standard Gaussian values (Box-Muller on the word pairs (0,1) and (2,3)). */
extern const sdk_noise_type sdk_noise_gaussian;
/* Three-point values -sqrt(3), 0, sqrt(3) (noise_threepoint.c; --noise three-point). */
extern const sdk_noise_type sdk_noise_three_point;

#endif
