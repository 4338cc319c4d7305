/* Read-ahead for the container file reader: a ring of block slots whose queued blocks worker threads process (decompress, and decode or work when asked). */
#define _POSIX_C_SOURCE 200809L /* pthread_sigmask, sigfillset */
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "common/alloc_internal.h"
#include "file/file_prefetch.h"

/* What a slot is doing; changed under the ring's mutex.
 *   FREE    the reader's thread may fill it (slot_to_fill);
 *   QUEUED  read, waiting for a worker (or for take, which then does it);
 *   BUSY    a worker is processing it, outside the mutex: nobody else
 *           touches the slot until it is READY;
 *   READY   processed (or never to be): the reader's thread owns it.
 * The slot the caller took last stays READY and held until the next
 * take, release or reset, since its data is the current block's. */
enum { SLOT_FREE, SLOT_QUEUED, SLOT_BUSY, SLOT_READY };

struct avki_prefetch {
    avk_allocator alloc;
    avki_slot_process_fn process;
    void *ctx;
    unsigned n;          /* slots */
    unsigned nworkers;   /* to start */
    avki_block_slot *slots; /* slot i, number i, at position i of the ring */
    unsigned char *state;   /* by slot number */
    pthread_t *threads;
    unsigned nthreads;   /* started */
    int started;         /* no more are started: all run, or one failed */
    unsigned pushed;     /* blocks queued for processing while not started */

    /* Only the reader's thread moves these, under mu (workers read them). */
    unsigned head;       /* first queued slot */
    unsigned count;      /* queued slots */
    int held;            /* the slot before head is the caller's */

    pthread_mutex_t mu;
    pthread_cond_t work; /* a slot was queued, or stop */
    pthread_cond_t done; /* a worker finished a slot */
    int stop;
};

void avki_block_slot_init(avki_block_slot *s, const avk_allocator *alloc, unsigned number)
{
    memset(s, 0, sizeof *s);
    s->alloc = *alloc;
    s->number = number;
    avk_buffer_init(&s->stored, alloc);
    avk_buffer_init(&s->data, alloc);
    avki_codec_state_init(&s->codec_state, alloc);
}

void avki_block_slot_destroy(avki_block_slot *s)
{
    avk_buffer_destroy(&s->stored);
    avk_buffer_destroy(&s->data);
    avki_codec_state_destroy(&s->codec_state);
    avk_arena_free(s->arena);
    if (s->values)
        s->alloc.free(s->alloc.ctx, s->values, sizeof *s->values * s->values_cap);
}

void avki_block_slot_decompress(avki_block_slot *s, avk_codec c, size_t max_out)
{
    memset(&s->err, 0, sizeof s->err);
    s->st = avki_codec_decompress_with(&s->codec_state, c, s->blk.data, s->blk.size, max_out,
                                       &s->data, &s->err);
    s->decompressed = 1;
}

/* ---- workers --------------------------------------------------------------- */

#define AT(pf, pos) (&(pf)->slots[(pos) % (pf)->n])
#define STATE(pf, pos) ((pf)->state[AT(pf, pos)->number])

/* The first queued slot nobody works on, in file order (the reader waits
 * for the oldest first), or NULL. Under mu. */
static avki_block_slot *find_work(const avki_prefetch *pf)
{
    unsigned i;
    for (i = 0; i < pf->count; i++) {
        avki_block_slot *s = AT(pf, pf->head + i);
        if (pf->state[s->number] == SLOT_QUEUED)
            return s;
    }
    return NULL;
}

static void *worker_main(void *arg)
{
    avki_prefetch *pf = (avki_prefetch *)arg;
    pthread_mutex_lock(&pf->mu);
    while (!pf->stop) {
        avki_block_slot *s = find_work(pf);
        if (!s) {
            pthread_cond_wait(&pf->work, &pf->mu);
            continue;
        }
        pf->state[s->number] = SLOT_BUSY;
        pthread_mutex_unlock(&pf->mu);
        pf->process(pf->ctx, s);
        pthread_mutex_lock(&pf->mu);
        pf->state[s->number] = SLOT_READY;
        pthread_cond_broadcast(&pf->done);
    }
    pthread_mutex_unlock(&pf->mu);
    return NULL;
}

/* Starts workers until want run (at most nworkers). Signals are blocked
 * in them, so that the application's handlers keep running on its own
 * threads. A thread that cannot be created is not an error: take
 * processes what no worker picked up, so fewer workers only mean less
 * overlap; no more are tried after that (started). */
static void start_workers(avki_prefetch *pf, unsigned want)
{
    sigset_t all, old;
    if (want > pf->nworkers)
        want = pf->nworkers;
    if (pf->started || pf->nthreads >= want)
        return;
    sigfillset(&all);
    if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0) {
        pf->started = 1;
        return;
    }
    while (pf->nthreads < want) {
        if (pthread_create(&pf->threads[pf->nthreads], NULL, worker_main, pf) != 0) {
            pf->started = 1;
            break;
        }
        pf->nthreads++;
    }
    if (pf->nthreads == pf->nworkers)
        pf->started = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- the ring -------------------------------------------------------------- */

avk_status avki_prefetch_new(const avk_allocator *alloc, avki_slot_process_fn process,
                             void *ctx, unsigned nslots, unsigned nworkers,
                             avki_prefetch **out)
{
    avki_prefetch *pf;
    unsigned i;
    *out = NULL;
    if (nslots < 2)
        nslots = 2;
    if (nworkers < 1)
        nworkers = 1;
    pf = (avki_prefetch *)alloc->alloc(alloc->ctx, sizeof *pf);
    if (!pf)
        return AVK_ERR_NO_MEMORY;
    memset(pf, 0, sizeof *pf);
    pf->alloc = *alloc;
    pf->process = process;
    pf->ctx = ctx;
    pf->n = nslots;
    pf->nworkers = nworkers;
    pf->slots = (avki_block_slot *)alloc->alloc(alloc->ctx, sizeof *pf->slots * nslots);
    pf->state = (unsigned char *)alloc->alloc(alloc->ctx, nslots);
    pf->threads = (pthread_t *)alloc->alloc(alloc->ctx, sizeof *pf->threads * nworkers);
    if (!pf->slots || !pf->state || !pf->threads)
        goto oom;
    for (i = 0; i < nslots; i++) {
        avki_block_slot_init(&pf->slots[i], alloc, i);
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
        alloc->free(alloc->ctx, pf->threads, sizeof *pf->threads * nworkers);
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
    a.free(a.ctx, pf->threads, sizeof *pf->threads * pf->nworkers);
    a.free(a.ctx, pf, sizeof *pf);
}

avki_block_slot *avki_prefetch_slot_to_fill(avki_prefetch *pf)
{
    /* Free slots run from head + count round to the held one; the state
     * is FREE there, so no worker touches the slot while it is filled. */
    if (pf->count + (unsigned)pf->held >= pf->n)
        return NULL;
    return AT(pf, pf->head + pf->count);
}

void avki_prefetch_push(avki_prefetch *pf, int process)
{
    avki_block_slot *s = AT(pf, pf->head + pf->count);
    s->decompressed = 0;
    s->worked = 0;
    pthread_mutex_lock(&pf->mu);
    pf->state[s->number] = process ? SLOT_QUEUED : SLOT_READY;
    pf->count++;
    if (process)
        pthread_cond_signal(&pf->work);
    pthread_mutex_unlock(&pf->mu);
    /* Workers start as blocks come for them: one for each block queued
     * for processing after the first, which the caller's thread takes
     * next (take processes it at once when no worker did). A file of one
     * such block (most small files) starts none, and one of two blocks
     * one: starting a thread costs more than reading such a file (about
     * 0.1 ms against 15 us for a few KiB). A larger file starts them all
     * on its first read-ahead, which fills the ring. */
    if (process && !pf->started) {
        pf->pushed++;
        if (pf->pushed > 1)
            start_workers(pf, pf->pushed - 1);
    }
}

size_t avki_prefetch_queued(const avki_prefetch *pf)
{
    return pf->count;
}

const avki_block_slot *avki_prefetch_head(const avki_prefetch *pf)
{
    return pf->count ? AT(pf, pf->head) : NULL;
}

void avki_prefetch_release(avki_prefetch *pf)
{
    if (!pf->held)
        return;
    /* The held slot is READY (done, or the caller's own): no worker on it. */
    pthread_mutex_lock(&pf->mu);
    STATE(pf, pf->head + pf->n - 1) = SLOT_FREE;
    pf->held = 0;
    pthread_mutex_unlock(&pf->mu);
}

/* While the block the caller needs is in a worker's hands, the caller
 * processes a later queued one rather than sleep: a worker that the
 * machine did not schedule then costs nothing, and waking up is not paid
 * per block. Called and returns with mu held; 0 when nothing was queued. */
static int help(avki_prefetch *pf)
{
    avki_block_slot *s = find_work(pf);
    if (!s)
        return 0;
    pf->state[s->number] = SLOT_BUSY;
    pthread_mutex_unlock(&pf->mu);
    pf->process(pf->ctx, s);
    pthread_mutex_lock(&pf->mu);
    pf->state[s->number] = SLOT_READY;
    pthread_cond_broadcast(&pf->done);
    return 1;
}

/* Pops the slot at head (the caller holds the mutex): the caller's until
 * the next take, release or reset. Returns whether it is still to be
 * processed, which the caller then does outside the mutex. */
static int pop_head(avki_prefetch *pf, int process, avki_block_slot **out)
{
    avki_block_slot *s = AT(pf, pf->head);
    /* Not started by any worker: the caller does it now rather than wait. */
    int here = pf->state[s->number] == SLOT_QUEUED && process;
    pf->state[s->number] = SLOT_READY;
    pf->head = (pf->head + 1) % pf->n;
    pf->count--;
    pf->held = 1;
    *out = s;
    return here;
}

/* Always the oldest queued block (head): blocks come out in file order,
 * whichever worker finished first. */
avki_block_slot *avki_prefetch_take(avki_prefetch *pf, int process)
{
    avki_block_slot *s;
    int here;
    avki_prefetch_release(pf);
    if (pf->count == 0)
        return NULL;
    pthread_mutex_lock(&pf->mu);
    while (STATE(pf, pf->head) == SLOT_BUSY) {
        if (process && help(pf))
            continue;
        pthread_cond_wait(&pf->done, &pf->mu);
    }
    here = pop_head(pf, process, &s);
    pthread_mutex_unlock(&pf->mu);
    if (here)
        pf->process(pf->ctx, s);
    return s;
}

void avki_prefetch_reset(avki_prefetch *pf)
{
    unsigned i;
    int busy;
    pthread_mutex_lock(&pf->mu);
    /* Cancel what no worker started, then wait for the rest. */
    for (i = 0; i < pf->count; i++) {
        if (STATE(pf, pf->head + i) == SLOT_QUEUED)
            STATE(pf, pf->head + i) = SLOT_READY;
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
