/* The schema store: writer schemas by CRC-64-AVRO fingerprint and by id, and their plans compiled once, shared by threads. */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/message.h"
#include "avrokit/resolve.h"
#include "avrokit/writer.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "common/hash_table.h"
#include "message/message_internal.h"

/*
 * One rwlock guards the three tables. Lookups of keys that are there take
 * it shared for a hash probe; adds and first compiles take it exclusive
 * only to insert, after the slow work (parsing, canonical form, compiling)
 * is done unlocked. Two threads doing that work for the same key at once
 * both finish it; the second to insert finds the first's entry, keeps it
 * and frees its own, so every caller gets the same pointer.
 *
 * Schemas and plans are allocated one by one and never moved or freed
 * before the store: the pointers handed out stay valid while the arrays of
 * entries grow.
 */

typedef struct schema_entry {
    avk_schema *schema;
    uint64_t fingerprint;
    char *canon; /* the Parsing Canonical Form, canon_len bytes (not NUL-terminated) */
    size_t canon_len;
} schema_entry;

typedef struct id_entry {
    uint32_t id;
    uint32_t schema; /* index in schemas */
} id_entry;

typedef struct plan_entry {
    const avk_schema *writer;
    const avk_type *reader; /* NULL: the plain plan of writer */
    avk_plan *plan;
} plan_entry;

struct avk_schema_store {
    avk_allocator alloc;
    avk_schema_options schema_opts; /* allocator: the store's unless given */
    avk_plan_options plan_opts;     /* likewise */
    avk_schema_fetch_fn fetch;
    void *fetch_ctx;
    size_t max_schemas;
    pthread_rwlock_t lock;

    schema_entry *schemas;
    size_t schema_count, schema_cap;
    avki_hash by_fp;
    avki_hash by_ptr; /* the same entries by the schema's address */

    id_entry *ids;
    size_t id_count, id_cap;
    avki_hash by_id;

    plan_entry *plans;
    size_t plan_count, plan_cap;
    avki_hash by_plan;
};

const avk_allocator *avki_schema_store_allocator(const avk_schema_store *store)
{
    return &store->alloc;
}

size_t avki_schema_store_max_text(const avk_schema_store *store)
{
    return store->schema_opts.max_size ? store->schema_opts.max_size
                                       : AVKI_STORE_DEFAULT_MAX_TEXT;
}

avk_status avk_schema_store_new(const avk_schema_store_options *opts, avk_schema_store **out,
                                avk_error *err)
{
    avk_allocator a;
    avk_schema_store *s;
    if (out)
        *out = NULL;
    if (!out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0,
                              "avk_schema_store_new: NULL argument");
    if (opts && opts->struct_size != sizeof *opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0,
                              "avk_schema_store_options.struct_size is %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    if (opts && opts->schema && opts->schema->struct_size < sizeof(avk_schema_options))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0,
                              "avk_schema_options.struct_size is %zu, expected %zu",
                              opts->schema->struct_size, sizeof(avk_schema_options));
    if (opts && opts->plan && opts->plan->struct_size < sizeof(avk_plan_options))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0,
                              "avk_plan_options.struct_size is %zu, expected %zu",
                              opts->plan->struct_size, sizeof(avk_plan_options));
    a = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    s = (avk_schema_store *)a.alloc(a.ctx, sizeof *s);
    if (!s)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, 0, "out of memory making a schema store");
    memset(s, 0, sizeof *s);
    s->alloc = a;
    if (pthread_rwlock_init(&s->lock, NULL) != 0) {
        a.free(a.ctx, s, sizeof *s);
        return avki_error_set(err, AVK_ERR_NO_MEMORY, 0,
                              "cannot make the schema store's lock");
    }
    avk_schema_options_init(&s->schema_opts);
    avk_plan_options_init(&s->plan_opts);
    if (opts) {
        if (opts->schema)
            memcpy(&s->schema_opts, opts->schema, sizeof s->schema_opts);
        if (opts->plan)
            memcpy(&s->plan_opts, opts->plan, sizeof s->plan_opts);
        s->fetch = opts->fetch;
        s->fetch_ctx = opts->fetch_ctx;
        s->max_schemas = opts->max_schemas;
    }
    s->schema_opts.struct_size = sizeof s->schema_opts;
    s->plan_opts.struct_size = sizeof s->plan_opts;
    if (!s->schema_opts.allocator)
        s->schema_opts.allocator = &s->alloc;
    if (!s->plan_opts.allocator)
        s->plan_opts.allocator = &s->alloc;
    if (!s->max_schemas)
        s->max_schemas = AVKI_STORE_DEFAULT_MAX_SCHEMAS;
    /* Entry indexes are kept in 32 bits. */
    if (s->max_schemas > UINT32_MAX - 1)
        s->max_schemas = UINT32_MAX - 1;
    avki_hash_init(&s->by_fp, &s->alloc, NULL, 0);
    avki_hash_init(&s->by_ptr, &s->alloc, NULL, 0);
    avki_hash_init(&s->by_id, &s->alloc, NULL, 0);
    avki_hash_init(&s->by_plan, &s->alloc, NULL, 0);
    *out = s;
    return AVK_OK;
}

void avk_schema_store_free(avk_schema_store *store)
{
    avk_allocator a;
    size_t i;
    if (!store)
        return;
    a = store->alloc;
    for (i = 0; i < store->plan_count; i++)
        avk_plan_free(store->plans[i].plan);
    for (i = 0; i < store->schema_count; i++) {
        avk_schema_free(store->schemas[i].schema);
        a.free(a.ctx, store->schemas[i].canon, store->schemas[i].canon_len);
    }
    if (store->plans)
        a.free(a.ctx, store->plans, store->plan_cap * sizeof *store->plans);
    if (store->schemas)
        a.free(a.ctx, store->schemas, store->schema_cap * sizeof *store->schemas);
    if (store->ids)
        a.free(a.ctx, store->ids, store->id_cap * sizeof *store->ids);
    avki_hash_destroy(&store->by_fp);
    avki_hash_destroy(&store->by_ptr);
    avki_hash_destroy(&store->by_id);
    avki_hash_destroy(&store->by_plan);
    pthread_rwlock_destroy(&store->lock);
    a.free(a.ctx, store, sizeof *store);
}

size_t avk_schema_store_count(avk_schema_store *store)
{
    size_t n;
    if (!store)
        return 0;
    pthread_rwlock_rdlock(&store->lock);
    n = store->schema_count;
    pthread_rwlock_unlock(&store->lock);
    return n;
}

/* ---- lookups (the lock held, shared or exclusive) ---------------------- */

static uint32_t fp_hash(const avk_schema_store *s, uint64_t fp)
{
    return avki_hash_bytes(&s->by_fp, &fp, sizeof fp);
}

static uint32_t id_hash(const avk_schema_store *s, uint32_t id)
{
    return avki_hash_bytes(&s->by_id, &id, sizeof id);
}

static uint32_t plan_hash(const avk_schema *writer, const avk_type *reader)
{
    return avki_hash_pair(avki_hash_ptr(writer), avki_hash_ptr(reader));
}

/* The entry holding a schema equal to schema (the same canonical form
 * and the same attributes: avk_type_equal), or with schema NULL the first
 * entry with this fingerprint; SIZE_MAX when none. Attributes count: two
 * registrations of one canonical form may differ in a logical type (a
 * decimal's scale), and values read through an id must carry its own. */
static size_t find_fp_locked(const avk_schema_store *s, uint64_t fp, const avk_schema *schema,
                             const char *canon, size_t canon_len)
{
    uint32_t h = fp_hash(s, fp);
    size_t pos = avki_hash_first(&s->by_fp, h), i, first = SIZE_MAX;
    while ((i = avki_hash_next(&s->by_fp, h, &pos)) != AVKI_HASH_END) {
        const schema_entry *e = &s->schemas[i];
        if (e->fingerprint != fp)
            continue;
        if (!schema) {
            /* entries are added in order: the smallest index is the first */
            if (i < first)
                first = i;
            continue;
        }
        if (e->canon_len == canon_len && memcmp(e->canon, canon, canon_len) == 0 &&
            avk_type_equal(avk_schema_root(e->schema), avk_schema_root(schema)))
            return i;
    }
    return first;
}

/* The index in ids of id, or SIZE_MAX. */
static size_t find_id_locked(const avk_schema_store *s, uint32_t id)
{
    uint32_t h = id_hash(s, id);
    size_t pos = avki_hash_first(&s->by_id, h), i;
    while ((i = avki_hash_next(&s->by_id, h, &pos)) != AVKI_HASH_END)
        if (s->ids[i].id == id)
            return i;
    return SIZE_MAX;
}

static const avk_plan *find_plan_locked(const avk_schema_store *s, const avk_schema *writer,
                                        const avk_type *reader)
{
    uint32_t h = plan_hash(writer, reader);
    size_t pos = avki_hash_first(&s->by_plan, h), i;
    while ((i = avki_hash_next(&s->by_plan, h, &pos)) != AVKI_HASH_END)
        if (s->plans[i].writer == writer && s->plans[i].reader == reader)
            return s->plans[i].plan;
    return NULL;
}

/* Grows *arr (of *cap elements of size bytes) to hold n, doubling. */
static avk_status grow_array(avk_schema_store *s, void **arr, size_t *cap, size_t n,
                             size_t size)
{
    size_t new_cap;
    void *p;
    if (n <= *cap)
        return AVK_OK;
    new_cap = *cap ? *cap * 2 : 16;
    if (new_cap < n)
        new_cap = n;
    if (new_cap > SIZE_MAX / size)
        return AVK_ERR_NO_MEMORY;
    if (*arr)
        p = s->alloc.realloc(s->alloc.ctx, *arr, *cap * size, new_cap * size);
    else
        p = s->alloc.alloc(s->alloc.ctx, new_cap * size);
    if (!p)
        return AVK_ERR_NO_MEMORY;
    *arr = p;
    *cap = new_cap;
    return AVK_OK;
}

/* ---- adding ------------------------------------------------------------ */

/* The canonical form of schema's root into store-allocated storage. */
static avk_status canonical_form(avk_schema_store *s, const avk_schema *schema, char **out,
                                 size_t *out_len, avk_error *err)
{
    avk_writer w;
    avk_writer_options wo;
    const uint8_t *data;
    size_t len;
    char *copy;
    avk_status st;
    avk_writer_options_init(&wo);
    wo.allocator = &s->alloc;
    wo.buffer_size = 256;
    st = avk_writer_init_memory(&w, &wo, err);
    if (st != AVK_OK)
        return st;
    st = avk_type_write_canonical(avk_schema_root(schema), &w, err);
    if (st != AVK_OK) {
        avk_writer_destroy(&w);
        return st;
    }
    data = avk_writer_data(&w, &len);
    /* At least one byte, so an allocation is made and freed with the same
     * size whatever the form (it is never empty: "null" at least). */
    copy = (char *)s->alloc.alloc(s->alloc.ctx, len ? len : 1);
    if (!copy) {
        avk_writer_destroy(&w);
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory adding a schema to the store");
    }
    memcpy(copy, data, len);
    avk_writer_destroy(&w);
    *out = copy;
    *out_len = len ? len : 1;
    return AVK_OK;
}

/* Files parsed (owned: freed unless kept) under its fingerprint and id. */
static avk_status add_parsed(avk_schema_store *s, avk_schema *parsed, int64_t id,
                             const avk_schema **out, avk_error *err)
{
    char *canon = NULL;
    size_t canon_len = 0, idx, id_idx = SIZE_MAX;
    uint64_t fp;
    int new_schema, new_id;
    const avk_schema *result;
    avk_status st;

    st = canonical_form(s, parsed, &canon, &canon_len, err);
    if (st != AVK_OK) {
        avk_schema_free(parsed);
        return st;
    }
    fp = avk_rabin64(canon, canon_len);

    pthread_rwlock_wrlock(&s->lock);
    idx = find_fp_locked(s, fp, parsed, canon, canon_len);
    new_schema = idx == SIZE_MAX;
    new_id = 0;
    if (id >= 0) {
        id_idx = find_id_locked(s, (uint32_t)id);
        if (id_idx != SIZE_MAX && s->ids[id_idx].schema != idx) {
            uint64_t bound = s->schemas[s->ids[id_idx].schema].fingerprint;
            pthread_rwlock_unlock(&s->lock);
            s->alloc.free(s->alloc.ctx, canon, canon_len);
            avk_schema_free(parsed);
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "schema id %" PRId64 " is already bound to another schema "
                                  "(fingerprint %016" PRIx64 ", this one's is %016" PRIx64 ")",
                                  id, bound, fp);
        }
        new_id = id_idx == SIZE_MAX;
    }
    /* Every limit and allocation is checked before anything changes, so a
     * failed add leaves the store as it was. */
    st = AVK_OK;
    if (new_schema && s->schema_count >= s->max_schemas)
        st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                            "the schema store holds %zu schemas, its max_schemas",
                            s->schema_count);
    else if (new_id && s->id_count >= s->max_schemas)
        st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                            "the schema store holds %zu schema ids, its max_schemas", s->id_count);
    if (st == AVK_OK && new_schema &&
        (grow_array(s, (void **)&s->schemas, &s->schema_cap, s->schema_count + 1,
                    sizeof *s->schemas) != AVK_OK ||
         avki_hash_reserve(&s->by_fp, s->schema_count + 1) != AVK_OK ||
         avki_hash_reserve(&s->by_ptr, s->schema_count + 1) != AVK_OK))
        st = AVK_ERR_NO_MEMORY;
    if (st == AVK_OK && new_id &&
        (grow_array(s, (void **)&s->ids, &s->id_cap, s->id_count + 1, sizeof *s->ids) !=
             AVK_OK ||
         avki_hash_reserve(&s->by_id, s->id_count + 1) != AVK_OK))
        st = AVK_ERR_NO_MEMORY;
    if (st != AVK_OK) {
        pthread_rwlock_unlock(&s->lock);
        s->alloc.free(s->alloc.ctx, canon, canon_len);
        avk_schema_free(parsed);
        if (st == AVK_ERR_NO_MEMORY)
            return avki_error_set(err, st, AVK_OFFSET_UNKNOWN,
                                  "out of memory adding a schema to the store");
        return st;
    }
    if (new_schema) {
        schema_entry *e = &s->schemas[s->schema_count];
        e->schema = parsed;
        e->fingerprint = fp;
        e->canon = canon;
        e->canon_len = canon_len;
        idx = s->schema_count++;
        /* Reserved above: cannot fail. */
        (void)avki_hash_add(&s->by_fp, fp_hash(s, fp), idx);
        (void)avki_hash_add(&s->by_ptr, avki_hash_ptr(parsed), idx);
        parsed = NULL;
        canon = NULL;
    }
    if (new_id) {
        s->ids[s->id_count].id = (uint32_t)id;
        s->ids[s->id_count].schema = (uint32_t)idx;
        (void)avki_hash_add(&s->by_id, id_hash(s, (uint32_t)id), s->id_count);
        s->id_count++;
    }
    result = s->schemas[idx].schema;
    pthread_rwlock_unlock(&s->lock);
    if (canon)
        s->alloc.free(s->alloc.ctx, canon, canon_len);
    avk_schema_free(parsed);
    if (out)
        *out = result;
    return AVK_OK;
}

static avk_status check_add_args(avk_schema_store *store, int64_t id, const char *fn,
                                 avk_error *err)
{
    if (!store)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: NULL store", fn);
    if (id > (int64_t)UINT32_MAX)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: schema id %" PRId64 " is above 4294967295", fn, id);
    return AVK_OK;
}

avk_status avk_schema_store_add(avk_schema_store *store, const char *json, size_t len,
                                int64_t id, const avk_schema **out, avk_error *err)
{
    avk_schema *parsed;
    avk_status st;
    if (out)
        *out = NULL;
    st = check_add_args(store, id, "avk_schema_store_add", err);
    if (st != AVK_OK)
        return st;
    st = avk_schema_parse(json, len, &store->schema_opts, &parsed, err);
    if (st != AVK_OK)
        return st;
    return add_parsed(store, parsed, id, out, err);
}

avk_status avk_schema_store_add_schema(avk_schema_store *store, const avk_schema *schema,
                                       int64_t id, const avk_schema **out, avk_error *err)
{
    avk_writer w;
    avk_writer_options wo;
    avk_schema *parsed;
    const uint8_t *text;
    size_t len;
    avk_status st;
    if (out)
        *out = NULL;
    st = check_add_args(store, id, "avk_schema_store_add_schema", err);
    if (st != AVK_OK)
        return st;
    if (!schema)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_store_add_schema: NULL schema");
    /* The store's own copy: the full JSON (logical types, defaults,
     * aliases: what resolution and values need, which the canonical form
     * drops) parsed again with the store's allocator. */
    avk_writer_options_init(&wo);
    wo.allocator = &store->alloc;
    wo.buffer_size = 1024;
    st = avk_writer_init_memory(&w, &wo, err);
    if (st != AVK_OK)
        return st;
    st = avk_type_write_json(avk_schema_root(schema), 0, &w, err);
    if (st == AVK_OK) {
        text = avk_writer_data(&w, &len);
        st = avk_schema_parse((const char *)text, len, &store->schema_opts, &parsed, err);
    }
    avk_writer_destroy(&w);
    if (st != AVK_OK)
        return st;
    return add_parsed(store, parsed, id, out, err);
}

/* ---- finding ----------------------------------------------------------- */

static const avk_schema *lookup(avk_schema_store *s, int by_id, uint64_t key)
{
    const avk_schema *found = NULL;
    size_t i;
    pthread_rwlock_rdlock(&s->lock);
    if (by_id) {
        i = find_id_locked(s, (uint32_t)key);
        if (i != SIZE_MAX)
            found = s->schemas[s->ids[i].schema].schema;
    } else {
        i = find_fp_locked(s, key, NULL, NULL, 0);
        if (i != SIZE_MAX)
            found = s->schemas[i].schema;
    }
    pthread_rwlock_unlock(&s->lock);
    return found;
}

static avk_status not_found(avk_error *err, int by_id, uint64_t key, const char *why)
{
    if (by_id)
        return avki_error_set(err, AVK_ERR_NOT_FOUND, AVK_OFFSET_UNKNOWN,
                              "schema id %" PRIu64 " is not in the schema store%s", key, why);
    return avki_error_set(err, AVK_ERR_NOT_FOUND, AVK_OFFSET_UNKNOWN,
                          "no schema with fingerprint %016" PRIx64 " in the schema store%s", key,
                          why);
}

static avk_status find(avk_schema_store *s, int by_id, uint64_t key, const avk_schema **out,
                       avk_error *err)
{
    const avk_schema *found = lookup(s, by_id, key);
    avk_status st;
    if (found) {
        *out = found;
        return AVK_OK;
    }
    if (!s->fetch)
        return not_found(err, by_id, key, "");
    /* No lock is held here: the callback may block, and it adds through
     * the store's own calls. The error is cleared so that a callback which
     * fails without filling it can be told from one that did. */
    avk_error_clear(err);
    st = s->fetch(s->fetch_ctx, s, by_id, key, err);
    if (st == AVK_ERR_NOT_FOUND)
        return not_found(err, by_id, key, " (the fetch callback did not find it)");
    if (st != AVK_OK) {
        if (err && (err->status != st || err->message[0] == '\0'))
            avki_error_set(err, st, AVK_OFFSET_UNKNOWN, "the fetch callback failed");
        if (by_id)
            avki_error_prefix(err, "fetching schema id %" PRIu64 ": ", key);
        else
            avki_error_prefix(err, "fetching schema fingerprint %016" PRIx64 ": ", key);
        /* Its offsets are in what the callback read (a registry's JSON),
         * not in the message being decoded. */
        if (err)
            err->offset = AVK_OFFSET_UNKNOWN;
        return st;
    }
    avk_error_clear(err);
    found = lookup(s, by_id, key);
    if (!found)
        return not_found(err, by_id, key, " (the fetch callback added none)");
    *out = found;
    return AVK_OK;
}

avk_status avk_schema_store_find_fingerprint(avk_schema_store *store, uint64_t fingerprint,
                                             const avk_schema **out, avk_error *err)
{
    if (out)
        *out = NULL;
    if (!store || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_store_find_fingerprint: NULL argument");
    return find(store, 0, fingerprint, out, err);
}

avk_status avk_schema_store_find_id(avk_schema_store *store, uint32_t id, const avk_schema **out,
                                    avk_error *err)
{
    if (out)
        *out = NULL;
    if (!store || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_store_find_id: NULL argument");
    return find(store, 1, id, out, err);
}

/* ---- plans ------------------------------------------------------------- */

static int holds_schema_locked(const avk_schema_store *s, const avk_schema *schema)
{
    uint32_t h = avki_hash_ptr(schema);
    size_t pos = avki_hash_first(&s->by_ptr, h), i;
    while ((i = avki_hash_next(&s->by_ptr, h, &pos)) != AVKI_HASH_END)
        if (s->schemas[i].schema == schema)
            return 1;
    return 0;
}

avk_status avk_schema_store_plan(avk_schema_store *store, const avk_schema *writer,
                                 const avk_type *reader, const avk_plan **out, avk_error *err)
{
    const avk_plan *found;
    avk_plan *plan = NULL;
    int held;
    avk_status st;
    if (out)
        *out = NULL;
    if (!store || !writer || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_store_plan: NULL argument");
    pthread_rwlock_rdlock(&store->lock);
    found = find_plan_locked(store, writer, reader);
    /* Only on a first compile: a writer from elsewhere could be freed while
     * the store keeps a plan pointing into it. */
    held = found || holds_schema_locked(store, writer);
    pthread_rwlock_unlock(&store->lock);
    if (found) {
        *out = found;
        return AVK_OK;
    }
    if (!held)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_store_plan: the writer schema is not one of this "
                              "store's");
    if (reader)
        st = avk_plan_new_resolving(avk_schema_root(writer), reader, &store->plan_opts, &plan,
                                    err);
    else
        st = avk_plan_new(avk_schema_root(writer), &store->plan_opts, &plan, err);
    if (st != AVK_OK)
        return st;

    pthread_rwlock_wrlock(&store->lock);
    found = find_plan_locked(store, writer, reader);
    if (!found) {
        if (grow_array(store, (void **)&store->plans, &store->plan_cap, store->plan_count + 1,
                       sizeof *store->plans) != AVK_OK ||
            avki_hash_reserve(&store->by_plan, store->plan_count + 1) != AVK_OK) {
            pthread_rwlock_unlock(&store->lock);
            avk_plan_free(plan);
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory keeping a plan in the schema store");
        }
        store->plans[store->plan_count].writer = writer;
        store->plans[store->plan_count].reader = reader;
        store->plans[store->plan_count].plan = plan;
        (void)avki_hash_add(&store->by_plan, plan_hash(writer, reader), store->plan_count);
        store->plan_count++;
        found = plan;
        plan = NULL;
    }
    pthread_rwlock_unlock(&store->lock);
    avk_plan_free(plan); /* another thread's compile landed first */
    *out = found;
    return AVK_OK;
}
