/* Skip code for writer fields the reader lacks: the library skipper's checks (src/binary/skip.c) per writer plain node. */
#include "gen_resolve_int.h"

void gen_r_skip(gen_r *g, gen_buf *f, uint32_t n, const char *ind)
{
    const avki_node *x = g->p->nodes + n;
    switch ((avki_op)x->op) {
    case AVKI_OP_NULL: gen_printf(f, "%sst = AVK_OK;\n", ind); return;
    case AVKI_OP_BOOLEAN:
        gen_printf(f, "%s{\n%s    int b_;\n%s    st = avk_reader_read_boolean(c->r, &b_, c->err);\n%s}\n",
                ind, ind, ind, ind);
        return;
    case AVKI_OP_INT:
        gen_printf(f, "%s{\n%s    int32_t x_;\n%s    st = avk_reader_read_int(c->r, &x_, c->err);\n%s}\n",
                ind, ind, ind, ind);
        return;
    case AVKI_OP_LONG:
        gen_printf(f, "%s{\n%s    int64_t x_;\n%s    st = avk_reader_read_long(c->r, &x_, c->err);\n%s}\n",
                ind, ind, ind, ind);
        return;
    case AVKI_OP_FLOAT: gen_printf(f, "%sst = avk_reader_skip(c->r, 4, c->err);\n", ind); return;
    case AVKI_OP_DOUBLE: gen_printf(f, "%sst = avk_reader_skip(c->r, 8, c->err);\n", ind); return;
    case AVKI_OP_STRING: gen_printf(f, "%sst = avkgen_sk_length(c, \"string\");\n", ind); return;
    case AVKI_OP_BYTES: gen_printf(f, "%sst = avkgen_sk_length(c, \"bytes\");\n", ind); return;
    case AVKI_OP_ENUM: gen_printf(f, "%sst = avkgen_sk_enum(c, %u);\n", ind, (unsigned)x->count); return;
    case AVKI_OP_FIXED:
        gen_printf(f, "%sst = avk_reader_skip(c->r, %u, c->err);\n", ind, (unsigned)x->count);
        return;
    default:
        if (!g->avkgen_sk_want[n])
            g->avkgen_sk_want[n] = 1;
        gen_printf(f, "%sst = avkgen_sk_%u(c, level + 1);\n", ind, (unsigned)n);
        return;
    }
}

static void skip_record(gen_r *g, const avki_node *n)
{
    gen_buf *f = &g->body;
    uint32_t i;
    for (i = 0; i < n->count; i++) {
        const avki_step *s = g->p->steps + n->first + i;
        gen_r_skip(g, f, s->node, "    ");
        gen_printf(f, "    if (st != AVK_OK)\n        return avk_check_path_front(&c->at, AVK_PATH_FIELD, %u, ",
                (unsigned)i);
        gen_r_literal(f, n->type->fields[i].name);
        gen_printf(f, ", st);\n");
    }
    gen_printf(f, "    return AVK_OK;\n");
}

/* skip.c next_block and run_collection: blocks with a byte size are
 * jumped whole (their items not counted), blocks of fixed-size items
 * skipped as bytes, others item by item. */
static void skip_collection(gen_r *g, const avki_node *n)
{
    gen_buf *f = &g->body;
    const avki_step *item = g->p->steps + n->first;
    int is_map = n->op == AVKI_OP_MAP;
    uint64_t min_size = g->p->nodes[item->node].min_size + (uint64_t)is_map, fixed = 0;
    if (!is_map && (n->store == AVKI_STORE_FLOAT || n->store == AVKI_STORE_DOUBLE))
        fixed = n->store == AVKI_STORE_FLOAT ? 4 : 8;
    else if (!is_map && n->store == AVKI_STORE_FIXED)
        fixed = n->count;
    gen_printf(f, "    uint64_t total = 0;\n");
    gen_printf(f, "    for (;;) {\n"
               "        uint64_t count = 0, end = 0, off = avk_reader_offset(c->r), i;\n"
               "        st = avk_check_read_block(c->r, off, &count, &end, c->err);\n"
               "        if (st != AVK_OK)\n            return st;\n"
               "        if (count == 0)\n            return AVK_OK;\n"
               "        if (end != UINT64_MAX) {\n"
               "            uint64_t size = end - avk_reader_offset(c->r);\n"
               "            st = avk_reader_skip(c->r, size, c->err);\n"
               "            if (st == AVK_ERR_TRUNCATED)\n"
               "                return avk_error_set(c->err, st, off, \"block of %%lld bytes but the input ends first\",\n"
               "                                     (long long)size);\n"
               "            if (st != AVK_OK)\n                return st;\n"
               "            continue;\n        }\n");
    gen_printf(f, "        st = avk_check_items(&c->lim, total, count, UINT64_C(%llu), &c->empty, off, c->err);\n"
               "        if (st != AVK_OK)\n            return st;\n",
            (unsigned long long)min_size);
    if (fixed) {
        gen_printf(f, "        if (count > UINT64_MAX / %llu)\n"
                   "            return avk_error_set(c->err, AVK_ERR_TRUNCATED, off,\n"
                   "                                 \"block of %%lld items is larger than any input\", (long long)count);\n"
                   "        st = avk_reader_skip(c->r, count * %llu, c->err);\n"
                   "        if (st == AVK_ERR_TRUNCATED)\n"
                   "            return avk_error_set(c->err, st, off,\n"
                   "                                 \"block of %%lld items of %%llu bytes but the input ends first\",\n"
                   "                                 (long long)count, (unsigned long long)%llu);\n"
                   "        if (st != AVK_OK)\n            return st;\n"
                   "        total += count;\n        (void)i;\n        continue;\n    }\n",
                (unsigned long long)fixed, (unsigned long long)fixed, (unsigned long long)fixed);
        return;
    }
    if (!is_map && n->store == AVKI_STORE_NULL) {
        gen_printf(f, "        total += count;\n        (void)i;\n    }\n");
        return;
    }
    gen_printf(f, "        for (i = 0; i < count; i++) {\n");
    if (is_map)
        gen_printf(f, "            st = avkgen_sk_length(c, \"string\");\n"
                   "            if (st != AVK_OK)\n"
                   "                return avk_check_path_front(&c->at, AVK_PATH_KEY, total + i, NULL, st);\n");
    gen_r_skip(g, f, item->node, "            ");
    gen_printf(f, "            if (st != AVK_OK)\n"
               "                return avk_check_path_front(&c->at, %s, total + i, NULL, st);\n"
               "        }\n        total += count;\n    }\n",
            is_map ? "AVK_PATH_VALUE" : "AVK_PATH_ITEM");
}

static void skip_union(gen_r *g, const avki_node *n)
{
    gen_buf *f = &g->body;
    uint32_t i;
    gen_printf(f, "    int64_t idx = 0;\n    st = avkgen_rs_branch(c, %u, &idx);\n"
               "    if (st != AVK_OK)\n        return st;\n    switch (idx) {\n",
            (unsigned)n->count);
    for (i = 0; i < n->count; i++) {
        gen_printf(f, "    case %u:\n", (unsigned)i);
        gen_r_skip(g, f, g->p->steps[n->first + i].node, "        ");
        gen_printf(f, "        break;\n");
    }
    gen_printf(f, "    default:\n        break;\n    }\n"
               "    if (st != AVK_OK)\n"
               "        return avk_check_path_front(&c->at, AVK_PATH_BRANCH, (uint64_t)idx, NULL, st);\n"
               "    return AVK_OK;\n");
}

void gen_r_skip_fn(gen_r *g, uint32_t idx)
{
    const avki_node *n = g->p->nodes + idx;
    gen_buf *f = &g->body;
    gen_printf(&g->proto, "static avk_status avkgen_sk_%u(avkgen_rs_ctx *c, size_t level);\n", (unsigned)idx);
    gen_printf(f, "\nstatic avk_status avkgen_sk_%u(avkgen_rs_ctx *c, size_t level)\n{\n    avk_status st = AVK_OK;\n"
                  "    (void)st;\n",
            (unsigned)idx);
    /* The skipper checks the depth of records, arrays, maps and unions
     * before reading anything of them. */
    gen_printf(f, "    if (level > c->max_depth)\n        return avkgen_rs_depth(c);\n");
    switch ((avki_op)n->op) {
    case AVKI_OP_RECORD: skip_record(g, n); break;
    case AVKI_OP_ARRAY:
    case AVKI_OP_MAP: skip_collection(g, n); break;
    default: skip_union(g, n); break;
    }
    gen_printf(f, "}\n");
}
