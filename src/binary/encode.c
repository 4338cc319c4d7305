/* Binary encoder: runs a plan over a generic value, checking it against the schema as it writes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binary/decode_internal.h"
#include "binary/encode_internal.h"
#include "common/error.h"
#include "varint/kernels.h"
#include "varint/varint_word.h"

/* A block's byte size is written in front of its items, so a block with
 * byte sizes is encoded first and its size patched in. In a memory writer
 * that happens in place: one byte is left for the size (enough for blocks
 * of up to 63 bytes) and the items are moved up when it needs more. A
 * stream may flush half a block, so there the outermost such block goes
 * through a scratch memory writer that starts this small. */
#define SCRATCH_INITIAL 256

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
} ectx;

static avk_status encode_node(ectx *c, uint32_t node, const avk_value *v, size_t depth);

/* ---- cold reporting ------------------------------------------------------ */

avk_status avki_encode_mismatch(avk_error *err, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return AVK_ERR_INVALID_ARGUMENT;
    avk_error_clear(err);
    err->status = AVK_ERR_INVALID_ARGUMENT;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return AVK_ERR_INVALID_ARGUMENT;
}

const char *avki_type_label(const avk_type *t)
{
    return t->fullname ? t->fullname : avk_kind_name(t->kind);
}

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

/* One value of step s: the kind checked, leaves written inline, compounds
 * through encode_node. */
AVK_INLINE avk_status encode_step(ectx *c, const avki_step *s, const avk_value *v,
                                  size_t depth)
{
    if (AVK_UNLIKELY(!kind_ok(s, v)))
        return wrong_kind(c, s, v);
    switch ((avki_op)s->op) {
    case AVKI_OP_NULL:
        return AVK_OK;
    case AVKI_OP_BOOLEAN:
        if (AVK_UNLIKELY((unsigned)v->u.boolean > 1))
            return avki_encode_mismatch(c->err, "boolean value is %d, expected 0 or 1",
                                        v->u.boolean);
        return avk_writer_write_boolean(c->w, v->u.boolean, c->err);
    case AVKI_OP_INT:
        return avk_writer_write_int(c->w, v->u.i, c->err);
    case AVKI_OP_LONG:
        return avk_writer_write_long(c->w, v->u.l, c->err);
    case AVKI_OP_FLOAT:
        return avk_writer_write_float(c->w, v->u.f, c->err);
    case AVKI_OP_DOUBLE:
        return avk_writer_write_double(c->w, v->u.d, c->err);
    case AVKI_OP_STRING:
        return write_bytes(c, &v->u.bytes, "string");
    case AVKI_OP_BYTES:
        return write_bytes(c, &v->u.bytes, "bytes");
    default:
        return encode_node(c, s->node, v, depth);
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
        if (AVK_UNLIKELY((unsigned)v->u.boolean > 1))
            return NULL;
        *p = (uint8_t)v->u.boolean;
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
        if (AVK_UNLIKELY((uint32_t)v->u.index >= nodes[s->node].count || v->u.index > 63))
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
                                   uint8_t *p, size_t depth)
{
    const avki_node *n = c->nodes + s->node;
    uint32_t b = v->u.branch.index;
    const avki_step *bs;
    if (AVK_UNLIKELY(!kind_ok(s, v) || b >= n->count || b > 63 || !v->u.branch.value ||
                     depth >= c->max_depth))
        return NULL;
    bs = c->steps + n->first + b;
    if (bs->op >= AVKI_OP_RECORD && bs->op != AVKI_OP_ENUM && bs->op != AVKI_OP_FIXED)
        return NULL;
    p[0] = (uint8_t)(b << 1);
    return fast_put(c->nodes, bs, v->u.branch.value, p + 1);
}

AVK_INLINE avk_status encode_record(ectx *c, const avki_node *n, const avk_value *v,
                                  size_t depth)
{
    const avki_step *s = c->steps + n->first;
    const avk_value *f = v->u.fields;
    avk_writer *w = c->w;
    uint32_t i, count = n->count;
    uint8_t *p = w->pos;
    if (AVK_UNLIKELY(count && !f))
        return avki_encode_mismatch(c->err, "record value has no fields (expected %u)", count);
    for (i = 0; i < count;) {
        avk_status st;
        /* The position stays in a register across leaf fields; the
         * general path below works through w->pos. */
        if (AVK_LIKELY(w->end - p >= FAST_ROOM)) {
            uint8_t *q = s[i].op == AVKI_OP_UNION ? fast_put_union(c, s + i, f + i, p, depth)
                                                 : fast_put(c->nodes, s + i, f + i, p);
            if (AVK_LIKELY(q != NULL)) {
                p = q;
                i++;
                continue;
            }
        }
        w->pos = p;
        if (is_varint_op(s[i].op) && i + 1 < count && is_varint_op(s[i + 1].op)) {
            int64_t tmp[RUN_MAX];
            uint32_t k = gather_run(s, f, i, count, tmp);
            if (k > 1) {
                /* The kernel directly when the worst case (10 bytes a value)
                 * fits: on a run this short the writer's wrapper costs about
                 * as much as the kernel. */
                if (AVK_LIKELY((size_t)(w->end - w->pos) >= RUN_MAX * AVK_VARINT_LONG_MAX)) {
                    w->pos += ((const avki_kernels *)w->kernels)->encode_longs(w->pos, tmp, k);
                } else {
                    st = avk_writer_write_longs(w, tmp, k, c->err);
                    if (AVK_UNLIKELY(st != AVK_OK))
                        return avki_path_prepend(c->err, st, ".fields[%u]", i);
                }
                i += k;
                p = w->pos;
                continue;
            }
        }
        st = encode_step(c, s + i, f + i, depth);
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_path_prepend(c->err, st, ".fields[%u]", i);
        /* Nested values may have switched c->w to the scratch writer and back. */
        w = c->w;
        p = w->pos;
        i++;
    }
    w->pos = p;
    return AVK_OK;
}

static avk_status encode_union(ectx *c, const avki_node *n, const avk_value *v, size_t depth)
{
    uint32_t b = v->u.branch.index;
    avk_status st;
    if (AVK_UNLIKELY(b >= n->count))
        return avki_encode_mismatch(c->err, "union branch %u out of range (%u branches)", b,
                                    n->count);
    if (AVK_UNLIKELY(!v->u.branch.value))
        return avki_encode_mismatch(c->err, "union value has no branch value");
    AVK_TRY(avk_writer_write_long(c->w, (int64_t)b, c->err));
    st = encode_step(c, c->steps + n->first + b, v->u.branch.value, depth);
    if (AVK_UNLIKELY(st != AVK_OK))
        return avki_path_prepend(c->err, st, ".branch[%u]", b);
    return AVK_OK;
}

/* ---- typed arrays (shared with the builder) ------------------------------------ */

/* Length of the varint of zigzag value u: 1 to 10. */
AVK_INLINE size_t varint_len(uint64_t u)
{
    return 1 + (size_t)(63 - __builtin_clzll(u | 1)) / 7;
}

/* Encoded bytes of k typed items: exact, so a block with byte sizes is
 * written straight through (no patching, no scratch). */
static uint64_t typed_size(const avki_node *n, const void *items, size_t k)
{
    uint64_t size = 0;
    size_t i;
    switch ((avki_store)n->store) {
    case AVKI_STORE_INT:
        for (i = 0; i < k; i++)
            size += varint_len(avk_zigzag_encode32(((const int32_t *)items)[i]));
        return size;
    case AVKI_STORE_LONG:
        for (i = 0; i < k; i++)
            size += varint_len(avk_zigzag_encode64(((const int64_t *)items)[i]));
        return size;
    default:
        return (uint64_t)k * avki_store_size(n);
    }
}

static avk_status write_typed(const avki_node *n, const void *items, size_t k, avk_writer *w,
                              avk_error *err)
{
    switch ((avki_store)n->store) {
    case AVKI_STORE_INT:
        return avk_writer_write_ints(w, (const int32_t *)items, k, err);
    case AVKI_STORE_LONG:
        return avk_writer_write_longs(w, (const int64_t *)items, k, err);
    case AVKI_STORE_NULL:
        return AVK_OK;
    default: /* boolean, float, double, fixed: the wire format is the C layout */
        if (k == 0 || avki_store_size(n) == 0) /* fixed of size 0: no storage */
            return AVK_OK;
        return avk_writer_write_raw(w, items, k * avki_store_size(n), err);
    }
}

avk_status avki_encode_typed_array(const avk_plan *plan, const avki_node *n, const void *items,
                                   size_t count, avk_writer *w, avk_error *err)
{
    size_t elem = avki_store_size(n), per = plan->block_items ? plan->block_items : count;
    size_t start, k;
    const uint8_t *p = (const uint8_t *)items;

    if (AVK_UNLIKELY(count && !items && elem != 0))
        return avki_encode_mismatch(err, "array of %zu items has no items", count);
    if (n->store == AVKI_STORE_BOOLEAN) {
        uint8_t acc = 0;
        size_t i;
        for (i = 0; i < count; i++)
            acc |= p[i];
        if (AVK_UNLIKELY(acc > 1)) {
            for (i = 0; p[i] <= 1; i++)
                ;
            avki_encode_mismatch(err, "boolean item is %u, expected 0 or 1", (unsigned)p[i]);
            return avki_path_prepend(err, AVK_ERR_INVALID_ARGUMENT, ".items[%zu]", i);
        }
    }
    for (start = 0; start < count; start += k) {
        const void *at = elem ? p + start * elem : items; /* null items: no storage */
        k = count - start < per ? count - start : per;
        if (plan->flags & AVK_PLAN_BLOCK_SIZES) {
            AVK_TRY(avk_writer_write_long(w, -(int64_t)k, err));
            AVK_TRY(avk_writer_write_long(w, (int64_t)typed_size(n, at, k), err));
        } else {
            AVK_TRY(avk_writer_write_long(w, (int64_t)k, err));
        }
        AVK_TRY(write_typed(n, at, k, w, err));
    }
    return avk_writer_write_long(w, 0, err);
}

/* ---- blocks of boxed items ----------------------------------------------------- */

/* Items [start, start + k) of an array or map. */
typedef avk_status (*range_fn)(ectx *c, const avki_node *n, const avk_value *v, size_t start,
                               size_t k, size_t depth);

static avk_status array_range(ectx *c, const avki_node *n, const avk_value *v, size_t start,
                              size_t k, size_t depth)
{
    const avki_step *item = c->steps + n->first;
    const avk_value *items = (const avk_value *)v->u.array.items;
    avk_writer *w = c->w;
    uint8_t *p = w->pos;
    size_t i;
    for (i = start; i < start + k; i++) {
        avk_status st;
        if (AVK_LIKELY(w->end - p >= FAST_ROOM)) { /* as in encode_record */
            uint8_t *q = fast_put(c->nodes, item, items + i, p);
            if (AVK_LIKELY(q != NULL)) {
                p = q;
                continue;
            }
        }
        w->pos = p;
        st = encode_step(c, item, items + i, depth);
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_path_prepend(c->err, st, ".items[%zu]", i);
        w = c->w;
        p = w->pos;
    }
    w->pos = p;
    return AVK_OK;
}

static avk_status map_range(ectx *c, const avki_node *n, const avk_value *v, size_t start,
                            size_t k, size_t depth)
{
    const avki_step *item = c->steps + n->first;
    avk_writer *w = c->w;
    uint8_t *p = w->pos;
    size_t i;
    for (i = start; i < start + k; i++) {
        avk_status st;
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
            return avki_path_prepend(c->err, st, ".keys[%zu]", i);
        st = encode_step(c, item, v->u.map.values + i, depth);
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_path_prepend(c->err, st, ".values[%zu]", i);
        w = c->w;
        p = w->pos;
    }
    w->pos = p;
    return AVK_OK;
}

/* Blocks with byte sizes into a memory writer, each size patched in front
 * of its items once they are written. */
static avk_status sized_blocks_in_place(ectx *c, const avki_node *n, const avk_value *v,
                                        size_t count, range_fn fn, size_t depth)
{
    size_t per = c->block_items ? c->block_items : count, start, k;
    for (start = 0; start < count; start += k) {
        avk_writer *w = c->w;
        size_t hdr, items_at, size, len;
        uint8_t tmp[AVK_VARINT_LONG_MAX];
        static const uint8_t zero = 0;
        k = count - start < per ? count - start : per;
        AVK_TRY(avk_writer_write_long(w, -(int64_t)k, c->err));
        hdr = (size_t)(w->pos - w->buf);
        AVK_TRY(avk_writer_write_raw(w, &zero, 1, c->err));
        items_at = hdr + 1;
        AVK_TRY(fn(c, n, v, start, k, depth));
        size = (size_t)(w->pos - w->buf) - items_at;
        len = avk_varint_encode_long(tmp, (int64_t)size);
        if (len > 1) {
            /* Only the bytes really needed: a memory writer near max_size
             * fails exactly when the result does not fit. */
            AVK_TRY(avk_writer_reserve(w, len - 1, c->err));
            memmove(w->buf + items_at + len - 1, w->buf + items_at, size);
            w->pos += len - 1;
        }
        memcpy(w->buf + hdr, tmp, len);
    }
    return avk_writer_write_long(c->w, 0, c->err);
}

static avk_status scratch_failed(ectx *c) __attribute__((cold));

static avk_status scratch_failed(ectx *c)
{
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "cannot allocate a scratch buffer for a block with its byte size");
}

/* An array's or map's blocks and the 0 that ends them. */
static avk_status encode_blocks(ectx *c, const avki_node *n, const avk_value *v, size_t count,
                                range_fn fn, size_t depth)
{
    avk_writer *outer;
    const uint8_t *data;
    size_t len, per, start, k;
    avk_status st;

    if (!c->block_sizes) {
        per = c->block_items ? c->block_items : count;
        for (start = 0; start < count; start += k) {
            k = count - start < per ? count - start : per;
            AVK_TRY(avk_writer_write_long(c->w, (int64_t)k, c->err));
            AVK_TRY(fn(c, n, v, start, k, depth));
        }
        return avk_writer_write_long(c->w, 0, c->err);
    }
    if (!c->w->sink)
        return sized_blocks_in_place(c, n, v, count, fn, depth);

    /* A stream: the outermost sized collection goes through the scratch
     * (everything inside it is then in memory and patched in place). */
    outer = c->w;
    if (!c->scratch_ready) {
        avk_writer_options o;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.buffer_size = SCRATCH_INITIAL;
        o.allocator = &outer->alloc;
        if (avk_writer_init_memory(&c->scratch, &o, NULL) != AVK_OK)
            return scratch_failed(c);
        c->scratch_ready = 1;
    }
    avk_writer_reset(&c->scratch);
    c->w = &c->scratch;
    st = sized_blocks_in_place(c, n, v, count, fn, depth);
    c->w = outer;
    AVK_TRY(st);
    data = avk_writer_data(&c->scratch, &len);
    return avk_writer_write_raw(outer, data, len, c->err);
}

static avk_status encode_array(ectx *c, const avki_node *n, const avk_value *v, size_t depth)
{
    const avk_type *items_type = v->type->items;
    if (n->store != AVKI_STORE_BOXED) {
        /* The storage follows the value's item type: it must be the plan's,
         * or the C array would be read with the wrong element size. */
        const avk_type *want = c->nodes[c->steps[n->first].node].type;
        if (AVK_UNLIKELY(!items_type || items_type->kind != want->kind ||
                         (want->kind == AVK_FIXED && items_type->size != want->size)))
            return avki_encode_mismatch(c->err, "array items are %s, expected %s",
                                        items_type ? avk_kind_name(items_type->kind) : "untyped",
                                        avki_type_label(want));
        return avki_encode_typed_array(c->plan, n, v->u.array.items, v->u.array.count, c->w,
                                       c->err);
    }
    if (AVK_UNLIKELY(v->u.array.count && !v->u.array.items))
        return avki_encode_mismatch(c->err, "array of %zu items has no items", v->u.array.count);
    return encode_blocks(c, n, v, v->u.array.count, array_range, depth);
}

static avk_status encode_map(ectx *c, const avki_node *n, const avk_value *v, size_t depth)
{
    if (AVK_UNLIKELY(v->u.map.count && (!v->u.map.keys || !v->u.map.values)))
        return avki_encode_mismatch(c->err, "map of %zu entries has no keys or values",
                                    v->u.map.count);
    return encode_blocks(c, n, v, v->u.map.count, map_range, depth);
}

/* ---- compounds, enums, fixed ------------------------------------------------------ */

static avk_status encode_node(ectx *c, uint32_t node, const avk_value *v, size_t depth)
{
    const avki_node *n = c->nodes + node;
    switch ((avki_op)n->op) {
    case AVKI_OP_RECORD:
        if (AVK_UNLIKELY(++depth > c->max_depth))
            return depth_exceeded(c);
        return encode_record(c, n, v, depth);
    case AVKI_OP_ENUM:
        if (AVK_UNLIKELY(v->u.index < 0 || (uint32_t)v->u.index >= n->count))
            return avki_encode_mismatch(c->err, "enum index %d out of range (%u symbols)",
                                        (int)v->u.index, n->count);
        return avk_writer_write_int(c->w, v->u.index, c->err);
    case AVKI_OP_FIXED:
        if (AVK_UNLIKELY(v->u.bytes.len != n->count))
            return avki_encode_mismatch(c->err, "fixed value of %zu bytes, expected %u",
                                        v->u.bytes.len, n->count);
        if (n->count == 0)
            return AVK_OK;
        if (AVK_UNLIKELY(!v->u.bytes.data))
            return avki_encode_mismatch(c->err, "fixed value of %u bytes has no data", n->count);
        return avk_writer_write_raw(c->w, v->u.bytes.data, n->count, c->err);
    case AVKI_OP_ARRAY:
        if (AVK_UNLIKELY(++depth > c->max_depth))
            return depth_exceeded(c);
        return encode_array(c, n, v, depth);
    case AVKI_OP_MAP:
        if (AVK_UNLIKELY(++depth > c->max_depth))
            return depth_exceeded(c);
        return encode_map(c, n, v, depth);
    case AVKI_OP_UNION:
        if (AVK_UNLIKELY(++depth > c->max_depth))
            return depth_exceeded(c);
        return encode_union(c, n, v, depth);
    default:
        /* Leaves never get here: encode_step writes them. */
        return AVK_OK;
    }
}

avk_status avk_plan_encode(const avk_plan *plan, const avk_value *v, avk_writer *w,
                           avk_error *err)
{
    ectx c;
    avki_step root;
    size_t start_used;
    uint64_t start_flushed;
    avk_status st;

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
    root.op = plan->nodes[0].op;
    root.node = 0;
    root.type = plan->type;
    start_used = (size_t)(w->pos - w->buf);
    start_flushed = w->flushed;

    /* A root record (the usual case) goes straight to its fields. */
    if (root.op == AVKI_OP_RECORD && c.max_depth >= 1 && v->type == root.type)
        st = encode_record(&c, plan->nodes, v, 1);
    else
        st = encode_step(&c, &root, v, 0);

    if (c.scratch_ready)
        avk_writer_destroy(&c.scratch);
    if (AVK_UNLIKELY(st != AVK_OK)) {
        /* Take back the part of the value written, unless a stream has
         * already handed some of it on. */
        if (w->flushed == start_flushed && w->buf)
            w->pos = w->buf + start_used;
        avki_path_finish(err, plan->type);
    }
    return st;
}
