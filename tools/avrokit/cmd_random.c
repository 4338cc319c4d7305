/* avrokit random: a container file of random records of a schema, the same for the same seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "random_value.h"

#define PREFIX AVKCLI_PROG " random"

static const char *const help =
    "Usage: " PREFIX " --schema S.avsc --count N [options] OUT.avro\n"
    "\n"
    "Writes N random records of the schema in S.avsc to the container file OUT.avro\n"
    "('-': standard output). With --seed the output is the same, byte for byte, on\n"
    "every run (the file's sync marker comes from the seed too). OUT.avro is\n"
    "written beside itself and replaces an existing file only on success.\n"
    "\n"
    "Options:\n"
    "  --schema S     the schema of the records (required): a file, or the\n"
    "                 schema's JSON itself (text starting with {, [ or \")\n"
    "  --schema-file F  the same, from file F only\n"
    "  --count N      how many records (required)\n"
    "  --seed S       seed of the generator (default: a random one)\n"
    "  --codec C      null (default), deflate, snappy, zstandard, bzip2 or xz\n"
    "  --level L      the codec's compression level (0: its default)\n"
    "  --quiet        no progress line on standard error\n"
    "  -h, --help     show this help and exit\n"
    "\n"
    "Example:\n"
    "  " PREFIX " --schema user.avsc --count 100000 --seed 42 --codec deflate users.avro\n";

static int generate(const char *out, avk_file_writer *fw, const avk_type *t, uint64_t count,
                    avkcli_rng *rng, avk_arena *arena, avkcli_progress *prog)
{
    uint64_t i;
    avk_value v;
    avk_error err;
    for (i = 0; i < count; i++) {
        if (avkcli_random_value(t, rng, arena, &v, &err) != AVK_OK) {
            avkcli_progress_end(prog);
            fprintf(stderr, "%s: record %llu: %s\n", AVKCLI_PROG, (unsigned long long)i,
                    err.message);
            return AVKCLI_FAIL;
        }
        if (avk_file_writer_append(fw, &v, &err) != AVK_OK) {
            avkcli_progress_end(prog);
            fprintf(stderr, "%s: %s\n", strcmp(out, "-") == 0 ? "<stdout>" : out, err.message);
            return AVKCLI_FAIL;
        }
        avk_arena_reset(arena);
        if (avkcli_progress_due(prog, i + 1))
            avkcli_progress_update(prog, i + 1, 0);
    }
    return AVKCLI_OK;
}

int avkcli_cmd_random(int argc, char **argv)
{
    const char *schema_text = NULL, *schema_file = NULL, *count = NULL, *seed = NULL,
               *codec = NULL, *level = NULL;
    int quiet = 0, help_wanted, rc;
    size_t npos, i;
    char **pos;
    uint64_t n = 0, seed_value = 0, word = 0;
    uint8_t sync[AVK_FILE_SYNC_SIZE];
    avk_schema *schema = NULL;
    avk_arena *arena = NULL;
    avk_file_writer *fw;
    avk_file_writer_options wo;
    avk_error err;
    avkcli_rng rng, sync_rng;
    avkcli_progress prog;
    const avkcli_option opts[] = {
        {"--schema", 's', &schema_text, NULL, "a schema file (.avsc) or JSON"},
        {"--schema-file", 0, &schema_file, NULL, "a schema file (.avsc)"},
        {"--count", 'n', &count, NULL, "a number of records"},
        {"--seed", 0, &seed, NULL, "a whole number"},
        {"--codec", 0, &codec, NULL, "null, deflate, snappy, zstandard, bzip2 or xz"},
        {"--level", 0, &level, NULL, "a compression level"},
        {"--quiet", 'q', NULL, &quiet, NULL},
    };
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos)
        return AVKCLI_FAIL;
    avkcli_writer_options(&wo, NULL, NULL);
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK && !schema_text && !schema_file)
        rc = avkcli_usage_error(PREFIX, "missing --schema S.avsc");
    if (rc == AVKCLI_OK && schema_text && schema_file)
        rc = avkcli_usage_error(PREFIX, "give --schema or --schema-file, not both");
    if (rc == AVKCLI_OK && !count)
        rc = avkcli_usage_error(PREFIX, "missing --count N");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--count", count, &n);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--seed", seed, &seed_value);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_codec(PREFIX, codec, &wo.codec);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_int(PREFIX, "--level", level, &wo.level);
    if (rc == AVKCLI_OK)
        rc = avkcli_check_level(PREFIX, wo.codec, wo.level);
    if (rc == AVKCLI_OK && npos != 1)
        rc = npos ? avkcli_usage_error(PREFIX, "one OUT.avro only; '%s' is extra", pos[1])
                  : avkcli_usage_error(PREFIX, "missing OUT.avro ('-' for standard output)");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    if (!seed)
        seed_value = avkcli_random_seed();
    avkcli_rng_seed(&rng, seed_value);
    if (seed) {
        /* A sync marker from the seed (through its own generator, so the
         * records do not depend on it) makes the whole file reproducible. */
        avkcli_rng_seed(&sync_rng, seed_value ^ 0x73796e636d61726bull); /* "syncmark" */
        for (i = 0; i < sizeof sync; i++) {
            if (i % 8 == 0)
                word = avkcli_rng_next(&sync_rng);
            sync[i] = (uint8_t)(word >> (8 * (i % 8))); /* little-endian on any host */
        }
        wo.sync = sync;
    }
    rc = avkcli_load_schema_option(PREFIX, "--schema", schema_text, schema_file, &schema);
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_writer_open(pos[0], schema, &wo, &fw);
    if (rc == AVKCLI_OK) {
        avkcli_progress_start(&prog, "random", 0, n, quiet);
        rc = generate(pos[0], fw, avk_schema_root(schema), n, &rng, arena, &prog);
        avkcli_progress_end(&prog);
        rc = avkcli_writer_finish(fw, pos[0], rc);
    }
    avk_arena_free(arena);
    avk_schema_free(schema);
    free(pos);
    return rc;
}
