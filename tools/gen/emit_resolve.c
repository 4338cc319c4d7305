/* The resolution emitter: walks the library's resolving plan for a writer/reader pair and writes one C function per resolution node. */

/*
 * Why a plan and not a walk of the two schemas: avk_plan_new_resolving is
 * the one place that knows the resolution rules (names and aliases,
 * promotions, field slots, defaults, enum and union maps, which writer
 * branch fails when read and with what message). Walking its output
 * makes the generated decoder follow those rules by construction; a second
 * copy of them here would drift. The plan format is private to the
 * library, which is why tools/gen includes plan/plan_format.h.
 *
 * Mapping (src/binary/decode.c is the model of every function):
 *   leaf ops        inline code per step (gen_r_read)
 *   RECORD          avkgen_rs_<n>: the writer's fields in the writer's order, each
 *                   into its reader member (rx.slots) or skipped (SKIP
 *                   steps: avkgen_sk_<writer node>), then the reader's defaults
 *   ARRAY, MAP      avkgen_rs_<n>: blocks checked with avrokit/check.h, items
 *   UNION           avkgen_rs_<n>: the writer's index, its step, the reader branch
 *   UNWRAP          avkgen_rs_<n>: the writer's index, its step, no union around
 *   WRAP            avkgen_rs_<n>: the reader branch the node names, one step
 * Every function takes the level of its value (unions count, as in the
 * library) and fails as the decoder does past max_depth, and the level of
 * the innermost record, array or map around it (the library's frame, which
 * places the items of typed arrays); a failing child puts its place in
 * front of the check path on the way out. Generated statics start with
 * avkgen_ (the reader's own files use the same reserved prefix), so a
 * schema's type names cannot collide with them.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_resolve_int.h"
#include "avrokit/resolve.h"
#include "schema/schema_internal.h"

int gen_r_compound(uint8_t op)
{
    return op == AVKI_OP_RECORD || op == AVKI_OP_ARRAY || op == AVKI_OP_MAP ||
           op == AVKI_OP_UNION || op == AVKI_OP_UNWRAP || op == AVKI_OP_WRAP;
}

void gen_r_literal(gen_buf *f, const char *s)
{
    gen_puts(f, "\"");
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            gen_printf(f, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f || ch == '?') /* '?': no trigraphs */
            gen_printf(f, "\\%03o", ch);
        else
            gen_printf(f, "%c", ch);
    }
    gen_puts(f, "\"");
}

const char *gen_r_ctype(gen_r *g, const avk_type *t)
{
    const char *ct = gen_ctype(g->gc, t);
    return ct ? ct : "";
}

static void want_rs(gen_r *g, uint32_t n)
{
    if (!g->avkgen_rs_want[n])
        g->avkgen_rs_want[n] = 1;
}

/* The function's parameter type for values of t: "T *", or "void *". */
static const char *param(gen_r *g, const avk_type *t, char *buf)
{
    const char *ct = gen_r_ctype(g, t);
    snprintf(buf, GEN_RNAME_MAX, "%s *", ct[0] ? ct : "void");
    return buf;
}

void gen_r_read(gen_r *g, gen_buf *f, const avki_step *s, const char *dst, const char *ind)
{
    const avki_node *n = g->p->nodes + s->node;
    const char *ct = gen_r_ctype(g, s->type);
    switch ((avki_op)s->op) {
    case AVKI_OP_NULL: gen_printf(f, "%sst = AVK_OK;\n", ind); return;
    case AVKI_OP_BOOLEAN: gen_printf(f, "%sst = avkgen_rs_boolean(c, &%s);\n", ind, dst); return;
    case AVKI_OP_INT: gen_printf(f, "%sst = avk_reader_read_int(c->r, &%s, c->err);\n", ind, dst); return;
    case AVKI_OP_LONG:
        gen_printf(f, "%sst = avk_reader_read_long(c->r, &%s, c->err);\n", ind, dst);
        return;
    case AVKI_OP_FLOAT:
        gen_printf(f, "%sst = avk_reader_read_float(c->r, &%s, c->err);\n", ind, dst);
        return;
    case AVKI_OP_DOUBLE:
        gen_printf(f, "%sst = avk_reader_read_double(c->r, &%s, c->err);\n", ind, dst);
        return;
    case AVKI_OP_STRING: gen_printf(f, "%sst = avkgen_rs_bytes(c, &%s, \"string\");\n", ind, dst); return;
    case AVKI_OP_BYTES: gen_printf(f, "%sst = avkgen_rs_bytes(c, &%s, \"bytes\");\n", ind, dst); return;
    case AVKI_OP_FIXED:
        gen_printf(f, "%sst = avkgen_rs_fixed(c, %s.bytes, %u);\n", ind, dst, (unsigned)n->count);
        return;
    case AVKI_OP_INT_LONG:
    case AVKI_OP_INT_FLOAT:
    case AVKI_OP_INT_DOUBLE:
        gen_printf(f, "%s{\n%s    int32_t x_ = 0;\n%s    st = avk_reader_read_int(c->r, &x_, c->err);\n", ind,
                ind, ind);
        gen_printf(f, "%s    %s = (%s)x_;\n%s}\n", ind, dst,
                s->op == AVKI_OP_INT_LONG ? "int64_t" : s->op == AVKI_OP_INT_FLOAT ? "float" : "double",
                ind);
        return;
    case AVKI_OP_LONG_FLOAT:
    case AVKI_OP_LONG_DOUBLE:
        gen_printf(f, "%s{\n%s    int64_t x_ = 0;\n%s    st = avk_reader_read_long(c->r, &x_, c->err);\n", ind,
                ind, ind);
        gen_printf(f, "%s    %s = (%s)x_;\n%s}\n", ind, dst,
                s->op == AVKI_OP_LONG_FLOAT ? "float" : "double", ind);
        return;
    case AVKI_OP_FLOAT_DOUBLE:
        gen_printf(f, "%s{\n%s    float x_ = 0;\n%s    st = avk_reader_read_float(c->r, &x_, c->err);\n", ind,
                ind, ind);
        gen_printf(f, "%s    %s = (double)x_;\n%s}\n", ind, dst, ind);
        return;
    case AVKI_OP_ENUM: {
        const avki_rx *x = n->store ? g->p->rx + n->extra : NULL;
        if (!x) {
            gen_printf(f, "%s{\n%s    int32_t x_ = 0;\n%s    st = avkgen_rs_enum(c, %u, &x_);\n", ind, ind, ind,
                    (unsigned)n->count);
            gen_printf(f, "%s    %s = (%s)x_;\n%s}\n", ind, dst, ct, ind);
            return;
        } else {
            /* The writer's symbol to the reader's (its default for the
             * symbols it lacks); -1: the library's error when read. */
            unsigned id = g->serial++;
            uint32_t i;
            int fails = 0;
            gen_printf(&g->data, "static const int32_t avkgen_rs_map%u[] = {", id);
            for (i = 0; i < n->count; i++) {
                gen_printf(&g->data, "%s%d", i ? ", " : "", (int)x->map[i]);
                fails |= x->map[i] < 0;
            }
            gen_printf(&g->data, "};\n");
            gen_printf(f, "%s{\n%s    int32_t x_ = 0;\n", ind, ind);
            if (!fails) {
                gen_printf(f, "%s    st = avkgen_rs_enum(c, %u, &x_);\n", ind, (unsigned)n->count);
                gen_printf(f, "%s    if (st == AVK_OK)\n%s        %s = (%s)avkgen_rs_map%u[x_];\n%s}\n", ind,
                           ind, dst, ct, id, ind);
                return;
            }
            gen_printf(&g->data, "static const char *const avkgen_rs_why%u[] = {\n", id);
            for (i = 0; i < n->count; i++) {
                char msg[AVK_ERROR_MESSAGE_MAX];
                if (x->map[i] >= 0) {
                    gen_printf(&g->data, "    NULL,\n");
                    continue;
                }
                snprintf(msg, sizeof msg,
                         "writer symbol %s is not in reader enum %s, which has no default",
                         x->writer->symbols[i], s->type->fullname);
                gen_printf(&g->data, "    ");
                gen_r_literal(&g->data, msg);
                gen_printf(&g->data, ",\n");
            }
            gen_printf(&g->data, "};\n");
            gen_printf(f, "%s    uint64_t o_ = avk_reader_offset(c->r);\n", ind);
            gen_printf(f, "%s    st = avkgen_rs_enum(c, %u, &x_);\n", ind, (unsigned)n->count);
            gen_printf(f, "%s    if (st == AVK_OK && avkgen_rs_map%u[x_] < 0)\n", ind, id);
            gen_printf(f, "%s        st = avk_error_set(c->err, AVK_ERR_RESOLUTION, o_, \"%%s\", avkgen_rs_why%u[x_]);\n",
                       ind, id);
            gen_printf(f, "%s    else if (st == AVK_OK)\n%s        %s = (%s)avkgen_rs_map%u[x_];\n%s}\n", ind, ind,
                       dst, ct, id, ind);
            return;
        }
    }
    case AVKI_OP_FAIL:
        gen_printf(f, "%sst = avk_error_set(c->err, AVK_ERR_RESOLUTION, avk_reader_offset(c->r), \"%%s\",\n%s    ",
                ind, ind);
        gen_r_literal(f, g->p->rx[n->extra].message);
        gen_printf(f, ");\n");
        return;
    default:
        want_rs(g, s->node);
        if (dst)
            gen_printf(f, "%sst = avkgen_rs_%u(c, &%s, %s, %s);\n", ind, (unsigned)s->node, dst,
                       g->child_level, g->child_frame);
        else
            gen_printf(f, "%sst = avkgen_rs_%u(c, NULL, %s, %s);\n", ind, (unsigned)s->node, g->child_level,
                       g->child_frame);
        return;
    }
}

void gen_r_branch(gen_r *g, gen_buf *f, const avk_type *u, uint32_t b, const char *out,
                  const char *ind, gen_r_fill_fn inner, const void *ctx)
{
    const avk_type *bt = u->branches[b];
    const char *ct = gen_r_ctype(g, bt), *mem = gen_union_member(g->gc, u, b);
    char dst[GEN_RNAME_MAX + 16], ind2[64];
    gen_union_form form = gen_is_ptr_nullable(u)         ? GEN_UNION_POINTER
                          : gen_is_nullable(u, NULL, NULL) ? GEN_UNION_NULLABLE
                                                           : GEN_UNION_GENERAL;
    unsigned id = g->serial++;
    snprintf(ind2, sizeof ind2, "%s    ", ind);
    if (form == GEN_UNION_NULLABLE) {
        if (bt->kind == AVK_NULL) {
            gen_printf(f, "%s%s.present = false;\n", ind, out);
            inner(g, f, NULL, ind, ctx);
        } else {
            gen_printf(f, "%s%s.present = true;\n", ind, out);
            snprintf(dst, sizeof dst, "%s.value", out);
            inner(g, f, dst, ind, ctx);
        }
        return;
    }
    if (form == GEN_UNION_GENERAL) {
        gen_printf(f, "%s%s.kind = %s;\n", ind, out, gen_union_const(g->gc, u, b));
    }
    if (bt->kind == AVK_RECORD) {
        /* Records in unions are stored by pointer (recursion). */
        gen_printf(f, "%s{\n%s    %s *p%u_ = (%s *)avkgen_rs_alloc(c, sizeof(%s));\n", ind, ind, ct, id, ct, ct);
        gen_printf(f, "%s    if (!p%u_)\n%s        return avkgen_rs_nomem(c, sizeof(%s));\n", ind, id, ind, ct);
        if (form == GEN_UNION_POINTER)
            gen_printf(f, "%s    %s = p%u_;\n", ind, out, id);
        else
            gen_printf(f, "%s    %s.u.%s = p%u_;\n", ind, out, mem, id);
        snprintf(dst, sizeof dst, "(*p%u_)", id);
        inner(g, f, dst, ind2, ctx);
        gen_printf(f, "%s}\n", ind);
        return;
    }
    if (form == GEN_UNION_POINTER) { /* the null branch */
        gen_printf(f, "%s%s = NULL;\n", ind, out);
        inner(g, f, NULL, ind, ctx);
        return;
    }
    if (bt->kind == AVK_NULL) {
        inner(g, f, NULL, ind, ctx);
        return;
    }
    snprintf(dst, sizeof dst, "%s.u.%s", out, mem);
    inner(g, f, dst, ind, ctx);
}

static void fill_read(gen_r *g, gen_buf *f, const char *dst, const char *ind, const void *ctx)
{
    gen_r_read(g, f, (const avki_step *)ctx, dst, ind);
}

static void depth_check(gen_buf *f)
{
    gen_printf(f, "    (void)level;\n    (void)out;\n    if (level > c->max_depth)\n        return avkgen_rs_depth(c);\n");
}

static void fn_head(gen_r *g, uint32_t idx, const avk_type *t)
{
    char pt[GEN_RNAME_MAX];
    param(g, t, pt);
    gen_printf(&g->proto, "static avk_status avkgen_rs_%u(avkgen_rs_ctx *c, %sout, size_t level, size_t frame);\n",
               (unsigned)idx, pt);
    gen_printf(&g->body, "\nstatic avk_status avkgen_rs_%u(avkgen_rs_ctx *c, %sout, size_t level, size_t frame)\n{\n",
               (unsigned)idx, pt);
    gen_printf(&g->body, "    (void)frame;\n");
    /* Records, arrays and maps are the frames of the library's decoder. */
    g->child_frame = gen_r_compound(g->p->nodes[idx].op) && g->p->nodes[idx].op != AVKI_OP_UNION &&
                             g->p->nodes[idx].op != AVKI_OP_UNWRAP && g->p->nodes[idx].op != AVKI_OP_WRAP
                         ? "level"
                         : "frame";
}

static void emit_record(gen_r *g, uint32_t idx)
{
    const avki_node *n = g->p->nodes + idx;
    const avki_rx *x = g->p->rx + n->extra;
    const avk_type *r = n->type, *w = x->writer;
    gen_buf *f = &g->body;
    uint32_t i;
    char dst[GEN_RNAME_MAX + 16];
    fn_head(g, idx, r);
    gen_printf(f, "    avk_status st = AVK_OK;\n");
    depth_check(f);
    gen_printf(f, "    memset(out, 0, sizeof *out);\n");
    for (i = 0; i < n->count; i++) {
        const avki_step *s = g->p->steps + n->first + i;
        if (s->op == AVKI_OP_SKIP) {
            gen_printf(f, "    /* writer field %u \"%s\": not in the reader, skipped */\n", (unsigned)i,
                    w->fields[i].name);
            gen_r_skip(g, f, s->node, "    ");
            gen_printf(f, "    if (st != AVK_OK)\n        return avk_check_path_front(&c->at, "
                       "AVK_PATH_WRITER_FIELD, %u, ", (unsigned)i);
            gen_r_literal(f, w->fields[i].name);
            gen_printf(f, ", st);\n");
        } else {
            const avk_field *rf = &r->fields[x->slots[i]];
            gen_printf(f, "    /* writer field %u -> reader field %u */\n", (unsigned)i,
                    (unsigned)x->slots[i]);
            snprintf(dst, sizeof dst, "out->%s", gen_field_member(g->gc, r, x->slots[i]));
            gen_r_read(g, f, s, rf->type->kind == AVK_NULL ? NULL : dst, "    ");
            gen_printf(f, "    if (st != AVK_OK)\n        return avk_check_path_front(&c->at, "
                       "AVK_PATH_FIELD, %u, ", (unsigned)x->slots[i]);
            gen_r_literal(f, rf->name);
            gen_printf(f, ", st);\n");
        }
    }
    for (i = 0; i < x->default_count; i++) {
        const avk_field *rf = &r->fields[x->defaults[i].slot];
        gen_printf(f, "    /* reader field %u: the writer lacks it, its default */\n",
                (unsigned)x->defaults[i].slot);
        snprintf(dst, sizeof dst, "out->%s", gen_field_member(g->gc, r, x->defaults[i].slot));
        gen_r_default(g, f, &x->defaults[i].value, rf->type, dst, "    ");
    }
    gen_printf(f, "    return st;\n}\n");
}

/* Typed arrays (avk_value.h: items stored as a C array) are read a chunk
 * at a time by the library (decode_typed.c read_typed), and a stream that
 * ends inside a chunk reports the chunk's read, not one item's. The chunks
 * whose reports differ from item by item are copied here: raw bytes
 * (floats, doubles, fixed: "input ends inside an item of N bytes"),
 * booleans (the chunk, then the first byte above 1) and floats widened to
 * doubles (the chunk's own report). Varint chunks report as single reads. */
typedef enum bulk_t { BULK_NONE, BULK_RAW, BULK_BOOLEAN, BULK_FLOAT_DOUBLE } bulk_t;

static bulk_t bulk_kind(gen_r *g, const avki_node *n, const avki_step *item)
{
    int promoted = item->op > AVKI_OP_LAST_PLAIN || g->p->nodes[item->node].store;
    if (n->store == AVKI_STORE_BOXED || n->store == AVKI_STORE_NULL)
        return BULK_NONE;
    if (promoted)
        return item->op == AVKI_OP_FLOAT_DOUBLE ? BULK_FLOAT_DOUBLE : BULK_NONE;
    switch ((avki_store)n->store) {
    case AVKI_STORE_BOOLEAN: return BULK_BOOLEAN;
    case AVKI_STORE_FLOAT:
    case AVKI_STORE_DOUBLE: return BULK_RAW;
    /* fixed(0) has no bytes on the wire (and 1 byte in its C struct) */
    case AVKI_STORE_FIXED: return n->count ? BULK_RAW : BULK_NONE;
    default: return BULK_NONE;
    }
}

/* The chunk of take items at items[total] (the wire layout is the C one:
 * little-endian IEEE floats, fixed bytes, one byte per boolean). */
static void emit_bulk(gen_buf *f, bulk_t bulk, const avki_node *n, const char *it)
{
    /* The wire size of an item (fixed: the schema's size), which is also
     * the size of the C item: float, double, uint8_t bytes[N]. */
    unsigned size = n->store == AVKI_STORE_FLOAT ? 4 : n->store == AVKI_STORE_DOUBLE ? 8 : n->count;
    gen_printf(f, "            {\n                uint64_t o0 = avk_reader_offset(c->r);\n"
                  "                uint8_t *raw = (uint8_t *)(void *)(items + total);\n");
    switch (bulk) {
    case BULK_RAW:
        gen_printf(f, "                st = avk_reader_read_raw(c->r, raw, (size_t)take * %u, c->err);\n"
                      "                if (st != AVK_OK) {\n"
                      "                    uint64_t bad = (avk_reader_offset(c->r) - o0) / %u;\n"
                      "                    if (st == AVK_ERR_TRUNCATED)\n"
                      "                        st = avk_error_set(c->err, st, o0 + bad * %u,\n"
                      "                                           \"input ends inside an item of %%zu bytes\", (size_t)%u);\n"
                      "                    return avk_check_path_front(&c->at, AVK_PATH_ITEM, total + bad, NULL, st);\n"
                      "                }\n",
                   size, size, size, size);
        (void)it;
        break;
    case BULK_BOOLEAN:
        gen_printf(f, "                uint64_t have = take;\n"
                      "                for (i = 0; i < take; i++)\n                    raw[i] = 0;\n"
                      "                st = avk_reader_read_raw(c->r, raw, (size_t)take, c->err);\n"
                      "                if (st != AVK_OK)\n"
                      "                    have = c->r->source && st == AVK_ERR_TRUNCATED ? avk_reader_offset(c->r) - o0 : 0;\n"
                      "                for (i = 0; i < have; i++)\n"
                      "                    if (raw[i] > 1) {\n"
                      "                        st = avk_error_set(c->err, AVK_ERR_MALFORMED, o0 + i,\n"
                      "                                           \"boolean byte is 0x%%02x, expected 0 or 1\", raw[i]);\n"
                      "                        return avk_check_path_front(&c->at, AVK_PATH_ITEM, total + i, NULL, st);\n"
                      "                    }\n"
                      "                if (st != AVK_OK)\n"
                      "                    return avk_check_path_front(&c->at, AVK_PATH_ITEM, total + have, NULL, st);\n");
        break;
    default: /* BULK_FLOAT_DOUBLE: 4-byte floats read into the doubles' room, widened from the end */
        gen_printf(f, "                st = avk_reader_read_raw(c->r, raw, (size_t)take * 4, c->err);\n"
                      "                if (st != AVK_OK)\n"
                      "                    return avk_check_path_front(&c->at, AVK_PATH_ITEM,\n"
                      "                                                total + (avk_reader_offset(c->r) - o0) / 4, NULL, st);\n"
                      "                for (i = take; i-- > 0;) {\n"
                      "                    float x;\n"
                      "                    memcpy(&x, raw + 4 * i, 4);\n"
                      "                    items[total + i] = (double)x;\n"
                      "                }\n");
        break;
    }
    gen_printf(f, "            }\n");
}

/* Arrays and maps: the decoder's block loop (decode.c next_chunk, or
 * decode_typed.c, which check in the same order). */
static void emit_collection(gen_r *g, uint32_t idx)
{
    const avki_node *n = g->p->nodes + idx;
    const avki_step *item = g->p->steps + n->first;
    int is_map = n->op == AVKI_OP_MAP;
    uint64_t min_size = g->p->nodes[item->node].min_size + (uint64_t)is_map;
    int may = is_map || (item->op != AVKI_OP_FLOAT && item->op != AVKI_OP_DOUBLE &&
                         item->op != AVKI_OP_FLOAT_DOUBLE && item->op != AVKI_OP_FIXED);
    int stores = item->type->kind != AVK_NULL;
    const char *it = gen_r_ctype(g, item->type);
    gen_buf *f = &g->body;
    bulk_t bulk;
    fn_head(g, idx, n->type);
    gen_printf(f, "    avk_status st = AVK_OK;\n    uint64_t total = 0, cap = 0;\n");
    if (stores)
        gen_printf(f, "    %s *items = NULL;\n", it);
    if (is_map)
        gen_printf(f, "    avk_bytes *keys = NULL;\n");
    depth_check(f);
    gen_printf(f, "    for (;;) {\n"
               "        uint64_t left = 0, end = 0, off = avk_reader_offset(c->r), take = 0, i = 0;\n"
               "        (void)i;\n"
               "        st = avk_check_read_block(c->r, off, &left, &end, c->err);\n"
               "        if (st != AVK_OK)\n            return st;\n"
               "        if (left == 0)\n            break;\n"
               "        while (left) {\n");
    gen_printf(f, "            st = avk_check_items(&c->lim, total, left, UINT64_C(%llu), &c->empty, off, c->err);\n",
            (unsigned long long)min_size);
    gen_printf(f, "            if (st == AVK_OK)\n                st = avk_check_items_take(c->r, left, "
               "UINT64_C(%llu), %d, off, &take, c->err);\n",
            (unsigned long long)min_size, may);
    gen_printf(f, "            if (st != AVK_OK)\n                return st;\n");
    if (is_map || stores) {
        gen_printf(f, "            {\n                uint64_t c0 = cap;\n");
        if (is_map)
            gen_printf(f, "                keys = (avk_bytes *)avkgen_rs_grow(c, keys, &c0, total, total + take, sizeof *keys, &st);\n"
                       "                if (st != AVK_OK)\n                    return st;\n"
                       "                c0 = cap;\n");
        if (stores)
            gen_printf(f, "                items = (%s *)avkgen_rs_grow(c, items, &c0, total, total + take, sizeof *items, &st);\n"
                       "                if (st != AVK_OK)\n                    return st;\n",
                    it);
        gen_printf(f, "                cap = c0;\n            }\n");
    }
    bulk = is_map ? BULK_NONE : bulk_kind(g, n, item);
    if (bulk != BULK_NONE) {
        emit_bulk(f, bulk, n, it);
    } else {
        gen_printf(f, "            for (i = 0; i < take; i++) {\n");
        if (is_map)
            gen_printf(f, "                st = avkgen_rs_bytes(c, &keys[total + i], \"string\");\n"
                          "                if (st != AVK_OK)\n"
                          "                    return avk_check_path_front(&c->at, AVK_PATH_KEY, total + i, NULL, st);\n");
        /* The library reads a typed array's items (leaves, or a writer's
         * union of leaves) without a frame for the array: such a union
         * counts one level below the innermost record, array or map around
         * the array, whatever unions are between (decode_typed.c). */
        if (n->op == AVKI_OP_ARRAY && n->store != AVKI_STORE_BOXED) {
            g->child_level = "frame + 1";
            g->child_frame = "frame";
        }
        gen_r_read(g, f, item, stores ? "items[total + i]" : NULL, "                ");
        g->child_level = "level + 1";
        g->child_frame = "level";
        gen_printf(f, "                if (st != AVK_OK)\n"
                      "                    return avk_check_path_front(&c->at, %s, total + i, NULL, st);\n"
                      "            }\n",
                   is_map ? "AVK_PATH_VALUE" : "AVK_PATH_ITEM");
    }
    gen_printf(f, "            total += take;\n            left -= take;\n        }\n");
    gen_printf(f, "        st = avk_check_block_end(c->r, off, end, c->err);\n"
               "        if (st != AVK_OK)\n            return st;\n    }\n");
    if (is_map)
        gen_printf(f, "    out->keys = keys;\n");
    if (stores)
        gen_printf(f, "    out->%s = items;\n", is_map ? "values" : "items");
    gen_printf(f, "    out->count = (size_t)total;\n    (void)cap;\n    return AVK_OK;\n}\n");
}

/* UNION (into a reader union) and UNWRAP (into a non-union): the writer's
 * index picks the step; a failure below gets the writer's index as its
 * place, as in the library (branch[i] or writer_branch[i]). */
static void emit_union(gen_r *g, uint32_t idx)
{
    const avki_node *n = g->p->nodes + idx;
    int unwrap = n->op == AVKI_OP_UNWRAP;
    const avki_rx *x = n->store ? g->p->rx + n->extra : NULL;
    gen_buf *f = &g->body;
    uint32_t i;
    fn_head(g, idx, n->type);
    gen_printf(f, "    avk_status st = AVK_OK;\n    int64_t idx = 0;\n");
    depth_check(f);
    gen_printf(f, "    st = avkgen_rs_branch(c, %u, &idx);\n    if (st != AVK_OK)\n        return st;\n",
            (unsigned)n->count);
    gen_printf(f, "    switch (idx) {\n");
    for (i = 0; i < n->count; i++) {
        const avki_step *s = g->p->steps + n->first + i;
        gen_printf(f, "    case %u:\n", (unsigned)i);
        if (unwrap || s->op == AVKI_OP_FAIL) {
            gen_r_read(g, f, s, unwrap && n->type->kind != AVK_NULL ? "(*out)" : NULL, "        ");
        } else {
            uint32_t b = x ? (uint32_t)x->map[i] : i;
            gen_r_branch(g, f, n->type, b, "(*out)", "        ", fill_read, s);
        }
        gen_printf(f, "        break;\n");
    }
    gen_printf(f, "    default:\n        break;\n    }\n");
    gen_printf(f, "    if (st != AVK_OK)\n        return avk_check_path_front(&c->at, %s, (uint64_t)idx, NULL, st);\n",
            unwrap ? "AVK_PATH_WRITER_BRANCH" : "AVK_PATH_BRANCH");
    gen_printf(f, "    return AVK_OK;\n}\n");
}

static void emit_wrap(gen_r *g, uint32_t idx)
{
    const avki_node *n = g->p->nodes + idx;
    const avki_step *s = g->p->steps + n->first;
    gen_buf *f = &g->body;
    fn_head(g, idx, n->type);
    gen_printf(f, "    avk_status st = AVK_OK;\n");
    depth_check(f);
    gen_r_branch(g, f, n->type, n->count, "(*out)", "    ", fill_read, s);
    gen_printf(f, "    return st;\n}\n");
}

static void emit_node(gen_r *g, uint32_t idx)
{
    switch ((avki_op)g->p->nodes[idx].op) {
    case AVKI_OP_RECORD: emit_record(g, idx); break;
    case AVKI_OP_ARRAY:
    case AVKI_OP_MAP: emit_collection(g, idx); break;
    case AVKI_OP_UNION:
    case AVKI_OP_UNWRAP: emit_union(g, idx); break;
    default: emit_wrap(g, idx); break;
    }
}

avk_status gen_resolve_check(const avk_type *writer, const avk_type *reader, avk_error *err)
{
    avk_plan *plan = NULL;
    avk_status st = avk_plan_new_resolving(writer, reader, NULL, &plan, err);
    avk_plan_free(plan);
    return st;
}

avk_status gen_resolve_emit(gen_ctx *gc, const avk_type *writer, const avk_type *reader,
                            const gen_resolve_opts *o, avk_error *err)
{
    avk_plan *plan = NULL;
    gen_r g;
    size_t i;
    int progress;
    avki_step root;
    gen_buf *h = &gc->h, *c = &gc->c;
    avk_status st = avk_plan_new_resolving(writer, reader, NULL, &plan, err);
    if (st != AVK_OK)
        return st;
    memset(&g, 0, sizeof g);
    g.p = plan;
    g.o = o;
    g.gc = gc;
    g.child_level = "level + 1";
    g.child_frame = "frame";
    g.avkgen_rs_want = (uint8_t *)calloc(plan->node_count + 1, 1);
    g.avkgen_sk_want = (uint8_t *)calloc(plan->node_count + 1, 1);
    if (!g.avkgen_rs_want || !g.avkgen_sk_want) {
        st = avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN, "out of memory generating code");
        goto done;
    }

    /* The entry point: the root value at level 1 (level + 1, level 0 here). */
    root.op = plan->nodes[plan->root].op;
    root.run = 0;
    root.node = plan->root;
    root.type = reader;
    gen_printf(&g.body, "\navk_status %s_decode_from_%s(avk_reader *r, avk_arena *arena, "
                        "const avk_limits *limits,\n        %s *out, avk_error *err)\n{\n",
               o->fn, o->wbase, o->fn);
    gen_printf(&g.body, "    avkgen_rs_ctx cx;\n    avkgen_rs_ctx *c = &cx;\n    avk_status st = AVK_OK;\n"
                        "    size_t level = 0, frame = 0;\n");
    gen_printf(&g.body, "    if (!r || !arena || !out)\n        return avk_error_set(err, "
                        "AVK_ERR_INVALID_ARGUMENT, 0, \"%s_decode_from_%s: NULL argument\");\n",
               o->fn, o->wbase);
    gen_printf(&g.body, "    c->r = r;\n    c->arena = arena;\n    c->err = err;\n    c->empty = 0;\n"
                        "    if (limits)\n        c->lim = *limits;\n    else\n"
                        "        memset(&c->lim, 0, sizeof c->lim);\n    avk_check_limits(&c->lim);\n"
                        "    c->max_depth = c->lim.max_depth < AVK_GEN_MAX_DEPTH ? c->lim.max_depth : AVK_GEN_MAX_DEPTH;\n"
                        "    c->memory = r->source == NULL;\n    c->views = c->memory && %d;\n"
                        "    avk_check_path_init(&c->at);\n",
               gc->opts->copy_strings ? 0 : 1);
    gen_r_read(&g, &g.body, &root, reader->kind == AVK_NULL ? NULL : "(*out)", "    ");
    gen_printf(&g.body, "    if (st != AVK_OK)\n        avk_check_path_report(err, ");
    gen_r_literal(&g.body, avki_type_label(reader));
    gen_printf(&g.body, ", &c->at);\n    (void)level;\n    (void)frame;\n    return st;\n}\n");

    /* Every function the code written so far calls, until none is new. */
    do {
        progress = 0;
        for (i = 0; i < plan->node_count; i++) {
            if (g.avkgen_rs_want[i] == 1) {
                g.avkgen_rs_want[i] = 2;
                emit_node(&g, (uint32_t)i);
                progress = 1;
            }
            if (g.avkgen_sk_want[i] == 1) {
                g.avkgen_sk_want[i] = 2;
                gen_r_skip_fn(&g, (uint32_t)i);
                progress = 1;
            }
        }
    } while (progress);

    /* The header. */
    gen_printf(h, "/* %s: generated by avrokit gen. Reads data written with the writer schema %s\n"
                  " * into the reader's types (%s): Avro schema resolution compiled in. */\n",
               o->pair_header, o->wbase, o->reader_header);
    gen_printf(h, "#ifndef %s\n#define %s\n\n#include \"%s\"\n#include <avrokit/avrokit.h>\n\n",
               o->guard, o->guard, o->reader_header);
    gen_printf(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    gen_printf(h, "/* Reads one value written with %s's schema into *out, resolved as\n"
                  " * avk_plan_new_resolving + avk_plan_decode would: the same statuses, offsets,\n"
                  " * paths and messages. limits NULL means the defaults; nesting is capped at\n"
                  " * AVK_GEN_MAX_DEPTH. Storage comes from arena (strings may be views into a\n"
                  " * memory reader's input, unless generated with --copy-strings). */\n",
               o->wbase);
    gen_printf(h, "avk_status %s_decode_from_%s(avk_reader *r, avk_arena *arena, const avk_limits *limits,\n"
                  "        %s *out, avk_error *err);\n\n",
               o->fn, o->wbase, o->fn);
    gen_printf(h, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");

    /* The source: helpers, tables, prototypes, functions. */
    gen_printf(c, "/* Generated by avrokit gen: %s_decode_from_%s, Avro schema resolution compiled in. */\n",
               o->fn, o->wbase);
    gen_printf(c, "#include \"%s\"\n\n#include <avrokit/avrokit.h>\n#include <avrokit/check.h>\n"
                  "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n",
               o->pair_header);
    gen_puts(c, gen_r_prelude);
    if (g.data.data)
        gen_puts(c, g.data.data);
    gen_puts(c, "\n");
    if (g.proto.data)
        gen_puts(c, g.proto.data);
    if (g.body.data)
        gen_puts(c, g.body.data);
    if (g.data.oom || g.proto.oom || g.body.oom || h->oom || c->oom)
        st = avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN, "out of memory generating code");
done:
    gen_buf_free(&g.data);
    gen_buf_free(&g.proto);
    gen_buf_free(&g.body);
    free(g.avkgen_rs_want);
    free(g.avkgen_sk_want);
    avk_plan_free(plan);
    return st;
}
