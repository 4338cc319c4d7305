/* Codec library state kept from block to block (libdeflate compressor and decompressor, zstd contexts), for writers, readers and their worker threads. */
#ifndef AVK_CODEC_CODEC_STATE_H
#define AVK_CODEC_CODEC_STATE_H

#include "avrokit/codec.h"

struct libdeflate_compressor;
struct libdeflate_decompressor;
struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

/* Each member is created on first use and kept: a libdeflate compressor
 * costs up to about 1 MB to set up at high levels and a zstd context a
 * few hundred KB, per block when made afresh. One state belongs to one
 * thread at a time. zstd's contexts take their memory from alloc (the
 * library allows it); libdeflate 1.14 has only a process-wide allocator
 * hook, which a library must not take over, so its state comes from the C
 * library. */
typedef struct avki_codec_state {
    avk_allocator alloc;
    struct libdeflate_compressor *deflate_c;
    int deflate_level; /* the level deflate_c was made for */
    struct libdeflate_decompressor *deflate_d;
    struct ZSTD_CCtx_s *zstd_c;
    struct ZSTD_DCtx_s *zstd_d;
} avki_codec_state;

/* An empty state (allocates nothing) using *alloc (NULL: the C library). */
void avki_codec_state_init(avki_codec_state *s, const avk_allocator *alloc);

/* Frees whatever the state holds; it is then empty and usable again. */
void avki_codec_state_destroy(avki_codec_state *s);

/* avk_codec_compress and avk_codec_decompress, keeping library state in s. */
avk_status avki_codec_compress_with(avki_codec_state *s, avk_codec c, int level,
                                    const uint8_t *in, size_t len, avk_buffer *out,
                                    avk_error *err);
avk_status avki_codec_decompress_with(avki_codec_state *s, avk_codec c, const uint8_t *in,
                                      size_t len, size_t max_out, avk_buffer *out,
                                      avk_error *err);

#endif
