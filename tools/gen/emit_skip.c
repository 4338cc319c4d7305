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

void gen_emit_skip(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t i, n;
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
        gen_puts(c, "    avk_status st = AVK_OK;\n    (void)st;\n");
        depth_check(g);
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++) {
            const avk_field *f = avk_type_field(t, i);
            if (avk_type_kind(avk_field_type(f)) == AVK_NULL)
                continue;
            value_skip(g, avk_field_type(f), "level + 1", "    ");
            gen_printf(c, "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                          "        return avkgen_front(&c->at, AVK_PATH_FIELD, %zu, %s, st);\n",
                       i, gen_cstring(g, avk_field_name(f)));
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
