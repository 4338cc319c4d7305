/* Pieces shared by the decoder and the skipper: cold error reporting, length checks, UTF-8 checks, nested skipping. */
#ifndef AVK_BINARY_DECODE_INTERNAL_H
#define AVK_BINARY_DECODE_INTERNAL_H

#include "plan/plan_format.h"
#include "avrokit/macros.h"
#include "common/arena.h"
#include "common/value_path.h"

/* Fills err (path cleared) and returns st. */
avk_status avki_decode_fail(avk_error *err, avk_status st, uint64_t offset, const char *fmt, ...)
    __attribute__((cold, format(printf, 4, 5)));

/* Cold: the error for a length n read at off that is negative
 * (MALFORMED) or above max_bytes (LIMIT). */
avk_status avki_length_error(avk_error *err, int64_t n, uint64_t max_bytes, uint64_t off,
                             const char *what) __attribute__((cold));

/* Checks a string, bytes or map key length just read at off. */
static inline avk_status avki_check_length(int64_t n, uint64_t max_bytes, uint64_t off,
                                           const char *what, avk_error *err)
{
    if (AVK_LIKELY(n >= 0 && (uint64_t)n <= max_bytes))
        return AVK_OK;
    return avki_length_error(err, n, max_bytes, off, what);
}

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
