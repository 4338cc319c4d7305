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

#endif
