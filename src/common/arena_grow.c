/* Growable storage in an arena: appends one item at a time in amortised constant time. */
#include <stdint.h>
#include <string.h>

#include "common/arena.h"

/* A value keeps only its items and count (no room for a capacity: avk_value
 * stays 32 bytes), so the capacity of what this file hands out is kept here,
 * keyed by the storage's address. Storage not found here (decoded, the
 * caller's) is treated as full: growing it copies once, into storage that is
 * found from then on. */
typedef struct grow_slot {
    uintptr_t p;  /* the storage; 0 free, TOMBSTONE replaced by a larger copy */
    size_t count; /* items the storage holds after the last call */
    size_t cap;   /* items the storage has room for */
} grow_slot;

struct avki_grow_table {
    size_t mask; /* slots - 1, slots a power of two */
    size_t used; /* slots not free (tombstones too): at most half of them */
    size_t live; /* slots holding storage */
    grow_slot slots[];
};

#define TOMBSTONE ((uintptr_t)1)
#define FIRST_SLOTS 16
#define FIRST_ROOM 4

static size_t slot_of(uintptr_t p, size_t mask)
{
    /* Fibonacci hashing of the address without its alignment bits. */
    return (size_t)((((uint64_t)p >> 3) * 0x9e3779b97f4a7c15ULL) >> 29) & mask;
}

static grow_slot *find(avki_grow_table *t, uintptr_t p)
{
    size_t i;
    if (!t)
        return NULL;
    for (i = slot_of(p, t->mask); t->slots[i].p; i = (i + 1) & t->mask)
        if (t->slots[i].p == p)
            return &t->slots[i];
    return NULL;
}

/* Records p (never recorded before: arena memory is not handed out twice
 * before a reset). 0 when the arena cannot hold a larger table. */
static int record(avki_arena *a, uintptr_t p, size_t count, size_t cap)
{
    avki_grow_table *t = a->grow;
    size_t i;
    if (!t || 2 * (t->used + 1) > t->mask + 1) {
        /* A new table at least twice the live slots; the old one stays in
         * the arena until reset (amortised: each table is twice the last). */
        size_t n = FIRST_SLOTS, live = t ? t->live : 0;
        avki_grow_table *nt;
        while (n < 4 * (live + 1))
            n *= 2;
        nt = (avki_grow_table *)avki_arena_alloc(a, sizeof *nt + n * sizeof(grow_slot),
                                                 _Alignof(avki_grow_table));
        if (!nt)
            return 0;
        memset(nt->slots, 0, n * sizeof(grow_slot));
        nt->mask = n - 1;
        nt->used = nt->live = 0;
        if (t)
            for (i = 0; i <= t->mask; i++)
                if (t->slots[i].p > TOMBSTONE) {
                    size_t j = slot_of(t->slots[i].p, nt->mask);
                    while (nt->slots[j].p)
                        j = (j + 1) & nt->mask;
                    nt->slots[j] = t->slots[i];
                    nt->used++;
                    nt->live++;
                }
        a->grow = t = nt;
    }
    for (i = slot_of(p, t->mask); t->slots[i].p; i = (i + 1) & t->mask)
        ;
    t->slots[i].p = p;
    t->slots[i].count = count;
    t->slots[i].cap = cap;
    t->used++;
    t->live++;
    return 1;
}

void *avki_arena_grow(avki_arena *a, void *p, size_t count, size_t add, size_t size,
                      size_t align)
{
    grow_slot *s = p ? find(a->grow, (uintptr_t)p) : NULL;
    size_t cap;
    void *np;
    if (size == 0 || add > SIZE_MAX - count)
        return NULL;
    if (s && s->count == count && count + add <= s->cap) {
        s->count = count + add;
        return p;
    }
    /* Doubling: n appends copy fewer than 2n items in all. */
    if (count > SIZE_MAX / 2)
        return NULL;
    cap = 2 * count > count + add ? 2 * count : count + add;
    if (cap < FIRST_ROOM)
        cap = FIRST_ROOM;
    if (cap > SIZE_MAX / size)
        return NULL;
    np = avki_arena_alloc(a, cap * size, align);
    if (!np)
        return NULL;
    if (count)
        memcpy(np, p, count * size);
    /* The old storage is done with unless a copy of the value still uses it
     * (its count then differs, and it keeps growing in place). */
    if (s && s->count == count) {
        s->p = TOMBSTONE;
        a->grow->live--;
    }
    if (!record(a, (uintptr_t)np, count + add, cap))
        return NULL;
    return np;
}
