/* Status names and filling of error records. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/version.h"
#include "common/error.h"

const char *avk_status_name(avk_status status)
{
    switch (status) {
    case AVK_OK: return "OK";
    case AVK_ERR_TRUNCATED: return "TRUNCATED";
    case AVK_ERR_MALFORMED: return "MALFORMED";
    case AVK_ERR_LIMIT: return "LIMIT";
    case AVK_ERR_SCHEMA: return "SCHEMA";
    case AVK_ERR_RESOLUTION: return "RESOLUTION";
    case AVK_ERR_CODEC: return "CODEC";
    case AVK_ERR_IO: return "IO";
    case AVK_ERR_SYNC: return "SYNC";
    case AVK_ERR_CHECKSUM: return "CHECKSUM";
    case AVK_ERR_NO_MEMORY: return "NO_MEMORY";
    case AVK_ERR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case AVK_ERR_UNSUPPORTED: return "UNSUPPORTED";
    case AVK_ERR_NOT_FOUND: return "NOT_FOUND";
    }
    return "UNKNOWN";
}

void avk_error_clear(avk_error *err)
{
    if (!err)
        return;
    err->status = AVK_OK;
    err->sys_errno = 0;
    err->offset = AVK_OFFSET_UNKNOWN;
    err->block = -1;
    err->path[0] = '\0';
    err->message[0] = '\0';
}

static void error_fill(avk_error *err, avk_status status, int sys_errno, uint64_t offset,
                       const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void error_fill(avk_error *err, avk_status status, int sys_errno, uint64_t offset,
                       const char *fmt, va_list ap)
{
    avk_error_clear(err);
    err->status = status;
    err->sys_errno = sys_errno;
    err->offset = offset;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

avk_status avk_error_set(avk_error *err, avk_status status, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return status;
    va_start(ap, fmt);
    error_fill(err, status, 0, offset, fmt, ap);
    va_end(ap);
    return status;
}

avk_status avki_error_errno(avk_error *err, int sys_errno, const char *fmt, ...)
{
    va_list ap;
    size_t used;
    if (!err)
        return AVK_ERR_IO;
    va_start(ap, fmt);
    error_fill(err, AVK_ERR_IO, sys_errno, AVK_OFFSET_UNKNOWN, fmt, ap);
    va_end(ap);
    used = strlen(err->message);
    if (sys_errno && used + 3 < sizeof err->message)
        snprintf(err->message + used, sizeof err->message - used, ": %s", strerror(sys_errno));
    return AVK_ERR_IO;
}

/* What a prefixed message keeps of the old message's start when it must
 * lose bytes from its middle. */
#define PREFIX_KEEP_HEAD 32

avk_status avki_error_prefix(avk_error *err, const char *fmt, ...)
{
    char old[AVK_ERROR_MESSAGE_MAX];
    size_t used, room, n;
    va_list ap;
    if (!err)
        return AVK_OK;
    memcpy(old, err->message, sizeof old);
    old[sizeof old - 1] = 0;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    used = strlen(err->message);
    if (used + 1 >= sizeof err->message)
        return err->status;
    room = sizeof err->message - used - 1;
    n = strlen(old);
    if (n <= room) {
        memcpy(err->message + used, old, n + 1);
    } else if (room > 3 * PREFIX_KEEP_HEAD) {
        /* Too long: the old message loses bytes from its middle, keeping
         * its start (where a path starts) and its end (the reason). */
        size_t tail = room - PREFIX_KEEP_HEAD - 3;
        memcpy(err->message + used, old, PREFIX_KEEP_HEAD);
        memcpy(err->message + used + PREFIX_KEEP_HEAD, "...", 3);
        memcpy(err->message + used + PREFIX_KEEP_HEAD + 3, old + n - tail, tail + 1);
    } else {
        memcpy(err->message + used, old + n - room, room + 1);
    }
    return err->status;
}

const char *avk_version(void)
{
    return AVK_VERSION_STRING;
}
