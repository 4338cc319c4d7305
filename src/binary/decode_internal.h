/* Pieces shared by the decoder and the skipper: cold error reporting with schema paths, UTF-8 checks. */
#ifndef AVK_BINARY_DECODE_INTERNAL_H
#define AVK_BINARY_DECODE_INTERNAL_H

#include "binary/plan_internal.h"
#include "common/arena.h"

/* Fills err (path cleared) and returns st. */
avk_status avki_decode_fail(avk_error *err, avk_status st, uint64_t offset, const char *fmt, ...)
    __attribute__((cold, format(printf, 4, 5)));

/* Puts a path segment (".fields[3]") in front of err->path while an error
 * unwinds; returns st. */
avk_status avki_path_prepend(avk_error *err, avk_status st, const char *fmt, ...)
    __attribute__((cold, format(printf, 3, 4)));

/* At the top: the root's name in front, and the path in front of the message. */
void avki_path_finish(avk_error *err, const avk_type *root) __attribute__((cold));

/* 1 when s[0..n) is valid UTF-8. */
int avki_utf8_valid(const uint8_t *s, size_t n);

#endif
