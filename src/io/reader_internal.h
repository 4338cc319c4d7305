/* Reader functions the decoder needs beyond the public API. */
#ifndef AVK_IO_READER_INTERNAL_H
#define AVK_IO_READER_INTERNAL_H

#include "avrokit/reader.h"

/* As avk_reader_read_longs / _ints, also giving in *done how many values
 * were read (on error: the index of the bad one). */
avk_status avki_reader_read_longs_counted(avk_reader *r, int64_t *out, size_t n, size_t *done,
                                          avk_error *err);
avk_status avki_reader_read_ints_counted(avk_reader *r, int32_t *out, size_t n, size_t *done,
                                         avk_error *err);

/* Moves an fd reader to byte offset of its descriptor (lseek) and drops
 * what was buffered; avk_reader_offset then reports offset - origin, origin
 * being the descriptor's position when the reader started. Returns AVK_OK,
 * AVK_ERR_IO (lseek failed) or AVK_ERR_INVALID_ARGUMENT (not an fd reader,
 * or offset before origin). */
avk_status avki_reader_seek_fd(avk_reader *r, uint64_t origin, uint64_t offset, avk_error *err);

#endif
