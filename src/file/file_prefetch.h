/* Private read-ahead of the container file reader: block slots, and worker threads that decompress queued ones. */
#ifndef AVK_FILE_FILE_PREFETCH_H
#define AVK_FILE_FILE_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/codec.h"
#include "avrokit/file.h"
#include "avrokit/status.h"
#include "codec/codec_state.h"

/* One block as the reader's thread read it, and, once decompressed, its
 * data. The reader's thread writes blk, end, read_* and pending before the
 * slot is queued; while queued, a worker may write data, st, err and
 * decompressed (and only reads blk). */
typedef struct avki_block_slot {
    avk_file_block blk;  /* offset and index always; the rest when read_st is AVK_OK and !end */
    int end;             /* the clean end of the input was reached instead */
    avk_status read_st;  /* reading count, size, data and sync */
    avk_error read_err;
    avk_status pending;  /* the file ends inside the marker after whole data: */
    avk_error pending_err; /* reported after the block's records */
    avk_buffer stored;   /* stream input: the stored bytes (blk.data points here) */
    avk_buffer data;     /* decompressed data */
    avki_codec_state codec_state; /* kept from block to block */
    int decompressed;    /* st, err and data hold the outcome */
    avk_status st;
    avk_error err;
} avki_block_slot;

void avki_block_slot_init(avki_block_slot *s, const avk_allocator *alloc);
void avki_block_slot_destroy(avki_block_slot *s);

/* Decompresses s->blk with codec c into s->data (refusing more than
 * max_out bytes); the outcome goes to s->st and s->err. */
void avki_block_slot_decompress(avki_block_slot *s, avk_codec c, size_t max_out);

/* A ring of slots: the one the reader took last (its current block, kept
 * until the next take, release or reset), then the queued ones in file
 * order, then free ones. Workers (slots - 1 of them, started on the first
 * queued block that needs decompressing) take queued blocks in order. All
 * calls but the workers' come from the reader's thread. */
typedef struct avki_prefetch avki_prefetch;

/* Allocates the ring (nslots >= 2 slots, their buffers from *alloc);
 * starts no thread. Returns AVK_OK or AVK_ERR_NO_MEMORY. */
avk_status avki_prefetch_new(const avk_allocator *alloc, avk_codec c, size_t max_out,
                             unsigned nslots, avki_prefetch **out);

/* Stops and joins the workers (after the block each is on), frees all. */
void avki_prefetch_free(avki_prefetch *pf);

/* The free slot to read the next block into, or NULL when none is free. */
avki_block_slot *avki_prefetch_slot_to_fill(avki_prefetch *pf);

/* Queues the slot slot_to_fill returned, for the workers when decompress
 * is set (otherwise it is just handed back in order by take). */
void avki_prefetch_push(avki_prefetch *pf, int decompress);

/* Queued blocks, and the first of them (NULL when none). */
size_t avki_prefetch_queued(const avki_prefetch *pf);
const avki_block_slot *avki_prefetch_head(const avki_prefetch *pf);

/* Gives back the slot taken last (nothing when none is held). */
void avki_prefetch_release(avki_prefetch *pf);

/* Pops the first queued slot, or returns NULL when none is queued. With
 * decompress, its data is ready on return (a worker's, or decompressed
 * here when no worker had started on it); without, a worker's pending
 * job on it is cancelled or waited for. The slot is the caller's alone
 * until the next take, release or reset. */
avki_block_slot *avki_prefetch_take(avki_prefetch *pf, int decompress);

/* Drops every queued slot and the held one (waits for workers busy on
 * them); the workers stay. */
void avki_prefetch_reset(avki_prefetch *pf);

#endif
