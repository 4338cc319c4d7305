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
 * the same, byte for byte.
 *
 * The streaming read (AVK_JSON_FIRST_VALUE) must agree: on the whole text
 * it reads what the plain read reads, leaving only white space; on a
 * prefix (cut where byte 0's high bits say) it either waits for more
 * (TRUNCATED), or reads the same first value as the whole text does, or
 * fails as the whole text does: an error found in a prefix is final. */

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

/* A streaming read of text[0..len): status, bytes used, and the value's
 * JSON (malloc'd, NULL unless OK). */
static avk_status read_first(const avk_type *t, const char *text, size_t len, unsigned flags,
                             avk_arena *arena, size_t *used, char **json, size_t *jlen,
                             avk_error *err)
{
    avk_json_read_options o;
    avk_value v;
    avk_status st;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    avk_arena_reset(arena);
    st = avk_value_read_json_opts(t, text, len, &o, arena, &v, used, err);
    *json = NULL;
    if (st == AVK_OK)
        *json = write_json(&v, jlen);
    AVKF_CHECK(st == AVK_OK ? *used <= len : 1, "used %zu of %zu", *used, len);
    return st;
}

static void check_stream(const avk_type *t, const char *text, size_t len, size_t cut,
                         avk_status whole, const char *whole_json, size_t whole_len,
                         avk_arena *arena)
{
    size_t used, i, plen, pused, jl = 0, pjl = 0;
    char *j, *pj;
    avk_error err, perr;
    avk_status st, pst;
    const unsigned last = AVK_JSON_FIRST_VALUE | AVK_JSON_LAST_TEXT;
    st = read_first(t, text, len, last, arena, &used, &j, &jl, &err);
    if (whole == AVK_OK) {
        AVKF_CHECK(st == AVK_OK, "the streaming read fails where the plain one reads: %s",
                   err.message);
        AVKF_CHECK(jl == whole_len && memcmp(j, whole_json, jl) == 0,
                   "the streaming read reads another value");
        for (i = used; i < len; i++)
            AVKF_CHECK(text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r',
                       "byte %zu after the value (used %zu) is not white space", i, used);
    }
    AVKF_CHECK(st != AVK_ERR_NO_MEMORY && st != AVK_ERR_INVALID_ARGUMENT, "status %s: %s",
               avk_status_name(st), err.message);
    /* A prefix. */
    plen = cut < len ? cut : len;
    pst = read_first(t, text, plen, AVK_JSON_FIRST_VALUE, arena, &pused, &pj, &pjl, &perr);
    if (pst == AVK_OK) {
        AVKF_CHECK(st == AVK_OK && pused == used && pjl == jl && memcmp(pj, j, jl) == 0,
                   "a prefix of %zu bytes reads a value the whole text does not (%s)", plen,
                   avk_status_name(st));
    } else if (pst != AVK_ERR_TRUNCATED) {
        AVKF_CHECK(pst == st && strcmp(perr.message, err.message) == 0,
                   "a prefix of %zu bytes fails (%s: %s), the whole text %s: %s", plen,
                   avk_status_name(pst), perr.message, avk_status_name(st), err.message);
    }
    free(j);
    free(pj);
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
    j1 = NULL;
    len1 = 0;
    if (st == AVK_OK)
        j1 = write_json(&v1, &len1);
    check_stream(t, (const char *)data + 1, size - 1, (size - 1) * (data[0] >> 4) / 16, st, j1,
                 len1, arena);
    if (st == AVK_OK) {
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
