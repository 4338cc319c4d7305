/* Pieces shared by the decoder and the skipper: UTF-8 checks, nested skipping (the input checks are avrokit/check.h). */
#ifndef AVK_BINARY_DECODE_INTERNAL_H
#define AVK_BINARY_DECODE_INTERNAL_H

#include "avrokit/check.h"
#include "avrokit/macros.h"
#include "plan/plan_format.h"
#include "common/arena.h"
#include "common/value_path.h"

/* Skips one value of plain node `node` of plan (the decoder skips a
 * writer's field this way in a resolving record), starting at nesting
 * depth. empty counts zero-byte items across the caller's value. An error
 * gets its whole path: root's name, then prefix (the caller's part, may be NULL),
 * then the skipped value's own. Statuses as avk_plan_skip. */
avk_status avki_skip_nested(const avk_plan *plan, avk_reader *r, uint32_t node, size_t depth,
                            uint64_t *empty, const avk_type *root, const avki_path_part *prefix,
                            avk_error *err);

/* 1 when s[0..n) is valid UTF-8. */
int avki_utf8_valid(const uint8_t *s, size_t n);

#endif
