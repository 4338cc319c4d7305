/* Private: the container file reader's state, shared by the reader, its work on blocks and its parallel decoding. */
#ifndef AVK_FILE_FILE_READER_INTERNAL_H
#define AVK_FILE_FILE_READER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/file.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "file/file_internal.h"
#include "file/file_prefetch.h"

struct avk_file_reader {
    avk_allocator alloc;
    avki_file_header hdr;
    avk_plan *plan;
    avk_plan *relaxed;   /* plan without size limits, made on the first record
                            limit (see limit_or_damage) */
    int relaxed_tried;   /* making it failed once: a limit stays a limit */
    avk_plan_options plan_opts;
    const avk_schema *reader_schema; /* NULL: records are read as written */
    uint64_t min_record; /* fewest bytes a record takes */
    uint64_t max_empty;  /* most records of zero bytes in one block */
    unsigned flags;
    uint64_t max_header, max_block_bytes, max_block_data;
    uint64_t max_meta_entries; /* 0: the header's default */
    size_t buffer_size;
    avk_file_skip_fn on_skip;
    void *on_skip_ctx;
    avk_file_work_fn work; /* work on blocks (next_work), or NULL */
    void *work_ctx;

    /* Input: a memory reader over mem (the caller's bytes or a mapping), or
     * a stream reader (streaming) over a file read through a buffer
     * (seekable, file_len bytes long) or a pipe. */
    avk_reader in;
    int streaming;
    int seekable;
    uint64_t file_len;
    const uint8_t *mem;
    size_t mem_len;
    void *map;
    size_t map_len;
    int own_fd;      /* closed by free */
    uint64_t origin; /* file offset of the stream reader's offset 0 */

    /* The current block: as stored, where its bytes are (one, or a
     * read-ahead slot), and the records' reader. */
    avk_file_block cur;
    avki_block_slot one; /* blocks read when nothing is read ahead */
    avki_block_slot *slot;
    avk_reader blk;
    int64_t remaining; /* records of the block not yet returned */
    int64_t record;    /* index in the block of the next record */
    int ahead;         /* the block's records come from its slot (decode-ahead) */
    uint64_t blk_offset, blk_index, next_index;

    avk_status pending; /* reported once the block's records are out */
    avk_error pending_err;
    avk_status sticky;  /* a final error, returned by every later call */
    avk_error sticky_err;
    avk_file_reader_stats stats;

    /* Read-ahead (threads > 1 and a codec that compresses): blocks read in
     * order by this thread, decompressed by workers. It stops after a block
     * whose reading failed, the end, or a cut marker, so the input then
     * stands where reading block by block would have left it. */
    unsigned threads;
    unsigned ring;     /* slots of the read-ahead: threads, or 2 x threads when
                          workers decode (fr->one is slot number ring) */
    avki_prefetch *pf;
    int ra_stop;       /* the last queued block stops read-ahead */
    uint64_t ra_index; /* index of the next block read ahead */
};

/* Between file_reader.c and file_work.c. */

/* Moves to the next block (read ahead when records is set); see file_reader.c. */
avk_status avki_file_take_block(avk_file_reader *fr, int records, int *end, avk_error *err);
/* Decompresses the current block unless done, checks its count, points
 * fr->blk at its records and counts it in the stats. */
avk_status avki_file_open_block(avk_file_reader *fr, avk_error *err);
/* A failure: skipped (AVK_OK), a limit moved past, or final. */
avk_status avki_file_after_failure(avk_file_reader *fr, avk_status st, const avk_error *e,
                                   int rescan, avk_error *err);
avk_status avki_file_fail(avk_file_reader *fr, avk_status st, const avk_error *e,
                          avk_error *err);
/* An error waiting after the last block's records: skipped (AVK_OK, *skipped
 * set) or final. */
avk_status avki_file_take_pending(avk_file_reader *fr, int *skipped, avk_error *err);
/* The checks every block's data passes before its records are decoded
 * (size against max_block_data for the null codec, the count against the
 * data); pure, so workers run them too. err may be NULL. */
avk_status avki_file_block_check(const avk_file_reader *fr, const avk_file_block *blk,
                                 size_t len, avk_error *err);

/* Makes fr->relaxed (the plan without size limits) unless made; before
 * workers start, or work runs, since they share it. */
void avki_file_relaxed_ready(avk_file_reader *fr);

/* The slot work of the read-ahead (file_work.c): decompress, then the
 * caller's work or decoding ahead. Runs on a worker or the reader's thread. */
void avki_file_process_slot(void *ctx, avki_block_slot *s);
/* Runs the work on the current block on the caller's thread when no worker did. */
void avki_file_work_here(avk_file_reader *fr, avki_block_slot *s, const uint8_t *data,
                         size_t len);
/* One record from a block decoded ahead (out NULL: skipped). */
avk_status avki_file_next_ahead(avk_file_reader *fr, avk_arena *arena, avk_value *out,
                                avk_error *e);

#endif
