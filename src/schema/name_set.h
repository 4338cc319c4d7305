/* A set of full names already written, shared by the canonical-form and JSON writers. */
#ifndef AVK_SCHEMA_NAME_SET_H
#define AVK_SCHEMA_NAME_SET_H

#include <stddef.h>

/* [FULLNAMES] and the rule that a named type is written in full only once:
 * later occurrences are its full name. Keyed by full name. Small schemas
 * stay in the inline slots and never allocate. */
#define AVKI_NAME_SET_INLINE 32 /* a power of two */

typedef struct avki_name_set {
    const char **slots;
    size_t cap; /* a power of two; at most half full */
    size_t count;
    const char *inline_slots[AVKI_NAME_SET_INLINE];
} avki_name_set;

void avki_name_set_init(avki_name_set *s);
void avki_name_set_destroy(avki_name_set *s);

/* 1 when name was added, 0 when it was there already, -1 when out of memory. */
int avki_name_set_add(avki_name_set *s, const char *name);

#endif
