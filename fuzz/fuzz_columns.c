/* Fuzz target: values decoded into columns against the plan decoder on the same bytes (statuses, offsets, counts), then exported and released. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/columns.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "fuzz.h"
#include "fuzz_schemas.h"

/* Input layout (as fuzz_decode's, whose corpus seeds this one):
 *   byte 0     low 4 bits: the schema (modulo the set's size);
 *              bit 4: AVK_COLUMNS_CHECK_UTF8; bit 5: tiny limits;
 *              bit 6: project the root record's first field only
 *   the rest   values of that schema, one after another (at most 16) */

#define MAX_VALUES 16

static const avk_limits tiny = {4, 16, 8, 8, 0};
static avk_schema *schemas[AVKF_SCHEMA_COUNT];
static avk_plan *plans[AVKF_SCHEMA_COUNT][4];

static const avk_plan *plan_for(size_t si, unsigned variant)
{
    if (!plans[si][variant])
        plans[si][variant] = avkf_plan_new(avk_schema_root(schemas[si]),
                                           (variant & 1) ? AVK_PLAN_CHECK_UTF8 : 0u,
                                           (variant & 2) ? &tiny : NULL, 0);
    return plans[si][variant];
}

/* How many values the plan decodes before its first error, and that error. */
static size_t plan_values(const avk_plan *plan, const uint8_t *data, size_t size, avk_status *st,
                          avk_error *err)
{
    avk_arena *arena;
    avk_reader r;
    avk_value v;
    size_t n = 0;
    AVKF_CHECK(avk_arena_new(NULL, &arena, NULL) == AVK_OK, "out of memory");
    avk_reader_init_memory(&r, data, size);
    *st = AVK_OK;
    while (n < MAX_VALUES && r.pos < r.end) {
        avk_arena_reset(arena);
        *st = avk_plan_decode(plan, &r, arena, &v, err);
        if (*st != AVK_OK)
            break;
        n++;
    }
    avk_arena_free(arena);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t si, want, count;
    unsigned variant;
    int project;
    const avk_type *root;
    avk_columns_options o;
    avk_columns *c = NULL;
    avk_reader r;
    avk_error err, perr;
    avk_status st, pst;
    uint64_t done = 0;
    struct ArrowSchema schema;
    struct ArrowArray array;
    const char *first;
    if (size < 1)
        return 0;
    si = (size_t)(data[0] & 15) % AVKF_SCHEMA_COUNT;
    variant = ((data[0] >> 4) & 1u) | (((data[0] >> 5) & 1u) << 1);
    project = (data[0] >> 6) & 1;
    data++;
    size--;
    if (!schemas[si])
        schemas[si] = avkf_schema_parse(si);
    root = avk_schema_root(schemas[si]);
    avk_columns_options_init(&o);
    o.flags = (variant & 1) ? AVK_COLUMNS_CHECK_UTF8 : 0u;
    if (variant & 2)
        o.limits = tiny;
    if (project) {
        if (avk_type_kind(root) != AVK_RECORD || avk_type_field_count(root) == 0)
            return 0;
        first = avk_field_name(avk_type_field(root, 0));
        o.fields = &first;
        o.field_count = 1;
    }
    st = avk_columns_new(root, &o, &c, &err);
    if (st == AVK_ERR_SCHEMA)
        return 0; /* recursive: Arrow cannot hold it, said clearly */
    AVKF_CHECK(st == AVK_OK, "avk_columns_new: %s", err.message);

    /* The plan tells how many whole values the bytes hold. */
    want = plan_values(plan_for(si, variant), data, size, &pst, &perr);
    count = want + (pst != AVK_OK);
    avk_reader_init_memory(&r, data, size);
    st = avk_columns_decode(c, &r, count, &done, &err);
    AVKF_CHECK(avk_columns_length(c) == done, "length %llu, done %llu",
               (unsigned long long)avk_columns_length(c), (unsigned long long)done);
    if (!project) {
        /* Every field decoded: the plan's answer exactly (a decimal too wide
         * for Arrow is the one columns-only refusal these schemas allow). */
        if (st == AVK_ERR_MALFORMED && strstr(err.message, "decimal") && done <= want) {
            /* columns-only */
        } else {
            AVKF_CHECK(done == want, "columns decoded %llu values, the plan %zu",
                       (unsigned long long)done, want);
            AVKF_CHECK(st == pst, "columns %s, plan %s", avk_status_name(st),
                       avk_status_name(pst));
            if (st != AVK_OK)
                AVKF_CHECK(err.offset == perr.offset && !strcmp(err.path, perr.path),
                           "columns at %llu %s, plan at %llu %s", (unsigned long long)err.offset,
                           err.path, (unsigned long long)perr.offset, perr.path);
        }
    } else {
        /* Skipping may jump a sized block the plan decodes: never more errors. */
        AVKF_CHECK(done >= want || st != AVK_OK, "projection stopped early");
    }
    AVKF_CHECK(avk_columns_export_schema(c, &schema, &err) == AVK_OK, "export schema");
    AVKF_CHECK(avk_columns_export(c, &array, &err) == AVK_OK, "export");
    AVKF_CHECK((uint64_t)array.length == done, "exported %lld of %llu", (long long)array.length,
               (unsigned long long)done);
    AVKF_CHECK(avk_columns_length(c) == 0, "the column set keeps values after export");
    avk_columns_free(c);
    array.release(&array);
    schema.release(&schema);
    AVKF_CHECK(array.release == NULL && schema.release == NULL, "release left callbacks set");
    return 0;
}
