/* Generated skippers: one static function per compound type, mirroring avk_plan_skip (sized blocks jumped, fixed-size items skipped as bytes). */
#include "gen.h"

static void value_skip(gen_ctx *g, const avk_type *t, const char *lvl, const char *ind)
{
    gen_buf *c = &g->c;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        gen_printf(c, "%sst = AVK_OK;\n", ind);
        break;
    case AVK_BOOLEAN:
        gen_printf(c, "%s{\n%s    int b_;\n%s    st = avk_reader_read_boolean(c->r, &b_, c->err);\n%s}\n",
                   ind, ind, ind, ind);
        break;
    case AVK_INT:
        gen_printf(c, "%s{\n%s    int32_t i_;\n%s    st = avk_reader_read_int(c->r, &i_, c->err);\n%s}\n",
                   ind, ind, ind, ind);
        break;
    case AVK_LONG:
        gen_printf(c, "%s{\n%s    int64_t l_;\n%s    st = avk_reader_read_long(c->r, &l_, c->err);\n%s}\n",
                   ind, ind, ind, ind);
        break;
    case AVK_FLOAT:
        gen_printf(c, "%sst = avk_reader_skip(c->r, 4, c->err);\n", ind);
        break;
    case AVK_DOUBLE:
        gen_printf(c, "%sst = avk_reader_skip(c->r, 8, c->err);\n", ind);
        break;
    case AVK_STRING:
    case AVK_BYTES:
        gen_printf(c, "%sst = avkgen_skip_len(c, \"%s\");\n", ind,
                   avk_type_kind(t) == AVK_STRING ? "string" : "bytes");
        break;
    case AVK_ENUM:
        gen_printf(c, "%sst = avkgen_skip_enum(c, %zuu);\n", ind, avk_type_symbol_count(t));
        break;
    case AVK_FIXED:
        gen_printf(c, "%sst = avk_reader_skip(c->r, %zu, c->err);\n", ind, avk_type_fixed_size(t));
        break;
    default:
        gen_printf(c, "%sst = %s(c, %s);\n", ind, gen_helper(g, "skip", t), lvl);
        break;
    }
}

static void depth_check(gen_ctx *g)
{
    gen_puts(&g->c, "    if (AVKGEN_UNLIKELY(level > c->max_depth))\n"
                    "        return avkgen_depth_error(c->r, c->max_depth, c->err);\n");
}

/* Bytes a leaf field takes at most in the fast path below (varints: 10, the
 * most a valid one has), or 0 when it is not skipped there. */
static size_t fast_bound(const avk_type *t)
{
    switch (avk_type_kind(t)) {
    case AVK_BOOLEAN:
        return 1;
    case AVK_FLOAT:
        return 4;
    case AVK_DOUBLE:
        return 8;
    case AVK_INT:
    case AVK_LONG:
    case AVK_ENUM:
    case AVK_STRING:
    case AVK_BYTES:
        return 10;
    case AVK_FIXED:
        return avk_type_fixed_size(t) <= 4096 ? avk_type_fixed_size(t) : 0;
    default:
        return 0;
    }
}

/* The leaf fields [from, to) of a record skipped with the position in a
 * local and one bounds check for the run (as the library's skipper runs
 * over fixed-size fields): varints of up to 9 bytes (longs) or 4 (ints),
 * booleans 0/1, one-byte enum indexes and string lengths in range. Anything
 * else jumps to the checked code from that field on, which reads from the
 * same byte and reports errors exactly as before. */
static void skip_run(gen_ctx *g, const avk_type *t, size_t from, size_t to, unsigned run)
{
    gen_buf *c = &g->c;
    size_t i, bound = 0, rest;
    for (i = from; i < to; i++)
        bound += fast_bound(avk_field_type(avk_type_field(t, i)));
    gen_printf(c, "    p = c->r->pos;\n"
                  "    if (AVKGEN_UNLIKELY((size_t)(c->r->end - p) < %zuu))\n        goto avkgen_s%u_%zu;\n",
               bound, run, from);
    rest = bound;
    for (i = from; i < to; i++) {
        const avk_type *ft = avk_field_type(avk_type_field(t, i));
        size_t b = fast_bound(ft);
        const char *slow = gen_fmt(g, "{\n        c->r->pos = p;\n        goto avkgen_s%u_%zu;\n    }\n", run, i);
        switch (avk_type_kind(ft)) {
        case AVK_NULL:
            break;
        case AVK_BOOLEAN:
            gen_printf(c, "    if (AVKGEN_UNLIKELY(*p > 1)) %s    p++;\n", slow);
            break;
        case AVK_INT:
        case AVK_LONG:
            /* a valid int has at most 5 bytes and 4 bits in the last, a
             * long 10 bytes and 1 bit in the last */
            /* the length from one 8-byte load (no branch on it); 9 and 10
             * byte longs byte by byte */
            gen_printf(c, "    {\n        uint64_t w_, m_;\n        size_t n_;\n"
                          "        memcpy(&w_, p, 8);\n"
                          "        m_ = ~w_ & 0x8080808080808080ULL;\n"
                          "        n_ = m_ ? (AVKGEN_CTZ64(m_) >> 3) : 8;\n"
                          "        while (n_ < %d && p[n_] >= 0x80)\n            n_++;\n"
                          "        if (AVKGEN_UNLIKELY(n_ >= %d || (n_ == %d && p[%d] > %d))) %s"
                          "        p += n_ + 1;\n    }\n",
                       avk_type_kind(ft) == AVK_INT ? 5 : 10, avk_type_kind(ft) == AVK_INT ? 5 : 10,
                       avk_type_kind(ft) == AVK_INT ? 4 : 9, avk_type_kind(ft) == AVK_INT ? 4 : 9,
                       avk_type_kind(ft) == AVK_INT ? 15 : 1, slow);
            break;
        case AVK_ENUM:
            gen_printf(c, "    if (AVKGEN_UNLIKELY(*p >= 0x80 || (*p & 1) || (*p >> 1) >= %zuu)) %s    p++;\n",
                       avk_type_symbol_count(ft), slow);
            break;
        case AVK_STRING:
        case AVK_BYTES:
            /* room >= rest here; the payload must leave the rest */
            gen_printf(c, "    if (AVKGEN_UNLIKELY(*p >= 0x80 || (*p & 1) || (uint64_t)(*p >> 1) > c->lim.max_bytes ||\n"
                          "                        (size_t)(*p >> 1) > (size_t)(c->r->end - p) - %zuu)) %s"
                          "    p += 1 + (*p >> 1);\n",
                       rest, slow);
            break;
        case AVK_FLOAT:
        case AVK_DOUBLE:
        case AVK_FIXED:
            if (b)
                gen_printf(c, "    p += %zu;\n", b);
            break;
        default:
            break;
        }
        rest -= b;
    }
    gen_printf(c, "    c->r->pos = p;\n    goto avkgen_e%u;\n", run);
}

static int skip_fast(const avk_type *t)
{
    return fast_bound(t) > 0 || (avk_type_kind(t) == AVK_FIXED && avk_type_fixed_size(t) == 0);
}

void gen_emit_skip(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t i, n, run_from = (size_t)-1, run_to = 0;
    unsigned runs = 0;
    avk_kind k = avk_type_kind(t);
    if (k == AVK_ENUM || k == AVK_FIXED) {
        /* Leaves: skipped inline; a helper only for the public function. */
        gen_printf(c, "static avk_status %s(avkgen_sctx *c, size_t level)\n{\n    avk_status st;\n"
                      "    (void)level;\n",
                   gen_helper(g, "skip", t));
        value_skip(g, t, "level", "    ");
        gen_puts(c, "    return st;\n}\n\n");
        return;
    }
    gen_printf(c, "static avk_status %s(avkgen_sctx *c, size_t level)\n{\n", gen_helper(g, "skip", t));
    switch (k) {
    case AVK_RECORD:
        gen_puts(c, "    avk_status st = AVK_OK;\n    const uint8_t *p;\n    (void)st;\n    (void)p;\n");
        depth_check(g);
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++) {
            const avk_field *f = avk_type_field(t, i);
            avk_kind fk = avk_type_kind(avk_field_type(f));
            if (fk == AVK_NULL)
                continue;
            if (skip_fast(avk_field_type(f)) && run_from == (size_t)-1) {
                size_t j = i, last = i, w = 0;
                while (j < n && (skip_fast(avk_field_type(avk_type_field(t, j))) ||
                                 avk_type_kind(avk_field_type(avk_type_field(t, j))) == AVK_NULL)) {
                    if (skip_fast(avk_field_type(avk_type_field(t, j)))) {
                        last = j; /* the run ends at its last skipped field */
                        w++;
                    }
                    j++;
                }
                if (w >= 2) {
                    run_from = i;
                    run_to = last + 1;
                    skip_run(g, t, i, last + 1, runs);
                }
            }
            if (run_from != (size_t)-1 && i < run_to &&
                (i == run_from || fk == AVK_BOOLEAN || fk == AVK_INT || fk == AVK_LONG || fk == AVK_ENUM ||
                 fk == AVK_STRING || fk == AVK_BYTES))
                gen_printf(c, "avkgen_s%u_%zu:\n", runs, i);
            value_skip(g, avk_field_type(f), "level + 1", "    ");
            gen_printf(c, "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                          "        return avkgen_front(&c->at, AVK_PATH_FIELD, %zu, %s, st);\n",
                       i, gen_cstring(g, avk_field_name(f)));
            if (run_from != (size_t)-1 && i + 1 >= run_to) {
                gen_printf(c, "avkgen_e%u:;\n", runs++);
                run_from = (size_t)-1;
            }
        }
        gen_puts(c, "    return AVK_OK;\n");
        break;
    case AVK_ARRAY:
    case AVK_MAP: {
        int is_map = k == AVK_MAP;
        const avk_type *it = is_map ? avk_type_values(t) : avk_type_items(t);
        avk_kind ik = avk_type_kind(it);
        unsigned long long min = gen_min_size(it) + (is_map ? 1 : 0), size = 0;
        if (!is_map && ik == AVK_FLOAT)
            size = 4;
        else if (!is_map && ik == AVK_DOUBLE)
            size = 8;
        else if (!is_map && ik == AVK_FIXED)
            size = avk_type_fixed_size(it);
        gen_puts(c, "    uint64_t done = 0, count, i;\n    avk_status st;\n");
        depth_check(g);
        gen_printf(c, "    for (;;) {\n"
                      "        st = avkgen_skip_block(c, &done, %lluu, %lluu, %d, &count);\n"
                      "        if (st != AVK_OK || count == 0)\n            return st;\n"
                      "        for (i = 0; i < count; i++) {\n",
                   min, size, !is_map && ik == AVK_NULL);
        if (is_map)
            gen_puts(c, "            st = avkgen_skip_len(c, \"string\");\n"
                        "            if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                        "                return avkgen_front(&c->at, AVK_PATH_KEY, done + i, NULL, "
                        "st);\n");
        value_skip(g, it, "level + 1", "            ");
        gen_printf(c, "            if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                      "                return avkgen_front(&c->at, %s, done + i, NULL, st);\n"
                      "        }\n        done += count;\n    }\n",
                   is_map ? "AVK_PATH_VALUE" : "AVK_PATH_ITEM");
        break;
    }
    case AVK_UNION:
        n = avk_type_branch_count(t);
        gen_puts(c, "    int64_t idx;\n    uint64_t off;\n    avk_status st;\n    size_t before;\n");
        gen_puts(c, "    static const unsigned char merge[] = {");
        for (i = 0; i < n; i++)
            gen_printf(c, "%s%d", i ? ", " : "", gen_walked_as_frame(avk_type_branch(t, i)));
        gen_puts(c, "};\n");
        depth_check(g);
        gen_printf(c, "    off = avk_reader_offset(c->r);\n"
                      "    st = avk_reader_read_long(c->r, &idx, c->err);\n"
                      "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n        return st;\n"
                      "    if (AVKGEN_UNLIKELY(idx < 0 || idx >= %zu))\n"
                      "        return avkgen_index_error(c->err, off, 1, (long long)idx, %zuu);\n"
                      "    before = c->at.count;\n"
                      "    switch (idx) {\n",
                   n, n);
        for (i = 0; i < n; i++) {
            const avk_type *b = avk_type_branch(t, i);
            if (avk_type_kind(b) == AVK_NULL)
                continue;
            gen_printf(c, "    case %zu:\n", i);
            value_skip(g, b, "level + 1", "        ");
            gen_puts(c, "        break;\n");
        }
        gen_puts(c, "    default:\n        st = AVK_OK;\n        break;\n    }\n"
                    "    return AVKGEN_LIKELY(st == AVK_OK)\n"
                    "               ? st\n"
                    "               : avkgen_front_branch(&c->at, (uint64_t)idx, merge[idx], before, st);\n");
        break;
    default:
        break;
    }
    gen_puts(c, "}\n\n");
}

void gen_emit_skip_public(gen_ctx *g, const avk_type *t, const char *fn);
void gen_emit_skip_public(gen_ctx *g, const avk_type *t, const char *fn)
{
    gen_buf *c = &g->c;
    gen_printf(c, "avk_status %s_skip(avk_reader *r, const avk_limits *limits, avk_error *err)\n{\n"
                  "    avkgen_sctx ctx;\n    avkgen_sctx *c = &ctx;\n    avk_status st;\n"
                  "    if (!r)\n"
                  "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0, \"%s_skip: NULL "
                  "argument\");\n"
                  "    avkgen_sctx_init(c, r, limits, err);\n",
               fn, fn);
    value_skip(g, t, "1", "    ");
    gen_printf(c, "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                  "        avkgen_report(err, %s, &c->at);\n    return st;\n}\n\n",
               gen_cstring(g, gen_label(t)));
}
