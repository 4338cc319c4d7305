/* Avro outside files: single-object encoding, the Confluent wire format, a schema store, message encoders and decoders. */
#ifndef AVROKIT_MESSAGE_H
#define AVROKIT_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/alloc.h"
#include "avrokit/arena.h"
#include "avrokit/macros.h"
#include "avrokit/plan.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "avrokit/value.h"
#include "avrokit/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Framings ------------------------------------------------------------
 * How one datum travels as a message:
 *   raw            the datum alone; the reader must know the writer's schema.
 *   single-object  C3 01, the writer schema's CRC-64-AVRO fingerprint (8
 *                  bytes, little-endian), the datum (the specification's
 *                  "single object encoding").
 *   confluent      00, the schema id (4 bytes, big-endian, as the Confluent
 *                  schema registry assigns it), the datum (the Confluent /
 *                  Kafka wire format). */
typedef enum avk_framing {
    AVK_FRAMING_RAW = 0,
    AVK_FRAMING_SINGLE_OBJECT = 1,
    AVK_FRAMING_CONFLUENT = 2
} avk_framing;

#define AVK_SINGLE_OBJECT_HEADER_SIZE 10
#define AVK_CONFLUENT_HEADER_SIZE 5

/* "raw", "single-object", "confluent"; NULL for anything else. */
AVK_EXPORT const char *avk_framing_name(avk_framing framing);
/* The framing named name (as avk_framing_name spells it): 0 and *out set,
 * or -1 when name is no framing's name. */
AVK_EXPORT int avk_framing_parse(const char *name, avk_framing *out);

/* Writes the single-object header of a writer schema whose CRC-64-AVRO
 * fingerprint (avk_type_fingerprint with AVK_FINGERPRINT_RABIN, read as a
 * little-endian number: avk_rabin64 of the canonical form) is fingerprint:
 * C3 01 then the 8 bytes, least significant first. */
AVK_EXPORT void avk_single_object_header(uint64_t fingerprint,
                                         uint8_t out[AVK_SINGLE_OBJECT_HEADER_SIZE]);
/* Reads a single-object header at the start of msg. Returns AVK_OK with
 * *fingerprint set (the datum starts at msg + 10); AVK_ERR_TRUNCATED when
 * len < 10; AVK_ERR_MALFORMED when the first two bytes are not C3 01 (the
 * message says which bytes were found). */
AVK_EXPORT avk_status avk_single_object_parse(const void *msg, size_t len, uint64_t *fingerprint,
                                              avk_error *err);
/* Writes the Confluent header: 00 then id, 4 bytes big-endian. */
AVK_EXPORT void avk_confluent_header(uint32_t id, uint8_t out[AVK_CONFLUENT_HEADER_SIZE]);
/* Reads a Confluent header at the start of msg. Returns AVK_OK with *id set
 * (the datum starts at msg + 5); AVK_ERR_TRUNCATED when len < 5;
 * AVK_ERR_MALFORMED when the first byte is not 0 (the "magic byte"). */
AVK_EXPORT avk_status avk_confluent_parse(const void *msg, size_t len, uint32_t *id,
                                          avk_error *err);

/* ---- Schema store --------------------------------------------------------
 * Writer schemas by CRC-64-AVRO fingerprint and by id, and the plans that
 * decode them, compiled once per (writer schema, reader type) pair and kept
 * until the store is freed. Every call may be made from any number of
 * threads at once; schemas and plans it returns are immutable and live as
 * long as the store. */
typedef struct avk_schema_store avk_schema_store;

/* Asked by the store for a schema it does not hold: by_id is 1 for an id
 * (key is the id), 0 for a fingerprint (key is the fingerprint). The
 * callback supplies it by calling avk_schema_store_add (with the id, when
 * by_id) and returns AVK_OK; or returns AVK_ERR_NOT_FOUND, or any status
 * and err filled, which the lookup passes on. It runs on the thread that
 * looked up, with no lock of the store held, so it may block (a registry
 * client's HTTP call); two threads missing the same key at once may both
 * call it, and adding the same schema twice is harmless. */
typedef avk_status (*avk_schema_fetch_fn)(void *ctx, avk_schema_store *store, int by_id,
                                          uint64_t key, avk_error *err);

typedef struct avk_schema_store_options {
    size_t struct_size;             /* sizeof(avk_schema_store_options) */
    const avk_allocator *allocator; /* NULL means the C library */
    const avk_schema_options *schema; /* how schemas are parsed; NULL: defaults */
    const avk_plan_options *plan;   /* flags and limits of the decoding plans;
                                       NULL: defaults (strings are views into
                                       the message) */
    avk_schema_fetch_fn fetch;      /* NULL: lookups of absent keys fail */
    void *fetch_ctx;
    size_t max_schemas;             /* 0 means 65,536: adds beyond fail with
                                       AVK_ERR_LIMIT (a registry that answers
                                       every id must not grow the store without
                                       bound) */
} avk_schema_store_options;

/* Makes an empty store. Returns AVK_OK, AVK_ERR_NO_MEMORY or
 * AVK_ERR_INVALID_ARGUMENT (out NULL, bad struct_size). */
AVK_EXPORT avk_status avk_schema_store_new(const avk_schema_store_options *opts,
                                           avk_schema_store **out, avk_error *err);
/* Frees the store, its schemas and plans. NULL is ignored. */
AVK_EXPORT void avk_schema_store_free(avk_schema_store *store);

/* Parses the schema JSON text json (len bytes) and holds it under its
 * CRC-64-AVRO fingerprint, and under id when id >= 0 (ids above
 * UINT32_MAX are refused). *out (may be NULL) gets the stored schema.
 * Adding a schema already held (avk_type_equal: the same canonical form
 * and attributes) returns that one; one whose canonical form is held but
 * whose attributes differ (a logical type, say a decimal's scale) is held
 * beside it, under the same fingerprint (a lookup by fingerprint gives the
 * first added). An id already bound to a schema not equal to this one is
 * refused with AVK_ERR_INVALID_ARGUMENT. Returns AVK_OK; AVK_ERR_SCHEMA
 * (err says where); AVK_ERR_LIMIT (max_schemas); AVK_ERR_NO_MEMORY. */
AVK_EXPORT avk_status avk_schema_store_add(avk_schema_store *store, const char *json, size_t len,
                                           int64_t id, const avk_schema **out, avk_error *err);
/* As avk_schema_store_add for a schema already parsed (the store keeps its
 * own copy; schema may be freed after). */
AVK_EXPORT avk_status avk_schema_store_add_schema(avk_schema_store *store,
                                                  const avk_schema *schema, int64_t id,
                                                  const avk_schema **out, avk_error *err);
/* Adds every regular file of directory dir named ID.avsc (ID a decimal
 * number below 2^32, without leading zeros) under its id, in order of id;
 * other names, and entries that are not regular files (directories, FIFOs,
 * devices: never opened for a read that could block), are ignored.
 * Returns AVK_OK;
 * AVK_ERR_IO (err names the file); a file's AVK_ERR_SCHEMA (err names the
 * file); the statuses of avk_schema_store_add. */
AVK_EXPORT avk_status avk_schema_store_load_dir(avk_schema_store *store, const char *dir,
                                                avk_error *err);
/* Adds the schemas of one JSON file, in any of these shapes:
 *   {"1": SCHEMA, "7": SCHEMA, ...}               ids as keys
 *   [{"id": 1, "schema": SCHEMA}, ...]            "schema" a schema, or a
 *                                                 string holding its JSON (as
 *                                                 the Confluent registry's
 *                                                 REST API returns it);
 *                                                 "id" may be left out
 *   [SCHEMA, ...]                                 schemas without ids
 * Wherever a SCHEMA goes, a JSON string starting (after white space) with
 * {, [ or " holds a schema's JSON text, as the Confluent registry's REST
 * API returns it ("{\"type\": \"record\", ...}", "\"int\""); any other
 * string is a type name ("int"), as in a schema. A path naming a FIFO or
 * pipe is read as given (it may block until its writer writes).
 * Returns AVK_OK; AVK_ERR_IO; AVK_ERR_MALFORMED for JSON that is none of
 * these (err says where); the statuses of avk_schema_store_add. */
AVK_EXPORT avk_status avk_schema_store_load_file(avk_schema_store *store, const char *path,
                                                 avk_error *err);

/* The schema held under a fingerprint or an id, asking the fetch callback
 * when absent. Returns AVK_OK with *out set; AVK_ERR_NOT_FOUND (the
 * message gives the key in hex or decimal); the callback's status. */
AVK_EXPORT avk_status avk_schema_store_find_fingerprint(avk_schema_store *store,
                                                        uint64_t fingerprint,
                                                        const avk_schema **out, avk_error *err);
AVK_EXPORT avk_status avk_schema_store_find_id(avk_schema_store *store, uint32_t id,
                                               const avk_schema **out, avk_error *err);
/* Number of schemas held. */
AVK_EXPORT size_t avk_schema_store_count(avk_schema_store *store);

/* The plan that decodes data written with writer (a schema the store
 * returned) into reader (NULL: writer's own root type; a plain plan): a
 * resolving plan when reader is given, compiled on first use and returned
 * from then on for the same pair. reader must outlive the store's use of
 * it (the pair is keyed by the type's address). Returns AVK_OK;
 * AVK_ERR_RESOLUTION (err says which field cannot be resolved);
 * AVK_ERR_NO_MEMORY; AVK_ERR_INVALID_ARGUMENT. */
AVK_EXPORT avk_status avk_schema_store_plan(avk_schema_store *store, const avk_schema *writer,
                                            const avk_type *reader, const avk_plan **out,
                                            avk_error *err);

/* ---- Encoding messages --------------------------------------------------- */

/* What a message encoder needs; caller storage, filled by
 * avk_message_encoder_init, then read-only (shareable between threads). */
typedef struct avk_message_encoder {
    const avk_plan *plan;
    avk_framing framing;
    size_t header_size;                           /* 0, 10 or 5 */
    uint8_t header[AVK_SINGLE_OBJECT_HEADER_SIZE]; /* the first header_size bytes */
} avk_message_encoder;

/* Prepares enc to write messages of plan's type (a plain plan, not a
 * resolving one) in framing: single-object computes the fingerprint once;
 * confluent uses id. Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT (bad
 * framing, id above UINT32_MAX for confluent, a resolving plan). */
AVK_EXPORT avk_status avk_message_encoder_init(avk_message_encoder *enc, avk_framing framing,
                                               const avk_plan *plan, int64_t id, avk_error *err);
/* Writes one message (header, then v encoded by the plan) to w. Statuses
 * of avk_plan_encode; on error a memory writer is put back where it was. */
AVK_EXPORT avk_status avk_message_encode(const avk_message_encoder *enc, const avk_value *v,
                                         avk_writer *w, avk_error *err);

/* ---- Decoding messages --------------------------------------------------- */

typedef struct avk_message_decoder avk_message_decoder;

typedef struct avk_message_decoder_options {
    size_t struct_size;       /* sizeof(avk_message_decoder_options) */
    avk_framing framing;
    avk_schema_store *store;  /* single-object and confluent: where writer
                                 schemas are found (required); must outlive
                                 the decoder */
    const avk_plan *plan;     /* raw: the plan that decodes the datums
                                 (required; resolving or plain); must outlive
                                 the decoder */
    const avk_type *reader;   /* single-object and confluent: values come out
                                 in this type, resolved from each message's
                                 writer schema (NULL: in the writer's own) */
    const avk_allocator *allocator; /* NULL means the C library */
} avk_message_decoder_options;

/* Makes a decoder; it belongs to one thread at a time (many decoders may
 * share one store). It remembers the last few writer schemas it saw, so a
 * stream of messages of one schema costs no store lookup. Returns AVK_OK,
 * AVK_ERR_INVALID_ARGUMENT (a required option missing), AVK_ERR_NO_MEMORY. */
AVK_EXPORT avk_status avk_message_decoder_new(const avk_message_decoder_options *opts,
                                              avk_message_decoder **out, avk_error *err);
AVK_EXPORT void avk_message_decoder_free(avk_message_decoder *dec);

/* Decodes the one message msg (len bytes) into *out, allocating from arena;
 * strings and bytes may point into msg (unless the store's plan options
 * say AVK_PLAN_COPY_STRINGS). Returns AVK_OK; AVK_ERR_TRUNCATED (message
 * shorter than its header, or ending inside the datum); AVK_ERR_MALFORMED
 * (bad marker or magic byte, bytes left after the datum, what
 * avk_plan_decode refuses); AVK_ERR_NOT_FOUND (fingerprint or id unknown
 * to the store); AVK_ERR_RESOLUTION (writer schema cannot be read as the
 * reader type); AVK_ERR_LIMIT; AVK_ERR_NO_MEMORY. err->offset is the byte
 * offset in msg. */
AVK_EXPORT avk_status avk_message_decode(avk_message_decoder *dec, const void *msg, size_t len,
                                         avk_arena *arena, avk_value *out, avk_error *err);
/* The writer schema of the last message decoded (NULL before one, and for
 * raw); its plan's type is avk_value's type when no reader type is set. */
AVK_EXPORT const avk_schema *avk_message_decoder_writer(const avk_message_decoder *dec);
/* The plan the last message was decoded with (NULL before one). */
AVK_EXPORT const avk_plan *avk_message_decoder_plan(const avk_message_decoder *dec);

#ifdef __cplusplus
}
#endif
#endif
