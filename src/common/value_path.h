/* Where inside a value an error happened: paths built once, when the error is reported, from the walker's explicit stack. */
#ifndef AVK_COMMON_VALUE_PATH_H
#define AVK_COMMON_VALUE_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/status.h"

/* One step from a value (or a schema) to a part of it. Each kind renders
 * by index (err->path) and by name (the message), as avki_path_report
 * shows; the schema kinds render alike both ways. */
typedef enum avki_seg_kind {
    AVKI_SEG_NONE = 0,     /* nothing (a segment that is only its via) */
    AVKI_SEG_FIELD,        /* record field: index and name */
    AVKI_SEG_WRITER_FIELD, /* a writer's field that resolution skips: index and name */
    AVKI_SEG_ITEM,         /* array item */
    AVKI_SEG_KEY,          /* map key */
    AVKI_SEG_VALUE,        /* map value */
    AVKI_SEG_BRANCH,       /* union branch */
    AVKI_SEG_WRITER_BRANCH,/* the writer's branch of a union read as a non-union */
    /* Places in a schema's JSON text (the parser's and the resolver's paths): */
    AVKI_SEG_MEMBER,       /* ".name": a member of an object ("type", "items") */
    AVKI_SEG_MEMBER_AT,    /* ".name[index]": an element of a member ("symbols", 2) */
    AVKI_SEG_INDEX,        /* "[index]": an element of an array (a union's branch) */
    AVKI_SEG_QUOTED,       /* "[\"name\"]": a member whose name is data (a default's key) */
    AVKI_SEG_TEXT,         /* name as it is: a path's first segment (a type's name) */
    AVKI_SEG_GAP           /* "...(index levels)...": segments a bounded path dropped */
} avki_seg_kind;

/* One level of a path. Zero-initialize it: via is for walkers that keep a
 * union and the value inside it in one frame (the decoder), and renders in
 * front of the step (".branch[1].next"). */
typedef struct avki_seg {
    avki_seg_kind kind;
    uint64_t index;
    const char *name;      /* fields: the field's name (NULL: none known) */
    avki_seg_kind via;     /* AVKI_SEG_NONE, _BRANCH or _WRITER_BRANCH */
    uint64_t via_index;
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

/* Part of a path: count segments given by at(ctx, i). A walker that hands
 * part of the work to another (the decoder skipping a writer's field) gives
 * it its own part, and the other reports the whole path. */
typedef struct avki_path_part {
    size_t count;
    avki_seg_at_fn at;
    const void *ctx;
} avki_path_part;

/* As avki_path_report, with the segments of parts[0], then parts[1], ... */
void avki_path_report_parts(avk_error *err, const char *root, const avki_path_part *parts,
                            size_t nparts) __attribute__((cold));

/* Renders root and the segments of parts by index (named 0) or by name
 * (named 1) into buf[0..cap) (cap >= 64), NUL-terminated, shortened in the
 * middle as avki_path_report describes; returns the length. */
size_t avki_path_render(const char *root, const avki_path_part *parts, size_t nparts, int named,
                        char *buf, size_t cap) __attribute__((cold));

/* Segments from a plain array (segs[0] outermost), for walkers that keep one. */
void avki_seg_array_at(const void *ctx, size_t i, avki_seg *out);

/* ---- a path stack ---------------------------------------------------------- */

/* Segments a path stack keeps: schemas nest deeper only in contrived text,
 * and the reason of an error is in the message whatever the path shows. */
#define AVKI_PATH_STACK_MAX 64

/* The path of a walker that descends and returns on the C stack (the
 * schema parser, the resolver): a segment pushed on the way down and
 * popped on the way back, two stores, formatted only when an error is
 * reported. Zero-initialize it. */
typedef struct avki_path_stack {
    avki_seg segs[AVKI_PATH_STACK_MAX];
    size_t depth; /* segments pushed; those past AVKI_PATH_STACK_MAX are counted, not kept */
} avki_path_stack;

/* Pushes a segment; returns the depth to give avki_path_pop. */
static inline size_t avki_path_push(avki_path_stack *s, avki_seg_kind kind, uint64_t index,
                                    const char *name)
{
    size_t old = s->depth;
    if (old < AVKI_PATH_STACK_MAX) {
        s->segs[old].kind = kind;
        s->segs[old].index = index;
        s->segs[old].name = name;
        s->segs[old].via = AVKI_SEG_NONE;
    }
    s->depth = old + 1;
    return old;
}

static inline void avki_path_pop(avki_path_stack *s, size_t old)
{
    s->depth = old;
}

/* s as a path part: its kept segments, then "..." when some were not kept. */
avki_path_part avki_path_stack_part(const avki_path_stack *s);

/* avki_path_report for the errors of schemas, which no caller prefixes:
 * the message's path may take all the room the reason leaves. */
void avki_path_report_schema(avk_error *err, const char *root, const avki_path_part *part)
    __attribute__((cold));

/* ---- a walker's place ---------------------------------------------------- */

/* Places below the top frame that run without frames: flat values nest at
 * most AVKI_FLAT_MAX (4) levels, each giving a child and a union branch. */
#define AVKI_TAIL_MAX 16

/* Where a walker with an explicit stack of frames stands when it fails:
 * its frames, then the tail its failing code fills as it returns
 * (innermost first, each caller putting its own place in front). */
typedef struct avki_place {
    avki_seg tail[AVKI_TAIL_MAX];
    size_t ntail;
    size_t nframes;
    /* Frame i's segment: the union it came through (via) and, unless top,
     * the child it is walking. */
    void (*frame)(const void *walker, size_t i, int top, avki_seg *out);
    const void *walker;
} avki_place;

/* Puts a segment in front of p's tail (dropping the innermost when full);
 * returns st, so a failing walker can `return avki_place_front(...)`. */
avk_status avki_place_front(avki_place *p, avki_seg_kind kind, uint64_t index, const char *name,
                            avk_status st) __attribute__((cold));

/* p as a path part: frames below the top one segment each, the top's via
 * with the tail's first segment, then the rest of the tail. */
avki_path_part avki_place_part(const avki_place *p);

#endif
