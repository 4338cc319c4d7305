/* Pieces shared by the value encoder and the builder: typed arrays in blocks, mismatch reports. */
#ifndef AVK_BINARY_ENCODE_INTERNAL_H
#define AVK_BINARY_ENCODE_INTERNAL_H

#include <stddef.h>

#include "plan/plan_format.h"
#include "common/value_path.h"

/* Writes a whole array of n typed items (stored as avk_array_is_typed
 * says; array is an array node whose store is not BOXED) to w: blocks of
 * plan->block_items (one block when 0), with byte sizes under
 * AVK_PLAN_BLOCK_SIZES, then the 0 that ends the array. Boolean items are
 * checked first (0 or 1), so a bad one writes nothing and returns
 * AVK_ERR_INVALID_ARGUMENT with its index in *bad_item (the caller puts it
 * in the error's path); otherwise the writer's statuses. */
avk_status avki_encode_typed_array(const avk_plan *plan, const avki_node *array,
                                   const void *items, size_t n, avk_writer *w, uint64_t *bad_item,
                                   avk_error *err);

/* Fills err (path cleared, offset unknown) with AVK_ERR_INVALID_ARGUMENT
 * and the message; returns AVK_ERR_INVALID_ARGUMENT. */
avk_status avki_encode_mismatch(avk_error *err, const char *fmt, ...)
    __attribute__((cold, format(printf, 2, 3)));

#endif
