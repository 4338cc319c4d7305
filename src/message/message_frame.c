/* Message framings: names, and the single-object and Confluent headers written and read. */
#include <stdint.h>
#include <string.h>

#include "avrokit/message.h"
#include "common/error.h"

static const char *const framing_names[] = {"raw", "single-object", "confluent"};

const char *avk_framing_name(avk_framing framing)
{
    if ((unsigned)framing >= sizeof framing_names / sizeof framing_names[0])
        return NULL;
    return framing_names[framing];
}

int avk_framing_parse(const char *name, avk_framing *out)
{
    size_t i;
    if (!name || !out)
        return -1;
    for (i = 0; i < sizeof framing_names / sizeof framing_names[0]; i++) {
        if (strcmp(name, framing_names[i]) == 0) {
            *out = (avk_framing)i;
            return 0;
        }
    }
    return -1;
}

/* The specification's "Single object encoding": the two-byte marker C3 01
 * (a version byte after a byte that is never the start of valid Avro JSON
 * or of a container file), then the fingerprint little-endian. */
void avk_single_object_header(uint64_t fingerprint, uint8_t out[AVK_SINGLE_OBJECT_HEADER_SIZE])
{
    int i;
    out[0] = 0xC3;
    out[1] = 0x01;
    for (i = 0; i < 8; i++)
        out[2 + i] = (uint8_t)(fingerprint >> (8 * i));
}

avk_status avk_single_object_parse(const void *msg, size_t len, uint64_t *fingerprint,
                                   avk_error *err)
{
    const uint8_t *p = (const uint8_t *)msg;
    uint64_t fp = 0;
    int i;
    if (!msg && len)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0,
                              "avk_single_object_parse: NULL message");
    /* The marker is checked first, so a message of other bytes is called
     * what it is even when it is also short. */
    if ((len >= 1 && p[0] != 0xC3) || (len >= 2 && p[1] != 0x01)) {
        if (len >= 2)
            return avki_error_set(err, AVK_ERR_MALFORMED, 0,
                                  "not a single-object message: starts with 0x%02X 0x%02X, "
                                  "not C3 01",
                                  p[0], p[1]);
        return avki_error_set(err, AVK_ERR_MALFORMED, 0,
                              "not a single-object message: starts with 0x%02X, not C3 01", p[0]);
    }
    if (len < AVK_SINGLE_OBJECT_HEADER_SIZE)
        return avki_error_set(err, AVK_ERR_TRUNCATED, len,
                              "single-object message of %zu bytes: the header takes 10 "
                              "(C3 01 and an 8-byte fingerprint)",
                              len);
    for (i = 7; i >= 0; i--)
        fp = fp << 8 | p[2 + i];
    if (fingerprint)
        *fingerprint = fp;
    return AVK_OK;
}

/* The Confluent wire format: a magic byte 0, then the registry's schema id
 * as a 4-byte big-endian number. */
void avk_confluent_header(uint32_t id, uint8_t out[AVK_CONFLUENT_HEADER_SIZE])
{
    out[0] = 0;
    out[1] = (uint8_t)(id >> 24);
    out[2] = (uint8_t)(id >> 16);
    out[3] = (uint8_t)(id >> 8);
    out[4] = (uint8_t)id;
}

avk_status avk_confluent_parse(const void *msg, size_t len, uint32_t *id, avk_error *err)
{
    const uint8_t *p = (const uint8_t *)msg;
    if (!msg && len)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, 0,
                              "avk_confluent_parse: NULL message");
    if (len >= 1 && p[0] != 0)
        return avki_error_set(err, AVK_ERR_MALFORMED, 0,
                              "not a Confluent message: starts with 0x%02X, not the magic byte 0",
                              p[0]);
    if (len < AVK_CONFLUENT_HEADER_SIZE)
        return avki_error_set(err, AVK_ERR_TRUNCATED, len,
                              "Confluent message of %zu bytes: the header takes 5 "
                              "(magic byte 0 and a 4-byte schema id)",
                              len);
    if (id)
        *id = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4];
    return AVK_OK;
}
