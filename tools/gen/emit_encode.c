/* Generated encoders: one static function per compound type writing what avk_plan_encode writes (arrays and maps as one block, then 0). */
#include <string.h>

#include "gen.h"

static void value_enc(gen_ctx *g, const avk_type *t, const char *lv, const char *ind)
{
    gen_buf *c = &g->c;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        gen_printf(c, "%sst = AVK_OK;\n", ind);
        break;
    case AVK_BOOLEAN:
        gen_printf(c, "%sst = avk_writer_write_boolean(c->w, %s ? 1 : 0, c->err);\n", ind, lv);
        break;
    case AVK_INT:
        gen_printf(c, "%sst = avk_writer_write_int(c->w, %s, c->err);\n", ind, lv);
        break;
    case AVK_LONG:
        gen_printf(c, "%sst = avk_writer_write_long(c->w, %s, c->err);\n", ind, lv);
        break;
    /* Floats are written from their bytes, never passed by value: on 32-bit
     * x86 an x87 load quiets a signalling NaN, and every bit must survive. */
    case AVK_FLOAT:
        gen_printf(c, "%sst = avk_writer_write_raw(c->w, &%s, sizeof(float), c->err);\n", ind, lv);
        break;
    case AVK_DOUBLE:
        gen_printf(c, "%sst = avk_writer_write_raw(c->w, &%s, sizeof(double), c->err);\n", ind, lv);
        break;
    case AVK_STRING:
    case AVK_BYTES:
        gen_printf(c, "%sst = avkgen_write_bytes(c, &%s, \"%s\");\n", ind, lv,
                   avk_type_kind(t) == AVK_STRING ? "string" : "bytes");
        break;
    default:
        gen_printf(c, "%sst = %s(c, &%s);\n", ind, gen_helper(g, "enc", t), lv);
        break;
    }
}

/* "[null, string, ns.User]" as the library lists a union's branches. */
static const char *branch_list(gen_ctx *g, const avk_type *u)
{
    char buf[160];
    size_t i, n = 0;
    buf[n++] = '[';
    for (i = 0; i < avk_type_branch_count(u); i++) {
        const char *label = gen_label(avk_type_branch(u, i));
        size_t len = strlen(label);
        if (n + len + 2 + 5 > sizeof buf) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        if (i) {
            memcpy(buf + n, ", ", 2);
            n += 2;
        }
        memcpy(buf + n, label, len);
        n += len;
    }
    buf[n++] = ']';
    buf[n] = 0;
    return gen_fmt(g, "%s", buf);
}

static void enc_union(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t n = avk_type_branch_count(t), i, ni;
    const avk_type *o;
    gen_puts(c, "    avk_status st;\n");
    if (gen_is_nullable(t, &o, &ni)) {
        if (avk_type_kind(o) == AVK_RECORD) {
            gen_printf(c, "    if (!*in)\n        return avk_writer_write_long(c->w, %zu, c->err);\n"
                          "    st = avk_writer_write_long(c->w, %zu, c->err);\n"
                          "    if (st != AVK_OK)\n        return st;\n"
                          "    st = %s(c, *in);\n",
                       ni, 1 - ni, gen_helper(g, "enc", o));
        } else {
            gen_printf(c, "    if (!in->present)\n        return avk_writer_write_long(c->w, %zu, c->err);\n"
                          "    st = avk_writer_write_long(c->w, %zu, c->err);\n"
                          "    if (st != AVK_OK)\n        return st;\n",
                       ni, 1 - ni);
            value_enc(g, o, "in->value", "    ");
        }
        gen_printf(c, "    return AVKGEN_LIKELY(st == AVK_OK)\n               ? st\n"
                      "               : avk_check_path_front(&c->at, AVK_PATH_BRANCH, %zu, NULL, st);\n",
                   1 - ni);
        return;
    }
    gen_printf(c, "    if (AVKGEN_UNLIKELY((unsigned)in->kind >= %zuu))\n"
                  "        return avk_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                  "                             \"union branch %%u out of range (branches: %%s)\",\n"
                  "                             (unsigned)in->kind, %s);\n",
               n, gen_cstring(g, branch_list(g, t)));
    gen_puts(c, "    st = avk_writer_write_long(c->w, (int64_t)in->kind, c->err);\n"
                "    if (st != AVK_OK)\n        return st;\n    switch ((unsigned)in->kind) {\n");
    for (i = 0; i < n; i++) {
        const avk_type *b = avk_type_branch(t, i);
        const char *m = gen_union_member(g, t, i);
        if (avk_type_kind(b) == AVK_NULL)
            continue;
        gen_printf(c, "    case %zu:\n", i);
        if (avk_type_kind(b) == AVK_RECORD)
            gen_printf(c, "        st = in->u.%s ? %s(c, in->u.%s)\n"
                          "                   : avk_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, "
                          "AVK_OFFSET_UNKNOWN,\n"
                          "                                   \"union value has no branch value\");\n",
                       m, gen_helper(g, "enc", b), m);
        else
            value_enc(g, b, gen_fmt(g, "in->u.%s", m), "        ");
        gen_puts(c, "        break;\n");
    }
    gen_puts(c, "    default:\n        st = AVK_OK;\n        break;\n    }\n"
                "    return AVKGEN_LIKELY(st == AVK_OK)\n               ? st\n"
                "               : avk_check_path_front(&c->at, AVK_PATH_BRANCH, (uint64_t)in->kind, NULL, "
                "st);\n");
}

static void enc_collection(gen_ctx *g, const avk_type *t, int is_map)
{
    gen_buf *c = &g->c;
    const avk_type *it = is_map ? avk_type_values(t) : avk_type_items(t);
    const char *ct = gen_ctype(g, it);
    gen_puts(c, "    avk_status st;\n    size_t i;\n"
                "    if (in->count == 0)\n        return avk_writer_write_long(c->w, 0, c->err);\n");
    if (is_map)
        gen_printf(c, "    if (AVKGEN_UNLIKELY(!in->keys%s))\n"
                      "        return avk_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"map of %%zu entries has no keys or values\", in->count);\n",
                   ct ? " || !in->values" : "");
    else if (ct)
        gen_puts(c, "    if (AVKGEN_UNLIKELY(!in->items))\n"
                    "        return avk_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                    "                             \"array of %zu items has no items\", in->count);\n");
    gen_puts(c, "    st = avk_writer_write_long(c->w, (int64_t)in->count, c->err);\n"
                "    if (st != AVK_OK)\n        return st;\n");
    if (!is_map && avk_type_kind(it) == AVK_LONG) {
        gen_puts(c, "    st = avk_writer_write_longs(c->w, in->items, in->count, c->err);\n"
                    "    if (st != AVK_OK)\n        return st;\n    (void)i;\n");
    } else if (!is_map && avk_type_kind(it) == AVK_INT) {
        gen_puts(c, "    st = avk_writer_write_ints(c->w, in->items, in->count, c->err);\n"
                    "    if (st != AVK_OK)\n        return st;\n    (void)i;\n");
    } else if (!is_map && (avk_type_kind(it) == AVK_FLOAT || avk_type_kind(it) == AVK_DOUBLE ||
                           (avk_type_kind(it) == AVK_FIXED && avk_type_fixed_size(it) > 0))) {
        gen_puts(c, "    st = avk_writer_write_raw(c->w, in->items, in->count * sizeof *in->items, c->err);\n"
                    "    if (st != AVK_OK)\n        return st;\n    (void)i;\n");
    } else if (is_map || ct) {
        gen_puts(c, "    for (i = 0; i < in->count; i++) {\n");
        if (is_map)
            gen_puts(c, "        st = avkgen_write_bytes(c, &in->keys[i], \"string\");\n"
                        "        if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                        "            return avk_check_path_front(&c->at, AVK_PATH_KEY, i, NULL, st);\n");
        if (ct) {
            value_enc(g, it, is_map ? "in->values[i]" : "in->items[i]", "        ");
            gen_printf(c, "        if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                          "            return avk_check_path_front(&c->at, %s, i, NULL, st);\n",
                       is_map ? "AVK_PATH_VALUE" : "AVK_PATH_ITEM");
        }
        gen_puts(c, "    }\n");
    } else {
        gen_puts(c, "    (void)i;\n");
    }
    gen_puts(c, "    return avk_writer_write_long(c->w, 0, c->err);\n");
}

/* Bytes a leaf field may take in the unchecked fast path (varints: the
 * encoder may store up to AVK_VARINT_LONG_MAX), or 0 when the field is not
 * written there. Strings and bytes: their length varint (the data is checked
 * at run time). */
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
        return 10;
    case AVK_STRING:
    case AVK_BYTES:
        return 64; /* up to 63 bytes with their 1-byte length; longer ones checked */
    case AVK_FIXED:
        return avk_type_fixed_size(t) > 0 && avk_type_fixed_size(t) <= 256 ? avk_type_fixed_size(t) : 0;
    default:
        return 0;
    }
}

/* The fields [from, to) of a record (every one fast_bound > 0 or null)
 * written with the position in a local and one room check for the run, as the
 * library's encoder does; a field the fast path cannot take (bad enum,
 * string without data, string longer than the room left) jumps to the
 * checked code for that field and the rest of the run, which reports any
 * error exactly as before. */
static void enc_run(gen_ctx *g, const avk_type *t, size_t from, size_t to, unsigned run)
{
    gen_buf *c = &g->c;
    size_t i, bound = 0, rest;
    for (i = from; i < to; i++)
        bound += fast_bound(avk_field_type(avk_type_field(t, i)));
    gen_printf(c, "    p = c->w->pos;\n"
                  "    if (AVKGEN_UNLIKELY((size_t)(c->w->end - p) < %zuu))\n        goto avkgen_s%u_%zu;\n",
               bound, run, from);
    rest = bound;
    for (i = from; i < to; i++) {
        const avk_type *ft = avk_field_type(avk_type_field(t, i));
        const char *m = gen_fmt(g, "in->%s", gen_field_member(g, t, i));
        size_t b = fast_bound(ft), j, k = 0;
        /* Two or more int/long fields in a row: the bulk kernel (no branch
         * on each value's length); the room for 10 bytes a value is there. */
        for (j = i; j < to; j++) {
            int kj = avk_type_kind(avk_field_type(avk_type_field(t, j)));
            if (kj == AVK_INT || kj == AVK_LONG)
                k++;
            else if (kj != AVK_NULL)
                break;
        }
        if (k >= 2) {
            size_t n = 0;
            gen_printf(c, "    {\n        int64_t v_[%zu];\n", k);
            for (; i < j; i++) {
                int ki = avk_type_kind(avk_field_type(avk_type_field(t, i)));
                if (ki == AVK_NULL)
                    continue;
                gen_printf(c, "        v_[%zu] = (int64_t)in->%s;\n", n++, gen_field_member(g, t, i));
            }
            i--;
            gen_printf(c, "        p += avk_varint_encode_longs(p, v_, %zu);\n    }\n", k);
            rest -= 10 * k;
            continue;
        }
        switch (avk_type_kind(ft)) {
        case AVK_NULL:
            break;
        case AVK_BOOLEAN:
            gen_printf(c, "    *p++ = %s ? 1 : 0;\n", m);
            break;
        case AVK_INT:
        case AVK_LONG:
            gen_printf(c, "    p += avk_varint_encode_long(p, (int64_t)%s);\n", m);
            break;
        case AVK_FLOAT:
        case AVK_DOUBLE:
            gen_printf(c, "    memcpy(p, &%s, %zu);\n    p += %zu;\n", m, b, b);
            break;
        case AVK_ENUM:
            gen_printf(c, "    if (AVKGEN_UNLIKELY((unsigned)%s >= %zuu)) {\n"
                          "        c->w->pos = p;\n        goto avkgen_s%u_%zu;\n    }\n"
                          "    p += avk_varint_encode_long(p, (int64_t)%s);\n",
                       m, avk_type_symbol_count(ft), run, i, m);
            break;
        case AVK_STRING:
        case AVK_BYTES:
            /* room >= rest here: up to 63 bytes fit in this field's 64;
             * longer data must fit beside the rest */
            gen_printf(c, "    if (AVKGEN_LIKELY(%s.len <= 63 && (%s.data || !%s.len))) {\n"
                          "        *p++ = (uint8_t)(%s.len << 1);\n"
                          "        avkgen_copy_short(p, (const uint8_t *)%s.data, %s.len);\n"
                          "        p += %s.len;\n"
                          "    } else if (AVKGEN_UNLIKELY((%s.len && !%s.data) || %s.len > (size_t)(c->w->end - p) - %zu)) {\n"
                          "        c->w->pos = p;\n        goto avkgen_s%u_%zu;\n    } else {\n"
                          "        p += avk_varint_encode_long(p, (int64_t)%s.len);\n"
                          "        memcpy(p, %s.data, %s.len);\n        p += %s.len;\n    }\n",
                       m, m, m, m, m, m, m, m, m, m, rest, run, i, m, m, m, m);
            break;
        case AVK_FIXED:
            gen_printf(c, "    memcpy(p, %s.bytes, %zu);\n    p += %zu;\n", m, b, b);
            break;
        default:
            break;
        }
        rest -= b;
    }
    gen_printf(c, "    c->w->pos = p;\n    goto avkgen_e%u;\n", run);
}

/* Is field i the target of a jump from enc_run (run start, enum, string)? */
static int run_label(const avk_type *t, size_t from, size_t i)
{
    int k = avk_type_kind(avk_field_type(avk_type_field(t, i)));
    return i == from || k == AVK_ENUM || k == AVK_STRING || k == AVK_BYTES;
}

void gen_emit_encode(gen_ctx *g, const avk_type *t)
{
    gen_buf *c = &g->c;
    size_t i, n, run_from = (size_t)-1, run_to = 0;
    unsigned runs = 0;
    gen_printf(c, "static avk_status %s(avkgen_ectx *c, %s const *in)\n{\n", gen_helper(g, "enc", t),
               gen_ctype(g, t));
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        gen_puts(c, "    avk_status st = AVK_OK;\n    uint8_t *p;\n    (void)in;\n    (void)st;\n    (void)p;\n");
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++) {
            const avk_field *f = avk_type_field(t, i);
            if (avk_type_kind(avk_field_type(f)) == AVK_NULL)
                continue;
            if (fast_bound(avk_field_type(f)) && run_from == (size_t)-1) {
                size_t j = i, last = i;
                while (j < n && (fast_bound(avk_field_type(avk_type_field(t, j))) ||
                                 avk_type_kind(avk_field_type(avk_type_field(t, j))) == AVK_NULL)) {
                    if (fast_bound(avk_field_type(avk_type_field(t, j))))
                        last = j; /* the run ends at its last written field */
                    j++;
                }
                j = last + 1;
                run_from = i;
                run_to = j;
                enc_run(g, t, i, j, runs);
            }
            if (run_from != (size_t)-1 && run_label(t, run_from, i))
                gen_printf(c, "avkgen_s%u_%zu:\n", runs, i);
            value_enc(g, avk_field_type(f), gen_fmt(g, "in->%s", gen_field_member(g, t, i)), "    ");
            gen_printf(c, "    if (AVKGEN_UNLIKELY(st != AVK_OK))\n"
                          "        return avk_check_path_front(&c->at, AVK_PATH_FIELD, %zu, %s, st);\n",
                       i, gen_cstring(g, avk_field_name(f)));
            if (run_from != (size_t)-1 && i + 1 >= run_to) {
                gen_printf(c, "avkgen_e%u:;\n", runs++);
                run_from = (size_t)-1;
            }
        }
        gen_puts(c, "    (void)c;\n    return AVK_OK;\n");
        break;
    case AVK_ENUM:
        n = avk_type_symbol_count(t);
        gen_printf(c, "    if (AVKGEN_UNLIKELY((unsigned)*in >= %zuu))\n"
                      "        return avk_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                      "                             \"enum index %%u out of range (%%u symbols)\", "
                      "(unsigned)*in, %zuu);\n"
                      "    return avk_writer_write_int(c->w, (int32_t)*in, c->err);\n",
                   n, n);
        break;
    case AVK_FIXED:
        if (avk_type_fixed_size(t))
            gen_printf(c, "    return avk_writer_write_raw(c->w, in->bytes, %zu, c->err);\n",
                       avk_type_fixed_size(t));
        else
            gen_puts(c, "    (void)c;\n    (void)in;\n    return AVK_OK;\n");
        break;
    case AVK_ARRAY:
        enc_collection(g, t, 0);
        break;
    case AVK_MAP:
        enc_collection(g, t, 1);
        break;
    case AVK_UNION:
        enc_union(g, t);
        break;
    default:
        break;
    }
    gen_puts(c, "}\n\n");
}

void gen_emit_encode_public(gen_ctx *g, const avk_type *t, const char *fn);
void gen_emit_encode_public(gen_ctx *g, const avk_type *t, const char *fn)
{
    gen_buf *c = &g->c;
    gen_printf(c, "avk_status %s_encode(const %s *in, avk_writer *w, avk_error *err)\n{\n"
                  "    avkgen_ectx ctx;\n    avkgen_ectx *c = &ctx;\n    avk_status st;\n    size_t mark;\n"
                  "    if (!in || !w)\n"
                  "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
                  "                             \"%s_encode: NULL argument\");\n"
                  "    c->w = w;\n    c->err = err;\n    avk_check_path_init(&c->at);\n"
                  "    mark = (size_t)(w->pos - w->buf);\n",
               fn, fn, fn);
    if (avk_type_kind(t) == AVK_NULL)
        gen_puts(c, "    st = AVK_OK;\n");
    else
        value_enc(g, t, "(*in)", "    ");
    gen_printf(c, "    if (AVKGEN_UNLIKELY(st != AVK_OK)) {\n"
                  "        if (!w->sink) /* a memory writer is put back where it was */\n"
                  "            w->pos = w->buf + mark;\n"
                  "        if (st == AVK_ERR_INVALID_ARGUMENT)\n"
                  "            avk_check_path_report(err, %s, &c->at);\n"
                  "    }\n    return st;\n}\n\n",
               gen_cstring(g, gen_label(t)));
}
