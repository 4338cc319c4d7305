/* Status codes and the optional error record every fallible call can fill. */
#ifndef AVROKIT_STATUS_H
#define AVROKIT_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible call returns one of these; AVK_OK is 0. The numbers are
 * stable: they may be stored, logged and compared across versions. */
typedef enum avk_status {
    AVK_OK = 0,
    AVK_ERR_TRUNCATED = 1,         /* input ended in the middle of a value */
    AVK_ERR_MALFORMED = 2,         /* bytes that no valid encoding produces */
    AVK_ERR_LIMIT = 3,             /* a configured limit was exceeded */
    AVK_ERR_SCHEMA = 4,            /* invalid schema */
    AVK_ERR_RESOLUTION = 5,        /* writer and reader schemas do not match */
    AVK_ERR_CODEC = 6,             /* compression codec failed or is unknown */
    AVK_ERR_IO = 7,                /* the operating system reported an error */
    AVK_ERR_SYNC = 8,              /* container sync marker mismatch */
    AVK_ERR_CHECKSUM = 9,          /* checksum mismatch */
    AVK_ERR_NO_MEMORY = 10,        /* an allocation failed */
    AVK_ERR_INVALID_ARGUMENT = 11, /* the caller passed something unusable */
    AVK_ERR_UNSUPPORTED = 12,      /* needs a codec or library this build left out */
    AVK_ERR_NOT_FOUND = 13         /* a message names a schema the schema store lacks */
} avk_status;

#define AVK_ERROR_MESSAGE_MAX 256
#define AVK_ERROR_PATH_MAX 256

/* Filled by a failing call when the caller passes a non-NULL pointer.
 * Fixed buffers: reporting an error never allocates. No thread-local state:
 * each call reports into the struct it was given. */
typedef struct avk_error {
    avk_status status;
    int sys_errno;   /* errno for AVK_ERR_IO, else 0 */
    uint64_t offset; /* byte offset in the input, or AVK_OFFSET_UNKNOWN */
    int64_t block;   /* container block index, or -1 */
    char path[AVK_ERROR_PATH_MAX];       /* schema path, "" when none */
    char message[AVK_ERROR_MESSAGE_MAX]; /* a sentence a person can act on */
} avk_error;

#define AVK_OFFSET_UNKNOWN UINT64_MAX

/* The constant's name without the prefix, e.g. "TRUNCATED"; "UNKNOWN" for
 * a value outside the enum. Never NULL; the string is static. */
AVK_EXPORT const char *avk_status_name(avk_status status);

/* Resets an error record to "no error". NULL is allowed and ignored. */
AVK_EXPORT void avk_error_clear(avk_error *err);

/* Fills err as the library fills its own errors: status, offset (or
 * AVK_OFFSET_UNKNOWN), the message formatted from fmt (cut to fit), path
 * cleared, block -1, sys_errno 0. NULL err is allowed and ignored. Returns
 * status, so a failing function can `return avk_error_set(...)`. For
 * sources (avk_source_fn), sinks and generated code; the library's own
 * errors are set by this same function. */
AVK_EXPORT avk_status avk_error_set(avk_error *err, avk_status status, uint64_t offset,
                                    const char *fmt, ...)
    AVK_COLD AVK_PRINTF(4, 5);

#ifdef __cplusplus
}
#endif
#endif
