/* Fuzz target: the push decoder fed in random pieces against the pull readers: container files (avk_file_reader_next) and raw datums (avk_plan_decode over memory) must give the same values, final status, message and offset. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/file.h"
#include "avrokit/plan.h"
#include "avrokit/push.h"
#include "avrokit/reader.h"
#include "fuzz.h"
#include "fuzz_schemas.h"

/* Input layout:
 *   byte 0     bit 7 clear: the rest is a container file; bit 0:
 *              AVK_PLAN_COPY_STRINGS for the push decoder (the pull
 *              reader always copies);
 *              bit 7 set: the rest is raw datums of schema (bits 0-3,
 *              modulo the set's size) back to back, one after another;
 *              bit 4: AVK_PLAN_COPY_STRINGS
 *   the rest   fed in pieces whose sizes come from a generator seeded by a
 *              hash of the whole input (1 byte up to 4 KiB, often small). */

#define MAX_VALUES 2000

/* Limits that stop bombs and floods quickly. */
static const avk_limits limits = {64, 1u << 16, 1u << 14, 1u << 12, 1u << 22};

static avk_schema *schemas[AVKF_SCHEMA_COUNT];
static avk_plan *plans[AVKF_SCHEMA_COUNT][2];

static avk_file_reader_options file_options(unsigned plan_flags)
{
    avk_file_reader_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.plan_flags = plan_flags;
    o.limits = limits;
    o.max_header_bytes = 1 << 16;
    o.max_block_bytes = 1 << 20;
    o.max_block_data = 1 << 20;
    o.max_meta_entries = 1 << 12;
    return o;
}

/* The pull side: every value (up to MAX_VALUES), then the final status. */
typedef struct pulled {
    avk_value vals[MAX_VALUES];
    size_t n;
    int capped; /* more values followed */
    avk_status st;
    avk_error err;
} pulled;

static pulled pull;

static void pull_file(const uint8_t *d, size_t n, const avk_file_reader_options *o,
                      avk_arena *arena, avk_file_reader **fr)
{
    int more;
    pull.n = 0;
    pull.capped = 0;
    pull.st = avk_file_reader_open_memory(d, n, o, fr, &pull.err);
    if (pull.st != AVK_OK)
        return;
    for (;;) {
        if (pull.n == MAX_VALUES) {
            pull.capped = 1;
            return;
        }
        pull.st = avk_file_reader_next(*fr, arena, &pull.vals[pull.n], &more, &pull.err);
        if (pull.st != AVK_OK || !more)
            return;
        pull.n++;
    }
}

static void pull_raw(const uint8_t *d, size_t n, const avk_plan *plan, avk_arena *arena)
{
    avk_reader r;
    pull.n = 0;
    pull.capped = 0;
    pull.st = AVK_OK;
    avk_reader_init_memory(&r, d, n);
    while (r.pos < r.end) {
        const uint8_t *at = r.pos;
        if (pull.n == MAX_VALUES) {
            pull.capped = 1;
            return;
        }
        pull.st = avk_plan_decode(plan, &r, arena, &pull.vals[pull.n], &pull.err);
        if (pull.st != AVK_OK)
            return;
        pull.n++;
        if (r.pos == at) { /* values of no bytes: the stream never ends */
            pull.capped = 1;
            return;
        }
    }
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The push side, compared value by value as they come (their strings may
 * live only until the next feed). Returns when done or capped. */
static void push_compare(const uint8_t *d, size_t n, const avk_push_options *po, uint64_t seed)
{
    avk_push_decoder *pd;
    avk_arena *arena;
    avk_error err, e;
    avk_status st = AVK_OK, end_st;
    size_t at = 0, got_n = 0;
    int got;
    AVKF_CHECK(avk_push_decoder_new(po, &pd, &err) == AVK_OK, "push new: %s", err.message);
    AVKF_CHECK(avk_arena_new(NULL, &arena, &err) == AVK_OK, "arena");
    for (;;) {
        avk_value v;
        /* Drain. */
        avk_arena_reset(arena);
        st = avk_push_decoder_next(pd, arena, &v, &got, &err);
        if (st != AVK_OK)
            break;
        if (got) {
            AVKF_CHECK(got_n < pull.n || pull.capped, "push gave value %zu, pull gave %zu",
                       got_n, pull.n);
            if (got_n == pull.n)
                goto done; /* capped: what follows is not compared */
            AVKF_CHECK(avk_value_equal(&v, &pull.vals[got_n]), "value %zu differs", got_n);
            got_n++;
            continue;
        }
        if (at == n)
            break;
        {
            uint64_t r = splitmix(&seed);
            size_t piece = (size_t)(r >> 32) % ((size_t)1 << (r % 13)) + 1;
            if (piece > n - at)
                piece = n - at;
            st = avk_push_decoder_feed(pd, d + at, piece, &err);
            if (st != AVK_OK)
                break;
            at += piece;
        }
    }
    if (st == AVK_OK) {
        end_st = avk_push_decoder_end(pd, &e);
        for (;;) {
            avk_value v;
            avk_arena_reset(arena);
            st = avk_push_decoder_next(pd, arena, &v, &got, &err);
            if (st != AVK_OK || !got)
                break;
            AVKF_CHECK(got_n < pull.n || pull.capped, "push gave value %zu after end, pull %zu",
                       got_n, pull.n);
            if (got_n == pull.n)
                goto done;
            AVKF_CHECK(avk_value_equal(&v, &pull.vals[got_n]), "value %zu differs", got_n);
            got_n++;
        }
        if (st == AVK_OK && end_st != AVK_OK) {
            st = end_st;
            err = e;
        }
        if (st == AVK_OK && end_st == AVK_OK && got_n == pull.n && pull.capped)
            goto done;
    }
    if (pull.capped && got_n == pull.n)
        goto done;
    AVKF_CHECK(got_n == pull.n, "push gave %zu values, pull %zu (push %s: %s; pull %s: %s)",
               got_n, pull.n, avk_status_name(st), st ? err.message : "",
               avk_status_name(pull.st), pull.st ? pull.err.message : "");
    AVKF_CHECK(st == pull.st, "push ends with %s (%s), pull with %s (%s)", avk_status_name(st),
               st ? err.message : "", avk_status_name(pull.st), pull.err.message);
    if (st != AVK_OK) {
        AVKF_CHECK(strcmp(err.message, pull.err.message) == 0, "push says \"%s\", pull \"%s\"",
                   err.message, pull.err.message);
        AVKF_CHECK(err.offset == pull.err.offset, "push at %llu, pull at %llu",
                   (unsigned long long)err.offset, (unsigned long long)pull.err.offset);
    }
done:
    avk_arena_free(arena);
    avk_push_decoder_free(pd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    avk_push_options po;
    avk_arena *arena;
    uint64_t seed = 1469598103934665603ULL;
    size_t i;
    if (size < 1)
        return 0;
    for (i = 0; i < size; i++)
        seed = (seed ^ data[i]) * 1099511628211ULL;
    if (avk_arena_new(NULL, &arena, NULL) != AVK_OK)
        return 0;
    memset(&po, 0, sizeof po);
    po.struct_size = sizeof po;
    if (!(data[0] & 0x80)) {
        avk_file_reader_options o = file_options((data[0] & 1) ? AVK_PLAN_COPY_STRINGS : 0u);
        avk_file_reader_options po_all = file_options(AVK_PLAN_COPY_STRINGS);
        avk_file_reader *fr = NULL;
        /* Every value is pulled before any is compared: their strings are
         * copied (a block's would be overwritten by the next), and their
         * types are the reader's, which lives until they are compared. */
        pull_file(data + 1, size - 1, &po_all, arena, &fr);
        po.input = AVK_PUSH_CONTAINER;
        po.file = &o;
        push_compare(data + 1, size - 1, &po, seed);
        avk_file_reader_free(fr);
    } else {
        size_t si = (size_t)(data[0] & 0x0f) % AVKF_SCHEMA_COUNT;
        unsigned copy = (data[0] >> 4) & 1;
        if (!schemas[si])
            schemas[si] = avkf_schema_parse(si);
        if (!plans[si][copy])
            plans[si][copy] = avkf_plan_new(avk_schema_root(schemas[si]),
                                            copy ? AVK_PLAN_COPY_STRINGS : 0u, &limits, 0);
        pull_raw(data + 1, size - 1, plans[si][copy], arena);
        po.input = AVK_PUSH_MESSAGES;
        po.message.struct_size = sizeof po.message;
        po.message.framing = AVK_FRAMING_RAW;
        po.message.plan = plans[si][copy];
        push_compare(data + 1, size - 1, &po, seed);
    }
    avk_arena_free(arena);
    return 0;
}
