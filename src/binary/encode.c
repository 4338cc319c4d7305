/* Binary encoder: runs a plan over a generic value with an explicit stack (no recursion), checking it against the schema as it writes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binary/decode_internal.h"
#include "binary/encode_internal.h"
#include "common/error.h"
#include "common/stack.h"
#include "varint/kernels.h"
#include "varint/varint_word.h"

/* A stream may flush half a block, so with byte sizes the outermost
 * collection goes through a scratch memory writer that starts this small. */
#define SCRATCH_INITIAL 256

enum { EK_RECORD, EK_ARRAY, EK_MAP };

/* One open record, array or map. */
typedef struct eframe {
    const avki_node *n;
    const avk_value *v;
    size_t i;           /* the next field or item; below the top, i - 1 is the
                           child being written */
    size_t bend;        /* arrays, maps: where the open block's items end (0: none yet) */
    size_t hdr;         /* blocks with byte sizes: where the size goes in w->buf */
    avk_writer *outer;  /* a collection writing through the scratch: the writer
                           to hand it to at its end; else NULL */
    uint32_t via_index; /* the union branch the value came through, when via */
    uint8_t kind;       /* EK_* */
    uint8_t via;
} eframe;

typedef struct ectx {
    avk_writer *w;          /* where bytes go now: the caller's writer or the scratch */
    const avki_node *nodes;
    const avki_step *steps;
    const avk_plan *plan;
    size_t max_depth;
    size_t block_items;     /* 0: one block per array or map */
    int block_sizes;        /* AVK_PLAN_BLOCK_SIZES */
    int scratch_ready;
    avk_writer scratch;     /* memory writer for blocks with sizes when w is a stream */
    avk_error *err;
    avki_stack stack;       /* of eframe */
    size_t depth;           /* nesting of the open frames, unions counted */
    avki_place place;       /* an error's place below the top frame */
} ectx;

/* ---- cold reporting ------------------------------------------------------ */


static avk_status wrong_kind(ectx *c, const avki_step *s, const avk_value *v)
    __attribute__((cold));

static avk_status wrong_kind(ectx *c, const avki_step *s, const avk_value *v)
{
    if (!v->type)
        return avki_encode_mismatch(c->err, "value has no type, expected %s",
                                    avki_type_label(s->type));
    if (v->type->kind == AVK_ARRAY && s->op == AVKI_OP_ARRAY)
        return avki_encode_mismatch(c->err, "array items are %s, expected %s",
                                    avk_kind_name(v->type->items->kind),
                                    avki_type_label(s->type->items));
    if ((unsigned)v->type->kind == s->op)
        return avki_encode_mismatch(c->err, "value's %s has %zu %s, expected %zu",
                                    avk_kind_name(v->type->kind),
                                    v->type->kind == AVK_RECORD ? v->type->field_count
                                                                : v->type->branch_count,
                                    v->type->kind == AVK_RECORD ? "fields" : "branches",
                                    v->type->kind == AVK_RECORD ? s->type->field_count
                                                                : s->type->branch_count);
    return avki_encode_mismatch(c->err, "value is %s, expected %s", avk_kind_name(v->type->kind),
                                avki_type_label(s->type));
}

static avk_status depth_exceeded(ectx *c) __attribute__((cold));

static avk_status depth_exceeded(ectx *c)
{
    return avki_error_set(c->err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                          "nesting deeper than max_depth (%zu)", c->max_depth);
}

static avk_status stack_failed(ectx *c) __attribute__((cold));

static avk_status stack_failed(ectx *c)
{
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "out of memory for %zu levels of nesting", c->stack.n + 1);
}

/* ---- leaves ------------------------------------------------------------------ */

/* Copies n <= 64 bytes with fixed-size moves that may overlap (no read
 * outside src[0..n), no call): strings are mostly short, and a libc
 * memcpy call costs more than the copy. */
AVK_INLINE void copy_short(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n >= 16) {
        /* Four 16-byte moves at 0, 16, 32, 48, each pulled back to end at
         * n: no branch on which of 16..64 bytes (lengths vary from string
         * to string, so a test would mispredict). */
        size_t last = n - 16, o1 = last < 16 ? last : 16, o2 = last < 32 ? last : 32,
               o3 = last < 48 ? last : 48;
        memcpy(dst, src, 16);
        memcpy(dst + o1, src + o1, 16);
        memcpy(dst + o2, src + o2, 16);
        memcpy(dst + o3, src + o3, 16);
    } else if (n >= 4) {
        if (n >= 8) {
            memcpy(dst, src, 8);
            memcpy(dst + n - 8, src + n - 8, 8);
        } else {
            memcpy(dst, src, 4);
            memcpy(dst + n - 4, src + n - 4, 4);
        }
    } else if (n) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

static avk_status no_data(ectx *c, const avk_bytes *b, const char *what) __attribute__((cold));

static avk_status no_data(ectx *c, const avk_bytes *b, const char *what)
{
    return avki_encode_mismatch(c->err, "%s of %zu bytes has no data", what, b->len);
}

/* A string, bytes or map key of up to 63 bytes (the usual case) in one
 * step: a 1-byte length (zigzag of at most 63) and an inline copy; p has
 * 64 bytes of room. NULL when longer or without data: the caller's
 * general path writes or reports it. */
AVK_INLINE uint8_t *put_short_bytes(uint8_t *p, const avk_bytes *b)
{
    size_t len = b->len;
    if (AVK_UNLIKELY(len > 63 || (!b->data && len)))
        return NULL;
    p[0] = (uint8_t)(len << 1);
    copy_short(p + 1, b->data, len);
    return p + 1 + len;
}

/* A length and the bytes. */
AVK_INLINE avk_status write_bytes(ectx *c, const avk_bytes *b, const char *what)
{
    avk_writer *w = c->w;
    size_t len = b->len;
    if (AVK_LIKELY(w->end - w->pos >= 64)) {
        uint8_t *q = put_short_bytes(w->pos, b);
        if (AVK_LIKELY(q != NULL)) {
            w->pos = q;
            return AVK_OK;
        }
    }
    if (AVK_UNLIKELY(!b->data && len))
        return no_data(c, b, what);
    AVK_TRY(avk_writer_write_long(w, (int64_t)len, c->err));
    if (len == 0)
        return AVK_OK; /* data may be NULL: no memcpy from it */
    return avk_writer_write_raw(w, b->data, len, c->err);
}

/* A value whose type is not the plan's own node must still have the shape
 * the plan reads it with: as many record fields (the plan reads that many
 * slots), union branches, and array items stored the same way (typed or
 * boxed, of the same size), or the encoder would read outside the value. */
static int shape_ok(const avk_type *want, const avk_type *got)
{
    if (!got || got->kind != want->kind)
        return 0;
    switch (got->kind) {
    case AVK_RECORD:
        return got->field_count == want->field_count;
    case AVK_UNION:
        return got->branch_count == want->branch_count;
    case AVK_ARRAY:
        return got->items->kind == want->items->kind &&
               (got->items->kind != AVK_FIXED || got->items->size == want->items->size);
    default:
        return 1;
    }
}

/* The kind check of encode_step, cheaper when the value's type is the
 * plan's own node (the usual case): no load through the type pointer. */
AVK_INLINE int kind_ok(const avki_step *s, const avk_value *v)
{
    return AVK_LIKELY(v->type == s->type) || shape_ok(s->type, v->type);
}

/* Ops written in place; records, arrays, maps and unions need the stack. */
AVK_INLINE int is_leaf_op(uint8_t op)
{
    return op < AVKI_OP_RECORD || op == AVKI_OP_ENUM || op == AVKI_OP_FIXED;
}

/* One value of a leaf step, its kind checked. */
AVK_INLINE avk_status encode_leaf(ectx *c, const avki_step *s, const avk_value *v)
{
    if (AVK_UNLIKELY(!kind_ok(s, v)))
        return wrong_kind(c, s, v);
    switch ((avki_op)s->op) {
    case AVKI_OP_NULL:
        return AVK_OK;
    case AVKI_OP_BOOLEAN:
        if (AVK_UNLIKELY(v->u.boolean > 1))
            return avki_encode_mismatch(c->err, "boolean value is %u, expected 0 or 1",
                                        (unsigned)v->u.boolean);
        return avk_writer_write_boolean(c->w, v->u.boolean, c->err);
    case AVKI_OP_INT:
        return avk_writer_write_int(c->w, v->u.i, c->err);
    case AVKI_OP_LONG:
        return avk_writer_write_long(c->w, v->u.l, c->err);
    /* The value's bytes, not the value: on 32-bit x86 a float or double
     * passed by value may go through an x87 register, which turns a
     * signalling NaN into a quiet one. */
    case AVKI_OP_FLOAT:
        return avk_writer_write_raw(c->w, &v->u.f, sizeof v->u.f, c->err);
    case AVKI_OP_DOUBLE:
        return avk_writer_write_raw(c->w, &v->u.d, sizeof v->u.d, c->err);
    case AVKI_OP_STRING:
        return write_bytes(c, &v->u.bytes, "string");
    case AVKI_OP_BYTES:
        return write_bytes(c, &v->u.bytes, "bytes");
    case AVKI_OP_ENUM: {
        const avki_node *n = c->nodes + s->node;
        if (AVK_UNLIKELY(v->u.index >= n->count))
            return avki_encode_mismatch(c->err, "enum index %u out of range (%u symbols)",
                                        (unsigned)v->u.index, n->count);
        return avk_writer_write_int(c->w, (int32_t)v->u.index, c->err);
    }
    default: { /* AVKI_OP_FIXED */
        const avki_node *n = c->nodes + s->node;
        if (AVK_UNLIKELY(v->u.bytes.len != n->count))
            return avki_encode_mismatch(c->err, "fixed value of %zu bytes, expected %u",
                                        v->u.bytes.len, n->count);
        if (n->count == 0)
            return AVK_OK;
        if (AVK_UNLIKELY(!v->u.bytes.data))
            return avki_encode_mismatch(c->err, "fixed value of %u bytes has no data", n->count);
        return avk_writer_write_raw(c->w, v->u.bytes.data, n->count, c->err);
    }
    }
}

/* ---- records and unions --------------------------------------------------------- */

/* Consecutive int and long fields of a record go to the writer in one bulk
 * call (an int's varint is its value's as a long): the bulk kernel
 * encodes them without the single-value path's branch on the length,
 * which mispredicts when lengths vary. RUN_MAX bounds the stack copy. */
#define RUN_MAX 32

AVK_INLINE int is_varint_op(uint8_t op)
{
    return op == AVKI_OP_LONG || op == AVKI_OP_INT;
}

/* Gathers fields [i, ...) while they are ints and longs with matching
 * values, up to RUN_MAX; returns how many. */
AVK_INLINE uint32_t gather_run(const avki_step *s, const avk_value *f, uint32_t i,
                               uint32_t count, int64_t *tmp)
{
    uint32_t k = 0;
    while (i + k < count && k < RUN_MAX && is_varint_op(s[i + k].op)) {
        const avk_value *fv = f + i + k;
        if (AVK_UNLIKELY(!kind_ok(s + i + k, fv)))
            break; /* reported by encode_step */
        tmp[k] = s[i + k].op == AVKI_OP_LONG ? fv->u.l : (int64_t)fv->u.i;
        k++;
    }
    return k;
}

/* Room the fast paths need: the longest inline write (a 1-byte length and
 * a string of up to 63 bytes copied in 16-byte moves) plus a varint. */
#define FAST_ROOM (64 + AVK_VARINT_LONG_MAX)

/* One leaf field written with the position in a register: no error
 * reporting, no flushing. Returns the new position, or NULL when the field
 * needs the general path (compound type, run, long string, mismatch),
 * which then writes it from the same place and reports any error. */
AVK_INLINE uint8_t *fast_put(const avki_node *nodes, const avki_step *s, const avk_value *v,
                             uint8_t *p)
{
    if (AVK_UNLIKELY(!kind_ok(s, v)))
        return NULL;
    switch ((avki_op)s->op) {
    case AVKI_OP_NULL:
        return p;
    case AVKI_OP_BOOLEAN:
        if (AVK_UNLIKELY(v->u.boolean > 1))
            return NULL;
        *p = v->u.boolean;
        return p + 1;
    case AVKI_OP_INT:
        if (s->run) /* runs go through the bulk encoder */
            return NULL;
        return p + avki_encode_u64_word(p, avk_zigzag_encode32(v->u.i));
    case AVKI_OP_LONG:
        if (s->run)
            return NULL;
        return p + avki_encode_u64_word(p, avk_zigzag_encode64(v->u.l));
    case AVKI_OP_FLOAT:
        memcpy(p, &v->u.f, 4);
        return p + 4;
    case AVKI_OP_DOUBLE:
        memcpy(p, &v->u.d, 8);
        return p + 8;
    case AVKI_OP_STRING:
    case AVKI_OP_BYTES:
        return put_short_bytes(p, &v->u.bytes);
    case AVKI_OP_ENUM:
        if (AVK_UNLIKELY(v->u.index >= nodes[s->node].count || v->u.index > 63))
            return NULL;
        *p = (uint8_t)(v->u.index << 1);
        return p + 1;
    case AVKI_OP_FIXED: {
        size_t size = nodes[s->node].count;
        if (AVK_UNLIKELY(size > 63 || v->u.bytes.len != size || (!v->u.bytes.data && size)))
            return NULL;
        copy_short(p, v->u.bytes.data, size);
        return p + size;
    }
    default:
        return NULL;
    }
}

/* A union whose branch is a leaf fast_put handles. */
AVK_INLINE uint8_t *fast_put_union(const ectx *c, const avki_step *s, const avk_value *v,
                                   uint8_t *p)
{
    const avki_node *n = c->nodes + s->node;
    uint32_t b = v->u.branch.index;
    const avki_step *bs;
    if (AVK_UNLIKELY(!kind_ok(s, v) || b >= n->count || b > 63 || !v->u.branch.value ||
                     c->depth >= c->max_depth))
        return NULL;
    bs = c->steps + n->first + b;
    if (bs->op >= AVKI_OP_RECORD && bs->op != AVKI_OP_ENUM && bs->op != AVKI_OP_FIXED)
        return NULL;
    p[0] = (uint8_t)(b << 1);
    return fast_put(c->nodes, bs, v->u.branch.value, p + 1);
}

/* A typed array's bad item: the error's tail (nothing is in it yet). */
static void ctail_item(ectx *c, uint64_t index)
{
    avki_place_front(&c->place, AVKI_SEG_ITEM, index, NULL, AVK_OK);
}

/* A typed array (a C array of items): its items' type checked, then written. */
static avk_status encode_typed(ectx *c, const avki_node *n, const avk_value *v)
{
    const avk_type *items_type = v->type->items;
    /* The storage follows the value's item type: it must be the plan's, or
     * the C array would be read with the wrong element size. */
    const avk_type *want = c->nodes[c->steps[n->first].node].type;
    uint64_t bad = UINT64_MAX;
    avk_status st;
    if (AVK_UNLIKELY(!items_type || items_type->kind != want->kind ||
                     (want->kind == AVK_FIXED && items_type->size != want->size)))
        return avki_encode_mismatch(c->err, "array items are %s, expected %s",
                                    items_type ? avk_kind_name(items_type->kind) : "untyped",
                                    avki_type_label(want));
    st = avki_encode_typed_array(c->plan, n, v->u.array.items, v->u.array.count, c->w, &bad,
                                 c->err);
    if (AVK_UNLIKELY(st != AVK_OK) && bad != UINT64_MAX)
        ctail_item(c, bad);
    return st;
}

/* A union's branch index out of range: the message lists the branches. */
static avk_status union_mismatch(ectx *c, const avki_node *n, uint32_t b) __attribute__((cold));

static avk_status union_mismatch(ectx *c, const avki_node *n, uint32_t b)
{
    char list[AVKI_BRANCH_LIST_MAX];
    return avki_encode_mismatch(c->err, "union branch %u out of range (branches: %s)", b,
                                avki_union_branch_list(n->type, list, sizeof list));
}

/* ---- the explicit stack --------------------------------------------------------- */

/* A child pushed a frame: the loop in run() goes on with it. */
#define ENC_PUSHED 0x100

/* Frames on the C stack before the stack moves to the heap. */
#define LOCAL_FRAMES 16

/* Opens a frame for a record, array or map value. */
static int push(ectx *c, uint8_t kind, const avki_node *n, const avk_value *v, uint8_t via,
                uint32_t via_index)
{
    eframe *f = (eframe *)avki_stack_push(&c->stack);
    if (AVK_UNLIKELY(!f))
        return stack_failed(c);
    f->n = n;
    f->v = v;
    f->i = 0;
    f->bend = 0;
    f->hdr = 0;
    f->outer = NULL;
    f->via_index = via_index;
    f->kind = kind;
    f->via = via;
    c->depth += via ? 2 : 1;
    return ENC_PUSHED;
}


static avk_status scratch_failed(ectx *c) __attribute__((cold));

static avk_status scratch_failed(ectx *c)
{
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "cannot allocate a scratch buffer for a block with its byte size");
}

static int run_array(ectx *c, eframe *f);
static int run_map(ectx *c, eframe *f);

/* Opens an array or map of count boxed items (an empty one is just its 0).
 * A block's byte size is written in front of its items, so a block with
 * byte sizes is encoded first and its size patched in. In a memory writer
 * that happens in place; a stream may flush half a block, so there the
 * outermost such collection goes through a scratch memory writer (and
 * everything inside it is patched in place there). */
static int open_collection(ectx *c, uint8_t kind, const avki_node *n, const avk_value *v,
                           size_t count, uint8_t via, uint32_t via_index, size_t level)
{
    eframe *f, tmp;
    size_t saved;
    int st;
    if (count == 0)
        return avk_writer_write_long(c->w, 0, c->err);
    if (n->flat) {
        /* Flat items never push a frame: this one is on the C stack. */
        tmp.n = n;
        tmp.v = v;
        tmp.i = 0;
        tmp.bend = 0;
        tmp.outer = NULL;
        f = &tmp;
    } else {
        st = push(c, kind, n, v, via, via_index);
        if (st != ENC_PUSHED)
            return st;
        f = (eframe *)avki_stack_at(&c->stack, c->stack.n - 1);
    }
    if (c->block_sizes && c->w->sink) {
        if (!c->scratch_ready) {
            avk_writer_options o;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            o.buffer_size = SCRATCH_INITIAL;
            o.allocator = &c->w->alloc;
            if (avk_writer_init_memory(&c->scratch, &o, NULL) != AVK_OK)
                return scratch_failed(c);
            c->scratch_ready = 1;
        }
        avk_writer_reset(&c->scratch);
        f->outer = c->w;
        c->w = &c->scratch;
    }
    if (!n->flat)
        return ENC_PUSHED;
    saved = c->depth;
    c->depth = level;
    st = kind == EK_ARRAY ? run_array(c, f) : run_map(c, f);
    c->depth = saved;
    return st;
}

static int encode_child(ectx *c, const avki_step *s, const avk_value *v);

AVK_INLINE int run_record_body(ectx *c, eframe *f)
{
    const avki_node *n = f->n;
    const avki_step *s = c->steps + n->first;
    const avk_value *fv = f->v->u.fields;
    avk_writer *w = c->w;
    uint32_t i = (uint32_t)f->i, count = n->count;
    uint8_t *p = w->pos;
    while (i < count) {
        int st;
        /* The position stays in a register across leaf fields; the
         * general path below works through w->pos. */
        if (AVK_LIKELY(w->end - p >= FAST_ROOM)) {
            uint8_t *q = s[i].op == AVKI_OP_UNION ? fast_put_union(c, s + i, fv + i, p)
                                                 : fast_put(c->nodes, s + i, fv + i, p);
            if (AVK_LIKELY(q != NULL)) {
                p = q;
                i++;
                continue;
            }
        }
        w->pos = p;
        if (is_varint_op(s[i].op) && i + 1 < count && is_varint_op(s[i + 1].op)) {
            int64_t tmp[RUN_MAX];
            uint32_t k = gather_run(s, fv, i, count, tmp);
            if (k > 1) {
                /* The kernel directly when the worst case (10 bytes a value)
                 * fits: on a run this short the writer's wrapper costs about
                 * as much as the kernel. */
                if (AVK_LIKELY((size_t)(w->end - w->pos) >= RUN_MAX * AVK_VARINT_LONG_MAX)) {
                    w->pos += ((const avki_kernels *)w->kernels)->encode_longs(w->pos, tmp, k);
                } else {
                    st = avk_writer_write_longs(w, tmp, k, c->err);
                    if (AVK_UNLIKELY(st != AVK_OK))
                        return avki_place_front(&c->place, AVKI_SEG_FIELD, i, n->type->fields[i].name,
                                          (avk_status)st);
                }
                i += k;
                p = w->pos;
                continue;
            }
        }
        if (is_leaf_op(s[i].op)) {
            st = encode_leaf(c, s + i, fv + i);
        } else {
            f->i = i + 1;
            st = encode_child(c, s + i, fv + i);
            if (st == ENC_PUSHED)
                return ENC_PUSHED;
        }
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_place_front(&c->place, AVKI_SEG_FIELD, i, n->type->fields[i].name, (avk_status)st);
        p = w->pos;
        i++;
    }
    w->pos = p;
    return AVK_OK;
}

static int run_record(ectx *c, eframe *f);

/* One value of step s: leaves here, records, arrays and maps of boxed items
 * by pushing a frame (ENC_PUSHED); a union writes its branch index and is
 * followed to its branch, which gets the union as its frame's via. */
static int encode_child(ectx *c, const avki_step *s, const avk_value *v)
{
    uint8_t via = 0;
    uint32_t via_index = 0;
    size_t level = c->depth + 1;
    for (;;) {
        const avki_node *n = c->nodes + s->node;
        int st;
        if (AVK_UNLIKELY(!kind_ok(s, v))) {
            st = wrong_kind(c, s, v);
        } else if (is_leaf_op(s->op)) {
            st = encode_leaf(c, s, v);
        } else if (AVK_UNLIKELY(level > c->max_depth)) {
            st = depth_exceeded(c);
        } else {
            switch ((avki_op)s->op) {
            case AVKI_OP_RECORD:
                if (AVK_UNLIKELY(n->count && !v->u.fields)) {
                    st = avki_encode_mismatch(c->err, "record value has no fields (expected %u)",
                                              n->count);
                } else if (n->flat) {
                    /* Flat: written here, its frame on the C stack (only its
                     * next index is written, by children that never push). */
                    eframe tmp;
                    size_t saved = c->depth;
                    tmp.n = n;
                    tmp.v = v;
                    tmp.i = 0;
                    c->depth = level;
                    st = run_record_body(c, &tmp);
                    c->depth = saved;
                } else {
                    st = push(c, EK_RECORD, n, v, via, via_index);
                }
                break;
            case AVKI_OP_ARRAY:
                if (n->store != AVKI_STORE_BOXED) {
                    st = encode_typed(c, n, v);
                } else if (AVK_UNLIKELY(v->u.array.count && !v->u.array.items)) {
                    st = avki_encode_mismatch(c->err, "array of %zu items has no items",
                                              v->u.array.count);
                } else {
                    st = open_collection(c, EK_ARRAY, n, v, v->u.array.count, via, via_index,
                                         level);
                }
                break;
            case AVKI_OP_MAP:
                if (AVK_UNLIKELY(v->u.map.count && (!v->u.map.keys || !v->u.map.values)))
                    st = avki_encode_mismatch(c->err, "map of %zu entries has no keys or values",
                                              v->u.map.count);
                else
                    st = open_collection(c, EK_MAP, n, v, v->u.map.count, via, via_index,
                                         level);
                break;
            default: { /* AVKI_OP_UNION */
                uint32_t b = v->u.branch.index;
                if (AVK_UNLIKELY(b >= n->count)) {
                    st = union_mismatch(c, n, b);
                    break;
                }
                if (AVK_UNLIKELY(!v->u.branch.value)) {
                    st = avki_encode_mismatch(c->err, "union value has no branch value");
                    break;
                }
                st = avk_writer_write_long(c->w, (int64_t)b, c->err);
                if (AVK_UNLIKELY(st != AVK_OK))
                    break;
                s = c->steps + n->first + b;
                v = v->u.branch.value;
                via = 1;
                via_index = b;
                level++;
                continue;
            }
            }
        }
        if (AVK_UNLIKELY(st != AVK_OK && st != ENC_PUSHED) && via)
            return avki_place_front(&c->place, AVKI_SEG_BRANCH, via_index, NULL, (avk_status)st);
        return st;
    }
}

static int run_record(ectx *c, eframe *f)
{
    return run_record_body(c, f);
}

/* Ends the open block of f: with byte sizes, its size goes in the byte
 * left for it, the items moved up when it needs more. */
static avk_status close_block(ectx *c, eframe *f)
{
    avk_writer *w = c->w;
    size_t items_at = f->hdr + 1, size, len;
    uint8_t tmp[AVK_VARINT_LONG_MAX];
    if (!c->block_sizes)
        return AVK_OK;
    size = (size_t)(w->pos - w->buf) - items_at;
    len = avk_varint_encode_long(tmp, (int64_t)size);
    if (len > 1) {
        /* Only the bytes really needed: a memory writer near max_size
         * fails exactly when the result does not fit. */
        AVK_TRY(avk_writer_reserve(w, len - 1, c->err));
        memmove(w->buf + items_at + len - 1, w->buf + items_at, size);
        w->pos += len - 1;
    }
    memcpy(w->buf + f->hdr, tmp, len);
    return AVK_OK;
}

/* Moves f to its next block: closes the open one, then writes the next
 * block's header, or the 0 that ends the collection (*done). */
AVK_INLINE avk_status next_block(ectx *c, eframe *f, size_t count, int *done)
{
    size_t per = c->block_items ? c->block_items : count, k;
    static const uint8_t zero = 0;
    if (f->bend)
        AVK_TRY(close_block(c, f));
    if (f->i == count) {
        AVK_TRY(avk_writer_write_long(c->w, 0, c->err));
        if (f->outer) {
            /* The scratch holds the whole collection: on to the stream. */
            size_t len;
            const uint8_t *data = avk_writer_data(&c->scratch, &len);
            c->w = f->outer;
            AVK_TRY(avk_writer_write_raw(c->w, data, len, c->err));
        }
        *done = 1;
        return AVK_OK;
    }
    k = count - f->i < per ? count - f->i : per;
    if (c->block_sizes) {
        AVK_TRY(avk_writer_write_long(c->w, -(int64_t)k, c->err));
        f->hdr = (size_t)(c->w->pos - c->w->buf);
        AVK_TRY(avk_writer_write_raw(c->w, &zero, 1, c->err));
    } else {
        AVK_TRY(avk_writer_write_long(c->w, (int64_t)k, c->err));
    }
    f->bend = f->i + k;
    *done = 0;
    return AVK_OK;
}

static int run_array(ectx *c, eframe *f)
{
    const avki_step *item = c->steps + f->n->first;
    const avk_value *items = (const avk_value *)f->v->u.array.items;
    size_t count = f->v->u.array.count;
    for (;;) {
        avk_writer *w = c->w;
        uint8_t *p = w->pos;
        size_t i;
        int st, done;
        for (i = f->i; i < f->bend; i++) {
            if (AVK_LIKELY(w->end - p >= FAST_ROOM)) { /* as in run_record */
                uint8_t *q = fast_put(c->nodes, item, items + i, p);
                if (AVK_LIKELY(q != NULL)) {
                    p = q;
                    continue;
                }
            }
            w->pos = p;
            if (is_leaf_op(item->op)) {
                st = encode_leaf(c, item, items + i);
            } else {
                f->i = i + 1;
                st = encode_child(c, item, items + i);
                if (st == ENC_PUSHED)
                    return ENC_PUSHED;
            }
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_place_front(&c->place, AVKI_SEG_ITEM, i, NULL, (avk_status)st);
            p = w->pos;
        }
        w->pos = p;
        f->i = i;
        AVK_TRY(next_block(c, f, count, &done));
        if (done)
            return AVK_OK;
    }
}

static int run_map(ectx *c, eframe *f)
{
    const avki_step *item = c->steps + f->n->first;
    const avk_value *v = f->v;
    size_t count = v->u.map.count;
    for (;;) {
        avk_writer *w = c->w;
        uint8_t *p = w->pos;
        size_t i;
        int st, done;
        for (i = f->i; i < f->bend; i++) {
            if (AVK_LIKELY(w->end - p >= 2 * FAST_ROOM)) {
                uint8_t *q = put_short_bytes(p, v->u.map.keys + i);
                if (AVK_LIKELY(q != NULL))
                    q = fast_put(c->nodes, item, v->u.map.values + i, q);
                if (AVK_LIKELY(q != NULL)) {
                    p = q;
                    continue;
                }
            }
            w->pos = p;
            st = write_bytes(c, v->u.map.keys + i, "map key");
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_place_front(&c->place, AVKI_SEG_KEY, i, NULL, (avk_status)st);
            if (is_leaf_op(item->op)) {
                st = encode_leaf(c, item, v->u.map.values + i);
            } else {
                f->i = i + 1;
                st = encode_child(c, item, v->u.map.values + i);
                if (st == ENC_PUSHED)
                    return ENC_PUSHED;
            }
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_place_front(&c->place, AVKI_SEG_VALUE, i, NULL, (avk_status)st);
            p = w->pos;
        }
        w->pos = p;
        f->i = i;
        AVK_TRY(next_block(c, f, count, &done));
        if (done)
            return AVK_OK;
    }
}

/* ---- the error's place ------------------------------------------------------------ */

/* Frame i's segment for avki_place: its via, and (below the top) the
 * child it is walking, i - 1. */
static void frame_seg(const void *walker, size_t i, int top, avki_seg *out)
{
    const ectx *c = (const ectx *)walker;
    const eframe *f = (const eframe *)avki_stack_at(&c->stack, i);
    if (f->via) {
        out->via = AVKI_SEG_BRANCH;
        out->via_index = f->via_index;
    }
    if (top)
        return;
    out->index = f->i - 1;
    out->kind = f->kind == EK_RECORD  ? AVKI_SEG_FIELD
                : f->kind == EK_ARRAY ? AVKI_SEG_ITEM
                                      : AVKI_SEG_VALUE;
    if (f->kind == EK_RECORD)
        out->name = f->n->type->fields[f->i - 1].name;
}

static avki_path_part place_part(ectx *c)
{
    c->place.nframes = c->stack.n;
    c->place.frame = frame_seg;
    c->place.walker = c;
    return avki_place_part(&c->place);
}

/* Runs the open frames to the end. */
static int run(ectx *c, int st)
{
    while (st == ENC_PUSHED) {
        eframe *f = (eframe *)avki_stack_at(&c->stack, c->stack.n - 1);
        switch (f->kind) {
        case EK_RECORD: st = run_record(c, f); break;
        case EK_ARRAY: st = run_array(c, f); break;
        default: st = run_map(c, f); break;
        }
        if (st == AVK_OK) {
            c->depth -= f->via ? 2 : 1;
            c->stack.n--;
            st = c->stack.n ? ENC_PUSHED : AVK_OK;
        }
    }
    return st;
}

avk_status avk_plan_encode(const avk_plan *plan, const avk_value *v, avk_writer *w,
                           avk_error *err)
{
    ectx c;
    eframe local[LOCAL_FRAMES];
    avki_step root;
    size_t start_used;
    uint64_t start_flushed;
    int st;

    if (AVK_UNLIKELY(!plan || !v || !w))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_plan_encode: NULL argument");
    if (AVK_UNLIKELY(plan->writer_type != NULL))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_plan_encode: a resolving plan only decodes and skips; encode "
                              "with a plan of the schema to write");
    c.w = w;
    c.nodes = plan->nodes;
    c.steps = plan->steps;
    c.plan = plan;
    c.max_depth = plan->limits.max_depth;
    c.block_items = plan->block_items;
    c.block_sizes = (plan->flags & AVK_PLAN_BLOCK_SIZES) != 0;
    c.scratch_ready = 0;
    c.err = err;
    c.depth = 0;
    c.place.ntail = 0;
    avki_stack_init(&c.stack, local, LOCAL_FRAMES, sizeof(eframe), &plan->alloc);
    root.op = plan->nodes[0].op;
    root.run = 0;
    root.node = 0;
    root.type = plan->type;
    start_used = (size_t)(w->pos - w->buf);
    start_flushed = w->flushed;

    /* A root record (the usual case) goes straight to its fields. */
    if (root.op == AVKI_OP_RECORD && v->type == root.type && (plan->nodes[0].count == 0 ||
                                                              v->u.fields)) {
        local[0].n = plan->nodes;
        local[0].v = v;
        local[0].i = 0;
        local[0].via = 0;
        local[0].kind = EK_RECORD;
        c.stack.n = 1;
        c.depth = 1;
        st = run_record_body(&c, local);
        if (st != AVK_OK)
            st = run(&c, st);
    } else {
        st = run(&c, encode_child(&c, &root, v));
    }

    if (c.scratch_ready)
        avk_writer_destroy(&c.scratch);
    if (AVK_UNLIKELY(st != AVK_OK)) {
        /* Take back the part of the value written, unless a stream has
         * already handed some of it on. */
        if (w->flushed == start_flushed && w->buf)
            w->pos = w->buf + start_used;
        avki_path_part part = place_part(&c);
        avki_path_report_parts(err, avki_type_label(plan->type), &part, 1);
    }
    avki_stack_destroy(&c.stack);
    return (avk_status)st;
}
