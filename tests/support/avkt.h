/* Shared helpers for the cmocka suites: includes, exact-value asserts, seeded values, kernel check. */
#ifndef AVKT_H
#define AVKT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "avrokit/avrokit.h"

/* Signed 64-bit equality with both values printed in decimal on failure
 * (cmocka's assert_int_equal prints them as unsigned hex). */
#define AVKT_ASSERT_I64_EQ(a, b)                                                          \
    do {                                                                                  \
        int64_t avkt_a_ = (int64_t)(a), avkt_b_ = (int64_t)(b);                           \
        if (avkt_a_ != avkt_b_)                                                           \
            fail_msg("%s == %lld, expected %s == %lld", #a, (long long)avkt_a_, #b,       \
                     (long long)avkt_b_);                                                 \
    } while (0)

/* Status equality that prints names. */
#define AVKT_ASSERT_STATUS(got, want)                                                     \
    do {                                                                                  \
        avk_status avkt_g_ = (got), avkt_w_ = (want);                                     \
        if (avkt_g_ != avkt_w_)                                                           \
            fail_msg("%s returned %s, expected %s", #got, avk_status_name(avkt_g_),       \
                     avk_status_name(avkt_w_));                                           \
    } while (0)

#define AVKT_OK(expr) AVKT_ASSERT_STATUS(expr, AVK_OK)

/* Small deterministic generator (splitmix64): tests are reproducible. */
typedef struct avkt_rng {
    uint64_t s;
} avkt_rng;

static inline uint64_t avkt_next(avkt_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Below bound (bound > 0). */
static inline uint64_t avkt_below(avkt_rng *r, uint64_t bound)
{
    return avkt_next(r) % bound;
}

/* A long whose encoding has a length drawn uniformly from 1 to 10. */
int64_t avkt_mixed_long(avkt_rng *r);
/* An int whose encoding has a length drawn uniformly from 1 to 5. */
int32_t avkt_mixed_int(avkt_rng *r);

/* A cmocka test that checks AVK_KERNEL was honoured (or fell back to the
 * first runnable kernel) and prints which kernel runs. Add it first to
 * every suite so per-kernel runs show what they exercised. */
void avkt_test_kernel_choice(void **state);

#endif
