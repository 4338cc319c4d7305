/* Binary decoder: runs a plan over a reader with an explicit stack (no recursion), building values in an arena, checking every length first. */
#include <stdint.h>
#include <string.h>

#include "binary/decode_ctx.h"
#include "binary/encode_internal.h"
#include "common/error.h"
#include "io/reader_internal.h"
#include "varint/kernels.h"
#include "varint/varint_word.h"

/* ---- leaves -------------------------------------------------------------------- */

#if SIZE_MAX < UINT64_MAX
/* Cold, 32-bit processes only: a stream payload of n bytes, more than
 * size_t holds (with its NUL), with max_bytes raised past 4 GiB. The stream
 * is read as far as it goes, so input that ends first gets TRUNCATED as on
 * a 64-bit machine, and input that holds them all gets the out of memory
 * error a 64-bit machine gives once the arena cannot grow further. */
static avk_status length_past_size_max(dctx *c, uint64_t n, uint64_t off, const char *what)
{
    AVK_TRY(avk_reader_skip(c->r, n, c->err));
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, off,
                          "%s of %llu bytes is more than this process can hold", what,
                          (unsigned long long)n);
}
#endif

/* Reads a length (string, bytes, map key) and checks it: not negative,
 * within max_bytes, and within the input for a memory reader. */
AVK_INLINE avk_status read_length(dctx *c, uint64_t *len, uint64_t off, const char *what)
{
    avk_reader *r = c->r;
    int64_t n;
    AVK_TRY(avk_reader_read_long(r, &n, c->err));
    AVK_TRY(avk_check_length(n, c->limits->max_bytes,
                             c->memory ? (uint64_t)(r->end - r->pos) : UINT64_MAX, off, what,
                             c->err));
#if SIZE_MAX < UINT64_MAX
    if (AVK_UNLIKELY((uint64_t)n >= SIZE_MAX))
        return length_past_size_max(c, (uint64_t)n, off, what);
#endif
    *len = (uint64_t)n;
    return AVK_OK;
}

/* Cold: a stream payload longer than what is buffered, copied into the
 * arena in growing pieces so a lying length costs at most twice the bytes
 * that really arrive. */
static avk_status read_payload_stream(dctx *c, size_t len, const uint8_t **out)
{
    avk_reader *r = c->r;
    size_t cap = (size_t)(r->end - r->pos), have = 0;
    uint8_t *buf;
    if (cap < 4096)
        cap = 4096;
    if (cap > len)
        cap = len;
    buf = (uint8_t *)avki_dalloc(c, cap + 1, 1);
    if (!buf)
        return avki_dalloc_failed(c, cap + 1);
    for (;;) {
        size_t take = cap - have;
        AVK_TRY(avk_reader_read_raw(r, buf + have, take, c->err));
        have += take;
        if (have == len)
            break;
        {
            size_t ncap = cap * 2 > len ? len : cap * 2;
            uint8_t *nb = (uint8_t *)avki_dalloc(c, ncap + 1, 1);
            if (!nb)
                return avki_dalloc_failed(c, ncap + 1);
            memcpy(nb, buf, have);
            buf = nb;
            cap = ncap;
        }
    }
    buf[len] = 0;
    *out = buf;
    return AVK_OK;
}

/* len payload bytes as a view or an arena copy (NUL-terminated). */
AVK_INLINE avk_status read_payload(dctx *c, size_t len, const uint8_t **out)
{
    avk_reader *r = c->r;
    uint8_t *buf;
    if (c->views) {
        /* Memory reader: read_length checked the bytes are there. */
        *out = r->pos;
        r->pos += len;
        return AVK_OK;
    }
    if ((size_t)(r->end - r->pos) < len && !c->memory)
        return read_payload_stream(c, len, out);
    buf = (uint8_t *)avki_dalloc(c, len + 1, 1);
    if (AVK_UNLIKELY(!buf))
        return avki_dalloc_failed(c, len + 1);
    AVK_TRY(avk_reader_read_raw(r, buf, len, c->err));
    buf[len] = 0;
    *out = buf;
    return AVK_OK;
}

static avk_status bad_utf8(dctx *c, uint64_t off, size_t len)
{
    return avki_error_set(c->err, AVK_ERR_MALFORMED, off,
                          "string of %zu bytes is not valid UTF-8", len);
}

AVK_INLINE avk_status read_string(dctx *c, avk_bytes *out, int text)
{
    uint64_t len = 0, off = avk_reader_offset(c->r);
    AVK_TRY(read_length(c, &len, off, text ? "string" : "bytes"));
    AVK_TRY(read_payload(c, (size_t)len, &out->data));
    out->len = (size_t)len;
    if (text && c->check_utf8 && AVK_UNLIKELY(!avki_utf8_valid(out->data, out->len)))
        return bad_utf8(c, off, out->len);
    return AVK_OK;
}

static avk_status read_fixed(dctx *c, size_t size, avk_bytes *out)
{
    avk_reader *r = c->r;
    out->len = size;
    /* A memory reader holds all there is: check before copying (the size
     * comes from the schema, which may come from the input's header). */
    if (c->memory && AVK_UNLIKELY((size_t)(r->end - r->pos) < size))
        return avki_error_set(c->err, AVK_ERR_TRUNCATED, avk_reader_offset(r),
                              "fixed of %zu bytes but only %zu remain", size,
                              (size_t)(r->end - r->pos));
    if (c->views) {
        out->data = r->pos;
        r->pos += size;
        return AVK_OK;
    }
    return read_payload(c, size, &out->data);
}

static avk_status bad_boolean(dctx *c, uint8_t b)
{
    return avki_error_set(c->err, AVK_ERR_MALFORMED, avk_reader_offset(c->r) - 1,
                          "boolean byte is 0x%02x, expected 0 or 1", b);
}

static avk_status bad_index(dctx *c, uint64_t off, const char *what, int64_t idx, uint32_t count)
{
    return avki_error_set(c->err, AVK_ERR_MALFORMED, off, "%s index %lld out of range (%u %s)",
                          what, (long long)idx, count,
                          what[0] == 'u' ? "branches" : "symbols");
}

/* Record fields' varints: the branch-free word decoder for every length,
 * with no 1- or 2-byte shortcut. Fields of a record alternate between
 * types and sizes, so a length test would mispredict where a run of one
 * field's values would not; measured on WideRecord (random lengths) this is
 * 20% faster than the reader's inline path, and no slower on 1-byte data. */
AVK_INLINE avk_status read_long_field(avk_reader *r, int64_t *out, avk_error *err)
{
    const uint8_t *p = r->pos;
    if (AVK_LIKELY(r->end - p >= AVK_VARINT_LONG_MAX)) {
        uint64_t u;
        size_t n = avki_decode_u64_word(p, &u);
        if (AVK_LIKELY(n != 0)) {
            *out = avk_zigzag_decode64(u);
            r->pos = p + n;
            return AVK_OK;
        }
    }
    return avk_reader_read_long_slow(r, out, err);
}

AVK_INLINE avk_status read_int_field(avk_reader *r, int32_t *out, avk_error *err)
{
    const uint8_t *p = r->pos;
    if (AVK_LIKELY(r->end - p >= AVK_VARINT_LONG_MAX)) {
        uint64_t u;
        size_t n = avki_decode_u64_word(p, &u);
        if (AVK_LIKELY(n - 1 < AVK_VARINT_INT_MAX && (u >> 32) == 0)) {
            *out = avk_zigzag_decode32((uint32_t)u);
            r->pos = p + n;
            return AVK_OK;
        }
    }
    return avk_reader_read_int_slow(r, out, err);
}

static avk_status read_enum(dctx *c, const avki_node *n, avk_value *v)
{
    int32_t idx;
    uint64_t off = avk_reader_offset(c->r);
    AVK_TRY(avk_reader_read_int(c->r, &idx, c->err));
    if (AVK_UNLIKELY(idx < 0 || (uint32_t)idx >= n->count))
        return bad_index(c, off, "enum", idx, n->count);
    if (n->store) { /* resolving: the reader's symbol */
        const avki_rx *x = c->rx + n->extra;
        if (AVK_UNLIKELY(x->map[idx] < 0))
            return avki_error_set(c->err, AVK_ERR_RESOLUTION, off,
                                  "writer symbol %s is not in reader enum %s, which has "
                                  "no default",
                                  x->writer->symbols[idx], n->type->fullname);
        idx = x->map[idx];
    }
    v->u.index = (uint32_t)idx;
    return AVK_OK;
}

/* One value of a leaf step (is_leaf_op) into v. */
AVK_INLINE avk_status decode_leaf(dctx *c, const avki_step *s, avk_value *v)
{
    avk_reader *r = c->r;
    v->type = s->type;
    switch ((avki_op)s->op) {
    case AVKI_OP_NULL:
        return AVK_OK;
    case AVKI_OP_BOOLEAN: {
        uint8_t b;
        AVK_TRY(avk_reader_read_raw(r, &b, 1, c->err));
        if (AVK_UNLIKELY(b > 1))
            return bad_boolean(c, b);
        v->u.boolean = b;
        return AVK_OK;
    }
    case AVKI_OP_INT:
        return read_int_field(r, &v->u.i, c->err);
    case AVKI_OP_LONG:
        return read_long_field(r, &v->u.l, c->err);
    case AVKI_OP_FLOAT:
        return avk_reader_read_float(r, &v->u.f, c->err);
    case AVKI_OP_DOUBLE:
        return avk_reader_read_double(r, &v->u.d, c->err);
    case AVKI_OP_STRING:
        return read_string(c, &v->u.bytes, 1);
    case AVKI_OP_BYTES:
        return read_string(c, &v->u.bytes, 0);
    case AVKI_OP_INT_LONG:
    case AVKI_OP_INT_FLOAT:
    case AVKI_OP_INT_DOUBLE: {
        int32_t i;
        AVK_TRY(read_int_field(r, &i, c->err));
        if (s->op == AVKI_OP_INT_LONG)
            v->u.l = i;
        else if (s->op == AVKI_OP_INT_FLOAT)
            v->u.f = (float)i;
        else
            v->u.d = i;
        return AVK_OK;
    }
    case AVKI_OP_LONG_FLOAT:
    case AVKI_OP_LONG_DOUBLE: {
        int64_t l;
        AVK_TRY(read_long_field(r, &l, c->err));
        if (s->op == AVKI_OP_LONG_FLOAT)
            v->u.f = (float)l;
        else
            v->u.d = (double)l;
        return AVK_OK;
    }
    case AVKI_OP_FLOAT_DOUBLE: {
        float x;
        AVK_TRY(avk_reader_read_float(r, &x, c->err));
        v->u.d = x;
        return AVK_OK;
    }
    case AVKI_OP_ENUM:
        return read_enum(c, c->nodes + s->node, v);
    case AVKI_OP_FIXED:
        return read_fixed(c, c->nodes[s->node].count, &v->u.bytes);
    default: /* AVKI_OP_FAIL */
        return avki_error_set(c->err, AVK_ERR_RESOLUTION, avk_reader_offset(c->r), "%s",
                              c->rx[c->nodes[s->node].extra].message);
    }
}

/* A run of int or long fields through one bulk varint call, used when
 * the whole run is buffered (so the reader cannot refill midway). On a bad
 * varint, returns 1 without consuming anything: the caller then reads the
 * run field by field, which reports the error on the right field. */
static int decode_run(dctx *c, const avki_step *s, avk_value *fields)
{
    uint32_t j, n = s->run;
    avk_reader *r = c->r;
    const avki_kernels *k = (const avki_kernels *)r->kernels;
    size_t avail = (size_t)(r->end - r->pos), used = 0;
    /* The kernel directly: the whole run is buffered (the caller checked),
     * and on a run this short the reader's wrapper costs as much as the
     * kernel. A short count means a bad varint: nothing is consumed. */
    if (s->op == AVKI_OP_LONG) {
        int64_t tmp[AVKI_MAX_RUN];
        if (AVK_UNLIKELY(k->decode_longs(r->pos, avail, tmp, n, &used) != n))
            return 1;
        for (j = 0; j < n; j++) {
            fields[j].type = s[j].type;
            fields[j].u.l = tmp[j];
        }
    } else {
        int32_t tmp[AVKI_MAX_RUN];
        if (AVK_UNLIKELY(k->decode_ints(r->pos, avail, tmp, n, &used) != n))
            return 1;
        for (j = 0; j < n; j++) {
            fields[j].type = s[j].type;
            fields[j].u.i = tmp[j];
        }
    }
    r->pos += used;
    return 0;
}

/* One leaf field decoded with the position in a register: no error
 * reporting, no refills. Returns the new position, or NULL when the field
 * needs the general path (compound type, run, copy, bad or short input),
 * which then decodes it again from the same place and reports any error. */
AVK_INLINE const uint8_t *fast_field(const avki_node *nodes, const avki_step *s, avk_value *f,
                                     const uint8_t *p, const uint8_t *end, int views,
                                     uint64_t max_bytes)
{
    uint64_t u;
    size_t n;
    if (AVK_UNLIKELY(end - p < AVK_VARINT_LONG_MAX))
        return NULL;
    switch ((avki_op)s->op) {
    case AVKI_OP_NULL:
        return p;
    case AVKI_OP_BOOLEAN:
        if (AVK_UNLIKELY(*p > 1))
            return NULL;
        f->u.boolean = *p;
        return p + 1;
    case AVKI_OP_INT:
        if (s->run >= AVKI_DECODE_MIN_RUN) /* a long run goes through the bulk decoder */
            return NULL;
        n = avki_decode_u64_word(p, &u);
        if (AVK_UNLIKELY(n - 1 >= AVK_VARINT_INT_MAX || (u >> 32) != 0))
            return NULL;
        f->u.i = avk_zigzag_decode32((uint32_t)u);
        return p + n;
    case AVKI_OP_LONG:
        if (s->run >= AVKI_DECODE_MIN_RUN)
            return NULL;
        n = avki_decode_u64_word(p, &u);
        if (AVK_UNLIKELY(n == 0))
            return NULL;
        f->u.l = avk_zigzag_decode64(u);
        return p + n;
    case AVKI_OP_FLOAT:
        memcpy(&f->u.f, p, 4);
        return p + 4;
    case AVKI_OP_DOUBLE:
        memcpy(&f->u.d, p, 8);
        return p + 8;
    case AVKI_OP_INT_LONG:
    case AVKI_OP_INT_FLOAT:
    case AVKI_OP_INT_DOUBLE: {
        int32_t i;
        n = avki_decode_u64_word(p, &u);
        if (AVK_UNLIKELY(n - 1 >= AVK_VARINT_INT_MAX || (u >> 32) != 0))
            return NULL;
        i = avk_zigzag_decode32((uint32_t)u);
        if (s->op == AVKI_OP_INT_LONG)
            f->u.l = i;
        else if (s->op == AVKI_OP_INT_FLOAT)
            f->u.f = (float)i;
        else
            f->u.d = i;
        return p + n;
    }
    case AVKI_OP_LONG_FLOAT:
    case AVKI_OP_LONG_DOUBLE:
        n = avki_decode_u64_word(p, &u);
        if (AVK_UNLIKELY(n == 0))
            return NULL;
        if (s->op == AVKI_OP_LONG_FLOAT)
            f->u.f = (float)avk_zigzag_decode64(u);
        else
            f->u.d = (double)avk_zigzag_decode64(u);
        return p + n;
    case AVKI_OP_FLOAT_DOUBLE: {
        float x;
        memcpy(&x, p, 4);
        f->u.d = x;
        return p + 4;
    }
    case AVKI_OP_STRING:
    case AVKI_OP_BYTES: {
        int64_t len;
        if (!views) /* copies, or strings checked for UTF-8 */
            return NULL;
        /* A length is on the chain from one field to the next (the next
         * field starts after the payload), so the usual 1-byte length
         * takes a short test rather than the longer word decoder. */
        if (AVK_LIKELY(p[0] < 0x80)) {
            u = p[0];
            n = 1;
        } else {
            n = avki_decode_u64_word(p, &u);
        }
        len = avk_zigzag_decode64(u);
        if (AVK_UNLIKELY(n == 0 || len < 0 || (uint64_t)len > max_bytes ||
                         (uint64_t)len > (uint64_t)(end - p) - n))
            return NULL;
        f->u.bytes.data = p + n;
        f->u.bytes.len = (size_t)len;
        return p + n + len;
    }
    case AVKI_OP_ENUM: {
        /* Symbols indexes below 64 are one byte (zigzag). A resolving enum
         * (store set) maps symbols: the general path. */
        uint32_t idx = (uint32_t)p[0] >> 1;
        if (AVK_UNLIKELY((p[0] & 0x81) != 0 || idx >= nodes[s->node].count ||
                         nodes[s->node].store))
            return NULL;
        f->u.index = idx;
        return p + 1;
    }
    case AVKI_OP_FIXED: {
        size_t size = nodes[s->node].count;
        if (!views || AVK_UNLIKELY((size_t)(end - p) < size))
            return NULL;
        f->u.bytes.data = p;
        f->u.bytes.len = size;
        return p + size;
    }
    default:
        return NULL;
    }
}

/* A union whose chosen branch is a leaf fast_field handles (["null",
 * "string"] and the like), its index below 64. NULL sends it the general way. */
AVK_INLINE const uint8_t *fast_union(dctx *c, const avki_step *s, avk_value *f, const uint8_t *p,
                                     const uint8_t *end, int views, uint64_t max_bytes)
{
    const avki_node *n = c->nodes + s->node;
    uint32_t idx;
    const avki_step *b;
    avk_value *bv;
    const uint8_t *q;
    if (AVK_UNLIKELY(end - p < 2 * AVK_VARINT_LONG_MAX))
        return NULL;
    idx = (uint32_t)p[0] >> 1;
    if (AVK_UNLIKELY((p[0] & 0x81) != 0 || idx >= n->count || c->depth >= c->limits->max_depth ||
                     n->store))
        return NULL; /* (store: a resolving union maps branches) */
    b = c->steps + n->first + idx;
    if (b->op >= AVKI_OP_RECORD && b->op != AVKI_OP_ENUM && b->op != AVKI_OP_FIXED)
        return NULL;
    bv = (avk_value *)avki_dalloc(c, sizeof *bv, 8);
    if (AVK_UNLIKELY(!bv))
        return NULL; /* the general path reports it */
    bv->type = b->type;
    q = fast_field(c->nodes, b, bv, p + 1, end, views, max_bytes);
    if (AVK_UNLIKELY(!q))
        return NULL;
    f->u.branch.value = bv;
    f->u.branch.index = idx;
    return q;
}

/* Skips a writer field the reader lacks when it is a leaf and the input
 * holds the worst case, with the position in a register: no call, no
 * error reporting. Returns the new position, or NULL for the general
 * skipper (compound types, bad or short input), which reports errors. */
AVK_INLINE const uint8_t *fast_skip(const avki_node *nodes, const avki_step *s, const uint8_t *p,
                                    const uint8_t *end, uint64_t max_bytes)
{
    uint64_t w, stops, u;
    size_t n;
    if (AVK_UNLIKELY(end - p < AVK_VARINT_LONG_MAX))
        return NULL;
    switch ((avki_op)s->run) {
    case AVKI_OP_NULL:
        return p;
    case AVKI_OP_BOOLEAN:
        return *p <= 1 ? p + 1 : NULL;
    case AVKI_OP_INT:
    case AVKI_OP_LONG:
    case AVKI_OP_ENUM:
        /* Up to 8 bytes: the first byte below 0x80 ends it, and any such
         * varint is valid; longer ones (or an int past 5 bytes, an enum
         * index out of range) go the careful way. */
        memcpy(&w, p, 8);
        stops = ~w & 0x8080808080808080ull;
        if (AVK_UNLIKELY(!stops)) {
            /* 9 or 10 bytes: a long whose 10th byte holds only bit 63. */
            if ((avki_op)s->run != AVKI_OP_LONG)
                return NULL;
            if (p[8] < 0x80)
                return p + 9;
            return p[9] <= 1 ? p + 10 : NULL;
        }
        n = ((unsigned)__builtin_ctzll(stops) >> 3) + 1;
        /* An int has at most 5 bytes, the 5th holding its top 4 bits. */
        if ((avki_op)s->run == AVKI_OP_INT && AVK_UNLIKELY(n > 5 || (n == 5 && p[4] > 0x0F)))
            return NULL;
        if ((avki_op)s->run == AVKI_OP_ENUM &&
            AVK_UNLIKELY(n > 1 || (p[0] >> 1) >= nodes[s->node].count || (p[0] & 1)))
            return NULL;
        return p + n;
    case AVKI_OP_FLOAT:
        return p + 4;
    case AVKI_OP_DOUBLE:
        return p + 8;
    case AVKI_OP_STRING:
    case AVKI_OP_BYTES: {
        int64_t len;
        if (AVK_LIKELY(p[0] < 0x80)) {
            u = p[0];
            n = 1;
        } else {
            n = avki_decode_u64_word(p, &u);
        }
        len = avk_zigzag_decode64(u);
        if (AVK_UNLIKELY(n == 0 || len < 0 || (uint64_t)len > max_bytes ||
                         (uint64_t)len > (uint64_t)(end - p) - n))
            return NULL;
        return p + n + len;
    }
    case AVKI_OP_FIXED:
        n = nodes[s->node].count;
        return (size_t)(end - p) >= n ? p + n : NULL;
    default:
        return NULL;
    }
}


/* ---- the explicit stack ------------------------------------------------------ */

/* Frames on the C stack before the stack moves to the arena: most values
 * nest a few levels; deeper ones pay one copy per doubling. */
#define LOCAL_FRAMES 4
#define LOCAL_COLLS 2

/* A child pushed a frame: the loop in run() goes on with it. */
#define DEC_PUSHED 0x100

/* Ops a record loop decodes in place; the rest need the stack. */
AVK_INLINE int is_leaf_op(uint8_t op)
{
    return op < AVKI_OP_RECORD || op == AVKI_OP_ENUM || op == AVKI_OP_FIXED ||
           (op >= AVKI_OP_INT_LONG && op <= AVKI_OP_FLOAT_DOUBLE) || op == AVKI_OP_FAIL;
}

static avk_status depth_exceeded(dctx *c)
{
    return avki_error_set(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                          "nesting deeper than max_depth (%zu)", c->limits->max_depth);
}

/* Doubles a stack of n elements of size bytes in the arena (old copies
 * stay there until reset: at most as much again). */
static avk_status grow(dctx *c, void **stack, size_t *cap, size_t n, size_t size)
{
    size_t ncap = *cap * 2;
    void *p;
    if (ncap > SIZE_MAX / 2 / size)
        return avki_dalloc_failed(c, SIZE_MAX);
    p = avki_dalloc(c, ncap * size, 8);
    if (!p)
        return avki_dalloc_failed(c, ncap * size);
    memcpy(p, *stack, n * size);
    *stack = p;
    *cap = ncap;
    return AVK_OK;
}

/* Opens a frame for v (its type set), reached through via. The caller has
 * checked the depth. */
static avk_status push(dctx *c, uint8_t kind, const avki_node *n, avk_value *v, uint8_t via,
                       uint32_t via_index)
{
    dframe *f;
    if (AVK_UNLIKELY(c->nframes == c->frame_cap))
        AVK_TRY(grow(c, (void **)&c->frames, &c->frame_cap, c->nframes, sizeof(dframe)));
    if (kind >= DK_ARRAY) {
        dcoll *b;
        if (AVK_UNLIKELY(c->ncoll == c->coll_cap))
            AVK_TRY(grow(c, (void **)&c->colls, &c->coll_cap, c->ncoll, sizeof(dcoll)));
        b = c->colls + c->ncoll++;
        b->cap = 0;
        b->chunk_end = 0;
        b->left = 0;
        b->end = UINT64_MAX;
        b->off = 0;
        if (kind == DK_ARRAY) {
            v->u.array.items = NULL;
            v->u.array.count = 0;
        } else {
            v->u.map.keys = NULL;
            v->u.map.values = NULL;
            v->u.map.count = 0;
        }
    }
    f = c->frames + c->nframes++;
    f->n = n;
    f->v = v;
    f->i = 0;
    f->via_index = via_index;
    f->kind = kind;
    f->via = via;
    c->depth += via == DV_NONE ? 1 : 2;
    return AVK_OK;
}

/* Adds the union the failing value came through to the error's place. */
static avk_status via_failed(dctx *c, uint8_t via, uint32_t via_index, avk_status st)
{
    if (st == AVK_OK)
        return st;
    if (via == DV_BRANCH)
        avki_dtail(c, AVKI_SEG_BRANCH, via_index, NULL);
    else if (via == DV_WRITER_BRANCH)
        avki_dtail(c, AVKI_SEG_WRITER_BRANCH, via_index, NULL);
    return st;
}

static int run_record(dctx *c, dframe *f, const avki_node *n, avk_value *fields, uint32_t i);
static avk_status flat_record(dctx *c, const avki_node *n, avk_value *v, size_t level);
static int run_array(dctx *c, dframe *f, dcoll *b);
static int run_map(dctx *c, dframe *f, dcoll *b);

/* An array or map of leaves (and unions of leaves): its items never need a
 * frame, so it runs here at depth level, its frame and blocks on the C
 * stack. */
static avk_status flat_collection(dctx *c, const avki_node *n, avk_value *v, size_t level,
                                  int is_map)
{
    dframe f;
    dcoll b;
    size_t saved = c->depth;
    int st;
    f.n = n;
    f.v = v;
    f.i = 0;
    b.cap = 0;
    b.chunk_end = 0;
    b.left = 0;
    b.end = UINT64_MAX;
    b.off = 0;
    c->depth = level;
    if (is_map) {
        v->u.map.keys = NULL;
        v->u.map.values = NULL;
        v->u.map.count = 0;
        st = run_map(c, &f, &b);
    } else {
        v->u.array.items = NULL;
        v->u.array.count = 0;
        st = run_array(c, &f, &b);
    }
    c->depth = saved;
    return (avk_status)st;
}

/* One value of step s into v: leaves, enums, fixed and typed arrays here,
 * records, boxed arrays and maps by pushing a frame (DEC_PUSHED); unions
 * and wraps are followed to their branch, which gets the union as its
 * frame's via. */
static int decode_child(dctx *c, const avki_step *s, avk_value *v)
{
    avk_reader *r = c->r;
    uint8_t via = DV_NONE;
    uint32_t via_index = 0;
    size_t levels = c->depth + 1; /* the child's depth */
    for (;;) {
        const avki_node *n = c->nodes + s->node;
        avk_status st;
        v->type = s->type;
        if (is_leaf_op(s->op)) {
            st = decode_leaf(c, s, v);
            return st == AVK_OK ? AVK_OK : via_failed(c, via, via_index, st);
        }
        if (AVK_UNLIKELY(levels > c->limits->max_depth))
            return via_failed(c, via, via_index, depth_exceeded(c));
        switch ((avki_op)s->op) {
        case AVKI_OP_RECORD: {
            uint32_t count = n->store ? c->rx[n->extra].out_count : n->count;
            avk_value *fields = NULL;
            if (n->flat)
                return via_failed(c, via, via_index, flat_record(c, n, v, levels));
            if (count) {
                fields = (avk_value *)avki_dalloc(c, count * sizeof *fields, 8);
                if (AVK_UNLIKELY(!fields))
                    return via_failed(c, via, via_index,
                                      avki_dalloc_failed(c, count * sizeof *fields));
            }
            v->u.fields = fields;
            st = push(c, n->store ? DK_RECORD_RX : DK_RECORD, n, v, via, via_index);
            return st == AVK_OK ? DEC_PUSHED : via_failed(c, via, via_index, st);
        }
        case AVKI_OP_ARRAY:
            if (n->store != AVKI_STORE_BOXED) {
                st = avki_decode_typed_array(c, n, v);
                return st == AVK_OK ? AVK_OK : via_failed(c, via, via_index, st);
            }
            if (n->flat)
                return via_failed(c, via, via_index, flat_collection(c, n, v, levels, 0));
            st = push(c, DK_ARRAY, n, v, via, via_index);
            return st == AVK_OK ? DEC_PUSHED : via_failed(c, via, via_index, st);
        case AVKI_OP_MAP:
            if (n->flat)
                return via_failed(c, via, via_index, flat_collection(c, n, v, levels, 1));
            st = push(c, DK_MAP, n, v, via, via_index);
            return st == AVK_OK ? DEC_PUSHED : via_failed(c, via, via_index, st);
        case AVKI_OP_UNION:
        case AVKI_OP_UNWRAP: {
            int64_t idx;
            uint64_t off = avk_reader_offset(r);
            AVK_TRY(avk_reader_read_long(r, &idx, c->err));
            if (AVK_UNLIKELY(idx < 0 || (uint64_t)idx >= n->count))
                return bad_index(c, off, "union branch", idx, n->count);
            if (s->op == AVKI_OP_UNION) {
                avk_value *bv = (avk_value *)avki_dalloc(c, sizeof *bv, 8);
                if (AVK_UNLIKELY(!bv))
                    return avki_dalloc_failed(c, sizeof *bv);
                v->u.branch.value = bv;
                /* A resolving union takes the reader's branch index (a FAIL
                 * step reports a writer branch without one). */
                v->u.branch.index =
                    n->store ? (uint32_t)c->rx[n->extra].map[idx] : (uint32_t)idx;
                v = bv;
                via = DV_BRANCH;
            } else {
                via = DV_WRITER_BRANCH;
            }
            via_index = (uint32_t)idx;
            s = c->steps + n->first + idx;
            levels++;
            continue;
        }
        case AVKI_OP_WRAP: {
            avk_value *bv = (avk_value *)avki_dalloc(c, sizeof *bv, 8);
            if (AVK_UNLIKELY(!bv))
                return avki_dalloc_failed(c, sizeof *bv);
            v->u.branch.value = bv;
            v->u.branch.index = n->count;
            v = bv;
            via = DV_WRAP;
            s = c->steps + n->first;
            levels++;
            continue;
        }
        default:
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, avk_reader_offset(r),
                                  "plan step with op %u cannot be decoded", (unsigned)s->op);
        }
    }
}

avk_status avki_decode_leaf_unwrap(dctx *c, const avki_step *s, avk_value *v)
{
    int st = decode_child(c, s, v);
    /* Typed items are leaves, or a writer's union of leaves: nothing to push. */
    if (AVK_UNLIKELY(st == DEC_PUSHED))
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, avk_reader_offset(c->r),
                              "plan stores compound items in a typed array");
    return (avk_status)st;
}

/* A record of leaves at depth level (the depth checked by the caller):
 * straight into its field loop, with no frame on the stack (run_record
 * pushes nothing for it). */
static avk_status flat_record(dctx *c, const avki_node *n, avk_value *v, size_t level)
{
    avk_value *fields = NULL;
    size_t saved = c->depth;
    dframe scratch; /* only written (a union field's next index), never read */
    int st;
    if (n->count) {
        fields = (avk_value *)avki_dalloc(c, n->count * sizeof *fields, 8);
        if (AVK_UNLIKELY(!fields))
            return avki_dalloc_failed(c, n->count * sizeof *fields);
    }
    v->u.fields = fields;
    if (!n->count)
        return AVK_OK;
    c->depth = level;
    st = run_record(c, &scratch, n, fields, 0);
    c->depth = saved;
    return (avk_status)st;
}

/* One child of frame f, whose next child is then next: leaves in place,
 * records of leaves straight to their fields, the rest through
 * decode_child (DEC_PUSHED when it opened a frame). */
AVK_INLINE int decode_item(dctx *c, dframe *f, uint64_t next, const avki_step *s, avk_value *v)
{
    if (is_leaf_op(s->op))
        return decode_leaf(c, s, v);
    if (s->op == AVKI_OP_RECORD && c->nodes[s->node].flat &&
        AVK_LIKELY(c->depth < c->limits->max_depth)) {
        v->type = s->type;
        return flat_record(c, c->nodes + s->node, v, c->depth + 1);
    }
    f->i = next;
    return decode_child(c, s, v);
}

/* A failed child of a frame: its place in front of the tail. */
static avk_status child_failed(dctx *c, avki_seg_kind kind, uint64_t index, const char *name,
                               avk_status st)
{
    avki_dtail(c, kind, index, name);
    return st;
}

/* Fields [i, n->count) of the record in frame f (n and fields passed as
 * the caller has them: a load through the frame would sit between the
 * record's start and its first field). */
static int run_record(dctx *c, dframe *f, const avki_node *n, avk_value *fields, uint32_t i)
{
    const avki_step *s = c->steps + n->first;
    avk_reader *r = c->r;
    uint32_t count = n->count;
    const uint8_t *p = r->pos, *end = r->end;
    /* Views of strings need no copy and, unchecked, no UTF-8 pass. A
     * string checked for UTF-8 goes the general way; bytes could still
     * take the view, but one flag keeps the loop simple. */
    int views = c->fast_views;
    uint64_t max_bytes = c->limits->max_bytes;
    /* The position lives in a register across leaf fields: going through
     * r->pos would put a store and a reload between consecutive fields. */
    while (i < count) {
        int st;
        const uint8_t *q;
        fields[i].type = s[i].type;
        if (s[i].op == AVKI_OP_UNION)
            q = fast_union(c, s + i, fields + i, p, end, views, max_bytes);
        else
            q = fast_field(c->nodes, s + i, fields + i, p, end, views, max_bytes);
        if (AVK_LIKELY(q != NULL)) {
            p = q;
            i++;
            continue;
        }
        r->pos = p;
        if (s[i].run >= AVKI_DECODE_MIN_RUN &&
            (size_t)(end - p) >= s[i].run * (size_t)AVK_VARINT_LONG_MAX &&
            decode_run(c, s + i, fields + i) == 0) {
            i += s[i].run - 1u;
        } else {
            st = decode_item(c, f, i + 1, s + i, fields + i);
            if (st == DEC_PUSHED)
                return DEC_PUSHED;
            if (AVK_UNLIKELY(st != AVK_OK))
                return child_failed(c, AVKI_SEG_FIELD, i, n->type->fields[i].name,
                                    (avk_status)st);
        }
        p = r->pos;
        end = r->end;
        i++;
    }
    r->pos = p;
    return AVK_OK;
}

/* A writer field the reader lacks, skipped by the skipper when fast_skip
 * cannot: the skipper reports an error's whole path, this frame's included. */
static avk_status skip_field(dctx *c, const avki_node *n, const avki_step *s, uint32_t i);

/* A record read through resolution: the writer's fields in the writer's
 * order, each into its reader slot or skipped unread, then the reader's
 * fields the writer lacks from their defaults (shared, read-only). */
static int run_record_rx(dctx *c, dframe *f)
{
    const avki_node *n = f->n;
    const avki_rx *x = c->rx + n->extra;
    const avki_step *s = c->steps + n->first;
    avk_reader *r = c->r;
    avk_value *fields = f->v->u.fields;
    int views = c->fast_views;
    uint64_t max_bytes = c->limits->max_bytes;
    const uint8_t *p = r->pos, *end = r->end;
    uint32_t i;
    /* As in run_record, the position stays in a register across leaves. */
    for (i = (uint32_t)f->i; i < n->count; i++) {
        int st;
        const uint8_t *q;
        if (s[i].op == AVKI_OP_SKIP) {
            q = fast_skip(c->nodes, s + i, p, end, max_bytes);
            if (AVK_LIKELY(q != NULL)) {
                p = q;
                continue;
            }
            r->pos = p;
            st = skip_field(c, n, s + i, i);
            if (AVK_UNLIKELY(st != AVK_OK))
                return st;
        } else {
            avk_value *fv = fields + x->slots[i];
            fv->type = s[i].type;
            q = s[i].op == AVKI_OP_UNION ? fast_union(c, s + i, fv, p, end, views, max_bytes)
                                         : fast_field(c->nodes, s + i, fv, p, end, views,
                                                      max_bytes);
            if (AVK_LIKELY(q != NULL)) {
                p = q;
                continue;
            }
            r->pos = p;
            st = decode_item(c, f, i + 1, s + i, fv);
            if (st == DEC_PUSHED)
                return DEC_PUSHED;
            if (AVK_UNLIKELY(st != AVK_OK))
                return child_failed(c, AVKI_SEG_FIELD, x->slots[i],
                                    n->type->fields[x->slots[i]].name, (avk_status)st);
        }
        p = r->pos;
        end = r->end;
    }
    r->pos = p;
    for (i = 0; i < x->default_count; i++)
        fields[x->defaults[i].slot] = x->defaults[i].value;
    return AVK_OK;
}

/* Moves an open array or map to its next chunk of items: the rest of the
 * block, or the next block (checking the last one's byte size). *done is
 * set at the 0 that ends the collection. total items are decoded. */
AVK_INLINE avk_status next_chunk(dctx *c, dcoll *b, const avki_node *n, avk_value *v, int is_map,
                             uint64_t total, int *done)
{
    const avki_step *item = c->steps + n->first;
    /* A map entry takes at least its key's length byte. */
    uint64_t min_size = c->nodes[item->node].min_size + (uint64_t)is_map;
    for (;;) {
        if (b->left) {
            uint64_t take, cap = b->cap;
            AVK_TRY(avki_dtake_items(c, total, b->left, min_size,
                                     is_map || avki_dmay_be_malformed(item), b->off, &take));
            if (is_map) {
                uint64_t vcap = cap;
                AVK_TRY(avki_dreserve(c, (void **)&v->u.map.keys, &cap, total, total + take,
                                      sizeof(avk_bytes)));
                AVK_TRY(avki_dreserve(c, (void **)&v->u.map.values, &vcap, total, total + take,
                                      sizeof(avk_value)));
            } else {
                AVK_TRY(avki_dreserve(c, &v->u.array.items, &cap, total, total + take,
                                      sizeof(avk_value)));
            }
            b->cap = cap;
            b->chunk_end = total + take;
            b->left -= take;
            *done = 0;
            return AVK_OK;
        }
        AVK_TRY(avk_check_block_end(c->r, b->off, b->end, c->err));
        b->off = avk_reader_offset(c->r);
        AVK_TRY(avk_check_read_block(c->r, b->off, &b->left, &b->end, c->err));
        if (b->left == 0) {
            *done = 1;
            return AVK_OK;
        }
    }
}

static int run_array(dctx *c, dframe *f, dcoll *b)
{
    const avki_node *n = f->n;
    const avki_step *item = c->steps + n->first;
    avk_reader *r = c->r;
    avk_value *v = f->v;
    int views = c->fast_views;
    uint64_t max_bytes = c->limits->max_bytes;
    uint64_t i = f->i;
    for (;;) {
        avk_value *vals = (avk_value *)v->u.array.items;
        int done, st;
        for (; i < b->chunk_end; i++) {
            /* Leaf items (strings, enums, fixed) as in run_record. */
            const uint8_t *q;
            vals[i].type = item->type;
            q = fast_field(c->nodes, item, vals + i, r->pos, r->end, views, max_bytes);
            if (AVK_LIKELY(q != NULL)) {
                r->pos = q;
                continue;
            }
            st = decode_item(c, f, i + 1, item, vals + i);
            if (st == DEC_PUSHED)
                return DEC_PUSHED;
            if (AVK_UNLIKELY(st != AVK_OK))
                return child_failed(c, AVKI_SEG_ITEM, i, NULL, (avk_status)st);
        }
        AVK_TRY(next_chunk(c, b, n, v, 0, i, &done));
        if (done) {
            v->u.array.count = (size_t)i;
            return AVK_OK;
        }
    }
}

/* A map key as a view, its length one byte (keys are short); NULL sends
 * it the general way. */
AVK_INLINE const uint8_t *fast_key(const uint8_t *p, const uint8_t *end, avk_bytes *k,
                                   uint64_t max_bytes)
{
    size_t len;
    if (AVK_UNLIKELY(end - p < 2 * AVK_VARINT_LONG_MAX || p[0] >= 0x80 || (p[0] & 1)))
        return NULL;
    len = p[0] >> 1;
    if (AVK_UNLIKELY(len > max_bytes || len > (size_t)(end - p) - 1))
        return NULL;
    k->data = p + 1;
    k->len = len;
    return p + 1 + len;
}

static int run_map(dctx *c, dframe *f, dcoll *b)
{
    const avki_node *n = f->n;
    const avki_step *item = c->steps + n->first;
    avk_reader *r = c->r;
    avk_value *v = f->v;
    int views = c->fast_views;
    uint64_t max_bytes = c->limits->max_bytes;
    uint64_t i = f->i;
    for (;;) {
        avk_bytes *keys = v->u.map.keys;
        avk_value *vals = v->u.map.values;
        int done, st;
        for (; i < b->chunk_end; i++) {
            if (views) { /* as in run_record: key and leaf value in registers */
                const uint8_t *q = fast_key(r->pos, r->end, keys + i, max_bytes);
                if (AVK_LIKELY(q != NULL)) {
                    vals[i].type = item->type;
                    q = fast_field(c->nodes, item, vals + i, q, r->end, views, max_bytes);
                }
                if (AVK_LIKELY(q != NULL)) {
                    r->pos = q;
                    continue;
                }
            }
            st = read_string(c, keys + i, 1);
            if (AVK_UNLIKELY(st != AVK_OK))
                return child_failed(c, AVKI_SEG_KEY, i, NULL, (avk_status)st);
            vals[i].type = item->type;
            st = decode_item(c, f, i + 1, item, vals + i);
            if (st == DEC_PUSHED)
                return DEC_PUSHED;
            if (AVK_UNLIKELY(st != AVK_OK))
                return child_failed(c, AVKI_SEG_VALUE, i, NULL, (avk_status)st);
        }
        AVK_TRY(next_chunk(c, b, n, v, 1, i, &done));
        if (done) {
            v->u.map.count = (size_t)i;
            return AVK_OK;
        }
    }
}

/* ---- the error's place ------------------------------------------------------- */

static void set_via(avki_seg *out, const dframe *f)
{
    if (f->via == DV_BRANCH)
        out->via = AVKI_SEG_BRANCH;
    else if (f->via == DV_WRITER_BRANCH)
        out->via = AVKI_SEG_WRITER_BRANCH;
    else
        out->via = AVKI_SEG_NONE; /* a wrap has no place of its own */
    out->via_index = f->via_index;
}

/* Frame i's segment for avki_place: its via, and (below the top) the
 * child it is decoding, i - 1. */
static void frame_seg(const void *walker, size_t i, int top, avki_seg *out)
{
    const dctx *c = (const dctx *)walker;
    const dframe *f = c->frames + i;
    uint64_t k = f->i - 1;
    set_via(out, f);
    if (top)
        return;
    out->index = k;
    switch (f->kind) {
    case DK_RECORD:
        out->kind = AVKI_SEG_FIELD;
        out->name = f->n->type->fields[k].name;
        break;
    case DK_RECORD_RX:
        out->kind = AVKI_SEG_FIELD;
        out->index = c->rx[f->n->extra].slots[k];
        out->name = f->n->type->fields[out->index].name;
        break;
    case DK_ARRAY:
        out->kind = AVKI_SEG_ITEM;
        break;
    default:
        out->kind = AVKI_SEG_VALUE;
        break;
    }
}

static avki_path_part place_part(dctx *c)
{
    c->place.nframes = c->nframes;
    c->place.frame = frame_seg;
    c->place.walker = c;
    return avki_place_part(&c->place);
}

static avk_status report(dctx *c, avk_status st)
{
    if (!c->reported) {
        avki_path_part part = place_part(c);
        avki_path_report_parts(c->err, avki_type_label(c->plan->type), &part, 1);
    }
    return st;
}

static avk_status skip_field(dctx *c, const avki_node *n, const avki_step *s, uint32_t i)
{
    avki_path_part prefix;
    avk_status st;
    const avk_type *writer = c->rx[n->extra].writer;
    c->place.ntail = 0;
    avki_place_front(&c->place, AVKI_SEG_WRITER_FIELD, i, writer->fields[i].name, AVK_OK);
    prefix = place_part(c);
    st = avki_skip_nested(c->plan, c->r, s->node, c->depth, &c->empty, c->plan->type, &prefix,
                          c->err);
    if (AVK_UNLIKELY(st != AVK_OK)) {
        c->reported = 1;
        return st;
    }
    c->place.ntail = 0;
    return AVK_OK;
}

/* Runs the open frames to the end. */
static avk_status run(dctx *c)
{
    while (c->nframes) {
        dframe *f = c->frames + c->nframes - 1;
        int st;
        switch (f->kind) {
        case DK_RECORD: st = run_record(c, f, f->n, f->v->u.fields, (uint32_t)f->i); break;
        case DK_RECORD_RX: st = run_record_rx(c, f); break;
        case DK_ARRAY: st = run_array(c, f, c->colls + c->ncoll - 1); break;
        default: st = run_map(c, f, c->colls + c->ncoll - 1); break;
        }
        if (AVK_LIKELY(st == AVK_OK)) {
            c->depth -= f->via == DV_NONE ? 1 : 2;
            if (f->kind >= DK_ARRAY)
                c->ncoll--;
            c->nframes--;
        } else if (st != DEC_PUSHED) {
            return report(c, (avk_status)st);
        }
    }
    return AVK_OK;
}

/* The stack starts in the caller's frames and colls (on the C stack). */
AVK_INLINE void stack_init(dctx *c, dframe *frames, dcoll *colls)
{
    c->frames = frames;
    c->frame_cap = LOCAL_FRAMES;
    c->colls = colls;
    c->ncoll = 0;
    c->coll_cap = LOCAL_COLLS;
}

avk_status avk_plan_decode(const avk_plan *plan, avk_reader *r, avk_arena *arena, avk_value *out,
                           avk_error *err)
{
    dctx c;
    dframe frames[LOCAL_FRAMES];
    dcoll colls[LOCAL_COLLS];
    avki_step root;
    int st;
    if (AVK_UNLIKELY(!plan || !r || !arena || !out))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0, "avk_plan_decode: NULL argument");
    c.r = r;
    c.plan = plan;
    c.arena = &arena->core;
    c.arena->limit_hit = 0; /* a previous value's failure says nothing of this one */
    c.nodes = plan->nodes;
    c.steps = plan->steps;
    c.rx = plan->rx;
    c.limits = &plan->limits;
    c.memory = r->source == NULL;
    c.views = c.memory && !(plan->flags & AVK_PLAN_COPY_STRINGS);
    c.check_utf8 = (plan->flags & AVK_PLAN_CHECK_UTF8) != 0;
    c.fast_views = c.views && !c.check_utf8;
    c.empty = 0;
    c.mem = 0;
    c.err = err;
    c.depth = 0;
    c.nframes = 0;
    c.place.ntail = 0;
    c.reported = 0;
    out->type = plan->type;
    /* Most values are one record: it runs here, without the general child
     * and frame loop; one of leaves needs no stack at all. */
    if (AVK_LIKELY(plan->nodes[plan->root].op == AVKI_OP_RECORD)) {
        const avki_node *n = plan->nodes + plan->root;
        avk_value *fields = NULL;
        /* A resolving record holds the reader's fields. */
        uint32_t count = n->store ? plan->rx[n->extra].out_count : n->count;
        if (count) {
            fields = (avk_value *)avki_dalloc(&c, count * sizeof *fields, 8);
            if (AVK_UNLIKELY(!fields))
                return report(&c, avki_dalloc_failed(&c, count * sizeof *fields));
        }
        out->u.fields = fields;
        c.depth = 1; /* within every max_depth */
        if (n->flat) {
            dframe f;
            f.n = n;
            f.v = out;
            f.i = 0;
            st = run_record(&c, &f, n, fields, 0);
            return AVK_LIKELY(st == AVK_OK) ? AVK_OK : report(&c, (avk_status)st);
        }
        stack_init(&c, frames, colls);
        frames[0].n = n;
        frames[0].v = out;
        frames[0].i = 0;
        frames[0].via_index = 0;
        frames[0].kind = n->store ? DK_RECORD_RX : DK_RECORD;
        frames[0].via = DV_NONE;
        c.nframes = 1;
        st = n->store ? run_record_rx(&c, frames) : run_record(&c, frames, n, fields, 0);
        if (AVK_LIKELY(st == AVK_OK))
            return AVK_OK;
        if (st != DEC_PUSHED)
            return report(&c, (avk_status)st);
        return run(&c);
    }
    stack_init(&c, frames, colls);
    root.op = plan->nodes[plan->root].op;
    root.run = 0;
    root.node = plan->root;
    root.type = plan->type;
    st = decode_child(&c, &root, out);
    if (st == DEC_PUSHED)
        return run(&c);
    if (AVK_UNLIKELY(st != AVK_OK))
        return report(&c, (avk_status)st);
    return AVK_OK;
}
