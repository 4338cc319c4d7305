/* Unit tests for the hash table of entry numbers: lookups, growth, collisions, empty keys, storage, limits, the hashes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "avkt.h"
#include "common/arena.h"
#include "common/hash_table.h"
#include "failalloc.h"

#define KEYS 3000

/* The entries: keys the table indexes, as callers keep them. */
typedef struct keys {
    char text[KEYS][16];
    size_t len[KEYS];
    size_t n;
} keys;

static keys K;

static void make_keys(keys *k, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        /* Lengths 1 to 15, so both the word loop and the tail are hashed. */
        int w = snprintf(k->text[i], sizeof k->text[i], "%.*s%zu", (int)(i % 11), "kkkkkkkkkkk",
                         i);
        k->len[i] = (size_t)w;
    }
    k->n = n;
}

/* The caller's side of a lookup: candidates by hash, equality by bytes. */
static size_t find(const avki_hash *t, const keys *k, const char *key, size_t len)
{
    uint32_t h = avki_hash_bytes(t, key, len);
    size_t pos = avki_hash_first(t, h), i;
    while ((i = avki_hash_next(t, h, &pos)) != AVKI_HASH_END)
        if (k->len[i] == len && (len == 0 || memcmp(k->text[i], key, len) == 0))
            return i;
    return AVKI_HASH_END;
}

static void add_key(avki_hash *t, const keys *k, size_t i)
{
    AVKT_OK(avki_hash_add(t, avki_hash_bytes(t, k->text[i], k->len[i]), i));
}

static void test_empty_table(void **state)
{
    avkt_failalloc fa;
    avki_hash t;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_hash_init(&t, &fa.allocator, NULL, 0);
    /* A search in a table that never grew ends at once, allocating nothing. */
    assert_true(find(&t, &K, "a", 1) == AVKI_HASH_END);
    assert_true(find(&t, &K, "", 0) == AVKI_HASH_END);
    assert_int_equal(t.count, 0);
    avki_hash_destroy(&t);
    avki_hash_destroy(&t);
    assert_int_equal(fa.calls, 0);
}

/* Inserts and lookups through several doublings (16 slots to 8192). */
static void test_growth(void **state)
{
    avkt_failalloc fa;
    avki_hash t;
    size_t i, grown = 0, cap = 0;
    (void)state;
    make_keys(&K, KEYS);
    avkt_failalloc_init(&fa, 0);
    avki_hash_init(&t, &fa.allocator, NULL, 0);
    for (i = 0; i < KEYS; i++) {
        assert_true(find(&t, &K, K.text[i], K.len[i]) == AVKI_HASH_END);
        add_key(&t, &K, i);
        if (t.mask + 1 != cap) {
            cap = t.mask + 1;
            grown++;
        }
        /* At most half full, always. */
        assert_true(2 * t.count <= t.mask + 1);
        /* The first, the last and one between are found after each growth. */
        assert_int_equal(find(&t, &K, K.text[0], K.len[0]), 0);
        assert_int_equal(find(&t, &K, K.text[i / 2], K.len[i / 2]), i / 2);
        assert_int_equal(find(&t, &K, K.text[i], K.len[i]), i);
    }
    assert_int_equal(t.count, KEYS);
    assert_int_equal(t.mask + 1, 8192);
    assert_int_equal(grown, 10); /* 16, 32, ..., 8192 */
    /* One allocation per growth; the old slots are freed with their size. */
    assert_int_equal(fa.calls, 10);
    assert_int_equal(fa.live_blocks, 1);
    for (i = 0; i < KEYS; i++)
        assert_int_equal(find(&t, &K, K.text[i], K.len[i]), i);
    /* Absent keys: a prefix, a longer key, another byte at the end. */
    assert_true(find(&t, &K, "kkk", 3) == AVKI_HASH_END);
    assert_true(find(&t, &K, "kkkkkkkkkkk00", 13) == AVKI_HASH_END);
    assert_true(find(&t, &K, "k1x", 3) == AVKI_HASH_END);
    assert_true(find(&t, &K, "3000", 4) == AVKI_HASH_END);
    avki_hash_destroy(&t);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
    assert_int_equal(fa.bad_frees, 0);
}

/* Keys of one hash: each is a candidate once, and only they are. */
static void test_colliding_keys(void **state)
{
    avki_hash t;
    size_t i, pos, n = 0, e;
    int got[100] = {0};
    (void)state;
    avki_hash_init(&t, NULL, NULL, 0);
    for (i = 0; i < 100; i++)
        AVKT_OK(avki_hash_add(&t, 0x5a5a5a5au, i));
    /* Other hashes with the same starting slot (low bits) in between. */
    for (i = 100; i < 150; i++)
        AVKT_OK(avki_hash_add(&t, 0x5a5a5a5au ^ ((uint32_t)i << 20), i));
    pos = avki_hash_first(&t, 0x5a5a5a5au);
    while ((e = avki_hash_next(&t, 0x5a5a5a5au, &pos)) != AVKI_HASH_END) {
        assert_true(e < 100);
        got[e]++;
        n++;
    }
    assert_int_equal(n, 100);
    for (i = 0; i < 100; i++)
        assert_int_equal(got[i], 1);
    /* A hash of the same slot that nobody has: no candidate. */
    pos = avki_hash_first(&t, 0x5a5a5a5bu ^ (1u << 31));
    assert_true(avki_hash_next(&t, 0x5a5a5a5bu ^ (1u << 31), &pos) == AVKI_HASH_END);
    /* Each of the others is its own only candidate. */
    for (i = 100; i < 150; i++) {
        uint32_t h = 0x5a5a5a5au ^ ((uint32_t)i << 20);
        pos = avki_hash_first(&t, h);
        assert_int_equal(avki_hash_next(&t, h, &pos), i);
        assert_true(avki_hash_next(&t, h, &pos) == AVKI_HASH_END);
    }
    avki_hash_destroy(&t);
}

/* The empty key is a key like the others, distinct from "\0". */
static void test_empty_keys(void **state)
{
    keys *k = &K;
    avki_hash t;
    (void)state;
    avki_hash_init(&t, NULL, NULL, 0);
    k->n = 3;
    k->len[0] = 0;
    memcpy(k->text[1], "\0", 1);
    k->len[1] = 1;
    memcpy(k->text[2], "\0\0\0\0\0\0\0\0", 8);
    k->len[2] = 8;
    assert_int_equal(avki_hash_bytes(&t, NULL, 0), avki_hash_bytes(&t, "x", 0));
    add_key(&t, k, 0);
    assert_int_equal(find(&t, k, NULL, 0), 0);
    assert_int_equal(find(&t, k, "", 0), 0);
    assert_true(find(&t, k, "\0", 1) == AVKI_HASH_END);
    add_key(&t, k, 1);
    add_key(&t, k, 2);
    assert_int_equal(find(&t, k, "", 0), 0);
    assert_int_equal(find(&t, k, "\0", 1), 1);
    assert_int_equal(find(&t, k, "\0\0\0\0\0\0\0\0", 8), 2);
    assert_true(find(&t, k, "\0\0", 2) == AVKI_HASH_END);
    avki_hash_destroy(&t);
}

/* Slots from the caller first: nothing is allocated until half full. */
static void test_local_slots(void **state)
{
    avkt_failalloc fa;
    avki_hash_slot local[8];
    avki_hash t;
    size_t i;
    (void)state;
    make_keys(&K, 40);
    memset(local, 0xff, sizeof local); /* init clears them */
    avkt_failalloc_init(&fa, 0);
    avki_hash_init(&t, &fa.allocator, local, 8);
    for (i = 0; i < 4; i++)
        add_key(&t, &K, i);
    assert_int_equal(fa.calls, 0);
    assert_ptr_equal(t.slots, local);
    for (i = 0; i < 4; i++)
        assert_int_equal(find(&t, &K, K.text[i], K.len[i]), i);
    add_key(&t, &K, 4);
    assert_int_equal(fa.calls, 1);
    assert_int_equal(t.mask + 1, 16);
    for (i = 5; i < 40; i++)
        add_key(&t, &K, i);
    for (i = 0; i < 40; i++)
        assert_int_equal(find(&t, &K, K.text[i], K.len[i]), i);
    avki_hash_destroy(&t);
    assert_int_equal(fa.live_blocks, 0); /* the caller's slots were never freed */
    assert_int_equal(fa.bad_frees, 0);
}

/* Slots from an arena: reserve makes room once; the limit shows as NO_MEMORY. */
static void test_arena_slots(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    avki_hash t;
    size_t i, before;
    (void)state;
    make_keys(&K, 300);
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 0, 0);
    avki_hash_init_arena(&t, &a);
    AVKT_OK(avki_hash_reserve(&t, 300));
    assert_int_equal(t.mask + 1, 1024);
    assert_int_equal((uintptr_t)t.slots % 8, 0);
    before = a.allocations;
    for (i = 0; i < 300; i++)
        add_key(&t, &K, i);
    assert_int_equal(a.allocations, before);
    assert_int_equal(t.mask + 1, 1024);
    for (i = 0; i < 300; i++)
        assert_int_equal(find(&t, &K, K.text[i], K.len[i]), i);
    /* Reserving less than what is there changes nothing. */
    AVKT_OK(avki_hash_reserve(&t, 10));
    assert_int_equal(t.mask + 1, 1024);
    avki_hash_destroy(&t); /* the arena keeps its slots */
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);

    /* An arena limit: growing fails, nothing is lost. */
    avki_arena_init(&a, &fa.allocator, 0, 4096);
    avki_hash_init_arena(&t, &a);
    for (i = 0; i < 300; i++) {
        avk_status st = avki_hash_add(&t, avki_hash_bytes(&t, K.text[i], K.len[i]), i);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            break;
        }
    }
    /* 4096 bytes hold the 256-slot table (2 KiB) but not also the 512-slot one. */
    assert_int_equal(i, 128);
    assert_int_equal(a.limit_hit, 1);
    assert_int_equal(t.count, 128);
    for (i = 0; i < 128; i++)
        assert_int_equal(find(&t, &K, K.text[i], K.len[i]), i);
    assert_true(find(&t, &K, K.text[128], K.len[128]) == AVKI_HASH_END);
    AVKT_ASSERT_STATUS(avki_hash_reserve(&t, 1000), AVK_ERR_NO_MEMORY);
    assert_int_equal(t.mask + 1, 256);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
}

/* Every allocation failing in turn: NO_MEMORY, the table as it was, no leak. */
static void test_failing_allocator(void **state)
{
    avkt_failalloc fa;
    avki_hash t;
    long n;
    size_t i;
    (void)state;
    make_keys(&K, 200);
    for (n = 1; n <= 5; n++) {
        size_t added = 0;
        avkt_failalloc_init(&fa, n);
        avki_hash_init(&t, &fa.allocator, NULL, 0);
        for (i = 0; i < 200; i++) {
            avk_status st = avki_hash_add(&t, avki_hash_bytes(&t, K.text[i], K.len[i]), i);
            if (st != AVK_OK) {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                continue; /* later adds succeed again */
            }
            added++;
        }
        /* The n-th growth failed: the key it was for is missing, the rest are there. */
        assert_int_equal(added, 199);
        assert_int_equal(t.count, 199);
        for (i = 0; i < 200; i++) {
            size_t missing = n == 1 ? 0 : (size_t)8 << (n - 2); /* 16 slots, then doubling */
            size_t want = i == missing ? AVKI_HASH_END : i;
            assert_true(find(&t, &K, K.text[i], K.len[i]) == want);
        }
        avki_hash_destroy(&t);
        assert_int_equal(fa.failures, 1);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
    }
}

/* Indexes are kept in 32 bits: past them is a limit, not a wrong entry. */
static void test_limits(void **state)
{
    avki_hash t;
    size_t pos;
    (void)state;
    avki_hash_init(&t, NULL, NULL, 0);
    AVKT_ASSERT_STATUS(avki_hash_add(&t, 1, AVKI_HASH_MAX_ENTRIES), AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avki_hash_add(&t, 1, SIZE_MAX), AVK_ERR_LIMIT);
    assert_int_equal(t.count, 0);
    assert_int_equal(t.mask, 0); /* nothing was allocated for them */
    AVKT_ASSERT_STATUS(avki_hash_reserve(&t, AVKI_HASH_MAX_ENTRIES + 1), AVK_ERR_LIMIT);
    /* The largest index there is room for comes back whole. */
    AVKT_OK(avki_hash_add(&t, 1, AVKI_HASH_MAX_ENTRIES - 1));
    pos = avki_hash_first(&t, 1);
    assert_true(avki_hash_next(&t, 1, &pos) == AVKI_HASH_MAX_ENTRIES - 1);
    assert_true(avki_hash_next(&t, 1, &pos) == AVKI_HASH_END);
    assert_int_equal(t.count, 1);
    avki_hash_destroy(&t);
}

static void test_hashes(void **state)
{
    avki_hash t;
    static uint32_t seen[KEYS];
    char a[40], b[40];
    size_t i, j, distinct = 0;
    int x, y;
    (void)state;
    avki_hash_init(&t, NULL, NULL, 0);
    /* The same bytes at different addresses and alignments hash alike. */
    memcpy(a, "org.apache.avro.SomeRecordName", 30);
    memcpy(b + 3, "org.apache.avro.SomeRecordName", 30);
    assert_int_equal(avki_hash_bytes(&t, a, 30), avki_hash_bytes(&t, b + 3, 30));
    /* A byte changed anywhere changes the hash; so does the length. */
    for (i = 0; i < 30; i++) {
        b[3 + i] ^= 1;
        assert_int_not_equal(avki_hash_bytes(&t, a, 30), avki_hash_bytes(&t, b + 3, 30));
        b[3 + i] ^= 1;
    }
    for (i = 0; i < 30; i++)
        assert_int_not_equal(avki_hash_bytes(&t, a, i), avki_hash_bytes(&t, a, i + 1));
    /* 3000 short keys: (nearly) all hashes distinct, and their low bits
     * (the starting slots) spread. */
    make_keys(&K, KEYS);
    for (i = 0; i < KEYS; i++) {
        uint32_t h = avki_hash_bytes(&t, K.text[i], K.len[i]);
        for (j = 0; j < distinct && seen[j] != h; j++)
            ;
        if (j == distinct)
            seen[distinct++] = h;
    }
    assert_true(distinct >= KEYS - 2);
    {
        unsigned hits[64] = {0}, most = 0;
        for (i = 0; i < distinct; i++)
            hits[seen[i] & 63]++;
        for (i = 0; i < 64; i++)
            most = hits[i] > most ? hits[i] : most;
        assert_true(most < 3 * KEYS / 64); /* 47 expected in each */
    }
    /* Addresses and pairs: fixed (no seed), order matters in pairs. */
    assert_int_equal(avki_hash_ptr(&x), avki_hash_ptr(&x));
    assert_int_not_equal(avki_hash_ptr(&x), avki_hash_ptr(&y));
    assert_int_not_equal(avki_hash_pair(1, 2), avki_hash_pair(2, 1));
    /* Consecutive addresses start at spread slots. */
    {
        static int64_t objs[1024];
        unsigned hits[64] = {0}, most = 0;
        for (i = 0; i < 1024; i++)
            hits[avki_hash_ptr(&objs[i]) & 63]++;
        for (i = 0; i < 64; i++)
            most = hits[i] > most ? hits[i] : most;
        assert_true(most < 48); /* 16 expected in each */
    }
    avki_hash_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_table),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_colliding_keys),
        cmocka_unit_test(test_empty_keys),
        cmocka_unit_test(test_local_slots),
        cmocka_unit_test(test_arena_slots),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_hashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
