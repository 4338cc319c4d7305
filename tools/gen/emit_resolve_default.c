/* Reader defaults as generated code: the value the library's resolver decoded from the field's default JSON, written out as C assignments. */
#include <string.h>

#include "gen_resolve_int.h"
#include "avrokit/value.h"

/* Bytes as a static table; returns its serial number. A trailing NUL
 * keeps strings usable as C strings, as decoded copies are. */
static unsigned bytes_table(gen_r *g, const uint8_t *data, size_t len)
{
    unsigned id = g->serial++;
    size_t i;
    gen_printf(&g->data, "static const uint8_t avkgen_rs_d%u[] = {", id);
    for (i = 0; i < len; i++)
        gen_printf(&g->data, "%s0x%02x", i % 16 ? ", " : "\n    ", data[i]);
    gen_printf(&g->data, "%s0};\n", len ? ",\n    " : "");
    return id;
}

typedef struct dctx {
    const avk_value *v;
    const avk_type *t;
} dctx;

static void fill_default(gen_r *g, gen_buf *f, const char *dst, const char *ind, const void *ctx)
{
    const avk_value *v = ((const dctx *)ctx)->v;
    if (dst)
        gen_r_default(g, f, v, ((const dctx *)ctx)->t, dst, ind);
}

/* Item i of an array value, as an avk_value (typed arrays hold plain C items). */
static avk_value array_item(const avk_value *v, const avk_type *items, size_t i)
{
    avk_value x;
    size_t size = 0;
    memset(&x, 0, sizeof x);
    x.type = items;
    if (!avk_array_is_typed(v->type, &size))
        return ((const avk_value *)v->u.array.items)[i];
    switch (items->kind) {
    case AVK_BOOLEAN: x.u.boolean = ((const uint8_t *)v->u.array.items)[i]; break;
    case AVK_INT: x.u.i = ((const int32_t *)v->u.array.items)[i]; break;
    case AVK_LONG: x.u.l = ((const int64_t *)v->u.array.items)[i]; break;
    case AVK_FLOAT: x.u.f = ((const float *)v->u.array.items)[i]; break;
    case AVK_DOUBLE: x.u.d = ((const double *)v->u.array.items)[i]; break;
    case AVK_FIXED:
        x.u.bytes.data = (const uint8_t *)v->u.array.items + i * size;
        x.u.bytes.len = size;
        break;
    default: break;
    }
    return x;
}

void gen_r_default(gen_r *g, gen_buf *f, const avk_value *v, const avk_type *t, const char *dst,
                   const char *ind)
{
    const char *ct = gen_r_ctype(g, t);
    char sub[GEN_RNAME_MAX + 64], ind2[64];
    size_t i;
    unsigned id;
    snprintf(ind2, sizeof ind2, "%s    ", ind);
    switch (t->kind) {
    case AVK_NULL: return;
    case AVK_BOOLEAN: gen_printf(f, "%s%s = %s;\n", ind, dst, v->u.boolean ? "true" : "false"); return;
    case AVK_INT: gen_printf(f, "%s%s = (int32_t)INT64_C(%d);\n", ind, dst, (int)v->u.i); return;
    case AVK_LONG:
        if (v->u.l == INT64_MIN)
            gen_printf(f, "%s%s = -INT64_C(9223372036854775807) - 1;\n", ind, dst);
        else
            gen_printf(f, "%s%s = INT64_C(%lld);\n", ind, dst, (long long)v->u.l);
        return;
    case AVK_FLOAT: {
        uint32_t b;
        memcpy(&b, &v->u.f, 4);
        gen_printf(f, "%s{\n%s    uint32_t b_ = UINT32_C(0x%08x);\n%s    memcpy(&%s, &b_, 4);\n%s}\n", ind,
                ind, (unsigned)b, ind, dst, ind);
        return;
    }
    case AVK_DOUBLE: {
        uint64_t b;
        memcpy(&b, &v->u.d, 8);
        gen_printf(f, "%s{\n%s    uint64_t b_ = UINT64_C(0x%016llx);\n%s    memcpy(&%s, &b_, 8);\n%s}\n",
                ind, ind, (unsigned long long)b, ind, dst, ind);
        return;
    }
    case AVK_STRING:
    case AVK_BYTES:
        id = bytes_table(g, v->u.bytes.data, v->u.bytes.len);
        gen_printf(f, "%s%s.data = avkgen_rs_d%u;\n%s%s.len = %zu;\n", ind, dst, id, ind, dst, v->u.bytes.len);
        return;
    case AVK_FIXED:
        if (t->size) {
            id = bytes_table(g, v->u.bytes.data, t->size);
            gen_printf(f, "%smemcpy(%s.bytes, avkgen_rs_d%u, %zu);\n", ind, dst, id, t->size);
        }
        return;
    case AVK_ENUM: gen_printf(f, "%s%s = (%s)%u;\n", ind, dst, ct, (unsigned)v->u.index); return;
    case AVK_RECORD:
        for (i = 0; i < t->field_count; i++) {
            const avk_field *fl = avk_type_field(t, i);
            const avk_type *ft = avk_field_type(fl);
            snprintf(sub, sizeof sub, "%s.%s", dst, gen_field_member(g->gc, t, i));
            gen_r_default(g, f, &v->u.fields[i], ft, sub, ind);
        }
        return;
    case AVK_ARRAY:
    case AVK_MAP: {
        int is_map = t->kind == AVK_MAP;
        size_t count = is_map ? v->u.map.count : v->u.array.count;
        int stores = t->items->kind != AVK_NULL;
        const char *it = gen_r_ctype(g, t->items);
        if (count == 0 || (!stores && !is_map)) {
            if (stores)
                gen_printf(f, "%s%s.%s = NULL;\n", ind, dst, is_map ? "values" : "items");
            if (is_map)
                gen_printf(f, "%s%s.keys = NULL;\n", ind, dst);
            gen_printf(f, "%s%s.count = %zu;\n", ind, dst, count);
            return;
        }
        id = g->serial++;
        gen_printf(f, "%s{\n", ind);
        if (stores) {
            gen_printf(f, "%s    %s *a%u_ = (%s *)avkgen_rs_alloc(c, %zu * sizeof(%s));\n", ind, it, id, it, count, it);
            gen_printf(f, "%s    if (!a%u_)\n%s        return avkgen_rs_nomem(c, %zu * sizeof(%s));\n", ind, id, ind,
                    count, it);
        }
        if (is_map) {
            gen_printf(f, "%s    avk_bytes *k%u_ = (avk_bytes *)avkgen_rs_alloc(c, %zu * sizeof(avk_bytes));\n", ind,
                    id, count);
            gen_printf(f, "%s    if (!k%u_)\n%s        return avkgen_rs_nomem(c, %zu * sizeof(avk_bytes));\n", ind,
                    id, ind, count);
        }
        for (i = 0; i < count; i++) {
            if (is_map) {
                unsigned kid = bytes_table(g, v->u.map.keys[i].data, v->u.map.keys[i].len);
                gen_printf(f, "%s    k%u_[%zu].data = avkgen_rs_d%u;\n%s    k%u_[%zu].len = %zu;\n", ind, id, i,
                        kid, ind, id, i, v->u.map.keys[i].len);
            }
            if (stores) {
                avk_value item = is_map ? v->u.map.values[i] : array_item(v, t->items, i);
                snprintf(sub, sizeof sub, "a%u_[%zu]", id, i);
                gen_r_default(g, f, &item, t->items, sub, ind2);
            }
        }
        if (stores)
            gen_printf(f, "%s    %s.%s = a%u_;\n", ind, dst, is_map ? "values" : "items", id);
        if (is_map)
            gen_printf(f, "%s    %s.keys = k%u_;\n", ind, dst, id);
        gen_printf(f, "%s    %s.count = %zu;\n%s}\n", ind, dst, count, ind);
        return;
    }
    case AVK_UNION: {
        dctx d;
        d.v = v->u.branch.value;
        d.t = t->branches[v->u.branch.index];
        gen_r_branch(g, f, t, v->u.branch.index, dst, ind, fill_default, &d);
        return;
    }
    default: return;
    }
}
