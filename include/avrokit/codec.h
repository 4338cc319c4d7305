/* Compression codecs of Avro object container files: names, a reusable byte buffer, one-shot compress and decompress. */
#ifndef AVROKIT_CODEC_H
#define AVROKIT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/alloc.h"
#include "avrokit/macros.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The codecs of the specification's "avro.codec" metadata. The numbers are
 * stable. */
typedef enum avk_codec {
    AVK_CODEC_NULL = 0,      /* "null": blocks stored as they are */
    AVK_CODEC_DEFLATE = 1,   /* "deflate": raw RFC 1951, no zlib header */
    AVK_CODEC_SNAPPY = 2,    /* "snappy": snappy block + big-endian CRC-32 of the data */
    AVK_CODEC_ZSTANDARD = 3, /* "zstandard": one or more zstd frames */
    AVK_CODEC_BZIP2 = 4,     /* "bzip2": a bzip2 stream */
    AVK_CODEC_XZ = 5         /* "xz": an .xz container stream; on read, a block
                                without the .xz magic is taken as raw LZMA2, the
                                "lzma" codec of Apache Avro C */
} avk_codec;

#define AVK_CODEC_COUNT 6

/* Finds the codec named by the len bytes at name (not NUL-terminated).
 * Accepts the specification's names ("null", "deflate", "snappy",
 * "zstandard", "bzip2", "xz") and, leniently, "lzma" (Apache Avro C's
 * name: raw LZMA2 blocks, which the xz decoder recognizes) and "zstd" (early Avro C++): for those *nonstandard is set
 * to 1, otherwise to 0. nonstandard may be NULL.
 * Returns AVK_OK, AVK_ERR_CODEC for an unknown name (message quotes it),
 * or AVK_ERR_INVALID_ARGUMENT when name (with len > 0) or out is NULL. */
AVK_EXPORT avk_status avk_codec_from_name(const char *name, size_t len, avk_codec *out,
                                          int *nonstandard, avk_error *err);

/* The specification's name of c ("null", "deflate", ...), or NULL for a
 * value outside the enum. The string is static. */
AVK_EXPORT const char *avk_codec_name(avk_codec c);

/* 1 when codec c was built into this library, 0 when it was left out (the
 * AVK_WITH_<name> CMake options; "null" is always there) or c is outside
 * the enum. Calls that need a codec left out return AVK_ERR_UNSUPPORTED
 * with a message naming it and its option. */
AVK_EXPORT int avk_codec_available(avk_codec c);

/* A growable byte buffer owned by the caller and reused block after block,
 * so that in steady state compressing and decompressing allocate nothing.
 * data is valid for len bytes; cap is the allocated size. */
typedef struct avk_buffer {
    uint8_t *data;
    size_t len;
    size_t cap;
    avk_allocator alloc;
} avk_buffer;

/* Makes an empty buffer (allocates nothing) that will use *alloc, or the C
 * library when alloc is NULL. The allocator is copied. */
AVK_EXPORT void avk_buffer_init(avk_buffer *buf, const avk_allocator *alloc);

/* Frees the buffer's memory and leaves it empty and usable. NULL and a
 * second call are harmless. */
AVK_EXPORT void avk_buffer_destroy(avk_buffer *buf);

/* Compresses the len bytes at in with codec c into out, replacing its
 * contents (out->len is the compressed size; capacity is kept and grown as
 * needed). level 0 means the codec's default; otherwise deflate accepts
 * 1-12 (libdeflate's scale; default 6), zstandard its levels from
 * ZSTD_minCLevel() to ZSTD_maxCLevel() (default 3), bzip2 1-9 (default 9),
 * xz presets 1-9 (default 6); null and snappy ignore it. Snappy output is
 * followed by the 4-byte big-endian CRC-32 of the input, as Avro requires.
 * in may be NULL when len is 0.
 * Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT (unknown codec, level out of
 * range, NULL out); AVK_ERR_NO_MEMORY; AVK_ERR_LIMIT (input too large for
 * the codec, e.g. snappy's 4 GiB); AVK_ERR_CODEC (the library failed);
 * AVK_ERR_UNSUPPORTED (c was not built in: avk_codec_available).
 * On failure out->len is 0. Thread safety: distinct buffers may be used by
 * distinct threads at once. Each call creates and frees the codec library's
 * own state: to compress or decompress block after block, keep an
 * avk_codec_ctx instead. */
AVK_EXPORT avk_status avk_codec_compress(avk_codec c, int level, const uint8_t *in, size_t len,
                                         avk_buffer *out, avk_error *err);

/* Decompresses the len bytes at in (one container block) with codec c into
 * out, replacing its contents, refusing to produce more than max_out bytes:
 * the buffer never grows beyond max_out plus a small slack, whatever the
 * input claims (decompression bombs). The codec libraries' own working
 * memory is bounded separately: xz dictionaries up to 64 MiB (presets 0-9)
 * and zstd windows up to 2^max(23, log2(max_out)) bytes, capped at 128 MiB.
 * Returns AVK_OK; AVK_ERR_LIMIT (the data would exceed max_out, or needs
 * more codec memory than allowed); AVK_ERR_CODEC (corrupt or truncated
 * stream, with a message saying which; bytes after the end of a deflate
 * stream are ignored, as zlib-based readers do, while bytes after the last
 * zstd, bzip2 or xz stream are an error); AVK_ERR_CHECKSUM
 * (snappy CRC-32 mismatch); AVK_ERR_NO_MEMORY; AVK_ERR_INVALID_ARGUMENT;
 * AVK_ERR_UNSUPPORTED (c was not built in: avk_codec_available).
 * On failure out->len is 0. */
AVK_EXPORT avk_status avk_codec_decompress(avk_codec c, const uint8_t *in, size_t len,
                                           size_t max_out, avk_buffer *out, avk_error *err);

/* Codec library state kept from call to call: a libdeflate compressor and
 * decompressor, zstd compression and decompression contexts, made on first
 * use and reused, so a block costs no set-up (a libdeflate compressor takes
 * up to about 1 MB to make at high levels, a zstd context a few hundred
 * KB). The container writer and reader keep one per thread that
 * compresses or decompresses. A context belongs to one thread at a time.
 *
 * Memory: zstd's contexts, and libbz2's and liblzma's working memory (also
 * in the one-shot calls, through the buffer's allocator), come from the
 * allocator given here. Two codecs cannot use it: libdeflate (1.14 has only
 * a process-wide allocator hook, which a library must not take over) and
 * snappy (its C interface allocates with C++ new) take theirs from the C
 * library; libdeflate's is kept in the context, snappy's lasts one call. */
typedef struct avk_codec_ctx avk_codec_ctx;

/* Makes an empty context (the codec libraries' state comes on first use).
 * alloc NULL means the C library; it is copied. Returns AVK_OK,
 * AVK_ERR_NO_MEMORY or AVK_ERR_INVALID_ARGUMENT (NULL out). */
AVK_EXPORT avk_status avk_codec_ctx_new(const avk_allocator *alloc, avk_codec_ctx **out,
                                        avk_error *err);

/* Frees the context and the library state it holds. NULL is ignored. */
AVK_EXPORT void avk_codec_ctx_free(avk_codec_ctx *ctx);

/* avk_codec_compress and avk_codec_decompress (same arguments, statuses and
 * limits) keeping the codec library's state in ctx; ctx NULL is the
 * one-shot call. */
AVK_EXPORT avk_status avk_codec_ctx_compress(avk_codec_ctx *ctx, avk_codec c, int level,
                                             const uint8_t *in, size_t len, avk_buffer *out,
                                             avk_error *err);
AVK_EXPORT avk_status avk_codec_ctx_decompress(avk_codec_ctx *ctx, avk_codec c, const uint8_t *in,
                                               size_t len, size_t max_out, avk_buffer *out,
                                               avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
