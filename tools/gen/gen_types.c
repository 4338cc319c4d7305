/* The generated header: the set of types a file needs, typedefs in dependency order with guards, and prototypes. */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* ---- collecting the types of a file --------------------------------------- */

static int is_compound(const avk_type *t)
{
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
    case AVK_ENUM:
    case AVK_FIXED:
    case AVK_ARRAY:
    case AVK_MAP:
    case AVK_UNION:
        return 1;
    default:
        return 0;
    }
}

typedef struct tlist {
    const avk_type **v;
    const char **names;
    size_t n, cap;
} tlist;

static long tlist_find(const tlist *l, const char *name)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0)
            return (long)i;
    return -1;
}

static int tlist_add(tlist *l, const avk_type *t, const char *name)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 64;
        const avk_type **v = (const avk_type **)realloc((void *)l->v, ncap * sizeof *v);
        const char **nm;
        if (!v)
            return -1;
        l->v = v;
        nm = (const char **)realloc((void *)l->names, ncap * sizeof *nm);
        if (!nm)
            return -1;
        l->names = nm;
        l->cap = ncap;
    }
    l->v[l->n] = t;
    l->names[l->n] = name;
    l->n++;
    return 0;
}

static int walk(gen_ctx *g, tlist *l, const avk_type *t, char *msg, size_t cap)
{
    const char *name;
    long at;
    size_t i, n;
    if (!is_compound(t))
        return 0;
    /* One helper per distinct code: gen_htok (the header dedups by C name). */
    name = gen_htok(g, t);
    at = tlist_find(l, name);
    if (at >= 0) {
        const avk_type *o = l->v[at];
        if (avk_type_is_named(t) && o != t &&
            strcmp(avk_type_fullname(o), avk_type_fullname(t)) != 0) {
            snprintf(msg, cap, "types %s and %s both get the C name %s (try --namespace-prefix)",
                     avk_type_fullname(o), avk_type_fullname(t), gen_tname(g, t));
            return -1;
        }
        return 0;
    }
    if (tlist_add(l, t, name) != 0) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++)
            if (walk(g, l, avk_field_type(avk_type_field(t, i)), msg, cap) != 0)
                return -1;
        return 0;
    case AVK_ARRAY:
        return walk(g, l, avk_type_items(t), msg, cap);
    case AVK_MAP:
        return walk(g, l, avk_type_values(t), msg, cap);
    case AVK_UNION:
        n = avk_type_branch_count(t);
        for (i = 0; i < n; i++)
            if (walk(g, l, avk_type_branch(t, i), msg, cap) != 0)
                return -1;
        return 0;
    default:
        return 0;
    }
}

int gen_collect(gen_ctx *g, gen_unit *u, char *msg, size_t msgcap)
{
    tlist l;
    size_t i;
    memset(&l, 0, sizeof l);
    if (walk(g, &l, u->root, msg, msgcap) != 0)
        goto fail;
    for (i = 0; i < u->nown; i++)
        if (walk(g, &l, u->own[i], msg, msgcap) != 0)
            goto fail;
    free((void *)l.names);
    u->all = l.v;
    u->nall = l.n;
    return 0;
fail:
    free((void *)l.names);
    free((void *)l.v);
    return -1;
}

/* ---- the header ------------------------------------------------------------ */

typedef struct hstate {
    gen_ctx *g;
    const gen_unit *u;
    tlist state; /* names visited; states[] parallel */
    int *states; /* 1 in progress, 2 done */
    char *msg;
    size_t msgcap;
} hstate;

static int is_own_or_structural(const hstate *s, const avk_type *t)
{
    size_t i;
    if (!avk_type_is_named(t))
        return 1;
    for (i = 0; i < s->u->nown; i++)
        if (s->u->own[i] == t ||
            strcmp(avk_type_fullname(s->u->own[i]), avk_type_fullname(t)) == 0)
            return 1;
    return 0;
}

static const char *logical_helper(avk_logical lg)
{
    switch (lg) {
    case AVK_LOGICAL_DECIMAL: return "avk_decimal_to_string";
    case AVK_LOGICAL_UUID: return "avk_uuid_format";
    case AVK_LOGICAL_DATE: return "avk_date_to_civil";
    case AVK_LOGICAL_TIME_MILLIS:
    case AVK_LOGICAL_TIME_MICROS: return "avk_time_format";
    case AVK_LOGICAL_DURATION: return "avk_duration_decode";
    case AVK_LOGICAL_NONE: return NULL;
    default: return "avk_timestamp_split";
    }
}

static void guard_open(hstate *s, const char *tok)
{
    gen_printf(&s->g->h, "#ifndef %sAVKGEN_%s_DEFINED\n#define %sAVKGEN_%s_DEFINED\n",
               gen_prefix(s->g), tok, gen_prefix(s->g), tok);
}

static void emit_def(hstate *s, const avk_type *t)
{
    gen_ctx *g = s->g;
    gen_buf *h = &g->h;
    const char *name = gen_tname(g, t), *tok = gen_tok(g, t);
    const avk_type *o;
    size_t i, n;
    if (gen_is_ptr_nullable(t))
        return; /* stored as a pointer to the record: no typedef */
    guard_open(s, tok);
    switch (avk_type_kind(t)) {
    case AVK_RECORD: {
        int stored = 0;
        if (avk_type_doc(t))
            gen_printf(h, "/* %s */\n", avk_type_fullname(t));
        gen_printf(h, "struct %s {\n", name);
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++) {
            const avk_type *ft = avk_field_type(avk_type_field(t, i));
            const char *ct = gen_ctype(g, ft);
            avk_logical lg = avk_type_logical(ft);
            if (!ct)
                continue;
            stored = 1;
            gen_printf(h, "    %s%s%s;", ct, ct[strlen(ct) - 1] == '*' ? "" : " ",
                       gen_field_member(g, t, i));
            if (lg != AVK_LOGICAL_NONE)
                gen_printf(h, " /* %s: see %s */", avk_logical_name(lg), logical_helper(lg));
            gen_puts(h, "\n");
        }
        if (!stored)
            gen_puts(h, "    char unused_;\n");
        gen_puts(h, "};\n");
        break;
    }
    case AVK_ENUM:
        gen_printf(h, "typedef enum %s {\n", name);
        n = avk_type_symbol_count(t);
        for (i = 0; i < n; i++)
            gen_printf(h, "    %s%s%s\n", gen_enum_const(g, t, i), i == 0 ? " = 0" : "",
                       i + 1 < n ? "," : "");
        gen_printf(h, "} %s;\n", name);
        break;
    case AVK_FIXED: {
        size_t size = avk_type_fixed_size(t);
        avk_logical lg = avk_type_logical(t);
        gen_printf(h, "typedef struct %s {\n    uint8_t bytes[%zu];%s\n} %s;", name,
                   size ? size : 1, size ? "" : " /* fixed(0): nothing is stored */", name);
        if (lg != AVK_LOGICAL_NONE)
            gen_printf(h, " /* %s: see %s */", avk_logical_name(lg), logical_helper(lg));
        gen_puts(h, "\n");
        break;
    }
    case AVK_ARRAY: {
        const char *ct = gen_ctype(g, avk_type_items(t));
        gen_printf(h, "typedef struct %s {\n", name);
        if (ct)
            gen_printf(h, "    %s *items;\n", ct);
        gen_printf(h, "    size_t count;\n} %s;\n", name);
        break;
    }
    case AVK_MAP: {
        const char *ct = gen_ctype(g, avk_type_values(t));
        gen_printf(h, "typedef struct %s {\n    avk_bytes *keys;\n", name);
        if (ct)
            gen_printf(h, "    %s *values;\n", ct);
        gen_printf(h, "    size_t count;\n} %s;\n", name);
        break;
    }
    case AVK_UNION:
        if (gen_is_nullable(t, &o, NULL)) {
            gen_printf(h, "typedef struct %s {\n    bool present;\n    %s value;\n} %s;\n", name,
                       gen_ctype(g, o), name);
            break;
        }
        n = avk_type_branch_count(t);
        gen_printf(h, "typedef enum %s_kind {\n", name);
        for (i = 0; i < n; i++)
            gen_printf(h, "    %s%s%s\n", gen_union_const(g, t, i), i == 0 ? " = 0" : "",
                       i + 1 < n ? "," : "");
        if (n == 0) /* a union with no branches has no value; C has no empty enum */
            gen_printf(h, "    %s_none = 0\n", name);
        gen_printf(h, "} %s_kind;\n", name);
        gen_printf(h, "typedef struct %s {\n    %s_kind kind;\n    union {\n", name, name);
        {
            int members = 0;
            for (i = 0; i < n; i++) {
                const avk_type *b = avk_type_branch(t, i);
                const char *ct = gen_ctype(g, b);
                if (!ct)
                    continue;
                members = 1;
                if (avk_type_kind(b) == AVK_RECORD)
                    gen_printf(h, "        %s *%s;\n", ct, gen_union_member(g, t, i));
                else
                    gen_printf(h, "        %s %s;\n", ct, gen_union_member(g, t, i));
            }
            if (!members)
                gen_puts(h, "        char unused_;\n");
        }
        gen_printf(h, "    } u;\n} %s;\n", name);
        break;
    default:
        break;
    }
    gen_puts(h, "#endif\n\n");
}

static int visit(hstate *s, const avk_type *t);

/* A type whose definition t needs before its own (held by value). */
static int dep(hstate *s, const avk_type *d)
{
    return visit(s, d);
}

static int visit(hstate *s, const avk_type *t)
{
    gen_ctx *g = s->g;
    const char *name;
    long at;
    size_t i, n;
    int rc = 0;
    if (!is_compound(t) || !is_own_or_structural(s, t))
        return 0;
    name = gen_tname(g, t);
    at = tlist_find(&s->state, name);
    if (at >= 0) {
        if (s->states[at] == 2)
            return 0;
        snprintf(s->msg, s->msgcap,
                 "record %s contains itself with no union, array or map in between: it has "
                 "no finite value",
                 avk_type_fullname(t) ? avk_type_fullname(t) : name);
        return -1;
    }
    if (tlist_add(&s->state, t, name) != 0) {
        snprintf(s->msg, s->msgcap, "out of memory");
        return -1;
    }
    {
        int *ns = (int *)realloc(s->states, s->state.cap * sizeof *ns);
        if (!ns) {
            snprintf(s->msg, s->msgcap, "out of memory");
            return -1;
        }
        s->states = ns;
    }
    at = (long)s->state.n - 1;
    s->states[at] = 1;
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        n = avk_type_field_count(t);
        for (i = 0; i < n && rc == 0; i++) {
            const avk_type *ft = avk_field_type(avk_type_field(t, i));
            if (!gen_is_ptr_nullable(ft))
                rc = dep(s, ft);
        }
        break;
    case AVK_ARRAY:
    case AVK_MAP: {
        const avk_type *it = avk_type_kind(t) == AVK_ARRAY ? avk_type_items(t) : avk_type_values(t);
        if (avk_type_kind(it) != AVK_RECORD && !gen_is_ptr_nullable(it))
            rc = dep(s, it);
        break;
    }
    case AVK_UNION: {
        const avk_type *o;
        if (gen_is_nullable(t, &o, NULL)) {
            if (avk_type_kind(o) != AVK_RECORD)
                rc = dep(s, o);
            break;
        }
        n = avk_type_branch_count(t);
        for (i = 0; i < n && rc == 0; i++)
            if (avk_type_kind(avk_type_branch(t, i)) != AVK_RECORD)
                rc = dep(s, avk_type_branch(t, i));
        break;
    }
    default:
        break;
    }
    if (rc != 0)
        return rc;
    emit_def(s, t);
    s->states[at] = 2;
    /* Records held through pointers still need their definitions. */
    return 0;
}

static void header_protos(gen_ctx *g, const gen_unit *u)
{
    size_t i;
    for (i = 0; i < u->nown; i++)
        gen_emit_public_protos(g, u->own[i], gen_tname(g, u->own[i]));
    if (!avk_type_is_named(u->root))
        gen_emit_public_protos(g, u->root, u->fn);
}

int gen_emit_header(gen_ctx *g, const gen_unit *u, char *msg, size_t msgcap)
{
    gen_buf *h = &g->h;
    hstate s;
    size_t i;
    int rc = 0;
    memset(&s, 0, sizeof s);
    s.g = g;
    s.u = u;
    s.msg = msg;
    s.msgcap = msgcap;
    gen_printf(h, "/* Generated by avrokit gen from %s.avsc: C types and functions for its schema. "
                  "Do not edit. */\n", g->base);
    gen_printf(h, "#ifndef %sAVKGEN_%s_H\n#define %sAVKGEN_%s_H\n\n", gen_prefix(g), g->base,
               gen_prefix(g), g->base);
    gen_puts(h, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n#include "
                "<string.h>\n\n#include <avrokit/avrokit.h>\n#include <avrokit/check.h>\n\n");
    for (i = 0; i < u->nincludes; i++)
        gen_printf(h, "#include \"%s\"\n", u->includes[i]);
    if (u->nincludes)
        gen_puts(h, "\n");
    gen_puts(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    gen_puts(h, "/* Generated decoders recurse on the C stack: nesting is capped here even\n"
                " * when limits->max_depth is higher. */\n"
                "#ifndef AVK_GEN_MAX_DEPTH\n#define AVK_GEN_MAX_DEPTH 10000\n#endif\n\n");
    /* Every record of this header first, so pointers to them work anywhere. */
    for (i = 0; i < u->nall; i++)
        if (avk_type_kind(u->all[i]) == AVK_RECORD && is_own_or_structural(&s, u->all[i]))
            gen_printf(h, "typedef struct %s %s;\n", gen_tname(g, u->all[i]),
                       gen_tname(g, u->all[i]));
    gen_puts(h, "\n");
    for (i = 0; i < u->nall && rc == 0; i++)
        rc = visit(&s, u->all[i]);
    if (rc == 0 && !avk_type_is_named(u->root)) {
        const char *ct = gen_ctype(g, u->root);
        if (!ct)
            gen_printf(h, "/* The schema is null: nothing to store. */\n"
                          "typedef struct %s {\n    char unused_;\n} %s;\n\n", u->fn, u->fn);
        else
            gen_printf(h, "typedef %s %s;\n\n", ct, u->fn);
    }
    if (rc == 0)
        header_protos(g, u);
    gen_puts(h, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
    free((void *)s.state.v);
    free((void *)s.state.names);
    free(s.states);
    return rc;
}
