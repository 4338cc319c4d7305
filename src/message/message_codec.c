/* Message encoders and decoders: a framing's header, then one datum through a plan; writer schemas found through the store. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/message.h"
#include "avrokit/reader.h"
#include "avrokit/resolve.h"
#include "common/alloc_internal.h"
#include "common/error.h"

/* ---- encoding ---------------------------------------------------------- */

avk_status avk_message_encoder_init(avk_message_encoder *enc, avk_framing framing,
                                    const avk_plan *plan, int64_t id, avk_error *err)
{
    uint8_t fp[32];
    size_t fp_len = 0;
    uint64_t fingerprint = 0;
    int i;
    if (!enc || !plan)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_encoder_init: NULL argument");
    memset(enc, 0, sizeof *enc);
    if (avk_plan_is_resolving(plan))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_encoder_init: a resolving plan cannot encode; pass "
                              "a plan of the schema to write");
    switch (framing) {
    case AVK_FRAMING_RAW: break;
    case AVK_FRAMING_SINGLE_OBJECT: {
        avk_status st =
            avk_type_fingerprint(avk_plan_type(plan), AVK_FINGERPRINT_RABIN, fp, &fp_len, err);
        if (st != AVK_OK)
            return st;
        for (i = 7; i >= 0; i--)
            fingerprint = fingerprint << 8 | fp[i];
        avk_single_object_header(fingerprint, enc->header);
        enc->header_size = AVK_SINGLE_OBJECT_HEADER_SIZE;
        break;
    }
    case AVK_FRAMING_CONFLUENT:
        if (id < 0 || id > (int64_t)UINT32_MAX)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_message_encoder_init: Confluent schema id %" PRId64
                                  " is not from 0 to 4294967295",
                                  id);
        avk_confluent_header((uint32_t)id, enc->header);
        enc->header_size = AVK_CONFLUENT_HEADER_SIZE;
        break;
    default:
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_encoder_init: framing %d is none of raw, "
                              "single-object, confluent",
                              (int)framing);
    }
    enc->plan = plan;
    enc->framing = framing;
    return AVK_OK;
}

avk_status avk_message_encode(const avk_message_encoder *enc, const avk_value *v, avk_writer *w,
                              avk_error *err)
{
    size_t start_used;
    uint64_t start_flushed;
    avk_status st;
    if (AVK_UNLIKELY(!enc || !enc->plan || !v || !w))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_encode: NULL argument (or an encoder not "
                              "initialised)");
    start_used = (size_t)(w->pos - w->buf);
    start_flushed = w->flushed;
    st = avk_writer_write_raw(w, enc->header, enc->header_size, err);
    if (AVK_LIKELY(st == AVK_OK))
        st = avk_plan_encode(enc->plan, v, w, err);
    /* avk_plan_encode takes back its own part; the header goes too, unless
     * a stream has handed it on already. */
    if (AVK_UNLIKELY(st != AVK_OK) && w->flushed == start_flushed && w->buf)
        w->pos = w->buf + start_used;
    return st;
}

/* ---- decoding ---------------------------------------------------------- */

/* Writer schemas a decoder remembers: a stream mostly carries one or two
 * schemas, and a hit costs a few compares, no lock and no hash. */
#define CACHE_SLOTS 4

typedef struct cache_slot {
    uint64_t key; /* fingerprint or id */
    const avk_schema *writer;
    const avk_plan *plan;
} cache_slot;

struct avk_message_decoder {
    avk_framing framing;
    unsigned cached;      /* slots filled */
    unsigned last;        /* the slot of the last message, checked first */
    unsigned victim;      /* the slot the next miss replaces, round robin */
    cache_slot cache[CACHE_SLOTS];
    const avk_plan *raw_plan;
    avk_schema_store *store;
    const avk_type *reader;
    const avk_schema *last_writer;
    const avk_plan *last_plan;
    avk_allocator alloc;
};

avk_status avk_message_decoder_new(const avk_message_decoder_options *opts,
                                   avk_message_decoder **out, avk_error *err)
{
    avk_allocator a;
    avk_message_decoder *d;
    if (out)
        *out = NULL;
    if (!opts || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_decoder_new: NULL argument");
    if (opts->struct_size != sizeof *opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_decoder_options.struct_size is %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    switch (opts->framing) {
    case AVK_FRAMING_RAW:
        if (!opts->plan)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_message_decoder_new: raw framing needs a plan");
        break;
    case AVK_FRAMING_SINGLE_OBJECT:
    case AVK_FRAMING_CONFLUENT:
        if (!opts->store)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_message_decoder_new: %s framing needs a schema store",
                                  avk_framing_name(opts->framing));
        break;
    default:
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_decoder_new: framing %d is none of raw, "
                              "single-object, confluent",
                              (int)opts->framing);
    }
    a = avki_allocator_or_libc(opts->allocator);
    d = (avk_message_decoder *)a.alloc(a.ctx, sizeof *d);
    if (!d)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory making a message decoder");
    memset(d, 0, sizeof *d);
    d->alloc = a;
    d->framing = opts->framing;
    d->store = opts->store;
    d->reader = opts->reader;
    if (opts->framing == AVK_FRAMING_RAW)
        d->raw_plan = opts->plan;
    *out = d;
    return AVK_OK;
}

void avk_message_decoder_free(avk_message_decoder *dec)
{
    if (dec)
        dec->alloc.free(dec->alloc.ctx, dec, sizeof *dec);
}

const avk_schema *avk_message_decoder_writer(const avk_message_decoder *dec)
{
    return dec ? dec->last_writer : NULL;
}

const avk_plan *avk_message_decoder_plan(const avk_message_decoder *dec)
{
    return dec ? dec->last_plan : NULL;
}

/* A key the cache lacks: the store's schema and plan, remembered. */
static AVK_COLD avk_status miss(avk_message_decoder *d, uint64_t key, avk_error *err)
{
    const avk_schema *writer;
    const avk_plan *plan;
    unsigned slot;
    avk_status st;
    if (d->framing == AVK_FRAMING_CONFLUENT)
        st = avk_schema_store_find_id(d->store, (uint32_t)key, &writer, err);
    else
        st = avk_schema_store_find_fingerprint(d->store, key, &writer, err);
    if (st != AVK_OK)
        return st;
    st = avk_schema_store_plan(d->store, writer, d->reader, &plan, err);
    if (st != AVK_OK)
        return st;
    if (d->cached < CACHE_SLOTS) {
        slot = d->cached++;
    } else {
        slot = d->victim;
        d->victim = (d->victim + 1) % CACHE_SLOTS;
    }
    d->cache[slot].key = key;
    d->cache[slot].writer = writer;
    d->cache[slot].plan = plan;
    d->last = slot;
    return AVK_OK;
}

static AVK_COLD avk_status datum_error(avk_status st, size_t header, avk_error *err)
{
    if (err && err->offset != AVK_OFFSET_UNKNOWN)
        err->offset += header;
    return st;
}

static AVK_COLD avk_status trailing(const avk_reader *r, size_t len, avk_error *err)
{
    size_t left = (size_t)(r->end - r->pos);
    size_t end = len - left;
    return avki_error_set(err, AVK_ERR_MALFORMED, end,
                          "%zu bytes after the datum (ends at offset %zu of %zu)", left, end,
                          len);
}

avk_status avk_message_decode(avk_message_decoder *dec, const void *msg, size_t len,
                              avk_arena *arena, avk_value *out, avk_error *err)
{
    const uint8_t *p = (const uint8_t *)msg;
    const avk_plan *plan;
    size_t header;
    uint64_t key;
    avk_reader r;
    avk_status st;
    if (AVK_UNLIKELY(!dec || !arena || !out || (!msg && len)))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_message_decode: NULL argument");
    switch (dec->framing) {
    case AVK_FRAMING_SINGLE_OBJECT:
        if (AVK_UNLIKELY(len < AVK_SINGLE_OBJECT_HEADER_SIZE || p[0] != 0xC3 || p[1] != 0x01))
            return avk_single_object_parse(msg, len, &key, err);
        memcpy(&key, p + 2, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        key = __builtin_bswap64(key);
#endif
        header = AVK_SINGLE_OBJECT_HEADER_SIZE;
        break;
    case AVK_FRAMING_CONFLUENT:
        if (AVK_UNLIKELY(len < AVK_CONFLUENT_HEADER_SIZE || p[0] != 0))
            return avk_confluent_parse(msg, len, NULL, err);
        key = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4];
        header = AVK_CONFLUENT_HEADER_SIZE;
        break;
    default: /* raw */
        plan = dec->raw_plan;
        header = 0;
        dec->last_plan = plan;
        goto decode;
    }
    /* The last message's schema first, then the other remembered ones. */
    if (AVK_LIKELY(dec->cached && dec->cache[dec->last].key == key)) {
        plan = dec->cache[dec->last].plan;
    } else {
        unsigned i;
        for (i = 0; i < dec->cached; i++)
            if (dec->cache[i].key == key)
                break;
        if (i < dec->cached) {
            dec->last = i;
        } else {
            st = miss(dec, key, err);
            if (st != AVK_OK)
                return st;
        }
        plan = dec->cache[dec->last].plan;
    }
    dec->last_writer = dec->cache[dec->last].writer;
    dec->last_plan = plan;
decode:
    /* (NULL + 0 is undefined in C: an empty raw message may come as NULL.) */
    avk_reader_init_memory(&r, p ? p + header : (const uint8_t *)"", len - header);
    st = avk_plan_decode(plan, &r, arena, out, err);
    if (AVK_UNLIKELY(st != AVK_OK))
        return datum_error(st, header, err);
    if (AVK_UNLIKELY(r.pos != r.end))
        return trailing(&r, len, err);
    return AVK_OK;
}
