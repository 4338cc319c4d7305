/* Shared helpers for the cmocka suites. */
#include "avkt.h"

#include <stdlib.h>
#include <string.h>

static uint64_t value_of_length(avkt_rng *r, unsigned len)
{
    /* The zigzag value u has length len when 2^(7(len-1)) <= u < 2^(7 len). */
    uint64_t lo = len == 1 ? 0 : 1ULL << (7 * (len - 1));
    uint64_t span = len >= 10 ? 0 - lo : (1ULL << (7 * len)) - lo;
    return lo + avkt_below(r, span);
}

int64_t avkt_mixed_long(avkt_rng *r)
{
    unsigned len = 1 + (unsigned)avkt_below(r, 10);
    return avk_zigzag_decode64(value_of_length(r, len));
}

int32_t avkt_mixed_int(avkt_rng *r)
{
    unsigned len = 1 + (unsigned)avkt_below(r, 5);
    uint64_t u;
    if (len == 5) /* 5-byte ints stop at 32 bits */
        u = (1ULL << 28) + avkt_below(r, (1ULL << 32) - (1ULL << 28));
    else
        u = value_of_length(r, len);
    return avk_zigzag_decode32((uint32_t)u);
}

void avkt_test_kernel_choice(void **state)
{
    const char *want = getenv("AVK_KERNEL");
    const char *got = avk_kernel_name();
    size_t i, count = avk_kernel_count(), first = count, wanted = count;
    (void)state;
    for (i = 0; i < count; i++) {
        if (first == count && avk_kernel_runnable_at(i))
            first = i;
        if (want && strcmp(avk_kernel_name_at(i), want) == 0)
            wanted = i;
    }
    assert_true(first < count);
    if (wanted < count && avk_kernel_runnable_at(wanted))
        assert_string_equal(got, want);
    else
        assert_string_equal(got, avk_kernel_name_at(first));
    print_message("kernel in use: %s (AVK_KERNEL=%s)\n", got, want ? want : "(unset)");
}
