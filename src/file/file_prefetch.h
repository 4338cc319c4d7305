/* Private read-ahead of the container file reader: block slots, and worker threads that decompress queued ones. */
#ifndef AVK_FILE_FILE_PREFETCH_H
#define AVK_FILE_FILE_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/arena.h"
#include "avrokit/codec.h"
#include "avrokit/file.h"
#include "avrokit/status.h"
#include "codec/codec_state.h"
#include "file/file_records.h"

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
    /* Work after decompressing (a work function, or decoding ahead), done
     * by whoever processed the slot once the block passed its checks. */
    avk_allocator alloc;
    unsigned number;     /* the slot number work functions see */
    int worked;          /* the work ran: the fields below hold its outcome */
    avk_status work_st;
    avk_error work_err;
    avk_file_records recs; /* the block's records (decoding ahead goes on here) */
    avk_arena *arena;    /* decoding ahead: the records' memory */
    avk_value *values;   /* decoding ahead: nvalues records decoded */
    size_t nvalues, values_cap;
} avki_block_slot;

void avki_block_slot_init(avki_block_slot *s, const avk_allocator *alloc, unsigned number);
void avki_block_slot_destroy(avki_block_slot *s);

/* Decompresses s->blk with codec c into s->data (refusing more than
 * max_out bytes); the outcome goes to s->st and s->err. */
void avki_block_slot_decompress(avki_block_slot *s, avk_codec c, size_t max_out);

/* A ring of slots: the one the reader took last (its current block, kept
 * until the next take, release or reset), then the queued ones in file
 * order, then free ones. Workers (one started for each block queued for
 * processing after the first) take queued blocks in order. All
 * calls but the workers' come from the reader's thread. */
typedef struct avki_prefetch avki_prefetch;

/* What is done to a queued block: process(ctx, slot), on a worker or in take. */
typedef void (*avki_slot_process_fn)(void *ctx, avki_block_slot *s);

/* Allocates the ring (nslots >= 2 slots, numbered from 0, their buffers
 * from *alloc) and nworkers (at least 1) threads to start on the first
 * queued block. Returns AVK_OK or AVK_ERR_NO_MEMORY. */
avk_status avki_prefetch_new(const avk_allocator *alloc, avki_slot_process_fn process,
                             void *ctx, unsigned nslots, unsigned nworkers,
                             avki_prefetch **out);

/* Stops and joins the workers (after the block each is on), frees all. */
void avki_prefetch_free(avki_prefetch *pf);

/* The free slot to read the next block into, or NULL when none is free. */
avki_block_slot *avki_prefetch_slot_to_fill(avki_prefetch *pf);

/* Queues the slot slot_to_fill returned, for the workers when process
 * is set (otherwise it is just handed back in order by take). */
void avki_prefetch_push(avki_prefetch *pf, int process);

/* Queued blocks, and the first of them (NULL when none). */
size_t avki_prefetch_queued(const avki_prefetch *pf);
const avki_block_slot *avki_prefetch_head(const avki_prefetch *pf);

/* Gives back the slot taken last (nothing when none is held). */
void avki_prefetch_release(avki_prefetch *pf);

/* Pops the first queued slot, or returns NULL when none is queued. With
 * process, it is processed on return (by a worker, or here when no worker
 * had started on it); without, a worker's pending job on it is cancelled
 * or waited for. The slot is the caller's alone until the next take,
 * release or reset. */
avki_block_slot *avki_prefetch_take(avki_prefetch *pf, int process);

/* Drops every queued slot and the held one (waits for workers busy on
 * them); the workers stay. */
void avki_prefetch_reset(avki_prefetch *pf);

#endif
