/* Container file headers: magic, metadata map, schema and codec, sync marker; read with limits, and written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/decode_internal.h"
#include "codec/codec_built.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "common/hash_table.h"
#include "file/file_internal.h"

/*
 * A header is the magic "Obj\x01", the metadata as an Avro map of bytes
 * (blocks of a count and that many key/value pairs, each a long length and
 * its bytes, ended by a count of 0), then the 16-byte sync marker every
 * block ends with. Everything is bounded before it is allocated: the
 * map's bytes by max_header_bytes (budget, which each length is charged
 * against before it is read), its entries by max_meta_entries, and each
 * length by what remains of a memory input. Keys are checked as they
 * arrive (check_key), so a repeated or unreadable key is refused at its
 * own offset. avro.schema and avro.codec are looked up once the map is
 * whole.
 */

/* Bytes are read into storage that grows as they arrive, so a length that
 * lies costs at most this much before the input runs out. */
#define FIRST_PIECE ((size_t)64 << 10)

/* Keys and values shorter than SMALL_MAX bytes are packed into shared
 * slabs, longer ones get a block each: a header of many small entries then
 * costs about its own bytes plus the entry table, not two allocations per
 * entry (20 million empty entries took 1.9 GB). Slabs double from
 * SLAB_FIRST to SLAB_MAX bytes, so a usual header takes one small slab. */
#define SMALL_MAX ((size_t)1 << 10)
#define SLAB_FIRST ((size_t)2 << 10)
#define SLAB_MAX ((size_t)64 << 10)

struct avki_meta_slab {
    avki_meta_slab *next;
    size_t size; /* bytes allocated, this header included */
    uint8_t data[];
};

#define SLAB_ROOM(s) ((s)->size - offsetof(avki_meta_slab, data))

/* Metadata limits: see max_meta_entries in avrokit/file.h. */
#define DEFAULT_MAX_ENTRIES AVKI_FILE_DEFAULT_MAX_META_ENTRIES

static int reader_is_memory(const avk_reader *r)
{
    return r->source == NULL && r->fd < 0 && r->fp == NULL;
}

/* Quotes bytes for a message: printable ASCII as it is ('"' and '\\'
 * escaped), other bytes as \xHH; a long key is cut, its length said. */
static void display_bytes(char *out, size_t cap, const uint8_t *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const size_t show = 40;
    size_t o = 0, i;
    out[o++] = '"';
    for (i = 0; i < n && i < show && o + 8 < cap; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c >= 0x20 && c < 0x7F) {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o++] = '"';
    out[o] = 0;
    if (i < n)
        snprintf(out + o, cap - o, "... (%zu bytes)", n);
}

/* n + 1 bytes of slab storage (n < SMALL_MAX), or NULL. */
static uint8_t *slab_take(avki_file_header *h, size_t n)
{
    uint8_t *p;
    if (!h->slabs || SLAB_ROOM(h->slabs) - h->slab_used < n + 1) {
        size_t size = h->slabs ? h->slabs->size * 2 : SLAB_FIRST;
        avki_meta_slab *s;
        if (size > SLAB_MAX)
            size = SLAB_MAX;
        s = h->alloc.alloc(h->alloc.ctx, size);
        if (!s)
            return NULL;
        s->next = h->slabs;
        s->size = size;
        h->slabs = s;
        h->slab_used = 0;
    }
    p = h->slabs->data + h->slab_used;
    h->slab_used += n + 1;
    return p;
}

/* A read of the header item that starts at byte at failed with st: a cut
 * file is named as such, other statuses keep the reader's message. */
static avk_status item_read_failed(avk_status st, uint64_t at, const char *what, avk_error *err)
{
    if (st == AVK_ERR_TRUNCATED)
        return avki_error_set(err, st, at,
                              "file header: the file ends inside the %s that starts at byte %llu",
                              what, (unsigned long long)at);
    return st;
}

/* Reads n bytes (n >= SMALL_MAX) into a new block of n + 1 bytes. */
static avk_status read_owned(avk_reader *r, const avk_allocator *a, uint64_t n, uint8_t **out,
                             const char *what, avk_error *err)
{
    uint64_t at = avk_reader_offset(r);
    size_t cap, got = 0;
    uint8_t *buf;
#if SIZE_MAX < UINT64_MAX
    /* A 32-bit process cannot hold n + 1 bytes (a memory reader never gets
     * here with such an n). The stream is read as far as it goes, so a file
     * that ends first gets the error a 64-bit process would give; one that
     * really holds them gets the out of memory error a 64-bit one would
     * give once no storage could grow further. */
    if (n >= SIZE_MAX) {
        avk_status st = avk_reader_skip(r, n, err);
        if (st != AVK_OK)
            return item_read_failed(st, at, what, err);
        return avki_error_set(err, AVK_ERR_NO_MEMORY, at, "file header: out of memory");
    }
#endif
    /* A memory reader has checked n against what remains; a stream grows
     * its storage as bytes arrive (ending at exactly n + 1 bytes). */
    cap = (reader_is_memory(r) || n < FIRST_PIECE ? (size_t)n : FIRST_PIECE) + 1;
    buf = a->alloc(a->ctx, cap);
    if (!buf)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, at, "file header: out of memory");
    while (got < n) {
        size_t want;
        avk_status st;
        if (got == cap - 1) {
            size_t ncap = ((cap - 1) * 2 < (size_t)n ? (cap - 1) * 2 : (size_t)n) + 1;
            uint8_t *nb = a->realloc(a->ctx, buf, cap, ncap);
            if (!nb) {
                a->free(a->ctx, buf, cap);
                return avki_error_set(err, AVK_ERR_NO_MEMORY, at, "file header: out of memory");
            }
            buf = nb;
            cap = ncap;
        }
        want = cap - 1 - got;
        st = avk_reader_read_raw(r, buf + got, want, err);
        if (st != AVK_OK) {
            a->free(a->ctx, buf, cap);
            return item_read_failed(st, at, what, err);
        }
        got += want;
    }
    buf[n] = 0;
    *out = buf;
    return AVK_OK;
}

/* Reads n bytes followed by a NUL into the header's storage. */
static avk_status read_item(avki_file_header *h, avk_reader *r, uint64_t n, uint8_t **out,
                            const char *what, avk_error *err)
{
    uint64_t at = avk_reader_offset(r);
    uint8_t *p;
    avk_status st;
    *out = NULL;
    if (reader_is_memory(r) && n > (uint64_t)(r->end - r->pos))
        return avki_error_set(err, AVK_ERR_TRUNCATED, at,
                              "file header: %s of %llu bytes at byte %llu runs past the end "
                              "of the file (%llu bytes left)",
                              what, (unsigned long long)n, (unsigned long long)at,
                              (unsigned long long)(r->end - r->pos));
    if (n >= SMALL_MAX)
        return read_owned(r, &h->alloc, n, out, what, err);
    p = slab_take(h, (size_t)n);
    if (!p)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, at, "file header: out of memory");
    st = avk_reader_read_raw(r, p, (size_t)n, err);
    if (st != AVK_OK)
        return item_read_failed(st, at, what, err);
    p[n] = 0;
    *out = p;
    return AVK_OK;
}

static void item_free(avki_file_header *h, void *p, size_t n)
{
    if (p && n >= SMALL_MAX)
        h->alloc.free(h->alloc.ctx, p, n + 1);
}

/* A key's or value's length: not negative, and within what is left of
 * the budget (max_header_bytes less what earlier entries took), so no
 * single length can ask for more than the whole header may hold. */
static avk_status read_length(avk_reader *r, const char *what, uint64_t budget, uint64_t *out,
                              avk_error *err)
{
    uint64_t at = avk_reader_offset(r);
    int64_t v;
    avk_status st = avk_reader_read_long(r, &v, err);
    if (st == AVK_ERR_TRUNCATED)
        return avki_error_set(err, st, at, "file header: the file ends inside the metadata map");
    if (st != AVK_OK)
        return st;
    if (v < 0)
        return avki_error_set(err, AVK_ERR_MALFORMED, at,
                              "file header: negative %s length %lld at byte %llu", what,
                              (long long)v, (unsigned long long)at);
    if ((uint64_t)v > budget)
        return avki_error_set(err, AVK_ERR_LIMIT, at,
                              "file header: %s of %llu bytes at byte %llu exceeds what is left "
                              "of the metadata limit (max_header_bytes)",
                              what, (unsigned long long)v, (unsigned long long)at);
    *out = (uint64_t)v;
    return AVK_OK;
}

/* A key must mean one thing to every reader: one holding a NUL byte is
 * cut short by every C-string API (two such keys then look alike); one that
 * is not UTF-8 fails in Python and becomes U+FFFD in Java (two such keys
 * then look alike there); and of a repeated key some implementations keep
 * the first value and others the last (two avro.schema entries would give
 * two readings of the data). */
static avk_status check_key(const avki_file_header *h, avki_hash *keys, size_t index,
                            uint64_t at, avk_error *err)
{
    const avki_file_meta *m = &h->meta[index];
    char shown[200];
    const char *nul = memchr(m->key, 0, m->key_len);
    size_t first, pos;
    uint32_t hk;
    if (nul) {
        display_bytes(shown, sizeof shown, (const uint8_t *)m->key, m->key_len);
        return avki_error_set(err, AVK_ERR_MALFORMED, at,
                              "file header: metadata key %s at byte %llu holds a NUL byte (at "
                              "key byte %zu); keys may not, as C-string readers cut them there",
                              shown, (unsigned long long)at, (size_t)(nul - m->key));
    }
    if (!avki_utf8_valid((const uint8_t *)m->key, m->key_len)) {
        display_bytes(shown, sizeof shown, (const uint8_t *)m->key, m->key_len);
        return avki_error_set(err, AVK_ERR_MALFORMED, at,
                              "file header: metadata key %s at byte %llu is not valid UTF-8; "
                              "keys are Avro strings",
                              shown, (unsigned long long)at);
    }
    hk = avki_hash_bytes(keys, m->key, m->key_len);
    pos = avki_hash_first(keys, hk);
    while ((first = avki_hash_next(keys, hk, &pos)) != AVKI_HASH_END)
        if (h->meta[first].key_len == m->key_len &&
            (m->key_len == 0 || memcmp(h->meta[first].key, m->key, m->key_len) == 0))
            break;
    if (first != AVKI_HASH_END) {
        display_bytes(shown, sizeof shown, (const uint8_t *)m->key, m->key_len);
        return avki_error_set(err, AVK_ERR_MALFORMED, at,
                              "file header: metadata key %s appears again at byte %llu (entry "
                              "%zu; first as entry %zu); a key may appear once, as readers "
                              "differ on which value counts",
                              shown, (unsigned long long)at, index, first);
    }
    if (avki_hash_add(keys, hk, index) != AVK_OK)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, at, "file header: out of memory");
    return AVK_OK;
}

static avk_status add_entry(avki_file_header *h, avk_reader *r, avki_hash *keys,
                            uint64_t *budget, avk_error *err)
{
    avki_file_meta *m;
    /* klen and vlen are set by read_length; the zeros only quiet -O3's
     * -Wmaybe-uninitialized, which cannot see that it sets them on AVK_OK. */
    uint64_t klen = 0, vlen = 0, at = avk_reader_offset(r);
    if (h->meta_count == h->meta_cap) {
        size_t ncap = h->meta_cap ? h->meta_cap * 2 : 8;
        avki_file_meta *nm = h->alloc.realloc(h->alloc.ctx, h->meta, h->meta_cap * sizeof *nm,
                                              ncap * sizeof *nm);
        if (!nm)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, at, "file header: out of memory");
        h->meta = nm;
        h->meta_cap = ncap;
    }
    m = &h->meta[h->meta_count];
    memset(m, 0, sizeof *m);
    /* Each length is charged to the budget before its bytes are read, so a
     * length that lies meets LIMIT before any storage is taken for it. */
    AVK_TRY(read_length(r, "metadata key", *budget, &klen, err));
    *budget -= klen;
    AVK_TRY(read_item(h, r, klen, (uint8_t **)&m->key, "metadata key", err));
    m->key_len = (size_t)klen;
    h->meta_count++; /* owned from here on, freed by destroy */
    AVK_TRY(check_key(h, keys, h->meta_count - 1, at, err));
    AVK_TRY(read_length(r, "metadata value", *budget, &vlen, err));
    *budget -= vlen;
    AVK_TRY(read_item(h, r, vlen, &m->value, "metadata value", err));
    m->len = (size_t)vlen;
    return AVK_OK;
}

static avk_status read_magic(avk_reader *r, avk_error *err)
{
    uint8_t magic[AVKI_FILE_MAGIC_SIZE];
    avk_status st = avk_reader_read_raw(r, magic, sizeof magic, err);
    if (st == AVK_ERR_TRUNCATED)
        return avki_error_set(err, st, 0,
                              "not an Avro container file: shorter than its 4-byte magic");
    if (st != AVK_OK)
        return st;
    if (memcmp(magic, AVKI_FILE_MAGIC, AVKI_FILE_MAGIC_SIZE) == 0)
        return AVK_OK;
    if (memcmp(magic, "Obj\x00", 4) == 0)
        return avki_error_set(err, AVK_ERR_MALFORMED, 0,
                              "unsupported container format: magic \"Obj\\x00\" is the legacy "
                              "Avro 1.2 format; only version 1 (\"Obj\\x01\") is read");
    return avki_error_set(err, AVK_ERR_MALFORMED, 0,
                          "not an Avro container file: the first 4 bytes are %02x %02x %02x %02x, "
                          "not the magic \"Obj\\x01\"",
                          magic[0], magic[1], magic[2], magic[3]);
}

static avk_status read_long_in_map(avk_reader *r, uint64_t at, int64_t *v, avk_error *err)
{
    avk_status st = avk_reader_read_long(r, v, err);
    if (st == AVK_ERR_TRUNCATED)
        return avki_error_set(err, st, at, "file header: the file ends inside the metadata map");
    return st;
}

/* The map comes in blocks, as any Avro map: a count (0 ends the map), then
 * that many entries; a negative count -n means n entries preceded by their
 * size in bytes, which must then be right. */
static avk_status read_blocks(avki_file_header *h, avk_reader *r, avki_hash *keys,
                              uint64_t max_bytes, uint64_t max_entries, avk_error *err)
{
    uint64_t budget = max_bytes;
    for (;;) {
        uint64_t at = avk_reader_offset(r), start = 0;
        int64_t count, size = -1;
        AVK_TRY(read_long_in_map(r, at, &count, err));
        if (count == 0)
            return AVK_OK;
        if (count == INT64_MIN)
            return avki_error_set(err, AVK_ERR_MALFORMED, at,
                                  "file header: metadata block count INT64_MIN at byte %llu",
                                  (unsigned long long)at);
        if (count < 0) {
            count = -count;
            AVK_TRY(read_long_in_map(r, at, &size, err));
            if (size < 0)
                return avki_error_set(err, AVK_ERR_MALFORMED, at,
                                      "file header: negative metadata block size at byte %llu",
                                      (unsigned long long)at);
            start = avk_reader_offset(r);
        }
        /* Checked before anything is allocated for the entries. */
        if ((uint64_t)count > max_entries - h->meta_count)
            return h->meta_count == 0
                       ? avki_error_set(err, AVK_ERR_LIMIT, at,
                                        "file header: %lld metadata entries at byte %llu exceed "
                                        "the limit of %llu entries (max_meta_entries)",
                                        (long long)count, (unsigned long long)at,
                                        (unsigned long long)max_entries)
                       : avki_error_set(err, AVK_ERR_LIMIT, at,
                                        "file header: %lld more metadata entries at byte %llu, "
                                        "after %zu, exceed the limit of %llu entries "
                                        "(max_meta_entries)",
                                        (long long)count, (unsigned long long)at, h->meta_count,
                                        (unsigned long long)max_entries);
        /* Each entry takes at least 2 bytes (two lengths). */
        if ((uint64_t)count > budget / 2 + 1)
            return avki_error_set(err, AVK_ERR_LIMIT, at,
                                  "file header: %lld metadata entries at byte %llu exceed the "
                                  "metadata limit (max_header_bytes)",
                                  (long long)count, (unsigned long long)at);
        for (int64_t i = 0; i < count; i++) {
            if (budget < 2)
                return avki_error_set(err, AVK_ERR_LIMIT, avk_reader_offset(r),
                                      "file header: the metadata map exceeds max_header_bytes");
            budget -= 2;
            AVK_TRY(add_entry(h, r, keys, &budget, err));
        }
        if (size >= 0 && avk_reader_offset(r) - start != (uint64_t)size)
            return avki_error_set(err, AVK_ERR_MALFORMED, at,
                                  "file header: the metadata block at byte %llu says its %lld "
                                  "entries take %lld bytes, but they take %llu",
                                  (unsigned long long)at, (long long)count, (long long)size,
                                  (unsigned long long)(avk_reader_offset(r) - start));
    }
}

static avk_status read_map(avki_file_header *h, avk_reader *r, uint64_t max_bytes,
                           uint64_t max_entries, avk_error *err)
{
    avki_hash keys; /* indexes of h->meta, by key */
    avk_status st;
    if (max_entries > AVKI_HASH_MAX_ENTRIES)
        max_entries = AVKI_HASH_MAX_ENTRIES;
    avki_hash_init(&keys, &h->alloc, NULL, 0);
    st = read_blocks(h, r, &keys, max_bytes, max_entries, err);
    avki_hash_destroy(&keys);
    return st;
}

/* The two entries the format defines. A missing avro.codec means null
 * (the specification's default); lenient names (lzma, zstd) are accepted
 * and marked nonstandard (avk_file_reader_codec says so; getmeta shows
 * it), since other readers may refuse such a file. A schema that does not
 * parse is a SCHEMA error, even when its JSON is broken: the file's bytes
 * are fine, its schema is not. */
static avk_status take_schema_and_codec(avki_file_header *h, avk_error *err)
{
    const avki_file_meta *s = avki_file_header_find(h, "avro.schema");
    const avki_file_meta *c = avki_file_header_find(h, "avro.codec");
    avk_schema_options so;
    avk_status st;
    if (!s)
        return avki_error_set(err, AVK_ERR_MALFORMED, AVK_OFFSET_UNKNOWN,
                              "file header: no avro.schema in the metadata");
    memset(&so, 0, sizeof so);
    so.struct_size = sizeof so;
    so.allocator = &h->alloc;
    st = avk_schema_parse((const char *)s->value, s->len, &so, &h->schema, err);
    if (st != AVK_OK) {
        /* Broken JSON is a bad schema too: the bytes of the file are fine. */
        if (st == AVK_ERR_MALFORMED)
            st = AVK_ERR_SCHEMA;
        avki_error_prefix(err, "file header: avro.schema: ");
        if (err) {
            err->status = st;
            err->offset = AVK_OFFSET_UNKNOWN;
        }
        return st;
    }
    h->codec = AVK_CODEC_NULL;
    h->codec_nonstandard = 0;
    if (c) {
        st = avk_codec_from_name((const char *)c->value, c->len, &h->codec,
                                 &h->codec_nonstandard, err);
        /* Refused here, at open, rather than at the first block. */
        if (st == AVK_OK)
            st = avki_codec_check_built(h->codec, err);
        if (st != AVK_OK) {
            avki_error_prefix(err, "file header: avro.codec: ");
            return st;
        }
    }
    return AVK_OK;
}

avk_status avki_file_header_read(avki_file_header *h, avk_reader *r, uint64_t max_bytes,
                                 uint64_t max_entries, const avk_allocator *alloc,
                                 avk_error *err)
{
    avk_status st;
    memset(h, 0, sizeof *h);
    h->alloc = avki_allocator_or_libc(alloc);
    AVK_TRY(read_magic(r, err));
    AVK_TRY(read_map(h, r, max_bytes, max_entries ? max_entries : DEFAULT_MAX_ENTRIES, err));
    st = avk_reader_read_raw(r, h->sync, AVK_FILE_SYNC_SIZE, err);
    if (st == AVK_ERR_TRUNCATED)
        return avki_error_set(err, st, avk_reader_offset(r),
                              "file header: the file ends inside the sync marker");
    if (st != AVK_OK)
        return st;
    h->size = avk_reader_offset(r);
    return take_schema_and_codec(h, err);
}

void avki_file_header_destroy(avki_file_header *h)
{
    for (size_t i = 0; i < h->meta_count; i++) {
        item_free(h, h->meta[i].key, h->meta[i].key_len);
        item_free(h, h->meta[i].value, h->meta[i].len);
    }
    while (h->slabs) {
        avki_meta_slab *next = h->slabs->next;
        h->alloc.free(h->alloc.ctx, h->slabs, h->slabs->size);
        h->slabs = next;
    }
    if (h->meta)
        h->alloc.free(h->alloc.ctx, h->meta, h->meta_cap * sizeof *h->meta);
    avk_schema_free(h->schema);
    memset(h, 0, sizeof *h);
}

/* A linear search: it runs for the two keys the reader needs and for
 * callers' lookups, never per record. */
const avki_file_meta *avki_file_header_find(const avki_file_header *h, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < h->meta_count; i++)
        if (h->meta[i].key_len == klen && memcmp(h->meta[i].key, key, klen) == 0)
            return &h->meta[i];
    return NULL;
}

/* What every implementation reads: text keys (strings are UTF-8 in Avro;
 * Python's reader fails on others), each once, none in the format's own
 * "avro." namespace. Keys are C strings, so none holds a NUL byte. */
static avk_status meta_entry_check(const avk_file_meta *m, size_t i, avk_error *err)
{
    char shown[200];
    size_t n;
    if (!m->key || !*m->key)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "metadata entry %zu: the key is empty", i);
    n = strlen(m->key);
    display_bytes(shown, sizeof shown, (const uint8_t *)m->key, n);
    if (strncmp(m->key, "avro.", 5) == 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "metadata key %s (entry %zu): keys starting with \"avro.\" are "
                              "reserved for the format",
                              shown, i);
    if (!avki_utf8_valid((const uint8_t *)m->key, n))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "metadata key %s (entry %zu) is not valid UTF-8; keys are Avro "
                              "strings",
                              shown, i);
    if (m->len && !m->value)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "metadata key %s (entry %zu): %zu bytes but no value", shown, i,
                              m->len);
    return AVK_OK;
}

avk_status avki_file_meta_check(const avk_file_meta *meta, size_t meta_count,
                                const avk_allocator *alloc, avk_error *err)
{
    avki_hash keys; /* indexes of meta, by key */
    avk_status st = AVK_OK;
    if (meta_count && !meta)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "metadata: %zu entries but no array", meta_count);
    if (meta_count > AVKI_HASH_MAX_ENTRIES)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "metadata: %zu entries; at most %zu", meta_count,
                              AVKI_HASH_MAX_ENTRIES);
    avki_hash_init(&keys, alloc, NULL, 0);
    for (size_t i = 0; i < meta_count && st == AVK_OK; i++) {
        size_t first, pos;
        uint32_t hk;
        st = meta_entry_check(&meta[i], i, err);
        if (st != AVK_OK)
            break;
        hk = avki_hash_bytes(&keys, meta[i].key, strlen(meta[i].key));
        pos = avki_hash_first(&keys, hk);
        while ((first = avki_hash_next(&keys, hk, &pos)) != AVKI_HASH_END)
            if (strcmp(meta[first].key, meta[i].key) == 0)
                break;
        if (first == AVKI_HASH_END && avki_hash_add(&keys, hk, i) != AVK_OK) {
            st = avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                "out of memory checking the metadata keys");
        } else if (first != AVKI_HASH_END) {
            char shown[200];
            display_bytes(shown, sizeof shown, (const uint8_t *)meta[i].key,
                          strlen(meta[i].key));
            st = avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                "metadata key %s is given twice (entries %zu and %zu)", shown,
                                first, i);
        }
    }
    avki_hash_destroy(&keys);
    return st;
}

/* An empty value may come as NULL (memcpy may not be given NULL, even for 0 bytes). */
static avk_status write_bytes(avk_writer *w, const void *p, size_t n, avk_error *err)
{
    AVK_TRY(avk_writer_write_long(w, (int64_t)n, err));
    return n ? avk_writer_write_raw(w, p, n, err) : AVK_OK;
}

/* The map is written as one block of 2 + meta_count entries with no byte
 * size (a positive count), the form every reader takes. The schema is the
 * parsed schema written out in full, not the caller's text: the header
 * then holds exactly what this writer encodes against. */
avk_status avki_file_header_write(avk_writer *w, const avk_schema *schema, avk_codec codec,
                                  const avk_file_meta *meta, size_t meta_count,
                                  const uint8_t sync[AVK_FILE_SYNC_SIZE], avk_error *err)
{
    avk_writer sw;
    avk_writer_options so;
    const uint8_t *text;
    size_t text_len;
    const char *cname = avk_codec_name(codec);
    avk_status st;
    if (!cname)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "unknown codec %d", (int)codec);
    /* The schema's text from the destination's allocator (the file
     * writer's), not the C library's. */
    avk_writer_options_init(&so);
    so.allocator = &w->alloc;
    AVK_TRY(avk_writer_init_memory(&sw, &so, err));
    st = avk_type_write_json(avk_schema_root(schema), 0, &sw, err);
    if (st != AVK_OK) {
        avk_writer_destroy(&sw);
        return st;
    }
    text = avk_writer_data(&sw, &text_len);
    st = avk_writer_write_raw(w, AVKI_FILE_MAGIC, AVKI_FILE_MAGIC_SIZE, err);
    if (st == AVK_OK)
        st = avk_writer_write_long(w, (int64_t)(2 + meta_count), err);
    if (st == AVK_OK)
        st = write_bytes(w, "avro.schema", 11, err);
    if (st == AVK_OK)
        st = write_bytes(w, text, text_len, err);
    avk_writer_destroy(&sw);
    if (st == AVK_OK)
        st = write_bytes(w, "avro.codec", 10, err);
    if (st == AVK_OK)
        st = write_bytes(w, cname, strlen(cname), err);
    for (size_t i = 0; st == AVK_OK && i < meta_count; i++) {
        st = write_bytes(w, meta[i].key, strlen(meta[i].key), err);
        if (st == AVK_OK)
            st = write_bytes(w, meta[i].value, meta[i].len, err);
    }
    if (st == AVK_OK)
        st = avk_writer_write_long(w, 0, err);
    if (st == AVK_OK)
        st = avk_writer_write_raw(w, sync, AVK_FILE_SYNC_SIZE, err);
    return st;
}
