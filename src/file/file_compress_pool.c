/* Compression threads of the container writer: a ring of block slots, workers that compress them, the caller emitting them in order. */
#define _POSIX_C_SOURCE 200809L
#include "file/file_compress_pool.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "codec/codec_state.h"
#include "common/error.h"

/* ---- allocator behind a mutex ----------------------------------------------------------
 * Workers allocate (codec state, output buffers) while the caller's thread
 * allocates block buffers; one mutex around the caller's allocator is
 * cheap next to a block's compression and asks nothing of the caller. */

static void *lk_alloc(void *ctx, size_t size)
{
    avki_locked_alloc *lk = (avki_locked_alloc *)ctx;
    void *p;
    pthread_mutex_lock(&lk->mu);
    p = lk->inner.alloc(lk->inner.ctx, size);
    pthread_mutex_unlock(&lk->mu);
    return p;
}

static void *lk_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    avki_locked_alloc *lk = (avki_locked_alloc *)ctx;
    void *p;
    pthread_mutex_lock(&lk->mu);
    p = lk->inner.realloc(lk->inner.ctx, ptr, old_size, new_size);
    pthread_mutex_unlock(&lk->mu);
    return p;
}

static void lk_free(void *ctx, void *ptr, size_t size)
{
    avki_locked_alloc *lk = (avki_locked_alloc *)ctx;
    pthread_mutex_lock(&lk->mu);
    lk->inner.free(lk->inner.ctx, ptr, size);
    pthread_mutex_unlock(&lk->mu);
}

avk_status avki_locked_alloc_init(avki_locked_alloc *lk, const avk_allocator *inner,
                                  avk_allocator *out, avk_error *err)
{
    if (pthread_mutex_init(&lk->mu, NULL) != 0)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "cannot create the allocator's mutex");
    lk->inner = *inner;
    out->alloc = lk_alloc;
    out->realloc = lk_realloc;
    out->free = lk_free;
    out->ctx = lk;
    return AVK_OK;
}

void avki_locked_alloc_destroy(avki_locked_alloc *lk) { pthread_mutex_destroy(&lk->mu); }

/* ---- the pool ---------------------------------------------------------------------------- */

/* A slot in flight is QUEUED (waiting for a thread), BUSY (being
 * compressed) or DONE; a slot outside the ring's used part is free. */
enum { SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

typedef struct slot {
    avk_writer in;     /* the block's records; buf is NULL until first use */
    uint64_t count;
    avk_buffer out;    /* compressed, valid once DONE */
    avki_codec_state codec_state; /* of whichever thread compresses the slot:
                                   * one per slot, so one per thread */
    int state;
    avk_status status; /* of the compression */
    avk_error err;
} slot;

struct avki_compress_pool {
    avk_allocator alloc;
    avk_codec codec;
    int level;
    size_t buffer_size;
    avki_block_emit_fn emit;
    void *ctx;
    pthread_mutex_t mu;
    pthread_cond_t work; /* a slot was queued, or stop was set */
    pthread_cond_t done; /* a slot became DONE */
    /* The ring: slots[head .. head+used) in submission order (indexes mod
     * nslots); the first `started` of them have been taken by a thread.
     * Threads always take the oldest queued slot, so taken slots form a
     * prefix. head and used change only on the caller's thread, under mu. */
    slot *slots;
    unsigned nslots, head, used, started;
    int stop;
    atomic_int failed;
    pthread_t *workers;
    unsigned nworkers;
};

/* Under mu: the oldest queued slot, now BUSY, or NULL. */
static slot *take_queued(avki_compress_pool *p)
{
    slot *s;
    if (p->started >= p->used)
        return NULL;
    s = &p->slots[(p->head + p->started) % p->nslots];
    p->started++;
    s->state = SLOT_BUSY;
    return s;
}

/* Outside mu: the slot is BUSY, so only this thread touches it. */
static void compress_slot(avki_compress_pool *p, slot *s)
{
    size_t len;
    const uint8_t *data = avk_writer_data(&s->in, &len);
    avk_error_clear(&s->err);
    s->status = avki_codec_compress_with(&s->codec_state, p->codec, p->level, data, len, &s->out,
                                         &s->err);
    if (s->status != AVK_OK)
        atomic_store_explicit(&p->failed, 1, memory_order_relaxed);
}

/* Workers always take the oldest queued slot, so blocks finish about in
 * submission order and the caller, which emits in that order, seldom
 * waits on one while later ones are done. */
static void *worker_main(void *arg)
{
    avki_compress_pool *p = (avki_compress_pool *)arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        slot *s = take_queued(p);
        if (!s) {
            pthread_cond_wait(&p->work, &p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        compress_slot(p, s);
        pthread_mutex_lock(&p->mu);
        s->state = SLOT_DONE;
        pthread_cond_signal(&p->done); /* only the caller waits on it */
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

avk_status avki_compress_pool_new(unsigned threads, avk_codec codec, int level,
                                  size_t buffer_size, const avk_allocator *alloc,
                                  avki_block_emit_fn emit, void *ctx, avki_compress_pool **out,
                                  avk_error *err)
{
    avki_compress_pool *p;
    sigset_t all, old;
    unsigned i;
    int mu = 0, work = 0, done = 0;
    *out = NULL;
    p = (avki_compress_pool *)alloc->alloc(alloc->ctx, sizeof *p);
    if (!p)
        goto oom;
    memset(p, 0, sizeof *p);
    p->alloc = *alloc;
    p->codec = codec;
    p->level = level;
    p->buffer_size = buffer_size;
    p->emit = emit;
    p->ctx = ctx;
    p->nslots = threads;
    atomic_init(&p->failed, 0);
    mu = pthread_mutex_init(&p->mu, NULL) == 0;
    work = mu && pthread_cond_init(&p->work, NULL) == 0;
    done = work && pthread_cond_init(&p->done, NULL) == 0;
    if (!done)
        goto fail;
    p->slots = (slot *)alloc->alloc(alloc->ctx, threads * sizeof *p->slots);
    if (!p->slots)
        goto fail;
    memset(p->slots, 0, threads * sizeof *p->slots);
    for (i = 0; i < threads; i++) {
        p->slots[i].in.fd = -1;
        avk_buffer_init(&p->slots[i].out, &p->alloc);
        avki_codec_state_init(&p->slots[i].codec_state, &p->alloc);
    }
    p->workers = (pthread_t *)alloc->alloc(alloc->ctx, (threads - 1) * sizeof *p->workers);
    if (!p->workers)
        goto fail;
    /* Fewer threads than asked (a thread limit) still work: the caller
     * compresses whatever no worker takes, so no failure is reported.
     * Workers block every signal, so the program's handlers keep running on
     * its own threads. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (i = 0; i + 1 < threads; i++) {
        if (pthread_create(&p->workers[p->nworkers], NULL, worker_main, p) != 0)
            break;
        p->nworkers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    *out = p;
    return AVK_OK;
fail:
    if (p->slots)
        alloc->free(alloc->ctx, p->slots, threads * sizeof *p->slots);
    if (done)
        pthread_cond_destroy(&p->done);
    if (work)
        pthread_cond_destroy(&p->work);
    if (mu)
        pthread_mutex_destroy(&p->mu);
    alloc->free(alloc->ctx, p, sizeof *p);
oom:
    return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "out of memory for %u compression threads", threads);
}

void avki_compress_pool_free(avki_compress_pool *p)
{
    unsigned i;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (i = 0; i < p->nworkers; i++)
        pthread_join(p->workers[i], NULL);
    for (i = 0; i < p->nslots; i++) {
        avk_writer_destroy(&p->slots[i].in);
        avk_buffer_destroy(&p->slots[i].out);
        avki_codec_state_destroy(&p->slots[i].codec_state);
    }
    p->alloc.free(p->alloc.ctx, p->workers, (p->nslots - 1) * sizeof *p->workers);
    p->alloc.free(p->alloc.ctx, p->slots, p->nslots * sizeof *p->slots);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    p->alloc.free(p->alloc.ctx, p, sizeof *p);
}

int avki_compress_pool_failed(avki_compress_pool *p)
{
    return atomic_load_explicit(&p->failed, memory_order_relaxed);
}

/* Emits finished blocks from the head of the ring. Returns once the head is
 * not finished and, with drain, nothing is in flight, or without drain a
 * slot is free. While it must wait it compresses a queued block itself, so
 * the caller's thread counts as one of the `threads`. */
static avk_status retire(avki_compress_pool *p, int drain, avk_error *err)
{
    for (;;) {
        slot *h;
        avk_status st;
        pthread_mutex_lock(&p->mu);
        for (;;) {
            slot *s;
            if (p->used == 0) {
                pthread_mutex_unlock(&p->mu);
                return AVK_OK;
            }
            h = &p->slots[p->head];
            if (h->state == SLOT_DONE)
                break;
            if (!drain && p->used < p->nslots) {
                pthread_mutex_unlock(&p->mu);
                return AVK_OK;
            }
            s = take_queued(p);
            if (s) {
                pthread_mutex_unlock(&p->mu);
                compress_slot(p, s);
                pthread_mutex_lock(&p->mu);
                s->state = SLOT_DONE;
            } else {
                pthread_cond_wait(&p->done, &p->mu);
            }
        }
        pthread_mutex_unlock(&p->mu);
        /* A DONE slot belongs to this thread until it leaves the ring. */
        if (h->status != AVK_OK) {
            if (err)
                *err = h->err;
            return h->status; /* left in the ring: the pool is finished */
        }
        st = p->emit(p->ctx, h->count, h->out.data, h->out.len, err);
        avk_writer_reset(&h->in);
        pthread_mutex_lock(&p->mu);
        p->head = (p->head + 1) % p->nslots;
        p->used--;
        p->started--;
        pthread_mutex_unlock(&p->mu);
        if (st != AVK_OK)
            return st;
    }
}

/* The block is handed over by swapping writers with a free slot: the
 * caller goes on filling the slot's old (empty) buffer while a worker
 * compresses the block's. Slot buffers are made on first use, so a pool
 * of many threads that writes few blocks allocates few. */
avk_status avki_compress_pool_submit(avki_compress_pool *p, avk_writer *blk, uint64_t count,
                                     avk_error *err)
{
    slot *s;
    avk_writer tmp;
    AVK_TRY(retire(p, 0, err));
    s = &p->slots[(p->head + p->used) % p->nslots]; /* free: retire left room */
    if (!s->in.buf) {
        avk_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.struct_size = sizeof wo;
        wo.buffer_size = p->buffer_size;
        wo.allocator = &p->alloc;
        AVK_TRY(avk_writer_init_memory(&s->in, &wo, err));
    }
    /* Memory writers hold no pointer to themselves: swapping them by value
     * moves the block without copying it. */
    tmp = s->in;
    s->in = *blk;
    *blk = tmp;
    avk_writer_reset(blk);
    s->count = count;
    pthread_mutex_lock(&p->mu);
    s->state = SLOT_QUEUED;
    p->used++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return AVK_OK;
}

avk_status avki_compress_pool_drain(avki_compress_pool *p, avk_error *err)
{
    return retire(p, 1, err);
}
