/* A set of full names already written, shared by the canonical-form and JSON writers. */
#ifndef AVK_SCHEMA_NAME_SET_H
#define AVK_SCHEMA_NAME_SET_H

#include <stddef.h>

#include "common/hash_table.h"
#include "common/stack.h"

/* [FULLNAMES] and the rule that a named type is written in full only once:
 * later occurrences are its full name. Keyed by full name. Small schemas
 * stay in the inline storage and never allocate. */
#define AVKI_NAME_SET_INLINE 16 /* names kept without allocating */

typedef struct avki_name_set {
    avki_hash table; /* indexes of names */
    avki_stack names; /* const char * */
    avki_hash_slot inline_slots[2 * AVKI_NAME_SET_INLINE];
    const char *inline_names[AVKI_NAME_SET_INLINE];
} avki_name_set;

/* Memory beyond the inline room comes from alloc (NULL: the C library's);
 * the schema writers pass their writer's, which must outlive the set. */
void avki_name_set_init(avki_name_set *s, const avk_allocator *alloc);
void avki_name_set_destroy(avki_name_set *s);

/* 1 when name was added, 0 when it was there already, -1 when out of memory. */
int avki_name_set_add(avki_name_set *s, const char *name);

#endif
