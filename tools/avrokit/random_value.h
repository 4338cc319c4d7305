/* Seeded random Avro values of any schema, of ordinary sizes, valid for every logical type. */
#ifndef AVKCLI_RANDOM_VALUE_H
#define AVKCLI_RANDOM_VALUE_H

#include <stdint.h>

#include "avrokit/avrokit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* xoshiro256** state, seeded through splitmix64: the same seed gives the
 * same stream on every platform. */
typedef struct avkcli_rng {
    uint64_t s[4];
} avkcli_rng;

void avkcli_rng_seed(avkcli_rng *r, uint64_t seed);
uint64_t avkcli_rng_next(avkcli_rng *r);
/* Uniform in [0, 1), 53 random bits. */
double avkcli_rng_unit(avkcli_rng *r);

/* Nesting levels past which collections are empty and unions take their
 * simplest branch (so recursive types end), and the level at which a
 * value is refused (a type that can only contain itself has no finite
 * value). */
#define AVKCLI_RANDOM_SOFT_DEPTH 8
#define AVKCLI_RANDOM_MAX_DEPTH 100

/* Fills *out with a random value of type t, memory from arena; the value
 * encodes with avk_plan_encode for t. Deterministic: the same rng state and
 * type give the same value. Sizes are those of ordinary data: arrays and
 * maps 0-8 items (fewer when nested), strings 0-24 bytes of readable words
 * (valid UTF-8), bytes 0-24, ints and longs mostly small (varints of mixed
 * lengths), map keys distinct. Logical types get valid values: dates and
 * timestamps around 1970-2040, times within a day, UUID text (version 4),
 * decimals within their precision, durations of plausible parts.
 * Returns AVK_OK; AVK_ERR_LIMIT when the value would nest deeper than
 * AVKCLI_RANDOM_MAX_DEPTH (err->path says where); AVK_ERR_NO_MEMORY;
 * AVK_ERR_INVALID_ARGUMENT for NULL arguments. */
avk_status avkcli_random_value(const avk_type *t, avkcli_rng *rng, avk_arena *arena,
                               avk_value *out, avk_error *err);

#ifdef __cplusplus
}
#endif

#endif
