/* Generated decoders: one static function per compound type, leaves inline, with the library decoder's checks in its order. */
#include <string.h>

#include "gen.h"

/* Statements that decode one value of t into the lvalue lv (a value at
 * nesting level lvl, a C expression) and leave the status in st. */
void gen_decode_value(gen_ctx *g, const avk_type *t, const char *lv, const char *lvl,
                      const char *ind)
{
    gen_buf *c = &g->c;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        gen_printf(c, "%sst = AVK_OK;\n", ind);
        break;
    case AVK_BOOLEAN:
        gen_printf(c, "%sst = avkgen_read_boolean(c, &%s);\n", ind, lv);
        break;
    case AVK_INT:
        gen_printf(c, "%sst = avk_reader_read_int(c->r, &%s, c->err);\n", ind, lv);
        break;
    case AVK_LONG:
        gen_printf(c, "%sst = avk_reader_read_long(c->r, &%s, c->err);\n", ind, lv);
        break;
    case AVK_FLOAT:
        gen_printf(c, "%sst = avk_reader_read_float(c->r, &%s, c->err);\n", ind, lv);
        break;
    case AVK_DOUBLE:
        gen_printf(c, "%sst = avk_reader_read_double(c->r, &%s, c->err);\n", ind, lv);
        break;
    case AVK_STRING:
    case AVK_BYTES:
        gen_printf(c, "%sst = avkgen_read_bytes(c, &%s, \"%s\");\n", ind, lv,
                   avk_type_kind(t) == AVK_STRING ? "string" : "bytes");
        break;
    default:
        gen_printf(c, "%sst = %s(c, &%s, %s);\n", ind, gen_helper(g, "dec", t), lv, lvl);
        break;
    }
}

/* An expression that decodes one leaf of t at pointer variable pv (end e)
 * into lv and is true, or is false having consumed nothing (the reader's
 * path then decodes it and reports any error); NULL for types without one. */
static const char *fast_expr(gen_ctx *g, const avk_type *t, const char *pv, const char *lv)
{
    switch (avk_type_kind(t)) {
    case AVK_INT:
        return gen_fmt(g, "avkgen_fast_int(&%s, e, &%s)", pv, lv);
    case AVK_LONG:
        return gen_fmt(g, "avkgen_fast_long(&%s, e, &%s)", pv, lv);
    case AVK_BOOLEAN:
        return gen_fmt(g, "(%s < e && *%s <= 1 && ((%s = *%s++ != 0), 1))", pv, pv, lv, pv);
    case AVK_FLOAT:
    case AVK_DOUBLE:
        return gen_fmt(g, "(e - %s >= (ptrdiff_t)sizeof %s && (memcpy(&%s, %s, sizeof %s), %s += sizeof %s, 1))",
                       pv, lv, lv, pv, lv, pv, lv);
    case AVK_STRING:
    case AVK_BYTES:
        return gen_fmt(g, "(views_ && avkgen_fast_view(&%s, e, max_bytes_, &%s))", pv, lv);
    case AVK_ENUM:
        return gen_fmt(g, "(%s < e && !(*%s & 0x81) && (unsigned)(*%s >> 1) < %zuu && "
                          "((%s = (%s)(*%s++ >> 1)), 1))",
                       pv, pv, pv, avk_type_symbol_count(t), lv, gen_tname(g, t), pv);
    case AVK_FIXED:
        if (!avk_type_fixed_size(t))
            return NULL;
        return gen_fmt(g, "(e - %s >= %zu && (memcpy(%s.bytes, %s, %zu), %s += %zu, 1))", pv,
                       avk_type_fixed_size(t), lv, pv, avk_type_fixed_size(t), pv,
                       avk_type_fixed_size(t));
    default:
        return NULL;
    }
}

static void depth_check(gen_ctx *g)
{
    gen_puts(&g->c, "    if (AVKGEN_UNLIKELY(level > c->max_depth))\n"
                    "        return avkgen_depth_error(c->r, c->max_depth, c->err);\n");
}

static void dec_record(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t i, n = avk_type_field_count(t), run_end = 0;
    unsigned runs = 0;
    gen_puts(c, "    avk_status st = AVK_OK;\n");
    depth_check(g);
    gen_puts(c, "    (void)out;\n    (void)st;\n");
    /* The position lives in p across leaf fields (a store and reload of
     * r->pos between fields would sit on the chain from one to the next);
     * a field the fast path cannot take goes through the reader from the
     * same place, which reports any error as the library's decoder does. */
    gen_puts(c, "    avk_reader *r = c->r;\n    const uint8_t *p = r->pos, *e = r->end;\n"
                "    /* In locals: stores to the fields could alias them. */\n"
                "    const int views_ = c->views;\n    const uint64_t max_bytes_ = c->lim.max_bytes;\n"
                "    const size_t max_depth_ = c->max_depth;\n"
                "    (void)r;\n    (void)e;\n    (void)views_;\n    (void)max_bytes_;\n    (void)max_depth_;\n");
    for (i = 0; i < n; i++) {
        const avk_field *f = avk_type_field(t, i);
        const avk_type *ft = avk_field_type(f);
        const char *lv = gen_fmt(g, "out->%s", gen_field_member(g, t, i));
        const char *fail = gen_fmt(g, "avkgen_front(&c->at, AVK_PATH_FIELD, %zu, %s, st)", i,
                                   gen_cstring(g, avk_field_name(f)));
        const char *fast;
        const avk_type *o;
        size_t ni;
        if (avk_type_kind(ft) == AVK_NULL)
            continue;
        if (run_end == 0 && (avk_type_kind(ft) == AVK_LONG || avk_type_kind(ft) == AVK_INT)) {
            size_t j = i;
            while (j < n && avk_type_kind(avk_field_type(avk_type_field(t, j))) == avk_type_kind(ft))
                j++;
            if (j - i >= 8) {
                /* A run of 8 or more int or long fields: one bulk kernel call
                 * when the whole run is buffered, as the library's decoder
                 * does; on a bad varint nothing is taken and the fields are
                 * read one by one below, which report the error. */
                int is_long = avk_type_kind(ft) == AVK_LONG;
                size_t k;
                gen_printf(c, "    if (AVKGEN_LIKELY((size_t)(e - p) >= %zuu)) {\n"
                              "        %s v_[%zu];\n        size_t used_ = 0;\n"
                              "        if (AVKGEN_LIKELY(avk_varint_decode_%s(p, (size_t)(e - p), v_, %zu, &used_, "
                              "NULL) == AVK_OK)) {\n",
                           (j - i) * 10, is_long ? "int64_t" : "int32_t", j - i, is_long ? "longs" : "ints",
                           j - i);
                for (k = i; k < j; k++)
                    gen_printf(c, "            out->%s = v_[%zu];\n", gen_field_member(g, t, k), k - i);
                gen_printf(c, "            p += used_;\n            goto avkgen_r%u;\n        }\n    }\n", runs);
                run_end = j;
            }
        }
        fast = fast_expr(g, ft, "p", lv);
        if (!fast && gen_is_nullable(ft, &o, &ni) && avk_type_kind(o) != AVK_RECORD &&
            fast_expr(g, o, "q_", "x_")) {
            /* ["null", leaf]: the index byte and the leaf in place. */
            gen_printf(c, "    {\n        int ok_ = 0;\n"
                          "        if (AVKGEN_LIKELY(level < max_depth_ && p < e)) {\n"
                          "            const uint8_t *q_ = p + 1;\n"
                          "            if (*p == %d) {\n"
                          "                memset(&%s, 0, sizeof %s);\n"
                          "                p = q_;\n                ok_ = 1;\n"
                          "            } else if (*p == %d && %s) {\n"
                          "                %s.present = true;\n"
                          "                p = q_;\n                ok_ = 1;\n            }\n        }\n"
                          "        if (AVKGEN_UNLIKELY(!ok_)) {\n            r->pos = p;\n",
                       (int)(2 * ni), lv, lv, (int)(2 * (1 - ni)),
                       fast_expr(g, o, "q_", gen_fmt(g, "%s.value", lv)), lv);
            gen_decode_value(g, ft, lv, "level + 1", "            ");
            gen_printf(c, "            if (AVKGEN_UNLIKELY(st != AVK_OK))\n                return %s;\n"
                          "            p = r->pos;\n            e = r->end;\n        }\n    }\n",
                       fail);
            continue;
        }
        if (fast) {
            gen_printf(c, "    if (AVKGEN_UNLIKELY(!%s)) {\n        r->pos = p;\n", fast);
            gen_decode_value(g, ft, lv, "level + 1", "        ");
            gen_printf(c, "        if (AVKGEN_UNLIKELY(st != AVK_OK))\n            return %s;\n"
                          "        p = r->pos;\n        e = r->end;\n    }\n",
                       fail);
        } else {
            gen_puts(c, "    r->pos = p;\n");
            gen_decode_value(g, ft, lv, "level + 1", "    ");
            gen_printf(c, "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n        return %s;\n"
                          "    p = r->pos;\n    e = r->end;\n",
                       fail);
        }
        if (run_end && i + 1 == run_end) {
            gen_printf(c, "avkgen_r%u:;\n", runs++);
            run_end = 0;
        }
    }
    gen_puts(c, "    r->pos = p;\n    return AVK_OK;\n");
}

/* Items of these kinds are read a chunk at a time into the C array. */
static const char *bulk_reader(const avk_type *it)
{
    switch (avk_type_kind(it)) {
    case AVK_BOOLEAN: return "avkgen_read_booleans";
    case AVK_INT: return "avkgen_read_ints";
    case AVK_LONG: return "avkgen_read_longs";
    default: return NULL;
    }
}

static int raw_size(const avk_type *it)
{
    switch (avk_type_kind(it)) {
    case AVK_FLOAT: return 4;
    case AVK_DOUBLE: return 8;
    case AVK_FIXED: return (int)(avk_type_fixed_size(it) > 0);
    default: return 0;
    }
}

static int may_be_malformed(const avk_type *it)
{
    avk_kind k = avk_type_kind(it);
    return k != AVK_FLOAT && k != AVK_DOUBLE && k != AVK_FIXED;
}

static void dec_collection(gen_ctx *g, const avk_type *t, int is_map)
{
    gen_buf *c = &g->c;
    const avk_type *it = is_map ? avk_type_values(t) : avk_type_items(t);
    const char *ct = gen_ctype(g, it);
    unsigned long long min = gen_min_size(it) + (is_map ? 1 : 0);
    gen_puts(c, "    avk_reader *r = c->r;\n    uint64_t total = 0, cap = 0;\n");
    if (ct)
        gen_printf(c, "    %s *items = NULL;\n", ct);
    if (is_map)
        gen_puts(c, "    avk_bytes *keys = NULL;\n");
    gen_puts(c, "    const int views_ = c->views;\n    const uint64_t max_bytes_ = c->lim.max_bytes;\n"
                "    (void)views_;\n    (void)max_bytes_;\n");
    depth_check(g);
    gen_puts(c, "    for (;;) {\n"
                "        uint64_t left = 0, end, off = avk_reader_offset(r);\n"
                "        avk_status st = avk_check_read_block(r, off, &left, &end, c->err);\n"
                "        if (st != AVK_OK)\n            return st;\n"
                "        if (left == 0)\n            break;\n"
                "        while (left) {\n"
                "            uint64_t take = 0;\n");
    gen_printf(c, "            st = avkgen_take(c, total, left, %lluu, %d, off, &take);\n", min,
               is_map || may_be_malformed(it));
    gen_puts(c, "            if (st != AVK_OK)\n                return st;\n");
    if (is_map && ct)
        gen_puts(c, "            {\n                uint64_t kcap = cap;\n"
                    "                st = avkgen_reserve(c, (void **)&keys, &kcap, total, total + take, "
                    "sizeof *keys);\n"
                    "                if (st != AVK_OK)\n                    return st;\n            }\n");
    else if (is_map)
        gen_puts(c, "            st = avkgen_reserve(c, (void **)&keys, &cap, total, total + take, "
                    "sizeof *keys);\n"
                    "            if (st != AVK_OK)\n                return st;\n");
    if (ct)
        gen_puts(c, "            st = avkgen_reserve(c, (void **)&items, &cap, total, total + take, "
                    "sizeof *items);\n"
                    "            if (st != AVK_OK)\n                return st;\n");
    else if (!is_map)
        gen_puts(c, "            cap = total + take;\n");
    if (!is_map && ct && bulk_reader(it)) {
        const char *fx = fast_expr(g, it, "p", "items[total + j]");
        /* Short blocks inline (a bulk call costs more than it saves there). */
        gen_printf(c, "            {\n                size_t bad = 0, j = 0;\n"
                      "                if (take <= 16 && !r->source) {\n"
                      "                    const uint8_t *p = r->pos, *e = r->end;\n"
                      "                    while (j < take && %s)\n                        j++;\n"
                      "                    r->pos = p;\n                }\n"
                      "                if (j < take) {\n"
                      "                    st = %s(c, items + total + j, (size_t)take - j, &bad);\n"
                      "                    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                      "                        return avkgen_front(&c->at, AVK_PATH_ITEM, total + j + bad, "
                      "NULL, st);\n                }\n            }\n",
                   fx, bulk_reader(it));
    } else if (!is_map && ct && raw_size(it)) {
        gen_puts(c, "            {\n                size_t bad = 0;\n"
                    "                st = avkgen_read_raw_items(c, items + total, (size_t)take, sizeof *items, "
                    "&bad);\n"
                    "                if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                    "                    return avkgen_front(&c->at, AVK_PATH_ITEM, total + bad, "
                    "NULL, st);\n            }\n");
    } else if (is_map || ct) {
        const char *fx = ct ? fast_expr(g, it, "p", "items[i]") : NULL;
        gen_puts(c, "            {\n                uint64_t i;\n"
                    "                for (i = total; i < total + take; i++) {\n");
        if (fx || (is_map && !ct)) {
            /* Key and leaf value in place; anything else from the same
             * byte through the reader. */
            gen_puts(c, "                    {\n                        const uint8_t *p = r->pos, *e = r->end;\n");
            if (is_map)
                gen_printf(c, "                        if (views_ && avkgen_fast_view(&p, e, max_bytes_, &keys[i])%s%s) {\n",
                           fx ? " && " : "", fx ? fx : "");
            else
                gen_printf(c, "                        if (%s) {\n", fx);
            gen_puts(c, "                            r->pos = p;\n                            continue;\n"
                        "                        }\n                    }\n");
        }
        if (is_map)
            gen_puts(c, "                    st = avkgen_read_bytes(c, &keys[i], \"string\");\n"
                        "                    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                        "                        return avkgen_front(&c->at, AVK_PATH_KEY, i, NULL, "
                        "st);\n");
        if (ct) {
            gen_decode_value(g, it, "items[i]", "level + 1", "                    ");
            gen_printf(c, "                    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                          "                        return avkgen_front(&c->at, %s, i, NULL, st);\n",
                       is_map ? "AVK_PATH_VALUE" : "AVK_PATH_ITEM");
        }
        gen_puts(c, "                }\n            }\n");
    }
    gen_puts(c, "            total += take;\n            left -= take;\n        }\n"
                "        st = avk_check_block_end(r, off, end, c->err);\n"
                "        if (st != AVK_OK)\n            return st;\n    }\n");
    if (is_map)
        gen_puts(c, "    out->keys = keys;\n");
    if (ct)
        gen_printf(c, "    out->%s = items;\n", is_map ? "values" : "items");
    gen_puts(c, "    out->count = (size_t)total;\n    (void)cap;\n    return AVK_OK;\n");
}

static void branch_dec(gen_ctx *g, const avk_type *b, const char *lv)
{
    gen_buf *c = &g->c;
    if (avk_type_kind(b) == AVK_RECORD) {
        /* Records in unions are held through pointers (recursion). */
        gen_printf(c, "        {\n            %s *p_ = NULL;\n"
                              "            st = avkgen_alloc(c, sizeof *p_, 8, (void **)&p_);\n"
                              "            if (st != AVK_OK)\n                return st;\n"
                              "            %s = p_;\n",
                   gen_tname(g, b), lv);
        gen_printf(c, "            st = %s(c, p_, level + 1);\n        }\n", gen_helper(g, "dec", b));
        return;
    }
    gen_decode_value(g, b, lv, "level + 1", "        ");
}

static void dec_union(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t n = avk_type_branch_count(t), i, ni;
    const avk_type *o;
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
                  "    before = c->at.count;\n",
               n, n);
    if (gen_is_nullable(t, &o, &ni)) {
        if (avk_type_kind(o) == AVK_RECORD) {
            gen_printf(c, "    if (idx == %zu) {\n        *out = NULL;\n        return AVK_OK;\n    }\n",
                       ni);
            branch_dec(g, o, "*out");
        } else {
            gen_printf(c, "    if (idx == %zu) {\n        memset(out, 0, sizeof *out);\n"
                          "        return AVK_OK;\n    }\n    out->present = true;\n",
                       ni);
            gen_decode_value(g, o, "out->value", "level + 1", "    ");
        }
    } else {
        gen_printf(c, "    out->kind = (%s_kind)idx;\n    switch (idx) {\n", gen_tname(g, t));
        for (i = 0; i < n; i++) {
            const avk_type *b = avk_type_branch(t, i);
            if (avk_type_kind(b) == AVK_NULL)
                continue;
            gen_printf(c, "    case %zu:\n", i);
            branch_dec(g, b, gen_fmt(g, "out->u.%s", gen_union_member(g, t, i)));
            gen_puts(c, "        break;\n");
        }
        gen_puts(c, "    default:\n        st = AVK_OK;\n        break;\n    }\n");
    }
    gen_puts(c, "    return AVKGEN_LIKELY(st == AVK_OK)\n"
                "               ? st\n"
                "               : avkgen_front_branch(&c->at, (uint64_t)idx, merge[idx], before, st);\n");
}

void gen_emit_decode(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    gen_printf(c, "static avk_status %s(avkgen_dctx *c, %s *out, size_t level)\n{\n",
               gen_helper(g, "dec", t), gen_ctype(g, t));
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        dec_record(g, t);
        break;
    case AVK_ENUM:
        gen_printf(c, "    int32_t idx;\n    uint64_t off = avk_reader_offset(c->r);\n"
                      "    avk_status st = avk_reader_read_int(c->r, &idx, c->err);\n"
                      "    (void)level;\n"
                      "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n        return st;\n"
                      "    if (AVKGEN_UNLIKELY(idx < 0 || (uint32_t)idx >= %zuu))\n"
                      "        return avkgen_index_error(c->err, off, 0, (long long)idx, %zuu);\n"
                      "    *out = (%s)idx;\n    return AVK_OK;\n",
                   avk_type_symbol_count(t), avk_type_symbol_count(t), gen_tname(g, t));
        break;
    case AVK_FIXED:
        gen_printf(c, "    (void)level;\n    return avkgen_read_fixed(c, out->bytes, %zu);\n",
                   avk_type_fixed_size(t));
        break;
    case AVK_ARRAY:
        dec_collection(g, t, 0);
        break;
    case AVK_MAP:
        dec_collection(g, t, 1);
        break;
    case AVK_UNION:
        dec_union(g, t);
        break;
    default:
        break;
    }
    gen_puts(c, "}\n\n");
}

/* The public decoder of type t (function prefix fn). */
void gen_emit_decode_public(gen_ctx *g, const avk_type *t, const char *fn);
void gen_emit_decode_public(gen_ctx *g, const avk_type *t, const char *fn)
{
    gen_buf *c = &g->c;
    gen_printf(c, "avk_status %s_decode_limits(avk_reader *r, avk_arena *arena, const avk_limits *limits,\n"
                  "    %s *out, avk_error *err)\n{\n"
                  "    avkgen_dctx ctx;\n    avkgen_dctx *c = &ctx;\n    avk_status st;\n"
                  "    if (!r || !arena || !out)\n"
                  "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0, \"%s_decode: NULL "
                  "argument\");\n"
                  "    avkgen_dctx_init(c, r, arena, limits, err);\n",
               fn, fn, fn);
    if (avk_type_kind(t) == AVK_NULL)
        gen_puts(c, "    out->unused_ = 0;\n    st = AVK_OK;\n");
    else
        gen_decode_value(g, t, "(*out)", "1", "    ");
    gen_printf(c, "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                  "        avkgen_report(err, %s, &c->at);\n    return st;\n}\n\n",
               gen_cstring(g, gen_label(t)));
    gen_printf(c, "avk_status %s_decode(avk_reader *r, avk_arena *arena, %s *out, avk_error *err)\n{\n"
                  "    return %s_decode_limits(r, arena, NULL, out, err);\n}\n\n",
               fn, fn, fn);
}
