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
 * A driver either asks for the values of a block by its stream position
 * (emit_block: the source calls rng/philox.h for the whole block) or, when
 * it computes several blocks at once itself (sdk_philox_counter and
 * sdk_philox_blocks of rng/philox.h: the GPU system kernels), hands the
 * source the Philox words of a block (emit_words, emit_word_lane).
 *
 * Sources today: gaussian (Box-Muller, noise_gauss.c), the default of every
 * scheme, and three-point (noise_threepoint.c), which --noise puts in its
 * place for weak schemes (sdk_codegen_opts.noise).  A new one is one file
 * defining its
 * sdk_noise_type sdk_noise_NAME and one line of the registry
 * (sim/registry.c); a scheme names the source its steps need (declaring it
 * extern where it is not declared below).
 */
#ifndef SDK_CODEGEN_NOISE_H
#define SDK_CODEGEN_NOISE_H

#include "codegen/emit.h"

typedef struct sdk_noise_type {
  const char *name;
  const char *description;
  int values_per_block; /* values of one Philox block (4 words) */
  /* Definitions the emitters below rely on, once per module after the
   * prelude; words: emit_words / emit_word_lane will be used. */
  void (*emit_defs)(sdk_emit *em, int words);
  /* Statement filling dst[0 .. values_per_block) (an array of real) with the
   * values of the stream block (seed, path, block) of the given domain; seed,
   * path and block are C expressions. */
  void (*emit_block)(sdk_emit *em, const char *seed, const char *path, const char *block,
                     int domain, const char *dst);
  /* Statements turning the four Philox words w[0..3] of one block (sdk_u32
   * lvalues) into its values, value k into dst[k] (real lvalues). */
  void (*emit_words)(sdk_emit *em, const char *const w[4], const char *const dst[4]);
  /* The same for one value only, value `lane` (a C expression, 0..3). */
  void (*emit_word_lane)(sdk_emit *em, const char *const w[4], const char *lane, const char *dst);
  /* Optional, for sources whose values come in two independent halves
   * (values 0, 1 and 2, 3): statement filling dst[0], dst[1] with the values
   * 2 half, 2 half + 1 of the block -- bit for bit those emit_block gives --
   * where `half` is a C expression (0 or 1).  A driver that needs only one
   * half of a block (a launch starting or ending inside it) then draws half
   * the values. */
  void (*emit_block_half)(sdk_emit *em, const char *seed, const char *path, const char *block,
                          int domain, const char *half, const char *dst);
} sdk_noise_type;

/* Standard Gaussian values (Box-Muller on the word pairs (0,1) and (2,3)). */
extern const sdk_noise_type sdk_noise_gaussian;
/* Three-point values -sqrt(3), 0, sqrt(3) (noise_threepoint.c; --noise three-point). */
extern const sdk_noise_type sdk_noise_three_point;

#endif
