/* Private interface between the codec table (codec.c) and the per-codec files. */
#ifndef AVK_CODEC_CODEC_INTERNAL_H
#define AVK_CODEC_CODEC_INTERNAL_H

#include "avrokit/codec.h"
#include "codec/codec_state.h"

/* Library state lives in an avki_codec_state (codec_state.h): writers,
 * readers and each of their worker threads keep one, so a block costs no
 * context set-up; the one-shot avk_codec_compress/decompress use a state
 * for one call. */

/* The buffer may grow beyond max_out by at most this much (a codec's own
 * look-ahead needs a little room to notice that the output goes on). */
#define AVKI_CODEC_SLACK 64

/* Makes out->cap at least need. keep: preserve the first out->len bytes
 * (realloc), else the old contents may be discarded (free + alloc, so the
 * peak is the new size only). */
avk_status avki_buffer_reserve(avk_buffer *out, size_t need, int keep, avk_error *err);

/* For streaming decoders: grows out (keeping its contents) towards limit,
 * doubling from at least 4 KiB. Returns AVK_ERR_LIMIT when out->cap has
 * already reached limit (the caller words the message). */
avk_status avki_buffer_grow_bounded(avk_buffer *out, size_t limit, avk_error *err);

/* Allocation shims for libraries whose free does not pass the size
 * (libbz2, liblzma): a size header before each block. */
void *avki_codec_lib_alloc(avk_allocator *a, size_t size);
void avki_codec_lib_free(avk_allocator *a, void *p);

avk_status avki_deflate_compress(avki_codec_state *s, int level, const uint8_t *in, size_t len,
                                 avk_buffer *out, avk_error *err);
avk_status avki_deflate_decompress(avki_codec_state *s, const uint8_t *in, size_t len,
                                   size_t max_out, avk_buffer *out, avk_error *err);
void avki_deflate_state_free(avki_codec_state *s);
avk_status avki_snappy_compress(const uint8_t *in, size_t len, avk_buffer *out, avk_error *err);
avk_status avki_snappy_decompress(const uint8_t *in, size_t len, size_t max_out,
                                  avk_buffer *out, avk_error *err);
avk_status avki_zstd_compress(avki_codec_state *s, int level, const uint8_t *in, size_t len,
                              avk_buffer *out, avk_error *err);
avk_status avki_zstd_decompress(avki_codec_state *s, const uint8_t *in, size_t len,
                                size_t max_out, avk_buffer *out, avk_error *err);
void avki_zstd_state_free(avki_codec_state *s);
avk_status avki_bzip2_compress(int level, const uint8_t *in, size_t len, avk_buffer *out,
                               avk_error *err);
avk_status avki_bzip2_decompress(const uint8_t *in, size_t len, size_t max_out,
                                 avk_buffer *out, avk_error *err);
avk_status avki_xz_compress(int level, const uint8_t *in, size_t len, avk_buffer *out,
                            avk_error *err);
avk_status avki_xz_decompress(const uint8_t *in, size_t len, size_t max_out, avk_buffer *out,
                              avk_error *err);

#endif
