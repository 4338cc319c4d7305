/* Building values: whole trees for a type (with field defaults), array appends, map entries and union branches by name. */
#include <stdint.h>
#include <string.h>

#include "avro_json/avro_json_internal.h"
#include "common/arena.h"
#include "common/error.h"
#include "common/hash_table.h"
#include "common/stack.h"
#include "schema/schema_internal.h"
#include "value/value_target.h"

/* ---- whole trees ------------------------------------------------------------------------- */

/* A record whose fields are being set up: the next one is i. */
typedef struct tframe {
    avk_value *rec;
    size_t i;
} tframe;

/* A record type seen on the way down, with the depth where it was last
 * pushed: it is on the current path when that frame still holds it. */
typedef struct tseen {
    const avk_type *t;
    size_t depth;
} tseen;

#define LOCAL_FRAMES 32
#define LOCAL_SEEN 32

typedef struct tctx {
    avk_arena *arena;
    avk_error *err;
    avki_stack frames;
    tframe local_frames[LOCAL_FRAMES];
    avki_stack seen;       /* tseen, one per record type met */
    avki_hash seen_index;  /* indexes of seen, by the type's address */
    tseen local_seen[LOCAL_SEEN];
    avki_hash_slot local_slots[2 * LOCAL_SEEN];
} tctx;

static avk_status no_memory(const tctx *c, size_t bytes)
{
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "avk_value_init_tree: cannot allocate %zu bytes", bytes);
}

static tseen *seen_find(tctx *c, const avk_type *t)
{
    uint32_t h = avki_hash_ptr(t);
    size_t pos = avki_hash_first(&c->seen_index, h), i;
    while ((i = avki_hash_next(&c->seen_index, h, &pos)) != AVKI_HASH_END) {
        tseen *s = (tseen *)avki_stack_at(&c->seen, i);
        if (s->t == t)
            return s;
    }
    return NULL;
}

/* Remembers type t (not there yet) in *out. */
static avk_status seen_add(tctx *c, const avk_type *t, tseen **out)
{
    tseen *s = (tseen *)avki_stack_push(&c->seen);
    if (!s)
        return no_memory(c, 2 * c->seen.cap * sizeof *s);
    if (avki_hash_add(&c->seen_index, avki_hash_ptr(t), c->seen.n - 1) != AVK_OK) {
        c->seen.n--;
        return no_memory(c, 2 * (c->seen_index.mask + 1) * sizeof(avki_hash_slot));
    }
    s->t = t;
    *out = s;
    return AVK_OK;
}

/* Pushes record value rec (its fields allocated) unless its type is
 * already on the path: then no finite value exists. */
static avk_status push_record(tctx *c, avk_value *rec)
{
    size_t depth = c->frames.n;
    tseen *s = seen_find(c, rec->type);
    tframe *f;
    if (s && s->depth < depth &&
        ((tframe *)avki_stack_at(&c->frames, s->depth))->rec->type == rec->type) {
        const tframe *parent = (const tframe *)avki_stack_at(&c->frames, depth - 1);
        return avki_error_set(c->err, AVK_ERR_SCHEMA, AVK_OFFSET_UNKNOWN,
                              "avk_value_init_tree: record '%s' contains itself through field "
                              "'%s' of record '%s', with no default and no union, array or map "
                              "between: it has no finite value",
                              rec->type->fullname, parent->rec->type->fields[parent->i - 1].name,
                              parent->rec->type->fullname);
    }
    if (!s)
        AVK_TRY(seen_add(c, rec->type, &s));
    s->depth = depth;
    if (!(f = (tframe *)avki_stack_push(&c->frames)))
        return no_memory(c, 2 * c->frames.cap * sizeof *f);
    f->rec = rec;
    f->i = 0;
    return AVK_OK;
}

/* v as the empty value of t; a record's fields are allocated (typed, zeroed)
 * and left to the caller's loop. */
static avk_status empty_value(tctx *c, avk_value *v, const avk_type *t)
{
    memset(v, 0, sizeof *v);
    v->type = t;
    if (t->kind == AVK_FIXED && t->size) {
        uint8_t *z = (uint8_t *)avki_arena_alloc(&c->arena->core, t->size, 1);
        if (!z)
            return no_memory(c, t->size);
        memset(z, 0, t->size);
        v->u.bytes.data = z;
        v->u.bytes.len = t->size;
    } else if (t->kind == AVK_RECORD && t->field_count) {
        size_t i;
        avk_value *fs;
        if (t->field_count > SIZE_MAX / sizeof *fs)
            return no_memory(c, SIZE_MAX);
        fs = (avk_value *)avki_arena_alloc(&c->arena->core, t->field_count * sizeof *fs,
                                           _Alignof(avk_value));
        if (!fs)
            return no_memory(c, t->field_count * sizeof *fs);
        memset(fs, 0, t->field_count * sizeof *fs);
        for (i = 0; i < t->field_count; i++)
            fs[i].type = t->fields[i].type;
        v->u.fields = fs;
        return push_record(c, v);
    }
    return AVK_OK;
}

/* Sets up v as a tree of type t; statuses as avk_value_init_tree. */
static avk_status init_tree(avk_value *v, const avk_type *t, avk_arena *arena, avk_error *err)
{
    tctx c;
    avk_status st;
    c.arena = arena;
    c.err = err;
    avki_stack_init(&c.frames, c.local_frames, LOCAL_FRAMES, sizeof(tframe), &arena->core.alloc);
    avki_stack_init(&c.seen, c.local_seen, LOCAL_SEEN, sizeof(tseen), &arena->core.alloc);
    avki_hash_init(&c.seen_index, &arena->core.alloc, c.local_slots, 2 * LOCAL_SEEN);
    st = empty_value(&c, v, t);
    while (st == AVK_OK && c.frames.n) {
        tframe *f = (tframe *)avki_stack_at(&c.frames, c.frames.n - 1);
        const avk_type *rt = f->rec->type;
        const avk_field *fd;
        avk_value *fv;
        if (f->i == rt->field_count) {
            c.frames.n--;
            continue;
        }
        fd = &rt->fields[f->i];
        fv = &f->rec->u.fields[f->i++];
        if (fd->default_value) {
            st = avki_value_from_default(fd, arena, fv, err);
            if (st != AVK_OK)
                avki_error_prefix(err, "avk_value_init_tree: default of field '%s' of record "
                                       "'%s': ",
                                  fd->name, rt->fullname);
        } else {
            st = empty_value(&c, fv, fd->type); /* may push: f is stale after */
        }
    }
    avki_stack_destroy(&c.frames);
    avki_stack_destroy(&c.seen);
    avki_hash_destroy(&c.seen_index);
    if (st != AVK_OK) {
        memset(v, 0, sizeof *v);
        v->type = t;
    }
    return st;
}

avk_status avk_value_init_tree(avk_value *v, const avk_type *t, avk_arena *arena,
                               avk_error *err)
{
    if (!v || !t || !arena)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_init_tree: NULL %s",
                              !v ? "value" : !t ? "type" : "arena");
    return init_tree(v, t, arena, err);
}

/* ---- appends, map entries, union branches --------------------------------------------- */

static avk_status grow_failed(const char *fn, size_t count, avk_error *err)
{
    return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "%s: cannot grow storage of %zu items in the arena", fn, count);
}

/* The target of fn, checked to be of kind k (want: "an array", "a map"). */
static avk_status target_of(avk_value *v, const char *field, avk_kind k, const char *fn,
                            const char *want, avk_arena *arena, avki_target *t, avk_error *err)
{
    AVK_TRY(avki_value_target(v, field, k == AVK_UNION, fn, t, err));
    if (t->v->type->kind != k)
        return avki_value_mismatch(t, fn, want, NULL, err);
    if (!arena)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: arena is NULL", fn);
    return AVK_OK;
}

avk_status avk_value_append(avk_value *v, const char *field, avk_arena *arena, avk_value **item,
                            avk_error *err)
{
    static const char fn[] = "avk_value_append";
    avki_target t;
    avk_value *items;
    size_t n, size;
    if (!item)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: item is NULL", fn);
    AVK_TRY(target_of(v, field, AVK_ARRAY, fn, "an array", arena, &t, err));
    if (avk_array_is_typed(t.v->type, &size))
        return avki_value_mismatch(&t, fn, "an array of avk_value items",
                                   "its items are a C array: append them with "
                                   "avk_value_append_items",
                                   err);
    n = t.v->u.array.count;
    items = (avk_value *)avki_arena_grow(&arena->core, t.v->u.array.items, n, 1, sizeof *items,
                                         _Alignof(avk_value));
    if (!items)
        return grow_failed(fn, n, err);
    t.v->u.array.items = items; /* the same n items, perhaps moved: v is unchanged */
    AVK_TRY(init_tree(&items[n], t.v->type->items, arena, err));
    t.v->u.array.count = n + 1;
    *item = &items[n];
    return AVK_OK;
}

avk_status avk_value_append_items(avk_value *v, const char *field, const void *items, size_t n,
                                  avk_arena *arena, avk_error *err)
{
    static const char fn[] = "avk_value_append_items";
    avki_target t;
    size_t count, size, i;
    uint8_t *dst;
    AVK_TRY(target_of(v, field, AVK_ARRAY, fn, "an array", arena, &t, err));
    if (!avk_array_is_typed(t.v->type, &size))
        return avki_value_mismatch(&t, fn, "an array stored as a C array",
                                   "its items are avk_value: append them one at a time with "
                                   "avk_value_append",
                                   err);
    count = t.v->u.array.count;
    if (n > SIZE_MAX - count)
        return grow_failed(fn, count, err);
    if (n == 0)
        return AVK_OK;
    if (size == 0) { /* null items, or fixed(0): nothing stored */
        t.v->u.array.count = count + n;
        return AVK_OK;
    }
    if (!items)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: items is NULL but n is %zu", fn, n);
    if (n > SIZE_MAX / size - count)
        return grow_failed(fn, count, err);
    dst = (uint8_t *)avki_arena_grow(&arena->core, t.v->u.array.items, count, n, size, 8);
    if (!dst)
        return grow_failed(fn, count, err);
    memcpy(dst + count * size, items, n * size);
    if (t.v->type->items->kind == AVK_BOOLEAN)
        for (i = count; i < count + n; i++)
            dst[i] = dst[i] != 0;
    t.v->u.array.items = dst;
    t.v->u.array.count = count + n;
    return AVK_OK;
}

avk_status avk_value_put(avk_value *v, const char *field, const char *key, avk_arena *arena,
                         avk_value **value, avk_error *err)
{
    static const char fn[] = "avk_value_put";
    avki_target t;
    avk_bytes *keys;
    avk_value *values;
    char *copy;
    size_t n, len;
    if (!key || !value)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN, "%s: %s is NULL",
                              fn, !key ? "key" : "value");
    AVK_TRY(target_of(v, field, AVK_MAP, fn, "a map", arena, &t, err));
    n = t.v->u.map.count;
    len = strlen(key);
    keys = (avk_bytes *)avki_arena_grow(&arena->core, t.v->u.map.keys, n, 1, sizeof *keys,
                                        _Alignof(avk_bytes));
    values = keys ? (avk_value *)avki_arena_grow(&arena->core, t.v->u.map.values, n, 1,
                                                 sizeof *values, _Alignof(avk_value))
                  : NULL;
    if (!values)
        return grow_failed(fn, n, err);
    if (!(copy = avki_arena_strndup(&arena->core, key, len)))
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "%s: cannot copy a key of %zu bytes into the arena", fn, len);
    /* The same n entries, perhaps moved: v is unchanged until the value is set up. */
    t.v->u.map.keys = keys;
    t.v->u.map.values = values;
    AVK_TRY(init_tree(&values[n], t.v->type->items, arena, err));
    keys[n].data = (const uint8_t *)copy;
    keys[n].len = len;
    t.v->u.map.count = n + 1;
    *value = &values[n];
    return AVK_OK;
}

/* The branch of union u that name names (see avk_value_choose), or -1. */
static long branch_named(const avk_type *u, const char *name)
{
    size_t i;
    long found = -1;
    for (i = 0; i < u->branch_count; i++)
        if (strcmp(avki_type_label(u->branches[i]), name) == 0)
            return (long)i;
    for (i = 0; i < u->branch_count; i++)
        if (u->branches[i]->name && strcmp(u->branches[i]->name, name) == 0) {
            if (found >= 0)
                return -1; /* two branches of that simple name: the full name decides */
            found = (long)i;
        }
    return found;
}

avk_status avk_value_choose(avk_value *v, const char *field, const char *branch,
                            avk_arena *arena, avk_value **out, avk_error *err)
{
    static const char fn[] = "avk_value_choose";
    avki_target t;
    avk_value *bv;
    long b;
    if (!branch)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: the branch name is NULL", fn);
    AVK_TRY(target_of(v, field, AVK_UNION, fn, "a union", arena, &t, err));
    b = branch_named(t.v->type, branch);
    if (b < 0) {
        char place[160], list[AVKI_BRANCH_LIST_MAX];
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: %s is a union %s with no branch '%s'", fn,
                              avki_target_place(&t, place, sizeof place),
                              avki_union_branch_list(t.v->type, list, sizeof list), branch);
    }
    bv = (avk_value *)avki_arena_alloc(&arena->core, sizeof *bv, _Alignof(avk_value));
    if (!bv)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "%s: cannot allocate the branch value", fn);
    AVK_TRY(init_tree(bv, t.v->type->branches[b], arena, err));
    t.v->u.branch.index = (uint32_t)b;
    t.v->u.branch.value = bv;
    if (out)
        *out = bv;
    return AVK_OK;
}
