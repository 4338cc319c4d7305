/* Fuzz target: Avro JSON text read against a schema; what reads writes back, and reads back to the same text. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/avro_json.h"
#include "avrokit/writer.h"
#include "fuzz.h"
#include "fuzz_schemas.h"

/* Input layout: byte 0 chooses the schema (modulo the set's size), the
 * rest is the JSON text. The text need not come back as it was (white
 * space, number spellings, escapes, simple branch names): what must hold
 * is that the value written once reads back to a value that is written
 * the same, byte for byte. */

static avk_schema *schemas[AVKF_SCHEMA_COUNT];

/* v as compact Avro JSON, malloc'd. */
static char *write_json(const avk_value *v, size_t *len)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    char *out;
    avk_status st = avk_writer_init_memory(&w, NULL, &err);
    AVKF_CHECK(st == AVK_OK, "writer: %s", err.message);
    st = avk_value_write_json(v, 0, &w, &err);
    AVKF_CHECK(st == AVK_OK, "a value read from JSON does not write: %s", err.message);
    data = avk_writer_data(&w, len);
    out = (char *)malloc(*len ? *len : 1);
    AVKF_CHECK(out != NULL, "out of memory");
    memcpy(out, data, *len);
    avk_writer_destroy(&w);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t si, len1, len2;
    const avk_type *t;
    avk_arena *arena;
    avk_value v1, v2;
    avk_error err;
    char *j1, *j2;
    avk_status st;
    if (size < 1)
        return 0;
    si = data[0] % AVKF_SCHEMA_COUNT;
    if (!schemas[si])
        schemas[si] = avkf_schema_parse(si);
    t = avk_schema_root(schemas[si]);
    st = avk_arena_new(NULL, &arena, &err);
    AVKF_CHECK(st == AVK_OK, "arena: %s", err.message);
    st = avk_value_read_json(t, (const char *)data + 1, size - 1, arena, &v1, &err);
    AVKF_CHECK(st == AVK_OK || st == AVK_ERR_MALFORMED || st == AVK_ERR_LIMIT,
               "unexpected status %s: %s", avk_status_name(st), err.message);
    if (st == AVK_OK) {
        j1 = write_json(&v1, &len1);
        st = avk_value_read_json(t, j1, len1, arena, &v2, &err);
        AVKF_CHECK(st == AVK_OK, "written JSON does not read back: %s: %.*s", err.message,
                   (int)len1, j1);
        j2 = write_json(&v2, &len2);
        AVKF_CHECK(len1 == len2 && memcmp(j1, j2, len1) == 0,
                   "JSON changed on a second round: %.*s -> %.*s", (int)len1, j1, (int)len2, j2);
        free(j1);
        free(j2);
    }
    avk_arena_free(arena);
    return 0;
}
