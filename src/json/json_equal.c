/* Structural equality of JSON trees. */
#include <string.h>

#include "json/json.h"

int avki_json_equal(const avki_json *a, const avki_json *b)
{
    size_t i;
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case AVKI_JSON_NULL:
    case AVKI_JSON_TRUE:
    case AVKI_JSON_FALSE: return 1;
    case AVKI_JSON_NUMBER:
        return a->u.number.len == b->u.number.len &&
               memcmp(a->u.number.text, b->u.number.text, a->u.number.len) == 0 &&
               a->u.number.is_integer == b->u.number.is_integer && a->u.number.i == b->u.number.i &&
               memcmp(&a->u.number.d, &b->u.number.d, sizeof(double)) == 0;
    case AVKI_JSON_STRING:
        return a->u.string.len == b->u.string.len &&
               memcmp(a->u.string.ptr, b->u.string.ptr, a->u.string.len) == 0;
    case AVKI_JSON_ARRAY:
        if (a->u.array.count != b->u.array.count)
            return 0;
        for (i = 0; i < a->u.array.count; i++)
            if (!avki_json_equal(a->u.array.items[i], b->u.array.items[i]))
                return 0;
        return 1;
    case AVKI_JSON_OBJECT:
        if (a->u.object.count != b->u.object.count)
            return 0;
        for (i = 0; i < a->u.object.count; i++) {
            const avki_json_member *x = &a->u.object.members[i], *y = &b->u.object.members[i];
            if (x->key_len != y->key_len || memcmp(x->key, y->key, x->key_len) != 0 ||
                !avki_json_equal(x->value, y->value))
                return 0;
        }
        return 1;
    }
    return 0;
}
