/* Cold pieces the decoder, skipper and encoder share: allocation and mismatch errors, UTF-8 checks. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binary/decode_ctx.h"
#include "binary/encode_internal.h"
#include "common/error.h"

avk_status avki_encode_mismatch(avk_error *err, const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    va_list ap;
    if (!err)
        return AVK_ERR_INVALID_ARGUMENT;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN, "%s", msg);
}

avk_status avki_dalloc_failed(dctx *c, size_t size)
{
    if (c->mem > c->limits->max_memory)
        return avki_error_set(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                              "value needs more than max_memory (%llu bytes)",
                              (unsigned long long)c->limits->max_memory);
    if (c->arena->limit_hit)
        return avki_error_set(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                              "arena limit reached allocating %zu bytes", size);
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, avk_reader_offset(c->r),
                          "out of memory allocating %zu bytes", size);
}

/* Valid UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). */
int avki_utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t b = s[i];
        if (b < 0x80) {
            /* ASCII runs 8 bytes at a time. */
            while (i + 8 <= n) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            if (i < n && s[i] < 0x80)
                i++;
            continue;
        }
        if (b >= 0xC2 && b <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
                return 0;
            i += 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            uint8_t lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
            if (i + 2 >= n || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xC0) != 0x80)
                return 0;
            i += 3;
        } else if (b >= 0xF0 && b <= 0xF4) {
            uint8_t lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
            if (i + 3 >= n || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80)
                return 0;
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

