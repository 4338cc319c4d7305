/* Container file headers: magic, metadata map, schema and codec, sync marker; read with limits, and written. */
#include <stdlib.h>
#include <string.h>

#include "common/alloc_internal.h"
#include "common/error.h"
#include "file/file_internal.h"

/* Bytes are read into storage that grows as they arrive, so a length that
 * lies costs at most this much before the input runs out. */
#define FIRST_PIECE ((size_t)64 << 10)

static int reader_is_memory(const avk_reader *r)
{
    return r->source == NULL && r->fd < 0 && r->fp == NULL;
}

/* Reads n bytes into a new block of n + 1 bytes (NUL-terminated). */
static avk_status read_owned(avk_reader *r, const avk_allocator *a, uint64_t n, uint8_t **out,
                             const char *what, avk_error *err)
{
    uint64_t at = avk_reader_offset(r);
    size_t cap, got = 0;
    uint8_t *buf;
    *out = NULL;
    if (reader_is_memory(r) && n > (uint64_t)(r->end - r->pos))
        return avki_error_set(err, AVK_ERR_TRUNCATED, at,
                              "file header: %s of %llu bytes at byte %llu runs past the end "
                              "of the file (%llu bytes left)",
                              what, (unsigned long long)n, (unsigned long long)at,
                              (unsigned long long)(r->end - r->pos));
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
            if (st == AVK_ERR_TRUNCATED)
                return avki_error_set(err, st, at,
                                      "file header: the file ends inside the %s that starts "
                                      "at byte %llu",
                                      what, (unsigned long long)at);
            return st;
        }
        got += want;
    }
    buf[n] = 0;
    *out = buf;
    return AVK_OK;
}

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

static avk_status add_entry(avki_file_header *h, avk_reader *r, uint64_t *budget, avk_error *err)
{
    avki_file_meta *m;
    uint64_t klen, vlen;
    if (h->meta_count == h->meta_cap) {
        size_t ncap = h->meta_cap ? h->meta_cap * 2 : 8;
        avki_file_meta *nm = h->alloc.realloc(h->alloc.ctx, h->meta, h->meta_cap * sizeof *nm,
                                              ncap * sizeof *nm);
        if (!nm)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, avk_reader_offset(r),
                                  "file header: out of memory");
        h->meta = nm;
        h->meta_cap = ncap;
    }
    m = &h->meta[h->meta_count];
    memset(m, 0, sizeof *m);
    AVK_TRY(read_length(r, "metadata key", *budget, &klen, err));
    *budget -= klen;
    AVK_TRY(read_owned(r, &h->alloc, klen, (uint8_t **)&m->key, "metadata key", err));
    m->key_len = (size_t)klen;
    h->meta_count++; /* owned from here on, freed by destroy */
    AVK_TRY(read_length(r, "metadata value", *budget, &vlen, err));
    *budget -= vlen;
    AVK_TRY(read_owned(r, &h->alloc, vlen, &m->value, "metadata value", err));
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

static avk_status read_map(avki_file_header *h, avk_reader *r, uint64_t max_bytes, avk_error *err)
{
    uint64_t budget = max_bytes;
    for (;;) {
        uint64_t at = avk_reader_offset(r);
        int64_t count;
        avk_status st = avk_reader_read_long(r, &count, err);
        if (st == AVK_ERR_TRUNCATED)
            return avki_error_set(err, st, at,
                                  "file header: the file ends inside the metadata map");
        if (st != AVK_OK)
            return st;
        if (count == 0)
            return AVK_OK;
        if (count == INT64_MIN)
            return avki_error_set(err, AVK_ERR_MALFORMED, at,
                                  "file header: metadata block count INT64_MIN at byte %llu",
                                  (unsigned long long)at);
        if (count < 0) { /* a block with its byte size, which we do not need */
            int64_t size;
            count = -count;
            st = avk_reader_read_long(r, &size, err);
            if (st != AVK_OK)
                return st == AVK_ERR_TRUNCATED
                           ? avki_error_set(err, st, at, "file header: the file ends inside "
                                                         "the metadata map")
                           : st;
            if (size < 0)
                return avki_error_set(err, AVK_ERR_MALFORMED, at,
                                      "file header: negative metadata block size at byte %llu",
                                      (unsigned long long)at);
        }
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
            AVK_TRY(add_entry(h, r, &budget, err));
        }
    }
}

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
        if (st != AVK_OK) {
            avki_error_prefix(err, "file header: avro.codec: ");
            return st;
        }
    }
    return AVK_OK;
}

avk_status avki_file_header_read(avki_file_header *h, avk_reader *r, uint64_t max_bytes,
                                 const avk_allocator *alloc, avk_error *err)
{
    avk_status st;
    memset(h, 0, sizeof *h);
    h->alloc = avki_allocator_or_libc(alloc);
    AVK_TRY(read_magic(r, err));
    AVK_TRY(read_map(h, r, max_bytes, err));
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
        h->alloc.free(h->alloc.ctx, h->meta[i].key, h->meta[i].key_len + 1);
        if (h->meta[i].value)
            h->alloc.free(h->alloc.ctx, h->meta[i].value, h->meta[i].len + 1);
    }
    if (h->meta)
        h->alloc.free(h->alloc.ctx, h->meta, h->meta_cap * sizeof *h->meta);
    avk_schema_free(h->schema);
    memset(h, 0, sizeof *h);
}

const avki_file_meta *avki_file_header_find(const avki_file_header *h, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < h->meta_count; i++)
        if (h->meta[i].key_len == klen && memcmp(h->meta[i].key, key, klen) == 0)
            return &h->meta[i];
    return NULL;
}

avk_status avki_file_meta_check(const avk_file_meta *meta, size_t meta_count, avk_error *err)
{
    if (meta_count && !meta)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "metadata: %zu entries but no array", meta_count);
    for (size_t i = 0; i < meta_count; i++) {
        const char *k = meta[i].key;
        if (!k || !*k)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "metadata entry %zu: the key is empty", i);
        if (strncmp(k, "avro.", 5) == 0)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "metadata key \"%s\": keys starting with \"avro.\" are "
                                  "reserved for the format",
                                  k);
        if (meta[i].len && !meta[i].value)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "metadata key \"%s\": %zu bytes but no value", k, meta[i].len);
        for (size_t j = 0; j < i; j++)
            if (strcmp(meta[j].key, k) == 0)
                return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                      "metadata key \"%s\" is given twice", k);
    }
    return AVK_OK;
}

static avk_status write_bytes(avk_writer *w, const void *p, size_t n, avk_error *err)
{
    AVK_TRY(avk_writer_write_long(w, (int64_t)n, err));
    return avk_writer_write_raw(w, p, n, err);
}

avk_status avki_file_header_write(avk_writer *w, const avk_schema *schema, avk_codec codec,
                                  const avk_file_meta *meta, size_t meta_count,
                                  const uint8_t sync[AVK_FILE_SYNC_SIZE], avk_error *err)
{
    avk_writer sw;
    const uint8_t *text;
    size_t text_len;
    const char *cname = avk_codec_name(codec);
    avk_status st;
    if (!cname)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "unknown codec %d", (int)codec);
    AVK_TRY(avk_writer_init_memory(&sw, NULL, err));
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
