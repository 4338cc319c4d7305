/* Shared helpers for the cmocka suites: asserts, seeded values, kernel check, schemas, plans, hex, files. */
#ifndef AVKT_H
#define AVKT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/* Schemas in tests are written with ' for " to stay readable; avkt_q()
 * turns such text into JSON. The result lives until the next avkt_q()
 * call but one. */
const char *avkt_q(const char *sq);

/* Parses JSON schema text that must be valid; a failure names file:line. */
avk_schema *avkt_parse_at(const char *json, size_t len, const char *file, int line);

/* Parses JSON text that must be valid. */
#define AVKT_PARSE_RAW(json) avkt_parse_at((json), strlen(json), __FILE__, __LINE__)
/* The same for the single-quoted notation. */
#define AVKT_PARSE(sq) AVKT_PARSE_RAW(avkt_q(sq))

/* A plan for t with flags, limits (NULL: defaults) and encode block size
 * (0: the default); a failure fails the test. */
avk_plan *avkt_plan_new(const avk_type *t, unsigned flags, const avk_limits *limits,
                        size_t block_items);

/* Hex text (even length, no separators) to bytes; returns the byte count,
 * or (size_t)-1 when not hex or longer than cap. */
size_t avkt_hex_decode(const char *hex, uint8_t *out, size_t cap);

/* As avkt_hex_decode for hex the test wrote: bad hex fails the test. */
size_t avkt_unhex(const char *hex, uint8_t *out, size_t cap);

/* Fails the test, printing both in hex, unless got equals want. */
void avkt_assert_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len);

/* The whole file, NUL-terminated, its length in *len (when len is not
 * NULL); NULL when it cannot be opened. A failed read fails the test. */
char *avkt_read_file(const char *path, size_t *len);

/* Whether dir/apache/relative exists, dir being the suite's
 * AVK_INTEROP_DIR (empty when unknown); when not, prints a SKIPPED note. */
int avkt_interop_available(const char *dir, const char *relative);

/* The whole file dir/apache/relative as avkt_read_file reads it; NULL,
 * after the SKIPPED note, when it is absent (the caller then skips). */
char *avkt_interop_read(const char *dir, const char *relative, size_t *len);

/* A record "W" of 40 fields, ints (i % 3 == 1) and longs, broken by a
 * string at field 35: runs of varints longer than the encoder's gathering
 * (32) for the encode and builder suites. A static buffer. */
const char *avkt_wide_varint_schema(void);

/* The named form of an index path as avk_error.path gives it (".fields[1]"
 * becomes ".next", ".items[3]" "[3]", the rest unchanged), following the
 * types from root. 0 when the path cannot be followed (writer_field,
 * writer_branch, a path shortened in the middle) or does not fit. */
int avkt_named_path(const avk_type *root, const char *path, char *out, size_t cap);

/* Fails unless err->message starts with the named form of err->path and
 * ": " (nothing is checked when the path cannot be followed). */
void avkt_check_message_path(const avk_type *root, const avk_error *err);

#endif
