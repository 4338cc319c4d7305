/* Torn tails: what a writer killed in the middle of a block leaves at the end of a file, told apart from damage before the end. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "file/file_internal.h"

/* 16 KiB at a time (a stack buffer small enough for threads with small
 * stacks), the last 15 bytes kept for the next piece so a marker across
 * two pieces is found: the scan runs only after a reader failed. */
#define PIECE ((size_t)16 << 10)

avk_status avki_file_marker_after(const char *path, uint64_t from, uint64_t size,
                                  const uint8_t sync[AVK_FILE_SYNC_SIZE], int *found,
                                  avk_error *err)
{
    uint8_t buf[PIECE];
    uint64_t at = from;
    size_t kept = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    *found = 0;
    if (fd < 0)
        return avki_error_errno(err, errno, "cannot open %s to look at its end", path);
    while (at < size && !*found) {
        size_t want = PIECE - kept;
        ssize_t n;
        if (want > size - at)
            want = (size_t)(size - at);
        n = pread(fd, buf + kept, want, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return avki_error_errno(err, e, "reading %s at byte %llu failed", path,
                                    (unsigned long long)at);
        }
        if (n == 0)
            break; /* the file shrank: what is left holds no marker */
        at += (uint64_t)n;
        kept += (size_t)n;
        *found = memmem(buf, kept, sync, AVK_FILE_SYNC_SIZE) != NULL;
        if (kept >= AVK_FILE_SYNC_SIZE - 1) {
            memmove(buf, buf + kept - (AVK_FILE_SYNC_SIZE - 1), AVK_FILE_SYNC_SIZE - 1);
            kept = AVK_FILE_SYNC_SIZE - 1;
        }
    }
    close(fd);
    return AVK_OK;
}
