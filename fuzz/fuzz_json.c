/* Fuzz target for the JSON reader and writer: parse, write compact, parse again and compare exactly; never accept what cJSON rejects. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/status.h"
#include "avrokit/writer.h"
#include "common/arena.h"
#include "fuzz.h"
#include "json/json.h"
#ifdef AVK_FUZZ_HAVE_CJSON
#include <cJSON.h>

#include "cjson_agree.h"
#endif

/* Small, so deep inputs hit the limit and the checks below may recurse;
 * also well under cJSON's fixed nesting limit of 1000. */
#define FUZZ_MAX_DEPTH 64


/* Invariants of a tree parsed from data: every node's offset points at the
 * first byte of its text, strings and keys are NUL-terminated, numbers
 * keep their text. Returns the depth. */
static size_t check_nodes(const avki_json *v, const uint8_t *data, size_t size, size_t depth)
{
    size_t i, deepest = depth;
    AVKF_CHECK(v->offset < size, "node offset %zu beyond %zu", v->offset, size);
    AVKF_CHECK(v->line >= 1 && v->column >= 1 && v->column <= v->offset + 1, "node position");
    switch (v->type) {
    case AVKI_JSON_NULL: AVKF_CHECK(data[v->offset] == 'n', "null offset"); break;
    case AVKI_JSON_TRUE: AVKF_CHECK(data[v->offset] == 't', "true offset"); break;
    case AVKI_JSON_FALSE: AVKF_CHECK(data[v->offset] == 'f', "false offset"); break;
    case AVKI_JSON_NUMBER:
        AVKF_CHECK(v->u.number.len <= size - v->offset &&
                       memcmp(v->u.number.text, data + v->offset, v->u.number.len) == 0,
                   "number text differs from the input at %zu", v->offset);
        if (v->u.number.is_integer)
            AVKF_CHECK((double)v->u.number.i == v->u.number.d, "integer and double disagree");
        break;
    case AVKI_JSON_STRING:
        AVKF_CHECK(data[v->offset] == '"', "string offset");
        AVKF_CHECK(v->u.string.ptr[v->u.string.len] == '\0', "string not NUL-terminated");
        break;
    case AVKI_JSON_ARRAY:
        AVKF_CHECK(data[v->offset] == '[', "array offset");
        for (i = 0; i < v->u.array.count; i++) {
            size_t d = check_nodes(v->u.array.items[i], data, size, depth + 1);
            AVKF_CHECK(v->u.array.items[i]->offset > v->offset, "items follow their array");
            if (d > deepest)
                deepest = d;
        }
        break;
    case AVKI_JSON_OBJECT:
        AVKF_CHECK(data[v->offset] == '{', "object offset");
        for (i = 0; i < v->u.object.count; i++) {
            const avki_json_member *m = &v->u.object.members[i];
            size_t d = check_nodes(m->value, data, size, depth + 1);
            AVKF_CHECK(m->key[m->key_len] == '\0', "key not NUL-terminated");
            AVKF_CHECK(m->value->offset > v->offset, "members follow their object");
            if (d > deepest)
                deepest = d;
        }
        break;
    default: AVKF_CHECK(0, "bad node type %d", (int)v->type);
    }
    return deepest;
}

#ifdef AVK_FUZZ_HAVE_CJSON
/* Upstream cJSON 1.7.15 reads at most 63 characters of a number. */
static int has_long_number(const avki_json *v)
{
    size_t i;
    switch (v->type) {
    case AVKI_JSON_NUMBER: return v->u.number.len > 63;
    case AVKI_JSON_ARRAY:
        for (i = 0; i < v->u.array.count; i++)
            if (has_long_number(v->u.array.items[i]))
                return 1;
        return 0;
    case AVKI_JSON_OBJECT:
        for (i = 0; i < v->u.object.count; i++)
            if (has_long_number(v->u.object.members[i].value))
                return 1;
        return 0;
    default: return 0;
    }
}

#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    avki_json_limits limits = {FUZZ_MAX_DEPTH};
    avki_arena arena, arena2;
    const avki_json *v = NULL, *again = NULL;
    avk_error err;
    avk_status st;
    avk_writer w;
    const uint8_t *text;
    size_t len;

    avki_arena_init(&arena, NULL, 0, 0);
    avk_error_clear(&err);
    st = avki_json_parse(&arena, (const char *)data, size, &limits, &v, &err);
    if (st != AVK_OK) {
        AVKF_CHECK(st == AVK_ERR_MALFORMED || st == AVK_ERR_LIMIT, "status %s",
                   avk_status_name(st));
        AVKF_CHECK(v == NULL, "tree set on failure");
        AVKF_CHECK(err.status == st && err.offset <= size, "error record: %s at %llu",
                   avk_status_name(err.status), (unsigned long long)err.offset);
        AVKF_CHECK(strncmp(err.message, "line ", 5) == 0, "message: %s", err.message);
        avki_arena_destroy(&arena);
        return 0;
    }
    AVKF_CHECK(check_nodes(v, data, size, 1) <= FUZZ_MAX_DEPTH + 1, "deeper than the limit");

    /* Compact text parses back to the same tree, in a differently
     * shaped arena (tiny first block: many blocks). */
    if (avk_writer_init_memory(&w, NULL, NULL) != AVK_OK) {
        avki_arena_destroy(&arena);
        return 0;
    }
    st = avki_json_write(v, &w, &err);
    AVKF_CHECK(st == AVK_OK, "write: %s", err.message);
    text = avk_writer_data(&w, &len);
    AVKF_CHECK(len <= size, "compact text of %zu bytes from %zu", len, size);
    avki_arena_init(&arena2, NULL, 64, 0);
    st = avki_json_parse(&arena2, (const char *)text, len, &limits, &again, &err);
    AVKF_CHECK(st == AVK_OK, "reparse of written text: %s: %.*s", err.message, (int)len,
               (const char *)text);
    AVKF_CHECK(avki_json_equal(v, again), "trees differ after write and parse: %.*s", (int)len,
               (const char *)text);
    /* Compact text is a fixed point: writing the new tree gives it again. */
    {
        avk_writer w2;
        const uint8_t *t2;
        size_t l2;
        if (avk_writer_init_memory(&w2, NULL, NULL) == AVK_OK) {
            AVKF_CHECK(avki_json_write(again, &w2, NULL) == AVK_OK, "second write");
            t2 = avk_writer_data(&w2, &l2);
            AVKF_CHECK(l2 == len && memcmp(t2, text, len) == 0, "compact text not stable");
            avk_writer_destroy(&w2);
        }
    }
    avk_writer_destroy(&w);
    avki_arena_destroy(&arena2);

#ifdef AVK_FUZZ_HAVE_CJSON
    /* We are stricter than cJSON, never looser. */
    if (!has_long_number(v)) {
        cJSON *c = cJSON_ParseWithLength((const char *)data, size);
        AVKF_CHECK(c != NULL, "we accept a document cJSON rejects");
        AVKF_CHECK(avkt_agrees_with_cjson(v, c), "our tree differs from cJSON's");
        cJSON_Delete(c);
    }
#endif
    avki_arena_destroy(&arena);
    return 0;
}
