/* Private helpers to fill an avk_error and to forward statuses. */
#ifndef AVK_COMMON_ERROR_H
#define AVK_COMMON_ERROR_H

#include "avrokit/status.h"

/* Returns from the enclosing function when expr is not AVK_OK. */
#define AVK_TRY(expr)                      \
    do {                                   \
        avk_status avk_try_st_ = (expr);   \
        if (avk_try_st_ != AVK_OK)         \
            return avk_try_st_;            \
    } while (0)

/* Fills err (when not NULL) and returns status. Cold: formats a message.
 * The library's name for the public avk_error_set (status.h): one function
 * fills every error, the decoder's and generated code's alike. */
#define avki_error_set avk_error_set

/* As avki_error_set, recording errno as well. */
avk_status avki_error_errno(avk_error *err, int sys_errno, const char *fmt, ...)
    __attribute__((cold, format(printf, 3, 4)));

/* Puts text formatted from fmt in front of err's message (when err is not
 * NULL); returns err->status. When the result is too long, the old message
 * loses bytes from its middle ("..."), keeping its first 32 bytes and its
 * end: messages end with their reason, which must stay whole. */
avk_status avki_error_prefix(avk_error *err, const char *fmt, ...)
    __attribute__((cold, format(printf, 2, 3)));

#endif
