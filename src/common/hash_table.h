/* A hash table of entry numbers (open addressing, linear probing): the caller keeps the entries, the table finds them by hash. */
#ifndef AVK_COMMON_HASH_TABLE_H
#define AVK_COMMON_HASH_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/alloc.h"
#include "avrokit/macros.h"
#include "avrokit/status.h"
#include "common/arena.h"

/* The table holds indexes into the caller's own array (of names, types,
 * pairs...) with their hashes; the caller compares keys itself, so any key
 * works and equality is inlined at each use:
 *
 *     uint32_t h = avki_hash_bytes(&t, key, len);
 *     size_t pos = avki_hash_first(&t, h), i;
 *     while ((i = avki_hash_next(&t, h, &pos)) != AVKI_HASH_END)
 *         if (entries[i] equals key)
 *             return i;
 *     ... not there: append it as entries[n], then
 *     st = avki_hash_add(&t, h, n);
 *
 * Slots are 8 bytes and at most half full; a slot's stored hash stops most
 * mismatches before the entry is touched, and lets the table grow without
 * asking the caller for keys. Slots come from the caller's first storage,
 * then an allocator (freed by destroy) or an arena (left to it). One table
 * belongs to one thread at a time. */

typedef struct avki_hash_slot {
    uint32_t hash;
    uint32_t entry; /* the caller's index + 1; 0: an empty slot */
} avki_hash_slot;

/* Indexes are kept in 32 bits: at most this many entries, each index
 * below it. (Searches start from the 32-bit hash: past 2^31 entries they
 * stay right but slow down.) */
#define AVKI_HASH_MAX_ENTRIES ((size_t)UINT32_MAX - 1)
/* What avki_hash_next returns past the last candidate. */
#define AVKI_HASH_END SIZE_MAX
/* Slots of the first table obtained; a table this small costs little to
 * scan and to clear. */
#define AVKI_HASH_FIRST_CAP 16

typedef struct avki_hash {
    avki_hash_slot *slots;
    size_t mask;  /* slot count - 1; the count is a power of two */
    size_t count; /* entries held */
    uint64_t seed; /* of avki_hash_bytes, random per process */
    avki_hash_slot *local; /* the caller's first slots, or NULL */
    const avk_allocator *alloc; /* later slots: from alloc... */
    avki_arena *arena;          /* ...or, when set, from this arena */
} avki_hash;

/* An empty table whose slots come from alloc (NULL: the C library); the
 * first local_cap slots (0, or a power of two of at least 2) from local,
 * which must outlive the table. Allocates nothing. */
void avki_hash_init(avki_hash *t, const avk_allocator *alloc, avki_hash_slot *local,
                    size_t local_cap);

/* An empty table whose slots come from arena (8-byte aligned, counted
 * against its limit, never freed before the arena resets). */
void avki_hash_init_arena(avki_hash *t, avki_arena *arena);

/* Makes room for n entries in all, so adding up to n needs no allocation.
 * AVK_OK; AVK_ERR_LIMIT when n > AVKI_HASH_MAX_ENTRIES; AVK_ERR_NO_MEMORY
 * when the allocator or arena fails (the table is unchanged). */
avk_status avki_hash_reserve(avki_hash *t, size_t n);

/* Doubles the slots (the first table: AVKI_HASH_FIRST_CAP); for avki_hash_add. */
avk_status avki_hash_grow(avki_hash *t);

/* Adds entry index with hash h. The caller has checked that no equal
 * entry is there (the table does not compare keys). Grows when past half
 * full. AVK_OK; AVK_ERR_LIMIT when index >= AVKI_HASH_MAX_ENTRIES or the
 * table holds that many; AVK_ERR_NO_MEMORY when growing fails (nothing is
 * added, the table is unchanged). Inline: callers that reserved add
 * without a call. */
static inline avk_status avki_hash_add(avki_hash *t, uint32_t h, size_t index)
{
    size_t pos;
    if (AVK_UNLIKELY(index >= AVKI_HASH_MAX_ENTRIES))
        return AVK_ERR_LIMIT;
    /* An empty table's one shared slot (mask 0) counts as full. */
    if (AVK_UNLIKELY(2 * (t->count + 1) > t->mask + 1)) {
        avk_status st = avki_hash_grow(t);
        if (st != AVK_OK)
            return st;
    }
    for (pos = h & t->mask; t->slots[pos].entry; pos = (pos + 1) & t->mask)
        ;
    t->slots[pos].hash = h;
    t->slots[pos].entry = (uint32_t)index + 1;
    t->count++;
    return AVK_OK;
}

/* Gives back the slots obtained from the allocator. Safe twice; the
 * table may then be initialised again. */
void avki_hash_destroy(avki_hash *t);

/* Where the search for hash h starts. */
static inline size_t avki_hash_first(const avki_hash *t, uint32_t h)
{
    return h & t->mask;
}

/* The next entry, from *pos on, whose hash is h, or AVKI_HASH_END at the
 * first empty slot (the key is not there). */
static inline size_t avki_hash_next(const avki_hash *t, uint32_t h, size_t *pos)
{
    for (;;) {
        avki_hash_slot s = t->slots[*pos];
        if (!s.entry)
            return AVKI_HASH_END;
        *pos = (*pos + 1) & t->mask;
        if (s.hash == h)
            return s.entry - 1;
    }
}

/* ---- hashes --------------------------------------------------------------
 * The one string hash, and one mixer for pointers and for combining. */

/* A 64-bit bijection that spreads every input bit over the output. */
static inline uint64_t avki_hash_mix(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93u;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93u;
    return x ^ (x >> 32);
}

static inline uint64_t avki_hash_load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint64_t avki_hash_load32(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* The hash of bytes p[0..n) (p may be NULL when n is 0) under t's seed.
 * Keys may come from a file, so someone may choose them to collide: the
 * seed is random once per process, so colliding keys cannot be prepared
 * in advance. Compare hashes only within one process.
 *
 * A mix per 8 bytes and one at the end; the length goes in first. A key
 * of up to 8 bytes (most names) takes one mix: 4-8 bytes as two 4-byte
 * loads that may overlap, 1-3 as the first, middle and last bytes, which
 * with the length give back every byte. Inline: it runs once per lookup. */
static inline uint32_t avki_hash_bytes(const avki_hash *t, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    uint64_t seed = t->seed, h = seed ^ ((uint64_t)n * 0x9e3779b97f4a7c15u), w;
    if (n > 8) {
        for (; n > 8; b += 8, n -= 8)
            h = avki_hash_mix(h ^ avki_hash_load64(b)) + seed;
        w = avki_hash_load64(b + n - 8); /* the last 8 bytes, overlapping */
    } else if (n >= 4) {
        w = avki_hash_load32(b) | avki_hash_load32(b + n - 4) << 32;
    } else if (n > 0) {
        w = b[0] | (uint64_t)b[n / 2] << 8 | (uint64_t)b[n - 1] << 16;
    } else {
        w = 0;
    }
    return (uint32_t)avki_hash_mix(h ^ w);
}

/* The hash of an address (addresses are not chosen by input: no seed).
 * One multiply: the product's high half depends on every address bit. */
static inline uint32_t avki_hash_ptr(const void *p)
{
    return (uint32_t)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u) >> 32);
}

/* The hash of a pair of keys from the hashes of its two halves (order
 * matters). */
static inline uint32_t avki_hash_pair(uint32_t a, uint32_t b)
{
    return (uint32_t)avki_hash_mix(((uint64_t)a << 32) | b);
}

#endif
