/* Avro JSON reading the library needs beyond the public API. */
#ifndef AVK_AVRO_JSON_INTERNAL_H
#define AVK_AVRO_JSON_INTERNAL_H

#include "avrokit/arena.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "avrokit/value.h"

/* The value of field f's default (f must have one), in arena: a union's
 * default is its first branch's value, unwrapped, as the specification
 * says. Statuses as avk_value_read_json. */
avk_status avki_value_from_default(const avk_field *f, avk_arena *arena, avk_value *out,
                                   avk_error *err);

#endif
