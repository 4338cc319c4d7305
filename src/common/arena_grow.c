/* Growable storage in an arena: appends one item at a time in amortised constant time. */
#include <stdint.h>
#include <string.h>

#include "common/arena.h"
#include "common/hash_table.h"

/* A value keeps only its items and count (no room for a capacity: avk_value
 * stays 32 bytes), so the capacity of what this file hands out is kept here,
 * keyed by the storage's address. Storage not found here (decoded, the
 * caller's) is treated as full: growing it copies once, into storage that is
 * found from then on. */
typedef struct grow_entry {
    uintptr_t p;  /* the storage; 0 once replaced by a larger copy */
    size_t count; /* items the storage holds after the last call */
    size_t cap;   /* items the storage has room for */
} grow_entry;

/* All of it in the arena, gone at reset: entries in the order recorded
 * (a full array is copied into one twice the size, the old one left to the
 * arena) and a table of their indexes by address. */
struct avki_grow_table {
    avki_hash index;
    grow_entry *entries;
    size_t n, cap;
};

#define FIRST_ENTRIES 8
#define FIRST_ROOM 4

static uint32_t address_hash(uintptr_t p)
{
    return avki_hash_ptr((const void *)p);
}

static grow_entry *find(avki_grow_table *t, uintptr_t p)
{
    uint32_t h;
    size_t pos, i;
    if (!t)
        return NULL;
    h = address_hash(p);
    pos = avki_hash_first(&t->index, h);
    while ((i = avki_hash_next(&t->index, h, &pos)) != AVKI_HASH_END)
        if (t->entries[i].p == p)
            return &t->entries[i];
    return NULL;
}

/* Records p (never recorded before: arena memory is not handed out twice
 * before a reset). 0 when the arena cannot hold it. */
static int record(avki_arena *a, uintptr_t p, size_t count, size_t cap)
{
    avki_grow_table *t = a->grow;
    grow_entry *e;
    if (!t) {
        t = (avki_grow_table *)avki_arena_alloc(a, sizeof *t, _Alignof(avki_grow_table));
        if (!t)
            return 0;
        avki_hash_init_arena(&t->index, a);
        t->entries = NULL;
        t->n = t->cap = 0;
        a->grow = t;
    }
    if (t->n == t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : FIRST_ENTRIES;
        grow_entry *ne;
        if (ncap > SIZE_MAX / sizeof *ne)
            return 0;
        ne = (grow_entry *)avki_arena_alloc(a, ncap * sizeof *ne, _Alignof(grow_entry));
        if (!ne)
            return 0;
        if (t->n)
            memcpy(ne, t->entries, t->n * sizeof *ne);
        t->entries = ne;
        t->cap = ncap;
    }
    if (avki_hash_add(&t->index, address_hash(p), t->n) != AVK_OK)
        return 0;
    e = &t->entries[t->n++];
    e->p = p;
    e->count = count;
    e->cap = cap;
    return 1;
}

void *avki_arena_grow(avki_arena *a, void *p, size_t count, size_t add, size_t size,
                      size_t align)
{
    grow_entry *s = p ? find(a->grow, (uintptr_t)p) : NULL;
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
    if (s && s->count == count)
        s->p = 0;
    if (!record(a, (uintptr_t)np, count + add, cap))
        return NULL;
    return np;
}
