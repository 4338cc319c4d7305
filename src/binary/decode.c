/* Binary decoder: runs a plan over a reader, building values in an arena, checking every length first. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binary/decode_internal.h"
#include "common/error.h"
#include "io/reader_internal.h"
#include "varint/kernels.h"
#include "varint/varint_word.h"

/* Items decoded per chunk from a stream when the bytes buffered do not
 * cover a block: the array grows as bytes actually arrive, so a hostile
 * count cannot make us allocate ahead of the input. */
#define STREAM_CHUNK_ITEMS 4096

typedef struct dctx {
    avk_reader *r;
    avki_arena *arena;
    const avki_node *nodes;
    const avki_step *steps;
    const avki_rx *rx;  /* resolving plans: what their nodes need besides */
    const avk_limits *limits;
    int views;          /* strings, bytes and fixed may point into the input */
    int check_utf8;
    int memory;         /* r is a memory reader: what remains is all there is */
    uint64_t empty;     /* zero-byte items seen in this value */
    uint64_t mem;       /* arena bytes taken by this value */
    avk_error *err;
} dctx;

static avk_status decode_node(dctx *c, uint32_t node, avk_value *v, size_t depth);

/* ---- cold error helpers ---------------------------------------------- */

avk_status avki_decode_fail(avk_error *err, avk_status st, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return st;
    avk_error_clear(err);
    err->status = st;
    err->offset = offset;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return st;
}

avk_status avki_path_prepend(avk_error *err, avk_status st, const char *fmt, ...)
{
    char seg[64];
    size_t seg_len, old_len;
    va_list ap;
    if (!err)
        return st;
    va_start(ap, fmt);
    vsnprintf(seg, sizeof seg, fmt, ap);
    va_end(ap);
    seg_len = strlen(seg);
    old_len = strlen(err->path);
    /* Too deep to describe fully: keep the innermost part (most useful). */
    if (seg_len + old_len + 1 > sizeof err->path)
        return st;
    memmove(err->path + seg_len, err->path, old_len + 1);
    memcpy(err->path, seg, seg_len);
    return st;
}

void avki_path_finish(avk_error *err, const avk_type *root)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    const char *name;
    if (!err)
        return;
    name = root->fullname ? root->fullname : avk_kind_name(root->kind);
    avki_path_prepend(err, err->status, "%s", name);
    {
        /* "<path>: <message>", cut to the buffer. */
        size_t pl = strlen(err->path), ml = strlen(err->message), n = 0;
        size_t room = sizeof msg - 1;
        memcpy(msg, err->path, pl < room ? pl : room);
        n = pl < room ? pl : room;
        if (n + 2 <= room) {
            memcpy(msg + n, ": ", 2);
            n += 2;
        }
        if (ml > room - n)
            ml = room - n;
        memcpy(msg + n, err->message, ml);
        n += ml;
        msg[n] = '\0';
        memcpy(err->message, msg, n + 1);
    }
}

avk_status avki_length_error(avk_error *err, int64_t n, uint64_t max_bytes, uint64_t off,
                             const char *what)
{
    if (n < 0)
        return avki_decode_fail(err, AVK_ERR_MALFORMED, off, "negative %s length %lld", what,
                                (long long)n);
    return avki_decode_fail(err, AVK_ERR_LIMIT, off, "%s length %lld is above max_bytes (%llu)",
                            what, (long long)n, (unsigned long long)max_bytes);
}

/* ---- helpers ---------------------------------------------------------- */

AVK_INLINE void *dalloc(dctx *c, size_t size, size_t align)
{
    c->mem += size;
    if (AVK_UNLIKELY(c->mem > c->limits->max_memory))
        return NULL;
    return avki_arena_alloc_fast(c->arena, size, align);
}

static avk_status alloc_failed(dctx *c, size_t size)
{
    if (c->mem > c->limits->max_memory)
        return avki_decode_fail(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                                "value needs more than max_memory (%llu bytes)",
                                (unsigned long long)c->limits->max_memory);
    if (c->arena->limit_hit)
        return avki_decode_fail(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                                "arena limit reached allocating %zu bytes", size);
    return avki_decode_fail(c->err, AVK_ERR_NO_MEMORY, avk_reader_offset(c->r),
                            "out of memory allocating %zu bytes", size);
}

/* Valid UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). */
int avki_utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t b = s[i];
        if (b < 0x80) {
            /* ASCII runs 8 bytes at a time. */
            while (i + 8 <= n) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            if (i < n && s[i] < 0x80)
                i++;
            continue;
        }
        if (b >= 0xC2 && b <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
                return 0;
            i += 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            uint8_t lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
            if (i + 2 >= n || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xC0) != 0x80)
                return 0;
            i += 3;
        } else if (b >= 0xF0 && b <= 0xF4) {
            uint8_t lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
            if (i + 3 >= n || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80)
                return 0;
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

/* Reads a length (string, bytes, map key) and checks it: not negative,
 * within max_bytes, and within the input for a memory reader. */
AVK_INLINE avk_status read_length(dctx *c, uint64_t *len, uint64_t off, const char *what)
{
    avk_reader *r = c->r;
    int64_t n;
    AVK_TRY(avk_reader_read_long(r, &n, c->err));
    AVK_TRY(avki_check_length(n, c->limits->max_bytes, off, what, c->err));
    if (AVK_UNLIKELY(c->memory && (uint64_t)n > (uint64_t)(r->end - r->pos)))
        return avki_decode_fail(c->err, AVK_ERR_TRUNCATED, off,
                                "%s length %lld but only %zu bytes remain", what, (long long)n,
                                (size_t)(r->end - r->pos));
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
    buf = (uint8_t *)dalloc(c, cap + 1, 1);
    if (!buf)
        return alloc_failed(c, cap + 1);
    for (;;) {
        size_t take = cap - have;
        AVK_TRY(avk_reader_read_raw(r, buf + have, take, c->err));
        have += take;
        if (have == len)
            break;
        {
            size_t ncap = cap * 2 > len ? len : cap * 2;
            uint8_t *nb = (uint8_t *)dalloc(c, ncap + 1, 1);
            if (!nb)
                return alloc_failed(c, ncap + 1);
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
    buf = (uint8_t *)dalloc(c, len + 1, 1);
    if (AVK_UNLIKELY(!buf))
        return alloc_failed(c, len + 1);
    AVK_TRY(avk_reader_read_raw(r, buf, len, c->err));
    buf[len] = 0;
    *out = buf;
    return AVK_OK;
}

static avk_status bad_utf8(dctx *c, uint64_t off, size_t len)
{
    return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off,
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
        return avki_decode_fail(c->err, AVK_ERR_TRUNCATED, avk_reader_offset(r),
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
    return avki_decode_fail(c->err, AVK_ERR_MALFORMED, avk_reader_offset(c->r) - 1,
                            "boolean byte is 0x%02x, expected 0 or 1", b);
}

static avk_status bad_index(dctx *c, uint64_t off, const char *what, int64_t idx, uint32_t count)
{
    return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off, "%s index %lld out of range (%u %s)",
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

/* ---- the step loop ------------------------------------------------------ */

/* One value of step s into v: leaves inline, compounds through decode_node. */
AVK_INLINE avk_status decode_step(dctx *c, const avki_step *s, avk_value *v, size_t depth)
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
    default:
        return decode_node(c, s->node, v, depth);
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
        if (s->run) /* a run goes through the bulk decoder */
            return NULL;
        n = avki_decode_u64_word(p, &u);
        if (AVK_UNLIKELY(n - 1 >= AVK_VARINT_INT_MAX || (u >> 32) != 0))
            return NULL;
        f->u.i = avk_zigzag_decode32((uint32_t)u);
        return p + n;
    case AVKI_OP_LONG:
        if (s->run)
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
        f->u.index = (int32_t)idx;
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
                                     const uint8_t *end, int views, uint64_t max_bytes,
                                     size_t depth)
{
    const avki_node *n = c->nodes + s->node;
    uint32_t idx;
    const avki_step *b;
    avk_value *bv;
    const uint8_t *q;
    if (AVK_UNLIKELY(end - p < 2 * AVK_VARINT_LONG_MAX))
        return NULL;
    idx = (uint32_t)p[0] >> 1;
    if (AVK_UNLIKELY((p[0] & 0x81) != 0 || idx >= n->count || depth >= c->limits->max_depth ||
                     n->store))
        return NULL; /* (store: a resolving union maps branches) */
    b = c->steps + n->first + idx;
    if (b->op >= AVKI_OP_RECORD && b->op != AVKI_OP_ENUM && b->op != AVKI_OP_FIXED)
        return NULL;
    bv = (avk_value *)dalloc(c, sizeof *bv, 8);
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

static avk_status decode_record_resolving(dctx *c, const avki_node *n, avk_value *v,
                                         size_t depth);

static avk_status decode_record(dctx *c, const avki_node *n, avk_value *v, size_t depth)
{
    const avki_step *s = c->steps + n->first;
    avk_reader *r = c->r;
    uint32_t i, count = n->count;
    avk_value *fields = NULL;
    const uint8_t *p, *end;
    int views;
    uint64_t max_bytes;
    if (AVK_UNLIKELY(n->store))
        return decode_record_resolving(c, n, v, depth);
    if (count) {
        fields = (avk_value *)dalloc(c, count * sizeof *fields, 8);
        if (AVK_UNLIKELY(!fields))
            return alloc_failed(c, count * sizeof *fields);
    }
    v->u.fields = fields;
    /* The position lives in a register across leaf fields: going through
     * r->pos would put a store and a reload between consecutive fields. */
    p = r->pos;
    end = r->end;
    /* Views of strings need no copy and, unchecked, no UTF-8 pass. A
     * string checked for UTF-8 goes the general way; bytes could still
     * take the view, but one flag keeps the loop simple. */
    views = c->views && !c->check_utf8;
    max_bytes = c->limits->max_bytes;
    for (i = 0; i < count; i++) {
        avk_status st;
        const uint8_t *q;
        fields[i].type = s[i].type;
        if (s[i].op == AVKI_OP_UNION)
            q = fast_union(c, s + i, fields + i, p, end, views, max_bytes, depth);
        else
            q = fast_field(c->nodes, s + i, fields + i, p, end, views, max_bytes);
        if (AVK_LIKELY(q != NULL)) {
            p = q;
            continue;
        }
        r->pos = p;
        if (s[i].run && (size_t)(end - p) >= s[i].run * (size_t)AVK_VARINT_LONG_MAX &&
            decode_run(c, s + i, fields + i) == 0) {
            i += s[i].run - 1u;
        } else {
            st = decode_step(c, s + i, fields + i, depth);
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_path_prepend(c->err, st, ".fields[%u]", i);
        }
        p = r->pos;
        end = r->end;
    }
    r->pos = p;
    return AVK_OK;
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

/* A record read through resolution: the writer's fields in the writer's
 * order, each into its reader slot or skipped unread, then the reader's
 * fields the writer lacks from their defaults (shared, read-only). */
static avk_status decode_record_resolving(dctx *c, const avki_node *n, avk_value *v,
                                         size_t depth)
{
    const avki_rx *x = c->rx + n->extra;
    const avki_step *s = c->steps + n->first;
    avk_reader *r = c->r;
    avk_value *fields = NULL;
    int views = c->views && !c->check_utf8;
    uint64_t max_bytes = c->limits->max_bytes;
    const uint8_t *p, *end;
    uint32_t i;
    if (x->out_count) {
        fields = (avk_value *)dalloc(c, x->out_count * sizeof *fields, 8);
        if (AVK_UNLIKELY(!fields))
            return alloc_failed(c, x->out_count * sizeof *fields);
    }
    v->u.fields = fields;
    /* As in decode_record, the position stays in a register across leaves. */
    p = r->pos;
    end = r->end;
    for (i = 0; i < n->count; i++) {
        avk_status st;
        const uint8_t *q;
        if (s[i].op == AVKI_OP_SKIP) {
            q = fast_skip(c->nodes, s + i, p, end, max_bytes);
            if (AVK_LIKELY(q != NULL)) {
                p = q;
                continue;
            }
            r->pos = p;
            st = avki_skip_value(c->nodes, c->steps, c->limits, r, s[i].node, depth, &c->empty,
                                 c->err);
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_path_prepend(c->err, st, ".writer_field[%u]", i);
        } else {
            avk_value *f = fields + x->slots[i];
            f->type = s[i].type;
            q = s[i].op == AVKI_OP_UNION
                    ? fast_union(c, s + i, f, p, end, views, max_bytes, depth)
                    : fast_field(c->nodes, s + i, f, p, end, views, max_bytes);
            if (AVK_LIKELY(q != NULL)) {
                p = q;
                continue;
            }
            r->pos = p;
            st = decode_step(c, s + i, f, depth);
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_path_prepend(c->err, st, ".fields[%u]", x->slots[i]);
        }
        p = r->pos;
        end = r->end;
    }
    r->pos = p;
    for (i = 0; i < x->default_count; i++)
        fields[x->defaults[i].slot] = x->defaults[i].value;
    return AVK_OK;
}

/* Reads a block header at offset off: *count items (0 ends the
 * collection). Negative counts are followed by the block's byte size:
 * *end gets the offset where the block must end (UINT64_MAX when no size
 * was given), checked by block_done. */
AVK_INLINE avk_status read_block(dctx *c, uint64_t off, uint64_t *count, uint64_t *end)
{
    avk_reader *r = c->r;
    int64_t n;
    *end = UINT64_MAX;
    AVK_TRY(avk_reader_read_long(r, &n, c->err));
    if (n < 0) {
        int64_t size;
        if (AVK_UNLIKELY(n == INT64_MIN))
            return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off,
                                    "block count -2^63 cannot be negated");
        n = -n;
        AVK_TRY(avk_reader_read_long(r, &size, c->err));
        if (AVK_UNLIKELY(size < 0))
            return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off, "negative block size %lld",
                                    (long long)size);
        if (AVK_UNLIKELY(c->memory && (uint64_t)size > (uint64_t)(r->end - r->pos)))
            return avki_decode_fail(c->err, AVK_ERR_TRUNCATED, off,
                                    "block of %lld bytes but only %zu remain", (long long)size,
                                    (size_t)(r->end - r->pos));
        *end = avk_reader_offset(r) + (uint64_t)size;
    }
    *count = (uint64_t)n;
    return AVK_OK;
}

/* A block whose byte size disagrees with its items is malformed: a skipper
 * trusting the size would land elsewhere than a decoder. */
static avk_status block_size_wrong(dctx *c, uint64_t off, uint64_t end)
{
    return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off,
                            "block byte size ends at offset %llu but its items end at %llu",
                            (unsigned long long)end,
                            (unsigned long long)avk_reader_offset(c->r));
}

/* How many of the block's remaining items to decode now, after checking
 * them against the limits and the input. off is the block header's offset. */
static avk_status take_items(dctx *c, uint64_t total, uint64_t left, uint64_t min_size,
                             uint64_t off, uint64_t *take)
{
    avk_reader *r = c->r;
    uint64_t avail = (uint64_t)(r->end - r->pos), n = left;
    if (AVK_UNLIKELY(left > c->limits->max_items - total || total > c->limits->max_items))
        return avki_decode_fail(c->err, AVK_ERR_LIMIT, off,
                                "collection of more than max_items (%llu) items",
                                (unsigned long long)c->limits->max_items);
    if (min_size == 0) {
        c->empty += left;
        if (AVK_UNLIKELY(c->empty > c->limits->max_empty_items))
            return avki_decode_fail(c->err, AVK_ERR_LIMIT, off,
                                    "more than max_empty_items (%llu) zero-byte items",
                                    (unsigned long long)c->limits->max_empty_items);
    } else if (left > avail / min_size) {
        if (c->memory)
            return avki_decode_fail(c->err, AVK_ERR_TRUNCATED, off,
                                    "block of %llu items needs at least %llu bytes but only "
                                    "%llu remain",
                                    (unsigned long long)left,
                                    (unsigned long long)(left > UINT64_MAX / min_size
                                                             ? UINT64_MAX
                                                             : left * min_size),
                                    (unsigned long long)avail);
        n = avail / min_size;
        if (n < STREAM_CHUNK_ITEMS)
            n = left < STREAM_CHUNK_ITEMS ? left : STREAM_CHUNK_ITEMS;
    }
    *take = n;
    return AVK_OK;
}

/* Makes room for need items of elem bytes in *items (capacity *cap),
 * keeping the first have. Grows by doubling; the old storage stays in
 * the arena until reset. */
static avk_status reserve_items(dctx *c, void **items, uint64_t *cap, uint64_t have,
                                uint64_t need, size_t elem)
{
    uint64_t ncap;
    void *p;
    if (need <= *cap)
        return AVK_OK;
    if (elem == 0) { /* items of null: a count and nothing stored */
        *cap = need;
        return AVK_OK;
    }
    ncap = *cap ? *cap * 2 : need;
    if (ncap < need)
        ncap = need;
    if (ncap > (SIZE_MAX / 2) / elem)
        return alloc_failed(c, SIZE_MAX);
    if ((size_t)ncap * elem >= 256) {
        /* Large arrays start on a cache line, so the copy into them does
         * not split its 64-byte stores (measured on DoubleArray256: from
         * about 2.0x to 1.9x the time of a bare memcpy). */
        p = dalloc(c, (size_t)ncap * elem + 48, 16);
        if (p)
            p = (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
    } else {
        p = dalloc(c, (size_t)ncap * elem, 8);
    }
    if (!p)
        return alloc_failed(c, (size_t)ncap * elem);
    if (have)
        memcpy(p, *items, (size_t)have * elem);
    *items = p;
    *cap = ncap;
    return AVK_OK;
}

static int bytes_are_booleans(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    size_t i;
    for (i = 0; i < n; i++)
        acc |= p[i];
    return (acc & 0xFE) == 0;
}

/* Typed items of a resolving plan whose writer items are narrower (or
 * another wire form) than the reader's storage: read in bulk where the
 * wire allows, then widened in place from the end (each wider item lands
 * on narrower ones already converted); anything else item by item. */
static avk_status read_promoted(dctx *c, const avki_node *n, const avki_step *item, uint8_t *dst,
                                size_t count, size_t *bad, size_t depth)
{
    avk_reader *r = c->r;
    size_t i;
    switch ((avki_op)item->op) {
    case AVKI_OP_INT_LONG:
    case AVKI_OP_INT_DOUBLE:
        AVK_TRY(avki_reader_read_ints_counted(r, (int32_t *)(void *)dst, count, bad, c->err));
        for (i = count; i-- > 0;) {
            int32_t x;
            memcpy(&x, dst + 4 * i, 4);
            if (item->op == AVKI_OP_INT_LONG) {
                int64_t y = x;
                memcpy(dst + 8 * i, &y, 8);
            } else {
                double y = x;
                memcpy(dst + 8 * i, &y, 8);
            }
        }
        return AVK_OK;
    case AVKI_OP_INT_FLOAT:
        AVK_TRY(avki_reader_read_ints_counted(r, (int32_t *)(void *)dst, count, bad, c->err));
        for (i = 0; i < count; i++) {
            int32_t x;
            float y;
            memcpy(&x, dst + 4 * i, 4);
            y = (float)x;
            memcpy(dst + 4 * i, &y, 4);
        }
        return AVK_OK;
    case AVKI_OP_LONG_DOUBLE:
        AVK_TRY(avki_reader_read_longs_counted(r, (int64_t *)(void *)dst, count, bad, c->err));
        for (i = 0; i < count; i++) {
            int64_t x;
            double y;
            memcpy(&x, dst + 8 * i, 8);
            y = (double)x;
            memcpy(dst + 8 * i, &y, 8);
        }
        return AVK_OK;
    case AVKI_OP_FLOAT_DOUBLE: {
        uint64_t off = avk_reader_offset(r);
        avk_status st = avk_reader_read_raw(r, dst, count * 4, c->err);
        if (AVK_UNLIKELY(st != AVK_OK)) {
            *bad = (size_t)((avk_reader_offset(r) - off) / 4);
            return st;
        }
        for (i = count; i-- > 0;) {
            float x;
            double y;
            memcpy(&x, dst + 4 * i, 4);
            y = x;
            memcpy(dst + 8 * i, &y, 8);
        }
        return AVK_OK;
    }
    default: {
        /* long to float (the wire is wider than the storage), a union of
         * the writer's read as one type, and the like: one by one. */
        size_t size = avki_store_size(n);
        for (i = 0; i < count; i++) {
            avk_value tmp;
            avk_status st;
            tmp.type = item->type;
            st = decode_step(c, item, &tmp, depth);
            if (AVK_UNLIKELY(st != AVK_OK)) {
                *bad = i;
                return st;
            }
            switch ((avki_store)n->store) {
            case AVKI_STORE_BOOLEAN: dst[i] = (uint8_t)tmp.u.boolean; break;
            case AVKI_STORE_INT: memcpy(dst + size * i, &tmp.u.i, 4); break;
            case AVKI_STORE_LONG: memcpy(dst + size * i, &tmp.u.l, 8); break;
            case AVKI_STORE_FLOAT: memcpy(dst + size * i, &tmp.u.f, 4); break;
            case AVKI_STORE_DOUBLE: memcpy(dst + size * i, &tmp.u.d, 8); break;
            case AVKI_STORE_FIXED:
                if (size) /* fixed(0): nothing stored, dst may be NULL */
                    memcpy(dst + size * i, tmp.u.bytes.data, size);
                break;
            default: break;
            }
        }
        return AVK_OK;
    }
    }
}

/* count typed items straight into dst (a C array). On error *bad gets
 * the index of the item at fault (from 0 in this call). */
static avk_status read_typed(dctx *c, const avki_node *n, void *dst, size_t count, size_t *bad,
                             size_t depth)
{
    avk_reader *r = c->r;
    const avki_step *item = c->steps + n->first;
    size_t size;
    uint64_t off;
    avk_status st;
    *bad = 0;
    /* In a resolving plan the items may need converting on the way. */
    if (AVK_UNLIKELY(item->op > AVKI_OP_LAST_PLAIN || c->nodes[item->node].store))
        return read_promoted(c, n, item, (uint8_t *)dst, count, bad, depth);
    switch ((avki_store)n->store) {
    case AVKI_STORE_INT:
        return avki_reader_read_ints_counted(r, (int32_t *)dst, count, bad, c->err);
    case AVKI_STORE_LONG:
        return avki_reader_read_longs_counted(r, (int64_t *)dst, count, bad, c->err);
    case AVKI_STORE_BOOLEAN: {
        off = avk_reader_offset(r);
        AVK_TRY(avk_reader_read_raw(r, dst, count, c->err));
        if (AVK_UNLIKELY(!bytes_are_booleans((const uint8_t *)dst, count))) {
            size_t i = 0;
            while (((const uint8_t *)dst)[i] <= 1)
                i++;
            *bad = i;
            return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off + i,
                                    "boolean byte is 0x%02x, expected 0 or 1",
                                    ((const uint8_t *)dst)[i]);
        }
        return AVK_OK;
    }
    case AVKI_STORE_NULL:
        return AVK_OK;
    default: /* float, double, fixed: the wire format is the C layout */
        size = avki_store_size(n);
        off = avk_reader_offset(r);
        st = avk_reader_read_raw(r, dst, count * size, c->err);
        if (AVK_UNLIKELY(st != AVK_OK)) {
            /* The first item that did not fit. */
            uint64_t have = avk_reader_offset(r) - off;
            *bad = (size_t)(have / size);
            if (st == AVK_ERR_TRUNCATED)
                return avki_decode_fail(c->err, st, off + *bad * size,
                                        "input ends inside an item of %zu bytes", size);
        }
        return st;
    }
}

static avk_status decode_array(dctx *c, const avki_node *n, avk_value *v, size_t depth)
{
    const avki_step *item = c->steps + n->first;
    uint64_t min_size = c->nodes[item->node].min_size;
    int boxed = n->store == AVKI_STORE_BOXED;
    size_t elem = boxed ? sizeof(avk_value) : avki_store_size(n);
    void *items = NULL;
    uint64_t total = 0, cap = 0;

    for (;;) {
        uint64_t left = 0, end, off = avk_reader_offset(c->r);
        AVK_TRY(read_block(c, off, &left, &end));
        if (left == 0)
            break;
        while (left) {
            uint64_t take, i;
            AVK_TRY(take_items(c, total, left, min_size, off, &take));
            AVK_TRY(reserve_items(c, &items, &cap, total, total + take, elem));
            if (boxed) {
                avk_value *vals = (avk_value *)items + total;
                avk_reader *r = c->r;
                int views = c->views && !c->check_utf8;
                for (i = 0; i < take; i++) {
                    avk_status st;
                    /* Leaf items (strings, enums, fixed) as in decode_record. */
                    const uint8_t *q;
                    vals[i].type = item->type;
                    q = fast_field(c->nodes, item, vals + i, r->pos, r->end, views,
                                   c->limits->max_bytes);
                    if (AVK_LIKELY(q != NULL)) {
                        r->pos = q;
                        continue;
                    }
                    st = decode_step(c, item, vals + i, depth);
                    if (AVK_UNLIKELY(st != AVK_OK))
                        return avki_path_prepend(c->err, st, ".items[%llu]",
                                                 (unsigned long long)(total + i));
                }
            } else if (elem || item->op > AVKI_OP_LAST_PLAIN || c->nodes[item->node].store) {
                /* Items of null or fixed(0) store nothing and, in a plain
                 * plan, have no bytes; a resolving plan may still have to
                 * read the writer's (a union read as null, say). */
                size_t bad;
                avk_status st = read_typed(c, n, elem ? (uint8_t *)items + total * elem : NULL,
                                           (size_t)take, &bad, depth);
                if (AVK_UNLIKELY(st != AVK_OK))
                    return avki_path_prepend(c->err, st, ".items[%llu]",
                                             (unsigned long long)(total + bad));
            }
            total += take;
            left -= take;
        }
        if (AVK_UNLIKELY(end != UINT64_MAX && avk_reader_offset(c->r) != end))
            return block_size_wrong(c, off, end);
    }
    v->u.array.items = items;
    v->u.array.count = (size_t)total;
    return AVK_OK;
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

static avk_status decode_map(dctx *c, const avki_node *n, avk_value *v, size_t depth)
{
    const avki_step *item = c->steps + n->first;
    uint64_t min_size = c->nodes[item->node].min_size + 1; /* the key's length */
    void *keys = NULL, *vals = NULL;
    uint64_t total = 0, kcap = 0, vcap = 0;
    int views = c->views && !c->check_utf8;
    uint64_t max_bytes = c->limits->max_bytes;

    for (;;) {
        uint64_t left = 0, end, off = avk_reader_offset(c->r);
        AVK_TRY(read_block(c, off, &left, &end));
        if (left == 0)
            break;
        while (left) {
            uint64_t take, i;
            AVK_TRY(take_items(c, total, left, min_size, off, &take));
            AVK_TRY(reserve_items(c, &keys, &kcap, total, total + take, sizeof(avk_bytes)));
            AVK_TRY(reserve_items(c, &vals, &vcap, total, total + take, sizeof(avk_value)));
            for (i = 0; i < take; i++) {
                avk_bytes *k = (avk_bytes *)keys + total + i;
                avk_value *val = (avk_value *)vals + total + i;
                avk_status st;
                if (views) { /* as in decode_record: key and leaf value in registers */
                    avk_reader *r = c->r;
                    const uint8_t *q = fast_key(r->pos, r->end, k, max_bytes);
                    if (AVK_LIKELY(q != NULL)) {
                        val->type = item->type;
                        q = fast_field(c->nodes, item, val, q, r->end, views, max_bytes);
                    }
                    if (AVK_LIKELY(q != NULL)) {
                        r->pos = q;
                        continue;
                    }
                }
                st = read_string(c, k, 1);
                if (AVK_UNLIKELY(st != AVK_OK))
                    return avki_path_prepend(c->err, st, ".keys[%llu]",
                                             (unsigned long long)(total + i));
                st = decode_step(c, item, (avk_value *)vals + total + i, depth);
                if (AVK_UNLIKELY(st != AVK_OK))
                    return avki_path_prepend(c->err, st, ".values[%llu]",
                                             (unsigned long long)(total + i));
            }
            total += take;
            left -= take;
        }
        if (AVK_UNLIKELY(end != UINT64_MAX && avk_reader_offset(c->r) != end))
            return block_size_wrong(c, off, end);
    }
    v->u.map.keys = (avk_bytes *)keys;
    v->u.map.values = (avk_value *)vals;
    v->u.map.count = (size_t)total;
    return AVK_OK;
}

static avk_status decode_union(dctx *c, const avki_node *n, avk_value *v, size_t depth)
{
    avk_reader *r = c->r;
    int64_t idx;
    uint64_t off = avk_reader_offset(r);
    avk_value *bv;
    avk_status st;
    AVK_TRY(avk_reader_read_long(r, &idx, c->err));
    if (AVK_UNLIKELY(idx < 0 || (uint64_t)idx >= n->count))
        return bad_index(c, off, "union branch", idx, n->count);
    bv = (avk_value *)dalloc(c, sizeof *bv, 8);
    if (AVK_UNLIKELY(!bv))
        return alloc_failed(c, sizeof *bv);
    v->u.branch.value = bv;
    /* A resolving union takes the reader's branch index (a FAIL step
     * reports a writer branch without one). */
    v->u.branch.index = n->store ? (uint32_t)c->rx[n->extra].map[idx] : (uint32_t)idx;
    st = decode_step(c, c->steps + n->first + idx, bv, depth);
    if (AVK_UNLIKELY(st != AVK_OK))
        return avki_path_prepend(c->err, st, ".branch[%u]", (unsigned)idx);
    return AVK_OK;
}

static avk_status depth_exceeded(dctx *c)
{
    return avki_decode_fail(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                            "nesting deeper than max_depth (%zu)", c->limits->max_depth);
}

static avk_status decode_node(dctx *c, uint32_t node, avk_value *v, size_t depth)
{
    const avki_node *n = c->nodes + node;
    switch ((avki_op)n->op) {
    case AVKI_OP_RECORD:
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        return decode_record(c, n, v, depth);
    case AVKI_OP_ENUM: {
        int32_t idx;
        uint64_t off = avk_reader_offset(c->r);
        AVK_TRY(avk_reader_read_int(c->r, &idx, c->err));
        if (AVK_UNLIKELY(idx < 0 || (uint32_t)idx >= n->count))
            return bad_index(c, off, "enum", idx, n->count);
        if (n->store) { /* resolving: the reader's symbol */
            const avki_rx *x = c->rx + n->extra;
            if (AVK_UNLIKELY(x->map[idx] < 0))
                return avki_decode_fail(c->err, AVK_ERR_RESOLUTION, off,
                                        "writer symbol %s is not in reader enum %s, which has "
                                        "no default",
                                        x->writer->symbols[idx], n->type->fullname);
            idx = x->map[idx];
        }
        v->u.index = idx;
        return AVK_OK;
    }
    case AVKI_OP_FIXED:
        return read_fixed(c, n->count, &v->u.bytes);
    case AVKI_OP_ARRAY:
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        return decode_array(c, n, v, depth);
    case AVKI_OP_MAP:
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        return decode_map(c, n, v, depth);
    case AVKI_OP_UNION:
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        return decode_union(c, n, v, depth);
    case AVKI_OP_UNWRAP: {
        int64_t idx;
        uint64_t off = avk_reader_offset(c->r);
        avk_status st;
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        AVK_TRY(avk_reader_read_long(c->r, &idx, c->err));
        if (AVK_UNLIKELY(idx < 0 || (uint64_t)idx >= n->count))
            return bad_index(c, off, "union branch", idx, n->count);
        st = decode_step(c, c->steps + n->first + idx, v, depth);
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_path_prepend(c->err, st, ".writer_branch[%u]", (unsigned)idx);
        return AVK_OK;
    }
    case AVKI_OP_WRAP: {
        avk_value *bv;
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        bv = (avk_value *)dalloc(c, sizeof *bv, 8);
        if (AVK_UNLIKELY(!bv))
            return alloc_failed(c, sizeof *bv);
        v->u.branch.value = bv;
        v->u.branch.index = n->count;
        return decode_step(c, c->steps + n->first, bv, depth);
    }
    case AVKI_OP_FAIL:
        return avki_decode_fail(c->err, AVK_ERR_RESOLUTION, avk_reader_offset(c->r), "%s",
                                c->rx[n->extra].message);
    default: {
        /* A leaf reached as a node (the root). */
        avki_step s;
        s.op = n->op;
        s.node = node;
        s.type = n->type;
        return decode_step(c, &s, v, depth);
    }
    }
}

avk_status avk_plan_decode(const avk_plan *plan, avk_reader *r, avk_arena *arena, avk_value *out,
                           avk_error *err)
{
    dctx c;
    avk_status st;
    if (AVK_UNLIKELY(!plan || !r || !arena || !out))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0, "avk_plan_decode: NULL argument");
    c.r = r;
    c.arena = &arena->core;
    c.arena->limit_hit = 0; /* a previous value's failure says nothing of this one */
    c.nodes = plan->nodes;
    c.steps = plan->steps;
    c.rx = plan->rx;
    c.limits = &plan->limits;
    c.memory = r->source == NULL;
    c.views = c.memory && !(plan->flags & AVK_PLAN_COPY_STRINGS);
    c.check_utf8 = (plan->flags & AVK_PLAN_CHECK_UTF8) != 0;
    c.empty = 0;
    c.mem = 0;
    c.err = err;
    out->type = plan->type;
    /* Most plans are records: go straight to the field loop (depth 1 is
     * within every max_depth). */
    if (plan->nodes[plan->root].op == AVKI_OP_RECORD)
        st = decode_record(&c, plan->nodes + plan->root, out, 1);
    else
        st = decode_node(&c, plan->root, out, 0);
    if (AVK_UNLIKELY(st != AVK_OK))
        avki_path_finish(err, plan->type);
    return st;
}
