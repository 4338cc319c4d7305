/* Finds null-namespace types nested in namespaced ones (see the header). */
#include <stdlib.h>

#include "schema_ambiguity.h"

typedef struct walk {
    const avk_type **seen; /* named types met so far: later meetings are references */
    size_t count, cap;
} walk;

static int ambiguous(const avk_type *t, const char *enclosing, walk *w)
{
    size_t i;
    if (avk_type_is_named(t)) {
        if (enclosing[0] != '\0' && avk_type_namespace(t)[0] == '\0')
            return 1;
        for (i = 0; i < w->count; i++)
            if (w->seen[i] == t)
                return 0; /* met before: written as a name */
        if (w->count == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 16;
            const avk_type **grown = (const avk_type **)realloc((void *)w->seen, cap * sizeof *grown);
            if (!grown)
                return 1; /* cannot tell */
            w->seen = grown;
            w->cap = cap;
        }
        w->seen[w->count++] = t;
        enclosing = avk_type_namespace(t);
    }
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        for (i = 0; i < avk_type_field_count(t); i++)
            if (ambiguous(avk_field_type(avk_type_field(t, i)), enclosing, w))
                return 1;
        return 0;
    case AVK_ARRAY: return ambiguous(avk_type_items(t), enclosing, w);
    case AVK_MAP: return ambiguous(avk_type_values(t), enclosing, w);
    case AVK_UNION:
        for (i = 0; i < avk_type_branch_count(t); i++)
            if (ambiguous(avk_type_branch(t, i), enclosing, w))
                return 1;
        return 0;
    default: return 0;
    }
}

int avkt_null_ns_ambiguous(const avk_type *root)
{
    walk w = {NULL, 0, 0};
    int r = ambiguous(root, "", &w);
    free((void *)w.seen);
    return r;
}
