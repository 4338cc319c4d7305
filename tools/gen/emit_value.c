/* Generated conversions between the C types and generic avk_value trees (to_value / from_value). */
#include "gen.h"

/* ---- to_value ------------------------------------------------------------- */

static void value_tov(gen_ctx *g, const avk_type *t, const char *lv, const char *texpr,
                      const char *out, const char *ind)
{
    gen_buf *c = &g->c;
    const char *m = NULL;
    switch (avk_type_kind(t)) {
    case AVK_NULL: break;
    case AVK_BOOLEAN:
        gen_printf(c, "%s(%s)->type = %s;\n%s(%s)->u.boolean = %s ? 1 : 0;\n%sst = AVK_OK;\n", ind, out,
                   texpr, ind, out, lv, ind);
        return;
    case AVK_INT: m = "i"; break;
    case AVK_LONG: m = "l"; break;
    case AVK_FLOAT: m = "f"; break;
    case AVK_DOUBLE: m = "d"; break;
    case AVK_STRING:
    case AVK_BYTES: m = "bytes"; break;
    default:
        gen_printf(c, "%sst = %s(&%s, %s, arena, %s, err);\n", ind, gen_helper(g, "tov", t), lv, texpr,
                   out);
        return;
    }
    gen_printf(c, "%s(%s)->type = %s;\n", ind, out, texpr);
    if (m && (m[0] == 'f' || m[0] == 'd')) /* bit for bit: an x87 load on 32-bit x86 quiets a signalling NaN */
        gen_printf(c, "%smemcpy(&(%s)->u.%s, &%s, sizeof %s);\n", ind, out, m, lv, lv);
    else if (m)
        gen_printf(c, "%s(%s)->u.%s = %s;\n", ind, out, m, lv);
    gen_printf(c, "%sst = AVK_OK;\n", ind);
}

static int typed_copy(const avk_type *it)
{
    switch (avk_type_kind(it)) {
    case AVK_INT:
    case AVK_LONG:
    case AVK_FLOAT:
    case AVK_DOUBLE: return 1;
    case AVK_FIXED: return avk_type_fixed_size(it) > 0;
    default: return 0;
    }
}

static void branch_tov(gen_ctx *g, const avk_type *u, size_t i, const char *lv, const char *ind)
{
    gen_buf *c = &g->c;
    gen_printf(c, "%sst = avk_value_set_branch(out, %zu, arena, err);\n", ind, i);
    if (avk_type_kind(avk_type_branch(u, i)) == AVK_NULL)
        return;
    gen_printf(c, "%sif (st == AVK_OK) {\n", ind);
    if (avk_type_kind(avk_type_branch(u, i)) == AVK_RECORD)
        gen_printf(c, "%s    st = %s(%s, avk_type_branch(t, %zu), arena, out->u.branch.value, err);\n",
                   ind, gen_helper(g, "tov", avk_type_branch(u, i)), lv, i);
    else
        value_tov(g, avk_type_branch(u, i), lv, gen_fmt(g, "avk_type_branch(t, %zu)", i),
                  "out->u.branch.value", gen_fmt(g, "%s    ", ind));
    gen_printf(c, "%s}\n", ind);
}

void gen_emit_to_value(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t i, n;
    gen_printf(c, "static avk_status %s(%s const *in, const avk_type *t, avk_arena *arena, avk_value *out,\n"
                  "    avk_error *err)\n{\n    avk_status st = AVK_OK;\n",
               gen_helper(g, "tov", t), gen_ctype(g, t));
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        gen_puts(c, "    st = avk_value_init(out, t, 0, arena, err);\n"
                    "    if (st != AVK_OK)\n        return st;\n    (void)in;\n");
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++) {
            const avk_type *ft = avk_field_type(avk_type_field(t, i));
            if (avk_type_kind(ft) == AVK_NULL)
                continue;
            value_tov(g, ft, gen_fmt(g, "in->%s", gen_field_member(g, t, i)),
                      gen_fmt(g, "avk_field_type(avk_type_field(t, %zu))", i),
                      gen_fmt(g, "&out->u.fields[%zu]", i), "    ");
            gen_puts(c, "    if (st != AVK_OK)\n        return st;\n");
        }
        break;
    case AVK_ENUM:
        gen_puts(c, "    (void)arena;\n    (void)err;\n    out->type = t;\n    out->u.index = (uint32_t)*in;\n");
        break;
    case AVK_FIXED:
        gen_printf(c, "    (void)arena;\n    (void)err;\n    out->type = t;\n    out->u.bytes.data = in->bytes;\n"
                      "    out->u.bytes.len = %zu;\n",
                   avk_type_fixed_size(t));
        break;
    case AVK_ARRAY:
    case AVK_MAP: {
        int is_map = avk_type_kind(t) == AVK_MAP;
        const avk_type *it = is_map ? avk_type_values(t) : avk_type_items(t);
        gen_puts(c, "    size_t i;\n    st = avk_value_init(out, t, in->count, arena, err);\n"
                    "    if (st != AVK_OK)\n        return st;\n");
        if (is_map) {
            gen_puts(c, "    for (i = 0; i < in->count; i++)\n        out->u.map.keys[i] = in->keys[i];\n");
            if (avk_type_kind(it) != AVK_NULL) {
                gen_puts(c, "    for (i = 0; i < in->count && st == AVK_OK; i++) {\n");
                value_tov(g, it, "in->values[i]", "avk_type_values(t)", "&out->u.map.values[i]",
                          "        ");
                gen_puts(c, "    }\n");
            }
        } else if (avk_type_kind(it) == AVK_BOOLEAN) {
            gen_puts(c, "    for (i = 0; i < in->count; i++)\n"
                        "        ((uint8_t *)out->u.array.items)[i] = in->items[i] ? 1 : 0;\n");
        } else if (typed_copy(it)) {
            gen_puts(c, "    if (in->count)\n"
                        "        memcpy(out->u.array.items, in->items, in->count * sizeof *in->items);\n");
        } else if (avk_type_kind(it) != AVK_NULL && !(avk_type_kind(it) == AVK_FIXED)) {
            gen_puts(c, "    for (i = 0; i < in->count && st == AVK_OK; i++) {\n");
            value_tov(g, it, "in->items[i]", "avk_type_items(t)", "&((avk_value *)out->u.array.items)[i]",
                      "        ");
            gen_puts(c, "    }\n");
        }
        gen_puts(c, "    (void)i;\n");
        break;
    }
    case AVK_UNION: {
        const avk_type *o;
        size_t ni;
        gen_puts(c, "    st = avk_value_init(out, t, 0, arena, err);\n"
                    "    if (st != AVK_OK)\n        return st;\n");
        if (gen_is_nullable(t, &o, &ni)) {
            if (avk_type_kind(o) == AVK_RECORD) {
                gen_printf(c, "    if (!*in)\n        return avk_value_set_branch(out, %zu, arena, err);\n", ni);
                branch_tov(g, t, 1 - ni, "*in", "    ");
            } else {
                gen_printf(c, "    if (!in->present)\n        return avk_value_set_branch(out, %zu, arena, err);\n",
                           ni);
                branch_tov(g, t, 1 - ni, "in->value", "    ");
            }
            break;
        }
        n = avk_type_branch_count(t);
        gen_puts(c, "    switch ((unsigned)in->kind) {\n");
        for (i = 0; i < n; i++) {
            const avk_type *b = avk_type_branch(t, i);
            gen_printf(c, "    case %zu:\n", i);
            if (avk_type_kind(b) == AVK_RECORD)
                gen_printf(c, "        if (!in->u.%s)\n"
                              "            return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                              "                                 \"union value has no branch value\");\n",
                           gen_union_member(g, t, i));
            branch_tov(g, t, i,
                       avk_type_kind(b) == AVK_NULL ? ""
                                                   : gen_fmt(g, "%sin->u.%s",
                                                             avk_type_kind(b) == AVK_RECORD ? "" : "",
                                                             gen_union_member(g, t, i)),
                       "        ");
            gen_puts(c, "        break;\n");
        }
        gen_printf(c, "    default:\n"
                      "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"union branch %%u out of range (%zu branches)\",\n"
                      "                             (unsigned)in->kind);\n    }\n",
                   n);
        break;
    }
    default:
        break;
    }
    gen_puts(c, "    return st;\n}\n\n");
}

/* ---- from_value ------------------------------------------------------------ */

static void value_fromv(gen_ctx *g, const avk_type *t, const char *v, const char *lv, const char *ind)
{
    gen_buf *c = &g->c;
    const char *m = NULL;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        gen_printf(c, "%sst = AVK_OK;\n", ind);
        return;
    case AVK_BOOLEAN:
        gen_printf(c, "%s%s = (%s)->u.boolean != 0;\n%sst = AVK_OK;\n", ind, lv, v, ind);
        return;
    case AVK_INT: m = "i"; break;
    case AVK_LONG: m = "l"; break;
    case AVK_FLOAT: m = "f"; break;
    case AVK_DOUBLE: m = "d"; break;
    case AVK_STRING:
    case AVK_BYTES: m = "bytes"; break;
    default:
        gen_printf(c, "%sst = %s(%s, arena, &%s, err);\n", ind, gen_helper(g, "fromv", t), v, lv);
        return;
    }
    if (m[0] == 'f' || m[0] == 'd') /* bit for bit: an x87 load on 32-bit x86 quiets a signalling NaN */
        gen_printf(c, "%smemcpy(&%s, &(%s)->u.%s, sizeof %s);\n%sst = AVK_OK;\n", ind, lv, v, m, lv,
                   ind);
    else
        gen_printf(c, "%s%s = (%s)->u.%s;\n%sst = AVK_OK;\n", ind, lv, v, m, ind);
}

static void kind_check(gen_ctx *g, const avk_type *t)
{
    static const char *const enum_names[] = {
        "AVK_NULL", "AVK_BOOLEAN", "AVK_INT", "AVK_LONG", "AVK_FLOAT", "AVK_DOUBLE", "AVK_BYTES",
        "AVK_STRING", "AVK_RECORD", "AVK_ENUM", "AVK_ARRAY", "AVK_MAP", "AVK_UNION", "AVK_FIXED"};
    gen_printf(&g->c, "    if (AVKGEN_UNLIKELY(!v->type || avk_type_kind(v->type) != %s))\n"
                      "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"value is %%s, expected %s\",\n"
                      "                             v->type ? avk_kind_name(avk_type_kind(v->type)) : "
                      "\"untyped\");\n",
               enum_names[avk_type_kind(t)], avk_kind_name(avk_type_kind(t)));
}

static void alloc_items(gen_ctx *g, const char *dst, const char *ctype, const char *count)
{
    gen_printf(&g->c, "    %s = NULL;\n    if (%s) {\n"
                      "        %s = (%s *)avk_arena_alloc(arena, %s * sizeof(%s), 16);\n"
                      "        if (!%s)\n"
                      "            return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,\n"
                      "                                 \"out of memory allocating %%zu bytes\", %s * sizeof(%s));\n"
                      "    }\n",
               dst, count, dst, ctype, count, ctype, dst, count, ctype);
}

static void branch_fromv(gen_ctx *g, const avk_type *b, const char *lv, const char *ind)
{
    gen_buf *c = &g->c;
    if (avk_type_kind(b) == AVK_NULL) {
        gen_printf(c, "%sst = AVK_OK;\n", ind);
        return;
    }
    gen_printf(c, "%sif (!v->u.branch.value)\n"
                  "%s    return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                  "%s                         \"union value has no branch value\");\n",
               ind, ind, ind);
    if (avk_type_kind(b) == AVK_RECORD) {
        gen_printf(c, "%s{\n%s    %s *p_ = (%s *)avk_arena_alloc(arena, sizeof *p_, 8);\n"
                      "%s    if (!p_)\n"
                      "%s        return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,\n"
                      "%s                             \"out of memory allocating %%zu bytes\", sizeof *p_);\n"
                      "%s    %s = p_;\n"
                      "%s    st = %s(v->u.branch.value, arena, p_, err);\n%s}\n",
                   ind, ind, gen_tname(g, b), gen_tname(g, b), ind, ind, ind, ind, lv, ind,
                   gen_helper(g, "fromv", b), ind);
        return;
    }
    value_fromv(g, b, "v->u.branch.value", lv, ind);
}

void gen_emit_from_value(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t i, n;
    gen_printf(c, "static avk_status %s(const avk_value *v, avk_arena *arena, %s *out, avk_error *err)\n{\n"
                  "    avk_status st = AVK_OK;\n",
               gen_helper(g, "fromv", t), gen_ctype(g, t));
    kind_check(g, t);
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        n = avk_type_field_count(t);
        gen_printf(c, "    if (AVKGEN_UNLIKELY(avk_type_field_count(v->type) != %zu || (%zu && !v->u.fields)))\n"
                      "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"record value has %%zu fields, expected %zu\",\n"
                      "                             avk_type_field_count(v->type));\n"
                      "    (void)out;\n    (void)arena;\n",
                   n, n, n);
        for (i = 0; i < n; i++) {
            const avk_type *ft = avk_field_type(avk_type_field(t, i));
            if (avk_type_kind(ft) == AVK_NULL)
                continue;
            value_fromv(g, ft, gen_fmt(g, "&v->u.fields[%zu]", i),
                        gen_fmt(g, "out->%s", gen_field_member(g, t, i)), "    ");
            gen_puts(c, "    if (st != AVK_OK)\n        return st;\n");
        }
        break;
    case AVK_ENUM:
        gen_printf(c, "    (void)arena;\n    if (AVKGEN_UNLIKELY(v->u.index >= %zuu))\n"
                      "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"enum index %%u out of range (%zu symbols)\", "
                      "(unsigned)v->u.index);\n"
                      "    *out = (%s)v->u.index;\n",
                   avk_type_symbol_count(t), avk_type_symbol_count(t), gen_tname(g, t));
        break;
    case AVK_FIXED:
        gen_printf(c, "    (void)arena;\n    if (AVKGEN_UNLIKELY(v->u.bytes.len != %zu || (%zu && !v->u.bytes.data)))\n"
                      "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"fixed value of %%zu bytes, expected %zu\", v->u.bytes.len);\n"
                      "    memset(out->bytes, 0, sizeof out->bytes);\n"
                      "    if (%zu)\n        memcpy(out->bytes, v->u.bytes.data, %zu);\n",
                   avk_type_fixed_size(t), avk_type_fixed_size(t), avk_type_fixed_size(t),
                   avk_type_fixed_size(t), avk_type_fixed_size(t));
        break;
    case AVK_ARRAY: {
        const avk_type *it = avk_type_items(t);
        const char *ct = gen_ctype(g, it);
        gen_puts(c, "    size_t i, count = v->u.array.count;\n");
        if (ct && !(avk_type_kind(it) == AVK_FIXED && avk_type_fixed_size(it) == 0)) {
            gen_puts(c, "    if (AVKGEN_UNLIKELY(count && !v->u.array.items))\n"
                        "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                        "                             \"array of %zu items has no items\", count);\n");
        }
        if (ct) {
            alloc_items(g, "out->items", ct, "count");
            if (avk_type_kind(it) == AVK_BOOLEAN)
                gen_puts(c, "    for (i = 0; i < count; i++)\n"
                            "        out->items[i] = ((const uint8_t *)v->u.array.items)[i] != 0;\n");
            else if (typed_copy(it))
                gen_puts(c, "    if (count)\n"
                            "        memcpy(out->items, v->u.array.items, count * sizeof *out->items);\n");
            else if (avk_type_kind(it) == AVK_FIXED)
                gen_puts(c, "    if (count)\n        memset(out->items, 0, count * sizeof *out->items);\n");
            else {
                gen_puts(c, "    for (i = 0; i < count; i++) {\n");
                value_fromv(g, it, "&((const avk_value *)v->u.array.items)[i]", "out->items[i]",
                            "        ");
                gen_puts(c, "        if (st != AVK_OK)\n            return st;\n    }\n");
            }
        }
        gen_puts(c, "    out->count = count;\n    (void)i;\n    (void)arena;\n");
        break;
    }
    case AVK_MAP: {
        const avk_type *it = avk_type_values(t);
        const char *ct = gen_ctype(g, it);
        gen_printf(c, "    size_t i, count = v->u.map.count;\n"
                      "    if (AVKGEN_UNLIKELY(count && (!v->u.map.keys%s)))\n"
                      "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"map of %%zu entries has no keys or values\", count);\n",
                   ct ? " || !v->u.map.values" : "");
        alloc_items(g, "out->keys", "avk_bytes", "count");
        gen_puts(c, "    for (i = 0; i < count; i++)\n        out->keys[i] = v->u.map.keys[i];\n");
        if (ct) {
            alloc_items(g, "out->values", ct, "count");
            gen_puts(c, "    for (i = 0; i < count; i++) {\n");
            value_fromv(g, it, "&v->u.map.values[i]", "out->values[i]", "        ");
            gen_puts(c, "        if (st != AVK_OK)\n            return st;\n    }\n");
        }
        gen_puts(c, "    out->count = count;\n");
        break;
    }
    case AVK_UNION: {
        const avk_type *o;
        size_t ni;
        n = avk_type_branch_count(t);
        gen_printf(c, "    (void)arena;\n    if (AVKGEN_UNLIKELY((size_t)v->u.branch.index + 1 > %zuu))\n"
                      "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"union branch %%u out of range (%zu branches)\",\n"
                      "                             (unsigned)v->u.branch.index);\n",
                   n, n);
        if (gen_is_nullable(t, &o, &ni)) {
            if (avk_type_kind(o) == AVK_RECORD) {
                gen_printf(c, "    *out = NULL;\n    if (v->u.branch.index == %zu)\n        return AVK_OK;\n", ni);
                branch_fromv(g, o, "*out", "    ");
            } else {
                gen_printf(c, "    memset(out, 0, sizeof *out);\n"
                              "    if (v->u.branch.index == %zu)\n        return AVK_OK;\n"
                              "    out->present = true;\n",
                           ni);
                branch_fromv(g, o, "out->value", "    ");
            }
            break;
        }
        gen_printf(c, "    memset(out, 0, sizeof *out);\n    out->kind = (%s_kind)v->u.branch.index;\n"
                      "    switch (v->u.branch.index) {\n",
                   gen_tname(g, t));
        for (i = 0; i < n; i++) {
            const avk_type *b = avk_type_branch(t, i);
            if (avk_type_kind(b) == AVK_NULL)
                continue;
            gen_printf(c, "    case %zu:\n", i);
            branch_fromv(g, b, gen_fmt(g, "out->u.%s", gen_union_member(g, t, i)), "        ");
            gen_puts(c, "        break;\n");
        }
        gen_puts(c, "    default:\n        break;\n    }\n");
        break;
    }
    default:
        break;
    }
    gen_puts(c, "    return st;\n}\n\n");
}

void gen_emit_value_public(gen_ctx *g, const avk_type *t, const char *fn);
void gen_emit_value_public(gen_ctx *g, const avk_type *t, const char *fn)
{
    gen_buf *c = &g->c;
    gen_printf(c, "avk_status %s_to_value(const %s *in, const avk_type *type, avk_arena *arena, avk_value *out,\n"
                  "    avk_error *err)\n{\n    avk_status st = AVK_OK;\n"
                  "    if (!in || !type || !arena || !out)\n"
                  "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                  "                             \"%s_to_value: NULL argument\");\n",
               fn, fn, fn);
    if (avk_type_kind(t) == AVK_NULL)
        gen_puts(c, "    out->type = type;\n");
    else
        value_tov(g, t, "(*in)", "type", "out", "    ");
    gen_puts(c, "    return st;\n}\n\n");
    gen_printf(c, "avk_status %s_from_value(const avk_value *v, avk_arena *arena, %s *out, avk_error *err)\n{\n"
                  "    avk_status st = AVK_OK;\n"
                  "    if (!v || !arena || !out)\n"
                  "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                  "                             \"%s_from_value: NULL argument\");\n",
               fn, fn, fn);
    if (avk_type_kind(t) == AVK_NULL)
        gen_puts(c, "    out->unused_ = 0;\n");
    else
        value_fromv(g, t, "v", "(*out)", "    ");
    gen_puts(c, "    return st;\n}\n\n");
}
