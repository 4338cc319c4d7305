/* The value a building call acts on (v or its field, through chosen union branches) and the messages when it does not fit. */
#ifndef AVK_VALUE_TARGET_H
#define AVK_VALUE_TARGET_H

#include "avrokit/value.h"

/* Where a building call acts, for its work and its messages. */
typedef struct avki_target {
    avk_value *v;            /* the value to set: after chosen union branches unless
                                the call asked to stop at a union */
    const avk_value *outer;  /* the union v was reached through, or NULL */
    const avk_type *record;  /* the record holding the field, or NULL for v itself */
    const char *field;       /* the field's name, or NULL */
} avki_target;

/* Finds the target of fn (the public name, for messages) on v and field:
 * v itself when field is NULL, else v's field (v, after chosen union
 * branches, must be a record). The target is then followed through a
 * chosen union branch unless stop_at_union. Returns AVK_OK or
 * AVK_ERR_INVALID_ARGUMENT with the message filled ("fn: record 'User' has
 * no field 'x'"). */
avk_status avki_value_target(avk_value *v, const char *field, int stop_at_union, const char *fn,
                             avki_target *out, avk_error *err);

/* Fails fn with AVK_ERR_INVALID_ARGUMENT: "fn: field 'f' of record 'R' is
 * <what the target is>, not <want>" (want: "a string", "an array", ...),
 * followed by hint when not NULL ("fn: ... not a string; hint"). */
avk_status avki_value_mismatch(const avki_target *t, const char *fn, const char *want,
                               const char *hint, avk_error *err);

/* "field 'f' of record 'R'" or "the value", in buf (cap bytes); returns buf. */
const char *avki_target_place(const avki_target *t, char *buf, size_t cap);

/* What a value of type t is, with an article: "an int", "a record 'ns.User'",
 * "an array of string", "a union [null, string]", in buf; returns buf. */
const char *avki_type_describe(const avk_type *t, char *buf, size_t cap);

#endif
