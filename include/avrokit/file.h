/* Object container files: read them record by record or block by block, seek to sync markers, write and append. */
#ifndef AVROKIT_FILE_H
#define AVROKIT_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/alloc.h"
#include "avrokit/arena.h"
#include "avrokit/codec.h"
#include "avrokit/macros.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "avrokit/value.h"
#include "avrokit/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An object container file is the magic "Obj\x01", a metadata map (bytes
 * values; avro.schema holds the schema JSON, avro.codec the codec name,
 * absent meaning null), a 16-byte sync marker, then blocks: a record count
 * (long), the byte size of the block's data (long), the data (compressed
 * with the codec), and the sync marker again. */
#define AVK_FILE_SYNC_SIZE 16

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct avk_file_reader avk_file_reader;

/* Reader flags. */
#define AVK_FILE_SKIP_BAD_BLOCKS 0x1u /* on a damaged block (bad count or size, sync
                                         mismatch, codec failure, a record that does not
                                         decode, bytes left over), report it through
                                         on_skip, find the next sync marker and go on
                                         instead of failing. Records already returned
                                         from the damaged block stay returned. A limit
                                         (AVK_ERR_LIMIT) is not damage: it is returned,
                                         not reported to on_skip nor counted (see
                                         avk_file_reader_next). */
#define AVK_FILE_DECODE_AHEAD 0x4u /* with threads > 1: the workers decode the
                              records too, not only decompress them (see
                              "Decoding ahead" below). */
#define AVK_FILE_MAP 0x2u /* map a regular file into memory instead of reading it through a
                              buffer: block data and string views then point into the
                              mapping. Slower where page faults are dear (each page first
                              touched costs one), so off by default. */

/* What a reader skipped in AVK_FILE_SKIP_BAD_BLOCKS mode: the error that
 * made it skip (with the block's offset and index; its status is one of
 * TRUNCATED, MALFORMED, SYNC, CODEC, CHECKSUM, never LIMIT), and the byte
 * range it jumped over (from the damaged block's start to the next block,
 * or to the end of the file). */
typedef void (*avk_file_skip_fn)(void *ctx, const avk_error *why, uint64_t from,
                                 uint64_t to);

/* The records of one block, handed to a work function (see
 * avk_file_reader_next_work). */
typedef struct avk_file_records avk_file_records;

/* Work on one block's records, on one of the read-ahead's threads (or on
 * the caller's). slot (below avk_file_reader_slots) names where its results
 * may go: a slot is used by one block at a time, from this call until
 * avk_file_reader_next_work hands that block on and the next call after
 * it, so per-slot state needs no lock. Returns AVK_OK, or a status with
 * err filled (those of avk_file_records_next pass through as they are).
 * Runs on several threads at once: it may read shared state but must not
 * write it without its own lock. */
typedef avk_status (*avk_file_work_fn)(void *ctx, unsigned slot, avk_file_records *records,
                                       avk_error *err);

typedef struct avk_file_reader_options {
    size_t struct_size;        /* sizeof(avk_file_reader_options) */
    unsigned flags;            /* AVK_FILE_* */
    unsigned plan_flags;       /* AVK_PLAN_COPY_STRINGS, AVK_PLAN_CHECK_UTF8 */
    avk_limits limits;         /* for the records; zeros mean the defaults */
    uint64_t max_header_bytes; /* metadata map size; 0 means 64 MiB */
    uint64_t max_block_bytes;  /* one block as stored; 0 means 1 GiB */
    uint64_t max_block_data;   /* one block after decompression; 0 means 1 GiB */
    size_t buffer_size;        /* stream buffer; 0 means 256 KiB */
    avk_file_skip_fn on_skip;  /* may be NULL */
    void *on_skip_ctx;
    const avk_allocator *allocator; /* NULL means the C library */
    unsigned threads;          /* 0 or 1: blocks are decompressed on the caller's
                                  thread as it reaches them. N > 1 (above 64
                                  counts as 64):
                                  next and skip read up to N blocks ahead and N - 1
                                  worker threads decompress them while the caller
                                  decodes the current one (see below). */
    const avk_schema *reader_schema; /* NULL: records come out in the file's own
                                  schema. Otherwise they are resolved into this
                                  one (see resolve.h): writer fields it lacks are
                                  skipped unread, its fields the file lacks take
                                  their defaults. Opening fails with
                                  AVK_ERR_RESOLUTION when the schemas cannot be
                                  resolved. Must outlive the reader. */
    uint64_t max_meta_entries; /* metadata entries in the header; 0 means 65,536.
                                  Checked before anything is allocated for them.
                                  Callers built before this field pass
                                  offsetof(avk_file_reader_options,
                                  max_meta_entries) as struct_size and get the
                                  default. */
    avk_file_work_fn work;     /* NULL, or work done on every block by the
                                  read-ahead's threads: see
                                  avk_file_reader_next_work. Callers built
                                  before this field pass offsetof(
                                  avk_file_reader_options, work) as
                                  struct_size: accepted, NULL. */
    void *work_ctx;
} avk_file_reader_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_file_reader_options o;
 *     avk_file_reader_options_init(&o);
 */
static inline void avk_file_reader_options_init(avk_file_reader_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* Threads. A reader belongs to one thread at a time, with or without
 * options.threads; its calls, on_skip included, run on the caller's thread.
 * With threads = N > 1 and a file whose codec is not null, up to N - 1
 * worker threads (with every signal blocked) start as blocks are queued
 * for them, one for each block queued after the first (a file of one or
 * two blocks starts none or one; a larger file all of them on its first
 * read-ahead), and avk_file_reader_free stops and joins them; a null-codec
 * file starts none. The caller's thread still does all reading and checking in file
 * order; the workers only decompress. Memory: up to N blocks in flight,
 * each with its own buffers (its bytes as stored, when not read from
 * memory, and decompressed: up to N x (max_block_bytes + max_block_data)).
 * The allocator must then be safe to call from several threads at once.
 * When the read-ahead's own memory cannot be allocated, the reader goes on
 * as with threads = 0 (no error); a worker that cannot be started leaves
 * its share to the caller's thread.
 * Records, errors (status, err->offset, err->block, message, and records
 * of earlier blocks delivered first), stats, on_skip calls and
 * avk_file_reader_block_offset are the same as without threads; seeking
 * and next_block drop or use up what was read ahead. Read-ahead waits for
 * the next blocks to arrive: reading a pipe that a live producer fills,
 * records of a block come once the following N - 1 blocks (or the end)
 * have arrived. */

/* Opens a container file. The header (magic, metadata, schema, codec, sync
 * marker) is read and checked before these return; the blocks are read as
 * the caller asks for them.
 * - _path: "-" means standard input. Read through a buffer of buffer_size
 *   bytes (or mapped whole with AVK_FILE_MAP, regular files only); a
 *   regular file can seek, a pipe cannot.
 * - _fd: reads from the descriptor's current position; not closed by free.
 *   Seeking needs a seekable descriptor.
 * - _memory: data[0..len) must outlive the reader. Nothing is copied for
 *   null-codec files.
 * opts may be NULL. Returns AVK_OK; AVK_ERR_MALFORMED (wrong magic, with a
 * clear message for the legacy Avro 1.2 format, a bad metadata map, a
 * missing avro.schema; a metadata key that appears twice, named with the
 * byte offset of its second entry, since implementations differ on which
 * value they keep; a key holding a NUL byte, which C-string APIs would cut
 * short, or that is not valid UTF-8, which Python refuses and Java reads
 * as U+FFFD; a metadata block whose byte size is not what its entries
 * take);
 * AVK_ERR_TRUNCATED (header cut short); AVK_ERR_SCHEMA (avro.schema does
 * not parse; err->path says where); AVK_ERR_CODEC (an unknown codec name,
 * quoted); AVK_ERR_UNSUPPORTED (a codec this build left out, named with
 * the CMake option that builds it); AVK_ERR_LIMIT (header above
 * max_header_bytes, or more entries than max_meta_entries); AVK_ERR_IO
 * (open, read or mmap failed; err->sys_errno); AVK_ERR_NO_MEMORY;
 * AVK_ERR_INVALID_ARGUMENT. On failure *out is NULL. Header memory: about
 * the header's bytes plus at most 128 bytes an entry while it is read
 * (entries beyond max_meta_entries are refused at their count, before
 * anything is allocated for them).
 *
 *     avk_file_reader *fr;
 *     if (avk_file_reader_open_path("data.avro", NULL, &fr, &err) != AVK_OK) ...
 *     avk_arena *arena;  avk_arena_new(NULL, &arena, &err);
 *     avk_value v;  int more;
 *     while (avk_file_reader_next(fr, arena, &v, &more, &err) == AVK_OK && more) {
 *         use(&v);
 *         avk_arena_reset(arena);
 *     }
 *     avk_file_reader_free(fr);
 */
AVK_EXPORT avk_status avk_file_reader_open_path(const char *path,
                                                const avk_file_reader_options *opts,
                                                avk_file_reader **out, avk_error *err);
AVK_EXPORT avk_status avk_file_reader_open_fd(int fd, const avk_file_reader_options *opts,
                                              avk_file_reader **out, avk_error *err);
AVK_EXPORT avk_status avk_file_reader_open_memory(const void *data, size_t len,
                                                  const avk_file_reader_options *opts,
                                                  avk_file_reader **out, avk_error *err);

/* Closes what open_path opened and frees everything. NULL is ignored. */
AVK_EXPORT void avk_file_reader_free(avk_file_reader *fr);

/* The writer's schema (owned by the reader), its compiled plan, the codec
 * (*nonstandard set to 1 when the file named it "lzma" or "zstd" rather
 * than "xz" or "zstandard"; may be NULL), the sync marker (16 bytes) and
 * the header's size in bytes (the offset of the first block). */
AVK_EXPORT const avk_schema *avk_file_reader_schema(const avk_file_reader *fr);
AVK_EXPORT const avk_plan *avk_file_reader_plan(const avk_file_reader *fr);
AVK_EXPORT avk_codec avk_file_reader_codec(const avk_file_reader *fr, int *nonstandard);
AVK_EXPORT const uint8_t *avk_file_reader_sync(const avk_file_reader *fr);
AVK_EXPORT uint64_t avk_file_reader_header_size(const avk_file_reader *fr);

/* Metadata entries in file order, avro.* ones included. Keys are
 * NUL-terminated UTF-8 and hold no other NUL byte, and no key appears twice
 * (the reader refuses other files); values are bytes (not terminated; *len
 * set). Owned by the reader. Index out of range returns 0 (and leaves the
 * outputs alone). */
AVK_EXPORT size_t avk_file_reader_meta_count(const avk_file_reader *fr);
AVK_EXPORT int avk_file_reader_meta_at(const avk_file_reader *fr, size_t i, const char **key,
                                       const uint8_t **value, size_t *len);
/* The value of key, or NULL (with *len untouched) when absent. */
AVK_EXPORT const uint8_t *avk_file_reader_meta(const avk_file_reader *fr, const char *key,
                                               size_t *len);

/* Decodes the next record into *out (memory from arena). Sets *more to 1
 * with a record, or to 0 at the clean end of the file (and every call after
 * it). Strings, bytes and fixed in *out may view the reader's block buffer
 * (or the input): they stay valid until the next call on this reader that
 * moves it, unless plan_flags has AVK_PLAN_COPY_STRINGS.
 * Returns AVK_OK or, with err->offset the block's file offset and
 * err->block its index (the message says both, and for a record error the
 * record's index in the block and its schema path):
 * AVK_ERR_TRUNCATED (the file ends inside a block: every record of the
 * blocks before it has been returned); AVK_ERR_MALFORMED (negative or
 * oversized count or size, a record that does not decode, a count that
 * lies, bytes left over after the block's records); AVK_ERR_SYNC;
 * AVK_ERR_CODEC, AVK_ERR_CHECKSUM (snappy CRC); AVK_ERR_LIMIT (a block above
 * max_block_bytes / max_block_data, or a record limit); AVK_ERR_IO;
 * AVK_ERR_NO_MEMORY. With AVK_FILE_SKIP_BAD_BLOCKS, damage is reported to
 * on_skip and reading goes on; I/O and memory errors are returned and
 * final; a limit (a block above max_block_bytes / max_block_data, a count
 * of zero-byte records above max_empty_items, or a record limit) is
 * returned as AVK_ERR_LIMIT with the block's place, because the block may
 * be valid data that larger limits read: the rest of that block is
 * dropped (records returned before stay returned), the reader moves to
 * the next block, and a further call goes on from there (so a caller may
 * report the limit and read the rest; avk_file_reader_block_offset then
 * gives where the dropped range ends). It is not counted in bad_blocks.
 * Otherwise, after an error the reader is done: further calls return the
 * same status. */
AVK_EXPORT avk_status avk_file_reader_next(avk_file_reader *fr, avk_arena *arena, avk_value *out,
                                           int *more, avk_error *err);

/* Skips the next record without building it. *more and statuses as next. */
AVK_EXPORT avk_status avk_file_reader_skip(avk_file_reader *fr, int *more, avk_error *err);

/* One block as stored in the file. */
typedef struct avk_file_block {
    uint64_t offset;      /* file offset of the block (its count varint) */
    uint64_t index;       /* 0 for the first block read after open or seek */
    int64_t count;        /* records in the block */
    const uint8_t *data;  /* the block's bytes as stored (compressed) */
    size_t size;          /* their length */
    uint64_t end;         /* file offset just after its sync marker */
} avk_file_block;

/* Reads the next block, checks its sync marker and returns it without
 * decompressing or decoding it (block->data stays valid until the next
 * call that moves the reader). A last block whose data is whole but whose
 * marker the end of the file cuts short is still returned, as next
 * returns its records; the call after it reports AVK_ERR_TRUNCATED.
 * Records of a block partly read by avk_file_reader_next are not returned
 * again: this starts at the next block. *more as next. Statuses as next,
 * except record errors (no record is decoded). The count is checked as
 * next checks it, so a count no reading would confirm is never handed on:
 * AVK_ERR_MALFORMED when a null-codec block's count times the smallest
 * record is more than its bytes (2^62 records in 1 byte); AVK_ERR_LIMIT
 * when a compressed block's count times the smallest record is more than
 * max_block_data, or a count of records of zero bytes each (schema "null",
 * an empty record) is above limits.max_empty_items. With
 * AVK_FILE_SKIP_BAD_BLOCKS a block with a bad count, size or sync is
 * skipped, and one above max_block_bytes returned as next does. Use it for counting (sum of counts), copying blocks between
 * files with the same codec, or handing blocks to worker threads
 * (avk_file_block_decompress, then avk_plan_decode with
 * avk_file_reader_plan's plan, are safe to call from many threads at once,
 * each with its own buffer and arena). */
AVK_EXPORT avk_status avk_file_reader_next_block(avk_file_reader *fr, avk_file_block *block,
                                                 int *more, avk_error *err);

/* ---- Parallel decoding ---------------------------------------------------
 *
 * Decoding ahead (flags AVK_FILE_DECODE_AHEAD, threads = N > 1, any codec):
 * avk_file_reader_next and skip return the same records, statuses, errors,
 * stats and on_skip calls as without, but N - 1 worker threads (and the
 * caller's, when it would otherwise wait) decompress and decode up to 2N
 * blocks ahead of the caller, each block into memory of its own. The
 * records returned then live in the reader, not in the caller's arena
 * (whatever plan_flags say): they stay valid until the call that moves
 * past their block (as string views do), so a caller that keeps records
 * longer copies them (or reads without the flag). Their memory comes from
 * the reader's allocator, not from the caller's arena, so an arena's own
 * limit (avk_arena_options) does not apply to them. A block's records
 * decoded ahead are held up to 65,536 at a time or 32 MiB of values; the
 * rest of a larger block is decoded on the caller's thread into its arena.
 * Memory: up to 2N blocks in flight, each with its data and its decoded
 * values.
 *
 * Work on blocks (options.work set; threads = N > 1 for parallelism,
 * otherwise the work runs on the caller's thread): read
 * the file with avk_file_reader_next_work instead of next. The reader's
 * thread reads and checks blocks in file order; the workers decompress
 * each one and call work(ctx, slot, records) on it, where records decodes
 * with the reader's plan, checks and messages (avk_file_records_next). The
 * caller gets the blocks back in file order, each with its slot, and takes
 * the results out of its per-slot state. Use it to decode into anything:
 * values, columns (avk_columns_decode over avk_file_records_data), text,
 * generated structs. */

/* How many slot numbers work functions may be called with (slots are
 * numbered from 0): 1 without threads, 2N + 1 with threads = N. */
AVK_EXPORT unsigned avk_file_reader_slots(const avk_file_reader *fr);

/* The next block, its work done. On AVK_OK with *more = 1: *slot holds its
 * results and *records says how many records the work took from it
 * (records decoded or skipped with avk_file_records_*); both stay the
 * block's until the next call. *more = 0 at the clean end.
 * Errors are those of avk_file_reader_next, in the same order and with
 * the same messages, and a work that failed is one of them:
 * - reading, decompressing or the block's count failed: the block had no
 *   work; *slot is AVK_FILE_NO_SLOT;
 * - the work returned a status: *slot and *records are set (the records
 *   it took before the failure are in the slot). In
 *   AVK_FILE_SKIP_BAD_BLOCKS mode damage goes to on_skip and the call
 *   returns AVK_OK with the block (as next returns the records before
 *   damage); a limit is returned and reading may go on, as with next.
 * A block whose work took all its records and left bytes after them is
 * reported (MALFORMED) by the call after the one that hands it on.
 * Stats count the records the work took. After next or skip left a block
 * partly read (e.g. after avk_file_reader_seek_record), the first call
 * hands on the rest of that block, its work run on the caller's thread
 * (the records cursor starts at the reader's record). Returns
 * AVK_ERR_INVALID_ARGUMENT when the reader has no work function. */
#define AVK_FILE_NO_SLOT 0xFFFFFFFFu
AVK_EXPORT avk_status avk_file_reader_next_work(avk_file_reader *fr, unsigned *slot,
                                                int64_t *records, int *more, avk_error *err);

/* For work functions: the next record of the block into *out (memory from
 * arena), with *more = 1, or *more = 0 after the last one. Statuses and
 * messages are avk_file_reader_next's (the block's place, the record's
 * index and schema path; bytes left after the last record are MALFORMED,
 * reported by the call after it). After a failure the cursor is done. */
AVK_EXPORT avk_status avk_file_records_next(avk_file_records *records, avk_arena *arena,
                                            avk_value *out, int *more, avk_error *err);
/* The same, skipping the record (nothing is built). */
AVK_EXPORT avk_status avk_file_records_skip(avk_file_records *records, int *more,
                                            avk_error *err);
/* The block (offset, index, count; data and size as stored). */
AVK_EXPORT const avk_file_block *avk_file_records_block(const avk_file_records *records);
/* The block's decompressed data, for decoders of their own. */
AVK_EXPORT const uint8_t *avk_file_records_data(const avk_file_records *records, size_t *len);
/* The bytes of the record the last successful next or skip took (to copy
 * records whole). */
AVK_EXPORT const uint8_t *avk_file_records_last(const avk_file_records *records, size_t *len);
/* Records taken so far, and the plan they are decoded with. */
AVK_EXPORT int64_t avk_file_records_done(const avk_file_records *records);
AVK_EXPORT const avk_plan *avk_file_records_plan(const avk_file_records *records);

/* Decompresses a block's data with the reader's codec and limits into out
 * (contents replaced). Touches nothing in fr but its settings, so it may run
 * on many threads at once (each with its own buffer). Statuses: AVK_OK,
 * AVK_ERR_CODEC, AVK_ERR_CHECKSUM, AVK_ERR_LIMIT, AVK_ERR_NO_MEMORY. */
AVK_EXPORT avk_status avk_file_block_decompress(const avk_file_reader *fr,
                                                const avk_file_block *block, avk_buffer *out,
                                                avk_error *err);

/* Seeking (path, seekable fd or memory readers; others return
 * AVK_ERR_INVALID_ARGUMENT). Moves to the first block whose preceding sync
 * marker starts at or after offset (the header's marker counts: an offset
 * at or before it gives the first block), scanning forward from offset; at
 * the end of the file the next read reports *more = 0. Block indexes
 * restart at 0.
 *
 * Splitting a file of size n into parts [a, b): each worker opens the file,
 * seeks to a and reads blocks while block.offset - 16 < b (the start of the
 * marker before the block). Every block then belongs to exactly one part.
 * A 16-byte match inside data that is not a marker is possible (odds of
 * 2^-128 per position) and would show as a damaged block. */
AVK_EXPORT avk_status avk_file_reader_seek_sync(avk_file_reader *fr, uint64_t offset,
                                                avk_error *err);

/* Moves to the block that starts at offset exactly (a block.offset from an
 * earlier read; the header size for the first block). Same readers as
 * seek_sync. */
AVK_EXPORT avk_status avk_file_reader_seek_block(avk_file_reader *fr, uint64_t offset,
                                                 avk_error *err);

/* File offset of the block the next record comes from (or of the next
 * block when between blocks): with seek_block, a place to come back to. */
AVK_EXPORT uint64_t avk_file_reader_block_offset(const avk_file_reader *fr);

/* Totals since open. */
typedef struct avk_file_reader_stats {
    uint64_t blocks;          /* blocks opened for their records (data whole; a
                                 last one may have a cut marker) */
    uint64_t records;         /* records returned or skipped by next/skip */
    uint64_t bytes_stored;    /* block data as stored */
    uint64_t bytes_data;      /* block data after decompression */
    uint64_t bad_blocks;      /* damaged blocks skipped (AVK_FILE_SKIP_BAD_BLOCKS;
                                 blocks dropped for a limit are not counted) */
    uint64_t bad_bytes;       /* bytes jumped over because of them */
} avk_file_reader_stats;
AVK_EXPORT void avk_file_reader_get_stats(const avk_file_reader *fr, avk_file_reader_stats *out);

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

typedef struct avk_file_writer avk_file_writer;

/* One user metadata entry. Keys are non-empty, NUL-terminated (so they hold
 * no NUL byte) and valid UTF-8 (metadata keys are Avro strings), each given
 * once; keys starting with "avro." are reserved for the format. */
typedef struct avk_file_meta {
    const char *key;
    const void *value;
    size_t len;
} avk_file_meta;

typedef struct avk_file_writer_options {
    size_t struct_size;         /* sizeof(avk_file_writer_options) */
    avk_codec codec;            /* AVK_CODEC_NULL (0) by default */
    int level;                  /* codec level, 0 for its default (see codec.h) */
    size_t block_bytes;         /* a block is written when its uncompressed data
                                   reaches this; 0 means 64 KiB */
    uint64_t block_records;     /* ... or when it holds this many records; 0: no limit */
    const uint8_t *sync;        /* 16 bytes; NULL means random (getrandom) */
    const avk_file_meta *meta;  /* user metadata, meta_count entries */
    size_t meta_count;
    unsigned plan_flags;        /* AVK_PLAN_BLOCK_SIZES */
    size_t block_items;         /* items per array/map block, as in avk_plan_options */
    const avk_allocator *allocator; /* NULL means the C library */
    unsigned threads;           /* compression threads, the caller's included:
                                   0 or 1 compress on the caller's thread;
                                   N (2-64) see below. Ignored by the null
                                   codec. Callers built before this field
                                   pass offsetof(avk_file_writer_options,
                                   threads) as struct_size: accepted, 0. */
    uint64_t flags;             /* AVK_FILE_WRITER_* (below). Callers built before
                                   this field pass offsetof(avk_file_writer_options,
                                   flags) as struct_size: accepted, 0. */
} avk_file_writer_options;

/* avk_file_writer_append_path on a file whose end is a torn tail (see
 * "Durability" below): cut the tail off and append after the last complete
 * block, instead of refusing. Damage followed by a complete block is never
 * cut, flag or not. */
#define AVK_FILE_WRITER_TRUNCATE_TORN_TAIL 0x1u

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_file_writer_options o;
 *     avk_file_writer_options_init(&o);
 */
static inline void avk_file_writer_options_init(avk_file_writer_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* Compression threads (threads = N > 1, any codec but null): N - 1 worker
 * threads (POSIX threads) compress full blocks while the caller encodes the
 * next ones, and the caller compresses one itself when it would otherwise
 * wait. The output is byte for byte what threads = 0 writes.
 * - At most N blocks are in flight besides the one being filled: memory is
 *   about (N + 1) block buffers (block_bytes and 1/8 more each) plus N
 *   compressed copies, plus each codec's working state per thread busy
 *   compressing (xz at -9 needs some 700 MiB each).
 * - Blocks reach the destination strictly in order and only from the
 *   caller's thread (the fd or sink is never touched by a worker), when the
 *   caller appends a record that fills a block (every finished block at
 *   the head is written then, without waiting; the call waits only when
 *   all N blocks are in flight), and on append_block, flush and close,
 *   which wait for all of them.
 * - A failed compression (AVK_ERR_NO_MEMORY, AVK_ERR_CODEC, AVK_ERR_LIMIT)
 *   is reported by the next append, flush or close (the blocks before it
 *   are written first) and leaves the writer broken, as a write error does:
 *   later calls return the same status. Failing to start threads is not an
 *   error: the caller's thread then compresses everything.
 * - The allocator is called from the workers too, but always one call at a
 *   time (the writer serializes them), so it need not be thread-safe.
 * - The writer still belongs to one thread at a time: only the calls are
 *   spread, not the object. */

/* Creates a container file for records of schema (copied; the caller keeps
 * its own) and writes its header.
 * - _path: created or truncated (mode 0666 less umask); "-" means standard
 *   output.
 * - _fd: writes at the descriptor's position; not closed.
 * - _sink: every byte goes to sink(ctx, ...).
 * Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT (a metadata key that is empty,
 * not UTF-8, reserved or repeated, named with its entry index; an unknown
 * codec or bad level, NULL arguments; nothing is written);
 * AVK_ERR_UNSUPPORTED (a codec this build left out: avk_codec_available;
 * nothing is written); AVK_ERR_IO; AVK_ERR_NO_MEMORY. On failure *out is
 * NULL. */
AVK_EXPORT avk_status avk_file_writer_open_path(const char *path, const avk_schema *schema,
                                                const avk_file_writer_options *opts,
                                                avk_file_writer **out, avk_error *err);
AVK_EXPORT avk_status avk_file_writer_open_fd(int fd, const avk_schema *schema,
                                              const avk_file_writer_options *opts,
                                              avk_file_writer **out, avk_error *err);
AVK_EXPORT avk_status avk_file_writer_open_sink(avk_sink_fn sink, void *ctx,
                                                const avk_schema *schema,
                                                const avk_file_writer_options *opts,
                                                avk_file_writer **out, avk_error *err);

/* Opens an existing container file to add blocks at its end: its header
 * gives the schema, codec and sync marker (opts->codec, sync and meta are
 * ignored; level, block sizes, plan settings and threads apply). Every
 * block is checked first (counts, sizes and markers; the data is not
 * decoded), so blocks are never added after a broken block frame. Returns the open statuses of the reader and
 * the writer, and:
 * - a torn tail (the file ends with bytes that are not a complete block,
 *   and no block marker follows them: what a writer killed mid-block
 *   leaves): without AVK_FILE_WRITER_TRUNCATE_TORN_TAIL, the reader's
 *   status for it (usually AVK_ERR_TRUNCATED) and a message that says how
 *   many bytes from which offset, nothing changed; with it, the tail is cut
 *   (ftruncate to the end of the last complete block, the last step, once
 *   everything else succeeded) and avk_file_writer_torn_tail tells how many
 *   bytes went;
 * - damage before the end (a complete block follows it): its status, with
 *   or without the flag, nothing changed (avrokit repair copies what is
 *   readable). */
AVK_EXPORT avk_status avk_file_writer_append_path(const char *path,
                                                  const avk_file_writer_options *opts,
                                                  avk_file_writer **out, avk_error *err);

/* The schema records must follow (owned by the writer) and its plan. */
AVK_EXPORT const avk_schema *avk_file_writer_schema(const avk_file_writer *fw);
AVK_EXPORT const avk_plan *avk_file_writer_plan(const avk_file_writer *fw);
AVK_EXPORT const uint8_t *avk_file_writer_sync(const avk_file_writer *fw);

/* Appends one record (checked against the schema as avk_plan_encode does).
 * Statuses: AVK_OK; those of avk_plan_encode (the record is not added);
 * AVK_ERR_CODEC, AVK_ERR_IO from writing a full block. */
AVK_EXPORT avk_status avk_file_writer_append(avk_file_writer *fw, const avk_value *v,
                                             avk_error *err);

/* Appends one record already in Avro binary (len bytes, exactly one datum
 * of the schema: this is not checked). */
AVK_EXPORT avk_status avk_file_writer_append_encoded(avk_file_writer *fw, const void *datum,
                                                     size_t len, avk_error *err);

/* Encoding in place: write one record's bytes into the returned writer
 * (the block buffer; e.g. with avk_plan_encode or an avk_builder), then
 * call record_end. Between the two, nothing else may be called on fw.
 * record_end with commit 0 drops what was written. */
AVK_EXPORT avk_writer *avk_file_writer_record_begin(avk_file_writer *fw);
AVK_EXPORT avk_status avk_file_writer_record_end(avk_file_writer *fw, int commit, avk_error *err);

/* Writes a block that is already encoded and compressed with this writer's
 * codec (e.g. avk_file_block from a reader of a file with the same schema
 * and codec): the pending block goes out first. count must be positive. */
AVK_EXPORT avk_status avk_file_writer_append_block(avk_file_writer *fw, int64_t count,
                                                   const void *data, size_t size, avk_error *err);

/* Writes the pending records as a block (with threads: after waiting for
 * every block in flight, written in order) and flushes the destination. */
AVK_EXPORT avk_status avk_file_writer_flush(avk_file_writer *fw, avk_error *err);

/* Durability. What survives a crash of the process or of the machine:
 * - after avk_file_writer_flush returns AVK_OK, every record appended
 *   before it is in the operating system's hands: it survives the process
 *   being killed (SIGKILL included), not a power loss or kernel crash;
 * - after avk_file_writer_fsync returns AVK_OK, every record appended
 *   before it is on stable storage (fsync(2) of the file; for a file
 *   open_path created, the first call also fsyncs its directory, so the
 *   file's name survives too): it survives a power loss, as far as the
 *   disk honours fsync;
 * - records appended after the last successful flush or fsync may be lost,
 *   whole or in part. When the process dies (killed, crashed), the bytes
 *   that reach the file are a prefix of what the writer would have
 *   written: its header, complete blocks, then at most the beginning of one
 *   block (a torn tail). Readers deliver every complete block (and the
 *   records of a last block whose marker alone is cut) and then report the
 *   tail as AVK_ERR_TRUNCATED at the offset where the last complete block
 *   ends; append_path refuses to add blocks after it unless told to cut it
 *   (AVK_FILE_WRITER_TRUNCATE_TORN_TAIL). After a power loss, what follows
 *   the last fsync may also hold zeros or stale bytes: read as damage, cut
 *   as a torn tail only when no block marker follows it.
 * A writer takes no lock: one writer per file at a time is the caller's
 * to ensure (a second process appending with the flag would cut the block
 * a live writer is in the middle of).
 * A file that open_path created is complete only once close (or fsync)
 * returned AVK_OK; a crash before that may leave it shorter than its
 * header.
 *
 * avk_file_writer_fsync: flushes as avk_file_writer_flush does, then
 * fsync(2)s the file. Returns AVK_OK; the statuses of flush;
 * AVK_ERR_IO when fsync fails (the writer is then broken, as after a write
 * error: after a failed fsync the kernel may have dropped the unwritten
 * data, so a second fsync could not be trusted), or when the directory's
 * fsync fails (the writer stays usable, and the next fsync tries the
 * directory again); AVK_ERR_INVALID_ARGUMENT for a writer made by
 * open_sink (flush it and sync the sink's destination yourself) or whose
 * fd cannot be synced (a pipe, socket or terminal: EINVAL from fsync). */
AVK_EXPORT avk_status avk_file_writer_fsync(avk_file_writer *fw, avk_error *err);

/* Bytes of a torn tail that append_path cut off (0 when none). */
AVK_EXPORT uint64_t avk_file_writer_torn_tail(const avk_file_writer *fw);

/* Flushes, closes what open_path opened, frees. Returns the flush or close
 * status; the writer is freed whatever happens. NULL returns AVK_OK. */
AVK_EXPORT avk_status avk_file_writer_close(avk_file_writer *fw, avk_error *err);

/* Frees without writing the pending block (for error paths); with threads,
 * blocks in flight are dropped and the workers joined (a block being
 * compressed is finished first). */
AVK_EXPORT void avk_file_writer_free(avk_file_writer *fw);

typedef struct avk_file_writer_stats {
    uint64_t blocks;        /* blocks written (not those in flight) */
    uint64_t records;       /* records written (pending ones included) */
    uint64_t bytes_data;    /* uncompressed record bytes (pending ones and blocks
                               in flight included) */
    uint64_t bytes_written; /* bytes handed to the destination or buffered for it,
                               header included (not the pending block nor blocks
                               in flight) */
} avk_file_writer_stats;
AVK_EXPORT void avk_file_writer_get_stats(const avk_file_writer *fw, avk_file_writer_stats *out);

#ifdef __cplusplus
}
#endif

#endif
