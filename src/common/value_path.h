/* Where inside a value an error happened: paths built once, when the error is reported, from the walker's explicit stack. */
#ifndef AVK_COMMON_VALUE_PATH_H
#define AVK_COMMON_VALUE_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/status.h"

/* One step from a value to a part of it. */
typedef enum avki_seg_kind {
    AVKI_SEG_FIELD,        /* record field: index and name */
    AVKI_SEG_WRITER_FIELD, /* a writer's field that resolution skips: index and name */
    AVKI_SEG_ITEM,         /* array item */
    AVKI_SEG_KEY,          /* map key */
    AVKI_SEG_VALUE,        /* map value */
    AVKI_SEG_BRANCH,       /* union branch */
    AVKI_SEG_WRITER_BRANCH /* the writer's branch of a union read as a non-union */
} avki_seg_kind;

typedef struct avki_seg {
    avki_seg_kind kind;
    uint64_t index;
    const char *name; /* fields: the field's name (NULL: none known) */
} avki_seg;

/* Gives segment i (0 is the outermost) of the path being reported. */
typedef void (*avki_seg_at_fn)(const void *ctx, size_t i, avki_seg *out);

/* Finishes err (NULL ignored) for an error at segments [0, count) below
 * the root value, whose type is called root ("LongList", "array"). On
 * entry err->message holds the reason; on return:
 * - err->path is root and the segments by index (".fields[1]",
 *   ".items[7]", ".keys[2]", ".values[2]", ".branch[1]",
 *   ".writer_field[3]", ".writer_branch[0]");
 * - err->message is root and the segments by name (".next", "[7]",
 *   ".keys[2]", ".values[2]", ".branch[1]"), then ": " and the reason.
 * A path too long for its buffer keeps its first and last segments around
 * "...(N levels)..." in place of the N it leaves out, so the reason is
 * always whole and both ends of the path show. Takes time in the length
 * of the output, not in count (a 10^6-level path costs what a short one
 * does). */
void avki_path_report(avk_error *err, const char *root, size_t count, avki_seg_at_fn at,
                      const void *ctx) __attribute__((cold));

/* Segments from a plain array (segs[0] outermost), for walkers that keep one. */
void avki_seg_array_at(const void *ctx, size_t i, avki_seg *out);

#endif
