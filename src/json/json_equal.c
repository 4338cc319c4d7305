/* Structural equality of JSON trees, with an explicit stack (no recursion). */
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

/* An array or object of a whose child i is compared next with b's. */
typedef struct frame {
    const avki_json *a, *b;
    size_t i;
} frame;

#define LOCAL_FRAMES 64

/* Scalars; for containers, whether types and counts agree. */
static int same_node(const avki_json *a, const avki_json *b)
{
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
    case AVKI_JSON_ARRAY: return a->u.array.count == b->u.array.count;
    case AVKI_JSON_OBJECT: return a->u.object.count == b->u.object.count;
    }
    return 0;
}

static size_t count_of(const avki_json *v)
{
    if (v->type == AVKI_JSON_ARRAY)
        return v->u.array.count;
    return v->type == AVKI_JSON_OBJECT ? v->u.object.count : 0;
}

int avki_json_equal(const avki_json *a, const avki_json *b)
{
    frame local[LOCAL_FRAMES], *st = local;
    size_t top = 0, cap = LOCAL_FRAMES;
    int result = 1;
    for (;;) {
        if (!same_node(a, b)) {
            result = 0;
            break;
        }
        if (count_of(a)) {
            if (top == cap) {
                frame *ns;
                if (cap > ((size_t)-1 / 2) / sizeof *ns) {
                    result = 0;
                    break;
                }
                ns = (frame *)(st == local ? malloc(2 * cap * sizeof *ns)
                                           : realloc(st, 2 * cap * sizeof *ns));
                if (!ns) {
                    result = 0;
                    break;
                }
                if (st == local)
                    memcpy(ns, local, sizeof local);
                st = ns;
                cap *= 2;
            }
            st[top].a = a;
            st[top].b = b;
            st[top].i = 0;
            top++;
        }
        /* The next pair: the next child of the innermost open container. */
        for (;;) {
            frame *f;
            size_t i;
            if (!top)
                goto out; /* all compared */
            f = &st[top - 1];
            i = f->i++;
            if (i >= count_of(f->a)) {
                top--;
                continue;
            }
            if (f->a->type == AVKI_JSON_ARRAY) {
                a = f->a->u.array.items[i];
                b = f->b->u.array.items[i];
            } else {
                const avki_json_member *x = &f->a->u.object.members[i];
                const avki_json_member *y = &f->b->u.object.members[i];
                if (x->key_len != y->key_len || memcmp(x->key, y->key, x->key_len) != 0) {
                    result = 0;
                    goto out;
                }
                a = x->value;
                b = y->value;
            }
            /* The last child needs nothing after it: its frame goes now
             * (nested lists then take no stack). */
            if (f->i == count_of(f->a))
                top--;
            break;
        }
    }
out:
    if (st != local)
        free(st);
    return result;
}
