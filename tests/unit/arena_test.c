/* Unit tests for the arena: alignment, block growth, limits, reset keeping the largest block, failing allocators. */
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
