/* Read-ahead for the container file reader: a ring of block slots whose queued blocks worker threads decompress. */
#define _POSIX_C_SOURCE 200809L /* pthread_sigmask, sigfillset */
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "file/file_prefetch.h"

/* What a slot is doing; changed under the ring's mutex.
 *   FREE    the reader's thread may fill it (slot_to_fill);
 *   QUEUED  read, waiting for a worker (or for take, which then does it);
 *   BUSY    a worker is decompressing it, outside the mutex: nobody else
 *           touches the slot until it is READY;
 *   READY   decompressed (or never to be): the reader's thread owns it.
 * The slot the caller took last stays READY and held until the next
 * take, release or reset, since its data is the current block's. */
enum { SLOT_FREE, SLOT_QUEUED, SLOT_BUSY, SLOT_READY };

struct avki_prefetch {
    avk_allocator alloc;
    avk_codec codec;
    size_t max_out;
    unsigned n;          /* slots */
    avki_block_slot *slots;
    unsigned char *state;
    pthread_t *threads;
    unsigned nthreads;   /* started */
    int started;         /* starting was tried (once) */

    /* Only the reader's thread moves these, under mu (workers read them). */
    unsigned head;       /* first queued slot */
    unsigned count;      /* queued slots */
    int held;            /* the slot before head is the caller's */

    pthread_mutex_t mu;
    pthread_cond_t work; /* a slot was queued, or stop */
    pthread_cond_t done; /* a worker finished a slot */
    int stop;
};

void avki_block_slot_init(avki_block_slot *s, const avk_allocator *alloc)
{
    memset(s, 0, sizeof *s);
    avk_buffer_init(&s->stored, alloc);
    avk_buffer_init(&s->data, alloc);
    avki_codec_state_init(&s->codec_state, alloc);
}

void avki_block_slot_destroy(avki_block_slot *s)
{
    avk_buffer_destroy(&s->stored);
    avk_buffer_destroy(&s->data);
    avki_codec_state_destroy(&s->codec_state);
}

void avki_block_slot_decompress(avki_block_slot *s, avk_codec c, size_t max_out)
{
    memset(&s->err, 0, sizeof s->err);
    s->st = avki_codec_decompress_with(&s->codec_state, c, s->blk.data, s->blk.size, max_out,
                                       &s->data, &s->err);
    s->decompressed = 1;
}

/* ---- workers --------------------------------------------------------------- */

/* The first queued slot nobody works on, in file order (the reader waits
 * for the oldest first), or -1. Under mu. */
static int find_work(const avki_prefetch *pf)
{
    unsigned i;
    for (i = 0; i < pf->count; i++) {
        unsigned k = (pf->head + i) % pf->n;
        if (pf->state[k] == SLOT_QUEUED)
            return (int)k;
    }
    return -1;
}

static void *worker_main(void *arg)
{
    avki_prefetch *pf = (avki_prefetch *)arg;
    pthread_mutex_lock(&pf->mu);
    while (!pf->stop) {
        int k = find_work(pf);
        if (k < 0) {
            pthread_cond_wait(&pf->work, &pf->mu);
            continue;
        }
        pf->state[k] = SLOT_BUSY;
        pthread_mutex_unlock(&pf->mu);
        avki_block_slot_decompress(&pf->slots[k], pf->codec, pf->max_out);
        pthread_mutex_lock(&pf->mu);
        pf->state[k] = SLOT_READY;
        pthread_cond_broadcast(&pf->done);
    }
    pthread_mutex_unlock(&pf->mu);
    return NULL;
}

/* Starts the workers, once. Signals are blocked in them, so that the
 * application's handlers keep running on its own threads. A thread that
 * cannot be created is not an error: take decompresses what no worker
 * picked up, so fewer workers only mean less overlap. */
static void start_workers(avki_prefetch *pf)
{
    sigset_t all, old;
    unsigned i;
    pf->started = 1;
    sigfillset(&all);
    if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
        return;
    for (i = 0; i + 1 < pf->n; i++) {
        if (pthread_create(&pf->threads[pf->nthreads], NULL, worker_main, pf) != 0)
            break;
        pf->nthreads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- the ring -------------------------------------------------------------- */

avk_status avki_prefetch_new(const avk_allocator *alloc, avk_codec c, size_t max_out,
                             unsigned nslots, avki_prefetch **out)
{
    avki_prefetch *pf;
    unsigned i;
    *out = NULL;
    if (nslots < 2)
        nslots = 2;
    pf = (avki_prefetch *)alloc->alloc(alloc->ctx, sizeof *pf);
    if (!pf)
        return AVK_ERR_NO_MEMORY;
    memset(pf, 0, sizeof *pf);
    pf->alloc = *alloc;
    pf->codec = c;
    pf->max_out = max_out;
    pf->n = nslots;
    pf->slots = (avki_block_slot *)alloc->alloc(alloc->ctx, sizeof *pf->slots * nslots);
    pf->state = (unsigned char *)alloc->alloc(alloc->ctx, nslots);
    pf->threads = (pthread_t *)alloc->alloc(alloc->ctx, sizeof *pf->threads * (nslots - 1));
    if (!pf->slots || !pf->state || !pf->threads)
        goto oom;
    for (i = 0; i < nslots; i++) {
        avki_block_slot_init(&pf->slots[i], alloc);
        pf->state[i] = SLOT_FREE;
    }
    if (pthread_mutex_init(&pf->mu, NULL) != 0)
        goto oom;
    if (pthread_cond_init(&pf->work, NULL) != 0) {
        pthread_mutex_destroy(&pf->mu);
        goto oom;
    }
    if (pthread_cond_init(&pf->done, NULL) != 0) {
        pthread_cond_destroy(&pf->work);
        pthread_mutex_destroy(&pf->mu);
        goto oom;
    }
    *out = pf;
    return AVK_OK;
oom:
    if (pf->slots)
        alloc->free(alloc->ctx, pf->slots, sizeof *pf->slots * nslots);
    if (pf->state)
        alloc->free(alloc->ctx, pf->state, nslots);
    if (pf->threads)
        alloc->free(alloc->ctx, pf->threads, sizeof *pf->threads * (nslots - 1));
    alloc->free(alloc->ctx, pf, sizeof *pf);
    return AVK_ERR_NO_MEMORY;
}

void avki_prefetch_free(avki_prefetch *pf)
{
    avk_allocator a;
    unsigned i;
    if (!pf)
        return;
    pthread_mutex_lock(&pf->mu);
    pf->stop = 1;
    pthread_cond_broadcast(&pf->work);
    pthread_mutex_unlock(&pf->mu);
    for (i = 0; i < pf->nthreads; i++)
        pthread_join(pf->threads[i], NULL);
    pthread_cond_destroy(&pf->done);
    pthread_cond_destroy(&pf->work);
    pthread_mutex_destroy(&pf->mu);
    a = pf->alloc;
    for (i = 0; i < pf->n; i++)
        avki_block_slot_destroy(&pf->slots[i]);
    a.free(a.ctx, pf->slots, sizeof *pf->slots * pf->n);
    a.free(a.ctx, pf->state, pf->n);
    a.free(a.ctx, pf->threads, sizeof *pf->threads * (pf->n - 1));
    a.free(a.ctx, pf, sizeof *pf);
}

avki_block_slot *avki_prefetch_slot_to_fill(avki_prefetch *pf)
{
    /* Free slots run from head + count round to the held one; the state
     * is FREE there, so no worker touches the slot while it is filled. */
    if (pf->count + (unsigned)pf->held >= pf->n)
        return NULL;
    return &pf->slots[(pf->head + pf->count) % pf->n];
}

void avki_prefetch_push(avki_prefetch *pf, int decompress)
{
    unsigned k = (pf->head + pf->count) % pf->n;
    pf->slots[k].decompressed = 0;
    if (decompress && !pf->started)
        start_workers(pf);
    pthread_mutex_lock(&pf->mu);
    pf->state[k] = decompress ? SLOT_QUEUED : SLOT_READY;
    pf->count++;
    if (decompress)
        pthread_cond_signal(&pf->work);
    pthread_mutex_unlock(&pf->mu);
}

size_t avki_prefetch_queued(const avki_prefetch *pf)
{
    return pf->count;
}

const avki_block_slot *avki_prefetch_head(const avki_prefetch *pf)
{
    return pf->count ? &pf->slots[pf->head] : NULL;
}

void avki_prefetch_release(avki_prefetch *pf)
{
    if (!pf->held)
        return;
    /* The held slot is READY (done, or the caller's own): no worker on it. */
    pthread_mutex_lock(&pf->mu);
    pf->state[(pf->head + pf->n - 1) % pf->n] = SLOT_FREE;
    pf->held = 0;
    pthread_mutex_unlock(&pf->mu);
}

/* Always the oldest queued block (head): blocks come out in file order,
 * whichever worker finished first. */
avki_block_slot *avki_prefetch_take(avki_prefetch *pf, int decompress)
{
    unsigned k;
    int here;
    avki_prefetch_release(pf);
    if (pf->count == 0)
        return NULL;
    k = pf->head;
    pthread_mutex_lock(&pf->mu);
    while (pf->state[k] == SLOT_BUSY)
        pthread_cond_wait(&pf->done, &pf->mu);
    /* Not started by any worker: the caller does it now rather than wait. */
    here = pf->state[k] == SLOT_QUEUED && decompress;
    pf->state[k] = SLOT_READY;
    pf->head = (k + 1) % pf->n;
    pf->count--;
    pf->held = 1;
    pthread_mutex_unlock(&pf->mu);
    if (here)
        avki_block_slot_decompress(&pf->slots[k], pf->codec, pf->max_out);
    return &pf->slots[k];
}

void avki_prefetch_reset(avki_prefetch *pf)
{
    unsigned i;
    int busy;
    pthread_mutex_lock(&pf->mu);
    /* Cancel what no worker started, then wait for the rest. */
    for (i = 0; i < pf->count; i++) {
        unsigned k = (pf->head + i) % pf->n;
        if (pf->state[k] == SLOT_QUEUED)
            pf->state[k] = SLOT_READY;
    }
    do {
        busy = 0;
        for (i = 0; i < pf->n; i++)
            busy |= pf->state[i] == SLOT_BUSY;
        if (busy)
            pthread_cond_wait(&pf->done, &pf->mu);
    } while (busy);
    for (i = 0; i < pf->n; i++)
        pf->state[i] = SLOT_FREE;
    pf->count = 0;
    pf->held = 0;
    pthread_mutex_unlock(&pf->mu);
}
