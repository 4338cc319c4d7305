/* Generic values: what the binary decoder produces and the encoder consumes. */
#ifndef AVROKIT_VALUE_H
#define AVROKIT_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/arena.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A view: pointer and length, not owned. Strings are UTF-8 and not
 * NUL-terminated (decoded copies in an arena do carry a NUL after len). */
typedef struct avk_bytes {
    const uint8_t *data;
    size_t len;
} avk_bytes;

/* One Avro value. type says how to read the union u (type->kind):
 *
 *   NULL            nothing
 *   BOOLEAN         u.boolean (uint8_t, 0 or 1: the type of boolean array
 *                   items too)
 *   INT             u.i   (date, time-millis: the integer itself)
 *   LONG            u.l   (time-micros, timestamps: the integer itself)
 *   FLOAT, DOUBLE   u.f, u.d
 *   BYTES, STRING   u.bytes (decimal on bytes: the unscaled big-endian
 *                   two's-complement integer; the scale is the type's)
 *   FIXED           u.bytes, len == the fixed size
 *   ENUM            u.index (uint32_t; the symbol: avk_type_symbol(type,
 *                   u.index))
 *   RECORD          u.fields: one value per field, in schema order
 *   UNION           u.branch: index (uint32_t, like an enum's) into the
 *                   union and the branch's value
 *   ARRAY           u.array: count items, stored by item kind:
 *                     BOOLEAN -> uint8_t[count]      INT -> int32_t[count]
 *                     LONG    -> int64_t[count]      FLOAT -> float[count]
 *                     DOUBLE  -> double[count]       FIXED(n) -> uint8_t[count * n]
 *                     NULL    -> items is NULL
 *                     any other -> avk_value[count]
 *   MAP             u.map: count keys (UTF-8 views) and values, in the
 *                   order they were read or are to be written
 *
 * Indexes (enum symbols, union branches) are uint32_t everywhere, in values
 * and in the builder; booleans are stored as uint8_t 0 or 1, alone and in
 * arrays (calls that take a boolean take an int and store any non-zero
 * value as 1).
 *
 * Decoded values live in the arena given to the decoder (strings and bytes
 * may instead be views into the input: see AVK_PLAN_COPY_STRINGS). */
typedef struct avk_value avk_value;
struct avk_value {
    const avk_type *type;
    union {
        uint8_t boolean;
        int32_t i;
        int64_t l;
        float f;
        double d;
        avk_bytes bytes;
        uint32_t index;
        avk_value *fields;
        struct {
            avk_value *value;
            uint32_t index;
        } branch;
        struct {
            void *items;
            size_t count;
        } array;
        struct {
            avk_bytes *keys;
            avk_value *values;
            size_t count;
        } map;
    } u;
};

/* 1 when the items of an array of type t (an array type) are stored as a
 * typed C array rather than avk_value[]; *item_size then gets the bytes per
 * item (0 for null). */
int avk_array_is_typed(const avk_type *array_type, size_t *item_size);

/* Sets up v as a value of type t with storage from arena: records get
 * field_count zeroed fields (each field's type set, so the caller fills
 * u.* only), arrays and maps get room for count items (u.array.count /
 * u.map.count set to count; boxed items and map values get their type
 * set); other kinds are zeroed with only the type set. Empty storage
 * (no fields, count 0, null items) is NULL and needs no arena. Returns
 * AVK_OK; AVK_ERR_NO_MEMORY (allocation or arena limit; v then has only
 * its type set); AVK_ERR_INVALID_ARGUMENT for NULL v or t, or a NULL arena
 * when storage is needed. */
avk_status avk_value_init(avk_value *v, const avk_type *t, size_t count, avk_arena *arena,
                          avk_error *err);

/* Sets a union value to branch index, with v->u.branch.value allocated
 * from arena and initialised (as avk_value_init with count 0) to the
 * branch's type. Returns AVK_OK, AVK_ERR_NO_MEMORY, or
 * AVK_ERR_INVALID_ARGUMENT when v is not a union or index is out of range. */
avk_status avk_value_set_branch(avk_value *v, uint32_t index, avk_arena *arena, avk_error *err);

/* Record field by name: NULL when v is not a record or has no such field. */
avk_value *avk_value_field(const avk_value *v, const char *name);

/* 1 when a and b hold the same data under equal kinds (types are compared
 * by kind and shape, not by pointer: fixed sizes, record field counts,
 * union branch counts and array item kinds must agree; names need not).
 * Floats are compared bit for bit, so NaN equals the same NaN and 0.0
 * differs from -0.0; typed arrays are compared as arrays; maps entry by
 * entry in order. Two NULLs are equal. Any depth: no recursion; a
 * container with values left to compare after the one being compared
 * takes 32 bytes of heap (malloc) a level beyond 64, a container's last
 * value none, so a linked list of any length compares in constant memory.
 * Should that allocation fail, the values compare unequal. Thread-safe. */
int avk_value_equal(const avk_value *a, const avk_value *b);

#ifdef __cplusplus
}
#endif
#endif
