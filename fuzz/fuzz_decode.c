/* Fuzz target: plan decode of random bytes against a fixed set of schemas; memory and stream readers, skip, limits and failing allocators must agree. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "failalloc.h"
#include "fuzz.h"
#include "fuzz_schemas.h"

/* Input layout:
 *   byte 0     low 4 bits: the schema (modulo the set's size);
 *              bit 4: AVK_PLAN_COPY_STRINGS; bit 5: AVK_PLAN_CHECK_UTF8;
 *              bit 6: tiny limits; bit 7: 1-byte stream refills (else 3)
 *   the rest   values of that schema, one after another (at most 16) */

#define MAX_VALUES 16

/* Tiny limits that the seeds reach: depth, lengths, items, empty items.
 * max_memory differs between readers by design (a stream grows its copies
 * as bytes arrive, a memory reader allocates exactly or not at all), so it
 * is fuzzed apart, on the memory reader alone. */
static const avk_limits tiny = {4, 16, 8, 8, 0};
static const avk_limits tiny_memory = {0, 0, 0, 0, 256};

static avk_schema *schemas[AVKF_SCHEMA_COUNT];
static avk_plan *plans[AVKF_SCHEMA_COUNT][8];
static avk_plan *memory_plans[AVKF_SCHEMA_COUNT][2];

/* The schema's plan for variant (bit 0 copy, bit 1 UTF-8, bit 2 tiny
 * limits), made once and kept for the process. */
static const avk_plan *plan_for(size_t si, unsigned variant)
{
    if (!schemas[si])
        schemas[si] = avkf_schema_parse(si);
    if (!plans[si][variant])
        plans[si][variant] = avkf_plan_new(avk_schema_root(schemas[si]),
                                           ((variant & 1) ? AVK_PLAN_COPY_STRINGS : 0u) |
                                               ((variant & 2) ? AVK_PLAN_CHECK_UTF8 : 0u),
                                           (variant & 4) ? &tiny : NULL, 0);
    return plans[si][variant];
}

static const avk_plan *memory_plan_for(size_t si, unsigned variant)
{
    if (!memory_plans[si][variant & 1])
        memory_plans[si][variant & 1] = avkf_plan_new(avk_schema_root(schemas[si]),
                                                      (variant & 1) ? AVK_PLAN_COPY_STRINGS : 0u,
                                                      &tiny_memory, 0);
    return memory_plans[si][variant & 1];
}

/* A stream source handing out at most per_read bytes a call. */
typedef struct chunk_source {
    const uint8_t *data;
    size_t len, pos, per_read;
} chunk_source;

static avk_status chunk_read(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    chunk_source *s = (chunk_source *)ctx;
    size_t n = s->len - s->pos;
    (void)err;
    if (n > cap)
        n = cap;
    if (n > s->per_read)
        n = s->per_read;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    *got = n;
    return AVK_OK;
}

static void open_stream(avk_reader *r, chunk_source *src, const uint8_t *d, size_t n, size_t per)
{
    avk_reader_options o;
    avk_error err;
    avk_status st;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.buffer_size = 64;
    src->data = d;
    src->len = n;
    src->pos = 0;
    src->per_read = per;
    st = avk_reader_init_source(r, chunk_read, src, &o, &err);
    AVKF_CHECK(st == AVK_OK, "stream reader: %s", err.message);
}

static avk_arena *new_arena(const avk_allocator *a)
{
    avk_arena_options o;
    avk_arena *arena = NULL;
    avk_error err;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.allocator = a;
    if (avk_arena_new(&o, &arena, &err) != AVK_OK)
        return NULL;
    return arena;
}

/* The same value decoded with other limits or a failing allocator: the
 * reference's status, or want_extra instead; the same value when OK. */
static void check_variant(const avk_plan *p, const uint8_t *d, size_t n, avk_status ref_st,
                          const avk_value *ref, uint64_t ref_end, avk_status want_extra,
                          const avk_allocator *alloc, const char *what)
{
    avk_reader r;
    avk_arena *a = new_arena(alloc);
    avk_value v;
    avk_error err;
    avk_status st;
    if (!a)
        return; /* the failing allocator refused the arena itself */
    avk_reader_init_memory(&r, d, n);
    st = avk_plan_decode(p, &r, a, &v, &err);
    AVKF_CHECK(st == ref_st || st == want_extra, "%s: %s, reference %s (%s)", what,
               avk_status_name(st), avk_status_name(ref_st), st ? err.message : "-");
    if (st == AVK_OK) {
        AVKF_CHECK(avk_reader_offset(&r) == ref_end, "%s: consumed %llu, reference %llu", what,
                   (unsigned long long)avk_reader_offset(&r), (unsigned long long)ref_end);
        AVKF_CHECK(avk_value_equal(&v, ref), "%s: values differ", what);
    } else {
        AVKF_CHECK(err.status == st, "%s: err.status %d for %d", what, err.status, st);
    }
    avk_arena_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t si, nvals, n;
    unsigned variant;
    const avk_plan *p;
    const uint8_t *d;
    avk_reader mr, sr, kmr, ksr;
    chunk_source ssrc, ksrc;
    avk_arena *ma, *sa;

    if (size < 1)
        return 0;
    si = (data[0] & 15u) % AVKF_SCHEMA_COUNT;
    variant = (data[0] >> 4) & 7u;
    p = plan_for(si, variant);
    d = data + 1;
    n = size - 1;

    ma = new_arena(NULL);
    sa = new_arena(NULL);
    AVKF_CHECK(ma && sa, "arena");
    avk_reader_init_memory(&mr, d, n);
    avk_reader_init_memory(&kmr, d, n);
    open_stream(&sr, &ssrc, d, n, (data[0] & 0x80) ? 1 : 3);
    open_stream(&ksr, &ksrc, d, n, 1);

    for (nvals = 0; nvals < MAX_VALUES; nvals++) {
        avk_value mv, sv;
        avk_error merr, serr, kerr;
        avk_status mst, sst, kst;
        uint64_t start = avk_reader_offset(&mr);
        int at_end = 0;
        if (avk_reader_at_end(&mr, &at_end, &merr) != AVK_OK || at_end)
            break;
        avk_arena_reset(ma);
        avk_arena_reset(sa);
        memset(&merr, 0, sizeof merr);
        memset(&serr, 0, sizeof serr);
        mst = avk_plan_decode(p, &mr, ma, &mv, &merr);
        sst = avk_plan_decode(p, &sr, sa, &sv, &serr);

        /* The readers see the same bytes and must give the same status: a
         * memory reader knows what remains, but it may not stop earlier
         * than a stream would (an item could be malformed first). */
        AVKF_CHECK(mst == sst,
                   "schema %zu value %zu at %llu: memory %s (%s), stream %s (%s)", si, nvals,
                   (unsigned long long)start, avk_status_name(mst), mst ? merr.message : "-",
                   avk_status_name(sst), sst ? serr.message : "-");
        if (mst != AVK_OK) {
            AVKF_CHECK(merr.status == mst && serr.status == sst, "err.status does not match");
            AVKF_CHECK(merr.offset <= n && serr.offset <= n, "error offset past the input");
            if (mst == sst && mst != AVK_ERR_TRUNCATED && mst != AVK_ERR_LIMIT) {
                /* Malformed bytes are found at the same place either way. */
                AVKF_CHECK(merr.offset == serr.offset, "offsets %llu / %llu: %s / %s",
                           (unsigned long long)merr.offset, (unsigned long long)serr.offset,
                           merr.message, serr.message);
                AVKF_CHECK(strcmp(merr.path, serr.path) == 0, "paths %s / %s", merr.path,
                           serr.path);
            }
            {
                /* Skipping the same value: one status from both readers. */
                avk_status km = avk_plan_skip(p, &kmr, &kerr), ks;
                avk_error kserr;
                ks = avk_plan_skip(p, &ksr, &kserr);
                AVKF_CHECK(km == ks, "schema %zu value %zu: skip from memory %s (%s), stream %s (%s)",
                           si, nvals, avk_status_name(km), km ? kerr.message : "-",
                           avk_status_name(ks), ks ? kserr.message : "-");
            }
            if (nvals == 0) {
                avkt_failalloc fa;
                /* The same error, or the variant's own: the tight-memory
                 * plan only stands in for p when p has no other limits or
                 * checks. */
                if ((variant & 6) == 0)
                    check_variant(memory_plan_for(si, variant), d, n, mst, NULL, 0,
                                  AVK_ERR_LIMIT, NULL, "tiny max_memory");
                avkt_failalloc_init(&fa, 1 + (long)(n % 5));
                check_variant(p, d, n, mst, NULL, 0, AVK_ERR_NO_MEMORY, &fa.allocator,
                              "failing allocator");
                AVKF_CHECK(fa.live_blocks == 0, "failing allocator: %ld blocks left",
                           fa.live_blocks);
            }
            break;
        }
        AVKF_CHECK(avk_reader_offset(&mr) == avk_reader_offset(&sr),
                   "memory consumed %llu, stream %llu", (unsigned long long)avk_reader_offset(&mr),
                   (unsigned long long)avk_reader_offset(&sr));
        AVKF_CHECK(avk_value_equal(&mv, &sv), "schema %zu value %zu: memory and stream differ", si,
                   nvals);
        AVKF_CHECK(avk_value_equal(&mv, &mv), "a value differs from itself");

        /* Skip lands where decode did, from memory and from a stream. */
        kst = avk_plan_skip(p, &kmr, &kerr);
        AVKF_CHECK(kst == AVK_OK, "schema %zu: decode OK but skip %s: %s", si,
                   avk_status_name(kst), kerr.message);
        AVKF_CHECK(avk_reader_offset(&kmr) == avk_reader_offset(&mr),
                   "skip consumed to %llu, decode to %llu", (unsigned long long)avk_reader_offset(&kmr),
                   (unsigned long long)avk_reader_offset(&mr));
        kst = avk_plan_skip(p, &ksr, &kerr);
        AVKF_CHECK(kst == AVK_OK && avk_reader_offset(&ksr) == avk_reader_offset(&mr),
                   "stream skip: %s at %llu", avk_status_name(kst),
                   (unsigned long long)avk_reader_offset(&ksr));

        if (nvals == 0) {
            /* Tight memory: the same value or LIMIT (when p has no other
             * limits or checks). A failing allocator: the same value or
             * NO_MEMORY, and nothing leaked. */
            avkt_failalloc fa;
            uint64_t end = avk_reader_offset(&mr);
            if ((variant & 6) == 0)
                check_variant(memory_plan_for(si, variant), d, n, AVK_OK, &mv, end,
                              AVK_ERR_LIMIT, NULL, "tiny max_memory");
            avkt_failalloc_init(&fa, 1 + (long)(n % 5));
            check_variant(p, d, n, AVK_OK, &mv, end, AVK_ERR_NO_MEMORY, &fa.allocator,
                          "failing allocator");
            AVKF_CHECK(fa.live_blocks == 0 && fa.size_mismatches == 0 && fa.bad_frees == 0,
                       "failing allocator: %ld blocks left, %ld size mismatches, %ld bad frees",
                       fa.live_blocks, fa.size_mismatches, fa.bad_frees);
        }
    }
    avk_reader_destroy(&sr);
    avk_reader_destroy(&ksr);
    avk_arena_free(ma);
    avk_arena_free(sa);
    return 0;
}
