/* Push decoding: bytes fed in pieces of any size, values out as soon as they are whole (event loops, network streams). */
#ifndef AVROKIT_PUSH_H
#define AVROKIT_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/alloc.h"
#include "avrokit/arena.h"
#include "avrokit/file.h"
#include "avrokit/macros.h"
#include "avrokit/message.h"
#include "avrokit/status.h"
#include "avrokit/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the bytes fed are. */
typedef enum avk_push_input {
    /* Messages of the decoder options' framing back to back, nothing
     * between them: raw datums one after another (as avro-tools'
     * jsontofrag writes them, and Avro binary streams in general), or
     * single-object / Confluent messages (each is its header, then its
     * datum, so it delimits itself once its schema is known). */
    AVK_PUSH_MESSAGES = 0,
    /* Each message (in the framing) preceded by its length in bytes, 4
     * bytes big-endian (`avrokit frame` writes this). */
    AVK_PUSH_LENGTH_PREFIXED = 1,
    /* One object container file, from its first byte. */
    AVK_PUSH_CONTAINER = 2
} avk_push_input;

typedef struct avk_push_options {
    size_t struct_size;           /* sizeof(avk_push_options) */
    avk_push_input input;
    avk_message_decoder_options message; /* messages: framing, store, plan,
                                     reader type (as avk_message_decoder_new) */
    const avk_file_reader_options *file; /* container: plan_flags,
                                     limits, reader_schema, max_header_bytes,
                                     max_block_bytes, max_block_data,
                                     max_meta_entries are used, the rest
                                     ignored (flags too: damage is final,
                                     AVK_FILE_SKIP_BAD_BLOCKS is not
                                     supported); NULL: defaults */
    uint64_t max_message;         /* bytes one message (or container block
                                     as stored) may take while it is
                                     buffered; 0 means 64 MiB. Beyond:
                                     AVK_ERR_LIMIT */
    const avk_allocator *allocator; /* NULL means the C library */
} avk_push_options;

typedef struct avk_push_decoder avk_push_decoder;

/* Makes a push decoder. It runs no thread and never waits for input: feed
 * gives it bytes, next hands out values. (Single-object and Confluent
 * messages look their schemas up in the store, whose fetch callback, if
 * any, runs on the caller's thread in next or end and may block as it
 * likes.) One thread at a time.
 * Cost: bytes are copied once into the decoder's buffer (dropped there in
 * amortised O(1) once used). Length-prefixed messages, headers and
 * container blocks say how many bytes they need, and next tries nothing
 * before those are there: linear however the input is cut. Messages back
 * to back (raw, single-object, Confluent) do not: next tries to skip one
 * over what is buffered whenever bytes came since its last try, so a
 * message of n small values fed one byte at a time costs O(n^2) (strings,
 * bytes and sized blocks are jumped over by their length; feeding pieces
 * of a message's size or more keeps it linear; the avrokit CLI feeds a
 * pending datum more before trying again, a quarter of it at a time).
 * Raw datums of a schema whose values take no bytes (null) cannot be
 * read back to back: next refuses the first with AVK_ERR_MALFORMED.
 * Returns AVK_OK,
 * AVK_ERR_INVALID_ARGUMENT (bad input kind, options a framing needs
 * missing), AVK_ERR_NO_MEMORY. */
AVK_EXPORT avk_status avk_push_decoder_new(const avk_push_options *opts, avk_push_decoder **out,
                                           avk_error *err);
AVK_EXPORT void avk_push_decoder_free(avk_push_decoder *pd);

/* Gives the decoder the next len bytes of input (any number, 0 included);
 * it keeps what it has not decoded yet (all of len: call next between
 * feeds, which refuses a message or block past max_message with
 * AVK_ERR_LIMIT as soon as its size is known). Returns AVK_OK;
 * AVK_ERR_NO_MEMORY; AVK_ERR_INVALID_ARGUMENT after end; the sticky error
 * of an earlier call. Values handed out before stay valid until this
 * call. */
AVK_EXPORT avk_status avk_push_decoder_feed(avk_push_decoder *pd, const void *data, size_t len,
                                            avk_error *err);

/* Decodes the next whole value into *out (allocated from arena) and sets
 * *got to 1; sets *got to 0 when the bytes fed so far end before the next
 * value is whole (feed more, or call avk_push_decoder_end). Strings and
 * bytes may point into the decoder's buffer: they stay valid until the next
 * avk_push_decoder_feed, end or free (copy them, or set
 * AVK_PLAN_COPY_STRINGS, to keep them longer). Records of a compressed
 * container block are always copied into arena (the decompressed block is
 * reused for the next one, which next may start without a feed). After
 * avk_push_decoder_end, next hands out what the end leaves whole (the
 * records of a container block whose sync marker is cut, as
 * avk_file_reader_next does) and then returns end's error. Returns AVK_OK; the
 * statuses of avk_message_decode (messages) or avk_file_reader_next
 * (container) with err->offset counted from the first byte ever fed.
 * After an error the decoder stays failed (every later call returns the
 * same status), except in length-prefixed input, where a message that
 * does not decode is dropped and the next call goes on with the one after
 * it (a length past max_message, or no memory, stays final). */
AVK_EXPORT avk_status avk_push_decoder_next(avk_push_decoder *pd, avk_arena *arena,
                                            avk_value *out, int *got, avk_error *err);

/* Says the input is over; feed may not be called after. Returns AVK_OK
 * when it ended between values (an empty stream of messages included; a
 * container file: after its header and a whole block); AVK_ERR_TRUNCATED
 * (err->offset where the unfinished message or block starts) when fed
 * bytes remain that make no whole value (AVK_ERR_LIMIT when they start
 * with a length past max_message); a container file with no whole
 * header (no bytes at all included) gets the header's error, as
 * avk_file_reader_open_memory gives it. Call next until *got is 0 first:
 * end does not decode. */
AVK_EXPORT avk_status avk_push_decoder_end(avk_push_decoder *pd, avk_error *err);

/* Bytes of input consumed by the values handed out so far (and a
 * container's header and finished blocks). */
AVK_EXPORT uint64_t avk_push_decoder_offset(const avk_push_decoder *pd);
/* The writer schema of the last value (a container's own schema once its
 * header is read); NULL before one, and for raw messages. */
AVK_EXPORT const avk_schema *avk_push_decoder_schema(const avk_push_decoder *pd);

#ifdef __cplusplus
}
#endif
#endif
