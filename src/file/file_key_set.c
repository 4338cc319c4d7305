/* A set of metadata keys that finds a repeated key in linear time, for the header reader and the writer's checks. */
#define _GNU_SOURCE /* getrandom */
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/alloc_internal.h"
#include "file/file_key_set.h"

/* 8 bytes a slot, the table at most half full: 16-32 bytes a key, less
 * than the smallest entries take in memory anyway. */
struct avki_key_slot {
    uint32_t tag;         /* the hash's high half: most mismatches stop here */
    uint32_t index_plus1; /* 0: an empty slot */
};

/* A table this small is scanned in a few probes whatever the hashes are;
 * past it the seed turns random (see grow). */
#define FIRST_CAP 16u

void avki_key_set_init(avki_key_set *s, const avk_allocator *alloc, avki_key_at_fn key_at,
                       const void *ctx)
{
    memset(s, 0, sizeof *s);
    s->alloc = avki_allocator_or_libc(alloc);
    s->key_at = key_at;
    s->ctx = ctx;
    s->seed = 0x243f6a8885a308d3u;
}

void avki_key_set_destroy(avki_key_set *s)
{
    if (s->slots)
        s->alloc.free(s->alloc.ctx, s->slots, s->cap * sizeof *s->slots);
    memset(s, 0, sizeof *s);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93u;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93u;
    return x ^ (x >> 32);
}

/* Keys come from the file, so someone may have chosen them to collide: the
 * seed is random once the table is large enough for that to matter, so
 * colliding keys cannot be prepared in advance. */
static uint64_t key_hash(uint64_t seed, const uint8_t *p, size_t n)
{
    uint64_t h = seed ^ ((uint64_t)n * 0x9e3779b97f4a7c15u), w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = mix(h ^ w) + seed;
    }
    w = 0;
    if (n)
        memcpy(&w, p, n);
    return mix(h ^ w ^ ((uint64_t)n << 59));
}

static uint64_t random_seed(const void *addr)
{
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
        struct timespec ts; /* no getrandom (seccomp, old kernels): clock and address */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed = mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)addr);
    }
    return seed;
}

/* The slot holding key[0..len), or the empty slot where it would go. */
static avki_key_slot *find(const avki_key_set *s, uint64_t hash, const uint8_t *key, size_t len)
{
    size_t mask = s->cap - 1, i = (size_t)hash & mask;
    uint32_t tag = (uint32_t)(hash >> 32);
    for (;;) {
        avki_key_slot *t = &s->slots[i];
        if (!t->index_plus1)
            return t;
        if (t->tag == tag) {
            size_t n;
            const uint8_t *k = s->key_at(s->ctx, t->index_plus1 - 1, &n);
            if (n == len && (len == 0 || memcmp(k, key, len) == 0))
                return t;
        }
        i = (i + 1) & mask;
    }
}

/* Doubles the table (at most half full), rehashing every key: with a new
 * random seed when leaving the first size. */
static avk_status grow(avki_key_set *s)
{
    avki_key_set bigger = *s;
    size_t i;
    bigger.cap = s->cap ? s->cap * 2 : FIRST_CAP;
    if (bigger.cap < s->cap || bigger.cap > SIZE_MAX / sizeof *bigger.slots)
        return AVK_ERR_NO_MEMORY;
    bigger.slots = (avki_key_slot *)s->alloc.alloc(s->alloc.ctx, bigger.cap * sizeof *bigger.slots);
    if (!bigger.slots)
        return AVK_ERR_NO_MEMORY;
    memset(bigger.slots, 0, bigger.cap * sizeof *bigger.slots);
    if (s->cap == FIRST_CAP)
        bigger.seed = random_seed(bigger.slots);
    for (i = 0; i < s->cap; i++) {
        avki_key_slot t = s->slots[i];
        size_t n;
        const uint8_t *k;
        uint64_t hash;
        if (!t.index_plus1)
            continue;
        k = s->key_at(s->ctx, t.index_plus1 - 1, &n);
        hash = key_hash(bigger.seed, k, n);
        t.tag = (uint32_t)(hash >> 32);
        /* Keys are distinct: the first empty slot from its place is its own. */
        {
            size_t mask = bigger.cap - 1, j = (size_t)hash & mask;
            while (bigger.slots[j].index_plus1)
                j = (j + 1) & mask;
            bigger.slots[j] = t;
        }
    }
    if (s->slots)
        s->alloc.free(s->alloc.ctx, s->slots, s->cap * sizeof *s->slots);
    *s = bigger;
    return AVK_OK;
}

avk_status avki_key_set_add(avki_key_set *s, size_t index, size_t *first)
{
    avki_key_slot *t;
    uint64_t hash;
    size_t len;
    const uint8_t *key;
    *first = SIZE_MAX;
    if (index >= AVKI_KEY_SET_MAX)
        return AVK_ERR_NO_MEMORY;
    if ((s->count + 1) * 2 > s->cap) {
        avk_status st = grow(s);
        if (st != AVK_OK)
            return st;
    }
    key = s->key_at(s->ctx, index, &len);
    hash = key_hash(s->seed, key, len);
    t = find(s, hash, key, len);
    if (t->index_plus1) {
        *first = t->index_plus1 - 1;
        return AVK_OK;
    }
    t->tag = (uint32_t)(hash >> 32);
    t->index_plus1 = (uint32_t)(index + 1);
    s->count++;
    return AVK_OK;
}
