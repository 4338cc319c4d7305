/* A hash table of entry numbers: growth, storage, and the string hash's per-process seed. */
#define _GNU_SOURCE /* getrandom */
#include <stdatomic.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/hash_table.h"

/* What an empty table points at: one empty slot, so a search in a table
 * that has never grown needs no test of its own. Never written: the first
 * add grows the table first. */
static avki_hash_slot no_slots[1];

/* 0 until the first table asks; then the same for every table. Relaxed
 * atomics suffice: the value is all that is shared. */
static _Atomic uint64_t process_seed;

static uint64_t new_seed(void) __attribute__((cold, noinline));

static uint64_t new_seed(void)
{
    uint64_t seed = 0, expected = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
        struct timespec ts; /* no getrandom (seccomp, old kernels): clock and address */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed = avki_hash_mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                             (uint64_t)(uintptr_t)&seed);
    }
    seed |= 1; /* never 0, which means "not yet" */
    /* Two first tables on two threads: both keep the seed that landed first. */
    if (!atomic_compare_exchange_strong_explicit(&process_seed, &expected, seed,
                                                 memory_order_relaxed, memory_order_relaxed))
        seed = expected;
    return seed;
}

static void init_common(avki_hash *t)
{
    uint64_t seed = atomic_load_explicit(&process_seed, memory_order_relaxed);
    memset(t, 0, sizeof *t);
    t->slots = no_slots;
    t->seed = seed ? seed : new_seed();
}

void avki_hash_init(avki_hash *t, const avk_allocator *alloc, avki_hash_slot *local,
                    size_t local_cap)
{
    init_common(t);
    t->alloc = alloc ? alloc : avk_allocator_libc();
    if (local && local_cap >= 2) {
        memset(local, 0, local_cap * sizeof *local);
        t->local = local;
        t->slots = local;
        t->mask = local_cap - 1;
    }
}

void avki_hash_init_arena(avki_hash *t, avki_arena *arena)
{
    init_common(t);
    t->arena = arena;
}

static size_t slot_count(const avki_hash *t)
{
    return t->slots == no_slots ? 0 : t->mask + 1;
}

/* Moves every entry into a cleared table of cap slots (a power of two,
 * more than twice the entries). */
static avk_status rehash(avki_hash *t, size_t cap)
{
    size_t old_cap = slot_count(t), i;
    avki_hash_slot *slots;
    if (cap > SIZE_MAX / sizeof *slots)
        return AVK_ERR_NO_MEMORY;
    if (t->arena)
        slots = (avki_hash_slot *)avki_arena_alloc(t->arena, cap * sizeof *slots, 8);
    else
        slots = (avki_hash_slot *)t->alloc->alloc(t->alloc->ctx, cap * sizeof *slots);
    if (!slots)
        return AVK_ERR_NO_MEMORY;
    memset(slots, 0, cap * sizeof *slots);
    for (i = 0; i < old_cap; i++) {
        avki_hash_slot s = t->slots[i];
        size_t j = s.hash & (cap - 1);
        if (!s.entry)
            continue;
        /* Entries are distinct: the first empty slot from its place is its own. */
        while (slots[j].entry)
            j = (j + 1) & (cap - 1);
        slots[j] = s;
    }
    if (old_cap && t->slots != t->local && !t->arena)
        t->alloc->free(t->alloc->ctx, t->slots, old_cap * sizeof *t->slots);
    t->slots = slots;
    t->mask = cap - 1;
    return AVK_OK;
}

avk_status avki_hash_reserve(avki_hash *t, size_t n)
{
    size_t cap = slot_count(t);
    if (n > AVKI_HASH_MAX_ENTRIES)
        return AVK_ERR_LIMIT;
    if (n <= cap / 2)
        return AVK_OK;
    if (cap < AVKI_HASH_FIRST_CAP)
        cap = AVKI_HASH_FIRST_CAP;
    while (cap / 2 < n) {
        if (cap > SIZE_MAX / 2)
            return AVK_ERR_NO_MEMORY;
        cap *= 2;
    }
    return rehash(t, cap);
}

avk_status avki_hash_grow(avki_hash *t)
{
    size_t cap = slot_count(t);
    if (t->count >= AVKI_HASH_MAX_ENTRIES)
        return AVK_ERR_LIMIT;
    if (cap > SIZE_MAX / 2)
        return AVK_ERR_NO_MEMORY;
    return rehash(t, cap ? cap * 2 : AVKI_HASH_FIRST_CAP);
}

void avki_hash_destroy(avki_hash *t)
{
    size_t cap = slot_count(t);
    if (cap && t->slots != t->local && !t->arena)
        t->alloc->free(t->alloc->ctx, t->slots, cap * sizeof *t->slots);
    t->slots = no_slots;
    t->mask = 0;
    t->count = 0;
}
