/* Generic values: what the binary decoder produces and the encoder consumes. */
#ifndef AVROKIT_VALUE_H
#define AVROKIT_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/arena.h"
#include "avrokit/macros.h"
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
AVK_EXPORT int avk_array_is_typed(const avk_type *array_type, size_t *item_size);

/* Sets up v as a value of type t with storage from arena: records get
 * field_count zeroed fields (each field's type set, so the caller fills
 * u.* only), arrays and maps get room for count items (u.array.count /
 * u.map.count set to count; boxed items and map values get their type
 * set); other kinds are zeroed with only the type set. Empty storage
 * (no fields, count 0, null items) is NULL and needs no arena. Returns
 * AVK_OK; AVK_ERR_NO_MEMORY (allocation or arena limit; v then has only
 * its type set); AVK_ERR_INVALID_ARGUMENT for NULL v or t, or a NULL arena
 * when storage is needed. */
AVK_EXPORT avk_status avk_value_init(avk_value *v, const avk_type *t, size_t count,
                                     avk_arena *arena,
                                     avk_error *err);

/* Sets a union value to branch index, with v->u.branch.value allocated
 * from arena and initialised (as avk_value_init with count 0: one level)
 * to the branch's type; avk_value_choose below chooses by name and sets
 * the branch up as a whole tree. Returns AVK_OK, AVK_ERR_NO_MEMORY, or
 * AVK_ERR_INVALID_ARGUMENT when v is not a union or index is out of range. */
AVK_EXPORT avk_status avk_value_set_branch(avk_value *v, uint32_t index, avk_arena *arena,
                                           avk_error *err);

/* Record field by name: NULL when v is not a record or has no such field
 * (avk_value_get_field says which). */
AVK_EXPORT avk_value *avk_value_field(const avk_value *v, const char *name);

/* ---- Building values ------------------------------------------------------------------
 *
 * A whole tree for a type in one call, then fields set by name, items
 * appended, map entries put and union branches chosen, each call checked
 * against the schema where it is made:
 *
 *     avk_value user, *email, *nick;
 *     avk_value_init_tree(&user, avk_schema_root(schema), arena, &err);
 *     avk_value_set_string(&user, "name", "Ada", arena, &err);
 *     avk_value_set_int(&user, "age", 36, &err);
 *     avk_value_append(&user, "emails", arena, &email, &err);
 *     avk_value_set_string(email, NULL, "ada@example.org", arena, &err);
 *     avk_value_choose(&user, "nick", "string", arena, &nick, &err);
 *     avk_value_set_string(nick, NULL, "countess", arena, &err);
 *
 * Each call below takes v and a field name: it acts on v itself when
 * field is NULL, and on v's field of that name when not (v must then be a
 * record). A union whose branch has been chosen stands for its branch's
 * value, both as v and as the field, except as the union avk_value_choose
 * chooses in: a string chosen for ["null", "string"] is then set like a
 * string field, and a record chosen for ["null", "Node"] has its fields
 * set through the union.
 * A call that does not fit the schema changes nothing and returns
 * AVK_ERR_INVALID_ARGUMENT with a message that names the call, the field
 * and both types, e.g. "avk_value_set_string: field 'age' of record 'User'
 * is an int, not a string", or "record 'User' has no field 'agee'"; NULL
 * v, a value without a type, or a record set up by hand without field
 * storage give the same status. AVK_ERR_NO_MEMORY (the arena's allocator
 * failed or its limit was reached) leaves what was allocated in the arena,
 * unused, and v holding what it held (an array or map perhaps moved to
 * larger storage; avk_value_init_tree says what it leaves). Values
 * built this way are ordinary values: encode them, write them as JSON,
 * compare them. One value, like its arena, belongs to one thread at a
 * time. */

/* Sets up v as a complete value of type t, all the way down, with storage
 * from arena (not NULL). A record gets every field set up: a field with a
 * default gets its default (a union field's default is its first branch's
 * value, as the specification says; strings of defaults view the schema's
 * memory, which the value's types need anyway), any other field its type's
 * empty value: null, false, 0, 0.0, an empty string or bytes, the first
 * enum symbol, a fixed of zero bytes (its size, from the arena), a record
 * set up the same way, an empty array or map, a union with no branch
 * chosen (index 0, u.branch.value NULL). A recursive type therefore stops
 * at the first union, array or map without a default, and only union
 * fields without a default need a call (avk_value_choose) before v can be
 * encoded. Any depth, without recursion: more than 32 nested records take
 * memory from the arena's allocator while the call runs (given back before
 * it returns). Returns AVK_OK; AVK_ERR_SCHEMA when a record contains
 * itself through fields with neither a default nor a union, array or map
 * between (such a record has no finite value; the message names the
 * field); AVK_ERR_NO_MEMORY; AVK_ERR_INVALID_ARGUMENT for NULL v, t or
 * arena. On failure v has only its type set. */
AVK_EXPORT avk_status avk_value_init_tree(avk_value *v, const avk_type *t, avk_arena *arena,
                                          avk_error *err);

/* The field named field of record v (field not NULL) in *out: like
 * avk_value_field, but with the error when there is none ("record 'User'
 * has no field 'adress'"), and v may be a union with a record chosen. *out
 * is the field's value itself (a union field as the union) and is valid as
 * long as the record's fields. Statuses as above. */
AVK_EXPORT avk_status avk_value_get_field(avk_value *v, const char *field, avk_value **out,
                                          avk_error *err);

/* Setters: v itself (field NULL) or v's field gets x, after checking its
 * type is the setter's:
 *   set_null     null (nothing to store: the check only)
 *   set_boolean  boolean; any non-zero x is stored as 1
 *   set_int      int
 *   set_long     long, or an int when x fits in 32 bits (as avk_builder_long)
 *   set_float    float        set_double  double
 *   set_string   string; s is NUL-terminated (a string holding U+0000 or
 *                of a known length: set the value's u.bytes directly)
 *   set_bytes    bytes; data may be NULL when len is 0
 *   set_fixed    fixed, len equal to its size
 *   set_enum     enum, by symbol ("enum 'Color' has no symbol 'PURPLE'"
 *                otherwise)
 * Logical types are set as their underlying type (a date as an int; see
 * avrokit/logical.h for conversions). set_string, set_bytes and set_fixed
 * copy into arena (a string gets a NUL after it, as decoded copies do);
 * with arena NULL the value views the caller's bytes, which must then
 * outlive it. Statuses as above. */
AVK_EXPORT avk_status avk_value_set_null(avk_value *v, const char *field, avk_error *err);
AVK_EXPORT avk_status avk_value_set_boolean(avk_value *v, const char *field, int x, avk_error *err);
AVK_EXPORT avk_status avk_value_set_int(avk_value *v, const char *field, int32_t x, avk_error *err);
AVK_EXPORT avk_status avk_value_set_long(avk_value *v, const char *field, int64_t x,
                                         avk_error *err);
AVK_EXPORT avk_status avk_value_set_float(avk_value *v, const char *field, float x, avk_error *err);
AVK_EXPORT avk_status avk_value_set_double(avk_value *v, const char *field, double x,
                                           avk_error *err);
AVK_EXPORT avk_status avk_value_set_string(avk_value *v, const char *field, const char *s,
                                           avk_arena *arena,
                                           avk_error *err);
AVK_EXPORT avk_status avk_value_set_bytes(avk_value *v, const char *field, const void *data,
                                          size_t len,
                                          avk_arena *arena, avk_error *err);
AVK_EXPORT avk_status avk_value_set_fixed(avk_value *v, const char *field, const void *data,
                                          size_t len,
                                          avk_arena *arena, avk_error *err);
AVK_EXPORT avk_status avk_value_set_enum(avk_value *v, const char *field, const char *symbol,
                                         avk_error *err);

/* Appends one item to the array that is v or v's field, set up as
 * avk_value_init_tree sets up a value of the item type (a record item has
 * its fields ready to set), and returns it in *item. Only for arrays
 * whose items are avk_value: an array stored as a typed C array
 * (avk_array_is_typed: items of boolean, int, long, float, double, fixed,
 * null) takes avk_value_append_items. Storage comes from arena (not NULL)
 * and grows by doubling, so n appends copy fewer than 2n items; an array
 * whose storage came from elsewhere (the decoder, avk_value_init, the
 * caller) is copied once, at its first append. Appending may move the
 * items: *item, like any pointer into them, is valid until the next append
 * to this array. Statuses as above (AVK_ERR_NO_MEMORY leaves the array as
 * it was). */
AVK_EXPORT avk_status avk_value_append(avk_value *v, const char *field, avk_arena *arena,
                                       avk_value **item,
                                       avk_error *err);

/* Appends n items from the C array items to the typed array that is v or
 * v's field (avk_array_is_typed), in the layout avk_builder_array takes:
 * uint8_t for boolean (any non-zero item is stored as 1), int32_t for int,
 * int64_t for long, float, double, n * size bytes for fixed(size); items
 * may be NULL for null items (only counted) and when n is 0. The bytes are
 * copied: items need not outlive the call. Growth as avk_value_append.
 * An array of avk_value items is refused (append those one at a time with
 * avk_value_append). Statuses as above. */
AVK_EXPORT avk_status avk_value_append_items(avk_value *v, const char *field, const void *items,
                                             size_t n,
                                             avk_arena *arena, avk_error *err);

/* Adds an entry with key (NUL-terminated, copied into arena, not NULL) to
 * the map that is v or v's field, its value set up as avk_value_init_tree
 * sets up one of the map's value type, and returns that value in *value.
 * Entries keep the order they were put in. Keys are not checked for
 * duplicates (that would make n puts cost n^2 compares): a key put twice
 * is encoded twice, and readers keep the last. Growth, and how long
 * *value stays valid, as avk_value_append. Statuses as above. */
AVK_EXPORT avk_status avk_value_put(avk_value *v, const char *field, const char *key,
                                    avk_arena *arena,
                                    avk_value **value, avk_error *err);

/* Chooses branch of the union that is v or v's field, by the name the
 * Avro JSON encoding gives it: a named type's full name ("com.x.User";
 * its simple name "User" too, when exactly one branch has it),
 * otherwise the kind's name ("null", "int", "string", "array", "map";
 * avk_kind_name gives it for a kind, and a logical type goes by its
 * underlying type's). The branch value is set up as avk_value_init_tree
 * sets up one of the branch's type, from arena (not NULL), and returned in
 * *out (out may be NULL: for "null", there is nothing to set). Choosing
 * again replaces the branch (the old value stays in the arena, unused).
 * avk_value_set_branch chooses by index. Errors name the union's branches:
 * "field 'nick' of record 'User' is a union [null, string] with no branch
 * 'int'". Statuses as above. */
AVK_EXPORT avk_status avk_value_choose(avk_value *v, const char *field, const char *branch,
                                       avk_arena *arena, avk_value **out, avk_error *err);

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
AVK_EXPORT int avk_value_equal(const avk_value *a, const avk_value *b);

#ifdef __cplusplus
}
#endif
#endif
