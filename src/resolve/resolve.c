/* Resolution compiler: a writer and a reader schema into a resolving plan (the writer's plain plan plus resolution nodes), and the strict compatibility check over the same walk. */

/*
 * The bytes are always the writer's; the values handed out are always the
 * reader's. A resolving plan therefore holds two plans in one node array:
 *
 *   nodes[0 .. n)   the writer's plain plan, compiled first by avk_plan_new.
 *                   avk_plan_skip runs it, the container reader takes a
 *                   record's least size from nodes[0], and a SKIP step (a
 *                   writer field the reader lacks) points into it, so no
 *                   writer value ever needs a skipper of its own.
 *   nodes[n ..)     the resolution nodes, from plan->root, which
 *                   avk_plan_decode runs. Each has the reader's type (the
 *                   values get the reader's type pointers) and the writer's
 *                   min_size (the decoder checks counts against the bytes
 *                   that remain, and those bytes are the writer's).
 *
 * resolve() walks the two types together. A node stands for a (writer,
 * reader) pair, not for either type alone: one writer record read as two
 * different reader records needs two nodes. memo maps each pair to its node
 * and is filled before the node's children are walked, so a recursive type
 * meets its own pair again and closes into a loop instead of recursing for
 * ever; the walk is linear in the number of distinct pairs.
 *
 * Where writer and reader agree the node is an ordinary one (op = kind), so
 * decode.c's fast paths (positions in registers, 1-byte enums and union
 * indexes) run resolved values unchanged. What differs gets its own op
 * (the resolution ops of the plan format) and, where a table is needed,
 * an entry in plan->rx:
 *   promotion  INT_LONG ... FLOAT_DOUBLE: a leaf reading the writer's wire
 *              form and storing the reader's kind. string <-> bytes needs no
 *              op of its own: same wire form, so the reader's plain op.
 *   record     steps in writer order (the order the bytes come in), count =
 *              writer fields; rx.slots sends each to its reader field, SKIP
 *              steps read nothing into the value; rx.defaults fill the
 *              reader fields the writer lacks.
 *   enum       rx.map: writer symbol -> reader symbol (-1: fails when read).
 *   union      a step per writer branch; rx.map: writer branch -> reader
 *              branch.
 *   WRAP       writer non-union read as a reader union: one step, count =
 *              the reader's branch.
 *   UNWRAP     writer union read as a non-union: a step per writer branch.
 *   FAIL       what the specification says fails only when such a value is
 *              read (a writer branch no reader branch takes): rx.message.
 * A record, enum or union with an rx entry has store = 1 and extra = its
 * index. Identity maps get no entry (store stays 0): an enum or union that
 * did not change decodes on the plain path at no cost.
 *
 * The two compatibility checks run the same walk: problem() then reports
 * and goes on, and the plan is thrown away.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/resolve.h"
#include "plan/plan_format.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "common/hash_table.h"
#include "common/stack.h"
#include "common/value_path.h"
#include "avro_json/avro_json_internal.h"

#define PATH_CAP 512
/* Resolution recurses once per level of both schemas; the parser already
 * bounds nesting, this is a second fence. */
#define MAX_DEPTH 4096

/* A (writer, reader) pair already resolved, and its node. */
typedef struct memo_pair {
    const avk_type *w, *r;
    uint32_t node;
} memo_pair;

/* What the walk is for:
 *   COMPAT_NONE        compiling a plan: the first problem stops it with
 *                      AVK_ERR_RESOLUTION.
 *   COMPAT_STRICT      avk_schema_check_compat: every problem, those the
 *                      plan leaves to read time included (a writer symbol
 *                      or branch the reader cannot take).
 *   COMPAT_RESOLVABLE  avk_schema_check_resolvable: exactly the problems
 *                      that make avk_plan_new_resolving fail, all of them. */
enum { COMPAT_NONE, COMPAT_STRICT, COMPAT_RESOLVABLE };

typedef struct rcomp {
    avk_plan *p;
    avk_arena *arena;   /* the plan's rx_arena */
    avki_hash wnodes;   /* writer type -> its plain node (indexes of p->nodes) */
    avki_hash memo;     /* (writer, reader) -> resolution node (indexes of memo_pairs) */
    avki_stack memo_pairs;
    avki_rx *rx;        /* grown here, copied into the arena at the end */
    size_t rx_count, rx_cap;
    /* Where the walk is in each schema ("Outer.fields[1].branch[0]"), each
     * starting with its root type's label; rendered only where a message
     * needs it (common/value_path.c). */
    avki_path_stack rpath, wpath;
    size_t depth;
    /* The checks report problems and go on: COMPAT_STRICT every problem,
     * COMPAT_RESOLVABLE only those that stop the plan compiler. */
    int compat;
    avk_compat_fn fn;
    void *ctx;
    size_t problems;
    /* The first problem, for the error the check returns ("3 problems, the
     * first: ..."); the callback sees every one as it is found. */
    char first[AVK_ERROR_MESSAGE_MAX];
    char first_path[AVK_ERROR_PATH_MAX];
    avk_error *err;
} rcomp;

/* ---- small tools ---------------------------------------------------------- */

static avk_status no_memory(rcomp *c)
{
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "out of memory resolving schemas");
}

/* Renders a path into buf[PATH_CAP] ("Outer.fields[1].items"). */
static const char *path_text(const avki_path_stack *path, char *buf)
{
    avki_path_part part = avki_path_stack_part(path);
    avki_path_render("", &part, 1, 0, buf, PATH_CAP);
    return buf;
}

/* Copies src into dst[cap], cut to fit. */
static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A problem at the current paths. The plan compiler stops at the first
 * (AVK_ERR_RESOLUTION); the compatibility check reports it and goes on. */
static avk_status problem(rcomp *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* field: the reader field's name when the problem is about one. */
static avk_status problem(rcomp *c, const char *field, const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX], at[PATH_CAP + 80], rpath[PATH_CAP], wpath[PATH_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    path_text(&c->rpath, rpath);
    path_text(&c->wpath, wpath);
    if (field)
        snprintf(at, sizeof at, "%s \"%.64s\"", rpath, field);
    else
        snprintf(at, sizeof at, "%s", rpath);
    c->problems++;
    if (c->compat) {
        avk_compat_problem pr;
        char named[AVK_ERROR_MESSAGE_MAX + 80];
        pr.reader_path = rpath;
        pr.writer_path = wpath;
        snprintf(named, sizeof named, "\"%.64s\": %s", field ? field : "", msg);
        pr.message = field ? named : msg;
        if (c->fn)
            c->fn(c->ctx, &pr);
        if (c->problems == 1) {
            char buf[3 * PATH_CAP + AVK_ERROR_MESSAGE_MAX + 128];
            snprintf(buf, sizeof buf, "reader %s: %s (writer %s)", at, msg, wpath);
            copy_text(c->first, sizeof c->first, buf);
            copy_text(c->first_path, sizeof c->first_path, rpath);
        }
        return AVK_OK;
    }
    avki_error_set(c->err, AVK_ERR_RESOLUTION, AVK_OFFSET_UNKNOWN, "reader %s: %s (writer %s)",
                   at, msg, wpath);
    if (c->err)
        copy_text(c->err->path, sizeof c->err->path, rpath);
    return AVK_ERR_RESOLUTION;
}

/* Appends a node (op, the reader's type, the writer's least size) and
 * gives its index. Indexes are all that may be kept: avki_plan_reserve may
 * move p->nodes, so an avki_node pointer taken before a call that adds
 * nodes (resolve() of a child) is stale after it; hence the
 * c->p->nodes[idx] everywhere below. */
static avk_status new_node(rcomp *c, uint8_t op, const avk_type *reader, uint64_t min_size,
                           uint32_t *out)
{
    avk_plan *p = c->p;
    avki_node *n;
    if (p->node_count >= UINT32_MAX - 1)
        return avki_error_set(c->err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "schemas too large to resolve");
    if (!avki_plan_reserve(p, 1, 0))
        return no_memory(c);
    *out = (uint32_t)p->node_count++;
    n = &p->nodes[*out];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->type = reader;
    n->min_size = min_size;
    return AVK_OK;
}

/* count steps for node, left for the caller to fill by index. A node's
 * steps must be contiguous (first .. first + count), so they are reserved
 * before any child is resolved: the children's own steps come after. */
static avk_status new_steps(rcomp *c, uint32_t node, size_t count)
{
    avk_plan *p = c->p;
    if (count > UINT32_MAX - p->step_count)
        return avki_error_set(c->err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "schemas too large to resolve");
    if (!avki_plan_reserve(p, 0, count))
        return no_memory(c);
    p->nodes[node].first = (uint32_t)p->step_count;
    if (count)
        memset(p->steps + p->step_count, 0, count * sizeof *p->steps);
    p->step_count += count;
    return AVK_OK;
}

/* Points step at to child. The child's op is copied into the step so a
 * record loop runs leaf children without loading their nodes. type is the
 * reader's type the value gets. run stays 0: runs of int fields are a
 * plain-record optimisation (plan.c), and in a resolving record the field
 * means something else on SKIP steps. */
static void set_step(rcomp *c, size_t at, uint32_t child, const avk_type *type)
{
    avki_step *s = c->p->steps + at;
    s->op = c->p->nodes[child].op;
    s->run = 0;
    s->node = child;
    s->type = type;
}

/* A fresh rx entry for node; its index goes into node.extra. c->rx grows
 * with realloc while the walk runs (an arena cannot grow an allocation);
 * build() copies it into the plan's arena once it is complete. */
static avk_status new_rx(rcomp *c, uint32_t node, const avk_type *writer)
{
    if (c->rx_count == c->rx_cap) {
        const avk_allocator *a = &c->p->alloc;
        size_t ncap = c->rx_cap ? c->rx_cap * 2 : 16;
        avki_rx *nr = c->rx ? (avki_rx *)a->realloc(a->ctx, c->rx, c->rx_cap * sizeof *nr,
                                                    ncap * sizeof *nr)
                            : (avki_rx *)a->alloc(a->ctx, ncap * sizeof *nr);
        if (!nr)
            return no_memory(c);
        c->rx = nr;
        c->rx_cap = ncap;
    }
    memset(&c->rx[c->rx_count], 0, sizeof c->rx[0]);
    c->rx[c->rx_count].writer = writer;
    c->p->nodes[node].extra = (uint32_t)c->rx_count++;
    return AVK_OK;
}

/* Tables that live as long as the plan (slots, maps, defaults, messages):
 * the plan's rx_arena, freed with it in one call. A zero size still gets a
 * pointer (a record with no fields), so NULL always means no memory. */
static void *arena_alloc(rcomp *c, size_t n)
{
    return avk_arena_alloc(c->arena, n ? n : 1, 8);
}

/* A message formatted now, kept in the plan: a FAIL node's reason names
 * both schemas' paths, which the decoder no longer knows when it meets the
 * value (and the hot path never formats). */
static const char *arena_text(rcomp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static const char *arena_text(rcomp *c, const char *fmt, ...)
{
    char buf[AVK_ERROR_MESSAGE_MAX];
    char *out;
    size_t n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    n = strlen(buf) + 1;
    out = (char *)arena_alloc(c, n);
    if (out)
        memcpy(out, buf, n);
    return out;
}

/* The writer type's first plain node, or AVKI_HASH_END. */
static size_t wnode_find(const rcomp *c, const avk_type *w)
{
    uint32_t h = avki_hash_ptr(w);
    size_t pos = avki_hash_first(&c->wnodes, h), i;
    while ((i = avki_hash_next(&c->wnodes, h, &pos)) != AVKI_HASH_END)
        if (c->p->nodes[i].type == w)
            return i;
    return AVKI_HASH_END;
}

/* The writer type's plain node (0 when it has none): its min_size, and
 * what a skip runs. */
static uint32_t wnode(const rcomp *c, const avk_type *w)
{
    size_t i = wnode_find(c, w);
    return i == AVKI_HASH_END ? 0 : (uint32_t)i;
}

static uint32_t memo_hash(const avk_type *w, const avk_type *r)
{
    return avki_hash_pair(avki_hash_ptr(w), avki_hash_ptr(r));
}

/* The node resolved for (w, r) before, if any. */
static int memo_find(const rcomp *c, const avk_type *w, const avk_type *r, uint32_t *node)
{
    uint32_t h = memo_hash(w, r);
    size_t pos = avki_hash_first(&c->memo, h), i;
    while ((i = avki_hash_next(&c->memo, h, &pos)) != AVKI_HASH_END) {
        const memo_pair *m = (const memo_pair *)avki_stack_at(&c->memo_pairs, i);
        if (m->w == w && m->r == r) {
            *node = m->node;
            return 1;
        }
    }
    return 0;
}

/* Remembers node for (w, r), which memo_find did not have. */
static avk_status memo_add(rcomp *c, const avk_type *w, const avk_type *r, uint32_t node)
{
    memo_pair *m = (memo_pair *)avki_stack_push(&c->memo_pairs);
    if (!m)
        return no_memory(c);
    m->w = w;
    m->r = r;
    m->node = node;
    if (avki_hash_add(&c->memo, memo_hash(w, r), c->memo_pairs.n - 1) != AVK_OK) {
        c->memo_pairs.n--;
        return no_memory(c);
    }
    return AVK_OK;
}

static uint64_t wmin(const rcomp *c, const avk_type *w)
{
    return c->p->nodes[wnode(c, w)].min_size;
}

/* ---- matching rules -------------------------------------------------------- */

/* Named types match by full name, by simple name (the specification
 * compares unqualified names) or through one of the reader's aliases. Only
 * the reader's aliases count: renaming is the reader's decision, and a
 * writer's aliases say nothing about the reader's names. */
static int names_match(const avk_type *w, const avk_type *r)
{
    size_t i;
    if (strcmp(w->fullname, r->fullname) == 0 || strcmp(w->name, r->name) == 0)
        return 1;
    for (i = 0; i < r->alias_count; i++)
        if (strcmp(r->aliases[i], w->fullname) == 0)
            return 1;
    return 0;
}

/* The op that reads a writer w as a reader r of another primitive kind,
 * or -1 when the specification allows no promotion. The list is the
 * specification's and nothing more: int -> long, float, double; long ->
 * float, double; float -> double; string <-> bytes. Nothing narrows
 * (long -> int would need a range check per value and a failure mode the
 * specification does not have). string <-> bytes gives the reader's plain
 * op: the wire forms are the same. */
static int promotion(avk_kind w, avk_kind r)
{
    switch (w) {
    case AVK_INT:
        return r == AVK_LONG ? AVKI_OP_INT_LONG
               : r == AVK_FLOAT ? AVKI_OP_INT_FLOAT
               : r == AVK_DOUBLE ? AVKI_OP_INT_DOUBLE
                                 : -1;
    case AVK_LONG:
        return r == AVK_FLOAT ? AVKI_OP_LONG_FLOAT : r == AVK_DOUBLE ? AVKI_OP_LONG_DOUBLE : -1;
    case AVK_FLOAT: return r == AVK_DOUBLE ? AVKI_OP_FLOAT_DOUBLE : -1;
    case AVK_STRING: return r == AVK_BYTES ? AVKI_OP_BYTES : -1;
    case AVK_BYTES: return r == AVK_STRING ? AVKI_OP_STRING : -1;
    default: return -1;
    }
}

/* How a writer type fits a reader union branch, without recursing: 2 the
 * same kind (and name, and size for fixed), 1 a promotion, 0 not at all.
 * Shallow on purpose: the specification picks a branch by kind and name
 * and only then resolves it, so a record whose name matches but whose
 * fields do not is a resolution error, not a reason to try the next
 * branch (which would make the branch taken depend on field details). */
static int fit(const avk_type *w, const avk_type *r)
{
    if (w->kind == r->kind) {
        switch (w->kind) {
        case AVK_RECORD:
        case AVK_ENUM: return names_match(w, r) ? 2 : 0;
        case AVK_FIXED: return names_match(w, r) && w->size == r->size ? 2 : 0;
        default: return 2;
        }
    }
    return promotion(w->kind, r->kind) >= 0 ? 1 : 0;
}

/* The reader branch a writer type goes to: the first that fits exactly,
 * else the first it promotes to; -1 for none. Exact first, so a writer int
 * read through a reader's ["double", "int"] stays an int instead of being
 * widened into the first branch that could hold it. */
static long branch_for(const avk_type *w, const avk_type *r)
{
    size_t i;
    for (i = 0; i < r->branch_count; i++)
        if (fit(w, r->branches[i]) == 2)
            return (long)i;
    for (i = 0; i < r->branch_count; i++)
        if (fit(w, r->branches[i]) == 1)
            return (long)i;
    return -1;
}

/* ---- the walk ---------------------------------------------------------------- */

static avk_status resolve(rcomp *c, const avk_type *w, const avk_type *r, uint32_t *out);

/* A node that fails when read: where a union branch or a whole type has
 * nothing to go to. In the compatibility check, also a problem. Its
 * min_size is the writer's, so size checks stay right for the bytes that
 * would be there; it is not remembered in memo (no children, so a repeat
 * costs one node, never a loop). */
static avk_status fail_node(rcomp *c, const avk_type *w, const avk_type *r, const char *why,
                            uint32_t *out)
{
    const char *msg;
    char rpath[PATH_CAP], wpath[PATH_CAP];
    if (c->compat == COMPAT_STRICT)
        AVK_TRY(problem(c, NULL, "%s", why));
    msg = arena_text(c, "writer %s cannot be read as reader %s: %s (reader %s, writer %s)",
                     avki_type_label(w), avki_type_label(r), why, path_text(&c->rpath, rpath),
                     path_text(&c->wpath, wpath));
    if (!msg)
        return no_memory(c);
    AVK_TRY(new_node(c, AVKI_OP_FAIL, r, wmin(c, w), out));
    AVK_TRY(new_rx(c, *out, w));
    c->rx[c->p->nodes[*out].extra].message = msg;
    return AVK_OK;
}

/* The reader field a writer field goes to: by name, else by a reader
 * field's alias; one not already taken. taken keeps two writer fields (one
 * by name, one by an alias of the same reader field) from writing the same
 * slot, where the second would silently overwrite the first. */
static const avk_field *reader_field(const avk_type *r, const char *name, const uint8_t *taken)
{
    size_t i, k;
    for (i = 0; i < r->field_count; i++)
        if (!taken[i] && strcmp(r->fields[i].name, name) == 0)
            return &r->fields[i];
    for (i = 0; i < r->field_count; i++)
        for (k = 0; k < r->fields[i].alias_count; k++)
            if (!taken[i] && strcmp(r->fields[i].aliases[k], name) == 0)
                return &r->fields[i];
    return NULL;
}

/* A record node: count = the writer's fields, one step each in the
 * writer's order, since that is the order of the bytes. rx.slots[i] is
 * the reader field writer field i lands in (unused on SKIP steps);
 * rx.out_count = the reader's fields, the size of the decoded array.
 * Reader fields no writer field took get their default, decoded here once
 * into the plan's arena: the decoder copies each avk_value into every
 * record, so a default's strings and arrays are shared with the plan and
 * live as long as it does (resolve.h tells callers to treat them as
 * read-only). A missing or unusable default is a problem: the specification
 * makes it an error, and here it is found before any byte is read. */
static avk_status resolve_record(rcomp *c, const avk_type *w, const avk_type *r, uint32_t idx)
{
    uint32_t *slots;
    uint8_t *taken;
    avki_default *defaults;
    size_t i, nd = 0;
    uint32_t first, xi;
    c->p->nodes[idx].store = 1;
    c->p->nodes[idx].count = (uint32_t)w->field_count;
    AVK_TRY(new_rx(c, idx, w));
    xi = c->p->nodes[idx].extra;
    c->rx[xi].out_count = (uint32_t)r->field_count;
    slots = (uint32_t *)arena_alloc(c, w->field_count * sizeof *slots);
    taken = (uint8_t *)arena_alloc(c, r->field_count);
    defaults = (avki_default *)arena_alloc(c, r->field_count * sizeof *defaults);
    if (!slots || !taken || !defaults)
        return no_memory(c);
    memset(taken, 0, r->field_count);
    AVK_TRY(new_steps(c, idx, w->field_count));
    first = c->p->nodes[idx].first;
    for (i = 0; i < w->field_count; i++) {
        const avk_field *wf = &w->fields[i];
        const avk_field *rf = reader_field(r, wf->name, taken);
        if (rf) {
            uint32_t child;
            size_t ro = avki_path_push(&c->rpath, AVKI_SEG_FIELD, rf->index, NULL);
            size_t wo = avki_path_push(&c->wpath, AVKI_SEG_FIELD, i, NULL);
            taken[rf->index] = 1;
            slots[i] = (uint32_t)rf->index;
            AVK_TRY(resolve(c, wf->type, rf->type, &child));
            set_step(c, first + i, child, rf->type);
            avki_path_pop(&c->rpath, ro);
            avki_path_pop(&c->wpath, wo);
        } else {
            /* The reader has no such field: skip the writer's bytes with
             * the writer's plain node (its type too, for error paths). */
            avki_step *s = c->p->steps + first + i;
            s->op = AVKI_OP_SKIP;
            s->node = wnode(c, wf->type);
            s->type = wf->type;
            /* The writer's op, so the decoder skips leaves inline. */
            s->run = c->p->nodes[s->node].op;
            slots[i] = 0;
        }
    }
    for (i = 0; i < r->field_count; i++) {
        const avk_field *rf = &r->fields[i];
        size_t ro;
        if (taken[i])
            continue;
        ro = avki_path_push(&c->rpath, AVKI_SEG_FIELD, i, NULL);
        if (rf->default_value) {
            avk_error e;
            if (avki_value_from_default(rf, c->arena, &defaults[nd].value, &e) != AVK_OK) {
                if (e.status == AVK_ERR_NO_MEMORY)
                    return no_memory(c);
                AVK_TRY(problem(c, rf->name, "its default does not fit its type: %s",
                                e.message));
            } else {
                defaults[nd++].slot = (uint32_t)i;
            }
        } else {
            AVK_TRY(problem(c, rf->name, "no default and not in writer"));
        }
        avki_path_pop(&c->rpath, ro);
    }
    c->rx[xi].slots = slots;
    c->rx[xi].defaults = defaults;
    c->rx[xi].default_count = (uint32_t)nd;
    return AVK_OK;
}

/* An enum node: count = the writer's symbols (the index on the wire is
 * the writer's, checked against its count), map = the reader's symbol of
 * each. A symbol the reader lacks takes the reader's enum default; without
 * one it maps to -1, which fails only when such a value is read (the
 * specification's error, raised where a value holds the symbol: a file
 * that never does must still read). The map is kept only when it is not
 * the identity: a writer whose symbols are a prefix of the reader's in the
 * same order needs none. */
static avk_status resolve_enum(rcomp *c, const avk_type *w, const avk_type *r, uint32_t idx)
{
    int32_t *map = (int32_t *)arena_alloc(c, w->symbol_count * sizeof *map);
    size_t i;
    int identity = w->symbol_count <= r->symbol_count;
    if (!map)
        return no_memory(c);
    for (i = 0; i < w->symbol_count; i++) {
        long k = avk_type_symbol_index(r, w->symbols[i]);
        if (k < 0 && r->enum_default >= 0)
            k = r->enum_default;
        /* The plan fails only when such a value is read. */
        if (k < 0 && c->compat == COMPAT_STRICT)
            AVK_TRY(problem(c, NULL,
                            "writer symbol %s is not in the reader's symbols and the reader "
                            "has no default",
                            w->symbols[i]));
        map[i] = (int32_t)k;
        identity = identity && k == (long)i;
    }
    c->p->nodes[idx].count = (uint32_t)w->symbol_count;
    if (identity)
        return AVK_OK; /* the plain enum path: no mapping to run */
    c->p->nodes[idx].store = 1;
    AVK_TRY(new_rx(c, idx, w));
    c->rx[c->p->nodes[idx].extra].map = map;
    return AVK_OK;
}

/* A writer union read as a reader union: each writer branch to its
 * reader branch (or a FAIL step). The steps are indexed by the writer's
 * branch, the index on the wire; each step's type is the reader branch,
 * which the value gets, and map gives the branch index the value reports.
 * A branch with nothing to go to fails only when a value takes it (the
 * specification's rule), so a writer union wider than the reader's still
 * reads the values that fit. */
static avk_status resolve_unions(rcomp *c, const avk_type *w, const avk_type *r, uint32_t idx)
{
    int32_t *map = (int32_t *)arena_alloc(c, w->branch_count * sizeof *map);
    size_t i;
    uint32_t first;
    int identity = 1;
    char why[256], list[200];
    if (!map)
        return no_memory(c);
    snprintf(why, sizeof why, "no branch of the reader's union %s matches",
             avki_union_branch_list(r, list, sizeof list));
    c->p->nodes[idx].count = (uint32_t)w->branch_count;
    AVK_TRY(new_steps(c, idx, w->branch_count));
    first = c->p->nodes[idx].first;
    for (i = 0; i < w->branch_count; i++) {
        long b = branch_for(w->branches[i], r);
        uint32_t child;
        size_t wo = avki_path_push(&c->wpath, AVKI_SEG_BRANCH, i, NULL);
        if (b >= 0) {
            size_t ro = avki_path_push(&c->rpath, AVKI_SEG_BRANCH, (uint64_t)b, NULL);
            AVK_TRY(resolve(c, w->branches[i], r->branches[b], &child));
            avki_path_pop(&c->rpath, ro);
            set_step(c, first + i, child, r->branches[b]);
        } else {
            AVK_TRY(fail_node(c, w->branches[i], r, why, &child));
            set_step(c, first + i, child, r);
        }
        avki_path_pop(&c->wpath, wo);
        map[i] = (int32_t)b;
        identity = identity && b == (long)i;
    }
    if (identity)
        return AVK_OK; /* branch i is branch i: the plain union path */
    c->p->nodes[idx].store = 1;
    AVK_TRY(new_rx(c, idx, w));
    c->rx[c->p->nodes[idx].extra].map = map;
    return AVK_OK;
}

/* A writer union read as a non-union: the branches that fit resolve,
 * the others fail when read. The decoder reads the writer's index, takes
 * that step and stores the value with no union around it (every step has
 * the reader's type). ["null", "string"] read as "string" thus reads every
 * string, and a null fails where it is met. */
static avk_status resolve_unwrap(rcomp *c, const avk_type *w, const avk_type *r, uint32_t idx)
{
    size_t i;
    uint32_t first;
    char why[320], list[200];
    c->p->nodes[idx].count = (uint32_t)w->branch_count;
    AVK_TRY(new_steps(c, idx, w->branch_count));
    first = c->p->nodes[idx].first;
    for (i = 0; i < w->branch_count; i++) {
        uint32_t child;
        size_t wo = avki_path_push(&c->wpath, AVKI_SEG_BRANCH, i, NULL);
        if (fit(w->branches[i], r)) {
            AVK_TRY(resolve(c, w->branches[i], r, &child));
        } else {
            snprintf(why, sizeof why,
                     "branch %zu (%s) of the writer's union %s does not match the reader's %s", i,
                     avki_type_label(w->branches[i]), avki_union_branch_list(w, list, sizeof list),
                     avki_type_label(r));
            AVK_TRY(fail_node(c, w->branches[i], r, why, &child));
        }
        set_step(c, first + i, child, r);
        avki_path_pop(&c->wpath, wo);
    }
    return AVK_OK;
}

/* Writer and reader types that cannot be matched at all (other kinds and
 * no promotion, other names, fixed sizes that differ): a problem, with the
 * most specific reason that applies. */
static avk_status mismatch(rcomp *c, const avk_type *w, const avk_type *r, uint32_t *out)
{
    char why[256];
    if (w->kind == r->kind && w->kind == AVK_FIXED && names_match(w, r))
        snprintf(why, sizeof why, "fixed %s has %zu bytes, the writer's %s %zu", avki_type_label(r),
                 r->size, avki_type_label(w), w->size);
    else if (w->kind == r->kind)
        snprintf(why, sizeof why, "the names differ: %s and the writer's %s", avki_type_label(r),
                 avki_type_label(w));
    else
        snprintf(why, sizeof why, "%s cannot be read as %s", avki_type_label(w), avki_type_label(r));
    /* Fatal to the plan; the checks note it and go on past a failing node.
     * In strict mode fail_node reports it, so it is not counted twice. */
    if (c->compat != COMPAT_STRICT)
        AVK_TRY(problem(c, NULL, "%s", why));
    return fail_node(c, w, r, why, out);
}

/* The node that reads writer type w as reader type r. The tests run in this
 * order, and the order is the specification's: a reader union is matched
 * against the writer's value before kinds are compared (an int into
 * ["null", "long"] is a WRAP around a promotion, not a mismatch); a
 * writer union picks its branch at read time, so it comes before any
 * comparison of kinds too; then promotions, then names. Every node is
 * added to memo before its children are walked (see the top of the file).
 * depth is undone on every return but the error ones, which end the walk. */
static avk_status resolve(rcomp *c, const avk_type *w, const avk_type *r, uint32_t *out)
{
    uint32_t idx = 0; /* set on AVK_OK; 0 quiets -O3's -Wmaybe-uninitialized */
    avk_status st = AVK_OK;
    int op;
    if (memo_find(c, w, r, out))
        return AVK_OK;
    if (++c->depth > MAX_DEPTH)
        return avki_error_set(c->err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "schemas nested too deeply to resolve");
    if (r->kind == AVK_UNION && w->kind != AVK_UNION) {
        /* A writer non-union read as a union: the first branch it fits
         * (branch_for). There is no index on the wire: the WRAP node
         * supplies the reader's branch, count, and one step to read the
         * value itself. Its min_size is the writer value's. */
        long b = branch_for(w, r);
        uint32_t child;
        size_t ro;
        if (b < 0) {
            char why[256], list[200];
            avki_union_branch_list(r, list, sizeof list);
            snprintf(why, sizeof why, "no branch of the reader's union %s matches", list);
            if (c->compat != COMPAT_STRICT) /* fatal to the plan */
                st = problem(c, NULL, "the writer's %s matches no branch of the reader's union %s",
                             avki_type_label(w), list);
            if (st == AVK_OK)
                st = fail_node(c, w, r, why, out);
            c->depth--;
            return st;
        }
        AVK_TRY(new_node(c, AVKI_OP_WRAP, r, wmin(c, w), &idx));
        AVK_TRY(memo_add(c, w, r, idx));
        c->p->nodes[idx].count = (uint32_t)b;
        AVK_TRY(new_steps(c, idx, 1));
        ro = avki_path_push(&c->rpath, AVKI_SEG_BRANCH, (uint64_t)b, NULL);
        AVK_TRY(resolve(c, w, r->branches[b], &child));
        avki_path_pop(&c->rpath, ro);
        set_step(c, c->p->nodes[idx].first, child, r->branches[b]);
        *out = idx;
        c->depth--;
        return AVK_OK;
    }
    if (w->kind == AVK_UNION) {
        /* The branch is known only when the index is read: min_size 1 (the
         * index takes a byte), and each writer branch gets a step. */
        uint8_t kind = r->kind == AVK_UNION ? AVKI_OP_UNION : AVKI_OP_UNWRAP;
        AVK_TRY(new_node(c, kind, r, 1, &idx));
        AVK_TRY(memo_add(c, w, r, idx));
        *out = idx;
        st = kind == AVKI_OP_UNION ? resolve_unions(c, w, r, idx) : resolve_unwrap(c, w, r, idx);
        c->depth--;
        return st;
    }
    if (w->kind != r->kind) {
        /* Other primitive kinds: a promotion leaf, or nothing. */
        op = promotion(w->kind, r->kind);
        if (op < 0) {
            st = mismatch(c, w, r, out);
            c->depth--;
            return st;
        }
        AVK_TRY(new_node(c, (uint8_t)op, r, wmin(c, w), &idx));
        AVK_TRY(memo_add(c, w, r, idx));
        *out = idx;
        c->depth--;
        return AVK_OK;
    }
    if ((w->kind == AVK_RECORD || w->kind == AVK_ENUM || w->kind == AVK_FIXED) &&
        (!names_match(w, r) || (w->kind == AVK_FIXED && w->size != r->size))) {
        st = mismatch(c, w, r, out);
        c->depth--;
        return st;
    }
    /* The same kind: leaves read as they are, compounds recurse. The node
     * is remembered before its children so recursive types close. Its op
     * is the kind (plain ops are numbered as avk_kind), so it is the node
     * plan.c would make for the reader, and the decoder's plain paths,
     * inline leaves included, take it. */
    AVK_TRY(new_node(c, (uint8_t)w->kind, r, wmin(c, w), &idx));
    AVK_TRY(memo_add(c, w, r, idx));
    *out = idx;
    switch (w->kind) {
    case AVK_RECORD:
        st = resolve_record(c, w, r, idx);
        break;
    case AVK_ENUM:
        st = resolve_enum(c, w, r, idx);
        break;
    case AVK_FIXED:
        c->p->nodes[idx].count = (uint32_t)r->size;
        break;
    case AVK_ARRAY:
    case AVK_MAP: {
        uint32_t child;
        size_t ro, wo;
        if (w->kind == AVK_ARRAY) {
            /* The reader's storage: typed arrays stay typed. Items whose
             * writer type differs (an array<int> read as array<long>) are
             * read in bulk and widened in place (decode_typed.c). */
            c->p->nodes[idx].store = (uint8_t)avki_store_of(r->items);
            if (c->p->nodes[idx].store == AVKI_STORE_FIXED)
                c->p->nodes[idx].count = (uint32_t)r->items->size;
        }
        AVK_TRY(new_steps(c, idx, 1));
        ro = avki_path_push(&c->rpath, AVKI_SEG_MEMBER, 0,
                            w->kind == AVK_ARRAY ? "items" : "values");
        wo = avki_path_push(&c->wpath, AVKI_SEG_MEMBER, 0,
                            w->kind == AVK_ARRAY ? "items" : "values");
        st = resolve(c, w->items, r->items, &child);
        if (st == AVK_OK)
            set_step(c, c->p->nodes[idx].first, child, r->items);
        avki_path_pop(&c->rpath, ro);
        avki_path_pop(&c->wpath, wo);
        break;
    }
    default:
        break;
    }
    c->depth--;
    return st;
}

/* ---- entry points -------------------------------------------------------------- */

static void rcomp_destroy(rcomp *c)
{
    const avk_allocator *a = &c->p->alloc;
    avki_hash_destroy(&c->wnodes);
    avki_hash_destroy(&c->memo);
    avki_stack_destroy(&c->memo_pairs);
    if (c->rx)
        a->free(a->ctx, c->rx, c->rx_cap * sizeof *c->rx);
}

/* Compiles the writer's plain plan, then the resolution on top of it.
 * The writer plan's options apply to both parts: limits and flags are the
 * reader's choice whatever the schemas. After the walk, the plan answers
 * to the reader's type (p->type, what values carry), keeps the writer's
 * (p->writer_type, which marks it resolving), and flat heights are set
 * over all nodes; a resolving record is never flat (it has a walker of its
 * own in decode.c, with writer fields to skip). */
static avk_status build(rcomp *c, const avk_type *writer, const avk_type *reader,
                        const avk_plan_options *opts, avk_plan **out)
{
    avk_plan *p;
    avk_arena_options ao;
    size_t i;
    uint32_t root;
    avk_status st;
    AVK_TRY(avk_plan_new(writer, opts, &p, c->err));
    c->p = p;
    *out = p;
    avki_hash_init(&c->wnodes, &p->alloc, NULL, 0);
    avki_hash_init(&c->memo, &p->alloc, NULL, 0);
    avki_stack_init(&c->memo_pairs, NULL, 0, sizeof(memo_pair), &p->alloc);
    memset(&ao, 0, sizeof ao);
    ao.struct_size = sizeof ao;
    ao.allocator = &p->alloc;
    if (avk_arena_new(&ao, &p->rx_arena, NULL) != AVK_OK)
        return no_memory(c);
    c->arena = p->rx_arena;
    for (i = 0; i < p->node_count; i++)
        if (wnode_find(c, p->nodes[i].type) == AVKI_HASH_END &&
            avki_hash_add(&c->wnodes, avki_hash_ptr(p->nodes[i].type), i) != AVK_OK)
            return no_memory(c);
    c->rpath.depth = c->wpath.depth = 0;
    avki_path_push(&c->rpath, AVKI_SEG_TEXT, 0, avki_type_label(reader));
    avki_path_push(&c->wpath, AVKI_SEG_TEXT, 0, avki_type_label(writer));
    st = resolve(c, writer, reader, &root);
    if (st != AVK_OK)
        return st;
    if (c->rx_count) {
        p->rx = (avki_rx *)arena_alloc(c, c->rx_count * sizeof *p->rx);
        if (!p->rx)
            return no_memory(c);
        memcpy(p->rx, c->rx, c->rx_count * sizeof *p->rx);
    }
    p->root = root;
    p->type = reader;
    p->writer_type = writer;
    avki_plan_mark_flat(p);
    return AVK_OK;
}

avk_status avk_plan_new_resolving(const avk_type *writer, const avk_type *reader,
                                  const avk_plan_options *opts, avk_plan **out, avk_error *err)
{
    rcomp c;
    avk_plan *p = NULL;
    avk_status st;
    if (out)
        *out = NULL;
    if (!writer || !reader || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_plan_new_resolving: NULL argument");
    memset(&c, 0, sizeof c);
    c.err = err;
    st = build(&c, writer, reader, opts, &p);
    if (p)
        rcomp_destroy(&c);
    if (st != AVK_OK) {
        avk_plan_free(p);
        return st;
    }
    *out = p;
    return AVK_OK;
}

int avk_plan_is_resolving(const avk_plan *plan)
{
    return plan && plan->writer_type != NULL;
}

/* The walk of both checks: every problem of the mode to fn. A plan is
 * built and thrown away, so the checks say exactly what the compiler and
 * the decoder would do; a check is rare next to a decode, and a second
 * walk written for it would drift from the real one. */
static avk_status check(int mode, const char *name, const avk_type *writer,
                        const avk_type *reader, avk_compat_fn fn, void *ctx, avk_error *err)
{
    rcomp c;
    avk_plan *p = NULL;
    avk_status st;
    if (!writer || !reader)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: NULL argument", name);
    memset(&c, 0, sizeof c);
    c.err = err;
    c.compat = mode;
    c.fn = fn;
    c.ctx = ctx;
    st = build(&c, writer, reader, NULL, &p);
    if (p)
        rcomp_destroy(&c);
    avk_plan_free(p);
    if (st != AVK_OK)
        return st;
    if (c.problems) {
        avki_error_set(err, AVK_ERR_RESOLUTION, AVK_OFFSET_UNKNOWN, "%zu problem%s: %s",
                       c.problems, c.problems > 1 ? "s, the first" : "", c.first);
        if (err)
            copy_text(err->path, sizeof err->path, c.first_path);
        return AVK_ERR_RESOLUTION;
    }
    return AVK_OK;
}

avk_status avk_schema_check_compat(const avk_type *writer, const avk_type *reader, avk_compat_fn fn,
                                   void *ctx, avk_error *err)
{
    return check(COMPAT_STRICT, "avk_schema_check_compat", writer, reader, fn, ctx, err);
}

avk_status avk_schema_check_resolvable(const avk_type *writer, const avk_type *reader,
                                       avk_compat_fn fn, void *ctx, avk_error *err)
{
    return check(COMPAT_RESOLVABLE, "avk_schema_check_resolvable", writer, reader, fn, ctx, err);
}
