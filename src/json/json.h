/* JSON reader: parses text into a read-only tree in an arena (used by schemas, later by the Avro JSON decoder). */
#ifndef AVK_JSON_JSON_H
#define AVK_JSON_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/status.h"
#include "common/arena.h"

typedef enum avki_json_type {
    AVKI_JSON_NULL,
    AVKI_JSON_FALSE,
    AVKI_JSON_TRUE,
    AVKI_JSON_NUMBER,
    AVKI_JSON_STRING,
    AVKI_JSON_ARRAY,
    AVKI_JSON_OBJECT
} avki_json_type;

typedef struct avki_json avki_json;

typedef struct avki_json_member {
    const char *key; /* unescaped, NUL-terminated, valid UTF-8 (may hold NUL: use key_len) */
    size_t key_len;
    const avki_json *value;
} avki_json_member;

struct avki_json {
    avki_json_type type;
    uint32_t line;   /* 1-based position of the value's first character */
    uint32_t column; /* 1-based, counted in bytes */
    size_t offset;   /* byte offset of the value's first character */
    union {
        struct {
            const char *ptr; /* unescaped, NUL-terminated, valid UTF-8; may contain NUL */
            size_t len;
        } string;
        struct {
            const char *text; /* the number as written (not NUL-terminated) */
            size_t len;
            int is_integer;   /* no fraction or exponent, and fits int64 */
            int64_t i;        /* the value when is_integer */
            double d;         /* the value as a double (strtod-exact) */
        } number;
        struct {
            const avki_json *const *items;
            size_t count;
        } array;
        struct {
            const avki_json_member *members; /* in document order; duplicates kept */
            size_t count;
        } object;
    } u;
};

typedef struct avki_json_limits {
    size_t max_depth; /* nesting of arrays and objects; 0 means 512 */
} avki_json_limits;

/* Parses text[0..len) (RFC 8259: one value, surrounded by optional white
 * space; strings must be valid UTF-8, \u escapes with surrogate pairs are
 * decoded). Everything lives in arena. Returns AVK_OK, AVK_ERR_MALFORMED
 * with "line L, column C: ..." in err->message and the byte offset in
 * err->offset, AVK_ERR_LIMIT for nesting beyond max_depth, or
 * AVK_ERR_NO_MEMORY. limits may be NULL. Recursion is bounded by
 * max_depth, so hostile nesting cannot exhaust the stack. */
avk_status avki_json_parse(avki_arena *arena, const char *text, size_t len,
                           const avki_json_limits *limits, const avki_json **out, avk_error *err);

/* The value of the first member named key (a NUL-terminated string), or NULL. */
const avki_json *avki_json_get(const avki_json *object, const char *key);

/* Appends the compact JSON text of v (no spaces; strings escaped as RFC 8259
 * requires, non-ASCII kept as UTF-8; numbers as written) to w. */
struct avk_writer;
avk_status avki_json_write(const avki_json *v, struct avk_writer *w, avk_error *err);

/* Appends s[0..len) as a JSON string literal (with quotes) to w. */
avk_status avki_json_write_string(struct avk_writer *w, const char *s, size_t len, avk_error *err);

#endif
