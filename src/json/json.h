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
            const char *text; /* the number as written, NUL-terminated (len excludes it) */
            size_t len;
            int is_integer;   /* no fraction or exponent, and fits int64 */
            int64_t i;        /* the value when is_integer, else 0 */
            double d;         /* the value correctly rounded, as strtod in the C locale
                                 gives it: +-HUGE_VAL beyond the range of double,
                                 +-0 below it; -0 for "-0" */
        } number;
        struct {
            const avki_json *const *items; /* never NULL, even when count is 0 */
            size_t count;
        } array;
        struct {
            const avki_json_member *members; /* in document order; duplicates kept;
                                                never NULL, even when count is 0 */
            size_t count;
        } object;
    } u;
};

typedef struct avki_json_limits {
    size_t max_depth; /* nesting of arrays and objects; 0 means 512 */
} avki_json_limits;

/* Parses text[0..len) (RFC 8259: one value, surrounded by optional white
 * space; strings must be valid UTF-8, \u escapes with surrogate pairs are
 * decoded). Stricter than many parsers: no byte order mark, comments,
 * trailing commas, leading zeros, raw control characters in strings,
 * overlong or surrogate UTF-8, unpaired surrogate escapes, or anything
 * after the value. The text need not be NUL-terminated and is not kept:
 * the tree, its strings and number texts all live in arena, until it is
 * reset or destroyed.
 *
 * Returns AVK_OK with *out set; AVK_ERR_MALFORMED with "line L, column C:
 * expected ..., found ..." (or what is wrong) in err->message and the
 * byte offset in err->offset (lines count LF, columns bytes, both from 1);
 * AVK_ERR_LIMIT for nesting beyond max_depth, at the bracket that passes
 * it; AVK_ERR_NO_MEMORY when the arena fails, its limit included;
 * AVK_ERR_INVALID_ARGUMENT when arena or out is NULL, or text is NULL with
 * len > 0. On failure *out is NULL and what the arena already gave stays
 * there. limits may be NULL.
 *
 * No recursion: nesting costs heap, not stack, whatever max_depth is.
 * Scratch space for open arrays and objects lives on the C stack up to
 * 128 values (about 10 KiB), beyond that it comes from the arena's
 * allocator (counted in arena->allocations and against its limit) and is
 * freed before returning. Reentrant; the tree is read-only and may be
 * read by many threads.
 *
 *     avki_arena arena;
 *     const avki_json *root;
 *     avki_arena_init(&arena, NULL, 0, 0);
 *     if (avki_json_parse(&arena, text, len, NULL, &root, err) == AVK_OK)
 *         use(avki_json_get(root, "type"));
 *     avki_arena_destroy(&arena);
 */
avk_status avki_json_parse(avki_arena *arena, const char *text, size_t len,
                           const avki_json_limits *limits, const avki_json **out, avk_error *err);

/* The value of the first member named key (a NUL-terminated string), or
 * NULL: also when object is NULL or not an object. A key holding a NUL
 * cannot be named this way; walk the members for it. */
const avki_json *avki_json_get(const avki_json *object, const char *key);

/* 1 when a and b are the same JSON: same types, numbers with the same text
 * and value, strings and keys byte for byte, members in the same order
 * (line, column and offset are not compared). Recursion is bounded by the
 * depth the trees were parsed with. */
int avki_json_equal(const avki_json *a, const avki_json *b);

/* Appends the compact JSON text of v to w: no white space; strings as
 * avki_json_write_string writes them; numbers as written. Parsing the
 * output gives the same tree back. No recursion: beyond 64 levels the
 * stack comes from w's allocator. Returns AVK_OK, the writer's status
 * (AVK_ERR_LIMIT for a full memory writer, a sink's error),
 * AVK_ERR_NO_MEMORY, or AVK_ERR_INVALID_ARGUMENT for a NULL v. */
struct avk_writer;
avk_status avki_json_write(const avki_json *v, struct avk_writer *w, avk_error *err);

/* Appends s[0..len) as a JSON string literal (with quotes) to w: '"' and
 * '\\' escaped, \b \f \n \r \t for those controls, \u00xx (lower-case
 * hex) for the other bytes below 0x20, everything else (DEL, '/', UTF-8)
 * as is. The output is valid JSON when s is valid UTF-8. Returns AVK_OK
 * or the writer's status. */
avk_status avki_json_write_string(struct avk_writer *w, const char *s, size_t len, avk_error *err);

#endif
