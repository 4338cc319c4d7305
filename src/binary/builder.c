/* Builder: a stack machine over the plan that checks each call against the schema and writes Avro binary. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/builder.h"
#include "binary/decode_internal.h"
#include "binary/encode_internal.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "varint/kernels.h"

/* Block buffers start small and grow (then stay) with the largest block. */
#define SCRATCH_INITIAL 256
#define FRAMES_INITIAL 8
/* Int and long fields of a record are held back while more of them follow
 * and written with one bulk varint call: the bulk kernel has no branch on
 * each value's length, which mispredicts when lengths vary. Held values
 * never outlive the run of int and long fields they belong to. */
#define PEND_MAX 32

/* One open compound value. Records open implicitly at their first field's
 * call and close after their last field; a union frame lives from
 * avk_builder_union until its branch's value is complete. */
typedef struct bframe {
    uint32_t node;    /* the compound's plan node */
    uint8_t op;       /* its avki_op */
    uint8_t want_value; /* map: a key was written; its value comes next */
    uint32_t index;   /* record: next field; union: the branch */
    uint32_t first;   /* the node's first step (fields, branches, the item) */
    uint32_t count;   /* the node's count (record: fields) */
    size_t parent;    /* array, map: 1 + index of the frame whose buffer gets our
                         blocks, 0 for the caller's writer */
    size_t block;     /* array, map: items in the open block */
    size_t total;     /* array, map: items so far */
} bframe;

struct avk_builder {
    const avk_plan *plan;
    const avki_node *nodes;
    const avki_step *steps;
    avk_writer *w;          /* the caller's */
    avk_writer *out;        /* where values go now: the innermost open array's or
                               map's block buffer, else w */
    avk_allocator alloc;
    uint8_t *callless;      /* per node: 1 when its values take no call (records
                               whose fields all take none, e.g. empty records) */
    uint8_t *step_callless; /* per step: callless of the step's node */
    bframe *frames;         /* fcap of them */
    avk_writer *scratch;    /* scap of them: the block buffer of frame i (arrays, maps) */
    size_t depth, fcap, scap;
    int root_op;            /* the op of the root record's first field when that
                               takes a call and is no record, else -1 */
    uint32_t npend;         /* values held in pend, to go to out next */
    int64_t pend[PEND_MAX];
};

/* ---- setup --------------------------------------------------------------- */

/* The least fixed point: a record takes no call when all its fields take
 * none. Records that contain themselves stay "takes calls" (such a value
 * can never be finished, and the depth limit stops it). */
static void find_callless(avk_builder *b)
{
    const avk_plan *p = b->plan;
    int changed = 1;
    memset(b->callless, 0, p->node_count);
    while (changed) {
        size_t i;
        changed = 0;
        for (i = 0; i < p->node_count; i++) {
            const avki_node *n = &p->nodes[i];
            uint32_t f;
            if (n->op != AVKI_OP_RECORD || b->callless[i])
                continue;
            for (f = 0; f < n->count; f++)
                if (!b->callless[p->steps[n->first + f].node])
                    break;
            if (f == n->count) {
                b->callless[i] = 1;
                changed = 1;
            }
        }
    }
}

avk_status avk_builder_new(const avk_plan *plan, avk_writer *w, const avk_allocator *allocator,
                           avk_builder **out, avk_error *err)
{
    avk_allocator a = avki_allocator_or_libc(allocator);
    avk_builder *b;
    if (out)
        *out = NULL;
    if (!plan || !w || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_builder_new: NULL argument");
    if (plan->writer_type)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_builder_new: a resolving plan cannot write");
    b = (avk_builder *)a.alloc(a.ctx, sizeof *b);
    if (!b)
        goto oom;
    memset(b, 0, sizeof *b);
    b->alloc = a;
    b->plan = plan;
    b->nodes = plan->nodes;
    b->steps = plan->steps;
    b->w = b->out = w;
    b->callless = (uint8_t *)a.alloc(a.ctx, plan->node_count);
    if (!b->callless)
        goto oom;
    find_callless(b);
    if (plan->step_count) {
        size_t i;
        b->step_callless = (uint8_t *)a.alloc(a.ctx, plan->step_count);
        if (!b->step_callless)
            goto oom;
        for (i = 0; i < plan->step_count; i++)
            b->step_callless[i] = b->callless[plan->steps[i].node];
    }
    b->root_op = -1;
    if (plan->nodes[0].op == AVKI_OP_RECORD && plan->nodes[0].count &&
        plan->limits.max_depth >= 1) {
        const avki_step *first = &plan->steps[plan->nodes[0].first];
        if (!b->callless[first->node] && first->op != AVKI_OP_RECORD)
            b->root_op = first->op;
    }
    *out = b;
    return AVK_OK;
oom:
    avk_builder_free(b);
    return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "out of memory creating a builder");
}

void avk_builder_free(avk_builder *b)
{
    size_t i;
    if (!b)
        return;
    for (i = 0; i < b->scap; i++)
        avk_writer_destroy(&b->scratch[i]);
    if (b->frames)
        b->alloc.free(b->alloc.ctx, b->frames, b->fcap * sizeof *b->frames);
    if (b->scratch)
        b->alloc.free(b->alloc.ctx, b->scratch, b->scap * sizeof *b->scratch);
    if (b->callless)
        b->alloc.free(b->alloc.ctx, b->callless, b->plan->node_count);
    if (b->step_callless)
        b->alloc.free(b->alloc.ctx, b->step_callless, b->plan->step_count);
    b->alloc.free(b->alloc.ctx, b, sizeof *b);
}

static avk_writer *frame_out(avk_builder *b, size_t parent)
{
    return parent ? &b->scratch[parent - 1] : b->w;
}

void avk_builder_reset(avk_builder *b)
{
    if (!b)
        return;
    /* Block buffers are emptied when an array or map opens on them, so a
     * reset costs the same after a value a million levels deep. */
    b->depth = 0;
    b->out = b->w;
    b->npend = 0;
}

int avk_builder_complete(const avk_builder *b)
{
    return b && b->depth == 0;
}

/* ---- errors ---------------------------------------------------------------- */

/* The error's place: the open frames [0, depth), then a typed array's bad
 * item when item is not UINT64_MAX. */
typedef struct bpath {
    const avk_builder *b;
    size_t depth;
    uint64_t item;
} bpath;

static void bpath_at(const void *ctx, size_t i, avki_seg *out)
{
    const bpath *p = (const bpath *)ctx;
    const bframe *f;
    memset(out, 0, sizeof *out);
    if (i == p->depth) {
        out->kind = AVKI_SEG_ITEM;
        out->index = p->item;
        return;
    }
    f = &p->b->frames[i];
    switch ((avki_op)f->op) {
    case AVKI_OP_RECORD:
        out->kind = AVKI_SEG_FIELD;
        out->index = f->index;
        if (f->index < f->count)
            out->name = p->b->nodes[f->node].type->fields[f->index].name;
        break;
    case AVKI_OP_UNION:
        out->kind = AVKI_SEG_BRANCH;
        out->index = f->index;
        break;
    case AVKI_OP_ARRAY:
        out->kind = AVKI_SEG_ITEM;
        out->index = f->total;
        break;
    default:
        out->kind = AVKI_SEG_VALUE;
        out->index = f->total;
        break;
    }
}

/* Puts the path of the open frames [0, depth) (and a typed array's bad
 * item) in front of err's message. */
static avk_status with_path_item(const avk_builder *b, size_t depth, uint64_t item, avk_status st,
                                 avk_error *err)
{
    bpath p;
    if (!err)
        return st;
    p.b = b;
    p.depth = depth;
    p.item = item;
    avki_path_report(err, avki_type_label(b->plan->type), depth + (item != UINT64_MAX), bpath_at,
                     &p);
    return st;
}

static avk_status with_path(const avk_builder *b, size_t depth, avk_status st, avk_error *err)
{
    return with_path_item(b, depth, UINT64_MAX, st, err);
}

/* A wrong call: the message with the path of where it was made; the frames
 * the call opened (down to saved) are dropped, so nothing changed. */
static avk_status wrong(avk_builder *b, size_t saved, avk_error *err, const char *fmt, ...)
    __attribute__((cold, format(printf, 4, 5)));

static avk_status wrong(avk_builder *b, size_t saved, avk_error *err, const char *fmt, ...)
{
    va_list ap;
    if (err) {
        avk_error_clear(err);
        err->status = AVK_ERR_INVALID_ARGUMENT;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        with_path(b, b->depth, AVK_ERR_INVALID_ARGUMENT, err);
    }
    b->depth = saved;
    return AVK_ERR_INVALID_ARGUMENT;
}

/* A failure other than a wrong call (limit, memory, the writer's). */
static avk_status failed(avk_builder *b, size_t saved, avk_status st, avk_error *err)
    __attribute__((cold));

static avk_status failed(avk_builder *b, size_t saved, avk_status st, avk_error *err)
{
    with_path(b, b->depth, st, err);
    b->depth = saved;
    return st;
}

/* ---- the frame stack ---------------------------------------------------------- */

/* The innermost open array's or map's block buffer, else the caller's writer. */
static avk_writer *current_out(avk_builder *b)
{
    size_t i;
    for (i = b->depth; i-- > 0;)
        if (b->frames[i].op == AVKI_OP_ARRAY || b->frames[i].op == AVKI_OP_MAP)
            return &b->scratch[i];
    return b->w;
}

/* Room for one more frame (and its block buffer slot). Grows during
 * warm-up only: the stack keeps its size across values and resets. */
static avk_status grow_frames(avk_builder *b, avk_error *err)
{
    size_t need = b->depth + 1, ncap;
    if (b->fcap < need) {
        bframe *nf;
        ncap = b->fcap ? b->fcap * 2 : FRAMES_INITIAL;
        nf = (bframe *)(b->frames ? b->alloc.realloc(b->alloc.ctx, b->frames,
                                                     b->fcap * sizeof *nf, ncap * sizeof *nf)
                                  : b->alloc.alloc(b->alloc.ctx, ncap * sizeof *nf));
        if (!nf)
            goto oom;
        b->frames = nf;
        b->fcap = ncap;
    }
    if (b->scap < need) {
        avk_writer *ns;
        ncap = b->scap ? b->scap * 2 : FRAMES_INITIAL;
        ns = (avk_writer *)(b->scratch ? b->alloc.realloc(b->alloc.ctx, b->scratch,
                                                          b->scap * sizeof *ns,
                                                          ncap * sizeof *ns)
                                       : b->alloc.alloc(b->alloc.ctx, ncap * sizeof *ns));
        if (!ns)
            goto oom;
        memset(ns + b->scap, 0, (ncap - b->scap) * sizeof *ns);
        b->scratch = ns;
        b->scap = ncap;
        /* The memory writers moved (they hold no pointers to themselves);
         * out may have pointed at one. */
        b->out = current_out(b);
    }
    return AVK_OK;
oom:
    return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "out of memory growing the builder's stack");
}

/* Opens a frame for node; AVK_ERR_LIMIT beyond max_depth. */
static avk_status push(avk_builder *b, uint32_t node, uint32_t index, avk_error *err)
{
    bframe *f;
    if (b->depth >= b->plan->limits.max_depth)
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "nesting deeper than max_depth (%zu)", b->plan->limits.max_depth);
    if (AVK_UNLIKELY(b->depth >= b->fcap || b->depth >= b->scap))
        AVK_TRY(grow_frames(b, err));
    f = &b->frames[b->depth++];
    f->node = node;
    f->op = b->nodes[node].op;
    f->want_value = 0;
    f->index = index;
    f->first = b->nodes[node].first;
    f->count = b->nodes[node].count;
    f->parent = 0;
    f->block = 0;
    f->total = 0;
    return AVK_OK;
}

/* First field at or after i that takes a call. */
static uint32_t next_field(const avk_builder *b, const avki_node *n, uint32_t i)
{
    while (i < n->count && b->callless[b->steps[n->first + i].node])
        i++;
    return i;
}

/* The node the next value call fills, opening the records on the way
 * (records are implicit). On failure the error is reported, the records
 * opened are closed again and the status returned. */
static avk_status slot(avk_builder *b, const char *call, uint32_t *node, avk_error *err)
{
    size_t saved = b->depth;
    uint32_t at;
    if (b->depth == 0) {
        at = 0;
    } else {
        const bframe *f = &b->frames[b->depth - 1];
        const avki_node *n = &b->nodes[f->node];
        switch ((avki_op)f->op) {
        case AVKI_OP_RECORD:
        case AVKI_OP_UNION:
            at = b->steps[n->first + f->index].node;
            break;
        case AVKI_OP_MAP:
            if (!f->want_value)
                return wrong(b, saved, err, "%s called where a map key or map_end is expected",
                             call);
            at = b->steps[n->first].node;
            break;
        default:
            at = b->steps[n->first].node;
            break;
        }
    }
    if (b->callless[at])
        return wrong(b, saved, err, "%s called where the schema has %s, whose values take no "
                     "calls", call, avki_type_label(b->nodes[at].type));
    while (b->nodes[at].op == AVKI_OP_RECORD) {
        const avki_node *n = &b->nodes[at];
        uint32_t first = next_field(b, n, 0);
        avk_status st = push(b, at, first, err);
        if (st != AVK_OK)
            return failed(b, saved, st, err);
        at = b->steps[n->first + first].node;
    }
    *node = at;
    return AVK_OK;
}

/* Reports a call that does not match the slot's type. */
static avk_status mismatch(avk_builder *b, size_t saved, const char *call, uint32_t node,
                           avk_error *err) __attribute__((cold));

static avk_status mismatch(avk_builder *b, size_t saved, const char *call, uint32_t node,
                           avk_error *err)
{
    return wrong(b, saved, err, "%s called where the schema expects %s", call,
                 avki_type_label(b->nodes[node].type));
}

/* Writes the open block of array or map frame fi to its parent's output. */
static avk_status flush_block(avk_builder *b, size_t fi, avk_error *err)
{
    bframe *f = &b->frames[fi];
    avk_writer *s = &b->scratch[fi], *out = frame_out(b, f->parent);
    size_t len;
    const uint8_t *data = avk_writer_data(s, &len);
    if (b->plan->flags & AVK_PLAN_BLOCK_SIZES) {
        AVK_TRY(avk_writer_write_long(out, -(int64_t)f->block, err));
        AVK_TRY(avk_writer_write_long(out, (int64_t)len, err));
    } else {
        AVK_TRY(avk_writer_write_long(out, (int64_t)f->block, err));
    }
    if (len)
        AVK_TRY(avk_writer_write_raw(out, data, len, err));
    avk_writer_reset(s);
    f->block = 0;
    return AVK_OK;
}

/* A value is complete: advance the frame it belongs to, closing records
 * whose last field it was and unions whose branch it was, in cascade. */
static avk_status value_done(avk_builder *b, avk_error *err)
{
    while (b->depth) {
        bframe *f = &b->frames[b->depth - 1];
        switch ((avki_op)f->op) {
        case AVKI_OP_RECORD: {
            const avki_node *n = &b->nodes[f->node];
            f->index = next_field(b, n, f->index + 1);
            if (f->index < n->count)
                return AVK_OK;
            b->depth--;
            break;
        }
        case AVKI_OP_UNION:
            b->depth--;
            break;
        default: /* array, map */
            f->want_value = 0;
            f->block++;
            f->total++;
            if (b->plan->block_items && f->block == b->plan->block_items) {
                avk_status st = flush_block(b, b->depth - 1, err);
                if (st != AVK_OK)
                    return with_path(b, b->depth, st, err);
            }
            return AVK_OK;
        }
    }
    return AVK_OK;
}

/* After a leaf was written into b->out: a writer failure gets the path. */
AVK_INLINE avk_status leaf_written(avk_builder *b, size_t saved, avk_status st,
                                   avk_error *err)
{
    if (AVK_UNLIKELY(st != AVK_OK))
        return failed(b, saved, st, err);
    return value_done(b, err);
}

/* ---- leaves ---------------------------------------------------------------------- */

/* A call starting a root record whose first field is a leaf of kind op
 * (records of records and the rest go through slot): opens its frame
 * without the general checks, which root_op settled once. */
static bframe *open_root(avk_builder *b, avki_op op)
{
    bframe *f;
    if (b->root_op != (int)op || !b->fcap || !b->scap)
        return NULL;
    f = &b->frames[0];
    f->node = 0;
    f->op = AVKI_OP_RECORD;
    f->want_value = 0;
    f->index = 0;
    f->first = b->nodes[0].first;
    f->count = b->nodes[0].count;
    f->parent = 0;
    f->block = 0;
    f->total = 0;
    b->depth = 1;
    return f;
}

/* The common case inline: the next value is a field of the open record or
 * an item of the open array, and of exactly kind op. Returns its frame, or
 * NULL for everything else (the general path). */
AVK_INLINE bframe *fast_slot(avk_builder *b, avki_op op)
{
    bframe *f;
    if (AVK_UNLIKELY(!b))
        return NULL;
    if (AVK_UNLIKELY(!b->depth))
        return open_root(b, op);
    f = &b->frames[b->depth - 1];
    if (f->op == AVKI_OP_RECORD)
        return b->steps[f->first + f->index].op == op ? f : NULL;
    if (f->op == AVKI_OP_ARRAY)
        return b->steps[f->first].op == op ? f : NULL;
    if (f->op == AVKI_OP_UNION) /* the chosen branch's value */
        return b->steps[f->first + f->index].op == op ? f : NULL;
    return NULL;
}

/* After a fast-path write: the next field when it takes a call, else the
 * general advance (records closing, blocks filling). */
AVK_INLINE avk_status fast_done(avk_builder *b, bframe *f, avk_status st, avk_error *err)
{
    if (AVK_UNLIKELY(st != AVK_OK))
        return failed(b, b->depth, st, err);
    if (f->op == AVKI_OP_RECORD) {
        uint32_t next = f->index + 1;
        if (AVK_LIKELY(next < f->count && !b->step_callless[f->first + next])) {
            f->index = next;
            return AVK_OK;
        }
    }
    return value_done(b, err);
}

#define FAST(want_op, write)                                  \
    do {                                                      \
        bframe *fast_f_ = fast_slot(b, want_op);              \
        if (AVK_LIKELY(fast_f_ != NULL))                      \
            return fast_done(b, fast_f_, write, err);         \
    } while (0)

/* Finds the slot for a call; *saved gets the depth to go back to. */
#define BEGIN(call)                                    \
    uint32_t node;                                     \
    size_t saved;                                      \
    avk_status st;                                     \
    if (!b)                                            \
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN, \
                              "%s: NULL builder", call); \
    saved = b->depth;                                  \
    st = slot(b, call, &node, err);                    \
    if (st != AVK_OK)                                  \
        return st

static avk_status general_null(avk_builder *b, avk_error *err)
{
    BEGIN("avk_builder_null");
    if (b->nodes[node].op != AVKI_OP_NULL)
        return mismatch(b, saved, "avk_builder_null", node, err);
    return value_done(b, err);
}

avk_status avk_builder_null(avk_builder *b, avk_error *err)
{
    FAST(AVKI_OP_NULL, AVK_OK);
    return general_null(b, err);
}

static avk_status general_boolean(avk_builder *b, int v, avk_error *err)
{
    BEGIN("avk_builder_boolean");
    if (b->nodes[node].op != AVKI_OP_BOOLEAN)
        return mismatch(b, saved, "avk_builder_boolean", node, err);
    return leaf_written(b, saved, avk_writer_write_boolean(b->out, v != 0, err), err);
}

avk_status avk_builder_boolean(avk_builder *b, int v, avk_error *err)
{
    FAST(AVKI_OP_BOOLEAN, avk_writer_write_boolean(b->out, v != 0, err));
    return general_boolean(b, v, err);
}

/* Writes the held values. */
static avk_status flush_pending(avk_builder *b, avk_error *err)
{
    avk_writer *w = b->out;
    uint32_t n = b->npend;
    b->npend = 0;
    /* The kernel directly when the worst case fits (as the encoder does). */
    if (AVK_LIKELY((size_t)(w->end - w->pos) >= PEND_MAX * AVK_VARINT_LONG_MAX)) {
        w->pos += ((const avki_kernels *)w->kernels)->encode_longs(w->pos, b->pend, n);
        return AVK_OK;
    }
    return avk_writer_write_longs(w, b->pend, n, err);
}

/* After holding an int or long of a record: keep holding while the next
 * field is one too, else write them all and advance as fast_done does. */
AVK_INLINE avk_status held(avk_builder *b, bframe *f, avk_error *err)
{
    uint32_t next = f->index + 1;
    if (next < f->count) {
        uint8_t op = b->steps[f->first + next].op;
        if ((op == AVKI_OP_LONG || op == AVKI_OP_INT) && b->npend < PEND_MAX) {
            f->index = next;
            return AVK_OK;
        }
    }
    return fast_done(b, f, flush_pending(b, err), err);
}

/* The fast path of int and long calls: held inside records (an int's
 * varint is that of the same value as a long), written in arrays. */
#define FAST_VARINT(want_op, v)                                         \
    do {                                                                \
        bframe *fast_f_ = fast_slot(b, want_op);                        \
        if (AVK_LIKELY(fast_f_ != NULL)) {                              \
            if (fast_f_->op == AVKI_OP_RECORD) {                        \
                b->pend[b->npend++] = (v);                              \
                return held(b, fast_f_, err);                           \
            }                                                           \
            return fast_done(b, fast_f_, avk_writer_write_long(b->out, (v), err), err); \
        }                                                               \
    } while (0)

/* An int or long that passed the general checks: held when it is a
 * record's field (the first field after slot opened the record, or a long
 * for an int field), else written after any held values. */
static avk_status varint_written(avk_builder *b, size_t saved, int64_t v, avk_error *err)
{
    avk_status st;
    bframe *f = b->depth ? &b->frames[b->depth - 1] : NULL;
    if (f && f->op == AVKI_OP_RECORD && b->npend < PEND_MAX) {
        b->pend[b->npend++] = v;
        return held(b, f, err);
    }
    if (b->npend && (st = flush_pending(b, err)) != AVK_OK)
        return failed(b, saved, st, err);
    return leaf_written(b, saved, avk_writer_write_long(b->out, v, err), err);
}

static avk_status general_int(avk_builder *b, int32_t v, avk_error *err)
{
    BEGIN("avk_builder_int");
    if (b->nodes[node].op != AVKI_OP_INT)
        return mismatch(b, saved, "avk_builder_int", node, err);
    return varint_written(b, saved, v, err);
}

avk_status avk_builder_int(avk_builder *b, int32_t v, avk_error *err)
{
    FAST_VARINT(AVKI_OP_INT, (int64_t)v);
    return general_int(b, v, err);
}

static avk_status general_long(avk_builder *b, int64_t v, avk_error *err)
{
    BEGIN("avk_builder_long");
    if (b->nodes[node].op == AVKI_OP_INT) {
        if (v < INT32_MIN || v > INT32_MAX)
            return wrong(b, saved, err, "avk_builder_long: %lld does not fit the schema's int",
                         (long long)v);
    } else if (b->nodes[node].op != AVKI_OP_LONG) {
        return mismatch(b, saved, "avk_builder_long", node, err);
    }
    return varint_written(b, saved, v, err);
}

avk_status avk_builder_long(avk_builder *b, int64_t v, avk_error *err)
{
    FAST_VARINT(AVKI_OP_LONG, v);
    return general_long(b, v, err);
}

static avk_status general_float(avk_builder *b, float v, avk_error *err)
{
    BEGIN("avk_builder_float");
    if (b->nodes[node].op != AVKI_OP_FLOAT)
        return mismatch(b, saved, "avk_builder_float", node, err);
    return leaf_written(b, saved, avk_writer_write_float(b->out, v, err), err);
}

avk_status avk_builder_float(avk_builder *b, float v, avk_error *err)
{
    FAST(AVKI_OP_FLOAT, avk_writer_write_float(b->out, v, err));
    return general_float(b, v, err);
}

static avk_status general_double(avk_builder *b, double v, avk_error *err)
{
    BEGIN("avk_builder_double");
    if (b->nodes[node].op != AVKI_OP_DOUBLE)
        return mismatch(b, saved, "avk_builder_double", node, err);
    return leaf_written(b, saved, avk_writer_write_double(b->out, v, err), err);
}

avk_status avk_builder_double(avk_builder *b, double v, avk_error *err)
{
    FAST(AVKI_OP_DOUBLE, avk_writer_write_double(b->out, v, err));
    return general_double(b, v, err);
}

/* A length and the bytes. */
static avk_status write_bytes(avk_writer *w, const void *data, size_t len, avk_error *err)
{
    AVK_TRY(avk_writer_write_long(w, (int64_t)len, err));
    if (len == 0)
        return AVK_OK;
    return avk_writer_write_raw(w, data, len, err);
}

static avk_status bytes_like(avk_builder *b, const char *call, avki_op op, const void *data,
                             size_t len, avk_error *err)
{
    BEGIN(call);
    if (b->nodes[node].op != op)
        return mismatch(b, saved, call, node, err);
    if (!data && len)
        return wrong(b, saved, err, "%s: data is NULL with length %zu", call, len);
    return leaf_written(b, saved, write_bytes(b->out, data, len, err), err);
}

avk_status avk_builder_bytes(avk_builder *b, const void *data, size_t len, avk_error *err)
{
    if (data || !len)
        FAST(AVKI_OP_BYTES, write_bytes(b->out, data, len, err));
    return bytes_like(b, "avk_builder_bytes", AVKI_OP_BYTES, data, len, err);
}

avk_status avk_builder_string(avk_builder *b, const char *s, size_t len, avk_error *err)
{
    if (s || !len)
        FAST(AVKI_OP_STRING, write_bytes(b->out, s, len, err));
    return bytes_like(b, "avk_builder_string", AVKI_OP_STRING, s, len, err);
}

avk_status avk_builder_fixed(avk_builder *b, const void *data, size_t len, avk_error *err)
{
    const avki_node *n;
    BEGIN("avk_builder_fixed");
    n = &b->nodes[node];
    if (n->op != AVKI_OP_FIXED)
        return mismatch(b, saved, "avk_builder_fixed", node, err);
    if (len != n->count)
        return wrong(b, saved, err, "avk_builder_fixed: %zu bytes, the schema's %s has %u", len,
                     avki_type_label(n->type), n->count);
    if (!data && len)
        return wrong(b, saved, err, "avk_builder_fixed: data is NULL");
    if (len == 0)
        return value_done(b, err);
    return leaf_written(b, saved, avk_writer_write_raw(b->out, data, len, err), err);
}

static avk_status general_enum(avk_builder *b, uint32_t index, avk_error *err);

avk_status avk_builder_enum(avk_builder *b, uint32_t index, avk_error *err)
{
    bframe *f = fast_slot(b, AVKI_OP_ENUM);
    if (AVK_LIKELY(f != NULL)) {
        const avki_step *st = f->op == AVKI_OP_ARRAY ? &b->steps[f->first]
                                                     : &b->steps[f->first + f->index];
        if (AVK_LIKELY(index < b->nodes[st->node].count))
            return fast_done(b, f, avk_writer_write_int(b->out, (int32_t)index, err), err);
    }
    return general_enum(b, index, err);
}

static avk_status general_enum(avk_builder *b, uint32_t index, avk_error *err)
{
    const avki_node *n;
    BEGIN("avk_builder_enum");
    n = &b->nodes[node];
    if (n->op != AVKI_OP_ENUM)
        return mismatch(b, saved, "avk_builder_enum", node, err);
    if (index >= n->count)
        return wrong(b, saved, err, "avk_builder_enum: index %u out of range (%s has %u symbols)",
                     (unsigned)index, avki_type_label(n->type), n->count);
    return leaf_written(b, saved, avk_writer_write_int(b->out, (int32_t)index, err), err);
}

/* ---- unions, arrays, maps ----------------------------------------------------------- */

static avk_status general_union(avk_builder *b, uint32_t branch, avk_error *err);

avk_status avk_builder_union(avk_builder *b, uint32_t branch, avk_error *err)
{
    /* A union field of an open record: push its frame and write the index
     * without the general slot search. */
    bframe *f = fast_slot(b, AVKI_OP_UNION);
    if (AVK_LIKELY(f != NULL && f->op == AVKI_OP_RECORD)) {
        uint32_t node = b->steps[f->first + f->index].node;
        const avki_node *n = &b->nodes[node];
        size_t saved = b->depth;
        if (AVK_LIKELY(branch < n->count && !b->callless[b->steps[n->first + branch].node])) {
            avk_status st = push(b, node, branch, err);
            if (st == AVK_OK)
                st = avk_writer_write_long(b->out, (int64_t)branch, err);
            if (AVK_UNLIKELY(st != AVK_OK))
                return failed(b, saved, st, err);
            return AVK_OK;
        }
    }
    return general_union(b, branch, err);
}

static avk_status general_union(avk_builder *b, uint32_t branch, avk_error *err)
{
    const avki_node *n;
    BEGIN("avk_builder_union");
    n = &b->nodes[node];
    if (n->op != AVKI_OP_UNION)
        return mismatch(b, saved, "avk_builder_union", node, err);
    if (branch >= n->count)
    {
        char list[AVKI_BRANCH_LIST_MAX];
        return wrong(b, saved, err, "avk_builder_union: branch %u out of range (branches: %s)",
                     branch, avki_union_branch_list(n->type, list, sizeof list));
    }
    st = push(b, node, branch, err);
    if (st != AVK_OK)
        return failed(b, saved, st, err);
    st = avk_writer_write_long(b->out, (int64_t)branch, err);
    if (st != AVK_OK)
        return failed(b, saved, st, err);
    /* A branch that takes no call (an empty record) is complete already. */
    if (b->callless[b->steps[n->first + branch].node])
        return value_done(b, err);
    return AVK_OK;
}

/* Opens an array or map frame with its block buffer. */
static avk_status open_collection(avk_builder *b, const char *call, avki_op op, avk_error *err)
{
    avk_writer *s;
    size_t fi, parent = 0, i;
    BEGIN(call);
    if (b->nodes[node].op != op)
        return mismatch(b, saved, call, node, err);
    for (i = b->depth; i-- > 0;)
        if (b->frames[i].op == AVKI_OP_ARRAY || b->frames[i].op == AVKI_OP_MAP) {
            parent = i + 1;
            break;
        }
    st = push(b, node, 0, err);
    if (st != AVK_OK)
        return failed(b, saved, st, err);
    fi = b->depth - 1;
    b->frames[fi].parent = parent;
    s = &b->scratch[fi];
    if (!s->buf) {
        avk_writer_options o;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.buffer_size = SCRATCH_INITIAL;
        o.allocator = &b->alloc;
        st = avk_writer_init_memory(s, &o, err);
        if (st != AVK_OK) {
            memset(s, 0, sizeof *s);
            return failed(b, saved, st, err);
        }
    }
    avk_writer_reset(s);
    b->out = s;
    return AVK_OK;
}

/* Closes the array or map on top: its last block, the 0, then the value
 * is complete in its parent. */
static avk_status close_collection(avk_builder *b, const char *call, avki_op op, avk_error *err)
{
    bframe *f;
    avk_writer *out;
    avk_status st;
    if (!b)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: NULL builder", call);
    f = b->depth ? &b->frames[b->depth - 1] : NULL;
    if (!f || f->op != op || f->want_value)
        return wrong(b, b->depth, err, "%s called where %s", call,
                     !f ? "no array or map is open"
                     : f->want_value ? "a map value is expected"
                     : f->op == AVKI_OP_ARRAY || f->op == AVKI_OP_MAP
                         ? "a different collection is open"
                         : "a value is not complete");
    out = frame_out(b, f->parent);
    if (f->block) {
        st = flush_block(b, b->depth - 1, err);
        if (st != AVK_OK)
            return with_path(b, b->depth, st, err);
    }
    st = avk_writer_write_long(out, 0, err);
    if (st != AVK_OK)
        return with_path(b, b->depth, st, err);
    b->out = out;
    b->depth--;
    return value_done(b, err);
}

avk_status avk_builder_array_begin(avk_builder *b, avk_error *err)
{
    return open_collection(b, "avk_builder_array_begin", AVKI_OP_ARRAY, err);
}

avk_status avk_builder_array_end(avk_builder *b, avk_error *err)
{
    return close_collection(b, "avk_builder_array_end", AVKI_OP_ARRAY, err);
}

avk_status avk_builder_map_begin(avk_builder *b, avk_error *err)
{
    return open_collection(b, "avk_builder_map_begin", AVKI_OP_MAP, err);
}

avk_status avk_builder_map_end(avk_builder *b, avk_error *err)
{
    return close_collection(b, "avk_builder_map_end", AVKI_OP_MAP, err);
}

avk_status avk_builder_map_key(avk_builder *b, const char *key, size_t len, avk_error *err)
{
    bframe *f;
    avk_status st;
    if (!b)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_builder_map_key: NULL builder");
    f = b->depth ? &b->frames[b->depth - 1] : NULL;
    if (!f || f->op != AVKI_OP_MAP || f->want_value)
        return wrong(b, b->depth, err, "avk_builder_map_key called where %s",
                     f && f->op == AVKI_OP_MAP ? "a map value is expected"
                                               : "no map is open for a key");
    if (!key && len)
        return wrong(b, b->depth, err, "avk_builder_map_key: key is NULL with length %zu", len);
    st = write_bytes(b->out, key, len, err);
    if (st != AVK_OK)
        return with_path(b, b->depth, st, err);
    f->want_value = 1;
    /* A value that takes no call (an empty record) is complete already. */
    if (b->callless[b->steps[b->nodes[f->node].first].node])
        return value_done(b, err);
    return AVK_OK;
}

avk_status avk_builder_array(avk_builder *b, const void *items, size_t n, avk_error *err)
{
    const avki_node *an;
    uint64_t bad = UINT64_MAX;
    BEGIN("avk_builder_array");
    an = &b->nodes[node];
    if (an->op != AVKI_OP_ARRAY)
        return mismatch(b, saved, "avk_builder_array", node, err);
    if (an->store == AVKI_STORE_BOXED)
        return wrong(b, saved, err, "avk_builder_array: the items of %s are not stored typed "
                     "(use array_begin and one call per item)",
                     avki_type_label(b->nodes[b->steps[an->first].node].type));
    if (b->depth >= b->plan->limits.max_depth) {
        st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                            "nesting deeper than max_depth (%zu)", b->plan->limits.max_depth);
        return failed(b, saved, st, err);
    }
    st = avki_encode_typed_array(b->plan, an, items, n, b->out, &bad, err);
    if (st == AVK_ERR_INVALID_ARGUMENT) {
        /* Nothing was written: the path, then the bad item. */
        with_path_item(b, b->depth, bad, st, err);
        b->depth = saved;
        return st;
    }
    return leaf_written(b, saved, st, err);
}
