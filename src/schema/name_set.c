/* The set of full names a schema writer has written (open addressing, FNV-1a). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema/name_set.h"

void avki_name_set_init(avki_name_set *s)
{
    memset(s->inline_slots, 0, sizeof s->inline_slots);
    s->slots = s->inline_slots;
    s->cap = AVKI_NAME_SET_INLINE;
    s->count = 0;
}

void avki_name_set_destroy(avki_name_set *s)
{
    if (s->slots != s->inline_slots)
        free((void *)s->slots);
}

static size_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
    return (size_t)(h ^ (h >> 32));
}

int avki_name_set_add(avki_name_set *s, const char *name)
{
    size_t mask = s->cap - 1, i = name_hash(name) & mask;
    while (s->slots[i]) {
        if (strcmp(s->slots[i], name) == 0)
            return 0;
        i = (i + 1) & mask;
    }
    if ((s->count + 1) * 2 > s->cap) {
        size_t cap = s->cap * 2, k;
        const char **slots = (const char **)calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (k = 0; k < s->cap; k++) {
            size_t j;
            if (!s->slots[k])
                continue;
            j = name_hash(s->slots[k]) & (cap - 1);
            while (slots[j])
                j = (j + 1) & (cap - 1);
            slots[j] = s->slots[k];
        }
        avki_name_set_destroy(s);
        s->slots = slots;
        s->cap = cap;
        mask = cap - 1;
        i = name_hash(name) & mask;
        while (s->slots[i])
            i = (i + 1) & mask;
    }
    s->slots[i] = name;
    s->count++;
    return 1;
}

