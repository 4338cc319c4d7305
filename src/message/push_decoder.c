/* Push decoder: the caller's bytes gathered in one buffer, messages (raw, single-object, Confluent; back to back or length-prefixed) handed out as each becomes whole. */
#include <string.h>

#include "avrokit/push.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "message/push_internal.h"

/*
 * Bytes fed are appended to buf; next decodes from there with memory
 * readers, so the decoder's fast paths apply and a value's strings may
 * point into buf. Bytes already used are dropped only by feed (and only
 * once they are at least as many as the bytes kept, so each byte is moved
 * O(1) times on average): values handed out stay valid until then.
 *
 * Back to back messages delimit themselves only through their schema, so
 * a message not yet whole is found out by trying: avk_plan_skip (cheaper
 * than decoding, nothing built) runs over what is buffered, and only when
 * it reaches the datum's end is the message decoded. A try that runs out
 * of bytes sets need, and next does not try again before more bytes came
 * (length prefixes, headers and container blocks say how many more).
 */

#define DEFAULT_MAX_MESSAGE ((uint64_t)64 << 20)
#define MIN_BUFFER ((size_t)4096)

avk_status avki_push_fail(avk_push_decoder *pd, avk_status st, const avk_error *e,
                          avk_error *err)
{
    pd->sticky = st;
    if (e && e->status == st)
        pd->sticky_err = *e;
    else
        avki_error_set(&pd->sticky_err, st, AVK_OFFSET_UNKNOWN, "%s", avk_status_name(st));
    if (err && err != e)
        *err = pd->sticky_err;
    return st;
}

static avk_status sticky(const avk_push_decoder *pd, avk_error *err)
{
    if (err)
        *err = pd->sticky_err;
    return pd->sticky;
}

/* ---- making and freeing --------------------------------------------------- */

static avk_status options_check(const avk_push_options *opts, avk_error *err)
{
    if (!opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_decoder_new: NULL options");
    if (opts->struct_size != sizeof *opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_options.struct_size is %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    if (opts->input == AVK_PUSH_CONTAINER) {
        if (opts->file && opts->file->struct_size != sizeof *opts->file)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_file_reader_options.struct_size is %zu, expected %zu",
                                  opts->file->struct_size, sizeof *opts->file);
        return AVK_OK;
    }
    if (opts->input != AVK_PUSH_MESSAGES && opts->input != AVK_PUSH_LENGTH_PREFIXED)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_options.input %d is no input kind", (int)opts->input);
    if (opts->message.struct_size != sizeof opts->message)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_options.message.struct_size is %zu, expected %zu",
                              opts->message.struct_size, sizeof opts->message);
    switch (opts->message.framing) {
    case AVK_FRAMING_RAW:
        if (!opts->message.plan)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_push_decoder_new: raw messages need a plan");
        return AVK_OK;
    case AVK_FRAMING_SINGLE_OBJECT:
    case AVK_FRAMING_CONFLUENT:
        if (!opts->message.store)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_push_decoder_new: %s messages need a schema store",
                                  avk_framing_name(opts->message.framing));
        return AVK_OK;
    default:
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_options.message.framing %d is no framing",
                              (int)opts->message.framing);
    }
}

avk_status avk_push_decoder_new(const avk_push_options *opts, avk_push_decoder **out,
                                avk_error *err)
{
    avk_allocator a;
    avk_push_decoder *pd;
    if (!out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_decoder_new: NULL out");
    *out = NULL;
    AVK_TRY(options_check(opts, err));
    a = avki_allocator_or_libc(opts->allocator);
    pd = a.alloc(a.ctx, sizeof *pd);
    if (!pd)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a push decoder");
    memset(pd, 0, sizeof *pd);
    pd->alloc = a;
    pd->input = opts->input;
    pd->max_message = opts->max_message ? opts->max_message : DEFAULT_MAX_MESSAGE;
    if (opts->input == AVK_PUSH_CONTAINER) {
        avki_push_container_init(pd, opts->file);
        *out = pd;
        return AVK_OK;
    }
    pd->framing = opts->message.framing;
    pd->raw_plan = opts->message.plan;
    pd->store = opts->message.store;
    /* Raw datums back to back are decoded by the plan itself: their
     * decoder would only add the check that nothing follows the datum. */
    if (pd->framing != AVK_FRAMING_RAW || pd->input == AVK_PUSH_LENGTH_PREFIXED) {
        avk_message_decoder_options mo = opts->message;
        avk_status st;
        if (!mo.allocator)
            mo.allocator = opts->allocator;
        st = avk_message_decoder_new(&mo, &pd->dec, err);
        if (st != AVK_OK) {
            a.free(a.ctx, pd, sizeof *pd);
            return st;
        }
    }
    *out = pd;
    return AVK_OK;
}

void avk_push_decoder_free(avk_push_decoder *pd)
{
    avk_allocator a;
    if (!pd)
        return;
    a = pd->alloc;
    if (pd->input == AVK_PUSH_CONTAINER)
        avki_push_container_destroy(pd);
    avk_message_decoder_free(pd->dec);
    if (pd->buf)
        a.free(a.ctx, pd->buf, pd->cap);
    a.free(a.ctx, pd, sizeof *pd);
}

/* ---- feeding -------------------------------------------------------------- */

static uint64_t keep_from(const avk_push_decoder *pd)
{
    return pd->input == AVK_PUSH_CONTAINER ? avki_push_container_keep(pd) : pd->pos;
}

/* Room for len more bytes: used bytes dropped when they are at least as
 * many as those kept (or room is short), the buffer doubled as needed. */
static avk_status make_room(avk_push_decoder *pd, size_t len, avk_error *err)
{
    uint64_t keep = keep_from(pd);
    size_t drop = (size_t)(keep - pd->base), kept = (size_t)(pd->end - keep);
    size_t held = (size_t)(pd->end - pd->base);
    if (drop > 0 && (drop >= kept || pd->cap - held < len)) {
        memmove(pd->buf, pd->buf + drop, kept);
        pd->base = keep;
        held = kept;
    }
    if (pd->cap - held < len) {
        size_t ncap = pd->cap ? pd->cap : MIN_BUFFER;
        uint8_t *nb;
        if (len > SIZE_MAX - held)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory: %zu bytes buffered and %zu fed", held, len);
        while (ncap < held + len)
            ncap = ncap > SIZE_MAX / 2 ? held + len : ncap * 2;
        nb = pd->buf ? pd->alloc.realloc(pd->alloc.ctx, pd->buf, pd->cap, ncap)
                     : pd->alloc.alloc(pd->alloc.ctx, ncap);
        if (!nb)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory for a push buffer of %zu bytes", ncap);
        pd->buf = nb;
        pd->cap = ncap;
    }
    return AVK_OK;
}

/* The message (or block) at pos cannot be whole in fewer than need bytes:
 * when that is more than max_message, it is refused. */
avk_status avki_push_check_want(avk_push_decoder *pd, uint64_t need, avk_error *err)
{
    avk_error e;
    /* A length prefix is not part of the message it counts. */
    uint64_t frame = pd->input == AVK_PUSH_LENGTH_PREFIXED ? 4 : 0;
    if (need <= pd->pos || need - pd->pos <= pd->max_message + frame)
        return AVK_OK;
    avki_error_set(&e, AVK_ERR_LIMIT, pd->pos,
                   "the %s at byte %llu takes more than %llu bytes (max_message)",
                   pd->input == AVK_PUSH_CONTAINER ? (pd->hdr_done ? "block" : "file header")
                                                   : "message",
                   (unsigned long long)pd->pos, (unsigned long long)pd->max_message);
    return avki_push_fail(pd, AVK_ERR_LIMIT, &e, err);
}

avk_status avk_push_decoder_feed(avk_push_decoder *pd, const void *data, size_t len,
                                 avk_error *err)
{
    if (!pd || (!data && len))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_decoder_feed: NULL %s", pd ? "data" : "decoder");
    if (pd->sticky != AVK_OK)
        return sticky(pd, err);
    if (pd->ended)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_decoder_feed after avk_push_decoder_end");
    if (len == 0)
        return AVK_OK;
    AVK_TRY(make_room(pd, len, err));
    memcpy(pd->buf + (pd->end - pd->base), data, len);
    pd->end += (uint64_t)len;
    /* No limit check here: next checks every need it sets against
     * max_message, so bytes up to that need are always within it. */
    return AVK_OK;
}

/* ---- messages ------------------------------------------------------------- */

/* The try at pos ran out of bytes: wait until at least need are there. */
static avk_status wait_more(avk_push_decoder *pd, uint64_t need, avk_error *err)
{
    if (need <= pd->end)
        need = pd->end + 1;
    pd->need = need;
    return avki_push_check_want(pd, need, err);
}

/* An error of a message decoded from pos + at: offsets made the input's. */
static void shift_error(avk_error *e, uint64_t by)
{
    if (e->offset != AVK_OFFSET_UNKNOWN)
        e->offset += by;
}

static void took(avk_push_decoder *pd, uint64_t len, int *got)
{
    pd->pos += len;
    pd->need = 0;
    *got = 1;
}

/* Raw datums: offsets in the decoder's errors are the input's, as the
 * memory reader counts from pos. */
static avk_status raw_next(avk_push_decoder *pd, const uint8_t *p, size_t avail,
                           avk_arena *arena, avk_value *out, int *got, avk_error *err)
{
    avk_reader r;
    avk_error e;
    avk_status st;
    if (!pd->ended) {
        avk_reader_init_memory(&r, p, avail);
        r.base_offset = pd->pos;
        st = avk_plan_skip(pd->raw_plan, &r, &e);
        if (st == AVK_ERR_TRUNCATED)
            return wait_more(pd, 0, err);
    }
    /* Decoded over all that is buffered, as a pull decoder over the
     * whole input would (skip jumps over sized blocks, decoding reads
     * them, and damage inside them decides where the datum ends). */
    avk_reader_init_memory(&r, p, avail);
    r.base_offset = pd->pos;
    st = avk_plan_decode(pd->raw_plan, &r, arena, out, &e);
    if (st == AVK_OK && r.pos == p) {
        /* Values of no bytes (null, records of nulls) back to back: the
         * stream would give them forever. */
        avki_error_set(&e, AVK_ERR_MALFORMED, pd->pos,
                       "raw datums of this schema take no bytes, so a stream of them back to "
                       "back cannot say how many there are (use length-prefixed input)");
        return avki_push_fail(pd, AVK_ERR_MALFORMED, &e, err);
    }
    if (st == AVK_OK) {
        /* Refused whole as it would be while arriving. */
        AVK_TRY(avki_push_check_want(pd, pd->pos + (uint64_t)(r.pos - p), err));
        took(pd, (uint64_t)(r.pos - p), got);
        return AVK_OK;
    }
    if (st == AVK_ERR_TRUNCATED && !pd->ended)
        return wait_more(pd, 0, err);
    return avki_push_fail(pd, st, &e, err);
}

/* The writer schema's own plan for a header's key (cached for the next
 * message of the same schema). */
static avk_status key_plan(avk_push_decoder *pd, uint64_t key, avk_error *err)
{
    const avk_schema *w;
    const avk_plan *plan;
    if (pd->have_key && pd->key == key)
        return AVK_OK;
    if (pd->framing == AVK_FRAMING_SINGLE_OBJECT)
        AVK_TRY(avk_schema_store_find_fingerprint(pd->store, key, &w, err));
    else
        AVK_TRY(avk_schema_store_find_id(pd->store, (uint32_t)key, &w, err));
    AVK_TRY(avk_schema_store_plan(pd->store, w, NULL, &plan, err));
    pd->have_key = 1;
    pd->key = key;
    pd->key_plan = plan;
    return AVK_OK;
}

/* The header's key, or the header's error. */
static avk_status header_key(const avk_push_decoder *pd, const uint8_t *p, size_t avail,
                             uint64_t *key, avk_error *err)
{
    uint32_t id;
    if (pd->framing == AVK_FRAMING_SINGLE_OBJECT)
        return avk_single_object_parse(p, avail, key, err);
    AVK_TRY(avk_confluent_parse(p, avail, &id, err));
    *key = id;
    return AVK_OK;
}

static size_t header_size(const avk_push_decoder *pd)
{
    return pd->framing == AVK_FRAMING_SINGLE_OBJECT ? AVK_SINGLE_OBJECT_HEADER_SIZE
                                                    : AVK_CONFLUENT_HEADER_SIZE;
}

/* Single-object or Confluent messages back to back: the header, then the
 * datum's end found by skipping with the writer's plan, then the message
 * decoded whole by the message decoder (store, cache and resolution). */
static avk_status framed_next(avk_push_decoder *pd, const uint8_t *p, size_t avail,
                              avk_arena *arena, avk_value *out, int *got, avk_error *err)
{
    size_t hs = header_size(pd), len = avail;
    uint64_t key = 0;
    avk_reader r;
    avk_error e;
    avk_status st;
    /* A bad marker or magic byte is told as soon as its bytes are here,
     * not taken for a message still arriving. */
    st = header_key(pd, p, avail, &key, &e);
    if (avail < hs && st == AVK_ERR_TRUNCATED && !pd->ended)
        return wait_more(pd, pd->pos + hs, err);
    if (st == AVK_OK)
        st = key_plan(pd, key, &e);
    if (st == AVK_OK) {
        avk_reader_init_memory(&r, p + hs, avail - hs);
        st = avk_plan_skip(pd->key_plan, &r, &e);
        if (st == AVK_ERR_TRUNCATED && !pd->ended)
            return wait_more(pd, 0, err);
        if (st == AVK_OK) {
            len = hs + (size_t)(r.pos - (p + hs));
            AVK_TRY(avki_push_check_want(pd, pd->pos + len, err));
        }
    }
    if (st != AVK_OK && st != AVK_ERR_TRUNCATED && st != AVK_ERR_MALFORMED &&
        st != AVK_ERR_LIMIT) {
        shift_error(&e, pd->pos);
        return avki_push_fail(pd, st, &e, err);
    }
    /* Errors found on the way are the decoder's to tell, in its words. */
    st = avk_message_decode(pd->dec, p, len, arena, out, &e);
    if (st == AVK_OK) {
        pd->schema = avk_message_decoder_writer(pd->dec);
        took(pd, len, got);
        return AVK_OK;
    }
    shift_error(&e, pd->pos);
    return avki_push_fail(pd, st, &e, err);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Whether the length-prefixed message at pos is whole; else sets e (at
 * end) or need. */
static avk_status prefixed_whole(avk_push_decoder *pd, size_t avail, uint32_t *len, int *whole,
                                 avk_error *e)
{
    const uint8_t *p = pd->buf + (pd->pos - pd->base);
    *whole = 0;
    if (avail < 4)
        return avki_error_set(e, AVK_ERR_TRUNCATED, pd->pos,
                              "the input ends inside the 4-byte length of the message at byte "
                              "%llu (%zu bytes of it are there)",
                              (unsigned long long)pd->pos, avail);
    *len = be32(p);
    if (*len > pd->max_message)
        return avki_error_set(e, AVK_ERR_LIMIT, pd->pos,
                              "the message at byte %llu says it takes %lu bytes, more than "
                              "max_message (%llu)",
                              (unsigned long long)pd->pos, (unsigned long)*len,
                              (unsigned long long)pd->max_message);
    if (avail - 4 < *len)
        return avki_error_set(e, AVK_ERR_TRUNCATED, pd->pos,
                              "the input ends inside the message at byte %llu: its length says "
                              "%lu bytes, %zu are there",
                              (unsigned long long)pd->pos, (unsigned long)*len, avail - 4);
    *whole = 1;
    return AVK_OK;
}

/* Length-prefixed: a message that fails to decode is dropped (its length
 * says where the next starts); other errors stay. */
static avk_status prefixed_next(avk_push_decoder *pd, size_t avail, avk_arena *arena,
                                avk_value *out, int *got, avk_error *err)
{
    uint32_t len = 0;
    int whole;
    avk_error e;
    uint64_t at;
    avk_status st = prefixed_whole(pd, avail, &len, &whole, &e);
    if (st == AVK_ERR_TRUNCATED && !pd->ended)
        return wait_more(pd, pd->pos + (avail < 4 ? 4 : 4 + (uint64_t)len), err);
    if (st != AVK_OK)
        return avki_push_fail(pd, st, &e, err);
    at = pd->pos + 4;
    st = avk_message_decode(pd->dec, pd->buf + (at - pd->base), len, arena, out, &e);
    pd->pos = at + len;
    pd->need = 0;
    if (st == AVK_OK) {
        pd->schema = avk_message_decoder_writer(pd->dec);
        *got = 1;
        return AVK_OK;
    }
    shift_error(&e, at);
    if (st == AVK_ERR_NO_MEMORY)
        return avki_push_fail(pd, st, &e, err);
    if (err)
        *err = e;
    return st;
}

avk_status avk_push_decoder_next(avk_push_decoder *pd, avk_arena *arena, avk_value *out,
                                 int *got, avk_error *err)
{
    size_t avail;
    const uint8_t *p;
    if (got)
        *got = 0;
    if (!pd || !arena || !out || !got)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_decoder_next: NULL argument");
    if (pd->sticky != AVK_OK)
        return sticky(pd, err);
    /* The last try ran out of bytes and not enough came since. */
    if (pd->end < pd->need && !pd->ended)
        return AVK_OK;
    if (pd->input == AVK_PUSH_CONTAINER)
        return avki_push_container_next(pd, arena, out, got, err);
    avail = (size_t)(pd->end - pd->pos);
    if (avail == 0)
        return AVK_OK;
    p = pd->buf + (pd->pos - pd->base);
    if (pd->input == AVK_PUSH_LENGTH_PREFIXED)
        return prefixed_next(pd, avail, arena, out, got, err);
    if (pd->framing == AVK_FRAMING_RAW)
        return raw_next(pd, p, avail, arena, out, got, err);
    return framed_next(pd, p, avail, arena, out, got, err);
}

/* ---- the end -------------------------------------------------------------- */

/* Whether the bytes at pos (messages back to back) end inside a message:
 * found as next finds it, without decoding. */
static int message_cut(avk_push_decoder *pd, const uint8_t *p, size_t avail)
{
    avk_reader r;
    avk_error e;
    uint64_t key;
    if (pd->framing == AVK_FRAMING_RAW) {
        avk_reader_init_memory(&r, p, avail);
        return avk_plan_skip(pd->raw_plan, &r, &e) == AVK_ERR_TRUNCATED;
    }
    if (avail < header_size(pd))
        return 1;
    /* A bad header or an unknown schema is next's to report. */
    if (header_key(pd, p, avail, &key, &e) != AVK_OK || key_plan(pd, key, &e) != AVK_OK)
        return 0;
    avk_reader_init_memory(&r, p + header_size(pd), avail - header_size(pd));
    return avk_plan_skip(pd->key_plan, &r, &e) == AVK_ERR_TRUNCATED;
}

avk_status avk_push_decoder_end(avk_push_decoder *pd, avk_error *err)
{
    size_t avail;
    if (!pd)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_push_decoder_end: NULL decoder");
    pd->ended = 1;
    if (pd->sticky != AVK_OK)
        return sticky(pd, err);
    if (pd->input == AVK_PUSH_CONTAINER)
        return avki_push_container_end(pd, err);
    avail = (size_t)(pd->end - pd->pos);
    if (avail == 0)
        return AVK_OK;
    if (pd->input == AVK_PUSH_LENGTH_PREFIXED) {
        uint32_t len;
        int whole;
        avk_error e;
        avk_status st = prefixed_whole(pd, avail, &len, &whole, &e);
        if (st != AVK_OK) { /* cut short, or a length past max_message */
            if (err)
                *err = e;
            return st;
        }
        return AVK_OK;
    }
    if (message_cut(pd, pd->buf + (pd->pos - pd->base), avail))
        return avki_error_set(err, AVK_ERR_TRUNCATED, pd->pos,
                              "the input ends inside the message at byte %llu (%zu bytes of "
                              "it are there)",
                              (unsigned long long)pd->pos, avail);
    return AVK_OK;
}

uint64_t avk_push_decoder_offset(const avk_push_decoder *pd)
{
    if (!pd)
        return 0;
    return pd->input == AVK_PUSH_CONTAINER ? pd->consumed : pd->pos;
}

const avk_schema *avk_push_decoder_schema(const avk_push_decoder *pd)
{
    if (!pd)
        return NULL;
    return pd->input == AVK_PUSH_CONTAINER ? pd->hdr.schema : pd->schema;
}
