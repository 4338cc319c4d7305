/* Writer functions the container writer needs beyond the public API. */
#ifndef AVK_IO_WRITER_INTERNAL_H
#define AVK_IO_WRITER_INTERNAL_H

#include "avrokit/writer.h"

/* As avk_writer_write_raw, but a stream writer hands n bytes of at least
 * its buffer size straight to the sink after flushing what it holds: a
 * container block is not copied through the buffer. On a sink failure those
 * bytes are lost (a later flush cannot report it again), so the caller must
 * treat the writer as broken. */
avk_status avki_writer_write_direct(avk_writer *w, const void *src, size_t n, avk_error *err);

/* fsync(2), again after EINTR: a signal during it says nothing of the
 * data. 0, or -1 with errno. */
int avki_fsync(int fd);

#endif
