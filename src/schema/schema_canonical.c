/* Parsing Canonical Form of a schema, as the Avro specification defines it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/writer.h"
#include "common/error.h"
#include "schema/name_set.h"
#include "schema/schema_internal.h"

/* ---- output ---------------------------------------------------------------- */

typedef struct canon {
    avk_writer *w;
    avk_error *err;
    avki_name_set seen;
} canon;

static avk_status put(canon *c, const char *s, size_t n)
{
    return avk_writer_write_raw(c->w, s, n, c->err);
}

#define PUT_LIT(c, lit) put((c), (lit), sizeof(lit) - 1)

/* A JSON string literal. [STRINGS]: characters are written as themselves
 * (UTF-8 stays UTF-8); only what JSON cannot hold literally is escaped: the
 * quote, the backslash and control characters. Names and symbols are
 * [A-Za-z_][A-Za-z0-9_]* in a valid schema, so this rarely does anything. */
static avk_status put_string(canon *c, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *run = s;
    AVK_TRY(PUT_LIT(c, "\""));
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        char esc[6];
        size_t n;
        if (ch >= 0x20 && ch != '"' && ch != '\\')
            continue;
        AVK_TRY(put(c, run, (size_t)(s - run)));
        run = s + 1;
        esc[0] = '\\';
        n = 2;
        switch (ch) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[ch >> 4];
            esc[5] = hex[ch & 15];
            n = 6;
            break;
        }
        AVK_TRY(put(c, esc, n));
    }
    AVK_TRY(put(c, run, (size_t)(s - run)));
    return PUT_LIT(c, "\"");
}

static avk_status write_type(canon *c, const avk_type *t);

/* {"name":"<full name>","type":"<type>" */
static avk_status named_head(canon *c, const avk_type *t, const char *type_json)
{
    AVK_TRY(PUT_LIT(c, "{\"name\":"));
    AVK_TRY(put_string(c, t->fullname));
    AVK_TRY(PUT_LIT(c, ",\"type\":"));
    return put(c, type_json, strlen(type_json));
}

static avk_status write_named(canon *c, const avk_type *t)
{
    size_t i;
    int added;
    if (!t->fullname)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "named type without a full name");
    added = avki_name_set_add(&c->seen, t->fullname);
    if (added < 0)
        return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "cannot allocate the set of written type names");
    if (added == 0)
        return put_string(c, t->fullname);
    switch (t->kind) {
    case AVK_RECORD:
        /* "error" records are written as "record", as Java's
         * SchemaNormalization does (the reference the fingerprint tables
         * are checked against); the specification does not say. */
        AVK_TRY(named_head(c, t, "\"record\""));
        AVK_TRY(PUT_LIT(c, ",\"fields\":["));
        for (i = 0; i < t->field_count; i++) {
            const avk_field *f = &t->fields[i];
            AVK_TRY(i ? PUT_LIT(c, ",{\"name\":") : PUT_LIT(c, "{\"name\":"));
            AVK_TRY(put_string(c, f->name));
            AVK_TRY(PUT_LIT(c, ",\"type\":"));
            AVK_TRY(write_type(c, f->type));
            AVK_TRY(PUT_LIT(c, "}"));
        }
        return PUT_LIT(c, "]}");
    case AVK_ENUM:
        AVK_TRY(named_head(c, t, "\"enum\""));
        AVK_TRY(PUT_LIT(c, ",\"symbols\":["));
        for (i = 0; i < t->symbol_count; i++) {
            if (i)
                AVK_TRY(PUT_LIT(c, ","));
            AVK_TRY(put_string(c, t->symbols[i]));
        }
        return PUT_LIT(c, "]}");
    default: { /* AVK_FIXED */
        /* [INTEGERS]: plain decimal, no leading zeros. */
        char num[32];
        int n = snprintf(num, sizeof num, "%zu", t->size);
        AVK_TRY(named_head(c, t, "\"fixed\""));
        AVK_TRY(PUT_LIT(c, ",\"size\":"));
        AVK_TRY(put(c, num, (size_t)n));
        return PUT_LIT(c, "}");
    }
    }
}

/* [PRIMITIVES] primitives as bare names; [STRIP] only name, type, fields,
 * symbols, items, values and size survive (doc, aliases, defaults, order,
 * namespace, logical types and properties go); [ORDER] in that order;
 * [WHITESPACE] none. */
static avk_status write_type(canon *c, const avk_type *t)
{
    size_t i;
    if (!t)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "schema node is NULL");
    switch (t->kind) {
    case AVK_NULL: return PUT_LIT(c, "\"null\"");
    case AVK_BOOLEAN: return PUT_LIT(c, "\"boolean\"");
    case AVK_INT: return PUT_LIT(c, "\"int\"");
    case AVK_LONG: return PUT_LIT(c, "\"long\"");
    case AVK_FLOAT: return PUT_LIT(c, "\"float\"");
    case AVK_DOUBLE: return PUT_LIT(c, "\"double\"");
    case AVK_BYTES: return PUT_LIT(c, "\"bytes\"");
    case AVK_STRING: return PUT_LIT(c, "\"string\"");
    case AVK_RECORD:
    case AVK_ENUM:
    case AVK_FIXED:
        return write_named(c, t);
    case AVK_ARRAY:
        AVK_TRY(PUT_LIT(c, "{\"type\":\"array\",\"items\":"));
        AVK_TRY(write_type(c, t->items));
        return PUT_LIT(c, "}");
    case AVK_MAP:
        AVK_TRY(PUT_LIT(c, "{\"type\":\"map\",\"values\":"));
        AVK_TRY(write_type(c, t->items));
        return PUT_LIT(c, "}");
    case AVK_UNION:
        AVK_TRY(PUT_LIT(c, "["));
        for (i = 0; i < t->branch_count; i++) {
            if (i)
                AVK_TRY(PUT_LIT(c, ","));
            AVK_TRY(write_type(c, t->branches[i]));
        }
        return PUT_LIT(c, "]");
    }
    return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                          "schema node has unknown kind %d", (int)t->kind);
}

avk_status avk_type_write_canonical(const avk_type *t, struct avk_writer *w, avk_error *err)
{
    canon c;
    avk_status st;
    if (!t || !w)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_type_write_canonical: %s is NULL", !t ? "type" : "writer");
    c.w = w;
    c.err = err;
    avki_name_set_init(&c.seen, &w->alloc);
    st = write_type(&c, t);
    avki_name_set_destroy(&c.seen);
    return st;
}
