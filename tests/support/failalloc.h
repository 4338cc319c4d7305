/* A counting allocator that can fail the Nth allocation, for leak and out-of-memory tests. */
#ifndef AVKT_FAILALLOC_H
#define AVKT_FAILALLOC_H

#include <pthread.h>
#include <stddef.h>

#include "avrokit/alloc.h"

/* Pass &fa->allocator in an option struct. Every alloc and realloc call
 * counts as one allocation; the fail_at-th one (1-based) returns NULL, and
 * with fail_all_after set so does every later one. Each block carries a
 * hidden header with its size, so a free or realloc that passes the wrong
 * size is counted in size_mismatches, and a pointer the allocator never
 * returned in bad_frees. */
typedef struct avkt_failalloc {
    avk_allocator allocator;
    long fail_at;        /* 0: never fail */
    int fail_all_after;  /* also fail every allocation after fail_at */
    long calls;          /* alloc + realloc calls so far */
    long failures;       /* how many returned NULL */
    long frees;
    long live_blocks;
    size_t live_bytes;
    size_t peak_bytes;
    long size_mismatches;
    long bad_frees;
} avkt_failalloc;

/* Resets all counters; fail_at as above (0: never). */
void avkt_failalloc_init(avkt_failalloc *fa, long fail_at);

/* Another allocator made safe for a reader's or writer's worker threads
 * by a mutex around each call. Pass &l->allocator. */
typedef struct avkt_locked_alloc {
    avk_allocator allocator;
    const avk_allocator *inner;
    pthread_mutex_t mu;
} avkt_locked_alloc;

void avkt_locked_alloc_init(avkt_locked_alloc *l, const avk_allocator *inner);

#endif
