/* The set of full names a schema writer has written. */
#include <string.h>

#include "schema/name_set.h"

void avki_name_set_init(avki_name_set *s, const avk_allocator *alloc)
{
    if (!alloc)
        alloc = avk_allocator_libc();
    avki_hash_init(&s->table, alloc, s->inline_slots, 2 * AVKI_NAME_SET_INLINE);
    avki_stack_init(&s->names, s->inline_names, AVKI_NAME_SET_INLINE, sizeof(const char *),
                    alloc);
}

void avki_name_set_destroy(avki_name_set *s)
{
    avki_hash_destroy(&s->table);
    avki_stack_destroy(&s->names);
}

int avki_name_set_add(avki_name_set *s, const char *name)
{
    uint32_t h = avki_hash_bytes(&s->table, name, strlen(name));
    size_t pos = avki_hash_first(&s->table, h), i;
    const char **slot;
    while ((i = avki_hash_next(&s->table, h, &pos)) != AVKI_HASH_END)
        if (strcmp(*(const char **)avki_stack_at(&s->names, i), name) == 0)
            return 0;
    if (!(slot = (const char **)avki_stack_push(&s->names)))
        return -1;
    *slot = name;
    if (avki_hash_add(&s->table, h, s->names.n - 1) != AVK_OK) {
        s->names.n--;
        return -1;
    }
    return 1;
}
