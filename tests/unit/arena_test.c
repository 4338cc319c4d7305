/* Unit tests for the arena: alignment, growth, limits, reset keeping the largest block, caller blocks, the public arena. */
#include <stdint.h>
#include <string.h>

#include "avkt.h"
#include "common/arena.h"
#include "failalloc.h"

static void test_empty_arena(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 0, 0);
    /* Nothing is allocated until the first request. */
    assert_int_equal(fa.calls, 0);
    assert_int_equal(a.allocations, 0);
    assert_int_equal(a.total, 0);
    avki_arena_reset(&a);
    avki_arena_destroy(&a);
    avki_arena_destroy(&a); /* twice is harmless */
    assert_int_equal(fa.calls, 0);
    assert_int_equal(fa.live_blocks, 0);
}

static void test_alignment(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    size_t align, size, round;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 64, 0);
    for (round = 0; round < 50; round++) {
        for (align = 1; align <= 16; align *= 2) {
            for (size = 0; size < 40; size += 7) {
                unsigned char *p = (unsigned char *)avki_arena_alloc(&a, size, align);
                assert_non_null(p);
                assert_int_equal((uintptr_t)p % align, 0);
                memset(p, 0xab, size); /* ASan: the whole request is usable */
            }
        }
    }
    /* 0 counts as 1; others must be powers of two up to 16. */
    assert_non_null(avki_arena_alloc(&a, 3, 0));
    assert_null(avki_arena_alloc(&a, 8, 3));
    assert_null(avki_arena_alloc(&a, 8, 32));
    assert_null(avki_arena_alloc(&a, 8, 12));
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
    assert_int_equal(fa.bad_frees, 0);
}

static void test_allocations_do_not_overlap(void **state)
{
    avki_arena a;
    unsigned char *ptrs[500];
    size_t sizes[500], i, j;
    avkt_rng rng = {42};
    (void)state;
    avki_arena_init(&a, NULL, 100, 0);
    for (i = 0; i < 500; i++) {
        sizes[i] = (size_t)avkt_below(&rng, 3000);
        ptrs[i] = (unsigned char *)avki_arena_alloc(&a, sizes[i], 8);
        assert_non_null(ptrs[i]);
        memset(ptrs[i], (int)(i & 0xff), sizes[i]);
    }
    for (i = 0; i < 500; i++)
        for (j = 0; j < sizes[i]; j++)
            assert_int_equal(ptrs[i][j], i & 0xff);
    avki_arena_destroy(&a);
}

static void test_growth_and_counting(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    size_t i;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 1024, 0);
    /* First block 1 KiB, then 2, 4, ... */
    assert_non_null(avki_arena_alloc(&a, 100, 1));
    assert_int_equal(a.allocations, 1);
    assert_int_equal(fa.calls, 1);
    assert_int_equal(a.total, 1024);
    assert_int_equal(fa.live_bytes, 1024);
    for (i = 0; i < 8; i++)
        assert_non_null(avki_arena_alloc(&a, 100, 1)); /* still fits */
    assert_int_equal(a.allocations, 1);
    assert_non_null(avki_arena_alloc(&a, 500, 1)); /* does not: a 2 KiB block */
    assert_int_equal(a.allocations, 2);
    assert_int_equal(a.total, 1024 + 2048);
    assert_int_equal(fa.live_bytes, a.total);
    assert_int_equal((long)a.allocations, fa.calls);
    /* Blocks double up to 1 MiB, and no further. */
    for (i = 0; i < 40; i++)
        assert_non_null(avki_arena_alloc(&a, 4000, 16));
    assert_true(a.next_size <= (size_t)1024 * 1024);
    for (i = 0; i < 20; i++)
        assert_non_null(avki_arena_alloc(&a, a.next_size / 2, 16));
    assert_int_equal(a.next_size, (size_t)1024 * 1024);
    assert_int_equal(fa.live_bytes, a.total);
    assert_int_equal((long)a.allocations, fa.calls);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
}

static void test_large_request_gets_own_block(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    unsigned char *small1, *big, *small2;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 4096, 0);
    small1 = (unsigned char *)avki_arena_alloc(&a, 16, 1);
    big = (unsigned char *)avki_arena_alloc(&a, 100000, 8);
    small2 = (unsigned char *)avki_arena_alloc(&a, 16, 1);
    assert_non_null(small1);
    assert_non_null(big);
    assert_non_null(small2);
    memset(big, 1, 100000);
    /* The big block sits behind the current one, which keeps filling. */
    assert_int_equal(a.allocations, 2);
    assert_ptr_equal(small2, small1 + 16);
    assert_true(a.total >= 4096 + 100000);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
}

static void test_limit(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    size_t got = 0;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 1024, 8192);
    /* Up to the limit in small pieces... */
    while (avki_arena_alloc(&a, 100, 1))
        got += 100;
    assert_true(a.total <= 8192);
    assert_true(got > 8192 - 4 * 128); /* near the limit blocks shrink to what is left */
    assert_int_equal(fa.live_bytes, a.total);
    /* ...and no further, whatever the size. */
    assert_null(avki_arena_alloc(&a, 100, 1));
    assert_null(avki_arena_alloc(&a, 100000, 1));
    avki_arena_destroy(&a);

    /* A single request above the limit fails without calling the allocator. */
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 0, 1000);
    assert_null(avki_arena_alloc(&a, 1000, 1));
    assert_int_equal(fa.calls, 0);
    assert_non_null(avki_arena_alloc(&a, 500, 1)); /* a first block clipped to the limit */
    assert_true(a.total <= 1000);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
}

static void test_huge_requests(void **state)
{
    avki_arena a;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    assert_null(avki_arena_alloc(&a, SIZE_MAX, 1));
    assert_null(avki_arena_alloc(&a, SIZE_MAX - 20, 16));
    assert_null(avki_arena_strndup(&a, "x", SIZE_MAX));
    assert_non_null(avki_arena_alloc(&a, 10, 1)); /* still usable */
    avki_arena_destroy(&a);
}

static void test_reset_keeps_largest(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    size_t largest, i;
    long calls;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 256, 0);
    for (i = 0; i < 100; i++)
        assert_non_null(avki_arena_alloc(&a, 200, 8));
    assert_true(fa.live_blocks > 3);
    /* Blocks double, so the newest is the largest: half the next size. */
    largest = a.next_size / 2;
    avki_arena_reset(&a);
    assert_int_equal(fa.live_blocks, 1);
    assert_int_equal(fa.live_bytes, largest);
    assert_int_equal(a.total, largest);
    /* What fits the kept block takes no allocator call. */
    calls = fa.calls;
    for (i = 0; i < (largest - 64) / 200; i++)
        assert_non_null(avki_arena_alloc(&a, 200, 8));
    assert_int_equal(fa.calls, calls);
    /* Record after record: after the first reset, no more calls. */
    for (i = 0; i < 10; i++) {
        size_t k;
        avki_arena_reset(&a);
        for (k = 0; k < 30; k++)
            assert_non_null(avki_arena_alloc(&a, 200, 8));
    }
    assert_int_equal(fa.calls, calls);
    /* A dedicated big block is the largest: it is the one kept. */
    assert_non_null(avki_arena_alloc(&a, 1000000, 8));
    avki_arena_reset(&a);
    assert_int_equal(fa.live_blocks, 1);
    assert_true(fa.live_bytes >= 1000000);
    calls = fa.calls;
    assert_non_null(avki_arena_alloc(&a, 900000, 8));
    assert_int_equal(fa.calls, calls);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
    assert_int_equal(fa.bad_frees, 0);
}

static void test_strndup(void **state)
{
    avki_arena a;
    char *s;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    s = avki_arena_strndup(&a, "hello world", 5);
    assert_non_null(s);
    assert_string_equal(s, "hello");
    s = avki_arena_strndup(&a, "a\0b", 3);
    assert_non_null(s);
    assert_memory_equal(s, "a\0b\0", 4);
    s = avki_arena_strndup(&a, NULL, 0);
    assert_non_null(s);
    assert_string_equal(s, "");
    avki_arena_destroy(&a);
}

/* Fails the Nth allocator call for every N, with and without every later
 * call failing too: NULL comes back, the arena stays usable, nothing leaks. */
static long run_workload(avki_arena *a)
{
    int i, failed = 0;
    for (i = 0; i < 200; i++) {
        size_t size = (size_t)(i % 7) * 50 + 1;
        void *p = avki_arena_alloc(a, size, 8);
        if (!p)
            failed++;
        else
            memset(p, 0, size);
    }
    return failed;
}

static void test_failing_allocator(void **state)
{
    long n, calls;
    int all_after;
    avkt_failalloc fa;
    avki_arena a;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 64, 0);
    assert_int_equal(run_workload(&a), 0);
    calls = fa.calls;
    assert_true(calls > 5);
    avki_arena_destroy(&a);
    for (all_after = 0; all_after <= 1; all_after++) {
        for (n = 1; n <= calls; n++) {
            avkt_failalloc_init(&fa, n);
            fa.fail_all_after = all_after;
            avki_arena_init(&a, &fa.allocator, 64, 0);
            assert_true(run_workload(&a) >= 1);
            assert_int_equal((long)a.allocations, fa.calls);
            avki_arena_reset(&a);
            assert_true(fa.live_blocks <= 1);
            avki_arena_destroy(&a);
            assert_int_equal(fa.live_blocks, 0);
            assert_int_equal(fa.size_mismatches, 0);
            assert_int_equal(fa.bad_frees, 0);
        }
    }
}

/* ---- the caller's first block ------------------------------------------- */

/* True when [p, p + size) lies inside [base, base + len). */
static int inside(const void *p, size_t size, const void *base, size_t len)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
    return a >= b && a + size <= b + len;
}

static void test_caller_block_used_first(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    _Alignas(16) unsigned char mem[1024];
    unsigned char *p, *prev = NULL;
    size_t i;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 0, 0);
    assert_int_equal(avki_arena_set_first_block(&a, mem, sizeof mem), 1);
    /* 40 x 20 bytes fit in 1 KiB less a header: no allocator call. */
    for (i = 0; i < 40; i++) {
        p = (unsigned char *)avki_arena_alloc(&a, 20, 4);
        assert_non_null(p);
        assert_true(inside(p, 20, mem, sizeof mem));
        assert_int_equal((uintptr_t)p % 4, 0);
        if (prev)
            assert_true(p >= prev + 20);
        memset(p, (int)i, 20);
        prev = p;
    }
    assert_int_equal(fa.calls, 0);
    assert_int_equal(a.allocations, 0);
    assert_int_equal(a.total, 0); /* the caller's bytes are not counted */
    /* When it is full, blocks come from the allocator as usual. */
    p = (unsigned char *)avki_arena_alloc(&a, 500, 8);
    assert_non_null(p);
    assert_false(inside(p, 1, mem, sizeof mem));
    assert_int_equal(fa.calls, 1);
    assert_int_equal(a.total, 4096);
    /* It was never the allocator's: destroy frees only the allocator's
     * block (failalloc counts a foreign pointer in bad_frees). */
    avki_arena_destroy(&a);
    assert_int_equal(fa.frees, 1);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.bad_frees, 0);
    assert_int_equal(fa.size_mismatches, 0);
}

static void test_caller_block_refused(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    _Alignas(16) unsigned char mem[256];
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 0, 0);
    /* Below 64 bytes, NULL: ignored. */
    assert_int_equal(avki_arena_set_first_block(&a, mem, 63), 0);
    assert_int_equal(avki_arena_set_first_block(&a, NULL, 256), 0);
    assert_null(a.head);
    /* Not once a block exists. */
    assert_non_null(avki_arena_alloc(&a, 8, 8));
    assert_int_equal(avki_arena_set_first_block(&a, mem, sizeof mem), 0);
    avki_arena_destroy(&a);
    /* A misaligned start is aligned: 16-byte requests still come aligned
     * and inside the storage. */
    avki_arena_init(&a, &fa.allocator, 0, 0);
    assert_int_equal(avki_arena_set_first_block(&a, mem + 3, 200), 1);
    {
        unsigned char *p = (unsigned char *)avki_arena_alloc(&a, 16, 16);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        assert_true(inside(p, 16, mem + 3, 200));
    }
    avki_arena_destroy(&a);
    assert_int_equal(fa.calls, 1); /* only the request before the refusal */
    assert_int_equal(fa.bad_frees, 0);
}

/* One "record": allocations of various sizes and alignments. */
static void record_workload(avki_arena *a, size_t bytes)
{
    size_t done = 0, i = 0;
    while (done < bytes) {
        size_t size = 8 + (i * 37) % 120, align = (size_t)1 << (i % 5);
        unsigned char *p = (unsigned char *)avki_arena_alloc_fast(a, size, align);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % align, 0);
        memset(p, 0x5a, size);
        done += size;
        i++;
    }
}

static void test_caller_block_reset_reuse(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    _Alignas(16) unsigned char mem[8192];
    long calls;
    int round;
    (void)state;

    /* Records that fit the caller's block: the allocator is never called,
     * and reset keeps the caller's block. */
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 0, 0);
    assert_int_equal(avki_arena_set_first_block(&a, mem, sizeof mem), 1);
    for (round = 0; round < 100; round++) {
        avki_arena_reset(&a);
        record_workload(&a, 6000);
    }
    assert_int_equal(fa.calls, 0);
    assert_ptr_equal(a.caller, a.head);
    avki_arena_destroy(&a);

    /* Records larger than it: blocks are allocated, and reset keeps the
     * largest of them (the caller's is the smaller and drops out): after
     * the warm-up record, no more allocator calls. */
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 1024, 0);
    assert_int_equal(avki_arena_set_first_block(&a, mem, 512), 1);
    record_workload(&a, 100000);
    assert_true(fa.calls > 1);
    /* Two warm-up resets: the first keeps the largest block, which the
     * second record may still outgrow once. */
    avki_arena_reset(&a);
    assert_null(a.caller);
    assert_int_equal(fa.live_blocks, 1);
    record_workload(&a, 100000);
    avki_arena_reset(&a);
    calls = fa.calls;
    for (round = 0; round < 50; round++) {
        record_workload(&a, 100000);
        avki_arena_reset(&a);
    }
    assert_int_equal(fa.calls, calls);
    assert_int_equal(fa.live_blocks, 1);
    assert_int_equal(a.total, fa.live_bytes);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.bad_frees, 0);
    assert_int_equal(fa.size_mismatches, 0);

    /* The caller's block as large as any allocated one wins the tie and
     * stays; the allocated blocks go. */
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 1024, 0);
    assert_int_equal(avki_arena_set_first_block(&a, mem, sizeof mem), 1);
    record_workload(&a, 8000);
    assert_non_null(avki_arena_alloc(&a, 2000, 1)); /* spills: a 1 KiB-or-so block */
    assert_true(fa.live_blocks >= 1);
    avki_arena_reset(&a);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(a.total, 0);
    assert_ptr_equal(a.head, a.caller);
    calls = fa.calls;
    record_workload(&a, 6000);
    assert_int_equal(fa.calls, calls);
    avki_arena_destroy(&a);
    assert_int_equal(fa.bad_frees, 0);
}

static void test_caller_block_limit(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    _Alignas(16) unsigned char mem[2048];
    size_t got = 0;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 512, 4096);
    assert_int_equal(avki_arena_set_first_block(&a, mem, sizeof mem), 1);
    /* The limit counts only what the allocator gives: about 2 KiB from
     * the caller plus about 4 KiB from the allocator. */
    while (avki_arena_alloc(&a, 100, 1))
        got += 100;
    assert_true(a.total <= 4096);
    assert_int_equal(a.total, fa.live_bytes);
    assert_true(got > 2048 + 4096 - 10 * 128);
    assert_true(got <= 2048 + 4096);
    assert_int_equal(a.limit_hit, 1);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
}

static void test_caller_block_failing_allocator(void **state)
{
    avkt_failalloc fa;
    avki_arena a;
    _Alignas(16) unsigned char mem[1024];
    long n;
    (void)state;
    /* Every allocator call fails: the caller's block still serves. */
    avkt_failalloc_init(&fa, 1);
    fa.fail_all_after = 1;
    avki_arena_init(&a, &fa.allocator, 0, 0);
    assert_int_equal(avki_arena_set_first_block(&a, mem, sizeof mem), 1);
    assert_non_null(avki_arena_alloc(&a, 900, 8));
    assert_null(avki_arena_alloc(&a, 200, 8));
    assert_int_equal(fa.calls, 1);
    assert_non_null(avki_arena_alloc(&a, 50, 8)); /* the rest is still there */
    avki_arena_reset(&a);
    assert_non_null(avki_arena_alloc(&a, 900, 8)); /* and again after reset */
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.bad_frees, 0);

    /* Fail the Nth call for every N: no leaks, no foreign frees. */
    for (n = 1; n <= 8; n++) {
        avkt_failalloc_init(&fa, n);
        avki_arena_init(&a, &fa.allocator, 128, 0);
        assert_int_equal(avki_arena_set_first_block(&a, mem, 256), 1);
        assert_true(run_workload(&a) >= 1);
        avki_arena_reset(&a);
        assert_true(fa.live_blocks <= 1);
        (void)run_workload(&a);
        avki_arena_destroy(&a);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.bad_frees, 0);
        assert_int_equal(fa.size_mismatches, 0);
    }
}

/* ---- the inline fast path ----------------------------------------------- */

static void test_alloc_fast(void **state)
{
    avki_arena a, b;
    size_t i;
    avkt_rng rng = {7};
    (void)state;
    /* The empty arena: even a 0-byte request goes to the slow path and
     * gets a real pointer. */
    avki_arena_init(&a, NULL, 256, 0);
    assert_non_null(avki_arena_alloc_fast(&a, 0, 1));
    assert_non_null(a.head);
    avki_arena_destroy(&a);
    assert_int_equal(a.cur, 0);
    assert_int_equal(a.end, 0);

    /* The same state as after the out-of-line call, block after block. */
    avki_arena_init(&a, NULL, 256, 0);
    avki_arena_init(&b, NULL, 256, 0);
    for (i = 0; i < 2000; i++) {
        size_t size = (size_t)avkt_below(&rng, 300), align = (size_t)1 << avkt_below(&rng, 5);
        unsigned char *p = (unsigned char *)avki_arena_alloc_fast(&a, size, align);
        unsigned char *q = (unsigned char *)avki_arena_alloc(&b, size, align);
        assert_non_null(p);
        assert_non_null(q);
        assert_int_equal((uintptr_t)p % align, 0);
        assert_int_equal(a.cur - (uintptr_t)a.head, b.cur - (uintptr_t)b.head);
        assert_int_equal(a.end - (uintptr_t)a.head, b.end - (uintptr_t)b.head);
        assert_int_equal(a.total, b.total);
        assert_int_equal(a.allocations, b.allocations);
        memset(p, 1, size);
    }
    avki_arena_destroy(&a);
    avki_arena_destroy(&b);
}

/* ---- growable storage ------------------------------------------------------ */

/* Grown one item at a time, storage moves only when its room is full
 * (after 4, 8, 16, ... items), keeps its items, and a copy of the count
 * that fell behind gets storage of its own. */
static void test_grow(void **state)
{
    avki_arena a;
    uint32_t *p = NULL, *q, *other = NULL;
    size_t i, moves = 0;
    (void)state;
    avki_arena_init(&a, NULL, 256, 0);
    for (i = 0; i < 5000; i++) {
        q = (uint32_t *)avki_arena_grow(&a, p, i, 1, sizeof *q, 4);
        assert_non_null(q);
        if (q != p) {
            /* Moved exactly when full: the first call and then at 4, 8, 16, ... */
            assert_true(i == 0 || (i >= 4 && (i & (i - 1)) == 0));
            moves++;
        }
        p = q;
        p[i] = (uint32_t)i * 3;
        /* A second storage grown in between (the table holds both). */
        other = (uint32_t *)avki_arena_grow(&a, other, i, 1, sizeof *other, 4);
        assert_non_null(other);
        other[i] = (uint32_t)i;
    }
    assert_int_equal(moves, 1 + 11); /* 0, then 4 .. 4096 */
    for (i = 0; i < 5000; i++) {
        assert_int_equal(p[i], (uint32_t)i * 3);
        assert_int_equal(other[i], (uint32_t)i);
    }
    /* Several items at once: in place while the room lasts (8192). */
    q = (uint32_t *)avki_arena_grow(&a, p, 5000, 3000, sizeof *q, 4);
    assert_ptr_equal(q, p);
    /* A copy of the count that fell behind (5000 of 8000) gets its own
     * storage: item 5000 of p is not written over. */
    q = (uint32_t *)avki_arena_grow(&a, p, 5000, 1, sizeof *q, 4);
    assert_ptr_not_equal(q, p);
    assert_int_equal(q[4999], 4999u * 3);
    /* and p still grows in place with its own count. */
    q = (uint32_t *)avki_arena_grow(&a, p, 8000, 192, sizeof *q, 4);
    assert_ptr_equal(q, p);
    q = (uint32_t *)avki_arena_grow(&a, p, 8192, 1, sizeof *q, 4);
    assert_ptr_not_equal(q, p);
    assert_int_equal(q[4999], 4999u * 3);
    /* Storage the table never saw (the caller's) is copied at once. */
    {
        uint32_t mine[2] = {7, 8};
        q = (uint32_t *)avki_arena_grow(&a, mine, 2, 1, sizeof *q, 4);
        assert_ptr_not_equal(q, mine);
        assert_int_equal(q[1], 8);
    }
    /* Overflowing sizes fail without allocating. */
    assert_null(avki_arena_grow(&a, NULL, SIZE_MAX / 2 + 1, 1, 1, 1));
    assert_null(avki_arena_grow(&a, NULL, 0, SIZE_MAX / 4, 8, 8));
    assert_null(avki_arena_grow(&a, NULL, 0, 1, 0, 1));
    /* A reset forgets the table with the blocks. */
    avki_arena_reset(&a);
    assert_null(a.grow);
    q = (uint32_t *)avki_arena_grow(&a, NULL, 0, 1, sizeof *q, 4);
    assert_non_null(q);
    assert_non_null(a.grow);
    avki_arena_destroy(&a);
    assert_null(a.grow);
}

/* ---- the public arena ------------------------------------------------------- */

static void test_public_arena(void **state)
{
    avkt_failalloc fa;
    avk_arena_options opts;
    avk_arena *arena;
    avk_error err;
    _Alignas(16) unsigned char mem[512];
    unsigned char *p;
    size_t allocations;
    int i;
    (void)state;

    /* Defaults: libc, no first block. */
    AVKT_OK(avk_arena_new(NULL, &arena, &err));
    assert_int_equal(avk_arena_bytes(arena), 0);
    assert_int_equal(avk_arena_allocations(arena), 0);
    p = (unsigned char *)avk_arena_alloc(arena, 100, 8);
    assert_non_null(p);
    assert_int_equal(avk_arena_bytes(arena), 4096);
    assert_int_equal(avk_arena_allocations(arena), 1);
    assert_null(avk_arena_alloc(arena, 8, 3));
    avk_arena_free(arena);
    avk_arena_free(NULL);
    avk_arena_reset(NULL);
    assert_null(avk_arena_alloc(NULL, 8, 8));
    assert_int_equal(avk_arena_bytes(NULL), 0);

    /* Every option: the arena object and blocks come from the allocator,
     * the first block from the caller. */
    avkt_failalloc_init(&fa, 0);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.first_block = mem;
    opts.first_block_size = sizeof mem;
    opts.block_size = 1024;
    opts.limit = 3000;
    opts.allocator = &fa.allocator;
    AVKT_OK(avk_arena_new(&opts, &arena, &err));
    assert_int_equal(fa.calls, 1); /* the arena object */
    p = (unsigned char *)avk_arena_alloc(arena, 400, 16);
    assert_true(inside(p, 400, mem, sizeof mem));
    assert_int_equal(avk_arena_allocations(arena), 0);
    p = (unsigned char *)avk_arena_alloc(arena, 400, 16);
    assert_false(inside(p, 1, mem, sizeof mem));
    assert_int_equal(avk_arena_allocations(arena), 1);
    assert_int_equal(avk_arena_bytes(arena), 1024);
    assert_null(avk_arena_alloc(arena, 5000, 1)); /* the limit */
    /* Record after record: no allocator calls after the first. */
    allocations = avk_arena_allocations(arena);
    for (i = 0; i < 20; i++) {
        avk_arena_reset(arena);
        assert_non_null(avk_arena_alloc(arena, 300, 8));
        assert_non_null(avk_arena_alloc(arena, 300, 8));
    }
    assert_int_equal(avk_arena_allocations(arena), allocations);
    avk_arena_free(arena);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.bad_frees, 0);
    assert_int_equal(fa.size_mismatches, 0);

    /* Errors. */
    AVKT_ASSERT_STATUS(avk_arena_new(NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    opts.struct_size = sizeof opts - 1;
    AVKT_ASSERT_STATUS(avk_arena_new(&opts, &arena, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_null(arena);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    opts.struct_size = sizeof opts;
    avkt_failalloc_init(&fa, 1);
    AVKT_ASSERT_STATUS(avk_arena_new(&opts, &arena, &err), AVK_ERR_NO_MEMORY);
    assert_null(arena);
    assert_int_equal(fa.live_blocks, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_empty_arena),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_allocations_do_not_overlap),
        cmocka_unit_test(test_growth_and_counting),
        cmocka_unit_test(test_large_request_gets_own_block),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_huge_requests),
        cmocka_unit_test(test_reset_keeps_largest),
        cmocka_unit_test(test_strndup),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_caller_block_used_first),
        cmocka_unit_test(test_caller_block_refused),
        cmocka_unit_test(test_caller_block_reset_reuse),
        cmocka_unit_test(test_caller_block_limit),
        cmocka_unit_test(test_caller_block_failing_allocator),
        cmocka_unit_test(test_alloc_fast),
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_public_arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
