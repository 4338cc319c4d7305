/* Plan compiler (the format is in plan_format.h): one node per distinct type (so recursive types close into loops), children as flat steps. */
#include <stdint.h>
#include <string.h>

#include "avrokit/check.h"
#include "plan/plan_format.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "common/hash_table.h"

#define DEFAULT_MAX_DEPTH AVK_DEFAULT_MAX_DEPTH
#define DEFAULT_MAX_BYTES ((uint64_t)256 << 20)
#define DEFAULT_MAX_ITEMS ((uint64_t)64 << 20)
#define DEFAULT_MAX_EMPTY_ITEMS ((uint64_t)1 << 20)
#define DEFAULT_MAX_MEMORY ((uint64_t)1 << 30)
/* min_size saturates here: it is only compared with byte counts. */
#define MIN_SIZE_CAP ((uint64_t)1 << 40)

/* Growable arrays and a type -> node map while compiling. */
typedef struct compiler {
    avk_plan *plan;
    size_t node_cap, step_cap;
    /* Named (and shared bare) types already compiled: node indexes found
     * by the type's address. A linear search would make a schema of many
     * named types quadratic. */
    avki_hash seen;
} compiler;

/* The node compiled for t, or AVKI_HASH_END. */
static size_t seen_find(const compiler *c, const avk_type *t)
{
    uint32_t h = avki_hash_ptr(t);
    size_t pos = avki_hash_first(&c->seen, h), i;
    while ((i = avki_hash_next(&c->seen, h, &pos)) != AVKI_HASH_END)
        if (c->plan->nodes[i].type == t)
            return i;
    return AVKI_HASH_END;
}

static int grow(const avk_allocator *a, void **p, size_t *cap, size_t used, size_t need,
                size_t elem)
{
    size_t ncap;
    void *np;
    if (used + need <= *cap)
        return 1;
    ncap = *cap ? *cap * 2 : 16;
    while (ncap < used + need)
        ncap *= 2;
    if (ncap > SIZE_MAX / elem)
        return 0;
    np = *p ? a->realloc(a->ctx, *p, *cap * elem, ncap * elem) : a->alloc(a->ctx, ncap * elem);
    if (!np)
        return 0;
    *p = np;
    *cap = ncap;
    return 1;
}

avki_store avki_store_of(const avk_type *items)
{
    switch (items->kind) {
    case AVK_NULL: return AVKI_STORE_NULL;
    case AVK_BOOLEAN: return AVKI_STORE_BOOLEAN;
    case AVK_INT: return AVKI_STORE_INT;
    case AVK_LONG: return AVKI_STORE_LONG;
    case AVK_FLOAT: return AVKI_STORE_FLOAT;
    case AVK_DOUBLE: return AVKI_STORE_DOUBLE;
    case AVK_FIXED: return AVKI_STORE_FIXED;
    default: return AVKI_STORE_BOXED;
    }
}

size_t avki_store_size(const avki_node *n)
{
    switch ((avki_store)n->store) {
    case AVKI_STORE_BOOLEAN: return 1;
    case AVKI_STORE_INT: return 4;
    case AVKI_STORE_LONG: return 8;
    case AVKI_STORE_FLOAT: return 4;
    case AVKI_STORE_DOUBLE: return 8;
    case AVKI_STORE_FIXED: return n->count;
    default: return 0;
    }
}

int avk_array_is_typed(const avk_type *t, size_t *item_size)
{
    avki_node n;
    if (!t || t->kind != AVK_ARRAY)
        return 0;
    n.store = (uint8_t)avki_store_of(t->items);
    n.count = (uint32_t)t->items->size;
    if (n.store == AVKI_STORE_BOXED)
        return 0;
    if (item_size)
        *item_size = avki_store_size(&n);
    return 1;
}

/* Index of t's node, compiling it and its children when new (recursion
 * bounded by the schema parser's depth limit). */
static avk_status compile(compiler *c, const avk_type *t, uint32_t *out);

static avk_status add_steps(compiler *c, const avk_type *const *types, size_t n, uint32_t node)
{
    avk_plan *p = c->plan;
    size_t first = p->step_count, i;
    if (!grow(&p->alloc, (void **)&p->steps, &c->step_cap, p->step_count, n, sizeof(avki_step)))
        return AVK_ERR_NO_MEMORY;
    p->step_count += n;
    p->nodes[node].first = (uint32_t)first;
    for (i = 0; i < n; i++) {
        uint32_t child;
        AVK_TRY(compile(c, types[i], &child));
        /* compile may have moved p->steps; index afresh. */
        p->steps[first + i].node = child;
        p->steps[first + i].op = p->nodes[child].op;
        p->steps[first + i].type = types[i];
        p->steps[first + i].run = 0;
    }
    return AVK_OK;
}

/* Consecutive int fields (or long fields) decode faster through one bulk
 * varint call than one by one: mark where such runs start. */
static void mark_runs(avki_step *s, size_t count)
{
    size_t i = 0;
    while (i < count) {
        size_t j = i + 1;
        if (s[i].op == AVKI_OP_INT || s[i].op == AVKI_OP_LONG)
            while (j < count && s[j].op == s[i].op && j - i < AVKI_MAX_RUN)
                j++;
        if (j - i > 1) /* a run of one is an ordinary field */
            s[i].run = (uint8_t)(j - i);
        i = j;
    }
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b > MIN_SIZE_CAP ? MIN_SIZE_CAP : a + b;
}

static avk_status compile(compiler *c, const avk_type *t, uint32_t *out)
{
    avk_plan *p = c->plan;
    size_t i;
    uint32_t idx;
    avki_node *n;

    /* Only named types can be reached twice through the tree (and recur),
     * besides the shared bare primitives; other nodes are always new. */
    if (t->name || t->bare) {
        size_t seen = seen_find(c, t);
        if (seen != AVKI_HASH_END) {
            *out = (uint32_t)seen;
            return AVK_OK;
        }
    }
    if (p->node_count >= UINT32_MAX - 1)
        return AVK_ERR_LIMIT;
    if (!grow(&p->alloc, (void **)&p->nodes, &c->node_cap, p->node_count, 1, sizeof(avki_node)))
        return AVK_ERR_NO_MEMORY;
    idx = (uint32_t)p->node_count++;
    n = &p->nodes[idx];
    memset(n, 0, sizeof *n);
    n->type = t;
    if (t->name || t->bare)
        AVK_TRY(avki_hash_add(&c->seen, avki_hash_ptr(t), idx));
    n->op = (uint8_t)t->kind; /* avki_op follows avk_kind */
    *out = idx;

    switch (t->kind) {
    case AVK_NULL: n->min_size = 0; break;
    case AVK_FLOAT: n->min_size = 4; break;
    case AVK_DOUBLE: n->min_size = 8; break;
    case AVK_FIXED:
        if (t->size > UINT32_MAX)
            return AVK_ERR_LIMIT;
        n->count = (uint32_t)t->size;
        n->min_size = t->size;
        break;
    case AVK_ENUM:
        n->count = (uint32_t)t->symbol_count;
        n->min_size = 1;
        break;
    case AVK_RECORD: {
        uint64_t min = 0;
        const avk_type **types;
        avk_status st;
        n->count = (uint32_t)t->field_count;
        /* Mark as in progress with a minimum of 0 while its fields compile
         * (a recursive reference sees 0, which is safe: smaller). */
        if (t->field_count == 0)
            break;
        types = (const avk_type **)p->alloc.alloc(p->alloc.ctx, t->field_count * sizeof *types);
        if (!types)
            return AVK_ERR_NO_MEMORY;
        for (i = 0; i < t->field_count; i++)
            types[i] = t->fields[i].type;
        st = add_steps(c, types, t->field_count, idx);
        p->alloc.free(p->alloc.ctx, (void *)types, t->field_count * sizeof *types);
        AVK_TRY(st);
        n = &p->nodes[idx];
        for (i = 0; i < t->field_count; i++)
            min = sat_add(min, p->nodes[p->steps[n->first + i].node].min_size);
        n->min_size = min;
        mark_runs(p->steps + n->first, t->field_count);
        break;
    }
    case AVK_ARRAY:
    case AVK_MAP:
        n->min_size = 1;
        if (t->kind == AVK_ARRAY) {
            n->store = (uint8_t)avki_store_of(t->items);
            if (n->store == AVKI_STORE_FIXED) {
                if (t->items->size > UINT32_MAX)
                    return AVK_ERR_LIMIT;
                n->count = (uint32_t)t->items->size;
            }
        }
        AVK_TRY(add_steps(c, &t->items, 1, idx));
        break;
    case AVK_UNION:
        n->count = (uint32_t)t->branch_count;
        n->min_size = 1;
        if (t->branch_count)
            AVK_TRY(add_steps(c, t->branches, t->branch_count, idx));
        break;
    default: n->min_size = 1; break; /* boolean, int, long, bytes, string */
    }
    return AVK_OK;
}

static uint64_t or_default(uint64_t v, uint64_t d)
{
    return v ? v : d;
}

void avk_check_limits(avk_limits *l)
{
    l->max_depth = (size_t)or_default(l->max_depth, DEFAULT_MAX_DEPTH);
    l->max_bytes = or_default(l->max_bytes, DEFAULT_MAX_BYTES);
    l->max_items = or_default(l->max_items, DEFAULT_MAX_ITEMS);
    l->max_empty_items = or_default(l->max_empty_items, DEFAULT_MAX_EMPTY_ITEMS);
    l->max_memory = or_default(l->max_memory, DEFAULT_MAX_MEMORY);
}

avk_status avk_plan_new(const avk_type *t, const avk_plan_options *opts, avk_plan **out,
                        avk_error *err)
{
    avk_allocator a;
    avk_plan *p;
    compiler c;
    uint32_t root;
    avk_status st;

    if (out)
        *out = NULL;
    if (!t || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0, "avk_plan_new: NULL argument");
    if (opts && opts->struct_size < sizeof *opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0,
                              "avk_plan_new: options struct_size %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    a = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    p = (avk_plan *)a.alloc(a.ctx, sizeof *p);
    if (!p)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, 0, "out of memory compiling a plan");
    memset(p, 0, sizeof *p);
    p->alloc = a;
    p->type = t;
    if (opts) {
        p->flags = opts->flags;
        p->limits = opts->limits;
        p->block_items = opts->block_items;
    }
    avk_check_limits(&p->limits);

    memset(&c, 0, sizeof c);
    c.plan = p;
    avki_hash_init(&c.seen, &p->alloc, NULL, 0);
    st = compile(&c, t, &root);
    avki_hash_destroy(&c.seen);
    if (st != AVK_OK) {
        if (p->nodes)
            p->alloc.free(p->alloc.ctx, p->nodes, c.node_cap * sizeof(avki_node));
        if (p->steps)
            p->alloc.free(p->alloc.ctx, p->steps, c.step_cap * sizeof(avki_step));
        p->alloc.free(p->alloc.ctx, p, sizeof *p);
        if (st == AVK_ERR_NO_MEMORY)
            return avki_error_set(err, st, 0, "out of memory compiling a plan");
        return avki_error_set(err, st, 0, "schema too large to compile");
    }
    /* Keep the arrays at their capacity; record it for free. */
    p->node_cap = c.node_cap;
    p->step_cap = c.step_cap;
    /* A plan without steps (a lone empty record, a primitive) still gets
     * an array: steps + first must never be arithmetic on NULL. */
    if (!p->steps && !avki_plan_reserve(p, 0, 1)) {
        avk_plan_free(p);
        return avki_error_set(err, AVK_ERR_NO_MEMORY, 0, "out of memory compiling a plan");
    }
    avki_plan_mark_flat(p);
    *out = p;
    return AVK_OK;
}

/* A step whose values walkers handle in place: leaves (promotions and
 * read-time failures included) and nothing they must descend into. */
static int leaf_step(const avki_step *s)
{
    return s->op < AVKI_OP_RECORD || s->op == AVKI_OP_ENUM || s->op == AVKI_OP_FIXED ||
           (s->op >= AVKI_OP_INT_LONG && s->op <= AVKI_OP_FLOAT_DOUBLE) || s->op == AVKI_OP_FAIL;
}

/* How many levels the values of step s can nest below it, as far as
 * node heights are known yet (AVKI_FLAT_MAX + 1: unknown, or too many). */
static unsigned step_height(const avk_plan *p, const avki_step *s)
{
    if (leaf_step(s))
        return 0;
    return p->nodes[s->node].flat ? p->nodes[s->node].flat : AVKI_FLAT_MAX + 1;
}

/* The height of node n from its children's, or 0 when not flat. */
static unsigned node_height(const avk_plan *p, const avki_node *n)
{
    unsigned h = 0, k;
    uint32_t f;
    switch ((avki_op)n->op) {
    case AVKI_OP_RECORD:
        if (n->store) /* resolving: its own walker, with writer fields to skip */
            return 0;
        for (f = 0; f < n->count; f++) {
            k = step_height(p, &p->steps[n->first + f]);
            h = k > h ? k : h;
        }
        break;
    case AVKI_OP_UNION:
        for (f = 0; f < n->count; f++) {
            k = step_height(p, &p->steps[n->first + f]);
            h = k > h ? k : h;
        }
        break;
    case AVKI_OP_ARRAY:
    case AVKI_OP_MAP:
        h = step_height(p, &p->steps[n->first]);
        break;
    default:
        return 0;
    }
    return h + 1 <= AVKI_FLAT_MAX ? h + 1 : 0;
}

void avki_plan_mark_flat(avk_plan *p)
{
    size_t i, pass;
    int changed = 1;
    for (i = 0; i < p->node_count; i++)
        p->nodes[i].flat = 0;
    /* Heights settle from the leaves up, a level a pass; a type that
     * contains itself never gets one. */
    for (pass = 0; changed && pass <= AVKI_FLAT_MAX + 1; pass++) {
        changed = 0;
        for (i = 0; i < p->node_count; i++) {
            unsigned h = node_height(p, &p->nodes[i]);
            if (h != p->nodes[i].flat) {
                p->nodes[i].flat = (uint8_t)h;
                changed = 1;
            }
        }
    }
}

int avki_plan_reserve(avk_plan *p, size_t nodes, size_t steps)
{
    return grow(&p->alloc, (void **)&p->nodes, &p->node_cap, p->node_count, nodes,
                sizeof(avki_node)) &&
           grow(&p->alloc, (void **)&p->steps, &p->step_cap, p->step_count, steps,
                sizeof(avki_step));
}

void avk_plan_free(avk_plan *p)
{
    if (!p)
        return;
    avk_arena_free(p->rx_arena);
    if (p->nodes)
        p->alloc.free(p->alloc.ctx, p->nodes, p->node_cap * sizeof(avki_node));
    if (p->steps)
        p->alloc.free(p->alloc.ctx, p->steps, p->step_cap * sizeof(avki_step));
    p->alloc.free(p->alloc.ctx, p, sizeof *p);
}

const avk_type *avk_plan_type(const avk_plan *p)
{
    return p ? p->type : NULL;
}
