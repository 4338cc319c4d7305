/* The decoder's state: its explicit stack of open records, arrays and maps, and helpers its files share. */
#ifndef AVK_BINARY_DECODE_CTX_H
#define AVK_BINARY_DECODE_CTX_H

#include "binary/decode_internal.h"
#include "common/error.h"
#include "common/value_path.h"

/* What an open frame decodes. */
enum { DK_RECORD, DK_RECORD_RX, DK_ARRAY, DK_MAP };

/* How a frame's value was reached from its parent's child slot: directly,
 * or through a union branch (the union costs no frame of its own). */
enum { DV_NONE, DV_BRANCH, DV_WRITER_BRANCH, DV_WRAP };

/* One open record, array or map. 32 bytes: a value nested a million
 * levels deep costs 32 MB of stack here, not the C stack. */
typedef struct dframe {
    const avki_node *n;
    avk_value *v;       /* the value being filled */
    uint64_t i;         /* the next field or item; below the top of the
                           stack, i - 1 is the child being decoded */
    uint32_t via_index; /* branch index when via is not DV_NONE */
    uint8_t kind;       /* DK_* */
    uint8_t via;        /* DV_* */
} dframe;

/* The blocks of an open array or map (one per DK_ARRAY / DK_MAP frame, in
 * the same order, on a stack of their own so records stay small). */
typedef struct dcoll {
    uint64_t cap;       /* items there is room for */
    uint64_t chunk_end; /* index where the items being decoded now end */
    uint64_t left;      /* items of the block after chunk_end */
    uint64_t end;       /* offset where the block must end (UINT64_MAX: no size given) */
    uint64_t off;       /* offset of the block's header */
} dcoll;

typedef struct dctx {
    avk_reader *r;
    const avk_plan *plan;
    avki_arena *arena;
    const avki_node *nodes;
    const avki_step *steps;
    const avki_rx *rx;  /* resolving plans: what their nodes need besides */
    const avk_limits *limits;
    int views;          /* strings, bytes and fixed may point into the input */
    int check_utf8;
    int fast_views;     /* views and no UTF-8 check: the register paths may view strings */
    int memory;         /* r is a memory reader: what remains is all there is */
    uint64_t empty;     /* zero-byte items seen in this value */
    uint64_t mem;       /* arena bytes taken by this value */
    avk_error *err;

    dframe *frames;     /* frames[0..nframes) are open */
    size_t nframes, frame_cap;
    dcoll *colls;       /* colls[0..ncoll) */
    size_t ncoll, coll_cap;
    size_t depth;       /* nesting of the open frames, unions counted */

    avki_place place;   /* an error's place below the top frame */
    int reported;       /* err already has its path (the skipper wrote it) */
} dctx;

AVK_INLINE void *avki_dalloc(dctx *c, size_t size, size_t align)
{
    c->mem += size;
    if (AVK_UNLIKELY(c->mem > c->limits->max_memory))
        return NULL;
    return avki_arena_alloc_fast(c->arena, size, align);
}

/* The error for a failed avki_dalloc of size bytes (limit or memory). */
avk_status avki_dalloc_failed(dctx *c, size_t size) __attribute__((cold));

/* Puts a segment in front of the error's tail (the caller's own place). */
static inline void avki_dtail(dctx *c, avki_seg_kind kind, uint64_t index, const char *name)
{
    avki_place_front(&c->place, kind, index, name, AVK_OK);
}

/* How many of a block's left items to decode now, after checking them
 * against the limits and the input (total were decoded before):
 * avk_check_items, then avk_check_items_take. */
avk_status avki_dtake_items(dctx *c, uint64_t total, uint64_t left, uint64_t min_size,
                            int may_be_malformed, uint64_t off, uint64_t *take);

/* Room for need items of elem bytes in *items (room for *cap), keeping the
 * first have. */
avk_status avki_dreserve(dctx *c, void **items, uint64_t *cap, uint64_t have, uint64_t need,
                         size_t elem);

/* 1 when a value of step s can be malformed (some byte pattern is not a
 * valid encoding); floats, doubles and fixed cannot. */
static inline int avki_dmay_be_malformed(const avki_step *s)
{
    return s->op != AVKI_OP_FLOAT && s->op != AVKI_OP_DOUBLE && s->op != AVKI_OP_FLOAT_DOUBLE &&
           s->op != AVKI_OP_FIXED;
}

/* A whole array stored as a C array (typed items), all its blocks; v->u.array set. */
avk_status avki_decode_typed_array(dctx *c, const avki_node *n, avk_value *v);

/* One item of a typed array in a resolving plan: a leaf, or a writer's
 * union of leaves read as one (UNWRAP). */
avk_status avki_decode_leaf_unwrap(dctx *c, const avki_step *s, avk_value *v);

#endif
