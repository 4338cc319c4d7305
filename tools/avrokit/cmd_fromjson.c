/* avrokit fromjson: a stream of Avro JSON values (any layout) into a container file, in about one value's memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_input.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " fromjson"

static const char *const help =
    "Usage: " PREFIX " --schema S.avsc [options] JSON [OUT.avro]\n"
    "       " PREFIX " --append [options] JSON OUT.avro\n"
    "\n"
    "Reads JSON ('-': standard input): values of the schema in the Avro JSON\n"
    "encoding (as tojson prints them: unions as null or {\"branch\": value}, bytes\n"
    "as strings of code points 0-255; record fields left out take their defaults),\n"
    "one after the other in any layout: one per line, several on a line, pretty-\n"
    "printed over many lines, blank lines between. Writes them to the container\n"
    "file OUT.avro ('-' or left out: standard output). Memory stays that of one\n"
    "value and a read buffer, whatever the input's size. A value that does not\n"
    "parse or fit the schema stops the run with its line, column and value path,\n"
    "and no output file is left behind.\n"
    "\n"
    "With --append the values go at the end of the existing container file\n"
    "OUT.avro, in its own schema (--schema, if given, must be the same) and codec;\n"
    "the file's blocks are checked first. A file that ends with a torn tail (the\n"
    "start of a block a killed writer did not finish) is refused, or with\n"
    "--truncate-torn-tail cut back to its last complete block first. On success\n"
    "the new records are on disk (fsync) before the exit status says so; on\n"
    "failure they are taken off again.\n"
    "\n"
    "Options:\n"
    "  --schema S       the schema of the values (required)\n"
    "  --schema-file S  the same as --schema\n"
    "  --codec C        null (default), deflate, snappy, zstandard, bzip2 or xz\n"
    "  --level L        the codec's compression level (0: its default)\n"
    "  --append         add the values to the end of OUT.avro (see above)\n"
    "  --truncate-torn-tail  with --append: cut a torn tail instead of refusing\n"
    "  --max-depth N    nesting of one value (records, arrays, maps, unions)\n"
    "  --max-bytes N    length of one string or bytes value\n"
    "  --max-items N    items of one array or map\n"
    "  --max-memory N   memory one value may take (its parsed text and itself)\n"
    "                   (limits: 0 or left out is the library's default)\n"
    "  --quiet          no progress line on standard error\n"
    "  -h, --help       show this help and exit\n"
    "\n"
    "Example:\n"
    "  " PREFIX " --schema user.avsc --codec zstandard users.json users.avro\n"
    "  " AVKCLI_PROG " tojson --pretty users.avro | " PREFIX " --schema user.avsc - copy.avro\n";

static int convert(avkcli_input *in, avk_file_writer *fw, const char *out_path,
                   const avk_type *type, const avk_limits *lim, avk_arena *arena,
                   avkcli_progress *prog)
{
    avk_json_read_options o;
    avk_value v;
    avk_error err;
    uint64_t records = 0;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.limits = *lim;
    for (;;) {
        int got, bad_value;
        int rc = avkcli_input_next_json(in, type, &o, arena, &v, &got, &bad_value, &err);
        if (rc != AVKCLI_OK && bad_value) {
            avkcli_progress_end(prog);
            avkcli_input_print_json_error(in, &err);
        }
        if (rc != AVKCLI_OK || !got)
            return rc;
        if (avk_file_writer_append(fw, &v, &err) != AVK_OK) {
            avkcli_progress_end(prog);
            /* Writing a full block failed: the output's fault, not the value's. */
            if (err.status == AVK_ERR_IO)
                fprintf(stderr, "%s: %s\n",
                        strcmp(out_path, "-") == 0 ? "<stdout>" : out_path, err.message);
            else
                fprintf(stderr, "%s: the value ending at line %llu: %s\n",
                        avkcli_display_name(in->name), (unsigned long long)in->line,
                        err.message);
            return AVKCLI_FAIL;
        }
        avk_arena_reset(arena);
        if (avkcli_progress_due(prog, ++records))
            avkcli_progress_update(prog, records, in->offset);
    }
}

int avkcli_cmd_fromjson(int argc, char **argv)
{
    const char *schema_path = NULL, *schema_file = NULL, *codec = NULL, *level = NULL;
    const char *max_depth = NULL, *max_bytes = NULL, *max_items = NULL, *max_memory = NULL;
    const char *out_path;
    uint64_t depth = 0;
    int quiet = 0, help_wanted, rc, append = 0, cut_torn = 0;
    size_t npos;
    char **pos;
    avk_schema *schema = NULL;
    avk_arena *arena = NULL;
    avk_file_writer *fw = NULL;
    avk_file_writer_options wo;
    avk_limits lim;
    avk_error err;
    avkcli_progress prog;
    avkcli_input in;
    const avkcli_option opts[] = {
        {"--schema", 's', &schema_path, NULL, "a schema"},
        {"--schema-file", 0, &schema_file, NULL, "a schema file"},
        {"--codec", 0, &codec, NULL, "null, deflate, snappy, zstandard, bzip2 or xz"},
        {"--level", 0, &level, NULL, "a compression level"},
        {"--max-depth", 0, &max_depth, NULL, "a number of levels"},
        {"--max-bytes", 0, &max_bytes, NULL, "a number of bytes"},
        {"--max-items", 0, &max_items, NULL, "a number of items"},
        {"--max-memory", 0, &max_memory, NULL, "a number of bytes"},
        {"--quiet", 'q', NULL, &quiet, NULL},
        {"--append", 0, NULL, &append, NULL},
        {"--truncate-torn-tail", 0, NULL, &cut_torn, NULL},
    };
    memset(&in, 0, sizeof in);
    in.fd = -1;
    memset(&lim, 0, sizeof lim);
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    avkcli_writer_options(&wo, NULL, NULL);
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_codec(PREFIX, codec, &wo.codec);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_int(PREFIX, "--level", level, &wo.level);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-depth", max_depth, &depth);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-bytes", max_bytes, &lim.max_bytes);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-items", max_items, &lim.max_items);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-memory", max_memory, &lim.max_memory);
    lim.max_depth = depth > SIZE_MAX ? SIZE_MAX : (size_t)depth;
    if (rc == AVKCLI_OK && schema_path && schema_file)
        rc = avkcli_usage_error(PREFIX, "--schema and --schema-file both given: one schema only");
    if (!schema_path)
        schema_path = schema_file;
    if (rc == AVKCLI_OK && !schema_path && !append)
        rc = avkcli_usage_error(PREFIX, "missing --schema S.avsc");
    if (rc == AVKCLI_OK && append && npos != 2)
        rc = avkcli_usage_error(PREFIX, "--append needs JSON and OUT.avro, the file to add to");
    if (rc == AVKCLI_OK && append && codec)
        rc = avkcli_usage_error(PREFIX, "--codec with --append: appended blocks take the "
                                        "file's own codec");
    if (rc == AVKCLI_OK && cut_torn && !append)
        rc = avkcli_usage_error(PREFIX, "--truncate-torn-tail goes with --append");
    if (rc == AVKCLI_OK && (npos < 1 || npos > 2))
        rc = avkcli_usage_error(PREFIX, "want JSON and optionally OUT.avro ('-' for standard "
                                        "input/output)");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    out_path = npos == 2 ? pos[1] : "-";
    rc = avkcli_check_output(out_path, pos, 1);
    if (rc == AVKCLI_OK && schema_path)
        rc = avkcli_load_schema(schema_path, &schema);
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK) {
        rc = avkcli_input_open(&in, pos[0]);
        /* A value is parsed as soon as its text is there (a pipe's first
         * bytes are not held back for a whole buffer), in fromjson's words. */
        in.first_need = 1;
        in.words = AVKCLI_INPUT_WORDS_FROMJSON;
    }
    if (rc == AVKCLI_OK)
        rc = append ? avkcli_append_open(out_path, schema, &wo, cut_torn, &fw)
                    : avkcli_writer_open(out_path, schema, &wo, &fw);
    if (rc == AVKCLI_OK) {
        avkcli_progress_start(&prog, "fromjson", avkcli_file_size(pos[0]), 0, quiet);
        rc = convert(&in, fw, out_path, avk_schema_root(avk_file_writer_schema(fw)), &lim, arena,
                     &prog);
        avkcli_progress_end(&prog);
        rc = append ? avkcli_append_finish(fw, out_path, rc)
                    : avkcli_writer_finish(fw, out_path, rc);
    }
    avkcli_input_close(&in);
    avk_arena_free(arena);
    avk_schema_free(schema);
    free(pos);
    return rc;
}
