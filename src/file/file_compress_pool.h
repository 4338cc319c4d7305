/* Private interface of the container writer's compression threads: blocks compressed by workers, handed back strictly in order. */
#ifndef AVK_FILE_FILE_COMPRESS_POOL_H
#define AVK_FILE_FILE_COMPRESS_POOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "avrokit/codec.h"
#include "avrokit/writer.h"

/* Most threads a writer may ask for (the caller's own included). */
#define AVKI_COMPRESS_MAX_THREADS 64u

/* An allocator that serializes every call to another one behind a mutex,
 * so a caller's allocator need not be thread-safe when the workers (codec
 * state, output buffers) and the caller (block buffers) allocate at once.
 * Lives in caller storage; *out is valid while lk is. */
typedef struct avki_locked_alloc {
    pthread_mutex_t mu;
    avk_allocator inner;
} avki_locked_alloc;

/* Returns AVK_OK or AVK_ERR_NO_MEMORY (pthread_mutex_init failed). */
avk_status avki_locked_alloc_init(avki_locked_alloc *lk, const avk_allocator *inner,
                                  avk_allocator *out, avk_error *err);
void avki_locked_alloc_destroy(avki_locked_alloc *lk);

typedef struct avki_compress_pool avki_compress_pool;

/* Writes one finished block (count records, size stored bytes) to the
 * destination. Called only on the thread that calls the pool functions. */
typedef avk_status (*avki_block_emit_fn)(void *ctx, uint64_t count, const uint8_t *data,
                                         size_t size, avk_error *err);

/* Starts threads - 1 workers (threads in 2..AVKI_COMPRESS_MAX_THREADS) with
 * `threads` slots, each a block in flight: its uncompressed bytes (a memory
 * writer of buffer_size, made on first use) and its compressed output.
 * alloc must be safe to call from several threads (an avki_locked_alloc).
 * emit is called with ctx for every block, in submission order.
 * Returns AVK_OK (with as many workers as could be started, maybe none:
 * the caller's thread then compresses every block) or AVK_ERR_NO_MEMORY. */
avk_status avki_compress_pool_new(unsigned threads, avk_codec codec, int level,
                                  size_t buffer_size, const avk_allocator *alloc,
                                  avki_block_emit_fn emit, void *ctx, avki_compress_pool **out,
                                  avk_error *err);

/* Stops the workers (a block being compressed is finished first, queued
 * ones are dropped), joins them and frees everything. NULL is ignored. */
void avki_compress_pool_free(avki_compress_pool *p);

/* Hands the count records in *blk to the pool: *blk's buffer is swapped for
 * an empty one of a free slot, so no bytes are copied. First emits every
 * finished block at the head of the queue without waiting; waits only when
 * all slots are in flight, and then compresses a queued block itself rather
 * than sit idle. On failure (a compression failure of an earlier block, an
 * emit failure, no memory for a slot) *blk is unchanged and the pool must
 * not be used again but to free it. */
avk_status avki_compress_pool_submit(avki_compress_pool *p, avk_writer *blk, uint64_t count,
                                     avk_error *err);

/* Waits for every block in flight (helping compress) and emits them all in
 * order. Failures as submit. */
avk_status avki_compress_pool_drain(avki_compress_pool *p, avk_error *err);

/* Nonzero once some block failed to compress (a cheap check the writer
 * makes per record, so the failure is reported by the next call). */
int avki_compress_pool_failed(avki_compress_pool *p);

#endif
