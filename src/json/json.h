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

/* Options of avki_json_parse_ex; zeroed means avki_json_parse's behaviour. */
typedef struct avki_json_parse_options {
    size_t max_depth; /* nesting of arrays and objects; 0 means 512 */
    unsigned flags;   /* AVKI_JSON_PREFIX, AVKI_JSON_FINAL */
    uint64_t line;    /* line of text[0] in the whole input, for messages; 0 means 1 */
    uint64_t column;  /* column of text[0] on its line; 0 means 1 */
    uint64_t offset;  /* byte offset of text[0] in the whole input, for err->offset */
} avki_json_parse_options;

/* Parse the first value of the text; more may follow it (in *used, the
 * bytes up to the end of the value, the white space after it not taken).
 * The end of the text may cut the value: unless AVKI_JSON_FINAL, that is
 * AVK_ERR_TRUNCATED (*used then holds the white space before the value,
 * which the caller may drop) and the caller calls again with more text.
 * A text of white space alone is AVK_ERR_TRUNCATED, FINAL or not. */
#define AVKI_JSON_PREFIX 0x1u
/* With AVKI_JSON_PREFIX: nothing follows the text, so a number at its end
 * is whole and a value cut by the end is AVK_ERR_MALFORMED. */
#define AVKI_JSON_FINAL 0x2u

/* As avki_json_parse, with opts (NULL: all zero) and, for
 * AVKI_JSON_PREFIX, used (not NULL then). Nodes' line and column count
 * from text[0] (line 1, column 1) whatever opts says; messages and
 * err->offset are in the whole input's terms. */
avk_status avki_json_parse_ex(avki_arena *arena, const char *text, size_t len,
                              const avki_json_parse_options *opts, const avki_json **out,
                              size_t *used, avk_error *err);

/* The number node n as a float, correctly rounded as strtof reads its
 * text (n->u.number.d rounded again when that gives the same, which is
 * all but exactly halfway cases). Returns 0 only when a copy of the text
 * (for a locale whose decimal point is not '.') cannot come from arena. */
int avki_json_number_float(avki_arena *arena, const avki_json *n, float *out);

/* The value of the first member named key (a NUL-terminated string), or
 * NULL: also when object is NULL or not an object. A key holding a NUL
 * cannot be named this way; walk the members for it. */
const avki_json *avki_json_get(const avki_json *object, const char *key);

/* 1 when a and b are the same JSON: same types, numbers with the same text
 * and value, strings and keys byte for byte, members in the same order
 * (line, column and offset are not compared). No recursion: nesting costs
 * heap (16 bytes a level beyond 64, from malloc); 0 when that allocation
 * fails. */
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
