/* Skipper: moves a reader past one value without building it, jumping over sized blocks whole. */
#include <string.h>

#include "binary/decode_internal.h"
#include "common/error.h"

typedef struct sctx {
    avk_reader *r;
    const avki_node *nodes;
    const avki_step *steps;
    const avk_limits *limits;
    uint64_t empty; /* zero-byte items seen */
    int memory;     /* r is a memory reader: what remains is all there is */
    avk_error *err;
} sctx;

static avk_status skip_node(sctx *c, uint32_t node, size_t depth);

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
        return avki_decode_fail(c->err, st, off, "%s length %llu but the input ends first", what,
                                (unsigned long long)n);
    return st;
}

AVK_INLINE avk_status skip_length(sctx *c, const char *what)
{
    avk_reader *r = c->r;
    int64_t n;
    uint64_t off = avk_reader_offset(r);
    AVK_TRY(avk_reader_read_long(r, &n, c->err));
    AVK_TRY(avki_check_length(n, c->limits->max_bytes, off, what, c->err));
    if (AVK_LIKELY((uint64_t)(r->end - r->pos) >= (uint64_t)n)) {
        r->pos += n;
        return AVK_OK;
    }
    return skip_payload_slow(c, (uint64_t)n, off, what);
}

AVK_INLINE avk_status skip_step(sctx *c, const avki_step *s, size_t depth)
{
    avk_reader *r = c->r;
    switch ((avki_op)s->op) {
    case AVKI_OP_NULL:
        return AVK_OK;
    case AVKI_OP_BOOLEAN: {
        int b;
        if (AVK_LIKELY(r->pos < r->end && *r->pos <= 1)) {
            r->pos++;
            return AVK_OK;
        }
        return avk_reader_read_boolean(r, &b, c->err);
    }
    case AVKI_OP_INT:
        return skip_int(c);
    case AVKI_OP_LONG:
        return skip_long(c);
    case AVKI_OP_FLOAT:
        return skip_bytes(c, 4);
    case AVKI_OP_DOUBLE:
        return skip_bytes(c, 8);
    case AVKI_OP_STRING:
        return skip_length(c, "string");
    case AVKI_OP_BYTES:
        return skip_length(c, "bytes");
    default:
        return skip_node(c, s->node, depth);
    }
}

/* Skips the blocks of an array (per_item = 1 step) or map (key + value). */
static avk_status skip_blocks(sctx *c, const avki_node *n, int is_map, size_t depth)
{
    avk_reader *r = c->r;
    const avki_step *item = c->steps + n->first;
    uint64_t fixed = is_map ? 0 : avki_store_size(n); /* bytes per item when constant */
    uint64_t min_size = c->nodes[item->node].min_size + (is_map ? 1 : 0);
    uint64_t total = 0;
    if (!is_map && n->store == AVKI_STORE_FIXED)
        fixed = n->count;
    if (!is_map && (n->store == AVKI_STORE_INT || n->store == AVKI_STORE_LONG ||
                    n->store == AVKI_STORE_BOOLEAN))
        fixed = 0; /* varints vary; booleans are checked */
    for (;;) {
        int64_t count;
        uint64_t i, off = avk_reader_offset(r);
        AVK_TRY(avk_reader_read_long(r, &count, c->err));
        if (count == 0)
            return AVK_OK;
        if (count < 0) {
            int64_t size;
            if (AVK_UNLIKELY(count == INT64_MIN))
                return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off,
                                        "block count -2^63 cannot be negated");
            AVK_TRY(avk_reader_read_long(r, &size, c->err));
            if (AVK_UNLIKELY(size < 0))
                return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off,
                                        "negative block size %lld", (long long)size);
            /* The writer told us the size: jump, reading nothing inside. */
            {
                avk_status st = avk_reader_skip(r, (uint64_t)size, c->err);
                if (AVK_UNLIKELY(st == AVK_ERR_TRUNCATED))
                    return avki_decode_fail(c->err, st, off,
                                            "block of %lld bytes but the input ends first",
                                            (long long)size);
                AVK_TRY(st);
            }
            continue;
        }
        if (AVK_UNLIKELY((uint64_t)count > c->limits->max_items - total))
            return avki_decode_fail(c->err, AVK_ERR_LIMIT, off,
                                    "collection of more than max_items (%llu) items",
                                    (unsigned long long)c->limits->max_items);
        total += (uint64_t)count;
        if (AVK_UNLIKELY(c->memory && min_size &&
                         (uint64_t)count > (uint64_t)(r->end - r->pos) / min_size))
            return avki_decode_fail(c->err, AVK_ERR_TRUNCATED, off,
                                    "block of %lld items needs at least %llu bytes each but only "
                                    "%zu bytes remain",
                                    (long long)count, (unsigned long long)min_size,
                                    (size_t)(r->end - r->pos));
        if (min_size == 0) {
            c->empty += (uint64_t)count;
            if (AVK_UNLIKELY(c->empty > c->limits->max_empty_items))
                return avki_decode_fail(c->err, AVK_ERR_LIMIT, off,
                                        "more than max_empty_items (%llu) zero-byte items",
                                        (unsigned long long)c->limits->max_empty_items);
        }
        if (fixed) {
            if (AVK_UNLIKELY((uint64_t)count > UINT64_MAX / fixed))
                return avki_decode_fail(c->err, AVK_ERR_TRUNCATED, off,
                                        "block of %lld items is larger than any input",
                                        (long long)count);
            AVK_TRY(avk_reader_skip(r, (uint64_t)count * fixed, c->err));
            continue;
        }
        if (!is_map && n->store == AVKI_STORE_NULL)
            continue;
        for (i = 0; i < (uint64_t)count; i++) {
            avk_status st = AVK_OK;
            if (is_map) {
                st = skip_length(c, "string");
                if (AVK_UNLIKELY(st != AVK_OK))
                    return avki_path_prepend(c->err, st, ".keys[%llu]",
                                             (unsigned long long)(total - (uint64_t)count + i));
            }
            st = skip_step(c, item, depth);
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_path_prepend(c->err, st, is_map ? ".values[%llu]" : ".items[%llu]",
                                         (unsigned long long)(total - (uint64_t)count + i));
        }
    }
}

static avk_status depth_exceeded(sctx *c)
{
    return avki_decode_fail(c->err, AVK_ERR_LIMIT, avk_reader_offset(c->r),
                            "nesting deeper than max_depth (%zu)", c->limits->max_depth);
}

static avk_status skip_node(sctx *c, uint32_t node, size_t depth)
{
    const avki_node *n = c->nodes + node;
    avk_reader *r = c->r;
    switch ((avki_op)n->op) {
    case AVKI_OP_RECORD: {
        const avki_step *s = c->steps + n->first;
        uint32_t i;
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        for (i = 0; i < n->count; i++) {
            avk_status st = skip_step(c, s + i, depth);
            if (AVK_UNLIKELY(st != AVK_OK))
                return avki_path_prepend(c->err, st, ".fields[%u]", i);
        }
        return AVK_OK;
    }
    case AVKI_OP_ENUM: {
        int32_t idx;
        uint64_t off = avk_reader_offset(r);
        AVK_TRY(avk_reader_read_int(r, &idx, c->err));
        if (AVK_UNLIKELY(idx < 0 || (uint32_t)idx >= n->count))
            return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off,
                                    "enum index %d out of range (%u symbols)", idx, n->count);
        return AVK_OK;
    }
    case AVKI_OP_FIXED:
        return avk_reader_skip(r, n->count, c->err);
    case AVKI_OP_ARRAY:
    case AVKI_OP_MAP:
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        return skip_blocks(c, n, n->op == AVKI_OP_MAP, depth);
    case AVKI_OP_UNION: {
        int64_t idx;
        uint64_t off = avk_reader_offset(r);
        avk_status st;
        if (AVK_UNLIKELY(++depth > c->limits->max_depth))
            return depth_exceeded(c);
        AVK_TRY(avk_reader_read_long(r, &idx, c->err));
        if (AVK_UNLIKELY(idx < 0 || (uint64_t)idx >= n->count))
            return avki_decode_fail(c->err, AVK_ERR_MALFORMED, off,
                                    "union branch index %lld out of range (%u branches)",
                                    (long long)idx, n->count);
        st = skip_step(c, c->steps + n->first + idx, depth);
        if (AVK_UNLIKELY(st != AVK_OK))
            return avki_path_prepend(c->err, st, ".branch[%u]", (unsigned)idx);
        return AVK_OK;
    }
    default: {
        avki_step s;
        s.op = n->op;
        s.node = node;
        s.type = n->type;
        return skip_step(c, &s, depth);
    }
    }
}

avk_status avki_skip_value(const avki_node *nodes, const avki_step *steps,
                           const avk_limits *limits, avk_reader *r, uint32_t node, size_t depth,
                           uint64_t *empty, avk_error *err)
{
    sctx c;
    avk_status st;
    c.r = r;
    c.nodes = nodes;
    c.steps = steps;
    c.limits = limits;
    c.empty = *empty;
    c.memory = r->source == NULL;
    c.err = err;
    st = skip_node(&c, node, depth);
    *empty = c.empty;
    return st;
}

avk_status avk_plan_skip(const avk_plan *plan, avk_reader *r, avk_error *err)
{
    sctx c;
    avk_status st;
    if (AVK_UNLIKELY(!plan || !r))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0, "avk_plan_skip: NULL argument");
    c.r = r;
    c.nodes = plan->nodes;
    c.steps = plan->steps;
    c.limits = &plan->limits;
    c.empty = 0;
    c.memory = r->source == NULL;
    c.err = err;
    /* nodes[0] is the root, or in a resolving plan the writer's root. */
    st = skip_node(&c, 0, 0);
    if (AVK_UNLIKELY(st != AVK_OK))
        avki_path_finish(err, plan->writer_type ? plan->writer_type : plan->type);
    return st;
}
