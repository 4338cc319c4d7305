/* Counting, failing test allocator with size-checking headers. */
#include "failalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_MAGIC 0x61766b74u /* "avkt" */

/* Keeps the user block aligned as malloc's would be. */
typedef union header {
    struct {
        size_t size;
        uint32_t magic;
    } h;
    max_align_t align;
} header;

static int should_fail(avkt_failalloc *fa)
{
    fa->calls++;
    if (fa->fail_at > 0 &&
        (fa->calls == fa->fail_at || (fa->fail_all_after && fa->calls > fa->fail_at))) {
        fa->failures++;
        return 1;
    }
    return 0;
}

static header *check(avkt_failalloc *fa, void *ptr, size_t size)
{
    header *h = (header *)ptr - 1;
    if (h->h.magic != HEADER_MAGIC) {
        fa->bad_frees++;
        return NULL;
    }
    if (h->h.size != size)
        fa->size_mismatches++;
    return h;
}

static void *fa_alloc(void *ctx, size_t size)
{
    avkt_failalloc *fa = (avkt_failalloc *)ctx;
    header *h;
    if (should_fail(fa) || size > SIZE_MAX - sizeof(header))
        return NULL;
    h = (header *)malloc(sizeof(header) + size);
    if (!h)
        return NULL;
    h->h.size = size;
    h->h.magic = HEADER_MAGIC;
    fa->live_blocks++;
    fa->live_bytes += size;
    if (fa->live_bytes > fa->peak_bytes)
        fa->peak_bytes = fa->live_bytes;
    return h + 1;
}

static void fa_free(void *ctx, void *ptr, size_t size)
{
    avkt_failalloc *fa = (avkt_failalloc *)ctx;
    header *h;
    if (!ptr)
        return;
    h = check(fa, ptr, size);
    if (!h)
        return;
    fa->frees++;
    fa->live_blocks--;
    fa->live_bytes -= h->h.size;
    h->h.magic = 0;
    free(h);
}

static void *fa_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    avkt_failalloc *fa = (avkt_failalloc *)ctx;
    header *h, *nh;
    if (!ptr)
        return fa_alloc(ctx, new_size);
    h = check(fa, ptr, old_size);
    if (!h)
        return NULL;
    if (should_fail(fa) || new_size > SIZE_MAX - sizeof(header))
        return NULL; /* the old block stays valid */
    nh = (header *)malloc(sizeof(header) + new_size);
    if (!nh)
        return NULL;
    /* Always move, so a caller that keeps the old pointer is caught by ASan. */
    memcpy(nh + 1, h + 1, h->h.size < new_size ? h->h.size : new_size);
    nh->h.size = new_size;
    nh->h.magic = HEADER_MAGIC;
    fa->live_bytes = fa->live_bytes - h->h.size + new_size;
    if (fa->live_bytes > fa->peak_bytes)
        fa->peak_bytes = fa->live_bytes;
    h->h.magic = 0;
    free(h);
    return nh + 1;
}

void avkt_failalloc_init(avkt_failalloc *fa, long fail_at)
{
    memset(fa, 0, sizeof *fa);
    fa->allocator.alloc = fa_alloc;
    fa->allocator.realloc = fa_realloc;
    fa->allocator.free = fa_free;
    fa->allocator.ctx = fa;
    fa->fail_at = fail_at;
}

static void *locked_alloc(void *ctx, size_t n)
{
    avkt_locked_alloc *l = (avkt_locked_alloc *)ctx;
    void *p;
    pthread_mutex_lock(&l->mu);
    p = l->inner->alloc(l->inner->ctx, n);
    pthread_mutex_unlock(&l->mu);
    return p;
}

static void *locked_realloc(void *ctx, void *q, size_t old, size_t n)
{
    avkt_locked_alloc *l = (avkt_locked_alloc *)ctx;
    void *p;
    pthread_mutex_lock(&l->mu);
    p = l->inner->realloc(l->inner->ctx, q, old, n);
    pthread_mutex_unlock(&l->mu);
    return p;
}

static void locked_free(void *ctx, void *q, size_t n)
{
    avkt_locked_alloc *l = (avkt_locked_alloc *)ctx;
    pthread_mutex_lock(&l->mu);
    l->inner->free(l->inner->ctx, q, n);
    pthread_mutex_unlock(&l->mu);
}

void avkt_locked_alloc_init(avkt_locked_alloc *l, const avk_allocator *inner)
{
    l->allocator.alloc = locked_alloc;
    l->allocator.realloc = locked_realloc;
    l->allocator.free = locked_free;
    l->allocator.ctx = l;
    l->inner = inner;
    pthread_mutex_init(&l->mu, NULL);
}
