/* Generated public functions: prototypes, schema_json, container file reader and writer helpers, and the source file's layout. */
#include <string.h>

#include "gen.h"

void gen_emit_decode_public(gen_ctx *g, const avk_type *t, const char *fn);
void gen_emit_skip_public(gen_ctx *g, const avk_type *t, const char *fn);
void gen_emit_encode_public(gen_ctx *g, const avk_type *t, const char *fn);
void gen_emit_value_public(gen_ctx *g, const avk_type *t, const char *fn);

void gen_emit_public_protos(gen_ctx *g, const avk_type *t, const char *fn)
{
    gen_buf *h = &g->h;
    gen_printf(h, "/* %s (%s): decode with default limits, or limits (NULL = defaults); skip;\n"
                  " * encode; to and from generic values; the schema; container files. */\n",
               fn, gen_label(t));
    gen_printf(h, "avk_status %s_decode(avk_reader *r, avk_arena *arena, %s *out, avk_error *err);\n", fn, fn);
    gen_printf(h, "avk_status %s_decode_limits(avk_reader *r, avk_arena *arena, const avk_limits *limits,\n"
                  "    %s *out, avk_error *err);\n", fn, fn);
    gen_printf(h, "avk_status %s_skip(avk_reader *r, const avk_limits *limits, avk_error *err);\n", fn);
    gen_printf(h, "avk_status %s_encode(const %s *in, avk_writer *w, avk_error *err);\n", fn, fn);
    gen_printf(h, "avk_status %s_to_value(const %s *in, const avk_type *type, avk_arena *arena, "
                  "avk_value *out,\n    avk_error *err);\n", fn, fn);
    gen_printf(h, "avk_status %s_from_value(const avk_value *v, avk_arena *arena, %s *out, avk_error *err);\n",
               fn, fn);
    gen_printf(h, "const char *%s_schema_json(void);\n", fn);
    gen_printf(h, "typedef struct %s_file_reader %s_file_reader;\n", fn, fn);
    gen_printf(h, "avk_status %s_file_reader_open(%s_file_reader **out, const char *path,\n"
                  "    const avk_file_reader_options *opts, avk_error *err);\n", fn, fn);
    gen_printf(h, "avk_status %s_file_reader_next(%s_file_reader *fr, avk_arena *arena, %s *out, int *more,\n"
                  "    avk_error *err);\n", fn, fn, fn);
    gen_printf(h, "void %s_file_reader_free(%s_file_reader *fr);\n", fn, fn);
    gen_printf(h, "avk_status %s_file_write(avk_file_writer *fw, const %s *in, avk_error *err);\n\n", fn, fn);
}

static void emit_file_fns(gen_ctx *g, const avk_type *t, const char *fn, int is_root)
{
    gen_buf *c = &g->c;
    const char *find = is_root ? "avk_schema_root(fr->schema)"
                               : gen_fmt(g, "avk_schema_find(fr->schema, %s)",
                                         gen_cstring(g, avk_type_fullname(t)));
    gen_printf(c,
               "struct %s_file_reader {\n"
               "    avk_arena *own;          /* holds this struct */\n"
               "    avk_file_reader *fr;\n"
               "    avk_schema *schema;      /* %s_schema_json() parsed */\n"
               "    avk_limits limits;\n"
               "    avk_buffer buf;          /* the block, decompressed */\n"
               "    avk_reader blk;\n"
               "    avk_file_block block;\n"
               "    int64_t record;          /* next record of the block */\n"
               "    int in_block;\n"
               "    avk_status sticky;       /* after an error, every call returns it */\n"
               "    avk_error sticky_err;\n"
               "};\n\n",
               fn, fn);
    gen_printf(c,
               "void %s_file_reader_free(%s_file_reader *fr)\n{\n"
               "    if (!fr)\n        return;\n"
               "    avk_buffer_destroy(&fr->buf);\n"
               "    avk_file_reader_free(fr->fr);\n"
               "    avk_schema_free(fr->schema);\n"
               "    avk_arena_free(fr->own);\n}\n\n",
               fn, fn);
    gen_printf(c,
               "avk_status %s_file_reader_open(%s_file_reader **out, const char *path,\n"
               "    const avk_file_reader_options *opts, avk_error *err)\n{\n"
               "    avk_arena *own = NULL;\n    %s_file_reader *fr;\n    const char *json = %s_schema_json();\n"
               "    const avk_type *mine, *theirs;\n    avk_status st;\n"
               "    if (!out || !path)\n"
               "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
               "                             \"%s_file_reader_open: NULL argument\");\n"
               "    *out = NULL;\n"
               "    st = avk_arena_new(NULL, &own, err);\n"
               "    if (st != AVK_OK)\n        return st;\n"
               "    fr = (%s_file_reader *)avk_arena_alloc(own, sizeof *fr, 16);\n"
               "    if (!fr) {\n        avk_arena_free(own);\n"
               "        return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN, \"out of memory\");\n    }\n"
               "    memset(fr, 0, sizeof *fr);\n    fr->own = own;\n"
               "    avk_buffer_init(&fr->buf, opts ? opts->allocator : NULL);\n"
               "    if (opts)\n        fr->limits = opts->limits;\n"
               "    st = avk_schema_parse(json, strlen(json), NULL, &fr->schema, err);\n"
               "    if (st == AVK_OK)\n        st = avk_file_reader_open_path(path, opts, &fr->fr, err);\n"
               "    if (st != AVK_OK) {\n        %s_file_reader_free(fr);\n        return st;\n    }\n"
               "    mine = %s;\n    theirs = avk_schema_root(avk_file_reader_schema(fr->fr));\n"
               "    if (!avk_type_equal(mine, theirs)) {\n"
               "        const char *a = avk_type_fullname(theirs), *b = avk_type_fullname(mine);\n"
               "        st = avk_error_set(err, AVK_ERR_RESOLUTION, AVK_OFFSET_UNKNOWN,\n"
               "                           \"the file's schema %%s is not the generated type's schema %%s\",\n"
               "                           a ? a : avk_kind_name(avk_type_kind(theirs)),\n"
               "                           b ? b : avk_kind_name(avk_type_kind(mine)));\n"
               "        %s_file_reader_free(fr);\n        return st;\n    }\n"
               "    *out = fr;\n    return AVK_OK;\n}\n\n",
               fn, fn, fn, fn, fn, fn, fn, find, fn);
    /* Messages as avk_file_reader_next words them. */
    gen_printf(c,
               "static void %s_file_fail(%s_file_reader *fr, avk_status st, avk_error *e, avk_error *err)\n{\n"
               "    char pre[96];\n"
               "    snprintf(pre, sizeof pre, \"block %%llu at byte %%llu: \", (unsigned long long)fr->block.index,\n"
               "             (unsigned long long)fr->block.offset);\n"
               "    avkgen_prefix(e, pre);\n"
               "    e->status = st;\n    e->offset = fr->block.offset;\n    e->block = (int64_t)fr->block.index;\n"
               "    fr->sticky = st;\n    fr->sticky_err = *e;\n"
               "    if (err)\n        *err = *e;\n}\n\n",
               fn, fn);
    gen_printf(c,
               "avk_status %s_file_reader_next(%s_file_reader *fr, avk_arena *arena, %s *out, int *more,\n"
               "    avk_error *err)\n{\n"
               "    if (!fr || !arena || !out || !more)\n"
               "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
               "                             \"%s_file_reader_next: NULL argument\");\n"
               "    *more = 0;\n"
               "    if (fr->sticky != AVK_OK) {\n        if (err)\n            *err = fr->sticky_err;\n"
               "        return fr->sticky;\n    }\n"
               "    for (;;) {\n        avk_error e;\n        avk_status st;\n        const uint8_t *start;\n"
               "        if (!fr->in_block || fr->record >= fr->block.count) {\n"
               "            int m = 0;\n"
               "            if (fr->in_block && fr->blk.pos != fr->blk.end) {\n"
               "                avk_error_set(&e, AVK_ERR_MALFORMED, fr->block.offset,\n"
               "                              \"%%zu bytes are left over after its %%lld records (the count may \"\n"
               "                              \"be wrong)\",\n"
               "                              (size_t)(fr->blk.end - fr->blk.pos), (long long)fr->block.count);\n"
               "                %s_file_fail(fr, AVK_ERR_MALFORMED, &e, err);\n                return AVK_ERR_MALFORMED;\n"
               "            }\n"
               "            fr->in_block = 0;\n"
               "            st = avk_file_reader_next_block(fr->fr, &fr->block, &m, err);\n"
               "            if (st == AVK_OK && m)\n"
               "                st = avk_file_block_decompress(fr->fr, &fr->block, &fr->buf, err);\n"
               "            if (st != AVK_OK) {\n"
               "                fr->sticky = st;\n"
               "                if (err)\n                    fr->sticky_err = *err;\n"
               "                else\n                    avk_error_set(&fr->sticky_err, st, AVK_OFFSET_UNKNOWN, \"%%s\",\n"
               "                                  avk_status_name(st));\n"
               "                return st;\n            }\n"
               "            if (!m)\n                return AVK_OK;\n"
               "            avk_reader_init_memory(&fr->blk, fr->buf.data, fr->buf.len);\n"
               "            fr->record = 0;\n            fr->in_block = 1;\n            continue;\n        }\n"
               "        avk_error_clear(&e);\n"
               "        start = fr->blk.pos;\n"
               "        st = %s_decode_limits(&fr->blk, arena, &fr->limits, out, &e);\n"
               "        if (st == AVK_OK) {\n            fr->record++;\n            *more = 1;\n            return AVK_OK;\n        }\n"
               "        if (st == AVK_ERR_NO_MEMORY || st == AVK_ERR_IO) {\n"
               "            fr->sticky = st;\n            fr->sticky_err = e;\n"
               "            if (err)\n                *err = e;\n            return st;\n        }\n"
               "        if (st == AVK_ERR_LIMIT) {\n"
               "            /* As avk_file_reader_next: a size limit met by a length or count\n"
               "               larger than the block itself is damage; read the record again\n"
               "               without size limits and report TRUNCATED or MALFORMED as such. */\n"
               "            avk_limits relaxed = fr->limits;\n"
               "            avk_reader r2;\n            avk_error e2;\n            avk_status st2;\n"
               "            avk_check_limits(&relaxed);\n"
               "            relaxed.max_bytes = UINT64_MAX;\n            relaxed.max_items = UINT64_MAX;\n"
               "            avk_reader_init_memory(&r2, start, (size_t)(fr->blk.end - start));\n"
               "            avk_error_clear(&e2);\n"
               "            st2 = %s_decode_limits(&r2, arena, &relaxed, out, &e2);\n"
               "            if (st2 == AVK_ERR_TRUNCATED || st2 == AVK_ERR_MALFORMED) {\n"
               "                if (e2.offset != AVK_OFFSET_UNKNOWN)\n"
               "                    e2.offset += (uint64_t)(start - fr->buf.data);\n"
               "                e = e2;\n                st = st2;\n            }\n        }\n"
               "        {\n            char pre[160];\n"
               "            if (st == AVK_ERR_TRUNCATED) {\n"
               "                st = AVK_ERR_MALFORMED;\n"
               "                snprintf(pre, sizeof pre, \"the block's data ends inside record %%lld of %%lld (its \"\n"
               "                         \"count may be wrong): \", (long long)fr->record,\n"
               "                         (long long)fr->block.count);\n"
               "            } else {\n"
               "                snprintf(pre, sizeof pre, \"record %%lld of %%lld, byte %%llu of the block's data: \",\n"
               "                         (long long)fr->record, (long long)fr->block.count,\n"
               "                         (unsigned long long)e.offset);\n"
               "            }\n"
               "            avkgen_prefix(&e, pre);\n"
               "        }\n"
               "        %s_file_fail(fr, st, &e, err);\n        return st;\n    }\n}\n\n",
               fn, fn, fn, fn, fn, fn, fn, fn);
    gen_printf(c,
               "avk_status %s_file_write(avk_file_writer *fw, const %s *in, avk_error *err)\n{\n"
               "    avk_writer *w;\n    avk_status st;\n"
               "    if (!fw || !in)\n"
               "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
               "                             \"%s_file_write: NULL argument\");\n"
               "    w = avk_file_writer_record_begin(fw);\n"
               "    if (!w)\n"
               "        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,\n"
               "                             \"%s_file_write: the writer cannot take a record\");\n"
               "    st = %s_encode(in, w, err);\n"
               "    if (st != AVK_OK) {\n        avk_file_writer_record_end(fw, 0, NULL);\n        return st;\n    }\n"
               "    return avk_file_writer_record_end(fw, 1, err);\n}\n\n",
               fn, fn, fn, fn, fn);
}

void gen_emit_public(gen_ctx *g, const avk_type *t, const char *fn, int is_root)
{
    gen_printf(&g->c, "/* ---- %s ---- */\n\n", fn);
    gen_emit_decode_public(g, t, fn);
    gen_emit_skip_public(g, t, fn);
    gen_emit_encode_public(g, t, fn);
    gen_emit_value_public(g, t, fn);
    gen_printf(&g->c, "const char *%s_schema_json(void)\n{\n    return avkgen_schema_json;\n}\n\n", fn);
    emit_file_fns(g, t, fn, is_root);
}

void gen_emit_source(gen_ctx *g, const gen_unit *u)
{
    gen_buf *c = &g->c;
    size_t i;
    gen_printf(c, "/* Generated by avrokit gen from %s.avsc: decoders, skippers, encoders, value "
                  "conversions and container helpers. Do not edit. */\n",
               g->base);
    gen_printf(c, "#include \"%s.h\"\n\n", g->base);
    gen_emit_runtime(g);
    gen_printf(c, "static AVKGEN_UNUSED const char avkgen_schema_json[] =\n%s;\n\n", gen_cstring(g, u->schema_json));
    gen_puts(c, "/* ---- helpers, one per type ---- */\n\n");
    for (i = 0; i < u->nall; i++) {
        const avk_type *t = u->all[i];
        const char *ct = gen_ctype(g, t);
        gen_printf(c, "static AVKGEN_UNUSED avk_status %s(avkgen_dctx *c, %s *out, size_t level);\n",
                   gen_helper(g, "dec", t), ct);
        gen_printf(c, "static AVKGEN_UNUSED avk_status %s(avkgen_sctx *c, size_t level);\n",
                   gen_helper(g, "skip", t));
        gen_printf(c, "static AVKGEN_UNUSED avk_status %s(avkgen_ectx *c, %s const *in);\n",
                   gen_helper(g, "enc", t), ct);
        gen_printf(c, "static AVKGEN_UNUSED avk_status %s(%s const *in, const avk_type *t, avk_arena *arena,\n"
                      "    avk_value *out, avk_error *err);\n",
                   gen_helper(g, "tov", t), ct);
        gen_printf(c, "static AVKGEN_UNUSED avk_status %s(const avk_value *v, avk_arena *arena, %s *out,\n"
                      "    avk_error *err);\n",
                   gen_helper(g, "fromv", t), ct);
    }
    gen_puts(c, "\n");
    for (i = 0; i < u->nall; i++) {
        gen_emit_decode(g, u->all[i]);
        gen_emit_skip(g, u->all[i]);
        gen_emit_encode(g, u->all[i]);
        gen_emit_to_value(g, u->all[i]);
        gen_emit_from_value(g, u->all[i]);
    }
    for (i = 0; i < u->nown; i++)
        gen_emit_public(g, u->own[i], gen_tname(g, u->own[i]), u->own[i] == u->root);
    if (!avk_type_is_named(u->root))
        gen_emit_public(g, u->root, u->fn, 1);
}
