/* The column tree behind avk_columns: one node per Arrow column, its buffers and its decode steps. */
#ifndef AVK_COLUMNS_INTERNAL_H
#define AVK_COLUMNS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/codec.h"
#include "avrokit/columns.h"
#include "avrokit/plan.h"
#include "common/error.h"
#include <string.h>

/* Arrow's 32-bit offsets. */
#define AVKI_COL_MAX_OFFSET ((uint64_t)INT32_MAX)

/* What a node decodes into; each is one Arrow layout. */
typedef enum avki_col_kind {
    AVKI_COL_NULL,    /* null: no buffers */
    AVKI_COL_BOOL,    /* boolean: bit-packed values */
    AVKI_COL_I32,     /* int, date, time-millis, enum indexes */
    AVKI_COL_I64,     /* long, time-micros, timestamps */
    AVKI_COL_F32,
    AVKI_COL_F64,
    AVKI_COL_BINARY,  /* string or bytes: int32 offsets + data */
    AVKI_COL_FIXED,   /* fixed(N): N bytes a value */
    AVKI_COL_DECIMAL, /* decimal on bytes or fixed: 16 or 32 little-endian bytes a value */
    AVKI_COL_STRUCT,  /* record: children, no buffer but validity */
    AVKI_COL_LIST,    /* array: int32 offsets, one child */
    AVKI_COL_MAP,     /* map: int32 offsets, one child (the entries struct) */
    AVKI_COL_UNION    /* dense union: int8 type ids, int32 offsets, a child a branch */
} avki_col_kind;

/* A growable buffer; capacity survives clear and rollback. */
typedef struct avki_col_buf {
    uint8_t *data;
    size_t len; /* bytes in use */
    size_t cap;
} avki_col_buf;

typedef struct avki_col avki_col;

/* One writer field of a record node: decoded into a child, or skipped. */
typedef struct avki_col_step {
    avki_col *child; /* NULL: skip with plan */
    avk_plan *skip;
} avki_col_step;

/* Columns a record decodes inline (non-nullable numbers). */
typedef enum avki_col_leaf {
    AVKI_LEAF_NONE,
    AVKI_LEAF_LONG,  /* long: a varint to 8 bytes */
    AVKI_LEAF_INT,   /* int (not an enum): a varint to 4 bytes */
    AVKI_LEAF_WORD8, /* double: 8 bytes as they are */
    AVKI_LEAF_WORD4  /* float: 4 bytes as they are */
} avki_col_leaf;

struct avki_col {
    avki_col_kind kind;
    avki_col_leaf leaf;
    const avk_type *type;  /* the Avro type decoded (T of a nullable ["null", T]) */
    const char *name;      /* the Arrow field name */
    int nullable;          /* from ["null", T]: a validity bitmap */
    uint32_t null_branch;  /* the union branch that means null */
    int is_string;         /* BINARY: utf8 (checked with AVK_COLUMNS_CHECK_UTF8) */
    int is_key;            /* map keys: strings, named "key" */
    size_t width;          /* FIXED: N; DECIMAL: 16 or 32 */
    size_t src_fixed;      /* DECIMAL: the fixed size it is read from, 0 for bytes */
    uint64_t min_size;     /* fewest bytes a value takes on the wire (items checks) */
    uint64_t empty_size;   /* bytes the placeholder under a null writes (subtree) */
    avki_col_buf validity; /* bit per value, LSB first (nullable only) */
    avki_col_buf values;   /* fixed-width values, offsets, or union type ids */
    avki_col_buf data;     /* BINARY bytes; UNION int32 offsets */
    uint64_t length;       /* values held */
    uint64_t null_count;
    avki_col **children;   /* STRUCT: projected fields; LIST: item; MAP: entries;
                              UNION: one per branch */
    size_t n_children;
    avki_col_step *steps;  /* STRUCT: one per writer field, in order */
    size_t n_steps;
    uint64_t mark_length, mark_nulls; /* rollback point of the current call */
};

/* Fields of a table row that decode alike, in a row: longs and ints
 * through the bulk varint kernels, floats and doubles as one copy. */
typedef struct avki_col_run {
    avki_col_leaf leaf; /* AVKI_LEAF_NONE: one skipped field (skip) */
    size_t count;       /* fields */
    size_t width;       /* bytes a field takes in the row: 8 or 4 */
    avk_plan *skip;
} avki_col_run;

struct avk_columns {
    avk_allocator alloc;
    avk_limits limits;
    unsigned flags;
    const avk_type *type;
    avki_col *root;
    avk_plan *plan;      /* the whole type: the error of a bad value, as avk_plan_decode says it;
                            with a reader's schema, the resolving plan that decodes every value */
    int resolving;       /* values go through plan and arena, then avk_columns_append_value */
    avk_arena *arena;    /* one resolved value at a time (made on first use) */
    avk_buffer block;    /* decompressed block data */
    /* A root record of numbers only (a table) is decoded a tile of rows at
     * a time into row-major scratch, then copied out column by column:
     * one write stream per column at a time instead of one per field. */
    uint8_t *tile;
    size_t tile_size;    /* 0: the root is no such table */
    size_t row_bytes;
    avki_col_run *runs;  /* the record's fields in runs of one kind */
    size_t n_runs;
    /* Placeholder bytes nulls may still write before export or clear: a
     * null costs one input byte but may stand for a fixed(10^7) or a wide
     * record, so they are counted against limits.max_memory. */
    uint64_t placeholder_left;
};

/* Node memory: tree building and freeing (columns_new.c). */
void *avki_col_alloc(avk_columns *c, size_t size);
void avki_col_free_mem(avk_columns *c, void *p, size_t size);
void avki_col_buf_free(avk_columns *c, avki_col_buf *b);


/* ---- buffers and values shared by the decoders (columns_buf.c) ---------- */

/* One call's state. The wire decoder finds errors and the plan describes
 * them (columns_decode.c), so the hot path passes no avk_error, except for
 * what only columns refuse (too_large, decimals). r is NULL when values
 * come from avk_value trees. */
typedef struct avki_col_ctx {
    avk_columns *c;
    avk_reader *r;
    uint64_t empty; /* zero-byte items of the current value */
    avk_error *err;
    int own_error;  /* err holds a columns-only error */
    uint64_t at;    /* where the value being decoded starts (errors of nulls) */
} avki_col_ctx;

avk_status avki_col_grow(avk_columns *c, avki_col_buf *b, size_t need);
/* AVK_ERR_LIMIT: more than Arrow's 32-bit offsets reach (own_error set). */
avk_status avki_col_too_large(avki_col_ctx *d, const char *what);


/* Room for need more bytes. */
static inline avk_status avki_col_reserve(avk_columns *c, avki_col_buf *b, size_t need)
{
    if (AVK_LIKELY(b->cap - b->len >= need))
        return AVK_OK;
    return avki_col_grow(c, b, need);
}

static inline avk_status avki_col_put(avk_columns *c, avki_col_buf *b, const void *src, size_t n)
{
    if (n == 0) /* an empty buffer has no data pointer to copy to */
        return AVK_OK;
    AVK_TRY(avki_col_reserve(c, b, n));
    memcpy(b->data + b->len, src, n);
    b->len += n;
    return AVK_OK;
}

/* Bit i of a bitmap (LSB first) set to bit; stale bits after a rollback are
 * overwritten. */
static inline avk_status avki_col_put_bit(avk_columns *c, avki_col_buf *b, uint64_t i, int bit)
{
    size_t byte = (size_t)(i >> 3);
    uint8_t m = (uint8_t)(1u << (i & 7));
    if (byte >= b->len) {
        AVK_TRY(avki_col_reserve(c, b, 1));
        b->data[b->len++] = 0;
    }
    b->data[byte] = (uint8_t)(bit ? (b->data[byte] | m) : (b->data[byte] & ~m));
    return AVK_OK;
}

/* The offset of the end of the values so far (the first call writes 0). */
static inline avk_status avki_col_put_offset(avki_col_ctx *d, avki_col *col, uint64_t end, const char *what)
{
    int32_t o;
    if (AVK_UNLIKELY(end > AVKI_COL_MAX_OFFSET))
        return avki_col_too_large(d, what);
    if (col->values.len == 0) {
        o = 0;
        AVK_TRY(avki_col_put(d->c, &col->values, &o, 4));
    }
    o = (int32_t)end;
    return avki_col_put(d->c, &col->values, &o, 4);
}

static inline uint64_t avki_col_offset_at(const avki_col *col, uint64_t i)
{
    int32_t o;
    if (col->values.len == 0)
        return 0;
    memcpy(&o, col->values.data + 4 * i, 4);
    return (uint64_t)o;
}


/* A null of a nullable column: bit clear, an empty value under it. */
avk_status avki_col_append_null(avki_col_ctx *d, avki_col *col);
/* A placeholder value (zeros, empty strings and lists) under a null. */
avk_status avki_col_append_empty(avki_col_ctx *d, avki_col *col);
/* A decimal's big-endian two's complement bytes, sign-extended to the
 * column's width (little-endian); AVK_ERR_MALFORMED at offset (where the
 * value starts) when they do not fit. */
avk_status avki_col_put_decimal(avki_col_ctx *d, avki_col *col, const uint8_t *p, uint64_t n,
                                uint64_t offset);
/* Marks where a call starts; rollback goes back there; clear empties. */
void avki_col_mark(avki_col *col);
void avki_col_rollback(avki_col *col);
void avki_col_clear(avki_col *col);
/* The placeholder budget back to limits.max_memory (new, export, clear). */
void avki_col_reset_budget(avk_columns *c);

#endif
