/* Skipper: moves a reader past one value without building it, jumping over sized blocks whole; an explicit stack, no recursion. */
#include <string.h>

#include "binary/decode_internal.h"
#include "binary/encode_internal.h"
#include "common/error.h"
#include "common/stack.h"
#include "common/value_path.h"

/* One open record, array or map. */
typedef struct sframe {
    const avki_node *n;
    uint64_t i;         /* the next field or item (over all of a collection's blocks) */
    uint64_t bend;      /* arrays and maps: where the items of the current block end */
    uint32_t via_index; /* the union branch the value came through, when via */
    uint8_t kind;       /* SK_* */
    uint8_t via;
} sframe;

typedef struct sctx {
    avk_reader *r;
    const avki_node *nodes;
    const avki_step *steps;
    const avk_limits *limits;
    uint64_t empty; /* zero-byte items seen */
    avk_error *err;
    avki_stack stack; /* of sframe */
    size_t depth;     /* nesting of the open frames, unions counted */
    avki_place place;                /* an error's place below the top frame */
    const avk_type *root;            /* the root value's type, named in paths */
    const avki_path_part *prefix;    /* the path above the value, or NULL */
} sctx;

/* Skips n bytes: a pointer bump when they are buffered. */
AVK_INLINE avk_status skip_bytes(sctx *c, uint64_t n)
{
    avk_reader *r = c->r;
    if (AVK_LIKELY((uint64_t)(r->end - r->pos) >= n)) {
        r->pos += n;
        return AVK_OK;
    }
    return avk_reader_skip(r, n, c->err);
}

/* Skips one long varint without decoding it. Any varint of at most 8
 * bytes is a valid long, and its length is where the first byte below
 * 0x80 is: found without a branch per length. Longer ones (and the end of
 * the input) go through the checking reader. */
AVK_INLINE avk_status skip_long(sctx *c)
{
    avk_reader *r = c->r;
    int64_t ignored;
    if (AVK_LIKELY(r->end - r->pos >= AVK_VARINT_LONG_MAX)) {
        uint64_t w, stops;
        memcpy(&w, r->pos, 8);
        stops = ~w & 0x8080808080808080ull;
        if (AVK_LIKELY(stops)) {
            r->pos += ((unsigned)__builtin_ctzll(stops) >> 3) + 1;
            return AVK_OK;
        }
        /* 9 or 10 bytes; the 10th may hold only the 64th bit. */
        if (r->pos[8] < 0x80) {
            r->pos += 9;
            return AVK_OK;
        }
        if (r->pos[9] <= 1) {
            r->pos += 10;
            return AVK_OK;
        }
    }
    return avk_reader_read_long(r, &ignored, c->err);
}

/* As skip_long for ints: up to 4 bytes is always valid. */
AVK_INLINE avk_status skip_int(sctx *c)
{
    avk_reader *r = c->r;
    int32_t ignored;
    if (AVK_LIKELY(r->end - r->pos >= AVK_VARINT_LONG_MAX)) {
        uint32_t w, stops;
        memcpy(&w, r->pos, 4);
        stops = ~w & 0x80808080u;
        if (AVK_LIKELY(stops)) {
            r->pos += ((unsigned)__builtin_ctz(stops) >> 3) + 1;
            return AVK_OK;
        }
    }
    return avk_reader_read_int(r, &ignored, c->err);
}

/* A payload not all buffered: skip through the reader; a truncation is
 * reported at the length, as the decoder does. */
static avk_status skip_payload_slow(sctx *c, uint64_t n, uint64_t off, const char *what)
{
    avk_status st = avk_reader_skip(c->r, n, c->err);
    if (st == AVK_ERR_TRUNCATED)
        return avki_error_set(c->err, st, off, "%s length %llu but the input ends first", what,
                              (unsigned long long)n);
    return st;
}

AVK_INLINE avk_status skip_length(sctx *c, const char *what)
{
    avk_reader *r = c->r;
    int64_t n;
    uint64_t off = avk_reader_offset(r);
    AVK_TRY(avk_reader_read_long(r, &n, c->err));
    /* Not against what remains: a payload past the end is reported as a
     * stream reports it (skip_payload_slow), whatever the reader. */
    AVK_TRY(avk_check_length(n, c->limits->max_bytes, UINT64_MAX, off, what, c->err));
    if (AVK_LIKELY((uint64_t)(r->end - r->pos) >= (uint64_t)n)) {
        r->pos += n;
        return AVK_OK;
    }
    return skip_payload_slow(c, (uint64_t)n, off, what);
}

/* Skips an enum's index, checked against the symbols. */
static avk_status skip_enum(sctx *c, const avki_node *n)
{
    avk_reader *r = c->r;
    int32_t idx;
    uint64_t off = avk_reader_offset(r);
    AVK_TRY(avk_reader_read_int(r, &idx, c->err));
    if (AVK_UNLIKELY(idx < 0 || (uint32_t)idx >= n->count))
        return avki_error_set(c->err, AVK_ERR_MALFORMED, off,
                              "enum index %d out of range (%u symbols)", idx, n->count);
    return AVK_OK;
}

AVK_INLINE avk_status skip_boolean(sctx *c)
{
    avk_reader *r = c->r;
    int b;
    if (AVK_LIKELY(r->pos < r->end && *r->pos <= 1)) {
        r->pos++;
        return AVK_OK;
    }
    return avk_reader_read_boolean(r, &b, c->err);
}

/* The leaf cases of one switch on a step's op (LEAF_CASES, then the
 * caller's default for compounds): one dispatch per value. */
#define LEAF_CASES(c, s)                                                   \
    case AVKI_OP_NULL:                                                      \
        return AVK_OK;                                                      \
    case AVKI_OP_BOOLEAN:                                                   \
        return skip_boolean(c);                                             \
    case AVKI_OP_INT:                                                       \
        return skip_int(c);                                                 \
    case AVKI_OP_LONG:                                                      \
        return skip_long(c);                                                \
    case AVKI_OP_FLOAT:                                                     \
        return skip_bytes(c, 4);                                            \
    case AVKI_OP_DOUBLE:                                                    \
        return skip_bytes(c, 8);                                            \
    case AVKI_OP_STRING:                                                    \
        return skip_length(c, "string");                                    \
    case AVKI_OP_BYTES:                                                     \
        return skip_length(c, "bytes");                                     \
    case AVKI_OP_ENUM:                                                      \
        return skip_enum(c, c->nodes + (s)->node);                          \
    case AVKI_OP_FIXED:                                                     \
        return avk_reader_skip(c->r, c->nodes[(s)->node].count, c->err)

/* Skips a value of a leaf step (ops below RECORD, enums, fixed). */
AVK_INLINE avk_status skip_leaf(sctx *c, const avki_step *s)
{
    switch ((avki_op)s->op) {
        LEAF_CASES(c, s);
    default: /* not a leaf */
        return AVK_OK;
    }
}

/* ---- the explicit stack --------------------------------------------------------- */

enum { SK_RECORD, SK_ARRAY, SK_MAP };

/* A frame skipping a child pushed: the loop in run() goes on with it. */
#define SKIP_PUSHED 0x100

/* Frames on the C stack before the stack moves to the heap. */
#define LOCAL_FRAMES 32

static avk_status depth_exceeded(sctx *c)
{
    return avki_error_set(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                          "nesting deeper than max_depth (%zu)", c->limits->max_depth);
}

static avk_status stack_failed(sctx *c)
{
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, avk_reader_offset(c->r),
                          "out of memory for %zu levels of nesting", c->stack.n + 1);
}


static int skip_child(sctx *c, const avki_step *s);
static int run_array(sctx *c, sframe *f);
static int run_map(sctx *c, sframe *f);


/* One value of a step that pushes nothing: leaves here, flat compounds
 * through skip_child, in one switch on the op. */
AVK_INLINE int skip_step(sctx *c, const avki_step *s)
{
    switch ((avki_op)s->op) {
        LEAF_CASES(c, s);
    default:
        return skip_child(c, s);
    }
}

/* The fields of a flat record. */
static avk_status skip_flat_record(sctx *c, const avki_node *n)
{
    const avki_step *s = c->steps + n->first;
    uint32_t i;
    for (i = 0; i < n->count; i++) {
        int st = skip_step(c, s + i);
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_place_front(&c->place, AVKI_SEG_FIELD, i, n->type->fields[i].name,
                                    (avk_status)st);
    }
    return AVK_OK;
}

/* Skips one value of step s: leaves here, records, arrays and maps by
 * pushing a frame (SKIP_PUSHED); a union is followed to its branch. */
static int skip_child(sctx *c, const avki_step *s)
{
    uint8_t via = 0;
    uint32_t via_index = 0;
    for (;;) {
        const avki_node *n = c->nodes + s->node;
        sframe *f;
        avk_status st;
        switch ((avki_op)s->op) {
        case AVKI_OP_RECORD:
            if (n->flat) {
                /* Leaves only: skipped here, without a frame. */
                if (AVK_UNLIKELY(c->depth + 1 + (via ? 1 : 0) > c->limits->max_depth)) {
                    st = depth_exceeded(c);
                    break;
                }
                c->depth += via ? 2 : 1;
                st = skip_flat_record(c, n);
                c->depth -= via ? 2 : 1;
                break;
            }
            /* fall through */
        case AVKI_OP_ARRAY:
        case AVKI_OP_MAP:
            if (n->flat && s->op != AVKI_OP_RECORD) {
                /* Items of leaves: skipped here, the frame on the C stack. */
                sframe tmp;
                if (AVK_UNLIKELY(c->depth + 1 + (via ? 1 : 0) > c->limits->max_depth)) {
                    st = depth_exceeded(c);
                    break;
                }
                tmp.n = n;
                tmp.i = 0;
                tmp.bend = 0;
                c->depth += via ? 2 : 1;
                st = (avk_status)(s->op == AVKI_OP_MAP ? run_map(c, &tmp) : run_array(c, &tmp));
                c->depth -= via ? 2 : 1;
                break;
            }
            if (AVK_UNLIKELY(c->depth + 1 + (via ? 1 : 0) > c->limits->max_depth)) {
                st = depth_exceeded(c);
                break;
            }
            f = (sframe *)avki_stack_push(&c->stack);
            if (AVK_UNLIKELY(!f)) {
                st = stack_failed(c);
                break;
            }
            f->n = n;
            f->i = 0;
            f->bend = 0;
            f->via_index = via_index;
            f->via = via;
            f->kind = s->op == AVKI_OP_RECORD ? SK_RECORD : s->op == AVKI_OP_ARRAY ? SK_ARRAY
                                                                                : SK_MAP;
            c->depth += via ? 2 : 1;
            return SKIP_PUSHED;
        case AVKI_OP_UNION: {
            int64_t idx;
            uint64_t off = avk_reader_offset(c->r);
            if (AVK_UNLIKELY(c->depth + 1 > c->limits->max_depth))
                return depth_exceeded(c);
            AVK_TRY(avk_reader_read_long(c->r, &idx, c->err));
            if (AVK_UNLIKELY(idx < 0 || (uint64_t)idx >= n->count))
                return avki_error_set(c->err, AVK_ERR_MALFORMED, off,
                                      "union branch index %lld out of range (%u branches)",
                                      (long long)idx, n->count);
            via = 1;
            via_index = (uint32_t)idx;
            s = c->steps + n->first + idx;
            continue;
        }
        default:
            st = skip_leaf(c, s);
            break;
        }
        if (AVK_UNLIKELY(st != AVK_OK) && via)
            return avki_place_front(&c->place, AVKI_SEG_BRANCH, via_index, NULL, st);
        return st;
    }
}

static int run_record(sctx *c, sframe *f)
{
    const avki_step *s = c->steps + f->n->first;
    uint32_t i, count = f->n->count;
    for (i = (uint32_t)f->i; i < count; i++) {
        int st;
        f->i = i + 1; /* read only if a child pushes a frame */
        st = skip_step(c, s + i);
        if (st == SKIP_PUSHED)
            return SKIP_PUSHED;
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_place_front(&c->place, AVKI_SEG_FIELD, i, f->n->type->fields[i].name, (avk_status)st);
    }
    return AVK_OK;
}

/* Reads block headers until one has items to go through one by one: sized
 * blocks are jumped whole, blocks of items of fixed bytes each skipped as
 * bytes. min_size is the fewest bytes an item takes. *done at the 0 that
 * ends the collection. */
AVK_INLINE avk_status next_block(sctx *c, sframe *f, int is_map, uint64_t fixed,
                                 uint64_t min_size, int *done)
{
    avk_reader *r = c->r;
    const avki_node *n = f->n;
    for (;;) {
        uint64_t count, end, off = avk_reader_offset(r);
        AVK_TRY(avk_check_read_block(r, off, &count, &end, c->err));
        if (count == 0) {
            *done = 1;
            return AVK_OK;
        }
        if (end != UINT64_MAX) {
            /* The writer told us the size: jump, reading nothing inside. */
            uint64_t size = end - avk_reader_offset(r);
            avk_status st = avk_reader_skip(r, size, c->err);
            if (AVK_UNLIKELY(st == AVK_ERR_TRUNCATED))
                return avki_error_set(c->err, st, off,
                                      "block of %lld bytes but the input ends first",
                                      (long long)size);
            AVK_TRY(st);
            continue;
        }
        /* No check of the count against what remains: nothing is allocated,
         * each item takes a byte at least, and a stream could not make it,
         * so memory gives the status a stream gives. */
        AVK_TRY(avk_check_items(c->limits, f->i, count, min_size, &c->empty, off, c->err));
        if (fixed) {
            avk_status st;
            if (AVK_UNLIKELY((uint64_t)count > UINT64_MAX / fixed))
                return avki_error_set(c->err, AVK_ERR_TRUNCATED, off,
                                      "block of %lld items is larger than any input",
                                      (long long)count);
            st = avk_reader_skip(r, (uint64_t)count * fixed, c->err);
            if (AVK_UNLIKELY(st == AVK_ERR_TRUNCATED))
                return avki_error_set(c->err, st, off,
                                      "block of %lld items of %llu bytes but the input ends "
                                      "first",
                                      (long long)count, (unsigned long long)fixed);
            AVK_TRY(st);
            f->i += (uint64_t)count;
            continue;
        }
        if (!is_map && n->store == AVKI_STORE_NULL) {
            f->i += (uint64_t)count;
            continue;
        }
        f->bend = f->i + (uint64_t)count;
        *done = 0;
        return AVK_OK;
    }
}

AVK_INLINE int run_collection(sctx *c, sframe *f, int is_map)
{
    const avki_node *n = f->n;
    const avki_step *item = c->steps + n->first;
    uint64_t min_size = c->nodes[item->node].min_size + (uint64_t)is_map, fixed = 0;
    /* Items of fixed size (floats, doubles, fixed) are skipped a block at a
     * time; varints vary and booleans are checked. */
    if (!is_map && (n->store == AVKI_STORE_FLOAT || n->store == AVKI_STORE_DOUBLE))
        fixed = avki_store_size(n);
    else if (!is_map && n->store == AVKI_STORE_FIXED)
        fixed = n->count;
    for (;;) {
        uint64_t i;
        int done, st;
        for (i = f->i; i < f->bend; i++) {
            if (is_map) {
                st = skip_length(c, "string");
                if (AVK_UNLIKELY(st != AVK_OK))
                    return avki_place_front(&c->place, AVKI_SEG_KEY, i, NULL, (avk_status)st);
            }
            f->i = i + 1; /* read only if a child pushes a frame */
            st = skip_step(c, item);
            if (st == SKIP_PUSHED)
                return SKIP_PUSHED;
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_place_front(&c->place, is_map ? AVKI_SEG_VALUE : AVKI_SEG_ITEM, i, NULL,
                                  (avk_status)st);
        }
        f->i = i;
        AVK_TRY(next_block(c, f, is_map, fixed, min_size, &done));
        if (done)
            return AVK_OK;
    }
}

/* The collection loop made once for arrays and once for maps. */
static int run_array(sctx *c, sframe *f)
{
    return run_collection(c, f, 0);
}

static int run_map(sctx *c, sframe *f)
{
    return run_collection(c, f, 1);
}

/* ---- the error's place ------------------------------------------------------------ */

/* Frame i's segment for avki_place: its via, and (below the top) the
 * child it is walking, i - 1. */
static void frame_seg(const void *walker, size_t i, int top, avki_seg *out)
{
    const sctx *c = (const sctx *)walker;
    const sframe *f = (const sframe *)avki_stack_at(&c->stack, i);
    if (f->via) {
        out->via = AVKI_SEG_BRANCH;
        out->via_index = f->via_index;
    }
    if (top)
        return;
    out->index = f->i - 1;
    out->kind = f->kind == SK_RECORD  ? AVKI_SEG_FIELD
                : f->kind == SK_ARRAY ? AVKI_SEG_ITEM
                                      : AVKI_SEG_VALUE;
    if (f->kind == SK_RECORD)
        out->name = f->n->type->fields[f->i - 1].name;
}

static avki_path_part place_part(sctx *c)
{
    c->place.nframes = c->stack.n;
    c->place.frame = frame_seg;
    c->place.walker = c;
    return avki_place_part(&c->place);
}

static avk_status report(sctx *c, avk_status st)
{
    avki_path_part parts[2];
    size_t np = 0;
    if (c->prefix)
        parts[np++] = *c->prefix;
    parts[np++] = place_part(c);
    avki_path_report_parts(c->err, avki_type_label(c->root), parts, np);
    return st;
}

/* Skips one value of node (a root or a writer's field), then everything it opened. */
static avk_status run(sctx *c, uint32_t node)
{
    avki_step root;
    int st;
    root.op = c->nodes[node].op;
    root.run = 0;
    root.node = node;
    root.type = c->nodes[node].type;
    st = skip_child(c, &root);
    while (st == SKIP_PUSHED) {
        sframe *f = (sframe *)avki_stack_at(&c->stack, c->stack.n - 1);
        switch (f->kind) {
        case SK_RECORD: st = run_record(c, f); break;
        case SK_ARRAY: st = run_array(c, f); break;
        default: st = run_map(c, f); break;
        }
        if (st == AVK_OK) {
            c->depth -= f->via ? 2 : 1;
            c->stack.n--;
            st = c->stack.n ? SKIP_PUSHED : AVK_OK;
        }
    }
    if (AVK_UNLIKELY(st != AVK_OK))
        return report(c, (avk_status)st);
    return AVK_OK;
}

static void sctx_init(sctx *c, const avk_plan *plan, avk_reader *r, sframe *local, size_t depth,
                      uint64_t empty, const avk_type *root, const avki_path_part *prefix,
                      avk_error *err)
{
    c->r = r;
    c->nodes = plan->nodes;
    c->steps = plan->steps;
    c->limits = &plan->limits;
    c->empty = empty;
    c->err = err;
    c->depth = depth;
    c->place.ntail = 0;
    c->root = root;
    c->prefix = prefix;
    avki_stack_init(&c->stack, local, LOCAL_FRAMES, sizeof(sframe), &plan->alloc);
}

avk_status avki_skip_nested(const avk_plan *plan, avk_reader *r, uint32_t node, size_t depth,
                            uint64_t *empty, const avk_type *root, const avki_path_part *prefix,
                            avk_error *err)
{
    sctx c;
    sframe local[LOCAL_FRAMES];
    avk_status st;
    sctx_init(&c, plan, r, local, depth, *empty, root, prefix, err);
    st = run(&c, node);
    *empty = c.empty;
    avki_stack_destroy(&c.stack);
    return st;
}

avk_status avk_plan_skip(const avk_plan *plan, avk_reader *r, avk_error *err)
{
    sctx c;
    sframe local[LOCAL_FRAMES];
    avk_status st;
    if (AVK_UNLIKELY(!plan || !r))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0, "avk_plan_skip: NULL argument");
    /* nodes[0] is the root, or in a resolving plan the writer's root. */
    sctx_init(&c, plan, r, local, 0, 0, plan->writer_type ? plan->writer_type : plan->type, NULL,
              err);
    st = run(&c, 0);
    avki_stack_destroy(&c.stack);
    return st;
}
