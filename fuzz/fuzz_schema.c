/* Fuzz target: schema JSON; a schema that parses must survive canonical form and full JSON round trips. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/schema.h"
#include "avrokit/writer.h"
#include "fuzz.h"
#include "schema_ambiguity.h"

/* Small limits keep each run fast; the round trips reparse with the
 * defaults, since the written forms may be longer than the input. */
#define FUZZ_MAX_DEPTH 32
#define FUZZ_MAX_SIZE ((size_t)64 << 10)
#define FUZZ_MAX_MEMORY ((size_t)16 << 20)


static void rabin_of(const avk_type *t, uint8_t out[8])
{
    uint8_t fp[32];
    size_t n = 0;
    avk_error err;
    avk_status st = avk_type_fingerprint(t, AVK_FINGERPRINT_RABIN, fp, &n, &err);
    AVKF_CHECK(st == AVK_OK, "avk_type_fingerprint: %s", err.message);
    AVKF_CHECK(n == 8, "Rabin fingerprint of %zu bytes", n);
    memcpy(out, fp, 8);
}

/* Canonical form -> parse -> the same canonical form and fingerprint. */
static void check_canonical(const avk_type *root)
{
    avk_writer w, w2;
    avk_error err;
    avk_schema *again = NULL;
    const uint8_t *text, *text2;
    size_t len, len2, i;
    uint8_t fp1[8], fp2[8];
    uint64_t r;
    avk_status st;

    st = avk_writer_init_memory(&w, NULL, &err);
    AVKF_CHECK(st == AVK_OK, "writer: %s", err.message);
    st = avk_type_write_canonical(root, &w, &err);
    AVKF_CHECK(st == AVK_OK, "avk_type_write_canonical: %s", err.message);
    text = avk_writer_data(&w, &len);

    /* The Rabin fingerprint is CRC-64-AVRO of exactly these bytes, little-endian. */
    rabin_of(root, fp1);
    r = avk_rabin64(text, len);
    for (i = 0; i < 8; i++)
        AVKF_CHECK(fp1[i] == (uint8_t)(r >> (8 * i)), "fingerprint byte %zu differs from avk_rabin64", i);

    st = avk_schema_parse((const char *)text, len, NULL, &again, &err);
    AVKF_CHECK(st == AVK_OK, "canonical form does not parse (%s): %s\n  %.*s",
               avk_status_name(st), err.message, (int)(len < 2000 ? len : 2000), (const char *)text);
    rabin_of(avk_schema_root(again), fp2);
    AVKF_CHECK(memcmp(fp1, fp2, 8) == 0, "fingerprints differ after a canonical round trip");

    st = avk_writer_init_memory(&w2, NULL, &err);
    AVKF_CHECK(st == AVK_OK, "writer: %s", err.message);
    st = avk_type_write_canonical(avk_schema_root(again), &w2, &err);
    AVKF_CHECK(st == AVK_OK, "avk_type_write_canonical (again): %s", err.message);
    text2 = avk_writer_data(&w2, &len2);
    AVKF_CHECK(len == len2 && memcmp(text, text2, len) == 0, "canonical form not stable");

    avk_writer_destroy(&w2);
    avk_schema_free(again);
    avk_writer_destroy(&w);
}

/* Full JSON (compact and pretty) -> parse -> an equal schema. */
static void check_full_json(const avk_type *root, int pretty)
{
    avk_writer w;
    avk_error err;
    avk_schema *again = NULL;
    const uint8_t *text;
    size_t len;
    avk_status st;

    st = avk_writer_init_memory(&w, NULL, &err);
    AVKF_CHECK(st == AVK_OK, "writer: %s", err.message);
    st = avk_type_write_json(root, pretty, &w, &err);
    AVKF_CHECK(st == AVK_OK, "avk_type_write_json: %s", err.message);
    text = avk_writer_data(&w, &len);
    st = avk_schema_parse((const char *)text, len, NULL, &again, &err);
    AVKF_CHECK(st == AVK_OK, "full JSON (pretty %d) does not parse (%s): %s\n  %.*s", pretty,
               avk_status_name(st), err.message, (int)(len < 2000 ? len : 2000), (const char *)text);
    AVKF_CHECK(avk_type_equal(root, avk_schema_root(again)) == 1,
               "full JSON (pretty %d) parses to a different schema:\n  %.*s", pretty,
               (int)(len < 2000 ? len : 2000), (const char *)text);
    AVKF_CHECK(avk_type_equal(avk_schema_root(again), root) == 1, "avk_type_equal is not symmetric");
    avk_schema_free(again);
    avk_writer_destroy(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    avk_schema_options opts;
    avk_schema *s = NULL;
    avk_error err;
    avk_status st;
    const avk_type *root;

    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.max_depth = FUZZ_MAX_DEPTH;
    opts.max_size = FUZZ_MAX_SIZE;
    opts.max_memory = FUZZ_MAX_MEMORY;
    st = avk_schema_parse((const char *)data, size, &opts, &s, &err);
    if (st != AVK_OK) {
        AVKF_CHECK(s == NULL, "*out set after a failed parse");
        AVKF_CHECK(st == AVK_ERR_SCHEMA || st == AVK_ERR_MALFORMED || st == AVK_ERR_LIMIT ||
                       st == AVK_ERR_NO_MEMORY,
                   "unexpected status %s", avk_status_name(st));
        AVKF_CHECK(err.status == st, "err.status %s, returned %s", avk_status_name(err.status),
                   avk_status_name(st));
        AVKF_CHECK(err.message[0] != '\0', "empty message for %s", avk_status_name(st));
        AVKF_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL, "unterminated message");
        AVKF_CHECK(memchr(err.path, '\0', sizeof err.path) != NULL, "unterminated path");
        return 0;
    }
    AVKF_CHECK(s != NULL, "OK without a schema");
    root = avk_schema_root(s);
    AVKF_CHECK(avk_type_equal(root, root) == 1, "a schema is not equal to itself");

    if (!avkt_null_ns_ambiguous(root))
        check_canonical(root);
    check_full_json(root, 0);
    check_full_json(root, 1);
    avk_schema_free(s);
    return 0;
}
